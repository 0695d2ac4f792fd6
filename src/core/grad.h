/* grad.h - attention is learned: targets, the loss, its gradient with
 * respect to W_Q and W_K, and plain gradient descent.
 *
 * The targets live in the state (Attn.target, Attn.lr), so copying, undo
 * and replay carry them. For a target on row i of head k with distribution
 * t (non-negative, summing to 1, 0 wherever the mask hides a key):
 *
 *   L      = sum over targets of  -sum_j t_j ln A^k_ij
 *   dL/dz_ij  = A^k_ij - t_j            z = s / T (the temperature)
 *   dL/ds_ij  = (A^k_ij - t_j) / T      masked keys take no part
 *   dL/dqkt_ij = dL/ds_ij / sqrt(d_k)   with scale sqrt_dk (else / 1)
 *   dL/dq_i  = sum_j dL/dqkt_ij k_j     (head k's columns of Q and K)
 *   dL/dk_j += dL/dqkt_ij q_i
 *   dL/dWq  = H^T dL/dQ,  dL/dWk = H^T dL/dK   (H = X + P, or X)
 *
 * Today's models (attn.h) are all learned through: a window masks like the
 * causal mask; with kv_heads g < h, dL/dK is n x g*d_k and the query heads
 * that share a K/V head add into its columns (dL/dWk is d_model x g*d_k);
 * with RoPE, Q = rot(Q0) row by row, so dL/dQ0 = rot^T dL/dQ (each pair
 * turned back by its angle) before it reaches W; the online softmax gives
 * the same A, so the same gradient. Nothing is refused for them.
 *
 * A step is W <- W - lr dL/dW on Wq and Wk only; X, Wv (and Wo) never
 * change. Overridden rows of Q or K do not come from W, so a step is
 * refused while one is in place (grad_ready). Everything here reads the
 * pipeline's own results (A, Q, K, H) through the state; grad_descend()
 * runs the pipeline itself between steps. No strings, no allocation in the
 * hot path beyond the caller's matrices. Indices are 0-based. */
#ifndef QKV_GRAD_H
#define QKV_GRAD_H

#include <stdbool.h>
#include "attn.h"

#define GRAD_STEP_MAX 10000

/* The number of heads, and each head's d_k (columns of Q and K per head). */
int grad_heads(const Attn *a);
int grad_head_dk(const Attn *a);
/* Head k's attention weights, A^k (n x n). */
const Mat *grad_head_A(const Attn *a, int k);

/* The index of the target on (head, row), or -1. */
int grad_find(const Attn *a, int head, int row);
/* Set (t non-NULL: n = attn_tokens values) or clear (t NULL) the target of
 * (head, row), keeping the list ordered. Returns false when out of memory;
 * the state is then unchanged. Does not validate t (grad_check_dist). */
bool grad_set_target(Attn *a, int head, int row, const double *t);

/* What is wrong with a distribution for row `row` of a target. */
typedef enum {
    GRAD_DIST_OK,
    GRAD_DIST_WIDTH,      /* not one value per key (bad = the count given) */
    GRAD_DIST_NOT_FINITE, /* bad = the entry */
    GRAD_DIST_NEGATIVE,   /* bad = the entry */
    GRAD_DIST_MASKED,     /* weight on a masked key: bad = the key */
    GRAD_DIST_SUM         /* does not sum to 1 (within 1e-9) */
} GradDist;
GradDist grad_check_dist(const Attn *a, int row, const double *t, int n, int *bad);

/* Why a step cannot be taken. */
typedef enum {
    GRAD_READY,
    GRAD_NO_TARGET,     /* nothing to learn */
    GRAD_OVERRIDE,      /* *mat (M_Q or M_K) row *row is set by hand */
    GRAD_MASKED_TARGET, /* target *k's row *row puts weight on key *col, now masked */
    GRAD_NOT_FINITE     /* A of a target row (*row) is not finite: no gradient */
} GradTrouble;
/* Can a step be taken from state a (which must have reached the softmax for
 * the NOT_FINITE check; otherwise that check is skipped)? The out
 * parameters say where (any may be NULL). */
GradTrouble grad_ready(const Attn *a, MatId *mat, int *k, int *row, int *col);

/* One target's loss, -sum_j t_j ln A_ij (masked keys have t_j = 0 and are
 * left out), and the sum over all targets. Need a->reached >= softmax. */
double grad_target_loss(const Attn *a, const AttnTarget *t);
double grad_loss(const Attn *a);

/* dL/dWq and dL/dWk of the current state into gq and gk, (re)shaped like
 * Wq and Wk. Needs a->reached >= softmax. Rows of Q and K that are
 * overridden count as constants (their gradient does not reach W). Returns
 * false when out of memory. */
bool grad_compute(const Attn *a, Mat *gq, Mat *gk);

/* Take `steps` steps of gradient descent: each runs the pipeline to the
 * softmax, records the loss (a->loss_hist; setting a target starts the
 * history again), computes the gradient and moves Wq and Wk by -lr times it. On
 * return the pipeline is reached only to stage 1 (the Ws changed): the
 * caller recomputes. Returns false (a unchanged in its Ws) when out of
 * memory, or when a step would make a weight not finite. */
bool grad_descend(Attn *a, int steps);

/* The chain rule for one target row, with the real numbers: what the view
 * and --dump write out. `key` is the focused key column j. */
typedef struct {
    int head, row, key;       /* 0-based */
    int n, d_k, d_model;      /* tokens, head's d_k, columns of H */
    int lo, vis;              /* keys lo..vis-1 take part (the rest are masked) */
    int kv_head;              /* the K/V head (0-based) the target's head reads */
    bool rope;                /* positions: rope: dq is for the rotated q_i, dq0 turned back */
    double temp, divisor;     /* T, and sqrt(d_k) with scaling (else 1) */
    bool scaled;
    double loss;              /* this row's -sum t ln alpha */
    double alpha[MAT_MAX];    /* A^k_i */
    double t[MAT_MAX];        /* the target */
    double ds[MAT_MAX];       /* dL/ds_ij = (alpha_ij - t_j) / T */
    double dz[MAT_MAX];       /* alpha_ij - t_j */
    double dq[MAT_MAX];       /* dL/dq_i over the head's d_k columns */
    double dq0[MAT_MAX];      /* dL/dq0_i, what reaches W_Q: dq turned back by the row's
                                 angles with RoPE, else dq itself */
    double dk[MAT_MAX];       /* this row's part of dL/dk_key: dL/dqkt_i,key * q_i */
    double q[MAT_MAX];        /* q_i (head's columns) */
    double h[MAT_MAX];        /* h_i (d_model) */
    double hk[MAT_MAX];       /* h_key (d_model) */
} GradExplain;
/* Fill e for the target at index `ti` of a->target, key column `key`.
 * Returns false when ti is not a target or the softmax is not reached. */
bool grad_explain(const Attn *a, int ti, int key, GradExplain *e);

#endif
