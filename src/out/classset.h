/* classset.h - --class N --out DIR: a worksheet for every student, one key,
 * and the same as printable HTML and PDF.
 *
 * DIR/sheet-01.md ... sheet-NN.md are variants 1..N of the lesson (the
 * student's number on each), DIR/key.md holds a marking table (one row per
 * student, every answer) and then each variant's key with its arithmetic.
 * --format html adds DIR/sheets.html (every sheet, each starting a new
 * page) and DIR/key.html: self-contained (inline CSS, no script), printing
 * on A4 or Letter (--paper) with tables kept whole and wide ones split by
 * columns, the givens side by side, each question kept whole on one page
 * (a sheet fits one sheet of paper, two sides at most), Chinese in the system's CJK fonts (Noto Sans CJK SC first).
 * --format pdf prints those two with headless chromium into sheets.pdf and
 * key.pdf. The HTML is made from the Markdown by md_to_html(), which reads
 * the subset worksheets write (headings, paragraphs, bold, code spans,
 * lists, tables, fenced code, the page-break line). No curses. */
#ifndef QKV_CLASSSET_H
#define QKV_CLASSSET_H

#include <stdbool.h>
#include <stdio.h>
#include "lesson/lesson.h"

typedef enum { CLASS_MD, CLASS_HTML, CLASS_PDF } ClassFormat;

typedef struct {
    Lang lang;
    bool ascii;
    int students;           /* N */
    const char *dir;        /* --out */
    ClassFormat format;
    bool letter;            /* --paper letter (default A4) */
} ClassOpt;

/* Write the class set. The lesson must vary (lesson_reseed works on it).
 * Returns 0, or 2 with one line on stderr (a file that cannot be written,
 * chromium missing for pdf). */
int class_write(Lesson *l, const ClassOpt *o);

/* Markdown (as worksheets write it) to the body of an HTML page; `title`
 * receives the front matter's pagetitle (may be NULL). Tables wider than
 * `max_cols` value columns are split into several. */
void md_to_html(FILE *out, const char *md, char *title, size_t tlen, int max_cols);

/* The page's head: <!doctype>, lang, title, the print CSS. */
void html_head(FILE *out, const char *title, Lang lang, bool letter);

#endif
