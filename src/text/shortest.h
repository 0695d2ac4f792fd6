/* shortest.h - the one number printer: a double as the shortest decimal
 * that reads back (strtod) as the same double, bit for bit.
 *
 * Ryu (Adams, "Ryu: fast float-to-string conversion", PLDI 2018): exact
 * 128-bit integer arithmetic with tables of powers of five (made at first
 * use), no allocation, no locale, no fallback. The digits are always the
 * shortest that read back, and the nearest to the double among the
 * shortest (a tie to the even one). Everything that prints a number
 * for the user or for another program ends here: fmt_exact (status lines,
 * saved lessons, action text) and the --json writer. */
#ifndef QKV_SHORTEST_H
#define QKV_SHORTEST_H

#include <stddef.h>

/* Room for any number shortest_print writes, with its terminating NUL:
 * "-2.2250738585072014e-308" is 24 bytes. */
#define SHORTEST_MAX 32

/* Write finite v into buf (at least SHORTEST_MAX bytes) and return its
 * length. Between 1e-4 and 1e15 (and whole numbers of up to 17 digits) the
 * number is written as people write it, with a '.' and no exponent
 * ("0.873", "-2", "123.5"); otherwise as d.ddde+XX ("1e-05",
 * "1.7976931348623157e+308"), like printf's %g. -0 is "-0". For NaN and
 * the infinities: "nan", "inf", "-inf". */
size_t shortest_print(double v, char *buf);

#endif
