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
 * what is written reads back. Nothing here keeps state.
 *
 * The one number printer: fmt_num() writes a number with the lesson's
 * digits (as the screen shows it), fmt_shown()/fmt_eq() are the ≈ rule over
 * what is shown, fmt_exact() the shortest text that reads back bit for bit
 * (shortest.h's Ryū printer: also the --json writer's). Part of text/'s base: it
 * includes nothing of ours, so the lesson model prints its numbers here. */
#ifndef QKV_NUM_H
#define QKV_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "shortest.h"

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
/* Can character cp be part of a number num_parse reads: a digit, the
 * point, a sign (+, -, U+2212) or an exponent's e? */
bool num_char(uint32_t cp);
/* The number at the start of s, read as strtod reads it but always with
 * '.' for the point, whatever LC_NUMERIC says; *end (when end is not NULL)
 * past it. For text already scanned as a number (a template's literal, an
 * answer, a number in narration); num_parse checks a whole field. */
double num_value(const char *s, char **end);
/* v as it reads back from "%.*f" with dec decimals (64 bytes at most):
 * what a reader of the printed digits has. */
double num_as_printed(double v, int dec);
/* v to 15 significant digits, the decimal a person means after arithmetic
 * on decimals: 1.21 + 0.1 is 1.31, not 1.3100000000000003. */
double num_round15(double v);
/* Write v with dec decimals ('.' whatever the locale), or NaN / inf as
 * words. */
void num_format(char *buf, size_t len, double v, int dec);
/* snprintf in the C numeric locale: "%.17g" and "%.*f" always write '.'.
 * Returns what snprintf returns. */
#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
int num_snprintf(char *buf, size_t len, const char *fmt, ...);
/* v as printf's "%.*g" writes it with prec significant digits (6 is plain
 * "%g"), '.' for the point: a number quoted in a message as the user wrote
 * it, near enough (a target weight, a sum). */
void num_general(char *buf, size_t len, double v, int prec);

#define FMT_LINE 4096
#define FMT_MAX_LINES 8

typedef struct {
    int digits;     /* decimals shown */
    bool ascii;     /* no UTF-8: '-', '_12', 'sqrt(3)' */
    bool hiding;    /* an open ask hides the training panel's values (train.c) */
} FmtOpt;

/* A value that an open ask hides: written into an Explain in its place,
 * printed by fmt_num as a mark the caller turns into "?". The ≈ rule skips
 * it: fmt_shown() gives NaN for it, and a NaN operand or result is never
 * judged (the reader sees "?", not a number to redo). */
#define FMT_HIDDEN 8.5e+299

/* Write v with `digits` decimals into buf (at least 32 bytes); negative
 * numbers use U+2212 unless ascii; -0.000 is written 0.000; from a million
 * up, scientific (7.26e+28) so a cell keeps its width; inf and NaN are
 * written as such. Returns buf. */
char *fmt_num(double v, const FmtOpt *o, char *buf, size_t len);
/* Write 1-based index digits as subscripts (₁₂) or "_12" in ASCII. */
char *fmt_sub(int i1, const FmtOpt *o, char *buf, size_t len);
/* The subscript of a cell, "₁₂", or "₁,₁₂" when an index has two digits. */
char *fmt_sub2(int i1, int j1, const FmtOpt *o, char *buf, size_t len);
/* The ≈ rule, for every arithmetic line: v as the screen shows it (rounded
 * to o->digits), to recompute a result from its printed operands; then
 * " = " when that recomputed value `from` prints as `result` does, else
 * " ≈ " (" ~ " in ASCII): a reader redoing it gets another last digit.
 * A hidden value (FMT_HIDDEN, NaN) is not judged; a result the printed
 * operands cannot give at all (−ln 0.000 is ∞) is " ≈ ". */
double fmt_shown(double v, const FmtOpt *o);
const char *fmt_eq(double from, double result, const FmtOpt *o);
/* The same over n values ("exp(s) = [a, b, c]"): " ≈ " when any differs. */
const char *fmt_eq_vec(const double *from, const double *result, int n, const FmtOpt *o);
/* Once per screen: append "   (≈: computed before rounding)" to the first
 * of lines[0..n) that says " ≈ ", unless *noted or one of the lines
 * carries the note already (an explain's lines quoted again); then set *noted. */
void fmt_note_approx(char lines[][FMT_LINE], int n, bool ascii, bool *noted);
/* Append that note to line (a FMT_LINE buffer) whatever it says. */
void fmt_note_add(char *line, bool ascii);
/* The shortest text that reads back (strtod) as exactly v, always with a
 * '.' whatever LC_NUMERIC says: 1e+300, 1e-09, 0.1, -2.5. Returns buf. */
char *fmt_exact(double v, char *buf, size_t len);

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
