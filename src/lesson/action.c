/* action.c - parse, apply and format the action language (see action.h). */
#include "action.h"
#include "i18n.h"
#include "ref.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cursor over the action text; errors record the column they happened at. */
typedef struct {
    const char *s, *p;
    char *err;
    size_t errlen;
    int *errcol;
} Lex;

/* Record an error. fmt is an untranslated message that may hold one %s,
 * filled with arg. */
static bool fail(Lex *lx, const char *at, const char *fmt, const char *arg)
{
    snprintf(lx->err, lx->errlen, _(fmt), arg);
    if (lx->errcol)
        *lx->errcol = (int)(at - lx->s) + 1;
    return false;
}

static void skip_ws(Lex *lx)
{
    while (*lx->p == ' ' || *lx->p == '\t')
        lx->p++;
}

static bool accept(Lex *lx, char c)
{
    skip_ws(lx);
    if (*lx->p != c)
        return false;
    lx->p++;
    return true;
}

/* Accept a word (letters, digits, '_') and return its length, 0 if none. */
static int word(Lex *lx, const char **start)
{
    skip_ws(lx);
    *start = lx->p;
    while (isalnum((unsigned char)*lx->p) || *lx->p == '_')
        lx->p++;
    return (int)(lx->p - *start);
}

/* Parse a finite decimal number. Accepts the Unicode minus sign U+2212,
 * which is what the screen shows, so a student can type what they read. */
static bool number(Lex *lx, double *out)
{
    char buf[64];
    size_t n = 0;
    skip_ws(lx);
    const char *at = lx->p;
    if (strncmp(lx->p, "\xe2\x88\x92", 3) == 0) {
        buf[n++] = '-';
        lx->p += 3;
    }
    while (n < sizeof buf - 1 && (isdigit((unsigned char)*lx->p) || strchr("+-.eE", *lx->p) != NULL) && *lx->p)
        buf[n++] = *lx->p++;
    buf[n] = '\0';
    char *end;
    double v = n ? strtod(buf, &end) : 0;
    if (n == 0 || *end != '\0' || !isdigit((unsigned char)buf[strspn(buf, "+-.")]))
        return fail(lx, at, N_("expected a number, like 0.5 or -2"), "");
    if (!isfinite(v))
        return fail(lx, at, N_("numbers must be finite"), "");
    *out = v;
    return true;
}

/* Parse a matrix reference "M[i]" or "M[i][j]" with ref.h; *j = -1 when
 * absent. *at is where the name starts. An unknown name is reported before
 * a problem in the indices, and every message points at its place. */
static bool ref(Lex *lx, MatId *m, int *i, int *j, const char **at)
{
    Ref r;
    RefStatus st = ref_scan(lx->p, &r);
    *at = r.name;
    if (ref_matrix(&r) == REF_UNKNOWN) {
        char name[40];
        snprintf(name, sizeof name, "%.*s", r.name_len > 30 ? 30 : r.name_len, r.name);
        return fail(lx, r.name, N_("unknown matrix \"%s\", expected X, Wq, Wk, Wv, Q, K, V, S, A or O"), name);
    }
    if (st == REF_NO_NUMBER)
        return fail(lx, r.err_at, N_("expected a row or column number from 1"), "");
    if (st == REF_NO_CLOSE)
        return fail(lx, r.err_at, N_("expected \"]\" after the number"), "");
    if (st == REF_ZERO)
        return fail(lx, r.err_at, N_("indices start at 1"), "");
    if (r.n == 0)
        return fail(lx, r.err_at, N_("expected \"[\" and a row or column number"), "");
    *m = r.mat;
    *i = ref_row(&r);
    *j = ref_col(&r);
    lx->p = r.end;
    return true;
}

static bool is_target(MatId m)
{
    return m <= M_V;
}

static bool end_(Lex *lx)
{
    skip_ws(lx);
    if (*lx->p != '\0')
        return fail(lx, lx->p, N_("unexpected text after the action"), "");
    return true;
}

/* "scale = none|sqrt_dk" and "softmax = naive|stable". */
static bool option(Lex *lx, Action *a, bool is_scale)
{
    if (!accept(lx, '='))
        return fail(lx, lx->p, is_scale ? N_("expected \"=\" then none or sqrt_dk")
                                         : N_("expected \"=\" then naive or stable"), "");
    const char *w;
    int n = word(lx, &w);
    const char *x = is_scale ? "none" : "naive", *y = is_scale ? "sqrt_dk" : "stable";
    a->kind = is_scale ? ACT_SCALE : ACT_SOFTMAX;
    if (n == (int)strlen(x) && strncmp(w, x, n) == 0)
        a->opt = 0;
    else if (n == (int)strlen(y) && strncmp(w, y, n) == 0)
        a->opt = 1;
    else
        return fail(lx, w, is_scale ? N_("expected none or sqrt_dk") : N_("expected naive or stable"), "");
    return end_(lx);
}

/* The right-hand side of a row target: "[a, b]" or "N[j]" or "N[j] * c". */
static bool row_rhs(Lex *lx, Action *a)
{
    skip_ws(lx);
    if (*lx->p == '[') {
        lx->p++;
        a->kind = ACT_ROW_SET;
        a->n = 0;
        do {
            if (a->n == MAT_MAX)
                return fail(lx, lx->p, N_("a row has at most 64 numbers"), "");
            if (!number(lx, &a->vals[a->n++]))
                return false;
        } while (accept(lx, ','));
        if (!accept(lx, ']'))
            return fail(lx, lx->p, N_("expected \",\" and a number, or \"]\" to close the row"), "");
        return end_(lx);
    }
    int j;
    const char *at;
    if (isdigit((unsigned char)*lx->p) || *lx->p == '-' || *lx->p == '.' || strncmp(lx->p, "\xe2\x88\x92", 3) == 0)
        return fail(lx, lx->p,
                    N_("a row takes a list [a, b, c] or another row like K[1]; for one cell write M[i][j] = c"), "");
    a->kind = ACT_ROW_COPY;
    a->c = 1;
    if (!ref(lx, &a->src, &a->src_i, &j, &at))
        return false;
    if (j >= 0)
        return fail(lx, at, N_("a row can only be copied from a row, like K[1], not a cell"), "");
    if (accept(lx, '*') && !number(lx, &a->c))
        return false;
    return end_(lx);
}

bool action_parse(const char *text, Action *out, char *err, size_t errlen, int *errcol)
{
    Lex lx = {text, text, err, errlen, errcol};
    memset(out, 0, sizeof *out);
    const char *w;
    int n = word(&lx, &w);
    if (n == 5 && strncmp(w, "reset", 5) == 0) {
        out->kind = ACT_RESET;
        return end_(&lx);
    }
    if (n == 5 && strncmp(w, "scale", 5) == 0)
        return option(&lx, out, true);
    if (n == 7 && strncmp(w, "softmax", 7) == 0)
        return option(&lx, out, false);
    if (n == 0 && *lx.p == '\0')
        return fail(&lx, lx.p, N_("empty action, expected e.g. Q[1] = K[1] * 5, scale = sqrt_dk or reset"), "");
    lx.p = text;
    const char *at;
    if (!ref(&lx, &out->mat, &out->i, &out->j, &at))
        return false;
    if (!is_target(out->mat))
        return fail(&lx, at, N_("%s is computed by the pipeline; change X, Wq, Wk, Wv, Q, K or V instead"),
                    attn_mat_name(out->mat));
    if (!accept(&lx, '='))
        return fail(&lx, lx.p, N_("expected \"=\" after the matrix reference"), "");
    if (out->j < 0)
        return row_rhs(&lx, out);
    out->kind = ACT_CELL_SET;
    if (!number(&lx, &out->c))
        return false;
    return end_(&lx);
}

/* Check that row i (and cell j, when >= 0) exist in matrix m. */
static bool check_index(const Attn *a, MatId m, int i, int j, char *err, size_t errlen)
{
    const Mat *x = &a->m[m];
    if (i >= x->rows) {
        snprintf(err, errlen, _("row %d is out of range: %s has rows 1 to %d"), i + 1, attn_mat_name(m), x->rows);
        return false;
    }
    if (j >= x->cols) {
        snprintf(err, errlen, _("column %d is out of range: %s has columns 1 to %d"), j + 1, attn_mat_name(m),
                 x->cols);
        return false;
    }
    return true;
}

/* Refuse a row holding inf or NaN (a product that overflowed, or a row of
 * Q/K/V that the pipeline computed as inf): a lesson cannot hold it, so the
 * state could not be saved and loaded back. */
static bool row_finite(const Attn *a, const Action *act, const double *vals, char *err, size_t errlen)
{
    for (int k = 0; k < a->m[act->mat].cols; k++)
        if (!isfinite(vals[k])) {
            snprintf(err, errlen, _("%s[%d][%d] would not be a finite number; use smaller numbers"),
                     attn_mat_name(act->mat), act->i + 1, k + 1);
            return false;
        }
    return true;
}

/* Write values into row i of a target; Q/K/V rows become overrides. */
static void put_row(Attn *a, MatId m, int i, const double *vals)
{
    Mat *x = &a->m[m];
    memcpy(&MAT_AT(x, i, 0), vals, sizeof(double) * (size_t)x->cols);
    if (m >= M_Q)
        a->override[m - M_Q][i] = true;
    a->reached = a->reached < STAGE_INPUT ? a->reached : STAGE_INPUT;
}

static bool apply_row(Attn *a, const Action *act, char *err, size_t errlen)
{
    const Mat *x = &a->m[act->mat];
    double row[MAT_MAX];
    if (act->kind == ACT_ROW_SET) {
        if (act->n != x->cols) {
            snprintf(err, errlen, _("a row of %s takes %d numbers; this one has %d"), attn_mat_name(act->mat),
                     x->cols, act->n);
            return false;
        }
        put_row(a, act->mat, act->i, act->vals);
        return true;
    }
    if (!check_index(a, act->src, act->src_i, -1, err, errlen))
        return false;
    const Mat *src = &a->m[act->src];
    if (src->cols != x->cols) {
        snprintf(err, errlen, _("%s rows have %d numbers but %s rows have %d; widths must match"),
                 attn_mat_name(act->mat), x->cols, attn_mat_name(act->src), src->cols);
        return false;
    }
    if (a->reached < attn_mat_stage(act->src))
        attn_run_to(a, attn_mat_stage(act->src));
    for (int k = 0; k < x->cols; k++)
        row[k] = MAT_AT(src, act->src_i, k) * act->c;
    if (!row_finite(a, act, row, err, errlen))
        return false;
    put_row(a, act->mat, act->i, row);
    return true;
}

bool action_apply(Attn *a, const Action *act, char *err, size_t errlen)
{
    switch (act->kind) {
    case ACT_SCALE: /* S, A and O are stale now */
        a->scale = (Scale)act->opt;
        a->reached = a->reached < STAGE_QKV ? a->reached : STAGE_QKV;
        return true;
    case ACT_SOFTMAX:
        a->softmax = (Softmax)act->opt;
        a->reached = a->reached < STAGE_SCORES ? a->reached : STAGE_SCORES;
        return true;
    case ACT_RESET:
        snprintf(err, errlen, _("reset is handled by the session"));
        return false;
    case ACT_ROW_COPY:
    case ACT_ROW_SET:
        return check_index(a, act->mat, act->i, -1, err, errlen) && apply_row(a, act, err, errlen);
    case ACT_CELL_SET:
        if (!check_index(a, act->mat, act->i, act->j, err, errlen))
            return false;
        if (act->mat >= M_Q && a->reached < STAGE_QKV)
            attn_run_to(a, STAGE_QKV);
        double row[MAT_MAX];
        memcpy(row, &MAT_AT(&a->m[act->mat], act->i, 0), sizeof(double) * (size_t)a->m[act->mat].cols);
        row[act->j] = act->c;
        if (!row_finite(a, act, row, err, errlen))
            return false;
        put_row(a, act->mat, act->i, row);
        return true;
    }
    return false;
}

void action_format(const Action *act, char *buf, size_t len)
{
    const char *name = attn_mat_name(act->mat);
    int o = 0;
    switch (act->kind) {
    case ACT_SCALE:
        snprintf(buf, len, "scale = %s", act->opt ? "sqrt_dk" : "none");
        return;
    case ACT_SOFTMAX:
        snprintf(buf, len, "softmax = %s", act->opt ? "stable" : "naive");
        return;
    case ACT_RESET:
        snprintf(buf, len, "reset");
        return;
    case ACT_CELL_SET:
        snprintf(buf, len, "%s[%d][%d] = %.17g", name, act->i + 1, act->j + 1, act->c);
        return;
    case ACT_ROW_COPY:
        if (act->c == 1)
            snprintf(buf, len, "%s[%d] = %s[%d]", name, act->i + 1, attn_mat_name(act->src), act->src_i + 1);
        else
            snprintf(buf, len, "%s[%d] = %s[%d] * %.17g", name, act->i + 1, attn_mat_name(act->src),
                     act->src_i + 1, act->c);
        return;
    case ACT_ROW_SET:
        o = snprintf(buf, len, "%s[%d] = [", name, act->i + 1);
        for (int k = 0; k < act->n && o > 0 && (size_t)o < len; k++)
            o += snprintf(buf + o, len - (size_t)o, "%s%.17g", k ? ", " : "", act->vals[k]);
        if (o > 0 && (size_t)o < len)
            snprintf(buf + o, len - (size_t)o, "]");
        return;
    }
}
