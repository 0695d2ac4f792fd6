/* model_names.c - a model's matrices by name and by reference: "E",
 * "L2.Wq", "L1.A2", "logits" (see model.h). */
#include "model.h"

#include <stdio.h>
#include <string.h>

/* The names of the model's own kinds (MM_ATTN's are attn.h's). */
static const char *const kind_names[MM_COUNT] = {
    [MM_NONE] = "?", [MM_E] = "E", [MM_P] = "P", [MM_GF] = "gf", [MM_BETAF] = "betaf", [MM_WU] = "WU",
    [MM_G1] = "g1", [MM_BETA1] = "beta1", [MM_G2] = "g2", [MM_BETA2] = "beta2", [MM_W1] = "W1",
    [MM_B1] = "b1", [MM_W2] = "W2", [MM_B2] = "b2", [MM_H_IN] = "h_in", [MM_A] = "a",
    [MM_H_MID] = "h_mid", [MM_B] = "b", [MM_U] = "u", [MM_F] = "f", [MM_H] = "h",
    [MM_ATTN] = "?", [MM_H_FINAL] = "h_final", [MM_LOGITS] = "logits", [MM_PROBS] = "p",
};

static bool layer_kind(ModelMatKind k)
{
    return k >= MM_G1 && k <= MM_ATTN;
}

/* A layer's own matrix of kind k (not MM_ATTN). */
static const Mat *layer_mat(const ModelLayer *y, ModelMatKind k)
{
    switch (k) {
    case MM_G1:    return &y->g1;
    case MM_BETA1: return &y->beta1;
    case MM_G2:    return &y->g2;
    case MM_BETA2: return &y->beta2;
    case MM_W1:    return &y->W1;
    case MM_B1:    return &y->b1;
    case MM_W2:    return &y->W2;
    case MM_B2:    return &y->b2;
    case MM_H_IN:  return &y->h_in;
    case MM_A:     return &y->att.m[M_X];
    case MM_H_MID: return &y->h_mid;
    case MM_B:     return &y->b;
    case MM_U:     return &y->u;
    case MM_F:     return &y->f;
    default:       return &y->h;
    }
}

const Mat *model_mat(const Model *m, ModelRef r)
{
    const Mat *x = NULL;
    if (layer_kind(r.kind)) {
        if (r.layer < 1 || r.layer > m->cfg.layers)
            return NULL;
        const ModelLayer *y = &m->layer[r.layer - 1];
        if (r.kind == MM_ATTN)
            x = (int)r.attn >= 0 && r.attn < M_COUNT && r.attn != M_X && r.attn != M_H && r.attn != M_P
                    ? &y->att.m[r.attn]
                    : NULL;
        else
            x = layer_mat(y, r.kind);
    } else if (r.layer == 0) {
        const Mat *top[MM_COUNT] = {[MM_E] = &m->E,       [MM_P] = &m->P,           [MM_GF] = &m->gf,
                                    [MM_BETAF] = &m->betaf, [MM_WU] = &m->WU,       [MM_H_FINAL] = &m->h_final,
                                    [MM_LOGITS] = &m->logits, [MM_PROBS] = &m->p};
        x = r.kind > MM_NONE && r.kind < MM_COUNT ? top[r.kind] : NULL;
    }
    return x && x->v ? x : NULL;
}

Mat *model_mat_mut(Model *m, ModelRef r)
{
    return (Mat *)model_mat(m, r);
}

/* The kind named name[0..n) among the model's own, MM_NONE if none. */
static ModelMatKind kind_lookup(const char *name, size_t n, bool in_layer)
{
    for (int k = MM_E; k < MM_COUNT; k++)
        if (k != MM_ATTN && layer_kind((ModelMatKind)k) == in_layer && strlen(kind_names[k]) == n &&
            memcmp(kind_names[k], name, n) == 0)
            return (ModelMatKind)k;
    return MM_NONE;
}

/* "L<digits>." at the start of name: the layer, and the rest in *rest. */
static int layer_prefix(const char *name, size_t n, size_t *rest)
{
    if (n < 3 || name[0] != 'L' || name[1] < '1' || name[1] > '9')
        return 0;
    size_t k = 1;
    int l = 0;
    while (k < n && name[k] >= '0' && name[k] <= '9' && l <= MODEL_LAYERS_MAX)
        l = l * 10 + (name[k++] - '0');
    if (k >= n || name[k] != '.')
        return 0;
    *rest = k + 1;
    return l;
}

bool model_lookup(const Model *m, const char *name, int len, ModelRef *out)
{
    size_t n = len < 0 ? strlen(name) : (size_t)len, rest = 0;
    int l = layer_prefix(name, n, &rest);
    ModelRef r = {MM_NONE, 0, M_X};
    if (l == 0 && (r.kind = kind_lookup(name, n, false)) == MM_NONE && m->cfg.layers == 1)
        l = 1; /* one layer: "Wq" is "L1.Wq" */
    if (l > 0) {
        r.layer = l;
        r.kind = kind_lookup(name + rest, n - rest, true);
        if (r.kind == MM_NONE) {
            int id = attn_mat_lookup(name + rest, (int)(n - rest));
            r.kind = id >= 0 ? MM_ATTN : MM_NONE;
            r.attn = id >= 0 ? (MatId)id : M_X;
        }
    }
    if (r.kind == MM_NONE || !model_mat(m, r))
        return false;
    *out = r;
    return true;
}

int model_ref_name(const Model *m, ModelRef r, char *buf, size_t size)
{
    (void)m;
    const char *base = r.kind == MM_ATTN ? attn_mat_name(r.attn)
                       : r.kind > MM_NONE && r.kind < MM_COUNT ? kind_names[r.kind]
                                                                : "?";
    if (layer_kind(r.kind))
        return snprintf(buf, size, "L%d.%s", r.layer, base);
    return snprintf(buf, size, "%s", base);
}

bool model_ref_is_param(ModelRef r)
{
    if (r.kind == MM_ATTN)
        return attn_mat_is_param(r.attn);
    return (r.kind >= MM_E && r.kind <= MM_WU) || (r.kind >= MM_G1 && r.kind <= MM_B2);
}

int model_ref_stage(const Model *m, ModelRef r)
{
    switch (r.kind) {
    case MM_H_IN: case MM_A:                  return MSTAGE_EMBED;
    case MM_H_MID:                            return MSTAGE_PROJECT;
    case MM_B: case MM_U: case MM_F:          return MSTAGE_FFN;
    case MM_H:                                return m->cfg.d_ff > 0 ? MSTAGE_FFN : MSTAGE_PROJECT;
    case MM_H_FINAL: case MM_LOGITS: case MM_PROBS: return MSTAGE_NEXT;
    case MM_ATTN:
        return attn_mat_is_param(r.attn) ? 0 : attn_mat_stage(r.attn) == STAGE_INPUT ? MSTAGE_EMBED
                                                                                     : attn_mat_stage(r.attn);
    default:                                  return 0;
    }
}

int model_params(const Model *m, ModelRef *out, int max)
{
    static const ModelMatKind per_layer[] = {MM_G1, MM_BETA1, MM_W1, MM_B1, MM_W2, MM_B2, MM_G2, MM_BETA2};
    static const MatId attn_w[] = {M_WQ, M_WK, M_WV, M_WO};
    ModelRef all[MODEL_PARAMS_MAX];
    int n = 0;
    all[n++] = (ModelRef){MM_E, 0, M_X};
    all[n++] = (ModelRef){MM_P, 0, M_X};
    for (int l = 1; l <= m->cfg.layers; l++) {
        for (int k = 0; k < 4; k++)
            all[n++] = (ModelRef){MM_ATTN, l, attn_w[k]};
        for (size_t k = 0; k < sizeof per_layer / sizeof *per_layer; k++)
            all[n++] = (ModelRef){per_layer[k], l, M_X};
    }
    all[n++] = (ModelRef){MM_GF, 0, M_X};
    all[n++] = (ModelRef){MM_BETAF, 0, M_X};
    all[n++] = (ModelRef){MM_WU, 0, M_X};
    int got = 0;
    for (int k = 0; k < n && got < max; k++)
        if (model_mat(m, all[k]))
            out[got++] = all[k];
    return got;
}
