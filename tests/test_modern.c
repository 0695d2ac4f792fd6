/* test_modern.c - the staged pipeline's variants from today's models
 * (core/attn.h): append with the KV-cache count, the sliding window, shared
 * K/V heads, RoPE with its offset, and the online softmax. Exact figures are
 * numpy 1.24's (%.17g) on tutorial A (REFERENCE.md: lesson 1's X, seed 42,
 * scale 0.3), unscaled with the stable softmax unless a test says so. */
#include "testutil.h"
#include "core/attn.h"
#include "core/rng.h"

#include <stdlib.h>
#include <string.h>

static const double x_a[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.2};

/* Tutorial A with d_k columns per head and `heads` heads over g K/V heads. */
static void tutorial_a(Attn *a, int heads, int g, int d_k)
{
    assert_true(attn_init_kv(a, 3, 4, heads, g, d_k, d_k, 0));
    memcpy(a->m[M_X].v, x_a, sizeof x_a);
    attn_draw_weights(a, 42, 0.3);
    a->scale = SCALE_NONE;
}

/* Row i of two matrices the same, bit for bit, over the first cols cells. */
static bool same_row(const Mat *x, const Mat *y, int i, int cols)
{
    return memcmp(&MAT_AT(x, i, 0), &MAT_AT(y, i, 0), sizeof(double) * (size_t)cols) == 0;
}

/* ---- the sliding window ---------------------------------------------------- */

/* numpy: S[3][1] = -inf with a window of 2; rows 1 and 2 as under the causal mask. */
static void test_window(void **state)
{
    static const double a_win[] = {1, 0, 0, 0.54294059048363674, 0.4570594095163632, 0,
                                   0, 0.53162944737882367, 0.46837055262117627};
    static const double o_win[] = {-0.16331481735755479, 0.033276776912959827, -0.34529807322669082,
                                   -0.03715534904437591, -0.064290956577576636, -0.22747275168260023,
                                   -0.054350897721892888, 0.18758595152946805, -0.082726839784803372};
    Attn a;
    tutorial_a(&a, 1, 1, 3);
    a.mask = MASK_WINDOW;
    a.window = 2;
    attn_run_to(&a, STAGE_OUTPUT);
    assert_true(isinf(MAT_AT(&a.m[M_S], 2, 0)) && MAT_AT(&a.m[M_S], 2, 0) < 0);
    assert_true(isinf(MAT_AT(&a.m[M_S], 0, 1)));
    assert_false(isinf(MAT_AT(&a.m[M_S], 2, 1)));
    assert_true(MAT_AT(&a.m[M_A], 2, 0) == 0.0);
    assert_mat_near(&a.m[M_A], 3, 3, a_win, 1e-15);
    assert_mat_near(&a.m[M_O], 3, 3, o_win, 1e-15);
    int lo, hi;
    attn_visible(&a, 2, &lo, &hi);
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 3);
    attn_visible(&a, 0, &lo, &hi);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 1);
    /* causal is a window of n, bit for bit */
    Attn c = {0};
    assert_true(attn_copy(&c, &a));
    a.window = 3;
    c.mask = MASK_CAUSAL;
    attn_run_to(&a, STAGE_OUTPUT);
    attn_run_to(&c, STAGE_OUTPUT);
    for (int m = M_S; m <= M_O; m++)
        assert_memory_equal(a.m[m].v, c.m[m].v, sizeof(double) * 9);
    a.window = 0;
    assert_int_equal(attn_check_options(&a), ATTN_OPT_WINDOW);
    attn_free(&c);
    attn_free(&a);
}

/* ---- append and the KV cache ----------------------------------------------- */

static void test_append_causal_exact(void **state)
{
    static const double x4[] = {0.5, -1, 0.25, 2};
    Attn a, before = {0};
    tutorial_a(&a, 1, 1, 3);
    a.mask = MASK_CAUSAL;
    attn_run_to(&a, STAGE_OUTPUT);
    assert_true(attn_copy(&before, &a));
    assert_true(attn_append(&a, x4, 4));
    assert_int_equal(attn_tokens(&a), 4);
    assert_int_equal(a.reached, STAGE_OUTPUT);
    assert_memory_equal(&MAT_AT(&a.m[M_X], 3, 0), x4, sizeof x4);
    /* the earlier rows of Q, K, V, S, A, O are unchanged bit for bit */
    for (int i = 0; i < 3; i++) {
        for (int m = M_Q; m <= M_O; m++)
            assert_true(same_row(&before.m[m], &a.m[m], i, before.m[m].cols));
        assert_true(isinf(MAT_AT(&a.m[M_S], i, 3)));
        assert_true(MAT_AT(&a.m[M_A], i, 3) == 0.0);
    }
    /* the new row is x4 W: numpy's q4 = x4 @ Wq */
    double q = 0.0;
    for (int k = 0; k < 4; k++)
        q += x4[k] * MAT_AT(&a.m[M_WQ], k, 0);
    assert_true(MAT_AT(&a.m[M_Q], 3, 0) == q);
    AttnWork w;
    assert_true(attn_append_work(&before, &a, &w));
    assert_int_equal(w.n, 4);
    assert_int_equal(w.rows_new, 1);
    assert_int_equal(w.scores_new, 4);
    assert_int_equal(w.rows_full, 4);
    assert_int_equal(w.scores_full, 16);
    assert_true(w.exact);
    assert_int_equal(w.nstale, 0);
    /* a window of 2: two scores for the new row, still exact */
    Attn b = {0};
    assert_true(attn_copy(&b, &before));
    b.mask = MASK_WINDOW;
    b.window = 2;
    attn_run_to(&b, STAGE_OUTPUT);
    assert_true(attn_copy(&before, &b));
    assert_true(attn_append(&b, x4, 4));
    assert_true(attn_append_work(&before, &b, &w));
    assert_int_equal(w.scores_new, 2);
    assert_true(w.exact);
    attn_free(&b);
    attn_free(&before);
    attn_free(&a);
}

/* Without the mask every earlier row reads the new key: all three are stale. */
static void test_append_no_mask_stale(void **state)
{
    static const double x4[] = {0.5, -1, 0.25, 2};
    Attn a, before = {0};
    tutorial_a(&a, 1, 1, 3);
    attn_run_to(&a, STAGE_OUTPUT);
    assert_true(attn_copy(&before, &a));
    assert_true(attn_append(&a, x4, 4));
    AttnWork w;
    assert_true(attn_append_work(&before, &a, &w));
    assert_false(w.exact);
    assert_int_equal(w.nstale, 3);
    assert_true(w.stale[0] && w.stale[1] && w.stale[2]);
    /* K and V rows are still the same: the cache of K, V is not what changed */
    for (int i = 0; i < 3; i++)
        assert_true(same_row(&before.m[M_K], &a.m[M_K], i, 3) && same_row(&before.m[M_V], &a.m[M_V], i, 3));
    assert_false(same_row(&before.m[M_A], &a.m[M_A], 0, 3));
    /* refused: a row of the wrong length, and past 64 tokens */
    assert_false(attn_append(&a, x4, 3));
    assert_int_equal(attn_tokens(&a), 4);
    while (attn_tokens(&a) < MAT_MAX)
        assert_true(attn_append(&a, x4, 4));
    assert_false(attn_append(&a, x4, 4));
    assert_int_equal(attn_tokens(&a), MAT_MAX);
    attn_free(&before);
    attn_free(&a);
}

/* ---- shared K/V heads ------------------------------------------------------ */

static void test_kv_heads(void **state)
{
    Attn a, plain;
    assert_true(attn_init_kv(&a, 3, 4, 4, 2, 2, 3, 4));
    assert_int_equal(attn_kv_heads(&a), 2);
    assert_int_equal(attn_kv_head(&a, 1), 1);
    assert_int_equal(attn_kv_head(&a, 2), 1);
    assert_int_equal(attn_kv_head(&a, 3), 2);
    assert_int_equal(attn_kv_head(&a, 4), 2);
    assert_int_equal(a.m[M_WQ].cols, 8);
    assert_int_equal(a.m[M_WK].cols, 4);
    assert_int_equal(a.m[M_WV].cols, 6);
    assert_int_equal(a.m[M_O].cols, 12);
    assert_int_equal(a.m[M_WO].rows, 12);
    assert_int_equal(attn_d_k(&a), 2);
    assert_int_equal(attn_d_v(&a), 3);
    assert_int_equal(attn_cache_per_token(&a), 10); /* 2*2 of K + 2*3 of V, against 4*2 + 4*3 */
    memcpy(a.m[M_X].v, x_a, sizeof x_a);
    attn_draw_weights(&a, 7, 0.5);
    /* the draws: Wq 4x8, then Wk 4x4, Wv 4x6, Wo 12x4 from one stream */
    Rng r;
    Mat w;
    rng_seed(&r, 7);
    assert_true(mat_new(&w, 4, 8));
    rng_randn(&r, &w, 0.5);
    assert_memory_equal(w.v, a.m[M_WQ].v, sizeof(double) * 32);
    mat_free(&w);
    assert_true(mat_new(&w, 4, 4));
    rng_randn(&r, &w, 0.5);
    assert_memory_equal(w.v, a.m[M_WK].v, sizeof(double) * 16);
    mat_free(&w);
    attn_run_to(&a, STAGE_PROJECT);
    /* heads 1 and 2 read K/V head 1: the same K and V, bit for bit */
    assert_memory_equal(a.m[attn_head_id(M_K, 1)].v, a.m[attn_head_id(M_K, 2)].v, sizeof(double) * 6);
    assert_memory_equal(a.m[attn_head_id(M_V, 3)].v, a.m[attn_head_id(M_V, 4)].v, sizeof(double) * 9);
    assert_true(MAT_AT(&a.m[attn_head_id(M_K, 3)], 1, 0) == MAT_AT(&a.m[M_K], 1, 2));
    assert_true(MAT_AT(&a.m[attn_head_id(M_V, 4)], 2, 2) == MAT_AT(&a.m[M_V], 2, 5));
    /* g = h is multi-head attention as before: the same draws, the same numbers */
    assert_true(attn_init_heads(&plain, 3, 4, 2, 2, 3, 4));
    Attn same;
    assert_true(attn_init_kv(&same, 3, 4, 2, 2, 2, 3, 4));
    memcpy(plain.m[M_X].v, x_a, sizeof x_a);
    memcpy(same.m[M_X].v, x_a, sizeof x_a);
    Rng r2;
    rng_seed(&r2, 9);
    for (int m = M_WQ; m <= M_WV; m++)
        rng_randn(&r2, &plain.m[m], 0.4);
    rng_randn(&r2, &plain.m[M_WO], 0.4);
    attn_draw_weights(&same, 9, 0.4);
    attn_run_to(&plain, STAGE_PROJECT);
    attn_run_to(&same, STAGE_PROJECT);
    for (int m = 0; m < M_COUNT; m++)
        if (plain.m[m].v)
            assert_memory_equal(plain.m[m].v, same.m[m].v, sizeof(double) * (size_t)(plain.m[m].rows * plain.m[m].cols));
    attn_free(&same);
    assert_false(attn_init_kv(&same, 3, 4, 4, 3, 2, 2, 0)); /* 3 does not divide 4 */
    attn_free(&plain);
    attn_free(&a);
}

/* ---- RoPE -------------------------------------------------------------------- */

/* numpy, tutorial A with d_k = 4 (Wq, Wk, Wv 4x4): Q0 @ R_p row by row, S / 2. */
static void test_rope(void **state)
{
    static const double q_rope[] = {0.14901424590336979, -0.041479290351355398, 0.19430656143020775,
                                    0.45690895692240757, 0.021151754236237802, -0.097061402565938856,
                                    0.4714378908414717, 0.23495646680714058, 0.0089494868679454095,
                                    -0.13482967752993671, -0.23900298304951037, -0.17827157194818327};
    static const double k_rope[] = {-0.30384933610032711, 0.09427419977858216, -0.27240722265636325,
                                    -0.42369111040058743, 0.29456328460734138, 0.33339403716109439,
                                    0.024531621813335076, -0.42720050358166639, 0.068615872994155641,
                                    -0.18783607566722826, -0.3858008158850903, 0.21617382797179072};
    static const double s_rope[] = {-0.14785354032301362, -0.08017995187480198, 0.020912089006599965,
                                    -0.12177469267737204, -0.057468773772061658, -0.055703352525169544,
                                    0.062603981745942047, 0.013989677122333906, 0.039804926048939607};
    Attn a;
    tutorial_a(&a, 1, 1, 4);
    a.scale = SCALE_SQRT_DK;
    assert_null(a.m[M_Q0].v);
    assert_true(attn_set_positions(&a, POS_ROPE));
    assert_non_null(a.m[M_Q0].v);
    attn_run_to(&a, STAGE_OUTPUT);
    assert_mat_near(&a.m[M_Q], 3, 4, q_rope, 1e-16);
    assert_mat_near(&a.m[M_K], 3, 4, k_rope, 1e-16);
    assert_mat_near(&a.m[M_S], 3, 3, s_rope, 1e-16);
    /* position 0 does not turn: Q's row 1 is Q0's, bit for bit; V is never rotated */
    assert_true(same_row(&a.m[M_Q], &a.m[M_Q0], 0, 4));
    assert_false(same_row(&a.m[M_Q], &a.m[M_Q0], 1, 4));
    assert_true(MAT_AT(&a.m[M_V], 2, 3) == MAT_AT(&a.m[M_WV], 2, 3) + 0.2 * MAT_AT(&a.m[M_WV], 3, 3));
    /* offset 3: Q and K move, S stays (it depends only on j - i) */
    Attn b = {0};
    assert_true(attn_copy(&b, &a));
    b.offset = 3;
    attn_run_to(&b, STAGE_OUTPUT);
    assert_false(same_row(&a.m[M_Q], &b.m[M_Q], 0, 4));
    assert_true(mat_max_diff(&a.m[M_S], &b.m[M_S]) < 1e-15);
    assert_true(mat_max_diff(&a.m[M_O], &b.m[M_O]) < 1e-15);
    /* sinusoidal positions with an offset do change S */
    assert_true(attn_set_positions(&b, POS_SINUSOIDAL));
    attn_run_to(&b, STAGE_OUTPUT);
    Attn c = {0};
    assert_true(attn_copy(&c, &b));
    c.offset = 0;
    attn_run_to(&c, STAGE_OUTPUT);
    assert_true(MAT_AT(&b.m[M_P], 0, 0) == sin(3.0));
    assert_true(mat_max_diff(&b.m[M_S], &c.m[M_S]) > 1e-3);
    /* odd d_k cannot pair its columns */
    Attn odd;
    tutorial_a(&odd, 1, 1, 3);
    assert_true(attn_set_positions(&odd, POS_ROPE));
    assert_int_equal(attn_check_options(&odd), ATTN_OPT_ROPE_ODD_DK);
    odd.positions = POS_NONE;
    assert_int_equal(attn_check_options(&odd), ATTN_OPT_OK);
    attn_free(&odd);
    attn_free(&c);
    attn_free(&b);
    attn_free(&a);
}

/* A row of Q set by hand stays as written under RoPE. */
static void test_rope_override(void **state)
{
    static const double row[] = {1, 2, 3, 4};
    Attn a;
    tutorial_a(&a, 1, 1, 4);
    assert_true(attn_set_positions(&a, POS_ROPE));
    memcpy(&MAT_AT(&a.m[M_Q], 2, 0), row, sizeof row);
    a.override[0][2] = true;
    attn_run_to(&a, STAGE_OUTPUT);
    assert_memory_equal(&MAT_AT(&a.m[M_Q], 2, 0), row, sizeof row);
    assert_memory_equal(&MAT_AT(&a.m[M_Q0], 2, 0), row, sizeof row);
    attn_free(&a);
}

/* ---- the online softmax ---------------------------------------------------- */

static void test_online_equals_plain(void **state)
{
    for (int mask = MASK_NONE; mask <= MASK_WINDOW; mask++)
        for (int block = 1; block <= 4; block++) {
            Attn a, b = {0};
            tutorial_a(&a, 2, 1, 3);
            a.mask = (Mask)mask;
            a.window = 2;
            a.temp = 0.5;
            assert_true(attn_copy(&b, &a));
            b.softmax = SOFTMAX_ONLINE;
            b.block = block;
            attn_run_to(&a, STAGE_OUTPUT);
            attn_run_to(&b, STAGE_OUTPUT);
            for (int h = 1; h <= 2; h++) {
                assert_true(mat_max_diff(&a.m[attn_head_id(M_A, h)], &b.m[attn_head_id(M_A, h)]) <= 1e-12);
                assert_true(mat_max_diff(&a.m[attn_head_id(M_O, h)], &b.m[attn_head_id(M_O, h)]) <= 1e-12);
            }
            assert_true(mat_max_diff(&a.m[M_O], &b.m[M_O]) <= 1e-12);
            for (int i = 0; i < 3; i++) /* masked weights are exactly 0 */
                for (int j = 0; j < 3; j++)
                    if (attn_masked(&b, i, j))
                        assert_true(MAT_AT(&b.m[M_A], i, j) == 0.0);
            attn_free(&b);
            attn_free(&a);
        }
}

/* numpy, row 1 of tutorial A unscaled, blocks of 2: keys 1-2, then key 3. */
static void test_online_blocks(void **state)
{
    const double s[] = {-0.065923656167730715, 0.0057848947805190353, 0.043620431802729787};
    AttnBlock b[3];
    double p[3], m, l, w[3];
    int nb = attn_online_row(s, 3, 0, 3, 1.0, 2, b, p, &m, &l, w);
    assert_int_equal(nb, 2);
    assert_int_equal(b[0].k0, 0);
    assert_int_equal(b[0].k1, 2);
    assert_int_equal(b[1].k0, 2);
    assert_int_equal(b[1].k1, 3);
    assert_true(isinf(b[0].m_old) && b[0].m_old < 0);
    assert_true(b[0].m_new == 0.0057848947805190353);
    assert_near(b[0].l_new, 1.9308021376830875, 1e-15);
    assert_true(b[1].m_old == b[0].m_new && b[1].l_old == b[0].l_new);
    assert_true(b[1].m_new == 0.043620431802729787);
    assert_near(b[1].rescale, 0.96287128454869264, 2e-16);
    assert_near(b[1].l_new, 2.8591139345202761, 1e-15);
    assert_true(m == b[1].m_new && l == b[1].l_new);
    assert_near(w[0], 0.3134686726368468, 1e-15);
    /* the output's column 1 over V's column 1 */
    Mat v;
    assert_true(mat_new(&v, 3, 1));
    v.v[0] = -0.16331481735755479;
    v.v[1] = 0.11270940550370158;
    v.v[2] = -0.24397463940617309;
    double o = attn_online_out(b, nb, p, &v, 0);
    assert_near(b[0].o_new, -0.039304375608033418, 1e-16);
    assert_true(b[1].o_old == b[0].o_new);
    assert_near(b[1].o_new, -0.2818196940362645, 1e-15);
    assert_near(o, -0.098568892492754176, 1e-16);
    /* a window of 1 on row 3 (keys 3 only): block 1 is masked whole and skipped */
    nb = attn_online_row(s, 3, 2, 3, 1.0, 2, b, p, &m, &l, w);
    assert_true(b[0].v0 == b[0].v1 && b[0].rescale == 1.0 && b[0].l_new == 0.0);
    assert_true(w[0] == 0.0 && w[1] == 0.0 && w[2] == 1.0);
    mat_free(&v);
}

/* The options' defaults and the checks. */
static void test_options(void **state)
{
    Attn a;
    tutorial_a(&a, 1, 1, 2);
    assert_int_equal(a.block, ATTN_BLOCK_DEFAULT);
    assert_true(a.rope_base == 10000.0);
    assert_int_equal(a.offset, 0);
    assert_int_equal(attn_check_options(&a), ATTN_OPT_OK);
    a.softmax = SOFTMAX_ONLINE;
    a.block = 0;
    assert_int_equal(attn_check_options(&a), ATTN_OPT_BLOCK);
    a.block = 2;
    a.offset = -1;
    assert_int_equal(attn_check_options(&a), ATTN_OPT_OFFSET);
    a.offset = 0;
    assert_true(attn_set_positions(&a, POS_ROPE));
    a.rope_base = 1.0;
    assert_int_equal(attn_check_options(&a), ATTN_OPT_ROPE_BASE);
    Attn b = {0};
    a.rope_base = 500;
    assert_true(attn_copy(&b, &a));
    assert_true(attn_same_options(&a, &b));
    b.block = 3;
    assert_false(attn_same_options(&a, &b));
    assert_true(b.rope_base == 500 && b.m[M_K0].v);
    assert_string_equal(attn_mat_name(M_Q0), "Q0");
    assert_int_equal(attn_mat_lookup("K0", -1), M_K0);
    assert_int_equal(attn_mat_stage(M_K0), STAGE_QKV);
    assert_int_equal(attn_mat_head(M_Q0), 0);
    attn_free(&b);
    attn_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_append_causal_exact),
        cmocka_unit_test(test_append_no_mask_stale),
        cmocka_unit_test(test_kv_heads),
        cmocka_unit_test(test_rope),
        cmocka_unit_test(test_rope_override),
        cmocka_unit_test(test_online_equals_plain),
        cmocka_unit_test(test_online_blocks),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
