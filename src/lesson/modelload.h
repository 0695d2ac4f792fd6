/* modelload.h - a model lesson's top level (lmodel.h, DESIGN.md "From a
 * head to a model"): vocab:, tokens:, model:, options:, sampling: and
 * weights:, read into Lesson.model with FILE:LINE:COL messages.
 *
 * load.c calls modelload_lesson() when the lesson has a top-level model:
 * key, with the nodes it found. Every range of the model's settings is
 * checked by core/model.h's model_cfg_check() and named from its
 * model_bad_key() / model_bad_range(), so a bound is written once. The
 * model: keys are read by one reader, modelload_cfg(), which the weights
 * files (weightsfile.h) use for their own model: block. Reads nothing but
 * its nodes (and, through weightsfile.h, the weights file named). */
#ifndef QKV_MODELLOAD_H
#define QKV_MODELLOAD_H

#include <stdbool.h>
#include "lmodel.h"
#include "schema.h"

#define MODEL_KEYS 14   /* layers d_model heads kv_heads d_k d_v d_ff act norm eps positions rope_base ctx unembed */

/* The nodes of a model lesson's top level (NULL: not written). */
typedef struct {
    const yaml_node_t *vocab, *tokens, *model, *weights, *options, *sampling, *train;
    const yaml_node_t *model_key, *weights_key, *train_key;
} ModelNodes;

/* Where each setting was written: the node of the value a ModelBad names
 * (NULL: not written), and each model: key's value node (MODEL_KEYS, in
 * modelload_cfg_key order). */
typedef struct {
    const yaml_node_t *at[MODEL_BAD_COUNT];
    const yaml_node_t *val[MODEL_KEYS], *key[MODEL_KEYS];
} CfgAt;

/* Read vocab, model, options, sampling, tokens and weights into a new
 * l->model (which lesson_free releases), the base model drawn or read. */
bool modelload_lesson(Loader *c, const yaml_node_t *root, const ModelNodes *mn, Lesson *l);

/* The model: mapping n into *cfg (set to the defaults first by the
 * caller); at records where. Types only: ranges are model_cfg_check's. */
bool modelload_cfg(Loader *c, const yaml_node_t *n, ModelCfg *cfg, CfgAt *at);
/* Refuse setting b of cfg (model_cfg_check's answer) at node n. Returns false. */
bool modelload_cfg_fail(Loader *c, const ModelCfg *cfg, ModelBad b, const yaml_node_t *n);
/* model: key k's name (0 .. MODEL_KEYS-1), and its value in cfg as a
 * lesson writes it (kv_heads, d_k, d_v as the model uses them). */
const char *modelload_cfg_key(int k);
void modelload_cfg_text(const ModelCfg *cfg, int k, char *buf, size_t len);

/* A file named in a lesson, resolved against the lesson's folder (an
 * absolute path stays): malloc'd, NULL when out of memory. */
char *modelload_path(const char *lesson_file, const char *name);

#endif
