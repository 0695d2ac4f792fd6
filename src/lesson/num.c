/* num.c - lesson numbers, whatever the locale (see num.h). */
#include "num.h"

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
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (strcasecmp(s, words[k]) == 0)
            return true;
    return false;
}

/* Copy s into out (room for strlen(s) + 1) with each U+2212 as '-'. */
static void ascii_minus(const char *s, char *out)
{
    while (*s) {
        if (strncmp(s, NUM_MINUS, 3) == 0) {
            *out++ = '-';
            s += 3;
        } else {
            *out++ = *s++;
        }
    }
    *out = '\0';
}

/* strtod in the C locale: '.' is the decimal point whatever LC_NUMERIC
 * the program (or a library it loaded) set. s has passed syntax(). */
static double c_strtod(const char *s)
{
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    locale_t old = c ? uselocale(c) : (locale_t)0;
    double v = strtod(s, NULL);
    if (c) {
        uselocale(old);
        freelocale(c);
    }
    return v;
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
