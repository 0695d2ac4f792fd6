/* gridflush.c - one frame out (grid.h's grid_flush): the whole repaint,
 * rows moved by a scroll region, the rows that changed, and the whole
 * repaint instead when the diff comes to more bytes. */
#include <string.h>

#include "core/grow.h"
#include "grid.h"
#include "grid_int.h"
#include "scroll.h"

/* A whole repaint begins on a cleared screen when the blank look can be
 * erased, else on one not known (every cell is sent). */
static void begin_whole(Grid *g)
{
    Caps *c = g->c;
    size_t n = (size_t)g->rows * (size_t)g->cols;
    g->look = -1;
    if (c->nsgr0_pre > 0)
        grid_emit(g, c->sgr0, c->nsgr0_pre); /* the character set sgr0 selects (xterm's \E(B), once */
    if (c->clear && grid_erasable(g, 0)) {
        grid_set_look(g, 0);
        grid_emit_str(g, c->clear);
        GridCell b = grid_blank_cell(0);
        for (size_t k = 0; k < n; k++)
            g->front[k] = b;
        g->cy = g->cx = 0;
    } else {
        for (size_t k = 0; k < n; k++)
            g->front[k] = grid_unknown_cell;
        g->cy = g->cx = -1;
    }
    memset(g->dirty, 1, (size_t)g->rows);
    g->whole = false;
}

/* Rows that moved up or down since the last frame go there by a scroll
 * region (a few bytes) rather than being sent again: up to three moves. */
static void scroll_rows(Grid *g)
{
    Caps *c = g->c;
    if (!c->csr || !(c->ind || c->indn.tmpl) || !(c->ri || c->rin.tmpl))
        return;
    size_t w = (size_t)g->cols;
    unsigned char changed[g->rows];
    int nchanged = 0;
    for (int y = 0; y < g->rows; y++) {
        changed[y] = g->dirty[y] && memcmp(g->back + y * w, g->front + y * w, w * sizeof *g->back) != 0;
        nchanged += changed[y];
    }
    ScrollMove m;
    char o[32];
    for (int k = 0; k < 3 && nchanged > 1 && scroll_pick(g->back, g->front, changed, g->rows, g->cols, 32, &m); k++) {
        bool blank = grid_erasable(g, 0);
        if (blank)
            grid_set_look(g, 0); /* the rows scrolled in are blanks in the current background */
        grid_emit(g, o, caps_csr(c, m.top, m.bot, o));
        g->cy = g->cx = -1; /* setting the region homes the cursor on some terminals */
        int n = m.n > 0 ? m.n : -m.n;
        grid_move_to(g, m.n > 0 ? m.top : m.bot, 0);
        CapParm *p = m.n > 0 ? &c->rin : &c->indn;
        const char *one = m.n > 0 ? c->ri : c->ind;
        if (p->tmpl && (!one || grid_parm_len(p, n) < n * caps_len(one)))
            grid_emit(g, o, caps_parm(p, n, o));
        else
            for (int j = 0; j < n; j++)
                grid_emit_str(g, one);
        grid_emit(g, o, caps_csr(c, 0, g->rows - 1, o));
        g->cy = g->cx = -1;
        scroll_apply(g->front, g->rows, g->cols, &m, blank ? grid_blank_cell(0) : grid_unknown_cell);
        for (int y = m.top; y <= m.bot; y++) {
            g->dirty[y] = 1;
            nchanged -= changed[y];
            changed[y] = memcmp(g->back + y * w, g->front + y * w, w * sizeof *g->back) != 0;
            nchanged += changed[y];
        }
    }
}

/* The dirty rows sent, then the cursor to (cy, cx). */
static void flush_dirty(Grid *g, int cy, int cx)
{
    for (int y = 0; y < g->rows; y++)
        if (g->dirty[y]) {
            grid_flush_row(g, y);
            g->dirty[y] = 0;
        }
    if (cy >= 0 && cy < g->rows)
        grid_move_to(g, cy, cx < 0 ? 0 : cx < g->cols ? cx : g->cols - 1);
}

/* Can a whole repaint of the back grid come to fewer than diff bytes?
 * Not when its floor reaches diff: every character that is not a blank is
 * sent once; between two in different looks, the second look's SGR (a
 * whole repaint starts in look 0, the blank's); between two on a row, the
 * blanks or a move over them (the shortest move right is 3 bytes, ESC [ C,
 * unless the terminal's cuf1 is shorter). The count stops there, so a
 * small diff costs a glance. */
static bool whole_may_win(Grid *g, int diff)
{
    int bytes = 0, look = 0, move = g->c->cuf1 && caps_len(g->c->cuf1) < 3 ? caps_len(g->c->cuf1) : 3;
    for (int y = 0; y < g->rows && bytes < diff; y++) {
        const GridCell *r = g->back + (size_t)y * (size_t)g->cols;
        for (int x = 0, last = -1; x < g->cols; x++) {
            const GridCell *c = &r[x];
            if (c->w == 0 || (c->n == 1 && c->b[0] == ' '))
                continue;
            int gap = last >= 0 ? x - last - 1 : 0;
            bytes += c->n + (c->look != look ? grid_look_len(g, c->look) : 0) + (gap < move ? gap : move);
            look = c->look;
            last = x + c->w - 1;
        }
    }
    return bytes < diff;
}

const char *grid_flush(Grid *g, int cy, int cx, size_t *len)
{
    g->olen = 0;
    /* room for a diff and a whole repaint at once, so that emit rarely grows it */
    grow_buf((void **)&g->out, &g->ocap, 2 * (g->rows * g->cols * 8 + 4096), 1);
    if (g->rows > 0 && g->whole) {
        begin_whole(g);
        flush_dirty(g, cy, cx);
    } else if (g->rows > 0) {
        scroll_rows(g);
        flush_dirty(g, cy, cx);
        /* A diff dearer than painting the screen whole (a next that changes
         * most cells, in many short runs) is replaced by the whole repaint:
         * both leave the front equal to the back. */
        int diff = g->olen, dcy = g->cy, dcx = g->cx, dlook = g->look;
        if (diff > 0 && whole_may_win(g, diff)) {
            begin_whole(g);
            flush_dirty(g, cy, cx);
                if (g->olen - diff < diff) {
                memmove(g->out, g->out + diff, (size_t)(g->olen - diff));
                g->olen -= diff;
            } else { /* the diff stands: the terminal is where it left it */
                g->olen = diff;
                g->cy = dcy;
                g->cx = dcx;
                g->look = dlook;
            }
        }
    }
    *len = (size_t)g->olen;
    return g->out;
}

