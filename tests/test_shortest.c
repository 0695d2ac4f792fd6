/* test_shortest.c - the one number printer (lesson/shortest.h): every
 * double it writes reads back (strtod) as the same bits, its layout is
 * %g's with fmt_exact's fixed range, and it is the shortest (Ryu); its
 * tables are right, and it writes exactly what the printer before it
 * (Grisu3 with a printf fallback, kept here as the reference) wrote. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "words/fmt.h"
#include "text/shortest.h"
#include "text/shortest_pow5.h"
#include "out/json.h"

/* ---- the reference: the printer as it was before Ryu, Grisu3 (Loitsch,
 * PLDI 2010) with an exact printf/strtod fallback, kept whole so that the
 * new printer is compared with it character for character ---- */

typedef struct {
    uint64_t f;
    int e;
} ref_DiyFp;

/* 10^k for k = -348, -340, ..., 340: the 64-bit significand (rounded to
 * nearest) and binary exponent, 10^k ~ f * 2^e, f's top bit set. Generated
 * exactly with Python's fractions:
 *   for k in range(-348, 341, 8): e such that 2**63 <= 10**k / 2**e < 2**64,
 *   f = round(10**k / 2**e). */
static const struct {
    uint64_t f;
    int16_t e;
} ref_cached_powers[] = {
    {0xfa8fd5a0081c0288ull, -1220},
    {0xbaaee17fa23ebf76ull, -1193},
    {0x8b16fb203055ac76ull, -1166},
    {0xcf42894a5dce35eaull, -1140},
    {0x9a6bb0aa55653b2dull, -1113},
    {0xe61acf033d1a45dfull, -1087},
    {0xab70fe17c79ac6caull, -1060},
    {0xff77b1fcbebcdc4full, -1034},
    {0xbe5691ef416bd60cull, -1007},
    {0x8dd01fad907ffc3cull, -980},
    {0xd3515c2831559a83ull, -954},
    {0x9d71ac8fada6c9b5ull, -927},
    {0xea9c227723ee8bcbull, -901},
    {0xaecc49914078536dull, -874},
    {0x823c12795db6ce57ull, -847},
    {0xc21094364dfb5637ull, -821},
    {0x9096ea6f3848984full, -794},
    {0xd77485cb25823ac7ull, -768},
    {0xa086cfcd97bf97f4ull, -741},
    {0xef340a98172aace5ull, -715},
    {0xb23867fb2a35b28eull, -688},
    {0x84c8d4dfd2c63f3bull, -661},
    {0xc5dd44271ad3cdbaull, -635},
    {0x936b9fcebb25c996ull, -608},
    {0xdbac6c247d62a584ull, -582},
    {0xa3ab66580d5fdaf6ull, -555},
    {0xf3e2f893dec3f126ull, -529},
    {0xb5b5ada8aaff80b8ull, -502},
    {0x87625f056c7c4a8bull, -475},
    {0xc9bcff6034c13053ull, -449},
    {0x964e858c91ba2655ull, -422},
    {0xdff9772470297ebdull, -396},
    {0xa6dfbd9fb8e5b88full, -369},
    {0xf8a95fcf88747d94ull, -343},
    {0xb94470938fa89bcfull, -316},
    {0x8a08f0f8bf0f156bull, -289},
    {0xcdb02555653131b6ull, -263},
    {0x993fe2c6d07b7facull, -236},
    {0xe45c10c42a2b3b06ull, -210},
    {0xaa242499697392d3ull, -183},
    {0xfd87b5f28300ca0eull, -157},
    {0xbce5086492111aebull, -130},
    {0x8cbccc096f5088ccull, -103},
    {0xd1b71758e219652cull, -77},
    {0x9c40000000000000ull, -50},
    {0xe8d4a51000000000ull, -24},
    {0xad78ebc5ac620000ull, 3},
    {0x813f3978f8940984ull, 30},
    {0xc097ce7bc90715b3ull, 56},
    {0x8f7e32ce7bea5c70ull, 83},
    {0xd5d238a4abe98068ull, 109},
    {0x9f4f2726179a2245ull, 136},
    {0xed63a231d4c4fb27ull, 162},
    {0xb0de65388cc8ada8ull, 189},
    {0x83c7088e1aab65dbull, 216},
    {0xc45d1df942711d9aull, 242},
    {0x924d692ca61be758ull, 269},
    {0xda01ee641a708deaull, 295},
    {0xa26da3999aef774aull, 322},
    {0xf209787bb47d6b85ull, 348},
    {0xb454e4a179dd1877ull, 375},
    {0x865b86925b9bc5c2ull, 402},
    {0xc83553c5c8965d3dull, 428},
    {0x952ab45cfa97a0b3ull, 455},
    {0xde469fbd99a05fe3ull, 481},
    {0xa59bc234db398c25ull, 508},
    {0xf6c69a72a3989f5cull, 534},
    {0xb7dcbf5354e9beceull, 561},
    {0x88fcf317f22241e2ull, 588},
    {0xcc20ce9bd35c78a5ull, 614},
    {0x98165af37b2153dfull, 641},
    {0xe2a0b5dc971f303aull, 667},
    {0xa8d9d1535ce3b396ull, 694},
    {0xfb9b7cd9a4a7443cull, 720},
    {0xbb764c4ca7a44410ull, 747},
    {0x8bab8eefb6409c1aull, 774},
    {0xd01fef10a657842cull, 800},
    {0x9b10a4e5e9913129ull, 827},
    {0xe7109bfba19c0c9dull, 853},
    {0xac2820d9623bf429ull, 880},
    {0x80444b5e7aa7cf85ull, 907},
    {0xbf21e44003acdd2dull, 933},
    {0x8e679c2f5e44ff8full, 960},
    {0xd433179d9c8cb841ull, 986},
    {0x9e19db92b4e31ba9ull, 1013},
    {0xeb96bf6ebadf77d9ull, 1039},
    {0xaf87023b9bf0ee6bull, 1066}
};

static const uint32_t ref_pow10_32[] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
                                    100000000u, 1000000000u};

static ref_DiyFp ref_diy_mul(ref_DiyFp a, ref_DiyFp b)
{
    unsigned __int128 p = (unsigned __int128)a.f * b.f;
    uint64_t h = (uint64_t)(p >> 64), l = (uint64_t)p;
    if (l & (UINT64_C(1) << 63)) /* round to nearest */
        h++;
    return (ref_DiyFp){h, a.e + b.e + 64};
}

static ref_DiyFp ref_diy_normalize(ref_DiyFp x)
{
    int s = __builtin_clzll(x.f);
    return (ref_DiyFp){x.f << s, x.e - s};
}

#define REF_SIGNIFICAND_BITS 52
#define REF_HIDDEN_BIT (UINT64_C(1) << REF_SIGNIFICAND_BITS)

static ref_DiyFp ref_diy_from_double(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    int biased = (int)((bits >> REF_SIGNIFICAND_BITS) & 0x7FF);
    uint64_t sig = bits & (REF_HIDDEN_BIT - 1);
    if (biased)
        return (ref_DiyFp){sig + REF_HIDDEN_BIT, biased - 1075};
    return (ref_DiyFp){sig, -1074};
}

/* The neighbours' midpoints m- and m+ of v, normalised to m+'s exponent. */
static void ref_boundaries(ref_DiyFp v, ref_DiyFp *minus, ref_DiyFp *plus)
{
    ref_DiyFp pl = ref_diy_normalize((ref_DiyFp){(v.f << 1) + 1, v.e - 1});
    ref_DiyFp mi = v.f == REF_HIDDEN_BIT ? (ref_DiyFp){(v.f << 2) - 1, v.e - 2} : (ref_DiyFp){(v.f << 1) - 1, v.e - 1};
    mi.f <<= mi.e - pl.e;
    mi.e = pl.e;
    *plus = pl;
    *minus = mi;
}

/* A cached power c = 10^-k with e + c.e + 64 in [-60, -32]; *k receives k. */
static ref_DiyFp ref_cached_power(int e, int *k)
{
    double dk = (-61 - e) * 0.30102999566398114 + 347; /* 1 / lg 10 */
    int ik = (int)dk;
    if (dk - ik > 0.0)
        ik++;
    unsigned index = (unsigned)((ik >> 3) + 1);
    *k = -(-348 + (int)index * 8);
    return (ref_DiyFp){ref_cached_powers[index].f, ref_cached_powers[index].e};
}

/* Move the last digit down while that brings it closer to w, then say
 * whether the result is certainly the closest shortest one, given that
 * every 64-bit product may be off by `unit` ("ref_round_weed" of Grisu3). */
static bool ref_round_weed(char *buf, int len, uint64_t too_high_w, uint64_t unsafe, uint64_t rest, uint64_t ten_kappa,
                       uint64_t unit)
{
    uint64_t small = too_high_w - unit, big = too_high_w + unit;
    while (rest < small && unsafe - rest >= ten_kappa &&
           (rest + ten_kappa < small || small - rest >= rest + ten_kappa - small)) {
        buf[len - 1]--;
        rest += ten_kappa;
    }
    if (rest < big && unsafe - rest >= ten_kappa &&
        (rest + ten_kappa < big || big - rest > rest + ten_kappa - big))
        return false;
    return 2 * unit <= rest && rest <= unsafe - 4 * unit;
}

static int ref_count_digits(uint32_t n)
{
    int d = 1;
    while (d < 10 && n >= ref_pow10_32[d])
        d++;
    return d;
}

/* The fewest digits of a number strictly inside (low, high) - the scaled
 * neighbours' midpoints, each known to within a unit - closest to w; *k:
 * their decimal exponent (value = digits * 10^k). Returns the count, or 0
 * when the 64-bit arithmetic cannot be sure (a few cases in a thousand). */
static int ref_digit_gen(ref_DiyFp low, ref_DiyFp w, ref_DiyFp high, char *buf, int *k)
{
    uint64_t unit = 1;
    const int shift = -w.e;
    const uint64_t one = UINT64_C(1) << shift;
    uint64_t too_high = high.f + unit, unsafe = too_high - (low.f - unit);
    uint32_t integrals = (uint32_t)(too_high >> shift);
    uint64_t fractionals = too_high & (one - 1);
    int kappa = ref_count_digits(integrals), len = 0;
    while (kappa > 0) {
        uint32_t divisor = ref_pow10_32[kappa - 1], d;
        switch (kappa) { /* constant divisors: multiplications, not divisions */
        case 10: d = integrals / 1000000000u; break;
        case 9: d = integrals / 100000000u; break;
        case 8: d = integrals / 10000000u; break;
        case 7: d = integrals / 1000000u; break;
        case 6: d = integrals / 100000u; break;
        case 5: d = integrals / 10000u; break;
        case 4: d = integrals / 1000u; break;
        case 3: d = integrals / 100u; break;
        case 2: d = integrals / 10u; break;
        default: d = integrals; break;
        }
        buf[len++] = (char)('0' + d);
        integrals -= d * divisor;
        kappa--;
        uint64_t rest = ((uint64_t)integrals << shift) + fractionals;
        if (rest < unsafe) {
            *k += kappa;
            return ref_round_weed(buf, len, too_high - w.f, unsafe, rest, (uint64_t)divisor << shift, unit) ? len : 0;
        }
    }
    for (;;) {
        fractionals *= 10;
        unit *= 10;
        unsafe *= 10;
        buf[len++] = (char)('0' + (fractionals >> shift));
        fractionals &= one - 1;
        kappa--;
        if (fractionals < unsafe) {
            *k += kappa;
            return ref_round_weed(buf, len, (too_high - w.f) * unit, unsafe, fractionals, one, unit) ? len : 0;
        }
        if (len >= 18)
            return 0;
    }
}

/* Does a decimal of p significant digits read back as v? The p-digit
 * numbers nearest v are printf's correctly rounded %.*e and the one beside
 * it on the other side of v (at the edge of a power of two the nearer one
 * may fall outside v's interval while the other is inside). Fills digits
 * and *k when it does. */
static int ref_digits_of_length(double v, int p, char *digits, int *k)
{
    char tmp[48], back[48];
    snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
    char *e = strchr(tmp, 'e');
    int x = atoi(e + 1) - (p - 1);
    long long m = 0;
    for (const char *c = tmp; c < e; c++)
        if (*c >= '0' && *c <= '9')
            m = m * 10 + (*c - '0');
    for (int side = 0; side < 3; side++) {
        long long cand = m + (side == 1 ? 1 : side == 2 ? -1 : 0);
        snprintf(back, sizeof back, "%llde%d", cand, x);
        if (cand <= 0 || strtod(back, NULL) != v)
            continue;
        int len = snprintf(digits, 20, "%lld", cand);
        *k = x;
        while (len > 1 && digits[len - 1] == '0') {
            len--;
            ++*k;
        }
        return len;
    }
    return 0;
}

/* The same digits the slow, exact way, where Grisu3 cannot be sure: the
 * fewest p that reads back: 16 and 15 first (most doubles need 16 or 17),
 * then by halving 1..15 (if p digits read back, so do p + 1; 17 always do). */
static int ref_exact_digits(double v, char *digits, int *k)
{
    int lo = 1, hi = 17;
    if (!ref_digits_of_length(v, 16, digits, k)) /* most doubles need 16 or 17 */
        lo = 17;
    else if (!ref_digits_of_length(v, 15, digits, k))
        lo = hi = 16;
    else
        hi = 15;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ref_digits_of_length(v, mid, digits, k))
            hi = mid;
        else
            lo = mid + 1;
    }
    return ref_digits_of_length(v, lo, digits, k);
}

/* v > 0, finite: its digits (no leading zeros) and *k, value = digits * 10^k. */
static int ref_shortest_digits(double v, char *digits, int *k)
{
    ref_DiyFp w = ref_diy_from_double(v), mminus, mplus;
    ref_boundaries(w, &mminus, &mplus);
    ref_DiyFp c = ref_cached_power(mplus.e, k);
    ref_DiyFp wn = ref_diy_mul(ref_diy_normalize(w), c);
    int len = ref_digit_gen(ref_diy_mul(mminus, c), wn, ref_diy_mul(mplus, c), digits, k);
    return len ? len : ref_exact_digits(v, digits, k);
}

static size_t ref_put_exponent(char *p, int x)
{
    size_t n = 0;
    p[n++] = 'e';
    p[n++] = x < 0 ? '-' : '+';
    unsigned u = (unsigned)(x < 0 ? -x : x);
    if (u >= 100)
        p[n++] = (char)('0' + u / 100);
    p[n++] = (char)('0' + u / 10 % 10);
    p[n++] = (char)('0' + u % 10);
    return n;
}

static size_t ref_print(double v, char *buf)
{
    if (isnan(v))
        return (size_t)(memcpy(buf, "nan", 4), 3);
    size_t n = 0;
    if (signbit(v)) {
        buf[n++] = '-';
        v = -v;
    }
    if (isinf(v)) {
        memcpy(buf + n, "inf", 4);
        return n + 3;
    }
    if (v == 0) {
        memcpy(buf + n, "0", 2);
        return n + 1;
    }
    char d[20];
    int k = 0, len = ref_shortest_digits(v, d, &k);
    int x = len + k - 1; /* the decimal exponent of the first digit */
    bool fixed = (x >= -4 && x < 15) || (x >= 0 && x < len);
    if (!fixed) { /* d.ddde+XX */
        buf[n++] = d[0];
        if (len > 1) {
            buf[n++] = '.';
            memcpy(buf + n, d + 1, (size_t)len - 1);
            n += (size_t)len - 1;
        }
        n += ref_put_exponent(buf + n, x);
    } else if (x < 0) { /* 0.000ddd */
        buf[n++] = '0';
        buf[n++] = '.';
        for (int z = -1; z > x; z--)
            buf[n++] = '0';
        memcpy(buf + n, d, (size_t)len);
        n += (size_t)len;
    } else if (x + 1 >= len) { /* ddd000 */
        memcpy(buf + n, d, (size_t)len);
        n += (size_t)len;
        for (int z = len; z <= x; z++)
            buf[n++] = '0';
    } else { /* ddd.ddd */
        memcpy(buf + n, d, (size_t)x + 1);
        n += (size_t)x + 1;
        buf[n++] = '.';
        memcpy(buf + n, d + x + 1, (size_t)(len - x - 1));
        n += (size_t)(len - x - 1);
    }
    buf[n] = '\0';
    return n;
}

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

/* ---- the tables of shortest_pow5.c, computed again another way: each
 * inverse by dividing 2^j by 5 q times, each bit taken one by one ---- */

#define BIG_LIMBS 40 /* 32-bit limbs, little end first: 1280 bits */
typedef struct {
    uint32_t limb[BIG_LIMBS];
} Big;

static void big_mul_small(Big *a, uint32_t m)
{
    uint64_t carry = 0;
    for (int k = 0; k < BIG_LIMBS; k++) {
        uint64_t p = (uint64_t)a->limb[k] * m + carry;
        a->limb[k] = (uint32_t)p;
        carry = p >> 32;
    }
    assert_true(carry == 0);
}

static void big_div_small(Big *a, uint32_t d) /* floor */
{
    uint64_t rest = 0;
    for (int k = BIG_LIMBS - 1; k >= 0; k--) {
        uint64_t cur = rest << 32 | a->limb[k];
        a->limb[k] = (uint32_t)(cur / d);
        rest = cur % d;
    }
}

static int big_bits(const Big *a)
{
    for (int k = BIG_LIMBS - 1; k >= 0; k--)
        if (a->limb[k])
            return 32 * k + 32 - __builtin_clz(a->limb[k]);
    return 0;
}

/* Bits [from, from + 128) of a (from may be negative: zeros below). */
static void big_bits128(const Big *a, int from, uint64_t out[2])
{
    out[0] = out[1] = 0;
    for (int b = 0; b < 128; b++) {
        int at = from + b;
        if (at >= 0 && at < 32 * BIG_LIMBS && (a->limb[at / 32] >> (at % 32) & 1))
            out[b / 64] |= UINT64_C(1) << (b % 64);
    }
}

/* Every entry of both tables, from 5^i and 2^j / 5^q computed exactly;
 * the tables grow in pieces (as numbers need them), then to their ends. */
static void pow5_tables(void **state)
{
    (void)state;
    static const int upto[] = {0, 1, 7, 30, 200};
    for (size_t k = 0; k < sizeof upto / sizeof *upto; k++) {
        shortest_pow5_need(upto[k]);
        shortest_pow5_inv_need(upto[k]);
        assert_true(shortest_pow5_made > upto[k] && shortest_pow5_inv_made > upto[k]);
    }
    shortest_pow5_need(SHORTEST_POW5_COUNT - 1);
    shortest_pow5_inv_need(SHORTEST_POW5_INV_COUNT - 1);
    assert_int_equal(shortest_pow5_made, SHORTEST_POW5_COUNT);
    assert_int_equal(shortest_pow5_inv_made, SHORTEST_POW5_INV_COUNT);
    Big five = {{1}};
    for (int i = 0; i < SHORTEST_POW5_COUNT; i++) {
        int bits = big_bits(&five);
        uint64_t want[2];
        big_bits128(&five, bits - SHORTEST_POW5_BITS, want);
        if (memcmp(want, shortest_pow5[i], sizeof want) != 0) {
            print_error("shortest_pow5[%d] is wrong\n", i);
            fail();
        }
        if (i < SHORTEST_POW5_INV_COUNT) {
            Big inv = {{0}};
            int j = bits - 1 + SHORTEST_POW5_BITS;
            inv.limb[j / 32] = UINT32_C(1) << (j % 32);
            for (int k = 0; k < i; k++)
                big_div_small(&inv, 5);
            big_bits128(&inv, 0, want);
            want[1] += ++want[0] == 0; /* + 1 */
            if (memcmp(want, shortest_pow5_inv[i], sizeof want) != 0) {
                print_error("shortest_pow5_inv[%d] is wrong\n", i);
                fail();
            }
        }
        big_mul_small(&five, 5);
    }
}

/* ---- the printer against the reference, Grisu3 with printf's fallback ---- */

static long compared;

/* v printed by both: the same text, and it reads back as v. */
static void same_as_reference(double v)
{
    char want[64];
    const char *got = sp(v);
    ref_print(v, want);
    if (strcmp(got, want) != 0) {
        print_error("%a: shortest_print wrote %s, the reference %s\n", v, got, want);
        fail();
    }
    double back = strtod(got, NULL);
    if (isfinite(v) && memcmp(&back, &v, sizeof v) != 0) {
        print_error("%a printed as %s reads back as %a\n", v, got, back);
        fail();
    }
    compared++;
}

static double from_bits(uint64_t bits)
{
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static uint64_t to_bits(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

/* v and its 3 neighbours on either side (both signs). */
static void around(double v)
{
    uint64_t b = to_bits(fabs(v));
    for (int d = -3; d <= 3; d++) {
        uint64_t n = b + (uint64_t)(int64_t)d;
        if (n < UINT64_C(0x7FF0000000000000)) {
            same_as_reference(from_bits(n));
            same_as_reference(-from_bits(n));
        }
    }
}

/* 1,000,000 doubles and more: random finite bit patterns, uniform in
 * [-10, 10], integers, short decimals, floats, subnormals, and around
 * every power of two and of ten; plus 0, -0, the infinities and NaN. */
static void against_reference(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    compared = 0;
    for (int k = 0; k < 300000; k++) {
        uint64_t bits = next_random(&x);
        if ((bits & UINT64_C(0x7FF0000000000000)) != UINT64_C(0x7FF0000000000000))
            same_as_reference(from_bits(bits));
    }
    for (int k = 0; k < 200000; k++)
        same_as_reference((double)(next_random(&x) >> 11) / 9007199254740992.0 * 20 - 10);
    for (int k = 0; k < 150000; k++) { /* integers of 1 to 20 digits */
        uint64_t r = next_random(&x);
        same_as_reference((double)(r >> (r % 64)) * (r & 1 ? -1 : 1));
    }
    for (int k = 0; k < 150000; k++) { /* short decimals: n / 10^p */
        uint64_t r = next_random(&x);
        same_as_reference((double)(r % 1000000) / pow(10, (double)(r >> 40) / (1 << 24) * 30 - 10));
    }
    for (int k = 0; k < 100000; k++) { /* floats, as doubles */
        uint32_t r = (uint32_t)next_random(&x);
        float f;
        memcpy(&f, &r, sizeof f);
        if (isfinite(f))
            same_as_reference(f);
    }
    for (int k = 0; k < 100000; k++) /* subnormals */
        same_as_reference(from_bits(next_random(&x) & ((UINT64_C(1) << 52) - 1)));
    for (int e = -1074; e <= 1023; e++)
        around(ldexp(1, e));
    for (int e = -323; e <= 308; e++) {
        char ten[16];
        snprintf(ten, sizeof ten, "1e%d", e);
        around(strtod(ten, NULL));
    }
    static const double edges[] = {0.0, -0.0, DBL_MIN, DBL_MAX, 5e-324, 1.0 / 0.0, -1.0 / 0.0, NAN};
    for (size_t k = 0; k < sizeof edges / sizeof *edges; k++)
        same_as_reference(edges[k]);
    around(DBL_MAX);
    around(DBL_MIN);
    around(5e-324);
    assert_true(compared >= 1000000);
    print_message("shortest: %ld numbers printed as the reference prints them, and read back\n", compared);
}

/* --json's writer: json_numbers (runs without a room check, the memo) writes
 * exactly what json_number writes one by one: NaN and the infinities first,
 * last, side by side and alone, rows longer than the buffer, and enough
 * numbers (again and again) that the memo is made and used. */
static void json_rows(bool one_by_one, const double *v, const int *len, int rows, char **text, size_t *size)
{
    FILE *out = open_memstream(text, size);
    assert_non_null(out);
    Json *j = malloc(sizeof *j);
    assert_non_null(j);
    json_init(j, out);
    json_array(j, NULL);
    for (int r = 0, at = 0; r < rows; at += len[r++]) {
        if (!one_by_one) {
            json_numbers(j, NULL, v + at, len[r]);
            continue;
        }
        json_array(j, NULL);
        for (int k = 0; k < len[r]; k++)
            json_number(j, NULL, v[at + k]);
        json_end(j);
    }
    json_end(j);
    assert_true(json_finish(j));
    free(j);
    fclose(out);
}

static void json_numbers_as_one_by_one(void **state)
{
    (void)state;
    enum { ROWS = 400 };
    static const int shapes[] = {0, 1, 2, 3, 64, 5, 700, 1, 13};
    int len[ROWS], total = 0;
    for (int r = 0; r < ROWS; r++)
        total += len[r] = shapes[r % 9];
    double *v = malloc(sizeof *v * (size_t)total);
    assert_non_null(v);
    uint64_t x = 88172645463325252u;
    for (int k = 0; k < total; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[k] = (double)(x % 1000) / 7.0 - 70.0; /* a thousand values, again and again */
        if (x % 23 == 0)
            v[k] = ldexp((double)(x >> 11), -(int)(x % 90)); /* long ones */
    }
    static const double odd[] = {NAN, 1.0 / 0.0, -1.0 / 0.0, -0.0, 0.0};
    for (int k = 0; k < total; k += 1 + k % 37) /* first, last, side by side, alone */
        v[k] = odd[k % 5];
    v[total - 1] = -NAN;
    char *want, *got;
    size_t nwant, ngot;
    json_rows(true, v, len, ROWS, &want, &nwant);
    json_rows(false, v, len, ROWS, &got, &ngot);
    assert_true(total > 4 * JSON_MEMO_AFTER);
    assert_true(nwant > 3 * 16384); /* the buffer was flushed, in the middle of rows */
    assert_non_null(strstr(want, "[\"nan\",")); 
    assert_non_null(strstr(want, ",\"-inf\","));
    assert_int_equal(ngot, nwant);
    assert_string_equal(got, want);
    free(want);
    free(got);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pow5_tables), /* first: the tables grow in pieces before any number is printed */
        cmocka_unit_test(layout),
        cmocka_unit_test(round_trips),
        cmocka_unit_test(against_reference),
        cmocka_unit_test(json_numbers_as_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
