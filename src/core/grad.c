/* grad.c - targets, loss, the gradient on W_Q and W_K, descent (see grad.h). */
#include "grad.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the heads, through the state ------------------------------------------ */

int grad_heads(const Attn *a)
{
    return attn_heads(a);
}

int grad_head_dk(const Attn *a)
{
    return attn_d_k(a);
}

const Mat *grad_head_A(const Attn *a, int k)
{
    return &a->m[attn_shown(a, M_A, k + 1)];
}

/* ---- targets ------------------------------------------------------------------ */

int grad_find(const Attn *a, int head, int row)
{
    for (int k = 0; k < a->ntarget; k++)
        if (a->target[k].head == head && a->target[k].row == row)
            return k;
    return -1;
}

/* Replace the target at k, or insert one at its place in (head, row) order. */
static bool insert_target(Attn *a, int head, int row, const double *t)
{
    int n = attn_tokens(a), at = 0;
    AttnTarget *list = realloc(a->target, sizeof *list * (size_t)(a->ntarget + 1));
    if (!list)
        return false;
    a->target = list;
    while (at < a->ntarget && (list[at].head < head || (list[at].head == head && list[at].row < row)))
        at++;
    memmove(&list[at + 1], &list[at], sizeof *list * (size_t)(a->ntarget - at));
    memset(&list[at], 0, sizeof *list);
    list[at].head = head;
    list[at].row = row;
    memcpy(list[at].t, t, sizeof(double) * (size_t)n);
    a->ntarget++;
    return true;
}

bool grad_set_target(Attn *a, int head, int row, const double *t)
{
    int k = grad_find(a, head, row);
    a->nloss = 0; /* another loss: its history starts again */
    if (t && k >= 0) {
        memcpy(a->target[k].t, t, sizeof(double) * (size_t)attn_tokens(a));
        return true;
    }
    if (t)
        return insert_target(a, head, row, t);
    if (k < 0)
        return true;
    memmove(&a->target[k], &a->target[k + 1], sizeof *a->target * (size_t)(a->ntarget - k - 1));
    if (--a->ntarget == 0) {
        free(a->target);
        a->target = NULL;
    }
    return true;
}

GradDist grad_check_dist(const Attn *a, int row, const double *t, int n, int *bad)
{
    double sum = 0.0;
    *bad = n;
    if (n != attn_tokens(a))
        return GRAD_DIST_WIDTH;
    for (int j = 0; j < n; j++) {
        *bad = j;
        if (!isfinite(t[j]))
            return GRAD_DIST_NOT_FINITE;
        if (t[j] < 0)
            return GRAD_DIST_NEGATIVE;
        if (t[j] > 0 && attn_masked(a, row, j))
            return GRAD_DIST_MASKED;
        sum += t[j];
    }
    *bad = -1;
    return fabs(sum - 1.0) <= 1e-9 ? GRAD_DIST_OK : GRAD_DIST_SUM;
}

static void set_out(int *p, int v)
{
    if (p)
        *p = v;
}

GradTrouble grad_ready(const Attn *a, MatId *mat, int *k, int *row, int *col)
{
    int n = attn_tokens(a);
    if (a->ntarget == 0)
        return GRAD_NO_TARGET;
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < n; i++)
            if (a->override[p][i]) {
                if (mat)
                    *mat = p == 0 ? M_Q : M_K;
                set_out(row, i);
                return GRAD_OVERRIDE;
            }
    for (int x = 0; x < a->ntarget; x++) {
        const AttnTarget *t = &a->target[x];
        set_out(k, x);
        set_out(row, t->row);
        for (int j = 0; j < n; j++)
            if (t->t[j] > 0 && attn_masked(a, t->row, j)) {
                set_out(col, j);
                return GRAD_MASKED_TARGET;
            }
        if (a->reached >= STAGE_SOFTMAX)
            for (int j = 0; j < n; j++)
                if (!isfinite(MAT_AT(grad_head_A(a, t->head), t->row, j)))
                    return GRAD_NOT_FINITE;
    }
    return GRAD_READY;
}

/* ---- loss and gradient -------------------------------------------------------- */

double grad_target_loss(const Attn *a, const AttnTarget *t)
{
    const Mat *w = grad_head_A(a, t->head);
    double loss = 0.0;
    for (int j = 0; j < w->cols; j++)
        if (t->t[j] != 0.0)
            loss -= t->t[j] * log(MAT_AT(w, t->row, j));
    return loss;
}

double grad_loss(const Attn *a)
{
    double loss = 0.0;
    for (int k = 0; k < a->ntarget; k++)
        loss += grad_target_loss(a, &a->target[k]);
    return loss;
}

/* dst zeroed at rows x cols, reallocated only when the shape differs. */
static bool zeros(Mat *dst, int rows, int cols)
{
    if (dst->v && dst->rows == rows && dst->cols == cols) {
        memset(dst->v, 0, sizeof(double) * (size_t)rows * (size_t)cols);
        return true;
    }
    mat_free(dst);
    return mat_new(dst, rows, cols);
}

/* The divisor of the scores: sqrt(d_k) with scaling, else 1. */
static double divisor(const Attn *a)
{
    return a->scale == SCALE_SQRT_DK ? sqrt((double)grad_head_dk(a)) : 1.0;
}

/* dL/dqkt_ij for target t's row: (alpha_ij - t_j) / T / divisor; 0 where masked. */
static double dqkt(const Attn *a, const AttnTarget *t, int j, double div)
{
    if (attn_masked(a, t->row, j))
        return 0.0;
    return (MAT_AT(grad_head_A(a, t->head), t->row, j) - t->t[j]) / a->temp / div;
}

/* The first column of K (and of dK) that query head `head` (0-based) reads. */
static int k_col0(const Attn *a, int head)
{
    return (attn_kv_head(a, head + 1) - 1) * grad_head_dk(a);
}

/* dQ (n x h*d_k) and dK (n x g*d_k): the loss's gradient with respect to
 * Q and K as stored (rotated, with RoPE); the query heads that share a K/V
 * head add into its columns. With RoPE each row then turns back by its
 * angle: the gradient with respect to Q0 and K0, which come from W. */
static void grad_qk(const Attn *a, Mat *dq, Mat *dk)
{
    const Mat *q = &a->m[M_Q], *k = &a->m[M_K];
    int n = attn_tokens(a), d = grad_head_dk(a);
    double div = divisor(a);
    for (int x = 0; x < a->ntarget; x++) {
        const AttnTarget *t = &a->target[x];
        int i = t->row, c0 = t->head * d, ck = k_col0(a, t->head);
        for (int j = 0; j < n; j++) {
            double g = dqkt(a, t, j, div);
            for (int c = 0; c < d; c++) {
                MAT_AT(dq, i, c0 + c) += g * MAT_AT(k, j, ck + c);
                MAT_AT(dk, j, ck + c) += g * MAT_AT(q, i, c0 + c);
            }
        }
    }
    for (int r = 0; a->positions == POS_ROPE && r < n; r++) {
        attn_rope_unrow(a, &MAT_AT(dq, r, 0), dq->cols, r);
        attn_rope_unrow(a, &MAT_AT(dk, r, 0), dk->cols, r);
    }
}

/* gw += H^T dm over the cells of dm that come from W (p: 0 for Q, 1 for K;
 * cells set by hand are constants). Rows of dm that are all 0 (the rows of
 * dQ no target reaches) add nothing and are skipped. */
static void back_to_w(const Attn *a, const Mat *dm, int p, Mat *gw)
{
    const Mat *h = &a->m[M_H];
    int cols = dm->cols;
    for (int r = 0; r < dm->rows; r++) {
        const double *d = &MAT_AT(dm, r, 0);
        bool zero = true;
        for (int c = 0; c < cols && zero; c++)
            zero = d[c] == 0.0;
        if (zero)
            continue;
        bool some = a->override[p][r];
        for (int m = 0; m < h->cols; m++) {
            double hv = MAT_AT(h, r, m), *g = &MAT_AT(gw, m, 0);
            if (!some) {
                mat_axpy(g, d, hv, cols);
                continue;
            }
            for (int c = 0; c < cols; c++)
                if (!attn_cell_overridden(a, p, r, c))
                    g[c] += hv * d[c];
        }
    }
}

/* dL/dWq and dL/dWk into gq and gk, with dq (n x h*d_k) and dk (n x g*d_k) as room. */
static bool compute_into(const Attn *a, Mat *gq, Mat *gk, Mat *dq, Mat *dk)
{
    int n = attn_tokens(a), cols = a->m[M_WQ].cols, kcols = a->m[M_WK].cols;
    if (!zeros(gq, attn_d_model(a), cols) || !zeros(gk, attn_d_model(a), kcols) || !zeros(dq, n, cols) ||
        !zeros(dk, n, kcols))
        return false;
    grad_qk(a, dq, dk);
    back_to_w(a, dq, 0, gq);
    back_to_w(a, dk, 1, gk);
    return true;
}

bool grad_compute(const Attn *a, Mat *gq, Mat *gk)
{
    Mat dq = {0}, dk = {0};
    bool ok = compute_into(a, gq, gk, &dq, &dk);
    mat_free(&dq);
    mat_free(&dk);
    return ok;
}

/* w -= lr * g; false when a weight would not be finite. */
static bool descend(Mat *w, const Mat *g, double lr)
{
    size_t cells = (size_t)w->rows * (size_t)w->cols;
    bool finite = true;
    for (size_t c = 0; c < cells; c++) {
        w->v[c] -= lr * g->v[c];
        finite = finite && isfinite(w->v[c]);
    }
    return finite;
}

/* Keep the loss before a step: the last ATTN_LOSS_HIST, oldest first. */
static void remember_loss(Attn *a)
{
    if (a->nloss == ATTN_LOSS_HIST) {
        memmove(a->loss_hist, a->loss_hist + 1, sizeof(double) * (ATTN_LOSS_HIST - 1));
        a->nloss--;
    }
    a->loss_hist[a->nloss++] = grad_loss(a);
}

bool grad_descend(Attn *a, int steps)
{
    int nloss = a->nloss;
    double hist[ATTN_LOSS_HIST];
    memcpy(hist, a->loss_hist, sizeof hist);
    Mat gq = {0}, gk = {0}, wq = {0}, wk = {0}, dq = {0}, dk = {0};
    bool ok = mat_copy(&wq, &a->m[M_WQ]) && mat_copy(&wk, &a->m[M_WK]);
    if (ok && a->reached < STAGE_SOFTMAX)
        attn_run_to(a, STAGE_SOFTMAX);
    for (int s = 0; ok && s < steps; s++) {
        if (s > 0) { /* Wq and Wk moved: X, P, H and V still hold */
            attn_rerun_qk(a);
            attn_run_stage(a, STAGE_SCORES);
            attn_run_stage(a, STAGE_SOFTMAX);
        }
        remember_loss(a);
        ok = compute_into(a, &gq, &gk, &dq, &dk);
        ok = ok && descend(&a->m[M_WQ], &gq, a->lr);
        ok = ok && descend(&a->m[M_WK], &gk, a->lr);
    }
    if (!ok) { /* out of memory or not finite: the Ws (and the history) as they were */
        mat_copy(&a->m[M_WQ], &wq);
        mat_copy(&a->m[M_WK], &wk);
        a->nloss = nloss;
        memcpy(a->loss_hist, hist, sizeof hist);
    }
    a->reached = a->reached < STAGE_INPUT ? a->reached : STAGE_INPUT;
    mat_free(&gq);
    mat_free(&gk);
    mat_free(&dq);
    mat_free(&dk);
    mat_free(&wq);
    mat_free(&wk);
    return ok;
}

/* ---- the chain rule, explained ------------------------------------------------ */

bool grad_explain(const Attn *a, int ti, int key, GradExplain *e)
{
    memset(e, 0, sizeof *e);
    if (ti < 0 || ti >= a->ntarget || a->reached < STAGE_SOFTMAX)
        return false;
    const AttnTarget *t = &a->target[ti];
    const Mat *q = &a->m[M_Q], *k = &a->m[M_K], *h = &a->m[M_H];
    int n = attn_tokens(a), d = grad_head_dk(a), c0 = t->head * d, ck = k_col0(a, t->head);
    e->head = t->head;
    e->row = t->row;
    e->key = key < 0 ? 0 : key >= n ? n - 1 : key;
    e->n = n;
    e->d_k = d;
    e->d_model = attn_d_model(a);
    attn_visible(a, t->row, &e->lo, &e->vis);
    e->kv_head = attn_kv_head(a, t->head + 1) - 1;
    e->rope = a->positions == POS_ROPE;
    e->temp = a->temp;
    e->scaled = a->scale == SCALE_SQRT_DK;
    e->divisor = divisor(a);
    e->loss = grad_target_loss(a, t);
    for (int j = 0; j < n; j++) {
        e->alpha[j] = MAT_AT(grad_head_A(a, t->head), t->row, j);
        e->t[j] = t->t[j];
        bool m = attn_masked(a, t->row, j);
        e->dz[j] = m ? 0.0 : e->alpha[j] - e->t[j];
        e->ds[j] = m ? 0.0 : e->dz[j] / a->temp;
        double g = dqkt(a, t, j, e->divisor);
        for (int c = 0; c < d; c++)
            e->dq[c] += g * MAT_AT(k, j, ck + c);
    }
    double full[MAT_MAX] = {0}; /* the row in its full width, so its pairs turn with the head's angles */
    for (int c = 0; c < d; c++)
        full[c0 + c] = e->dq[c];
    if (e->rope)
        attn_rope_unrow(a, full, c0 + d, t->row);
    for (int c = 0; c < d; c++)
        e->dq0[c] = full[c0 + c];
    double gk = dqkt(a, t, e->key, e->divisor);
    for (int c = 0; c < d; c++) {
        e->q[c] = MAT_AT(q, t->row, c0 + c);
        e->dk[c] = gk * e->q[c];
    }
    for (int m = 0; m < e->d_model; m++) {
        e->h[m] = MAT_AT(h, t->row, m);
        e->hk[m] = MAT_AT(h, e->key, m);
    }
    return true;
}
