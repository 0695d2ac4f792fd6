/* shortest_pow5.h - the tables of shortest.c's Ryu: 5^-q and 5^i scaled
 * to 125 significant bits, each {low 64 bits, high 64 bits}, computed
 * exactly the first time they are needed (shortest_pow5.c). */
#ifndef QKV_SHORTEST_POW5_H
#define QKV_SHORTEST_POW5_H

#include <stdbool.h>
#include <stdint.h>

#define SHORTEST_POW5_BITS 125
#define SHORTEST_POW5_INV_COUNT 291 /* q up to 290: the largest double */
#define SHORTEST_POW5_COUNT 326     /* i up to 325: the smallest */

/* floor(2^(bits(5^q) - 1 + 125) / 5^q) + 1, q = 0 ... 290; valid after
 * shortest_pow5_inv_need() */
extern uint64_t shortest_pow5_inv[SHORTEST_POW5_INV_COUNT][2];
/* 5^i shifted to exactly 125 bits (truncated), i = 0 ... 325; valid after
 * shortest_pow5_need() */
extern uint64_t shortest_pow5[SHORTEST_POW5_COUNT][2];

/* Compute a table (shortest_pow5_need: the first time only). */
extern bool shortest_pow5_made, shortest_pow5_inv_made;
void shortest_pow5_make(void);
void shortest_pow5_inv_make(void);

static inline void shortest_pow5_need(void)
{
    if (!shortest_pow5_made)
        shortest_pow5_make();
}

static inline void shortest_pow5_inv_need(void)
{
    if (!shortest_pow5_inv_made)
        shortest_pow5_inv_make();
}

#endif
