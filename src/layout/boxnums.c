/* boxnums.c - the numbers of one matrix box: how wide its cells must be,
 * and which cells changed with the last change (the ▲ ▼ marks), each
 * looked up by token after a swap. */
#include <math.h>
#include <string.h>

#include "words/fmt.h"
#include "text/text.h"
#include "layout.h"
#include "layout_int.h"

static bool is_heat(MatId id)
{
    id = attn_mat_base(id);
    return id == M_S || id == M_A;
}

/* The widest of the numbers among values v[0..n) (only those that differ
 * from skip[k], when skip is given): only the extremes on each side of
 * zero, up to where numbers turn scientific, need writing. */
static int widest_of(const Frame *c, const double *v, const double *skip, int n)
{
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    char buf[64];
    double cand[7] = {0, 0, 0, 0, INFINITY, -INFINITY, NAN};
    bool odd = false, any = false;
    for (int k = 0; k < n; k++) {
        double x = v[k];
        if (skip && (x == skip[k] || (isnan(x) && isnan(skip[k]))))
            continue;
        any = true;
        int cl = fabs(x) < 1e6 ? 0 : 2;
        odd = odd || !isfinite(x);
        if (isfinite(x) && x > cand[cl])
            cand[cl] = x;
        else if (isfinite(x) && x < cand[cl + 1])
            cand[cl + 1] = x;
    }
    int w = 0;
    for (int k = 0; any && k < (odd ? 7 : 4); k++) {
        bool again = false; /* the same number writes as wide: the zeros nothing replaced */
        for (int e = 0; e < k && !again; e++)
            again = cand[e] == cand[k];
        if (again)
            continue;
        int m = text_width(fmt_num(cand[k], &fo, buf, sizeof buf));
        w = m > w ? m : w;
    }
    return w;
}

/* The widest of the numbers of id that moved with the last change, each
 * against the cell box_changed compares it with (after a swap, the same
 * token's: a row that only moved with its token gets no mark, so no room). */
static int widest_moved(const Frame *c, MatId id)
{
    const Mat *m = &c->a->m[id];
    double was[MAT_MAX * MAT_MAX];
    if (m->rows > MAT_MAX || m->cols > MAT_MAX)
        return widest_of(c, m->v, c->s->before.m[id].v, m->rows * m->cols);
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++)
            was[i * m->cols + j] = box_before_cell(c, id, i, j);
    return widest_of(c, m->v, was, m->rows * m->cols);
}

/* The widest number of a matrix, with room left of it for a heat shade in
 * mono; *mark: 1 when a change mark (▲ ▼) on a changed cell needs one
 * column more; worked out once per frame (cached as 2w + mark). The blank
 * that starts every cell is not counted: marks never touch the number to
 * their left. */
static int widest(Frame *c, MatId id, int *mark)
{
    if (c->widest[id] > 0) {
        *mark = c->widest[id] & 1;
        return c->widest[id] / 2;
    }
    const Mat *m = &c->a->m[id];
    const Attn *b = &c->s->before;
    int n = m->rows * m->cols, shade = c->in->mono && is_heat(id) ? 1 : 0;
    int w = 1 + c->l->digits + 2; /* "-0." */
    int real = widest_of(c, m->v, NULL, n) + shade;
    w = real > w ? real : w;
    *mark = 0;
    if (c->s->has_before && b->reached >= attn_mat_stage(id) && c->a->reached >= attn_mat_stage(id) &&
        mat_same_shape(m, &b->m[id])) {
        int moved = widest_moved(c, id);
        *mark = moved > 0 && moved + 1 + shade > w;
    }
    c->widest[id] = 2 * w + *mark;
    return w;
}

/* Width of one cell: the widest number and a space before it; a change
 * marker (▲ ▼) goes in the band's padding column when it has one. Marks
 * are a decoration and never cost a column of numbers: a cell widens for
 * its mark only when the band laying it out has room for that (c->marks),
 * else a mark stands only where its number leaves a column free. */
int box_cell_width(Frame *c, MatId id)
{
    int mark, w = widest(c, id, &mark);
    mark = mark && c->marks;
    return w + 1 + (c->pad > mark ? c->pad : mark);
}

/* The row of `before` that holds the token row i of the current state
 * holds (a swap moves tokens, not positions). */
static int before_row(const Frame *c, int i)
{
    const Attn *b = &c->s->before, *a = c->a;
    if (i < 0 || i >= MAT_MAX || b->tok[i] == a->tok[i])
        return i;
    for (int k = 0; k < attn_tokens(b) && k < MAT_MAX; k++)
        if (b->tok[k] == a->tok[i])
            return k;
    return i;
}

/* Cell (i, j) of id as it was before the last change, for the same tokens:
 * after a swap the rows of token matrices (and the key columns of the
 * scores and weights) are looked up by token; P and the weights stay. */
double box_before_cell(const Frame *c, MatId id, int i, int j)
{
    MatId base = attn_mat_base(id);
    bool rows = base != M_P && !attn_mat_is_param(base), cols = base == M_QKT || base == M_S || base == M_A;
    return MAT_AT(&c->s->before.m[id], rows ? before_row(c, i) : i, cols ? before_row(c, j) : j);
}

/* Did cell (i, j) change, as shown, with the last change? +1 up, -1 down.
 * Differences below the digits shown are not marked, nor cells now NaN,
 * nor cells that only moved with their token (a swap). */
int box_changed(const Frame *c, MatId id, int i, int j)
{
    const Attn *b = &c->s->before, *a = c->a;
    if (!c->s->has_before || b->reached < attn_mat_stage(id) || !mat_same_shape(&a->m[id], &b->m[id]))
        return 0;
    FmtOpt fo = {c->l->digits, true, false};
    char sx[64], sy[64];
    double x = MAT_AT(&a->m[id], i, j), y = box_before_cell(c, id, i, j);
    if (isnan(x) || strcmp(fmt_num(x, &fo, sx, sizeof sx), fmt_num(y, &fo, sy, sizeof sy)) == 0)
        return 0; /* a NaN has no direction: never ▼NaN */
    return x > y || isnan(y) ? 1 : -1;
}
