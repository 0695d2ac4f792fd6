/* dumpgrid.h - the plain-text pieces --dump prints for a one-layer lesson
 * (render.c) and a model lesson (modeldump.c) alike: lesson text made safe,
 * narration wrapped, and one matrix with its name, shape, role and row and
 * column labels. Writes to a stdio stream; computes no number. */
#ifndef QKV_DUMPGRID_H
#define QKV_DUMPGRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "core/attn.h"
#include "words/fmt.h"

/* Lesson text, control characters shown as visible stand-ins. */
void dump_text(FILE *out, const char *s, bool ascii);
/* s sanitised and wrapped at `width` columns, each line indented by two. */
void dump_wrapped(FILE *out, const char *s, bool ascii, int width);

/* "  effect: " before a line: two blanks, the label, a space unless the
 * label ends in a full-width colon (Chinese "效果：" needs none). */
void dump_label(FILE *out, const char *label);

/* One matrix for the dump. Row and column labels are token names (as
 * written; sanitised here) or, when NULL, 1-based numbers. */
typedef struct {
    const char *name;               /* "S", "L2.A1" */
    const Mat *m;
    const char *role;               /* the words after the shape (translated) */
    const char *const *row_tok;     /* m->rows names, or NULL */
    const char *const *col_tok;     /* names for the first ncol_tok columns, or NULL */
    int ncol_tok;
    const Attn *masked;             /* cells attn_masked() in this state show −∞; NULL: none */
    /* a row's note after its numbers ("   (set by hand ...)"); NULL: none */
    const char *(*note)(const void *ctx, int i, char *buf, size_t len);
    const void *ctx;
} DumpGrid;

/* "\n  NAME  ROWS×COLS  ROLE", the column labels, then each row. */
void dump_grid(FILE *out, const DumpGrid *g, const FmtOpt *fo);

#endif
