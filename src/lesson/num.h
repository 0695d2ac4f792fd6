/* num.h - numbers as lessons write them, whatever the program's locale.
 *
 * A lesson number is a plain decimal, [+-]digits[.digits][e[+-]digits];
 * lessons always write '.', so converting and printing happen in the C
 * numeric locale (num_c_begin() ... num_c_end() around the work). */
#ifndef QKV_NUM_H
#define QKV_NUM_H

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>

/* Check the syntax of a decimal number and count the decimals it was
 * written with, minus its exponent (for expect tolerances). */
bool num_syntax(const char *s, int *decimals);
/* Is s a YAML or C spelling of infinity or NaN (".inf", "nan", ...)? */
bool num_nonfinite_word(const char *s);
/* Switch this thread to the C numeric locale. Returns the locale to give
 * back to num_c_end(), or 0 when the switch failed (then nothing changes). */
locale_t num_c_begin(locale_t *mine);
void num_c_end(locale_t old, locale_t mine);
/* Write v with dec decimals (in the current locale), or NaN / inf as words. */
void num_format(char *buf, size_t len, double v, int dec);

#endif
