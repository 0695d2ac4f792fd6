/* attn_back.c - one attention layer's backward pass (see attn_back.h). */
#include "attn_back.h"

#include <math.h>
#include <stdlib.h>

static double divisor(const Attn *a)
{
    return a->scale == SCALE_SQRT_DK ? sqrt((double)attn_d_k(a)) : 1.0;
}

/* Row i's softmax gradient dz_ij = A_ij (da_ij - sum_j A_ij da_ij) scale,
 * da_ij = dO_i . V_j (head k's columns, summed c = 0, 1, ... from 0.0 over
 * V turned into vt, dv x n); 0 where j is masked. */
static void head_dz(const Attn *a, int k, const Mat *dO, double *dz, double *vt)
{
    const Mat *A = &a->m[attn_shown(a, M_A, k)], *V = &a->m[M_V];
    int n = attn_tokens(a), dv = attn_d_v(a), okv = (attn_kv_head(a, k) - 1) * dv, ov = (k - 1) * dv;
    double scale = 1.0 / a->temp / divisor(a), da[MAT_MAX];
    for (int j = 0; j < n; j++)
        for (int c = 0; c < dv; c++)
            vt[c * n + j] = MAT_AT(V, j, okv + c);
    for (int i = 0, lo, hi; i < n; i++) {
        double dot = 0.0;
        attn_visible(a, i, &lo, &hi); /* a masked key's A is 0: it adds nothing to dot */
        mat_gemv_t(&da[lo], hi - lo, &MAT_AT(dO, i, ov), 1, dv, &vt[lo], n, false);
        for (int j = lo; j < hi; j++)
            dot += MAT_AT(A, i, j) * da[j];
        for (int j = 0; j < n; j++)
            dz[i * n + j] = j < lo || j >= hi ? 0.0 : MAT_AT(A, i, j) * (da[j] - dot) * scale;
    }
}

/* The rows i that see key j: i0 .. i1-1 (every mask of attn.h). */
static void seen_by(const Attn *a, int j, int *i0, int *i1)
{
    int n = attn_tokens(a);
    *i0 = a->mask == MASK_NONE ? 0 : j;
    *i1 = a->mask == MASK_WINDOW && j + a->window < n ? j + a->window : n;
}

/* The gradients that flow back through head k's softmax: dV (summed), then
 * dQ and dK (summed) in their column blocks. Each cell sums its terms in the
 * order row i = 0, 1, ... (dV, dK) or key j = 0, 1, ... (dQ), as a row of
 * axpys per (i, j) would; a masked key takes no part. (Within the visible
 * keys a weight that underflowed to 0 adds a product +-0, which changes no
 * sum: a sum that starts at +0 is never -0.) */
/* dz: room for n x n, then V turned (dv x n). */
static void head_back(const Attn *a, int k, const Mat *dO, double *dz, Mat *dQ, Mat *dK, Mat *dV)
{
    const Mat *A = &a->m[attn_shown(a, M_A, k)], *Q = &a->m[M_Q], *K = &a->m[M_K];
    int n = attn_tokens(a), dk = attn_d_k(a), dv = attn_d_v(a), g = attn_kv_head(a, k) - 1;
    int oq = (k - 1) * dk, ok = g * dk, ov = (k - 1) * dv, okv = g * dv;
    head_dz(a, k, dO, dz, dz + n * n);
    for (int j = 0; j < n; j++)
        mat_gemv_t(&MAT_AT(dV, j, okv), dv, &MAT_AT(A, 0, j), A->cols, n, &MAT_AT(dO, 0, ov), dO->cols, true);
    for (int i = 0, lo, hi; i < n; i++) {
        attn_visible(a, i, &lo, &hi);
        mat_gemv_t(&MAT_AT(dQ, i, oq), dk, &dz[i * n + lo], 1, hi - lo, &MAT_AT(K, lo, ok), K->cols, true);
    }
    for (int j = 0, i0, i1; j < n; j++) {
        seen_by(a, j, &i0, &i1);
        mat_gemv_t(&MAT_AT(dK, j, ok), dk, &dz[i0 * n + j], n, i1 - i0, &MAT_AT(Q, i0, oq), Q->cols, true);
    }
}

/* dX += dM W^T for one projection (dM: n x c, W: d x c): row i of dX
 * gains dM_ic times column c of W, c = 0, 1, ... (W turned once). */
static bool add_back(Mat *dX, const Mat *dM, const Mat *w)
{
    double *wt = malloc(sizeof *wt * (size_t)w->rows * (size_t)w->cols);
    if (!wt)
        return false;
    for (int r = 0; r < w->rows; r++)
        for (int c = 0; c < w->cols; c++)
            wt[(size_t)c * (size_t)w->rows + (size_t)r] = MAT_AT(w, r, c);
    for (int i = 0; i < dX->rows; i++) /* c = 0, 1, ... in order, a register per cell */
        mat_gemv_t(&MAT_AT(dX, i, 0), w->rows, &MAT_AT(dM, i, 0), 1, dM->cols, wt, w->rows, true);
    free(wt);
    return true;
}

/* dO = dY Wo^T and dWo += O^T dY; without W_O dO is dY. */
static bool output_back(const Attn *a, const Mat *dY, Mat *dO, Mat *gwo)
{
    if (!a->has_wo)
        return mat_copy(dO, dY);
    const Mat *wo = &a->m[M_WO];
    if (!mat_mul_bt(dO, dY, wo)) /* cell (i, c): sum over j in order of dY_ij Wo_cj */
        return false;
    if (gwo)
        mat_add_atb(gwo, &a->m[M_O], dY);
    return true;
}

bool attn_backward(const Attn *a, unsigned ablate, const Mat *dY, Mat *dX, AttnGrads g)
{
    int n = attn_tokens(a), h = attn_heads(a);
    Mat dO = {0}, dQ = {0}, dK = {0}, dV = {0}, dz = {0};
    mat_free(dX);
    bool ok = output_back(a, dY, &dO, g.wo) && mat_new(&dz, n + attn_d_v(a), n) &&
              mat_new(&dQ, n, a->m[M_Q].cols) &&
              mat_new(&dK, n, a->m[M_K].cols) && mat_new(&dV, n, a->m[M_V].cols) &&
              mat_new(dX, n, attn_d_model(a));
    if (ok) {
        for (int k = 1; k <= h; k++)
            if (!(ablate >> (k - 1) & 1u))
                head_back(a, k, &dO, dz.v, &dQ, &dK, &dV);
        if (a->positions == POS_ROPE)
            for (int i = 0; i < n; i++) {
                attn_rope_unrow(a, &MAT_AT(&dQ, i, 0), dQ.cols, i);
                attn_rope_unrow(a, &MAT_AT(&dK, i, 0), dK.cols, i);
            }
        const Mat *in = &a->m[a->positions == POS_SINUSOIDAL ? M_H : M_X];
        mat_add_atb(g.wq, in, &dQ);
        mat_add_atb(g.wk, in, &dK);
        mat_add_atb(g.wv, in, &dV);
        ok = add_back(dX, &dQ, &a->m[M_WQ]) && add_back(dX, &dK, &a->m[M_WK]) && add_back(dX, &dV, &a->m[M_WV]);
    }
    mat_free(&dO);
    mat_free(&dz);
    mat_free(&dQ);
    mat_free(&dK);
    mat_free(&dV);
    return ok;
}
