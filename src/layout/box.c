/* box.c - one matrix box: its title, column header, row labels, the
 * cells and their roles, the focus marks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "lesson/action.h"
#include "lesson/train.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "layout.h"
#include "layout_int.h"

/* ---- one matrix ------------------------------------------------------------- */

bool box_rows_are_tokens(MatId id)
{
    return !attn_mat_is_param(id) && id != M_P; /* P's rows are positions: they stay when tokens swap */
}

static bool cols_are_tokens(MatId id)
{
    id = attn_mat_base(id);
    return id == M_QKT || id == M_S || id == M_A;
}

static int head_group(const Frame *c, MatId id, int k, char *buf, size_t len);

/* Is row i of Q, K, V (or of a head's Q2, K2, V2: its part) set by hand? */
static bool row_hand(const Frame *c, MatId id, int i)
{
    MatId b = attn_mat_base(id);
    int h = attn_mat_head(id);
    if (b < M_Q || b > M_V)
        return false;
    if (!h)
        return session_overridden(c->s, id, i);
    int w = b == M_V ? attn_d_v(c->a) : attn_d_k(c->a);
    return i >= 0 && i < MAT_MAX && attn_cell_overridden(c->a, b - M_Q, i, (h - 1) * w);
}

static bool any_override(const Frame *c, MatId id)
{
    MatId b = attn_mat_base(id);
    if (b < M_Q || b > M_V)
        return false;
    for (int i = 0; i < c->a->m[id].rows; i++)
        if (row_hand(c, id, i))
            return true;
    return false;
}

int box_label_width(const Frame *c, MatId id, const Mat *m, bool nolabel)
{
    int w = 2;
    if (nolabel) /* only Q, K and V need a column for the "set by hand" mark */
        return attn_mat_base(id) >= M_Q && attn_mat_base(id) <= M_V ? 1 : 0;
    if (!box_rows_are_tokens(id)) {
        char buf[32];
        if (id == M_WO && head_group(c, M_WO, m->rows - 1, buf, sizeof buf) > 0)
            return text_width(buf) + 1;
        int digits = 1; /* the widest row number, as "%d" writes it (P: the last position) */
        for (int r = id == M_P ? m->rows - 1 + c->a->offset : m->rows; r >= 10 || r <= -10; r /= 10)
            digits++;
        return digits + (m->rows < 0) + 1;
    }
    for (int i = 0; i < m->rows && i < attn_tokens(c->a) && !lesson_rows_are_source(c->a, id); i++)
        w = frame_tok_width(c, i) > w ? frame_tok_width(c, i) : w;
    for (int i = 0; i < m->rows && lesson_rows_are_source(c->a, id); i++) /* cross: the source's tokens */
        w = frame_key_width(c, i) > w ? frame_key_width(c, i) : w;
    /* room for the "set by hand" mark, a blank apart from the token */
    return w + (any_override(c, id) ? 3 : 2);
}

/* A head's box: "S2 = Q2·K2ᵀ/√2" and so on. */
static const char *head_title(const Frame *c, MatId id, char *buf, size_t len)
{
    int h = attn_mat_head(id);
    bool a = c->in->ascii;
    switch (attn_mat_base(id)) {
    case M_Q: case M_K: case M_V: /* "Q2 = X·Wq2", H with positions */
        snprintf(buf, len, "%s = %s%s%s%d", attn_mat_name(id),
                 lesson_rows_are_source(c->a, id) ? "Xs" : c->a->positions == POS_SINUSOIDAL ? "H" : "X",
                 a ? "*" : "·", attn_mat_name((MatId)(attn_mat_base(id) - M_Q + M_WQ)),
                 attn_mat_base(id) == M_Q ? h : attn_kv_head(c->a, h)); /* K3 = X·Wk2 when heads share K/V */
        break;
    case M_S:
        if (c->a->scale == SCALE_SQRT_DK)
            snprintf(buf, len, a ? "S%d = Q%d*K%d^T/sqrt(%d)" : "S%d = Q%d·K%dᵀ/√%d", h, h, h, c->l->d_k);
        else
            snprintf(buf, len, a ? "S%d = Q%d*K%d^T" : "S%d = Q%d·K%dᵀ", h, h, h);
        break;
    case M_A: snprintf(buf, len, c->a->temp != 1.0 ? "A%d = softmax(S%d/T)" : "A%d = softmax(S%d)", h, h); break;
    case M_O: snprintf(buf, len, a ? "O%d = A%d*V%d" : "O%d = A%d·V%d", h, h, h); break;
    default:  snprintf(buf, len, "%s", attn_mat_name(id)); break;
    }
    return buf;
}

static const char *box_title(const Frame *c, MatId id, char *buf, size_t len)
{
    bool sc = c->a->scale == SCALE_SQRT_DK;
    if (attn_mat_head(id))
        return head_title(c, id, buf, len);
    if (id == M_O && attn_heads(c->a) > 1) {
        size_t n = (size_t)snprintf(buf, len, "O = [");
        for (int h = 1; h <= attn_heads(c->a) && n < len; h++)
            n += (size_t)snprintf(buf + n, len - n, "%sO%d", h > 1 ? " " : "", h);
        if (n < len)
            snprintf(buf + n, len - n, "]");
        return buf;
    }
    switch (id) {
    case M_WO: return "Wo";
    case M_Y: return frame_sym(c, "Y = O·Wo", "Y = O*Wo");
    case M_Q: case M_K: case M_V:
        snprintf(buf, len, "%s = %s%s%s", attn_mat_name(id),
                 lesson_rows_are_source(c->a, id) ? "Xs" : c->a->positions == POS_SINUSOIDAL ? "H" : "X",
                 frame_sym(c, "·", "*"), attn_mat_name((MatId)(id - M_Q + M_WQ)));
        return buf;
    case M_P: return "P";
    case M_H: return "H = X + P";
    case M_QKT: return frame_sym(c, "Q·Kᵀ", "Q*K^T");
    case M_S:
        if (!sc)
            return frame_sym(c, "S = Q·Kᵀ", "S = Q*K^T");
        snprintf(buf, len, c->in->ascii ? "S = Q*K^T/sqrt(%d)" : "S = Q·Kᵀ/√%d", c->l->d_k);
        return buf;
    case M_A: return c->a->temp != 1.0 ? "A = softmax(S/T)" : "A = softmax(S)";
    case M_O: return frame_sym(c, "O = A·V", "O = A*V");
    default: return attn_mat_name(id);
    }
}

/* The narrowest a box can be: one column of cells, or every column when
 * its highlighted row is quoted by the arithmetic. */
int box_floor(Frame *c, const Box *b)
{
    const Mat *m = &c->a->m[b->id];
    /* A's arithmetic is its row's walk: the row whole. A row focus's W: its columns may scroll. */
    bool arow = b->id == M_A && b->ci >= 0 && !b->placeholder && c->a->reached >= STAGE_SOFTMAX;
    int cols = (b->quoted && b->hrow >= 0) || arow ? m->cols : 1;
    return box_label_width(c, b->id, m, b->nolabel) + cols * box_cell_width(c, b->id) + 1;
}

/* The full width a box wants: its cells, or its title when that is wider. */
int box_need(Frame *c, const Box *b)
{
    const Mat *m = &c->a->m[b->id];
    char t[64];
    int cells = box_label_width(c, b->id, m, b->nolabel) + m->cols * box_cell_width(c, b->id) + 1;
    if (!b->placeholder) /* the title is measured only where it may be wider than the cells */
        return cells;
    int title = text_width(box_title(c, b->id, t, sizeof t)) + 8 + text_width(_("not yet"));
    return title > cells ? title : cells;
}

/* The rows a box must keep in view: all of them when its highlighted
 * column is quoted by the arithmetic, else one. */
int box_keep_rows(const Frame *c, const Box *b)
{
    return (b->quoted && b->hcol >= 0) || b->all ? c->a->m[b->id].rows : 1;
}

/* The first index of a window of `vis` out of `n` that shows `focus`. */
int box_window(int n, int vis, int focus)
{
    if (vis >= n || focus < 0)
        return 0;
    int start = focus - vis / 2;
    if (start < 0)
        start = 0;
    if (start > n - vis)
        start = n - vis;
    return start;
}

static Role cell_role(const Frame *c, const Box *b, int i, int j, unsigned *flags)
{
    const LayoutIn *in = c->in;
    *flags |= i == b->hrow ? CELL_ROW : 0;
    *flags |= j == b->hcol ? CELL_COL : 0;
    if (in->mode == LAYOUT_EDIT && b->id == in->emat && i == in->ei && j == in->ej) {
        *flags |= CELL_EDIT | CELL_FOCUS;
        return ROLE_EDIT;
    }
    if (i == b->ci && j == b->cj) {
        *flags |= CELL_FOCUS;
        return ROLE_CELL;
    }
    if (i == b->hrow)
        return b->hrow_role;
    if (j == b->hcol)
        return ROLE_COL;
    if (b->placeholder)
        return ROLE_DIM;
    if (attn_mat_stage(b->id) == c->s->fresh_stage && !attn_mat_is_param(b->id) && b->id != M_X) {
        *flags |= CELL_FRESH;
        return ROLE_FRESH;
    }
    return ROLE_NORMAL;
}

/* What a box's title says it is: not yet, parameter, input or result. */
static const char *box_role_plain(const Box *b)
{
    return b->placeholder ? _("not yet") : attn_mat_is_param(b->id) ? _("parameter")
           : b->id == M_X ? _("input") : b->id == M_XS ? _("source") : _("result");
}

/* After an append that left every earlier row as it was (the causal mask
 * or a window): how many rows of K and V a cache kept, else 0. */
static int cached_rows(const Frame *c)
{
    const Session *s = c->s;
    AttnWork w;
    if (!s->has_before || attn_tokens(&s->before) + 1 != attn_tokens(&s->cur) ||
        !attn_append_work(&s->before, &s->cur, &w) || !w.exact)
        return 0;
    return w.n - 1;
}

/* The role with what is special about the box in today's models: K's and
 * V's cached rows after an append, the query heads sharing a K/V head, A
 * never stored whole under the online softmax, Q and K turned by RoPE.
 * Written into a static buffer, used at once. */
static const char *box_role(const Frame *c, const Box *b)
{
    static char role[96];
    MatId base = attn_mat_base(b->id);
    int head = attn_mat_head(b->id), h = attn_heads(c->a), g = attn_kv_heads(c->a), cached;
    if (b->placeholder || attn_mat_is_param(b->id) || b->id == M_X || b->id == M_XS)
        return box_role_plain(b);
    if ((base == M_K || base == M_V) && (cached = cached_rows(c)) > 0) {
        snprintf(role, sizeof role, cached == 1 ? _("result, row 1 cached") : _("result, rows 1-%d cached"), cached);
        return role;
    }
    if ((base == M_K || base == M_V) && head && g < h) { /* the query heads with the same K/V head */
        int kv = attn_kv_head(c->a, head), first = 0, last = 0;
        for (int k = 1; k <= h; k++)
            if (attn_kv_head(c->a, k) == kv) {
                first = first ? first : k;
                last = k;
            }
        snprintf(role, sizeof role, _("result, shared by heads %d-%d"), first, last);
        return role;
    }
    if (base == M_A && c->a->softmax == SOFTMAX_ONLINE)
        return _("result, never stored whole");
    if ((base == M_Q || base == M_K) && c->a->positions == POS_ROPE)
        return _("result, rotated");
    return _("result");
}

/* Does the lesson's script append a token at some step? */
static bool lesson_appends(const Lesson *l)
{
    for (int k = 0; k < l->nsteps; k++)
        for (int a = 0; a < l->steps[k].nact; a++)
            if (l->steps[k].act[a].kind == ACT_APPEND)
                return true;
    return false;
}

/* The width of a box's whole title: "A = softmax(S)  3×3 result". K's
 * and V's note "rows 1-2 cached" is wanted on every step of a lesson that
 * appends a token, not only the step after an append: the boxes after
 * them keep their columns when the note comes and goes (`make bench`:
 * bytes_ratio_next). */
static int title_width(Frame *c, const Box *b, bool noted);

int box_title_width(Frame *c, const Box *b)
{
    return title_width(c, b, true);
}

/* The same, without a note on today's models that is not shown now. */
int box_title_width_now(Frame *c, const Box *b)
{
    return title_width(c, b, false);
}

static int title_width(Frame *c, const Box *b, bool note)
{
    const Mat *m = &c->a->m[b->id];
    char t[64], line[160], cached[96];
    snprintf(line, sizeof line, "%s  %d%s%d", box_title(c, b->id, t, sizeof t), m->rows, frame_sym(c, "×", "x"), m->cols);
    int plain = text_width(line) + 1 + text_width(box_role_plain(b));
    const char *role = box_role(c, b); /* a note on today's models ("rows 1-2 cached") wants room for the name */
    MatId base = attn_mat_base(b->id);
    if ((role == box_role_plain(b) || strcmp(role, box_role_plain(b)) == 0) && !b->placeholder &&
        (base == M_K || base == M_V) && m->rows > 1 && note && lesson_appends(c->l)) {
        snprintf(cached, sizeof cached, _("result, rows 1-%d cached"), m->rows - 1);
        role = cached;
    }
    if (role == box_role_plain(b) || strcmp(role, box_role_plain(b)) == 0)
        return plain;
    snprintf(line, sizeof line, "%s  %d%s%d", attn_mat_name(b->id), m->rows, frame_sym(c, "×", "x"), m->cols);
    int noted = text_width(line) + 1 + text_width(role);
    return noted > plain ? noted : plain;
}

/* "NAME  R×C" into buf (len >= 96): no printf, called for every box of
 * every frame. Returns buf. */
static const char *name_shape(const Frame *c, const char *name, const Mat *m, char *buf, size_t len)
{
    char num[2][16];
    int d[2] = {m->rows, m->cols};
    size_t nd[2];
    for (int k = 0; k < 2; k++) {
        char *e = num[k] + sizeof num[k];
        unsigned u = d[k] < 0 ? 0u : (unsigned)d[k];
        *--e = '\0';
        do
            *--e = (char)('0' + u % 10);
        while (u /= 10);
        nd[k] = strlen(e);
        memmove(num[k], e, nd[k] + 1);
    }
    const char *x = frame_sym(c, "×", "x");
    size_t nn = strlen(name), nx = strlen(x);
    if (nn + 2 + nd[0] + nx + nd[1] >= len)
        nn = len - 1 - 2 - nd[0] - nx - nd[1];
    char *o = buf;
    memcpy(o, name, nn), o += nn;
    memcpy(o, "  ", 2), o += 2;
    memcpy(o, num[0], nd[0]), o += nd[0];
    memcpy(o, x, nx), o += nx;
    memcpy(o, num[1], nd[1] + 1);
    return buf;
}

/* The title line: name, shape, and whether it is a parameter or a result.
 * Each candidate is measured once. */
static void box_title_line(Frame *c, const Box *b, int y, int x, int w)
{
    const Mat *m = &c->a->m[b->id];
    char t[64], full[160], shortl[160];
    const char *role = box_role(c, b), *name = attn_mat_name(b->id);
    const char *line = name_shape(c, box_title(c, b->id, t, sizeof t), m, full, sizeof full);
    name_shape(c, name, m, shortl, sizeof shortl);
    int wl = text_width(line), ws = text_width(shortl), wr = text_width(role);
    if (wl + 1 + wr > w && ws + 1 + wr <= w)
        line = shortl, wl = ws; /* the note on today's models before the formula */
    else if (wl + 1 + wr > w) /* the note only where it fits */
        role = box_role_plain(b), wr = text_width(role);
    /* No room for the formula and the role ("result", "not yet"): the name
     * and the shape, else the name alone, so every box keeps saying what it
     * is; the role goes last, only where not even "K result" fits. */
    if (wl + 1 + wr > w)
        line = shortl, wl = ws;
    if (wl + 1 + wr > w && text_width(name) + 1 + wr <= w)
        line = name;
    int used = plan_put(c, y, x, w, line, b->placeholder ? ROLE_DIM : ROLE_TITLE);
    if (used + 1 + wr <= w) /* the role whole, or not at all */
        plan_put(c, y, x + used + 1, w - used - 1, role,
            b->placeholder ? ROLE_DIM : attn_mat_is_param(b->id) ? ROLE_PARAM : ROLE_RESULT);
}

/* "%d" of v >= 1 into buf (16 bytes): no printf for every label of every frame. */
static const char *count_text(int v, char *buf)
{
    if (v < 1) {
        snprintf(buf, 16, "%d", v);
        return buf;
    }
    char rev[16];
    int k = 0;
    for (; v > 0; v /= 10)
        rev[k++] = (char)('0' + v % 10);
    for (int i = 0; i < k; i++)
        buf[i] = rev[k - 1 - i];
    buf[k] = '\0';
    return buf;
}

/* "%*s" of s in w columns' bytes, as snprintf writes it into out[len]. */
static const char *right_in(const char *s, int w, char *out, size_t len)
{
    size_t n = strlen(s), pad = w > 0 && (size_t)w > n ? (size_t)w - n : 0, k = 0;
    for (; k < pad && k + 1 < len; k++)
        out[k] = ' ';
    for (size_t i = 0; i < n && k + 1 < len; i++)
        out[k++] = s[i];
    out[k] = '\0';
    return out;
}

/* Column headers: token names for score-like matrices, else 1..n. */
/* With heads, the columns of Q, K, V, O (and of the Ws) and the rows of
 * W_O come in head groups: "h2·1" is head 2's column 1. Width 0 (and buf
 * empty) when id has no groups. */
static int head_group(const Frame *c, MatId id, int k, char *buf, size_t len)
{
    int heads = attn_heads(c->a), w = 0;
    buf[0] = '\0';
    if (heads < 2)
        return 0;
    if (id == M_Q || id == M_K || id == M_WQ || id == M_WK)
        w = attn_d_k(c->a);
    else if (id == M_V || id == M_O || id == M_WV || id == M_WO)
        w = attn_d_v(c->a);
    if (w == 0)
        return 0;
    snprintf(buf, len, c->in->ascii ? "h%d.%d" : "h%d·%d", k / w + 1, k % w + 1);
    return text_width(buf);
}

static void box_header(Frame *c, const Box *b, int y, int x, int lw, int cw, int c0, int vc)
{
    const Mat *m = &c->a->m[b->id];
    for (int j = c0; j < c0 + vc; j++) {
        char num[16];
        Role r = j == b->hcol || j == b->cj ? ROLE_COL : ROLE_LABEL;
        int cx = x + lw + (j - c0) * cw;
        if (cols_are_tokens(b->id) && j < attn_keys(c->a)) { /* the keys: a source's tokens with cross */
            int tw = frame_key_width(c, j) > cw - 1 ? cw - 1 : frame_key_width(c, j);
            if (attn_is_pad(c->a, j) && r == ROLE_LABEL) /* a padding key's label is dimmed, like its cells */
                r = ROLE_HINT;
            plan_put_lesson(c, y, cx + cw - tw, tw, lesson_key_token(c->l, c->a, j), r);
        } else {
            char grp[32];
            int gw = b->id == M_WO ? 0 : head_group(c, b->id, j, grp, sizeof grp);
            if (gw > 0 && gw < cw) /* the column's head */
                plan_put(c, y, cx + cw - gw, cw, grp, r);
            else {
                count_text(j + 1, num);
                plan_put(c, y, cx + cw - (int)strlen(num), cw, num, r);
            }
        }
    }
    if (c0 > 0)
        plan_put(c, y, x + lw - 1, 1, frame_sym(c, "◂", "<"), ROLE_HINT);
    if (c0 + vc < m->cols)
        plan_put(c, y, x + lw + vc * cw, 1, frame_sym(c, "▸", ">"), ROLE_HINT);
}

static void row_label(Frame *c, const Box *b, int y, int x, int lw, int i)
{
    bool hand = row_hand(c, b->id, i);
    if (b->nolabel) {
        if (hand)
            plan_put(c, y, x, 1, frame_sym(c, "✎", "*"), ROLE_HAND);
        return;
    }
    bool lit = i == b->hrow || i == b->ci || i == b->lrow;
    Role r = i == b->hrow ? b->hrow_role : lit ? ROLE_ROW : ROLE_LABEL;
    int tw = lw - 2 - (any_override(c, b->id) ? 1 : 0), used;
    if (box_rows_are_tokens(b->id) && lesson_rows_are_source(c->a, b->id))
        used = plan_put_lesson(c, y, x, tw, lesson_key_token(c->l, c->a, i),
                               attn_is_pad(c->a, i) && r == ROLE_LABEL ? ROLE_HINT : r);
    else if (box_rows_are_tokens(b->id) && i < attn_tokens(c->a))
        used = plan_put_lesson(c, y, x, tw, lesson_token(c->l, c->a, i), r);
    else {
        char num[32], grp[32];
        if (b->id == M_WO && head_group(c, M_WO, i, grp, sizeof grp) > 0) /* W_O's rows: the heads' columns of O */
            right_in(grp, lw - 1, num, sizeof num);
        else /* a row's number; P's rows: the positions, from 0 (plus the offset) */
            right_in(count_text(b->id == M_P ? i + c->a->offset : i + 1, grp), lw - 1, num, sizeof num);
        used = plan_put(c, y, x, lw, num, r);
    }
    if (lit && used < lw - 2)
        plan_fill(c, y, x + used, lw - 2 - used, r);
    if (hand)
        plan_put(c, y, x + lw - 2, 1, frame_sym(c, "✎", "*"), ROLE_HAND);
    else if (lit && used < lw - 1)
        plan_fill(c, y, x + lw - 2, 1, r);
    if (lit && used < lw)
        plan_fill(c, y, x + lw - 1, 1, r);
}

/* The heat shade of cell (i, j) of a heatmap box: weights as they are,
 * scores scaled to the box's range [lo, hi]. */
static Role heat_of(const Box *b, const Mat *m, int i, int j, double lo, double hi)
{
    double w = attn_mat_base(b->id) == M_A ? MAT_AT(m, i, j) : hi > lo ? (MAT_AT(m, i, j) - lo) / (hi - lo) * 0.999 : 0;
    return role_heat(w);
}

/* Keep a cell in the plan. */
static void keep_cell(Frame *c, const Box *b, int y, int x, int cw, int i, int j, const char *num, unsigned flags,
                      Role role, Role shade)
{
    Plan *p = c->p;
    if (y < 0 || y >= c->rows || x < 0 || x >= c->cols)
        return;
    int off = plan_keep_text(p, num, strlen(num));
    if (off < 0 || !grow_buf((void **)&p->cell, &p->capcell, p->ncell + 1, sizeof *p->cell)) {
        p->oom = true;
        return;
    }
    int w = x + cw > c->cols ? c->cols - x : cw;
    p->cell[p->ncell++] = (PlanCell){b->id, i, j, y, x, w, flags, role, shade, p->nbox, off, (int)strlen(num)};
}

/* One cell, right-aligned in cw columns: [blank][shade][mark]number. The
 * blank keeps a mark or a shade from touching the number to the left. */
static void cell(Frame *c, const Box *b, int y, int x, int cw, int i, int j, double lo, double hi)
{
    static const char *shade[4] = {"░", "▒", "▓", "█"}, *ascii[4] = {".", ":", "+", "#"};
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    char num[64];
    const Mat *m = &c->a->m[b->id];
    MatId base = attn_mat_base(b->id); /* S2 and A2 are masked like S and A */
    bool masked = !b->placeholder && (base == M_S || base == M_A) && attn_masked(c->a, i, j);
    bool hidden = !b->placeholder && session_ask_hidden(c->s, b->id, i, j); /* an open ask: "?" */
    if (b->placeholder) /* short constants: copied, no printf in a loop over every cell */
        strcpy(num, frame_sym(c, "·", "."));
    else if (hidden)
        strcpy(num, "?");
    else if (masked && base == M_S)
        strcpy(num, frame_sym(c, "−∞", "-inf"));
    else
        fmt_num(MAT_AT(m, i, j), &fo, num, sizeof num);
    unsigned flags = masked ? CELL_MASKED : 0;
    Role role = cell_role(c, b, i, j, &flags);
    if (masked && (role == ROLE_NORMAL || role == ROLE_FRESH))
        role = ROLE_DIM; /* hidden by the mask: muted, never a heat colour */
    int nw = text_width(num), d = b->placeholder || hidden || (masked && base == M_S) ? 0 : box_changed(c, b->id, i, j);
    bool hot = b->heat && !b->placeholder && !masked && !hidden; /* a shade would tell the answer */
    Role shade_role = hot ? heat_of(b, m, i, j, lo, hi) : ROLE_NORMAL;
    flags |= (hot ? CELL_HEAT : 0) | (d > 0 ? CELL_UP : d < 0 ? CELL_DOWN : 0);
    /* No column free left of the number (the band had no room for marks):
     * no mark, never glued; the number is underlined (and bold) instead,
     * so no changed cell looks unchanged. */
    bool under = d && cw - nw - 1 - (hot && c->in->mono ? 1 : 0) < 1;
    if (under)
        d = 0;
    /* A heatmap shades the cell behind the number in colour; in mono a
     * shade character stands before it. */
    bool plain = role == ROLE_NORMAL || role == ROLE_FRESH, bold = false;
    Role r = role;
    if (hot && !c->in->mono && plain) {
        r = shade_role;
        bold = role == ROLE_FRESH;
    }
    bool mshade = hot && c->in->mono;
    int lead = cw - nw - (d ? 1 : 0) - (mshade ? 1 : 0), x0 = x;
    if (lead > 0) {
        plan_fill_styled(c, y, x, lead, r, bold);
        x += lead;
    }
    if (mshade)
        x += plan_put_styled(c, y, x, 1, (c->in->ascii ? ascii : shade)[shade_role - ROLE_HEAT1], r, bold);
    if (d)
        x += plan_put(c, y, x, 1, d > 0 ? frame_sym(c, "▲", "^") : frame_sym(c, "▼", "v"), d > 0 ? ROLE_UP : ROLE_DOWN);
    int at = c->p->nrun;
    plan_put_measured(c, y, x, x0 + cw - x, num, strlen(num), nw, r, bold || under);
    if (under && c->p->nrun > at)
        c->p->run[at].under = true;
    keep_cell(c, b, y, x0, cw, i, j, num, flags, role, shade_role);
}

/* The range the heat shades span: weights as they are (0 to 1), scores
 * between the smallest and largest finite score. */
static void heat_range(const Mat *m, MatId id, double *lo, double *hi)
{
    *lo = 0;
    *hi = 1;
    if (attn_mat_base(id) == M_A)
        return;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 0; k < m->rows * m->cols; k++)
        if (isfinite(m->v[k])) {
            *lo = m->v[k] < *lo ? m->v[k] : *lo;
            *hi = m->v[k] > *hi ? m->v[k] : *hi;
        }
}

/* Big focus marks for presentation mode: an arrow at the focused row and
 * (with a marks row) one above the focused column. */
static void focus_marks(Frame *c, const Box *b, int y, int x, int lw, int cw, int r0, int vr, int c0, int vc)
{
    int j = b->cj >= 0 ? b->cj : b->hcol, i = b->ci >= 0 ? b->ci : b->hrow;
    if (c->top == 3 && j >= c0 && j < c0 + vc)
        plan_put(c, y + 1, x + lw + (j - c0) * cw + cw - 3, 1, frame_sym(c, "▼", "v"), ROLE_COL);
    if (i >= r0 && i < r0 + vr && x > 0)
        plan_put(c, y + c->top + (i - r0) * c->row_step, x - 1, 1, frame_sym(c, "▶", ">"), ROLE_ROW);
}

/* Lay out one box in a w x h area; its title may take `more` columns of
 * the blank to its right (negative: it stops that many short, so two
 * blanks always part it from the next box's title). */
void box_lay(Frame *c, const Box *b, int y, int x, int w, int h, int more)
{
    const Mat *m = &c->a->m[b->id];
    int top = c->top, step = c->row_step;
    int lw = box_label_width(c, b->id, m, b->nolabel), cw = box_cell_width(c, b->id);
    int vc = (w - lw - 1) / cw, vr = (h - top + step - 1) / step;
    vc = vc < 1 ? 1 : vc > m->cols ? m->cols : vc;
    vr = vr < 1 ? 1 : vr > m->rows ? m->rows : vr;
    int c0 = box_window(m->cols, vc, b->cj >= 0 ? b->cj : b->hcol);
    int r0 = b->nolabel ? c->band_r0 : box_window(m->rows, vr, b->ci >= 0 ? b->ci : b->hrow >= 0 ? b->hrow : b->lrow);
    if (!b->nolabel)
        c->band_r0 = r0;
    else if (r0 + vr > m->rows)
        r0 = c->band_r0 = m->rows - vr > 0 ? m->rows - vr : 0;
    box_title_line(c, b, y, x, w + more);
    if (c->in->present)
        focus_marks(c, b, y, x, lw, cw, r0, vr, c0, vc);
    box_header(c, b, y + top - 1, x, lw, cw, c0, vc);
    double lo, hi;
    heat_range(m, b->id, &lo, &hi);
    Plan *p = c->p;
    for (int i = r0; i < r0 + vr; i++) {
        int ry = y + top + (i - r0) * step;
        row_label(c, b, ry, x, lw, i);
        for (int j = c0; j < c0 + vc; j++)
            cell(c, b, ry, x + lw + (j - c0) * cw, cw, i, j, lo, hi);
    }
    int edge = x + lw + vc * cw; /* scroll marks go right of the cells */
    if (r0 > 0)
        plan_put(c, y + top, edge, 1, frame_sym(c, "▴", "^"), ROLE_HINT);
    if (r0 + vr < m->rows && (vr > 1 || r0 == 0)) /* one row shown: ▴ alone says it scrolls */
        plan_put(c, y + top + (vr - 1) * step, edge, 1, frame_sym(c, "▾", "v"), ROLE_HINT);
    if (p->nbox < PLAN_MAX_BOXES) {
        int click = b->ci >= 0 ? 0 : b->hrow_role == ROLE_COL ? 2 : b->hcol >= 0 ? 3 : 1;
        p->box[p->nbox++] = (PlanBox){b->id, y, x, w, h, m->rows, m->cols, r0, vr, c0, vc, y + top, x + lw, cw, step,
                                      b->placeholder, click};
    }
}
