/* fmt.c - writing out numbers and the explain terms (see fmt.h). */
#include "fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "i18n.h"
#include "num.h"
#include "text.h"

/* "%.*f" of 0 <= v < 1e6 without printf, which is slow and is called for
 * every cell of every frame. Gives up (false) when v * 10^digits lies too
 * close to a rounding tie for a double to decide; printf decides those. */
static bool fixed_fast(double v, int digits, char *out)
{
    static const double pow10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
    if (digits < 0 || digits > 6)
        return false;
    double x = v * pow10[digits], f = floor(x);
    if (fabs(x - f - 0.5) < 1e-6)
        return false;
    long long n = (long long)f + (x - f > 0.5);
    char rev[32];
    int k = 0;
    do { /* digits from the right, with the point after `digits` of them */
        rev[k++] = (char)('0' + n % 10);
        n /= 10;
        if (k == digits)
            rev[k++] = '.';
    } while (n > 0 || k < (digits ? digits + 2 : 1));
    for (int i = 0; i < k; i++)
        out[i] = rev[k - 1 - i];
    out[k] = '\0';
    return true;
}

char *fmt_num(double v, const FmtOpt *o, char *buf, size_t len)
{
    if (isnan(v)) {
        snprintf(buf, len, "NaN");
        return buf;
    }
    if (isinf(v)) {
        snprintf(buf, len, "%sinf", v < 0 ? (o->ascii ? "-" : "\xe2\x88\x92") : "");
        return buf;
    }
    char tmp[64];
    if (fabs(v) >= 1e6) /* keep huge values to a cell's width */
        snprintf(tmp, sizeof tmp, "%.*e", o->digits > 1 ? o->digits - 1 : 1, fabs(v));
    else if (!fixed_fast(fabs(v), o->digits, tmp))
        snprintf(tmp, sizeof tmp, "%.*f", o->digits, fabs(v));
    bool zero = strspn(tmp, "0.") == strlen(tmp);
    snprintf(buf, len, "%s%s", v < 0 && !zero ? (o->ascii ? "-" : "\xe2\x88\x92") : "", tmp);
    return buf;
}

char *fmt_sub(int i1, const FmtOpt *o, char *buf, size_t len)
{
    char digits[16];
    snprintf(digits, sizeof digits, "%d", i1);
    if (o->ascii) {
        snprintf(buf, len, "_%s", digits);
        return buf;
    }
    size_t n = 0;
    for (const char *d = digits; *d && n + 4 < len; d++) {
        /* U+2080..U+2089: E2 82 80+d */
        buf[n++] = (char)0xe2;
        buf[n++] = (char)0x82;
        buf[n++] = (char)(0x80 + (*d - '0'));
    }
    buf[n] = '\0';
    return buf;
}

char *fmt_sub2(int i1, int j1, const FmtOpt *o, char *buf, size_t len)
{
    char a[32], b[32];
    fmt_sub(i1, o, a, sizeof a);
    fmt_sub(j1, o, b, sizeof b);
    bool sep = i1 > 9 || j1 > 9;
    if (o->ascii)
        snprintf(buf, len, "_%d%s%d", i1, sep ? "," : "", j1);
    else
        snprintf(buf, len, "%s%s%s", a, sep ? "," : "", b);
    return buf;
}

/* Append formatted text to a line, never overflowing it. */
static void put(char *line, const char *fmt, ...)
{
    size_t n = strlen(line);
    if (n >= FMT_LINE - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, FMT_LINE - n, fmt, ap);
    va_end(ap);
}

/* " (a)(b) + (c)(d) + ..." for the n products of e. */
static void put_products(char *line, const Explain *e, const FmtOpt *o)
{
    char x[48], y[48];
    for (int k = 0; k < e->n; k++)
        put(line, "%s(%s)(%s)", k ? " + " : "", fmt_num(e->a[k], o, x, sizeof x),
            fmt_num(e->b[k], o, y, sizeof y));
}

/* "[a, b, c]" of n values. */
static void put_vec(char *line, const double *v, int n, const FmtOpt *o)
{
    char x[48];
    put(line, "[");
    for (int k = 0; k < n; k++)
        put(line, "%s%s", k ? ", " : "", fmt_num(v[k], o, x, sizeof x));
    put(line, "]");
}

static const char *lower_name(MatId m)
{
    static const char *names[M_COUNT] = {"x", "Wq", "Wk", "Wv", "q", "k", "v", "score", "score", "α", "o",
                                         "p", "h"};
    return names[m];
}

static int ex_input(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char s[32], v[48];
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    put(lines[0], "%s%s = %s   ", e->mat == M_X ? "x" : attn_mat_name(e->mat), s,
        fmt_num(e->result, o, v, sizeof v));
    put(lines[0], "%s", e->mat == M_X ? _("(the input: written in the lesson, one row per token)")
                                      : _("(a parameter: learned in training, fixed while it runs)"));
    return 1;
}

static int ex_proj(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char s[32], i[16], j[16], v[48];
    const char *m = lower_name(e->mat), *w = attn_mat_name((MatId)(e->mat - M_Q + M_WQ));
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    fmt_sub(e->i + 1, o, i, sizeof i);
    fmt_sub(e->j + 1, o, j, sizeof j);
    if (e->overridden) {
        put(lines[0], _("%s%s = %s   (row %d of %s was set by hand, no longer X%s%s)"), m, s,
            fmt_num(e->result, o, v, sizeof v), e->i + 1, attn_mat_name(e->mat), o->ascii ? "*" : "·", w);
        return 1;
    }
    put(lines[0], "%s%s = %s%s%s%s[:,%d] = ", m, s, e->from_h ? "h" : "x", i, o->ascii ? "." : "·", w, e->j + 1);
    put_products(lines[0], e, o);
    put(lines[0], " = %s", fmt_num(e->result, o, v, sizeof v));
    return 1;
}

static int ex_score(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char s[32], i[16], j[16], v[48], w[48];
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    fmt_sub(e->i + 1, o, i, sizeof i);
    fmt_sub(e->j + 1, o, j, sizeof j);
    if (e->masked) {
        put(lines[0], "score%s = %s   ", s, o->ascii ? "-inf" : "−∞");
        put(lines[0], _("(masked: key %d comes after query %d, so it is hidden; q%s%sk%s is left out)"), e->j + 1,
            e->i + 1, i, o->ascii ? "." : "·", j);
        return 1;
    }
    put(lines[0], "score%s = q%s%sk%s = ", s, i, o->ascii ? "." : "·", j);
    put_products(lines[0], e, o);
    put(lines[0], " = %s", fmt_num(e->sum, o, v, sizeof v));
    if (e->scaled)
        put(lines[0], o->ascii ? " / sqrt(%d) = %s" : " ÷ √%d = %s", e->d_k, fmt_num(e->result, o, w, sizeof w));
    return 1;
}

char *fmt_temp(double t, char *buf, size_t len)
{
    num_snprintf(buf, len, "%.6g", t);
    return buf;
}

/* "   (key 3 is masked ...)" or "   (keys 2 to 3 are masked ...)" after
 * the first vis of n entries of query row i1. */
static void put_masked(char *line, int vis, int n, int i1)
{
    if (vis >= n)
        return;
    put(line, "   ");
    if (vis + 1 == n)
        put(line, _("(key %d comes after query %d: masked, left out, weight 0)"), n, i1);
    else
        put(line, _("(keys %d to %d come after query %d: masked, left out, weight 0)"), vis + 1, n, i1);
}

static int ex_softmax(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char i[16], v[48];
    int n = 0;
    bool t = e->temp != 1.0;
    const char *z = t ? "z" : "s";
    fmt_sub(e->i + 1, o, i, sizeof i);
    put(lines[n], "s%s = ", i);
    put_vec(lines[n], e->a, e->vis, o);
    if (t) {
        put(lines[n], ";  z = s %s %s = ", o->ascii ? "/" : "÷", fmt_temp(e->temp, v, sizeof v));
        put_vec(lines[n], e->z, e->vis, o);
    }
    put_masked(lines[n++], e->vis, e->n, e->i + 1);
    if (e->stable) {
        put(lines[n], "max = %s;  %s %s max = ", fmt_num(e->max, o, v, sizeof v), z, o->ascii ? "-" : "−");
        put_vec(lines[n++], e->shifted, e->vis, o);
        put(lines[n], "exp(%s %s max) = ", z, o->ascii ? "-" : "−");
    } else {
        put(lines[n], "exp(%s) = ", z);
    }
    put_vec(lines[n], e->prod, e->vis, o);
    put(lines[n++], ";  %s = %s", _("sum"), fmt_num(e->sum, o, v, sizeof v));
    put(lines[n], "%s%s = exp %s %s = ", lower_name(M_A), i, o->ascii ? "/" : "÷", _("sum"));
    put_vec(lines[n++], e->weight, e->n, o);
    return n;
}

/* h_ij = x_ij + p_ij = x + p = h, then p_ij = sin(p / 10000^(2m/d)) = sin(angle) = p. */
static int ex_pos(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char s[32], x[48], p[48], h[48], t[48];
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    put(lines[0], "h%s = x%s + p%s = %s + %s = %s", s, s, s, fmt_num(e->x, o, x, sizeof x),
        fmt_num(e->p, o, p, sizeof p), fmt_num(e->x + e->p, o, h, sizeof h));
    put(lines[1], "p%s = %s(%d / 10000^(%d/%d)) = %s(%s) = %s   ", s, e->cosine ? "cos" : "sin", e->pos,
        2 * e->pos_m, e->d_model, e->cosine ? "cos" : "sin", fmt_num(e->angle, o, t, sizeof t), p);
    put(lines[1], _("(p = token number %s 1 = %d)"), o->ascii ? "-" : "−", e->pos);
    return 2;
}

static int ex_output(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char i[16], k1[16], s[32], v[48];
    const char *dot = o->ascii ? "*" : "·";
    fmt_sub(e->i + 1, o, i, sizeof i);
    put(lines[0], "o%s = ", i);
    for (int k = 0; k < e->n; k++)
        put(lines[0], "%s%s%sv%s", k ? " + " : "", fmt_num(e->a[k], o, v, sizeof v), dot,
            fmt_sub(k + 1, o, k1, sizeof k1));
    put_masked(lines[0], e->n, e->n + e->nmasked, e->i + 1);
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    put(lines[1], "o%s = ", s);
    put_products(lines[1], e, o);
    put(lines[1], " = %s", fmt_num(e->result, o, v, sizeof v));
    return 2;
}

int fmt_explain(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int max)
{
    if (max < 4)
        return 0;
    for (int k = 0; k < max; k++)
        lines[k][0] = '\0';
    switch (e->kind) {
    case EX_INPUT:   return ex_input(e, o, lines);
    case EX_PROJ:    return ex_proj(e, o, lines);
    case EX_SCORE:   return ex_score(e, o, lines);
    case EX_SOFTMAX: return ex_softmax(e, o, lines);
    case EX_OUTPUT:  return ex_output(e, o, lines);
    case EX_POS:     return ex_pos(e, o, lines);
    case EX_NONE:    break;
    }
    return 0;
}

static bool word_char(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

size_t fmt_wrap(const char *s, int cols, bool terms)
{
    size_t len = strlen(s), fit = text_fit(s, cols);
    if (fit >= len)
        return len;
    /* Arithmetic breaks best between terms: before " = " or after " + ". */
    for (size_t b = fit; terms && b > fit / 2; b--)
        if (s[b] == ' ' && (strncmp(s + b, " = ", 3) == 0 || (b >= 2 && strncmp(s + b - 2, " +", 2) == 0)))
            return b;
    /* Prose: at a space near the end, else anywhere but inside a Latin word
     * (Chinese has no spaces and may break between any two characters). */
    for (size_t b = fit; b > 0 && b + 16 > fit; b--)
        if (s[b] == ' ')
            return b;
    size_t b = fit;
    while (b > fit / 2 && word_char(s[b]) && word_char(s[b - 1]))
        b--;
    /* No line starts with closing punctuation: carry one character over. */
    static const char *closing[] = {"，", "。", "；", "：", "、", "！", "？", "）", "」", "』", "”", "》"};
    for (size_t k = 0; k < sizeof closing / sizeof *closing; k++)
        if (strncmp(s + b, closing[k], strlen(closing[k])) == 0 && b > 1) {
            for (b--; b > 0 && (s[b] & 0xC0) == 0x80; b--) {}
            break;
        }
    if (b > fit / 2)
        return b;
    if (fit == 0) /* one character wider than the line: take it anyway */
        for (fit = 1; fit < len && (s[fit] & 0xC0) == 0x80; fit++) {}
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
