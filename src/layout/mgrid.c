/* mgrid.c - a model's own matrix on the board, the board of a model
 * stage, and the next token's bars (see mgrid.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words/fmt.h"
#include "lesson/asking.h"
#include "text/i18n.h"
#include "layout.h"
#include "layout_int.h"
#include "mgrid.h"

#define GRID_GAP 2

static int label_width(const Frame *c, const MGrid *g)
{
    int w = 0;
    for (int i = 0; i < g->m->rows; i++)
        w = frame_tok_width(c, i) > w ? frame_tok_width(c, i) : w;
    return w + 1;
}

/* A vocab entry, sanitised, cut to w columns. */
static void vocab_label(const Frame *c, int k, int w, char *buf, size_t len)
{
    char safe[128];
    text_sanitize(c->vocab && c->vocab[k] ? c->vocab[k] : "?", safe, sizeof safe, c->in->ascii);
    snprintf(buf, len, "%.*s", (int)text_fit(safe, w), safe);
}

/* The widest number of the matrix as shown, plus the blank before it. */
static int cell_width(const Frame *c, const MGrid *g)
{
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    char num[48];
    int w = 3;
    for (int k = 0; k < g->m->rows * g->m->cols; k++) {
        int n = text_width(fmt_num(g->m->v[k], &fo, num, sizeof num));
        w = n > w ? n : w;
    }
    return w + 1;
}

int mgrid_width(Frame *c, const MGrid *g, bool least)
{
    if (!g->m)
        return 0;
    int lw = label_width(c, g), cw = cell_width(c, g), cols = g->m->cols;
    if (!least || cols <= 3)
        return lw + cols * cw;
    return lw + 2 + 3 * cw;
}

static void grid_title(Frame *c, const MGrid *g, int y, int x, int w)
{
    char name[64], shape[32];
    model_ref_name(c->model, g->ref, name, sizeof name);
    snprintf(shape, sizeof shape, " %d%s%d", g->m->rows, frame_sym(c, "×", "x"), g->m->cols);
    int used = plan_put(c, y, x, w, name, g->dots ? ROLE_DIM : ROLE_TITLE);
    plan_put(c, y, x + used, w - used, shape, g->dots ? ROLE_DIM : model_ref_is_param(g->ref) ? ROLE_PARAM : ROLE_RESULT);
}

static Role cell_role(const MGrid *g, int i, int j)
{
    if (g->dots)
        return ROLE_DIM;
    if (i == g->fi && j == g->fj)
        return g->focus ? ROLE_CELL : ROLE_COL;
    return i == g->fi ? ROLE_ROW : ROLE_NORMAL;
}

/* Row i's "…" where columns are left out, either side of its cells. */
static void grid_more(Frame *c, const MGrid *g, int y, int x, int lw, int cw, int c0, int vc)
{
    const char *more = frame_sym(c, "…", "~");
    int cx = x + lw + (c0 > 0);
    if (c0 > 0)
        plan_put(c, y, x + lw, 1, more, ROLE_HINT);
    if (c0 + vc < g->m->cols)
        plan_put(c, y, cx + vc * cw, 1, more, ROLE_HINT);
}

/* The cells of row i from column c0, vc of them, at (y, cx). */
static void grid_cells(Frame *c, const MGrid *g, int i, int y, int cx, int cw, int c0, int vc)
{
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    char num[48], cell[64];
    for (int j = c0; j < c0 + vc; j++) {
        if (g->dots)
            snprintf(num, sizeof num, "%s", frame_sym(c, "·", "."));
        else if (c->in->s && session_ask_mhidden(c->in->s, g->ref, i, j)) /* an open question's */
            snprintf(num, sizeof num, "?");
        else
            fmt_num(MAT_AT(g->m, i, j), &fo, num, sizeof num);
        int pad = cw - text_width(num);
        snprintf(cell, sizeof cell, "%*s%s", pad > 0 ? pad : 0, "", num);
        Role r = cell_role(g, i, j);
        if (r == ROLE_NORMAL)
            plan_put(c, y, cx + (j - c0) * cw, cw, cell, r);
        else { /* lit: the blank before the number stays plain */
            plan_put(c, y, cx + (j - c0) * cw, 1, " ", ROLE_NORMAL);
            plan_put(c, y, cx + (j - c0) * cw + 1, cw - 1, cell + 1, r);
        }
    }
}

/* The column header: indices, or vocab names for logits and p. */
static void grid_header(Frame *c, const MGrid *g, int y, int cx, int cw, int c0, int vc)
{
    char lab[64], cell[96];
    for (int j = c0; j < c0 + vc; j++) {
        if (g->vocab_cols)
            vocab_label(c, j, cw - 1, lab, sizeof lab);
        else
            snprintf(lab, sizeof lab, "%d", j + 1);
        int pad = cw - text_width(lab);
        snprintf(cell, sizeof cell, "%*s%s", pad > 0 ? pad : 0, "", lab);
        plan_put(c, y, cx + (j - c0) * cw, cw, cell, j == g->fj ? ROLE_COL : ROLE_LABEL);
    }
}

int mgrid_lay(Frame *c, const MGrid *g, int y, int x, int w, int h)
{
    if (!g->m || h < 3)
        return 0;
    int lw = label_width(c, g), cw = cell_width(c, g), cols = g->m->cols, rows = g->m->rows;
    int vc = (w - lw) / cw;
    if (vc < cols)
        vc = (w - lw - 2) / cw;
    vc = vc > cols ? cols : vc < 1 ? 1 : vc;
    int c0 = box_window(cols, vc, g->fj), vr = h - 2 > rows ? rows : h - 2;
    int r0 = box_window(rows, vr, g->fi), cx = x + lw + (c0 > 0);
    grid_title(c, g, y, x, w);
    grid_header(c, g, y + 1, cx, cw, c0, vc);
    for (int k = 0; k < vr; k++) {
        int i = r0 + k;
        char tok[128];
        text_sanitize(lesson_token(c->l, c->a, i), tok, sizeof tok, c->in->ascii);
        snprintf(tok + text_fit(tok, lw - 1), 4, "%s", "");
        plan_put(c, y + 2 + k, x, lw - 1, tok, i == g->fi ? ROLE_ROW : ROLE_LABEL);
        grid_more(c, g, y + 2 + k, x, lw, cw, c0, vc);
        grid_cells(c, g, i, y + 2 + k, cx, cw, c0, vc);
    }
    if (r0 > 0)
        plan_put(c, y + 2, x + lw - 1, 1, frame_sym(c, "▴", "^"), ROLE_HINT);
    if (r0 + vr < rows)
        plan_put(c, y + 1 + vr, x + lw - 1, 1, frame_sym(c, "▾", "v"), ROLE_HINT);
    return lw + (c0 > 0) + vc * cw + (c0 + vc < cols);
}

/* ---- the board: bands that fit with the parts below ---------------------------- */

typedef struct {
    int n, want[5], floor[5], rows[5];
    int gap, last;
} Board;

static int board_rows(const Board *d)
{
    int r = d->last;
    for (int k = 0; k < d->n; k++)
        r += d->rows[k] + (k + 1 < d->n ? d->gap : 0);
    return r;
}

static bool board_fits(const Frame *c, const Board *d, const Budget *b, int y0)
{
    return y0 + board_rows(d) + layout_text_rows(b) <= c->rows;
}

/* The parts give way, lowest rank first, down to their soft (or hard) floors. */
static void parts_give(const Frame *c, Board *d, Budget *b, int y0, bool hard)
{
    for (int rank = 0; rank < MAX_RANK; rank++)
        for (int k = 0; k < b->n; k++) {
            Part *p = &b->part[k];
            while (p->rank == rank && p->n > (hard ? p->min : p->soft) && !board_fits(c, d, b, y0)) {
                p->n--;
                p->cut = true;
            }
        }
}

/* The tallest band gives a row, down to its floor, or to `to` rows
 * (title, header, rows) when that is more, or to 3 when least. */
static void bands_give(const Frame *c, Board *d, const Budget *b, int y0, bool least, int to)
{
    while (!board_fits(c, d, b, y0)) {
        int big = -1;
        for (int k = 0; k < d->n; k++) {
            int fl = least ? 3 : d->floor[k] > to ? d->floor[k] : to;
            if (d->rows[k] > fl && (big < 0 || d->rows[k] > d->rows[big]))
                big = k;
        }
        if (big < 0)
            return;
        d->rows[big]--;
    }
}

static void board_fit(const Frame *c, Board *d, Budget *b, int y0)
{
    for (int k = b->n - 1; k >= 0 && !board_fits(c, d, b, y0); k--)
        b->part[k].gap = 0;
    if (!board_fits(c, d, b, y0))
        d->gap = 0;
    bands_give(c, d, b, y0, false, 2 + 8); /* eight rows of a matrix before the text gives way */
    parts_give(c, d, b, y0, false);
    bands_give(c, d, b, y0, false, 0);
    if (!board_fits(c, d, b, y0))
        d->last = 0;
    parts_give(c, d, b, y0, true);
    bands_give(c, d, b, y0, true, 0);
}

/* Band k's grids side by side: each its least, the room left shared by
 * what each would take more. */
static void band_lay_grids(Frame *c, MGrid *g, const int *band_of, int ng, int k, int y, int h)
{
    int W = c->cols - 2, least = 0, more = 0, n = 0;
    for (int m = 0; m < ng; m++)
        if (band_of[m] == k) {
            least += mgrid_width(c, &g[m], true) + (n++ ? GRID_GAP : 0);
            more += mgrid_width(c, &g[m], false) - mgrid_width(c, &g[m], true);
        }
    int extra = W - least, x = 1;
    for (int m = 0; m < ng; m++) {
        if (band_of[m] != k)
            continue;
        int l = mgrid_width(c, &g[m], true), f = mgrid_width(c, &g[m], false);
        int w = l + (more > 0 && extra > 0 ? (int)((long)extra * (f - l) / more) : 0);
        w = w > f ? f : w;
        x += mgrid_lay(c, &g[m], y, x, w, h) + GRID_GAP;
    }
}

/* Side by side, a band that leaves columns out goes one grid a band
 * when each then shows whole and the screen has the rows for them all. */
static void stack_when_room(Frame *c, MGrid *g, int ng, int y0, const Budget *b, int *band_of, Board *d, int bars)
{
    int W = c->cols - 2, full = 0, n = 0, rows = 0;
    for (int k = 0; k < ng; k++) {
        if (!g[k].m)
            continue;
        int f = mgrid_width(c, &g[k], false);
        if (f > W)
            return;
        full += f + (n ? GRID_GAP : 0);
        rows += 2 + g[k].m->rows + (n++ ? 1 : 0);
    }
    if (full <= W || d->n >= n || y0 + rows + 1 + bars + (bars ? 1 : 0) + layout_text_rows(b) > c->rows)
        return;
    d->n = 0;
    for (int k = 0; k < ng; k++)
        if (g[k].m) {
            band_of[k] = d->n;
            d->want[d->n] = 2 + g[k].m->rows;
            d->floor[d->n++] = 2 + (g[k].m->rows < 3 ? g[k].m->rows : 3);
        }
}

int mgrid_board(Frame *c, MGrid *g, int ng, int y0, Budget *b, int bars)
{
    int band_of[4], used = 0, W = c->cols - 2;
    Board d = {.gap = 1, .last = 1};
    for (int k = 0; k < ng; k++) {
        band_of[k] = -1;
        if (!g[k].m)
            continue;
        int least = mgrid_width(c, &g[k], true);
        if (d.n == 0 || used + GRID_GAP + least > W) {
            d.n++;
            used = least;
        } else
            used += GRID_GAP + least;
        band_of[k] = d.n - 1;
        d.want[d.n - 1] = 2 + g[k].m->rows;
        d.floor[d.n - 1] = 2 + (g[k].m->rows < 3 ? g[k].m->rows : 3);
    }
    stack_when_room(c, g, ng, y0, b, band_of, &d, bars);
    int nbands = d.n;
    if (bars > 0) {
        d.want[d.n] = bars;
        d.floor[d.n++] = bars < 4 ? bars : 4;
    }
    for (int k = 0; k < d.n; k++)
        d.rows[k] = d.want[k];
    board_fit(c, &d, b, y0);
    int y = y0;
    for (int k = 0; k < d.n; k++) {
        if (k < nbands)
            band_lay_grids(c, g, band_of, ng, k, y, d.rows[k]);
        else
            mgrid_bars(c, y, 1, W, d.rows[k]);
        y += d.rows[k] + (k + 1 < d.n ? d.gap : 0);
    }
    plan_add_block(c, BLOCK_MATRICES, y0, 0, c->cols, y - y0, board_rows(&d), false);
    return y + d.last;
}

/* ---- the next token's bars -------------------------------------------------- */

/* The k most likely tokens of row i, most likely first (ties: the lower index). */
static int top_tokens(const Mat *p, int i, int *top, int k)
{
    int n = 0;
    for (int j = 0; j < p->cols && k > 0; j++) {
        double v = MAT_AT(p, i, j);
        if (n == k && !(v > MAT_AT(p, i, top[k - 1])))
            continue;
        int at = n < k ? n++ : k - 1;
        while (at > 0 && v > MAT_AT(p, i, top[at - 1])) {
            top[at] = top[at - 1];
            at--;
        }
        top[at] = j;
    }
    return n;
}

void mgrid_bars(Frame *c, int y, int x, int w, int h)
{
    const Model *m = c->model;
    const Mat *p = &m->p;
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    char line[FMT_LINE], num[48], tok[128];
    int i = c->in->fi < m->n ? c->in->fi : m->n - 1, top[8];
    if (i >= p->rows)
        i = p->rows - 1;
    if (i < 0 || h < 2)
        return; /* no row of p to show, or no room for a bar */
    int k = top_tokens(p, i, top, h - 1 < 8 ? h - 1 : 8);
    text_sanitize(lesson_token(c->l, c->a, i), tok, sizeof tok, c->in->ascii);
    bool asked = false; /* an open question on this row of p (or of logits): the bars would answer it */
    for (int j = 0; c->in->s && j < p->cols; j++)
        asked = asked || session_ask_mhidden(c->in->s, (ModelRef){MM_PROBS, 0, M_X}, i, j) ||
                session_ask_mhidden(c->in->s, (ModelRef){MM_LOGITS, 0, M_X}, i, j);
    if (asked) {
        snprintf(line, sizeof line, _("after %s: the bars of p show once the question is answered"), tok);
        plan_put(c, y, x, w, line, ROLE_LABEL);
        return;
    }
    if (i == m->n - 1) {
        char next[128];
        int t = model_predict(m);
        vocab_label(c, t, 16, next, sizeof next);
        snprintf(line, sizeof line, _("after %s the model predicts %s (%s); the most likely:"), tok, next,
                 m->cfg.sample ? _("sampled") : _("greedy"));
    } else
        snprintf(line, sizeof line, _("after %s (row %d) the most likely next tokens:"), tok, i + 1);
    plan_put(c, y, x, w, line, ROLE_LABEL);
    int lw = 1;
    for (int r = 0; r < k; r++) {
        vocab_label(c, top[r], 8, tok, sizeof tok);
        lw = text_width(tok) + 1 > lw ? text_width(tok) + 1 : lw;
    }
    int len = w - lw - 10 > 40 ? 40 : w - lw - 10;
    for (int r = 0; r < k; r++) {
        double v = MAT_AT(p, i, top[r]);
        vocab_label(c, top[r], 8, tok, sizeof tok);
        plan_put(c, y + 1 + r, x, lw, tok, top[r] == c->in->fj ? ROLE_COL : ROLE_LABEL);
        plan_put(c, y + 1 + r, x + lw, 8, fmt_num(v, &fo, num, sizeof num), top[r] == c->in->fj ? ROLE_CELL : ROLE_NORMAL);
        int n = (int)lround(v * len);
        line[0] = '\0';
        for (int b = 0; b < n && b < len; b++)
            strcat(line, frame_sym(c, "█", "#"));
        plan_put(c, y + 1 + r, x + lw + 8, len, line, ROLE_BAR);
    }
}
