/* test_shortest.c - the one number printer (lesson/shortest.h): every
 * double it writes reads back (strtod) as the same bits, its layout is
 * %g's with fmt_exact's fixed range, and it is the shortest (Grisu3,
 * and printf where Grisu3 cannot be sure). */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "text/fmt.h"
#include "text/shortest.h"

static const char *sp(double v)
{
    static char buf[SHORTEST_MAX];
    size_t n = shortest_print(v, buf);
    assert_int_equal(n, strlen(buf));
    return buf;
}

/* Known values, as people and printf's %g write them. */
static void layout(void **state)
{
    (void)state;
    assert_string_equal(sp(0.873), "0.873");
    assert_string_equal(sp(-2), "-2");
    assert_string_equal(sp(0), "0");
    assert_string_equal(sp(-0.0), "-0");
    assert_string_equal(sp(20), "20");
    assert_string_equal(sp(123.5), "123.5");
    assert_string_equal(sp(0.1 + 0.2), "0.30000000000000004");
    assert_string_equal(sp(1e-4), "0.0001");
    assert_string_equal(sp(1e-5), "1e-05");
    assert_string_equal(sp(1.5e-7), "1.5e-07");
    assert_string_equal(sp(1e14), "100000000000000");
    assert_string_equal(sp(1e15), "1e+15");
    assert_string_equal(sp(1234567890123456.0), "1234567890123456");
    assert_string_equal(sp(1e300), "1e+300");
    assert_string_equal(sp(DBL_MAX), "1.7976931348623157e+308");
    assert_string_equal(sp(-DBL_MAX), "-1.7976931348623157e+308");
    assert_string_equal(sp(DBL_MIN), "2.2250738585072014e-308");
    assert_string_equal(sp(4.9406564584124654e-324), "5e-324");
    assert_string_equal(sp(9007199254740993.0), "9007199254740992");
    assert_string_equal(sp(1.0 / 0.0), "inf");
    assert_string_equal(sp(-1.0 / 0.0), "-inf");
    assert_string_equal(sp(NAN), "nan");
    char buf[8];
    assert_string_equal(fmt_exact(0.873, buf, sizeof buf), "0.873"); /* fmt_exact is this printer */
    assert_string_equal(fmt_exact(0.30000000000000004, buf, sizeof buf), "0.30000"); /* cut to fit */
}

/* The fewest significant digits that read back, the slow way: the p-digit
 * mantissas m - 1, m, m + 1 around v's correctly rounded m, p = 1 ... 17. */
static int shortest_digits(double v)
{
    char tmp[64], back[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, fabs(v));
        char *e = strchr(tmp, 'e');
        long long m = strtoll(tmp, NULL, 10);
        for (const char *c = strchr(tmp, '.'); c && c < e; c++)
            if (*c != '.')
                m = m * 10 + (*c - '0');
        for (long long cand = m - 1; cand <= m + 1; cand++) {
            snprintf(back, sizeof back, "%llde%d", cand, atoi(e + 1) - (p - 1));
            if (strtod(back, NULL) == fabs(v))
                return p;
        }
    }
    return 17;
}

static int digits_of(const char *s)
{
    int n = 0, lead = 1, trail = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        if (lead && *s == '0')
            continue;
        lead = 0;
        n++;
        trail = *s == '0' ? trail + 1 : 0;
    }
    return n - trail; /* "100000" has 1 significant digit */
}

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Read v's text back and compare the bits; no digit beyond the shortest. */
static void round_trip(double v)
{
    const char *s = sp(v);
    double back = strtod(s, NULL);
    if (memcmp(&back, &v, sizeof v) != 0) {
        print_error("%.17g printed as %s reads back as %.17g\n", v, s, back);
        fail();
    }
    int extra = digits_of(s) - shortest_digits(v);
    if (extra != 0) {
        print_error("%.17g printed as %s: %d digits, the shortest has %d\n", v, s, digits_of(s), shortest_digits(v));
        fail();
    }
    }

/* 10,000 random bit patterns (every exponent), 10,000 uniform in [-1, 1),
 * 10,000 products of them (the sizes of attention's numbers), and the
 * edges: subnormals, powers of two and ten, DBL_MAX. */
static void round_trips(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    int n = 0;
    for (int k = 0; k < 10000; k++, n++) {
        uint64_t bits = next_random(&x);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v)) {
            k--;
            n--;
            continue;
        }
        round_trip(v);
    }
    for (int k = 0; k < 10000; k++, n += 2) {
        double u = (double)(next_random(&x) >> 11) / 9007199254740992.0 * 2 - 1;
        round_trip(u);
        round_trip(u * ((double)(next_random(&x) >> 11) / 9007199254740992.0 * 8 - 4));
    }
    static const double edges[] = {DBL_MAX, DBL_MIN, 4.9406564584124654e-324, 2.2250738585072009e-308,
                                   1e23, 8.41e21, 5e-324, 9007199254740991.0, 0.1, 1e-4, 9.9999999999999991e-5,
                                   1e15, 999999999999999.9, 1e16, 1e22, 2.0, 0.5};
    for (size_t k = 0; k < sizeof edges / sizeof *edges; k++, n += 2) {
        round_trip(edges[k]);
        round_trip(-edges[k]);
    }
    for (int e = -1074; e <= 1023; e++, n++)
        round_trip(ldexp(1, e));
    print_message("shortest: %d numbers read back exactly, each in the fewest digits\n", n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout),
        cmocka_unit_test(round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
