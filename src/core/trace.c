/* trace.c - the effect trace of a change (see trace.h). */
#include "trace.h"

#include <string.h>

static int clampi(int v, int n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

/* Is the cell different? NaN against NaN counts as the same. */
static bool differs(double a, double b)
{
    return !(a == b) && !(a != a && b != b);
}

/* The first differing cell of row i (or of any row when i < 0) of matrix
 * m; counts the differing cells of that row into *count. */
static bool first_diff(const Attn *x, const Attn *y, MatId m, int i, int *fi, int *fj, int *count)
{
    const Mat *a = &x->m[m], *b = &y->m[m];
    for (int r = i < 0 ? 0 : i; r < a->rows && (i < 0 || r == i); r++) {
        int n = 0;
        for (int c = 0; c < a->cols; c++)
            if (differs(MAT_AT(a, r, c), MAT_AT(b, r, c))) {
                if (n++ == 0) {
                    *fi = r;
                    *fj = c;
                }
            }
        if (n) {
            if (count)
                *count = n;
            return true;
        }
    }
    return false;
}

/* A hand-set row of Q, K or V that differs, when that stage is not reached:
 * only those rows are inputs there, the rest are stale. */
static bool override_diff(const Attn *x, const Attn *y, MatId m, int *fi, int *fj, int *count)
{
    int k = m - M_Q;
    for (int r = 0; r < x->m[m].rows; r++) {
        if (!x->override[k][r] && !y->override[k][r])
            continue;
        if (x->override[k][r] != y->override[k][r]) {
            *fi = r;
            *fj = 0;
            *count = x->m[m].cols;
            return true;
        }
        if (first_diff(x, y, m, r, fi, fj, count))
            return true;
    }
    return false;
}

static void add_cell(Trace *t, const Attn *x, const Attn *y, MatId m, int i, int j)
{
    const Mat *a = &x->m[m], *b = &y->m[m];
    TraceCell *c = &t->cell[t->n++];
    c->mat = m;
    c->i = clampi(i, a->rows);
    c->j = clampi(j, a->cols);
    c->before = MAT_AT(a, c->i, c->j);
    c->after = MAT_AT(b, c->i, c->j);
}

/* The Q/K/V stage's cell after X or a W changed (see trace.h): the first
 * changed cell of q_i, then of k_j and v_j (the key the focused score
 * reads), then of any row of Q, K or V; else Q[i][j]. */
static void add_qkv(Trace *t, const Attn *x, const Attn *y, int i, int j)
{
    int fi, fj, n;
    const struct { MatId m; int row; } pick[] = {{M_Q, i}, {M_K, j}, {M_V, j}, {M_Q, -1}, {M_K, -1}, {M_V, -1}};
    for (size_t k = 0; k < sizeof pick / sizeof *pick; k++)
        if (pick[k].row < x->m[pick[k].m].rows && first_diff(x, y, pick[k].m, pick[k].row, &fi, &fj, &n)) {
            add_cell(t, x, y, pick[k].m, fi, fj);
            return;
        }
    add_cell(t, x, y, M_Q, i, j);
}

static bool same_shapes(const Attn *x, const Attn *y)
{
    for (int m = 0; m < M_COUNT; m++)
        if (!mat_same_shape(&x->m[m], &y->m[m]))
            return false;
    return true;
}

bool trace_compute(const Attn *before, const Attn *after, int i, int j, Trace *t)
{
    return trace_compute_head(before, after, 0, i, j, t);
}

bool trace_compute_head(const Attn *before, const Attn *after, int head, int i, int j, Trace *t)
{
    memset(t, 0, sizeof *t);
    t->kind = TRACE_NONE;
    if (!same_shapes(before, after) || before->m[M_X].rows == 0)
        return false;
    int reached = before->reached < after->reached ? before->reached : after->reached;
    int fi = 0, fj = 0, count = 0, from = 0;
    static const MatId order[] = {M_X, M_WQ, M_WK, M_WV, M_Q, M_K, M_V, M_WO};
    for (size_t k = 0; k < sizeof order / sizeof *order && t->kind == TRACE_NONE; k++) {
        MatId m = order[k];
        if (!before->m[m].v)
            continue;
        bool d = m >= M_Q && m <= M_V && reached < STAGE_QKV ? override_diff(before, after, m, &fi, &fj, &count)
                                                 : first_diff(before, after, m, -1, &fi, &fj, &count);
        if (d) {
            t->kind = TRACE_MATRIX;
            t->origin = m;
            from = m == M_WO ? STAGE_PROJECT : attn_mat_stage(m) + 1;
        }
    }
    if (t->kind == TRACE_NONE && before->scale != after->scale) {
        t->kind = TRACE_SCALE;
        t->origin = M_S;
        from = STAGE_SCORES;
    } else if (t->kind == TRACE_NONE && before->softmax != after->softmax) {
        t->kind = TRACE_SOFTMAX;
        t->origin = M_A;
        from = STAGE_SOFTMAX;
    }
    /* Nothing among the inputs: a result may still differ (a state computed
     * further, or numbers from elsewhere); the first one is the origin. */
    static const MatId results[] = {M_QKT, M_S, M_A, M_O, M_Y};
    for (size_t k = 0; k < sizeof results / sizeof *results && t->kind == TRACE_NONE; k++)
        if (attn_mat_stage(results[k]) <= reached && before->m[results[k]].v &&
            first_diff(before, after, results[k], -1, &fi, &fj, &count)) {
            t->kind = TRACE_MATRIX;
            t->origin = results[k];
            from = attn_mat_stage(results[k]) + 1;
        }
    if (t->kind == TRACE_NONE)
        return false;
    t->origin_i = fi;
    t->origin_j = fj;
    t->origin_row = count > 1;
    int n = before->m[M_X].rows;
    if (i < 0 || i >= n)
        i = 0;
    if (j < 0 || j >= n)
        j = 0;
    for (int stage = from < STAGE_QKV ? STAGE_QKV : from; stage <= reached; stage++) {
        if (stage == STAGE_QKV)
            add_qkv(t, before, after, i, j);
        else
            add_cell(t, before, after, attn_shown(after, attn_stage_mat(stage), head), i, j);
    }
    return true;
}
