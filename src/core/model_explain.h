/* model_explain.h - the arithmetic behind one cell of a model's own
 * matrices (model.h), as data, like explain.h does for attention cells.
 *
 * model_explain() describes how the forward produced one number of the
 * embedding, a norm, a residual, the feed-forward, a logit or p, with the
 * real operands, so that the words layer can write a line such as
 *   L1.a[2][3] = (x - mu) / sqrt(var + eps) * g + beta
 *              = (0.41 - 0.12) / sqrt(0.3 + 1e-05) * 1 + 0
 * Sums are repeated in the forward's order, so `result` equals the cell bit
 * for bit and every intermediate here reproduces it. It produces no strings.
 * The Attn's own results (Q ... Y of a layer, MM_ATTN) are explain_cell()'s:
 * explain_cell(&m->layer[l - 1].att, id, i, j, &e). Indices are 0-based. */
#ifndef QKV_MODEL_EXPLAIN_H
#define QKV_MODEL_EXPLAIN_H

#include <stdbool.h>
#include "model.h"

typedef enum {
    MX_NONE,      /* nothing to explain: not reached, bad index, or an attention result */
    MX_PARAM,     /* a parameter's cell (E, P, Wq ... Wo, W1, g1, ..., WU): given */
    MX_EMBED,     /* L1.h_in[i][j] = E[token][j] + pos   (pos: P[p][j] learned,
                     sin|cos(angle) sinusoidal, 0 with rope or none) */
    MX_STREAM,    /* L<l>.h_in[i][j] (l >= 2) = L<l-1>.h[i][j] */
    MX_NORM,      /* L.a (Norm1 of h_in), L.b (Norm2 of h_mid), h_final (Norm_f of h) */
    MX_RESID,     /* L.h_mid[i][j] = h + y (h_in + Y); with d_ff = 0 L.h too */
    MX_FFN_HIDDEN,/* L.u[i][j] = sum_k b_ik W1_kj + b1_j, L.f[i][j] = act(that) */
    MX_FFN_OUT,   /* L.h[i][j] = h_mid_ij + (sum_k f_ik W2_kj + b2_j)  (d_ff > 0) */
    MX_LOGIT,     /* logits[i][j] = sum_k h_final_ik WU_kj  (tied: E_jk) */
    MX_PROB,      /* p[i][j] = softmax(logits_i / T_s)_j over the vocab */
} MxKind;

typedef struct {
    MxKind kind;
    ModelRef ref;       /* the matrix explained */
    int i, j;           /* the cell */
    double result;      /* the cell's value, bit for bit */
    /* Sums: n terms a[k] * b[k] = prod[k], running sums partial[k], sum = partial[n-1].
     *   MX_FFN_HIDDEN: a = row i of b, b = column j of W1 (n = d_model)
     *   MX_FFN_OUT:    a = row i of f, b = column j of W2 (n = d_ff)
     *   MX_LOGIT:      a = row i of h_final, b = column j of WU or row j of E (n = d_model)
     *   MX_NORM:       a = the row x (n = d_model); prod = (x_k - mu)^2 (layernorm) or
     *                  x_k^2 (rmsnorm), partial their running sums, sum their sum;
     *                  b unused. xsum = the sum of x (layernorm's mean is xsum / d)
     *   MX_PROB:       a = row i of logits (n = vocab), b = z = a / T_s,
     *                  prod = e = exp(z - max), partial the running sums of e, sum = sum e */
    int n;
    double a[MODEL_TERMS_MAX], b[MODEL_TERMS_MAX], prod[MODEL_TERMS_MAX], partial[MODEL_TERMS_MAX];
    double sum;
    /* MX_EMBED */
    int token;          /* the vocab index of row i */
    int pos;            /* its position i + offset */
    ModelPos positions;
    double e;           /* E[token][j] */
    double p;           /* the position value added (0 with rope or none) */
    double angle;       /* sinusoidal: pos / 10000^(2m / d_model), m = j / 2 */
    bool cosine;        /* sinusoidal: j odd, p = cos(angle) (else sin) */
    /* MX_NORM */
    NormKind norm;
    int layer_norm;     /* 1 (Norm1), 2 (Norm2) or 0 (Norm_f) */
    double xsum, mean, var, eps, sigma; /* mu, var (or the mean square), sqrt(var + eps) */
    double x;           /* x_j, the cell's input */
    double xhat;        /* (x - mu) / sigma */
    double g, beta;     /* the gain and bias (1 and 0 when the norm has none) */
    bool has_beta;      /* layernorm */
    /* MX_RESID (h + y), MX_FFN_OUT (resid + (sum + bias)), MX_STREAM (h) */
    double h, y;
    /* MX_FFN_HIDDEN, MX_FFN_OUT */
    double bias;        /* b1_j or b2_j */
    double pre;         /* MX_FFN_HIDDEN: sum + bias, the pre-activation u */
    Act act;
    bool activated;     /* MX_FFN_HIDDEN: the cell is f (act applied), not u */
    double phi;         /* gelu: Phi(pre); result = pre * phi */
    double resid;       /* MX_FFN_OUT: h_mid_ij */
    double ffn;         /* MX_FFN_OUT: sum + bias, what the feed-forward adds */
    /* MX_LOGIT */
    bool tied;          /* the column is row j of E */
    /* MX_PROB */
    double temp;        /* T_s */
    double max;         /* the row's largest z */
} ModelExplain;

/* Explain cell (i, j) of the matrix r names. false (kind MX_NONE) when the
 * matrix's stage is not reached, (i, j) is out of range, or r is an
 * attention result (MM_ATTN other than Wq Wk Wv Wo: explain_cell). */
bool model_explain(const Model *m, ModelRef r, int i, int j, ModelExplain *out);

#endif
