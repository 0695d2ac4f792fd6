/* model.c - a model's state: shaping it for an input, copying it, a new
 * input, random weights in DESIGN.md's order, ablation (see model.h). The
 * forward is model_run.c's. */
#include "model.h"

#include <string.h>

static bool vec_fill(Mat *m, int d, double v)
{
    if (!mat_new(m, 1, d))
        return false;
    for (int j = 0; j < d; j++)
        m->v[j] = v;
    return true;
}

/* A norm's gain (1) and, for layernorm, its bias (0); nothing with none. */
static bool norm_params(const ModelCfg *c, Mat *g, Mat *beta)
{
    if (c->norm == NORM_NONE)
        return true;
    return vec_fill(g, c->d_model, 1.0) && (c->norm != NORM_LAYER || vec_fill(beta, c->d_model, 0.0));
}

static bool layer_init(ModelLayer *y, const ModelCfg *c, int n)
{
    int d = c->d_model, ff = c->d_ff;
    if (!attn_init_kv(&y->att, n, d, c->heads, c->kv_heads, c->d_k, c->d_v, d))
        return false;
    if (c->positions == MPOS_ROPE && !attn_set_positions(&y->att, POS_ROPE))
        return false;
    if (!mat_new(&y->h_in, n, d) || !mat_new(&y->h_mid, n, d) || !mat_new(&y->h, n, d) ||
        !norm_params(c, &y->g1, &y->beta1))
        return false;
    if (ff == 0)
        return true;
    return norm_params(c, &y->g2, &y->beta2) && mat_new(&y->W1, d, ff) && vec_fill(&y->b1, ff, 0.0) &&
           mat_new(&y->W2, ff, d) && vec_fill(&y->b2, d, 0.0) && mat_new(&y->b, n, d) && mat_new(&y->u, n, ff) &&
           mat_new(&y->f, n, ff);
}

static bool tokens_ok(const ModelCfg *c, const int *tok, int n)
{
    int room = c->positions == MPOS_LEARNED ? c->ctx - c->offset : c->ctx;
    if (n < 1 || n > room || n > MODEL_CTX_MAX)
        return false;
    for (int i = 0; i < n; i++)
        if (tok[i] < 0 || tok[i] >= c->vocab)
            return false;
    return true;
}

static bool alloc_all(Model *m)
{
    const ModelCfg *c = &m->cfg;
    int d = c->d_model, n = m->n;
    if (!mat_new(&m->E, c->vocab, d) || (c->positions == MPOS_LEARNED && !mat_new(&m->P, c->ctx, d)))
        return false;
    for (int l = 0; l < c->layers; l++)
        if (!layer_init(&m->layer[l], c, n))
            return false;
    return norm_params(c, &m->gf, &m->betaf) && (c->unembed == UNEMBED_TIED || mat_new(&m->WU, d, c->vocab)) &&
           mat_new(&m->h_final, n, d) && mat_new(&m->logits, n, c->vocab) && mat_new(&m->p, n, c->vocab);
}

bool model_init(Model *m, const ModelCfg *c, const int *tok, int n)
{
    memset(m, 0, sizeof *m);
    if (model_cfg_check(c) != MODEL_OK || !tokens_ok(c, tok, n))
        return false;
    m->cfg = *c;
    m->cfg.kv_heads = model_kv_heads(c);
    m->cfg.d_k = model_d_k(c);
    m->cfg.d_v = model_d_v(c);
    m->n = n;
    memcpy(m->tok, tok, sizeof *tok * (size_t)n);
    if (!alloc_all(m)) {
        model_free(m);
        return false;
    }
    return true;
}

static void layer_free(ModelLayer *y)
{
    attn_free(&y->att);
    Mat *all[] = {&y->h_in, &y->g1, &y->beta1, &y->h_mid, &y->g2, &y->beta2, &y->W1,
                  &y->b1,   &y->W2, &y->b2,    &y->b,     &y->u,  &y->f,     &y->h};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        mat_free(all[k]);
}

void model_free(Model *m)
{
    for (int l = 0; l < MODEL_LAYERS_MAX; l++)
        layer_free(&m->layer[l]);
    Mat *all[] = {&m->E, &m->P, &m->gf, &m->betaf, &m->WU, &m->h_final, &m->logits, &m->p};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        mat_free(all[k]);
    memset(m, 0, sizeof *m);
}

static bool layer_copy(ModelLayer *dst, const ModelLayer *src)
{
    if (!attn_copy(&dst->att, &src->att))
        return false;
    Mat *to[] = {&dst->h_in, &dst->g1, &dst->beta1, &dst->h_mid, &dst->g2, &dst->beta2, &dst->W1,
                 &dst->b1,   &dst->W2, &dst->b2,    &dst->b,     &dst->u,  &dst->f,     &dst->h};
    const Mat *from[] = {&src->h_in, &src->g1, &src->beta1, &src->h_mid, &src->g2, &src->beta2, &src->W1,
                         &src->b1,   &src->W2, &src->b2,    &src->b,     &src->u,  &src->f,     &src->h};
    for (size_t k = 0; k < sizeof to / sizeof *to; k++)
        if (!mat_copy(to[k], from[k]))
            return false;
    dst->n1 = src->n1;
    dst->n2 = src->n2;
    dst->ablate = src->ablate;
    return true;
}

bool model_copy(Model *dst, const Model *src)
{
    if (dst == src)
        return true;
    for (int l = 0; l < MODEL_LAYERS_MAX; l++)
        if (!layer_copy(&dst->layer[l], &src->layer[l]))
            return false;
    Mat *to[] = {&dst->E, &dst->P, &dst->gf, &dst->betaf, &dst->WU, &dst->h_final, &dst->logits, &dst->p};
    const Mat *from[] = {&src->E, &src->P, &src->gf, &src->betaf, &src->WU, &src->h_final, &src->logits, &src->p};
    for (size_t k = 0; k < sizeof to / sizeof *to; k++)
        if (!mat_copy(to[k], from[k]))
            return false;
    dst->cfg = src->cfg;
    dst->n = src->n;
    memcpy(dst->tok, src->tok, sizeof dst->tok);
    dst->nf = src->nf;
    dst->at_layer = src->at_layer;
    dst->at_stage = src->at_stage;
    return true;
}

bool model_set_tokens(Model *m, const int *tok, int n)
{
    if (n == m->n && tokens_ok(&m->cfg, tok, n)) { /* the same shapes: only the input changes */
        memcpy(m->tok, tok, sizeof *tok * (size_t)n);
        m->at_layer = m->at_stage = 0;
        return true;
    }
    Model t;
    if (!model_init(&t, &m->cfg, tok, n))
        return false;
    ModelRef ref[MODEL_PARAMS_MAX];
    int np = model_params(m, ref, MODEL_PARAMS_MAX);
    for (int k = 0; k < np; k++)
        if (!mat_copy(model_mat_mut(&t, ref[k]), model_mat(m, ref[k]))) {
            model_free(&t);
            return false;
        }
    for (int l = 0; l < m->cfg.layers; l++)
        t.layer[l].ablate = m->layer[l].ablate;
    model_free(m);
    *m = t;
    return true;
}

/* Every cell of a vector (may be empty) set to v. */
static void vec_set(Mat *m, double v)
{
    for (int j = 0; j < m->cols; j++)
        m->v[j] = v;
}

void model_draw_weights(Model *m, unsigned long seed, double scale)
{
    Rng r;
    rng_seed(&r, (uint32_t)seed);
    rng_randn(&r, &m->E, scale);
    if (m->cfg.positions == MPOS_LEARNED)
        rng_randn(&r, &m->P, scale);
    for (int l = 0; l < m->cfg.layers; l++) {
        ModelLayer *y = &m->layer[l];
        for (int id = M_WQ; id <= M_WV; id++)
            rng_randn(&r, &y->att.m[id], scale);
        rng_randn(&r, &y->att.m[M_WO], scale);
        if (m->cfg.d_ff > 0) {
            rng_randn(&r, &y->W1, scale);
            rng_randn(&r, &y->W2, scale);
        }
        vec_set(&y->g1, 1.0); /* gains 1, biases and betas 0: not drawn */
        vec_set(&y->g2, 1.0);
        vec_set(&y->beta1, 0.0);
        vec_set(&y->beta2, 0.0);
        vec_set(&y->b1, 0.0);
        vec_set(&y->b2, 0.0);
    }
    if (m->cfg.unembed == UNEMBED_SEPARATE)
        rng_randn(&r, &m->WU, scale);
    vec_set(&m->gf, 1.0);
    vec_set(&m->betaf, 0.0);
    m->at_layer = m->at_stage = 0;
}

void model_set_ablate(Model *m, int layer, int head, bool on)
{
    if (layer < 1 || layer > m->cfg.layers || head < 1 || head > m->cfg.heads)
        return;
    unsigned bit = 1u << (head - 1);
    ModelLayer *y = &m->layer[layer - 1];
    y->ablate = on ? y->ablate | bit : y->ablate & ~bit;
    /* the cursor drops to the layer's stage 4 at most: its O is stale */
    if (m->at_layer > layer || (m->at_layer == layer && m->at_stage > MSTAGE_SOFTMAX)) {
        m->at_layer = layer;
        m->at_stage = MSTAGE_SOFTMAX;
    }
}
