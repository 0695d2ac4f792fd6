/* testutil.h - shared helpers for the cmocka tests.
 * cmocka 1.1 has no double assertion; these report the caller's line. */
#ifndef QKV_TESTUTIL_H
#define QKV_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <cmocka.h>
#include <string.h>
#include "core/attn.h"
#include "core/mat.h"


/* assert |got - want| <= tol, printing both values on failure. */
#define assert_near(got, want, tol) do { \
        double g_ = (got), w_ = (want), t_ = (tol); \
        if (!(fabs(g_ - w_) <= t_)) { \
            print_error("%s = %.12g, want %.12g (tol %g)\n", #got, g_, w_, t_); \
            _fail(__FILE__, __LINE__); } } while (0)

/* assert m is ROWS x COLS and every cell is within tol of the row-major
 * array want[]; a wrong shape (a 0x0 result included) fails at the caller's
 * line. When want is an array, its length must be ROWS * COLS too. */
#define assert_mat_near(m, rows, cols, want, tol) \
    assert_mat_near_at((m), (rows), (cols), (want), QKV_WANT_LEN(want), (tol), #m, __FILE__, __LINE__)
/* The number of doubles in want when it is an array, 0 when it is a pointer. */
#define QKV_WANT_LEN(want) \
    __builtin_choose_expr(__builtin_types_compatible_p(__typeof__(want), __typeof__(&(want)[0])), \
                          (size_t)0, sizeof(want) / sizeof(double[1]))

static inline void assert_mat_near_at(const Mat *m, int rows, int cols, const double *want, size_t want_len,
                                      double tol, const char *name, const char *file, int line)
{
    if (want_len != 0 && want_len != (size_t)rows * (size_t)cols) {
        print_error("the expected values of %s are %zu numbers, not %dx%d\n", name, want_len, rows, cols);
        _fail(file, line);
    }
    if (m->rows != rows || m->cols != cols) {
        print_error("%s is %dx%d, want %dx%d\n", name, m->rows, m->cols, rows, cols);
        _fail(file, line);
    }
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++) {
            double g = MAT_AT(m, i, j), w = want[i * m->cols + j];
            if (!(fabs(g - w) <= tol)) {
                print_error("%s[%d][%d] = %.12g, want %.12g (tol %g)\n", name, i + 1, j + 1, g, w, tol);
                _fail(file, line);
            }
        }
}

/* Every matrix, override flag, option and the reached stage are identical. */
#define assert_attn_same(x, y) assert_attn_same_at((x), (y), __FILE__, __LINE__)
static inline void assert_attn_same_at(const Attn *x, const Attn *y, const char *file, int line)
{
    for (int m = 0; m < M_COUNT; m++)
        if (!mat_same_shape(&x->m[m], &y->m[m]) || mat_max_diff(&x->m[m], &y->m[m]) != 0) {
            print_error("%s differs\n", attn_mat_name((MatId)m));
            _fail(file, line);
        }
    if (memcmp(x->override, y->override, sizeof x->override) != 0 || x->scale != y->scale ||
        x->softmax != y->softmax || x->reached != y->reached || x->mask != y->mask || x->temp != y->temp ||
        x->positions != y->positions || memcmp(x->tok, y->tok, sizeof x->tok) != 0) {
        print_error("overrides, options or reached differ\n");
        _fail(file, line);
    }
}

#endif
