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
#include "text/fmt.h"
#include "text/text.h"
#include "view_int.h"

void draw_size(View *v)
{
    v->cols = COLS;
    v->rows = LINES;
}

/* What stdscr holds: the runs of the plan painted last, row by row, each
 * run (its place, width, look and text) as bytes, so the next frame paints
 * only what differs. curses then compares and sends only those cells, where
 * erase() and a whole paint made it walk every line and decode every
 * character again. Kept per View (two records: the last and the one being
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

/* One character as a curses cell in the window's look (curses adds it, as
 * for any character it is given). */
static bool cell_of(uint32_t cp, cchar_t *cc)
{
#ifdef NCURSES_VERSION /* the fields: setcchar's checks cost more than the copy */
    memset(cc, 0, sizeof *cc);
    cc->chars[0] = (wchar_t)cp;
    return true;
#else
    wchar_t wc[2] = {(wchar_t)cp, 0};
    return setcchar(cc, wc, A_NORMAL, 0, NULL) == OK;
#endif
}

/* A run's text as curses cells in cc[]: how many, or -1 when a character
 * is not one or two columns wide (a control, a combining mark), bytes do
 * not decode, or there are more than max. */
static int run_cells(const char *s, int len, cchar_t *cc, int max)
{
    int n = 0;
    for (int k = 0; k < len; n++) {
        uint32_t cp = (unsigned char)s[k];
        if (cp >= 0x80) {
            k += (int)text_utf8_next(s + k, (size_t)(len - k), &cp);
            int w = cp == TEXT_BAD_CP ? -1 : text_cp_columns(cp);
            if (w != 1 && w != 2)
                return -1;
        } else if (cp < 0x20 || cp == 0x7f) {
            return -1;
        } else {
            k++;
        }
        if (n == max || !cell_of(cp, &cc[n]))
            return -1;
    }
    return n;
}

/* A run in its role's look. Its text goes in as curses cells, copied
 * into the window whole: curses' path for bytes decodes them one at a
 * time and its path for characters places each alone, which cost more
 * than the rest of painting (the same cells either way; text that is not
 * plain one- and two-column characters, never in a plan, keeps the path
 * for bytes). */
static void paint_run(const Plan *p, const PlanRun *r)
{
    attrset(theme_attr(r->role) | (r->bold ? A_BOLD : 0) | (r->under ? A_UNDERLINE : 0));
    const char *s = plan_text(p, r->off);
    cchar_t cc[512];
    int n = run_cells(s, r->len, cc, (int)(sizeof cc / sizeof *cc));
    if (n < 0)
        mvaddnstr(r->y, r->x, s, r->len);
    else if (n > 0)
        mvadd_wchnstr(r->y, r->x, cc, n);
}

/* Row y again. When its runs sit where the last paint's did (same count,
 * columns and widths), paint those that differ and those over a column
 * painted now (a run may lie on an earlier one); else clear the row and
 * paint all its runs. */
static void paint_row(const Plan *p, const Rows *was, const Rows *now, int y, unsigned char *dirty)
{
    int a0 = was->first[y], n = was->first[y + 1] - a0, b0 = now->first[y];
    bool same_places = n == now->first[y + 1] - b0;
    for (int k = 0; same_places && k < n; k++) {
        RunKey a = run_key(was, a0 + k), b = run_key(now, b0 + k);
        same_places = a.x == b.x && a.w == b.w;
    }
    if (!same_places) {
        attrset(A_NORMAL);
        move(y, 0);
        clrtoeol();
        for (int k = b0; k < now->first[y + 1]; k++)
            paint_run(p, &p->run[now->order[k]]);
        return;
    }
    memset(dirty, 0, (size_t)COLS);
    for (int k = 0; k < n; k++) {
        RunKey b = run_key(now, b0 + k);
        int x1 = b.x + b.w < COLS ? b.x + b.w : COLS;
        bool over = memchr(dirty + b.x, 1, (size_t)(x1 - b.x)) != NULL;
        if (!over && run_same(was, a0 + k, now, b0 + k))
            continue;
        paint_run(p, &p->run[now->order[b0 + k]]);
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
    if (!d || LINES <= 0 || COLS <= 0 || !rows_of(p, LINES, &d->rec[!d->last])) {
        erase();
        for (int k = 0; k < p->nrun; k++)
            paint_run(p, &p->run[k]);
        attrset(A_NORMAL);
        if (d)
            d->valid = false;
        return;
    }
    const Rows *was = &d->rec[d->last], *now = &d->rec[!d->last];
    bool whole = !d->valid || d->win != stdscr || d->cols != COLS || d->rows != LINES || d->theme != v->theme;
    if (whole) {
        erase();
        for (int k = 0; k < p->nrun; k++)
            paint_run(p, &p->run[now->order[k]]);
    } else {
        for (int y = 0; y < LINES; y++) {
            int a0 = was->at[was->first[y]], a1 = was->at[was->first[y + 1]];
            int b0 = now->at[now->first[y]], b1 = now->at[now->first[y + 1]];
            if (a1 - a0 != b1 - b0 || (a1 > a0 && memcmp(was->buf + a0, now->buf + b0, (size_t)(a1 - a0)) != 0))
                paint_row(p, was, now, y, dirty);
        }
    }
    attrset(A_NORMAL);
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
    return idle && d->valid && d->win == stdscr && d->cols == COLS && d->rows == LINES && d->theme == v->theme;
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

/* The help screen: the title, then the key lines from help_top. */
static void paint_help(View *v)
{
    static HelpText h;
    ui_help(v, &h);
    attrset(theme_attr(ROLE_TITLE));
    mvaddnstr(0, 2, h.title, (int)text_fit(h.title, COLS - 3));
    for (int r = 0; r < v->help_page && v->help_top + r < h.n; r++) {
        int k = v->help_top + r, y = 2 + r;
        if (h.keys[k]) {
            attrset(theme_attr(ROLE_KEY));
            mvaddnstr(y, h.kx, h.keys[k], (int)text_fit(h.keys[k], h.tx - h.kx - 1));
        }
        attrset(theme_attr(k >= h.first_edit ? ROLE_HINT : ROLE_NORMAL));
        int x = k >= h.first_edit ? 2 : h.tx;
        mvaddnstr(y, x, h.text[k], (int)text_fit(h.text[k], COLS - 1 - x) < h.tlen[k]
                                       ? (int)text_fit(h.text[k], COLS - 1 - x) : h.tlen[k]);
    }
    if (h.scroll) {
        attrset(theme_attr(ROLE_HINT));
        mvaddnstr(LINES - 1, 2, h.more, (int)text_fit(h.more, COLS - 3));
    }
    attrset(A_NORMAL);
}

void draw_frame(View *v)
{
    draw_size(v);
    if (still_painted(v) && v->mode != MODE_HELP)
        return;
    if (v->mode == MODE_HELP && COLS >= LAYOUT_MIN_COLS && LINES >= LAYOUT_MIN_ROWS) {
        v->plan.nbox = 0; /* nothing to click on */
        if (v->painted) /* the next frame is painted whole */
            v->painted->valid = false;
        erase();
        paint_help(v);
        return;
    }
    view_clamp_focus(v);
    LayoutIn in;
    char bar[FMT_LINE];
    ui_layout_input(v, theme_is_mono(), &in, bar, sizeof bar);
    layout_plan(&in, &v->plan);
    paint(v);
}
