/* variants.c - `variants:` and --variant K for written-out weights (see
 * variants.h). */
#include "variants.h"
#include "lesson/lmodel.h"

#include <math.h>
#include <string.h>

#include "core/rng.h"
#include "text/i18n.h"

enum { V_ADD, V_SCALE, V_DECIMALS, V_N };
static const char *const variant_keys[V_N] = {"add", "scale", "decimals"};
static const char *const EXAMPLE = "variants: {add: [Wq, Wk], scale: 0.3}";

/* The lesson's matrix a name in add: means; NULL when it is not a weight. */
static Mat *weight_named(Lesson *l, const char *name, MatId *id)
{
    static const struct { const char *name; MatId id; } ws[] = {{"Wq", M_WQ}, {"Wk", M_WK}, {"Wv", M_WV},
                                                                {"Wo", M_WO}};
    Mat *mats[] = {&l->Wq, &l->Wk, &l->Wv, &l->Wo};
    for (int k = 0; k < 4; k++)
        if (strcmp(name, ws[k].name) == 0) {
            *id = ws[k].id;
            return mats[k];
        }
    return NULL;
}

/* One name of add:. */
static bool load_add_item(Loader *c, const yaml_node_t *item, Lesson *l)
{
    MatId id;
    if (!schema_want_text(c, item, "a name in add"))
        return false;
    const char *name = ydoc_str(item);
    Mat *m = weight_named(l, name, &id);
    if (!m)
        return diag_fail(&c->d, item, _("add names %s, which is not a weight matrix; write Wq, Wk, Wv or Wo"),
                         diag_found(&c->d, item));
    if (id == M_WO && l->d_out == 0)
        return diag_fail(&c->d, item, _("add names Wo, but this lesson has no Wo (it has one head and no d_out)"));
    for (int k = 0; k < l->nvary; k++)
        if (l->vary[k] == id)
            return diag_fail(&c->d, item, _("add names %s twice; name each matrix once"), name);
    l->vary[l->nvary++] = id;
    return true;
}

static bool load_add(Loader *c, const yaml_node_t *n, Lesson *l)
{
    if (n->type == YAML_SCALAR_NODE)
        return load_add_item(c, n, l);
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("add must name the weights a variant changes, like [Wq, Wk]")))
        return false;
    int cnt = ydoc_seq_len(n);
    if (cnt == 0)
        return diag_fail(&c->d, n, _("add is empty; name the weights a variant changes, like [Wq, Wk]"));
    if (cnt > VARY_MAX)
        return diag_fail(&c->d, n, _("add names %d matrices; there are only Wq, Wk, Wv and Wo"), cnt);
    for (int k = 0; k < cnt; k++)
        if (!load_add_item(c, ydoc_seq_item(c->doc, n, k), l))
            return false;
    return true;
}

/* variants: {scale: c} on random: weights: variant K draws them all with
 * seed K and scale c (l->vscale) instead of the lesson's own scale. */
static bool load_random_scale(Loader *c, const yaml_node_t *key, const yaml_node_t *scale, Lesson *l)
{
    if (!scale)
        return diag_fail(&c->d, key, _("a lesson with random: weights varies with --variant K (its seed); "
                                       "variants may only set the scale of that draw, like variants: {scale: 0.1}"));
    if (!schema_num(c, scale, &l->vscale, NULL))
        return false;
    if (!(l->vscale > 0 && l->vscale <= 100))
        return diag_fail(&c->d, scale, _("scale must be a number above 0 and at most 100 (randn's factor), "
                                         "found %s"), diag_found(&c->d, scale));
    return true;
}

bool variants_load(Loader *c, const yaml_node_t *key, const yaml_node_t *n, Lesson *l)
{
    l->nvary = 0;
    if (!n)
        return true;
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("variants must be a mapping like %s"), EXAMPLE))
        return false;
    Keys ks = {variant_keys, V_N, _("key"), _(" in variants")};
    yaml_node_t *val[V_N] = {0}, *kn[V_N] = {0};
    if (!schema_keys(c, n, &ks, val, kn))
        return false;
    if (l->random)
        return load_random_scale(c, key, val[V_ADD] || val[V_DECIMALS] ? NULL : val[V_SCALE], l);
    if (!val[V_ADD] || !val[V_SCALE])
        return diag_fail(&c->d, key, _("variants is missing %s, write e.g. %s"), val[V_ADD] ? "scale" : "add",
                         EXAMPLE);
    if (!load_add(c, val[V_ADD], l))
        return false;
    if (!schema_num(c, val[V_SCALE], &l->vscale, NULL))
        return false;
    if (!(l->vscale > 0 && l->vscale <= 100))
        return diag_fail(&c->d, val[V_SCALE], _("scale must be a number above 0 and at most 100 (randn's factor), "
                                                "found %s"), diag_found(&c->d, val[V_SCALE]));
    unsigned long long d = 2;
    if (val[V_DECIMALS] && !schema_uint(c, val[V_DECIMALS], 6, &d))
        return diag_fail(&c->d, val[V_DECIMALS], _("decimals must be a whole number from 0 to 6, found %s"),
                         diag_found(&c->d, val[V_DECIMALS]));
    l->vdecimals = (int)d;
    return true;
}

bool variants_draw(Lesson *l, unsigned long seed)
{
    if (l->nvary == 0)
        return false;
    Mat draw = {0};
    Rng rng;
    rng_seed(&rng, (uint32_t)seed);
    double unit = pow(10.0, l->vdecimals);
    for (int k = 0; k < l->nvary; k++) {
        MatId id;
        Mat *m = weight_named(l, attn_mat_name(l->vary[k]), &id), *own = &l->vown[k];
        if (own->rows == 0 && !mat_copy(own, m)) /* the written weights, kept at the first draw */
            return false;
        if (!mat_new(&draw, m->rows, m->cols)) {
            mat_free(&draw);
            return false;
        }
        rng_randn(&rng, &draw, l->vscale);
        for (int i = 0; i < m->rows; i++)
            for (int j = 0; j < m->cols; j++)
                MAT_AT(m, i, j) = MAT_AT(own, i, j) + round(MAT_AT(&draw, i, j) * unit) / unit;
        mat_free(&draw);
    }
    return true;
}

/* lesson.h: --variant K, the lesson's random weights drawn again or its variants: */
bool lesson_reseed(Lesson *l, unsigned long seed)
{
    if (l->model) { /* a model lesson: its random weights drawn again with seed K; trained ones cannot vary */
        LessonModel *lm = l->model;
        if (lm->wsrc != WSRC_RANDOM)
            return false;
        if (!l->reseeded)
            l->seed = lm->wseed; /* own_seed below: the lesson's own */
        model_draw_weights_split(lm->base, seed, lm->wscale, lm->wembed_scale);
        lm->wseed = seed;
    } else if (!l->random) {
        if (!variants_draw(l, seed))
            return false;
    } else {
        Rng rng;
        rng_seed(&rng, (uint32_t)seed);
        if (l->vscale > 0) /* variants: {scale: c}: the variant's draw, which the worksheet states */
            l->rscale = l->vscale;
        rng_randn(&rng, &l->Wq, l->rscale);
        rng_randn(&rng, &l->Wk, l->rscale);
        rng_randn(&rng, &l->Wv, l->rscale);
        if (l->d_out > 0)
            rng_randn(&rng, &l->Wo, l->rscale);
        if (l->xs_drawn)
            rng_randn(&rng, &l->Xs, l->rscale);
    }
    if (!l->reseeded)
        l->own_seed = l->seed;
    l->seed = seed;
    l->reseeded = true;
    return true;
}
