/* mdtable.h - Markdown pieces the worksheet (and its key) is written with:
 * lesson text escaped for Markdown, tables, matrices as tables. Writes to a
 * FILE; no curses, no state. */
#ifndef QKV_MDTABLE_H
#define QKV_MDTABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "lesson/lesson.h"
#include "words/fmt.h"

/* A Markdown table: row 0 is the header; columns padded to their widest cell
 * so the source reads as a table too. Cells hold escaped text. */
typedef struct {
    int rows, cols;
    char **cell;
    bool *right;        /* numbers: right-aligned */
    bool oom;
} Table;

bool put_md(FILE *out, const char *s, bool ascii);
bool put_blank(FILE *out, const Lesson *l, const Attn *a, const Ask *q, bool ascii);
void tab_set(Table *t, int r, int c, const char *s, bool lesson_text, bool ascii);
void tab_free(Table *t);
bool put_matrix(FILE *out, const Lesson *l, const Attn *a, MatId id, const bool *only, const FmtOpt *fo);
bool tab_new(Table *t, int rows, int cols);
void tab_print(FILE *out, const Table *t);

#endif
