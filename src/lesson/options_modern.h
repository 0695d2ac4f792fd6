/* options_modern.h - the lesson options of today's models (DESIGN.md
 * "Attention in today's models"): kv_heads (top level, a shape), and in
 * options: mask: window W, positions: rope, rope_base, offset, softmax:
 * online, block. Each bad value is one FILE:LINE:COL message saying what to
 * write instead. Used by load.c only; reads nothing but its nodes. */
#ifndef QKV_OPTIONS_MODERN_H
#define QKV_OPTIONS_MODERN_H

#include <stdbool.h>
#include "schema.h"

/* kv_heads: 1..heads, dividing heads (absent: = heads). l->heads is read. */
bool options_kv_heads(Loader *c, const yaml_node_t *n, Lesson *l);
/* A scalar that is one of three words: *out = 0, 1 or 2. */
bool options_choice(Loader *c, const yaml_node_t *n, const char *name, const char *a, const char *b, const char *x,
                    int *out);
/* mask: none | causal | window W (W >= 1 into l->window). */
bool options_mask(Loader *c, const yaml_node_t *n, Lesson *l, int *mask);
/* rope_base (> 1), offset (0..ATTN_OFFSET_MAX), block (1..MAT_MAX), and
 * RoPE's even d_k (pos_node: where positions: rope is written). */
bool options_modern(Loader *c, const yaml_node_t *pos_node, int pos, const yaml_node_t *base, const yaml_node_t *offset,
                    const yaml_node_t *block, Lesson *l);

#endif
