/* attn.h - the five-stage self-attention pipeline, computed one stage at a time.
 *
 *   1 input    X                         (given)
 *   2 qkv      Q = X Wq, K = X Wk, V = X Wv   (rows marked overridden are kept)
 *   3 scores   QKt = Q K^T, S = QKt / sqrt(d_k) when scale is SCALE_SQRT_DK
 *   4 softmax  A = row-wise softmax of S (naive exp(s), or stable exp(s - max))
 *   5 output   O = A V
 *
 * An Attn owns all its matrices. The caller fills X, Wq, Wk, Wv (and any
 * overridden rows of Q, K, V), then calls attn_run_stage(a, 1), (a, 2), ...
 * in order: stage k reads only what stage k-1 produced. attn_run_to(a, k)
 * runs 1..k. `reached` is the last stage computed; stages above it hold
 * stale numbers and must be drawn as placeholders. */
#ifndef QKV_ATTN_H
#define QKV_ATTN_H

#include <stdbool.h>
#include "mat.h"

enum { STAGE_NONE = 0, STAGE_INPUT = 1, STAGE_QKV, STAGE_SCORES, STAGE_SOFTMAX,
       STAGE_OUTPUT, STAGE_COUNT = STAGE_OUTPUT };

typedef enum { SCALE_NONE, SCALE_SQRT_DK } Scale;
typedef enum { SOFTMAX_NAIVE, SOFTMAX_STABLE } Softmax;

/* Every matrix of the pipeline, by a stable index (also used by lessons,
 * actions and the view). Parameters are Wq, Wk, Wv; the rest are results. */
typedef enum { M_X, M_WQ, M_WK, M_WV, M_Q, M_K, M_V, M_QKT, M_S, M_A, M_O, M_COUNT } MatId;

typedef struct {
    Mat m[M_COUNT];
    bool override[3][MAT_MAX]; /* rows of Q, K, V set by hand (index m - M_Q) */
    Scale scale;
    Softmax softmax;
    int reached;               /* last stage computed, 0..5 */
} Attn;

/* Shape the state for n tokens, d_model features, d_k and d_v columns.
 * All matrices are zero; nothing is reached. Returns false on bad sizes
 * (outside 1..MAT_MAX) or when out of memory. */
bool attn_init(Attn *a, int n, int d_model, int d_k, int d_v);
void attn_free(Attn *a);
/* Deep copy; dst may be uninitialised-but-zeroed or a previous Attn. */
bool attn_copy(Attn *dst, const Attn *src);
/* Compute `stage` from stage-1's results. Requires a->reached >= stage-1. */
void attn_run_stage(Attn *a, int stage);
void attn_run_to(Attn *a, int stage);

int attn_tokens(const Attn *a);
int attn_d_model(const Attn *a);
int attn_d_k(const Attn *a);
int attn_d_v(const Attn *a);

const char *attn_mat_name(MatId id);      /* "X", "Wq", ..., "QKt", "S", "A", "O" */
int attn_mat_lookup(const char *name, int len); /* MatId or -1 */
int attn_mat_stage(MatId id);             /* the stage that produces it (W*: 1) */
bool attn_mat_is_param(MatId id);
const char *attn_stage_key(int stage);    /* "input", "qkv", ... */
/* The matrix a stage computes, the one its arithmetic explains:
 * X, Q (first of Q, K, V), S, A, O. */
MatId attn_stage_mat(int stage);

/* Why row i of A is not finite, or ATTN_FINE. The naive softmax overflows
 * when a score passes log(DBL_MAX), about 709.78, and gives 0/0 when every
 * score is below about -745.13, where exp underflows to 0. */
typedef enum { ATTN_FINE, ATTN_SCORES_NOT_FINITE, ATTN_EXP_OVERFLOW, ATTN_EXP_UNDERFLOW, ATTN_NOT_FINITE } AttnTrouble;
AttnTrouble attn_row_trouble(const Attn *a, int i);

#endif
