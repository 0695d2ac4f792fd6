/* modelkeys.h - a model: mapping's keys (layers, d_model, heads, kv_heads,
 * d_k, d_v, d_ff, act, norm, eps, positions, rope_base, ctx, unembed): the
 * one reader, used by a model lesson (modelload.h) and by a weights file's
 * own model: block (weightsfile.h), their messages (every range from
 * core/model.h's model_bad_key() / model_bad_range()) and their written
 * form; and where a file a lesson names is. Reads nothing but its nodes. */
#ifndef QKV_MODELKEYS_H
#define QKV_MODELKEYS_H

#include <stdbool.h>
#include "core/model.h"
#include "lmodel.h"
#include "schema.h"

#define MODEL_KEYS 14   /* layers d_model heads kv_heads d_k d_v d_ff act norm eps positions rope_base ctx unembed */

/* Where each setting was written: the node of the value a ModelBad names
 * (NULL: not written), and each model: key's value node (MODEL_KEYS, in
 * modelload_cfg_key order). */
typedef struct {
    const yaml_node_t *at[MODEL_BAD_COUNT];
    const yaml_node_t *val[MODEL_KEYS], *key[MODEL_KEYS];
} CfgAt;

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

/* The nearest vocab entries to name[0..len) (len < 0: NUL-terminated),
 * quoted and joined, for "did you mean": "\"B\"" or "\"A\", \"B\" or \"C\"". */
const char *modelkeys_near(const LessonModel *lm, const char *name, int len, char *buf, size_t size);

#endif
