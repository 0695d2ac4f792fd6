/* loadmats.h - the loader's matrices: tokens, X, the weights and heads,
 * each read from its node of the document in dependency order (tokens
 * before X, X before the weights). Used by load.c only; messages go through
 * the load's Loader (schema.h). */
#ifndef QKV_LOADMATS_H
#define QKV_LOADMATS_H

#include "schema.h"

bool load_tokens(Loader *c, const yaml_node_t *n, Lesson *l);
bool load_x(Loader *c, const yaml_node_t *n, Lesson *l);
bool load_weights(Loader *c, const yaml_node_t *key_node, const yaml_node_t *n, Lesson *l);
bool load_heads(Loader *c, const yaml_node_t *n, Lesson *l);

#endif
