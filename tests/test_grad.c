/* test_grad.c - targets, loss, the analytic gradient on W_Q and W_K, and
 * gradient descent: against numpy (Debian python3-numpy 1.24, %.17g), and
 * against central finite differences over random lessons crossed with the
 * heads, the mask, the temperature, the positions and the scaling. */
#include "testutil.h"
#include "core/attn.h"
#include "core/grad.h"
#include "core/rng.h"

#include <stdlib.h>
#include <string.h>

/* numpy, lesson 1 (seed 42, unscaled, naive), target A[1] = [0, 0, 1]:
 * G = 0 but row 1 = A[1] - t; dWq = X^T (G K), dWk = X^T (G^T Q). */
static const double gq_1[] = {0.15188433304777282, -0.0093872851723954542, -0.3607851400804491, 0, 0, 0, 0, 0, 0, 0, 0, 0};
static const double gk_1[] = {0.046711297867310014, -0.013002458088357743, 0.060909019896157157, 0.050183917694454114, -0.013969089199475733, 0.06543712936432361, -0.096895215561764128, 0.026971547287833478, -0.12634614926048077, -0.019379043112352827, 0.0053943094575666962, -0.025269229852096155};
/* ... and after ten steps at lr 0.5 */
static const double wq_10[] = {-0.065826587149834526, -0.11920865187813208, 1.7365472861257647, 0.45690895692240757, -0.070246012417000792, -0.070241087084754156, 0.47376384465221744, 0.23023041874587263, -0.14084231578048562, 0.16276801307578939, -0.13902530784373868, -0.13971892607107705};
static const double wk_10[] = {0.042637491879504108, -0.53921997994876059, -0.93944620997899464, -0.19849437380373045, -0.25208627541293577, -0.56828831233271571, -0.21264791803461847, -0.51021826453655772, 1.5242280030128488, -0.055781029221611725, 0.0029530305791831079, -0.21051778139676047};
static const double a1_10[] = {0.014114647528400824, 0.026400696590278008, 0.95948465588132115};
/* REFERENCE.md: A[1][3] and the loss by step 0..11 (three decimals). */
static const double ref_a13[] = {0.350, 0.387, 0.443, 0.535, 0.664, 0.787, 0.866, 0.910, 0.934, 0.949, 0.959, 0.966};
static const double ref_loss[] = {1.051, 0.950, 0.815, 0.625, 0.409, 0.240, 0.144, 0.095, 0.068, 0.052, 0.041, 0.034};

static const double cat[] = {0, 0, 1};

/* Lesson 1: X = [[1,0,0,0],[0,1,0,0],[0,0,1,0.2]], seed-42 weights, unscaled, naive. */
static int setup_lesson1(void **state)
{
    static const double x[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.2};
    Attn *a = calloc(1, sizeof *a);
    Rng r;
    *state = a;
    if (!a || !attn_init(a, 3, 4, 3, 3))
        return -1;
    memcpy(a->m[M_X].v, x, sizeof x);
    rng_seed(&r, 42);
    for (int p = M_WQ; p <= M_WV; p++)
        rng_randn(&r, &a->m[p], 0.3);
    a->scale = SCALE_NONE;
    a->softmax = SOFTMAX_NAIVE;
    attn_run_to(a, STAGE_OUTPUT);
    return 0;
}

static int teardown(void **state)
{
    attn_free(*state);
    free(*state);
    return 0;
}

/* The analytic gradient of lesson 1 with target 我 -> 猫 equals numpy's. */
static void lesson1_gradient_is_numpys(void **state)
{
    Attn *a = *state;
    Mat gq = {0}, gk = {0};
    assert_true(grad_set_target(a, 0, 0, cat));
    assert_near(grad_loss(a), 1.0505117637249679, 1e-15);
    assert_true(grad_compute(a, &gq, &gk));
    assert_mat_near(&gq, 4, 3, gq_1, 1e-15);
    assert_mat_near(&gk, 4, 3, gk_1, 1e-15);
    mat_free(&gq);
    mat_free(&gk);
}

/* Steps at lr 0.5 give REFERENCE.md's curve, and ten steps numpy's weights;
 * X, Wv and V never change. */
static void lesson1_descent_follows_reference(void **state)
{
    Attn *a = *state, before = {0};
    assert_true(attn_copy(&before, a));
    assert_true(grad_set_target(a, 0, 0, cat));
    for (int s = 0; s <= 11; s++) {
        attn_run_to(a, STAGE_SOFTMAX);
        assert_near(MAT_AT(&a->m[M_A], 0, 2), ref_a13[s], 0.0005);
        assert_near(grad_loss(a), ref_loss[s], 0.0005);
        if (s == 10)
            break;
        assert_true(grad_descend(a, 1));
        assert_int_equal(a->reached, STAGE_INPUT);
    }
    assert_int_equal(a->nloss, 10); /* the loss before each step, REFERENCE's curve */
    for (int s = 0; s < 10; s++)
        assert_near(a->loss_hist[s], ref_loss[s], 0.0005);
    assert_mat_near(&a->m[M_WQ], 4, 3, wq_10, 1e-12);
    assert_mat_near(&a->m[M_WK], 4, 3, wk_10, 1e-12);
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_A], 0, j), a1_10[j], 1e-12);
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(mat_max_diff(&a->m[M_X], &before.m[M_X]) == 0.0);
    assert_true(mat_max_diff(&a->m[M_WV], &before.m[M_WV]) == 0.0);
    assert_true(mat_max_diff(&a->m[M_V], &before.m[M_V]) == 0.0);
    attn_free(&before);
}

/* grad_descend(a, 10) is ten single steps, bit for bit. */
static void ten_at_once_equals_ten_single(void **state)
{
    Attn *a = *state, b = {0};
    assert_true(grad_set_target(a, 0, 0, cat));
    assert_true(attn_copy(&b, a));
    assert_true(grad_descend(a, 10));
    for (int s = 0; s < 10; s++)
        assert_true(grad_descend(&b, 1));
    assert_true(mat_max_diff(&a->m[M_WQ], &b.m[M_WQ]) == 0.0);
    assert_true(mat_max_diff(&a->m[M_WK], &b.m[M_WK]) == 0.0);
    attn_free(&b);
}

/* The chain rule terms: dz = alpha - t, dq_1 = sum_j dz_j k_j (unscaled, T = 1)
 * is dWq's row 1 (X's row 1 is e_1), and the key part is dz_key q_1. */
static void explain_terms(void **state)
{
    Attn *a = *state;
    GradExplain e;
    assert_false(grad_explain(a, 0, 0, &e));
    assert_true(grad_set_target(a, 0, 0, cat));
    assert_true(grad_explain(a, 0, 2, &e));
    assert_int_equal(e.row, 0);
    assert_int_equal(e.key, 2);
    assert_int_equal(e.vis, 3);
    assert_near(e.loss, 1.0505117637249679, 1e-15);
    assert_near(e.dz[0], 0.3134686726368468, 1e-15);
    assert_near(e.dz[2], 0.34975870948206467 - 1, 1e-15);
    for (int c = 0; c < 3; c++) {
        assert_near(e.dq[c], gq_1[c], 1e-15);
        assert_near(e.dk[c], e.dz[2] * MAT_AT(&a->m[M_Q], 0, c), 1e-15);
    }
    assert_near(e.h[0], 1.0, 0);
    assert_near(e.hk[3], 0.2, 0);
}

/* Targets stay ordered by (head, row); setting again replaces; none clears. */
static void targets_set_replace_clear(void **state)
{
    Attn *a = *state, b = {0};
    const double even[] = {0.25, 0.25, 0.5};
    assert_true(grad_set_target(a, 0, 2, cat));
    assert_true(grad_set_target(a, 0, 0, even));
    assert_int_equal(a->ntarget, 2);
    assert_int_equal(a->target[0].row, 0);
    assert_int_equal(a->target[1].row, 2);
    assert_true(grad_set_target(a, 0, 0, cat));
    assert_int_equal(a->ntarget, 2);
    assert_near(a->target[0].t[2], 1.0, 0);
    assert_true(attn_copy(&b, a)); /* copies carry the targets and lr */
    assert_int_equal(b.ntarget, 2);
    assert_near(b.lr, ATTN_LR_DEFAULT, 0);
    assert_true(grad_set_target(a, 0, 0, NULL));
    assert_int_equal(a->ntarget, 1);
    assert_int_equal(grad_find(a, 0, 2), 0);
    assert_true(grad_set_target(a, 0, 2, NULL));
    assert_int_equal(a->ntarget, 0);
    assert_null(a->target);
    assert_int_equal(b.ntarget, 2);
    attn_free(&b);
}

/* A distribution must be one value per key, finite, non-negative, 0 where
 * masked and sum to 1. */
static void distributions_checked(void **state)
{
    Attn *a = *state;
    int bad;
    const double ok[] = {0.2, 0.3, 0.5}, neg[] = {1.2, -0.2, 0}, sum[] = {0.3, 0.3, 0.3}, nan_[] = {NAN, 0, 1};
    assert_int_equal(grad_check_dist(a, 0, ok, 3, &bad), GRAD_DIST_OK);
    assert_int_equal(grad_check_dist(a, 0, ok, 2, &bad), GRAD_DIST_WIDTH);
    assert_int_equal(grad_check_dist(a, 0, neg, 3, &bad), GRAD_DIST_NEGATIVE);
    assert_int_equal(bad, 1);
    assert_int_equal(grad_check_dist(a, 0, sum, 3, &bad), GRAD_DIST_SUM);
    assert_int_equal(grad_check_dist(a, 0, nan_, 3, &bad), GRAD_DIST_NOT_FINITE);
    a->mask = MASK_CAUSAL;
    assert_int_equal(grad_check_dist(a, 0, cat, 3, &bad), GRAD_DIST_MASKED);
    assert_int_equal(bad, 2);
    assert_int_equal(grad_check_dist(a, 2, cat, 3, &bad), GRAD_DIST_OK);
}

/* A step needs a target, no hand-set row of Q or K, and no target on a key
 * the mask now hides. */
static void step_refusals(void **state)
{
    Attn *a = *state;
    MatId m;
    int k, row, col;
    assert_int_equal(grad_ready(a, &m, &k, &row, &col), GRAD_NO_TARGET);
    assert_true(grad_set_target(a, 0, 0, cat));
    assert_int_equal(grad_ready(a, &m, &k, &row, &col), GRAD_READY);
    a->override[1][1] = true;
    assert_int_equal(grad_ready(a, &m, &k, &row, &col), GRAD_OVERRIDE);
    assert_int_equal(m, M_K);
    assert_int_equal(row, 1);
    a->override[1][1] = false;
    a->override[2][1] = true; /* V does not matter */
    assert_int_equal(grad_ready(a, &m, &k, &row, &col), GRAD_READY);
    a->mask = MASK_CAUSAL;
    attn_run_to(a, STAGE_SOFTMAX);
    assert_int_equal(grad_ready(a, &m, &k, &row, &col), GRAD_MASKED_TARGET);
    assert_int_equal(row, 0);
    assert_int_equal(col, 2);
}

/* A step that would make a weight infinite is refused and changes nothing. */
static void descent_never_leaves_infinity(void **state)
{
    Attn *a = *state, b = {0};
    assert_true(grad_set_target(a, 0, 0, cat));
    a->lr = 1e308;
    assert_true(attn_copy(&b, a));
    assert_false(grad_descend(a, 3));
    assert_true(mat_max_diff(&a->m[M_WQ], &b.m[M_WQ]) == 0.0);
    assert_true(mat_max_diff(&a->m[M_WK], &b.m[M_WK]) == 0.0);
    attn_free(&b);
}

/* ---- finite differences -------------------------------------------------------- */

static double loss_at(Attn *a)
{
    attn_run_to(a, STAGE_SOFTMAX);
    return grad_loss(a);
}

/* A random target distribution for row i: one-hot or spread, 0 where masked. */
static void random_target(Rng *r, const Attn *a, int i, double *t)
{
    int n = attn_tokens(a), lo, vis;
    attn_visible(a, i, &lo, &vis);
    double sum = 0;
    bool hot = rng_double(r) < 0.4;
    int pick = lo + (int)(rng_double(r) * (vis - lo));
    for (int j = 0; j < n; j++) {
        t[j] = j >= vis || j < lo ? 0.0 : hot ? (j == pick) : rng_double(r);
        sum += t[j];
    }
    for (int j = 0; j < n; j++)
        t[j] /= sum;
}

static double fd_worst(Attn *ap, Rng *rp);

/* The worst relative error of the analytic gradient of one random lesson
 * by five-point central differences (or -1 when its loss is under 0.01, too
 * small for differences to see):
 * max over cells |g - fd| / max(|g|, |fd|, 1e-3 * the largest |g|). */
static double fd_check(uint32_t seed, int heads, bool causal, double temp, bool pos, bool scaled)
{
    Rng r;
    Attn a = {0};
    rng_seed(&r, seed);
    int n = 2 + (int)(rng_double(&r) * 5), dm = 2 + (int)(rng_double(&r) * 5), dk = 1 + (int)(rng_double(&r) * 4);
    assert_true(attn_init_heads(&a, n, dm, heads, dk, dk, heads > 1 ? dm : 0));
    assert_int_equal(grad_heads(&a), heads);
    rng_randn(&r, &a.m[M_X], 1.0);
    for (int p = M_WQ; p <= M_WV; p++)
        rng_randn(&r, &a.m[p], 0.7);
    if (heads > 1)
        rng_randn(&r, &a.m[M_WO], 0.7);
    a.mask = causal ? MASK_CAUSAL : MASK_NONE;
    a.temp = temp;
    a.positions = pos ? POS_SINUSOIDAL : POS_NONE;
    a.scale = scaled ? SCALE_SQRT_DK : SCALE_NONE;
    a.softmax = rng_double(&r) < 0.5 ? SOFTMAX_STABLE : SOFTMAX_NAIVE;
    return fd_worst(&a, &r);
}

/* Random targets on a, then fd_check's measure; frees a. */
static double fd_worst(Attn *ap, Rng *rp)
{
    Attn a = *ap;
    Rng r = *rp;
    int n = attn_tokens(&a);
    for (int h = 0; h < grad_heads(&a); h++)
        for (int i = 0; i < n; i++)
            if (i == 0 || rng_double(&r) < 0.5) {
                double t[MAT_MAX];
                random_target(&r, &a, i, t);
                assert_true(grad_set_target(&a, h, i, t));
            }
    Mat g[2] = {{0}};
    if (loss_at(&a) < 0.01) { /* nearly learnt: the loss is 1 - A to within rounding, and the
                                 differences are noise (eps / h); draw another lesson */
        attn_free(&a);
        return -1;
    }
    assert_true(grad_compute(&a, &g[0], &g[1]));
    assert_true(mat_same_shape(&g[0], &a.m[M_WQ]) && mat_same_shape(&g[1], &a.m[M_WK]));
    double worst = 0, big = 0;
    for (int p = 0; p < 2; p++)
        for (int c = 0; c < g[p].rows * g[p].cols; c++)
            big = fmax(big, fabs(g[p].v[c]));
    for (int p = 0; p < 2; p++) {
        Mat *w = &a.m[p == 0 ? M_WQ : M_WK];
        for (int c = 0; c < w->rows * w->cols; c++) {
            double keep = w->v[c], h = 1e-4 * fmax(1.0, fabs(keep)), f[4];
            static const double at[4] = {2, 1, -1, -2};
            for (int k = 0; k < 4; k++) {
                w->v[c] = keep + at[k] * h;
                f[k] = loss_at(&a);
            }
            w->v[c] = keep;
            /* five-point central difference: error O(h^4), rounding eps L / h */
            double fd = (-f[0] + 8 * f[1] - 8 * f[2] + f[3]) / (12 * h), an = g[p].v[c];
            double rel = fabs(an - fd) / fmax(fmax(fabs(an), fabs(fd)), fmax(1e-3 * big, 1e-9));
            worst = fmax(worst, rel);
        }
    }
    mat_free(&g[0]);
    mat_free(&g[1]);
    attn_free(&a);
    return worst;
}

/* Over random lessons crossed with mask, temperature, positions and scaling
 * (and every head), the analytic gradient agrees with central differences
 * to a relative error under 1e-6. */
static void gradient_matches_finite_differences(void **state)
{
    static const double temps[] = {1.0, 0.5, 3.0};
    double worst = 0;
    int cases = 0;
    for (int heads = 1; heads <= 3; heads++)
        for (int causal = 0; causal < 2; causal++)
            for (int t = 0; t < 3; t++)
                for (int pos = 0; pos < 2; pos++)
                    for (int sc = 0; sc < 2; sc++)
                        for (uint32_t seed = 1, tries = 0; seed <= 6; seed++) {
                            uint32_t k = (uint32_t)(heads * 1000 + causal * 100 + t * 10 + pos * 2 + sc);
                            double e = fd_check(seed * 100000u + tries * 7u + k, heads, causal, temps[t], pos, sc);
                            if (e < 0 && ++tries < 50) {
                                seed--;
                                continue;
                            }
                            if (!(e < 1e-6))
                                print_error("seed %u heads %d causal %d T %g pos %d scale %d: relative error %g\n",
                                            seed, heads, causal, temps[t], pos, sc, e);
                            assert_true(e < 1e-6);
                            worst = fmax(worst, e);
                            cases++;
                        }
    if (getenv("QKV_GRAD_REPORT"))
        fprintf(stderr, "grad: %d random lessons, worst relative error %.3g\n", cases, worst);
}

/* Today's models are learned through too: 4 query heads over g K/V heads,
 * a sliding window, RoPE with an offset, the online softmax, each crossed
 * with the others, against central differences (relative error < 1e-6). */
static void gradient_modern_matches_finite_differences(void **state)
{
    double worst = 0;
    int cases = 0;
    for (int g = 1; g <= 4; g *= 2)
        for (int window = 0; window < 2; window++)
            for (int rope = 0; rope < 2; rope++)
                for (int online = 0; online < 2; online++)
                    for (uint32_t seed = 1, tries = 0; seed <= 3; seed++) {
                        Rng r;
                        Attn a;
                        rng_seed(&r, seed * 7919u + tries * 31u + (uint32_t)(g * 100 + window * 10 + rope * 2 + online));
                        int n = 2 + (int)(rng_double(&r) * 5), dm = 2 + (int)(rng_double(&r) * 4);
                        int dk = 2 * (1 + (int)(rng_double(&r) * 2));
                        assert_true(attn_init_kv(&a, n, dm, 4, g, dk, 2, 0));
                        rng_randn(&r, &a.m[M_X], 1.0);
                        attn_draw_weights(&a, seed, 0.7);
                        a.mask = window ? MASK_WINDOW : MASK_NONE;
                        a.window = 2;
                        a.softmax = online ? SOFTMAX_ONLINE : SOFTMAX_STABLE;
                        a.block = 2;
                        a.offset = rope ? 5 : 0;
                        a.rope_base = 50.0;
                        assert_true(attn_set_positions(&a, rope ? POS_ROPE : POS_NONE));
                        double e = fd_worst(&a, &r);
                        if (e < 0 && ++tries < 50) {
                            seed--;
                            continue;
                        }
                        if (!(e < 1e-6))
                            print_error("g %d window %d rope %d online %d seed %u: relative error %g\n", g, window,
                                        rope, online, seed, e);
                        assert_true(e < 1e-6);
                        worst = fmax(worst, e);
                        cases++;
                    }
    if (getenv("QKV_GRAD_REPORT"))
        fprintf(stderr, "grad (modern): %d random lessons, worst relative error %.3g\n", cases, worst);
}

/* With RoPE the chain rule's dL/dq0 is dL/dq turned back: turning it
 * forward again by the row's angles gives dL/dq. */
static void explain_rope_turns_back(void **state)
{
    Attn a;
    static const double t[] = {0, 0, 1};
    static const double x[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.2};
    assert_true(attn_init(&a, 3, 4, 4, 4));
    memcpy(a.m[M_X].v, x, sizeof x);
    attn_draw_weights(&a, 42, 0.3);
    a.offset = 2;
    assert_true(attn_set_positions(&a, POS_ROPE));
    attn_run_to(&a, STAGE_OUTPUT);
    assert_true(grad_set_target(&a, 0, 1, t));
    GradExplain e;
    assert_true(grad_explain(&a, 0, 2, &e));
    assert_true(e.rope);
    for (int m = 0; m < 2; m++) {
        double th = attn_rope_theta(3, m, 4, a.rope_base), x0 = e.dq0[2 * m], y0 = e.dq0[2 * m + 1];
        assert_near(x0 * cos(th) - y0 * sin(th), e.dq[2 * m], 1e-15);
        assert_near(x0 * sin(th) + y0 * cos(th), e.dq[2 * m + 1], 1e-15);
    }
    assert_false(e.dq0[0] == e.dq[0]);
    /* row 2's x is e_2, so dL/dWq's row 2 is dL/dq0 (the only target is row 2) */
    Mat gq = {0}, gk = {0};
    assert_true(grad_compute(&a, &gq, &gk));
    for (int c = 0; c < 4; c++)
        assert_true(MAT_AT(&gq, 1, c) == e.dq0[c]);
    mat_free(&gq);
    mat_free(&gk);
    attn_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(lesson1_gradient_is_numpys, setup_lesson1, teardown),
        cmocka_unit_test_setup_teardown(lesson1_descent_follows_reference, setup_lesson1, teardown),
        cmocka_unit_test_setup_teardown(ten_at_once_equals_ten_single, setup_lesson1, teardown),
        cmocka_unit_test_setup_teardown(explain_terms, setup_lesson1, teardown),
        cmocka_unit_test_setup_teardown(targets_set_replace_clear, setup_lesson1, teardown),
        cmocka_unit_test_setup_teardown(distributions_checked, setup_lesson1, teardown),
        cmocka_unit_test_setup_teardown(step_refusals, setup_lesson1, teardown),
        cmocka_unit_test_setup_teardown(descent_never_leaves_infinity, setup_lesson1, teardown),
        cmocka_unit_test(gradient_matches_finite_differences),
        cmocka_unit_test(gradient_modern_matches_finite_differences),
        cmocka_unit_test(explain_rope_turns_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
