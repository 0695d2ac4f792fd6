/* attn_back.h - the backward pass of one attention layer (attn.h), exact,
 * for whole-model training (model_back.h).
 *
 * Given the forward state a (reached stage 6, or 5 without W_O) and dL/dY
 * (n x d_out; without W_O it is dL/dO, n x h*d_v), it gives dL/dX and adds
 * dL/dWq, dL/dWk, dL/dWv and dL/dWo into the caller's matrices (shaped like
 * the weights, summed into, so a batch accumulates):
 *
 *   dO     = dY Wo^T,                  dWo += O^T dY
 *   per query head k (skipped when its bit is set in `ablate`: its O_k was
 *   set to 0, so nothing flows back), K/V head g = attn_kv_head(a, k):
 *   dA_ij  = dO_k,i · v_g,j,           dV_g,j += A_ij dO_k,i
 *   dz_ij  = A_ij (dA_ij - sum_j' A_ij' dA_ij')   (masked keys: A = 0, dz = 0)
 *   dqkt_ij = dz_ij / T / divisor      (divisor sqrt(d_k) with scaling, else 1)
 *   dQ_k,i += sum_j dqkt_ij k_g,j,      dK_g,j += dqkt_ij q_k,i
 *   RoPE: Q = rot(Q0), K = rot(K0) row by row, so dQ0 = rot^T dQ and
 *   dK0 = rot^T dK (attn_rope_unrow) before they reach the weights;
 *   dWq += H^T dQ0, dWk += H^T dK0, dWv += H^T dV   (H = X + P, or X)
 *   dX = dQ0 Wq^T + dK0 Wk^T + dV Wv^T  (P is a constant)
 *
 * The online softmax gives the same A, so the same gradient. Rows of Q, K
 * or V set by hand are not supported here (a model has none). Sums run in
 * index order from 0.0. No I/O, no globals; scratch is allocated per call. */
#ifndef QKV_ATTN_BACK_H
#define QKV_ATTN_BACK_H

#include <stdbool.h>
#include "attn.h"

typedef struct {
    Mat *wq, *wk, *wv, *wo; /* summed into; wo may be NULL without W_O */
} AttnGrads;

/* dX (reshaped to n x d_model) and the weights' gradients (added into g).
 * Returns false when out of memory (dX and g then hold partial sums). */
bool attn_backward(const Attn *a, unsigned ablate, const Mat *dY, Mat *dX, AttnGrads g);

#endif
