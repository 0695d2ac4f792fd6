/* modelload.h - a model lesson's top level (lmodel.h, DESIGN.md "From a
 * head to a model"): vocab:, tokens:, model:, options:, sampling: and
 * weights:, read into Lesson.model with FILE:LINE:COL messages.
 *
 * load.c calls modelload_lesson() when the lesson has a top-level model:
 * key, with the nodes it found. Every range of the model's settings is
 * checked by core/model.h's model_cfg_check() and named from its
 * model_bad_key() / model_bad_range(), so a bound is written once; the
 * model: keys themselves are modelkeys.h's. Reads nothing but its nodes
 * (and, through weightsfile.h and trainload.h, the files they name). */
#ifndef QKV_MODELLOAD_H
#define QKV_MODELLOAD_H

#include <stdbool.h>
#include "lmodel.h"
#include "modelkeys.h"
#include "schema.h"

/* The nodes of a model lesson's top level (NULL: not written). */
typedef struct {
    const yaml_node_t *vocab, *tokens, *model, *weights, *options, *sampling, *train;
    const yaml_node_t *model_key, *weights_key, *train_key;
} ModelNodes;

/* Read vocab, model, options, sampling, tokens and weights into a new
 * l->model (which lesson_free releases), the base model drawn or read. */
bool modelload_lesson(Loader *c, const yaml_node_t *root, const ModelNodes *mn, Lesson *l);

#endif
