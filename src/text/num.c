/* num.c - lesson numbers, whatever the locale (see num.h). */
#include "num.h"
#include "shortest.h"
#include "i18n.h"
#include "text.h"

#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Check the syntax of an ASCII decimal and count the decimals it was
 * written with, minus its exponent. */
static bool syntax(const char *s, int *decimals)
{
    int digits = 0, dec = 0;
    if (*s == '+' || *s == '-')
        s++;
    for (; isdigit((unsigned char)*s); s++)
        digits++;
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++, dec++)
            digits++;
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        int sign = 1, e = 0;
        s++;
        if (*s == '+' || *s == '-')
            sign = *s++ == '-' ? -1 : 1;
        if (!isdigit((unsigned char)*s))
            return false;
        for (; isdigit((unsigned char)*s); s++)
            e = e < 10000 ? e * 10 + (*s - '0') : e;
        dec -= sign * e;
    }
    *decimals = dec < -400 ? -400 : dec > 400 ? 400 : dec;
    return *s == '\0';
}

/* Is s a YAML or C spelling of infinity or NaN? */
static bool nonfinite_word(const char *s)
{
    static const char *const words[] = {".inf", "inf", "infinity", ".nan", "nan"};
    if (*s == '+' || *s == '-')
        s++;
    if (!strchr(".iInN", *s) || !*s)
        return false; /* a digit, as nearly always */
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (strcasecmp(s, words[k]) == 0)
            return true;
    return false;
}

/* Copy s into out (room for strlen(s) + 1) with each U+2212 as '-'. */
static void ascii_minus(const char *s, char *out)
{
    while (*s) {
        if (*s == NUM_MINUS[0] && strncmp(s, NUM_MINUS, 3) == 0) {
            *out++ = '-';
            s += 3;
        } else {
            *out++ = *s++;
        }
    }
    *out = '\0';
}

/* Clinger's fast path: a decimal of at most 15 digits (so the digits are
 * exactly a double) times or over a power of ten up to 1e22 (exact too) is
 * one correctly rounded operation, the same double strtod gives. False
 * when s is not that simple. */
static bool fast_decimal(const char *s, double *v)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    bool neg = *s == '-';
    s += *s == '-' || *s == '+';
    unsigned long long m = 0;
    int digits = 0, frac = 0;
    bool dot = false;
    for (; *s; s++) {
        if (*s == '.' && !dot) {
            dot = true;
        } else if (*s >= '0' && *s <= '9') {
            if (m == 0 && *s == '0') {
                frac += dot;
                continue; /* leading zeros are not digits */
            }
            if (++digits > 15)
                return false;
            m = m * 10 + (unsigned long long)(*s - '0');
            frac += dot;
        } else {
            return false; /* an exponent, or anything else: strtod */
        }
    }
    if (frac > 22)
        return false;
    double d = (double)m / p10[frac];
    *v = neg ? -d : d;
    return true;
}

double num_value(const char *s, char **end)
{
    const char *dp = localeconv()->decimal_point;
    if (dp && strcmp(dp, ".") == 0) /* the usual case: LC_NUMERIC is C (main sets only CTYPE and MESSAGES) */
        return strtod(s, end);
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t old = c ? uselocale(c) : (locale_t)0;
    double v = strtod(s, end);
    if (c) {
        uselocale(old);
        freelocale(c);
    }
    return v;
}

/* strtod in the C locale (num_value), with a fast path for plain
 * decimals. s has passed syntax(). */
static double c_strtod(const char *s)
{
    double fast;
    if (fast_decimal(s, &fast))
        return fast;
    return num_value(s, NULL);
}

double num_as_printed(double v, int dec)
{
    char buf[64]; /* as the template's sums always cut it: 64 bytes */
    num_snprintf(buf, sizeof buf, "%.*f", dec, v);
    return num_value(buf, NULL);
}

bool num_char(uint32_t cp)
{
    return (cp >= '0' && cp <= '9') || cp == '.' || cp == '+' || cp == '-' || cp == 'e' || cp == 'E' ||
           cp == 0x2212;
}

double num_round15(double v)
{
    char buf[40];
    double r;
    if (!isfinite(v))
        return v;
    num_snprintf(buf, sizeof buf, "%.15g", v); /* a point whatever LC_NUMERIC */
    return num_parse(buf, &r, NULL) == NUM_OK ? r : v;
}

NumStatus num_parse(const char *s, double *v, int *decimals)
{
    char small[128];
    size_t n = strlen(s);
    char *a = n < sizeof small ? small : malloc(n + 1);
    if (!a)
        return NUM_SYNTAX;
    ascii_minus(s, a);
    int dec = 0;
    NumStatus st = NUM_OK;
    if (nonfinite_word(a))
        st = NUM_NONFINITE;
    else if (!syntax(a, &dec))
        st = NUM_SYNTAX;
    else if (!isfinite(*v = c_strtod(a)))
        st = NUM_RANGE;
    if (a != small)
        free(a);
    if (st == NUM_OK && decimals)
        *decimals = dec;
    return st;
}

int num_snprintf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t old = c ? uselocale(c) : (locale_t)0;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (c) {
        uselocale(old);
        freelocale(c);
    }
    return n;
}

void num_format(char *buf, size_t len, double v, int dec)
{
    if (isnan(v))
        snprintf(buf, len, "NaN");
    else if (isinf(v))
        snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
    else
        num_snprintf(buf, len, "%.*f", dec < 0 ? 0 : dec, v);
}

/* ---- printing for people: the lesson's digits, the ≈ rule, the shortest ---- */

/* "%.*f" of 0 <= v < 1e6 without printf, which is slow and is called for
 * every cell of every frame. Gives up (false) when v * 10^digits lies too
 * close to a rounding tie for a double to decide; printf decides those. */
static const double pow10_fixed[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};

/* "%.*f" of 0 <= v < 1e6 as the whole number n of 10^-digits it shows, or
 * false near a rounding tie (printf decides those). */
static bool fixed_units(double v, int digits, long long *n)
{
    if (digits < 0 || digits > 6)
        return false;
    double x = v * pow10_fixed[digits], f = floor(x);
    if (fabs(x - f - 0.5) < 1e-6)
        return false;
    *n = (long long)f + (x - f > 0.5);
    return true;
}

/* "%.*f" of 0 <= v < 1e6 into out: its length, or -1 near a rounding tie
 * (printf decides those); *zero when it shows only zeros. */
static int fixed_fast(double v, int digits, char *out, bool *zero)
{
    long long n;
    if (!fixed_units(v, digits, &n))
        return -1;
    *zero = n == 0;
    char rev[32], *e = rev + sizeof rev;
    int k = 0;
    do { /* digits from the right, with the point after `digits` of them */
        *--e = (char)('0' + n % 10);
        n /= 10;
        if (++k == digits)
            *--e = '.', k++;
    } while (n > 0 || k < (digits ? digits + 2 : 1));
    memcpy(out, e, (size_t)k);
    out[k] = '\0';
    return k;
}

char *fmt_num(double v, const FmtOpt *o, char *buf, size_t len)
{
    if (isnan(v)) {
        snprintf(buf, len, "NaN");
        return buf;
    }
    if (isinf(v)) {
        /* as the matrices and the narration write it: −∞, or -inf in ASCII */
        snprintf(buf, len, "%s%s", v < 0 ? (o->ascii ? "-" : "\xe2\x88\x92") : "", o->ascii ? "inf" : "\xe2\x88\x9e");
        return buf;
    }
    char tmp[64];
    bool zero = false;
    int fast = fabs(v) >= 1e6 ? -1 : fixed_fast(fabs(v), o->digits, tmp, &zero);
    if (fabs(v) >= 1e6) /* keep huge values to a cell's width */
        snprintf(tmp, sizeof tmp, "%.*e", o->digits > 1 ? o->digits - 1 : 1, fabs(v));
    else if (fast < 0)
        snprintf(tmp, sizeof tmp, "%.*f", o->digits, fabs(v));
    size_t n = fast >= 0 ? (size_t)fast : strlen(tmp);
    if (fast < 0)
        zero = strspn(tmp, "0.") == n;
    const char *sign = v < 0 && !zero ? (o->ascii ? "-" : "\xe2\x88\x92") : "";
    size_t m = strlen(sign);
    if (len == 0)
        return buf;
    m = m < len - 1 ? m : len - 1; /* cut as snprintf would; no printf: called for every cell of every frame */
    n = n < len - 1 - m ? n : len - 1 - m;
    memcpy(buf, sign, m);
    memcpy(buf + m, tmp, n);
    buf[m + n] = '\0';
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
        n += text_utf8_put(0x2080 + (uint32_t)(*d - '0'), buf + n); /* U+2080..U+2089: ₀..₉ */
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

/* v as the screen shows it: rounded to the digits shown. The text has a
 * '.', which strtod reads as the locale's decimal point. */
static double shown_value(double v, const FmtOpt *o)
{
    FmtOpt plain = {o->digits, true, false};
    char buf[64], num[80];
    if (v == FMT_HIDDEN)
        return NAN;
    if (!isfinite(v))
        return v;
    long long units;
    /* The text would be units / 10^digits exactly: strtod rounds that decimal
     * correctly, and so does one IEEE division of two exact doubles (n and
     * 10^digits are below 2^53), so they give the same double, without the
     * text (shown for every term of every arithmetic line, every frame). */
    if (fabs(v) < 1e6 && fixed_units(fabs(v), o->digits, &units)) {
        double u = (double)units / pow10_fixed[o->digits];
        return v < 0 && units != 0 ? -u : u;
    }
    fmt_num(v, &plain, buf, sizeof buf);
    const char *dp = localeconv()->decimal_point;
    if (!dp || !*dp || strcmp(dp, ".") == 0) /* the usual case: the text as it is */
        return strtod(buf, NULL);
    size_t n = 0;
    for (const char *c = buf; *c && n + 8 < sizeof num; c++)
        n += (size_t)snprintf(num + n, sizeof num - n, "%s", *c == '.' && dp && *dp ? dp : (char[2]){*c, 0});
    return strtod(num, NULL);
}

/* " = " when `from` (worked out from numbers as shown) shows as `result`
 * does, else " ≈ ": the reader who redoes the sum gets another last digit. */
static const char *eq(double from, double result, const FmtOpt *o)
{
    char x[64], y[64];
    if (isnan(from) || isnan(result) || result == FMT_HIDDEN ||
        strcmp(fmt_num(from, o, x, sizeof x), fmt_num(result, o, y, sizeof y)) == 0)
        return " = ";
    return o->ascii ? " ~ " : " ≈ ";
}

double fmt_shown(double v, const FmtOpt *o)
{
    return shown_value(v, o);
}

const char *fmt_eq(double from, double result, const FmtOpt *o)
{
    return eq(from, result, o);
}

const char *fmt_eq_vec(const double *from, const double *result, int n, const FmtOpt *o)
{
    for (int k = 0; k < n; k++)
        if (strcmp(eq(from[k], result[k], o), " = ") != 0)
            return eq(from[k], result[k], o);
    return " = ";
}

void fmt_note_add(char *line, bool ascii)
{
    size_t n = strlen(line);
    if (n < FMT_LINE - 1)
        snprintf(line + n, FMT_LINE - n, "   %s", ascii ? _("(~: computed before rounding)") : _("(≈: computed before rounding)"));
}

void fmt_note_approx(char lines[][FMT_LINE], int n, bool ascii, bool *noted)
{
    const char *note = ascii ? _("(~: computed before rounding)") : _("(≈: computed before rounding)");
    for (int k = 0; k < n && !*noted; k++)
        if (strstr(lines[k], note)) /* noted already (lines an explain wrote, quoted again) */
            *noted = true;
    for (int k = 0; k < n && !*noted; k++)
        if (strstr(lines[k], ascii ? " ~ " : " ≈ ")) {
            fmt_note_add(lines[k], ascii);
            *noted = true;
        }
}

char *fmt_exact(double v, char *buf, size_t len)
{
    char tmp[SHORTEST_MAX];
    size_t n = shortest_print(v, tmp); /* the one printer: '.' whatever the locale */
    if (len) {
        n = n < len ? n : len - 1;
        memcpy(buf, tmp, n);
        buf[n] = '\0';
    }
    return buf;
}

size_t num_whole(const char *s, long long *v)
{
    size_t n = 0;
    *v = 0;
    for (; s[n] >= '0' && s[n] <= '9'; n++)
        *v = *v > (NUM_WHOLE_MAX - (s[n] - '0')) / 10 ? NUM_WHOLE_MAX : *v * 10 + (s[n] - '0');
    return n;
}

bool num_whole_all(const char *s, long long *v)
{
    size_t n = num_whole(s, v);
    return n > 0 && s[n] == '\0';
}

const char *num_whole_text(const char *s, size_t n, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s%s", n > 24 ? 24 : (int)n, s, n > 24 ? "..." : "");
    return buf;
}

void num_general(char *buf, size_t len, double v, int prec)
{
    num_snprintf(buf, len, "%.*g", prec, v);
}
