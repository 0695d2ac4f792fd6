/* shortest_pow5.h - the tables of shortest.c's Ryu: 5^-q and 5^i scaled
 * to 125 significant bits, each {low 64 bits, high 64 bits}, computed
 * exactly the first time they are needed (shortest_pow5.c). */
#ifndef QKV_SHORTEST_POW5_H
#define QKV_SHORTEST_POW5_H

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

/* Compute the table, the first time only. */
void shortest_pow5_need(void);
void shortest_pow5_inv_need(void);

#endif
