/* attn_back.c - one attention layer's backward pass (see attn_back.h). */
#include "attn_back.h"

#include <math.h>
#include <stdlib.h>

static double divisor(const Attn *a)
{
    return a->scale == SCALE_SQRT_DK ? sqrt((double)attn_d_k(a)) : 1.0;
}

/* The gradients that flow back through head k's softmax: dV (summed), then
 * dQ and dK (summed) in their column blocks. */
static void head_back(const Attn *a, int k, const Mat *dO, Mat *dQ, Mat *dK, Mat *dV)
{
    const Mat *A = &a->m[attn_shown(a, M_A, k)], *Q = &a->m[M_Q], *K = &a->m[M_K], *V = &a->m[M_V];
    int n = attn_tokens(a), dk = attn_d_k(a), dv = attn_d_v(a), g = attn_kv_head(a, k) - 1;
    int oq = (k - 1) * dk, ok = g * dk, ov = (k - 1) * dv, okv = g * dv;
    double scale = 1.0 / a->temp / divisor(a);
    double da[MAT_MAX], dz[MAT_MAX];
    for (int i = 0; i < n; i++) {
        const double *doi = &MAT_AT(dO, i, ov);
        double dot = 0.0;
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int c = 0; c < dv; c++)
                s += doi[c] * MAT_AT(V, j, okv + c);
            da[j] = s;
            mat_axpy(&MAT_AT(dV, j, okv), doi, MAT_AT(A, i, j), dv);
        }
        for (int j = 0; j < n; j++)
            dot += MAT_AT(A, i, j) * da[j];
        for (int j = 0; j < n; j++)
            dz[j] = MAT_AT(A, i, j) * (da[j] - dot) * scale;
        for (int j = 0; j < n; j++) {
            if (MAT_AT(A, i, j) == 0.0)
                continue; /* a masked key takes no part (dz = 0) */
            mat_axpy(&MAT_AT(dQ, i, oq), &MAT_AT(K, j, ok), dz[j], dk);
            mat_axpy(&MAT_AT(dK, j, ok), &MAT_AT(Q, i, oq), dz[j], dk);
        }
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
    for (int i = 0; i < dX->rows; i++)
        for (int c = 0; c < dM->cols; c++)
            mat_axpy(&MAT_AT(dX, i, 0), &wt[(size_t)c * (size_t)w->rows], MAT_AT(dM, i, c), w->rows);
    free(wt);
    return true;
}

/* dO = dY Wo^T and dWo += O^T dY; without W_O dO is dY. */
static bool output_back(const Attn *a, const Mat *dY, Mat *dO, Mat *gwo)
{
    if (!a->has_wo)
        return mat_copy(dO, dY);
    const Mat *wo = &a->m[M_WO];
    if (!mat_new(dO, dY->rows, wo->rows))
        return false;
    for (int i = 0; i < dY->rows; i++)
        for (int c = 0; c < wo->rows; c++) {
            double s = 0.0;
            for (int j = 0; j < dY->cols; j++)
                s += MAT_AT(dY, i, j) * MAT_AT(wo, c, j);
            MAT_AT(dO, i, c) = s;
        }
    if (gwo)
        mat_add_atb(gwo, &a->m[M_O], dY);
    return true;
}

bool attn_backward(const Attn *a, unsigned ablate, const Mat *dY, Mat *dX, AttnGrads g)
{
    int n = attn_tokens(a), h = attn_heads(a);
    Mat dO = {0}, dQ = {0}, dK = {0}, dV = {0};
    mat_free(dX);
    bool ok = output_back(a, dY, &dO, g.wo) && mat_new(&dQ, n, a->m[M_Q].cols) &&
              mat_new(&dK, n, a->m[M_K].cols) && mat_new(&dV, n, a->m[M_V].cols) &&
              mat_new(dX, n, attn_d_model(a));
    if (ok) {
        for (int k = 1; k <= h; k++)
            if (!(ablate >> (k - 1) & 1u))
                head_back(a, k, &dO, &dQ, &dK, &dV);
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
    mat_free(&dQ);
    mat_free(&dK);
    mat_free(&dV);
    return ok;
}
