/* test_attn.c - the staged attention pipeline against numpy and REFERENCE.md.
 * Exact expectations come from Debian's python3-numpy 1.24 (%.17g). */
#include "testutil.h"
#include "core/attn.h"
#include "core/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tutorial A, numpy: X @ W, Q @ K.T, naive softmax, A @ V (unscaled). */
static const double q_a[] = {0.14901424590336979, -0.041479290351355398, 0.19430656143020775, 0.45690895692240757, -0.070246012417000792, -0.070241087084754156, 0.50631744726737526, 0.2024253571771249, -0.16878610099470104};
static const double k_a[] = {0.072588681469810235, -0.57398407339733937, -0.51747534975390985, -0.16868625877229179, -0.30384933610032711, 0.09427419977858216, -0.28595380068555537, -0.41963941811931199, 0.35420973950365875};
static const double v_a[] = {-0.16331481735755479, 0.033276776912959827, -0.34529807322669082, 0.11270940550370158, -0.18019160697564149, -0.087508124937983031, -0.24397463940617309, 0.60503615007887257, -0.077299786419641511};
static const double qkt_a[] = {-0.065923656167730715, 0.0057848947805190353, 0.043620431802729787, 0.10983454218805208, -0.062351980582683042, -0.12605693418210753, 0.0079066314766931267, -0.16282778092383404, -0.28951473836308805};
static const double a_a[] = {0.3134686726368468, 0.33677261788108853, 0.34975870948206467, 0.3799841772192652, 0.31987909305269141, 0.30013672972804334, 0.38673103719174196, 0.32603183979233863, 0.28723712301591947};
static const double o_a[] = {-0.09856889249275419, 0.16136429092873428, -0.16474674254103444, -0.099229414498240354, 0.13659869233262331, -0.18240032899501274, -0.096490627379070049, 0.1279098043818242, -0.18427128523049952};
/* ... with S = QKt / sqrt(3) */
static const double s_scaled[] = {-0.038061040634403666, 0.0033399105587663264, 0.025184268043473755, 0.063413002498591178, -0.035998932773918378, -0.072779004883258724, 0.0045648958114519449, -0.094008663147924998, -0.16715141212829296};
static const double a_scaled[] = {0.32179608008118615, 0.33539837501148329, 0.34280554490733056, 0.35996540581894021, 0.32590176337449422, 0.31413283080656551, 0.36385505956491626, 0.32969963445960715, 0.30644530597547653};
static const double o_scaled[] = {-0.098387375795586804, 0.15768211131440993, -0.16696444473324235, -0.098695934625483234, 0.1433154446117568, -0.17709681401317304, -0.097027555825817735, 0.1381093048303797, -0.17817800450705307};
/* ... after Q[1] = K[1] * 5, unscaled and scaled */
static const double a_edit[] = {0.87277373756703203, 0.075642284858930681, 0.0515839775740373, 0.3799841772192652, 0.31987909305269141, 0.30013672972804334, 0.38673103719174196, 0.32603183979233863, 0.28723712301591947};
static const double a_edit_scaled[] = {0.69492970623440442, 0.16932293049361027, 0.13574736327198533, 0.35996540581894021, 0.32590176337449422, 0.31413283080656551, 0.36385505956491626, 0.32969963445960715, 0.30644530597547653};

/* What REFERENCE.md prints, to three decimals. */
static const double q_3[] = {0.149, -0.041, 0.194, 0.457, -0.070, -0.070, 0.506, 0.202, -0.169};
static const double k_3[] = {0.073, -0.574, -0.517, -0.169, -0.304, 0.094, -0.286, -0.420, 0.354};
static const double v_3[] = {-0.163, 0.033, -0.345, 0.113, -0.180, -0.088, -0.244, 0.605, -0.077};
static const double qkt_3[] = {-0.066, 0.006, 0.044, 0.110, -0.062, -0.126, 0.008, -0.163, -0.290};
static const double a_3[] = {0.313, 0.337, 0.350, 0.380, 0.320, 0.300, 0.387, 0.326, 0.287};
static const double o_3[] = {-0.099, 0.161, -0.165, -0.099, 0.137, -0.182, -0.096, 0.128, -0.184};

/* numpy: seed(7); X = randn(4,6); W* = randn(6,3)*0.5; scaled, stable. */
static const double shape_s[] = {2.2958557780942281, 2.1293296533866357, 1.5213726156248213, 1.8605088376468844, 2.7157145392082462, 3.0805196579682743, 1.5378053018078977, 2.7861818273786958, -1.5104175696526942, -1.1046692781948919, -1.237552590744093, -0.39641242213981503, 1.7938418736881365, 1.5800785604641217, 1.4629323171130815, 0.12883750402356423};
static const double shape_a[] = {0.33845726096523687, 0.28653815386737613, 0.15600915038419935, 0.21899543478318767, 0.26170031813115086, 0.37690951445376419, 0.080583248084487552, 0.28080691933059737, 0.14575807195647922, 0.21869903109068847, 0.19148571007370122, 0.4440571868791312, 0.36832419895983587, 0.29743633811229669, 0.26455626986881492, 0.069683193059052559};
static const double shape_o[] = {-1.5222598265398317, -0.97092334780932266, 0.13329431578228015, -1.885305526020479, -0.82057355099889628, 0.16760025491097633, -1.7339175076147768, -0.79196657267616288, 0.45472965237460533, -1.1056399448454388, -1.033997317594112, 0.07683850773312248};
/* numpy: seed(11); X = randn(3,4); Wq, Wk = randn(4,2); Wv = randn(4,5); scaled, stable. */
static const double dv_v[] = {0.30317444314110553, -4.4899458820746929, 2.5560575703768271, -0.91542009630793919, -0.95536452957976059, 0.98216475143572013, -0.3822412309297844, -0.22618506871765293, 0.63917396496171641, -0.31714447050142064, 1.6577148613527453, -1.9925807121292045, 0.561414735535961, 0.46812680131471884, -1.4762633657802509};
static const double dv_s[] = {0.64111709180199361, -1.5434998149036721, -3.6875407825937412, -0.34486718547546857, 0.3659141379775922, 0.76505363311137387, -0.22403723049934768, -0.44331252307031654, -1.2900798187431728};
static const double dv_a[] = {0.88833136167803117, 0.099955783352063649, 0.01171285496990521, 0.16475280950738957, 0.33536770268834148, 0.499879487804269, 0.46566441309630635, 0.37397536959820016, 0.16036021730549349};
static const double dv_o[] = {0.38690898676454061, -4.0501057698481242, 2.2545933656693742, -0.74382414496334825, -0.89767195614599349, 1.207992833447334, -1.8639727878854382, 0.62590220954945575, 0.29754725716980363, -1.001712777994781, 0.77431449045267242, -2.5532874956189007, 1.1957059926676703, -0.11217432651434192, -0.80021739766824251};

/* Fill X and the weights like numpy: seed; X = randn*x_scale; Wq, Wk, Wv = randn*w_scale. */
static void fill_random(Attn *a, uint32_t seed, double x_scale, double w_scale)
{
    Rng r;
    rng_seed(&r, seed);
    if (x_scale != 0.0)
        rng_randn(&r, &a->m[M_X], x_scale);
    for (int p = M_WQ; p <= M_WV; p++)
        rng_randn(&r, &a->m[p], w_scale);
}

/* Tutorial A: X = [[1,0,0,0],[0,1,0,0],[0,0,1,0.2]], seed-42 weights, unscaled, naive. */
static int setup_tutorial_a(void **state)
{
    static const double x[] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.2};
    Attn *a = calloc(1, sizeof *a);
    *state = a;
    if (!a || !attn_init(a, 3, 4, 3, 3))
        return -1;
    for (int k = 0; k < 12; k++)
        a->m[M_X].v[k] = x[k];
    fill_random(a, 42, 0.0, 0.3);
    a->scale = SCALE_NONE;
    a->softmax = SOFTMAX_NAIVE;
    return 0;
}

static int teardown(void **state)
{
    Attn *a = *state;
    if (a)
        attn_free(a);
    free(a);
    return 0;
}

/* Q[1] = K[1] * c, marked as an override (0-based row 0). */
static void set_q0_to_k0_times(Attn *a, double c)
{
    for (int j = 0; j < attn_d_k(a); j++)
        MAT_AT(&a->m[M_Q], 0, j) = MAT_AT(&a->m[M_K], 0, j) * c;
    a->override[0][0] = true;
}

static double row_sum(const Mat *m, int i)
{
    double s = 0.0;
    for (int j = 0; j < m->cols; j++)
        s += MAT_AT(m, i, j);
    return s;
}

/* attn_init shapes every matrix from (n, d_model, d_k, d_v), zeroed, nothing reached. */
static void test_init_shapes(void **state)
{
    Attn a;
    assert_true(attn_init(&a, 4, 6, 3, 5));
    const int want[M_COUNT][2] = {{4, 6}, {6, 3}, {6, 3}, {6, 5}, {4, 3}, {4, 3},
                                  {4, 5}, {4, 4}, {4, 4}, {4, 4}, {4, 5}, {4, 6}, {4, 6}};
    for (int id = 0; id < M_COUNT; id++) {
        assert_int_equal(a.m[id].rows, want[id][0]);
        assert_int_equal(a.m[id].cols, want[id][1]);
        for (int k = 0; k < want[id][0] * want[id][1]; k++)
            assert_true(a.m[id].v[k] == 0.0);
    }
    assert_int_equal(a.reached, STAGE_NONE);
    assert_int_equal(attn_tokens(&a), 4);
    assert_int_equal(attn_d_model(&a), 6);
    assert_int_equal(attn_d_k(&a), 3);
    assert_int_equal(attn_d_v(&a), 5);
    attn_free(&a);
    attn_free(&a);
}

/* Sizes outside 1..MAT_MAX are refused and leave a freeable state. */
static void test_init_bad_sizes(void **state)
{
    Attn a;
    assert_false(attn_init(&a, 0, 4, 3, 3));
    attn_free(&a);
    assert_false(attn_init(&a, 3, MAT_MAX + 1, 3, 3));
    assert_false(attn_init(&a, 3, 4, 3, -2));
    assert_true(attn_init(&a, MAT_MAX, MAT_MAX, MAT_MAX, MAT_MAX));
    attn_free(&a);
}

/* Every stage of tutorial A equals numpy's to 1e-12 (and S equals QKt unscaled). */
static void test_tutorial_a_exact(void **state)
{
    Attn *a = *state;
    attn_run_to(a, STAGE_OUTPUT);
    assert_int_equal(a->reached, STAGE_OUTPUT);
    assert_mat_near(&a->m[M_Q], 3, 3, q_a, 1e-15);
    assert_mat_near(&a->m[M_K], 3, 3, k_a, 1e-15);
    assert_mat_near(&a->m[M_V], 3, 3, v_a, 1e-15);
    assert_mat_near(&a->m[M_QKT], 3, 3, qkt_a, 1e-15);
    assert_mat_near(&a->m[M_S], 3, 3, qkt_a, 1e-15);
    assert_true(mat_max_diff(&a->m[M_S], &a->m[M_QKT]) == 0.0);
    assert_mat_near(&a->m[M_A], 3, 3, a_a, 1e-15);
    assert_mat_near(&a->m[M_O], 3, 3, o_a, 1e-15);
}

/* Tutorial A matches the three-decimal table that REFERENCE.md prints. */
static void test_tutorial_a_printed(void **state)
{
    Attn *a = *state;
    attn_run_to(a, STAGE_OUTPUT);
    assert_mat_near(&a->m[M_Q], 3, 3, q_3, 5e-4);
    assert_mat_near(&a->m[M_K], 3, 3, k_3, 5e-4);
    assert_mat_near(&a->m[M_V], 3, 3, v_3, 5e-4);
    assert_mat_near(&a->m[M_QKT], 3, 3, qkt_3, 5e-4);
    assert_mat_near(&a->m[M_A], 3, 3, a_3, 5e-4);
    assert_mat_near(&a->m[M_O], 3, 3, o_3, 5e-4);
}

/* One stage per call: later matrices stay untouched until their stage runs. */
static void test_stage_by_stage(void **state)
{
    Attn *a = *state;
    attn_run_stage(a, STAGE_INPUT);
    assert_int_equal(a->reached, STAGE_INPUT);
    assert_true(MAT_AT(&a->m[M_Q], 0, 0) == 0.0);
    attn_run_stage(a, STAGE_QKV);
    assert_int_equal(a->reached, STAGE_QKV);
    assert_mat_near(&a->m[M_Q], 3, 3, q_a, 1e-15);
    assert_true(MAT_AT(&a->m[M_QKT], 0, 1) == 0.0);
    attn_run_stage(a, STAGE_SCORES);
    assert_int_equal(a->reached, STAGE_SCORES);
    assert_mat_near(&a->m[M_QKT], 3, 3, qkt_a, 1e-15);
    assert_true(MAT_AT(&a->m[M_A], 0, 0) == 0.0);
    attn_run_stage(a, STAGE_SOFTMAX);
    assert_mat_near(&a->m[M_A], 3, 3, a_a, 1e-15);
    assert_true(MAT_AT(&a->m[M_O], 0, 0) == 0.0);
    attn_run_stage(a, STAGE_OUTPUT);
    assert_int_equal(a->reached, STAGE_OUTPUT);
    assert_mat_near(&a->m[M_O], 3, 3, o_a, 1e-15);
}

/* attn_run_to(k) leaves reached == k, forwards and backwards. */
static void test_run_to_sets_reached(void **state)
{
    Attn *a = *state;
    attn_run_to(a, STAGE_QKV);
    assert_int_equal(a->reached, STAGE_QKV);
    assert_true(MAT_AT(&a->m[M_QKT], 0, 0) == 0.0);
    attn_run_to(a, STAGE_OUTPUT);
    assert_int_equal(a->reached, STAGE_OUTPUT);
    attn_run_to(a, STAGE_SCORES);
    assert_int_equal(a->reached, STAGE_SCORES);
    attn_run_to(a, STAGE_NONE);
    assert_int_equal(a->reached, STAGE_NONE);
}

/* With sqrt_dk, S is QKt divided (not multiplied by a reciprocal) by sqrt(3); A row 1 is 0.322 0.335 0.343. */
static void test_scaled(void **state)
{
    Attn *a = *state;
    a->scale = SCALE_SQRT_DK;
    attn_run_to(a, STAGE_OUTPUT);
    for (int k = 0; k < 9; k++)
        assert_true(a->m[M_S].v[k] == a->m[M_QKT].v[k] / sqrt(3.0));
    assert_mat_near(&a->m[M_QKT], 3, 3, qkt_a, 1e-15);
    assert_mat_near(&a->m[M_S], 3, 3, s_scaled, 1e-15);
    assert_mat_near(&a->m[M_A], 3, 3, a_scaled, 1e-15);
    assert_mat_near(&a->m[M_O], 3, 3, o_scaled, 1e-15);
    assert_near(MAT_AT(&a->m[M_A], 0, 0), 0.322, 5e-4);
    assert_near(MAT_AT(&a->m[M_A], 0, 1), 0.335, 5e-4);
    assert_near(MAT_AT(&a->m[M_A], 0, 2), 0.343, 5e-4);
}

/* The experiment Q[1] = K[1]*5 unscaled: A row 1 becomes 0.8728 0.0756 0.0516. */
static void test_experiment_unscaled(void **state)
{
    Attn *a = *state;
    attn_run_to(a, STAGE_OUTPUT);
    set_q0_to_k0_times(a, 5.0);
    attn_run_to(a, a->reached);
    assert_near(MAT_AT(&a->m[M_A], 0, 0), 0.8728, 5e-5);
    assert_near(MAT_AT(&a->m[M_A], 0, 1), 0.0756, 5e-5);
    assert_near(MAT_AT(&a->m[M_A], 0, 2), 0.0516, 5e-5);
    assert_mat_near(&a->m[M_A], 3, 3, a_edit, 1e-15);
}

/* The same experiment scaled by sqrt(3) gives the tutorial's printed 0.695 0.169 0.136. */
static void test_experiment_scaled(void **state)
{
    Attn *a = *state;
    a->scale = SCALE_SQRT_DK;
    attn_run_to(a, STAGE_QKV);
    set_q0_to_k0_times(a, 5.0);
    attn_run_to(a, STAGE_OUTPUT);
    assert_near(MAT_AT(&a->m[M_A], 0, 0), 0.695, 5e-4);
    assert_near(MAT_AT(&a->m[M_A], 0, 1), 0.169, 5e-4);
    assert_near(MAT_AT(&a->m[M_A], 0, 2), 0.136, 5e-4);
    assert_mat_near(&a->m[M_A], 3, 3, a_edit_scaled, 1e-15);
}

/* Overridden rows keep their values when stage 2 reruns, even after X changes; others follow X. */
static void test_override_survives(void **state)
{
    Attn *a = *state;
    attn_run_to(a, STAGE_QKV);
    set_q0_to_k0_times(a, 5.0);
    double q00 = MAT_AT(&a->m[M_Q], 0, 0);
    MAT_AT(&a->m[M_X], 0, 1) = 1.0; /* X[1] = [1, 1, 0, 0] */
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(MAT_AT(&a->m[M_Q], 0, 0) == q00);
    assert_true(MAT_AT(&a->m[M_K], 0, 0) == k_a[0] + k_a[3]);
    assert_true(MAT_AT(&a->m[M_Q], 1, 0) == q_a[3]);
    a->override[0][0] = false;
    attn_run_to(a, STAGE_QKV);
    assert_near(MAT_AT(&a->m[M_Q], 0, 0), q_a[0] + q_a[3], 1e-15);
}

/* Overrides are per matrix: a V override leaves Q and K rows computed. */
static void test_override_per_matrix(void **state)
{
    Attn *a = *state;
    a->override[2][1] = true;
    for (int j = 0; j < 3; j++)
        MAT_AT(&a->m[M_V], 1, j) = 9.0;
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(MAT_AT(&a->m[M_V], 1, 2) == 9.0);
    assert_mat_near(&a->m[M_Q], 3, 3, q_a, 1e-15);
    assert_mat_near(&a->m[M_K], 3, 3, k_a, 1e-15);
    assert_true(MAT_AT(&a->m[M_V], 0, 0) == v_a[0]);
}

/* Naive and stable softmax agree on ordinary scores; every row sums to 1. */
static void test_stable_matches_naive(void **state)
{
    Attn *a = *state;
    attn_run_to(a, STAGE_SOFTMAX);
    Mat naive = {0};
    assert_true(mat_copy(&naive, &a->m[M_A]));
    a->softmax = SOFTMAX_STABLE;
    attn_run_to(a, STAGE_SOFTMAX);
    assert_true(mat_max_diff(&naive, &a->m[M_A]) < 1e-15);
    for (int i = 0; i < 3; i++)
        assert_near(row_sum(&a->m[M_A], i), 1.0, 1e-15);
    mat_free(&naive);
}

/* Q[1] = K[1]*10000 overflows naive exp: row 1 of A is honestly NaN; stable gives [1, 0, 0]. */
static void test_naive_overflow(void **state)
{
    Attn *a = *state;
    attn_run_to(a, STAGE_QKV);
    set_q0_to_k0_times(a, 10000.0);
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(isinf(exp(MAT_AT(&a->m[M_S], 0, 0))));
    assert_true(isnan(MAT_AT(&a->m[M_A], 0, 0)));
    assert_false(isfinite(MAT_AT(&a->m[M_O], 0, 0)));
    assert_true(isfinite(MAT_AT(&a->m[M_A], 1, 0)));
    a->softmax = SOFTMAX_STABLE;
    attn_run_to(a, STAGE_OUTPUT);
    for (int j = 0; j < 3; j++)
        assert_true(isfinite(MAT_AT(&a->m[M_A], 0, j)));
    assert_near(row_sum(&a->m[M_A], 0), 1.0, 1e-15);
    assert_near(MAT_AT(&a->m[M_A], 0, 0), 1.0, 1e-15);
    assert_near(MAT_AT(&a->m[M_O], 0, 2), MAT_AT(&a->m[M_V], 0, 2), 1e-15);
}

/* attn_row_trouble names the cause: overflow (naive), underflow to 0/0
 * (naive), fine rows, and the stable softmax that has neither. */
static void test_row_trouble(void **state)
{
    Attn *a = *state;
    attn_run_to(a, STAGE_SOFTMAX);
    assert_int_equal(attn_row_trouble(a, 0), ATTN_FINE);
    set_q0_to_k0_times(a, 10000.0);
    attn_run_to(a, STAGE_SOFTMAX);
    assert_int_equal(attn_row_trouble(a, 0), ATTN_EXP_OVERFLOW);
    assert_int_equal(attn_row_trouble(a, 1), ATTN_FINE);
    set_q0_to_k0_times(a, -100000.0); /* every score of row 1 below -745: exp gives 0, 0/0 */
    attn_run_to(a, STAGE_SOFTMAX);
    assert_true(isnan(MAT_AT(&a->m[M_A], 0, 0)));
    assert_int_equal(attn_row_trouble(a, 0), ATTN_EXP_UNDERFLOW);
    a->softmax = SOFTMAX_STABLE;
    attn_run_to(a, STAGE_SOFTMAX);
    assert_int_equal(attn_row_trouble(a, 0), ATTN_FINE);
    attn_run_to(a, STAGE_SCORES);
    assert_int_equal(attn_row_trouble(a, 0), ATTN_FINE); /* A not reached: nothing to say */
}

/* The matrix each stage computes and explains. */
static void test_stage_mat(void **state)
{
    assert_int_equal(attn_stage_mat(STAGE_INPUT), M_X);
    assert_int_equal(attn_stage_mat(STAGE_QKV), M_Q);
    assert_int_equal(attn_stage_mat(STAGE_SCORES), M_S);
    assert_int_equal(attn_stage_mat(STAGE_SOFTMAX), M_A);
    assert_int_equal(attn_stage_mat(STAGE_OUTPUT), M_O);
}

/* Multiplying by 1000 instead stays finite here (max score ~602 < 709), even naively. */
static void test_naive_large_but_finite(void **state)
{
    Attn *a = *state;
    attn_run_to(a, STAGE_QKV);
    set_q0_to_k0_times(a, 1000.0);
    attn_run_to(a, STAGE_SOFTMAX);
    assert_near(MAT_AT(&a->m[M_S], 0, 0), 602.0, 1.0);
    for (int j = 0; j < 3; j++)
        assert_true(isfinite(MAT_AT(&a->m[M_A], 0, j)));
}

/* Tutorial B: stable softmax of scores [1.2, 0.1, -0.4] is [0.6516, 0.2169, 0.1315], all positive. */
static void test_tutorial_b_softmax(void **state)
{
    static const double w[] = {0.65156444460846974, 0.2168869627759587, 0.13154859261557156};
    static const double s[] = {1.2, 0.1, -0.4, -3.0, -2.0, -1.0, 0.0, 0.0, 0.0};
    Attn a;
    assert_true(attn_init(&a, 3, 4, 2, 2));
    for (int k = 0; k < 9; k++)
        a.m[M_S].v[k] = s[k];
    a.softmax = SOFTMAX_STABLE;
    a.reached = STAGE_SCORES;
    attn_run_stage(&a, STAGE_SOFTMAX);
    assert_int_equal(a.reached, STAGE_SOFTMAX);
    assert_near(MAT_AT(&a.m[M_A], 0, 0), 0.6516, 5e-5);
    assert_near(MAT_AT(&a.m[M_A], 0, 1), 0.2169, 5e-5);
    assert_near(MAT_AT(&a.m[M_A], 0, 2), 0.1315, 5e-5);
    for (int j = 0; j < 3; j++) {
        assert_near(MAT_AT(&a.m[M_A], 0, j), w[j], 1e-15);
        assert_true(MAT_AT(&a.m[M_A], 1, j) > 0.0);
        assert_near(MAT_AT(&a.m[M_A], 2, j), 1.0 / 3.0, 1e-15);
    }
    attn_free(&a);
}

/* REFERENCE shape check: X 4x6, head size 3 gives scores 4x4 and output 4x3 (numpy values). */
static void test_shape_4x6(void **state)
{
    Attn a;
    assert_true(attn_init(&a, 4, 6, 3, 3));
    fill_random(&a, 7, 1.0, 0.5);
    a.scale = SCALE_SQRT_DK;
    a.softmax = SOFTMAX_STABLE;
    attn_run_to(&a, STAGE_OUTPUT);
    assert_int_equal(a.m[M_QKT].rows, 4);
    assert_int_equal(a.m[M_QKT].cols, 4);
    assert_int_equal(a.m[M_O].rows, 4);
    assert_int_equal(a.m[M_O].cols, 3);
    assert_mat_near(&a.m[M_S], 4, 4, shape_s, 1e-12);
    assert_mat_near(&a.m[M_A], 4, 4, shape_a, 1e-12);
    assert_mat_near(&a.m[M_O], 4, 3, shape_o, 1e-12);
    attn_free(&a);
}

/* d_v may differ from d_k: d_k = 2, d_v = 5 gives V and O 3x5 (numpy values). */
static void test_dv_differs(void **state)
{
    Attn a;
    assert_true(attn_init(&a, 3, 4, 2, 5));
    fill_random(&a, 11, 1.0, 1.0);
    a.scale = SCALE_SQRT_DK;
    a.softmax = SOFTMAX_STABLE;
    attn_run_to(&a, STAGE_OUTPUT);
    assert_int_equal(a.m[M_O].cols, 5);
    assert_mat_near(&a.m[M_V], 3, 5, dv_v, 1e-12);
    assert_mat_near(&a.m[M_S], 3, 3, dv_s, 1e-12);
    assert_mat_near(&a.m[M_A], 3, 3, dv_a, 1e-12);
    assert_mat_near(&a.m[M_O], 3, 5, dv_o, 1e-12);
    attn_free(&a);
}

/* attn_copy is deep: same numbers, options and overrides, separate storage. */
static void test_copy(void **state)
{
    Attn *a = *state;
    set_q0_to_k0_times(a, 5.0);
    attn_run_to(a, STAGE_OUTPUT);
    Attn b = {0};
    assert_true(attn_copy(&b, a));
    for (int id = 0; id < M_COUNT; id++) {
        if (id >= M_WO) { /* no W_O, Y or head matrices with one head */
            assert_null(a->m[id].v);
            assert_null(b.m[id].v);
            continue;
        }
        assert_ptr_not_equal(b.m[id].v, a->m[id].v);
        assert_true(mat_max_diff(&b.m[id], &a->m[id]) == 0.0);
    }
    assert_true(b.override[0][0]);
    assert_int_equal(b.reached, STAGE_OUTPUT);
    assert_int_equal(b.scale, SCALE_NONE);
    assert_int_equal(b.softmax, SOFTMAX_NAIVE);
    MAT_AT(&b.m[M_X], 0, 0) = 42.0;
    assert_true(MAT_AT(&a->m[M_X], 0, 0) == 1.0);
    Attn small;
    assert_true(attn_init(&small, 1, 1, 1, 1));
    assert_true(attn_copy(&small, a)); /* reshapes a previous Attn */
    assert_int_equal(attn_tokens(&small), 3);
    assert_mat_near(&small.m[M_O], 3, 3, a->m[M_O].v, 0.0);
    attn_free(&small);
    attn_free(&b);
}

/* Names, lookup, stages and parameter marks agree with the design's tables. */
static void test_names(void **state)
{
    static const char *const names[M_HEAD0] = {"X", "Wq", "Wk", "Wv", "Q", "K", "V", "QKt", "S", "A", "O",
                                               "P", "H", "Wo", "Y"};
    static const int stages[M_HEAD0] = {1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 1, 1, 1, 6};
    for (int id = 0; id < M_HEAD0; id++) {
        assert_string_equal(attn_mat_name(id), names[id]);
        assert_int_equal(attn_mat_lookup(names[id], (int)strlen(names[id])), id);
        assert_int_equal(attn_mat_stage(id), stages[id]);
        assert_int_equal(attn_mat_is_param(id), (id >= M_WQ && id <= M_WV) || id == M_WO);
        assert_int_equal(attn_mat_head(id), 0);
        assert_int_equal(attn_mat_base(id), id);
    }
    /* Head k's matrices: "Q2" ... "O2", at the stages of Q ... O. */
    static const char *const hn[ATTN_HM_N] = {"Q", "K", "V", "QKt", "S", "A", "O"};
    for (int h = 1; h <= ATTN_HEADS_MAX; h++)
        for (int k = 0; k < ATTN_HM_N; k++) {
            char name[16];
            snprintf(name, sizeof name, "%s%d", hn[k], h);
            MatId id = attn_head_id((MatId)(M_Q + k), h);
            assert_string_equal(attn_mat_name(id), name);
            assert_int_equal(attn_mat_lookup(name, -1), id);
            assert_int_equal(attn_mat_head(id), h);
            assert_int_equal(attn_mat_base(id), M_Q + k);
            assert_int_equal(attn_mat_stage(id), attn_mat_stage((MatId)(M_Q + k)));
            assert_false(attn_mat_is_param(id));
        }
    assert_int_equal(attn_mat_lookup("S17", -1), -1);
    assert_int_equal(attn_mat_lookup("S0", -1), -1);
    assert_int_equal(attn_mat_lookup("QKt[1]", 3), M_QKT);
    assert_int_equal(attn_mat_lookup("Q[1]", 1), M_Q);
    assert_int_equal(attn_mat_lookup("q", 1), -1);
    assert_int_equal(attn_mat_lookup("WQ", 2), -1);
    assert_int_equal(attn_mat_lookup("Qk", 2), -1);
    assert_int_equal(attn_mat_lookup("", 0), -1);
}

/* Stage keys are the lesson words input, qkv, scores, softmax, output. */
static void test_stage_keys(void **state)
{
    assert_string_equal(attn_stage_key(STAGE_INPUT), "input");
    assert_string_equal(attn_stage_key(STAGE_QKV), "qkv");
    assert_string_equal(attn_stage_key(STAGE_SCORES), "scores");
    assert_string_equal(attn_stage_key(STAGE_SOFTMAX), "softmax");
    assert_string_equal(attn_stage_key(STAGE_OUTPUT), "output");
}

#define TA(t) cmocka_unit_test_setup_teardown(t, setup_tutorial_a, teardown)

/* numpy 1.24 (REFERENCE.md "Figures for the next lessons"), lesson 1's set-up, unscaled, naive. */
static const double causal_a[] = {1, 0, 0, 0.54294059048363674, 0.4570594095163632, 0, 0.38673103719174196, 0.32603183979233863, 0.28723712301591947};
static const double causal_o[] = {-0.16331481735755479, 0.033276776912959827, -0.34529807322669082, -0.03715534904437591, -0.064290956577576636, -0.22747275168260023, -0.096490627379070049, 0.1279098043818242, -0.18427128523049952};
static const double pos_p[] = {0, 1, 0, 1, 0.8414709848078965, 0.54030230586813965, 0.0099998333341666645, 0.99995000041666537, 0.9092974268256816, -0.41614683654714241, 0.01999866669333308, 0.99980000666657798};
static const double pos_o[] = {-0.46819752268663933, 0.35146514074419105, -0.77120618573410571, -0.46681039845006556, 0.34809835613177459, -0.77156107554800113, -0.46952226423108334, 0.35397107770456737, -0.77105682153617894};
static const double swap_pos_o[] = {-0.53495598840171144, 0.33140070543579492, -0.86369340783478032, -0.51090667314933569, 0.33388396529113862, -0.83380347539060873, -0.46463056435716887, 0.36453893849172642, -0.75869253271564485};
static const double p_3x5[] = {0, 1, 0, 1, 0, 0.8414709848078965, 0.54030230586813965, 0.025116222909773774, 0.99968453791520995, 0.00063095730261541994, 0.9092974268256816, -0.41614683654714241, 0.050216599387465206, 0.99873835069349315, 0.0012619143540422218};
/* scaled, stable, causal, T = 0.5, positions */
static const double all_a[] = {1, 0, 0, 0.52743852003987568, 0.47256147996012432, 0, 0.35251300382495782, 0.31962172221006152, 0.32786527396498061};
static const double all_o[] = {-0.36791869054062332, 0.099848643568275025, -0.79905929315598057, -0.32775187932586225, 0.053968182740671396, -0.79554497472992591, -0.46937995119511577, 0.3534889756960099, -0.77112975460250122};

/* The causal mask: S is -inf above the diagonal, A exactly 0 there, QKt raw; 我 sees only itself. */
static void test_causal(void **state)
{
    Attn *a = *state;
    a->mask = MASK_CAUSAL;
    attn_run_to(a, STAGE_OUTPUT);
    assert_mat_near(&a->m[M_A], 3, 3, causal_a, 1e-15);
    assert_mat_near(&a->m[M_O], 3, 3, causal_o, 1e-15);
    assert_mat_near(&a->m[M_QKT], 3, 3, qkt_a, 1e-15);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            assert_int_equal(attn_masked(a, i, j), j > i);
            if (j > i) {
                assert_true(isinf(MAT_AT(&a->m[M_S], i, j)) && MAT_AT(&a->m[M_S], i, j) < 0);
                assert_true(MAT_AT(&a->m[M_A], i, j) == 0.0);
            }
        }
    assert_true(MAT_AT(&a->m[M_A], 0, 0) == 1.0);
    for (int j = 0; j < 3; j++) /* O's row 1 is exactly V's row 1 */
        assert_true(MAT_AT(&a->m[M_O], 0, j) == MAT_AT(&a->m[M_V], 0, j));
    for (int i = 0; i < 3; i++)
        assert_int_equal(attn_row_trouble(a, i), ATTN_FINE);
    a->softmax = SOFTMAX_STABLE; /* the same with the stable softmax */
    attn_run_to(a, STAGE_OUTPUT);
    assert_mat_near(&a->m[M_A], 3, 3, causal_a, 1e-15);
}

/* Temperature on row 1: REFERENCE.md's T = 0.1, 0.5, 2, 10, and both ends of the range. */
static void test_temperature(void **state)
{
    static const struct { double t, a[3]; } cases[] = {
        {0.1, {0.16559155945332402, 0.3392067422545561, 0.49520169829211991}},
        {0.5, {0.29419100699350914, 0.3395585331256139, 0.36625045988087696}},
        {2, {0.32333112918582574, 0.33513426458261986, 0.34153460623155446}},
        {10, {0.3313220697379069, 0.33370647117091445, 0.33497145909117865}},
        {ATTN_TEMP_MIN, {0.070725057546550424, 0.29677401289208677, 0.63250092956136283}},
        {ATTN_TEMP_MAX, {0.33232703658854984, 0.33352070973582576, 0.33415225367562434}},
    };
    Attn *a = *state;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        a->temp = cases[k].t;
        attn_run_to(a, STAGE_SOFTMAX);
        for (int j = 0; j < 3; j++)
            assert_near(MAT_AT(&a->m[M_A], 0, j), cases[k].a[j], 1e-15);
    }
    Attn plain = {0}; /* T = 1 is bit for bit the plain softmax */
    a->temp = 1.0;
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(attn_copy(&plain, a));
    a->temp = 0.5;
    attn_run_to(a, STAGE_OUTPUT);
    a->temp = 1.0;
    attn_run_to(a, STAGE_OUTPUT);
    assert_mat_near(&a->m[M_A], 3, 3, a_a, 1e-15);
    assert_attn_same(a, &plain);
    attn_free(&plain);
}

/* Sinusoidal positions: P as REFERENCE.md prints it, H = X + P, and Q = H Wq. */
static void test_positions(void **state)
{
    Attn *a = *state, plain = {0};
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(attn_copy(&plain, a));
    a->positions = POS_SINUSOIDAL;
    attn_run_to(a, STAGE_OUTPUT);
    assert_mat_near(&a->m[M_P], 3, 4, pos_p, 1e-15);
    for (int k = 0; k < 12; k++)
        assert_true(a->m[M_H].v[k] == a->m[M_X].v[k] + a->m[M_P].v[k]);
    assert_mat_near(&a->m[M_O], 3, 3, pos_o, 1e-15);
    a->positions = POS_NONE; /* off: P = 0, H = X, the old numbers exactly */
    attn_run_to(a, STAGE_OUTPUT);
    for (int k = 0; k < 12; k++) {
        assert_true(a->m[M_P].v[k] == 0.0);
        assert_true(a->m[M_H].v[k] == a->m[M_X].v[k]);
    }
    assert_attn_same(a, &plain);
    attn_free(&plain);
}

/* An odd d_model: the last column of P is a sine (m = 2, 4/5). */
static void test_positions_odd(void **state)
{
    Attn a;
    assert_true(attn_init(&a, 3, 5, 2, 2));
    a.positions = POS_SINUSOIDAL;
    attn_run_to(&a, STAGE_OUTPUT);
    assert_mat_near(&a.m[M_P], 3, 5, p_3x5, 1e-15);
    assert_true(MAT_AT(&a.m[M_P], 2, 4) == sin(2.0 / pow(10000.0, 4.0 / 5.0)));
    attn_free(&a);
}

/* swap 1 3 without positions: O's rows swap exactly; with positions they do not. */
static void test_swap(void **state)
{
    Attn *a = *state, b = {0};
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(attn_copy(&b, a));
    attn_swap_tokens(&b, 0, 2);
    assert_int_equal(b.reached, STAGE_NONE);
    assert_int_equal(b.tok[0], 2);
    assert_int_equal(b.tok[1], 1);
    assert_int_equal(b.tok[2], 0);
    attn_run_to(&b, STAGE_OUTPUT);
    for (int j = 0; j < 3; j++) {
        assert_true(MAT_AT(&b.m[M_O], 0, j) == MAT_AT(&a->m[M_O], 2, j));
        assert_true(MAT_AT(&b.m[M_O], 1, j) == MAT_AT(&a->m[M_O], 1, j));
        assert_true(MAT_AT(&b.m[M_O], 2, j) == MAT_AT(&a->m[M_O], 0, j));
    }
    a->positions = b.positions = POS_SINUSOIDAL;
    attn_run_to(a, STAGE_OUTPUT);
    attn_run_to(&b, STAGE_OUTPUT);
    assert_mat_near(&a->m[M_O], 3, 3, pos_o, 1e-15);
    assert_mat_near(&b.m[M_O], 3, 3, swap_pos_o, 1e-15);
    assert_true(mat_max_diff(&b.m[M_P], &a->m[M_P]) == 0.0); /* P stays with the positions */
    attn_free(&b);
}

/* A swap carries an overridden row (value and mark) with its token; swapping a token with itself changes nothing. */
static void test_swap_override(void **state)
{
    Attn *a = *state, b = {0};
    set_q0_to_k0_times(a, 5);
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(attn_copy(&b, a));
    attn_swap_tokens(&b, 0, 1);
    attn_run_to(&b, STAGE_OUTPUT);
    assert_false(b.override[0][0]);
    assert_true(b.override[0][1]);
    for (int j = 0; j < 3; j++)
        assert_true(MAT_AT(&b.m[M_Q], 1, j) == MAT_AT(&a->m[M_Q], 0, j));
    attn_copy(&b, a);
    attn_swap_tokens(&b, 1, 1);
    attn_run_to(&b, STAGE_OUTPUT);
    assert_attn_same(&b, a);
    attn_free(&b);
}

/* Mask, temperature and positions together, scaled and stable (numpy, 1e-15). */
static void test_all_options(void **state)
{
    Attn *a = *state;
    a->scale = SCALE_SQRT_DK;
    a->softmax = SOFTMAX_STABLE;
    a->mask = MASK_CAUSAL;
    a->temp = 0.5;
    a->positions = POS_SINUSOIDAL;
    attn_run_to(a, STAGE_OUTPUT);
    assert_mat_near(&a->m[M_A], 3, 3, all_a, 1e-15);
    assert_mat_near(&a->m[M_O], 3, 3, all_o, 1e-15);
    Attn b = {0};
    assert_true(attn_copy(&b, a));
    assert_true(attn_same_options(&a[0], &b));
    b.temp = 2;
    assert_false(attn_same_options(a, &b));
    attn_free(&b);
}

/* One token under the causal mask: A = [1], O = V. */
static void test_one_token_causal(void **state)
{
    Attn a;
    assert_true(attn_init(&a, 1, 3, 2, 2));
    fill_random(&a, 7, 1.0, 0.5);
    a.mask = MASK_CAUSAL;
    a.positions = POS_SINUSOIDAL;
    a.temp = ATTN_TEMP_MIN;
    attn_run_to(&a, STAGE_OUTPUT);
    assert_true(MAT_AT(&a.m[M_A], 0, 0) == 1.0);
    for (int j = 0; j < 2; j++)
        assert_true(MAT_AT(&a.m[M_O], 0, j) == MAT_AT(&a.m[M_V], 0, j));
    attn_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_shapes),
        cmocka_unit_test(test_init_bad_sizes),
        TA(test_tutorial_a_exact),
        TA(test_tutorial_a_printed),
        TA(test_stage_by_stage),
        TA(test_run_to_sets_reached),
        TA(test_scaled),
        TA(test_experiment_unscaled),
        TA(test_experiment_scaled),
        TA(test_override_survives),
        TA(test_override_per_matrix),
        TA(test_stable_matches_naive),
        TA(test_naive_overflow),
        TA(test_naive_large_but_finite),
        TA(test_row_trouble),
        cmocka_unit_test(test_stage_mat),
        cmocka_unit_test(test_tutorial_b_softmax),
        cmocka_unit_test(test_shape_4x6),
        cmocka_unit_test(test_dv_differs),
        TA(test_copy),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_stage_keys),
        TA(test_causal),
        TA(test_temperature),
        TA(test_positions),
        cmocka_unit_test(test_positions_odd),
        TA(test_swap),
        TA(test_swap_override),
        TA(test_all_options),
        cmocka_unit_test(test_one_token_causal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
