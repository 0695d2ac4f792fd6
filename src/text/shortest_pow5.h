/* shortest_pow5.h - the tables of shortest.c's Ryu: 5^-q and 5^i scaled
 * to 125 significant bits, each {low 64 bits, high 64 bits}
 * (shortest_pow5.c says how they are made). */
#ifndef QKV_SHORTEST_POW5_H
#define QKV_SHORTEST_POW5_H

#include <stdint.h>

#define SHORTEST_POW5_BITS 125
#define SHORTEST_POW5_INV_COUNT 291
#define SHORTEST_POW5_COUNT 326

/* floor(2^(bits(5^q) - 1 + 125) / 5^q) + 1, q = 0 ... 290 */
extern const uint64_t shortest_pow5_inv[SHORTEST_POW5_INV_COUNT][2];
/* 5^i shifted to exactly 125 bits (truncated), i = 0 ... 325 */
extern const uint64_t shortest_pow5[SHORTEST_POW5_COUNT][2];

#endif
