/* modelkeys.c - a model: mapping's keys, read and written (see modelkeys.h). */
#include "modelkeys.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"

/* ---- model: --------------------------------------------------------------- */

typedef enum { MK_WHOLE, MK_REAL, MK_WORDS } MkType;

typedef struct {
    const char *key;
    ModelBad bad;
    MkType type;
    size_t at;                  /* offsetof(ModelCfg, ...): an int, a double or an enum */
    const char *words[4];       /* MK_WORDS: value k's word */
    int nwords;
} MKey;

static const MKey mkeys[MODEL_KEYS] = {
    {"layers", MODEL_BAD_LAYERS, MK_WHOLE, offsetof(ModelCfg, layers), {0}, 0},
    {"d_model", MODEL_BAD_D_MODEL, MK_WHOLE, offsetof(ModelCfg, d_model), {0}, 0},
    {"heads", MODEL_BAD_HEADS, MK_WHOLE, offsetof(ModelCfg, heads), {0}, 0},
    {"kv_heads", MODEL_BAD_KV_HEADS, MK_WHOLE, offsetof(ModelCfg, kv_heads), {0}, 0},
    {"d_k", MODEL_BAD_D_K, MK_WHOLE, offsetof(ModelCfg, d_k), {0}, 0},
    {"d_v", MODEL_BAD_D_V, MK_WHOLE, offsetof(ModelCfg, d_v), {0}, 0},
    {"d_ff", MODEL_BAD_D_FF, MK_WHOLE, offsetof(ModelCfg, d_ff), {0}, 0},
    {"act", MODEL_BAD_ACT, MK_WORDS, offsetof(ModelCfg, act), {"relu", "gelu"}, 2},
    {"norm", MODEL_BAD_NORM, MK_WORDS, offsetof(ModelCfg, norm), {"none", "layernorm", "rmsnorm"}, 3},
    {"eps", MODEL_BAD_EPS, MK_REAL, offsetof(ModelCfg, eps), {0}, 0},
    {"positions", MODEL_BAD_POSITIONS, MK_WORDS, offsetof(ModelCfg, positions),
     {"learned", "sinusoidal", "rope", "none"}, 4},
    {"rope_base", MODEL_BAD_ROPE_BASE, MK_REAL, offsetof(ModelCfg, rope_base), {0}, 0},
    {"ctx", MODEL_BAD_CTX, MK_WHOLE, offsetof(ModelCfg, ctx), {0}, 0},
    {"unembed", MODEL_BAD_UNEMBED, MK_WORDS, offsetof(ModelCfg, unembed), {"separate", "tied"}, 2},
};

const char *modelload_cfg_key(int k)
{
    return k >= 0 && k < MODEL_KEYS ? mkeys[k].key : "?";
}

static int get_int(const ModelCfg *cfg, const MKey *m)
{
    int v;
    memcpy(&v, (const char *)cfg + m->at, sizeof v);
    return v;
}

static double get_real(const ModelCfg *cfg, const MKey *m)
{
    double v;
    memcpy(&v, (const char *)cfg + m->at, sizeof v);
    return v;
}

void modelload_cfg_text(const ModelCfg *cfg, int k, char *buf, size_t len)
{
    const MKey *m = &mkeys[k < 0 || k >= MODEL_KEYS ? 0 : k];
    int v = m->type == MK_REAL ? 0 : get_int(cfg, m);
    if (m->bad == MODEL_BAD_KV_HEADS)
        v = model_kv_heads(cfg);
    else if (m->bad == MODEL_BAD_D_K)
        v = model_d_k(cfg);
    else if (m->bad == MODEL_BAD_D_V)
        v = model_d_v(cfg);
    if (m->type == MK_REAL)
        fmt_exact(get_real(cfg, m), buf, len);
    else if (m->type == MK_WORDS)
        snprintf(buf, len, "%s", v >= 0 && v < m->nwords ? m->words[v] : "?");
    else
        snprintf(buf, len, "%d", v);
}

/* "a, b or c" of a key's words. */
static const char *words_text(const MKey *m, char *buf, size_t len)
{
    return diag_join_or(m->words, m->nwords, buf, len);
}

bool modelload_cfg_fail(Loader *c, const ModelCfg *cfg, ModelBad b, const yaml_node_t *n)
{
    double lo, hi;
    char a[SHORTEST_MAX], z[SHORTEST_MAX], list[128];
    model_bad_range(cfg, b, &lo, &hi);
    fmt_exact(lo, a, sizeof a);
    fmt_exact(hi, z, sizeof z);
    const char *key = model_bad_key(b), *dot = strchr(key, '.');
    key = dot ? dot + 1 : key;
    const char *found = n ? diag_found(&c->d, n) : _("nothing");
    for (int k = 0; k < MODEL_KEYS; k++)
        if (mkeys[k].bad == b && mkeys[k].type == MK_WORDS)
            return diag_fail(&c->d, n, _("%s must be %s, found %s"), key, words_text(&mkeys[k], list, sizeof list),
                             found);
    switch (b) {
    case MODEL_BAD_HEADS_DIVIDE:
        return diag_fail(&c->d, n, _("heads = %d does not divide d_model = %d (each head takes d_model / heads "
                                     "columns); write heads that divide d_model, or give d_k and d_v in model:"),
                         cfg->heads, cfg->d_model);
    case MODEL_BAD_ROPE_ODD_DK:
        return diag_fail(&c->d, n, _("positions: rope turns the columns of q and k in pairs, so d_k must be even; "
                                     "this model has d_k = %d (write an even d_k, or positions: sinusoidal)"),
                         model_d_k(cfg));
    case MODEL_BAD_KV_HEADS:
        return diag_fail(&c->d, n, _("kv_heads must be a whole number from 1 to heads = %d that divides heads "
                                     "(K/V heads shared by the query heads), found %s"), cfg->heads, found);
    case MODEL_BAD_D_K:
    case MODEL_BAD_D_V:
        return diag_fail(&c->d, n, _("%s must be a whole number from %s to %s (heads x %s <= %d), found %s"), key, a,
                         z, key, MAT_MAX, found);
    case MODEL_BAD_EPS:
        return diag_fail(&c->d, n, _("%s must be a number above %s and at most %s, found %s"), key, a, z, found);
    case MODEL_BAD_ROPE_BASE:
        return diag_fail(&c->d, n, _("%s must be a number above %s (10000 in most models), found %s"), key, a, found);
    case MODEL_BAD_TEMP:
    case MODEL_BAD_SAMPLE_TEMP:
        return diag_fail(&c->d, n, _("%s must be from %s to %s (1 is the plain softmax), found %s"), key, a, z, found);
    default:
        return diag_fail(&c->d, n, _("%s must be a whole number from %s to %s, found %s"), key, a, z, found);
    }
}

/* One model: value into cfg: its type only (the ranges come later). */
static bool read_key(Loader *c, const yaml_node_t *n, const MKey *m, ModelCfg *cfg)
{
    char *p = (char *)cfg + m->at;
    unsigned long long u;
    double d;
    if (m->type == MK_REAL) {
        if (!schema_num(c, n, &d, NULL))
            return false;
        memcpy(p, &d, sizeof d);
        return true;
    }
    if (m->type == MK_WHOLE) {
        if (!schema_uint(c, n, 1000000, &u))
            return modelload_cfg_fail(c, cfg, m->bad, n);
        int v = (int)u;
        memcpy(p, &v, sizeof v);
        return true;
    }
    for (int k = 0; k < m->nwords && n->type == YAML_SCALAR_NODE; k++)
        if (strcmp(ydoc_str(n), m->words[k]) == 0) {
            memcpy(p, &k, sizeof k);
            return true;
        }
    return modelload_cfg_fail(c, cfg, m->bad, n);
}

bool modelload_cfg(Loader *c, const yaml_node_t *n, ModelCfg *cfg, CfgAt *at)
{
    const char *names[MODEL_KEYS];
    for (int k = 0; k < MODEL_KEYS; k++)
        names[k] = mkeys[k].key;
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE,
                   _("model must be a mapping like {layers: 2, d_model: 16, heads: 2, ctx: 16}")))
        return false;
    Keys ks = {names, MODEL_KEYS, _("key"), _(" in model")};
    yaml_node_t *val[MODEL_KEYS] = {0}, *key[MODEL_KEYS] = {0};
    bool ok = schema_keys(c, n, &ks, val, key);
    for (int k = 0; k < MODEL_KEYS; k++) {
        at->val[k] = val[k];
        at->key[k] = key[k];
        if (!val[k])
            continue;
        at->at[mkeys[k].bad] = val[k];
        ok = read_key(c, val[k], &mkeys[k], cfg) && ok;
    }
    const yaml_node_t *heads = val[2] ? val[2] : val[1] ? val[1] : n;
    at->at[MODEL_BAD_HEADS_DIVIDE] = heads;
    at->at[MODEL_BAD_ROPE_ODD_DK] = val[4] ? val[4] : val[10] ? val[10] : heads;
    return ok;
}

/* ---- files named in a lesson ---------------------------------------------------- */

char *modelload_path(const char *lesson_file, const char *name)
{
    const char *slash = lesson_file ? strrchr(lesson_file, '/') : NULL;
    size_t dir = name[0] == '/' || !slash ? 0 : (size_t)(slash - lesson_file) + 1, len = strlen(name);
    char *p = malloc(dir + len + 1);
    if (!p)
        return NULL;
    memcpy(p, lesson_file, dir);
    memcpy(p + dir, name, len + 1);
    return p;
}


const char *modelkeys_near(const LessonModel *lm, const char *name, int len, char *buf, size_t size)
{
    const char *near[3], *qs[3];
    char q[3][VOCAB_NAME_BYTES + 3];
    int got = lmodel_vocab_near(lm, name, len, near, 3);
    for (int j = 0; j < got; j++) {
        snprintf(q[j], sizeof q[j], "\"%s\"", near[j]);
        qs[j] = q[j];
    }
    return diag_join_or(qs, got, buf, size);
}
