/* shortest.c - Ryu: the shortest decimal that reads back as the same
 * double (shortest.h). The digits follow Adams's paper: v's neighbours'
 * midpoints scaled by a power of ten with exact 128-bit products of a
 * table of powers of five (shortest_pow5.c, made up to the entries used),
 * then the digits dropped while the two bounds still differ. The layout (fixed or exponent) follows
 * printf's %g with the fixed range of fmt_exact. */
#include "shortest.h"
#include "shortest_pow5.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SIGNIFICAND_BITS 52
#define EXPONENT_BIAS 1023

/* floor(log10(2^e)) for 0 <= e <= 1650 */
static inline int log10_pow2(int e)
{
    return (int)(((uint32_t)e * 78913u) >> 18);
}

/* floor(log10(5^e)) for 0 <= e <= 2620 */
static inline int log10_pow5(int e)
{
    return (int)(((uint32_t)e * 732923u) >> 20);
}

/* The bit length of 5^e (ceil(log2(5^e)), and 1 for e = 0), e <= 3528. */
static inline int pow5_bits(int e)
{
    return (int)((((uint32_t)e * 1217359u) >> 19) + 1);
}

/* floor(m * mul / 2^j), mul a 128-bit table entry, 64 <= j < 128. */
static inline uint64_t mul_shift(uint64_t m, const uint64_t mul[2], int j)
{
    unsigned __int128 low = (unsigned __int128)m * mul[0], high = (unsigned __int128)m * mul[1];
    return (uint64_t)(((low >> 64) + high) >> (j - 64));
}

/* Is v (> 0) a multiple of 5^p? Multiplying by 5's inverse modulo 2^64
 * undoes a factor 5 exactly, and only then lands at or below 2^64 / 5. */
static bool multiple_of_pow5(uint64_t v, int p)
{
    for (int n = 0;; n++) {
        if (n >= p)
            return true;
        v *= UINT64_C(14757395258967641293); /* 5 * this = 1 (mod 2^64) */
        if (v > UINT64_C(3689348814741910323)) /* (2^64 - 1) / 5 */
            return false;
    }
}

/* v = mv/4 * 2^(e2+2) and its neighbours' midpoints mp = mv + 2 and
 * mm = mv - 1 - mm_shift (quarters), each times 10^-e10 and cut to an
 * integer: vr, vp, vm. vr_zeros, vm_zeros: nothing was cut (known only
 * where it can happen; false elsewhere). */
typedef struct {
    uint64_t vr, vp, vm;
    int e10;
    bool vr_zeros, vm_zeros;
} Scaled;

static Scaled scale(uint64_t mv, int e2, bool accept, uint64_t mm_shift)
{
    Scaled s = {0, 0, 0, 0, false, false};
    uint64_t mp = mv + 2, mm = mv - 1 - mm_shift;
    if (e2 >= 0) { /* times 2^e2 / 10^q: the table's 5^-q */
        int q = log10_pow2(e2) - (e2 > 3);
        int j = -e2 + q + SHORTEST_POW5_BITS + pow5_bits(q) - 1;
        shortest_pow5_inv_need(q);
        const uint64_t *mul = shortest_pow5_inv[q];
        s.e10 = q;
        s.vr = mul_shift(mv, mul, j);
        s.vp = mul_shift(mp, mul, j);
        s.vm = mul_shift(mm, mul, j);
        if (q <= 21) { /* 5^q can divide a 55-bit mv only for small q */
            if (mv % 5 == 0)
                s.vr_zeros = multiple_of_pow5(mv, q);
            else if (accept)
                s.vm_zeros = multiple_of_pow5(mm, q);
            else
                s.vp -= multiple_of_pow5(mp, q); /* mp itself is outside */
        }
    } else { /* times 5^-e2 / 10^q: the table's 5^i */
        int q = log10_pow5(-e2) - (-e2 > 1);
        int i = -e2 - q;
        int j = q - (pow5_bits(i) - SHORTEST_POW5_BITS);
        shortest_pow5_need(i);
        const uint64_t *mul = shortest_pow5[i];
        s.e10 = q + e2;
        s.vr = mul_shift(mv, mul, j);
        s.vp = mul_shift(mp, mul, j);
        s.vm = mul_shift(mm, mul, j);
        if (q <= 1) { /* mv has two trailing zero bits, mp one, mm one if mm_shift */
            s.vr_zeros = true;
            if (accept)
                s.vm_zeros = mm_shift == 1;
            else
                s.vp--;
        } else if (q < 63) {
            s.vr_zeros = (mv & ((UINT64_C(1) << q) - 1)) == 0;
        }
    }
    return s;
}

/* The general case, nothing exact: drop digits (two at a time first)
 * while vp and vm still differ above them; round vr half up. */
static uint64_t drop_digits(Scaled *s)
{
    bool up = false;
    if (s->vp / 100 > s->vm / 100) {
        up = s->vr % 100 >= 50;
        s->vr /= 100;
        s->vp /= 100;
        s->vm /= 100;
        s->e10 += 2;
    }
    while (s->vp / 10 > s->vm / 10) {
        up = s->vr % 10 >= 5;
        s->vr /= 10;
        s->vp /= 10;
        s->vm /= 10;
        s->e10++;
    }
    return s->vr + (s->vr == s->vm || up);
}

/* The exact cases: as drop_digits, but vm may lie on a shorter decimal
 * (taken when the bounds count) and vr may sit halfway (rounded to even). */
/* One decimal digit off vr, vp and vm; *last: the digit vr lost (and
 * whether all it lost before were zeros). */
static void drop_one(Scaled *s, int *last)
{
    s->vr_zeros &= *last == 0;
    *last = (int)(s->vr % 10);
    s->vr /= 10;
    s->vp /= 10;
    s->vm /= 10;
    s->e10++;
}

static uint64_t drop_digits_exact(Scaled *s, bool accept)
{
    int last = 0;
    while (s->vp / 10 > s->vm / 10) {
        s->vm_zeros &= s->vm % 10 == 0;
        drop_one(s, &last);
    }
    if (s->vm_zeros)
        while (s->vm % 10 == 0)
            drop_one(s, &last);
    if (s->vr_zeros && last == 5 && s->vr % 2 == 0)
        last = 4; /* exactly halfway: to even */
    return s->vr + ((s->vr == s->vm && (!accept || !s->vm_zeros)) || last >= 5);
}

/* v's bits (finite, > 0): the shortest digits, value = digits * 10^*e10. */
static uint64_t shortest_digits(uint64_t bits, int *e10)
{
    uint64_t fraction = bits & ((UINT64_C(1) << SIGNIFICAND_BITS) - 1);
    int biased = (int)(bits >> SIGNIFICAND_BITS);
    uint64_t m2 = biased ? fraction | UINT64_C(1) << SIGNIFICAND_BITS : fraction;
    int e2 = (biased ? biased : 1) - EXPONENT_BIAS - SIGNIFICAND_BITS - 2;
    bool accept = (m2 & 1) == 0; /* strtod rounds a tie to the even v */
    Scaled s = scale(4 * m2, e2, accept, fraction != 0 || biased <= 1);
    /* the flags one at a time: a two-byte test of both would read two
     * one-byte stores at once, which the CPU cannot forward (a stall of
     * about a fifth of the whole call) */
    uint64_t out = s.vr_zeros ? drop_digits_exact(&s, accept) : s.vm_zeros ? drop_digits_exact(&s, accept) : drop_digits(&s);
    *e10 = s.e10;
    return out;
}

static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                               "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                               "8081828384858687888990919293949596979899";

static const uint64_t pow10_64[18] = {1,
                                      10,
                                      100,
                                      1000,
                                      10000,
                                      100000,
                                      1000000,
                                      10000000,
                                      100000000,
                                      1000000000,
                                      10000000000,
                                      100000000000,
                                      1000000000000,
                                      10000000000000,
                                      100000000000000,
                                      1000000000000000,
                                      10000000000000000,
                                      100000000000000000};

/* The 8 digits of u < 10^8 at p, leading zeros included: y holds u / 10^6
 * with 32 bits of fraction, rounded up, and each * 100 brings the next
 * two digits above the fraction (checked for every u < 10^8). */
static inline void put8(char *p, uint32_t u)
{
    uint64_t y = ((uint64_t)u * 281474977u >> 16) + 1; /* 281474977 = ceil(2^48 / 10^6) */
    memcpy(p, pairs + 2 * (y >> 32), 2);
    y = (uint32_t)y * UINT64_C(100);
    memcpy(p + 2, pairs + 2 * (y >> 32), 2);
    y = (uint32_t)y * UINT64_C(100);
    memcpy(p + 4, pairs + 2 * (y >> 32), 2);
    y = (uint32_t)y * UINT64_C(100);
    memcpy(p + 6, pairs + 2 * (y >> 32), 2);
}

/* The len digits of v (< 10^17, exactly len digits) at d, in blocks of
 * 8: up to 15 bytes before d are overwritten with zeros. */
static void put_digits(char *d, uint64_t v, int len)
{
    char *end = d + len;
    if (v >= 100000000) {
        uint64_t high = v / 100000000;
        put8(end - 8, (uint32_t)(v - high * 100000000));
        end -= 8;
        v = high;
        if (v >= 100000000) { /* 17 digits */
            high = v / 100000000;
            put8(end - 8, (uint32_t)(v - high * 100000000));
            end[-9] = (char)('0' + high);
            return;
        }
    }
    put8(end - 8, (uint32_t)v);
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

/* The len digits d (no trailing zeros) times 10^(x + 1 - len), laid out
 * at t: fixed or d.ddde+XX. The copies have fixed sizes (no loops, no
 * calls): they read up to 32 bytes of d and write up to 36 of t. */
static size_t layout(char *t, const char *d, int len, int x)
{
    if (!((x >= -4 && x < 15) || (x >= 0 && x < len))) { /* d.ddde+XX */
        t[0] = d[0];
        t[1] = '.';
        memcpy(t + 2, d + 1, 16);
        size_t n = len > 1 ? (size_t)len + 1 : 1;
        return n + put_exponent(t + n, x);
    }
    if (x < 0) { /* 0.000ddd */
        memcpy(t, "0.000000", 8);
        memcpy(t + 1 - x, d, 24);
        return (size_t)(1 - x + len);
    }
    if (x + 1 >= len) { /* ddd000 */
        memcpy(t, d, 17);
        memcpy(t + len, "0000000000000000", 16);
        return (size_t)x + 1;
    }
    memcpy(t, d, 16); /* ddd.ddd */
    t[x + 1] = '.';
    memcpy(t + x + 2, d + x + 1, 16);
    return (size_t)len + 1;
}

size_t shortest_print(double v, char *buf)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bool negative = bits >> 63;
    bits &= ~(UINT64_C(1) << 63);
    char t[48];
    size_t n = 0;
    if (negative)
        t[n++] = '-';
    if (bits >= UINT64_C(0x7FF0000000000000)) { /* inf, nan */
        n = bits == UINT64_C(0x7FF0000000000000) ? n : 0;
        memcpy(t + n, bits == UINT64_C(0x7FF0000000000000) ? "inf" : "nan", 4);
        n += 3;
    } else if (bits == 0) {
        memcpy(t + n, "0", 2);
        n++;
    } else {
        int e10;
        uint64_t out = shortest_digits(bits, &e10);
        int t10 = ((64 - __builtin_clzll(out)) * 1233) >> 12; /* 1233 / 2^12 ~ lg 2 */
        int len = t10 + (out >= pow10_64[t10]);
        char digits[56], *d = digits + 16;
        put_digits(d, out, len);
        n += layout(t + n, d, len, len + e10 - 1);
        t[n] = '\0';
    }
    memcpy(buf, t, SHORTEST_MAX);
    return n;
}
