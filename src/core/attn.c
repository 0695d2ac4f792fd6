/* attn.c - the five-stage self-attention pipeline (see attn.h). */
#include "attn.h"
#include "rng.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HEAD_NAMES(h) "Q" #h, "K" #h, "V" #h, "QKt" #h, "S" #h, "A" #h, "O" #h
static const char *const mat_names[M_COUNT] = {
    "X", "Wq", "Wk", "Wv", "Q", "K", "V", "QKt", "S", "A", "O", "P", "H", "Wo", "Y",
    HEAD_NAMES(1), HEAD_NAMES(2), HEAD_NAMES(3), HEAD_NAMES(4), HEAD_NAMES(5), HEAD_NAMES(6),
    HEAD_NAMES(7), HEAD_NAMES(8), HEAD_NAMES(9), HEAD_NAMES(10), HEAD_NAMES(11), HEAD_NAMES(12),
    HEAD_NAMES(13), HEAD_NAMES(14), HEAD_NAMES(15), HEAD_NAMES(16), "Q0", "K0", "Xs",
};
static const int mat_stages[M_HEAD0] = {
    STAGE_INPUT, STAGE_INPUT, STAGE_INPUT, STAGE_INPUT,
    STAGE_QKV, STAGE_QKV, STAGE_QKV, STAGE_SCORES, STAGE_SCORES,
    STAGE_SOFTMAX, STAGE_OUTPUT, STAGE_INPUT, STAGE_INPUT, STAGE_INPUT, STAGE_PROJECT,
};
static const char *const stage_keys[STAGE_MAX + 1] = {
    "?", "input", "qkv", "scores", "softmax", "output", "project",
};

static bool dim_ok(int d)
{
    return d >= 1 && d <= MAT_MAX;
}

bool attn_init(Attn *a, int n, int d_model, int d_k, int d_v)
{
    return attn_init_heads(a, n, d_model, 1, d_k, d_v, 0);
}

/* Allocate every matrix at its shape (head matrices only with 2+ heads, W_O
 * and Y only with d_out); on failure everything is freed again. */
bool attn_init_heads(Attn *a, int n, int d_model, int heads, int d_k, int d_v, int d_out)
{
    return attn_init_kv(a, n, d_model, heads, heads, d_k, d_v, d_out);
}

static bool init_any(Attn *a, int n, int ns, int d_model, int heads, int kv_heads, int d_k, int d_v, int d_out);

bool attn_init_kv(Attn *a, int n, int d_model, int heads, int kv_heads, int d_k, int d_v, int d_out)
{
    return init_any(a, n, 0, d_model, heads, kv_heads, d_k, d_v, d_out);
}

bool attn_init_cross(Attn *a, int n, int ns, int d_model, int heads, int kv_heads, int d_k, int d_v, int d_out)
{
    return dim_ok(ns) && init_any(a, n, ns, d_model, heads, kv_heads, d_k, d_v, d_out);
}

/* ns > 0: cross-attention over ns source rows (Xs); 0: self-attention. */
static bool init_any(Attn *a, int n, int ns, int d_model, int heads, int kv_heads, int d_k, int d_v, int d_out)
{
    memset(a, 0, sizeof *a);
    int nk = ns > 0 ? ns : n; /* the keys */
    if (heads < 1 || heads > ATTN_HEADS_MAX || !dim_ok(n) || !dim_ok(d_model) || !dim_ok(d_k) ||
        !dim_ok(d_v) || !dim_ok(heads * d_k) || !dim_ok(heads * d_v) || (d_out != 0 && !dim_ok(d_out)) ||
        kv_heads < 1 || kv_heads > heads || heads % kv_heads != 0)
        return false;
    int hk = heads * d_k, hv = heads * d_v, gk = kv_heads * d_k, gv = kv_heads * d_v;
    const int shape[M_HEAD0][2] = {
        [M_X] = {n, d_model},   [M_WQ] = {d_model, hk}, [M_WK] = {d_model, gk},
        [M_WV] = {d_model, gv}, [M_Q] = {n, hk},        [M_K] = {nk, gk},
        [M_V] = {nk, gv},       [M_QKT] = {n, nk},      [M_S] = {n, nk},
        [M_A] = {n, nk},        [M_O] = {n, hv},
        [M_P] = {n, d_model},   [M_H] = {n, d_model},
        [M_WO] = {hv, d_out},   [M_Y] = {n, d_out},
    };
    a->heads = heads;
    a->kv_heads = kv_heads;
    a->has_wo = d_out > 0;
    for (int id = 0; id < M_HEAD0; id++)
        if ((a->has_wo || (id != M_WO && id != M_Y)) && !mat_new(&a->m[id], shape[id][0], shape[id][1])) {
            attn_free(a);
            return false;
        }
    if (ns > 0 && !mat_new(&a->m[M_XS], ns, d_model)) {
        attn_free(a);
        return false;
    }
    a->attention = ns > 0 ? ATTENTION_CROSS : ATTENTION_SELF;
    const int hshape[ATTN_HM_N][2] = {{n, d_k}, {nk, d_k}, {nk, d_v}, {n, nk}, {n, nk}, {n, nk}, {n, d_v}};
    for (int h = 1; heads > 1 && h <= heads; h++)
        for (int k = 0; k < ATTN_HM_N; k++)
            if (!mat_new(&a->m[attn_head_id((MatId)(M_Q + k), h)], hshape[k][0], hshape[k][1])) {
                attn_free(a);
                return false;
            }
    a->scale = SCALE_SQRT_DK;
    a->softmax = SOFTMAX_STABLE;
    a->mask = MASK_NONE;
    a->temp = 1.0;
    a->positions = POS_NONE;
    a->lr = ATTN_LR_DEFAULT;
    a->window = 1;
    a->rope_base = ATTN_ROPE_BASE_DEFAULT;
    a->offset = 0;
    a->block = ATTN_BLOCK_DEFAULT;
    for (int i = 0; i < MAT_MAX; i++)
        a->tok[i] = i;
    return true;
}

/* Release every matrix and leave a zeroed Attn that may be freed again. */
void attn_free(Attn *a)
{
    for (int id = 0; id < M_COUNT; id++)
        mat_free(&a->m[id]);
    free(a->target);
    free(a->tok_name);
    memset(a, 0, sizeof *a);
}

/* Deep copy src into dst, reusing dst's storage where shapes match. On
 * failure dst is still safe to free but incomplete. */
bool attn_copy(Attn *dst, const Attn *src)
{
    if (dst == src)
        return true;
    for (int id = 0; id < M_COUNT; id++)
        if (!mat_copy(&dst->m[id], &src->m[id]))
            return false;
    memcpy(dst->override, src->override, sizeof dst->override);
    dst->scale = src->scale;
    dst->softmax = src->softmax;
    dst->mask = src->mask;
    dst->temp = src->temp;
    dst->positions = src->positions;
    memcpy(dst->tok, src->tok, sizeof dst->tok);
    dst->reached = src->reached;
    dst->heads = src->heads;
    dst->has_wo = src->has_wo;
    memcpy(dst->ovh, src->ovh, sizeof dst->ovh);
    dst->lr = src->lr;
    dst->window = src->window;
    dst->kv_heads = src->kv_heads;
    dst->rope_base = src->rope_base;
    dst->offset = src->offset;
    dst->block = src->block;
    dst->attention = src->attention;
    memcpy(dst->pad, src->pad, sizeof dst->pad);
    dst->nloss = src->nloss;
    memcpy(dst->loss_hist, src->loss_hist, sizeof dst->loss_hist);
    if (dst->ntarget != src->ntarget) { /* the training targets (grad.h) */
        AttnTarget *t = src->ntarget ? malloc(sizeof *t * (size_t)src->ntarget) : NULL;
        if (src->ntarget && !t)
            return false;
        free(dst->target);
        dst->target = t;
        dst->ntarget = src->ntarget;
    }
    if (src->ntarget)
        memcpy(dst->target, src->target, sizeof *dst->target * (size_t)src->ntarget);
    if (src->ntok_name > 0 && !dst->tok_name && !(dst->tok_name = malloc(sizeof *dst->tok_name * MAT_MAX)))
        return false;
    if (src->ntok_name > 0)
        memcpy(dst->tok_name, src->tok_name, sizeof *dst->tok_name * (size_t)src->ntok_name);
    dst->ntok_name = src->ntok_name;
    return true;
}

/* dst = x * w, except the cells of rows marked in keep[] that belong to a
 * head in ovh[i] (every cell when ovh[i] is 0), which keep their values.
 * hw is one head's width. */
static void project(Mat *dst, const Mat *x, const Mat *w, const bool *keep, const unsigned short *ovh, int hw)
{
    double row[MAT_MAX];
    for (int i = 0; i < x->rows; i++) {
        if (keep[i] && ovh[i] == 0)
            continue;
        if (!keep[i]) { /* every cell new: straight into the row */
            mat_gemv_t(&MAT_AT(dst, i, 0), w->cols, &MAT_AT(x, i, 0), 1, x->cols, w->v, w->cols, false);
            continue;
        }
        /* each cell sums k = 0, 1, ... from 0.0 as before (the same bits) */
        mat_gemv_t(row, w->cols, &MAT_AT(x, i, 0), 1, x->cols, w->v, w->cols, false);
        for (int j = 0; j < w->cols; j++)
            if (!keep[i] || !(ovh[i] >> (j / hw) & 1u))
                MAT_AT(dst, i, j) = row[j];
    }
}

double attn_pos_angle(int p, int c, int d_model)
{
    return (double)p / pow(10000.0, (double)(2 * (c / 2)) / (double)d_model);
}

double attn_pos(int p, int c, int d_model)
{
    double t = attn_pos_angle(p, c, d_model);
    return c % 2 == 0 ? sin(t) : cos(t);
}

/* Stage 1: P from the positions (0 without them) and H = X + P. */
static void run_input(Attn *a)
{
    const Mat *x = &a->m[M_X];
    Mat *p = &a->m[M_P], *h = &a->m[M_H];
    bool on = a->positions == POS_SINUSOIDAL;
    for (int i = 0; i < x->rows; i++)
        for (int c = 0; c < x->cols; c++) {
            MAT_AT(p, i, c) = on ? attn_pos(attn_position(a, i), c, x->cols) : 0.0;
            MAT_AT(h, i, c) = on ? MAT_AT(x, i, c) + MAT_AT(p, i, c) : MAT_AT(x, i, c);
        }
}

/* Copy columns c0 .. c0 + dst->cols - 1 of src into dst. */
static void take_cols(Mat *dst, const Mat *src, int c0)
{
    for (int i = 0; i < dst->rows; i++)
        for (int j = 0; j < dst->cols; j++)
            MAT_AT(dst, i, j) = MAT_AT(src, i, c0 + j);
}

/* Project Q, K (and V when np = 3) from H with positions, X without (the
 * same numbers); with RoPE keep Q0, K0 and rotate; then each head's Q, K, V
 * are its columns (K and V: the K/V head the query head reads). */
static void project_qkv(Attn *a, int np)
{
    const Mat *in = &a->m[a->positions == POS_SINUSOIDAL ? M_H : M_X];
    int dk = attn_d_k(a), dv = attn_d_v(a);
    for (int p = 0; p < np; p++) /* cross-attention: K and V from the source */
        project(&a->m[M_Q + p], p > 0 && attn_is_cross(a) ? &a->m[M_XS] : in, &a->m[M_WQ + p], a->override[p],
                a->ovh[p], p == 2 ? dv : dk);
    for (int p = 0; a->positions == POS_ROPE && p < 2; p++) {
        (void)mat_copy(&a->m[M_Q0 + p], a->m[M_Q0 + p].v ? &a->m[M_Q + p] : &a->m[M_Q0 + p]);
        for (int i = 0; i < a->m[M_Q + p].rows; i++)
            attn_rope_row(a, p, i);
    }
    for (int h = 1; a->heads > 1 && h <= a->heads; h++)
        for (int p = 0; p < np; p++) {
            int src = p == 0 ? h : attn_kv_head(a, h);
            take_cols(&a->m[attn_head_id((MatId)(M_Q + p), h)], &a->m[M_Q + p], (src - 1) * (p == 2 ? dv : dk));
        }
}

static void run_qkv(Attn *a)
{
    project_qkv(a, 3);
}

/* Training moved Wq and Wk (grad.h): project Q and K again (and their heads'
 * columns), V and stage 1 as they were; reached drops to the qkv stage. */
void attn_rerun_qk(Attn *a)
{
    project_qkv(a, 2);
    a->reached = a->reached < STAGE_QKV ? a->reached : STAGE_QKV;
}

/* Head h's id of base, or base itself with one head. */
static MatId hid(const Attn *a, MatId base, int h)
{
    return a->heads > 1 ? attn_head_id(base, h) : base;
}

/* Head 1's QKt, S and A are also the plain ones with several heads. */
static void mirror_head1(Attn *a, MatId base)
{
    if (a->heads > 1)
        (void)mat_copy(&a->m[base], &a->m[attn_head_id(base, 1)]);
}

/* QKt = Q K^T, then S = QKt / sqrt(d_k) (a real division, as numpy does) or a copy. */
static void run_scores_head(Attn *a, int h)
{
    Mat *qkt = &a->m[hid(a, M_QKT, h)], *s = &a->m[hid(a, M_S, h)];
    (void)mat_mul_bt(qkt, &a->m[hid(a, M_Q, h)], &a->m[hid(a, M_K, h)]); /* shape already fits: no allocation */
    double div = sqrt((double)attn_d_k(a));
    for (int i = 0; i < qkt->rows; i++)
        for (int j = 0; j < qkt->cols; j++)
            MAT_AT(s, i, j) = attn_masked(a, i, j)             ? -INFINITY
                              : a->scale == SCALE_SQRT_DK ? MAT_AT(qkt, i, j) / div
                                                          : MAT_AT(qkt, i, j);
}

static void run_scores(Attn *a)
{
    for (int h = 1; h <= a->heads; h++)
        run_scores_head(a, h);
    mirror_head1(a, M_QKT);
    mirror_head1(a, M_S);
}

/* One row of softmax over the first `vis` entries of s (the rest are masked
 * and get exactly 0): z = s / temp, then exp(z) or exp(z - max), divided by
 * their sum. Nothing guards against overflow: naive exp of a huge score
 * honestly gives inf and then NaN, which is what a lesson wants to show. */
static void softmax_row(double *out, const double *s, int n, int lo, int hi, bool stable, double temp)
{
    double max = s[lo] / temp;
    for (int k = lo + 1; k < hi; k++)
        if (s[k] / temp > max)
            max = s[k] / temp;
    double sum = 0.0;
    for (int k = lo; k < hi; k++) {
        out[k] = exp(stable ? s[k] / temp - max : s[k] / temp);
        sum += out[k];
    }
    for (int k = lo; k < hi; k++)
        out[k] /= sum;
    for (int k = 0; k < n; k++)
        if (k < lo || k >= hi)
            out[k] = 0.0;
}

/* One row of the online softmax; its blocks (5 KB) on its own frame, not
 * on every softmax's: the naive and stable rows keep the stack short. */
static __attribute__((noinline)) void online_row(const Attn *a, const double *s, int n, int lo, int hi, double *w)
{
    AttnBlock b[MAT_MAX];
    double p[MAT_MAX], m, l;
    (void)attn_online_row(s, n, lo, hi, a->temp, a->block, b, p, &m, &l, w);
}

static void run_softmax(Attn *a)
{
    for (int h = 1; h <= a->heads; h++) {
        const Mat *s = &a->m[hid(a, M_S, h)];
        Mat *w = &a->m[hid(a, M_A, h)];
        for (int i = 0, lo, hi; i < s->rows; i++) {
            attn_visible(a, i, &lo, &hi);
            if (a->softmax == SOFTMAX_ONLINE)
                online_row(a, &MAT_AT(s, i, 0), s->cols, lo, hi, &MAT_AT(w, i, 0));
            else
                softmax_row(&MAT_AT(w, i, 0), &MAT_AT(s, i, 0), s->cols, lo, hi, a->softmax == SOFTMAX_STABLE,
                            a->temp);
        }
    }
    mirror_head1(a, M_A);
}

/* Online softmax, stage 5: each row's blocks run again over S with V. */
static void online_output(const Attn *a, Mat *o, const Mat *s, const Mat *v)
{
    AttnBlock b[MAT_MAX];
    double p[MAT_MAX], m, l;
    for (int i = 0, lo, hi; i < s->rows; i++) {
        attn_visible(a, i, &lo, &hi);
        int nb = attn_online_row(&MAT_AT(s, i, 0), s->cols, lo, hi, a->temp, a->block, b, p, &m, &l, NULL);
        for (int c = 0; c < v->cols; c++)
            MAT_AT(o, i, c) = attn_online_out(b, nb, p, v, c);
    }
}

/* O = A V per head (online: from S and V), the heads' O side by side. */
static void run_output(Attn *a)
{
    bool online = a->softmax == SOFTMAX_ONLINE;
    if (a->heads == 1) {
        if (online)
            online_output(a, &a->m[M_O], &a->m[M_S], &a->m[M_V]);
        else
            (void)mat_mul(&a->m[M_O], &a->m[M_A], &a->m[M_V]);
        return;
    }
    Mat *o = &a->m[M_O];
    int dv = attn_d_v(a);
    for (int h = 1; h <= a->heads; h++) {
        Mat *oh = &a->m[attn_head_id(M_O, h)];
        if (online)
            online_output(a, oh, &a->m[attn_head_id(M_S, h)], &a->m[attn_head_id(M_V, h)]);
        else
            (void)mat_mul(oh, &a->m[attn_head_id(M_A, h)], &a->m[attn_head_id(M_V, h)]);
        for (int i = 0; i < oh->rows; i++)
            for (int j = 0; j < dv; j++)
                MAT_AT(o, i, (h - 1) * dv + j) = MAT_AT(oh, i, j);
    }
}

/* Compute one stage from the previous stage's results and mark it reached
 * (which also hides any later stage computed before). */
void attn_run_stage(Attn *a, int stage)
{
    if (stage < STAGE_INPUT || stage > attn_last_stage(a))
        return;
    assert(a->reached >= stage - 1);
    switch (stage) {
    case STAGE_QKV:     run_qkv(a); break;
    case STAGE_SCORES:  run_scores(a); break;
    case STAGE_SOFTMAX: run_softmax(a); break;
    case STAGE_OUTPUT:  run_output(a); break;
    case STAGE_PROJECT: (void)mat_mul(&a->m[M_Y], &a->m[M_O], &a->m[M_WO]); break;
    default:            run_input(a); break; /* STAGE_INPUT: X is given; P, H */
    }
    a->reached = stage;
}

/* Run stages 1..stage in order; stage 0 just hides everything. */
void attn_run_to(Attn *a, int stage)
{
    if (stage > attn_last_stage(a))
        stage = attn_last_stage(a);
    a->reached = STAGE_NONE;
    for (int k = STAGE_INPUT; k <= stage; k++)
        attn_run_stage(a, k);
}

static bool id_ok(MatId id)
{
    return (int)id >= 0 && id < M_COUNT;
}

const char *attn_mat_name(MatId id)
{
    return id_ok(id) ? mat_names[id] : "?";
}

/* The MatId spelled exactly (case-sensitive) by name[0..len), or -1;
 * a negative len means name is NUL-terminated. */
int attn_mat_lookup(const char *name, int len)
{
    size_t n = len < 0 ? strlen(name) : (size_t)len;
    for (int id = 0; id < M_COUNT; id++)
        if (strlen(mat_names[id]) == n && memcmp(mat_names[id], name, n) == 0)
            return id;
    return -1;
}

int attn_mat_stage(MatId id)
{
    if (id == M_Q0 || id == M_K0)
        return STAGE_QKV;
    if (id == M_XS)
        return STAGE_INPUT;
    return id_ok(id) ? mat_stages[attn_mat_base(id)] : STAGE_NONE;
}

bool attn_mat_is_param(MatId id)
{
    return id == M_WQ || id == M_WK || id == M_WV || id == M_WO;
}

const char *attn_stage_key(int stage)
{
    return stage >= STAGE_INPUT && stage <= STAGE_MAX ? stage_keys[stage] : "?";
}

MatId attn_stage_mat(int stage)
{
    static const MatId by_stage[] = {M_X, M_X, M_Q, M_S, M_A, M_O, M_Y};
    return stage >= STAGE_INPUT && stage <= STAGE_MAX ? by_stage[stage] : M_X;
}

AttnTrouble attn_row_trouble(const Attn *a, int i)
{
    return attn_row_trouble_head(a, 1, i);
}

AttnTrouble attn_row_trouble_head(const Attn *a, int head, int i)
{
    const Mat *s = &a->m[attn_shown(a, M_S, head)], *w = &a->m[attn_shown(a, M_A, head)];
    bool bad = false, big = false, tiny = true;
    if (a->reached < STAGE_SOFTMAX || i < 0 || i >= w->rows)
        return ATTN_FINE;
    for (int j = 0; j < w->cols; j++) {
        if (attn_masked(a, i, j))
            continue;
        double x = MAT_AT(s, i, j) / a->temp; /* the online softmax never overflows: NOT_FINITE */
        if (!isfinite(MAT_AT(s, i, j)))
            return ATTN_SCORES_NOT_FINITE;
        bad = bad || !isfinite(MAT_AT(w, i, j));
        big = big || x > 709.78;
        tiny = tiny && x < -745.13;
    }
    if (!bad)
        return ATTN_FINE;
    if (a->softmax == SOFTMAX_NAIVE && big)
        return ATTN_EXP_OVERFLOW;
    if (a->softmax == SOFTMAX_NAIVE && tiny)
        return ATTN_EXP_UNDERFLOW;
    return ATTN_NOT_FINITE;
}

bool attn_masked(const Attn *a, int i, int j)
{
    if (attn_is_pad(a, j))
        return true;
    if (a->mask == MASK_WINDOW)
        return j > i || j <= i - a->window;
    return a->mask == MASK_CAUSAL && j > i;
}

void attn_visible(const Attn *a, int i, int *lo, int *hi)
{
    *lo = 0;
    *hi = a->mask == MASK_NONE ? attn_keys(a) : i + 1;
    if (a->mask == MASK_WINDOW && i - a->window + 1 > 0)
        *lo = i - a->window + 1;
    int real = attn_real_keys(a); /* padding keys come last */
    if (*hi > real)
        *hi = real;
}

void attn_draw_weights(Attn *a, unsigned long seed, double scale)
{
    Rng r;
    rng_seed(&r, (uint32_t)seed);
    for (int id = M_WQ; id <= M_WV; id++)
        rng_randn(&r, &a->m[id], scale);
    if (a->has_wo)
        rng_randn(&r, &a->m[M_WO], scale);
}

bool attn_set_positions(Attn *a, Positions p)
{
    if (p == POS_ROPE && !a->m[M_Q0].v) {
        Mat q0, k0;
        if (!mat_new(&q0, a->m[M_Q].rows, a->m[M_Q].cols))
            return false;
        if (!mat_new(&k0, a->m[M_K].rows, a->m[M_K].cols)) {
            mat_free(&q0);
            return false;
        }
        a->m[M_Q0] = q0;
        a->m[M_K0] = k0;
    }
    a->positions = p;
    return true;
}

AttnOpt attn_check_options(const Attn *a)
{
    int h = attn_heads(a), g = attn_kv_heads(a);
    if (a->mask == MASK_WINDOW && a->window < 1)
        return ATTN_OPT_WINDOW;
    if (g < 1 || g > h || h % g != 0)
        return ATTN_OPT_KV_HEADS;
    if (a->positions == POS_ROPE && attn_d_k(a) % 2 != 0)
        return ATTN_OPT_ROPE_ODD_DK;
    if (a->positions == POS_ROPE && !(isfinite(a->rope_base) && a->rope_base > 1.0))
        return ATTN_OPT_ROPE_BASE;
    if (a->offset < 0 || a->offset > ATTN_OFFSET_MAX)
        return ATTN_OPT_OFFSET;
    if (a->softmax == SOFTMAX_ONLINE && a->block < 1)
        return ATTN_OPT_BLOCK;
    if (attn_is_cross(a) && a->mask != MASK_NONE)
        return ATTN_OPT_CROSS_MASK;
    if (attn_is_cross(a) && a->positions != POS_NONE)
        return ATTN_OPT_CROSS_POS;
    int real = attn_real_keys(a);
    for (int j = real; j < attn_keys(a); j++)
        if (!a->pad[j])
            return ATTN_OPT_PAD_ORDER;
    for (int i = 0, lo, hi; i < attn_tokens(a); i++) {
        attn_visible(a, i, &lo, &hi);
        if (lo >= hi)
            return ATTN_OPT_PAD_ALL;
    }
    return ATTN_OPT_OK;
}

static void swap_rows(Mat *m, int i, int j)
{
    for (int c = 0; c < m->cols; c++) {
        double t = MAT_AT(m, i, c);
        MAT_AT(m, i, c) = MAT_AT(m, j, c);
        MAT_AT(m, j, c) = t;
    }
}

void attn_swap_tokens(Attn *a, int i, int j)
{
    swap_rows(&a->m[M_X], i, j);
    for (int p = 0; p < (attn_is_cross(a) ? 1 : 3); p++) { /* cross: K and V rows are the source's */
        swap_rows(&a->m[M_Q + p], i, j);
        bool t = a->override[p][i];
        a->override[p][i] = a->override[p][j];
        a->override[p][j] = t;
        unsigned short b = a->ovh[p][i];
        a->ovh[p][i] = a->ovh[p][j];
        a->ovh[p][j] = b;
    }
    int t = a->tok[i];
    a->tok[i] = a->tok[j];
    a->tok[j] = t;
    a->reached = STAGE_NONE;
}

bool attn_same_options(const Attn *a, const Attn *b)
{
    return a->scale == b->scale && a->softmax == b->softmax && a->mask == b->mask && a->temp == b->temp &&
           a->positions == b->positions && a->window == b->window && a->rope_base == b->rope_base &&
           a->offset == b->offset && a->block == b->block && attn_kv_heads(a) == attn_kv_heads(b) &&
           a->attention == b->attention && memcmp(a->pad, b->pad, sizeof a->pad) == 0;
}
