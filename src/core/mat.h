/* mat.h - small dense row-major matrices of doubles.
 *
 * A Mat owns its storage. mat_new() allocates rows*cols zeros; mat_free()
 * releases it and leaves an empty (0x0, NULL) matrix that may be freed again.
 * Sizes are at most MAT_MAX in each dimension, the lesson limit (checked by
 * the lesson layer and attn_init); mat_new itself allocates up to
 * MAT_ALLOC_MAX, the room a model's vocab (128) and d_ff (256) need
 * (model.h). Functions that combine matrices expect shapes that fit and
 * assert it. Core code never
 * prints, never touches files, and keeps no global state. */
#ifndef QKV_MAT_H
#define QKV_MAT_H

#include <stdbool.h>
#include <stddef.h> /* size_t, used by MAT_AT */

#define MAT_MAX 64
#define MAT_ALLOC_MAX 256

typedef struct {
    int rows, cols;
    double *v; /* rows*cols values, row by row */
} Mat;

#define MAT_AT(m, i, j) ((m)->v[(size_t)(i) * (size_t)(m)->cols + (size_t)(j)])

/* Allocate a rows x cols matrix of zeros. Returns false when out of memory,
 * leaving *m empty. */
bool mat_new(Mat *m, int rows, int cols);
void mat_free(Mat *m);
/* Make dst an exact copy of src (reallocating when the shape differs). */
bool mat_copy(Mat *dst, const Mat *src);
/* dst = a * b; dst is (re)shaped to a.rows x b.cols. Sums run k = 0..n-1. */
bool mat_mul(Mat *dst, const Mat *a, const Mat *b);
/* dst = a * transpose(b); dst is a.rows x b.rows. */
bool mat_mul_bt(Mat *dst, const Mat *a, const Mat *b);
bool mat_same_shape(const Mat *a, const Mat *b);
/* dst += transpose(a) * b (a: n x r, b: n x c, dst: r x c): the gradient of
 * a weight from its inputs a and the output's gradient b, summed into dst
 * over the n rows in order. */
void mat_add_atb(Mat *dst, const Mat *a, const Mat *b);
/* Largest |a - b| over all cells; shapes must match. */
double mat_max_diff(const Mat *a, const Mat *b);

/* y += a * x over n values, four lanes side by side (each y[j] gets the
 * same product and sum as one at a time, bit for bit). Inline: the model's
 * rows are short (8 to 64 values), where a call costs as much as the work. */
static inline void mat_axpy(double *restrict y, const double *restrict x, double a, int n)
{
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        y[j] += a * x[j];
        y[j + 1] += a * x[j + 1];
        y[j + 2] += a * x[j + 2];
        y[j + 3] += a * x[j + 3];
    }
    for (; j < n; j++)
        y[j] += a * x[j];
}

#endif
