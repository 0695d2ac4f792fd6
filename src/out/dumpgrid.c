/* dumpgrid.c - --dump's text pieces and matrix grid (dumpgrid.h). */
#include "dumpgrid.h"

#include <stdlib.h>
#include <string.h>

#include "text/text.h"

void dump_text(FILE *out, const char *s, bool ascii)
{
    size_t n = strlen(s) * 3 + 4;
    char *buf = malloc(n);
    if (!buf)
        return;
    text_sanitize(s, buf, n, ascii);
    fputs(buf, out);
    free(buf);
}

void dump_wrapped(FILE *out, const char *s, bool ascii, int width)
{
    char *buf = fmt_prose(s, ascii);
    for (const char *p = buf; p && *p;) {
        size_t n = fmt_wrap(p, width, false);
        fprintf(out, "  %.*s\n", (int)n, p);
        for (p += n; *p == ' '; p++) {}
    }
    free(buf);
}

void dump_label(FILE *out, const char *label)
{
    size_t n = strlen(label);
    bool wide = n >= 3 && strcmp(label + n - 3, "\xef\xbc\x9a") == 0; /* U+FF1A */
    fprintf(out, "  %s%s", label, wide ? "" : " ");
}

static void pad(FILE *out, int n)
{
    for (int k = 0; k < n; k++)
        fputc(' ', out);
}

/* The widest cell's and the widest row label's columns (labels at least 3). */
static void widths(const DumpGrid *g, const FmtOpt *fo, int *w, int *lw)
{
    char v[64], safe[160];
    const Mat *m = g->m;
    *w = 0;
    *lw = 0;
    for (int i = 0; i < m->rows * m->cols; i++) {
        int n = text_width(fmt_num(m->v[i], fo, v, sizeof v));
        *w = n > *w ? n : *w;
    }
    for (int i = 0; i < m->rows && g->row_tok; i++) {
        text_sanitize(g->row_tok[i], safe, sizeof safe, fo->ascii);
        int n = text_width(safe);
        *lw = n > *lw ? n : *lw;
    }
    if (*lw < 3)
        *lw = 3;
}

void dump_grid(FILE *out, const DumpGrid *g, const FmtOpt *fo)
{
    const Mat *m = g->m;
    char v[64], safe[160], note[128];
    int w, lw;
    widths(g, fo, &w, &lw);
    fprintf(out, "\n  %s  %d%s%d  %s\n", g->name, m->rows, fo->ascii ? "x" : "×", m->cols, g->role);
    pad(out, 4 + lw);
    for (int j = 0; j < m->cols; j++) {
        if (g->col_tok && j < g->ncol_tok) {
            text_sanitize(g->col_tok[j], safe, sizeof safe, fo->ascii);
            pad(out, w + 2 - text_width(safe));
            fputs(safe, out);
        } else {
            fprintf(out, "%*d", w + 2, j + 1);
        }
    }
    fputc('\n', out);
    for (int i = 0; i < m->rows; i++) {
        if (g->row_tok) {
            text_sanitize(g->row_tok[i], safe, sizeof safe, fo->ascii);
            fprintf(out, "    %s", safe);
            pad(out, lw - text_width(safe));
        } else {
            fprintf(out, "    %*d", lw, i + 1);
        }
        for (int j = 0; j < m->cols; j++) {
            if (g->masked && attn_masked(g->masked, i, j))
                snprintf(v, sizeof v, "%s", fo->ascii ? "-inf" : "−∞"); /* masked: hidden */
            else
                fmt_num(MAT_AT(m, i, j), fo, v, sizeof v);
            pad(out, w + 2 - text_width(v));
            fputs(v, out);
        }
        fprintf(out, "%s\n", g->note ? g->note(g->ctx, i, note, sizeof note) : "");
    }
}
