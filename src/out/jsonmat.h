/* jsonmat.h - the pieces of a state that --json writes the same way for a
 * one-layer lesson (statejson.c) and a model lesson (modeljson.c): a
 * matrix as a list of rows, and the "options" object from the option
 * table. They only write through json.c's writer; they compute nothing. */
#ifndef QKV_JSONMAT_H
#define QKV_JSONMAT_H

#include "core/attn.h"
#include "json.h"

/* "name": [[...], ...], a list of rows (name NULL: an array element); with
 * `masked` (S under that state's mask), the masked entries are null. */
void json_matrix(Json *j, const char *name, const Mat *m, const Attn *masked);
/* "options": the option table's rows that --json writes (options.h) for
 * state a: words as strings, numbers as numbers. With positions non-NULL,
 * the positions row is written as that word (a model's own positions:
 * "learned" ...) instead of a's. */
void json_options(Json *j, const Attn *a, const char *positions);

#endif
