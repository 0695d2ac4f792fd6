/* steps.c - the step script of a lesson file (see steps.h). */
#include "steps.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "text/i18n.h"
#include "template.h"

static const char *const stage_names[] = {"input", "qkv", "scores", "softmax", "output", "project"};

/* stage: a name (input..output, project with W_O) or a number 1..5 (6). */
static bool load_stage(Loader *c, const yaml_node_t *n, const Attn *shape, Step *st)
{
    unsigned long long v;
    if (!schema_want_text(c, n, "stage"))
        return false;
    bool wo = attn_last_stage(shape) == STAGE_PROJECT;
    if (schema_uint(c, n, 1000000, &v) && v == STAGE_PROJECT && wo) {
        st->stage = STAGE_PROJECT;
        return true;
    }
    if (strcmp(ydoc_str(n), "project") == 0 && wo) {
        st->stage = STAGE_PROJECT;
        return true;
    }
    if ((strcmp(ydoc_str(n), "project") == 0 || (schema_uint(c, n, 1000000, &v) && v == STAGE_PROJECT)))
        return diag_fail(&c->d, n, _("stage %s needs W_O: only lessons with heads: 2 or more, or d_out in "
                                     "random:, have stage 6 (project)"), diag_quote(&c->d, ydoc_str(n)));
    if (schema_uint(c, n, 1000000, &v)) {
        if (v < 1 || v > 5)
            return diag_fail(&c->d, n, _("stage %llu is out of range, expected 1 to 5 or "
                                         "input, qkv, scores, softmax or output"), v);
        st->stage = (int)v;
        return true;
    }
    for (int k = 0; k < 5; k++)
        if (strcmp(ydoc_str(n), stage_names[k]) == 0) {
            st->stage = k + 1;
            return true;
        }
    const char *s = diag_suggest(ydoc_str(n), stage_names, 5);
    if (s)
        return diag_fail(&c->d, n, _("unknown stage %s (did you mean \"%s\"?), expected "
                                     "input, qkv, scores, softmax or output"), diag_quote(&c->d, ydoc_str(n)), s);
    return diag_fail(&c->d, n, _("unknown stage %s, expected input, qkv, scores, softmax or output"),
                     diag_quote(&c->d, ydoc_str(n)));
}

/* focus: a row "Q[1]" or a cell "S[1][2]" inside the lesson's shapes. */
static bool load_focus(Loader *c, const yaml_node_t *n, const Attn *shape, Step *st)
{
    Focus *f = &st->focus;
    Ref r;
    if (!schema_ref(c, n, shape, "focus", _("a row like \"Q[1]\" or a cell like \"S[1][2]\""), &r))
        return false;
    int need = attn_mat_stage(r.mat);
    if (need > st->stage)
        return diag_fail(&c->d, n, _("%s is computed at stage %s, this step shows stage %s; focus on it at a "
                                     "later step"), attn_mat_name(r.mat), stage_names[need - 1],
                         stage_names[st->stage - 1]);
    f->mat = r.mat;
    f->i = ref_row(&r);
    f->j = ref_col(&r);
    f->kind = f->j < 0 ? FOCUS_ROW : FOCUS_CELL;
    if (f->j < 0)
        f->j = 0;
    return true;
}

/* Where a step's list of actions goes: do: (the script's) or edited:
 * (a saved lesson's student actions). */
typedef struct {
    Action **act;
    char ***text;
    int *n;
} ActList;

/* Parse one action and check its indices on a scratch state; the list has
 * room for it (load_do sized it to what was written). */
static bool load_action(Loader *c, const yaml_node_t *n, Attn *scratch, ActList *to)
{
    char e[LESSON_ERR_MAX];
    int errcol = 0;
    if (!schema_want_text(c, n, _("an action")))
        return false;
    Action *a = &(*to->act)[*to->n];
    if (!schema_check_lookalike(c, n))
        return false;
    if (!action_parse_in(ydoc_str(n), scratch, a, e, sizeof e, &errcol))
        return diag_fail_at(&c->d, n->start_mark.line, schema_col(n, errcol > 0 ? (size_t)errcol - 1 : 0),
                            "%s", e);
    if (a->kind != ACT_RESET && !action_apply(scratch, a, e, sizeof e))
        return diag_fail(&c->d, n, "%s", e);
    (*to->text)[*to->n] = strdup(ydoc_str(n));
    if (!(*to->text)[*to->n])
        return diag_oom(&c->d, n);
    (*to->n)++;
    return true;
}

/* do: (or edited:) one action or a list of them, at most LESSON_MAX_ACTIONS. */
static bool load_do(Loader *c, const yaml_node_t *n, Attn *scratch, ActList *to)
{
    if (n->type != YAML_SCALAR_NODE &&
        !diag_want(&c->d, n, YAML_SEQUENCE_NODE,
                   _("do must be an action like \"Q[1] = K[1] * 5\", or a list of them")))
        return false;
    int cnt = n->type == YAML_SCALAR_NODE ? 1 : ydoc_seq_len(n);
    if (cnt > LESSON_MAX_ACTIONS)
        return diag_fail(&c->d, n, _("%d actions, at most %d are allowed in one step"), cnt, LESSON_MAX_ACTIONS);
    /* Sized to what was written: an Action holds a whole row of values. */
    *to->act = calloc((size_t)(cnt ? cnt : 1), sizeof **to->act);
    *to->text = calloc((size_t)(cnt ? cnt : 1), sizeof **to->text);
    if (!*to->act || !*to->text)
        return diag_oom(&c->d, n);
    if (n->type == YAML_SCALAR_NODE)
        return load_action(c, n, scratch, to);
    bool ok = true;
    for (int k = 0; k < ydoc_seq_len(n); k++)
        ok = load_action(c, ydoc_seq_item(c->doc, n, k), scratch, to) && ok;
    return ok;
}

/* Half a unit of the last written decimal: 0.873 -> 0.0005, 2 -> 0.5. */
static double tol_of(int decimals)
{
    return 0.5 * pow(10.0, -decimals);
}

/* "-inf", "−∞", "-∞" or "-.inf": the score of a masked cell. */
static bool minus_infinity(const yaml_node_t *n)
{
    static const char *const spellings[] = {"-inf", "\xe2\x88\x92\xe2\x88\x9e", "-\xe2\x88\x9e",
                                            "-.inf", "-.Inf", "-.INF", "\xe2\x88\x92inf", "-Inf"};
    for (int k = 0; n->type == YAML_SCALAR_NODE && k < (int)(sizeof spellings / sizeof *spellings); k++)
        if (strcmp(ydoc_str(n), spellings[k]) == 0)
            return true;
    return false;
}

/* Is cell (i, j) of matrix m masked (a −∞ score) in this state? */
static bool masked_cell(const Attn *shape, MatId m, int i, int j)
{
    return attn_mat_base(m) == M_S && attn_masked(shape, i, j);
}

/* A whole number ("1", "-2") expected of a result (QKt, S, A, O, Y): it
 * means that number to the lesson's digits, 1 = 1.000 ± 0.0005 with digits
 * 3, not ± 0.5 (a row [1, 0, 0] of A would pass [0.6, 0.4, 0] otherwise). */
static bool whole_result(const yaml_node_t *v, MatId m)
{
    MatId b = attn_mat_base(m);
    const char *s = ydoc_str(v);
    if (b != M_QKT && b != M_S && b != M_A && b != M_O && b != M_Y)
        return false;
    s += *s == '-' || *s == '+';
    return *s && strspn(s, "0123456789") == strlen(s);
}

/* One expected number at column col of e: a number (its decimals give the
 * tolerance), or −∞ for a masked score, which is the only value there. */
static bool load_expect_value(Loader *c, const yaml_node_t *v, const Attn *shape, Expect *e, int k, int col)
{
    bool masked = masked_cell(shape, e->mat, e->i, col);
    int dec;
    if (minus_infinity(v) && masked) {
        e->val[k] = -INFINITY;
        e->tol[k] = 0;
        return true;
    }
    if (minus_infinity(v))
        return diag_fail(&c->d, v, _("%s[%d][%d] is not masked at this step; -inf is only for a masked score "
                                     "(mask: causal, a key after its query)"), attn_mat_name(e->mat), e->i + 1,
                         col + 1);
    if (masked && v->type == YAML_SCALAR_NODE)
        return diag_fail(&c->d, v, _("%s[%d][%d] is masked at this step (key %d comes after query %d), its score is "
                                     "-inf: write -inf, or expect A there, which is 0"), attn_mat_name(e->mat),
                         e->i + 1, col + 1, col + 1, e->i + 1);
    if (!schema_num(c, v, &e->val[k], &dec))
        return false;
    e->tol[k] = tol_of(whole_result(v, e->mat) ? c->digits : dec);
    return true;
}

/* The masked cells of row i of m, as " (S[3][4] to S[3][5] are masked: ...)"
 * for a message, or "" when none are. */
static const char *masked_note(const Attn *shape, const Expect *e, int cols, char *buf, size_t len)
{
    int first = -1, last = -1;
    for (int j = 0; j < cols; j++)
        if (masked_cell(shape, e->mat, e->i, j)) {
            first = first < 0 ? j : first;
            last = j;
        }
    buf[0] = '\0';
    if (first < 0)
        return buf;
    const char *n = attn_mat_name(e->mat);
    if (first == last)
        snprintf(buf, len, _("; %s[%d][%d] is masked: write -inf there"), n, e->i + 1, first + 1);
    else
        snprintf(buf, len, _("; %s[%d][%d] to %s[%d][%d] are masked: write -inf there"), n, e->i + 1, first + 1, n,
                 e->i + 1, last + 1);
    return buf;
}

/* The value of a row expectation: one number per column of the matrix
 * (-inf for a masked score). */
static bool load_expect_row(Loader *c, const yaml_node_t *v, const Attn *shape, Expect *e)
{
    const Mat *x = &shape->m[e->mat];
    const char *name = attn_mat_name(e->mat);
    char note[160];
    if (!diag_want(&c->d, v, YAML_SEQUENCE_NODE, _("%s[%d] expects a list of %d numbers"), name, e->i + 1,
                   x->cols) || !schema_lookalikes(c, v))
        return false;
    if (ydoc_seq_len(v) != x->cols)
        return schema_row_length_fail(c, v,
                                      _("%s[%d] expects %d number%s, one per column of %s; this list has %d%s"),
                                      name, e->i + 1, x->cols, x->cols == 1 ? "" : "s", name, ydoc_seq_len(v),
                                      masked_note(shape, e, x->cols, note, sizeof note));
    e->n = x->cols;
    bool ok = true;
    for (int k = 0; k < e->n; k++)
        ok = load_expect_value(c, ydoc_seq_item(c->doc, v, k), shape, e, k, k) && ok;
    return ok;
}

/* One expectation "M[i]": [..] or "M[i][j]": x, valid at the step's stage. */
static bool load_expect(Loader *c, const yaml_node_t *k, const yaml_node_t *v, const Attn *shape,
                        const Step *st, Expect *e)
{
    Ref r;
    if (!schema_ref(c, k, shape, _("an expect key"), _("a row like \"A[1]\" or a cell like \"A[1][2]\""), &r))
        return false;
    e->mat = r.mat;
    e->i = ref_row(&r);
    e->j = ref_col(&r);
    e->line = (int)k->start_mark.line + 1;
    e->col = (int)k->start_mark.column + 1;
    int need = attn_mat_stage(e->mat);
    if (need > st->stage)
        return diag_fail(&c->d, k,
                         _("%s is computed at stage %s, this step shows stage %s; expect it at a later step"),
                         attn_mat_name(e->mat), stage_names[need - 1], stage_names[st->stage - 1]);
    if (e->j < 0)
        return load_expect_row(c, v, shape, e);
    e->n = 1;
    return load_expect_value(c, v, shape, e, 0, e->j);
}

/* Refuse a second expectation of the same row or cell in one step. */
static bool expect_once(Loader *c, const yaml_node_t *k, const Step *st, int at)
{
    const Expect *e = &st->expect[at];
    for (int j = 0; j < at; j++)
        if (st->expect[j].mat == e->mat && st->expect[j].i == e->i && st->expect[j].j == e->j)
            return diag_fail(&c->d, k, _("%s is expected twice in this step, the first is at line %d; keep one"),
                             diag_quote(&c->d, ydoc_str(k)), st->expect[j].line);
    return true;
}

/* How many numbers an expect's value v may give: a list's length (at
 * most MAT_MAX, a row's longest), else 1. */
static int expect_slots(const yaml_node_t *v)
{
    int len = v->type == YAML_SEQUENCE_NODE ? ydoc_seq_len(v) : 1;
    return len < 1 ? 1 : len > MAT_MAX ? MAT_MAX : len;
}

/* expect: a mapping of references to values, at most LESSON_MAX_EXPECT. */
static bool load_expects(Loader *c, const yaml_node_t *n, const Attn *shape, Step *st)
{
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE,
                   _("expect must be a mapping like {\"A[1]\": [0.873, 0.076, 0.052]}")))
        return false;
    int cnt = ydoc_map_len(n);
    if (cnt > LESSON_MAX_EXPECT)
        return diag_fail(&c->d, n, _("%d expectations, at most %d are allowed in one step"), cnt,
                         LESSON_MAX_EXPECT);
    /* the values' room: a list's length (a row has at most MAT_MAX), else 1 */
    size_t slots = 0;
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    for (int k = 0; k < cnt; k++)
        slots += (size_t)expect_slots(ydoc_node(c->doc, p[k].value));
    st->expect = malloc((size_t)(cnt ? cnt : 1) * sizeof *st->expect + 2 * slots * sizeof(double));
    if (!st->expect)
        return diag_oom(&c->d, n);
    double *vals = (double *)(st->expect + (cnt ? cnt : 1));
    bool ok = true;
    for (int k = 0, at = 0; k < cnt; at += expect_slots(ydoc_node(c->doc, p->value)), k++, p++) {
        Expect *e = &st->expect[st->nexpect]; /* a failed one's place is taken by the next */
        *e = (Expect){.val = vals + at, .tol = vals + slots + at};
        if (load_expect(c, ydoc_node(c->doc, p->key), ydoc_node(c->doc, p->value), shape, st, e))
            ok = expect_once(c, ydoc_node(c->doc, p->key), st, st->nexpect++) && ok;
        else
            ok = false;
    }
    return ok;
}

/* Check the {REF} templates of a text field (a string or {zh:, en:}) for a
 * step showing `stage`, or for about: (TEMPLATE_ABOUT); see template.h.
 * With m, a model lesson's, for a step showing (layer, stage) of m. */
static bool check_templates(Loader *c, const yaml_node_t *n, const Attn *shape, const Model *m, int layer, int stage,
                            const char *what)
{
    int cnt = !n ? 0 : n->type == YAML_MAPPING_NODE ? ydoc_map_len(n) : 1;
    bool ok = true;
    for (int k = 0; k < cnt; k++) {
        const yaml_node_t *s =
            n->type == YAML_MAPPING_NODE ? ydoc_node(c->doc, n->data.mapping.pairs.start[k].value) : n;
        char e[LESSON_ERR_MAX];
        int errcol = 0;
        /* every bad reference of the text, each checked from after the one before */
        for (const char *t = ydoc_str(s), *from = t; s->type == YAML_SCALAR_NODE && from;) {
            if (m ? template_check_model(from, m, layer, stage, what, &errcol, e, sizeof e)
                  : template_check(from, shape, stage, what, &errcol, e, sizeof e))
                break;
            /* errcol counts characters; schema_col takes a byte offset */
            size_t off = (size_t)(from - t) + text_char_offset(from, errcol > 1 ? (size_t)errcol - 1 : 0);
            ok = diag_fail_at(&c->d, s->start_mark.line, schema_col(s, off), "%s", e);
            from = strchr(t + off, '}');
            from = from ? from + 1 : NULL; /* an unclosed "{" is the rest */
        }
    }
    return ok;
}

bool steps_templates(Loader *c, const yaml_node_t *n, const Attn *shape, int stage, const char *what)
{
    return check_templates(c, n, shape, NULL, 0, stage, what);
}

bool steps_templates_model(Loader *c, const yaml_node_t *n, const Model *m, int layer, int stage, const char *what)
{
    return check_templates(c, n, NULL, m, layer, stage, what);
}

static void text_at(const yaml_node_t *s, TextAt *at)
{
    at->line = (int)s->start_mark.line + 1;
    at->col = (int)s->start_mark.column;
    bool one = s->end_mark.line == s->start_mark.line;
    switch (s->data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE: at->quote = one ? 0 : -1; break;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: at->quote = one ? 1 : -1; break;
    default: at->quote = -1; break;
    }
}

void steps_text_at(Loader *c, const yaml_node_t *n, TextAt at[LANG_COUNT])
{
    if (!n)
        return;
    if (n->type == YAML_SCALAR_NODE) {
        text_at(n, &at[LANG_EN]);
        at[LANG_ZH] = at[LANG_EN];
        return;
    }
    if (n->type != YAML_MAPPING_NODE)
        return;
    for (int k = 0; k < ydoc_map_len(n); k++) {
        const yaml_node_t *key = ydoc_node(c->doc, n->data.mapping.pairs.start[k].key),
                          *v = ydoc_node(c->doc, n->data.mapping.pairs.start[k].value);
        if (key->type == YAML_SCALAR_NODE && v->type == YAML_SCALAR_NODE && v->data.scalar.length > 0)
            text_at(v, &at[strcmp(ydoc_str(key), "zh") == 0 ? LANG_ZH : LANG_EN]);
    }
    /* a language left out shows the other: it is written there */
    for (int k = 0; k < LANG_COUNT; k++)
        if (!at[k].line && at[!k].line) {
            at[k] = at[!k];
            at[k].alone = true;
        }
}

/* One ask of a one-layer lesson against the step's shapes (ask.h). */
static bool ask_one(const char *text, const void *shape, const Step *st, Ask *out, char *msg, size_t len)
{
    return ask_parse(text, shape, st->stage, out, msg, len);
}

bool steps_load_asks(Loader *c, const yaml_node_t *n, const char *want, AskParser parse, const void *shape, Step *st)
{
    if (n->type != YAML_SCALAR_NODE && !diag_want(&c->d, n, YAML_SEQUENCE_NODE, "%s", want))
        return false;
    int cnt = n->type == YAML_SCALAR_NODE ? 1 : ydoc_seq_len(n);
    if (cnt > ASK_MAX)
        return diag_fail(&c->d, n, _("%d asks, at most %d are allowed in one step"), cnt, ASK_MAX);
    st->ask = calloc((size_t)(cnt ? cnt : 1), sizeof *st->ask);
    if (!st->ask)
        return diag_oom(&c->d, n);
    for (int k = 0; k < cnt; k++) {
        const yaml_node_t *item = n->type == YAML_SCALAR_NODE ? n : ydoc_seq_item(c->doc, n, k);
        char e[LESSON_ERR_MAX];
        if (!schema_want_text(c, item, "ask"))
            return false;
        if (!parse(ydoc_str(item), shape, st, &st->ask[st->nask], e, sizeof e))
            return diag_fail(&c->d, item, "%s", e);
        st->ask[st->nask].line = (int)item->start_mark.line + 1;
        st->ask[st->nask].col = (int)item->start_mark.column + 1;
        st->nask++;
    }
    return true;
}

/* ask: a cell or row reference, or a list of them (see ask.h). */
static bool load_asks(Loader *c, const yaml_node_t *n, const Attn *shape, Step *st)
{
    return steps_load_asks(c, n, _("ask must be a cell like \"S[1][2]\", a row like \"A[1]\", or a list of them"),
                           ask_one, shape, st);
}

enum { S_STAGE, S_FOCUS, S_DO, S_SAY, S_ASK, S_QUESTION, S_EXPECT, S_EDITED, S_N };
static const char *const step_keys[S_N] = {"stage", "focus", "do", "say", "ask", "question", "expect", "edited"};

/* question: the words of a step's ask (string or {zh:, en:}, templates
 * allowed); only on a step that asks. */
static bool load_question(Loader *c, const yaml_node_t *k, const yaml_node_t *n, const yaml_node_t *ask,
                          const Attn *shape, Step *st)
{
    /* an ask this step's stage can show (at input, none: X is given) */
    static const char *const example[] = {"Q[1][1]", "S[1][2]", "A[1][2]", "O[1][1]"};
    if (!ask && st->stage <= STAGE_INPUT)
        return diag_fail(&c->d, k, _("question gives the words of an ask, and this step asks nothing; at stage "
                                     "input there is nothing to ask yet (X is given): move the text to say:"));
    if (!ask)
        return diag_fail(&c->d, k, _("question gives the words of an ask, and this step asks nothing; add ask: "
                                     "\"%s\" or move the text to say:"), example[st->stage < 5 ? st->stage - 2 : 3]);
    steps_text_at(c, n, st->question_at);
    return schema_text(c, n, "question", &st->question) && steps_templates(c, n, shape, st->stage, "question");
}

/* One step of the script; `scratch` is the base state used to check
 * indices (and accumulates the do: actions). */
static bool load_step(Loader *c, const yaml_node_t *n, int no, Attn *scratch, Step *st)
{
    char where[32];
    schema_fill(where, sizeof where, _(" in step %d"), NULL, no);
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("step %d must be a mapping like {stage: scores, say: ...}"), no))
        return false;
    Keys ks = {step_keys, S_N, _("key"), where};
    yaml_node_t *val[S_N] = {0}, *key[S_N] = {0};
    st->line = (int)n->start_mark.line + 1;
    bool keys = schema_keys(c, n, &ks, val, key);
    if (!val[S_STAGE])
        return diag_fail(&c->d, n, _("step %d has no stage, expected stage: "
                                     "input, qkv, scores, softmax or output"), no);
    if (!load_stage(c, val[S_STAGE], scratch, st))
        return false;
    /* each part on its own, so --check reports all of a step's mistakes */
    /* do: first: the focus may name a row it appends */
    ActList script = {&st->act, &st->act_text, &st->nact}, edits = {&st->edit, &st->edit_text, &st->nedit};
    bool ok = !val[S_DO] || load_do(c, val[S_DO], scratch, &script);
    ok = (!val[S_EDITED] || load_do(c, val[S_EDITED], scratch, &edits)) && ok; /* after do:, as the session */
    ok = (!val[S_FOCUS] || load_focus(c, val[S_FOCUS], scratch, st)) && ok;
    if (c->no_narration) /* --json prints no narration: neither read nor checked */
        ;
    else if (schema_text(c, val[S_SAY], "say", &st->say)) {
        steps_text_at(c, val[S_SAY], st->say_at);
        ok = steps_templates(c, val[S_SAY], scratch, st->stage, "say") && ok;
    } else
        ok = false;
    ok = (!val[S_ASK] || load_asks(c, val[S_ASK], scratch, st)) && ok;
    ok = (!val[S_QUESTION] || c->no_narration ||
          load_question(c, key[S_QUESTION], val[S_QUESTION], val[S_ASK], scratch, st)) && ok;
    return (!val[S_EXPECT] || load_expects(c, val[S_EXPECT], scratch, st)) && ok && keys;
}

/* Without a script, one silent step per stage. */
static bool default_steps(Loader *c, const yaml_node_t *root, Lesson *l)
{
    int count = l->d_out > 0 ? STAGE_PROJECT : STAGE_COUNT;
    l->steps = calloc((size_t)count, sizeof *l->steps);
    if (!l->steps)
        return diag_oom(&c->d, root);
    l->nsteps = count;
    for (int k = 0; k < count; k++) {
        l->steps[k].stage = k + 1;
        l->steps[k].line = (int)root->start_mark.line + 1;
    }
    l->steps_given = false;
    return true;
}

/* Count action `n`'s gradient steps (a `step N`) towards the lesson's
 * budget, before anything is applied; refuse the one that passes it. An
 * action that does not parse is left to load_action's message. */
bool steps_count_training(Loader *c, const yaml_node_t *n)
{
    char e[LESSON_ERR_MAX];
    int errcol = 0;
    Action a;
    if (n->type != YAML_SCALAR_NODE || !action_parse(ydoc_str(n), &a, e, sizeof e, &errcol) || a.kind != ACT_STEP)
        return true;
    c->grad_steps += a.n;
    if (c->grad_steps <= LESSON_MAX_GRAD_STEPS)
        return true;
    return diag_fail(&c->d, n, _("this action brings the lesson's gradient steps to %ld in all, at most %d are "
                                 "allowed (each move between steps replays them); take fewer or smaller steps"),
                     c->grad_steps, LESSON_MAX_GRAD_STEPS);
}

/* The gradient steps of one do: (or edited:) value, counted. */
static bool count_actions(Loader *c, const yaml_node_t *dn)
{
    if (dn->type == YAML_SCALAR_NODE)
        return steps_count_training(c, dn);
    for (int a = 0; dn->type == YAML_SEQUENCE_NODE && a < ydoc_seq_len(dn) && a < LESSON_MAX_ACTIONS; a++)
        if (!steps_count_training(c, ydoc_seq_item(c->doc, dn, a)))
            return false;
    return true;
}

/* Every do: (and edited:) of the script counted before any is applied (a
 * script of many `step 10000` is refused at once, not after minutes of
 * training). */
static bool count_training(Loader *c, const yaml_node_t *steps)
{
    for (int k = 0; k < ydoc_seq_len(steps); k++) {
        const yaml_node_t *st = ydoc_seq_item(c->doc, steps, k);
        if (!st || st->type != YAML_MAPPING_NODE)
            continue;
        for (yaml_node_pair_t *p = st->data.mapping.pairs.start; p < st->data.mapping.pairs.top; p++) {
            const yaml_node_t *key = yaml_document_get_node(c->doc, p->key), *dn;
            if (!key || key->type != YAML_SCALAR_NODE ||
                (strcmp(ydoc_str(key), "do") != 0 && strcmp(ydoc_str(key), "edited") != 0))
                continue;
            dn = yaml_document_get_node(c->doc, p->value);
            if (dn && !count_actions(c, dn))
                return false;
        }
    }
    return true;
}

/* steps: the script, or one step per stage when it is absent. */
bool steps_load(Loader *c, const yaml_node_t *root, const yaml_node_t *n, Lesson *l)
{
    if (!n)
        return default_steps(c, root, l);
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE,
                   _("steps must be a list of steps like - {stage: scores, say: ...}")))
        return false;
    int cnt = ydoc_seq_len(n);
    if (cnt == 0)
        return diag_fail(&c->d, n,
                         _("steps is empty; write at least one step, or leave steps out for one per stage"));
    if (cnt > LESSON_MAX_STEPS)
        return diag_fail(&c->d, n, _("%d steps, at most %d are allowed"), cnt, LESSON_MAX_STEPS);
    if (!count_training(c, n))
        return false;
    Attn scratch;
    if (!lesson_base(l, &scratch))
        return diag_oom(&c->d, n);
    l->steps = calloc((size_t)cnt, sizeof *l->steps);
    bool ok = l->steps != NULL || diag_oom(&c->d, n);
    if (ok)
        l->nsteps = cnt;
    for (int k = 0; l->steps && k < cnt; k++)
        ok = load_step(c, ydoc_seq_item(c->doc, n, k), k + 1, &scratch, &l->steps[k]) && ok;
    attn_free(&scratch);
    l->steps_given = true;
    return ok;
}

/* start: the 1-based step the view opens at. */
