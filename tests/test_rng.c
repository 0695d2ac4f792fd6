/* test_rng.c - numpy's legacy RandomState, reproduced bit for bit.
 * Expected values come from Debian's python3-numpy 1.24, printed with %.17g,
 * and from REFERENCE.md. */
#include "testutil.h"
#include "core/rng.h"

#include <stdlib.h>

/* np.random.seed(s); repr(np.random.randn(7)) with %.17g */
static const double n_42[] = {0.49671415301123267, -0.13826430117118466, 0.64768853810069249, 1.5230298564080254, -0.23415337472333597, -0.23413695694918055, 1.5792128155073915};
static const double n_7[] = {1.690525703800356, -0.46593737054083278, 0.032820163678584403, 0.40751628299650783, -0.7889230286257386, 0.0020655729059481302, -0.00089038585793136283};
static const double n_0[] = {1.764052345967664, 0.40015720836722329, 0.9787379841057392, 2.2408931992014578, 1.8675579901499675, -0.97727787987641102, 0.95008841752558937};
static const double n_2026[] = {-0.43171852031170316, -1.3928739678290634, 0.31157066750628271, -0.013234879914713156, 1.4497077275318808, 0.29815273850249568, -0.82989603340697604};
static const double n_4294967295[] = {0.64840867423065274, 0.66932353063381611, -1.0805437227474493, 0.28450104479863092, 0.11388773652167104, 0.86762189379293819, -0.044026015448043285};
static const double n_123[] = {-1.0856306033005612, 0.99734544658358582, 0.28297849805199204, -1.506294713918092, -0.57860025196853637, 1.6514365370971511, -2.4266792433930742};

/* np.random.seed(42); randn(4,3)*0.3 three times: Wq, Wk, Wv */
static const double wq[] = {0.14901424590336979, -0.041479290351355398, 0.19430656143020775, 0.45690895692240757, -0.070246012417000792, -0.070241087084754156, 0.47376384465221744, 0.23023041874587263, -0.14084231578048562, 0.16276801307578939, -0.13902530784373868, -0.13971892607107705};
static const double wk[] = {0.072588681469810235, -0.57398407339733937, -0.51747534975390985, -0.16868625877229179, -0.30384933610032711, 0.09427419977858216, -0.27240722265636325, -0.42369111040058743, 0.43969463067646619, -0.067732890145960692, 0.020258461406377149, -0.42742445586403705};
static const double wv[] = {-0.16331481735755479, 0.033276776912959827, -0.34529807322669082, 0.11270940550370158, -0.18019160697564149, -0.087508124937983031, -0.18051198366881907, 0.55568345535268127, -0.0040491674213801758, -0.31731327868677012, 0.24676347363095669, -0.36625309499130665};

/* The same weights as REFERENCE.md prints them, to ten decimals. */
static const double wq10[] = {0.1490142459, -0.0414792904, 0.1943065614, 0.4569089569, -0.0702460124, -0.0702410871, 0.4737638447, 0.2302304187, -0.1408423158, 0.1627680131, -0.1390253078, -0.1397189261};
static const double wk10[] = {0.0725886815, -0.5739840734, -0.5174753498, -0.1686862588, -0.3038493361, 0.0942741998, -0.2724072227, -0.4236911104, 0.4396946307, -0.0677328901, 0.0202584614, -0.4274244559};
static const double wv10[] = {-0.1633148174, 0.0332767769, -0.3452980732, 0.1127094055, -0.180191607, -0.0875081249, -0.1805119837, 0.5556834554, -0.0040491674, -0.3173132787, 0.2467634736, -0.366253095};

static int setup(void **state)
{
    Rng *r = malloc(sizeof *r);
    if (!r)
        return -1;
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

/* Assert the first n normals after seeding are exactly want[] (bit for bit). */
static void assert_normals_exact(Rng *r, uint32_t seed, const double *want, int n)
{
    rng_seed(r, seed);
    for (int k = 0; k < n; k++) {
        double g = rng_gauss(r);
        if (g != want[k]) {
            print_error("seed %u normal %d = %.17g, want %.17g\n", (unsigned)seed, k, g, want[k]);
            fail();
        }
    }
}

/* Seeding is init_genrand: numpy's state words after seed(42). */
static void test_seed_state(void **state)
{
    Rng *r = *state;
    rng_seed(r, 42);
    assert_int_equal(r->mt[0], 42);
    assert_int_equal(r->mt[1], 3107752595u);
    assert_int_equal(r->mt[2], 1895908407u);
    assert_int_equal(r->has_gauss, 0);
}

/* The 32-bit outputs are standard MT19937 (the reference vector for seed 5489). */
static void test_u32_reference(void **state)
{
    Rng *r = *state;
    rng_seed(r, 5489);
    assert_int_equal(rng_u32(r), 3499211612u);
    assert_int_equal(rng_u32(r), 581869302u);
    assert_int_equal(rng_u32(r), 3890346734u);
}

/* The twist regenerates the state every 624 outputs: numpy's outputs 0, 623, 624, 1247, 1248, 1999 for seed 1. */
static void test_u32_across_twists(void **state)
{
    static const struct { int at; uint32_t want; } probe[] = {
        {0, 1791095845u}, {623, 2006116153u}, {624, 1104314680u},
        {1247, 1926754611u}, {1248, 3239719367u}, {1999, 138279050u},
    };
    Rng *r = *state;
    rng_seed(r, 1);
    int p = 0;
    for (int k = 0; k < 2000; k++) {
        uint32_t u = rng_u32(r);
        if (p < 6 && k == probe[p].at) {
            assert_int_equal(u, probe[p].want);
            p++;
        }
    }
    assert_int_equal(p, 6);
}

/* Doubles are numpy's 53-bit random_sample: seed(42) gives 0.3745..., 0.9507..., 0.7319... */
static void test_double_exact(void **state)
{
    Rng *r = *state;
    rng_seed(r, 42);
    assert_true(rng_double(r) == 0.37454011884736249);
    assert_true(rng_double(r) == 0.95071430640991617);
    assert_true(rng_double(r) == 0.73199394181140509);
}

/* Doubles stay in [0, 1) over many draws. */
static void test_double_range(void **state)
{
    Rng *r = *state;
    rng_seed(r, 2026);
    for (int k = 0; k < 100000; k++) {
        double u = rng_double(r);
        assert_true(u >= 0.0 && u < 1.0);
    }
}

/* The first six normals of seeds 42, 7 and 0 match REFERENCE.md's table. */
static void test_gauss_reference_table(void **state)
{
    static const double table[3][6] = {
        {0.49671415, -0.1382643, 0.64768854, 1.52302986, -0.23415337, -0.23413696},
        {1.6905257, -0.46593737, 0.03282016, 0.40751628, -0.78892303, 0.00206557},
        {1.76405235, 0.40015721, 0.97873798, 2.2408932, 1.86755799, -0.97727788},
    };
    static const uint32_t seeds[3] = {42, 7, 0};
    Rng *r = *state;
    for (int s = 0; s < 3; s++) {
        rng_seed(r, seeds[s]);
        for (int k = 0; k < 6; k++)
            assert_near(rng_gauss(r), table[s][k], 1e-8);
    }
}

/* Normals equal numpy's bit for bit for seeds 42, 7, 0, 2026, 2^32-1 and 123 (odd count). */
static void test_gauss_exact(void **state)
{
    Rng *r = *state;
    assert_normals_exact(r, 42, n_42, 7);
    assert_normals_exact(r, 7, n_7, 7);
    assert_normals_exact(r, 0, n_0, 7);
    assert_normals_exact(r, 2026, n_2026, 7);
    assert_normals_exact(r, 4294967295u, n_4294967295, 7);
    assert_normals_exact(r, 123, n_123, 7);
}

/* Re-seeding drops a kept normal: seed, draw one (keeps one), seed again, start over. */
static void test_seed_resets_kept_normal(void **state)
{
    Rng *r = *state;
    rng_seed(r, 42);
    (void)rng_gauss(r);
    assert_int_equal(r->has_gauss, 1);
    assert_normals_exact(r, 42, n_42, 7);
}

/* The kept normal carries across randn calls: randn(1,3); randn(1,3) == randn(6). */
static void test_randn_carries_over(void **state)
{
    Rng *r = *state;
    Mat a, b;
    assert_true(mat_new(&a, 1, 3));
    assert_true(mat_new(&b, 1, 3));
    rng_seed(r, 42);
    rng_randn(r, &a, 1.0);
    rng_randn(r, &b, 1.0);
    for (int k = 0; k < 3; k++) {
        assert_true(a.v[k] == n_42[k]);
        assert_true(b.v[k] == n_42[3 + k]);
    }
    mat_free(&a);
    mat_free(&b);
}

/* randn fills row by row and multiplies each normal by scale, like randn(2,3)*2.5. */
static void test_randn_row_major_scaled(void **state)
{
    Rng *r = *state;
    Mat m;
    assert_true(mat_new(&m, 3, 2));
    rng_seed(r, 7);
    rng_randn(r, &m, 2.5);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            assert_true(MAT_AT(&m, i, j) == n_7[i * 2 + j] * 2.5);
    mat_free(&m);
}

/* Tutorial A's weights: seed(42), randn(4,3)*0.3 for Wq, Wk, Wv in turn, exactly numpy's. */
static void test_tutorial_a_weights(void **state)
{
    Rng *r = *state;
    Mat w[3];
    const double *exact[3] = {wq, wk, wv}, *printed[3] = {wq10, wk10, wv10};
    rng_seed(r, 42);
    for (int p = 0; p < 3; p++) {
        assert_true(mat_new(&w[p], 4, 3));
        rng_randn(r, &w[p], 0.3);
    }
    for (int p = 0; p < 3; p++) {
        assert_mat_near(&w[p], 4, 3, printed[p], 5.1e-11);
        assert_mat_near(&w[p], 4, 3, exact[p], 0.0);
        mat_free(&w[p]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_seed_state, setup, teardown),
        cmocka_unit_test_setup_teardown(test_u32_reference, setup, teardown),
        cmocka_unit_test_setup_teardown(test_u32_across_twists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_double_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_double_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gauss_reference_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gauss_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_seed_resets_kept_normal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_randn_carries_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_randn_row_major_scaled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tutorial_a_weights, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
