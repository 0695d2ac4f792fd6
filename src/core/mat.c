/* mat.c - small dense row-major matrices of doubles (see mat.h). */
#include "mat.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool size_ok(int rows, int cols)
{
    return rows >= 1 && rows <= MAT_ALLOC_MAX && cols >= 1 && cols <= MAT_ALLOC_MAX;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define GEMV_CLONES __attribute__((target_clones("avx", "default")))
#else
#define GEMV_CLONES
#endif

/* Four doubles side by side (gcc's vector extension: two SSE2 registers
 * or one AVX register); each lane's * and + round alone, as a double's. */
typedef double Lanes __attribute__((vector_size(32)));

#define LANES_AT(v, p) memcpy(&(v), (p), sizeof(Lanes)) /* an unaligned load */

/* Eight cells of out (+)= the sum over k of x_k b_kj, in two registers. */
static inline void gemv8(double *restrict out, const double *restrict x, int xs, int nk, const double *restrict b,
                         int ldb, bool add)
{
    Lanes s0 = {0.0, 0.0, 0.0, 0.0}, s1 = s0, b0, b1;
    if (add) {
        LANES_AT(s0, out);
        LANES_AT(s1, out + 4);
    }
    for (int k = 0; k < nk; k++) {
        double v = x[(size_t)k * (size_t)xs];
        const double *bk = b + (size_t)k * (size_t)ldb;
        LANES_AT(b0, bk);
        LANES_AT(b1, bk + 4);
        s0 += b0 * v;
        s1 += b1 * v;
    }
    memcpy(out, &s0, sizeof s0);
    memcpy(out + 4, &s1, sizeof s1);
}

/* Sixteen cells, in four registers (d_model 16's rows in one pass). */
static inline void gemv16(double *restrict out, const double *restrict x, int xs, int nk, const double *restrict b,
                          int ldb, bool add)
{
    Lanes s0 = {0.0, 0.0, 0.0, 0.0}, s1 = s0, s2 = s0, s3 = s0, b0, b1, b2, b3;
    if (add) {
        LANES_AT(s0, out);
        LANES_AT(s1, out + 4);
        LANES_AT(s2, out + 8);
        LANES_AT(s3, out + 12);
    }
    for (int k = 0; k < nk; k++) {
        double v = x[(size_t)k * (size_t)xs];
        const double *bk = b + (size_t)k * (size_t)ldb;
        LANES_AT(b0, bk);
        LANES_AT(b1, bk + 4);
        LANES_AT(b2, bk + 8);
        LANES_AT(b3, bk + 12);
        s0 += b0 * v;
        s1 += b1 * v;
        s2 += b2 * v;
        s3 += b3 * v;
    }
    memcpy(out, &s0, sizeof s0);
    memcpy(out + 4, &s1, sizeof s1);
    memcpy(out + 8, &s2, sizeof s2);
    memcpy(out + 12, &s3, sizeof s3);
}

/* Four cells, in one register. */
static inline void gemv4(double *restrict out, const double *restrict x, int xs, int nk, const double *restrict b,
                         int ldb, bool add)
{
    Lanes s0 = {0.0, 0.0, 0.0, 0.0}, b0;
    if (add)
        LANES_AT(s0, out);
    for (int k = 0; k < nk; k++) {
        LANES_AT(b0, b + (size_t)k * (size_t)ldb);
        s0 += b0 * x[(size_t)k * (size_t)xs];
    }
    memcpy(out, &s0, sizeof s0);
}

GEMV_CLONES void mat_gemv_t(double *restrict out, int nc, const double *restrict x, int xs, int nk,
                            const double *restrict b, int ldb, bool add)
{
    int j = 0;
    for (; j + 16 <= nc; j += 16)
        gemv16(out + j, x, xs, nk, b + j, ldb, add);
    for (; j + 8 <= nc; j += 8)
        gemv8(out + j, x, xs, nk, b + j, ldb, add);
    for (; j + 4 <= nc; j += 4)
        gemv4(out + j, x, xs, nk, b + j, ldb, add);
    for (; j + 2 <= nc; j += 2) {
        double s0 = add ? out[j] : 0.0, s1 = add ? out[j + 1] : 0.0;
        for (int k = 0; k < nk; k++) {
            double v = x[(size_t)k * (size_t)xs];
            s0 += v * b[(size_t)k * (size_t)ldb + j];
            s1 += v * b[(size_t)k * (size_t)ldb + j + 1];
        }
        out[j] = s0, out[j + 1] = s1;
    }
    for (; j < nc; j++) {
        double s0 = add ? out[j] : 0.0;
        for (int k = 0; k < nk; k++)
            s0 += x[(size_t)k * (size_t)xs] * b[(size_t)k * (size_t)ldb + j];
        out[j] = s0;
    }
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
    /* Row by row: each cell sums its products for k = 0, 1, ... from 0.0
     * (mat_gemv_t: the same number, bit for bit, as k outer over the row). */
    for (int i = 0; i < a->rows; i++)
        mat_gemv_t(&MAT_AT(dst, i, 0), b->cols, &MAT_AT(a, i, 0), 1, a->cols, b->v, b->cols, false);
    return true;
}

/* dst = a * b^T: cell (i, j) is the dot product of row i of a and row j of
 * b, summed k = 0, 1, ... from 0.0: b turned once (on the stack when small),
 * then each row of dst is mat_gemv_t over it (the same number, bit for bit). */
bool mat_mul_bt(Mat *dst, const Mat *a, const Mat *b)
{
    assert(dst != a && dst != b);
    assert(a->cols == b->cols);
    if (!reshape(dst, a->rows, b->rows))
        return false;
    double small[512], *bt = small; /* 4 KB: a head's K, W_U of vocab 32 */
    size_t cells = (size_t)b->rows * (size_t)b->cols;
    if (cells > sizeof small / sizeof small[0] && !(bt = malloc(sizeof *bt * cells)))
        return false;
    for (int r = 0; r < b->rows; r++)
        for (int c = 0; c < b->cols; c++)
            bt[(size_t)c * (size_t)b->rows + (size_t)r] = MAT_AT(b, r, c);
    for (int i = 0; i < a->rows; i++)
        mat_gemv_t(&MAT_AT(dst, i, 0), b->rows, &MAT_AT(a, i, 0), 1, a->cols, bt, b->rows, false);
    if (bt != small)
        free(bt);
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
    /* cell (r, c) gains a_ir b_ic for i = 0, 1, ... in order, as before */
    for (int r = 0; r < a->cols; r++)
        mat_gemv_t(&MAT_AT(dst, r, 0), b->cols, &MAT_AT(a, 0, r), a->cols, a->rows, b->v, b->cols, true);
}
