/* optload.h - reading a lesson's options: and its kv_heads from the YAML
 * document, row by row of the option table (options.h). Each bad value is
 * one FILE:LINE:COL message saying what to write instead; every option is
 * read, so all their errors are listed. Used by load.c only; reads nothing
 * but its nodes and the lesson's shapes. */
#ifndef QKV_OPTLOAD_H
#define QKV_OPTLOAD_H

#include <stdbool.h>
#include "options.h"
#include "schema.h"

/* kv_heads: 1..heads, dividing heads (absent: = heads). l->heads is read. */
bool options_kv_heads(Loader *c, const yaml_node_t *n, Lesson *l);
/* Row r's value in a lesson as loaded (options.h's option_get for a state). */
double option_get_lesson(const Lesson *l, const OptRow *r);
/* options: (n may be NULL: every default). Each option is set to its
 * default, then to the value written when that value is good; false when
 * any is not (or the keys are wrong), the others read all the same.
 * positions: rope needs an even d_k (l->d_k is read). */
bool options_load(Loader *c, const yaml_node_t *n, Lesson *l);
/* A top-level word of the table (OF_TOP: attention) read by its row into l. */
bool options_top_word(Loader *c, const yaml_node_t *n, OptId id, Lesson *l);

#endif
