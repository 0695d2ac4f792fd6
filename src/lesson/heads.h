/* heads.h - resolving head names ("S2", "A1") without ref.h's Ref type, for
 * files that have their own reference type (template.c). See ref_head(). */
#ifndef QKV_HEADS_H
#define QKV_HEADS_H

#include <stdbool.h>
#include <stddef.h>
#include "core/attn.h"

/* ref_head() as a yes/no: true when *m is fine (and mapped), else false
 * with the message in msg. */
bool heads_resolve(const Attn *a, MatId *m, char *msg, size_t len);

#endif
