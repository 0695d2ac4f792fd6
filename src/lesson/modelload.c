/* modelload.c - a model lesson's vocab:, model:, options:, sampling:,
 * tokens: and weights: (see modelload.h). */
#include "modelload.h"
#include "modelkeys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadmats.h"
#include "optload.h"
#include "text/i18n.h"
#include "text/num.h"
#include "trainload.h"
#include "weightsfile.h"

/* ---- vocab: and tokens: ----------------------------------------------------- */

/* One vocab entry: non-empty text of at most VOCAB_NAME_BYTES, not given before. */
static bool vocab_entry(Loader *c, const yaml_node_t *n, int k, LessonModel *lm)
{
    char what[32];
    schema_fill(what, sizeof what, _("vocab entry %d"), NULL, k + 1);
    if (!schema_want_text(c, n, what))
        return false;
    size_t len = n->data.scalar.length;
    if (len == 0)
        return diag_fail(&c->d, n, _("vocab entry %d is empty, every entry needs some text"), k + 1);
    if (len > VOCAB_NAME_BYTES)
        return diag_fail(&c->d, n, _("vocab entry %d is longer than %d bytes (it has %zu), shorten it"), k + 1,
                         VOCAB_NAME_BYTES, len);
    int was = lmodel_vocab_index(lm, ydoc_str(n), (int)len);
    if (was >= 0)
        return diag_fail(&c->d, n, _("vocab entry %d %s is given twice, the first is entry %d"), k + 1,
                         diag_quote(&c->d, ydoc_str(n)), was + 1);
    if (!schema_dup_text(c, n, what, &lm->vocab[lm->nvocab]))
        return false;
    lm->nvocab++;
    return true;
}

/* vocab: 2..128 distinct entries; cfg.vocab is their count. */
static bool load_vocab(Loader *c, const yaml_node_t *n, LessonModel *lm, CfgAt *at)
{
    double lo, hi;
    char a[SHORTEST_MAX], z[SHORTEST_MAX];
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("vocab must be a list of symbols like [A, B, C]")))
        return false;
    int cnt = ydoc_seq_len(n);
    at->at[MODEL_BAD_VOCAB] = n;
    lm->cfg.vocab = cnt;
    model_bad_range(&lm->cfg, MODEL_BAD_VOCAB, &lo, &hi);
    if (cnt < lo || cnt > hi)
        return diag_fail(&c->d, n, cnt == 1 ? _("vocab has %d entry, a model lesson needs %s to %s")
                                            : _("vocab has %d entries, a model lesson needs %s to %s"), cnt,
                         fmt_exact(lo, a, sizeof a), fmt_exact(hi, z, sizeof z));
    lm->vocab = calloc((size_t)cnt, sizeof *lm->vocab);
    if (!lm->vocab)
        return diag_oom(&c->d, n);
    bool ok = true;
    for (int k = 0; k < cnt; k++)
        ok = vocab_entry(c, ydoc_seq_item(c->doc, n, k), k, lm) && ok;
    return ok;
}

/* Refuse token k, which is not in the vocab, naming the nearest entries. */
static bool token_unknown(Loader *c, const yaml_node_t *n, int k, const LessonModel *lm)
{
    char list[200];
    return diag_fail(&c->d, n, _("token %d %s is not in vocab (did you mean %s?)"), k + 1,
                     diag_quote(&c->d, ydoc_str(n)), modelkeys_near(lm, ydoc_str(n), -1, list, sizeof list));
}

/* tokens: as a lesson's (1..64 of them, loadmats.c), each an entry of the
 * vocab, as many as the model's ctx takes. */
static bool load_model_tokens(Loader *c, const yaml_node_t *n, Lesson *l, LessonModel *lm)
{
    if (!load_tokens(c, n, l))
        return false;
    bool ok = true;
    for (int k = 0; k < l->ntok; k++) {
        const yaml_node_t *t = ydoc_seq_item(c->doc, n, k);
        lm->tok[k] = lmodel_vocab_index(lm, l->tokens[k], -1);
        if (lm->tok[k] < 0)
            ok = token_unknown(c, t, k, lm) && ok;
    }
    int room = lm->cfg.ctx - (lm->cfg.positions == MPOS_LEARNED ? lm->cfg.offset : 0);
    if (ok && l->ntok > room)
        return lm->cfg.positions == MPOS_LEARNED && lm->cfg.offset > 0
                   ? diag_fail(&c->d, n, _("%d tokens do not fit the model's ctx = %d from offset %d; write at most "
                                           "%d tokens, or a larger ctx in model:"), l->ntok, lm->cfg.ctx,
                               lm->cfg.offset, room)
                   : diag_fail(&c->d, n, _("%d tokens do not fit the model's ctx = %d (its longest input); write at "
                                           "most %d tokens, or a larger ctx in model:"), l->ntok, lm->cfg.ctx, room);
    lm->ntok = l->ntok;
    return ok;
}

/* ---- options: and sampling: ------------------------------------------------- */

/* options: of a model lesson: the option table's keys (optload.c), each
 * layer's attention taking them; a model is causal unless it says
 * otherwise. positions, rope_base and lr are the model's and train:'s. */
static bool model_options(Loader *c, const yaml_node_t *n, Lesson *l, ModelCfg *cfg, CfgAt *at)
{
    const yaml_node_t *mask = NULL;
    for (int k = 0; n && n->type == YAML_MAPPING_NODE && k < ydoc_map_len(n); k++) {
        const yaml_node_t *key = ydoc_node(c->doc, n->data.mapping.pairs.start[k].key),
                          *v = ydoc_node(c->doc, n->data.mapping.pairs.start[k].value);
        const char *s = key->type == YAML_SCALAR_NODE ? ydoc_str(key) : "";
        if (strcmp(s, "positions") == 0 || strcmp(s, "rope_base") == 0)
            return diag_fail(&c->d, key, _("in a model lesson %s is the model's: write it in model:, like model: "
                                           "{%s: ...}"), s, s);
        if (strcmp(s, "lr") == 0)
            return diag_fail(&c->d, key, _("in a model lesson the learning rate is train:'s, like train: "
                                           "{optimizer: {adam: {lr: 0.003}}}"));
        static const struct { const char *key; ModelBad bad; } where[] = {
            {"mask", MODEL_BAD_MASK}, {"mask", MODEL_BAD_WINDOW}, {"scale", MODEL_BAD_SCALE},
            {"softmax", MODEL_BAD_SOFTMAX}, {"temperature", MODEL_BAD_TEMP}, {"block", MODEL_BAD_BLOCK},
            {"offset", MODEL_BAD_OFFSET}};
        for (size_t j = 0; j < sizeof where / sizeof *where; j++)
            if (strcmp(s, where[j].key) == 0)
                at->at[where[j].bad] = v;
        mask = strcmp(s, "mask") == 0 ? v : mask;
    }
    bool ok = options_load(c, n, l);
    if (!mask)
        l->mask = MASK_CAUSAL;
    for (int k = 0; k < MODEL_LAYERS_MAX; k++)
        cfg->attn[k] = (ModelAttnOpts){.scale = l->scale, .softmax = l->softmax, .mask = l->mask,
                                       .window = l->window > 0 ? l->window : 1, .temp = l->temp,
                                       .block = l->block};
    cfg->offset = l->offset;
    return ok;
}

enum { SM_TEMP, SM_SEED, SM_N };
static const char *const sampling_keys[SM_N] = {"temperature", "seed"};

/* sampling: {temperature, seed}: the prediction is drawn, not the argmax. */
static bool load_sampling(Loader *c, const yaml_node_t *n, ModelCfg *cfg, CfgAt *at)
{
    unsigned long long seed;
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("sampling must be a mapping like {temperature: 0.8, seed: 1}")))
        return false;
    Keys ks = {sampling_keys, SM_N, _("key"), _(" in sampling")};
    yaml_node_t *val[SM_N] = {0}, *key[SM_N] = {0};
    bool ok = schema_keys(c, n, &ks, val, key);
    cfg->sample = true;
    at->at[MODEL_BAD_SAMPLE_TEMP] = val[SM_TEMP];
    at->at[MODEL_BAD_SAMPLE_SEED] = val[SM_SEED];
    if (val[SM_TEMP])
        ok = schema_num(c, val[SM_TEMP], &cfg->sample_temp, NULL) && ok;
    if (val[SM_SEED] && !schema_uint(c, val[SM_SEED], 4294967295ULL, &seed))
        return diag_fail(&c->d, val[SM_SEED], _("seed must be a whole number from 0 to 4294967295, found %s"),
                         diag_found(&c->d, val[SM_SEED]));
    cfg->sample_seed = val[SM_SEED] ? (unsigned long)seed : 0;
    return ok;
}

/* ---- weights: ---------------------------------------------------------------- */

enum { MW_RANDOM, MW_FILE, MW_N };
static const char *const mweight_keys[MW_N] = {"random", "file"};
enum { MR_SEED, MR_SCALE, MR_EMBED, MR_N };
static const char *const mrandom_keys[MR_N] = {"seed", "scale", "embed_scale"};

/* random: {seed, scale, embed_scale}: every weight drawn (model.h's
 * order); scale 1 unless given; E and P at embed_scale (= scale unless
 * given: model_draw_weights_split, as train.from draws them). */
static bool load_mrandom(Loader *c, const yaml_node_t *key_node, const yaml_node_t *n, LessonModel *lm)
{
    unsigned long long seed;
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("random must be a mapping like {seed: 7, scale: 0.3}")))
        return false;
    Keys ks = {mrandom_keys, MR_N, _("key"), _(" in random")};
    yaml_node_t *val[MR_N] = {0}, *key[MR_N] = {0};
    if (!schema_keys(c, n, &ks, val, key))
        return false;
    if (!val[MR_SEED])
        return diag_fail(&c->d, key_node, _("random is missing seed, write e.g. random: {seed: 7, scale: 0.3}"));
    if (!schema_uint(c, val[MR_SEED], 4294967295ULL, &seed))
        return diag_fail(&c->d, val[MR_SEED], _("seed must be a whole number from 0 to 4294967295, found %s"),
                         diag_found(&c->d, val[MR_SEED]));
    lm->wsrc = WSRC_RANDOM;
    lm->wseed = (unsigned long)seed;
    lm->wscale = 1.0;
    if (val[MR_SCALE] && !schema_num(c, val[MR_SCALE], &lm->wscale, NULL))
        return false;
    lm->wembed_scale = lm->wscale;
    if (val[MR_EMBED] && !schema_num(c, val[MR_EMBED], &lm->wembed_scale, NULL))
        return false;
    model_draw_weights_split(lm->base, lm->wseed, lm->wscale, lm->wembed_scale);
    return true;
}

/* weights: {random: {seed, scale}} or {file: PATH}, into lm->base. */
static bool load_mweights(Loader *c, const yaml_node_t *key_node, const yaml_node_t *n, LessonModel *lm)
{
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE,
                   _("weights must be a mapping: random: {seed, scale}, or file: PATH (a weights file)")))
        return false;
    Keys ks = {mweight_keys, MW_N, _("key"), _(" in weights")};
    yaml_node_t *val[MW_N] = {0}, *key[MW_N] = {0};
    if (!schema_keys(c, n, &ks, val, key))
        return false;
    if (val[MW_RANDOM] && val[MW_FILE])
        return diag_fail(&c->d, key[MW_FILE], _("weights takes random: or file:, not both; keep one"));
    if (!val[MW_RANDOM] && !val[MW_FILE])
        return diag_fail(&c->d, key_node, _("weights needs random: {seed, scale} or file: PATH (a weights file)"));
    lm->base = calloc(1, sizeof *lm->base);
    if (!lm->base || !model_init(lm->base, &lm->cfg, lm->tok, lm->ntok))
        return diag_oom(&c->d, n);
    if (val[MW_RANDOM])
        return load_mrandom(c, key[MW_RANDOM], val[MW_RANDOM], lm);
    if (!schema_dup_text(c, val[MW_FILE], "file", &lm->wfile))
        return false;
    if (!*lm->wfile)
        return diag_fail(&c->d, val[MW_FILE], _("file is empty, write the weights file's path, like "
                                                "weights/induction-2l.yaml"));
    lm->wsrc = WSRC_FILE;
    lm->wpath = modelload_path(c->d.file, lm->wfile);
    if (!lm->wpath)
        return diag_oom(&c->d, n);
    return weights_read_into(c, val[MW_FILE], lm, lm->base);
}

/* ---- the whole -------------------------------------------------------------- */

bool modelload_lesson(Loader *c, const yaml_node_t *root, const ModelNodes *mn, Lesson *l)
{
    LessonModel *lm = calloc(1, sizeof *lm);
    if (!lm)
        return diag_oom(&c->d, root);
    l->model = lm;
    model_cfg_default(&lm->cfg);
    CfgAt at;
    memset(&at, 0, sizeof at);
    bool ok = modelload_cfg(c, mn->model, &lm->cfg, &at);
    ok = load_vocab(c, mn->vocab, lm, &at) && ok;
    ok = model_options(c, mn->options, l, &lm->cfg, &at) && ok;
    ok = (!mn->sampling || load_sampling(c, mn->sampling, &lm->cfg, &at)) && ok;
    if (!ok)
        return false;
    ModelBad b = model_cfg_check(&lm->cfg);
    if (b != MODEL_OK)
        return modelload_cfg_fail(c, &lm->cfg, b, at.at[b] ? at.at[b] : mn->model);
    if (!load_model_tokens(c, mn->tokens, l, lm) || !load_mweights(c, mn->weights_key, mn->weights, lm))
        return false;
    return !mn->train || train_load(c, mn->train_key, mn->train, l);
}
