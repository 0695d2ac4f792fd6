/* attn.c - the five-stage self-attention pipeline (see attn.h). */
#include "attn.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const mat_names[M_COUNT] = {
    "X", "Wq", "Wk", "Wv", "Q", "K", "V", "QKt", "S", "A", "O", "P", "H",
};
static const int mat_stages[M_COUNT] = {
    STAGE_INPUT, STAGE_INPUT, STAGE_INPUT, STAGE_INPUT,
    STAGE_QKV, STAGE_QKV, STAGE_QKV, STAGE_SCORES, STAGE_SCORES,
    STAGE_SOFTMAX, STAGE_OUTPUT, STAGE_INPUT, STAGE_INPUT,
};
static const char *const stage_keys[STAGE_COUNT + 1] = {
    "?", "input", "qkv", "scores", "softmax", "output",
};

static bool dim_ok(int d)
{
    return d >= 1 && d <= MAT_MAX;
}

/* Allocate every matrix at its shape; on failure everything is freed again. */
bool attn_init(Attn *a, int n, int d_model, int d_k, int d_v)
{
    memset(a, 0, sizeof *a);
    if (!dim_ok(n) || !dim_ok(d_model) || !dim_ok(d_k) || !dim_ok(d_v))
        return false;
    const int shape[M_COUNT][2] = {
        [M_X] = {n, d_model},   [M_WQ] = {d_model, d_k}, [M_WK] = {d_model, d_k},
        [M_WV] = {d_model, d_v}, [M_Q] = {n, d_k},       [M_K] = {n, d_k},
        [M_V] = {n, d_v},       [M_QKT] = {n, n},        [M_S] = {n, n},
        [M_A] = {n, n},         [M_O] = {n, d_v},
        [M_P] = {n, d_model},   [M_H] = {n, d_model},
    };
    for (int id = 0; id < M_COUNT; id++)
        if (!mat_new(&a->m[id], shape[id][0], shape[id][1])) {
            attn_free(a);
            return false;
        }
    a->scale = SCALE_SQRT_DK;
    a->softmax = SOFTMAX_STABLE;
    a->mask = MASK_NONE;
    a->temp = 1.0;
    a->positions = POS_NONE;
    a->lr = ATTN_LR_DEFAULT;
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
    dst->lr = src->lr;
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
    return true;
}

/* dst = x * w, except rows marked in keep[], which keep their values. */
static void project(Mat *dst, const Mat *x, const Mat *w, const bool *keep)
{
    for (int i = 0; i < x->rows; i++) {
        if (keep[i])
            continue;
        for (int j = 0; j < w->cols; j++) {
            double sum = 0.0;
            for (int k = 0; k < x->cols; k++)
                sum += MAT_AT(x, i, k) * MAT_AT(w, k, j);
            MAT_AT(dst, i, j) = sum;
        }
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
            MAT_AT(p, i, c) = on ? attn_pos(i, c, x->cols) : 0.0;
            MAT_AT(h, i, c) = on ? MAT_AT(x, i, c) + MAT_AT(p, i, c) : MAT_AT(x, i, c);
        }
}

/* Stage 2 projects H with positions, X itself without (the same numbers). */
static void run_qkv(Attn *a)
{
    const Mat *in = &a->m[a->positions == POS_SINUSOIDAL ? M_H : M_X];
    for (int p = 0; p < 3; p++)
        project(&a->m[M_Q + p], in, &a->m[M_WQ + p], a->override[p]);
}

/* QKt = Q K^T, then S = QKt / sqrt(d_k) (a real division, as numpy does) or a copy. */
static void run_scores(Attn *a)
{
    Mat *qkt = &a->m[M_QKT], *s = &a->m[M_S];
    (void)mat_mul_bt(qkt, &a->m[M_Q], &a->m[M_K]); /* shape already fits: no allocation */
    double div = sqrt((double)attn_d_k(a));
    for (int i = 0; i < qkt->rows; i++)
        for (int j = 0; j < qkt->cols; j++)
            MAT_AT(s, i, j) = attn_masked(a, i, j)             ? -INFINITY
                              : a->scale == SCALE_SQRT_DK ? MAT_AT(qkt, i, j) / div
                                                          : MAT_AT(qkt, i, j);
}

/* One row of softmax over the first `vis` entries of s (the rest are masked
 * and get exactly 0): z = s / temp, then exp(z) or exp(z - max), divided by
 * their sum. Nothing guards against overflow: naive exp of a huge score
 * honestly gives inf and then NaN, which is what a lesson wants to show. */
static void softmax_row(double *out, const double *s, int n, int vis, bool stable, double temp)
{
    double max = s[0] / temp;
    for (int k = 1; k < vis; k++)
        if (s[k] / temp > max)
            max = s[k] / temp;
    double sum = 0.0;
    for (int k = 0; k < vis; k++) {
        out[k] = exp(stable ? s[k] / temp - max : s[k] / temp);
        sum += out[k];
    }
    for (int k = 0; k < vis; k++)
        out[k] /= sum;
    for (int k = vis; k < n; k++)
        out[k] = 0.0;
}

static void run_softmax(Attn *a)
{
    const Mat *s = &a->m[M_S];
    Mat *w = &a->m[M_A];
    for (int i = 0; i < s->rows; i++)
        softmax_row(&MAT_AT(w, i, 0), &MAT_AT(s, i, 0), s->cols,
                    a->mask == MASK_CAUSAL ? i + 1 : s->cols, a->softmax == SOFTMAX_STABLE, a->temp);
}

/* Compute one stage from the previous stage's results and mark it reached
 * (which also hides any later stage computed before). */
void attn_run_stage(Attn *a, int stage)
{
    if (stage < STAGE_INPUT || stage > STAGE_OUTPUT)
        return;
    assert(a->reached >= stage - 1);
    switch (stage) {
    case STAGE_QKV:     run_qkv(a); break;
    case STAGE_SCORES:  run_scores(a); break;
    case STAGE_SOFTMAX: run_softmax(a); break;
    case STAGE_OUTPUT:  (void)mat_mul(&a->m[M_O], &a->m[M_A], &a->m[M_V]); break;
    default:            run_input(a); break; /* STAGE_INPUT: X is given; P, H */
    }
    a->reached = stage;
}

/* Run stages 1..stage in order; stage 0 just hides everything. */
void attn_run_to(Attn *a, int stage)
{
    if (stage > STAGE_OUTPUT)
        stage = STAGE_OUTPUT;
    a->reached = STAGE_NONE;
    for (int k = STAGE_INPUT; k <= stage; k++)
        attn_run_stage(a, k);
}

int attn_tokens(const Attn *a)  { return a->m[M_X].rows; }
int attn_d_model(const Attn *a) { return a->m[M_X].cols; }
int attn_d_k(const Attn *a)     { return a->m[M_WQ].cols; }
int attn_d_v(const Attn *a)     { return a->m[M_WV].cols; }

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
    return id_ok(id) ? mat_stages[id] : STAGE_NONE;
}

bool attn_mat_is_param(MatId id)
{
    return id == M_WQ || id == M_WK || id == M_WV;
}

const char *attn_stage_key(int stage)
{
    return stage >= STAGE_INPUT && stage <= STAGE_OUTPUT ? stage_keys[stage] : "?";
}

MatId attn_stage_mat(int stage)
{
    static const MatId by_stage[] = {M_X, M_X, M_Q, M_S, M_A, M_O};
    return stage >= STAGE_INPUT && stage <= STAGE_OUTPUT ? by_stage[stage] : M_X;
}

AttnTrouble attn_row_trouble(const Attn *a, int i)
{
    const Mat *s = &a->m[M_S], *w = &a->m[M_A];
    bool bad = false, big = false, tiny = true;
    if (a->reached < STAGE_SOFTMAX || i < 0 || i >= w->rows)
        return ATTN_FINE;
    for (int j = 0; j < w->cols; j++) {
        if (attn_masked(a, i, j))
            continue;
        double x = MAT_AT(s, i, j) / a->temp;
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
    return a->mask == MASK_CAUSAL && j > i;
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
    for (int p = 0; p < 3; p++) {
        swap_rows(&a->m[M_Q + p], i, j);
        bool t = a->override[p][i];
        a->override[p][i] = a->override[p][j];
        a->override[p][j] = t;
    }
    int t = a->tok[i];
    a->tok[i] = a->tok[j];
    a->tok[j] = t;
    a->reached = STAGE_NONE;
}

bool attn_same_options(const Attn *a, const Attn *b)
{
    return a->scale == b->scale && a->softmax == b->softmax && a->mask == b->mask && a->temp == b->temp &&
           a->positions == b->positions;
}
