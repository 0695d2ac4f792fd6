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
 *   6 project  Y = O Wo   (only with W_O: heads >= 2 or a lesson's d_out)
 *
 * Heads. With heads = h >= 2, Wq and Wk are d_model x h*d_k and Wv is
 * d_model x h*d_v; head k (1-based) takes columns (k-1)*d_k .. k*d_k-1 of Q
 * and K and (k-1)*d_v .. of V. Stages 3-5 run once per head on the head's
 * own matrices (attn_head_id(M_S, k) is head k's S, named "S2" etc.), O is
 * the heads' outputs side by side (n x h*d_v) and stage 6 gives Y = O Wo.
 * QKt, S and A themselves then hold head 1's numbers. With one head the
 * head ids are not allocated and nothing changes: S is S1.
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
       STAGE_OUTPUT, STAGE_PROJECT, STAGE_COUNT = STAGE_OUTPUT, STAGE_MAX = STAGE_PROJECT };

#define ATTN_HEADS_MAX 16
#define ATTN_HM_N 7        /* per-head matrices: Q K V QKt S A O */

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
typedef enum {
    M_X, M_WQ, M_WK, M_WV, M_Q, M_K, M_V, M_QKT, M_S, M_A, M_O, M_P, M_H,
    M_WO, M_Y,                      /* W_O (a parameter) and Y = O Wo, stage 6 */
    M_HEAD0,                        /* head 1's Q, then K V QKt S A O, then head 2's ... */
    M_COUNT = M_HEAD0 + ATTN_HEADS_MAX * ATTN_HM_N
} MatId;

/* A training target (grad.h): row `row` of head `head`'s A should become
 * the distribution t (non-negative, summing to 1, 0 wherever masked). */
typedef struct {
    int head, row;             /* 0-based */
    double t[MAT_MAX];
} AttnTarget;

#define ATTN_LR_DEFAULT 0.5
#define ATTN_LOSS_HIST 48

typedef struct {
    Mat m[M_COUNT];
    bool override[3][MAT_MAX]; /* rows of Q, K, V set by hand (index m - M_Q) */
    Scale scale;
    Softmax softmax;
    Mask mask;
    double temp;               /* ATTN_TEMP_MIN..ATTN_TEMP_MAX, 1 by default */
    Positions positions;
    int tok[MAT_MAX];          /* row i shows the lesson's token tok[i] */
    int reached;               /* last stage computed, 0..6 */
    int heads;                 /* 1..ATTN_HEADS_MAX */
    bool has_wo;               /* W_O and Y exist: stage 6 */
    /* Which heads' parts of an overridden row (override[p][i]) were set by
     * hand: bit k-1 for head k; 0 means the whole row. */
    unsigned short ovh[3][MAT_MAX];
    double lr;                 /* training: the learning rate, > 0 (ATTN_LR_DEFAULT) */
    int ntarget;               /* training: the targets, ordered by (head, row); owned */
    AttnTarget *target;
    int nloss;                 /* training: the loss before each step since the targets were set, */
    double loss_hist[ATTN_LOSS_HIST]; /* the last ATTN_LOSS_HIST of them, oldest first */
} Attn;

/* Shape the state for n tokens, d_model features, d_k and d_v columns.
 * All matrices are zero; nothing is reached. Returns false on bad sizes
 * (outside 1..MAT_MAX) or when out of memory. */
bool attn_init(Attn *a, int n, int d_model, int d_k, int d_v);
/* The same with h heads of d_k and d_v columns each (h*d_k and h*d_v at
 * most MAT_MAX) and, when d_out > 0, W_O (h*d_v x d_out) and Y. */
bool attn_init_heads(Attn *a, int n, int d_model, int heads, int d_k, int d_v, int d_out);
void attn_free(Attn *a);
/* Deep copy; dst may be uninitialised-but-zeroed or a previous Attn. */
bool attn_copy(Attn *dst, const Attn *src);
/* Compute `stage` from stage-1's results. Requires a->reached >= stage-1. */
void attn_run_stage(Attn *a, int stage);
void attn_run_to(Attn *a, int stage);
/* After a training step changed Wq and Wk (stage 2 reached): Q and K
 * projected again, V kept; reached becomes the qkv stage. */
void attn_rerun_qk(Attn *a);

int attn_tokens(const Attn *a);
int attn_d_model(const Attn *a);
int attn_d_k(const Attn *a);     /* per head */
int attn_d_v(const Attn *a);     /* per head */
int attn_heads(const Attn *a);
int attn_d_out(const Attn *a);   /* 0 without W_O */
int attn_last_stage(const Attn *a); /* 6 with W_O, else 5 */

/* Head k's (1-based) id of a per-head matrix base (M_Q .. M_O). */
static inline MatId attn_head_id(MatId base, int head)
{
    return (MatId)(M_HEAD0 + (head - 1) * ATTN_HM_N + (base - M_Q));
}
/* M_Q .. M_O for a head's id, else id itself. */
MatId attn_mat_base(MatId id);
/* The head (1-based) of a per-head id, 0 for the others. */
int attn_mat_head(MatId id);
/* What a student means by base (M_Q .. M_O) in head k of a: with one head
 * (or head 0) the base matrix itself, else head k's. */
MatId attn_shown(const Attn *a, MatId base, int head);
/* Is row i of Q/K/V (p = 0, 1, 2) set by hand in column c? */
bool attn_cell_overridden(const Attn *a, int p, int i, int c);

const char *attn_mat_name(MatId id);      /* "X", "Wq", ..., "QKt", "S", "A", "O", "Wo", "Y", "S2" */
int attn_mat_lookup(const char *name, int len); /* MatId or -1 */
int attn_mat_stage(MatId id);             /* the stage that produces it (W*: 1) */
bool attn_mat_is_param(MatId id);
const char *attn_stage_key(int stage);    /* "input", "qkv", ... */
/* The matrix a stage computes, the one its arithmetic explains:
 * X, Q (first of Q, K, V), S, A, O. */
MatId attn_stage_mat(int stage);

/* Why row i of A (of head k's A for attn_row_trouble_head) is not finite, or ATTN_FINE. The naive softmax overflows
 * when a score passes log(DBL_MAX), about 709.78, and gives 0/0 when every
 * score is below about -745.13, where exp underflows to 0. */
typedef enum { ATTN_FINE, ATTN_SCORES_NOT_FINITE, ATTN_EXP_OVERFLOW, ATTN_EXP_UNDERFLOW, ATTN_NOT_FINITE } AttnTrouble;
AttnTrouble attn_row_trouble(const Attn *a, int i);
AttnTrouble attn_row_trouble_head(const Attn *a, int head, int i);

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
