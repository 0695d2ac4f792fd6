/* explain.h - the arithmetic behind one cell or row of a stage, as data.
 *
 * explain_cell() describes how the pipeline produced one number, with the
 * real operands, so that the view and --dump can write it out, e.g.
 *   score12 = q1.k2 = (0.149)(-0.169) + (-0.041)(-0.304) + (0.194)(0.094) = 0.006
 * It produces no strings. Indices inside are 0-based; renderers add one. */
#ifndef QKV_EXPLAIN_H
#define QKV_EXPLAIN_H

#include <stdbool.h>
#include "attn.h"

typedef enum {
    EX_NONE,     /* nothing to explain (stage not reached, or bad index) */
    EX_INPUT,    /* X[i][j] is given by the lesson */
    EX_PROJ,     /* Q/K/V[i][j] = sum_k X[i][k] * W[k][j]  (or overridden) */
    EX_SCORE,    /* S[i][j] = sum_k Q[i][k] * K[j][k]  (then / sqrt(d_k)) */
    EX_SOFTMAX,  /* row i of A from row i of S */
    EX_OUTPUT,   /* O[i][j] = sum_k A[i][k] * V[k][j] */
    EX_POS,      /* H[i][j] = X[i][j] + P[i][j], P[i][j] = sin|cos(p / 10000^(2m/d_model)) */
    EX_PROJECT,  /* Y[i][j] = sum_k O[i][k] * Wo[k][j], grouped by head */
} ExKind;

typedef struct {
    ExKind kind;
    MatId mat;          /* the matrix explained: M_X, M_Q/K/V, M_S, M_A, M_O */
    int i, j;           /* the cell (0-based); for EX_SOFTMAX j is the focused column */
    bool overridden;    /* EX_PROJ: the row was set by hand, not X*W */
    int n;              /* number of terms */
    double a[MAT_MAX];  /* left operands:  x_ik | q_ik | s_ik   | a_ik */
    double b[MAT_MAX];  /* right operands: W_kj | k_jk | -      | v_kj */
    double prod[MAT_MAX];    /* a*b; EX_SOFTMAX: exp(s_ik - max) (or exp(s_ik)) */
    double partial[MAT_MAX]; /* running sums of prod */
    double sum;         /* sum of prod (EX_SCORE: the raw dot product) */
    bool scaled;        /* EX_SCORE: divided by sqrt(d_k) */
    int d_k;            /* EX_SCORE: the d_k of the divisor */
    double divisor;     /* sqrt(d_k) when scaled */
    /* EX_SOFTMAX only */
    bool stable;
    double max;         /* row max (stable) */
    double shifted[MAT_MAX]; /* s_ik - max (stable) or s_ik */
    double weight[MAT_MAX];  /* prod / sum */
    double result;      /* the explained number (EX_SOFTMAX: weight[j]) */
    /* Masks, temperature, positions (see attn.h) */
    bool from_h;        /* EX_PROJ: the row projected is h_i = x_i + p_i, not x_i */
    bool from_source;   /* EX_PROJ: cross-attention's k or v, projected from the source row xs_i */
    bool masked;        /* EX_SCORE: the cell is masked, result -inf (sum is still q.k);
                           EX_SOFTMAX: the focused weight is masked, result 0 */
    int vis;            /* EX_SOFTMAX: the first vis entries of the row take part, the
                           rest are masked (vis == n without a mask); EX_OUTPUT: the n
                           terms are the unmasked ones and `nmasked` were left out */
    int nmasked;
    int real_keys;      /* every kind: the keys before the first padding key (all keys without pad:) */
    double temp;        /* EX_SOFTMAX: the temperature; z = s / temp when temp != 1 */
    double z[MAT_MAX];  /* EX_SOFTMAX: s / temp */
    double x, p, angle; /* EX_POS: x_ij, p_ij and its angle p / 10000^(2m/d_model) */
    int pos, pos_m, d_model; /* EX_POS: the position p = i, m = j / 2, d_model */
    bool cosine;        /* EX_POS: j is odd, p_ij = cos(angle) */
    /* Heads */
    int head;           /* 1-based head of a per-head cell (lessons with 2+ heads), else 0;
                           a cell of the full Q, K, V or O names its head here too and
                           keeps its full column in j (jh is the head's column) */
    int jh;             /* the column inside the head */
    int wcol;           /* EX_PROJ: the column of W used (the full matrix's column) */
    int heads;          /* EX_PROJECT: the number of heads; the terms come in
                           `heads` groups of `group` (d_v) consecutive k */
    int group;
    double head_sum[16];/* EX_PROJECT: each head's share, sum of its group's products */
    /* Today's models (attn.h) */
    int lo;             /* EX_SOFTMAX: the keys taking part are lo .. vis-1 (a window
                           hides keys below lo; 0 otherwise). EX_OUTPUT: term t is key
                           lo + t */
    int kv_head;        /* 1-based K/V head: EX_PROJ of K or V, and for EX_SCORE and
                           EX_OUTPUT the one the query head reads (0 with one head) */
    /* EX_PROJ of Q or K under positions: rope (not for a cell set by hand). The
       products give the cell before rotation (Q0/K0, `unrotated`); the pair it
       belongs to, (x, y) = columns (2m, 2m+1) of the head, turns by theta:
       result = x cos - y sin (first of the pair) or x sin + y cos (second). */
    bool rope, rope_second;
    int rope_pos, rope_m, rope_dk; /* p = row + offset, the pair m (0-based), the head's d_k */
    double rope_base, rope_theta, rope_cos, rope_sin, rope_x, rope_y, unrotated;
    /* EX_SOFTMAX and EX_OUTPUT under softmax: online. prod[k] is then
       e^(z_k - m_new of k's block) (EX_OUTPUT: times v_kj, a[k] that exp);
       max and sum are the final m and l; EX_OUTPUT's result is o / l with
       o the last block's o_new. */
    bool online;
    int block, nblocks;
    AttnBlock blocks[MAT_MAX]; /* the last field: explain_cell leaves them to attn_online_row */
} Explain;

/* Explain cell (i, j) of matrix `mat` in state a. Returns false and sets
 * kind = EX_NONE when the matrix's stage is not reached or (i, j) is out of
 * range. M_QKT explains like M_S without the division (and without the
 * mask). With positions on, P and H explain as EX_POS (the sum that stage
 * 2 will project), and so does X while stage 1 is the last reached (later,
 * an X cell is the input it is). Q0 and K0 explain as EX_PROJ without the
 * rotation. */
bool explain_cell(const Attn *a, MatId mat, int i, int j, Explain *out);

/* The terms of a sum of products, shared by explain_cell and the model's
 * cells (model_explain.h): prod[k] = a[k] b[k] and the running sums
 * partial[k], k = 0 .. n-1 from 0.0; returns the sum (partial[n-1], 0 when n = 0). */
double explain_products(int n, const double *a, const double *b, double *prod, double *partial);

#endif
