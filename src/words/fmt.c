/* fmt.c - writing out numbers and the explain terms (see fmt.h). */
#include "fmt.h"
#include "fmt_rope_online.h"
#include "text/shortest.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <ctype.h>
#include <locale.h>

#include "text/i18n.h"
#include "text/num.h"
#include "lesson/session.h"
#include "text/text.h"

#define addf(line, ...) text_append(line, FMT_LINE, __VA_ARGS__) /* a FMT_LINE line, never overflowed */

/* " (a)(b) + (c)(d) + ..." for the n products of e. */
static void put_products(char *line, const Explain *e, const FmtOpt *o)
{
    char x[48], y[48];
    for (int k = 0; k < e->n; k++)
        addf(line, "%s(%s)(%s)", k ? " + " : "", fmt_num(e->a[k], o, x, sizeof x),
            fmt_num(e->b[k], o, y, sizeof y));
}

/* The sum of e's products of the operands as shown. */
static double shown_sum(const Explain *e, const FmtOpt *o)
{
    double sum = 0;
    for (int k = 0; k < e->n; k++)
        sum += fmt_shown(e->a[k], o) * fmt_shown(e->b[k], o);
    return sum;
}

/* "[a, b, c]" of n values. */
static void put_vec(char *line, const double *v, int n, const FmtOpt *o)
{
    char x[48];
    addf(line, "[");
    for (int k = 0; k < n; k++)
        addf(line, "%s%s", k ? ", " : "", fmt_num(v[k], o, x, sizeof x));
    addf(line, "]");
}

static const char *lower_name(MatId m)
{
    static const char *names[M_HEAD0] = {"x", "Wq", "Wk", "Wv", "q", "k", "v", "score", "score", "α", "o",
                                         "p", "h", "Wo", "y"};
    m = m == M_Q0 ? M_Q : m == M_K0 ? M_K : attn_mat_base(m); /* RoPE's Q and K before the turn */
    return m < M_HEAD0 ? names[m] : "?";
}

/* "head 2: " before the arithmetic of a head's cell (lessons with 2+ heads). */
static void put_head(char *line, const Explain *e)
{
    if (e->head > 0)
        addf(line, _("head %d: "), e->head);
}

/* Who set the number explained, and at which step (see session.h). */
typedef struct {
    Override by;
    int step;            /* OV_SCRIPT: 0-based, -1 the file's overrides: */
    const char *act;     /* OV_SCRIPT: the action as written, NULL for overrides: */
} Who;

static Who who_none(void)
{
    Who w = {OV_NONE, -1, NULL};
    return w;
}

/* The note after an X or W cell: what it is, and who set it. */
static const char *input_note(MatId m, Who w, char *buf, size_t len)
{
    if (m == M_XS && w.by == OV_HAND)
        return _("(the source: set by hand; u undoes, r resets)");
    if (m == M_XS && w.by == OV_SCRIPT && w.step >= 0) {
        snprintf(buf, len, _("(the source: set by the lesson at step %d)"), w.step + 1);
        return buf;
    }
    if (m == M_XS)
        return _("(the source: written in the lesson, one row per source token)");
    if (m == M_X && w.by == OV_HAND)
        return _("(the input: set by hand; u undoes, r resets)");
    if (m != M_X && w.by == OV_HAND)
        return _("(a parameter: set by hand; in a model it is learned in training, fixed at inference)");
    if (w.by == OV_SCRIPT && w.step >= 0) {
        snprintf(buf, len, m == M_X ? _("(the input: set by the lesson at step %d)")
                                    : _("(a parameter: set by the lesson at step %d; learned in training, fixed at inference)"),
                 w.step + 1);
        return buf;
    }
    return m == M_X ? _("(the input: written in the lesson, one row per token)")
                    : _("(a parameter: learned in training, fixed at inference)");
}

static int ex_input(const Explain *e, const FmtOpt *o, Who w, char lines[][FMT_LINE])
{
    char s[32], v[48], note[256];
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    addf(lines[0], "%s%s = %s   ", e->mat == M_X ? "x" : e->mat == M_XS ? "xs" : attn_mat_name(e->mat), s,
        fmt_num(e->result, o, v, sizeof v));
    addf(lines[0], "%s", input_note(e->mat, w, note, sizeof note));
    return 1;
}

static int ex_proj(const Explain *e, const FmtOpt *o, Who who, char lines[][FMT_LINE])
{
    char s[32], i[16], j[16], v[48], act[512];
    MatId base = e->mat == M_Q0 ? M_Q : e->mat == M_K0 ? M_K : attn_mat_base(e->mat);
    const char *m = lower_name(e->mat), *w = attn_mat_name((MatId)(base - M_Q + M_WQ));
    const char *dot = o->ascii ? "*" : "·";
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    fmt_sub(e->i + 1, o, i, sizeof i);
    fmt_sub(e->j + 1, o, j, sizeof j);
    fmt_num(e->result, o, v, sizeof v);
    if (e->overridden && who.by == OV_SCRIPT && who.act) {
        text_sanitize(who.act, act, sizeof act, o->ascii); /* lesson text */
        addf(lines[0], _("%s%s = %s   (row %d of %s was set by the lesson at step %d: %s; no longer X%s%s)"), m, s,
            v, e->i + 1, attn_mat_name(e->mat), who.step + 1, act, dot, w);
        return 1;
    }
    if (e->overridden && who.by == OV_SCRIPT) {
        addf(lines[0], _("%s%s = %s   (row %d of %s was set by the lesson, no longer X%s%s)"), m, s, v, e->i + 1,
            attn_mat_name(e->mat), dot, w);
        return 1;
    }
    if (e->overridden) {
        addf(lines[0], _("%s%s = %s   (row %d of %s was set by hand, no longer X%s%s)"), m, s, v, e->i + 1,
            attn_mat_name(e->mat), dot, w);
        return 1;
    }
    put_head(lines[0], e);
    if (e->rope) /* the cell before the turn (Q0, K0), then the turn */
        fmt_num(e->unrotated, o, v, sizeof v);
    addf(lines[0], "%s%s%s = %s%s%s%s[:,%d] = ", m, e->rope ? o->ascii ? "0" : "⁰" : "", s, e->from_source ? "xs" : e->from_h ? "h" : "x", i,
        o->ascii ? "." : "·", w, e->wcol + 1);
    put_products(lines[0], e, o);
    addf(lines[0], "%s%s", fmt_eq(shown_sum(e, o), e->rope ? e->unrotated : e->result, o), v);
    if (e->rope) { /* the turn first (it gives the result), then the angle, then x before the turn */
        addf(lines[0], "   ");
        addf(lines[0], "%s", _("(before the turn)"));
        char pre[FMT_LINE];
        memcpy(pre, lines[0], sizeof pre);
        lines[0][0] = lines[1][0] = '\0';
        int k = fmt_rope(e, o, lines);
        memcpy(lines[k], pre, sizeof pre);
        char t[FMT_LINE];
        memcpy(t, lines[0], sizeof t); /* turn, angle, projection */
        memcpy(lines[0], lines[1], sizeof t);
        memcpy(lines[1], t, sizeof t);
        return k + 1;
    }
    return 1;
}

static int ex_score(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char s[32], i[16], j[16], v[48], w[48];
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    fmt_sub(e->i + 1, o, i, sizeof i);
    fmt_sub(e->j + 1, o, j, sizeof j);
    put_head(lines[0], e);
    if (e->masked) {
        addf(lines[0], "score%s = %s   ", s, o->ascii ? "-inf" : "−∞");
        if (e->j >= e->real_keys) /* pad: a padding key */
            addf(lines[0], _("(padding: key %d is a padding token, so it is hidden; q%s%sk%s is left out)"), e->j + 1,
                i, o->ascii ? "." : "·", j);
        else if (e->j < e->i) /* a sliding window hides the keys long before the query */
            addf(lines[0], _("(masked: key %d is outside query %d's window, so it is hidden; q%s%sk%s is left out)"),
                e->j + 1, e->i + 1, i, o->ascii ? "." : "·", j);
        else
            addf(lines[0], _("(masked: key %d comes after query %d, so it is hidden; q%s%sk%s is left out)"), e->j + 1,
                e->i + 1, i, o->ascii ? "." : "·", j);
        return 1;
    }
    addf(lines[0], "score%s = q%s%sk%s = ", s, i, o->ascii ? "." : "·", j);
    put_products(lines[0], e, o);
    addf(lines[0], "%s%s", fmt_eq(shown_sum(e, o), e->sum, o), fmt_num(e->sum, o, v, sizeof v));
    if (e->scaled)
        addf(lines[0], o->ascii ? " / sqrt(%d)%s%s" : " ÷ √%d%s%s", e->d_k,
            fmt_eq(fmt_shown(e->sum, o) / e->divisor, e->result, o), fmt_num(e->result, o, w, sizeof w));
    return 1;
}

/* "   (key 3 is masked ...)" or "   (keys 2 to 3 are masked ...)" after
 * the first vis of n entries of query row i1. */
static void put_masked(char *line, int vis, int n, int i1, int real)
{
    int after = n < real ? n : real; /* keys vis .. after-1 come after the query; real .. n-1 are padding */
    if (vis < after) {
        addf(line, "   ");
        if (vis + 1 == after)
            addf(line, _("(key %d comes after query %d: masked, left out, weight 0)"), after, i1);
        else
            addf(line, _("(keys %d to %d come after query %d: masked, left out, weight 0)"), vis + 1, after, i1);
    }
    if (real < n) {
        addf(line, "   ");
        if (real + 1 == n)
            addf(line, _("(key %d is padding: masked, left out, weight 0)"), n);
        else
            addf(line, _("(keys %d to %d are padding: masked, left out, weight 0)"), real + 1, n);
    }
}

/* "   (keys 1 to 2 are outside query 4's window: masked, weight 0)". */
static void put_window(char *line, int lo, int i1)
{
    if (lo <= 0)
        return;
    addf(line, "   ");
    if (lo == 1)
        addf(line, _("(key 1 is outside query %d's window: masked, left out, weight 0)"), i1);
    else
        addf(line, _("(keys 1 to %d are outside query %d's window: masked, left out, weight 0)"), lo, i1);
}

static int ex_softmax(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char i[16], v[48];
    double from[MAT_MAX], sum = 0;
    int n = 0;
    bool t = e->temp != 1.0;
    const char *z = t ? "z" : "s";
    fmt_sub(e->i + 1, o, i, sizeof i);
    put_head(lines[n], e);
    addf(lines[n], "s%s = ", i);
    int lo = e->lo, nv = e->vis - e->lo; /* the keys taking part: lo .. vis-1 (a window hides those below lo) */
    put_vec(lines[n], e->a + lo, nv, o);
    if (t) { /* each z from s as shown, divided by T (written exactly) */
        for (int k = lo; k < e->vis; k++)
            from[k] = fmt_shown(e->a[k], o) / e->temp;
        addf(lines[n], ";  z = s %s %s%s", o->ascii ? "/" : "÷", fmt_exact(e->temp, v, sizeof v),
            fmt_eq_vec(from + lo, e->z + lo, nv, o));
        put_vec(lines[n], e->z + lo, nv, o);
    }
    put_masked(lines[n], e->vis, e->n, e->i + 1, e->real_keys);
    put_window(lines[n++], e->lo, e->i + 1);
    if (e->online)
        return fmt_online_softmax(e, o, lines, n, FMT_MAX_LINES);
    if (e->stable) { /* the max is one of the z as shown; z − max from both as shown */
        double mx = fmt_shown(e->max, o);
        for (int k = lo; k < e->vis; k++)
            from[k] = fmt_shown(e->z[k], o) - mx;
        addf(lines[n], "max = %s;  %s %s max%s", fmt_num(e->max, o, v, sizeof v), z, o->ascii ? "-" : "−",
            fmt_eq_vec(from + lo, e->shifted + lo, nv, o));
        put_vec(lines[n++], e->shifted + lo, nv, o);
        addf(lines[n], "exp(%s %s max)", z, o->ascii ? "-" : "−");
    } else {
        addf(lines[n], "exp(%s)", z);
    }
    for (int k = lo; k < e->vis; k++) { /* exp of the exponent as shown; the sum of the exps as shown */
        from[k] = exp(fmt_shown(e->shifted[k], o));
        sum += fmt_shown(e->prod[k], o);
    }
    addf(lines[n], "%s", fmt_eq_vec(from + lo, e->prod + lo, nv, o));
    put_vec(lines[n], e->prod + lo, nv, o);
    addf(lines[n++], ";  %s%s%s", _("sum"), fmt_eq(sum, e->sum, o), fmt_num(e->sum, o, v, sizeof v));
    for (int k = 0; k < e->n; k++) /* each exp as shown over the sum as shown; masked weights are 0 */
        from[k] = k >= lo && k < e->vis ? fmt_shown(e->prod[k], o) / fmt_shown(e->sum, o) : 0;
    addf(lines[n], "%s%s = exp %s %s%s", lower_name(M_A), i, o->ascii ? "/" : "÷", _("sum"),
        fmt_eq_vec(from, e->weight, e->n, o));
    put_vec(lines[n++], e->weight, e->n, o);
    return n;
}

/* h_ij = x_ij + p_ij = x + p = h, then p_ij = sin(p / 10000^(2m/d)) = sin(angle) = p. */
static int ex_pos(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char s[32], x[48], p[48], h[48], t[48];
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    double a = fmt_shown(e->angle, o);
    addf(lines[0], "h%s = x%s + p%s = %s + %s%s%s", s, s, s, fmt_num(e->x, o, x, sizeof x),
        fmt_num(e->p, o, p, sizeof p), fmt_eq(fmt_shown(e->x, o) + fmt_shown(e->p, o), e->x + e->p, o),
        fmt_num(e->x + e->p, o, h, sizeof h));
    addf(lines[1], "p%s = %s(%d / 10000^(%d/%d)) = %s(%s)%s%s   ", s, e->cosine ? "cos" : "sin", e->pos,
        2 * e->pos_m, e->d_model, e->cosine ? "cos" : "sin", fmt_num(e->angle, o, t, sizeof t),
        fmt_eq(e->cosine ? cos(a) : sin(a), e->p, o), p);
    addf(lines[1], _("(p = token number %s 1 = %d)"), o->ascii ? "-" : "−", e->pos);
    return 2;
}

static int ex_output(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char i[16], k1[16], s[32], v[48];
    const char *dot = o->ascii ? "*" : "·";
    fmt_sub(e->i + 1, o, i, sizeof i);
    put_head(lines[0], e);
    if (e->online)
        return fmt_online_output(e, o, lines, 0, FMT_MAX_LINES);
    addf(lines[0], "o%s = ", i);
    for (int k = 0; k < e->n; k++)
        addf(lines[0], "%s%s%sv%s", k ? " + " : "", fmt_num(e->a[k], o, v, sizeof v), dot,
            fmt_sub(e->lo + k + 1, o, k1, sizeof k1));
    put_masked(lines[0], e->lo + e->n, e->n + e->nmasked, e->i + 1, e->real_keys);
    put_window(lines[0], e->lo, e->i + 1);
    fmt_sub2(e->i + 1, e->jh + 1, o, s, sizeof s);
    addf(lines[1], "o%s = ", s);
    put_products(lines[1], e, o);
    addf(lines[1], "%s%s", fmt_eq(shown_sum(e, o), e->result, o), fmt_num(e->result, o, v, sizeof v));
    return 2;
}

/* y_ij = o_i·Wo[:,j] = [head 1's products] + [head 2's] ... = y, then each
 * head's share: head 1 a + head 2 b = y. */
static int ex_project(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char s[32], i[16], v[48], x[48], y[48];
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    fmt_sub(e->i + 1, o, i, sizeof i);
    addf(lines[0], "y%s = o%s%sWo[:,%d] = ", s, i, o->ascii ? "." : "·", e->j + 1);
    int g = e->group > 0 ? e->group : e->n;
    for (int k = 0; k < e->n; k++) {
        bool grouped = e->heads > 1;
        addf(lines[0], "%s%s(%s)(%s)%s", k == 0 ? "" : k % g == 0 ? " + " : " + ", grouped && k % g == 0 ? "[" : "",
            fmt_num(e->a[k], o, x, sizeof x), fmt_num(e->b[k], o, y, sizeof y),
            grouped && (k + 1) % g == 0 ? "]" : "");
    }
    addf(lines[0], "%s%s", fmt_eq(shown_sum(e, o), e->result, o), fmt_num(e->result, o, v, sizeof v));
    if (e->heads < 2)
        return 1;
    double from = 0;
    addf(lines[1], "y%s = ", s);
    for (int h = 0; h < e->heads; h++) {
        addf(lines[1], "%s", h ? " + " : "");
        addf(lines[1], _("head %d %s"), h + 1, fmt_num(e->head_sum[h], o, x, sizeof x));
        from += fmt_shown(e->head_sum[h], o);
    }
    addf(lines[1], "%s%s", fmt_eq(from, e->result, o), fmt_num(e->result, o, v, sizeof v));
    return 2;
}

static int explain_kind(const Explain *e, const FmtOpt *o, Who w, char lines[][FMT_LINE])
{
    switch (e->kind) {
    case EX_INPUT:   return ex_input(e, o, w, lines);
    case EX_PROJ:    return ex_proj(e, o, w, lines);
    case EX_SCORE:   return ex_score(e, o, lines);
    case EX_SOFTMAX: return ex_softmax(e, o, lines);
    case EX_OUTPUT:  return ex_output(e, o, lines);
    case EX_POS:     return ex_pos(e, o, lines);
    case EX_PROJECT: return ex_project(e, o, lines);
    case EX_NONE:    break;
    }
    return 0;
}

/* The lines; the first that says " ≈ " also says why, once. */
static int explain_who(const Explain *e, const FmtOpt *o, Who w, char lines[][FMT_LINE], int max)
{
    if (max < 4)
        return 0;
    for (int k = 0; k < max; k++)
        lines[k][0] = '\0';
    int n = explain_kind(e, o, w, lines);
    bool noted = false;
    fmt_note_approx(lines, n, o->ascii, &noted);
    return n;
}

int fmt_explain(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int max)
{
    Who w = who_none();
    if (e->kind == EX_PROJ && e->overridden)
        w.by = OV_HAND; /* without a session: as before */
    return explain_who(e, o, w, lines, max);
}

/* Who set the number e explains, as the session knows it. */
static Who who_set(const Session *s, const Explain *e)
{
    Who w = who_none();
    if (e->kind == EX_INPUT) {
        w.by = session_cell_by(s, e->mat, e->i, e->j);
        if (w.by == OV_SCRIPT) /* the last script action on that cell's row */
            for (int k = 0; k <= s->step; k++)
                for (int n = 0; n < s->lesson->steps[k].nact; n++) {
                    const Action *a = &s->lesson->steps[k].act[n];
                    if ((a->kind == ACT_CELL_SET || a->kind == ACT_ROW_SET || a->kind == ACT_ROW_COPY) && a->mat == e->mat &&
                        a->i == e->i && (a->kind != ACT_CELL_SET || a->j == e->j))
                        w.step = k;
                }
    } else if (e->kind == EX_PROJ && e->overridden) {
        Origin o = session_row_origin(s, attn_mat_base(e->mat), e->i);
        w.by = o.by == OV_NONE ? OV_HAND : (Override)o.by;
        w.step = o.step;
        if (o.by == OV_SCRIPT && o.step >= 0)
            w.act = s->lesson->steps[o.step].act_text[o.act];
    }
    return w;
}

int fmt_explain_in(const Session *s, const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int max)
{
    return explain_who(e, o, who_set(s, e), lines, max);
}

void fmt_override_note(const Session *s, MatId m, int i, bool ascii, char *buf, size_t len)
{
    const char *pen = ascii ? "*" : "✎", *dot = ascii ? "*" : "·";
    Origin o = session_row_origin(s, m, i);
    m = attn_mat_base(m);
    unsigned ovh = m >= M_Q && m <= M_V && i >= 0 && i < MAT_MAX ? s->cur.ovh[m - M_Q][i] : 0;
    if (ovh && (ovh & (ovh - 1)) == 0) /* one head's part only: name it, "Q2 row 1" */
        for (int h = 1; h <= ATTN_HEADS_MAX; h++)
            if (ovh >> (h - 1) & 1u)
                m = attn_head_id(m, h);
    char act[512];
    buf[0] = '\0';
    if (o.by == OV_HAND)
        snprintf(buf, len, _("%s %s row %d set by hand, no longer X%sW (u undoes, r resets)"), pen,
                 attn_mat_name(m), i + 1, dot);
    else if (o.by == OV_SCRIPT && o.step >= 0) {
        text_sanitize(s->lesson->steps[o.step].act_text[o.act], act, sizeof act, ascii); /* lesson text */
        snprintf(buf, len, _("%s %s row %d set by the lesson at step %d (%s), no longer X%sW"), pen,
                 attn_mat_name(m), i + 1, o.step + 1, act, dot);
    } else if (o.by == OV_SCRIPT)
        snprintf(buf, len, _("%s %s row %d set by the lesson, no longer X%sW"), pen, attn_mat_name(m), i + 1, dot);
}

bool fmt_override_status(const Session *s, bool ascii, char *buf, size_t len)
{
    buf[0] = '\0';
    for (MatId m = M_Q; m <= M_V; m++)
        for (int i = 0; i < s->cur.m[m].rows; i++)
            if (session_overridden(s, m, i)) {
                fmt_override_note(s, m, i, ascii, buf, len);
                return true;
            }
    return false;
}

void fmt_toggle_name(const Action *act, int d_k, bool ascii, char *buf, size_t len)
{
    if (act->kind == ACT_SCALE && act->opt == SCALE_SQRT_DK)
        snprintf(buf, len, ascii ? _("scaling / sqrt(%d)") : _("scaling ÷√%d"), d_k);
    else if (act->kind == ACT_SCALE)
        snprintf(buf, len, "%s", _("no scaling"));
    else if (act->kind == ACT_SOFTMAX && act->opt == SOFTMAX_ONLINE)
        snprintf(buf, len, "%s", _("online softmax"));
    else if (act->kind == ACT_SOFTMAX)
        snprintf(buf, len, "%s", act->opt == SOFTMAX_STABLE ? _("stable softmax") : _("naive softmax"));
    else
        snprintf(buf, len, "%s", _("reset"));
}

void fmt_action_name(const Session *s, const Action *act, bool ascii, char *buf, size_t len)
{
    char x[40];
    const char *name = attn_mat_name(act->mat);
    buf[0] = '\0';
    if (s && session_is_model(s)) { /* a model lesson's actions, as written (maction.h) */
        if (act->kind == ACT_STEP && act->n == 1)
            snprintf(buf, len, "%s", _("one training step"));
        else if (act->kind == ACT_STEP)
            snprintf(buf, len, _("%d training steps"), act->n);
        else
            action_format(act, buf, len);
        return;
    }
    switch (act->kind) {
    case ACT_SCALE:
    case ACT_SOFTMAX:
    case ACT_RESET:
        fmt_toggle_name(act, attn_d_k(&s->cur), ascii, buf, len);
        return;
    case ACT_CELL_SET:
        snprintf(buf, len, "%s[%d][%d] = %s", name, act->i + 1, act->j + 1, fmt_exact(act->c, x, sizeof x));
        return;
    case ACT_ROW_COPY:
        snprintf(buf, len, "%s[%d] = %s[%d]", name, act->i + 1, attn_mat_name(act->src), act->src_i + 1);
        if (act->c != 1)
            text_append(buf, len, " * %s", fmt_exact(act->c, x, sizeof x));
        return;
    case ACT_ROW_SET:
        snprintf(buf, len, "%s[%d] = [", name, act->i + 1);
        for (int k = 0; k < act->n; k++)
            text_append(buf, len, "%s%s", k ? ", " : "", fmt_exact(act->vals[k], x, sizeof x));
        text_append(buf, len, "]");
        return;
    case ACT_STEP:
        if (act->n == 1)
            snprintf(buf, len, _("one gradient step, lr %s"), fmt_exact(s->cur.lr, x, sizeof x));
        else
            snprintf(buf, len, _("%d gradient steps, lr %s"), act->n, fmt_exact(s->cur.lr, x, sizeof x));
        return;
    case ACT_LR:
        snprintf(buf, len, _("learning rate %s"), fmt_exact(act->c, x, sizeof x));
        return;
    case ACT_TARGET: case ACT_APPEND: case ACT_OFFSET: case ACT_BLOCK: case ACT_ROPE_BASE:
    case ACT_MASK: case ACT_TEMP: case ACT_POS: case ACT_SWAP: /* as written (action.c) */
    case ACT_M_TOKENS: case ACT_M_GENERATE: case ACT_M_ABLATE: case ACT_M_RESTORE:
        action_format(act, buf, len);
        return;
    }
}

static bool word_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

/* The byte where the character before s[b] starts. */
static size_t char_before(const char *s, size_t b)
{
    return text_char_prev(s, b);
}

/* Would a line break at byte b split a word or a number? A number keeps
 * its sign (−0.517, -2) and its exponent (7.26e+28) with it. */
static bool glued(const char *s, size_t b)
{
    if (b == 0 || !s[b])
        return false;
    bool digit_next = isdigit((unsigned char)s[b]) || (s[b] == '.' && isdigit((unsigned char)s[b + 1]));
    if (word_char(s[b]) && word_char(s[b - 1]))
        return true;
    if (digit_next && (s[b - 1] == '-' || s[b - 1] == '+'))
        return true;
    if (digit_next && b >= 3 && strncmp(s + b - 3, "\xe2\x88\x92", 3) == 0) /* U+2212 */
        return true;
    uint32_t cp;
    text_utf8_next(s + b, strnlen(s + b, 4), &cp);
    if (cp >= 0x2080 && cp <= 0x208F)
        return true; /* a subscript stays with its name: "q₁" */
    if (strncmp(s + b, "ⱼ", 3) == 0 || strncmp(s + b, "ᵀ", 3) == 0)
        return true;
    if (s[b] == '(' && s[b - 1] != ' ') /* "exp(", "×(−0.139)" */
        return true;
    if ((s[b] == '>' && word_char(s[b - 1])) || (s[b - 1] == '<' && word_char(s[b]))) /* a token "<s>" */
        return true;
    if (strncmp(s + b, "×", 2) == 0 || strncmp(s + b, "·", 2) == 0 ||
        (b >= 2 && (strncmp(s + b - 2, "×", 2) == 0 || strncmp(s + b - 2, "·", 2) == 0))) /* a product */
        return true;
    if (s[b - 1] == '-' && isalpha((unsigned char)s[b])) /* a file name: "hidden-edited.yaml" */
        return true;
    if (s[b] == '-' && b >= 1 && word_char(s[b - 1]) && isalpha((unsigned char)s[b + 1]))
        return true;
    if (strchr(")]},;:%", s[b]) || strchr("([{", s[b - 1])) /* a number keeps its brackets and its unit */
        return true;
    if (s[b] == '(' && (s[b - 1] == '-' || s[b - 1] == '+' || (b >= 3 && strncmp(s + b - 3, "\xe2\x88\x92", 3) == 0)))
        return true;
    return (s[b] == '+' || s[b] == '-') && (s[b - 1] == 'e' || s[b - 1] == 'E') && b >= 2 &&
           isdigit((unsigned char)s[b - 2]);
}

/* Is the space at byte b inside a short bracket group, "(α₁₃ − t₃)", that a
 * line break must not split? Groups wider than 16 columns (a note) may
 * break. */
static bool in_group(const char *s, size_t b)
{
    size_t open = b;
    int depth = 0;
    for (size_t k = b; k-- > 0;) {
        if (s[k] == ')' || s[k] == ']')
            depth++;
        else if ((s[k] == '(' || s[k] == '[') && depth-- == 0) {
            open = k;
            break;
        }
    }
    if (open == b)
        return false;
    depth = 0;
    for (size_t k = b; s[k]; k++) {
        if (s[k] == '(' || s[k] == '[')
            depth++;
        else if ((s[k] == ')' || s[k] == ']') && depth-- == 0) {
            for (size_t w = open; w < k; w++) /* words, "(the diagonal)", may break */
                if (islower((unsigned char)s[w]) && islower((unsigned char)s[w + 1]))
                    return false;
            return text_width_n(s + open, k + 1 - open) <= 16;
        }
    }
    return false;
}

/* A space where a line may break: not inside a short bracket group. */
static bool break_space(const char *s, size_t b)
{
    return s[b] == ' ' && !in_group(s, b);
}

/* Does s start with punctuation no line may start with? */
static bool closing(const char *s)
{
    static const char *marks[] = {"，", "。", "；", "：", "、", "！", "？", "）", "」", "』", "”", "》"};
    for (size_t k = 0; k < sizeof marks / sizeof *marks; k++)
        if (strncmp(s, marks[k], strlen(marks[k])) == 0)
            return true;
    return false;
}

/* Does the character before byte b open a quote or a bracket no line may end with? */
static bool opening(const char *s, size_t b)
{
    static const char *marks[] = {"“", "（", "「", "『", "《"};
    for (size_t k = 0; k < sizeof marks / sizeof *marks; k++) {
        size_t n = strlen(marks[k]);
        if (b >= n && strncmp(s + b - n, marks[k], n) == 0)
            return true;
    }
    return false;
}

size_t fmt_wrap(const char *s, int cols, bool terms)
{
    size_t fit = text_fit(s, cols); /* no strlen: --dump wraps a long text line by line */
    if (!s[fit])
        return fit;
    /* Arithmetic breaks best between terms: before " = " or after " + ". */
    for (size_t b = fit; terms && b > fit / 2; b--)
        if (break_space(s, b) && (strncmp(s + b, " = ", 3) == 0 || strncmp(s + b, " ≈ ", 5) == 0 ||
                                  strncmp(s + b, " ~ ", 3) == 0 || (b >= 2 && strncmp(s + b - 2, " +", 2) == 0)))
            return b;
    /* Prose: at a space in the last 16 bytes, else anywhere there but
     * inside a Latin word or a number, its sign, its brackets or its unit
     * (Chinese has no spaces and may break between any two characters), and
     * no line starts with closing punctuation; else at a space further back
     * (a long file name goes to the next line whole). */
    for (size_t b = fit; b > 0 && b + 16 > fit; b--)
        if (break_space(s, b))
            return b;
    size_t b = fit;
    while (b > fit / 2) {
        if (glued(s, b) || (s[b] == ' ' && in_group(s, b)) || (s[b - 1] == ' ' && in_group(s, b - 1)))
            b = char_before(s, b);
        else if (b > 1 && (closing(s + b) || opening(s, b)))
            b = char_before(s, b);
        else
            return b;
    }
    for (b = fit; b > fit / 3; b = char_before(s, b))
        if (break_space(s, b))
            return b;
    for (b = fit; b > fit / 2;) {
        if (glued(s, b) || (b > 1 && (closing(s + b) || opening(s, b))) || (s[b] == ' ' && in_group(s, b)) ||
            (s[b - 1] == ' ' && in_group(s, b - 1)))
            b = char_before(s, b);
        else
            return b;
    }
    if (fit == 0) /* one character wider than the line: take it anyway */
        fit = text_char_next(s, SIZE_MAX, 0); /* stops at the NUL */
    return fit;
}

char *fmt_prose(const char *s, bool ascii)
{
    size_t n = strlen(s) * 3 + 4;
    char *out = malloc(n), *flat = strdup(s);
    if (out && flat) {
        for (char *c = flat; *c; c++)
            if (*c == '\n' || *c == '\t')
                *c = ' ';
        text_sanitize(flat, out, n, ascii);
    } else {
        free(out);
        out = NULL;
    }
    free(flat);
    return out;
}
