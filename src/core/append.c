/* append.c - a token added at the end, and what a KV cache saves (see attn.h).
 *
 * With the causal mask (or a window) row i of every result reads only rows
 * 0..i, so the earlier rows come out the same bit for bit and a cache of K
 * and V is exact: the new token costs one row of Q, K, V and its own row of
 * scores. Without a mask every earlier row of S, A and O reads the new key. */
#include "attn.h"

#include <stdlib.h>
#include <string.h>

/* The results with a row per token grow a row; QKt, S, A (and their
 * heads') a column too. Parameters keep their shape. */
static bool grows(MatId id, int *cols_too)
{
    MatId base = attn_mat_base(id);
    *cols_too = base == M_QKT || base == M_S || base == M_A;
    return !attn_mat_is_param(id);
}

bool attn_append(Attn *a, const double *x, int d)
{
    int n = attn_tokens(a);
    if (n >= MAT_MAX || d != attn_d_model(a) || attn_is_cross(a)) /* cross: the keys are the source's */
        return false;
    Mat grown[M_COUNT];
    memset(grown, 0, sizeof grown);
    for (int id = 0; id < M_COUNT; id++) {
        const Mat *m = &a->m[id];
        int wide;
        if (!m->v || !grows((MatId)id, &wide))
            continue;
        if (!mat_new(&grown[id], m->rows + 1, m->cols + wide)) {
            for (int k = 0; k < id; k++)
                mat_free(&grown[k]);
            return false;
        }
        for (int i = 0; i < m->rows; i++) /* old cells where they were */
            memcpy(&MAT_AT(&grown[id], i, 0), &MAT_AT(m, i, 0), sizeof(double) * (size_t)m->cols);
    }
    for (int id = 0; id < M_COUNT; id++)
        if (grown[id].v) {
            mat_free(&a->m[id]);
            a->m[id] = grown[id];
        }
    memcpy(&MAT_AT(&a->m[M_X], n, 0), x, sizeof(double) * (size_t)d);
    for (int p = 0; p < 3; p++) {
        a->override[p][n] = false;
        a->ovh[p][n] = 0;
    }
    a->tok[n] = n;
    for (int k = 0; k < a->ntarget; k++)
        a->target[k].t[n] = 0.0;
    attn_run_to(a, a->reached);
    return true;
}

/* Row i of m in x and y: the first `cols` cells equal bit for bit. */
static bool same_row(const Mat *x, const Mat *y, int i, int cols)
{
    return memcmp(&MAT_AT(x, i, 0), &MAT_AT(y, i, 0), sizeof(double) * (size_t)cols) == 0;
}

/* Did earlier row i of the results (S, A, O of every head, Y) change? S and
 * A also need the new key hidden there (S -inf, A exactly 0). */
static bool row_changed(const Attn *b, const Attn *a, int i)
{
    int n = attn_tokens(a);
    for (int id = M_QKT; id < M_COUNT; id++) {
        MatId base = attn_mat_base((MatId)id);
        bool res = base == M_S || base == M_A || base == M_O || base == M_Y;
        if (!res || !a->m[id].v || !b->m[id].v)
            continue;
        bool sq = base == M_S || base == M_A;
        if (!same_row(&b->m[id], &a->m[id], i, b->m[id].cols))
            return true;
        if (sq && !attn_masked(a, i, n - 1))
            return true;
    }
    return false;
}

bool attn_append_work(const Attn *before, const Attn *after, AttnWork *w)
{
    memset(w, 0, sizeof *w);
    int n = attn_tokens(after);
    if (n != attn_tokens(before) + 1 || before->reached < STAGE_OUTPUT || after->reached < STAGE_OUTPUT ||
        attn_heads(before) != attn_heads(after))
        return false;
    int lo, hi;
    attn_visible(after, n - 1, &lo, &hi);
    w->n = n;
    w->heads = attn_heads(after);
    w->rows_new = 1;
    w->scores_new = hi - lo;
    w->rows_full = n;
    w->scores_full = n * n;
    w->exact = true;
    w->kv_kept = true;
    for (int i = 0; i < n - 1; i++) {
        for (int p = 0; p < 3; p++) /* the rows a cache keeps (and Q) */
            if (!same_row(&before->m[M_Q + p], &after->m[M_Q + p], i, before->m[M_Q + p].cols)) {
                w->exact = false;
                w->kv_kept = w->kv_kept && p == 0;
            }
        w->stale[i] = row_changed(before, after, i);
        w->nstale += w->stale[i];
        w->scores_col += !attn_masked(after, i, n - 1);
    }
    w->exact = w->exact && w->nstale == 0;
    return true;
}

int attn_name_index(Attn *a, const char *name)
{
    for (int k = 0; k < a->ntok_name; k++)
        if (strncmp(a->tok_name[k], name, ATTN_NAME_BYTES) == 0)
            return k;
    if (a->ntok_name == MAT_MAX || (!a->tok_name && !(a->tok_name = malloc(sizeof *a->tok_name * MAT_MAX))))
        return -1;
    char *to = a->tok_name[a->ntok_name];
    size_t n = strnlen(name, ATTN_NAME_BYTES);
    memcpy(to, name, n);
    to[n] = '\0';
    return a->ntok_name++;
}

const char *attn_name_at(const Attn *a, int k)
{
    return k >= 0 && k < a->ntok_name ? a->tok_name[k] : NULL;
}
