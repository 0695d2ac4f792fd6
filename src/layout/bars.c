/* bars.c - the focused row's attention weights as bars beside the band
 * that shows A. */
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

/* ---- the focused row's weights as bars ----------------------------------- */

/* The widest token among A's columns, the keys the bars are labelled by. */
static int keys_width(const Frame *c)
{
    int lw = 0;
    for (int j = 0; j < c->a->m[M_A].cols; j++)
        lw = frame_key_width(c, j) > lw ? frame_key_width(c, j) : lw;
    return lw;
}

/* The columns of a bar's number: "0.313 -> 0.873" after an edit. */
#define BARS_NUMW(digits) (2 * ((digits) + 2) + 3)

/* The length of a bar of weight 1: one scale for a screen width, in every
 * mode, so 0.313 is as long in edit mode as in normal mode. */
static int bar_len(const Frame *c)
{
    if (c->in->present && c->cols > 120) { /* a projector's wide screen: longer bars, up to 40 */
        int pw = (c->cols - 40) / 4;
        return pw > 40 ? 40 : pw;
    }
    int bw = (c->cols - 40) / 8;
    return bw < 4 ? 4 : bw > 20 ? 20 : bw;
}

/* Do the bars show before -> after: did a weight of the focused row change? */
static bool bars_before(const Frame *c)
{
    const Attn *a = c->a, *b = &c->s->before;
    MatId ma = HEAD_MAT(c, M_A);
    if (!c->s->has_before || b->reached < STAGE_SOFTMAX || !mat_same_shape(&a->m[ma], &b->m[ma]))
        return false;
    for (int j = 0; j < a->m[ma].cols; j++)
        if (box_changed(c, ma, c->in->fi, j))
            return true;
    return false;
}

/* The columns of the bars' numbers: room for "0.313 → 0.873" at every
 * step, so the boxes beside the bars keep their places when an edit
 * brings the before -> after (a redraw repaints only what changed). */
static int bars_numw(const Frame *c)
{
    return BARS_NUMW(c->l->digits);
}

/* The columns the bars take: the keys' names, the bar and its number. */
int bars_width(const Frame *c)
{
    char t[64];
    snprintf(t, sizeof t, _("attention of row %d"), c->in->fi + 1);
    int w = keys_width(c) + 2 + bar_len(c) + bars_numw(c) + 1;
    return w > text_width(t) + 1 ? w : text_width(t) + 1;
}

static void bar(Frame *c, int y, int x, int bw, double w, Role r)
{
    static const char *part[8] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (!(w >= 0))
        w = 0;
    if (w > 1)
        w = 1;
    int eighths = (int)lround(w * bw * 8);
    char buf[256];
    size_t n = 0;
    const char *full = c->in->ascii ? "#" : "█";
    /* bounded by the buffer, whatever the width asked for */
    for (int k = 0; k < eighths / 8 && n + strlen(full) + 4 < sizeof buf; k++, n += strlen(full))
        memcpy(buf + n, full, strlen(full));
    buf[n] = '\0';
    if (!c->in->ascii && n + 4 < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "%s", part[eighths % 8]);
    plan_put(c, y, x, bw, buf, r);
}

/* Bars for row fi of A: one per key, with before -> after after an edit. */
void bars_lay(Frame *c, int y, int x, int w, int h)
{
    const Attn *a = c->a;
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    char t[256], n1[48], n2[48];
    MatId ma = HEAD_MAT(c, M_A);
    int n = a->m[ma].cols, i = c->in->fi;
    /* The bars on A's data rows, below its column header, when they fit. */
    int top = c->top, step = c->row_step;
    if (top + (n - 1) * step >= h) {
        top = 1;
        step = 1;
    }
    int r0 = box_window(n, (h - top + step - 1) / step, c->in->fj);
    bool show_before = bars_before(c);
    snprintf(t, sizeof t, _("attention of row %d"), i + 1);
    plan_put(c, y, x, w, t, ROLE_TITLE);
    int lw = keys_width(c), numw = bars_numw(c), bw = bar_len(c);
    for (int j = r0; j < n && top + (j - r0) * step < h; j++) {
        int yy = y + top + (j - r0) * step;
        double now = MAT_AT(&a->m[ma], i, j);
        bool hidden = session_ask_hidden(c->s, ma, i, j); /* an open ask: no bar, "?" */
        plan_put_lesson(c, yy, x, lw, lesson_key_token(c->l, c->a, j), j == c->in->fj ? ROLE_COL : ROLE_LABEL);
        if (!hidden)
            bar(c, yy, x + lw + 1, bw, now, ROLE_BAR);
        if (hidden)
            snprintf(n2, sizeof n2, "?");
        else
            fmt_num(now, &fo, n2, sizeof n2);
        int d = hidden ? 0 : box_changed(c, ma, i, j);
        if (show_before && d) {
            fmt_num(box_before_cell(c, ma, i, j), &fo, n1, sizeof n1);
            snprintf(t, sizeof t, "%*s %s %*s", fo.digits + 2, n1, frame_sym(c, "→", "->"), fo.digits + 2, n2);
        } else {
            snprintf(t, sizeof t, "%s", n2);
        }
        int tw = text_width(t) < numw ? text_width(t) : numw; /* right-aligned, as in a matrix */
        plan_put(c, yy, x + lw + 2 + bw + numw - tw, tw, t, d ? ROLE_UP : ROLE_NORMAL);
    }
    plan_add_block(c, BLOCK_BARS, y, x, w, h, h, false);
}

/* The columns the focused row's bars get beside this band, 0 for none:
 * their width when the band fits beside them, letting placeholders (O,
 * not yet computed) go and unquoted boxes scroll their columns. */
int bars_room(Frame *c, Band *b)
{
    if (!band_has_a(c, b) || c->a->reached < STAGE_SOFTMAX)
        return 0;
    int need = bars_width(c), spare = band_spare(c, b);
    if (spare >= need)
        return need;
    Band less = *b;
    while (less.n > 1 && less.box[less.n - 1].placeholder)
        less.n--;
    spare = band_spare(c, &less);
    if (spare < need) { /* tight: one blank between boxes, the bars to the last column */
        c->gap = 1;
        spare = band_spare(c, &less) + 1;
        if (spare >= need) {
            *b = less;
            return need - 1;
        }
        c->gap = BAND_GAP;
    }
    /* Short of room, the boxes no arithmetic quotes may scroll their
     * columns for the bars; A too, whose focused row the bars repeat. */
    int give = 0, floors = 0;
    for (int k = 0; k < less.n; k++) {
        int fl = box_floor(c, &less.box[k]), nd = box_need(c, &less.box[k]);
        floors += fl < nd ? fl : nd;
        if (!less.box[k].quoted)
            give += nd - fl > 0 ? (nd - fl < nd / 2 ? nd - fl : nd / 2) : 0;
    }
    if (spare + give >= need) {
        *b = less;
        return need;
    }
    /* No room for the bars: A shows its focused row whole when it can... */
    if (floors + c->gap * (less.n - 1) <= c->cols - 2)
        return 0;
    /* ...else the bars stand in for A (they show that row whole), beside
     * what the arithmetic quotes. */
    Band noa = less;
    noa.n = 0;
    for (int k = 0; k < less.n; k++)
        if (less.box[k].id != M_A)
            noa.box[noa.n++] = less.box[k];
    if (noa.n == 0 || noa.n == less.n || band_spare(c, &noa) < need)
        return 0;
    *b = noa;
    return need;
}
