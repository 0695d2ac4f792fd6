/* frame.c - a frame plan as JSON for the page, and the palette as CSS.
 *
 * The page paints exactly what src/term/draw.c paints: the plan's runs in
 * order, each in its role's look (a later run over an earlier one), or the
 * help screen's lines. A run is [y, x, w, role, look, "text"], look 1: bold, 2: underlined.
 * For a screen reader the frame also carries "say" (the narration and the
 * question, as laid out), "msg" (the status line: ✓ / ✗, an effect) and
 * "boxes" (where each matrix and its cells are on the grid). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/palette.h"
#include "words/fmt.h"
#include "text/text.h"
#include "web.h"

void wb_reset(WebBuf *b)
{
    b->n = 0;
    b->oom = 0;
    if (b->s)
        b->s[0] = '\0';
}

void wb_add(WebBuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void wb_printf(WebBuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        wb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void wb_str(WebBuf *b, const char *s, size_t n)
{
    wb_add(b, "\"", 1);
    size_t from = 0;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        wb_add(b, s + from, k - from);
        char esc[8];
        snprintf(esc, sizeof esc, c == '"' ? "\\\"" : c == '\\' ? "\\\\" : "\\u%04x", c);
        wb_add(b, esc, strlen(esc));
        from = k + 1;
    }
    wb_add(b, s + from, n - from);
    wb_add(b, "\"", 1);
}

static void run_json(WebBuf *b, int *first, int y, int x, Role role, int bold, const char *s, size_t n)
{
    wb_printf(b, "%s[%d,%d,%d,%d,%d,", *first ? "" : ",", y, x, text_width_n(s, n), (int)role, bold);
    wb_str(b, s, n);
    wb_add(b, "]", 1);
    *first = 0;
}

/* The help screen as runs, as src/term/draw.c paints it. */
static void help_runs(View *v, WebBuf *b, int *first)
{
    static HelpText h;
    ui_help(v, &h);
    run_json(b, first, 0, 2, ROLE_TITLE, 0, h.title, text_fit(h.title, v->cols - 3));
    for (int r = 0; r < v->help_page && v->help_top + r < h.n; r++) {
        int k = v->help_top + r, y = 2 + r;
        if (h.keys[k])
            run_json(b, first, y, h.kx, ROLE_KEY, 0, h.keys[k], text_fit(h.keys[k], h.tx - h.kx - 1));
        int x = k >= h.first_edit ? 2 : h.tx;
        size_t fit = text_fit(h.text[k], v->cols - 1 - x);
        run_json(b, first, y, x, k >= h.first_edit ? ROLE_HINT : ROLE_NORMAL, 0, h.text[k],
                 (int)fit < h.tlen[k] ? fit : (size_t)h.tlen[k]);
    }
    if (h.scroll)
        run_json(b, first, v->rows - 1, 2, ROLE_HINT, 0, h.more, text_fit(h.more, v->cols - 3));
}

/* What a screen reader is told of a new step (web.js's live region): the
 * narration and the question, as laid out, one line after another. */
static void say_json(const View *v, bool help, WebBuf *b)
{
    wb_add(b, ",\"say\":\"", 8);
    bool any = false;
    for (int k = 0; !help && k < v->plan.nrun; k++) {
        const PlanRun *r = &v->plan.run[k];
        if (r->role != ROLE_SAY && r->role != ROLE_PROMPT)
            continue;
        if (any)
            wb_add(b, " ", 1);
        WebBuf one = {0};
        wb_str(&one, plan_text(&v->plan, r->off), (size_t)r->len);
        if (one.s)
            wb_add(b, one.s + 1, one.n - 2); /* without its quotes */
        free(one.s);
        b->oom |= one.oom;
        any = true;
    }
    wb_add(b, "\",\"msg\":", 8);
    wb_str(b, v->msg, strlen(v->msg));
}

/* Where the matrices are on the grid, for the page's tables for a screen
 * reader (web.js reads each cell's text off the grid, as shown):
 * [y, x, w, h, r0, nr, c0, nc, cy, cx, cw, step]. */
static void boxes_json(const View *v, WebBuf *b)
{
    wb_add(b, ",\"boxes\":[", 10);
    for (int k = 0; !v->plan.too_small && k < v->plan.nbox; k++) {
        const PlanBox *x = &v->plan.box[k];
        wb_printf(b, "%s[%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d]", k ? "," : "", x->y, x->x, x->w, x->h, x->r0, x->nr,
                  x->c0, x->nc, x->cy, x->cx, x->cw, x->step);
    }
    wb_add(b, "]", 1);
}

static void plan_runs(View *v, WebBuf *b, int *first)
{
    view_clamp_focus(v);
    LayoutIn in;
    char bar[FMT_LINE];
    ui_layout_input(v, v->theme == THEME_MONO, &in, bar, sizeof bar);
    layout_plan(&in, &v->plan);
    for (int k = 0; k < v->plan.nrun; k++) {
        const PlanRun *r = &v->plan.run[k];
        run_json(b, first, r->y, r->x, r->role, r->bold | r->under << 1, plan_text(&v->plan, r->off), (size_t)r->len);
    }
}

void web_frame_json(View *v, WebBuf *b)
{
    int first = 1;
    bool big = v->cols >= LAYOUT_MIN_COLS && v->rows >= LAYOUT_MIN_ROWS;
    wb_add(b, "{\"runs\":[", 9);
    if (v->mode == MODE_HELP && big) {
        v->plan.nbox = 0; /* nothing to click on */
        help_runs(v, b, &first);
    } else {
        plan_runs(v, b, &first);
    }
    wb_add(b, "],\"cur\":", 8);
    if (view_field_open(v) && big) {
        char bar[PROMPT_MAX + 64];
        int x = keys_field(v, bar, sizeof bar);
        wb_printf(b, "[%d,%d]", v->rows - 1, x < v->cols ? x : v->cols - 1);
    } else {
        wb_add(b, "null", 4);
    }
    wb_printf(b, ",\"step\":%d,\"steps\":%d,\"card\":%d,\"lang\":\"%s\",\"theme\":\"%s\",\"present\":%d,"
                 "\"mode\":%d,\"dirty\":%d,\"cols\":%d,\"rows\":%d",
              v->s.step + 1, session_steps(&v->s), v->card, v->lang == LANG_ZH ? "zh" : "en",
              theme_name(v->theme), v->present, (int)v->mode, session_dirty(&v->s), v->cols, v->rows);
    say_json(v, v->mode == MODE_HELP && big, b);
    boxes_json(v, b);
    wb_add(b, "}", 1);
}

/* ---- the palette as CSS ---------------------------------------------------- */

/* An xterm 256-colour index as #rrggbb. */
static void xterm_rgb(int c, char out[8])
{
    static const int cube[6] = {0, 95, 135, 175, 215, 255};
    int r, g, b;
    if (c >= 232) {
        r = g = b = 8 + 10 * (c - 232);
    } else {
        c -= 16;
        r = cube[c / 36], g = cube[c / 6 % 6], b = cube[c % 6];
    }
    snprintf(out, 8, "#%02x%02x%02x", r, g, b);
}

static void look_css(WebBuf *b, const char *theme, int role, PalLook k)
{
    char fgv[16], bgv[16];
    if (k.fg >= 0)
        snprintf(fgv, sizeof fgv, "var(--c%d)", k.fg);
    else
        snprintf(fgv, sizeof fgv, "var(--fg)");
    if (k.bg >= 0)
        snprintf(bgv, sizeof bgv, "var(--c%d)", k.bg);
    else
        snprintf(bgv, sizeof bgv, "var(--bg)");
    if (k.attr & PAL_REVERSE) {
        char t[16];
        memcpy(t, fgv, sizeof t);
        memcpy(fgv, bgv, sizeof t);
        memcpy(bgv, t, sizeof t);
    }
    wb_printf(b, ".t-%s .r%d{color:%s;background:%s%s%s%s}\n", theme, role, fgv, bgv,
              k.attr & PAL_BOLD ? ";font-weight:bold" : "", k.attr & PAL_DIM ? ";opacity:.6" : "",
              k.attr & PAL_UNDERLINE ? ";text-decoration:underline" : "");
}

void web_palette_css(WebBuf *b)
{
    for (int t = 0; t < THEME_COUNT; t++) {
        const char *name = theme_name((ThemeId)t);
        for (int r = 0; r < ROLE_COUNT; r++) {
            PalLook k = t == THEME_LIGHT ? palette[r].light : t == THEME_PROJECTOR ? palette[r].proj : palette[r].dark;
            if (t == THEME_MONO)
                k = (PalLook){PAL_DEFAULT, PAL_DEFAULT, palette[r].mono};
            if (t != THEME_MONO && r >= ROLE_HEAT1 && r <= ROLE_HEAT4) {
                int h = r - ROLE_HEAT1;
                char rgb[8];
                xterm_rgb((t == THEME_PROJECTOR ? palette_heat256_proj : palette_heat256)[h], rgb);
                wb_printf(b, ".t-%s .r%d{color:%s;background:%s%s}\n", name, r, h == 3 ? "#000" : "#fff", rgb,
                          k.attr & PAL_BOLD ? ";font-weight:bold" : "");
                continue;
            }
            look_css(b, name, r, k);
        }
    }
    wb_add(b, ".b{font-weight:bold}\n.u{text-decoration:underline}\n", 51);
}
