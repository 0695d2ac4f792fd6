/* loadmats.h - the loader's matrices: tokens, X, the weights and heads,
 * each read from its node of the document in dependency order (tokens
 * before X, X before the weights). Used by load.c only; messages go through
 * the load's Loader (schema.h). */
#ifndef QKV_LOADMATS_H
#define QKV_LOADMATS_H

#include "schema.h"
#include "optload.h"

bool load_tokens(Loader *c, const yaml_node_t *n, Lesson *l);
bool load_x(Loader *c, const yaml_node_t *n, Lesson *l);
bool load_weights(Loader *c, const yaml_node_t *key_node, const yaml_node_t *n, Lesson *l);
bool load_heads(Loader *c, const yaml_node_t *n, Lesson *l);
/* Cross-attention and padding keys (DESIGN.md "From a head to a model"):
 * source: and Xs: (after X), attention: (after source), pad: (after
 * attention), then what they refuse of the options (after options:). */
bool load_source(Loader *c, const yaml_node_t *key, const yaml_node_t *n, const yaml_node_t *xs_key,
                 const yaml_node_t *xs, Lesson *l);
bool load_attention(Loader *c, const yaml_node_t *key, const yaml_node_t *n, const yaml_node_t *src_key,
                    Lesson *l);
bool load_pad(Loader *c, const yaml_node_t *n, Lesson *l);
bool load_cross_options(Loader *c, const yaml_node_t *options, const yaml_node_t *pad, Lesson *l);

#endif
