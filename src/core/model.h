/* model.h - a whole transformer: embedding, 1-8 pre-norm blocks, the
 * unembedding and the next token's p (DESIGN.md "From a head to a model").
 *
 * Computation, per layer l (1-based) and stage, in this order (a stage
 * computes only from the one before; sums run k = 0, 1, ... from 0.0):
 *   1 embed    h_in = E[tok_i] + Ppos_i for layer 1 (Ppos_i = P[i + offset]
 *              with learned positions, the sinusoid attn_pos(i + offset, j,
 *              d_model) with sinusoidal ones, 0 with rope or none), else the
 *              previous layer's h; a = Norm1(h_in) (a copy with norm none).
 *              a is the layer's Attn X (att.m[M_X]); the Attn's options are
 *              set from cfg.attn[l-1] here, and its stage 1 runs (H = X).
 *   2 qkv      \
 *   3 scores    > the Attn pipeline (attn.c) on a, stages 2-5, every option
 *   4 softmax   | (scale, mask, window, temperature, kv_heads, RoPE, the
 *   5 output   /  online softmax); then ablated heads' O_k and columns of O = 0
 *   6 project  Y = O Wo (the Attn's stage 6), h_mid = h_in + Y;
 *              with d_ff = 0 also h = h_mid (there is no stage 7)
 *   7 ffn      b = Norm2(h_mid), u = b W1 + b1 (each cell (sum) + b1_j),
 *              f = act(u), h = h_mid + ((f W2)_ij + b2_j)
 *   8 next     after the last layer only: h_final = Norm_f(h) (a copy with
 *              norm none), logits = h_final WU (tied: h_final E^T, sums over
 *              k of h_ik E_jk), p = softmax(logits / T_s) per row (stable:
 *              z = l / T_s, e = exp(z - max z), p = e / sum e).
 * Norms, per row x of d numbers:
 *   layernorm  mu = (sum x_k) / d, var = (sum (x_k - mu)^2) / d (population),
 *              sigma = sqrt(var + eps), y_j = ((x_j - mu) / sigma) * g_j + beta_j
 *   rmsnorm    mu = 0, var = (sum x_k^2) / d (the mean square), sigma =
 *              sqrt(var + eps), y_j = (x_j / sigma) * g_j
 * Activations: relu(x) = x > 0 ? x : 0; gelu(x) = x * Phi(x), Phi(x) =
 * 0.5 * (1 + erf(x / sqrt 2)) (exact, torch's F.gelu default).
 *
 * Sizes. layers 1..8, d_model 1..64, heads 1..16 with heads*d_k and
 * heads*d_v <= 64 (one Attn per layer), ctx and the input 1..64, vocab
 * 2..128, d_ff 0..256. The vocab (128) and d_ff (256) exceed MAT_MAX (64,
 * the lesson limit, unchanged): mat_new allocates up to MAT_ALLOC_MAX (256)
 * in each dimension instead (mat.h), and only the model's own matrices use
 * the room (E, WU, W1, W2, b1, u, f, logits, p); every lesson limit, number
 * and cost stays as it was.
 *
 * Parameters by name (DESIGN.md): E (vocab x d), P (ctx x d, learned
 * positions only), per layer L1.Wq L1.Wk L1.Wv L1.Wo (the Attn's), L1.g1
 * L1.beta1 (Norm1: layernorm has both, rmsnorm only g, none neither), L1.W1
 * (d x d_ff) L1.b1 (1 x d_ff) L1.W2 (d_ff x d) L1.b2 (1 x d) L1.g2 L1.beta2
 * (only with d_ff > 0), then gf betaf (Norm_f) and WU (d x vocab, separate
 * unembedding only). Vectors are 1-row matrices. Results: L1.h_in L1.a
 * L1.h_mid L1.b L1.u L1.f L1.h, the Attn's L1.Q L1.K L1.V L1.QKt L1.S L1.A
 * L1.O L1.Y (and per head L1.Q2, L1.A2 ..., RoPE's L1.Q0 L1.K0), then
 * h_final, logits, p. With one layer the "L1." may be left out.
 * Random weights: one numpy-legacy stream seeded with seed, each drawn as
 * randn(rows, cols) * scale in this order: E, P (learned only), per layer
 * Wq (d x h*d_k), Wk (d x g*d_k), Wv (d x g*d_v), Wo (h*d_v x d), W1 and W2
 * (d_ff > 0), last WU (separate only). Gains are 1, biases and betas 0.
 *
 * Scores of a head (layer l, head k, its A = the weights of the n rows):
 *   previous-token  mean over rows i = 1 .. n-1 (0-based) of A[i][i-1];
 *                   none when n = 1.
 *   induction       R = the rows i whose token occurred earlier (tok_j =
 *                   tok_i for some j < i); for i in R, s_i = the sum of
 *                   A[i][t] over the set T_i = {j + 1 : j < i, tok_j =
 *                   tok_i} (each position once; j + 1 <= i); the score is
 *                   the mean of s_i over R; none when R is empty. For a
 *                   random sequence of distinct tokens repeated once (length
 *                   2T) it is Olsson et al.'s mean of A[i][i - T + 1] over
 *                   the second half.
 *
 * Prediction: from the last row of p. Greedy: the argmax, the lowest index
 * on ties. Sampled: as numpy's RandomState(seed).choice(vocab, p=row): cdf =
 * cumsum(row) (in order), cdf /= cdf[-1], u = random_sample() (one 53-bit
 * double), the index = searchsorted(cdf, u, side='right') = how many cdf
 * entries are <= u (clamped to vocab - 1).
 *
 * A Model owns all its matrices (the struct itself is about 56 KB: keep it
 * on the heap). No I/O, no globals, deterministic. Indices
 * here are 0-based except layers and heads (1-based, as in names). */
#ifndef QKV_MODEL_H
#define QKV_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include "attn.h"
#include "rng.h"

#define MODEL_LAYERS_MAX 8
#define MODEL_D_MAX 64          /* d_model */
#define MODEL_CTX_MAX 64
#define MODEL_VOCAB_MIN 2
#define MODEL_VOCAB_MAX 128
#define MODEL_D_FF_MAX 256
#define MODEL_EPS_DEFAULT 1e-5
#define MODEL_EPS_MAX 1.0
#define MODEL_TERMS_MAX 256     /* the longest sum an explained cell has (d_ff) */

typedef enum { ACT_RELU, ACT_GELU } Act;
typedef enum { NORM_NONE, NORM_LAYER, NORM_RMS } NormKind;
typedef enum { MPOS_LEARNED, MPOS_SINUSOIDAL, MPOS_ROPE, MPOS_NONE } ModelPos;
typedef enum { UNEMBED_SEPARATE, UNEMBED_TIED } Unembed;

/* The model's stages (a layer's 1-7, then 8 after the last layer). */
enum { MSTAGE_NONE = 0, MSTAGE_EMBED = 1, MSTAGE_QKV, MSTAGE_SCORES, MSTAGE_SOFTMAX, MSTAGE_OUTPUT,
       MSTAGE_PROJECT, MSTAGE_FFN, MSTAGE_NEXT, MSTAGE_MAX = MSTAGE_NEXT };

/* One layer's attention options (attn.h's meaning and ranges). */
typedef struct {
    Scale scale;        /* SCALE_SQRT_DK */
    Softmax softmax;    /* SOFTMAX_STABLE */
    Mask mask;          /* MASK_CAUSAL: a model is causal unless it says otherwise */
    int window;         /* MASK_WINDOW: 1..MAT_MAX (1) */
    double temp;        /* ATTN_TEMP_MIN..ATTN_TEMP_MAX (1) */
    int block;          /* SOFTMAX_ONLINE: 1..MAT_MAX (ATTN_BLOCK_DEFAULT) */
} ModelAttnOpts;

typedef struct {
    int layers;         /* 1..MODEL_LAYERS_MAX (1) */
    int d_model;        /* 1..MODEL_D_MAX (8) */
    int heads;          /* 1..ATTN_HEADS_MAX, per layer (1) */
    int kv_heads;       /* 1..heads, dividing heads; 0 means = heads (0) */
    int d_k, d_v;       /* per head; 0 means d_model / heads, which must divide (0) */
    int d_ff;           /* 0 (attention only) .. MODEL_D_FF_MAX (0) */
    Act act;            /* ACT_GELU */
    NormKind norm;      /* NORM_LAYER */
    double eps;         /* 0 < eps <= MODEL_EPS_MAX (MODEL_EPS_DEFAULT) */
    ModelPos positions; /* MPOS_LEARNED */
    double rope_base;   /* MPOS_ROPE: > 1, finite (ATTN_ROPE_BASE_DEFAULT) */
    int offset;         /* the first token's position, 0..ATTN_OFFSET_MAX, with learned
                           positions 0..ctx-1 (0); learned positions need n + offset <= ctx */
    int ctx;            /* the longest input, 1..MODEL_CTX_MAX (16) */
    int vocab;          /* MODEL_VOCAB_MIN..MODEL_VOCAB_MAX (8) */
    Unembed unembed;    /* UNEMBED_SEPARATE */
    ModelAttnOpts attn[MODEL_LAYERS_MAX]; /* layer l's options in attn[l-1] */
    double sample_temp; /* T_s of p = softmax(logits / T_s): ATTN_TEMP_MIN..ATTN_TEMP_MAX (1) */
    bool sample;        /* the prediction is sampled (else greedy) (false) */
    unsigned long sample_seed; /* RandomState(seed) of a sampled prediction, 0..2^32-1 (0) */
} ModelCfg;

/* What model_cfg_check finds out of range (the first, in this order). */
typedef enum {
    MODEL_OK,
    MODEL_BAD_LAYERS, MODEL_BAD_D_MODEL, MODEL_BAD_HEADS, MODEL_BAD_HEADS_DIVIDE, /* d_model % heads */
    MODEL_BAD_KV_HEADS, MODEL_BAD_D_K, MODEL_BAD_D_V, /* 1..64, heads*d <= 64 */
    MODEL_BAD_D_FF, MODEL_BAD_ACT, MODEL_BAD_NORM, MODEL_BAD_EPS, MODEL_BAD_POSITIONS,
    MODEL_BAD_ROPE_ODD_DK, MODEL_BAD_ROPE_BASE, MODEL_BAD_CTX, MODEL_BAD_OFFSET,
    MODEL_BAD_VOCAB, MODEL_BAD_UNEMBED,
    MODEL_BAD_SCALE, MODEL_BAD_SOFTMAX, MODEL_BAD_MASK, MODEL_BAD_WINDOW, MODEL_BAD_TEMP,
    MODEL_BAD_BLOCK, MODEL_BAD_SAMPLE_TEMP, MODEL_BAD_SAMPLE_SEED,
    MODEL_BAD_COUNT
} ModelBad;

/* A row statistic of a norm (NORM_NONE: all 0). */
typedef struct {
    double mean[MODEL_CTX_MAX];  /* mu (0 for rmsnorm) */
    double var[MODEL_CTX_MAX];   /* the population variance, or rmsnorm's mean square */
    double sigma[MODEL_CTX_MAX]; /* sqrt(var + eps): what x - mu is divided by */
} NormStats;

typedef struct {
    Attn att;           /* X = a; Wq Wk Wv Wo; Q K V QKt S A O (and per head), Y (attn.h) */
    Mat h_in;           /* n x d: the stream into the layer */
    Mat g1, beta1;      /* 1 x d: Norm1 (layernorm: both; rmsnorm: g1 only) */
    NormStats n1;       /* Norm1 over the rows of h_in */
    Mat h_mid;          /* n x d: h_in + Y */
    Mat g2, beta2;      /* 1 x d: Norm2 (d_ff > 0) */
    Mat W1, b1;         /* d x d_ff, 1 x d_ff */
    Mat W2, b2;         /* d_ff x d, 1 x d */
    NormStats n2;       /* Norm2 over the rows of h_mid (d_ff > 0) */
    Mat b;              /* n x d: Norm2(h_mid) (d_ff > 0) */
    Mat u;              /* n x d_ff: b W1 + b1, the pre-activation (d_ff > 0) */
    Mat f;              /* n x d_ff: act(u) (d_ff > 0) */
    Mat h;              /* n x d: the stream after the block */
    unsigned ablate;    /* bit k-1 set: head k's output is 0 before W_O */
} ModelLayer;

typedef struct {
    ModelCfg cfg;       /* checked (model_cfg_check) and with kv_heads, d_k, d_v filled in */
    int n;              /* tokens: 1 .. ctx (learned: ctx - offset) */
    int tok[MODEL_CTX_MAX]; /* vocab indices, 0 .. vocab-1 */
    Mat E;              /* vocab x d */
    Mat P;              /* ctx x d (learned positions only) */
    ModelLayer layer[MODEL_LAYERS_MAX]; /* layer l in layer[l-1] */
    Mat gf, betaf;      /* 1 x d: Norm_f (as Norm1) */
    NormStats nf;
    Mat WU;             /* d x vocab (separate only; tied uses E) */
    Mat h_final;        /* n x d: Norm_f(last h) */
    Mat logits;         /* n x vocab */
    Mat p;              /* n x vocab: softmax(logits / T_s) per row */
    int at_layer, at_stage; /* the cursor: every stage up to (at_layer, at_stage) is
                           computed, the rest stale; (0, 0) nothing; stage 8 is (layers, 8) */
} Model;

/* ---- settings (model.c) ---- */
/* The defaults given above each field of ModelCfg. */
void model_cfg_default(ModelCfg *c);
/* The first setting out of range, or MODEL_OK. Fills nothing. */
ModelBad model_cfg_check(const ModelCfg *c);
/* The setting's key as a lesson spells it ("layers", "d_model", "heads",
 * "kv_heads", "d_k", ..., "mask", "window", "temperature", "block",
 * "sampling.temperature", "sampling.seed"); for the heads/d_model one "heads". */
const char *model_bad_key(ModelBad b);
/* Its allowed range in c, lo..hi, both ends allowed except eps's lo (eps >
 * 0) and rope_base's (> 1, hi infinite); an enum's is 0..count-1; MODEL_BAD_HEADS_DIVIDE and ROPE_ODD_DK: 0, 0. */
void model_bad_range(const ModelCfg *c, ModelBad b, double *lo, double *hi);
/* Which layer's attention option is bad (1-based), 0 for the others. */
int model_cfg_bad_layer(const ModelCfg *c);
/* kv_heads, d_k and d_v as the model uses them (0 filled in). */
int model_kv_heads(const ModelCfg *c);
int model_d_k(const ModelCfg *c);
int model_d_v(const ModelCfg *c);

/* ---- the state (model.c) ---- */
/* Shape the model for the n tokens tok[0..n) (each 0 .. vocab-1): every
 * matrix allocated, weights 0 and gains 1, nothing reached. false on a bad
 * cfg, bad n or token, or out of memory (m is then zeroed, safe to free). */
bool model_init(Model *m, const ModelCfg *c, const int *tok, int n);
void model_free(Model *m);
/* Deep copy; dst zeroed or a previous Model. On failure dst may be freed. */
bool model_copy(Model *dst, const Model *src);
/* A new input (1 .. ctx tokens; learned: n + offset <= ctx): the results are
 * reshaped, parameters and ablations kept, nothing reached. false, nothing
 * changed, on a bad n or token or out of memory. (An input of the same
 * length needs no new shapes: write tok[0..n) and run again.) */
bool model_set_tokens(Model *m, const int *tok, int n);
/* Draw every weight as DESIGN.md's order says (the top of this file). */
void model_draw_weights(Model *m, unsigned long seed, double scale);
/* Does (layer, stage) exist: layer 1..layers with stage 1..7 (7 only with
 * d_ff > 0), or (layers, 8)? */
bool model_stage_exists(const Model *m, int layer, int stage);
/* Is (layer, stage) computed (and so up to date)? */
bool model_reached(const Model *m, int layer, int stage);
/* Compute (layer, stage) from the stage before (which must be reached, or
 * for (1, 1) nothing); it becomes the cursor. Does nothing for a stage that
 * does not exist. */
void model_run_stage(Model *m, int layer, int stage);
/* Compute everything up to (layer, stage) in order, from scratch; (0, 0)
 * hides everything. A stage 7 that does not exist runs to 6. */
void model_run_to(Model *m, int layer, int stage);
void model_run_all(Model *m);
/* The stage after / before (layer, stage), skipping what does not exist;
 * false at either end. */
bool model_stage_next(const Model *m, int *layer, int *stage);
bool model_stage_prev(const Model *m, int *layer, int *stage);
/* "embed", "qkv", "scores", "softmax", "output", "project", "ffn", "next";
 * "?" for others. model_stage_lookup: the stage of a key, 0 if none. */
const char *model_stage_key(int stage);
int model_stage_lookup(const char *key, int len);
/* Head `head` (1-based) of layer `layer` ablated or restored; nothing is
 * recomputed, the cursor drops below the layer's stage 5. */
void model_set_ablate(Model *m, int layer, int head, bool on);

/* ---- prediction (model.c) ---- */
/* The argmax of the last row of p, the lowest index on ties (stage 8). */
int model_greedy(const Model *m);
/* numpy's choice(len, p=row) with the stream r: returns the index, *u the
 * uniform drawn (may be NULL). */
int model_sample(const double *row, int len, Rng *r, double *u);
/* The model's prediction: greedy, or with cfg.sample RandomState(sample_seed).choice. */
int model_predict(const Model *m);

/* ---- names (model_names.c) ---- */
typedef enum {
    MM_NONE,
    MM_E, MM_P, MM_GF, MM_BETAF, MM_WU,                               /* model parameters */
    MM_G1, MM_BETA1, MM_G2, MM_BETA2, MM_W1, MM_B1, MM_W2, MM_B2,     /* a layer's parameters */
    MM_H_IN, MM_A, MM_H_MID, MM_B, MM_U, MM_F, MM_H,                  /* a layer's results */
    MM_ATTN,            /* a matrix of the layer's Attn: `attn` says which (M_Q, M_WQ, S2 ...) */
    MM_H_FINAL, MM_LOGITS, MM_PROBS,                                  /* stage 8's results */
    MM_COUNT
} ModelMatKind;

typedef struct {
    ModelMatKind kind;
    int layer;          /* 1-based for a layer's matrix, 0 for the model's */
    MatId attn;         /* MM_ATTN only */
} ModelRef;

/* The matrix a reference names (NULL when the model has none such: a bad
 * layer, P without learned positions, WU when tied, ...). An MM_A is the
 * Attn's X. */
const Mat *model_mat(const Model *m, ModelRef r);
Mat *model_mat_mut(Model *m, ModelRef r);
/* The reference spelled name[0..len) (len < 0: NUL-terminated): "E",
 * "L2.Wq", "L1.A2", "logits", with one layer "Wq" too. false when the model
 * has no such matrix. Attention names are attn.h's, less X, H, P (a is X). */
bool model_lookup(const Model *m, const char *name, int len, ModelRef *out);
/* Its name as model_lookup reads it, with "L<l>." for a layer's matrix;
 * returns the length (snprintf's). */
int model_ref_name(const Model *m, ModelRef r, char *buf, size_t size);
/* A parameter (E, P, the W's, gains, biases, WU), not a result? */
bool model_ref_is_param(ModelRef r);
/* The stage that computes a result (parameters: 0); L.h's is 7, or 6 with d_ff = 0. */
int model_ref_stage(const Model *m, ModelRef r);
/* The parameters in DESIGN.md's list order: E, P, per layer Wq Wk Wv Wo g1
 * beta1 W1 b1 W2 b2 g2 beta2, then gf betaf WU, those the model has.
 * Returns how many (at most max) were written to out. */
int model_params(const Model *m, ModelRef *out, int max);
#define MODEL_PARAMS_MAX (3 + MODEL_LAYERS_MAX * 12 + 3)

/* ---- a head's scores (model_scores.c) ---- */
/* The previous-token score of layer `layer`, head `head` (stage 4 of that
 * layer reached); false when n = 1 or not reached. */
bool model_prev_score(const Model *m, int layer, int head, double *out);
/* The induction score (definition above); false when no token repeats or
 * not reached. */
bool model_induction_score(const Model *m, int layer, int head, double *out);

/* ---- the blocks' arithmetic (norm.c), used by the forward and explain ---- */
/* y = Norm(x) of one row of d values (g, beta may be NULL: 1 and 0); the
 * row's mean, var and sigma to *mean, *var, *sigma. NORM_NONE copies. */
void model_norm_row(NormKind k, const double *x, int d, const double *g, const double *beta, double eps,
                    double *y, double *mean, double *var, double *sigma);
double model_act(Act a, double x);
/* Phi(x) = 0.5 * (1 + erf(x / sqrt 2)) */
double model_phi(double x);

#endif
