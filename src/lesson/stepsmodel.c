/* stepsmodel.c - a model lesson's step script: stage (embed .. next),
 * layer, focus and expect by model names ("L2.A1[3][1]", "logits[4]"),
 * checked against the base model's shapes and against what the step has
 * computed (see steps.h). do: and edited: are kept as written and handed to
 * steps_model_action_check(); say:, question: and ask: are read as text. */
#include "steps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "lmodel.h"
#include "maction.h"
#include "template.h"
#include "text/i18n.h"
#include "text/num.h"

/* ---- hooks: the model action language (msession) and model templates (tpl) ---- */

/* A model lesson's do: or edited: action, parsed by the model action
 * language (maction.h) against the base model's names and shapes; its
 * message at the column it points to. */
bool steps_model_action_check(Loader *c, const yaml_node_t *n, const Lesson *l)
{
    char e[LESSON_ERR_MAX];
    int errcol = 0;
    Action a;
    if (n->type != YAML_SCALAR_NODE || !l->model || !l->model->base)
        return true; /* not text: the caller said so */
    if (!maction_parse(ydoc_str(n), l->model->base, l->model, &a, e, sizeof e, &errcol))
        return diag_fail_at(&c->d, n->start_mark.line, schema_col(n, errcol > 0 ? (size_t)errcol - 1 : 0), "%s", e);
    return true;
}

static bool masks(Loader *c, const yaml_node_t *n, const Model *m, Step *st);

/* A model lesson's {REF} templates in a text field n (say:, question: of
 * step st, or about: with st NULL) against the base model's sizes at the
 * step's (layer, stage) (template.h); mstep checks a step's against the
 * script's scratch model instead, whose input the do: actions so far made. */
bool steps_model_text_check(Loader *c, const yaml_node_t *n, const Lesson *l, const Step *st, const char *what)
{
    return steps_templates_model(c, n, l->model->base, st ? st->layer : 0, st ? st->stage : TEMPLATE_ABOUT, what);
}

/* A step's ask: by model names into st->ask, against the base model. */
bool steps_model_asks(Loader *c, const yaml_node_t *n, const Lesson *l, Step *st)
{
    return masks(c, n, l->model->base, st);
}

/* stage: a key (embed .. next) or 1..8; ffn only with d_ff > 0. */
static bool mstage(Loader *c, const yaml_node_t *n, const Model *m, Step *st)
{
    static const char *const keys[] = {"embed", "qkv", "scores", "softmax", "output", "project", "ffn", "next"};
    unsigned long long v;
    if (!schema_want_text(c, n, "stage"))
        return false;
    const char *s = ydoc_str(n);
    int stage = model_stage_lookup(s, -1);
    if (!stage && schema_uint(c, n, 1000000, &v)) {
        if (v < 1 || v > MSTAGE_MAX)
            return diag_fail(&c->d, n, _("stage %llu is out of range, expected 1 to %d or embed, qkv, scores, softmax, output, project, ffn or next"), v,
                             MSTAGE_MAX);
        stage = (int)v;
    }
    if (!stage) {
        const char *near = diag_suggest(s, keys, MSTAGE_MAX);
        return near ? diag_fail(&c->d, n, _("unknown stage %s (did you mean \"%s\"?), expected embed, qkv, scores, softmax, output, project, ffn or next"),
                                diag_quote(&c->d, s), near)
                    : diag_fail(&c->d, n, _("unknown stage %s, expected embed, qkv, scores, softmax, output, project, ffn or next"), diag_quote(&c->d, s));
    }
    if (stage == MSTAGE_FFN && m->cfg.d_ff == 0)
        return diag_fail(&c->d, n, _("stage %s needs a feed-forward block, and this model has d_ff = 0 (attention "
                                     "only); give d_ff in model:, or show another stage"), diag_quote(&c->d, s));
    st->stage = stage;
    return true;
}

/* layer: 1..layers (1 unless given); stage next is the last layer's. */
static bool mlayer(Loader *c, const yaml_node_t *n, const Model *m, Step *st)
{
    unsigned long long v;
    int layers = m->cfg.layers;
    st->layer = st->stage == MSTAGE_NEXT ? layers : 1;
    if (!n)
        return true;
    if (!schema_uint(c, n, 1000000, &v) || v < 1 || v > (unsigned long long)layers)
        return layers == 1 ? diag_fail(&c->d, n, _("layer %s is out of range, this model has one layer: write 1"),
                                       diag_found(&c->d, n))
                           : diag_fail(&c->d, n, _("layer %s is out of range, this model has %d layers: write 1 "
                                                   "to %d"), diag_found(&c->d, n), layers, layers);
    if (st->stage == MSTAGE_NEXT && (int)v != layers)
        return diag_fail(&c->d, n, _("stage next comes after the last layer: write layer: %d, or leave layer out"),
                         layers);
    st->layer = (int)v;
    return true;
}

/* Where (layer, stage) is, for a message: "layer 2, stage softmax" or "stage next". */
static const char *where_text(int layer, int stage, char *buf, size_t len)
{
    if (stage == MSTAGE_NEXT)
        snprintf(buf, len, _("stage %s"), model_stage_key(stage));
    else
        snprintf(buf, len, _("layer %d, stage %s"), layer, model_stage_key(stage));
    return buf;
}

/* A model name with one or two 1-based indices: "L2.A1[3][1]", "E[2]". */
typedef struct {
    ModelRef r;
    int i, j;           /* 0-based; j = -1: a row */
    char name[48];      /* the matrix's name, as model_ref_name writes it */
} MRefAt;

static bool mref_index(Loader *c, const yaml_node_t *n, const char **p, int *out)
{
    long long v;
    size_t d = **p == '[' ? num_whole(*p + 1, &v) : 0;
    if (d == 0 || (*p)[1 + d] != ']')
        return false;
    if (v == 0)
        return diag_fail(&c->d, n, _("indices start at 1, found %s"), diag_quote(&c->d, ydoc_str(n)));
    *out = v > MODEL_VOCAB_MAX * 4 ? MODEL_VOCAB_MAX * 4 : (int)v - 1;
    *p += d + 2;
    return true;
}

/* Read a reference scalar n against the base model m; `what` names the
 * field, `form` the spelling expected. */
static bool mref_read(Loader *c, const yaml_node_t *n, const Model *m, const char *what, const char *form,
                      MRefAt *out)
{
    if (!schema_want_text(c, n, what))
        return false;
    const char *s = ydoc_str(n), *b = strchr(s, '['), *p = b;
    int fails = c->d.failures;
    out->j = -1;
    if (!b || b == s || !mref_index(c, n, &p, &out->i) || (*p && !mref_index(c, n, &p, &out->j)) || *p)
        return c->d.failures > fails ? false
                                     : diag_fail(&c->d, n, _("%s must be %s, found %s"), what, form,
                                                 diag_quote(&c->d, s));
    if (!model_lookup(m, s, (int)(b - s), &out->r))
        return diag_fail(&c->d, n, _("unknown matrix in %s, expected a name of this model like E, L1.Wq, L1.A1, "
                                     "L1.h, logits or p"), diag_quote(&c->d, s));
    model_ref_name(m, out->r, out->name, sizeof out->name);
    const Mat *x = model_mat(m, out->r);
    char num[16];
    if (out->i >= x->rows)
        return diag_fail(&c->d, n, _("row %s is out of range in %s, %s has %d row%s"),
                         num_whole_text(b + 1, strcspn(b + 1, "]"), num, sizeof num), diag_quote(&c->d, s), out->name,
                         x->rows, x->rows == 1 ? "" : "s");
    if (out->j >= x->cols) {
        const char *col = strchr(b + 1, '[') + 1;
        return diag_fail(&c->d, n, _("column %s is out of range in %s, %s has %d column%s"),
                         num_whole_text(col, strcspn(col, "]"), num, sizeof num), diag_quote(&c->d, s), out->name,
                         x->cols, x->cols == 1 ? "" : "s");
    }
    return true;
}

/* Is the result r computed at the step's (layer, stage)? Parameters always are. */
static bool mref_ready(const Model *m, ModelRef r, const Step *st, int *layer, int *stage)
{
    *stage = model_ref_stage(m, r);
    *layer = r.layer > 0 ? r.layer : m->cfg.layers;
    if (*stage == 0)
        return true;
    return *layer < st->layer || (*layer == st->layer && *stage <= st->stage);
}

/* Refuse a result the step has not computed yet. */
static bool mref_when(Loader *c, const yaml_node_t *n, const Model *m, const MRefAt *at, const Step *st,
                      bool focus)
{
    int layer, stage;
    char was[64], now[64];
    if (mref_ready(m, at->r, st, &layer, &stage))
        return true;
    where_text(layer, stage, was, sizeof was);
    where_text(st->layer, st->stage, now, sizeof now);
    return focus ? diag_fail(&c->d, n, _("%s is computed at %s, this step shows %s; focus on it at a later step"),
                             at->name, was, now)
                 : diag_fail(&c->d, n, _("%s is computed at %s, this step shows %s; expect it at a later step"),
                             at->name, was, now);
}

static bool mfocus(Loader *c, const yaml_node_t *n, const Model *m, Step *st)
{
    MRefAt at;
    if (!mref_read(c, n, m, "focus", _("a row like \"L1.h[2]\" or a cell like \"L1.A1[3][1]\""), &at) ||
        !mref_when(c, n, m, &at, st, true))
        return false;
    st->focus = (Focus){.kind = at.j < 0 ? FOCUS_ROW : FOCUS_CELL, .mat = M_X, .i = at.i, .j = at.j < 0 ? 0 : at.j,
                        .mref = at.r};
    return true;
}

/* do: (or edited:) of a model lesson: the text kept, each action handed to
 * the hook. */
static bool mdo(Loader *c, const yaml_node_t *n, const Lesson *l, Action **act, char ***text, int *cnt)
{
    if (n->type != YAML_SCALAR_NODE &&
        !diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("do must be an action like \"tokens = A B C\", or a list of them")))
        return false;
    int k = n->type == YAML_SCALAR_NODE ? 1 : ydoc_seq_len(n);
    if (k > LESSON_MAX_ACTIONS)
        return diag_fail(&c->d, n, _("%d actions, at most %d are allowed in one step"), k, LESSON_MAX_ACTIONS);
    *act = calloc((size_t)(k ? k : 1), sizeof **act);
    *text = calloc((size_t)(k ? k : 1), sizeof **text);
    if (!*act || !*text)
        return diag_oom(&c->d, n);
    bool ok = true;
    for (int a = 0; a < k; a++) {
        const yaml_node_t *item = n->type == YAML_SCALAR_NODE ? n : ydoc_seq_item(c->doc, n, a);
        if (!schema_dup_text(c, item, _("an action"), &(*text)[*cnt]) || !steps_model_action_check(c, item, l)) {
            free((*text)[*cnt]);
            (*text)[*cnt] = NULL;
            ok = false;
            continue;
        }
        (*cnt)++;
    }
    return ok;
}

/* ---- expect: ------------------------------------------------------------------ */

/* Is cell (i, j) of an attention score matrix masked by the layer's options? */
static bool mmasked(const Model *m, ModelRef r, int i, int j)
{
    if (r.kind != MM_ATTN || attn_mat_base(r.attn) != M_S)
        return false;
    const ModelAttnOpts *o = &m->cfg.attn[r.layer - 1];
    return o->mask == MASK_WINDOW ? j > i || j <= i - o->window : o->mask == MASK_CAUSAL && j > i;
}

static bool is_minus_inf(const yaml_node_t *n)
{
    static const char *const spellings[] = {"-inf", "\xe2\x88\x92\xe2\x88\x9e", "-\xe2\x88\x9e",
                                            "-.inf", "-.Inf", "-.INF", "\xe2\x88\x92inf", "-Inf"};
    for (size_t k = 0; n->type == YAML_SCALAR_NODE && k < sizeof spellings / sizeof *spellings; k++)
        if (strcmp(ydoc_str(n), spellings[k]) == 0)
            return true;
    return false;
}

/* One expected number at column col: its decimals give the tolerance (a
 * whole number expected of a result: the lesson's digits); -inf only for a
 * masked score. */
static bool mexpect_value(Loader *c, const yaml_node_t *v, const Model *m, const MRefAt *at, Expect *e, int k,
                          int col)
{
    bool masked = mmasked(m, at->r, at->i, col);
    int dec;
    if (is_minus_inf(v) && masked) {
        e->val[k] = -INFINITY;
        e->tol[k] = 0;
        return true;
    }
    if (masked)
        return diag_fail(&c->d, v, _("%s[%d][%d] is masked (key %d comes after query %d), its score is -inf: "
                                     "write -inf there"), at->name, at->i + 1, col + 1, col + 1, at->i + 1);
    if (is_minus_inf(v))
        return diag_fail(&c->d, v, _("%s[%d][%d] is not masked; -inf is only for a masked score"), at->name,
                         at->i + 1, col + 1);
    if (!schema_num(c, v, &e->val[k], &dec))
        return false;
    const char *s = ydoc_str(v);
    s += *s == '-' || *s == '+';
    bool whole = !model_ref_is_param(at->r) && *s && strspn(s, "0123456789") == strlen(s);
    e->tol[k] = 0.5 * pow(10.0, -(whole ? c->digits : dec));
    return true;
}

/* One expectation "NAME[i]": [..] or "NAME[i][j]": x, computed by the step. */
static bool mexpect(Loader *c, const yaml_node_t *k, const yaml_node_t *v, const Model *m, const Step *st,
                    Expect *e)
{
    MRefAt at;
    if (!mref_read(c, k, m, _("an expect key"), _("a row like \"L1.h[2]\" or a cell like \"p[5][3]\""), &at) ||
        !mref_when(c, k, m, &at, st, false))
        return false;
    *e = (Expect){.mat = M_X, .i = at.i, .j = at.j, .mref = at.r, .val = e->val, .tol = e->tol,
                  .line = (int)k->start_mark.line + 1, .col = (int)k->start_mark.column + 1};
    if (at.j >= 0) {
        e->n = 1;
        return mexpect_value(c, v, m, &at, e, 0, at.j);
    }
    int cols = model_mat(m, at.r)->cols;
    if (!diag_want(&c->d, v, YAML_SEQUENCE_NODE, _("%s[%d] expects a list of %d numbers"), at.name, at.i + 1, cols) ||
        !schema_lookalikes(c, v))
        return false;
    if (ydoc_seq_len(v) != cols)
        return schema_row_length_fail(c, v, _("%s[%d] expects %d number%s, one per column of %s; this list has %d%s"),
                                      at.name, at.i + 1, cols, cols == 1 ? "" : "s", at.name, ydoc_seq_len(v), "");
    e->n = cols;
    bool ok = true;
    for (int q = 0; q < cols; q++)
        ok = mexpect_value(c, ydoc_seq_item(c->doc, v, q), m, &at, e, q, q) && ok;
    return ok;
}

static bool same_ref(const Expect *a, const Expect *b)
{
    return a->mref.kind == b->mref.kind && a->mref.layer == b->mref.layer && a->mref.attn == b->mref.attn &&
           a->i == b->i && a->j == b->j;
}

/* expect: a mapping of model names to values, at most LESSON_MAX_EXPECT. */
static bool mexpects(Loader *c, const yaml_node_t *n, const Model *m, Step *st)
{
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("expect must be a mapping like {\"p[5][3]\": 0.25}")))
        return false;
    int cnt = ydoc_map_len(n);
    if (cnt > LESSON_MAX_EXPECT)
        return diag_fail(&c->d, n, _("%d expectations, at most %d are allowed in one step"), cnt, LESSON_MAX_EXPECT);
    size_t slots = 0;
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    for (int k = 0; k < cnt; k++) {
        const yaml_node_t *v = ydoc_node(c->doc, p[k].value);
        int len = v->type == YAML_SEQUENCE_NODE ? ydoc_seq_len(v) : 1;
        slots += (size_t)(len < 1 ? 1 : len > MODEL_VOCAB_MAX * 2 ? MODEL_VOCAB_MAX * 2 : len);
    }
    st->expect = malloc((size_t)(cnt ? cnt : 1) * sizeof *st->expect + 2 * slots * sizeof(double));
    if (!st->expect)
        return diag_oom(&c->d, n);
    double *vals = (double *)(st->expect + (cnt ? cnt : 1));
    bool ok = true;
    for (int k = 0, used = 0; k < cnt; k++, p++) {
        Expect *e = &st->expect[st->nexpect];
        const yaml_node_t *key = ydoc_node(c->doc, p->key), *v = ydoc_node(c->doc, p->value);
        int len = v->type == YAML_SEQUENCE_NODE ? ydoc_seq_len(v) : 1;
        len = len < 1 ? 1 : len > MODEL_VOCAB_MAX * 2 ? MODEL_VOCAB_MAX * 2 : len;
        *e = (Expect){.val = vals + used, .tol = vals + slots + used};
        used += len;
        if (!mexpect(c, key, v, m, st, e)) {
            ok = false;
            continue;
        }
        for (int j = 0; j < st->nexpect; j++)
            if (same_ref(&st->expect[j], e)) {
                ok = diag_fail(&c->d, key, _("%s is expected twice in this step, the first is at line %d; keep one"),
                               diag_quote(&c->d, ydoc_str(key)), st->expect[j].line);
                e = NULL;
                break;
            }
        st->nexpect += e != NULL;
    }
    return ok;
}

/* ---- a step and the script ------------------------------------------------------ */

enum { MS_STAGE, MS_LAYER, MS_FOCUS, MS_DO, MS_SAY, MS_ASK, MS_QUESTION, MS_EXPECT, MS_EDITED, MS_N };
static const char *const mstep_keys[MS_N] = {"stage", "layer", "focus", "do", "say", "ask", "question", "expect",
                                             "edited"};

/* One ask of a model lesson: a result by name, computed by the step's
 * (layer, stage) of the scratch model (ask.h). */
static bool mask_one(const char *text, const void *m, const Step *st, Ask *out, char *msg, size_t len)
{
    return ask_parse_model(text, m, st->layer, st->stage, out, msg, len);
}

/* ask: a model's result by name ("L1.A[3][2]", "p[4]"), or a list of them. */
static bool masks(Loader *c, const yaml_node_t *n, const Model *m, Step *st)
{
    return steps_load_asks(c, n, _("ask must be a cell like \"p[5][3]\", or a list of them"), mask_one, m, st);
}

/* The step's do: applied to the scratch model, so that the templates, asks
 * and indices of this step and the later ones are checked against the
 * input the script has by then (tokens =, generate); reset goes back to
 * the base. An action that does not fit the input by then is named where
 * it is written. */
static bool mscratch(Loader *c, const yaml_node_t *n, const Lesson *l, Model *scratch)
{
    bool ok = true;
    int k = n->type == YAML_SCALAR_NODE ? 1 : n->type == YAML_SEQUENCE_NODE ? ydoc_seq_len(n) : 0;
    for (int a = 0; a < k && a < LESSON_MAX_ACTIONS; a++) {
        const yaml_node_t *item = n->type == YAML_SCALAR_NODE ? n : ydoc_seq_item(c->doc, n, a);
        char e[LESSON_ERR_MAX];
        int col = 0;
        Action act;
        if (item->type != YAML_SCALAR_NODE)
            continue;
        if (!maction_parse(ydoc_str(item), scratch, l->model, &act, e, sizeof e, &col))
            continue; /* steps_model_action_check names it */
        if (act.kind == ACT_RESET)
            ok = model_copy(scratch, l->model->base) && ok;
        else if (act.kind != ACT_STEP && !maction_apply(scratch, &act, e, sizeof e, NULL, 0))
            ok = diag_fail(&c->d, item, "%s", e);
    }
    return ok;
}

/* question: the words of the step's ask (templates checked), only on a
 * step that asks. */
static bool mquestion(Loader *c, const yaml_node_t *k, const yaml_node_t *n, const yaml_node_t *ask,
                      const Model *m, Step *st)
{
    if (!ask)
        return diag_fail(&c->d, k, _("question gives the words of an ask, and this step asks nothing; add ask: "
                                     "\"%s\" or move the text to say:"), st->stage == MSTAGE_NEXT ? "p[1][1]" : "L1.a[1][1]");
    bool ok = schema_text(c, n, "question", &st->question);
    steps_text_at(c, n, st->question_at);
    return steps_templates_model(c, n, m, st->layer, st->stage, "question") && ok;
}

static bool mstep(Loader *c, const yaml_node_t *n, int no, const Lesson *l, Model *scratch, Step *st)
{
    const Model *m = l->model->base;
    char where[32];
    schema_fill(where, sizeof where, _(" in step %d"), NULL, no);
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("step %d must be a mapping like {stage: scores, say: ...}"), no))
        return false;
    Keys ks = {mstep_keys, MS_N, _("key"), where};
    yaml_node_t *val[MS_N] = {0}, *key[MS_N] = {0};
    st->line = (int)n->start_mark.line + 1;
    bool keys = schema_keys(c, n, &ks, val, key);
    if (!val[MS_STAGE])
        return diag_fail(&c->d, n, _("step %d has no stage, expected stage: embed, qkv, scores, softmax, output, project, ffn or next"), no);
    if (!mstage(c, val[MS_STAGE], m, st) || !mlayer(c, val[MS_LAYER], m, st))
        return false;
    bool ok = !val[MS_DO] || mdo(c, val[MS_DO], l, &st->act, &st->act_text, &st->nact);
    ok = (!val[MS_EDITED] || mdo(c, val[MS_EDITED], l, &st->edit, &st->edit_text, &st->nedit)) && ok;
    ok = (!val[MS_DO] || mscratch(c, val[MS_DO], l, scratch)) && ok;
    ok = (!val[MS_EDITED] || mscratch(c, val[MS_EDITED], l, scratch)) && ok;
    ok = (!val[MS_FOCUS] || mfocus(c, val[MS_FOCUS], m, st)) && ok;
    if (!c->no_narration) {
        bool say = schema_text(c, val[MS_SAY], "say", &st->say);
        steps_text_at(c, val[MS_SAY], st->say_at);
        ok = say && steps_templates_model(c, val[MS_SAY], scratch, st->layer, st->stage, "say") && ok;
        ok = (!val[MS_QUESTION] || mquestion(c, key[MS_QUESTION], val[MS_QUESTION], val[MS_ASK], scratch, st)) && ok;
    }
    ok = (!val[MS_ASK] || masks(c, val[MS_ASK], scratch, st)) && ok;
    return (!val[MS_EXPECT] || mexpects(c, val[MS_EXPECT], m, st)) && ok && keys;
}

/* Without a script: one silent step per stage of every layer, then next. */
static bool mdefault_steps(Loader *c, const yaml_node_t *root, Lesson *l)
{
    const Model *m = l->model->base;
    int count = 0, layer = 1, stage = MSTAGE_EMBED;
    do
        count++;
    while (model_stage_next(m, &layer, &stage));
    l->steps = calloc((size_t)count, sizeof *l->steps);
    if (!l->steps)
        return diag_oom(&c->d, root);
    l->nsteps = count;
    layer = 1;
    stage = MSTAGE_EMBED;
    for (int k = 0; k < count; k++, model_stage_next(m, &layer, &stage))
        l->steps[k] = (Step){.stage = stage, .layer = layer, .line = (int)root->start_mark.line + 1};
    l->steps_given = false;
    return true;
}

bool steps_model_load(Loader *c, const yaml_node_t *root, const yaml_node_t *n, Lesson *l)
{
    if (!n)
        return mdefault_steps(c, root, l);
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("steps must be a list of steps like - {stage: scores, say: ...}")))
        return false;
    int cnt = ydoc_seq_len(n);
    if (cnt == 0)
        return diag_fail(&c->d, n, _("steps is empty; write at least one step, or leave steps out for one per stage"));
    if (cnt > LESSON_MAX_STEPS)
        return diag_fail(&c->d, n, _("%d steps, at most %d are allowed"), cnt, LESSON_MAX_STEPS);
    l->steps = calloc((size_t)cnt, sizeof *l->steps);
    if (!l->steps)
        return diag_oom(&c->d, n);
    l->nsteps = cnt;
    l->steps_given = true;
    Model *scratch = calloc(1, sizeof *scratch); /* the script's input so far (do: applied) */
    if (!scratch || !model_copy(scratch, l->model->base)) {
        free(scratch);
        return diag_oom(&c->d, n);
    }
    bool ok = true;
    for (int k = 0; k < cnt; k++)
        ok = mstep(c, ydoc_seq_item(c->doc, n, k), k + 1, l, scratch, &l->steps[k]) && ok;
    model_free(scratch);
    free(scratch);
    return ok;
}
