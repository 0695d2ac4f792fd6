/* fmtmodel.c - a model cell's arithmetic as lines (see fmtmodel.h). */
#include "fmtmodel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "text/i18n.h"
#include "text/text.h"

#define VOCAB_CELL 96
#define addf(line, ...) text_append(line, FMT_LINE, __VA_ARGS__) /* a FMT_LINE line, never overflowed */

static const char *sym(const FmtOpt *o, const char *utf8, const char *ascii)
{
    return o->ascii ? ascii : utf8;
}

/* A vocab entry as the screen may show it. */
static const char *vocab_name(const char *const *vocab, int k, bool ascii, char *buf, size_t len)
{
    if (vocab && vocab[k])
        text_sanitize(vocab[k], buf, len, ascii);
    else
        snprintf(buf, len, "%d", k + 1);
    return buf;
}

void fmt_model_cell(const Model *m, ModelRef r, int i, int j, const char *const *vocab, bool ascii, char *buf,
                    size_t len)
{
    char name[64], tok[VOCAB_CELL];
    model_ref_name(m, r, name, sizeof name);
    if (r.kind == MM_LOGITS || r.kind == MM_PROBS)
        snprintf(buf, len, "%s[%d][%s]", name, i + 1, vocab_name(vocab, j, ascii, tok, sizeof tok));
    else
        snprintf(buf, len, "%s[%d][%d]", name, i + 1, j + 1);
}

/* v as an operand after a sign: "(−0.044)" when negative. */
static char *operand(double v, const FmtOpt *o, char *buf, size_t len)
{
    char n[48];
    fmt_num(v, o, n, sizeof n);
    snprintf(buf, len, v < 0 ? "(%s)" : "%s", n);
    return buf;
}

/* "(a)(b) + (c)(d) + ..." of e's n products; returns their sum as shown. */
static double put_products(char *line, const ModelExplain *e, const FmtOpt *o)
{
    char x[48], y[48];
    double sum = 0;
    for (int k = 0; k < e->n; k++) {
        addf(line, "%s(%s)(%s)", k ? " + " : "", fmt_num(e->a[k], o, x, sizeof x), fmt_num(e->b[k], o, y, sizeof y));
        sum += fmt_shown(e->a[k], o) * fmt_shown(e->b[k], o);
    }
    return sum;
}

/* L1.h_in[i][j] = E[tok][j] + P[pos][j] = e + p = h (or the sinusoid, or E alone). */
static int ex_embed(const Model *m, const ModelExplain *e, const char *cell, const char *const *vocab,
                    const FmtOpt *o, char lines[][FMT_LINE])
{
    char tok[VOCAB_CELL], a[48], b[48], r[48];
    vocab_name(vocab, e->token, o->ascii, tok, sizeof tok);
    fmt_num(e->e, o, a, sizeof a);
    fmt_num(e->result, o, r, sizeof r);
    if (e->positions == MPOS_ROPE || e->positions == MPOS_NONE) {
        addf(lines[0], "%s = E[%s][%d] = %s", cell, tok, e->j + 1, r);
        return 1;
    }
    fmt_num(e->p, o, b, sizeof b);
    if (e->positions == MPOS_LEARNED)
        addf(lines[0], "%s = E[%s][%d] + P[%d][%d] = ", cell, tok, e->j + 1, e->pos + 1, e->j + 1);
    else
        addf(lines[0], "%s = E[%s][%d] + %s(%s) = ", cell, tok, e->j + 1, e->cosine ? "cos" : "sin",
             fmt_num(e->angle, o, r, sizeof r));
    fmt_num(e->result, o, r, sizeof r);
    addf(lines[0], "%s + %s%s%s", a, e->p < 0 ? "(" : "", b, e->p < 0 ? ")" : "");
    addf(lines[0], "%s%s", fmt_eq(fmt_shown(e->e, o) + fmt_shown(e->p, o), e->result, o), r);
    (void)m;
    return 1;
}

/* The row's statistics: μ (layernorm), σ² (or the mean square), σ. */

/* v in plain decimals, the fewest that read back as v (eps 1e-05 prints
 * 0.00001: numbers print like numbers, never in e-notation). */
static char *plain_exact(double v, char *buf, size_t len)
{
    for (int dec = 0; dec <= 20; dec++) {
        num_format(buf, len, v, dec);
        if (num_value(buf, NULL) == v)
            return buf;
    }
    return fmt_exact(v, buf, len);
}

static void norm_stats(const ModelExplain *e, const FmtOpt *o, char *line)
{
    char s[48], v[48], d[16], x[48];
    const char *div = sym(o, "÷", "/");
    double sq = 0;
    snprintf(d, sizeof d, "%d", e->n);
    if (e->norm == NORM_LAYER)
        addf(line, "%s = %s %s %s%s%s;  ", sym(o, "μ", "mu"), fmt_num(e->xsum, o, s, sizeof s), div, d,
             fmt_eq(fmt_shown(e->xsum, o) / e->n, e->mean, o), fmt_num(e->mean, o, v, sizeof v));
    for (int k = 0; k < e->n; k++)
        sq += e->prod[k];
    addf(line, "%s = %s %s %s%s%s;  ", e->norm == NORM_LAYER ? sym(o, "σ²", "var") : sym(o, "mean(x²)", "mean(x^2)"),
         fmt_num(e->sum, o, s, sizeof s), div, d, fmt_eq(fmt_shown(e->sum, o) / e->n, e->var, o),
         fmt_num(e->var, o, v, sizeof v));
    addf(line, "%s = %s(%s + %s)%s%s", sym(o, "σ", "sigma"), sym(o, "√", "sqrt"), fmt_num(e->var, o, v, sizeof v),
         plain_exact(e->eps, x, sizeof x), fmt_eq(sqrt(fmt_shown(e->var, o) + e->eps), e->sigma, o),
         fmt_num(e->sigma, o, s, sizeof s));
    (void)sq;
}

/* a_ij = (x − μ) ÷ σ · g + β = (x − mu) ÷ sigma · g + beta = a. */
static int ex_norm(const ModelExplain *e, const char *cell, const FmtOpt *o, char lines[][FMT_LINE])
{
    char x[48], mu[48], sg[48], g[48], b[48], r[48];
    const char *minus = sym(o, "−", "-"), *div = sym(o, "÷", "/"), *dot = sym(o, "·", "*");
    fmt_num(e->result, o, r, sizeof r);
    if (e->norm == NORM_NONE) {
        addf(lines[0], "%s = x = %s", cell, r);
        return 1;
    }
    norm_stats(e, o, lines[0]);
    fmt_num(e->x, o, x, sizeof x);
    operand(e->mean, o, mu, sizeof mu);
    operand(e->sigma, o, sg, sizeof sg);
    operand(e->g, o, g, sizeof g);
    operand(e->beta, o, b, sizeof b);
    double from = (fmt_shown(e->x, o) - fmt_shown(e->mean, o)) / fmt_shown(e->sigma, o) * fmt_shown(e->g, o);
    if (e->norm == NORM_LAYER) {
        from += fmt_shown(e->beta, o);
        addf(lines[1], "%s = (x %s %s) %s %s %s g + %s = (%s %s %s) %s %s %s %s + %s%s%s", cell, minus,
             sym(o, "μ", "mu"), div, sym(o, "σ", "sigma"), dot, sym(o, "β", "beta"), x, minus, mu, div, sg, dot, g, b,
             fmt_eq(from, e->result, o), r);
    } else {
        addf(lines[1], "%s = x %s %s %s g = %s %s %s %s %s%s%s", cell, div, sym(o, "σ", "sigma"), dot, x, div, sg,
             dot, g, fmt_eq(from, e->result, o), r);
    }
    return 2;
}

/* h_mid_ij = h + y = a + b = r (and a layer's input: the stream before). */
static int ex_resid(const Model *m, const ModelExplain *e, const char *cell, const FmtOpt *o, char lines[][FMT_LINE])
{
    char h[48], y[48], r[48];
    fmt_num(e->result, o, r, sizeof r);
    if (e->kind == MX_STREAM) {
        addf(lines[0], "%s = L%d.h[%d][%d] = %s", cell, e->ref.layer - 1, e->i + 1, e->j + 1, r);
        return 1;
    }
    fmt_num(e->y, o, y, sizeof y);
    addf(lines[0], "%s = h + y = %s + %s%s%s%s%s", cell, fmt_num(e->h, o, h, sizeof h), e->y < 0 ? "(" : "", y,
         e->y < 0 ? ")" : "", fmt_eq(fmt_shown(e->h, o) + fmt_shown(e->y, o), e->result, o), r);
    (void)m;
    return 1;
}

/* f_ij = act(u) = ..., then u_ij = Σ b·W1 + b1 = (..)(..) + ... + b1 = u (the result first). */
static int ex_hidden(const ModelExplain *e, const char *cell, const FmtOpt *o, char lines[][FMT_LINE])
{
    char b[48], u[48], p[48], r[48];
    const char *act = e->act == ACT_GELU ? "gelu" : "relu";
    addf(lines[1], "u = %sb%sW1[:,%d] + b1 = ", sym(o, "Σ ", "sum "), sym(o, "·", "*"), e->j + 1);
    double from = put_products(lines[1], e, o) + fmt_shown(e->bias, o);
    fmt_num(e->bias, o, b, sizeof b);
    addf(lines[1], " + %s%s%s%s%s", e->bias < 0 ? "(" : "", b, e->bias < 0 ? ")" : "", fmt_eq(from, e->pre, o),
         fmt_num(e->pre, o, u, sizeof u));
    if (!e->activated) { /* u itself: its sum is the line */
        memmove(lines[0], lines[1], strlen(lines[1]) + 1);
        lines[1][0] = '\0';
        return 1;
    }
    fmt_num(e->result, o, r, sizeof r);
    if (e->act == ACT_GELU)
        addf(lines[0], "%s = %s(u) = u %s %s(u) = %s %s %s%s%s", cell, act, sym(o, "·", "*"), sym(o, "Φ", "Phi"), u,
             sym(o, "·", "*"), fmt_num(e->phi, o, p, sizeof p),
             fmt_eq(fmt_shown(e->pre, o) * fmt_shown(e->phi, o), e->result, o), r);
    else
        addf(lines[0], "%s = %s(u) = max(0, %s)%s%s", cell, act, u,
             fmt_eq(fmt_shown(e->pre, o) > 0 ? fmt_shown(e->pre, o) : 0, e->result, o), r);
    return 2;
}

/* h_ij = h_mid + ffn = a + b = h, then ffn = Σ f·W2 + b2 = ... (the result first). */
static int ex_ffn_out(const ModelExplain *e, const char *cell, const FmtOpt *o, char lines[][FMT_LINE])
{
    char b[48], f[48], h[48], r[48];
    addf(lines[1], "ffn = %sf%sW2[:,%d] + b2 = ", sym(o, "Σ ", "sum "), sym(o, "·", "*"), e->j + 1);
    double from = put_products(lines[1], e, o) + fmt_shown(e->bias, o);
    fmt_num(e->bias, o, b, sizeof b);
    addf(lines[1], " + %s%s%s%s%s", e->bias < 0 ? "(" : "", b, e->bias < 0 ? ")" : "", fmt_eq(from, e->ffn, o),
         fmt_num(e->ffn, o, f, sizeof f));
    fmt_num(e->result, o, r, sizeof r);
    addf(lines[0], "%s = h_mid + ffn = %s + %s%s%s%s%s", cell, fmt_num(e->resid, o, h, sizeof h), e->ffn < 0 ? "(" : "",
         f, e->ffn < 0 ? ")" : "", fmt_eq(fmt_shown(e->resid, o) + fmt_shown(e->ffn, o), e->result, o), r);
    return 2;
}

/* logits_ij = h·w_U = (..)(..) + ... = l. */
static int ex_logit(const ModelExplain *e, const char *cell, const char *const *vocab, const FmtOpt *o,
                    char lines[][FMT_LINE])
{
    char r[48], tok[VOCAB_CELL];
    vocab_name(vocab, e->j, o->ascii, tok, sizeof tok);
    if (e->tied)
        addf(lines[0], "%s = h%sE[%s] = ", cell, sym(o, "·", "."), tok);
    else
        addf(lines[0], "%s = h%sW_U[:,%s] = ", cell, sym(o, "·", "."), tok);
    double from = put_products(lines[0], e, o);
    addf(lines[0], "%s%s", fmt_eq(from, e->result, o), fmt_num(e->result, o, r, sizeof r));
    return 1;
}

/* Σ exp(z − max) = e1 + e2 + ... = S;  p_ij = exp(z_j − max) ÷ S = e ÷ S = p. */
static int ex_prob(const ModelExplain *e, const char *cell, const FmtOpt *o, char lines[][FMT_LINE])
{
    char z[48], mx[48], x[48], s[48], r[48], t[48];
    const char *minus = sym(o, "−", "-");
    double sum = 0;
    int n = 0;
    if (e->temp != 1.0)
        addf(lines[n++], "z = logits %s %s", sym(o, "÷", "/"), fmt_exact(e->temp, t, sizeof t));
    addf(lines[n], "max z = %s;  %sexp(z %s max) = ", fmt_num(e->max, o, mx, sizeof mx), sym(o, "Σ ", "sum "), minus);
    for (int k = 0; k < e->n; k++) {
        addf(lines[n], "%s%s", k ? " + " : "", fmt_num(e->prod[k], o, x, sizeof x));
        sum += fmt_shown(e->prod[k], o);
    }
    addf(lines[n++], "%s%s", fmt_eq(sum, e->sum, o), fmt_num(e->sum, o, s, sizeof s));
    double ej = e->prod[e->j];
    fmt_num(e->b[e->j], o, z, sizeof z);
    fmt_num(e->result, o, r, sizeof r);
    addf(lines[n], "%s = exp(z %s max) %s %s = exp(%s %s %s)%s%s", cell, minus, sym(o, "÷", "/"), sym(o, "Σ", "sum"),
         z, minus, mx, fmt_eq(exp(fmt_shown(e->b[e->j], o) - fmt_shown(e->max, o)), ej, o), fmt_num(ej, o, x, sizeof x));
    addf(lines[n++], " %s %s%s%s", sym(o, "÷", "/"), s, fmt_eq(fmt_shown(ej, o) / fmt_shown(e->sum, o), e->result, o), r);
    return n;
}

int fmt_model_explain(const Model *m, const ModelExplain *e, const char *const *vocab, const FmtOpt *o,
                      char lines[][FMT_LINE], int max)
{
    char cell[128], tmp[4][FMT_LINE];
    int n = 0;
    if (max <= 0)
        return 0;
    for (int k = 0; k < 4; k++)
        tmp[k][0] = '\0';
    fmt_model_cell(m, e->ref, e->i, e->j, vocab, o->ascii, cell, sizeof cell);
    switch (e->kind) {
    case MX_EMBED: n = ex_embed(m, e, cell, vocab, o, tmp); break;
    case MX_STREAM:
    case MX_RESID: n = ex_resid(m, e, cell, o, tmp); break;
    case MX_NORM: n = ex_norm(e, cell, o, tmp); break;
    case MX_FFN_HIDDEN: n = ex_hidden(e, cell, o, tmp); break;
    case MX_FFN_OUT: n = ex_ffn_out(e, cell, o, tmp); break;
    case MX_LOGIT: n = ex_logit(e, cell, vocab, o, tmp); break;
    case MX_PROB: n = ex_prob(e, cell, o, tmp); break;
    default: return 0;
    }
    n = n < max ? n : max;
    for (int k = 0; k < n; k++)
        memcpy(lines[k], tmp[k], strlen(tmp[k]) + 1);
    return n;
}
