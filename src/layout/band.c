/* band.c - a band of boxes side by side: the rows it needs and keeps, and
 * squeezing it into the width. */
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

/* ---- bands ------------------------------------------------------------------ */

int band_rows(const Frame *c, const Band *b)
{
    int r = 0;
    for (int k = 0; k < b->n; k++)
        r = c->a->m[b->box[k].id].rows > r ? c->a->m[b->box[k].id].rows : r;
    return r;
}

/* The rows a band must keep: its quoted columns whole; beside A at work,
 * a row per key, so the bars_lay (which may stand in for A's row) show it
 * all; in a model lesson at most MODEL_BAR_KEYS of them (12 tokens at
 * 80x24 leave the narration and the notice their lines; the bars then
 * show the keys around the focused one, A's row stays whole). */
#define MODEL_BAR_KEYS 6
int band_keep(const Frame *c, const Band *b)
{
    int r = 1;
    for (int k = 0; k < b->n; k++)
        r = box_keep_rows(c, &b->box[k]) > r ? box_keep_rows(c, &b->box[k]) : r;
    if (band_has_a(c, b) && c->a->reached >= STAGE_SOFTMAX) {
        int keys = c->a->m[M_A].cols - 1; /* the bars' title takes the header's row */
        if (c->model && keys > MODEL_BAR_KEYS) /* a model's long input: its bars scroll around the key */
            keys = MODEL_BAR_KEYS;
        r = keys > r ? keys : r;
    }
    return r;
}

/* Boxes after the first whose rows are the same tokens share its labels,
 * which then light up the row any of them works on. */
static void share_labels(const Frame *c, Band *b)
{
    if (b->n > 0) /* the first box labels its rows (a box moved from another band may come without) */
        b->box[0].nolabel = false;
    for (int k = 1; k < b->n; k++) {
        const Box *f = &b->box[0], *x = &b->box[k];
        /* A key's row (K at the scores stage) keeps its own labels when
         * rows scroll: it may be far from the query's row. */
        bool own = c->rows_cut && x->hrow >= 0 && x->hrow_role == ROLE_COL;
        b->box[k].nolabel = box_rows_are_tokens(f->id) && box_rows_are_tokens(x->id) && !own &&
                            c->a->m[f->id].rows == c->a->m[x->id].rows;
        if (b->box[k].nolabel && b->box[0].lrow < 0 && (x->ci >= 0 || (x->hrow >= 0 && x->hrow_role == ROLE_ROW)))
            b->box[0].lrow = x->ci >= 0 ? x->ci : x->hrow;
    }
}

/* The columns a band's boxes want side by side, each in need[] (may be
 * NULL), at the padding in c->pad; the room for them is in *room. */
int band_need(Frame *c, Band *b, int extra, int *need, int *room)
{
    int total = 0, one;
    share_labels(c, b);
    for (int k = 0; k < b->n; k++) {
        total += one = box_need(c, &b->box[k]);
        if (need)
            need[k] = one;
    }
    *room = c->cols - 2 - extra - c->gap * (b->n - 1);
    return total;
}

/* The columns left over beside a band at its narrowest (no cell padding);
 * negative when its columns must scroll. */
int band_spare(Frame *c, Band *b)
{
    int room, pad = c->pad;
    c->pad = 0;
    int need = band_need(c, b, 0, NULL, &room), spare = room - need;
    c->pad = pad;
    return spare;
}

/* Cut the boxes' widths need[] down to w in total: the widest first down
 * to the next widest, by ranks; none below its floor. */
static int squeeze(Band *b, int *need, const int *rank, const int *floor, int total, int w, int passes)
{
    for (int pass = 0; pass < passes && total > w; pass++)
        while (total > w) {
            int big = -1;
            for (int k = 0; k < b->n; k++)
                if (rank[k] <= pass && need[k] > floor[k] && (big < 0 || need[k] > need[big]))
                    big = k;
            if (big < 0)
                break;
            int next = floor[big];
            for (int k = 0; k < b->n; k++)
                if (k != big && rank[k] <= pass && need[k] > floor[k] && need[k] > next)
                    next = need[k];
            int cut = need[big] - next > 0 ? need[big] - next : 1;
            cut = cut < total - w ? cut : total - w;
            need[big] -= cut;
            total -= cut;
        }
    return total;
}

/* Remove box k from the band, and its entries from the arrays given. */
static void band_remove(Band *b, int k, int *need, int *rank)
{
    for (int m = k; m + 1 < b->n; m++) {
        b->box[m] = b->box[m + 1];
        need[m] = need[m + 1];
        if (rank)
            rank[m] = rank[m + 1];
    }
    b->n--;
}

/* Placeholders (dots) give way first, down to one column; when the others
 * still do not fit whole, they leave the band rather than a quoted column
 * scrolling away. Returns the new total; *w grows by the gaps freed. */
static int band_drop_dots(Frame *c, Band *b, int *need, int total, int *w)
{
    int dots_min = 0;
    for (int k = 0; k < b->n; k++) {
        int fl = box_floor(c, &b->box[k]);
        dots_min += b->box[k].placeholder && fl < need[k] ? fl : need[k];
    }
    for (int k = b->n - 1; k > 0 && total > *w && dots_min > *w; k--)
        if (b->box[k].placeholder && b->n > 1) {
            total -= need[k];
            *w += c->gap;
            band_remove(b, k, need, NULL);
        }
    return total;
}

/* Squeeze by rank: dots, then the boxes no highlight is in, then the inputs
 * (to half their width, never below what the arithmetic quotes), then all
 * alike. Fills rank[]; returns the new total. */
static int band_squeeze_ranked(Frame *c, Band *b, int *need, int *rank, int total, int w)
{
    int one[MAX_BOXES], half[MAX_BOXES], floor[MAX_BOXES];
    for (int k = 0; k < b->n; k++) {
        const Box *x = &b->box[k];
        rank[k] = x->placeholder ? 0 : x->ci >= 0 ? 3 : x->hrow >= 0 || x->hcol >= 0 || x->all ? 2 : 1;
        one[k] = box_floor(c, x);
        one[k] = one[k] < need[k] ? one[k] : need[k];
        half[k] = need[k] / 2 > one[k] ? need[k] / 2 : one[k];
    }
    for (int pass = 0; pass < 4 && total > w; pass++) {
        for (int k = 0; k < b->n; k++)
            floor[k] = pass == 2 && rank[k] == 2 ? half[k] : one[k];
        total = squeeze(b, need, rank, floor, total, w, pass + 1);
    }
    return total;
}

/* Short of room still: anything down to its labels and one cell, so nothing
 * is laid out past the screen. Returns the new total. */
static int band_squeeze_last(Frame *c, Band *b, int *need, int total, int w)
{
    int any[MAX_BOXES], last[MAX_BOXES];
    for (int k = 0; k < b->n; k++) {
        any[k] = 0;
        const Mat *m = &c->a->m[b->box[k].id];
        last[k] = box_label_width(c, b->box[k].id, m, b->box[k].nolabel) + box_cell_width(c, b->box[k].id) + 1;
        last[k] = last[k] < need[k] ? last[k] : need[k];
    }
    return squeeze(b, need, any, last, total, w, 1);
}

/* Room to spare: a box whose whole title is wider than its cells gets the
 * columns it needs, so the title keeps its formula. */
static void band_widen_titles(Frame *c, Band *b, int *need, int total, int w, int gap)
{
    for (int k = 0; k < b->n && total < w; k++) {
        int want = box_title_width(c, &b->box[k]) - need[k] - (k + 1 < b->n ? gap - 2 : 0);
        if (want > w - total) /* a note kept room for on every step: only where it fits whole */
            want = box_title_width_now(c, &b->box[k]) - need[k] - (k + 1 < b->n ? gap - 2 : 0);
        if (want > 0) {
            int more = want < w - total ? want : w - total;
            need[k] += more;
            total += more;
        }
    }
}

/* Still short: boxes nothing is highlighted in leave the band, last first;
 * the first too (S beside A and O at the output stage, newcomer review 27),
 * the next one then labelling the rows. Returns the new total. */
static int band_drop_plain(Frame *c, Band *b, int *need, int *rank, int total, int *w, int gap)
{
    for (int k = b->n - 1; k >= 0 && b->n > 1 && total > *w; k--)
        if (rank[k] <= 1) {
            total -= need[k];
            *w += gap;
            band_remove(b, k, need, rank);
            if (k == 0 && b->box[0].nolabel) {
                const Mat *m0 = &c->a->m[b->box[0].id];
                int more = box_label_width(c, b->box[0].id, m0, false) - box_label_width(c, b->box[0].id, m0, true);
                b->box[0].nolabel = false;
                need[0] += more;
                total += more;
            }
        }
    return total;
}

/* The board's S A O band from the scores stage to the output stage: at
 * the softmax stage the focused row's bars stand beside S and A. */
static bool board_weights(const Frame *c, const Band *b)
{
    int st = session_stage(c->s);
    return c->in->mode != LAYOUT_EDIT && !c->in->present && b->n >= 2 && attn_mat_base(b->box[0].id) == M_S &&
           attn_mat_base(b->box[1].id) == M_A && st >= STAGE_SCORES && st <= STAGE_OUTPUT;
}

/* The padding for a band: a column per cell when all fits with it; else
 * the change marks' column (c->marks) when all fits with that. Marks are
 * a decoration: the layout is decided without them, so they never cost a
 * column of numbers nor move a box that would not move anyway. The board's
 * S A O band takes either only where it would fit beside the bars too, so
 * S and A keep their columns from stage to stage (`make bench`:
 * bytes_ratio_next). Returns the band's total need, each box's in need[],
 * the room in *w. */
static int band_pad(Frame *c, Band *b, int extra, int *need, int *w)
{
    int total = 0, room, most = board_weights(c, b) && c->bars_w > extra ? c->bars_w : extra;
    c->marks = 0;
    /* Presentation on a wide screen (a projector at 200 columns): wider
     * cells, as wide as fit, so the board fills the wall and not its
     * top-left third; up to 120 columns, a column as always. */
    int widest = c->in->present && c->cols > 120 ? (c->cols - 96) / 6 : 1;
    for (c->pad = widest; c->pad >= 0; c->pad--)
        if (((total = band_need(c, b, extra, need, w)) <= *w && band_need(c, b, most, NULL, &room) <= room) ||
            c->pad == 0)
            break;
    if (total <= *w && c->pad == 0) {
        c->marks = 1;
        if ((total = band_need(c, b, extra, need, w)) > *w || band_need(c, b, most, NULL, &room) > room) {
            c->marks = 0;
            total = band_need(c, b, extra, need, w);
        }
    }
    return total;
}

/* A box cut to a width that holds no whole cell more leaves a blank where
 * its next column would be: those blanks (from boxes whose whole title
 * still fits) go to a box they let show one column more. */
static void band_whole_cells(Frame *c, Band *b, int *need)
{
    int part[MAX_BOXES], lack[MAX_BOXES], cw[MAX_BOXES];
    for (int k = 0; k < b->n; k++) {
        const Mat *m = &c->a->m[b->box[k].id];
        int lw = box_label_width(c, b->box[k].id, m, b->box[k].nolabel) + 1;
        cw[k] = box_cell_width(c, b->box[k].id);
        int vc = (need[k] - lw) / cw[k], rest = need[k] - lw - vc * cw[k];
        bool scrolls = vc >= 1 && vc < m->cols;
        part[k] = scrolls && need[k] - rest >= box_title_width(c, &b->box[k]) ? rest : 0;
        lack[k] = scrolls ? cw[k] - rest : 0;
    }
    for (int j = 0; j < b->n; j++) {
        int have = 0;
        for (int k = 0; k < b->n; k++)
            have += k != j ? part[k] : 0;
        for (int k = 0; k < b->n && lack[j] > 0 && have >= lack[j]; k++) {
            int take = k == j ? 0 : part[k] < lack[j] ? part[k] : lack[j];
            need[k] -= take;
            part[k] -= take;
            need[j] += take;
            lack[j] -= take;
        }
    }
}

/* Lay the boxes of a band side by side in the screen's width less `extra`,
 * shrinking the widest first when they do not all fit; the change marks'
 * column only where all fits with it. Who gives way: dots
 * first, then the boxes no highlight is in, then the inputs, then all
 * alike; then, short of room, anything down to one column. Returns the
 * column after the last box. */
int band_lay(Frame *c, Band *b, int y, int h, int extra)
{
    int need[MAX_BOXES], rank[MAX_BOXES], total = 0, w = 0, gap = c->gap;
    c->rows_cut = (h - c->top) / c->row_step < band_rows(c, b);
    total = band_pad(c, b, extra, need, &w);
    total = band_drop_dots(c, b, need, total, &w);
    if (total > w && b->n > 1 && gap > 1 && total <= w + b->n - 1) { /* a blank between boxes before a column */
        w += b->n - 1;
        gap = 1;
    }
    total = band_squeeze_ranked(c, b, need, rank, total, w);
    if (total > w && b->n > 1 && gap > 1) { /* one blank between boxes instead of two */
        w += b->n - 1;
        gap = 1;
    }
    total = band_drop_plain(c, b, need, rank, total, &w, gap);
    if (total > w)
        total = band_squeeze_last(c, b, need, total, w);
    band_whole_cells(c, b, need);
    total = 0;
    for (int k = 0; k < b->n; k++)
        total += need[k];
    band_widen_titles(c, b, need, total, w, gap);
    int x = 1;
    for (int k = 0; k < b->n; k++) {
        box_lay(c, &b->box[k], y, x, need[k], h, k + 1 < b->n ? gap - 2 : 0); /* titles 2 apart */
        x += need[k] + gap;
    }
    c->rows_cut = false;
    c->marks = 0;
    return x - gap;
}

/* Does this band show A as the matrix being worked on (the softmax stage,
 * or the result of an edit), so the focused row's bars go beside it? */
bool band_has_a(const Frame *c, const Band *b)
{
    for (int k = 0; k < b->n; k++)
        if (attn_mat_base(b->box[k].id) == M_A && !b->box[k].placeholder && (b->box[k].ci >= 0 || c->in->mode == LAYOUT_EDIT))
            return true;
    return false;
}
