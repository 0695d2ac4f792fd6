/* num.c - lesson numbers, whatever the locale (see num.h). */
#include "num.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

bool num_syntax(const char *s, int *decimals)
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

bool num_nonfinite_word(const char *s)
{
    static const char *const words[] = {".inf", "inf", "infinity", ".nan", "nan"};
    if (*s == '+' || *s == '-')
        s++;
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (strcasecmp(s, words[k]) == 0)
            return true;
    return false;
}

locale_t num_c_begin(locale_t *mine)
{
    locale_t base = duplocale(uselocale((locale_t)0));
    *mine = base ? newlocale(LC_NUMERIC_MASK, "C", base) : (locale_t)0;
    if (!*mine) {
        if (base)
            freelocale(base);
        return (locale_t)0;
    }
    return uselocale(*mine);
}

void num_c_end(locale_t old, locale_t mine)
{
    if (!mine)
        return;
    uselocale(old);
    freelocale(mine);
}

void num_format(char *buf, size_t len, double v, int dec)
{
    if (isnan(v))
        snprintf(buf, len, "NaN");
    else if (isinf(v))
        snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
    else
        snprintf(buf, len, "%.*f", dec < 0 ? 0 : dec, v);
}
