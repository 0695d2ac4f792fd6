/* svg.c - --svg: one step's screen as an SVG picture (see svg.h). */
#include "svg.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"
#include "words/live.h"
#include "text/text.h"
#include "lesson/session.h"
#include "layout/palette.h"
#include "ui/ui.h"

/* One cell of the painted screen: a character (UTF-8) or the right half of
 * a wide one (w 0), and the look of the run that put it there. */
typedef struct {
    char s[4];
    unsigned char n;      /* bytes in s; 0: blank */
    signed char w;        /* 1 or 2 columns; 0: right half of a wide character */
    Role role;
    bool bold, under;     /* under: a changed number with no room for its mark */
} Cell;

/* ---- painting runs onto cells, as curses' mvaddnstr does -------------------- */

/* Decode one UTF-8 character of s (n > 0 bytes left) into *cp; returns its
 * length. Invalid bytes decode as U+FFFD, one byte each. */
static int svg_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    int len = (int)text_utf8_next((const char *)s, n, cp);
    if (*cp == TEXT_BAD_CP)
        *cp = 0xFFFD;
    return len;
}

/* Characters XML 1.0 forbids or discourages (controls, U+FFFE, U+FFFF) never
 * reach the picture: U+FFFD stands in for them. */
static bool xml_char_ok(uint32_t c)
{
    return c >= 0x20 && !(c >= 0x7F && c <= 0x9F) && c != 0xFFFE && c != 0xFFFF;
}


/* Blank cell x of row `row`, and the other half of a wide character there. */
static void blank(Cell *row, int cols, int x, Role role)
{
    if (x < 0 || x >= cols)
        return;
    if (row[x].w == 0 && x > 0)
        row[x - 1] = (Cell){.w = 1, .role = row[x - 1].role};
    if (row[x].w == 2 && x + 1 < cols)
        row[x + 1] = (Cell){.w = 1, .role = row[x + 1].role};
    row[x] = (Cell){.w = 1, .role = role};
}

/* Paint one run: its characters from (y, x) on, cut at the right edge. */
static void paint_run(Cell *grid, int cols, int rows, const PlanRun *r, const char *text)
{
    if (r->y < 0 || r->y >= rows)
        return;
    Cell *row = grid + (size_t)r->y * (size_t)cols;
    const unsigned char *s = (const unsigned char *)text;
    int x = r->x;
    for (int k = 0; k < r->len && x < cols;) {
        uint32_t cp;
        int n = svg_decode(s + k, (size_t)(r->len - k), &cp);
        int w = text_width_n((const char *)s + k, (size_t)n);
        k += n;
        if (!xml_char_ok(cp))
            cp = 0xFFFD, w = 1;
        if (w <= 0) /* a combining mark: curses adds it to the cell before; never laid out */
            continue;
        if (x < 0 || x + w > cols) {
            x += w;
            continue;
        }
        blank(row, cols, x, r->role);
        if (w == 2)
            blank(row, cols, x + 1, r->role);
        Cell c = {.w = (signed char)w, .role = r->role, .bold = r->bold, .under = r->under};
        if (cp != ' ')
            c.n = (unsigned char)text_utf8_put(cp, c.s);
        row[x] = c;
        if (w == 2)
            row[x + 1] = (Cell){.w = 0, .role = r->role, .bold = r->bold, .under = r->under};
        x += w;
    }
}

/* ---- colours -------------------------------------------------------------------- */

/* The eight colours as xterm shows them, their bold (bright) forms, and the
 * terminal's own foreground and background per theme: the colours of
 * screenshots/ (tests/e2e/screenshots.sh), so a slide looks like the
 * terminal beside it. The light and mono pictures are black on white. */
static const uint32_t ansi[8] = {0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x2f6fff, 0xcd00cd, 0x00cdcd, 0xe5e5e5};
static const uint32_t ansi_bg[8] = {0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5};
static const uint32_t bright[8] = {0x000000, 0xff3030, 0x30ff30, 0xffff40, 0x6c8cff, 0xff40ff, 0x40ffff, 0xffffff};
static const uint32_t light_fg[8] = {0x000000, 0xcd0000, 0x008700, 0x8f7a00, 0x0000ee, 0xaf00af, 0x007f86, 0xe5e5e5};

/* An xterm 256-colour number as RGB. */
static uint32_t xterm256(int n)
{
    static const int level[6] = {0, 95, 135, 175, 215, 255};
    if (n < 8)
        return ansi_bg[n];
    if (n < 16)
        return bright[n - 8];
    if (n < 232) {
        n -= 16;
        return (uint32_t)(level[n / 36] << 16 | level[n / 6 % 6] << 8 | level[n % 6]);
    }
    int g = 8 + 10 * (n - 232);
    return (uint32_t)(g << 16 | g << 8 | g);
}

typedef struct {
    uint32_t fg, bg;
    bool bold, dim, under;
} Ink;

static uint32_t default_fg(int theme)
{
    return theme == THEME_LIGHT || theme == THEME_MONO ? 0x000000 : 0xd0d0d0;
}

static uint32_t default_bg(int theme)
{
    return theme == THEME_LIGHT || theme == THEME_MONO ? 0xffffff : 0x000000;
}

/* A role's look in a theme, as the terminal shows it (256 colours). */
static Ink ink_of(Role r, bool bold, int theme)
{
    PalLook k = theme == THEME_LIGHT ? palette[r].light : theme == THEME_PROJECTOR ? palette[r].proj : palette[r].dark;
    int heat = -1; /* a heat role's background, an xterm 256-colour number */
    if (theme == THEME_MONO) {
        k = (PalLook){PAL_DEFAULT, PAL_DEFAULT, palette[r].mono};
    } else if (r >= ROLE_HEAT1 && r <= ROLE_HEAT4) {
        int h = r - ROLE_HEAT1;
        heat = (theme == THEME_PROJECTOR ? palette_heat256_proj : palette_heat256)[h];
        k.fg = h == 3 ? PAL_BLACK : PAL_WHITE; /* dark text on orange, as theme.c */
    }
    Ink ink = {.bold = bold || (k.attr & PAL_BOLD), .dim = k.attr & PAL_DIM, .under = k.attr & PAL_UNDERLINE};
    bool brighten = ink.bold && theme != THEME_LIGHT;
    ink.fg = k.fg == PAL_DEFAULT    ? default_fg(theme)
           : brighten               ? bright[k.fg]
           : theme == THEME_LIGHT   ? light_fg[k.fg]
                                    : ansi[k.fg];
    ink.bg = heat >= 0 ? xterm256(heat) : k.bg == PAL_DEFAULT ? default_bg(theme) : ansi_bg[k.bg];
    if (k.attr & PAL_REVERSE) {
        uint32_t t = ink.fg;
        ink.fg = ink.bg;
        ink.bg = t;
    }
    return ink;
}

/* ---- writing ---------------------------------------------------------------------- */

/* XML-escaped text (& < > " '), control characters replaced by U+FFFD. */
static void put_xml(FILE *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t k = 0; k < n;) {
        uint32_t cp;
        int len = svg_decode(p + k, n - k, &cp);
        if (!xml_char_ok(cp))
            fputs("\xEF\xBF\xBD", out);
        else if (cp == '&')
            fputs("&amp;", out);
        else if (cp == '<')
            fputs("&lt;", out);
        else if (cp == '>')
            fputs("&gt;", out);
        else if (cp == '"')
            fputs("&quot;", out);
        else if (cp == '\'')
            fputs("&apos;", out);
        else if (cp == 0xFFFD && len == 1)
            fputs("\xEF\xBF\xBD", out);
        else
            fwrite(p + k, 1, (size_t)len, out);
        k += (size_t)len;
    }
}

static bool same_ink(const Ink *a, const Ink *b)
{
    return a->fg == b->fg && a->bold == b->bold && a->dim == b->dim;
}

/* Which face a cell's character is set in. ASCII and wide characters: Noto
 * Sans Mono CJK SC, whose Latin letters are exactly half its CJK width (the
 * fonts of screenshots/, tests/e2e/screenshots.sh). Narrow characters
 * beyond ASCII (▸ ▲ − · ᵀ ₁ …), which CJK fonts draw a full em wide:
 * DejaVu Sans Mono, where they are narrow, a little smaller so that they
 * fit the column (FACE_NARROW); block elements (█ ▎ ░ ▒ ▓) keep the full
 * size, so that they fill the row's height (FACE_BLOCK). */
enum { FACE_MAIN, FACE_NARROW, FACE_BLOCK };

static int face(const Cell *c)
{
    if (c->n <= 1 || c->w != 1)
        return FACE_MAIN;
    uint32_t cp = text_cp_of(c->s, (size_t)c->n); /* U+2580..U+259F: block elements */
    return cp >= 0x2580 && cp <= 0x259F ? FACE_BLOCK : FACE_NARROW;
}

/* A block element (U+2580 to U+2595: ▀ ▁…▇ █ ▉…▏ ▐ ░ ▒ ▓ ▔ ▕) as the
 * rectangle it fills in its cell, in eighths of the cell's width (x0..x1)
 * and height (y0..y1), with its opacity (the shades ░ ▒ ▓: a quarter, a
 * half, three quarters). A font draws these wider than a 10-pixel column
 * (over the number beside them); a rectangle stays in its cell. False
 * for any other character. */
static bool block_shape(const Cell *c, int *x0, int *x1, int *y0, int *y1, int *op)
{
    uint32_t cp = c->w == 1 ? text_cp_of(c->s, (size_t)c->n) : TEXT_BAD_CP;
    if (cp < 0x2580 || cp > 0x2595)
        return false;
    int k = (int)(cp - 0x2580); /* U+2580 + k */
    *x0 = 0, *x1 = 8, *y0 = 0, *y1 = 8, *op = 100;
    if (k == 0)
        *y1 = 4;                      /* ▀ upper half */
    else if (k <= 8)
        *y0 = 8 - k;                  /* ▁ … █: the lower k eighths */
    else if (k <= 0xF)
        *x1 = 8 - (k - 8);            /* ▉ … ▏: the left 7 … 1 eighths */
    else if (k == 0x10)
        *x0 = 4;                      /* ▐ right half */
    else if (k <= 0x13)
        *op = 25 * (k - 0x10);        /* ░ ▒ ▓ */
    else if (k == 0x14)
        *y1 = 1;                      /* ▔ upper eighth */
    else
        *x0 = 7;                      /* ▕ right eighth */
    return true;
}

/* Row y's block elements as rectangles in their ink's colour. One that
 * reaches its cell's right edge and stands before a character that is not
 * a block (a shade before its number, the last eighth before a number)
 * keeps two pixels clear of it. Each carries its character (data-ch) for
 * readers of the picture's text (tests/svg_grid.py). */
static void put_row_blocks(FILE *out, const Cell *row, const Ink *inks, int cols, int y)
{
    for (int x = 0; x < cols; x++) {
        int x0, x1, y0, y1, op, a, b;
        if (!block_shape(&row[x], &x0, &x1, &y0, &y1, &op))
            continue;
        int left = x * SVG_CELL_W + x0 * SVG_CELL_W / 8, right = x * SVG_CELL_W + x1 * SVG_CELL_W / 8;
        if (x1 == 8 && x + 1 < cols && row[x + 1].n && !block_shape(&row[x + 1], &a, &a, &a, &b, &b))
            right -= 2;
        fprintf(out, "<rect data-ch=\"%.*s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%06x\"", row[x].n,
                row[x].s, left, y * SVG_CELL_H + y0 * SVG_CELL_H / 8, right - left, (y1 - y0) * SVG_CELL_H / 8,
                (unsigned)inks[x].fg);
        if (op < 100 || inks[x].dim) {
            char opacity[32];
            num_format(opacity, sizeof opacity, op / 100.0 * (inks[x].dim ? 0.6 : 1), 2);
            fprintf(out, " fill-opacity=\"%s\"", opacity);
        }
        fputs("/>\n", out);
    }
}

static const char *face_attr[] = {
    [FACE_MAIN] = "",
    [FACE_NARROW] = " font-family=\"'DejaVu Sans Mono', monospace\" font-size=\"" SVG_NARROW_PX "\"",
    [FACE_BLOCK] = " font-family=\"'DejaVu Sans Mono', monospace\"",
};

/* Row y's text: one <text> per stretch of cells in one ink, from its first
 * visible character to its last, single blanks between them kept as spaces
 * (two blanks start a new <text>, so that a renderer that collapses
 * spaces despite xml:space still places every character right). Each
 * character is placed at its own column, so nothing drifts whatever the
 * font's widths. A character outside the Basic Multilingual Plane gets a
 * <text> of its own, since SVG counts x positions in UTF-16 units. */
static void put_row_text(FILE *out, const Cell *row, const Ink *inks, int cols, int y)
{
    int baseline = y * SVG_CELL_H + (SVG_CELL_H * 3) / 4;
    for (int x = 0; x < cols;) {
        if (row[x].n == 0) {
            x++;
            continue;
        }
        int end = x + 1;
        for (int k = x + 1; k < cols && row[x].n != 4; k++) {
            if (row[k].n == 0) {
                if (row[k].w && k + 1 < cols && row[k + 1].n == 0 && row[k + 1].w)
                    break; /* two blanks: a new <text>, see above */
                continue;
            }
            if (!same_ink(&inks[k], &inks[x]) || row[k].n == 4 || face(&row[k]) != face(&row[x]))
                break;
            end = k + 1;
        }
        const Ink *ink = &inks[x];
        fprintf(out, "<text xml:space=\"preserve\" y=\"%d\" fill=\"#%06x\"%s%s%s x=\"", baseline, (unsigned)ink->fg,
                ink->bold ? " font-weight=\"bold\"" : "", ink->dim ? " fill-opacity=\"0.6\"" : "",
                face_attr[face(&row[x])]);
        for (int k = x; k < end; k++)
            if (row[k].w)
                fprintf(out, k > x ? " %d" : "%d", k * SVG_CELL_W);
        fputs("\">", out);
        for (int k = x; k < end; k++)
            if (row[k].n)
                put_xml(out, row[k].s, row[k].n);
            else if (row[k].w)
                fputc(' ', out);
        fputs("</text>\n", out);
        x = end;
    }
}

/* Row y's backgrounds and underlines, one rectangle per stretch. */
static void put_row_rects(FILE *out, const Ink *inks, int cols, int y, Ink base)
{
    for (int x = 0; x < cols;) {
        int end = x + 1;
        while (end < cols && inks[end].bg == inks[x].bg)
            end++;
        if (inks[x].bg != base.bg)
            fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%06x\"/>\n", x * SVG_CELL_W,
                    y * SVG_CELL_H, (end - x) * SVG_CELL_W, SVG_CELL_H, (unsigned)inks[x].bg);
        x = end;
    }
    for (int x = 0; x < cols;) {
        int end = x + 1;
        while (end < cols && inks[end].under == inks[x].under && inks[end].fg == inks[x].fg)
            end++;
        if (inks[x].under)
            fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"2\" fill=\"#%06x\"/>\n", x * SVG_CELL_W,
                    y * SVG_CELL_H + SVG_CELL_H - 3, (end - x) * SVG_CELL_W, (unsigned)inks[x].fg);
        x = end;
    }
}

bool svg_paint(FILE *out, const Plan *p, int cols, int rows, int theme, const char *title)
{
    Cell *grid = calloc((size_t)cols * (size_t)rows, sizeof *grid);
    Ink *inks = malloc((size_t)cols * sizeof *inks);
    Cell *text_row = malloc((size_t)cols * sizeof *text_row);
    if (!grid || !inks || !text_row) {
        free(grid);
        free(inks);
        free(text_row);
        return false;
    }
    for (int k = 0; k < cols * rows; k++)
        grid[k] = (Cell){.w = 1, .role = ROLE_NORMAL};
    for (int k = 0; k < p->nrun; k++)
        paint_run(grid, cols, rows, &p->run[k], plan_text(p, p->run[k].off));

    int W = cols * SVG_CELL_W, H = rows * SVG_CELL_H;
    Ink base = ink_of(ROLE_NORMAL, false, theme);
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"\n"
                 "     font-family=\"'Noto Sans Mono CJK SC', 'DejaVu Sans Mono', monospace\" font-size=\"%d\">\n"
                 "<title>",
            W, H, W, H, SVG_FONT_PX);
    put_xml(out, title, strlen(title));
    fprintf(out, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#%06x\"/>\n", W, H, (unsigned)base.bg);
    for (int y = 0; y < rows; y++) {
        const Cell *row = grid + (size_t)y * (size_t)cols;
        for (int x = 0; x < cols; x++)
            inks[x] = ink_of(row[x].role, row[x].bold, theme), inks[x].under |= row[x].under;
        /* A change mark (▲ ▼) stands inside its cell: the number's
         * background after it, not the screen's between coloured cells. */
        for (int x = cols - 2; x >= 0; x--)
            if ((row[x].role == ROLE_UP || row[x].role == ROLE_DOWN) && row[x + 1].role != ROLE_UP &&
                row[x + 1].role != ROLE_DOWN && inks[x + 1].bg != base.bg && inks[x + 1].fg != inks[x].fg)
                inks[x].bg = inks[x + 1].bg;
        put_row_rects(out, inks, cols, y, base);
        put_row_blocks(out, row, inks, cols, y);
        for (int x = 0; x < cols; x++) { /* the text without the blocks, drawn above */
            int a, b;
            text_row[x] = row[x];
            if (block_shape(&row[x], &a, &a, &a, &b, &b))
                text_row[x] = (Cell){.w = 1, .role = row[x].role};
        }
        put_row_text(out, text_row, inks, cols, y);
    }
    fputs("</svg>\n", out);
    free(grid);
    free(inks);
    free(text_row);
    return true;
}

/* ---- the step's screen ------------------------------------------------------------------ */

int svg_theme(const SvgOpt *o)
{
    int theme = o->theme ? theme_lookup(o->theme) : -1;
    if (theme < 0)
        theme = getenv("NO_COLOR") && *getenv("NO_COLOR") ? THEME_MONO : THEME_DARK;
    return theme;
}

void svg_focus_step(Session *s, SvgFocus *f)
{
    layout_focus_step(s, &f->fi, &f->fj, &f->frow, &f->fmat);
    layout_clamp_focus(s, &f->fi, &f->fj, f->fmat);
}

bool svg_frame(FILE *out, const Session *s, const SvgOpt *o, const SvgFocus *f, const char *msg, SvgLook look,
               const char *name)
{
    int theme = svg_theme(o);
    char bar[1024];
    bool chrome = look != SVG_SLIDE;
    if (chrome)
        view_keybar(o->ascii, session_ask_open(s) >= 0, o->cols, bar, sizeof bar);
    LayoutIn in = {
        .s = s, .lang = o->lang, .ascii = o->ascii, .mono = theme == THEME_MONO, .present = o->present,
        .mode = LAYOUT_NORMAL, .fi = f->fi, .fj = f->fj, .frow = f->frow, .fmat = f->fmat, .msg = msg ? msg : "",
        .msg_role = ROLE_HINT, .keybar = chrome ? bar : NULL, .field = false, .cols = o->cols, .rows = o->rows,
        .slide = !chrome, .picture = look != SVG_CHROME, .title_card = o->card, .mview = o->model,
    };
    Plan p;
    plan_init(&p);
    layout_plan(&in, &p);
    bool ok = !p.oom && svg_paint(out, &p, o->cols, o->rows, theme, name);
    plan_free(&p);
    return ok;
}

int svg_step(FILE *out, const Lesson *l, const SvgOpt *o)
{
    /* Step from the first step with "next", as a class goes through it. */
    Lesson from_first = *l;
    from_first.start = 0;
    int at = o->at > 0 ? o->at : l->start > 0 ? l->start : 1;
    Session s;
    if (!session_init(&s, &from_first)) {
        fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
        return 2;
    }
    SvgFocus f = {0, 0, false, M_Q};
    svg_focus_step(&s, &f);
    while (s.step < at - 1 && (session_ask_reveal(&s), session_next(&s))) /* next reveals a question first */
        svg_focus_step(&s, &f);
    char title[512], name[600];
    text_sanitize(text_get(&l->title, o->lang), title, sizeof title, o->ascii);
    snprintf(name, sizeof name, "qkvtutor: %s (%d/%d)", title, at, l->nsteps);
    bool ok = svg_frame(out, &s, o, &f, "", SVG_SCREEN, name);
    session_free(&s);
    if (!ok) {
        fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
        return 2;
    }
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, _("qkvtutor: cannot write the SVG: %s\n"), strerror(errno));
        return 2;
    }
    return 0;
}
