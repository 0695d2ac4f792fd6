/* model_back.h - exact backpropagation through a whole model (model.h),
 * and one training step (DESIGN.md "Trained here").
 *
 * The loss of one sequence of n tokens is the sum over positions i = 0 ..
 * n-2 of -ln p[i][tok[i+1]] (the next token; the last position has none).
 * A batch's loss is the mean over every position of every sequence that has
 * a next token. model_backward() adds w times the gradient of a sequence's
 * loss sum to every parameter of a gradient holder g: a Model of the same
 * settings whose parameter matrices (model_params) hold sums, so a batch
 * accumulates with w = 1 / (the batch's positions). In reverse order:
 *
 *   dlogits_ic = w (p_ic - [c = tok_i+1]) / T_s     (rows 0 .. n-2; the last 0)
 *   separate:   dWU += h_final^T dlogits, dh_final = dlogits WU^T
 *   tied:       dE  += dlogits^T h_final,  dh_final = dlogits E
 *   a norm y = xhat g + beta, xhat = (x - mu) / sigma (rmsnorm: mu = 0):
 *     dg += sum_i dy xhat, dbeta += sum_i dy, dxhat = dy g,
 *     layernorm dx = (dxhat - mean(dxhat) - xhat mean(dxhat xhat)) / sigma
 *     rmsnorm   dx = (dxhat - xhat mean(dxhat xhat)) / sigma;  none: dx = dy
 *   per layer, last to first, from dh (the stream after the block):
 *     d_ff > 0: dW2 += f^T dh, db2 += sum_i dh, df = dh W2^T,
 *               du = df act'(u) (relu: [u > 0]; gelu: Phi(u) + u phi(u)),
 *               dW1 += b^T du, db1 += sum_i du, db = du W1^T,
 *               dh_mid = dh + Norm2^T(db)
 *     dY = dh_mid, the attention's backward (attn_back.h) gives da,
 *     dh_in = dh_mid + Norm1^T(da)
 *   layer 1: dE[tok_i] += dh_in_i, learned positions dP[i + offset] += dh_in_i.
 *
 * model_backward needs the forward run whole (stage 8, model_run_all). An
 * ablated head passes no gradient (its output is 0). Deterministic: sums
 * run in index order. No I/O, no globals. */
#ifndef QKV_MODEL_BACK_H
#define QKV_MODEL_BACK_H

#include <stdbool.h>
#include "model.h"

/* A gradient holder for m: the same settings and input, every parameter 0. */
bool model_grad_init(Model *g, const Model *m);
/* Every parameter of g back to 0. */
void model_grad_zero(Model *g);

/* The sequence's loss sum (the n-1 next tokens), and w times its gradient
 * added into g. *ok false when out of memory. */
double model_backward(const Model *m, Model *g, double w, bool *ok);

/* act'(x): the derivative of model_act. */
double model_act_grad(Act a, double x);

#endif
