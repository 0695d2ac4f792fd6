/* test_model.c - a whole model (core/model.h): settings, shapes, the draw
 * order, norms and GELU against torch, the stage cursor, names, greedy and
 * sampled prediction, head scores and the explained cells. Reference
 * figures come from Debian's python3-numpy 1.24 and python3-torch 1.13
 * (float64, repr); tests/model_ref.py checks every stage of random models. */
#include "testutil.h"
#include "core/model.h"
#include "core/model_explain.h"
#include "model_check.h"

#include <stdlib.h>

static Model *new_model(const ModelCfg *c, const int *tok, int n)
{
    Model *m = calloc(1, sizeof *m);
    assert_non_null(m);
    assert_true(model_init(m, c, tok, n));
    return m;
}

static void del_model(Model *m)
{
    model_free(m);
    free(m);
}

static const Mat *named(const Model *m, const char *name)
{
    ModelRef r;
    if (!model_lookup(m, name, -1, &r))
        return NULL;
    return model_mat(m, r);
}

/* numpy: r = RandomState(7); E = randn(3,2)*.5, P = randn(2,2)*.5, then
 * Wq Wk Wv Wo W1 W2 (2x2) and WU (2x3), each randn(...)*.5 in turn. */
static void test_draw_order(void **state)
{
    ModelCfg c;
    model_cfg_default(&c);
    c.vocab = 3, c.d_model = 2, c.ctx = 2, c.d_ff = 2;
    int tok[] = {0, 2};
    Model *m = new_model(&c, tok, 2);
    model_draw_weights(m, 7, 0.5);
    assert_true(MAT_AT(&m->E, 0, 0) == 0.845262851900178);
    assert_true(MAT_AT(&m->E, 0, 1) == -0.2329686852704164);
    assert_true(MAT_AT(&m->E, 2, 1) == 0.001032786452974065);
    assert_true(MAT_AT(&m->P, 0, 0) == -0.0004451929289656814);
    assert_true(MAT_AT(named(m, "L1.Wq"), 0, 0) == -0.31271448698337984);
    assert_true(MAT_AT(named(m, "Wo"), 1, 1) == -0.7253393495732874);
    assert_true(MAT_AT(named(m, "L1.W1"), 0, 0) == -0.20261392771384334);
    assert_true(MAT_AT(named(m, "W2"), 1, 1) == 0.2677146781630455);
    assert_true(MAT_AT(named(m, "WU"), 1, 2) == -0.16470687595653255);
    /* gains 1, biases 0: not drawn */
    assert_true(named(m, "L1.g1")->v[1] == 1.0 && named(m, "L1.beta2")->v[0] == 0.0 && m->gf.v[1] == 1.0);
    assert_true(named(m, "b1")->v[1] == 0.0 && named(m, "L1.b2")->v[0] == 0.0);
    del_model(m);
}

/* Every matrix at DESIGN.md's shape; vocab 128 and d_ff 256 fit. */
static void test_shapes(void **state)
{
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = 2, c.d_model = 16, c.heads = 4, c.kv_heads = 2, c.d_ff = 256, c.vocab = 128, c.ctx = 64;
    int tok[64];
    for (int i = 0; i < 64; i++)
        tok[i] = (i * 37) % 128;
    Model *m = new_model(&c, tok, 64);
    struct { const char *name; int rows, cols; } want[] = {
        {"E", 128, 16},     {"P", 64, 16},       {"L2.Wq", 16, 16},  {"L2.Wk", 16, 8},   {"L1.Wv", 16, 8},
        {"L1.Wo", 16, 16},  {"L1.W1", 16, 256},  {"L1.b1", 1, 256},  {"L2.W2", 256, 16}, {"L2.b2", 1, 16},
        {"L1.g1", 1, 16},   {"L2.beta2", 1, 16}, {"gf", 1, 16},      {"WU", 16, 128},    {"L1.u", 64, 256},
        {"L2.f", 64, 256},  {"L2.A3", 64, 64},   {"L1.K2", 64, 4},   {"L2.h", 64, 16},   {"logits", 64, 128},
        {"p", 64, 128},     {"h_final", 64, 16}, {"L1.a", 64, 16},   {"L2.h_mid", 64, 16},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        const Mat *x = named(m, want[k].name);
        if (!x)
            fail_msg("%s is missing", want[k].name);
        if (x->rows != want[k].rows || x->cols != want[k].cols)
            fail_msg("%s is %dx%d, want %dx%d", want[k].name, x->rows, x->cols, want[k].rows, want[k].cols);
    }
    model_draw_weights(m, 1, 0.1);
    model_run_all(m);
    int cells;
    assert_int_equal(model_check_explain(m, &cells), 0);
    assert_int_equal(cells, 2 * (5 * 64 * 16 + 2 * 64 * 256) + 64 * 16 + 2 * 64 * 128);
    del_model(m);
}

/* One layer, d_model 3, token 0 with E[0] = x: Norm1(x) with gain and bias. */
static Model *norm_model(NormKind k, double eps)
{
    ModelCfg c;
    model_cfg_default(&c);
    c.d_model = 3, c.vocab = 2, c.positions = MPOS_NONE, c.norm = k, c.eps = eps;
    int tok[] = {0};
    Model *m = new_model(&c, tok, 1);
    const double x[] = {1, 2, 4}, g[] = {1, 0.5, 2}, b[] = {0, 1, -1};
    for (int j = 0; j < 3; j++) {
        MAT_AT(&m->E, 0, j) = x[j];
        if (k != NORM_NONE)
            m->layer[0].g1.v[j] = g[j];
        if (k == NORM_LAYER)
            m->layer[0].beta1.v[j] = b[j];
    }
    model_run_to(m, 1, MSTAGE_EMBED);
    return m;
}

/* torch: F.layer_norm([1, 2, 4], (3,), [1, .5, 2], [0, 1, -1], 1e-5) and
 * x * rsqrt(mean(x^2) + 1e-5) * g. */
static void test_norms(void **state)
{
    static const double ln[] = {-1.069041531450298, 0.8663698085687127, 1.6726038286257436};
    static const double rms[] = {0.3779642030348929, 0.3779642030348929, 3.0237136242791434};
    Model *m = norm_model(NORM_LAYER, 1e-5);
    assert_mat_near(named(m, "a"), 1, 3, ln, 1e-15);
    assert_near(m->layer[0].n1.mean[0], 7.0 / 3.0, 1e-15);
    assert_near(m->layer[0].n1.var[0], 14.0 / 9.0, 1e-15);
    assert_near(m->layer[0].n1.sigma[0], sqrt(14.0 / 9.0 + 1e-5), 1e-15);
    ModelExplain e;
    ModelRef r;
    assert_true(model_lookup(m, "a", -1, &r));
    assert_true(model_explain(m, r, 0, 2, &e));
    assert_int_equal(e.kind, MX_NORM);
    assert_true(e.has_beta && e.x == 4 && e.g == 2 && e.beta == -1 && e.n == 3 && e.xsum == 7);
    assert_true(e.mean == m->layer[0].n1.mean[0] && e.sigma == m->layer[0].n1.sigma[0] && e.eps == 1e-5);
    assert_true(e.xhat * e.g + e.beta == e.result && e.result == MAT_AT(named(m, "a"), 0, 2));
    del_model(m);
    m = norm_model(NORM_RMS, 1e-5);
    assert_mat_near(named(m, "a"), 1, 3, rms, 1e-15);
    assert_null(named(m, "beta1"));
    assert_true(model_lookup(m, "L1.a", -1, &r) && model_explain(m, r, 0, 0, &e));
    assert_true(e.mean == 0 && e.var == 7.0 && !e.has_beta && e.prod[2] == 16);
    del_model(m);
    m = norm_model(NORM_NONE, 1e-5);
    assert_true(MAT_AT(named(m, "a"), 0, 2) == 4.0);
    assert_null(named(m, "g1"));
    del_model(m);
}

/* torch: F.gelu(x) in float64 (exact, erf), and ReLU. */
static void test_act(void **state)
{
    assert_near(model_act(ACT_GELU, -1.0), -0.15865525393145702, 1e-16);
    assert_near(model_act(ACT_GELU, 0.5), 0.34573123063700656, 1e-16);
    assert_near(model_act(ACT_GELU, 2.0), 1.9544997361036416, 1e-15);
    assert_near(model_act(ACT_GELU, -3.0), -0.00404969409489031, 1e-17);
    assert_true(model_act(ACT_GELU, 0.0) == 0.0);
    assert_true(model_act(ACT_RELU, -0.5) == 0.0 && model_act(ACT_RELU, 0.25) == 0.25);
    assert_near(model_phi(0.0), 0.5, 0);
}

/* numpy: RandomState(s).choice(4, p=row) for s = 0 .. 11, and its uniform. */
static void test_sample(void **state)
{
    static const double row[] = {0.1, 0.2, 0.3, 0.4}, row2[] = {0.5, 0.0, 0.0, 0.5};
    static const int want[] = {2, 2, 2, 2, 3, 1, 3, 0, 3, 0, 3, 1}, want2[] = {3, 0, 0, 3, 3, 0, 3, 0, 3, 0, 3, 0};
    for (int s = 0; s < 12; s++) {
        Rng r;
        double u;
        rng_seed(&r, (uint32_t)s);
        assert_int_equal(model_sample(row, 4, &r, &u), want[s]);
        if (s == 0)
            assert_true(u == 0.5488135039273248);
        rng_seed(&r, (uint32_t)s);
        assert_int_equal(model_sample(row2, 4, &r, NULL), want2[s]);
    }
}

/* Greedy takes the lowest index on ties; sampled follows sample_seed. */
static void test_predict(void **state)
{
    ModelCfg c;
    model_cfg_default(&c);
    c.d_model = 1, c.vocab = 3, c.positions = MPOS_NONE; /* layernorm of one number: h_final = 0 */
    int tok[] = {1, 2};
    Model *m = new_model(&c, tok, 2);
    model_draw_weights(m, 3, 1.0);
    model_run_all(m);
    assert_true(MAT_AT(&m->p, 1, 0) == MAT_AT(&m->p, 1, 2));
    assert_int_equal(model_greedy(m), 0);
    MAT_AT(&m->p, 1, 2) += 1e-9;
    assert_int_equal(model_greedy(m), 2);
    assert_int_equal(model_predict(m), 2);
    /* p = [0.1, 0.2, 0.3 + ...]: sampled with seeds 0 and 7 as numpy does */
    MAT_AT(&m->p, 1, 0) = 0.2, MAT_AT(&m->p, 1, 1) = 0.3, MAT_AT(&m->p, 1, 2) = 0.5;
    m->cfg.sample = true;
    static const double row[] = {0.2, 0.3, 0.5};
    for (unsigned long s = 0; s < 8; s++) {
        Rng r;
        rng_seed(&r, (uint32_t)s);
        m->cfg.sample_seed = s;
        assert_int_equal(model_predict(m), model_sample(row, 3, &r, NULL));
    }
    m->cfg.sample_seed = 0; /* u = 0.5488: past 0.2 + 0.3 */
    assert_int_equal(model_predict(m), 2);
    m->cfg.sample_seed = 1; /* u = 0.417 */
    assert_int_equal(model_predict(m), 1);
    del_model(m);
}

/* c is refused for `want`, named `key`, allowed lo..hi. */
#define assert_bad(c, want, key, lo, hi) assert_bad_at(&(c), (want), (key), (lo), (hi), __LINE__)
static void assert_bad_at(const ModelCfg *c, ModelBad want, const char *key, double lo, double hi, int line)
{
    ModelBad got = model_cfg_check(c);
    double l, h;
    model_bad_range(c, got, &l, &h);
    if (got != want || strcmp(model_bad_key(got), key) != 0 || l != lo || h != hi)
        fail_msg("line %d: %d %s %g..%g, want %d %s %g..%g", line, got, model_bad_key(got), l, h, want, key, lo, hi);
}

/* Each setting out of range is named, with its range. */
static void test_check(void **state)
{
    ModelCfg d, c;
    model_cfg_default(&d);
    assert_int_equal(model_cfg_check(&d), MODEL_OK);
    assert_int_equal(d.attn[7].mask, MASK_CAUSAL); /* a model is causal by default */
    c = d, c.layers = 9;
    assert_bad(c, MODEL_BAD_LAYERS, "layers", 1, 8);
    c = d, c.d_model = 65;
    assert_bad(c, MODEL_BAD_D_MODEL, "d_model", 1, 64);
    c = d, c.heads = 3;
    assert_bad(c, MODEL_BAD_HEADS_DIVIDE, "heads", 0, 0);
    c.d_k = 2, c.d_v = 1;
    assert_int_equal(model_cfg_check(&c), MODEL_OK);
    c = d, c.heads = 4, c.kv_heads = 3;
    assert_bad(c, MODEL_BAD_KV_HEADS, "kv_heads", 1, 4);
    c = d, c.heads = 4, c.d_k = 17;
    assert_bad(c, MODEL_BAD_D_K, "d_k", 1, 16);
    c = d, c.d_ff = 257;
    assert_bad(c, MODEL_BAD_D_FF, "d_ff", 0, 256);
    c = d, c.eps = 0;
    assert_bad(c, MODEL_BAD_EPS, "eps", 0, 1);
    c = d, c.positions = MPOS_ROPE, c.heads = 8;
    assert_bad(c, MODEL_BAD_ROPE_ODD_DK, "d_k", 0, 0);
    c = d, c.positions = MPOS_ROPE, c.rope_base = 1;
    assert_bad(c, MODEL_BAD_ROPE_BASE, "rope_base", 1, INFINITY);
    c = d, c.ctx = 65;
    assert_bad(c, MODEL_BAD_CTX, "ctx", 1, 64);
    c = d, c.offset = 16;
    assert_bad(c, MODEL_BAD_OFFSET, "offset", 0, 15);
    c.positions = MPOS_SINUSOIDAL;
    assert_int_equal(model_cfg_check(&c), MODEL_OK);
    c = d, c.vocab = 129;
    assert_bad(c, MODEL_BAD_VOCAB, "vocab", 2, 128);
    c = d, c.layers = 3, c.attn[2].mask = MASK_WINDOW, c.attn[2].window = 0;
    assert_bad(c, MODEL_BAD_WINDOW, "window", 1, 64);
    assert_int_equal(model_cfg_bad_layer(&c), 3);
    c.layers = 2; /* a layer the model does not have is not checked */
    assert_int_equal(model_cfg_check(&c), MODEL_OK);
    c = d, c.attn[0].temp = 0.01;
    assert_bad(c, MODEL_BAD_TEMP, "temperature", 0.05, 20);
    c = d, c.attn[0].softmax = SOFTMAX_ONLINE, c.attn[0].block = 0;
    assert_bad(c, MODEL_BAD_BLOCK, "block", 1, 64);
    c = d, c.sample_temp = 0;
    assert_bad(c, MODEL_BAD_SAMPLE_TEMP, "sampling.temperature", 0.05, 20);
    c = d, c.layers = 0, c.vocab = 1; /* the first in order */
    assert_bad(c, MODEL_BAD_LAYERS, "layers", 1, 8);
    /* tokens: 1 .. ctx - offset (learned), each in the vocab */
    Model m;
    int tok[17] = {0};
    assert_false(model_init(&m, &d, tok, 17));
    assert_false(model_init(&m, &d, tok, 0));
    tok[1] = 8;
    assert_false(model_init(&m, &d, tok, 2));
    c = d, c.offset = 15;
    assert_false(model_init(&m, &c, (int[]){0, 0}, 2));
    assert_true(model_init(&m, &c, (int[]){0}, 1));
    model_free(&m);
}

static Model *small_model(int layers, int d_ff, const int *tok, int n)
{
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = layers, c.d_model = 4, c.heads = 2, c.d_ff = d_ff, c.vocab = 5, c.ctx = 8;
    Model *m = new_model(&c, tok, n);
    model_draw_weights(m, 11, 0.5);
    return m;
}

/* The cursor: stages in order, 7 skipped without a feed-forward, 8 last;
 * a stage computes only from the one before. */
static void test_stages(void **state)
{
    int tok[] = {0, 1, 2};
    Model *m = small_model(2, 0, tok, 3);
    int l = 0, s = 0, count = 0, seen[16][2];
    while (model_stage_next(m, &l, &s)) {
        seen[count][0] = l, seen[count][1] = s;
        model_run_stage(m, l, s);
        assert_true(model_reached(m, l, s));
        count++;
    }
    static const int want[][2] = {{1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {2, 1}, {2, 2},
                                  {2, 3}, {2, 4}, {2, 5}, {2, 6}, {2, 8}};
    assert_int_equal(count, 13);
    assert_memory_equal(seen, want, sizeof want);
    assert_false(model_stage_exists(m, 1, MSTAGE_FFN));
    assert_false(model_stage_exists(m, 1, MSTAGE_NEXT));
    assert_true(model_stage_prev(m, &l, &s) && l == 2 && s == MSTAGE_PROJECT);
    l = 2, s = 1;
    assert_true(model_stage_prev(m, &l, &s) && l == 1 && s == MSTAGE_PROJECT);
    l = 1, s = 1;
    assert_false(model_stage_prev(m, &l, &s));
    /* stage 5 reads stage 2's V as it is now: an edit of V shows in O */
    model_run_to(m, 1, MSTAGE_SOFTMAX);
    Attn *a = &m->layer[0].att;
    MAT_AT(&a->m[attn_head_id(M_V, 1)], 0, 0) += 1.0;
    model_run_stage(m, 1, MSTAGE_OUTPUT);
    assert_true(MAT_AT(&a->m[M_O], 0, 0) == MAT_AT(&a->m[attn_head_id(M_V, 1)], 0, 0)); /* row 1 sees key 1 only */
    assert_true(m->at_layer == 1 && m->at_stage == MSTAGE_OUTPUT && !model_reached(m, 1, MSTAGE_PROJECT));
    model_run_to(m, 2, MSTAGE_NEXT);
    /* without a feed-forward h is h_mid */
    assert_memory_equal(m->layer[0].h.v, m->layer[0].h_mid.v, sizeof(double) * 12);
    model_run_to(m, 2, MSTAGE_SCORES);
    assert_true(model_reached(m, 1, MSTAGE_PROJECT) && model_reached(m, 2, MSTAGE_SCORES));
    assert_false(model_reached(m, 2, MSTAGE_SOFTMAX) || model_reached(m, 2, MSTAGE_NEXT));
    model_run_to(m, 1, MSTAGE_FFN); /* no stage 7: to 6 */
    assert_true(m->at_layer == 1 && m->at_stage == MSTAGE_PROJECT);
    model_run_to(m, 0, 0);
    assert_false(model_reached(m, 1, MSTAGE_EMBED));
    assert_string_equal(model_stage_key(MSTAGE_PROJECT), "project");
    assert_string_equal(model_stage_key(MSTAGE_NEXT), "next");
    assert_int_equal(model_stage_lookup("ffn", -1), MSTAGE_FFN);
    assert_int_equal(model_stage_lookup("embedding", 5), MSTAGE_EMBED);
    assert_int_equal(model_stage_lookup("input", -1), 0);
    del_model(m);
}

/* The same numbers stage by stage as all at once; the layer's attention is
 * the Attn pipeline's on a (its X), with the layer's options. */
static void test_forward(void **state)
{
    int tok[] = {3, 1, 4, 1};
    Model *m = small_model(2, 6, tok, 4);
    m->cfg.attn[1].mask = MASK_WINDOW, m->cfg.attn[1].window = 2, m->cfg.attn[1].temp = 0.5;
    model_run_all(m);
    Model *x = calloc(1, sizeof *x);
    assert_true(model_copy(x, m));
    model_run_to(x, 0, 0);
    for (int l = 0, s = 0; model_stage_next(x, &l, &s);)
        model_run_stage(x, l, s);
    assert_memory_equal(x->p.v, m->p.v, sizeof(double) * 4 * 5);
    const Attn *a = &m->layer[1].att;
    assert_true(a->mask == MASK_WINDOW && a->window == 2 && a->temp == 0.5 && m->layer[0].att.mask == MASK_CAUSAL);
    assert_true(MAT_AT(&a->m[M_A], 3, 1) == 0.0 && MAT_AT(&a->m[M_A], 3, 2) > 0.0);
    Attn b = {0};
    assert_true(attn_copy(&b, a));
    attn_run_to(&b, STAGE_PROJECT);
    assert_memory_equal(b.m[M_Y].v, a->m[M_Y].v, sizeof(double) * 16);
    assert_memory_equal(a->m[M_X].v, named(m, "L2.a")->v, sizeof(double) * 16);
    attn_free(&b);
    del_model(x);
    del_model(m);
}

/* Names: every parameter in DESIGN.md's order; L1. may be left out only
 * with one layer; what the model lacks is not found. */
static void test_names(void **state)
{
    int tok[] = {0, 1};
    Model *m = small_model(2, 3, tok, 2);
    ModelRef r[MODEL_PARAMS_MAX];
    int n = model_params(m, r, MODEL_PARAMS_MAX);
    static const char *want[] = {"E", "P", "L1.Wq", "L1.Wk", "L1.Wv", "L1.Wo", "L1.g1", "L1.beta1", "L1.W1",
                                 "L1.b1", "L1.W2", "L1.b2", "L1.g2", "L1.beta2", "L2.Wq", "L2.Wk", "L2.Wv",
                                 "L2.Wo", "L2.g1", "L2.beta1", "L2.W1", "L2.b1", "L2.W2", "L2.b2", "L2.g2",
                                 "L2.beta2", "gf", "betaf", "WU"};
    assert_int_equal(n, 29);
    for (int k = 0; k < n; k++) {
        char name[32];
        model_ref_name(m, r[k], name, sizeof name);
        assert_string_equal(name, want[k]);
        ModelRef back;
        assert_true(model_lookup(m, name, -1, &back) && model_ref_is_param(back));
        assert_ptr_equal(model_mat(m, back), model_mat(m, r[k]));
    }
    ModelRef x;
    assert_true(model_lookup(m, "L2.A2", -1, &x) && x.kind == MM_ATTN && x.layer == 2);
    assert_int_equal(model_ref_stage(m, x), MSTAGE_SOFTMAX);
    assert_true(model_lookup(m, "L1.h", -1, &x) && model_ref_stage(m, x) == MSTAGE_FFN && !model_ref_is_param(x));
    assert_true(model_lookup(m, "p", -1, &x) && x.kind == MM_PROBS && model_ref_stage(m, x) == MSTAGE_NEXT);
    assert_false(model_lookup(m, "Wq", -1, &x));    /* two layers: say which */
    assert_false(model_lookup(m, "L3.Wq", -1, &x));
    assert_false(model_lookup(m, "L1.X", -1, &x));  /* a is the attention's X */
    assert_false(model_lookup(m, "L1.Q0", -1, &x)); /* no RoPE */
    assert_false(model_lookup(m, "L1.A3", -1, &x)); /* two heads */
    assert_true(model_lookup(m, "L1.Wq plus", 5, &x));
    del_model(m);
    ModelCfg c;
    model_cfg_default(&c);
    c.positions = MPOS_ROPE, c.unembed = UNEMBED_TIED, c.norm = NORM_RMS;
    m = new_model(&c, tok, 2);
    assert_true(model_lookup(m, "Wq", -1, &x) && x.layer == 1);
    assert_true(model_lookup(m, "h", -1, &x) && x.kind == MM_H);
    assert_true(model_lookup(m, "Q0", -1, &x));
    assert_false(model_lookup(m, "P", -1, &x) || model_lookup(m, "WU", -1, &x) || model_lookup(m, "beta1", -1, &x));
    assert_false(model_lookup(m, "W1", -1, &x)); /* d_ff = 0 */
    assert_int_equal(model_params(m, r, MODEL_PARAMS_MAX), 7); /* E, Wq, Wk, Wv, Wo, g1, gf */
    del_model(m);
}

/* An ablated head gives 0 before W_O; the cursor drops below its output;
 * a new input keeps the weights and the ablation. */
static void test_ablate_and_tokens(void **state)
{
    int tok[] = {0, 1, 2};
    Model *m = small_model(2, 3, tok, 3);
    model_run_all(m);
    double p_before = MAT_AT(&m->p, 2, 0);
    model_set_ablate(m, 1, 2, true);
    assert_true(m->at_layer == 1 && m->at_stage == MSTAGE_SOFTMAX);
    model_run_all(m);
    const Attn *a = &m->layer[0].att;
    for (int i = 0; i < 3; i++)
        for (int j = 2; j < 4; j++)
            assert_true(MAT_AT(&a->m[M_O], i, j) == 0.0 && MAT_AT(&a->m[attn_head_id(M_O, 2)], i, j - 2) == 0.0);
    assert_true(MAT_AT(&a->m[M_O], 1, 0) != 0.0);
    assert_true(MAT_AT(&m->p, 2, 0) != p_before);
    double wq = MAT_AT(named(m, "L2.Wq"), 1, 1);
    int tok2[] = {4, 4, 3, 2, 1};
    assert_true(model_set_tokens(m, tok2, 5));
    assert_true(m->n == 5 && m->at_stage == 0 && m->layer[0].ablate == 2u);
    assert_true(MAT_AT(named(m, "L2.Wq"), 1, 1) == wq && named(m, "L1.A1")->rows == 5);
    assert_false(model_set_tokens(m, tok2, 9)); /* ctx 8 */
    assert_int_equal(m->n, 5);
    model_set_ablate(m, 1, 2, false);
    assert_int_equal(m->layer[0].ablate, 0u);
    int back[] = {0, 1, 2};
    assert_true(model_set_tokens(m, back, 3));
    model_run_all(m);
    assert_true(MAT_AT(&m->p, 2, 0) == p_before);
    del_model(m);
}

/* A token appended under the causal mask leaves every earlier row of every
 * layer's results and of p unchanged, bit for bit (a KV cache is exact). */
static void test_append_cached(void **state)
{
    int tok[] = {0, 3, 1, 4, 2, 0};
    Model *m = small_model(2, 4, tok, 5);
    m->cfg.attn[1].softmax = SOFTMAX_ONLINE, m->cfg.attn[1].block = 2;
    model_run_all(m);
    Model *x = calloc(1, sizeof *x);
    assert_true(model_copy(x, m));
    assert_true(model_set_tokens(x, tok, 6));
    model_run_all(x);
    static const char *rows[] = {"L1.h_in", "L1.a", "L1.Q", "L1.V", "L1.O", "L1.Y", "L1.h_mid", "L1.b", "L1.u",
                                 "L1.f", "L1.h", "L2.a", "L2.K", "L2.O", "L2.h", "h_final", "logits", "p"};
    for (size_t k = 0; k < sizeof rows / sizeof *rows; k++) {
        const Mat *before = named(m, rows[k]), *after = named(x, rows[k]);
        assert_int_equal(after->rows, 6);
        for (int i = 0; i < 5; i++)
            if (memcmp(&MAT_AT(before, i, 0), &MAT_AT(after, i, 0), sizeof(double) * (size_t)before->cols) != 0)
                fail_msg("%s row %d changed", rows[k], i + 1);
    }
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            assert_true(MAT_AT(named(m, "L2.A2"), i, j) == MAT_AT(named(x, "L2.A2"), i, j));
    del_model(x);
    del_model(m);
}

/* Previous-token and induction scores of a head, on patterns set by hand. */
static void test_scores(void **state)
{
    int tok[] = {0, 1, 2, 0, 1, 2};
    Model *m = small_model(1, 0, tok, 6);
    double s;
    assert_false(model_prev_score(m, 1, 1, &s)); /* not reached */
    model_run_to(m, 1, MSTAGE_SOFTMAX);
    Mat *A = &m->layer[0].att.m[attn_head_id(M_A, 2)];
    for (int k = 0; k < 36; k++)
        A->v[k] = 0.0;
    for (int i = 1; i < 6; i++)
        MAT_AT(A, i, i - 1) = 1.0; /* a previous-token head */
    assert_true(model_prev_score(m, 1, 2, &s) && s == 1.0);
    assert_true(model_induction_score(m, 1, 2, &s) && s == 0.0);
    for (int i = 3; i < 6; i++) {
        MAT_AT(A, i, i - 1) = 0.25;
        MAT_AT(A, i, i - 2) = 0.75; /* after the earlier copy: i - 3 + 1 */
    }
    assert_true(model_induction_score(m, 1, 2, &s) && s == 0.75);
    assert_true(model_prev_score(m, 1, 2, &s));
    assert_near(s, (2 * 1.0 + 3 * 0.25) / 5, 1e-15);
    assert_false(model_prev_score(m, 1, 3, &s) || model_prev_score(m, 2, 1, &s));
    int once[] = {0, 1, 2};
    assert_true(model_set_tokens(m, once, 3));
    model_run_to(m, 1, MSTAGE_SOFTMAX);
    assert_false(model_induction_score(m, 1, 1, &s)); /* nothing repeats */
    int two[] = {1, 1};
    assert_true(model_set_tokens(m, two, 2));
    model_run_to(m, 1, MSTAGE_SOFTMAX); /* row 1's token occurred at 0: the weight on 0 + 1 */
    assert_true(model_induction_score(m, 1, 1, &s) && s == MAT_AT(&m->layer[0].att.m[attn_head_id(M_A, 1)], 1, 1));
    del_model(m);
}

/* The explained cells of each kind give the cell from their own numbers,
 * over every norm, position kind, activation and unembedding. */
static void test_explain_all(void **state)
{
    static const NormKind norms[] = {NORM_NONE, NORM_LAYER, NORM_RMS};
    static const ModelPos pos[] = {MPOS_LEARNED, MPOS_SINUSOIDAL, MPOS_ROPE, MPOS_NONE};
    int tok[] = {2, 0, 2, 1, 3};
    for (int k = 0; k < 3 * 4 * 2; k++) {
        ModelCfg c;
        model_cfg_default(&c);
        c.layers = 2, c.d_model = 6, c.heads = 3, c.kv_heads = 1, c.d_ff = 5, c.vocab = 4, c.ctx = 7, c.offset = 1;
        c.norm = norms[k % 3], c.positions = pos[k / 3 % 4], c.act = k % 2 ? ACT_RELU : ACT_GELU;
        c.unembed = k / 12 ? UNEMBED_TIED : UNEMBED_SEPARATE, c.sample_temp = k % 5 ? 1.0 : 0.7;
        Model *m = new_model(&c, tok, 5);
        model_draw_weights(m, (unsigned long)k, 0.6);
        model_run_all(m);
        int cells;
        if (model_check_explain(m, &cells) != 0)
            fail_msg("config %d: explained cells that do not rebuild", k);
        assert_int_equal(cells, 2 * (5 * 5 * 6 + 2 * 5 * 5) + 5 * 6 + 2 * 5 * 4);
        del_model(m);
    }
}

/* Real numbers in each kind's terms. */
static void test_explain_terms(void **state)
{
    int tok[] = {1, 0};
    Model *m = small_model(1, 3, tok, 2);
    m->cfg.sample_temp = 0.5;
    ModelExplain e;
    ModelRef r;
    assert_true(model_lookup(m, "L1.h_in", -1, &r));
    assert_false(model_explain(m, r, 0, 0, &e)); /* not reached */
    model_run_all(m);
    assert_false(model_explain(m, r, 2, 0, &e)); /* no row 3 */
    assert_true(model_explain(m, r, 1, 3, &e) && e.kind == MX_EMBED && e.token == 0 && e.pos == 1);
    assert_true(e.e == MAT_AT(&m->E, 0, 3) && e.p == MAT_AT(&m->P, 1, 3) && e.result == e.e + e.p);
    assert_true(model_lookup(m, "h_mid", -1, &r) && model_explain(m, r, 1, 2, &e) && e.kind == MX_RESID);
    assert_true(e.h == MAT_AT(named(m, "h_in"), 1, 2) && e.y == MAT_AT(named(m, "Y"), 1, 2));
    assert_true(model_lookup(m, "f", -1, &r) && model_explain(m, r, 0, 1, &e) && e.kind == MX_FFN_HIDDEN);
    assert_true(e.activated && e.n == 4 && e.a[3] == MAT_AT(named(m, "b"), 0, 3) && e.b[3] == MAT_AT(named(m, "W1"), 3, 1));
    assert_true(e.pre == MAT_AT(named(m, "u"), 0, 1) && e.result == e.pre * e.phi);
    assert_true(model_lookup(m, "h", -1, &r) && model_explain(m, r, 1, 0, &e) && e.kind == MX_FFN_OUT && e.n == 3);
    assert_true(e.resid == MAT_AT(named(m, "h_mid"), 1, 0) && e.a[2] == MAT_AT(named(m, "f"), 1, 2));
    assert_true(e.result == e.resid + (e.sum + e.bias));
    assert_true(model_lookup(m, "logits", -1, &r) && model_explain(m, r, 1, 4, &e) && e.kind == MX_LOGIT);
    assert_true(!e.tied && e.b[2] == MAT_AT(named(m, "WU"), 2, 4) && e.a[2] == MAT_AT(&m->h_final, 1, 2));
    assert_true(model_lookup(m, "p", -1, &r) && model_explain(m, r, 1, 4, &e) && e.kind == MX_PROB && e.n == 5);
    assert_true(e.temp == 0.5 && e.b[4] == MAT_AT(&m->logits, 1, 4) / 0.5 && e.result == e.prod[4] / e.sum);
    assert_true(model_lookup(m, "Wq", -1, &r) && model_explain(m, r, 0, 0, &e) && e.kind == MX_PARAM);
    assert_true(model_lookup(m, "S", -1, &r) && !model_explain(m, r, 0, 0, &e)); /* explain_cell's */
    del_model(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draw_order),    cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_norms),         cmocka_unit_test(test_act),
        cmocka_unit_test(test_sample),        cmocka_unit_test(test_predict),
        cmocka_unit_test(test_check),         cmocka_unit_test(test_stages),
        cmocka_unit_test(test_forward),       cmocka_unit_test(test_names),
        cmocka_unit_test(test_ablate_and_tokens), cmocka_unit_test(test_append_cached),
        cmocka_unit_test(test_scores),
        cmocka_unit_test(test_explain_all),   cmocka_unit_test(test_explain_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
