/* trace.c - the effect trace of a change (see trace.h). */
#include "trace.h"

#include <math.h>
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

/* After a swap, before's row for the token in row r of after (else r):
 * cells are compared token by token, so what only moved is unchanged. */
static int before_index(const Attn *x, const Attn *y, int r)
{
    if (r < 0 || r >= MAT_MAX || x->tok[r] == y->tok[r])
        return r;
    for (int k = 0; k < x->m[M_X].rows && k < MAT_MAX; k++)
        if (x->tok[k] == y->tok[r])
            return k;
    return r;
}

static void add_cell(Trace *t, const Attn *x, const Attn *y, MatId m, int i, int j)
{
    const Mat *a = &x->m[m], *b = &y->m[m];
    MatId base = attn_mat_base(m);
    bool rows = base != M_P && !attn_mat_is_param(base), cols = base == M_QKT || base == M_S || base == M_A;
    TraceCell *c = &t->cell[t->n++];
    c->mat = m;
    c->i = clampi(i, a->rows);
    c->j = clampi(j, a->cols);
    c->bi = rows ? before_index(x, y, c->i) : c->i;
    c->bj = cols ? before_index(x, y, c->j) : c->j;
    c->before = MAT_AT(a, c->bi, c->bj);
    c->after = MAT_AT(b, c->i, c->j);
}

/* The Q/K/V stage's cell after X or a W changed (see trace.h): the first
 * changed cell of q_i, then of k_j and v_j (the key the focused score
 * reads), then of any row of Q, K or V; else Q[i][j]. A W's column c
 * changes column c of its own matrix only: that column, row i (or j) first.
 * *qi, *kj become the query row and key row the later stages follow. */
static void add_qkv(Trace *t, const Attn *x, const Attn *y, int *qi, int *kj)
{
    int fi, fj, n, i = *qi, j = *kj;
    if (t->kind == TRACE_MATRIX && t->origin >= M_WQ && t->origin <= M_WV) {
        MatId m = (MatId)(M_Q + (t->origin - M_WQ));
        const Mat *a = &x->m[m], *b = &y->m[m];
        int c = t->origin_j, want = m == M_Q ? i : j, r = -1;
        for (int k = 0; c < a->cols && k < a->rows && (r < 0 || r != want); k++)
            if (differs(MAT_AT(a, k, c), MAT_AT(b, k, c)) && (r < 0 || k == want))
                r = k;
        if (r >= 0) {
            add_cell(t, x, y, m, r, c);
            *(m == M_Q ? qi : kj) = r;
            return;
        }
    }
    if (i < x->m[M_Q].rows && j < x->m[M_Q].cols && differs(MAT_AT(&x->m[M_Q], i, j), MAT_AT(&y->m[M_Q], i, j))) {
        add_cell(t, x, y, M_Q, i, j); /* the focused cell itself */
        return;
    }
    const struct { MatId m; int row; } pick[] = {{M_Q, i}, {M_K, j}, {M_V, j}, {M_Q, -1}, {M_K, -1}, {M_V, -1}};
    for (size_t k = 0; k < sizeof pick / sizeof *pick; k++)
        if (pick[k].row < x->m[pick[k].m].rows && first_diff(x, y, pick[k].m, pick[k].row, &fi, &fj, &n)) {
            add_cell(t, x, y, pick[k].m, fi, fj);
            *(pick[k].m == M_Q ? qi : kj) = fi;
            return;
        }
    add_cell(t, x, y, M_Q, i, j);
}

/* ---- the focused cell's own path (see trace.h) ---------------------------------- */

typedef struct {
    MatId mat;
    int i, j;
} Node;

typedef struct {
    const Attn *x, *y;
    const Attn *rev;    /* after with the origin as before, recomputed; NULL: unknown */
    int lo;             /* the first stage of the path */
    int head, j;        /* the head followed, the focused key */
} Path;

static double at(const Attn *a, Node n)
{
    return MAT_AT(&a->m[n.mat], n.i, n.j);
}

/* After a cell of Q, K or V changed: the heads' columns again (as stage 2). */
static void sync_heads(Attn *a)
{
    int dk = attn_d_k(a), dv = attn_d_v(a);
    for (int h = 1; a->heads > 1 && h <= a->heads; h++)
        for (int p = 0; p < 3; p++) {
            int src = p == 0 ? h : attn_kv_head(a, h), c0 = (src - 1) * (p == 2 ? dv : dk);
            Mat *d = &a->m[attn_head_id((MatId)(M_Q + p), h)];
            for (int r = 0; r < d->rows; r++)
                for (int c = 0; c < d->cols; c++)
                    MAT_AT(d, r, c) = MAT_AT(&a->m[M_Q + p], r, c0 + c);
        }
}

/* rev = after with the origin put back as before had it, recomputed from
 * the stage that reads it: what moves back depends on the origin. */
static bool revert_origin(const Attn *x, const Attn *y, const Trace *t, int reached, Attn *rev)
{
    int first = STAGE_NONE;
    if (!attn_copy(rev, y))
        return false;
    if (t->kind == TRACE_MATRIX && (t->origin <= M_V || t->origin == M_WO)) {
        (void)mat_copy(&rev->m[t->origin], &x->m[t->origin]);
        first = t->origin == M_X ? STAGE_INPUT : t->origin <= M_WV ? STAGE_QKV
              : t->origin == M_WO ? STAGE_PROJECT : STAGE_SCORES;
        sync_heads(rev);
    } else if (t->kind == TRACE_SCALE || t->kind == TRACE_MASK) {
        rev->scale = x->scale;
        rev->mask = x->mask;
        rev->window = x->window;
        first = STAGE_SCORES;
    } else if (t->kind == TRACE_SOFTMAX || t->kind == TRACE_TEMP) {
        rev->softmax = x->softmax;
        rev->block = x->block;
        rev->temp = x->temp;
        first = STAGE_SOFTMAX;
    } else if ((t->kind == TRACE_POSITIONS || (t->kind == TRACE_MATRIX && t->origin == M_P)) &&
               x->positions == y->positions) { /* RoPE's Q0, K0 exist in both */
        rev->rope_base = x->rope_base;
        rev->offset = x->offset;
        first = STAGE_INPUT;
    }
    if (first == STAGE_NONE) {
        attn_free(rev);
        return false;
    }
    for (int k = first; k <= reached; k++)
        attn_run_stage(rev, k);
    return true;
}

/* Did n change, and because of the origin? */
static bool moved(const Path *p, Node n)
{
    return differs(at(p->x, n), at(p->y, n)) && (!p->rev || differs(at(p->rev, n), at(p->y, n)));
}

/* Does n really depend on the cell u: does reverting u alone and computing
 * n's stage again move n? (The online softmax's O reads S, not A: O[i] depends on row i of A.) */
static bool depends(const Path *p, Node u, Node n)
{
    if (attn_mat_base(u.mat) == M_A && p->y->softmax == SOFTMAX_ONLINE)
        return u.i == n.i;
    if (attn_mat_base(u.mat) == M_S && (isinf(at(p->x, u)) || isinf(at(p->y, u)))) /* masked: e^−∞ = 0 */
        return u.i == n.i;
    Attn tmp = {0};
    if (!attn_copy(&tmp, p->y))
        return false;
    MAT_AT(&tmp.m[u.mat], u.i, u.j) = at(p->x, u);
    sync_heads(&tmp);
    attn_run_stage(&tmp, attn_mat_stage(n.mat));
    bool d = differs(at(&tmp, n), at(p->y, n));
    attn_free(&tmp);
    return d;
}

/* The first cell of matrix m that moved and that n depends on: (r, c)
 * first, then the rest of row r, then (rows < 0) the other rows. */
static bool pick(const Path *p, MatId m, int r, int c, bool rows, Node n, Node *u)
{
    const Mat *a = &p->y->m[m];
    if (!a->v || attn_mat_stage(m) < p->lo || attn_mat_stage(m) > p->y->reached)
        return false;
    r = clampi(r, a->rows);
    c = clampi(c, a->cols);
    for (int k = 0; k < (rows ? a->rows : 1); k++)
        for (int l = 0; l < a->cols; l++) {
            Node v = {m, (r + k) % a->rows, (c + l) % a->cols};
            if (moved(p, v) && depends(p, v, n)) {
                *u = v;
                return true;
            }
        }
    return false;
}

/* The first column of row i of S that moved (else j): the score an α follows. */
static int moved_score(const Path *p, MatId s, int i, int j)
{
    for (int k = 0; p->y->m[s].v && attn_mat_stage(s) >= p->lo && k < p->y->m[s].cols; k++)
        if (moved(p, (Node){s, i, k}))
            return k;
    return j;
}

/* The cell before n on its path, or false when n reads the origin itself. */
static bool step_back(const Path *p, Node n, Node *u)
{
    const Attn *y = p->y;
    int h = n.mat == M_O && y->heads > 1 ? n.j / attn_d_v(y) + 1 /* whole O: the column's head */
          : attn_mat_head(n.mat) ? attn_mat_head(n.mat) : p->head;
    MatId sm = attn_shown(y, M_S, h), am = attn_shown(y, M_A, h);
    switch (attn_mat_base(n.mat)) {
    case M_Y:
        return pick(p, M_O, n.i, n.j, false, n, u);
    case M_O:
        return pick(p, am, n.i, moved_score(p, sm, n.i, p->j), false, n, u) ||
               pick(p, M_V, p->j, n.j, true, n, u);
    case M_A:
        return pick(p, sm, n.i, n.j, false, n, u);
    case M_S:
        return pick(p, M_Q, n.i, 0, false, n, u) || pick(p, M_K, n.j, 0, false, n, u);
    default:
        return false;
    }
}

/* The focused cell f's path into t (see trace.h). */
static void focus_path(Trace *t, const Attn *x, const Attn *y, int reached, int lo, int head, int j, Node f)
{
    Attn rev = {0};
    Path p = {x, y, NULL, lo, head, j};
    if (revert_origin(x, y, t, reached, &rev))
        p.rev = &rev;
    if (!moved(&p, f)) {
        t->no_effect = true;
        t->focus = (TraceCell){f.mat, f.i, f.j, f.i, f.j, at(x, f), at(y, f)};
    } else {
        Node path[STAGE_MAX];
        int n = 0;
        path[n++] = f;
        while (n < STAGE_MAX && step_back(&p, path[n - 1], &path[n]))
            n++;
        while (n > 0) {
            n--;
            add_cell(t, x, y, path[n].mat, path[n].i, path[n].j);
        }
    }
    if (p.rev)
        attn_free(&rev);
}

/* The rows of the origin that differ, the focused row i first. */
static void origin_rows(Trace *t, const Attn *x, const Attn *y, int i)
{
    const Mat *a = &x->m[t->origin], *b = &y->m[t->origin];
    bool token_rows = t->origin == M_X || t->origin == M_P || (t->origin >= M_Q && t->origin <= M_V);
    t->nrows = 0;
    bool has_i = false;
    for (int r = 0; r < a->rows; r++) {
        bool d = false;
        for (int c = 0; c < a->cols && !d; c++)
            d = differs(MAT_AT(a, r, c), MAT_AT(b, r, c));
        if (!d)
            continue;
        if (t->nrows < TRACE_ROWS)
            t->rows[t->nrows] = r;
        else if (token_rows && r == i) /* the focused row is always named */
            t->rows[TRACE_ROWS - 1] = r;
        has_i = has_i || (token_rows && r == i);
        t->nrows++;
    }
    if (has_i && t->nrows == 1) { /* name the focused row's first changed cell */
        int fi, fj, n;
        if (first_diff(x, y, t->origin, i, &fi, &fj, &n)) {
            t->origin_i = fi;
            t->origin_j = fj;
            t->origin_row = n > 1;
        }
    }
}

/* Q0 and K0 (RoPE) exist in only one state after positions switch: not compared. */
static bool same_shapes(const Attn *x, const Attn *y)
{
    for (int m = 0; m < M_HEAD_END; m++)
        if (!mat_same_shape(&x->m[m], &y->m[m]))
            return false;
    return true;
}

/* after is before with one token appended: the earlier rows of X agree. */
static bool appended(const Attn *x, const Attn *y)
{
    int n = attn_tokens(x);
    if (attn_tokens(y) != n + 1 || attn_d_model(x) != attn_d_model(y) || !x->m[M_X].v)
        return false;
    for (int id = M_WQ; id <= M_WV; id++)
        if (!mat_same_shape(&x->m[id], &y->m[id]))
            return false;
    return memcmp(x->m[M_X].v, y->m[M_X].v, sizeof(double) * (size_t)n * (size_t)attn_d_model(x)) == 0;
}

/* TRACE_APPEND: the new row through every stage after reached. */
static bool trace_append(const Attn *before, const Attn *after, int head, int j, Trace *t)
{
    int n = attn_tokens(after), reached = before->reached < after->reached ? before->reached : after->reached;
    t->kind = TRACE_APPEND;
    t->origin = M_X;
    t->origin_i = n - 1;
    t->origin_row = attn_d_model(after) > 1;
    t->nrows = 1;
    t->rows[0] = n - 1;
    t->added = true;
    for (int stage = STAGE_QKV; stage <= reached; stage++) {
        const Mat *m = &after->m[attn_shown(after, attn_stage_mat(stage), head)];
        TraceCell *c = &t->cell[t->n++];
        c->mat = attn_shown(after, attn_stage_mat(stage), head);
        c->i = n - 1;
        c->j = clampi(j, m->cols);
        c->bi = c->i;
        c->bj = c->j;
        c->before = NAN;
        c->after = MAT_AT(m, c->i, c->j);
    }
    return true;
}

/* An option changed while no input did (or RoPE's turn is why Q moved):
 * the kind and origin it names, and the first stage it reaches (else from). */
static int option_change(const Attn *before, const Attn *after, Trace *t, int from)
{
    bool rope = before->positions == POS_ROPE || after->positions == POS_ROPE;
    if (rope && (t->kind == TRACE_NONE || (t->kind == TRACE_MATRIX && t->origin >= M_Q && t->origin <= M_K)) &&
        (before->positions != after->positions || before->rope_base != after->rope_base ||
         before->offset != after->offset)) {
        t->kind = TRACE_POSITIONS;
        t->origin = M_Q;
        from = STAGE_SCORES;
    }
    bool window = before->mask == MASK_WINDOW && after->mask == MASK_WINDOW && before->window != after->window;
    bool block = before->softmax == SOFTMAX_ONLINE && after->softmax == SOFTMAX_ONLINE && before->block != after->block;
    if (t->kind == TRACE_NONE && before->scale != after->scale) {
        t->kind = TRACE_SCALE;
        t->origin = M_S;
        from = STAGE_SCORES;
    } else if (t->kind == TRACE_NONE && (before->mask != after->mask || window)) {
        t->kind = TRACE_MASK;
        t->origin = M_S;
        from = STAGE_SCORES;
    } else if (t->kind == TRACE_NONE && (before->softmax != after->softmax || block)) {
        t->kind = TRACE_SOFTMAX;
        t->origin = M_A;
        from = STAGE_SOFTMAX;
    } else if (t->kind == TRACE_NONE && before->temp != after->temp) {
        t->kind = TRACE_TEMP;
        t->origin = M_A;
        from = STAGE_SOFTMAX;
    }
    return from;
}

/* The inputs after the origin, up to `last` (X, Wq, Wk, Wv in order), that
 * differ too, with their rows that differ. */
static void also_inputs(Trace *t, const Attn *x, const Attn *y, MatId last)
{
    for (int m = t->origin + 1; m <= (int)last && t->nalso < TRACE_ALSO; m++) {
        const Mat *a = &x->m[m], *b = &y->m[m];
        if (!a->v || !b->v || !mat_same_shape(a, b))
            continue;
        int n = 0;
        for (int r = 0; r < a->rows; r++) {
            bool d = false;
            for (int c = 0; c < a->cols && !d; c++)
                d = differs(MAT_AT(a, r, c), MAT_AT(b, r, c));
            if (d && n < TRACE_ROWS)
                t->also[t->nalso].rows[n] = r;
            n += d;
        }
        if (n > 0) {
            t->also[t->nalso].mat = (MatId)m;
            t->also[t->nalso++].nrows = n;
        }
    }
}

bool trace_compute(const Attn *before, const Attn *after, int i, int j, Trace *t)
{
    return trace_compute_head(before, after, 0, i, j, t);
}

/* Did two tokens trade places? *a and *b get their rows. */
static bool swapped_rows(const Attn *before, const Attn *after, int *a, int *b)
{
    if (memcmp(before->tok, after->tok, sizeof before->tok) == 0)
        return false;
    int x = -1, y = -1;
    for (int r = 0; r < before->m[M_X].rows && r < MAT_MAX; r++)
        if (before->tok[r] != after->tok[r])
            x < 0 ? (x = r) : (y = r);
    *a = x;
    *b = y < 0 ? x : y;
    return true;
}

/* The cells from stage lo to reached for query row i, key j: past the
 * Q/K/V stage the focused cell's path, a swap's rows token by token. */
static void add_stages(Trace *t, const Attn *before, const Attn *after, int head, int reached, int lo, int i, int j)
{
    int oj = j; /* O's and Y's column: an output feature, not a key */
    if (t->kind != TRACE_SWAP && reached > STAGE_QKV && lo <= reached) {
        MatId fm = reached == STAGE_PROJECT ? M_Y : attn_shown(after, attn_stage_mat(reached), head);
        const Mat *fmat = &after->m[fm];
        focus_path(t, before, after, reached, lo, head, j,
                   (Node){fm, clampi(i, fmat->rows), clampi(reached >= STAGE_OUTPUT ? oj : j, fmat->cols)});
        return;
    }
    for (int stage = lo; stage <= reached; stage++) {
        if (stage == STAGE_QKV)
            add_qkv(t, before, after, &i, &j);
        else
            add_cell(t, before, after, attn_shown(after, attn_stage_mat(stage), head), i,
                     stage >= STAGE_OUTPUT ? oj : j);
    }
}

bool trace_compute_head(const Attn *before, const Attn *after, int head, int i, int j, Trace *t)
{
    memset(t, 0, sizeof *t);
    t->kind = TRACE_NONE;
    if (appended(before, after))
        return trace_append(before, after, head, j, t);
    if (!same_shapes(before, after) || before->m[M_X].rows == 0)
        return false;
    int reached = before->reached < after->reached ? before->reached : after->reached;
    int fi = 0, fj = 0, count = 0, from = 0;
    static const MatId order[] = {M_X, M_WQ, M_WK, M_WV, M_P, M_Q, M_K, M_V, M_WO};
    for (size_t k = 0; k < sizeof order / sizeof *order && t->kind == TRACE_NONE; k++) {
        MatId m = order[k];
        if (!before->m[m].v || (m == M_P && reached < STAGE_INPUT))
            continue;
        bool d = m >= M_Q && m <= M_V && reached < STAGE_QKV ? override_diff(before, after, m, &fi, &fj, &count)
                                                 : first_diff(before, after, m, -1, &fi, &fj, &count);
        if (d) {
            t->kind = TRACE_MATRIX;
            t->origin = m;
            from = m == M_WO ? STAGE_PROJECT : attn_mat_stage(m) + 1;
        }
    }
    if (t->kind == TRACE_MATRIX && t->origin <= M_WV)
        also_inputs(t, before, after, M_WV);
    if (swapped_rows(before, after, &fi, &fj)) { /* a swap: the two rows whose tokens traded places */
        t->kind = TRACE_SWAP;
        t->origin = M_X;
        from = STAGE_QKV;
    }
    from = option_change(before, after, t, from);
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
    if (t->kind == TRACE_MATRIX)
        origin_rows(t, before, after, i);
    add_stages(t, before, after, head, reached, from < STAGE_QKV ? STAGE_QKV : from, i, j);
    return true;
}
