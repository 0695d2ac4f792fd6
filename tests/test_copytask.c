/* test_copytask.c - numpy's legacy randint (core/rng.h) and the copy
 * task's sequences (core/copytask.h) against numpy 1.24 (Debian's
 * python3-numpy): RandomState(seed).randint and the draw order copytask.h
 * writes, run in numpy. */
#include "testutil.h"
#include "core/copytask.h"
#include "core/rng.h"

static void randint_is_numpys(void **state)
{
    (void)state;
    Rng r;
    /* list(np.random.RandomState(7).randint(0, 1000, 6)) */
    static const long want7[] = {175, 196, 537, 502, 579, 211};
    rng_seed(&r, 7);
    for (int k = 0; k < 6; k++)
        assert_int_equal(rng_randint(&r, 0, 1000), want7[k]);
    /* list(np.random.RandomState(5).randint(0, 2**31, 3)) */
    static const long want5[] = {953453411, 236996814, 1592283119};
    rng_seed(&r, 5);
    for (int k = 0; k < 3; k++)
        assert_int_equal(rng_randint(&r, 0, 2147483648L), want5[k]);
    /* RandomState(1): randint(0, 26, 5) then randint(3, 7) */
    static const long want1[] = {5, 11, 12, 8, 9};
    rng_seed(&r, 1);
    for (int k = 0; k < 5; k++)
        assert_int_equal(rng_randint(&r, 0, 26), want1[k]);
    assert_int_equal(rng_randint(&r, 3, 7), 6);
    assert_int_equal(rng_randint(&r, 4, 5), 4); /* one value: nothing drawn */
}

/* Three sequences of RandomState(1), n 14, vocab 27, lengths 3..6. */
static void copy_task_is_numpys(void **state)
{
    (void)state;
    static const int want[3][14] = {
        {0, 12, 13, 9, 10, 12, 6, 16, 1, 12, 6, 16, 1, 14},
        {0, 19, 21, 6, 19, 21, 21, 6, 19, 21, 5, 24, 24, 10},
        {0, 14, 10, 10, 8, 23, 26, 2, 1, 8, 23, 26, 2, 1},
    };
    static const CopySpan spans[3] = {{4, 8, 4}, {1, 5, 4}, {3, 8, 5}};
    Rng r;
    rng_seed(&r, 1);
    for (int s = 0; s < 3; s++) {
        int tok[14];
        CopySpan sp;
        assert_true(copy_task_draw(&r, 14, 27, 3, 6, tok, &sp));
        for (int i = 0; i < 14; i++)
            assert_int_equal(tok[i], want[s][i]);
        assert_int_equal(sp.a, spans[s].a);
        assert_int_equal(sp.b, spans[s].b);
        assert_int_equal(sp.len, spans[s].len);
    }
}

/* Every copy lands after its segment, inside the body, at many offsets. */
static void copies_land_everywhere(void **state)
{
    (void)state;
    Rng r;
    rng_seed(&r, 3);
    int seen[14] = {0};
    for (int s = 0; s < 2000; s++) {
        int tok[14];
        CopySpan sp;
        assert_true(copy_task_draw(&r, 14, 27, 3, 6, tok, &sp));
        assert_true(sp.len >= 3 && sp.len <= 6 && sp.a >= 0 && sp.b >= sp.a + sp.len && sp.b + sp.len <= 13);
        for (int k = 0; k < sp.len; k++)
            assert_int_equal(tok[1 + sp.b + k], tok[1 + sp.a + k]);
        assert_int_equal(tok[0], 0);
        seen[sp.b]++;
    }
    for (int b = 3; b <= 10; b++)
        assert_true(seen[b] > 0);
    int tok[4];
    CopySpan sp;
    assert_false(copy_task_draw(&r, 4, 27, 2, 3, tok, &sp)); /* a body of 3 holds no two segments of 2 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(randint_is_numpys),
        cmocka_unit_test(copy_task_is_numpys),
        cmocka_unit_test(copies_land_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
