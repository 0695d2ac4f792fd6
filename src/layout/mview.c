/* mview.c - the model view (BertViz's): every layer x head's attention
 * pattern as a small heatmap at once, each named (L1.H2) with its
 * previous-token and induction scores; in the watch mode the loss curve
 * above them. Layers that do not fit are paged from the layer shown. No
 * curses, no state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words/fmt.h"
#include "text/i18n.h"
#include "layout.h"
#include "layout_int.h"

#define PANEL_GAP 2
#define TITLE_ROWS 3 /* the name, prev, ind */

/* The shade of a weight: masked (above the causal diagonal) blank. In
 * colour the cell's heat background is the shade (a character drawn on it
 * would cover it: a full block in the text's colour reads as a hole), so
 * the cell is blank; without colour a shade character stands for it. */
static const char *shade(const Frame *c, double w, bool masked)
{
    static const char *utf[] = {"·", "░", "▒", "▓", "█"}, *asc[] = {".", ":", "+", "*", "#"};
    if (masked || !c->in->mono)
        return " ";
    int k = !(w >= 0.1) ? 0 : w < 0.3 ? 1 : w < 0.55 ? 2 : w < 0.8 ? 3 : 4;
    return c->in->ascii ? asc[k] : utf[k];
}

typedef struct {
    int n, vis;     /* tokens, and the last `vis` of them shown */
    int cw;         /* columns per cell: 1, or 2 with room */
    int pw, lw;     /* a panel's columns; the token labels' */
    int per_row;    /* panels side by side */
    int prow;       /* rows of panels that fit */
    int first;      /* the first panel shown (a page) */
    int total;      /* layers x heads */
} Grid;

/* One head's panel at (y, x): its name, its scores, its pattern. */
static void panel_lay(Frame *c, const Grid *g, int l, int h, int y, int x)
{
    const Model *m = c->model;
    const Attn *a = &m->layer[l - 1].att;
    FmtOpt fo = {2, c->in->ascii, false};
    char name[32], line[64], num[48];
    bool cur = l == c->mlayer && h == c->s->head, reached = model_reached(m, l, 4);
    snprintf(name, sizeof name, "L%d.H%d", l, h);
    plan_put(c, y, x, g->pw, name, cur ? ROLE_RIBBON_CUR : ROLE_TITLE);
    double v;
    snprintf(line, sizeof line, "prev %s", reached && model_prev_score(m, l, h, &v) ? fmt_num(v, &fo, num, sizeof num) : "-");
    plan_put(c, y + 1, x, g->pw, line, ROLE_LABEL);
    snprintf(line, sizeof line, "ind  %s", reached && model_induction_score(m, l, h, &v) ? fmt_num(v, &fo, num, sizeof num) : "-");
    plan_put(c, y + 2, x, g->pw, line, ROLE_LABEL);
    const Mat *A = &a->m[attn_shown(a, M_A, h)];
    int i0 = g->n - g->vis;
    for (int r = 0; r < g->vis; r++) {
        int i = i0 + r;
        for (int j = i0; j < g->n; j++) {
            char cell[16] = "";
            double w = reached ? MAT_AT(A, i, j) : 0;
            bool masked = !reached || (j > i && w == 0);
            for (int k = 0; k < g->cw; k++)
                strcat(cell, shade(c, w, masked));
            plan_put(c, y + TITLE_ROWS + r, x + (j - i0) * g->cw, g->cw, cell, masked ? ROLE_DIM : role_heat(w));
        }
    }
}

/* How the panels go on this screen, from row y0 to row y1 (excluded). */
static Grid grid_plan(const Frame *c, int y0, int y1)
{
    const Model *m = c->model;
    Grid g = {.n = m->n, .total = m->cfg.layers * m->cfg.heads};
    int W = c->cols - 2, H = y1 - y0;
    g.lw = 0;
    for (int i = 0; i < g.n; i++)
        g.lw = frame_tok_width(c, i) > g.lw ? frame_tok_width(c, i) : g.lw;
    g.lw = g.lw > 5 ? 6 : g.lw + 1;
    g.vis = H - TITLE_ROWS < g.n ? H - TITLE_ROWS : g.n;
    g.vis = g.vis < 1 ? 1 : g.vis;
    for (g.cw = 2; g.cw >= 1; g.cw--) {
        g.pw = g.vis * g.cw > 9 ? g.vis * g.cw : 9;
        g.per_row = (W - g.lw + PANEL_GAP) / (g.pw + PANEL_GAP);
        int need = (g.total + g.per_row - 1) / (g.per_row > 0 ? g.per_row : 1);
        if (g.per_row >= g.total || (g.cw == 1) || (g.per_row > 0 && need * (TITLE_ROWS + g.vis + 1) <= H))
            break;
    }
    g.per_row = g.per_row < 1 ? 1 : g.per_row > g.total ? g.total : g.per_row;
    g.prow = (H + 1) / (TITLE_ROWS + g.vis + 1);
    g.prow = g.prow < 1 ? 1 : g.prow;
    int rows_all = (g.total + g.per_row - 1) / g.per_row;
    int want = ((c->mlayer - 1) * m->cfg.heads) / g.per_row; /* the page with the layer shown */
    if (want + g.prow > rows_all)
        want = rows_all - g.prow > 0 ? rows_all - g.prow : 0;
    g.first = want * g.per_row;
    return g;
}

/* The loss so far as a sparkline, its first and last value and the steps. */
static int loss_lay(Frame *c, int y)
{
    static const char *utf[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"}, *asc[] = {"_", ".", "-", "~", "=", "+", "*", "#"};
    const LayoutIn *in = c->in;
    FmtOpt fo = {3, in->ascii, false};
    char head[160], a[48], b[48], line[FMT_LINE] = "";
    if (in->nloss <= 0) {
        snprintf(head, sizeof head, "%s", _("watching: training a step batch per frame; any key stops"));
        plan_put(c, y, 1, c->cols - 2, head, ROLE_HINT);
        return 1;
    }
    snprintf(head, sizeof head, _("loss %s %s %s · step %ld · any key stops  "), fmt_num(in->loss[0], &fo, a, sizeof a),
             frame_sym(c, "→", "->"), fmt_num(in->loss[in->nloss - 1], &fo, b, sizeof b), in->steps);
    int used = plan_put(c, y, 1, c->cols - 2, head, ROLE_ARITH);
    int w = c->cols - 2 - used, n = in->nloss;
    double lo = in->loss[0], hi = in->loss[0];
    for (int k = 0; k < n; k++) {
        lo = in->loss[k] < lo ? in->loss[k] : lo;
        hi = in->loss[k] > hi ? in->loss[k] : hi;
    }
    int cells = n < w ? n : w;
    for (int x = 0; x < cells; x++) { /* each cell the mean of its run of steps */
        int k0 = (int)((long)x * n / cells), k1 = (int)((long)(x + 1) * n / cells);
        double s = 0;
        for (int k = k0; k < k1; k++)
            s += in->loss[k];
        double v = k1 > k0 ? s / (k1 - k0) : in->loss[k0];
        int lev = hi > lo ? (int)((v - lo) / (hi - lo) * 7.0 + 0.5) : 0;
        strcat(line, (in->ascii ? asc : utf)[lev < 0 ? 0 : lev > 7 ? 7 : lev]);
    }
    plan_put(c, y, 1 + used, w, line, ROLE_BAR);
    return 1;
}

static void model_view_panels(Frame *c);

/* Every layer's attention computed: the model itself, or a copy run to
 * its end (a step before the last layer's attention), freed by the caller. */
static Model *model_whole(const Model *m)
{
    if (model_reached(m, m->cfg.layers, MSTAGE_OUTPUT))
        return NULL;
    Model *w = calloc(1, sizeof *w);
    if (!w || !model_copy(w, m)) {
        if (w)
            model_free(w);
        free(w);
        return NULL;
    }
    model_run_all(w);
    return w;
}

void model_view_lay(Frame *c)
{
    const Model *shown = c->model;
    Model *whole = model_whole(shown);
    if (whole)
        c->model = whole;
    model_view_panels(c);
    c->model = shown;
    if (whole)
        model_free(whole);
    free(whole);
}

static void model_view_panels(Frame *c)
{
    const Model *m = c->model;
    char line[FMT_LINE];
    header_lay(c);
    snprintf(line, sizeof line, _("model view: every layer %s head · prev: weight on the token before · ind: induction score · M closes"),
             frame_sym(c, "×", "x"));
    if (text_width(line) > c->cols - 2)
        line_ellipsize(c, line, c->cols - 2, false);
    plan_put(c, 1, 1, c->cols - 2, line, ROLE_RIBBON);
    plan_add_block(c, BLOCK_RIBBON, 1, 0, c->cols, 1, 1, false);
    int y = 2;
    if (c->in->watch)
        y += loss_lay(c, y);
    int bottom = c->rows - (c->in->keybar ? 1 : 0) - 1; /* the status line, the key bar */
    Grid g = grid_plan(c, y, bottom);
    int y0 = y, shown = 0;
    for (int r = 0; r < g.prow; r++) {
        int k0 = g.first + r * g.per_row;
        if (k0 >= g.total)
            break;
        for (int t = 0; t < g.vis; t++) {
            char tok[64];
            text_sanitize(lesson_token(c->l, c->a, g.n - g.vis + t), tok, sizeof tok, c->in->ascii);
            tok[text_fit(tok, g.lw - 1)] = '\0';
            plan_put(c, y + TITLE_ROWS + t, 1, g.lw - 1, tok, ROLE_LABEL);
        }
        for (int q = 0; q < g.per_row && k0 + q < g.total; q++, shown++) {
            int k = k0 + q;
            panel_lay(c, &g, k / m->cfg.heads + 1, k % m->cfg.heads + 1, y, 1 + g.lw + q * (g.pw + PANEL_GAP));
        }
        y += TITLE_ROWS + g.vis + 1;
    }
    plan_add_block(c, BLOCK_MATRICES, y0, 0, c->cols, y - y0, y - y0, shown < g.total);
    char st[FMT_LINE] = "";
    if (shown < g.total) {
        int l0 = g.first / m->cfg.heads + 1, l1 = (g.first + shown - 1) / m->cfg.heads + 1;
        snprintf(st, sizeof st, _("layers %d-%d of %d shown; { and } show the others"), l0, l1, m->cfg.layers);
    }
    if (g.vis < g.n)
        snprintf(st + strlen(st), sizeof st - strlen(st), _("%sthe last %d of %d tokens"), st[0] ? "; " : "", g.vis, g.n);
    Role r = status_line_text(c, line, sizeof line);
    if (line[0])
        plan_put(c, bottom, 1, c->cols - 2, line, r);
    else
        plan_put(c, bottom, 1, c->cols - 2, st, ROLE_HINT);
    plan_add_block(c, BLOCK_STATUS, bottom, 1, c->cols - 2, 1, 1, false);
    if (c->in->keybar) {
        int used = plan_put(c, c->rows - 1, 0, c->cols, c->in->keybar, ROLE_KEYBAR);
        plan_fill(c, c->rows - 1, used, c->cols - used, ROLE_KEYBAR);
        plan_add_block(c, BLOCK_KEYBAR, c->rows - 1, 0, c->cols, 1, 1, false);
    }
}
