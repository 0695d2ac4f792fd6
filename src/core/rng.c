/* rng.c - numpy's legacy RandomState (MT19937 + polar normals), bit for bit. */
#include "rng.h"

#include <math.h>
#include <stddef.h>

enum { MT_N = 624, MT_M = 397 };

#define MT_MATRIX_A   0x9908b0dfU
#define MT_UPPER_MASK 0x80000000U
#define MT_LOWER_MASK 0x7fffffffU

/* init_genrand: numpy's np.random.seed(s) for a 32-bit s; drops any kept normal. */
void rng_seed(Rng *r, uint32_t seed)
{
    r->mt[0] = seed;
    for (uint32_t i = 1; i < MT_N; i++)
        r->mt[i] = 1812433253U * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + i;
    r->mti = MT_N;
    r->has_gauss = 0;
    r->gauss = 0.0;
}

static uint32_t twist_word(uint32_t hi, uint32_t lo, uint32_t far)
{
    uint32_t y = (hi & MT_UPPER_MASK) | (lo & MT_LOWER_MASK);
    return far ^ (y >> 1) ^ ((y & 1U) ? MT_MATRIX_A : 0U);
}

/* Regenerate all 624 words of state (the MT19937 twist). */
static void twist(Rng *r)
{
    uint32_t *mt = r->mt;
    int k;
    for (k = 0; k < MT_N - MT_M; k++)
        mt[k] = twist_word(mt[k], mt[k + 1], mt[k + MT_M]);
    for (; k < MT_N - 1; k++)
        mt[k] = twist_word(mt[k], mt[k + 1], mt[k + (MT_M - MT_N)]);
    mt[MT_N - 1] = twist_word(mt[MT_N - 1], mt[0], mt[MT_M - 1]);
    r->mti = 0;
}

/* The next 32-bit output: genrand_int32 with its tempering. */
uint32_t rng_u32(Rng *r)
{
    if (r->mti >= MT_N)
        twist(r);
    uint32_t y = r->mt[r->mti++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

/* A 53-bit double in [0, 1) from two outputs, as numpy's random_sample. */
double rng_double(Rng *r)
{
    uint32_t a = rng_u32(r) >> 5, b = rng_u32(r) >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* A standard normal by the polar method; the second value of each pair is
 * kept in r and returned by the next call, exactly as numpy's legacy_gauss. */
double rng_gauss(Rng *r)
{
    if (r->has_gauss) {
        double kept = r->gauss;
        r->has_gauss = 0;
        r->gauss = 0.0;
        return kept;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * rng_double(r) - 1.0;
        x2 = 2.0 * rng_double(r) - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    r->gauss = f * x1;
    r->has_gauss = 1;
    return f * x2;
}

void rng_randn(Rng *r, Mat *m, double scale)
{
    for (size_t k = 0; k < (size_t)m->rows * (size_t)m->cols; k++)
        m->v[k] = rng_gauss(r) * scale;
}

long rng_randint(Rng *r, long lo, long hi)
{
    uint32_t range = (uint32_t)(hi - lo - 1), mask = range, v;
    if (range == 0)
        return lo;
    for (int k = 1; k < 32; k <<= 1)
        mask |= mask >> k;
    while ((v = rng_u32(r) & mask) > range)
        ;
    return lo + (long)v;
}
