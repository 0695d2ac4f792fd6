/* model_check.h - every explained cell of a model's own results (core/
 * model_explain.h) rebuilt from its terms, for tests/test_model.c and
 * tests/model_dump.c: the arithmetic a line shows must give the cell bit
 * for bit. */
#ifndef QKV_TEST_MODEL_CHECK_H
#define QKV_TEST_MODEL_CHECK_H

#include "core/model_explain.h"

#include <math.h>

/* The cell rebuilt from the explanation's own numbers, by its formula. */
static double model_check_rebuild(const ModelExplain *e)
{
    switch (e->kind) {
    case MX_EMBED:  return e->e + e->p;
    case MX_STREAM: return e->h;
    case MX_RESID:  return e->h + e->y;
    case MX_NORM:
        if (e->norm == NORM_NONE)
            return e->x;
        if (e->norm == NORM_LAYER && e->mean != e->xsum / e->n)
            return NAN;
        if (e->var != e->sum / e->n || e->sigma != sqrt(e->var + e->eps) ||
            e->xhat != (e->x - e->mean) / e->sigma)
            return NAN;
        return e->xhat * e->g + e->beta;
    case MX_FFN_HIDDEN:
        if (e->pre != e->sum + e->bias)
            return NAN;
        if (!e->activated)
            return e->pre;
        return e->act == ACT_RELU ? (e->pre > 0 ? e->pre : 0.0) : e->pre * e->phi;
    case MX_FFN_OUT: return e->ffn == e->sum + e->bias ? e->resid + e->ffn : NAN;
    case MX_LOGIT:   return e->sum;
    case MX_PROB:    return e->prod[e->j] / e->sum;
    default:         return NAN;
    }
}

/* The sums' own terms: prod = a * b and partial the running sums (MX_NORM:
 * prod the squares). Returns false on the first that differs. */
static bool model_check_terms(const ModelExplain *e)
{
    double s = 0.0;
    for (int k = 0; k < e->n; k++) {
        if (e->kind != MX_NORM && e->kind != MX_PROB && e->prod[k] != e->a[k] * e->b[k])
            return false;
        if (e->kind == MX_PROB && e->b[k] != e->a[k] / e->temp)
            return false;
        s += e->prod[k];
        if (e->partial[k] != s)
            return false;
    }
    return e->n == 0 || e->sum == s;
}

/* Every cell of every explained result of m (reached to the end): how
 * many did not rebuild bit for bit; *cells counts them all. */
static int model_check_explain(const Model *m, int *cells)
{
    static const ModelMatKind per_layer[] = {MM_H_IN, MM_A, MM_H_MID, MM_B, MM_U, MM_F, MM_H};
    static const ModelMatKind top[] = {MM_H_FINAL, MM_LOGITS, MM_PROBS};
    ModelRef refs[MODEL_LAYERS_MAX * 7 + 3];
    int nr = 0, bad = 0;
    for (int l = 1; l <= m->cfg.layers; l++)
        for (int k = 0; k < 7; k++)
            refs[nr++] = (ModelRef){per_layer[k], l, M_X};
    for (int k = 0; k < 3; k++)
        refs[nr++] = (ModelRef){top[k], 0, M_X};
    *cells = 0;
    static ModelExplain e; /* 8 KB of terms: not on the stack of every caller */
    for (int r = 0; r < nr; r++) {
        const Mat *x = model_mat(m, refs[r]);
        for (int i = 0; x && i < x->rows; i++)
            for (int j = 0; j < x->cols; j++) {
                ++*cells;
                bool ok = model_explain(m, refs[r], i, j, &e) && e.result == MAT_AT(x, i, j) &&
                          model_check_rebuild(&e) == e.result && model_check_terms(&e);
                bad += !ok;
            }
    }
    return bad;
}

#endif
