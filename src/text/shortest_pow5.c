/* shortest_pow5.c - the powers of five of Ryu (shortest.c), as 128-bit
 * numbers {low 64 bits, high 64 bits}, computed exactly with big integers
 * up to the largest entry needed so far, rather than stored: as a table
 * they were 10 KB more of the gzipped web page. Making a whole table at
 * the first number was 45,000 instructions, 3% of `--json 1`; a lesson's
 * numbers (0.001 to 1000) need the first 30 entries or so. tests/test_shortest.c computes them again another
 * way and compares every entry. */
#include "shortest_pow5.h"

uint64_t shortest_pow5_inv[SHORTEST_POW5_INV_COUNT][2];
uint64_t shortest_pow5[SHORTEST_POW5_COUNT][2];

/* A big number: 64-bit limbs, the lowest first. 5^325 has 755 bits; the
 * inverses start from 2^832. */
#define LIMBS 14
#define TOP_BIT 832

/* The 128 bits of x (n limbs) from bit `from` up (from > -128; bits
 * outside x are zero) into out: {low, high}. */
static void bits128(const uint64_t *x, int n, int from, uint64_t out[2])
{
    unsigned __int128 v;
    if (from < 0) { /* x < 2^(from + 128): two limbs at most */
        v = ((unsigned __int128)(n > 1 ? x[1] : 0) << 64 | x[0]) << -from;
    } else {
        int k = from / 64, s = from % 64;
        v = (unsigned __int128)(k + 1 < n ? x[k + 1] : 0) << 64 | (k < n ? x[k] : 0);
        v >>= s;
        if (s && k + 2 < n)
            v |= (unsigned __int128)x[k + 2] << (128 - s);
    }
    out[0] = (uint64_t)v;
    out[1] = (uint64_t)(v >> 64);
}

/* 5^i shifted to exactly 125 bits (truncated), i = made ... upto; p is
 * 5^made (n limbs), kept for the next call. */
static void make_pow5(int made, int upto)
{
    static uint64_t p[LIMBS] = {1};
    static int n = 1;
    for (int i = made; i <= upto; i++) {
        int bits = 64 * n - __builtin_clzll(p[n - 1]);
        bits128(p, n, bits - SHORTEST_POW5_BITS, shortest_pow5[i]);
        unsigned __int128 carry = 0;
        for (int k = 0; k < n; k++) {
            carry += (unsigned __int128)p[k] * 5;
            p[k] = (uint64_t)carry;
            carry >>= 64;
        }
        if (carry)
            p[n++] = (uint64_t)carry;
    }
}

/* floor(2^j / 5^q) + 1, j = bits(5^q) - 1 + 125, q = made ... upto: from
 * r = floor(2^832 / 5^q) (divided by 5 once per q), as floor(r / 2^(832 - j));
 * r (n limbs) is kept for the next call. */
static void make_pow5_inv(int made, int upto)
{
    static uint64_t r[LIMBS];
    static int n;
    if (made == 0) {
        n = TOP_BIT / 64 + 1;
        r[TOP_BIT / 64] = UINT64_C(1) << TOP_BIT % 64;
    }
    for (int q = made; q <= upto; q++) {
        int bits = (int)((((uint32_t)q * 1217359u) >> 19) + 1); /* of 5^q */
        bits128(r, n, TOP_BIT - (bits - 1 + SHORTEST_POW5_BITS), shortest_pow5_inv[q]);
        shortest_pow5_inv[q][1] += ++shortest_pow5_inv[q][0] == 0; /* + 1 */
        uint64_t rest = 0;
        for (int k = n - 1; k >= 0; k--) { /* / 5, in halves of 32 bits */
            uint64_t high = rest << 32 | r[k] >> 32, low;
            rest = high % 5;
            low = rest << 32 | (r[k] & 0xFFFFFFFFu);
            rest = low % 5;
            r[k] = high / 5 << 32 | low / 5;
        }
        if (r[n - 1] == 0)
            n--;
    }
}

int shortest_pow5_made, shortest_pow5_inv_made;

void shortest_pow5_make(int upto)
{
    make_pow5(shortest_pow5_made, upto);
    shortest_pow5_made = upto + 1;
}

void shortest_pow5_inv_make(int upto)
{
    make_pow5_inv(shortest_pow5_inv_made, upto);
    shortest_pow5_inv_made = upto + 1;
}
