/* board.c - today's frame (layout_frame): the bands of matrices a stage
 * shows, the frame's vertical budget, which part gives way when the screen
 * is short, and the parts laid out below the matrices. layout.c's
 * layout_plan and mlayout.c's model frames at stages 2-5 call it.
 *
 * Reading down the screen: the title and step, the stage ribbon, the
 * matrices of the stage in up to three bands, the arithmetic of the
 * focused cell, the narration, the status lines and the key bar. The
 * matrices a stage's arithmetic quotes are "operands": the rows and
 * columns it uses never scroll away while anything else can give way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "lesson/train.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "layout.h"
#include "layout_int.h"

/* ---- the frame ------------------------------------------------------------------ */

/* On a tall screen the board keeps X and the Ws in view once S A O have
 * taken their place: between Q K V and S A O, all three Ws when they fit,
 * else Wq and Wk. Returns 1 when a band was added. */
static int context_band(Frame *c, Band *b, int n)
{
    int rows = 0;
    if (session_stage(c->s) < STAGE_SCORES || n != 2)
        return 0;
    for (int k = 0; k < n; k++)
        rows += band_rows(c, &b[k]) + 3;
    Band x = {0};
    band_add(&x, box_make(M_X, -1, ROLE_ROW, -1, -1, -1));
    if (attn_is_cross(c->a)) /* cross-attention: the source's rows beside the target's */
        band_add(&x, box_make(M_XS, -1, ROLE_ROW, -1, -1, -1));
    for (MatId w = M_WQ; w <= M_WV; w++) /* training: Q K instead, the Ws are on top */
        band_add(&x, box_make(stage_training(c) ? (MatId)(w - M_WQ + M_Q) : w, -1, ROLE_ROW, -1, -1, -1));
    if (stage_training(c))
        x.n = 3;
    if (band_spare(c, &x) < 0)
        x.n--;
    if (band_spare(c, &x) < 0 && attn_is_cross(c->a)) /* X, Xs and Wq at least */
        x.n--;
    if (band_spare(c, &x) < 0 || rows + band_rows(c, &x) + 3 + 3 + 14 > c->rows)
        return 0;
    b[2] = b[1];
    b[1] = x;
    return 1;
}

/* A band whose quoted boxes cannot stand side by side even at their floors
 * (Q and K at 60 columns once q₁ is wide) goes on two bands: the first
 * quoted box, then the others; boxes nothing is quoted from leave. */
static void split_bands(Frame *c, Band *b, int *nb)
{
    for (int k = 0; k < *nb && *nb < MAX_BANDS; k++) {
        Band *x = &b[k];
        int room, pad = c->pad, quoted = 0, floors = 0;
        c->pad = 0;
        band_need(c, x, 0, NULL, &room);
        c->pad = pad;
        for (int m = 0; m < x->n; m++)
            if (x->box[m].quoted || x->box[m].ci >= 0 || x->box[m].all) {
                Box y = x->box[m];
                if (y.hrow >= 0 && y.hrow_role == ROLE_COL)
                    y.nolabel = false; /* a key's row keeps its own labels when rows scroll */
                if (quoted == 0)
                    y.nolabel = false; /* the first labels the rows once the others leave */
                quoted++;
                floors += box_floor(c, &y) + 1;
            }
        if (quoted < 2 || floors - 1 <= c->cols - 2)
            continue;
        Band first = {0}, rest = {0};
        for (int m = 0; m < x->n; m++) {
            Box y = x->box[m];
            if (!(y.quoted || y.ci >= 0 || y.all))
                continue;
            y.nolabel = false;
            y.lrow = -1;
            band_add(first.n ? &rest : &first, y);
        }
        for (int m = *nb; m > k + 1; m--)
            b[m] = b[m - 1];
        b[k] = first;
        b[k + 1] = rest;
        (*nb)++;
        k++;
    }
}

/* The bands to lay out: edit mode's, the board, or in presentation mode
 * the stage's operands and its result. */
static int layout_bands(Frame *c, Band *b)
{
    if (c->in->mode == LAYOUT_EDIT) {
        int n = edit_bands(c, b);
        split_bands(c, b, &n);
        return n;
    }
    int n;
    if (!c->in->present) {
        n = board_bands(c, b);
        n += context_band(c, b, n);
    } else {
        n = stage_bands(c, b);
    }
    stage_row_focus(c, b, n);
    split_bands(c, b, &n);
    return n;
}

/* The matrices of the stage that are not on screen at all. */
static void note_omitted(Frame *c)
{
    int st = session_stage(c->s);
    static const MatId all[] = {M_X, M_WQ, M_WK, M_WV, M_Q, M_K, M_V, M_S, M_A, M_O};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
        bool shown = false;
        for (int m = 0; m < c->p->nbox && !shown; m++)
            shown = c->p->box[m].id == all[k];
        if (!shown && attn_mat_stage(all[k]) <= st)
            c->p->omitted[c->p->nomitted++] = all[k];
    }
}

/* The parts and their budget (Part, Budget): layout_int.h. */

static int mats_rows(Frame *c, const Band *b, int nb, const Budget *g, bool floor)
{
    int r = 0;
    for (int k = 0; k < nb; k++)
        r += (floor ? band_keep(c, &b[k]) : band_rows(c, &b[k])) * c->row_step + c->top +
             (k + 1 < nb ? g->band_gap : g->last_gap);
    return r;
}

#define BLANK_TOP_ROWS 30 /* screens this tall start with a blank under the ribbon */

int layout_text_rows(const Budget *g)
{
    int r = g->blank_top;
    for (int k = 0; k < g->n; k++)
        r += g->part[k].n + (g->part[k].n ? g->part[k].gap : 0);
    return r;
}

static bool fits(Frame *c, const Band *b, int nb, const Budget *g, bool floor)
{
    return layout_text_rows(g) + mats_rows(c, b, nb, g, floor) <= c->rows - 2;
}

/* Parts give way, lowest rank first, down to their soft or hard floor. */
static void give_way(Frame *c, const Band *b, int nb, Budget *g, bool hard, bool floor)
{
    for (int rank = 0; rank < MAX_RANK; rank++)
        for (int k = 0; k < g->n; k++) {
            Part *p = &g->part[k];
            int to = hard ? p->min : p->soft;
            while (p->rank == rank && p->n > to && !fits(c, b, nb, g, floor)) {
                p->n--;
                p->cut = true;
            }
        }
}

/* Does the arithmetic (or the focus) need anything in this band? */
static bool band_needed(const Band *b)
{
    for (int k = 0; k < b->n; k++) {
        const Box *x = &b->box[k];
        if (!x->placeholder && (x->ci >= 0 || x->quoted || x->all || x->hrow >= 0 || x->hcol >= 0))
            return true;
    }
    return false;
}

/* W_Q and W_K, shown for the training panel, give way when nothing fits:
 * the panel's own lines come first (newcomer review 14); a band left empty
 * goes. */
static void drop_panel_boxes(Frame *c, Band *b, int *nb, Budget *g)
{
    for (int k = 0; k < *nb && *nb > 1 && !fits(c, b, *nb, g, false); k++) {
        int n = 0;
        for (int m = 0; m < b[k].n; m++)
            if (!b[k].box[m].panel)
                b[k].box[n++] = b[k].box[m];
        if (n == b[k].n)
            continue;
        b[k].n = n;
        if (n == 0) {
            for (int m = k; m + 1 < *nb; m++)
                b[m] = b[m + 1];
            (*nb)--;
        }
        k--;
    }
}

/* Give way, in order, until everything fits: presentation's double rows,
 * the blank lines (the parts', then the one under the last band, then
 * those between bands when that alone is enough: a
 * question step's two lines keep Q K V in view and in place, `make bench`
 * bytes_ratio_next), the bands the arithmetic quotes nothing from (Q K V at
 * the softmax stage: whole, so they read as left out, in Plan.omitted), then
 * those only the training panel names (W_Q and W_K, before its lines), the
 * parts down to their soft floors (narration to two lines, the key bar),
 * presentation's marks row, then the rows no arithmetic quotes
 * (band_heights); past that, the blanks between bands and the parts down
 * to their hard floors (narration, then arithmetic, to one line). */
/* The blanks above the parts that gave way before a band left the screen,
 * back where the room it left allows (first to last). */
static void regain_gaps(Frame *c, const Band *b, int nb, Budget *g, const int *gaps)
{
    if (!g->last_gap) {
        g->last_gap = 1;
        if (!fits(c, b, nb, g, false))
            g->last_gap = 0;
    }
    for (int k = 0; k < g->n; k++)
        if (gaps[k] && !g->part[k].gap) {
            g->part[k].gap = gaps[k];
            if (!fits(c, b, nb, g, false))
                g->part[k].gap = 0;
        }
}

/* The ✎ notice's kept line goes before a row the arithmetic quotes (60x18, edit mode, several
 * departures): short of that, the notice stays and the rows nothing quotes scroll. */
static void notice_give(Frame *c, const Band *b, int nb, Budget *g)
{
    for (int k = 0; k < g->n && !fits(c, b, nb, g, true); k++)
        if (g->part[k].kind == BLOCK_NOTICE && g->part[k].n > 0) {
            g->part[k].n = 0;
            g->part[k].cut = true;
        }
}

static void budget(Frame *c, Band *b, int *nb, Budget *g)
{
    int gaps[MAX_PARTS];
    while (c->row_step > 1 && !fits(c, b, *nb, g, false))
        c->row_step--;
    if (!fits(c, b, *nb, g, false))
        g->blank_top = 0;
    for (int k = 0; k < g->n; k++)
        gaps[k] = g->part[k].gap;
    for (int k = g->n - 1; k >= 0 && !fits(c, b, *nb, g, false); k--)
        g->part[k].gap = 0;
    if (!fits(c, b, *nb, g, false)) /* under the last band: the text moves, no matrix does */
        g->last_gap = 0;
    if (*nb > 1 && g->band_gap && !fits(c, b, *nb, g, false)) { /* the blanks between bands, when that is enough */
        g->band_gap = 0;
        if (!fits(c, b, *nb, g, false))
            g->band_gap = 1;
    }
    for (int k = 0; k < *nb && !fits(c, b, *nb, g, false);) {
        if (band_needed(&b[k]) || *nb == 1) {
            k++;
            continue;
        }
        for (int m = k; m + 1 < *nb; m++)
            b[m] = b[m + 1];
        (*nb)--;
    }
    drop_panel_boxes(c, b, nb, g);
    regain_gaps(c, b, *nb, g, gaps);
    int had[MAX_PARTS];
    bool cut[MAX_PARTS];
    for (int k = 0; k < g->n; k++)
        had[k] = g->part[k].n, cut[k] = g->part[k].cut;
    give_way(c, b, *nb, g, false, false);
    if (c->top == 3 && !fits(c, b, *nb, g, false)) {
        c->top = 2; /* presentation's marks row goes before a matrix row */
        for (int k = 0; k < g->n; k++) { /* the lines that gave way for it come back where the row allows */
            Part *p = &g->part[k];
            while (p->n < had[k]) {
                p->n++;
                if (!fits(c, b, *nb, g, false)) {
                    p->n--;
                    break;
                }
            }
            p->cut = p->n < had[k] || cut[k];
        }
        regain_gaps(c, b, *nb, g, gaps);
    }
    if (fits(c, b, *nb, g, true))
        return; /* the matrices scroll what no arithmetic quotes */
    if (!fits(c, b, *nb, g, true))
        g->band_gap = g->last_gap = 0;
    give_way(c, b, *nb, g, true, true);
    notice_give(c, b, *nb, g);
}

/* Give the bands their rows in `avail`: the tallest gives way first,
 * down to the rows the arithmetic quotes, then down to one. */
static void band_heights(Frame *c, const Band *b, int nb, int avail, int per, int *rows)
{
    int need = 0;
    for (int k = 0; k < nb; k++)
        need += rows[k] = band_rows(c, &b[k]);
    for (int pass = 0; pass < 2; pass++)
        while (need * c->row_step + per * nb > avail) {
            int big = -1;
            for (int k = 0; k < nb; k++) {
                int floor = pass == 0 ? band_keep(c, &b[k]) : 1;
                if (rows[k] > floor && (big < 0 || rows[k] - floor > rows[big] - (pass == 0 ? band_keep(c, &b[big]) : 1)))
                    big = k;
            }
            if (big < 0)
                break;
            rows[big]--;
            need--;
        }
}

/* Lay out a part from row y; returns the rows it took. */
int layout_part_lay(Frame *c, Part *p, int y)
{
    if (p->bar) {
        int used = plan_put(c, y, 0, c->cols, p->lines[0], p->role);
        plan_fill(c, y, used, c->cols - used, p->role);
        plan_add_block(c, p->kind, y, 0, c->cols, 1, 1, false);
        return 1;
    }
    if (p->cut && p->n > 0)
        line_ellipsize(c, p->lines[p->n - 1], c->cols - 2,
                       p->kind == BLOCK_ARITH || p->kind == BLOCK_TRAIN || p->kind == BLOCK_TRACE);
    for (int i = 0; i < p->n; i++)
        plan_put_styled(c, y + i, 1, c->cols - 2, p->lines[i], p->role, p->bold);
    if (p->n > 0 || p->want > 0)
        plan_add_block(c, p->kind, y, 1, c->cols - 2, p->n, p->want, p->cut);
    return p->n;
}

void layout_frame(Frame *c, char (*lines)[FMT_LINE])
{
    header_lay(c);
    ribbon_lay(c, 1);
    Band bands[MAX_BANDS];
    int nb = layout_bands(c, bands);
    /* No blank under the ribbon on a short screen, nor between two bands:
     * they came and went with the text's length, and every matrix below
     * moved a row (`make bench`: bytes_ratio_next). The blank under the
     * last band stays: when it goes, only the text moves. */
    bool tall = c->rows >= BLANK_TOP_ROWS;
    Budget g = {.blank_top = tall, .band_gap = tall, .last_gap = 1};
    parts_lay(c, &g, lines, lines + MAX_LINES, lines + 2 * MAX_LINES, lines + 3 * MAX_LINES, lines + 4 * MAX_LINES,
          lines + 5 * MAX_LINES);
    c->top = c->in->present ? 3 : 2;
    c->row_step = presentation_rows(c, bands, nb);
    budget(c, bands, &nb, &g);
    int y = 2 + g.blank_top, rows[MAX_BANDS];
    int gaps = nb > 0 ? g.band_gap * (nb - 1) + g.last_gap : 0;
    band_heights(c, bands, nb, c->rows - y - (layout_text_rows(&g) - g.blank_top) - gaps, c->top, rows);
    int y0 = y;
    for (int k = 0; k < nb; k++) {
        int h = rows[k] * c->row_step + c->top, extra = bars_room(c, &bands[k]);
        bool tight = c->gap < BAND_GAP;
        int end = band_lay(c, &bands[k], y, h, extra), bx = c->cols - extra;
        if (c->in->present && end + BAND_GAP < bx) /* a big screen: the bars beside A, not at the edge (review 26) */
            bx = end + BAND_GAP;
        if (extra > 0)
            bars_lay(c, y, bx, tight ? extra : extra - 1, h);
        c->gap = BAND_GAP;
        y += h + (k + 1 < nb ? g.band_gap : g.last_gap);
    }
    centre_board(c, y0, y);
    plan_add_block(c, BLOCK_MATRICES, y0, 0, c->cols, y - y0, mats_rows(c, bands, nb, &g, false), false);
    int bottom = c->rows; /* the anchored parts, from the last row up */
    for (int k = g.n - 1; k >= 0; k--)
        if (g.part[k].bottom && g.part[k].n > 0)
            bottom -= g.part[k].n;
    for (int k = 0, yb = bottom; k < g.n; k++) {
        Part *p = &g.part[k];
        if (p->bottom) {
            yb += layout_part_lay(c, p, yb);
            continue;
        }
        if (p->n > 0 && p->gap)
            y += p->gap <= bottom - y - p->n ? p->gap : 0;
        if (p->n > bottom - y) { /* no room left for all its lines */
            p->n = bottom - y > 0 ? bottom - y : 0;
            p->cut = true;
        }
        y += layout_part_lay(c, p, y);
    }
    note_omitted(c);
}

