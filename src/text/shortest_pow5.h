/* shortest_pow5.h - the tables of shortest.c's Ryu: 5^-q and 5^i scaled
 * to 125 significant bits, each {low 64 bits, high 64 bits}, computed
 * exactly up to the largest entry needed so far (shortest_pow5.c). */
#ifndef QKV_SHORTEST_POW5_H
#define QKV_SHORTEST_POW5_H

#include <stdbool.h>
#include <stdint.h>

#define SHORTEST_POW5_BITS 125
#define SHORTEST_POW5_INV_COUNT 291 /* q up to 290: the largest double */
#define SHORTEST_POW5_COUNT 326     /* i up to 325: the smallest */

/* floor(2^(bits(5^q) - 1 + 125) / 5^q) + 1, q = 0 ... 290; entry q is
 * valid after shortest_pow5_inv_need(q) */
extern uint64_t shortest_pow5_inv[SHORTEST_POW5_INV_COUNT][2];
/* 5^i shifted to exactly 125 bits (truncated), i = 0 ... 325; entry i is
 * valid after shortest_pow5_need(i) */
extern uint64_t shortest_pow5[SHORTEST_POW5_COUNT][2];

/* How many entries of each table are made (the first ones); make them up
 * to entry upto (shortest_pow5_need: only those not made yet). */
extern int shortest_pow5_made, shortest_pow5_inv_made;
void shortest_pow5_make(int upto);
void shortest_pow5_inv_make(int upto);

static inline void shortest_pow5_need(int i)
{
    if (i >= shortest_pow5_made)
        shortest_pow5_make(i);
}

static inline void shortest_pow5_inv_need(int q)
{
    if (q >= shortest_pow5_inv_made)
        shortest_pow5_inv_make(q);
}

#endif
