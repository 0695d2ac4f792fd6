/* svg.h - --svg: the screen of one step as a standalone SVG picture.
 *
 * The picture is painted from the same frame plan the terminal paints
 * (src/layout), run by run onto a grid of cells as curses would, then
 * written cell by cell: every character placed at its column (x = column x
 * cell width; a wide character takes two cells), backgrounds as rectangles,
 * the theme's colours from the palette the terminal uses (layout/palette.h).
 * The text is set in Noto Sans Mono CJK SC (its Latin letters are exactly
 * half its CJK width), the narrow symbols beyond ASCII in DejaVu Sans Mono.
 * No curses here. */
#ifndef QKV_SVG_H
#define QKV_SVG_H

#include <stdio.h>

#include "layout/layout.h"
#include "lesson/lesson.h"

/* A cell is SVG_CELL_W x SVG_CELL_H pixels; the text is SVG_FONT_PX high. */
#define SVG_CELL_W 10
#define SVG_CELL_H 24
#define SVG_FONT_PX 20
#define SVG_NARROW_PX "17"   /* DejaVu Sans Mono's advance, 0.6 em, fits 10 pixels */
/* --size's default and its largest; --slides' default, 1280 x 720 pixels (16:9) */
#define SVG_COLS 100
#define SVG_ROWS 30
#define SLIDES_COLS 128
#define SLIDES_ROWS 30
#define SVG_MAX_COLS 1000
#define SVG_MAX_ROWS 1000

typedef struct {
    Lang lang;
    bool ascii;           /* no UTF-8: ASCII stand-ins, as in the view */
    const char *theme;    /* NULL: dark, or mono under NO_COLOR (as the view) */
    bool present;         /* presentation mode */
    int at;               /* 1-based step; 0: the lesson's start step */
    int cols, rows;       /* the screen: at least LAYOUT_MIN_COLS x LAYOUT_MIN_ROWS */
    bool card;            /* --at 0: the title card before step 1 (title and about:) */
    bool model;           /* --model: a model lesson's model view (every layer x head) */
} SvgOpt;

/* Write the screen of step o->at as the view shows it when stepped to it
 * with "next" from the first step (normal mode, focus from the steps, no
 * message). Returns 0, or 2 when out of memory or when the picture cannot
 * be written (a one-line message on stderr). */
int svg_step(FILE *out, const Lesson *l, const SvgOpt *o);

/* Write one SVG per step into dir as a class sees the lesson, stepped
 * with "next" from the first step: slide-001.svg, slide-002.svg, ...; a
 * step that asks gives two slides, its question (the asked cells "?") and
 * then its reveal (the answer's values in the status line, the asked cell
 * focused so that the arithmetic works it out). Without chrome a slide has
 * no key bar, no "how to answer" and no student's tally. Then dir/index.html,
 * self-contained (no network, works from file://), showing one slide at a
 * time: next with →, ↓, PgDn, Space, Enter or a click; back with ←, ↑, PgUp
 * or Backspace; Home and End; "n / N" in a corner. o->at is not used.
 * Returns 0, or 2 with one line on stderr. (src/out/slides.c) */
int slides_write(const Lesson *l, const SvgOpt *o, const char *dir, bool chrome);

/* What the arithmetic explains: the focus the view keeps. */
typedef struct {
    int fi, fj;
    bool frow;
    MatId fmat;
} SvgFocus;

/* The theme o asks for: dark, or mono under NO_COLOR. */
int svg_theme(const SvgOpt *o);
/* After a step: the focus the step names (layout_focus_step, clamped). */
void svg_focus_step(Session *s, SvgFocus *f);
/* How much of the terminal a picture keeps: a slide (no key bar, no "how
 * to answer", no tally), the screen (--svg: the key bar and the question's
 * "how to answer", but no student's tally) or all of it (--slides --chrome). */
typedef enum { SVG_SLIDE, SVG_SCREEN, SVG_CHROME } SvgLook;
/* Lay out session s's frame (normal mode, message msg as a hint) and paint
 * it as `look` says. False when out of memory. */
bool svg_frame(FILE *out, const Session *s, const SvgOpt *o, const SvgFocus *f, const char *msg, SvgLook look,
               const char *name);

/* Paint a plan laid out at cols x rows in theme `theme` (a ThemeId) as
 * SVG; title names the picture. Returns false when out of memory. */
bool svg_paint(FILE *out, const Plan *p, int cols, int rows, int theme, const char *title);

#endif
