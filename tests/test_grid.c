/* test_grid.c - the writer (src/term/grid.c) against a tiny ANSI terminal.
 *
 * A property test: random frames (ASCII, CJK two columns wide, symbols,
 * a control character, random looks, rows cleared, wide characters half
 * overwritten, the front forgotten now and then) are painted into the
 * back grid and flushed; the bytes are replayed by an interpreter written
 * here, independent of the writer (CUP, CUF, CUB, CUD, CR, LF, BS, EL,
 * ECH, ED, SGR, UTF-8 with wcwidth), whose screen must show the back grid
 * after every flush: each character in its column, each look's colours
 * and attributes (a blank: what a blank shows), and the cursor where it
 * was asked for; and no flush sends more bytes than painting the same
 * screen whole would (the writer falls back to the whole repaint). The terminals: xterm-256color, xterm (8 colours) and
 * vt100 (no colours, padding in its strings), at three sizes. */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <wchar.h>

#include "term/grid.h"
#include "testutil.h"

/* ---- the interpreter ---- */

typedef struct {
    short fg, bg;
    int attr;
} Sgr;

typedef struct {
    char b[5];
    int w;     /* 1, 2, or 0 for a wide character's right half */
    Sgr look;
} TCell;

typedef struct {
    int rows, cols, y, x;
    bool wrap;  /* the cursor is past the last column */
    int top, bot; /* the scroll region (bot 0: the whole screen) */
    Sgr cur;
    TCell *c;
    char err[160];
} Term;

static const Sgr plain = {-1, -1, 0};
static int avail; /* the attributes the terminal has */

static void t_blank(Term *t, int y, int x)
{
    TCell *c = &t->c[y * t->cols + x];
    strcpy(c->b, " ");
    c->w = 1;
    c->look = t->cur;
}

static void t_fail(Term *t, const char *what)
{
    if (!t->err[0])
        snprintf(t->err, sizeof t->err, "%s at row %d col %d", what, t->y, t->x);
}

/* Cell x of row y is about to change: a wide character it is half of
 * becomes blanks (as xterm does). */
static void t_split(Term *t, int y, int x)
{
    TCell *r = &t->c[y * t->cols];
    if (r[x].w == 0 && x > 0) {
        strcpy(r[x - 1].b, " ");
        r[x - 1].w = 1;
    }
    if (r[x].w == 2 && x + 1 < t->cols) {
        strcpy(r[x + 1].b, " ");
        r[x + 1].w = 1;
    }
}

static void t_erase(Term *t, int y, int x0, int x1)
{
    for (int x = x0; x < x1 && x < t->cols; x++) {
        t_split(t, y, x);
        t_blank(t, y, x);
    }
}

/* The scroll region's rows move by n (n > 0: down), blanks come in. */
static void t_scroll(Term *t, int n)
{
    int top = t->top, bot = t->bot ? t->bot : t->rows - 1;
    for (int k = 0; k < (n > 0 ? n : -n); k++) {
        if (n > 0) {
            memmove(&t->c[(top + 1) * t->cols], &t->c[top * t->cols], (size_t)((bot - top) * t->cols) * sizeof *t->c);
            for (int x = 0; x < t->cols; x++)
                t_blank(t, top, x);
        } else {
            memmove(&t->c[top * t->cols], &t->c[(top + 1) * t->cols], (size_t)((bot - top) * t->cols) * sizeof *t->c);
            for (int x = 0; x < t->cols; x++)
                t_blank(t, bot, x);
        }
    }
}

static void t_sgr(Term *t, const int *p, int n)
{
    if (n == 0) {
        t->cur = plain;
        return;
    }
    for (int k = 0; k < n; k++) {
        int v = p[k];
        if (v == 0)
            t->cur = plain;
        else if (v == 1)
            t->cur.attr |= GRID_BOLD;
        else if (v == 2)
            t->cur.attr |= GRID_DIM;
        else if (v == 4)
            t->cur.attr |= GRID_UNDER;
        else if (v == 7)
            t->cur.attr |= GRID_REVERSE;
        else if (v == 22)
            t->cur.attr &= ~(GRID_BOLD | GRID_DIM);
        else if (v == 24)
            t->cur.attr &= ~GRID_UNDER;
        else if (v == 27)
            t->cur.attr &= ~GRID_REVERSE;
        else if (v >= 30 && v <= 37)
            t->cur.fg = (short)(v - 30);
        else if (v >= 40 && v <= 47)
            t->cur.bg = (short)(v - 40);
        else if (v >= 90 && v <= 97)
            t->cur.fg = (short)(v - 90 + 8);
        else if (v >= 100 && v <= 107)
            t->cur.bg = (short)(v - 100 + 8);
        else if (v == 39)
            t->cur.fg = -1;
        else if (v == 49)
            t->cur.bg = -1;
        else if ((v == 38 || v == 48) && k + 2 < n && p[k + 1] == 5) {
            *(v == 38 ? &t->cur.fg : &t->cur.bg) = (short)p[k + 2];
            k += 2;
        } else
            t_fail(t, "an SGR parameter the interpreter does not know");
    }
}

static void t_csi(Term *t, const int *p, int n, char fin)
{
    int a = n > 0 && p[0] > 0 ? p[0] : 1;
    if (fin != 'm')
        t->wrap = false;
    switch (fin) {
    case 'H':
        t->y = (n > 0 && p[0] > 0 ? p[0] : 1) - 1;
        t->x = (n > 1 && p[1] > 0 ? p[1] : 1) - 1;
        if (t->y >= t->rows || t->x >= t->cols)
            t_fail(t, "CUP off the screen");
        break;
    case 'C': t->x = t->x + a < t->cols ? t->x + a : t->cols - 1; break;
    case 'D': t->x = t->x - a > 0 ? t->x - a : 0; break;
    case 'B': t->y = t->y + a < t->rows ? t->y + a : t->rows - 1; break;
    case 'A': t->y = t->y - a > 0 ? t->y - a : 0; break;
    case 'G': t->x = a - 1 < t->cols ? a - 1 : t->cols - 1; break;
    case 'S': t_scroll(t, -a); break;
    case 'T': t_scroll(t, a); break;
    case 'r':
        t->top = (n > 0 && p[0] > 0 ? p[0] : 1) - 1;
        t->bot = (n > 1 && p[1] > 0 ? p[1] : t->rows) - 1;
        if (t->top >= t->bot || t->bot >= t->rows)
            t_fail(t, "a scroll region that is not one");
        t->y = t->x = 0; /* as xterm: the cursor home */
        break;
    case 'K': t_erase(t, t->y, t->x, t->cols); break;
    case 'X': t_erase(t, t->y, t->x, t->x + a); break;
    case 'J':
        if (n > 0 && p[0] == 2) {
            for (int y = 0; y < t->rows; y++)
                t_erase(t, y, 0, t->cols);
        } else {
            t_erase(t, t->y, t->x, t->cols);
            for (int y = t->y + 1; y < t->rows; y++)
                t_erase(t, y, 0, t->cols);
        }
        break;
    case 'm': t_sgr(t, p, n); break;
    default: t_fail(t, "a CSI sequence the interpreter does not know");
    }
}

static void t_char(Term *t, const char *s, int len)
{
    wchar_t wc;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    if (mbrtowc(&wc, s, (size_t)len, &st) != (size_t)len) {
        t_fail(t, "bytes that are not one UTF-8 character");
        return;
    }
    int w = wcwidth(wc);
    if (w < 1) {
        t_fail(t, "a character that takes no column");
        return;
    }
    if (t->wrap)
        t_fail(t, "a character written past the last column");
    if (t->x + w > t->cols) {
        t_fail(t, "a wide character cut by the right edge");
        return;
    }
    t_split(t, t->y, t->x);
    if (w == 2)
        t_split(t, t->y, t->x + 1);
    TCell *c = &t->c[t->y * t->cols + t->x];
    memcpy(c->b, s, (size_t)len);
    c->b[len] = '\0';
    c->w = w;
    c->look = t->cur;
    if (w == 2) {
        c[1].b[0] = '\0';
        c[1].w = 0;
        c[1].look = t->cur;
    }
    t->x += w;
    if (t->x >= t->cols) {
        t->x = t->cols - 1;
        t->wrap = true;
    }
}

static void t_feed(Term *t, const char *s, size_t n)
{
    for (size_t k = 0; k < n && !t->err[0];) {
        unsigned char b = (unsigned char)s[k];
        if (b == 0x1b && k + 2 < n + 1 && s[k + 1] == '(') {
            k += 3; /* a character set: ignored */
        } else if (b == 0x1b && k + 1 < n && s[k + 1] == 'M') { /* reverse index */
            if (t->y == t->top)
                t_scroll(t, 1);
            else if (t->y > 0)
                t->y--;
            t->wrap = false;
            k += 2;
        } else if (b == 0x1b && k + 1 < n && s[k + 1] == '[') {
            int p[16], np = 0, v = -1;
            k += 2;
            for (; k < n && ((s[k] >= '0' && s[k] <= '9') || s[k] == ';'); k++) {
                if (s[k] == ';') {
                    if (np < 16)
                        p[np++] = v < 0 ? 0 : v;
                    v = -1;
                } else {
                    v = (v < 0 ? 0 : v * 10) + (s[k] - '0');
                }
            }
            if (v >= 0 && np < 16)
                p[np++] = v;
            if (k >= n) {
                t_fail(t, "a CSI sequence cut short");
                return;
            }
            t_csi(t, p, np, s[k++]);
        } else if (b == 0x1b) {
            t_fail(t, "an escape the interpreter does not know");
        } else if (b == '\r') {
            t->x = 0;
            t->wrap = false;
            k++;
        } else if (b == '\n') {
            if (t->bot && t->y == t->bot)
                t_scroll(t, -1);
            else if (++t->y >= t->rows)
                t_fail(t, "a newline on the last row (it would scroll)");
            t->wrap = false;
            k++;
        } else if (b == '\b') {
            t->x = t->x > 0 ? t->x - 1 : 0;
            t->wrap = false;
            k++;
        } else if (b == 0x0f) {
            k++; /* vt100's shift in, in its sgr0 */
        } else if (b < 0x20 || b == 0x7f) {
            t_fail(t, "a control character");
        } else {
            int len = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
            t_char(t, s + k, len);
            k += (size_t)len;
        }
    }
}

/* ---- the frames ---- */

static unsigned rnd_state;
static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 16) % n;
}

static const char *const words[] = {"a", "Q", "0.149", "−0.041", "我", "爱猫", "中文字", "K·V", "é", "  ", "    ", "x\x01y",
                                    "ᵀ", "⇒", "scale ÷√d", "softmax", " ", "猫 cat", "××"};

/* Does the terminal's cell show what back cell b in style s shows? */
static bool shows(const TCell *c, const GridCell *b, const GridStyle *s, int colors, char *why, size_t nwhy)
{
    if (b->w == 0) {
        if (c->w != 0)
            snprintf(why, nwhy, "not the right half of a wide character");
        return c->w == 0;
    }
    char want[5] = {0};
    memcpy(want, b->b, b->n);
    if (strcmp(c->b, want) != 0 || c->w != b->w) {
        snprintf(why, nwhy, "'%s' (%d columns) where '%s' (%d) should be", c->b, c->w, want, b->w);
        return false;
    }
    Sgr w = {colors ? s->fg : -1, colors ? s->bg : -1, s->attr & avail}, h = c->look; /* what the terminal can show */
    if (!colors)
        h.fg = h.bg = -1;
    bool ok;
    if (strcmp(want, " ") == 0) /* a blank shows its background, underline and reverse */
        ok = w.bg == h.bg && (w.attr & (GRID_UNDER | GRID_REVERSE)) == (h.attr & (GRID_UNDER | GRID_REVERSE)) &&
             (!(w.attr & GRID_REVERSE) || w.fg == h.fg);
    else
        ok = w.fg == h.fg && w.bg == h.bg && w.attr == h.attr;
    if (!ok)
        snprintf(why, nwhy, "'%s' in fg %d bg %d attr %d, not fg %d bg %d attr %d", want, h.fg, h.bg, h.attr, w.fg, w.bg,
                 w.attr);
    return ok;
}

/* Rows a..b of the back grid again d rows lower (higher when d < 0), as
 * when a frame inserts or drops a line: the writer may scroll them. */
static void move_rows(Grid *g, int rows, int cols, int a, int b, int d)
{
    GridCell *copy = malloc((size_t)(rows * cols) * sizeof *copy);
    assert_non_null(copy);
    for (int y = 0; y < rows; y++)
        memcpy(copy + y * cols, grid_back_row(g, y), (size_t)cols * sizeof *copy);
    for (int y = a; y <= b; y++) {
        if (y + d < 0 || y + d >= rows)
            continue;
        grid_clear_row(g, y + d, 0);
        for (int x = 0; x < cols; x++) {
            const GridCell *c = &copy[y * cols + x];
            if (c->n >= 1 && c->n <= 4)
                grid_put(g, y + d, x, (const char *)c->b, c->n, c->look);
        }
    }
    free(copy);
}

static void one_frame(Grid *g, int rows, int cols, int nlook)
{
    int ops = 1 + (int)rnd(12);
    if (rnd(4) == 0) {
        int a = (int)rnd((unsigned)rows), b = a + (int)rnd((unsigned)(rows - a)), d = (int)rnd(7) - 3;
        move_rows(g, rows, cols, a, b, d ? d : 1);
    }
    for (int k = 0; k < ops; k++) {
        int r = (int)rnd(20);
        if (r == 0) {
            grid_clear(g);
        } else if (r < 3) {
            grid_clear_row(g, (int)rnd((unsigned)rows), (int)rnd((unsigned)cols));
        } else {
            char s[256] = "";
            int nw = 1 + (int)rnd(6);
            for (int w = 0; w < nw; w++)
                strcat(s, words[rnd(sizeof words / sizeof *words)]);
            grid_put(g, (int)rnd((unsigned)rows), (int)rnd((unsigned)cols), s, (int)strlen(s), (int)rnd((unsigned)nlook));
        }
    }
}

/* Frames on one terminal type at one size: the interpreter's screen
 * equals the back grid after every flush. */
static void frames_on(const char *term, int rows, int cols, unsigned seed, int nframes)
{
    int err = 0;
    assert_int_equal(setupterm(term, 1, &err), OK);
    int colors = tigetnum("colors") > 0 ? tigetnum("colors") : 0;
    avail = (tigetstr("bold") && tigetstr("bold") != (char *)-1 ? GRID_BOLD : 0) |
            (tigetstr("dim") && tigetstr("dim") != (char *)-1 ? GRID_DIM : 0) |
            (tigetstr("smul") && tigetstr("smul") != (char *)-1 ? GRID_UNDER : 0) |
            (tigetstr("rev") && tigetstr("rev") != (char *)-1 ? GRID_REVERSE : 0);
    Grid *g = grid_new(caps_terminfo());
    assert_non_null(g);
    assert_true(grid_resize(g, rows, cols));
    GridStyle st[12];
    rnd_state = seed;
    st[0] = (GridStyle){-1, -1, 0};
    for (int k = 1; k < 12; k++) {
        int c = colors ? colors : 8;
        st[k].fg = (short)((int)rnd((unsigned)c + 1) - 1);
        st[k].bg = (short)(rnd(3) == 0 ? (int)rnd((unsigned)c) : -1);
        st[k].attr = (int)rnd(16);
    }
    assert_true(grid_set_styles(g, st, 12));
    Term t = {rows, cols, 0, 0, false, 0, 0, {-1, -1, 0}, calloc((size_t)(rows * cols), sizeof(TCell)), ""};
    assert_non_null(t.c);
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++)
            strcpy(t.c[y * cols + x].b, "#"); /* what was there before: anything */
    size_t total = 0;
    for (int f = 0; f < nframes; f++) {
        one_frame(g, rows, cols, 12);
        if (rnd(25) == 0)
            grid_invalidate(g);
        int cy = rnd(3) == 0 ? (int)rnd((unsigned)rows) : -1, cx = (int)rnd((unsigned)cols);
        size_t n;
        const char *s = grid_flush(g, cy, cx, &n);
        total += n;
        if (getenv("TEST_GRID_TRACE") && (int)seed == atoi(getenv("TEST_GRID_TRACE"))) {
            fprintf(stderr, "frame %d:", f);
            for (size_t k = 0; k < n; k++)
                fprintf(stderr, (unsigned char)s[k] < 0x20 ? "^%c" : "%c", (unsigned char)s[k] < 0x20 ? s[k] + 64 : s[k]);
            fprintf(stderr, "\n");
        }
        t_feed(&t, s, n);
        if (t.err[0])
            fail_msg("%s %dx%d frame %d: %s", term, cols, rows, f, t.err);
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < cols; x++) {
                char why[160];
                const GridCell *b = &grid_back_row(g, y)[x];
                if (!shows(&t.c[y * cols + x], b, grid_style(g, b->look), colors, why, sizeof why))
                    fail_msg("%s %dx%d seed %u frame %d, row %d col %d: %s", term, cols, rows, seed, f, y, x, why);
            }
        if (cy >= 0 && (t.y != cy || t.x != cx || t.wrap))
            fail_msg("%s frame %d: the cursor at %d,%d, not %d,%d", term, f, t.y, t.x, cy, cx);
        /* never dearer than painting the same back grid whole (every other
         * frame: the same grid, forgotten, sends it again to the terminal,
         * which shows the same; a diff then starts from a diff) */
        if (f % 2) {
            grid_invalidate(g);
            size_t whole;
            const char *w = grid_flush(g, cy, cx, &whole);
            if (n > whole)
                fail_msg("%s %dx%d seed %u frame %d: %zu bytes, painting it whole takes %zu", term, cols, rows, seed,
                         f, n, whole);
            t_feed(&t, w, whole);
        }
        size_t again;
        grid_flush(g, -1, -1, &again);
        assert_int_equal(again, 0); /* nothing left to send */
    }
    assert_true(total > 0);
    free(t.c);
    grid_free(g);
    del_curterm(cur_term);
}

static void test_frames_xterm256(void **state)
{
    for (unsigned seed = 1; seed <= 6; seed++) {
        frames_on("xterm-256color", 24, 80, seed, 150);
        frames_on("xterm-256color", 7, 13, seed * 7, 300);
    }
}

static void test_frames_xterm8(void **state)
{
    for (unsigned seed = 1; seed <= 4; seed++)
        frames_on("xterm", 18, 60, seed, 150);
}

static void test_frames_vt100(void **state)
{
    for (unsigned seed = 1; seed <= 4; seed++) {
        frames_on("vt100", 24, 80, seed, 150);
        frames_on("vt100", 5, 9, seed * 3, 300);
    }
}

/* The interpreter itself fails on a wrong stream: a character too far
 * right and a cell left out are caught (the property can fail). */
static void test_interpreter_catches(void **state)
{
    Term t = {2, 4, 0, 0, false, 0, 0, {-1, -1, 0}, calloc(8, sizeof(TCell)), ""};
    assert_non_null(t.c);
    t_feed(&t, "\033[1;4Hab", 8);
    assert_true(t.err[0] != '\0');
    Term u = {2, 4, 0, 0, false, 0, 0, {-1, -1, 0}, calloc(8, sizeof(TCell)), ""};
    assert_non_null(u.c);
    t_feed(&u, "\033[1;1H\033[0;1;38;5;208m我", 22);
    assert_string_equal(u.err, "");
    assert_int_equal(u.c[0].w, 2);
    assert_int_equal(u.c[1].w, 0);
    assert_int_equal(u.c[0].look.fg, 208);
    assert_int_equal(u.c[0].look.attr, GRID_BOLD);
    t_feed(&u, "\033[1;2Hx", 7); /* the right half overwritten: the left becomes a blank */
    assert_string_equal(u.c[0].b, " ");
    free(t.c);
    free(u.c);
}

/* A CJK character half covered in the back grid is replaced by a blank,
 * and the writer repaints its other half. */
static void test_wide_half_overwritten(void **state)
{
    int err = 0;
    assert_int_equal(setupterm("xterm-256color", 1, &err), OK);
    Grid *g = grid_new(caps_terminfo());
    assert_true(grid_resize(g, 2, 10));
    GridStyle st[3] = {{-1, -1, 0}, {1, -1, GRID_BOLD}, {1, -1, GRID_UNDER}};
    assert_true(grid_set_styles(g, st, 3));
    assert_int_equal(grid_put(g, 1, 0, "a a", 3, 1), 3);
    assert_int_equal(grid_put(g, 1, 3, " ", 1, 2), 1);
    assert_int_equal(grid_back_row(g, 1)[0].look, 1); /* a character keeps its look */
    assert_int_equal(grid_back_row(g, 1)[1].look, 0); /* a bold blank shows as a plain one */
    assert_int_equal(grid_back_row(g, 1)[3].look, 2); /* an underlined blank does not */
    assert_int_equal(grid_put(g, 0, 0, "我爱猫", 9, 0), 6);
    size_t n;
    grid_flush(g, -1, -1, &n);
    assert_int_equal(grid_put(g, 0, 3, "x", 1, 0), 1);
    const GridCell *r = grid_back_row(g, 0);
    assert_int_equal(r[2].b[0], ' '); /* 爱's left half */
    assert_int_equal(r[3].b[0], 'x');
    const char *s = grid_flush(g, -1, -1, &n);
    assert_true(n > 0);
    assert_non_null(memchr(s, 'x', n));
    grid_free(g);
    del_curterm(cur_term);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interpreter_catches),
        cmocka_unit_test(test_wide_half_overwritten),
        cmocka_unit_test(test_frames_xterm256),
        cmocka_unit_test(test_frames_xterm8),
        cmocka_unit_test(test_frames_vt100),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
