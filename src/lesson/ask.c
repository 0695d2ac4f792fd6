/* ask.c - exercises: parse, check and grade (see ask.h). */
#include "ask.h"
#include "ref.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"
#include "template.h"
#include "text/text.h"

/* text made safe for a message, in quotes, cut after 40 bytes */
static const char *quote_text(const char *s, char *buf, size_t len)
{
    return text_quote(s, "\"", "\"", buf, len);
}

bool ask_parse(const char *text, const Attn *shape, int stage, Ask *out, char *msg, size_t len)
{
    char qb[200], digits[32];
    memset(out, 0, sizeof *out);
    switch (template_ref_parse(text, &out->mat, &out->i, &out->j)) {
    case TREF_OK:
        break;
    case TREF_NAME:
        snprintf(msg, len, _("unknown matrix in %s, expected X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O"),
                 quote_text(text, qb, sizeof qb));
        return false;
    case TREF_ZERO:
        snprintf(msg, len, _("indices start at 1, found %s"), quote_text(text, qb, sizeof qb));
        return false;
    default:
        snprintf(msg, len, _("ask must be a row like \"A[1]\" or a cell like \"S[1][2]\", found %s"),
                 quote_text(text, qb, sizeof qb));
        return false;
    }
    if (ref_head(shape, &out->mat, msg, len) != REF_OK)
        return false;
    const char *name = attn_mat_name(out->mat);
    const Mat *x = &shape->m[out->mat];
    if (out->mat == M_X || attn_mat_is_param(out->mat)) {
        snprintf(msg, len, _("%s asks for %s, which the lesson gives; ask for a result: Q, K, V, QKt, S, A or O"),
                 quote_text(text, qb, sizeof qb), name);
        return false;
    }
    if (out->i >= x->rows) {
        snprintf(msg, len, x->rows == 1 ? _("row %s is out of range in %s, %s has 1 row")
                                        : _("row %s is out of range in %s, %s has %d rows"),
                 ref_index_written(text, 0, digits, sizeof digits), quote_text(text, qb, sizeof qb), name, x->rows);
        return false;
    }
    if (out->j >= x->cols) {
        snprintf(msg, len, x->cols == 1 ? _("column %s is out of range in %s, %s has 1 column")
                                        : _("column %s is out of range in %s, %s has %d columns"),
                 ref_index_written(text, 1, digits, sizeof digits), quote_text(text, qb, sizeof qb), name, x->cols);
        return false;
    }
    int need = attn_mat_stage(out->mat);
    if (need > stage) {
        snprintf(msg, len, _("%s is computed at stage %s, this step shows stage %s; ask it at a later step"),
                 name, attn_stage_key(need), attn_stage_key(stage));
        return false;
    }
    return true;
}

int ask_cells(const Ask *a, const Attn *state)
{
    return a->j >= 0 ? 1 : state->m[a->mat].cols;
}

bool ask_covers(const Ask *a, MatId m, int i, int j)
{
    return a->mref.kind == MM_NONE && a->mat == m && a->i == i && (a->j < 0 || a->j == j);
}

bool ask_parse_model(const char *text, const Model *shape, int layer, int stage, Ask *out, char *msg, size_t len)
{
    char qb[200], nm[48];
    memset(out, 0, sizeof *out);
    msg[0] = '\0';
    int st = tpl_model_ref_parse(text, shape, &out->mref, &out->i, &out->j, msg, len);
    if (st == TREF_ZERO)
        snprintf(msg, len, _("indices start at 1, found %s"), quote_text(text, qb, sizeof qb));
    else if (st == TREF_SYNTAX)
        snprintf(msg, len, _("ask must be a row like \"p[4]\" or a cell like \"L1.A[3][2]\", found %s"),
                 quote_text(text, qb, sizeof qb));
    if (st != TREF_OK)
        return false;
    model_ref_name(shape, out->mref, nm, sizeof nm);
    int need = model_ref_stage(shape, out->mref);
    if (model_ref_is_param(out->mref)) {
        snprintf(msg, len, _("%s asks for %s, which the lesson gives; ask for a result: a layer's Q, K, V, S, A, O, "
                             "Y, a, h_mid, f, h, or logits or p"), quote_text(text, qb, sizeof qb), nm);
        return false;
    }
    if (!tpl_model_computed(out->mref.layer, need, layer, stage)) {
        if (out->mref.layer == 0)
            snprintf(msg, len, _("%s is computed at stage next, this step shows layer %d, stage %s; ask it at a "
                                 "later step"), nm, layer, model_stage_key(stage));
        else
            snprintf(msg, len, _("%s is computed at layer %d, stage %s, this step shows layer %d, stage %s; ask it "
                                 "at a later step"), nm, out->mref.layer, model_stage_key(need), layer,
                     model_stage_key(stage));
        return false;
    }
    return true;
}

int ask_cells_model(const Ask *a, const Model *m)
{
    const Mat *x = model_mat(m, a->mref);
    return a->j >= 0 ? 1 : x ? x->cols : 0;
}

bool ask_covers_model(const Ask *a, ModelRef r, int i, int j)
{
    return a->mref.kind != MM_NONE && a->mref.kind == r.kind && a->mref.layer == r.layer &&
           (r.kind != MM_ATTN || a->mref.attn == r.attn) && a->i == i && (a->j < 0 || a->j == j);
}

double ask_tolerance(double value, int digits)
{
    double unit = pow(10.0, -digits), rel = 0.01 * fabs(value);
    return (rel > unit ? rel : unit) * (1 + 1e-9);
}

/* Read one number at *sp: [+-−]digits[.digits][e[+-]digits]. The point is
 * always '.', whatever the locale. */
static bool read_number(const char **sp, double *v)
{
    const char *s = *sp;
    char buf[80];
    size_t n = 0;
    if (strncmp(s, "\xe2\x88\x92", 3) == 0) { /* U+2212 */
        buf[n++] = '-';
        s += 3;
    } else if (*s == '-' || *s == '+') {
        buf[n++] = *s++;
    }
    /* -inf, −∞: the score of a masked cell (under mask: causal) */
    size_t inf = strncmp(s, "inf", 3) == 0 ? 3 : strncmp(s, "\xe2\x88\x9e", 3) == 0 ? 3 : 0;
    if (inf && n == 1 && buf[0] == '-') {
        *v = -INFINITY;
        *sp = s + inf;
        return true;
    }
    int digits = 0;
    while (n < 60 && (isdigit((unsigned char)*s) || *s == '.')) {
        digits += isdigit((unsigned char)*s) != 0;
        buf[n++] = *s++;
    }
    if (digits == 0)
        return false;
    if ((*s == 'e' || *s == 'E') && n < 70) {
        buf[n++] = *s++;
        if (*s == '-' || *s == '+')
            buf[n++] = *s++;
        while (n < 78 && isdigit((unsigned char)*s))
            buf[n++] = *s++;
    }
    buf[n] = '\0';
    char *end;
    *v = num_value(buf, &end);
    if (*end != '\0' || !isfinite(*v))
        return false;
    *sp = s;
    return true;
}

/* Skip separators: spaces, tabs, commas (ASCII, full-width "，", "、"), ';'. */
bool ask_answer_char(uint32_t cp)
{
    return num_char(cp) || (cp != 0 && strchr("inf \t,;", (int)cp) != NULL) || cp == 0x221E /* ∞ */ ||
           cp == 0xFF0C /* ， */ || cp == 0x3001 /* 、 */;
}

static const char *skip_sep(const char *s, int *commas)
{
    for (;;) {
        if (*s == ' ' || *s == '\t')
            s++;
        else if (*s == ',' || *s == ';')
            s++, ++*commas;
        else if (strncmp(s, "\xef\xbc\x8c", 3) == 0 || strncmp(s, "\xe3\x80\x81", 3) == 0)
            s += 3, ++*commas;
        else
            return s;
    }
}

Grade ask_grade(const Ask *a, const Attn *state, int digits, const char *answer, char *msg, size_t len)
{
    return ask_grade_off(a, state, digits, answer, NULL, msg, len);
}

/* Grade an answer against the want cells of row a->i of m from column
 * a->j (0 for a row). */
static Grade grade_mat(const Ask *a, const Mat *m, int want, int digits, const char *answer, bool *off, char *msg,
                       size_t len)
{
    int got = 0, commas = 0;
    double v[MAT_MAX];
    char qb[200], name[32];
    msg[0] = '\0';
    ask_name(a, name, sizeof name);
    const char *s = skip_sep(answer, &commas);
    while (*s) {
        const char *start = s;
        bool ok = got < MAT_MAX && read_number(&s, &v[got]);
        int dummy = 0;
        if (ok && *s && skip_sep(s, &dummy) == s) /* "1/3": a number must end at a separator */
            ok = false;
        if (!ok) {
            s = start;
            const char *end = s + strcspn(s, " \t,;");
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)(end - s) < 60 ? (int)(end - s) : 60, s);
            snprintf(msg, len, _("%s is not a number; type a number like 0.25 or -1.5"),
                     quote_text(got == MAT_MAX ? s : word, qb, sizeof qb));
            return GRADE_BAD;
        }
        got++;
        s = skip_sep(s, &commas);
    }
    if (got != want) {
        if (want == 1)
            snprintf(msg, len, _("%s is one number; type it, like 0.25"), name);
        else
            snprintf(msg, len, _("%s is a row of %d numbers; type them separated by commas or spaces, found %d"),
                     name, want, got);
        return GRADE_BAD;
    }
    int first = a->j >= 0 ? a->j : 0;
    Grade g = GRADE_RIGHT;
    for (int k = 0; k < want; k++) {
        double truth = MAT_AT(m, a->i, first + k);
        bool bad = isinf(truth) || isinf(v[k]) ? v[k] != truth /* a masked score is -inf, and only -inf matches it */
                                               : !(fabs(v[k] - truth) <= ask_tolerance(truth, digits));
        if (off)
            off[k] = bad;
        if (bad)
            g = GRADE_WRONG;
    }
    return g;
}

Grade ask_grade_off(const Ask *a, const Attn *state, int digits, const char *answer, bool *off, char *msg,
                    size_t len)
{
    return grade_mat(a, &state->m[a->mat], ask_cells(a, state), digits, answer, off, msg, len);
}

Grade ask_grade_model_off(const Ask *a, const Model *m, int digits, const char *answer, bool *off, char *msg,
                          size_t len)
{
    const Mat *x = model_mat(m, a->mref);
    if (!x) {
        snprintf(msg, len, "%s", _("out of memory"));
        return GRADE_BAD;
    }
    return grade_mat(a, x, ask_cells_model(a, m), digits, answer, off, msg, len);
}

void ask_name(const Ask *a, char *buf, size_t len)
{
    char nm[48];
    if (a->mref.kind != MM_NONE)
        model_ref_name(NULL, a->mref, nm, sizeof nm);
    else
        snprintf(nm, sizeof nm, "%s", attn_mat_name(a->mat));
    if (a->j >= 0)
        snprintf(buf, len, "%s[%d][%d]", nm, a->i + 1, a->j + 1);
    else
        snprintf(buf, len, "%s[%d]", nm, a->i + 1);
}

/* The cells asked of row a->i of x, as the screen writes them. */
static void values_of(const Ask *a, const Mat *x, int cells, const FmtOpt *fo, char *buf, size_t len)
{
    char v[64];
    size_t n = 0;
    int first = a->j >= 0 ? a->j : 0;
    if (len)
        buf[0] = '\0';
    for (int k = 0; x && k < cells && n < len; k++) {
        fmt_num(MAT_AT(x, a->i, first + k), fo, v, sizeof v);
        n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "", v);
    }
}

void ask_values(const Ask *a, const Attn *state, const FmtOpt *fo, char *buf, size_t len)
{
    values_of(a, &state->m[a->mat], ask_cells(a, state), fo, buf, len);
}

void ask_values_model(const Ask *a, const Model *m, const FmtOpt *fo, char *buf, size_t len)
{
    values_of(a, model_mat(m, a->mref), ask_cells_model(a, m), fo, buf, len);
}
