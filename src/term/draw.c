/* draw.c - paint a frame plan and the help screen.
 *
 * src/layout decides what goes where (layout_plan) from the View's state
 * (ui_layout_input); this file only paints the plan run by run (a role
 * becomes the theme's attributes) and keeps it in the View for mouse
 * clicks. The help's lines come from src/ui (ui_help). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/grow.h"
#include "grid.h"
#include "words/fmt.h"
#include "text/text.h"
#include "view_int.h"

void draw_size(View *v)
{
    v->cols = COLS;
    v->rows = LINES;
}

/* What the back grid (grid.h) holds: the runs of the plan painted last,
 * row by row, each run (its place, width, look and text) as bytes, so the
 * next frame paints only what differs. The writer then compares and sends
 * only those rows, where a whole paint made it walk every line and decode
 * every character again. Kept per View (two records: the last and the one being
 * built); when the window, its size or the theme changed since, or the help
 * was shown, the frame is painted whole. */
typedef struct {
    int y, x, w, len;
    Role role;
    bool bold, under;
} RunKey;

typedef struct {
    char *buf;               /* every run's RunKey and text, row after row */
    int len, cap;
    int *first, nfirst;      /* row y's runs are order[first[y] .. first[y + 1]) */
    int *order, norder;      /* the plan's runs by row, in plan order within a row */
    int *at, nat;            /* run order[k]'s bytes are buf[at[k] .. at[k + 1]) */
} Rows;

struct Painted {
    WINDOW *win;
    int cols, rows;
    ThemeId theme;
    bool valid;              /* rec[last] is what stdscr holds */
    int idle;                /* keys since that frame, none of which asked for a repaint (-1: one did) */
    Rows rec[2];
    int last;
};

static bool keep_bytes(Rows *d, const void *s, int n)
{
    if (!grow_buf((void **)&d->buf, &d->cap, d->len + n, 1))
        return false;
    memcpy(d->buf + d->len, s, (size_t)n);
    d->len += n;
    return true;
}

/* The plan's runs row by row into d (a counting sort on y: plan order
 * stays within a row, where later runs paint over earlier ones). False when
 * out of memory or a run lies outside the rows. */
static bool rows_of(const Plan *p, int rows, Rows *d)
{
    if (!grow_buf((void **)&d->first, &d->nfirst, rows + 1, sizeof *d->first) ||
        !grow_buf((void **)&d->order, &d->norder, p->nrun + 1, sizeof *d->order) ||
        !grow_buf((void **)&d->at, &d->nat, p->nrun + 1, sizeof *d->at))
        return false;
    int *first = d->first;
    for (int y = 0; y <= rows; y++)
        first[y] = 0;
    for (int k = 0; k < p->nrun; k++) {
        if (p->run[k].y < 0 || p->run[k].y >= rows)
            return false;
        first[p->run[k].y + 1]++;
    }
    for (int y = 0; y < rows; y++)
        first[y + 1] += first[y];
    int placed[rows];       /* each row's runs placed so far */
    memset(placed, 0, sizeof placed);
    for (int k = 0; k < p->nrun; k++) {
        int y = p->run[k].y;
        d->order[first[y] + placed[y]++] = k;
    }
    d->len = 0;
    for (int k = 0; k < p->nrun; k++) {
        const PlanRun *r = &p->run[d->order[k]];
        RunKey h;
        memset(&h, 0, sizeof h); /* the padding too: runs are compared byte for byte */
        h.y = r->y;
        h.x = r->x;
        h.w = r->w;
        h.len = r->len;
        h.role = r->role;
        h.bold = r->bold;
        h.under = r->under;
        d->at[k] = d->len;
        if (!keep_bytes(d, &h, (int)sizeof h) || !keep_bytes(d, plan_text(p, r->off), r->len))
            return false;
    }
    d->at[p->nrun] = d->len;
    return true;
}

/* A run's key, copied out: keys sit unaligned in the byte buffer. */
static RunKey run_key(const Rows *d, int k)
{
    RunKey r;
    memcpy(&r, d->buf + d->at[k], sizeof r);
    return r;
}

static bool run_same(const Rows *a, int ka, const Rows *b, int kb)
{
    int n = a->at[ka + 1] - a->at[ka];
    return n == b->at[kb + 1] - b->at[kb] && memcmp(a->buf + a->at[ka], b->buf + b->at[kb], (size_t)n) == 0;
}

/* A run in its role's look, into the back grid. */
static void paint_run(Grid *g, const Plan *p, const PlanRun *r)
{
    grid_put(g, r->y, r->x, plan_text(p, r->off), r->len, theme_look(r->role, r->bold, r->under));
}

/* Row y again. When its runs sit where the last paint's did (same count,
 * columns and widths), paint those that differ and those over a column
 * painted now (a run may lie on an earlier one); else clear the row and
 * paint all its runs. */
static void paint_row(Grid *g, const Plan *p, const Rows *was, const Rows *now, int y, unsigned char *dirty)
{
    int a0 = was->first[y], n = was->first[y + 1] - a0, b0 = now->first[y];
    bool same_places = n == now->first[y + 1] - b0;
    for (int k = 0; same_places && k < n; k++) {
        RunKey a = run_key(was, a0 + k), b = run_key(now, b0 + k);
        same_places = a.x == b.x && a.w == b.w;
    }
    if (!same_places) {
        grid_clear_row(g, y, 0);
        for (int k = b0; k < now->first[y + 1]; k++)
            paint_run(g, p, &p->run[now->order[k]]);
        return;
    }
    memset(dirty, 0, (size_t)COLS);
    for (int k = 0; k < n; k++) {
        RunKey b = run_key(now, b0 + k);
        int x1 = b.x + b.w < COLS ? b.x + b.w : COLS;
        bool over = memchr(dirty + b.x, 1, (size_t)(x1 - b.x)) != NULL;
        if (!over && run_same(was, a0 + k, now, b0 + k))
            continue;
        paint_run(g, p, &p->run[now->order[b0 + k]]);
        memset(dirty + b.x, 1, (size_t)(x1 - b.x));
    }
}

/* Paint the plan: what differs from the last paint, or all of it on a
 * blank screen when the screen is not the one last painted. */
static void paint(View *v)
{
    const Plan *p = &v->plan;
    if (!v->painted)
        v->painted = calloc(1, sizeof *v->painted);
    struct Painted *d = v->painted;
    unsigned char dirty[COLS > 0 ? COLS : 1];
    Grid *g = grid_term();
    if (!g || LINES <= 0 || COLS <= 0)
        return;
    bool sized = grid_rows(g) == LINES && grid_cols(g) == COLS;
    if (!sized && !grid_resize(g, LINES, COLS))
        return;
    if (!d || !rows_of(p, LINES, &d->rec[!d->last])) {
        grid_clear(g);
        for (int k = 0; k < p->nrun; k++)
            paint_run(g, p, &p->run[k]);
        if (d)
            d->valid = false;
        return;
    }
    const Rows *was = &d->rec[d->last], *now = &d->rec[!d->last];
    bool whole = !sized || !d->valid || d->win != stdscr || d->cols != COLS || d->rows != LINES || d->theme != v->theme;
    if (whole) {
        grid_clear(g);
        for (int k = 0; k < p->nrun; k++)
            paint_run(g, p, &p->run[now->order[k]]);
    } else {
        for (int y = 0; y < LINES; y++) {
            int a0 = was->at[was->first[y]], a1 = was->at[was->first[y + 1]];
            int b0 = now->at[now->first[y]], b1 = now->at[now->first[y + 1]];
            if (a1 - a0 != b1 - b0 || (a1 > a0 && memcmp(was->buf + a0, now->buf + b0, (size_t)(a1 - a0)) != 0))
                paint_row(g, p, was, now, y, dirty);
        }
    }
    d->win = stdscr;
    d->cols = COLS;
    d->rows = LINES;
    d->theme = v->theme;
    d->valid = true;
    d->last = !d->last;
}

void view_repaint(View *v)
{
    if (v->painted)
        v->painted->valid = false;
}

void draw_key(View *v, bool changed)
{
    struct Painted *d = v->painted;
    if (d && d->idle >= 0)
        d->idle = changed ? -1 : d->idle + 1;
}

/* Is stdscr still the last frame, with keys since but none that asked for
 * a repaint (unbound, a click on nothing)? Then the frame is neither laid
 * out nor painted again. */
static bool still_painted(View *v)
{
    struct Painted *d = v->painted;
    if (!d)
        return false;
    bool idle = d->idle > 0;
    d->idle = 0;
    Grid *g = grid_term();
    return idle && d->valid && d->win == stdscr && d->cols == COLS && d->rows == LINES && d->theme == v->theme && g &&
           grid_rows(g) == LINES && grid_cols(g) == COLS;
}

void draw_forget(View *v)
{
    if (!v->painted)
        return;
    for (int k = 0; k < 2; k++) {
        Rows *r = &v->painted->rec[k];
        free(r->buf);
        free(r->first);
        free(r->order);
        free(r->at);
    }
    free(v->painted);
    v->painted = NULL;
}

/* Text cut to fit in cols columns, in a role's look. */
static void help_put(Grid *g, int y, int x, const char *s, int len, int cols, Role r)
{
    int fit = (int)text_fit(s, cols);
    grid_put(g, y, x, s, fit < len ? fit : len, theme_look(r, false, false));
}

/* The help screen: the title, then the key lines from help_top. */
static void paint_help(View *v, Grid *g)
{
    static HelpText h;
    ui_help(v, &h);
    help_put(g, 0, 2, h.title, (int)strlen(h.title), COLS - 3, ROLE_TITLE);
    for (int r = 0; r < v->help_page && v->help_top + r < h.n; r++) {
        int k = v->help_top + r, y = 2 + r;
        if (h.keys[k])
            help_put(g, y, h.kx, h.keys[k], (int)strlen(h.keys[k]), h.tx - h.kx - 1, ROLE_KEY);
        int x = k >= h.first_edit ? 2 : h.tx;
        help_put(g, y, x, h.text[k], h.tlen[k], COLS - 1 - x, k >= h.first_edit ? ROLE_HINT : ROLE_NORMAL);
    }
    if (h.scroll)
        help_put(g, LINES - 1, 2, h.more, (int)strlen(h.more), COLS - 3, ROLE_HINT);
}

void draw_frame(View *v, bool ask_quit)
{
    draw_size(v);
    if (still_painted(v) && v->mode != MODE_HELP)
        return;
    if (v->mode == MODE_HELP && COLS >= LAYOUT_MIN_COLS && LINES >= LAYOUT_MIN_ROWS) {
        v->plan.nbox = 0; /* nothing to click on */
        if (v->painted) /* the next frame is painted whole */
            v->painted->valid = false;
        Grid *g = grid_term();
        if (g && (grid_rows(g) == LINES && grid_cols(g) == COLS ? true : grid_resize(g, LINES, COLS))) {
            grid_clear(g);
            paint_help(v, g);
        }
        return;
    }
    view_clamp_focus(v);
    LayoutIn in;
    char bar[FMT_LINE];
    ui_layout_input(v, theme_is_mono(), &in, bar, sizeof bar);
    in.ask_quit = ask_quit;
    layout_plan(&in, &v->plan);
    paint(v);
}
