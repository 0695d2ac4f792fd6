/* model_explain.c - the arithmetic behind one cell of a model's own
 * matrices, as data (see model_explain.h). Each sum repeats the forward's
 * order (model_run.c, norm.c), so the results are the cells bit for bit. */
#include "model_explain.h"
#include "explain.h"

#include <math.h>
#include <string.h>

/* prod, partial and sum from the n pairs in a[] and b[]. */
static void products(ModelExplain *e)
{
    e->sum = explain_products(e->n, e->a, e->b, e->prod, e->partial);
}

static void explain_embed(const Model *m, ModelExplain *e)
{
    e->kind = MX_EMBED;
    e->token = m->tok[e->i];
    e->pos = e->i + m->cfg.offset;
    e->positions = m->cfg.positions;
    e->e = MAT_AT(&m->E, e->token, e->j);
    if (e->positions == MPOS_LEARNED)
        e->p = MAT_AT(&m->P, e->pos, e->j);
    if (e->positions == MPOS_SINUSOIDAL) {
        e->angle = attn_pos_angle(e->pos, e->j, m->cfg.d_model);
        e->cosine = e->j % 2 == 1;
        e->p = attn_pos(e->pos, e->j, m->cfg.d_model);
    }
}

/* A norm's cell: the row x, its statistics as norm.c computes them, x_j's
 * x-hat and the affine. which: 1, 2 or 0 (Norm_f). */
static void explain_norm(const Model *m, ModelExplain *e, const Mat *x, const Mat *g, const Mat *beta, int which)
{
    const ModelCfg *c = &m->cfg;
    e->kind = MX_NORM;
    e->norm = c->norm;
    e->layer_norm = which;
    e->eps = c->eps;
    e->n = x->cols;
    e->xsum = 0.0;
    for (int k = 0; k < e->n; k++) {
        e->a[k] = MAT_AT(x, e->i, k);
        e->xsum += e->a[k];
    }
    e->mean = c->norm == NORM_LAYER ? e->xsum / e->n : 0.0;
    double sum = 0.0;
    for (int k = 0; k < e->n; k++) {
        double t = c->norm == NORM_LAYER ? e->a[k] - e->mean : e->a[k];
        e->prod[k] = t * t;
        sum += e->prod[k];
        e->partial[k] = sum;
    }
    e->sum = sum;
    e->x = e->a[e->j];
    e->g = g->v ? g->v[e->j] : 1.0;
    e->beta = beta->v ? beta->v[e->j] : 0.0;
    e->has_beta = c->norm == NORM_LAYER;
    if (c->norm == NORM_NONE) {
        e->var = e->sigma = 0.0;
        e->xhat = e->x;
        return;
    }
    e->var = sum / e->n;
    e->sigma = sqrt(e->var + e->eps);
    e->xhat = (e->x - e->mean) / e->sigma;
}

/* Column j of w (or row j of wt, the tied E) against row i of x. */
static void terms(ModelExplain *e, const Mat *x, const Mat *w, bool by_row)
{
    e->n = x->cols;
    for (int k = 0; k < e->n; k++) {
        e->a[k] = MAT_AT(x, e->i, k);
        e->b[k] = by_row ? MAT_AT(w, e->j, k) : MAT_AT(w, k, e->j);
    }
    products(e);
}

static void explain_hidden(const Model *m, const ModelLayer *y, ModelExplain *e)
{
    e->kind = MX_FFN_HIDDEN;
    e->act = m->cfg.act;
    e->activated = e->ref.kind == MM_F;
    terms(e, &y->b, &y->W1, false);
    e->bias = y->b1.v[e->j];
    e->pre = e->sum + e->bias;
    if (e->act == ACT_GELU)
        e->phi = model_phi(e->pre);
}

static void explain_out(const Model *m, const ModelLayer *y, ModelExplain *e)
{
    (void)m;
    e->kind = MX_FFN_OUT;
    terms(e, &y->f, &y->W2, false);
    e->bias = y->b2.v[e->j];
    e->ffn = e->sum + e->bias;
    e->resid = MAT_AT(&y->h_mid, e->i, e->j);
}

static void explain_prob(const Model *m, ModelExplain *e)
{
    e->kind = MX_PROB;
    e->temp = m->cfg.sample_temp;
    e->n = m->cfg.vocab;
    for (int k = 0; k < e->n; k++) {
        e->a[k] = MAT_AT(&m->logits, e->i, k);
        e->b[k] = e->a[k] / e->temp;
        if (k == 0 || e->b[k] > e->max)
            e->max = e->b[k];
    }
    double sum = 0.0;
    for (int k = 0; k < e->n; k++) {
        e->prod[k] = exp(e->b[k] - e->max);
        sum += e->prod[k];
        e->partial[k] = sum;
    }
    e->sum = sum;
}

/* The cells of a layer's own results. */
static void explain_layer(const Model *m, ModelExplain *e)
{
    const ModelLayer *y = &m->layer[e->ref.layer - 1];
    switch (e->ref.kind) {
    case MM_H_IN:
        if (e->ref.layer == 1) {
            explain_embed(m, e);
        } else {
            e->kind = MX_STREAM;
            e->h = MAT_AT(&m->layer[e->ref.layer - 2].h, e->i, e->j);
        }
        break;
    case MM_A:  explain_norm(m, e, &y->h_in, &y->g1, &y->beta1, 1); break;
    case MM_B:  explain_norm(m, e, &y->h_mid, &y->g2, &y->beta2, 2); break;
    case MM_U:
    case MM_F:  explain_hidden(m, y, e); break;
    default: /* MM_H_MID, and MM_H (without a feed-forward h is h_mid) */
        if (e->ref.kind == MM_H && m->cfg.d_ff > 0) {
            explain_out(m, y, e);
            break;
        }
        e->kind = MX_RESID;
        e->h = MAT_AT(&y->h_in, e->i, e->j);
        e->y = MAT_AT(&y->att.m[M_Y], e->i, e->j);
        break;
    }
}

bool model_explain(const Model *m, ModelRef r, int i, int j, ModelExplain *out)
{
    memset(out, 0, sizeof *out);
    out->kind = MX_NONE;
    out->ref = r;
    out->i = i;
    out->j = j;
    const Mat *x = model_mat(m, r);
    if (!x || (r.kind == MM_ATTN && !model_ref_is_param(r)) || i < 0 || i >= x->rows || j < 0 || j >= x->cols)
        return false;
    int stage = model_ref_stage(m, r);
    if (stage > 0 && !model_reached(m, r.layer > 0 ? r.layer : m->cfg.layers, stage))
        return false;
    out->result = MAT_AT(x, i, j);
    if (model_ref_is_param(r))
        out->kind = MX_PARAM;
    else if (r.layer > 0)
        explain_layer(m, out);
    else if (r.kind == MM_H_FINAL)
        explain_norm(m, out, &m->layer[m->cfg.layers - 1].h, &m->gf, &m->betaf, 0);
    else if (r.kind == MM_LOGITS) {
        out->kind = MX_LOGIT;
        out->tied = m->cfg.unembed == UNEMBED_TIED;
        terms(out, &m->h_final, out->tied ? &m->E : &m->WU, out->tied);
    } else
        explain_prob(m, out);
    return true;
}
