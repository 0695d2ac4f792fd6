/* model_back.c - the backward pass of a whole model (see model_back.h). */
#include "model_back.h"

#include <math.h>

#include "attn_back.h"

bool model_grad_init(Model *g, const Model *m)
{
    if (!model_init(g, &m->cfg, m->tok, m->n))
        return false;
    model_grad_zero(g);
    return true;
}

void model_grad_zero(Model *g)
{
    ModelRef refs[MODEL_PARAMS_MAX];
    int np = model_params(g, refs, MODEL_PARAMS_MAX);
    for (int k = 0; k < np; k++) {
        Mat *w = model_mat_mut(g, refs[k]);
        for (size_t c = 0; c < (size_t)w->rows * (size_t)w->cols; c++)
            w->v[c] = 0.0;
    }
}

double model_act_grad(Act a, double x)
{
    if (a == ACT_RELU)
        return x > 0.0 ? 1.0 : 0.0;
    return model_phi(x) + x * exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
}

/* Through a norm: dx of the rows of x (reshaped), given dy; dg and dbeta
 * summed in (either may be empty). x is the norm's input, st its statistics. */
static bool norm_back(NormKind k, const Mat *x, const NormStats *st, const Mat *g, const Mat *dy, Mat *dx,
                      Mat *dg, Mat *dbeta)
{
    mat_free(dx);
    if (!mat_copy(dx, dy))
        return false;
    if (k == NORM_NONE)
        return true;
    int d = x->cols;
    double xhat[MODEL_D_MAX], dxh[MODEL_D_MAX];
    for (int i = 0; i < x->rows; i++) {
        double mean_d = 0.0, mean_dx = 0.0, mu = k == NORM_LAYER ? st->mean[i] : 0.0, s = st->sigma[i];
        for (int j = 0; j < d; j++) {
            double y = MAT_AT(dy, i, j);
            xhat[j] = (MAT_AT(x, i, j) - mu) / s;
            dxh[j] = y * g->v[j];
            dg->v[j] += y * xhat[j];
            if (dbeta->v)
                dbeta->v[j] += y;
            mean_d += dxh[j];
            mean_dx += dxh[j] * xhat[j];
        }
        mean_d /= d;
        mean_dx /= d;
        for (int j = 0; j < d; j++)
            MAT_AT(dx, i, j) = (dxh[j] - (k == NORM_LAYER ? mean_d : 0.0) - xhat[j] * mean_dx) / s;
    }
    return true;
}

/* out = a b^T (a: n x c, b: r x c): reshaped to n x r. */
static bool mul_bt(Mat *out, const Mat *a, const Mat *b)
{
    mat_free(out);
    return mat_mul_bt(out, a, b);
}

static void add_colsum(Mat *dst, const Mat *m)
{
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++)
            dst->v[j] += MAT_AT(m, i, j);
}

static void add_into(Mat *dst, const Mat *m)
{
    for (size_t c = 0; c < (size_t)m->rows * (size_t)m->cols; c++)
        dst->v[c] += m->v[c];
}

/* The feed-forward's backward: dh (the block's output gradient) becomes
 * dh_mid = dh + Norm2^T(du W1^T). */
static bool ffn_back(const Model *m, const ModelLayer *y, ModelLayer *gy, Mat *dh)
{
    Mat df = {0}, db = {0}, dx = {0};
    bool ok = mul_bt(&df, dh, &y->W2);
    if (ok) {
        mat_add_atb(&gy->W2, &y->f, dh);
        add_colsum(&gy->b2, dh);
        for (int i = 0; i < df.rows; i++)
            for (int j = 0; j < df.cols; j++)
                MAT_AT(&df, i, j) *= model_act_grad(m->cfg.act, MAT_AT(&y->u, i, j)); /* now du */
        mat_add_atb(&gy->W1, &y->b, &df);
        add_colsum(&gy->b1, &df);
        ok = mul_bt(&db, &df, &y->W1) &&
             norm_back(m->cfg.norm, &y->h_mid, &y->n2, &y->g2, &db, &dx, &gy->g2, &gy->beta2);
        if (ok)
            add_into(dh, &dx);
    }
    mat_free(&df);
    mat_free(&db);
    mat_free(&dx);
    return ok;
}

/* One layer, from dh (after the block) to dh (into the block), in place. */
static bool layer_back(const Model *m, int l, Model *g, Mat *dh)
{
    const ModelLayer *y = &m->layer[l - 1];
    ModelLayer *gy = &g->layer[l - 1];
    if (m->cfg.d_ff > 0 && !ffn_back(m, y, gy, dh))
        return false;
    Mat da = {0}, dx = {0};
    AttnGrads ag = {&gy->att.m[M_WQ], &gy->att.m[M_WK], &gy->att.m[M_WV], &gy->att.m[M_WO]};
    bool ok = attn_backward(&y->att, y->ablate, dh, &da, ag) &&
              norm_back(m->cfg.norm, &y->h_in, &y->n1, &y->g1, &da, &dx, &gy->g1, &gy->beta1);
    if (ok)
        add_into(dh, &dx);
    mat_free(&da);
    mat_free(&dx);
    return ok;
}

/* dlogits (n x vocab) and the loss sum of the n-1 next tokens. */
static double logits_back(const Model *m, double w, Mat *dl)
{
    double loss = 0.0, k = w / m->cfg.sample_temp;
    for (int i = 0; i + 1 < m->n; i++) {
        int t = m->tok[i + 1];
        loss += -log(MAT_AT(&m->p, i, t));
        for (int c = 0; c < m->cfg.vocab; c++)
            MAT_AT(dl, i, c) = (MAT_AT(&m->p, i, c) - (c == t ? 1.0 : 0.0)) * k;
    }
    return loss;
}

/* Stage 8 backward: dlogits to dh (the last layer's output gradient). */
static bool head_back(const Model *m, Model *g, const Mat *dl, Mat *dh)
{
    Mat dhf = {0};
    bool ok;
    if (m->cfg.unembed == UNEMBED_TIED) {
        ok = mat_mul(&dhf, dl, &m->E);
        if (ok)
            mat_add_atb(&g->E, dl, &m->h_final);
    } else {
        ok = mul_bt(&dhf, dl, &m->WU);
        if (ok)
            mat_add_atb(&g->WU, &m->h_final, dl);
    }
    ok = ok && norm_back(m->cfg.norm, &m->layer[m->cfg.layers - 1].h, &m->nf, &m->gf, &dhf, dh, &g->gf, &g->betaf);
    mat_free(&dhf);
    return ok;
}

/* Layer 1's input: E[tok_i] + P[i + offset]. */
static void embed_back(const Model *m, Model *g, const Mat *dh)
{
    int d = m->cfg.d_model;
    for (int i = 0; i < m->n; i++) {
        for (int j = 0; j < d; j++)
            MAT_AT(&g->E, m->tok[i], j) += MAT_AT(dh, i, j);
        if (m->cfg.positions == MPOS_LEARNED)
            for (int j = 0; j < d; j++)
                MAT_AT(&g->P, i + m->cfg.offset, j) += MAT_AT(dh, i, j);
    }
}

double model_backward(const Model *m, Model *g, double w, bool *ok)
{
    Mat dl = {0}, dh = {0};
    *ok = mat_new(&dl, m->n, m->cfg.vocab);
    double loss = *ok ? logits_back(m, w, &dl) : 0.0;
    *ok = *ok && head_back(m, g, &dl, &dh);
    for (int l = m->cfg.layers; *ok && l >= 1; l--)
        *ok = layer_back(m, l, g, &dh);
    if (*ok)
        embed_back(m, g, &dh);
    mat_free(&dl);
    mat_free(&dh);
    return loss;
}
