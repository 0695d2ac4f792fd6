/* test_backprop.c - exact backpropagation through a whole model
 * (core/model_back.h) against central finite differences of the loss, for
 * every parameter of models crossed with layers, heads, kv_heads, the
 * feed-forward and its activation, each norm, each position kind, tied and
 * separate unembedding, masks, windows, temperature, scaling, the softmax
 * kinds and ablation; then SGD and Adam (core/optim.h) against their
 * formulas written out here, the refusal of a step that is not finite, and
 * a loss that falls on a sequence that repeats. */
#include "testutil.h"
#include "core/model.h"
#include "core/model_back.h"
#include "core/optim.h"
#include "core/rng.h"

#include <stdlib.h>
#include <string.h>

/* The loss as the test computes it: the sum of -ln p[i][tok[i+1]]. */
static double loss_of(Model *m)
{
    model_run_all(m);
    double s = 0.0;
    for (int i = 0; i + 1 < m->n; i++)
        s -= log(MAT_AT(&m->p, i, m->tok[i + 1]));
    return s;
}

/* Gains near 1 and biases near 0 but not at them, so their gradients show. */
static void shake_norms(Model *m, Rng *r)
{
    ModelRef refs[MODEL_PARAMS_MAX];
    int np = model_params(m, refs, MODEL_PARAMS_MAX);
    for (int k = 0; k < np; k++) {
        ModelMatKind kind = refs[k].kind;
        if (kind != MM_G1 && kind != MM_G2 && kind != MM_GF && kind != MM_BETA1 && kind != MM_BETA2 &&
            kind != MM_BETAF && kind != MM_B1 && kind != MM_B2)
            continue;
        Mat *w = model_mat_mut(m, refs[k]);
        for (int c = 0; c < w->cols; c++)
            w->v[c] += 0.2 * rng_gauss(r);
    }
}

typedef struct {
    const char *what;
    int layers, d, heads, kv, d_ff;
    Act act;
    NormKind norm;
    ModelPos pos;
    Unembed unembed;
    Mask mask;
    int window;
    double temp, sample_temp;
    Scale scale;
    Softmax softmax;
    int offset, n;
    unsigned ablate1; /* layer 1's ablated heads */
} Case;

static const Case cases[] = {
    {"1 layer, no norm, learned", 1, 4, 1, 0, 0, ACT_GELU, NORM_NONE, MPOS_LEARNED, UNEMBED_SEPARATE, MASK_CAUSAL, 1, 1, 1, SCALE_SQRT_DK, SOFTMAX_STABLE, 0, 5, 0},
    {"2 layers, gelu FFN, layernorm, tied", 2, 8, 2, 0, 8, ACT_GELU, NORM_LAYER, MPOS_LEARNED, UNEMBED_TIED, MASK_CAUSAL, 1, 1, 1, SCALE_SQRT_DK, SOFTMAX_STABLE, 0, 6, 0},
    {"GQA, relu, rmsnorm, rope, window, T", 2, 8, 4, 2, 6, ACT_RELU, NORM_RMS, MPOS_ROPE, UNEMBED_SEPARATE, MASK_WINDOW, 2, 0.7, 1.3, SCALE_SQRT_DK, SOFTMAX_STABLE, 3, 6, 0},
    {"3 layers, sinusoidal, no mask, unscaled, naive", 3, 6, 3, 0, 4, ACT_GELU, NORM_LAYER, MPOS_SINUSOIDAL, UNEMBED_SEPARATE, MASK_NONE, 1, 1, 1, SCALE_NONE, SOFTMAX_NAIVE, 0, 4, 0},
    {"online softmax, an ablated head, offset", 2, 8, 2, 1, 0, ACT_GELU, NORM_LAYER, MPOS_LEARNED, UNEMBED_SEPARATE, MASK_CAUSAL, 1, 1.5, 1, SCALE_SQRT_DK, SOFTMAX_ONLINE, 2, 5, 2u},
    {"no positions, tied, rmsnorm", 1, 6, 2, 0, 5, ACT_GELU, NORM_RMS, MPOS_NONE, UNEMBED_TIED, MASK_CAUSAL, 1, 1, 1, SCALE_SQRT_DK, SOFTMAX_STABLE, 0, 7, 0},
};

static bool build(const Case *k, Model *m, unsigned long seed)
{
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = k->layers;
    c.d_model = k->d;
    c.heads = k->heads;
    c.kv_heads = k->kv;
    c.d_ff = k->d_ff;
    c.act = k->act;
    c.norm = k->norm;
    c.positions = k->pos;
    c.unembed = k->unembed;
    c.offset = k->offset;
    c.ctx = 12;
    c.vocab = 7;
    c.sample_temp = k->sample_temp;
    for (int l = 0; l < k->layers; l++) {
        c.attn[l].mask = k->mask;
        c.attn[l].window = k->window;
        c.attn[l].temp = k->temp;
        c.attn[l].scale = k->scale;
        c.attn[l].softmax = k->softmax;
    }
    int tok[MODEL_CTX_MAX];
    Rng r;
    rng_seed(&r, seed + 1000);
    for (int i = 0; i < k->n; i++)
        tok[i] = (int)(rng_u32(&r) % (unsigned)c.vocab);
    if (!model_init(m, &c, tok, k->n))
        return false;
    model_draw_weights(m, seed, 0.6);
    shake_norms(m, &r);
    for (int h = 1; h <= k->heads; h++)
        if (k->ablate1 >> (h - 1) & 1u)
            model_set_ablate(m, 1, h, true);
    return true;
}

/* Every parameter cell: the analytic gradient against (L(w+e) - L(w-e)) / 2e. */
static void check_case(const Case *k, unsigned long seed)
{
    Model m, g;
    assert_true(build(k, &m, seed));
    assert_true(model_grad_init(&g, &m));
    model_run_all(&m);
    bool ok;
    double loss = model_backward(&m, &g, 1.0, &ok);
    assert_true(ok);
    assert_near(loss, loss_of(&m), 1e-12);
    ModelRef refs[MODEL_PARAMS_MAX];
    int np = model_params(&m, refs, MODEL_PARAMS_MAX), cells = 0;
    double worst = 0.0;
    for (int p = 0; p < np; p++) {
        Mat *w = model_mat_mut(&m, refs[p]);
        const Mat *gw = model_mat(&g, refs[p]);
        for (int c = 0; c < w->rows * w->cols; c++) {
            double keep = w->v[c], e = 1e-5;
            w->v[c] = keep + e;
            double up = loss_of(&m);
            w->v[c] = keep - e;
            double down = loss_of(&m);
            w->v[c] = keep;
            double num = (up - down) / (2 * e), err = fabs(num - gw->v[c]) / fmax(1.0, fabs(num));
            if (err > worst)
                worst = err;
            if (err > 1e-7) {
                char name[32];
                model_ref_name(&m, refs[p], name, sizeof name);
                print_error("%s, seed %lu: d%s[%d] = %.12g, finite differences %.12g\n", k->what, seed, name, c,
                            gw->v[c], num);
                fail();
            }
            cells++;
        }
    }
    assert_true(cells > 0);
    (void)worst;
    model_free(&m);
    model_free(&g);
}

static void gradients_match_finite_differences(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (unsigned long seed = 1; seed <= 3; seed++)
            check_case(&cases[k], seed);
}

/* An ablated head gets no gradient on its columns of Wq. */
static void ablated_head_learns_nothing(void **state)
{
    (void)state;
    Model m, g;
    assert_true(build(&cases[4], &m, 5));
    assert_true(model_grad_init(&g, &m));
    model_run_all(&m);
    bool ok;
    (void)model_backward(&m, &g, 1.0, &ok);
    const Mat *gq = &g.layer[0].att.m[M_WQ];
    int dk = m.cfg.d_k;
    double head1 = 0.0, head2 = 0.0;
    for (int r = 0; r < gq->rows; r++)
        for (int c = 0; c < dk; c++) {
            head1 += fabs(MAT_AT(gq, r, c));
            head2 += fabs(MAT_AT(gq, r, dk + c));
        }
    assert_true(head1 > 0.0);
    assert_true(head2 == 0.0);
    model_free(&m);
    model_free(&g);
}

/* SGD and Adam against their formulas, written out here for one weight:
 * two steps of the same model and batch, every parameter compared. */
static void update_matches_formulas(void **state)
{
    (void)state;
    for (int kind = OPT_SGD; kind <= OPT_ADAM; kind++) {
        Model m, g, before;
        assert_true(build(&cases[1], &m, 9));
        assert_true(model_grad_init(&g, &m));
        memset(&before, 0, sizeof before);
        Optim o;
        optim_init(&o, (OptKind)kind, kind == OPT_SGD ? 0.1 : 0.01);
        int tok[] = {1, 2, 3, 1, 2, 3, 4, 0, 5, 6}, len[] = {6, 4};
        double mm[MODEL_PARAMS_MAX][64], vv[MODEL_PARAMS_MAX][64]; /* the first cells' moments */
        memset(mm, 0, sizeof mm);
        memset(vv, 0, sizeof vv);
        for (int t = 1; t <= 2; t++) {
            assert_true(model_copy(&before, &m));
            double loss;
            ModelRef bad;
            assert_int_equal(model_train_step(&m, &g, &o, tok, len, 2, &loss, &bad), TRAIN_OK);
            assert_true(loss > 0.0 && isfinite(loss));
            ModelRef refs[MODEL_PARAMS_MAX];
            int np = model_params(&m, refs, MODEL_PARAMS_MAX);
            for (int p = 0; p < np; p++) {
                const Mat *w0 = model_mat(&before, refs[p]), *w1 = model_mat(&m, refs[p]), *gr = model_mat(&g, refs[p]);
                for (int c = 0; c < w0->rows * w0->cols && c < 64; c++) {
                    double want, gv = gr->v[c];
                    if (kind == OPT_SGD) {
                        want = w0->v[c] - 0.1 * gv;
                    } else {
                        mm[p][c] = 0.9 * mm[p][c] + 0.1 * gv;
                        vv[p][c] = 0.999 * vv[p][c] + 0.001 * gv * gv;
                        double mhat = mm[p][c] / (1 - pow(0.9, t)), vhat = vv[p][c] / (1 - pow(0.999, t));
                        want = w0->v[c] - 0.01 * mhat / (sqrt(vhat) + 1e-8);
                    }
                    assert_near(w1->v[c], want, 1e-15 + 1e-13 * fabs(want));
                }
            }
        }
        assert_int_equal(o.t, kind == OPT_ADAM ? 2 : 2);
        optim_free(&o);
        model_free(&m);
        model_free(&g);
        model_free(&before);
    }
}

/* A gradient or weight that is not finite changes nothing and names the parameter. */
static void not_finite_changes_nothing(void **state)
{
    (void)state;
    Model m, g, before;
    assert_true(build(&cases[0], &m, 4));
    assert_true(model_grad_init(&g, &m));
    memset(&before, 0, sizeof before);
    assert_true(model_copy(&before, &m));
    Optim o;
    optim_init(&o, OPT_ADAM, 0.01);
    model_run_all(&m);
    bool ok;
    (void)model_backward(&m, &g, 1.0, &ok);
    ModelRef refs[MODEL_PARAMS_MAX];
    int np = model_params(&m, refs, MODEL_PARAMS_MAX);
    model_mat_mut(&g, refs[np - 1])->v[0] = NAN; /* WU's first cell */
    ModelRef bad;
    assert_int_equal(optim_update(&o, &m, &g, &bad), TRAIN_GRAD_NOT_FINITE);
    char name[32];
    model_ref_name(&m, bad, name, sizeof name);
    assert_string_equal(name, "WU");
    assert_int_equal(o.t, 0);
    for (int p = 0; p < np; p++)
        assert_true(mat_max_diff(model_mat(&m, refs[p]), model_mat(&before, refs[p])) == 0.0);
    optim_free(&o);
    model_free(&m);
    model_free(&g);
    model_free(&before);
}

/* Adam on one sequence that repeats: the loss falls from ln 7 towards 0. */
static void loss_falls_on_a_repeat(void **state)
{
    (void)state;
    Model m, g;
    assert_true(build(&cases[1], &m, 2));
    assert_true(model_grad_init(&g, &m));
    Optim o;
    optim_init(&o, OPT_ADAM, 0.02);
    int tok[] = {1, 2, 3, 4, 1, 2, 3, 4}, len[] = {8};
    double first = 0.0, loss = 0.0;
    for (int s = 0; s < 150; s++) {
        ModelRef bad;
        assert_int_equal(model_train_step(&m, &g, &o, tok, len, 1, &loss, &bad), TRAIN_OK);
        if (s == 0)
            first = loss;
    }
    assert_true(first > 1.0);
    assert_true(loss < 0.05);
    optim_free(&o);
    model_free(&m);
    model_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gradients_match_finite_differences),
        cmocka_unit_test(ablated_head_learns_nothing),
        cmocka_unit_test(update_matches_formulas),
        cmocka_unit_test(not_finite_changes_nothing),
        cmocka_unit_test(loss_falls_on_a_repeat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
