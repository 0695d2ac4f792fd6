/* grow.h - the one growable-buffer helper (plan storage, the painter's
 * buffers).
 *
 * grow_buf() makes room in a realloc'ed array; it never shrinks, never
 * frees and never touches the elements. */
#ifndef QKV_GROW_H
#define QKV_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Grow *buf (elements of size sz, *cap of them) to hold need: the capacity
 * doubles from 64 until it does. false, *buf and *cap unchanged, when out
 * of memory. */
bool grow_buf(void **buf, int *cap, int need, size_t sz);

#endif
