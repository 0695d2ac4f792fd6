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
 * stale numbers and must be drawn as placeholders.
 *
 * Today's models (DESIGN.md "Attention in today's models"), each off by
 * default so that older states give the same numbers bit for bit:
 *   MASK_WINDOW   S[i][j] = -inf unless i - window < j <= i (causal is a
 *                 window of n); the visible keys of row i are always one
 *                 run lo..hi-1 (attn_visible).
 *   kv_heads g    grouped-query attention: Wk is d_model x g*d_k, Wv is
 *                 d_model x g*d_v, K and V have g heads; query head k uses
 *                 K/V head attn_kv_head(a, k) = floor((k-1) g / h) + 1, and
 *                 the per-head ids K2, V2 hold the K/V head that query head 2
 *                 uses. O stays n x h*d_v. g = h is plain multi-head.
 *   POS_ROPE      rotary positions (rope.c): after projection, in each head,
 *                 columns (2m, 2m+1) of q and k (0-based in the head) turn by
 *                 theta = p * rope_base^(-2m/d_k), p = row + offset. Q and K
 *                 hold the rotated rows; Q0 and K0 (allocated by
 *                 attn_set_positions) the rows before. V is not rotated; H = X.
 *                 Rows of Q or K set by hand are kept as they are, unrotated.
 *   offset        the first token's position (sinusoidal P and RoPE).
 *   SOFTMAX_ONLINE FlashAttention's online softmax (online.c), keys in blocks
 *                 of `block`: stage 4 keeps the running max m and sum l and
 *                 gives A = exp(z - m) / l; stage 5 runs the blocks again with
 *                 V, the running output rescaled by e^(m_old - m_new), and
 *                 gives O = o / l. Both equal the plain softmax's to ~1e-15.
 *   attn_append   a token at the end (append.c); attn_append_work counts what
 *                 a KV cache saves and which earlier rows changed.
 * attn_check_options() says which of these settings is out of range. */
#ifndef QKV_ATTN_H
#define QKV_ATTN_H

#include <stdbool.h>
#include "mat.h"

enum { STAGE_NONE = 0, STAGE_INPUT = 1, STAGE_QKV, STAGE_SCORES, STAGE_SOFTMAX,
       STAGE_OUTPUT, STAGE_PROJECT, STAGE_COUNT = STAGE_OUTPUT, STAGE_MAX = STAGE_PROJECT };

#define ATTN_HEADS_MAX 16
#define ATTN_HM_N 7        /* per-head matrices: Q K V QKt S A O */

typedef enum { SCALE_NONE, SCALE_SQRT_DK } Scale;
typedef enum { SOFTMAX_NAIVE, SOFTMAX_STABLE, SOFTMAX_ONLINE } Softmax;
typedef enum { MASK_NONE, MASK_CAUSAL, MASK_WINDOW } Mask;
typedef enum { POS_NONE, POS_SINUSOIDAL, POS_ROPE } Positions;
/* Self-attention (K and V from the tokens' own rows) or cross-attention (K
 * and V from a source sequence's rows Xs; see attn_init_cross). */
typedef enum { ATTENTION_SELF, ATTENTION_CROSS } Attention;

#define ATTN_ROPE_BASE_DEFAULT 10000.0
#define ATTN_BLOCK_DEFAULT 2
#define ATTN_OFFSET_MAX 1000000

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
    M_HEAD_END = M_HEAD0 + ATTN_HEADS_MAX * ATTN_HM_N,
    M_Q0 = M_HEAD_END, M_K0,        /* RoPE: Q and K before rotation (stage 2), only
                                       allocated by attn_set_positions(a, POS_ROPE) */
    M_XS,                           /* cross-attention: the source's rows (n_source x d_model),
                                       given like X; only allocated by attn_init_cross */
    M_COUNT
} MatId;

/* A training target (grad.h): row `row` of head `head`'s A should become
 * the distribution t (non-negative, summing to 1, 0 wherever masked). */
typedef struct {
    int head, row;             /* 0-based */
    double t[MAT_MAX];
} AttnTarget;

#define ATTN_LR_DEFAULT 0.5
#define ATTN_NAME_BYTES 32         /* an appended token's name, at most */
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
    /* Today's models (see the top of this file) */
    int window;                /* MASK_WINDOW: each query sees its last `window` keys, >= 1 */
    int kv_heads;              /* K/V heads g, divides heads (set by attn_init_kv) */
    double rope_base;          /* POS_ROPE: B of theta = p * B^(-2m/d_k), > 1 (10000) */
    int offset;                /* the first token's position, 0..ATTN_OFFSET_MAX (0) */
    int block;                 /* SOFTMAX_ONLINE: keys per block, >= 1 (2) */
    /* The names of tokens appended by an action (owned: freed and copied
     * with the state; room for MAT_MAX, allocated on the first append). The
     * core numbers rows only: the lesson gives an appended row a tok[] id
     * that says which of these names it has (lesson/action.h). */
    int ntok_name;
    char (*tok_name)[ATTN_NAME_BYTES + 1];
    /* Cross-attention and padding keys (DESIGN.md "From a head to a model"):
     * with ATTENTION_CROSS, Q = X Wq from the target rows, K = Xs Wk and
     * V = Xs Wv from the source rows, S and A are n x n_source, O has a row
     * per target token. pad[j] = 1 marks key j (a source row with cross, a
     * token without) as padding: S = -inf there before the softmax and
     * A = 0 exactly after. Padding keys come last (attn_check_options). */
    Attention attention;
    unsigned char pad[MAT_MAX];
} Attn;

/* Shape the state for n tokens, d_model features, d_k and d_v columns.
 * All matrices are zero; nothing is reached. Returns false on bad sizes
 * (outside 1..MAT_MAX) or when out of memory. */
bool attn_init(Attn *a, int n, int d_model, int d_k, int d_v);
/* The same with h heads of d_k and d_v columns each (h*d_k and h*d_v at
 * most MAT_MAX) and, when d_out > 0, W_O (h*d_v x d_out) and Y. */
bool attn_init_heads(Attn *a, int n, int d_model, int heads, int d_k, int d_v, int d_out);
/* The same with g = kv_heads K/V heads (1..heads, dividing heads): Wk is
 * d_model x g*d_k, Wv d_model x g*d_v, K n x g*d_k, V n x g*d_v. */
bool attn_init_kv(Attn *a, int n, int d_model, int heads, int kv_heads, int d_k, int d_v, int d_out);
/* Cross-attention: n target tokens attend over ns source rows (Xs, ns x
 * d_model): Q has n rows, K and V ns rows, QKt, S and A are n x ns. */
bool attn_init_cross(Attn *a, int n, int ns, int d_model, int heads, int kv_heads, int d_k, int d_v, int d_out);
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
/* The keys each query row scores: n_source with cross-attention, else n. */
int attn_keys(const Attn *a);
/* Is key j (0-based) padding? The keys before the first padding one. */
bool attn_is_pad(const Attn *a, int j);
int attn_real_keys(const Attn *a);
bool attn_is_cross(const Attn *a);
int attn_d_model(const Attn *a);
int attn_d_k(const Attn *a);     /* per head */
int attn_d_v(const Attn *a);     /* per head */
int attn_heads(const Attn *a);
int attn_kv_heads(const Attn *a); /* g: heads of K and V (= heads unless grouped) */
/* The K/V head (1-based) that query head `head` (1-based) reads:
 * floor((head - 1) * g / h) + 1. */
int attn_kv_head(const Attn *a, int head);
/* Numbers a KV cache keeps per token: g*d_k of K and g*d_v of V. */
int attn_cache_per_token(const Attn *a);
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

/* Is S[i][j] hidden by the mask (causal: a key after the query; window:
 * also a key `window` or more before it)? */
bool attn_masked(const Attn *a, int i, int j);
/* The keys query row i sees: lo .. hi-1 (0-based), never empty. */
void attn_visible(const Attn *a, int i, int *lo, int *hi);
/* Draw the weights as numpy's np.random.seed(seed) then randn(rows, cols) *
 * scale: Wq, Wk, Wv, then Wo when the state has it (with g = h the draws a
 * lesson has always made). */
void attn_draw_weights(Attn *a, unsigned long seed, double scale);
/* Switch positions; POS_ROPE allocates Q0 and K0 (kept afterwards). Returns
 * false, nothing changed, when out of memory. Nothing is recomputed. */
bool attn_set_positions(Attn *a, Positions p);
/* The position of row i: i + offset. */
int attn_position(const Attn *a, int i);

/* What is out of range among the options (attn_check_options). */
typedef enum {
    ATTN_OPT_OK,
    ATTN_OPT_WINDOW,        /* MASK_WINDOW with window < 1 */
    ATTN_OPT_KV_HEADS,      /* kv_heads outside 1..heads or not dividing heads */
    ATTN_OPT_ROPE_ODD_DK,   /* POS_ROPE with an odd d_k */
    ATTN_OPT_ROPE_BASE,     /* POS_ROPE with rope_base not finite or <= 1 */
    ATTN_OPT_OFFSET,        /* offset outside 0..ATTN_OFFSET_MAX */
    ATTN_OPT_BLOCK,         /* SOFTMAX_ONLINE with block < 1 */
    ATTN_OPT_CROSS_MASK,    /* a causal mask or a window with cross-attention */
    ATTN_OPT_CROSS_POS,     /* positions with cross-attention */
    ATTN_OPT_PAD_ORDER,     /* a padding key before a real one */
    ATTN_OPT_PAD_ALL,       /* a query row that sees only padding keys */
} AttnOpt;
AttnOpt attn_check_options(const Attn *a);

/* ---- RoPE (rope.c) ---- */
/* theta = p * base^(-2m/d_k) for pair m (0-based) of a head of d_k columns. */
double attn_rope_theta(int p, int m, int d_k, double base);
/* Rotate row i of Q (p = 0) or K (p = 1) in place, every head, except the
 * cells set by hand: (x, y) -> (x cos t - y sin t, x sin t + y cos t). */
void attn_rope_row(Attn *a, int p, int i);
/* Turn a gradient row back: (dx, dy) -> (dx cos t + dy sin t, -dx sin t + dy cos t),
 * the transpose of the rotation of row i (width cols, heads of d_k). */
void attn_rope_unrow(const Attn *a, double *row, int cols, int i);

/* ---- online softmax (online.c) ---- */
/* One block of keys of the online softmax of one query row. */
typedef struct {
    int k0, k1;          /* keys k0 .. k1-1 (0-based) */
    int v0, v1;          /* the visible ones among them; v0 == v1: masked whole, skipped */
    double bmax;         /* the block's largest z = s / T (visible keys) */
    double m_old, m_new; /* the running max before and after the block */
    double rescale;      /* e^(m_old - m_new): what l and o are multiplied by */
    double l_old, l_new; /* the running sum before and after */
    double o_old, o_new; /* one column of the running output (attn_online_out) */
} AttnBlock;
/* The online softmax of row s (n scores; keys lo..hi-1 visible) in blocks
 * of `block`: fills b (ceil(n / block) blocks), p[k] = e^(z_k - m_new of
 * k's block) (0 outside lo..hi-1), *m and *l the final max and sum; w (may
 * be NULL) gets A's row, e^(z_k - m) / l. Returns the number of blocks. */
int attn_online_row(const double *s, int n, int lo, int hi, double temp, int block, AttnBlock *b, double *p,
                    double *m, double *l, double *w);
/* Column `col` of the output over those blocks: o = o * rescale + sum of
 * p_k v_kc per block (each block's o_old, o_new filled); returns o / l. */
double attn_online_out(AttnBlock *b, int nb, const double *p, const Mat *v, int col);

/* ---- appending a token (append.c) ---- */
/* Add a token at the end with its row x of X (d = d_model values): every
 * matrix with a row per token grows by one (X's and hand-set Q/K/V rows are
 * kept, targets get weight 0 on the new key), then the stages reached are
 * computed again. false, nothing changed, when n is already MAT_MAX, d is
 * not d_model, or out of memory. */
bool attn_append(Attn *a, const double *x, int d);
/* The index of an appended token's name in a->tok_name, added when new
 * (cut to ATTN_NAME_BYTES); -1, nothing changed, when out of memory or
 * MAT_MAX names are already there. */
int attn_name_index(Attn *a, const char *name);
/* Name k of a->tok_name, or NULL when there is no such name. */
const char *attn_name_at(const Attn *a, int k);
/* What appending saved, comparing the states before and after. Counts are
 * per head (`heads` of them). */
typedef struct {
    int n;                /* tokens after the append */
    int heads;
    int rows_new;         /* rows of Q, K, V computed for the new token: 1 */
    int scores_new;       /* scores the new row computes: its visible keys */
    int rows_full;        /* a full recompute: n rows of Q, K, V ... */
    int scores_full;      /* ... and n*n scores */
    bool exact;           /* every earlier row of Q, K, V, S, A, O (every head, and
                             Y) is unchanged bit for bit, the new key masked there */
    int nstale;           /* earlier rows whose S, A, O or Y changed */
    bool kv_kept;         /* every earlier row of K and V is unchanged (in this layer
                             the cache still holds; the changed outputs are what a
                             later layer's K and V are made from) */
    int scores_col;       /* earlier rows that see the new key: a new score each */
    bool stale[MAT_MAX];  /* which (0-based) */
} AttnWork;
/* false when `after` is not `before` plus one token (or not reached to the
 * output in both). */
bool attn_append_work(const Attn *before, const Attn *after, AttnWork *w);
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
