/* mdtable.c - Markdown for the worksheets: escaped text, tables padded so
 * the source reads as a table too, and a matrix (or a blank to fill in) as
 * a table (see mdtable.h). */
#include <stdlib.h>
#include <string.h>

#include "mdtable.h"
#include "text/i18n.h"
#include "text/text.h"

#define BLANK "______"

/* ---- Markdown text ------------------------------------------------------------ */

/* Lesson text made safe (text_sanitize: no control characters; line breaks
 * become spaces) and escaped for Markdown: the characters that CommonMark,
 * GitHub and pandoc read as markup (emphasis, code, HTML, table cells, math,
 * sub/superscripts) get a backslash. malloc'd; NULL when out of memory. */
static char *md_escape(const char *s, bool ascii)
{
    char *safe = fmt_prose(s ? s : "", ascii);
    if (!safe)
        return NULL;
    char *out = malloc(strlen(safe) * 2 + 1), *o = out;
    for (const char *p = safe; out && *p; p++) {
        if (strchr("\\`*_<>|$~^[]#", *p))
            *o++ = '\\';
        *o++ = *p;
    }
    if (out)
        *o = '\0';
    free(safe);
    return out;
}

bool put_md(FILE *out, const char *s, bool ascii)
{
    char *e = md_escape(s, ascii);
    if (e)
        fputs(e, out);
    free(e);
    return e != NULL;
}

/* ---- tables ------------------------------------------------------------------- */


bool tab_new(Table *t, int rows, int cols)
{
    t->rows = rows;
    t->cols = cols;
    t->oom = false;
    t->cell = calloc((size_t)rows * (size_t)cols, sizeof *t->cell);
    t->right = calloc((size_t)cols, sizeof *t->right);
    return t->cell && t->right;
}

void tab_free(Table *t)
{
    for (int k = 0; t->cell && k < t->rows * t->cols; k++)
        free(t->cell[k]);
    free(t->cell);
    free(t->right);
    memset(t, 0, sizeof *t);
}

/* Set a cell to lesson text (escaped) or to our own text (raw: numbers,
 * BLANK, names without markup characters). */
void tab_set(Table *t, int r, int c, const char *s, bool lesson_text, bool ascii)
{
    char *v = lesson_text ? md_escape(s, ascii) : strdup(s);
    if (!v)
        t->oom = true;
    free(t->cell[r * t->cols + c]);
    t->cell[r * t->cols + c] = v;
}

void tab_print(FILE *out, const Table *t)
{
    int w[MAT_MAX + 2] = {0};
    for (int c = 0; c < t->cols && c < MAT_MAX + 2; c++) {
        w[c] = 3;
        for (int r = 0; r < t->rows; r++) {
            const char *s = t->cell[r * t->cols + c];
            int n = s ? text_width(s) : 0;
            w[c] = n > w[c] ? n : w[c];
        }
    }
    for (int r = 0; r < t->rows; r++) {
        for (int c = 0; c < t->cols; c++) {
            const char *s = t->cell[r * t->cols + c];
            s = s ? s : "";
            int pad = w[c] - text_width(s);
            fprintf(out, "| %s%*s%s ", t->right[c] ? "" : s, pad, "", t->right[c] ? s : "");
        }
        fputs("|\n", out);
        if (r == 0) {
            for (int c = 0; c < t->cols; c++) {
                fputs("|", out);
                for (int k = 0; k < w[c] + (t->right[c] ? 1 : 2); k++)
                    fputc('-', out);
                fputs(t->right[c] ? ":" : "", out);
            }
            fputs("|\n", out);
        }
    }
    fputc('\n', out);
}

/* ---- matrices as tables ---------------------------------------------------------- */

/* Rows labelled by token for results with one row per token (appended
 * tokens included), else 1..n; columns by token for S, QKt and A, else 1..n. */
static bool rows_by_token(const Lesson *l, MatId id, const Attn *a)
{
    return a->m[id].rows == attn_tokens(a) && !attn_mat_is_param(id);
}

static bool cols_by_token(const Lesson *l, MatId id)
{
    MatId b = attn_mat_base(id);
    return b == M_S || b == M_QKT || b == M_A;
}

static void label_row(Table *t, int r, const Lesson *l, MatId id, const Attn *a, int i, bool ascii)
{
    char num[16];
    if (lesson_rows_are_source(a, id)) { /* cross-attention: Xs, K, V by the source's tokens */
        tab_set(t, r, 0, lesson_key_token(l, a, i), true, ascii);
    } else if (rows_by_token(l, id, a)) {
        tab_set(t, r, 0, lesson_token(l, a, i), true, ascii);
    } else {
        snprintf(num, sizeof num, "%d", i + 1);
        tab_set(t, r, 0, num, false, ascii);
    }
}

/* The header: the matrix's name, then the labels of columns first..first+n-1. */
static void label_cols(Table *t, const Lesson *l, const Attn *a, MatId id, int first, int n, bool ascii)
{
    char num[16];
    tab_set(t, 0, 0, attn_mat_name(id), false, ascii);
    for (int c = 0; c < n; c++) {
        t->right[c + 1] = true;
        if (cols_by_token(l, id) && first + c < attn_keys(a)) { /* the keys: the source's with cross */
            tab_set(t, 0, c + 1, lesson_key_token(l, a, first + c), true, ascii);
        } else {
            snprintf(num, sizeof num, "%d", first + c + 1);
            tab_set(t, 0, c + 1, num, false, ascii);
        }
    }
}

/* Print matrix id of state a; only the rows flagged in `only` when given. */
bool put_matrix(FILE *out, const Lesson *l, const Attn *a, MatId id, const bool *only, const FmtOpt *fo)
{
    const Mat *m = &a->m[id];
    int n = 0;
    for (int i = 0; i < m->rows; i++)
        n += !only || only[i];
    Table t;
    bool ok = tab_new(&t, n + 1, m->cols + 1);
    if (ok) {
        label_cols(&t, l, a, id, 0, m->cols, fo->ascii);
        for (int i = 0, r = 1; i < m->rows; i++) {
            if (only && !only[i])
                continue;
            label_row(&t, r, l, id, a, i, fo->ascii);
            for (int j = 0; j < m->cols; j++) {
                char v[64];
                tab_set(&t, r, j + 1, fmt_num(MAT_AT(m, i, j), fo, v, sizeof v), false, fo->ascii);
            }
            r++;
        }
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    return ok;
}

/* The room to write an answer: the asked row (or cell) with blank cells. */
bool put_blank(FILE *out, const Lesson *l, const Attn *a, const Ask *q, bool ascii)
{
    int first = q->j >= 0 ? q->j : 0, n = ask_cells(q, a);
    Table t;
    bool ok = tab_new(&t, 2, n + 1);
    if (ok) {
        label_cols(&t, l, a, q->mat, first, n, ascii);
        label_row(&t, 1, l, q->mat, a, q->i, ascii);
        for (int c = 0; c < n; c++)
            tab_set(&t, 1, c + 1, BLANK, false, ascii);
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    return ok;
}
