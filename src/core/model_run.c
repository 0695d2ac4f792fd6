/* model_run.c - the forward, one stage at a time, and the cursor (see
 * model.h for each stage's arithmetic and its order). */
#include "model.h"

#include <assert.h>
#include <math.h>
#include <string.h>

static const char *const stage_keys[MSTAGE_MAX + 1] = {
    "?", "embed", "qkv", "scores", "softmax", "output", "project", "ffn", "next",
};

const char *model_stage_key(int stage)
{
    return stage >= MSTAGE_EMBED && stage <= MSTAGE_MAX ? stage_keys[stage] : "?";
}

int model_stage_lookup(const char *key, int len)
{
    size_t n = len < 0 ? strlen(key) : (size_t)len;
    for (int s = MSTAGE_EMBED; s <= MSTAGE_MAX; s++)
        if (strlen(stage_keys[s]) == n && memcmp(stage_keys[s], key, n) == 0)
            return s;
    return 0;
}

bool model_stage_exists(const Model *m, int layer, int stage)
{
    if (stage == MSTAGE_NEXT)
        return layer == m->cfg.layers;
    if (layer < 1 || layer > m->cfg.layers || stage < MSTAGE_EMBED || stage > MSTAGE_FFN)
        return false;
    return stage != MSTAGE_FFN || m->cfg.d_ff > 0;
}

/* (layer, stage) as one count: 7 a layer, then the final stage. */
static int linear(int layer, int stage)
{
    return stage == MSTAGE_NEXT ? layer * 7 + 1 : (layer - 1) * 7 + stage;
}

bool model_reached(const Model *m, int layer, int stage)
{
    return m->at_stage > 0 && model_stage_exists(m, layer, stage) &&
           linear(layer, stage) <= linear(m->at_layer, m->at_stage);
}

bool model_stage_next(const Model *m, int *layer, int *stage)
{
    int l = *layer, s = *stage;
    if (l == 0 && s == 0) {
        *layer = *stage = 1;
        return true;
    }
    do {
        if (s == MSTAGE_NEXT)
            return false;
        if (s < MSTAGE_FFN)
            s++;
        else if (l < m->cfg.layers)
            l++, s = MSTAGE_EMBED;
        else
            s = MSTAGE_NEXT;
    } while (!model_stage_exists(m, l, s));
    *layer = l;
    *stage = s;
    return true;
}

bool model_stage_prev(const Model *m, int *layer, int *stage)
{
    int l = *layer, s = *stage;
    do {
        if (s == MSTAGE_NEXT)
            s = MSTAGE_FFN;
        else if (s > MSTAGE_EMBED)
            s--;
        else if (l > 1)
            l--, s = MSTAGE_FFN;
        else
            return false;
    } while (!model_stage_exists(m, l, s));
    *layer = l;
    *stage = s;
    return true;
}

/* The position value added to token i's column j in layer 1. */
static double pos_value(const Model *m, int i, int j)
{
    int p = i + m->cfg.offset;
    if (m->cfg.positions == MPOS_LEARNED)
        return MAT_AT(&m->P, p, j);
    if (m->cfg.positions == MPOS_SINUSOIDAL)
        return attn_pos(p, j, m->cfg.d_model);
    return 0.0;
}

static const double *vec(const Mat *m)
{
    return m->v; /* NULL for a norm's missing gain or bias: 1 and 0 */
}

/* y = Norm(x) row by row, with its statistics. */
static void norm_rows(const ModelCfg *c, const Mat *x, const Mat *g, const Mat *beta, Mat *y, NormStats *st)
{
    for (int i = 0; i < x->rows; i++)
        model_norm_row(c->norm, &MAT_AT(x, i, 0), x->cols, vec(g), vec(beta), c->eps, &MAT_AT(y, i, 0),
                       &st->mean[i], &st->var[i], &st->sigma[i]);
}

static void set_attn_options(Attn *a, const ModelCfg *c, const ModelAttnOpts *o)
{
    a->scale = o->scale;
    a->softmax = o->softmax;
    a->mask = o->mask;
    a->window = o->window;
    a->temp = o->temp;
    a->block = o->block;
    a->positions = c->positions == MPOS_ROPE ? POS_ROPE : POS_NONE;
    a->rope_base = c->rope_base;
    a->offset = c->offset;
}

/* Stage 1: the stream into the layer and a = Norm1 of it, the Attn's X. */
static void run_embed(Model *m, int l)
{
    ModelLayer *y = &m->layer[l - 1];
    int d = m->cfg.d_model;
    if (l == 1) {
        for (int i = 0; i < m->n; i++)
            for (int j = 0; j < d; j++)
                MAT_AT(&y->h_in, i, j) = MAT_AT(&m->E, m->tok[i], j) + pos_value(m, i, j);
    } else {
        (void)mat_copy(&y->h_in, &m->layer[l - 2].h);
    }
    norm_rows(&m->cfg, &y->h_in, &y->g1, &y->beta1, &y->att.m[M_X], &y->n1);
    set_attn_options(&y->att, &m->cfg, &m->cfg.attn[l - 1]);
    y->att.reached = STAGE_NONE;
    attn_run_stage(&y->att, STAGE_INPUT);
}

/* Stage 5's output with the ablated heads' O_k and columns of O set to 0. */
static void run_output(ModelLayer *y)
{
    attn_run_stage(&y->att, STAGE_OUTPUT);
    Attn *a = &y->att;
    int dv = attn_d_v(a);
    for (int k = 1; k <= attn_heads(a); k++) {
        if (!(y->ablate >> (k - 1) & 1u))
            continue;
        Mat *o = &a->m[M_O], *ok = &a->m[attn_shown(a, M_O, k)];
        for (int i = 0; i < o->rows; i++) {
            for (int j = 0; j < dv; j++)
                MAT_AT(o, i, (k - 1) * dv + j) = 0.0;
            for (int j = 0; j < ok->cols; j++)
                MAT_AT(ok, i, j) = 0.0;
        }
    }
}

/* Stage 6: Y = O Wo, h_mid = h_in + Y (and h = h_mid without a feed-forward). */
static void run_project(Model *m, ModelLayer *y)
{
    attn_run_stage(&y->att, STAGE_PROJECT);
    const Mat *yy = &y->att.m[M_Y];
    for (size_t k = 0; k < (size_t)yy->rows * (size_t)yy->cols; k++)
        y->h_mid.v[k] = y->h_in.v[k] + yy->v[k];
    if (m->cfg.d_ff == 0)
        (void)mat_copy(&y->h, &y->h_mid);
}

/* Stage 7: b = Norm2(h_mid), u = b W1 + b1, f = act(u), h = h_mid + (f W2 + b2). */
static void run_ffn(Model *m, ModelLayer *y)
{
    norm_rows(&m->cfg, &y->h_mid, &y->g2, &y->beta2, &y->b, &y->n2);
    (void)mat_mul(&y->u, &y->b, &y->W1);
    double row[MODEL_D_MAX];
    int d = m->cfg.d_model, ff = m->cfg.d_ff;
    for (int i = 0; i < m->n; i++) {
        for (int j = 0; j < ff; j++) {
            MAT_AT(&y->u, i, j) = MAT_AT(&y->u, i, j) + y->b1.v[j];
            MAT_AT(&y->f, i, j) = model_act(m->cfg.act, MAT_AT(&y->u, i, j));
        }
        for (int j = 0; j < d; j++)
            row[j] = 0.0;
        for (int k = 0; k < ff; k++)
            mat_axpy(row, &MAT_AT(&y->W2, k, 0), MAT_AT(&y->f, i, k), d);
        for (int j = 0; j < d; j++)
            MAT_AT(&y->h, i, j) = MAT_AT(&y->h_mid, i, j) + (row[j] + y->b2.v[j]);
    }
}

/* One row of p = softmax(l / T): z = l / T, e = exp(z - max z), e / sum e. */
static void softmax_vocab(double *p, const double *logit, int v, double temp)
{
    double max = logit[0] / temp, sum = 0.0;
    for (int k = 1; k < v; k++)
        if (logit[k] / temp > max)
            max = logit[k] / temp;
    for (int k = 0; k < v; k++) {
        p[k] = exp(logit[k] / temp - max);
        sum += p[k];
    }
    for (int k = 0; k < v; k++)
        p[k] /= sum;
}

/* Stage 8: h_final = Norm_f(h), logits = h_final WU (tied: E^T), p. */
static void run_next(Model *m)
{
    norm_rows(&m->cfg, &m->layer[m->cfg.layers - 1].h, &m->gf, &m->betaf, &m->h_final, &m->nf);
    if (m->cfg.unembed == UNEMBED_TIED)
        (void)mat_mul_bt(&m->logits, &m->h_final, &m->E);
    else
        (void)mat_mul(&m->logits, &m->h_final, &m->WU);
    for (int i = 0; i < m->n; i++)
        softmax_vocab(&MAT_AT(&m->p, i, 0), &MAT_AT(&m->logits, i, 0), m->cfg.vocab, m->cfg.sample_temp);
}

void model_run_stage(Model *m, int layer, int stage)
{
    if (!model_stage_exists(m, layer, stage))
        return;
    int pl = layer, ps = stage;
    bool first = !model_stage_prev(m, &pl, &ps);
    assert(first || model_reached(m, pl, ps));
    (void)first;
    ModelLayer *y = &m->layer[layer - 1];
    switch (stage) {
    case MSTAGE_EMBED:   run_embed(m, layer); break;
    case MSTAGE_OUTPUT:  run_output(y); break;
    case MSTAGE_PROJECT: run_project(m, y); break;
    case MSTAGE_FFN:     run_ffn(m, y); break;
    case MSTAGE_NEXT:    run_next(m); break;
    default:             attn_run_stage(&y->att, stage); break; /* qkv, scores, softmax */
    }
    m->at_layer = layer;
    m->at_stage = stage;
}

void model_run_to(Model *m, int layer, int stage)
{
    m->at_layer = m->at_stage = 0;
    if (stage == MSTAGE_FFN && m->cfg.d_ff == 0)
        stage = MSTAGE_PROJECT;
    if (!model_stage_exists(m, layer, stage))
        return;
    int l = 0, s = 0;
    while (model_stage_next(m, &l, &s) && linear(l, s) <= linear(layer, stage))
        model_run_stage(m, l, s);
}

void model_run_all(Model *m)
{
    model_run_to(m, m->cfg.layers, MSTAGE_NEXT);
}
