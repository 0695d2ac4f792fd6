/* mat.c - small dense row-major matrices of doubles (see mat.h). */
#include "mat.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

static bool size_ok(int rows, int cols)
{
    return rows >= 1 && rows <= MAT_ALLOC_MAX && cols >= 1 && cols <= MAT_ALLOC_MAX;
}

/* Allocate zeros; a size outside 1..MAT_ALLOC_MAX fails like running out of memory. */
bool mat_new(Mat *m, int rows, int cols)
{
    m->rows = m->cols = 0;
    m->v = NULL;
    if (!size_ok(rows, cols))
        return false;
    m->v = calloc((size_t)rows * (size_t)cols, sizeof *m->v);
    if (!m->v)
        return false;
    m->rows = rows;
    m->cols = cols;
    return true;
}

void mat_free(Mat *m)
{
    free(m->v);
    m->v = NULL;
    m->rows = m->cols = 0;
}

/* Give dst the shape rows x cols, keeping its storage when it already fits.
 * The values are unspecified afterwards; callers overwrite every cell. */
static bool reshape(Mat *dst, int rows, int cols)
{
    if (dst->v && dst->rows == rows && dst->cols == cols)
        return true;
    mat_free(dst);
    return mat_new(dst, rows, cols);
}

/* Copy src into dst; an empty src leaves dst empty. On failure dst is empty. */
bool mat_copy(Mat *dst, const Mat *src)
{
    if (dst == src)
        return true;
    if (!src->v || src->rows == 0 || src->cols == 0) {
        mat_free(dst);
        return true;
    }
    if (!reshape(dst, src->rows, src->cols))
        return false;
    for (size_t k = 0; k < (size_t)src->rows * (size_t)src->cols; k++)
        dst->v[k] = src->v[k];
    return true;
}

/* dst = a * b, every cell summed k = 0..n-1 from 0.0 (the order explain.c repeats). */
bool mat_mul(Mat *dst, const Mat *a, const Mat *b)
{
    assert(dst != a && dst != b);
    assert(a->cols == b->rows);
    if (!reshape(dst, a->rows, b->cols))
        return false;
    /* Row by row, k outer: each cell still sums its products for k = 0, 1,
     * ... from 0.0 (the same number, bit for bit), but the cells of a row
     * are independent sums the compiler can run side by side. */
    for (int i = 0; i < a->rows; i++) {
        double *out = &MAT_AT(dst, i, 0);
        for (int j = 0; j < b->cols; j++)
            out[j] = 0.0;
        for (int k = 0; k < a->cols; k++) {
            double x = MAT_AT(a, i, k);
            mat_axpy(out, &MAT_AT(b, k, 0), x, b->cols);
        }
    }
    return true;
}

/* dst = a * b^T: cell (i, j) is the dot product of row i of a and row j of b. */
bool mat_mul_bt(Mat *dst, const Mat *a, const Mat *b)
{
    assert(dst != a && dst != b);
    assert(a->cols == b->cols);
    if (!reshape(dst, a->rows, b->rows))
        return false;
    /* Four cells at a time, each its own sum in the order k = 0, 1, ...
     * (the same number as one at a time), so the sums do not wait on each
     * other. */
    for (int i = 0; i < a->rows; i++) {
        const double *x = &MAT_AT(a, i, 0);
        int j = 0;
        for (; j + 4 <= b->rows; j += 4) {
            const double *y0 = &MAT_AT(b, j, 0), *y1 = y0 + b->cols, *y2 = y1 + b->cols, *y3 = y2 + b->cols;
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            for (int k = 0; k < a->cols; k++) {
                s0 += x[k] * y0[k];
                s1 += x[k] * y1[k];
                s2 += x[k] * y2[k];
                s3 += x[k] * y3[k];
            }
            MAT_AT(dst, i, j) = s0;
            MAT_AT(dst, i, j + 1) = s1;
            MAT_AT(dst, i, j + 2) = s2;
            MAT_AT(dst, i, j + 3) = s3;
        }
        for (; j < b->rows; j++) {
            double sum = 0.0;
            for (int k = 0; k < a->cols; k++)
                sum += x[k] * MAT_AT(b, j, k);
            MAT_AT(dst, i, j) = sum;
        }
    }
    return true;
}

bool mat_same_shape(const Mat *a, const Mat *b)
{
    return a->rows == b->rows && a->cols == b->cols;
}

/* Largest |a - b|. Equal cells (equal infinities too) differ by 0; a NaN in
 * either matrix makes the result NaN. */
double mat_max_diff(const Mat *a, const Mat *b)
{
    assert(mat_same_shape(a, b));
    double max = 0.0;
    for (size_t k = 0; k < (size_t)a->rows * (size_t)a->cols; k++) {
        double x = a->v[k], y = b->v[k];
        if (x == y)
            continue;
        double d = fabs(x - y);
        if (isnan(d))
            return NAN;
        if (d > max)
            max = d;
    }
    return max;
}

void mat_add_atb(Mat *dst, const Mat *a, const Mat *b)
{
    assert(a->rows == b->rows && dst->rows == a->cols && dst->cols == b->cols);
    for (int i = 0; i < a->rows; i++)
        for (int r = 0; r < a->cols; r++)
            mat_axpy(&MAT_AT(dst, r, 0), &MAT_AT(b, i, 0), MAT_AT(a, i, r), b->cols);
}
