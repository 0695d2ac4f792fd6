/* variants.h - `variants:`, what --variant K may change in a lesson whose
 * weights are written out, so that each student gets other numbers.
 *
 *   variants: {add: [Wq, Wk], scale: 0.3, decimals: 2}
 *
 * --variant K seeds numpy's legacy generator with K (np.random.seed(K)) and,
 * for each matrix that `add:` names, in the order named, draws
 * randn(rows, cols) * scale, rounds each number to `decimals` places
 * (default 2) and adds it to the matrix as the lesson writes it. The written
 * weights stay the lesson's own (--variant absent); variant 0 is a variant
 * like any other. A lesson with random: weights varies by its seed and may
 * not declare variants:. Loading checks the declaration (FILE:LINE:COL
 * messages, lessons/README.md); reseeding never fails once loaded. */
#ifndef QKV_VARIANTS_H
#define QKV_VARIANTS_H

#include <stdbool.h>
#include "lesson.h"
#include "schema.h"

/* Read `variants:` (n may be NULL: the lesson declares none) once the
 * weights are read. key is the key node, for messages about the whole. */
bool variants_load(Loader *c, const yaml_node_t *key, const yaml_node_t *n, Lesson *l);

/* Draw variant `seed` of a lesson that declares variants (l->nvary > 0)
 * into its weights, from the written ones. Returns false (changing nothing)
 * when the lesson declares none, or when out of memory. */
bool variants_draw(Lesson *l, unsigned long seed);

#endif
