/* attn.h - the five-stage self-attention pipeline, computed one stage at a time.
 *
 *   1 input    X (given); P = sinusoidal positions and H = X + P when
 *              positions is POS_SINUSOIDAL (else P = 0 and H = X)
 *   2 qkv      Q = H Wq, K = H Wk, V = H Wv   (rows marked overridden are kept;
 *              without positions X itself is projected, bit for bit as before)
 *   3 scores   QKt = Q K^T, S = QKt / sqrt(d_k) when scale is SCALE_SQRT_DK;
 *              under MASK_CAUSAL S[i][j] = -inf for j > i (QKt stays raw)
 *   4 softmax  A = row-wise softmax of S / temp (naive exp(z), or stable
 *              exp(z - max)); masked entries are exactly 0
 *   5 output   O = A V
 *
 * tok[i] says which of the lesson's tokens sits in row i (the identity until
 * attn_swap_tokens() trades two rows): the core holds no strings, the
 * lesson layer names rows with it.
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
typedef enum { MASK_NONE, MASK_CAUSAL } Mask;
typedef enum { POS_NONE, POS_SINUSOIDAL } Positions;

/* The temperature's range, both ends allowed; 1 is the plain softmax. */
#define ATTN_TEMP_MIN 0.05
#define ATTN_TEMP_MAX 20.0

/* Every matrix of the pipeline, by a stable index (also used by lessons,
 * actions and the view). Parameters are Wq, Wk, Wv; the rest are results.
 * P (positions) and H = X + P are stage 1's, after O so the old indices
 * keep their values. */
typedef enum { M_X, M_WQ, M_WK, M_WV, M_Q, M_K, M_V, M_QKT, M_S, M_A, M_O, M_P, M_H, M_COUNT } MatId;

/* A training target (grad.h): row `row` of head `head`'s A should become
 * the distribution t (non-negative, summing to 1, 0 wherever masked). */
typedef struct {
    int head, row;             /* 0-based */
    double t[MAT_MAX];
} AttnTarget;

#define ATTN_LR_DEFAULT 0.5

typedef struct {
    Mat m[M_COUNT];
    bool override[3][MAT_MAX]; /* rows of Q, K, V set by hand (index m - M_Q) */
    Scale scale;
    Softmax softmax;
    Mask mask;
    double temp;               /* ATTN_TEMP_MIN..ATTN_TEMP_MAX, 1 by default */
    Positions positions;
    int tok[MAT_MAX];          /* row i shows the lesson's token tok[i] */
    int reached;               /* last stage computed, 0..5 */
    double lr;                 /* training: the learning rate, > 0 (ATTN_LR_DEFAULT) */
    int ntarget;               /* training: the targets, ordered by (head, row); owned */
    AttnTarget *target;
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

/* Is S[i][j] hidden by the mask (causal: a key after the query)? */
bool attn_masked(const Attn *a, int i, int j);
/* The sinusoidal position value P[p][c] for d_model columns:
 * sin(p / 10000^(2m/d_model)) for c = 2m, cos(the same) for c = 2m + 1. */
double attn_pos(int p, int c, int d_model);
/* The angle p / 10000^(2m/d_model) of column c (m = c / 2). */
double attn_pos_angle(int p, int c, int d_model);
/* Trade tokens i and j (0-based): their rows of X, their overridden rows of
 * Q, K and V (values and marks) and their names (tok). P stays with the
 * positions. Nothing is recomputed: reached drops to 0. */
void attn_swap_tokens(Attn *a, int i, int j);
/* Do two states' option settings (scale, softmax, mask, temp, positions) agree? */
bool attn_same_options(const Attn *a, const Attn *b);

#endif
