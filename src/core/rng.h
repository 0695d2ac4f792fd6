/* rng.h - numpy's legacy random generator, bit for bit.
 *
 * np.random.seed(s) followed by np.random.randn(...) is MT19937 seeded with
 * init_genrand(s), 53-bit doubles from two outputs, and polar-method normals
 * that keep their second value for the next call (has_gauss). rng_randn()
 * fills a matrix row by row exactly as randn(r, c) * scale does, and the kept
 * normal carries over between successive calls, as it does in numpy. */
#ifndef QKV_RNG_H
#define QKV_RNG_H

#include <stdint.h>
#include "mat.h"

typedef struct {
    uint32_t mt[624];
    int mti;
    int has_gauss;
    double gauss;
} Rng;

void rng_seed(Rng *r, uint32_t seed);
uint32_t rng_u32(Rng *r);
double rng_double(Rng *r);  /* [0, 1) */
double rng_gauss(Rng *r);   /* standard normal */
/* numpy's RandomState.randint(lo, hi): an integer in lo .. hi-1 (hi - lo
 * at most 2^32), by masked rejection: (next & mask) until <= hi - lo - 1,
 * mask the smallest 2^k - 1 that covers it; hi - lo = 1 draws nothing. */
long rng_randint(Rng *r, long lo, long hi);
/* Fill m (already shaped) with rng_gauss(r) * scale, row by row. */
void rng_randn(Rng *r, Mat *m, double scale);

#endif
