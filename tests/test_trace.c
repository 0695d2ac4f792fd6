/* test_trace.c - the core's effect trace (core/trace.h) on tutorial A
 * (lesson 1's numbers): an override of Q (what `:Q[1] = K[1] * 5` does), an
 * X edit, a W edit, the scale and softmax toggles, unreached stages, no
 * change. Expected figures: REFERENCE.md tutorial A and its "attend to
 * itself" experiment (numpy, %.17g). */
#include "testutil.h"
#include "core/attn.h"
#include "core/rng.h"
#include "core/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* numpy, tutorial A: S[1][1], A[1][1], O[1][1] before; after Q[1] = K[1] * 5. */
#define S11 (-0.065923656167730715)
#define A11 0.3134686726368468
#define O11 (-0.09856889249275419)
#define A11_EDIT 0.87277373756703203
#define A11_EDIT_SCALED 0.69492970623440442
#define A11_SCALED 0.32179608008118615
#define S11_SCALED (-0.038061040634403666)

typedef struct {
    Attn before, after;
} Fix;

static void tutorial_a(Attn *a)
{
    static const double x[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.2};
    Rng r;
    assert_true(attn_init(a, 3, 4, 3, 3));
    memcpy(a->m[M_X].v, x, sizeof x);
    rng_seed(&r, 42);
    for (int p = M_WQ; p <= M_WV; p++)
        rng_randn(&r, &a->m[p], 0.3);
    a->scale = SCALE_NONE;
    a->softmax = SOFTMAX_NAIVE;
}

static int setup(void **state)
{
    Fix *f = calloc(1, sizeof *f);
    *state = f;
    if (!f)
        return -1;
    tutorial_a(&f->before);
    attn_run_to(&f->before, STAGE_OUTPUT);
    return attn_copy(&f->after, &f->before) ? 0 : -1;
}

static int teardown(void **state)
{
    Fix *f = *state;
    attn_free(&f->before);
    attn_free(&f->after);
    free(f);
    return 0;
}

/* What `Q[1] = K[1] * 5` does to a state: row 1 of Q set by hand. */
static void override_q1(Attn *a)
{
    for (int c = 0; c < 3; c++)
        MAT_AT(&a->m[M_Q], 0, c) = 5 * MAT_AT(&a->m[M_K], 0, c);
    a->override[0][0] = true;
}

static void rerun(Attn *a, int stage)
{
    a->reached = STAGE_INPUT;
    attn_run_to(a, stage);
}

static void assert_cell(const TraceCell *c, MatId m, int i, int j, double before, double after)
{
    assert_int_equal(c->mat, m);
    assert_int_equal(c->i, i);
    assert_int_equal(c->j, j);
    assert_near(c->before, before, 1e-9);
    assert_near(c->after, after, 1e-9);
}

/* Lesson 1 at the output stage, `:Q[1] = K[1] * 5`, focus row 1, column 1:
 * q₁ changed ⇒ s₁₁ −0.066 → 3.013 ⇒ α₁₁ 0.313 → 0.873 ⇒ o₁₁ −0.099 → −0.147
 * (o₁₁ is −0.14660, shown with 3 decimals as −0.147, not −0.146). */
static void test_prompt_edit(void **state)
{
    Fix *f = *state;
    Trace t;
    override_q1(&f->after);
    rerun(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 0, 0, &t));
    assert_int_equal(t.kind, TRACE_MATRIX);
    assert_int_equal(t.origin, M_Q);
    assert_int_equal(t.origin_i, 0);
    assert_true(t.origin_row);
    assert_int_equal(t.n, 3);
    const Mat *k = &f->before.m[M_K];
    double s11 = 0;
    for (int c = 0; c < 3; c++)
        s11 += 5 * MAT_AT(k, 0, c) * MAT_AT(k, 0, c);
    assert_cell(&t.cell[0], M_S, 0, 0, S11, s11);
    assert_near(s11, 3.013, 0.0005);
    assert_cell(&t.cell[1], M_A, 0, 0, A11, A11_EDIT);
    double o11 = 0;
    for (int c = 0; c < 3; c++)
        o11 += MAT_AT(&f->after.m[M_A], 0, c) * MAT_AT(&f->after.m[M_V], c, 0);
    assert_cell(&t.cell[2], M_O, 0, 0, O11, o11);
    assert_near(t.cell[0].before, -0.066, 0.0005);
    assert_near(t.cell[1].before, 0.313, 0.0005);
    assert_near(t.cell[1].after, 0.873, 0.0005);
    assert_near(t.cell[2].before, -0.099, 0.0005);
    assert_near(t.cell[2].after, -0.14660, 0.00001); /* shown as −0.147 */
}

/* The same edit seen at the scores stage stops at S; focus column 2. */
static void test_stops_at_reached(void **state)
{
    Fix *f = *state;
    Trace t;
    rerun(&f->before, STAGE_SCORES);
    override_q1(&f->after);
    rerun(&f->after, STAGE_SCORES);
    assert_true(trace_compute(&f->before, &f->after, 0, 1, &t));
    assert_int_equal(t.n, 1);
    assert_cell(&t.cell[0], M_S, 0, 1, 0.0057848947805190353, MAT_AT(&f->after.m[M_S], 0, 1));
    /* at the input stage Q is not computed: the hand-set row is the origin,
     * and no later stage is reached */
    rerun(&f->before, STAGE_INPUT);
    rerun(&f->after, STAGE_INPUT);
    assert_true(trace_compute(&f->before, &f->after, 0, 0, &t));
    assert_int_equal(t.origin, M_Q);
    assert_int_equal(t.n, 0);
}

/* An X edit: X[2][1] = 2 changes row 2 of Q, K, V; for query row 1 the
 * Q/K/V cell is k₂₁ (q₁ did not change), then s₁₂, α₁₂, o₁₂. */
static void test_x_edit(void **state)
{
    Fix *f = *state;
    Trace t;
    MAT_AT(&f->after.m[M_X], 1, 0) = 2;
    rerun(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 0, 1, &t));
    assert_int_equal(t.origin, M_X);
    assert_int_equal(t.origin_i, 1);
    assert_int_equal(t.origin_j, 0);
    assert_false(t.origin_row);
    assert_int_equal(t.n, 4);
    /* K[2][1] = X[2] · Wk[:,1]: 2·Wk[1][1] + 1·Wk[2][1] */
    double k21 = 2 * MAT_AT(&f->after.m[M_WK], 0, 0) + MAT_AT(&f->after.m[M_WK], 1, 0);
    assert_cell(&t.cell[0], M_K, 1, 0, -0.16868625877229179, k21);
    assert_cell(&t.cell[1], M_S, 0, 1, 0.0057848947805190353, MAT_AT(&f->after.m[M_S], 0, 1));
    assert_cell(&t.cell[2], M_A, 0, 1, 0.33677261788108853, MAT_AT(&f->after.m[M_A], 0, 1));
    assert_cell(&t.cell[3], M_O, 0, 1, 0.16136429092873428, MAT_AT(&f->after.m[M_O], 0, 1));
    assert_true(t.cell[2].after != t.cell[2].before);
}

/* A W edit: Wq[1][1] = 1 changes column 1 of Q: q₁₁ 0.149 → 1, then s₁₁ ... */
static void test_w_edit(void **state)
{
    Fix *f = *state;
    Trace t;
    MAT_AT(&f->after.m[M_WQ], 0, 0) = 1;
    rerun(&f->after, STAGE_SOFTMAX);
    rerun(&f->before, STAGE_SOFTMAX);
    assert_true(trace_compute(&f->before, &f->after, 0, 0, &t));
    assert_int_equal(t.origin, M_WQ);
    assert_int_equal(t.origin_i, 0);
    assert_false(t.origin_row);
    assert_int_equal(t.n, 3);
    assert_cell(&t.cell[0], M_Q, 0, 0, 0.14901424590336979, 1.0);
    assert_cell(&t.cell[1], M_S, 0, 0, S11, MAT_AT(&f->after.m[M_S], 0, 0));
    assert_cell(&t.cell[2], M_A, 0, 0, A11, MAT_AT(&f->after.m[M_A], 0, 0));
}

/* scale none -> sqrt_dk: the origin is the option, from S on; after the
 * Q edit it is lesson 2's 0.873 -> 0.695. */
static void test_scale_toggle(void **state)
{
    Fix *f = *state;
    Trace t;
    f->after.scale = SCALE_SQRT_DK;
    rerun(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 0, 0, &t));
    assert_int_equal(t.kind, TRACE_SCALE);
    assert_int_equal(t.origin, M_S);
    assert_int_equal(t.n, 3);
    assert_cell(&t.cell[0], M_S, 0, 0, S11, S11_SCALED);
    assert_cell(&t.cell[1], M_A, 0, 0, A11, A11_SCALED);
    assert_cell(&t.cell[2], M_O, 0, 0, O11, -0.098387375795586804);

    override_q1(&f->before);
    override_q1(&f->after);
    rerun(&f->before, STAGE_SOFTMAX);
    rerun(&f->after, STAGE_SOFTMAX);
    assert_true(trace_compute(&f->before, &f->after, 0, 0, &t));
    assert_int_equal(t.n, 2);
    assert_cell(&t.cell[1], M_A, 0, 0, A11_EDIT, A11_EDIT_SCALED);
}

/* softmax naive -> stable: the same weights (to rounding), origin A. */
static void test_softmax_toggle(void **state)
{
    Fix *f = *state;
    Trace t;
    f->after.softmax = SOFTMAX_STABLE;
    rerun(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 2, 2, &t));
    assert_int_equal(t.kind, TRACE_SOFTMAX);
    assert_int_equal(t.origin, M_A);
    /* o₃₃ comes out bit for bit the same: no path is named */
    assert_true(MAT_AT(&f->after.m[M_O], 2, 2) == MAT_AT(&f->before.m[M_O], 2, 2));
    assert_int_equal(t.n, 0);
    assert_true(t.no_effect);
    assert_int_equal(t.focus.mat, M_O);
    assert_int_equal(t.focus.i, 2);
    assert_int_equal(t.focus.j, 2);
}

/* Nothing changed, or a state only computed further: no trace / no input origin. */
static void test_no_change(void **state)
{
    Fix *f = *state;
    Trace t;
    assert_false(trace_compute(&f->before, &f->after, 0, 0, &t));
    assert_int_equal(t.kind, TRACE_NONE);
    assert_int_equal(t.n, 0);
    /* stale numbers above `reached` are not compared */
    rerun(&f->after, STAGE_SCORES);
    MAT_AT(&f->after.m[M_A], 0, 0) = 42;
    assert_false(trace_compute(&f->before, &f->after, 0, 0, &t));
    /* shapes that differ are refused */
    Attn other = {0};
    assert_true(attn_init(&other, 2, 4, 3, 3));
    assert_false(trace_compute(&f->before, &other, 0, 0, &t));
    attn_free(&other);
}

/* Several rows changed: all named (up to TRACE_ROWS), in order; a W's
 * column is followed into the same column of Q; a swap is TRACE_SWAP and
 * compares tokens, not rows; mask and temperature are their own kinds. */
static void test_causes(void **state)
{
    Fix *f = *state;
    Trace t;
    MAT_AT(&f->after.m[M_X], 0, 0) = 2;
    MAT_AT(&f->after.m[M_X], 2, 3) = 1;
    attn_run_to(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 2, 0, &t));
    assert_int_equal(t.kind, TRACE_MATRIX);
    assert_int_equal(t.origin, M_X);
    assert_int_equal(t.nrows, 2);
    assert_int_equal(t.rows[0], 0);
    assert_int_equal(t.rows[1], 2);
    assert_int_equal(t.cell[0].mat, M_Q); /* q₃ changed: the focused row's */
    assert_int_equal(t.cell[0].i, 2);
    /* Wq[2][1] feeds column 1 of Q: row 2 is the one that changes (X[2] = e₂) */
    assert_true(attn_copy(&f->after, &f->before));
    MAT_AT(&f->after.m[M_WQ], 1, 0) = 1;
    attn_run_to(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 1, 1, &t));
    assert_int_equal(t.origin, M_WQ);
    assert_int_equal(t.cell[0].mat, M_Q);
    assert_int_equal(t.cell[0].i, 1);
    assert_int_equal(t.cell[0].j, 0);
    assert_true(t.cell[0].after == 1);
    assert_true(t.cell[1].before != t.cell[1].after); /* s₂₂ follows q₂, which changed */
    /* a swap: row 3 now holds token 1, compared with token 1 before */
    assert_true(attn_copy(&f->after, &f->before));
    attn_swap_tokens(&f->after, 0, 2);
    attn_run_to(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 2, 0, &t));
    assert_int_equal(t.kind, TRACE_SWAP);
    assert_int_equal(t.origin_i, 0);
    assert_int_equal(t.origin_j, 2);
    for (int k = 0; k < t.n; k++) { /* and says which cell it was: row 1's (key column 3 for S, A) */
        assert_true(t.cell[k].before == t.cell[k].after);
        assert_int_equal(t.cell[k].i, 2);
        assert_int_equal(t.cell[k].bi, 0);
        MatId b = attn_mat_base(t.cell[k].mat);
        assert_int_equal(t.cell[k].bj, b == M_S || b == M_A ? 2 - t.cell[k].j : t.cell[k].j);
        assert_true(t.cell[k].before ==
                    MAT_AT(&f->before.m[t.cell[k].mat], t.cell[k].bi, t.cell[k].bj));
    }
    /* temperature and mask */
    assert_true(attn_copy(&f->after, &f->before));
    f->after.temp = 0.5;
    attn_run_to(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 2, 0, &t));
    assert_int_equal(t.kind, TRACE_TEMP);
    assert_int_equal(t.cell[0].mat, M_A);
    assert_int_equal(t.cell[0].i, 2);
    assert_true(attn_copy(&f->after, &f->before));
    f->after.mask = MASK_CAUSAL;
    attn_run_to(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 0, 0, &t));
    assert_int_equal(t.kind, TRACE_MASK);
}

/* `append` a fourth token under the causal mask: the trace follows the new
 * row, Q[4][j] => S[4][j] => A[4][j] => O[4][j], with nothing before. */
static void test_append(void **state)
{
    Fix *f = *state;
    static const double x4[] = {0.5, -1, 0.25, 2};
    Trace t;
    f->before.mask = MASK_CAUSAL;
    rerun(&f->before, STAGE_OUTPUT);
    assert_true(attn_copy(&f->after, &f->before));
    assert_true(attn_append(&f->after, x4, 4));
    assert_true(trace_compute(&f->before, &f->after, 0, 3, &t));
    assert_int_equal(t.kind, TRACE_APPEND);
    assert_int_equal(t.origin, M_X);
    assert_int_equal(t.origin_i, 3);
    assert_true(t.added);
    assert_int_equal(t.n, 4);
    static const MatId want[] = {M_Q, M_S, M_A, M_O};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(t.cell[k].mat, want[k]);
        assert_int_equal(t.cell[k].i, 3);
        assert_true(isnan(t.cell[k].before));
        assert_true(t.cell[k].after == MAT_AT(&f->after.m[want[k]], 3, t.cell[k].j));
    }
    assert_int_equal(t.cell[1].j, 3); /* S[4][4]: the new token's score on itself */
    assert_int_equal(t.cell[0].j, 2); /* Q has 3 columns */
    /* the reverse (a token fewer) is no append and no trace */
    assert_false(trace_compute(&f->after, &f->before, 0, 0, &t));
}

/* A window's width, RoPE's offset, the online softmax's block: each named. */
static void test_modern_options(void **state)
{
    Fix *f = *state;
    Trace t;
    f->before.mask = MASK_WINDOW;
    f->before.window = 3;
    rerun(&f->before, STAGE_OUTPUT);
    assert_true(attn_copy(&f->after, &f->before));
    f->after.window = 1;
    rerun(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 2, 0, &t));
    assert_int_equal(t.kind, TRACE_MASK);
    assert_int_equal(t.cell[0].mat, M_S);
    assert_true(isinf(t.cell[0].after));

    f->before.softmax = f->after.softmax = SOFTMAX_ONLINE;
    f->after.window = 3;
    f->after.block = 1;
    rerun(&f->before, STAGE_OUTPUT);
    rerun(&f->after, STAGE_OUTPUT);
    assert_true(trace_compute(&f->before, &f->after, 0, 0, &t));
    assert_int_equal(t.kind, TRACE_SOFTMAX);

    Attn a, b = {0};
    assert_true(attn_init(&a, 3, 4, 2, 2));
    memcpy(a.m[M_X].v, f->before.m[M_X].v, sizeof(double) * 12);
    attn_draw_weights(&a, 42, 0.3);
    attn_run_to(&a, STAGE_OUTPUT);
    assert_true(attn_copy(&b, &a));
    assert_true(attn_set_positions(&b, POS_ROPE));
    rerun(&b, STAGE_OUTPUT);
    assert_true(trace_compute(&a, &b, 1, 0, &t));
    assert_int_equal(t.kind, TRACE_POSITIONS);
    assert_int_equal(t.origin, M_Q);
    assert_int_equal(t.cell[0].mat, M_S);
    assert_true(attn_copy(&a, &b));
    b.offset = 3;
    rerun(&b, STAGE_OUTPUT);
    assert_true(trace_compute(&a, &b, 1, 0, &t));
    assert_int_equal(t.kind, TRACE_POSITIONS);
    assert_near(t.cell[0].before, t.cell[0].after, 1e-15); /* S does not move */
    attn_free(&b);
    attn_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_prompt_edit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stops_at_reached, setup, teardown),
        cmocka_unit_test_setup_teardown(test_x_edit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_w_edit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scale_toggle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_softmax_toggle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_change, setup, teardown),
        cmocka_unit_test_setup_teardown(test_causes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append, setup, teardown),
        cmocka_unit_test_setup_teardown(test_modern_options, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
