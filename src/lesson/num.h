/* num.h - numbers as lessons and students write them, whatever the locale.
 *
 * Every place a number is read goes through num_parse(): X, the weights,
 * overrides and expect in a lesson file (load.c), and the action language
 * (action.c: `do:`, the view's ':' prompt and its cell editor). A number
 * is a plain decimal, [sign]digits[.digits][e[sign]digits], where a sign is
 * '+', '-' or the Unicode minus U+2212 that the screen and --dump print, so
 * numbers copied from the tool read back. The decimal point is always '.':
 * conversion never depends on LC_NUMERIC (it runs in the C locale).
 * Printing (num_format, num_snprintf) is locale-proof the same way, so
 * what is written reads back. Nothing here keeps state. */
#ifndef QKV_NUM_H
#define QKV_NUM_H

#include <stdbool.h>
#include <stddef.h>

#define NUM_MINUS "\xe2\x88\x92"   /* U+2212 MINUS SIGN, as UTF-8 */

typedef enum {
    NUM_OK,
    NUM_SYNTAX,      /* not a plain decimal */
    NUM_NONFINITE,   /* a spelling of infinity or NaN (".inf", "nan", ...) */
    NUM_RANGE        /* too large: it would be infinite */
} NumStatus;

/* Read the whole of s as a finite number into *v. *decimals (may be NULL)
 * receives the decimals written minus the exponent (0.873 -> 3, 2 -> 0,
 * 5e-3 -> 3), for expect tolerances. */
NumStatus num_parse(const char *s, double *v, int *decimals);
/* Write v with dec decimals ('.' whatever the locale), or NaN / inf as
 * words. */
void num_format(char *buf, size_t len, double v, int dec);
/* snprintf in the C numeric locale: "%.17g" and "%.*f" always write '.'.
 * Returns what snprintf returns. */
#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
int num_snprintf(char *buf, size_t len, const char *fmt, ...);

/* Whole numbers (counts, indices, seeds, sizes) have one parser and one
 * saturation rule: ASCII digits only (no sign, no space, no '.'), the
 * value kept at NUM_WHOLE_MAX once it passes it. Every limit is below
 * NUM_WHOLE_MAX, so a saturated number is always refused, and messages
 * quote the digits as written (num_whole_text), never the saturated value. */
#define NUM_WHOLE_MAX 999999999999LL

/* Read the digits at the start of s into *v. Returns how many bytes were
 * digits (0: s does not start with one; *v is then 0). */
size_t num_whole(const char *s, long long *v);
/* True when the whole of s is one whole number (num_whole reads it all). */
bool num_whole_all(const char *s, long long *v);
/* The n bytes at s as a message quotes them: cut after 24 bytes, then
 * "...". Returns buf. */
const char *num_whole_text(const char *s, size_t n, char *buf, size_t len);

/* Whole numbers (counts, indices, seeds, sizes) have one parser and one
 * saturation rule: ASCII digits only (no sign, no space, no '.'), the
 * value kept at NUM_WHOLE_MAX once it passes it. Every limit is below
 * NUM_WHOLE_MAX, so a saturated number is always refused, and messages
 * quote the digits as written (num_whole_text), never the saturated value. */
#define NUM_WHOLE_MAX 999999999999LL

/* Read the digits at the start of s into *v. Returns how many bytes were
 * digits (0: s does not start with one; *v is then 0). */
size_t num_whole(const char *s, long long *v);
/* True when the whole of s is one whole number (num_whole reads it all). */
bool num_whole_all(const char *s, long long *v);
/* The n bytes at s as a message quotes them: cut after 24 bytes, then
 * "...". Returns buf. */
const char *num_whole_text(const char *s, size_t n, char *buf, size_t len);

#endif
