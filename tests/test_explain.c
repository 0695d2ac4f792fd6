/* test_explain.c - the arithmetic terms behind each cell, on tutorials A and B. */
#include "testutil.h"
#include "core/explain.h"
#include "core/rng.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    Attn a;
    Explain e;
} Fixture;

/* Tutorial A (X = [[1,0,0,0],[0,1,0,0],[0,0,1,0.2]], seed-42 weights * 0.3),
 * unscaled, naive softmax, run to stage 5. */
static int setup(void **state)
{
    static const double x[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.2};
    Fixture *f = calloc(1, sizeof *f);
    *state = f;
    if (!f || !attn_init(&f->a, 3, 4, 3, 3))
        return -1;
    for (int k = 0; k < 12; k++)
        f->a.m[M_X].v[k] = x[k];
    Rng r;
    rng_seed(&r, 42);
    for (int p = M_WQ; p <= M_WV; p++)
        rng_randn(&r, &f->a.m[p], 0.3);
    f->a.scale = SCALE_NONE;
    f->a.softmax = SOFTMAX_NAIVE;
    attn_run_to(&f->a, STAGE_OUTPUT);
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    if (f)
        attn_free(&f->a);
    free(f);
    return 0;
}

/* prod[k] = a[k]*b[k] and partial[k] is the running sum, ending at sum. */
static void assert_products(const Explain *e)
{
    double s = 0.0;
    for (int k = 0; k < e->n; k++) {
        assert_true(e->prod[k] == e->a[k] * e->b[k]);
        s += e->prod[k];
        assert_true(e->partial[k] == s);
    }
    assert_true(e->sum == s);
}

/* score12 = q1.k2 = (0.149)(-0.169) + (-0.041)(-0.304) + (0.194)(0.094) = 0.006, exactly QKt[1][2]. */
static void test_score_12(void **state)
{
    static const double q1[] = {0.149, -0.041, 0.194}, k2[] = {-0.169, -0.304, 0.094};
    Fixture *f = *state;
    Explain *e = &f->e;
    assert_true(explain_cell(&f->a, M_QKT, 0, 1, e));
    assert_int_equal(e->kind, EX_SCORE);
    assert_int_equal(e->mat, M_QKT);
    assert_int_equal(e->i, 0);
    assert_int_equal(e->j, 1);
    assert_int_equal(e->n, 3);
    for (int k = 0; k < 3; k++) {
        assert_near(e->a[k], q1[k], 5e-4);
        assert_near(e->b[k], k2[k], 5e-4);
        assert_true(e->a[k] == MAT_AT(&f->a.m[M_Q], 0, k));
        assert_true(e->b[k] == MAT_AT(&f->a.m[M_K], 1, k));
    }
    assert_products(e);
    assert_near(e->result, 0.006, 5e-4);
    assert_near(e->result, 0.0057848947805190353, 1e-15);
    assert_true(e->sum == MAT_AT(&f->a.m[M_QKT], 0, 1));
    assert_true(e->result == e->sum);
    assert_false(e->scaled);
}

/* Unscaled S explains like QKt: no division, result is the raw dot product. */
static void test_score_unscaled_s(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    assert_true(explain_cell(&f->a, M_S, 0, 1, e));
    assert_int_equal(e->kind, EX_SCORE);
    assert_int_equal(e->mat, M_S);
    assert_false(e->scaled);
    assert_true(e->result == e->sum);
    assert_true(e->result == MAT_AT(&f->a.m[M_S], 0, 1));
}

/* With sqrt_dk, S[1][2] continues "/ sqrt(3) = 0.003"; QKt[1][2] stays undivided. */
static void test_score_scaled(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    f->a.scale = SCALE_SQRT_DK;
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_true(explain_cell(&f->a, M_S, 0, 1, e));
    assert_true(e->scaled);
    assert_int_equal(e->d_k, 3);
    assert_true(e->divisor == sqrt(3.0));
    assert_true(e->sum == MAT_AT(&f->a.m[M_QKT], 0, 1));
    assert_near(e->result, 0.003, 5e-4);
    assert_true(e->result == MAT_AT(&f->a.m[M_S], 0, 1));
    assert_true(e->result == e->sum / e->divisor);
    assert_true(explain_cell(&f->a, M_QKT, 0, 1, e));
    assert_false(e->scaled);
    assert_true(e->result == e->sum);
}

/* Q[1][1] = x1 . Wq column 1: four terms, x = (1,0,0,0), result 0.149 = Q[1][1]. */
static void test_projection_q11(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    assert_true(explain_cell(&f->a, M_Q, 0, 0, e));
    assert_int_equal(e->kind, EX_PROJ);
    assert_false(e->overridden);
    assert_int_equal(e->n, 4);
    for (int k = 0; k < 4; k++) {
        assert_true(e->a[k] == MAT_AT(&f->a.m[M_X], 0, k));
        assert_true(e->b[k] == MAT_AT(&f->a.m[M_WQ], k, 0));
    }
    assert_products(e);
    assert_near(e->result, 0.149, 5e-4);
    assert_true(e->result == MAT_AT(&f->a.m[M_Q], 0, 0));
    assert_true(e->sum == e->result);
}

/* K[3][2] for 猫 = 1*Wk[3][2] + 0.2*Wk[4][2]: partial sums 0, 0, -0.424, -0.420. */
static void test_projection_k32(void **state)
{
    static const double partial[] = {0.0, 0.0, -0.42369111040058743, -0.41963941811931199};
    Fixture *f = *state;
    Explain *e = &f->e;
    assert_true(explain_cell(&f->a, M_K, 2, 1, e));
    assert_int_equal(e->kind, EX_PROJ);
    assert_int_equal(e->mat, M_K);
    assert_true(e->a[3] == 0.2);
    assert_products(e);
    for (int k = 0; k < 4; k++)
        assert_near(e->partial[k], partial[k], 1e-15);
    assert_true(e->result == MAT_AT(&f->a.m[M_K], 2, 1));
}

/* An overridden row is not X*W: overridden, no terms, the cell as set. */
static void test_projection_overridden(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    for (int j = 0; j < 3; j++)
        MAT_AT(&f->a.m[M_Q], 0, j) = MAT_AT(&f->a.m[M_K], 0, j) * 5;
    f->a.override[0][0] = true;
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_true(explain_cell(&f->a, M_Q, 0, 1, e));
    assert_int_equal(e->kind, EX_PROJ);
    assert_true(e->overridden);
    assert_int_equal(e->n, 0);
    assert_near(e->result, -2.870, 5e-4);
    assert_true(explain_cell(&f->a, M_Q, 1, 1, e)); /* other rows still computed */
    assert_false(e->overridden);
    assert_int_equal(e->n, 4);
}

/* Tutorial B's stable walk: s [1.2, 0.1, -0.4], max 1.2, s-max [0, -1.1, -1.6],
 * exp [1, 0.3329, 0.2019], sum 1.5348, weights [0.6516, 0.2169, 0.1315]. */
static void test_softmax_stable_walk(void **state)
{
    static const double s[] = {1.2, 0.1, -0.4}, shifted[] = {0.0, -1.1, -1.6};
    static const double ex[] = {1.0, 0.3329, 0.2019}, w[] = {0.6516, 0.2169, 0.1315};
    Attn a;
    Explain e;
    assert_true(attn_init(&a, 3, 4, 2, 2));
    for (int j = 0; j < 3; j++)
        MAT_AT(&a.m[M_S], 0, j) = s[j];
    a.softmax = SOFTMAX_STABLE;
    a.reached = STAGE_SCORES;
    attn_run_stage(&a, STAGE_SOFTMAX);
    assert_true(explain_cell(&a, M_A, 0, 1, &e));
    assert_int_equal(e.kind, EX_SOFTMAX);
    assert_true(e.stable);
    assert_int_equal(e.n, 3);
    assert_true(e.max == 1.2);
    double sum = 0.0;
    for (int k = 0; k < 3; k++) {
        assert_true(e.a[k] == s[k]);
        assert_near(e.shifted[k], shifted[k], 1e-15);
        assert_near(e.prod[k], ex[k], 5e-5);
        sum += e.prod[k];
        assert_true(e.partial[k] == sum);
        assert_near(e.weight[k], w[k], 5e-5);
        assert_true(e.weight[k] == MAT_AT(&a.m[M_A], 0, k));
        assert_true(e.weight[k] > 0.0);
    }
    assert_near(e.sum, 1.5348, 5e-5);
    assert_near(e.sum, 1.534767601692735, 1e-15);
    assert_true(e.result == e.weight[1]);
    assert_true(e.weight[1] == e.prod[1] / e.sum);
    attn_free(&a);
}

/* Naive walk on tutorial A row 1: no shift, exp(s) / sum gives A[1][j] exactly. */
static void test_softmax_naive_walk(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    assert_true(explain_cell(&f->a, M_A, 0, 2, e));
    assert_int_equal(e->kind, EX_SOFTMAX);
    assert_false(e->stable);
    for (int k = 0; k < 3; k++) {
        assert_true(e->shifted[k] == e->a[k]);
        assert_true(e->a[k] == MAT_AT(&f->a.m[M_S], 0, k));
        assert_true(e->prod[k] == exp(e->a[k]));
        assert_true(e->weight[k] == e->prod[k] / e->sum);
    }
    assert_near(e->result, 0.350, 5e-4);
    assert_true(e->result == MAT_AT(&f->a.m[M_A], 0, 2));
}

/* o11 = a11 v11 + a12 v21 + a13 v31 = -0.099, exactly O[1][1]. */
static void test_output_cell(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    assert_true(explain_cell(&f->a, M_O, 0, 0, e));
    assert_int_equal(e->kind, EX_OUTPUT);
    assert_int_equal(e->n, 3);
    for (int k = 0; k < 3; k++) {
        assert_true(e->a[k] == MAT_AT(&f->a.m[M_A], 0, k));
        assert_true(e->b[k] == MAT_AT(&f->a.m[M_V], k, 0));
    }
    assert_products(e);
    assert_near(e->result, -0.099, 5e-4);
    assert_true(e->result == MAT_AT(&f->a.m[M_O], 0, 0));
    assert_true(e->sum == e->result);
}

/* X and the W parameters are given: EX_INPUT, no terms, the cell itself. */
static void test_input_and_params(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    assert_true(explain_cell(&f->a, M_X, 2, 3, e));
    assert_int_equal(e->kind, EX_INPUT);
    assert_int_equal(e->mat, M_X);
    assert_int_equal(e->n, 0);
    assert_true(e->result == 0.2);
    assert_true(explain_cell(&f->a, M_WV, 3, 2, e));
    assert_int_equal(e->kind, EX_INPUT);
    assert_int_equal(e->mat, M_WV);
    assert_true(e->result == MAT_AT(&f->a.m[M_WV], 3, 2));
}

/* Indices outside the matrix and unknown matrices give false and EX_NONE. */
static void test_out_of_range(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    const struct { int mat, i, j; } bad[] = {
        {M_S, -1, 0}, {M_S, 3, 0}, {M_S, 0, 3}, {M_X, 0, 4}, {M_WQ, 4, 0},
        {M_O, 0, -1}, {M_COUNT, 0, 0}, {-1, 0, 0},
    };
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        e->kind = EX_SCORE;
        assert_false(explain_cell(&f->a, (MatId)bad[t].mat, bad[t].i, bad[t].j, e));
        assert_int_equal(e->kind, EX_NONE);
    }
    assert_true(explain_cell(&f->a, M_X, 2, 3, e)); /* the last cell is in range */
}

/* A matrix whose stage is not reached has nothing to explain. */
static void test_not_reached(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    attn_run_to(&f->a, STAGE_QKV);
    assert_true(explain_cell(&f->a, M_V, 0, 0, e));
    assert_false(explain_cell(&f->a, M_S, 0, 0, e));
    assert_int_equal(e->kind, EX_NONE);
    assert_false(explain_cell(&f->a, M_QKT, 0, 0, e));
    assert_false(explain_cell(&f->a, M_A, 0, 0, e));
    assert_false(explain_cell(&f->a, M_O, 0, 0, e));
    attn_run_to(&f->a, STAGE_NONE);
    assert_false(explain_cell(&f->a, M_X, 0, 0, e));
    assert_false(explain_cell(&f->a, M_WQ, 0, 0, e));
}

/* For every cell of every stage (4 tokens, d_model 6, d_k 3, d_v 5, scaled, stable)
 * the explained result is the cell, and the sum is what the pipeline computed, bit for bit. */
static void test_every_cell_consistent(void **state)
{
    Attn a;
    Explain e;
    Rng r;
    assert_true(attn_init(&a, 4, 6, 3, 5));
    rng_seed(&r, 2026);
    for (int p = M_X; p <= M_WV; p++)
        rng_randn(&r, &a.m[p], 1.0);
    attn_run_to(&a, STAGE_OUTPUT);
    for (int id = 0; id < M_COUNT; id++)
        for (int i = 0; i < a.m[id].rows; i++)
            for (int j = 0; j < a.m[id].cols; j++) {
                assert_true(explain_cell(&a, id, i, j, &e));
                assert_true(e.result == MAT_AT(&a.m[id], i, j));
                if (e.kind == EX_PROJ || e.kind == EX_OUTPUT)
                    assert_true(e.sum == e.result);
                if (e.kind == EX_SCORE)
                    assert_true(e.sum == MAT_AT(&a.m[M_QKT], i, j));
                if (e.kind == EX_SOFTMAX)
                    assert_true(e.result == e.prod[j] / e.sum);
            }
    attn_free(&a);
}


/* Under the causal mask a masked score says so and quotes no dot product;
 * the softmax walk takes part only up to the diagonal; o_1 leaves out the
 * masked terms and still equals O bit for bit. */
static void test_masked(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    f->a.mask = MASK_CAUSAL;
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_true(explain_cell(&f->a, M_S, 0, 1, e));
    assert_true(e->masked);
    assert_true(isinf(e->result) && e->result < 0);
    assert_true(explain_cell(&f->a, M_S, 1, 0, e));
    assert_false(e->masked);
    assert_true(explain_cell(&f->a, M_A, 1, 2, e));
    assert_int_equal(e->vis, 2);
    assert_int_equal(e->n, 3);
    assert_true(e->masked);
    assert_true(e->result == 0.0);
    assert_true(e->weight[0] == MAT_AT(&f->a.m[M_A], 1, 0));
    assert_true(e->prod[0] / e->sum == e->weight[0]);
    assert_true(explain_cell(&f->a, M_O, 0, 2, e));
    assert_int_equal(e->n, 1);
    assert_int_equal(e->nmasked, 2);
    assert_products(e);
    assert_true(e->result == e->sum);
    assert_true(e->sum == MAT_AT(&f->a.m[M_V], 0, 2)); /* o_1 is v_1 */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            assert_true(explain_cell(&f->a, M_O, i, j, e));
            assert_true(e->sum == MAT_AT(&f->a.m[M_O], i, j));
        }
}

/* With T = 0.5 the walk divides first: z = s / T, and exp(z - max) / sum is A. */
static void test_temperature_walk(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    f->a.temp = 0.5;
    f->a.softmax = SOFTMAX_STABLE;
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_true(explain_cell(&f->a, M_A, 0, 0, e));
    assert_true(e->temp == 0.5);
    for (int k = 0; k < 3; k++) {
        assert_true(e->z[k] == e->a[k] / 0.5);
        assert_true(e->shifted[k] == e->z[k] - e->max);
    }
    assert_near(e->result, 0.29419100699350914, 1e-15);
    assert_near(e->prod[0] / e->sum, e->result, 1e-15);
}

/* h_ij = x_ij + p_ij, with p_ij's angle and sin or cos; X, P and H explain alike. */
static void test_positions_terms(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    f->a.positions = POS_SINUSOIDAL;
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_true(explain_cell(&f->a, M_H, 1, 0, e));
    assert_int_equal(e->kind, EX_POS);
    assert_int_equal(e->pos, 1);
    assert_false(e->cosine);
    assert_true(e->angle == 1.0);
    assert_near(e->p, 0.8414709848078965, 1e-16);
    assert_true(e->result == e->x + e->p);
    assert_true(explain_cell(&f->a, M_P, 2, 3, e));
    assert_true(e->cosine);
    assert_int_equal(e->pos_m, 1);
    assert_near(e->angle, 2.0 / 100.0, 1e-17);
    assert_true(explain_cell(&f->a, M_X, 2, 3, e));
    assert_int_equal(e->kind, EX_INPUT); /* past stage 1, X is the input */
    attn_run_to(&f->a, STAGE_INPUT);
    assert_true(explain_cell(&f->a, M_X, 2, 3, e));
    assert_int_equal(e->kind, EX_POS);
    attn_run_to(&f->a, STAGE_OUTPUT);
    /* stage 2 projects h: q_11 = h_1 . Wq[:,1] */
    assert_true(explain_cell(&f->a, M_Q, 0, 0, e));
    assert_true(e->from_h);
    for (int k = 0; k < 4; k++)
        assert_true(e->a[k] == MAT_AT(&f->a.m[M_H], 0, k));
    assert_true(e->sum == MAT_AT(&f->a.m[M_Q], 0, 0));
    f->a.positions = POS_NONE; /* without positions, X explains as the input */
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_true(explain_cell(&f->a, M_X, 2, 3, e));
    assert_int_equal(e->kind, EX_INPUT);
}

/* Today's models: every cell's terms rebuild the matrix cell bit for bit
 * under a window, shared K/V heads, RoPE with an offset and the online
 * softmax (4 query heads over 2 K/V heads, 5 tokens, blocks of 2). */
static void test_modern_cells_consistent(void **state)
{
    Attn a;
    Explain e;
    Rng r;
    assert_true(attn_init_kv(&a, 5, 6, 4, 2, 4, 3, 2));
    rng_seed(&r, 2026);
    rng_randn(&r, &a.m[M_X], 1.0);
    attn_draw_weights(&a, 11, 0.5);
    a.mask = MASK_WINDOW;
    a.window = 3;
    a.softmax = SOFTMAX_ONLINE;
    a.block = 2;
    a.offset = 3;
    a.rope_base = 100.0;
    assert_true(attn_set_positions(&a, POS_ROPE));
    attn_run_to(&a, STAGE_PROJECT);
    int nrope = 0, nonline = 0;
    for (int id = 0; id < M_COUNT; id++)
        for (int i = 0; i < a.m[id].rows; i++)
            for (int j = 0; j < a.m[id].cols; j++) {
                assert_true(explain_cell(&a, id, i, j, &e));
                assert_true(e.result == MAT_AT(&a.m[id], i, j));
                if (e.kind == EX_PROJ && e.rope) {
                    double want = e.rope_second ? e.rope_x * e.rope_sin + e.rope_y * e.rope_cos
                                                : e.rope_x * e.rope_cos - e.rope_y * e.rope_sin;
                    assert_true(want == e.result);
                    assert_true(e.unrotated == MAT_AT(&a.m[attn_mat_base(id) == M_Q ? M_Q0 : M_K0], i, e.wcol));
                    assert_int_equal(e.rope_pos, i + 3);
                    nrope++;
                } else if (e.kind == EX_PROJ)
                    assert_true(e.sum == e.result);
                if (e.kind == EX_SOFTMAX) {
                    assert_true(e.online);
                    assert_int_equal(e.lo, i - 2 > 0 ? i - 2 : 0);
                    assert_int_equal(e.vis, i + 1);
                    assert_true(e.result == (e.masked ? 0.0 : exp(e.z[j] - e.max) / e.sum));
                    nonline++;
                }
                if (e.kind == EX_OUTPUT) {
                    assert_true(e.online);
                    assert_true(e.result == e.blocks[e.nblocks - 1].o_new / e.blocks[e.nblocks - 1].l_new);
                }
                if ((e.kind == EX_SCORE || e.kind == EX_OUTPUT) && attn_mat_head(id))
                    assert_int_equal(e.kv_head, (attn_mat_head(id) - 1) / 2 + 1);
            }
    assert_true(nrope > 0 && nonline > 0);
    /* K3 is K/V head 2's: column 1 of K3 explains W_K's column 5 (0-based 4) */
    assert_true(explain_cell(&a, attn_head_id(M_K, 3), 1, 0, &e));
    assert_int_equal(e.wcol, 4);
    assert_int_equal(e.kv_head, 2);
    /* Q0 explains as the plain projection */
    assert_true(explain_cell(&a, M_Q0, 2, 1, &e));
    assert_false(e.rope);
    assert_true(e.sum == e.result);
    attn_free(&a);
}

/* The window hides keys below i - W + 1: the walk of row 3 starts at key 2,
 * o_3 sums keys 2 and 3 only and still equals O bit for bit. */
static void test_window_terms(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    f->a.mask = MASK_WINDOW;
    f->a.window = 2;
    f->a.softmax = SOFTMAX_STABLE;
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_true(explain_cell(&f->a, M_A, 2, 0, e));
    assert_true(e->masked);
    assert_int_equal(e->lo, 1);
    assert_int_equal(e->vis, 3);
    assert_true(e->prod[0] == 0.0);
    assert_true(e->result == 0.0);
    assert_near(MAT_AT(&f->a.m[M_A], 2, 1), 0.53162944737882367, 1e-15);
    assert_true(explain_cell(&f->a, M_O, 2, 0, e));
    assert_int_equal(e->lo, 1);
    assert_int_equal(e->n, 2);
    assert_int_equal(e->nmasked, 1);
    assert_true(e->a[0] == MAT_AT(&f->a.m[M_A], 2, 1));
    assert_true(e->b[1] == MAT_AT(&f->a.m[M_V], 2, 0));
    assert_true(e->sum == e->result);
    assert_true(explain_cell(&f->a, M_S, 2, 0, e));
    assert_true(e->masked && isinf(e->result));
}

/* Online, row 1 in blocks of 2 (numpy): m 0.00578 then 0.04362, l 1.93080 then
 * 2.85911; o of column 1: -0.03930 then -0.28182, and o / l = O[1][1]. */
static void test_online_terms(void **state)
{
    Fixture *f = *state;
    Explain *e = &f->e;
    f->a.softmax = SOFTMAX_ONLINE;
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_true(explain_cell(&f->a, M_A, 0, 2, e));
    assert_true(e->online);
    assert_int_equal(e->nblocks, 2);
    assert_int_equal(e->block, 2);
    assert_true(e->blocks[0].m_new == 0.0057848947805190353);
    assert_near(e->blocks[1].l_new, 2.8591139345202761, 1e-15);
    assert_true(e->max == 0.043620431802729787);
    assert_true(e->prod[2] == 1.0); /* key 3 holds block 2's max: e^0 */
    assert_true(e->shifted[0] == e->z[0] - e->blocks[0].m_new);
    assert_near(e->result, 0.34975870948206467, 1e-15);
    assert_true(explain_cell(&f->a, M_O, 0, 0, e));
    assert_true(e->online);
    assert_near(e->blocks[0].o_new, -0.039304375608033418, 1e-16);
    assert_near(e->blocks[1].o_new, -0.2818196940362645, 1e-15);
    assert_true(e->result == e->blocks[1].o_new / e->blocks[1].l_new);
    assert_near(e->result, -0.09856889249275419, 1e-16);
    assert_true(e->a[1] == 1.0 && e->b[2] == MAT_AT(&f->a.m[M_V], 2, 0));
}

#define FX(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX(test_score_12),
        FX(test_score_unscaled_s),
        FX(test_score_scaled),
        FX(test_projection_q11),
        FX(test_projection_k32),
        FX(test_projection_overridden),
        cmocka_unit_test(test_softmax_stable_walk),
        FX(test_softmax_naive_walk),
        FX(test_output_cell),
        FX(test_input_and_params),
        FX(test_out_of_range),
        FX(test_not_reached),
        cmocka_unit_test(test_every_cell_consistent),
        FX(test_masked),
        FX(test_temperature_walk),
        FX(test_positions_terms),
        cmocka_unit_test(test_modern_cells_consistent),
        FX(test_window_terms),
        FX(test_online_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
