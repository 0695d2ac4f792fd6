/* shortest.h - the one number printer: a double as the shortest decimal
 * that reads back (strtod) as the same double, bit for bit.
 *
 * Grisu3 (Loitsch, "Printing floating-point numbers quickly and accurately
 * with integers", PLDI 2010): 64-bit integer arithmetic and a table of 87
 * cached powers of ten, no allocation, no locale, no state. In the few cases
 * in a thousand where that arithmetic cannot be sure of the shortest
 * digits, printf's correctly rounded %.*e finds the fewest digits that
 * read back (strtod). So the digits are always the shortest, and the
 * nearest to the double among the shortest. Everything that prints a number
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
