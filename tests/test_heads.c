/* test_heads.c - several heads and W_O in the core: every head's S, A, O,
 * the joined O and Y = O Wo against a plain re-computation written here,
 * per-head overrides, the explain terms of a head's cell and of Y. */
#include "testutil.h"
#include "core/attn.h"
#include "core/explain.h"
#include "core/rng.h"
#include "core/trace.h"

#include <math.h>
#include <stdlib.h>

enum { N = 4, DM = 3, H = 3, DK = 2, DV = 3, DOUT = 5 };

static void fill(Attn *a, uint32_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    rng_randn(&r, &a->m[M_X], 1.0);
    rng_randn(&r, &a->m[M_WQ], 0.7);
    rng_randn(&r, &a->m[M_WK], 0.7);
    rng_randn(&r, &a->m[M_WV], 0.7);
    rng_randn(&r, &a->m[M_WO], 0.7);
}

/* Head h (0-based) by the book: q = x Wq[:, h*DK ..], s = q k^T / sqrt(DK)
 * (masked j > i when causal), a = softmax(s / T), o = a v; y = [o_1 .. o_H] Wo. */
static void reference(const Attn *a, bool causal, double temp, double S[H][N][N], double A[H][N][N],
                      double O[N][H * DV], double Y[N][DOUT])
{
    const Mat *x = &a->m[M_X];
    for (int h = 0; h < H; h++) {
        double q[N][DK], k[N][DK], v[N][DV];
        for (int i = 0; i < N; i++) {
            for (int c = 0; c < DK; c++) {
                q[i][c] = k[i][c] = 0;
                for (int d = 0; d < DM; d++) {
                    q[i][c] += MAT_AT(x, i, d) * MAT_AT(&a->m[M_WQ], d, h * DK + c);
                    k[i][c] += MAT_AT(x, i, d) * MAT_AT(&a->m[M_WK], d, h * DK + c);
                }
            }
            for (int c = 0; c < DV; c++) {
                v[i][c] = 0;
                for (int d = 0; d < DM; d++)
                    v[i][c] += MAT_AT(x, i, d) * MAT_AT(&a->m[M_WV], d, h * DV + c);
            }
        }
        for (int i = 0; i < N; i++) {
            double sum = 0;
            for (int j = 0; j < N; j++) {
                double dot = 0;
                for (int c = 0; c < DK; c++)
                    dot += q[i][c] * k[j][c];
                S[h][i][j] = dot / sqrt((double)DK);
                A[h][i][j] = causal && j > i ? 0.0 : exp(S[h][i][j] / temp);
                sum += A[h][i][j];
            }
            for (int j = 0; j < N; j++)
                A[h][i][j] /= sum;
            for (int c = 0; c < DV; c++) {
                O[i][h * DV + c] = 0;
                for (int j = 0; j < N; j++)
                    O[i][h * DV + c] += A[h][i][j] * v[j][c];
            }
        }
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < DOUT; j++) {
            Y[i][j] = 0;
            for (int c = 0; c < H * DV; c++)
                Y[i][j] += O[i][c] * MAT_AT(&a->m[M_WO], c, j);
        }
}

static void check_against_reference(bool causal, double temp)
{
    Attn a;
    assert_true(attn_init_heads(&a, N, DM, H, DK, DV, DOUT));
    fill(&a, 2026);
    a.mask = causal ? MASK_CAUSAL : MASK_NONE;
    a.temp = temp;
    assert_int_equal(attn_last_stage(&a), STAGE_PROJECT);
    attn_run_to(&a, STAGE_PROJECT);
    assert_int_equal(a.reached, STAGE_PROJECT);
    static double S[H][N][N], A[H][N][N], O[N][H * DV], Y[N][DOUT];
    reference(&a, causal, temp, S, A, O, Y);
    for (int h = 1; h <= H; h++) {
        const Mat *s = &a.m[attn_head_id(M_S, h)], *w = &a.m[attn_head_id(M_A, h)];
        assert_int_equal(s->rows, N);
        assert_int_equal(a.m[attn_head_id(M_Q, h)].cols, DK);
        assert_int_equal(a.m[attn_head_id(M_O, h)].cols, DV);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                if (causal && j > i)
                    assert_true(isinf(MAT_AT(s, i, j)) && MAT_AT(w, i, j) == 0.0);
                else
                    assert_near(MAT_AT(s, i, j), S[h - 1][i][j], 1e-12);
                assert_near(MAT_AT(w, i, j), A[h - 1][i][j], 1e-12);
            }
    }
    assert_mat_near(&a.m[M_O], N, H * DV, &O[0][0], 1e-12);
    assert_mat_near(&a.m[M_Y], N, DOUT, &Y[0][0], 1e-12);
    /* S and A themselves hold head 1's numbers. */
    assert_true(mat_max_diff(&a.m[M_A], &a.m[attn_head_id(M_A, 1)]) == 0.0);
    attn_free(&a);
}

static void test_three_heads(void **state)
{
    check_against_reference(false, 1.0);
}

static void test_three_heads_causal_temperature(void **state)
{
    check_against_reference(true, 0.5);
}

/* Shapes: Wq d_model x h*d_k, Wv d_model x h*d_v, Wo h*d_v x d_out; per-head
 * d_k and d_v; the sizes refused. */
static void test_shapes(void **state)
{
    Attn a;
    assert_true(attn_init_heads(&a, N, DM, H, DK, DV, DOUT));
    assert_int_equal(a.m[M_WQ].cols, H * DK);
    assert_int_equal(a.m[M_WV].cols, H * DV);
    assert_int_equal(a.m[M_WO].rows, H * DV);
    assert_int_equal(a.m[M_WO].cols, DOUT);
    assert_int_equal(a.m[M_Y].cols, DOUT);
    assert_int_equal(attn_d_k(&a), DK);
    assert_int_equal(attn_d_v(&a), DV);
    assert_int_equal(attn_heads(&a), H);
    assert_int_equal(attn_d_out(&a), DOUT);
    attn_free(&a);
    assert_false(attn_init_heads(&a, N, DM, 17, 1, 1, 4));
    assert_false(attn_init_heads(&a, N, DM, 0, 1, 1, 4));
    assert_false(attn_init_heads(&a, N, DM, 8, 9, 1, 4));  /* 72 columns */
    assert_true(attn_init_heads(&a, N, DM, 8, 8, 8, 64));
    attn_free(&a);
    /* One head without d_out: no W_O, five stages, no head matrices. */
    assert_true(attn_init_heads(&a, N, DM, 1, DK, DV, 0));
    assert_int_equal(attn_last_stage(&a), STAGE_OUTPUT);
    assert_null(a.m[M_WO].v);
    assert_null(a.m[attn_head_id(M_S, 1)].v);
    assert_int_equal(attn_shown(&a, M_S, 1), M_S);
    attn_run_to(&a, STAGE_PROJECT);
    assert_int_equal(a.reached, STAGE_OUTPUT);
    attn_free(&a);
}

/* One head is the plain pipeline bit for bit, and with d_out Y = O Wo. */
static void test_one_head_same(void **state)
{
    Attn a, b;
    assert_true(attn_init(&a, N, DM, DK, DV));
    assert_true(attn_init_heads(&b, N, DM, 1, DK, DV, 2));
    Rng r;
    rng_seed(&r, 7);
    rng_randn(&r, &a.m[M_X], 1.0);
    rng_randn(&r, &a.m[M_WQ], 1.0);
    rng_randn(&r, &a.m[M_WK], 1.0);
    rng_randn(&r, &a.m[M_WV], 1.0);
    for (int id = M_X; id <= M_WV; id++)
        assert_true(mat_copy(&b.m[id], &a.m[id]));
    MAT_AT(&b.m[M_WO], 0, 0) = 2.0;
    MAT_AT(&b.m[M_WO], 1, 1) = -1.0;
    attn_run_to(&a, STAGE_OUTPUT);
    attn_run_to(&b, STAGE_PROJECT);
    for (int id = M_Q; id <= M_O; id++)
        assert_true(mat_max_diff(&a.m[id], &b.m[id]) == 0.0);
    for (int i = 0; i < N; i++) {
        assert_true(MAT_AT(&b.m[M_Y], i, 0) == 2.0 * MAT_AT(&b.m[M_O], i, 0));
        assert_true(MAT_AT(&b.m[M_Y], i, 1) == -MAT_AT(&b.m[M_O], i, 1));
    }
    attn_free(&a);
    attn_free(&b);
}

/* Overriding head 2's part of Q's row 1 keeps those columns, recomputes the
 * rest, and moves only head 2's A. */
static void test_head_override(void **state)
{
    Attn a, b;
    assert_true(attn_init_heads(&a, N, DM, H, DK, DV, DOUT));
    fill(&a, 5);
    attn_run_to(&a, STAGE_OUTPUT);
    assert_true(attn_init_heads(&b, N, DM, H, DK, DV, DOUT));
    assert_true(attn_copy(&b, &a));
    const Mat *k2 = &a.m[attn_head_id(M_K, 2)];
    for (int c = 0; c < DK; c++)
        MAT_AT(&b.m[M_Q], 0, DK + c) = MAT_AT(k2, 0, c) * 5.0;
    b.override[0][0] = true;
    b.ovh[0][0] = 1u << 1;
    MAT_AT(&b.m[M_Q], 0, 0) = 99.0; /* head 1's part is not overridden: recomputed */
    attn_run_to(&b, STAGE_OUTPUT);
    assert_true(MAT_AT(&b.m[M_Q], 0, 0) == MAT_AT(&a.m[M_Q], 0, 0));
    assert_true(MAT_AT(&b.m[attn_head_id(M_Q, 2)], 0, 1) == MAT_AT(k2, 0, 1) * 5.0);
    assert_true(attn_cell_overridden(&b, 0, 0, DK));
    assert_false(attn_cell_overridden(&b, 0, 0, 0));
    assert_false(attn_cell_overridden(&b, 0, 0, 2 * DK));
    for (int h = 1; h <= H; h++) {
        double d = mat_max_diff(&a.m[attn_head_id(M_A, h)], &b.m[attn_head_id(M_A, h)]);
        if (h == 2)
            assert_true(d > 0.01);
        else
            assert_true(d == 0.0);
    }
    /* The explain of a recomputed cell and of the kept one. */
    Explain e;
    assert_true(explain_cell(&b, attn_head_id(M_Q, 2), 0, 1, &e));
    assert_true(e.overridden);
    assert_int_equal(e.head, 2);
    assert_true(explain_cell(&b, attn_head_id(M_Q, 3), 0, 1, &e));
    assert_false(e.overridden);
    assert_int_equal(e.wcol, 2 * DK + 1);
    assert_near(e.sum, MAT_AT(&b.m[M_Q], 0, 2 * DK + 1), 0.0);
    /* The trace follows head 2. */
    Trace t;
    assert_true(trace_compute_head(&a, &b, 2, 0, 0, &t));
    assert_int_equal(t.origin, M_Q);
    assert_int_equal(t.cell[0].mat, attn_head_id(M_S, 2));
    assert_int_equal(t.cell[1].mat, attn_head_id(M_A, 2));
    assert_int_equal(t.cell[2].mat, attn_head_id(M_O, 2));
    attn_free(&a);
    attn_free(&b);
}

/* Explain: a head's score, weights and output use the head's own Q, K, A,
 * V; Y's terms come in head groups whose shares add up to y. */
static void test_explain_heads(void **state)
{
    Attn a;
    assert_true(attn_init_heads(&a, N, DM, H, DK, DV, DOUT));
    fill(&a, 11);
    attn_run_to(&a, STAGE_PROJECT);
    Explain e;
    assert_true(explain_cell(&a, attn_head_id(M_S, 3), 1, 2, &e));
    assert_int_equal(e.kind, EX_SCORE);
    assert_int_equal(e.n, DK);
    assert_int_equal(e.d_k, DK);
    assert_near(e.result, MAT_AT(&a.m[attn_head_id(M_S, 3)], 1, 2), 0.0);
    assert_near(e.sum / sqrt((double)DK), e.result, 0.0);
    assert_true(explain_cell(&a, attn_head_id(M_A, 2), 2, 0, &e));
    assert_int_equal(e.kind, EX_SOFTMAX);
    assert_near(e.result, MAT_AT(&a.m[attn_head_id(M_A, 2)], 2, 0), 0.0);
    /* A cell of the joined O: column 4 is head 2's column 1 (0-based). */
    assert_true(explain_cell(&a, M_O, 3, DV + 1, &e));
    assert_int_equal(e.kind, EX_OUTPUT);
    assert_int_equal(e.head, 2);
    assert_int_equal(e.jh, 1);
    assert_near(e.sum, MAT_AT(&a.m[M_O], 3, DV + 1), 0.0);
    assert_true(explain_cell(&a, M_Y, 2, 4, &e));
    assert_int_equal(e.kind, EX_PROJECT);
    assert_int_equal(e.heads, H);
    assert_int_equal(e.group, DV);
    assert_int_equal(e.n, H * DV);
    assert_near(e.sum, MAT_AT(&a.m[M_Y], 2, 4), 0.0);
    double shares = 0;
    for (int h = 0; h < H; h++) {
        double want = 0;
        for (int c = h * DV; c < (h + 1) * DV; c++)
            want += MAT_AT(&a.m[M_O], 2, c) * MAT_AT(&a.m[M_WO], c, 4);
        assert_near(e.head_sum[h], want, 1e-15);
        shares += e.head_sum[h];
    }
    assert_near(shares, e.result, 1e-12);
    /* Y is not there before stage 6. */
    attn_run_to(&a, STAGE_OUTPUT);
    assert_false(explain_cell(&a, M_Y, 0, 0, &e));
    attn_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_heads),
        cmocka_unit_test(test_three_heads_causal_temperature),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_one_head_same),
        cmocka_unit_test(test_head_override),
        cmocka_unit_test(test_explain_heads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
