/* shortest.c - Grisu3: the shortest decimal that reads back as the same
 * double (shortest.h). The digit generation follows Loitsch's paper; the
 * layout (fixed or exponent) follows printf's %g with the fixed range of
 * fmt_exact. */
#include "shortest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint64_t f;
    int e;
} DiyFp;

/* 10^k for k = -348, -340, ..., 340: the 64-bit significand (rounded to
 * nearest) and binary exponent, 10^k ~ f * 2^e, f's top bit set. Generated
 * exactly with Python's fractions:
 *   for k in range(-348, 341, 8): e such that 2**63 <= 10**k / 2**e < 2**64,
 *   f = round(10**k / 2**e). */
static const struct {
    uint64_t f;
    int16_t e;
} cached_powers[] = {
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

static const uint32_t pow10_32[] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u,
                                    100000000u, 1000000000u};

static DiyFp diy_mul(DiyFp a, DiyFp b)
{
    unsigned __int128 p = (unsigned __int128)a.f * b.f;
    uint64_t h = (uint64_t)(p >> 64), l = (uint64_t)p;
    if (l & (UINT64_C(1) << 63)) /* round to nearest */
        h++;
    return (DiyFp){h, a.e + b.e + 64};
}

static DiyFp diy_normalize(DiyFp x)
{
    int s = __builtin_clzll(x.f);
    return (DiyFp){x.f << s, x.e - s};
}

#define SIGNIFICAND_BITS 52
#define HIDDEN_BIT (UINT64_C(1) << SIGNIFICAND_BITS)

static DiyFp diy_from_double(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    int biased = (int)((bits >> SIGNIFICAND_BITS) & 0x7FF);
    uint64_t sig = bits & (HIDDEN_BIT - 1);
    if (biased)
        return (DiyFp){sig + HIDDEN_BIT, biased - 1075};
    return (DiyFp){sig, -1074};
}

/* The neighbours' midpoints m- and m+ of v, normalised to m+'s exponent. */
static void boundaries(DiyFp v, DiyFp *minus, DiyFp *plus)
{
    DiyFp pl = diy_normalize((DiyFp){(v.f << 1) + 1, v.e - 1});
    DiyFp mi = v.f == HIDDEN_BIT ? (DiyFp){(v.f << 2) - 1, v.e - 2} : (DiyFp){(v.f << 1) - 1, v.e - 1};
    mi.f <<= mi.e - pl.e;
    mi.e = pl.e;
    *plus = pl;
    *minus = mi;
}

/* A cached power c = 10^-k with e + c.e + 64 in [-60, -32]; *k receives k. */
static DiyFp cached_power(int e, int *k)
{
    double dk = (-61 - e) * 0.30102999566398114 + 347; /* 1 / lg 10 */
    int ik = (int)dk;
    if (dk - ik > 0.0)
        ik++;
    unsigned index = (unsigned)((ik >> 3) + 1);
    *k = -(-348 + (int)index * 8);
    return (DiyFp){cached_powers[index].f, cached_powers[index].e};
}

/* Move the last digit down while that brings it closer to w, then say
 * whether the result is certainly the closest shortest one, given that
 * every 64-bit product may be off by `unit` ("round_weed" of Grisu3). */
static bool round_weed(char *buf, int len, uint64_t too_high_w, uint64_t unsafe, uint64_t rest, uint64_t ten_kappa,
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

static int count_digits(uint32_t n)
{
    int d = 1;
    while (d < 10 && n >= pow10_32[d])
        d++;
    return d;
}

/* The fewest digits of a number strictly inside (low, high) - the scaled
 * neighbours' midpoints, each known to within a unit - closest to w; *k:
 * their decimal exponent (value = digits * 10^k). Returns the count, or 0
 * when the 64-bit arithmetic cannot be sure (a few cases in a thousand). */
static int digit_gen(DiyFp low, DiyFp w, DiyFp high, char *buf, int *k)
{
    uint64_t unit = 1;
    const int shift = -w.e;
    const uint64_t one = UINT64_C(1) << shift;
    uint64_t too_high = high.f + unit, unsafe = too_high - (low.f - unit);
    uint32_t integrals = (uint32_t)(too_high >> shift);
    uint64_t fractionals = too_high & (one - 1);
    int kappa = count_digits(integrals), len = 0;
    while (kappa > 0) {
        uint32_t divisor = pow10_32[kappa - 1], d;
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
            return round_weed(buf, len, too_high - w.f, unsafe, rest, (uint64_t)divisor << shift, unit) ? len : 0;
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
            return round_weed(buf, len, (too_high - w.f) * unit, unsafe, fractionals, one, unit) ? len : 0;
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
static int digits_of_length(double v, int p, char *digits, int *k)
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
static int exact_digits(double v, char *digits, int *k)
{
    int lo = 1, hi = 17;
    if (!digits_of_length(v, 16, digits, k)) /* most doubles need 16 or 17 */
        lo = 17;
    else if (!digits_of_length(v, 15, digits, k))
        lo = hi = 16;
    else
        hi = 15;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (digits_of_length(v, mid, digits, k))
            hi = mid;
        else
            lo = mid + 1;
    }
    return digits_of_length(v, lo, digits, k);
}

/* v > 0, finite: its digits (no leading zeros) and *k, value = digits * 10^k. */
static int shortest_digits(double v, char *digits, int *k)
{
    DiyFp w = diy_from_double(v), mminus, mplus;
    boundaries(w, &mminus, &mplus);
    DiyFp c = cached_power(mplus.e, k);
    DiyFp wn = diy_mul(diy_normalize(w), c);
    int len = digit_gen(diy_mul(mminus, c), wn, diy_mul(mplus, c), digits, k);
    return len ? len : exact_digits(v, digits, k);
}

static size_t put_exponent(char *p, int x)
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

size_t shortest_print(double v, char *buf)
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
    int k = 0, len = shortest_digits(v, d, &k);
    int x = len + k - 1; /* the decimal exponent of the first digit */
    bool fixed = (x >= -4 && x < 15) || (x >= 0 && x < len);
    if (!fixed) { /* d.ddde+XX */
        buf[n++] = d[0];
        if (len > 1) {
            buf[n++] = '.';
            memcpy(buf + n, d + 1, (size_t)len - 1);
            n += (size_t)len - 1;
        }
        n += put_exponent(buf + n, x);
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
