/* test_mat.c - small dense matrices: allocation, copy, products, differences. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    Mat a, b, c;
} Fixture;

/* a = [[1,2,3],[4,5,6]] (2x3), b = [[7,8],[9,10],[11,12]] (3x2), c empty. */
static int setup(void **state)
{
    static const double av[] = {1, 2, 3, 4, 5, 6}, bv[] = {7, 8, 9, 10, 11, 12};
    Fixture *f = calloc(1, sizeof *f);
    *state = f;
    if (!f || !mat_new(&f->a, 2, 3) || !mat_new(&f->b, 3, 2))
        return -1;
    memcpy(f->a.v, av, sizeof av);
    memcpy(f->b.v, bv, sizeof bv);
    return 0;
}

static int teardown(void **state)
{
    Fixture *f = *state;
    mat_free(&f->a);
    mat_free(&f->b);
    mat_free(&f->c);
    free(f);
    return 0;
}

/* mat_new gives the asked shape, all zeros, and MAT_AT addresses row-major. */
static void test_new_zeros(void **state)
{
    Mat m;
    assert_true(mat_new(&m, 3, 5));
    assert_int_equal(m.rows, 3);
    assert_int_equal(m.cols, 5);
    for (int k = 0; k < 15; k++)
        assert_true(m.v[k] == 0.0);
    MAT_AT(&m, 2, 1) = 7.0;
    assert_true(m.v[2 * 5 + 1] == 7.0);
    mat_free(&m);
}

/* Sizes outside 1..MAT_ALLOC_MAX fail and leave an empty matrix; MAT_MAX
 * and MAT_ALLOC_MAX (a model's d_ff) themselves work. */
static void test_new_bad_sizes(void **state)
{
    Mat m;
    assert_false(mat_new(&m, 0, 3));
    assert_null(m.v);
    assert_int_equal(m.rows, 0);
    assert_false(mat_new(&m, 3, MAT_ALLOC_MAX + 1));
    assert_false(mat_new(&m, MAT_ALLOC_MAX + 1, 3));
    assert_null(m.v);
    assert_false(mat_new(&m, -1, 2));
    assert_true(mat_new(&m, MAT_MAX, MAT_MAX));
    assert_true(MAT_AT(&m, MAT_MAX - 1, MAT_MAX - 1) == 0.0);
    mat_free(&m);
    assert_true(mat_new(&m, MAT_MAX, MAT_ALLOC_MAX));
    assert_true(MAT_AT(&m, MAT_MAX - 1, MAT_ALLOC_MAX - 1) == 0.0);
    mat_free(&m);
}

/* mat_free leaves 0x0/NULL and may be called twice. */
static void test_free_twice(void **state)
{
    Mat m;
    assert_true(mat_new(&m, 2, 2));
    mat_free(&m);
    assert_null(m.v);
    assert_int_equal(m.rows, 0);
    assert_int_equal(m.cols, 0);
    mat_free(&m);
}

/* mat_copy into an empty matrix makes an exact, independent copy. */
static void test_copy_into_empty(void **state)
{
    Fixture *f = *state;
    assert_true(mat_copy(&f->c, &f->a));
    assert_true(mat_same_shape(&f->c, &f->a));
    assert_ptr_not_equal(f->c.v, f->a.v);
    assert_mat_near(&f->c, 2, 3, f->a.v, 0.0);
    MAT_AT(&f->c, 0, 0) = 99;
    assert_true(MAT_AT(&f->a, 0, 0) == 1.0);
}

/* mat_copy reshapes a destination of another shape. */
static void test_copy_reshapes(void **state)
{
    Fixture *f = *state;
    assert_true(mat_new(&f->c, 5, 5));
    assert_true(mat_copy(&f->c, &f->b));
    assert_int_equal(f->c.rows, 3);
    assert_int_equal(f->c.cols, 2);
    assert_mat_near(&f->c, 3, 2, f->b.v, 0.0);
}

/* a*b = [[58,64],[139,154]]: shape a.rows x b.cols, the textbook product. */
static void test_mul(void **state)
{
    static const double want[] = {58, 64, 139, 154};
    Fixture *f = *state;
    assert_true(mat_mul(&f->c, &f->a, &f->b));
    assert_int_equal(f->c.rows, 2);
    assert_int_equal(f->c.cols, 2);
    assert_mat_near(&f->c, 2, 2, want, 0.0);
}

/* b*a is 3x3 and reuses nothing of a wrongly shaped destination. */
static void test_mul_other_order(void **state)
{
    static const double want[] = {39, 54, 69, 49, 68, 87, 59, 82, 105};
    Fixture *f = *state;
    assert_true(mat_new(&f->c, 2, 2));
    assert_true(mat_mul(&f->c, &f->b, &f->a));
    assert_int_equal(f->c.rows, 3);
    assert_int_equal(f->c.cols, 3);
    assert_mat_near(&f->c, 3, 3, want, 0.0);
}

/* a*a^T = [[14,32],[32,77]]: mat_mul_bt dots rows with rows. */
static void test_mul_bt(void **state)
{
    static const double want[] = {14, 32, 32, 77};
    Fixture *f = *state;
    assert_true(mat_mul_bt(&f->c, &f->a, &f->a));
    assert_int_equal(f->c.rows, 2);
    assert_int_equal(f->c.cols, 2);
    assert_mat_near(&f->c, 2, 2, want, 0.0);
}

/* Sums run k = 0..n-1 from 0: (1e16 + 1) - 1e16 gives 0, not 1, as in that order. */
static void test_mul_sum_order(void **state)
{
    Mat x, y, z = {0};
    assert_true(mat_new(&x, 1, 3));
    assert_true(mat_new(&y, 3, 1));
    x.v[0] = 1e16; x.v[1] = 1; x.v[2] = -1e16;
    y.v[0] = y.v[1] = y.v[2] = 1;
    assert_true(mat_mul(&z, &x, &y));
    assert_true(z.v[0] == 0.0);
    mat_free(&x);
    mat_free(&y);
    mat_free(&z);
}

/* mat_same_shape compares rows and columns, not just the cell count. */
static void test_same_shape(void **state)
{
    Fixture *f = *state;
    assert_false(mat_same_shape(&f->a, &f->b));
    assert_true(mat_same_shape(&f->a, &f->a));
}

/* mat_max_diff is the largest |a-b|; equal infinities differ by 0, a NaN gives NaN. */
static void test_max_diff(void **state)
{
    Fixture *f = *state;
    assert_true(mat_copy(&f->c, &f->a));
    assert_true(mat_max_diff(&f->a, &f->c) == 0.0);
    MAT_AT(&f->c, 1, 2) = 6.25;
    MAT_AT(&f->c, 0, 0) = 0.5;
    assert_true(mat_max_diff(&f->a, &f->c) == 0.5);
    MAT_AT(&f->a, 0, 1) = MAT_AT(&f->c, 0, 1) = INFINITY;
    assert_true(mat_max_diff(&f->a, &f->c) == 0.5);
    MAT_AT(&f->c, 1, 0) = NAN;
    assert_true(isnan(mat_max_diff(&f->a, &f->c)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_zeros),
        cmocka_unit_test(test_new_bad_sizes),
        cmocka_unit_test(test_free_twice),
        cmocka_unit_test_setup_teardown(test_copy_into_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_reshapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mul, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mul_other_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mul_bt, setup, teardown),
        cmocka_unit_test(test_mul_sum_order),
        cmocka_unit_test_setup_teardown(test_same_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_max_diff, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
