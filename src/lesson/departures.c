/* departures.c - where the state departs from the lesson's script: the
 * script's state at this step, the edits that made the current one, what
 * they changed and still change (see departures.h). */
#include "departures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "maction.h"
#include "session_hooks.h"
#include "options.h"
#include "text/i18n.h"
#include "text/num.h"
#include "text/text.h"
/* ---- the edited-state notice ------------------------------------------------ */

/* The script's inputs at this step: the base, then every `do:` of steps
 * 0..step (a `reset` there goes back to the base). Not computed. */
static bool script_inputs(const Session *s, Attn *a)
{
    const Lesson *l = s->lesson;
    Attn base = {0};
    char err[160];
    bool ok = lesson_base(l, &base) && attn_copy(a, &base);
    for (int k = 0; ok && k <= s->step; k++)
        for (int n = 0; n < l->steps[k].nact; n++) {
            const Action *act = &l->steps[k].act[n];
            if (act->kind == ACT_RESET)
                ok = attn_copy(a, &base);
            else
                (void)action_apply(a, act, err, sizeof err); /* checked at load */
        }
    attn_free(&base);
    return ok;
}

bool session_script_state(const Session *s, Attn *out)
{
    if (!script_inputs(s, out))
        return false;
    attn_run_to(out, session_stage(s));
    return true;
}

static bool mat_equal(const Mat *a, const Mat *b)
{
    return mat_same_shape(a, b) && memcmp(a->v, b->v, sizeof(double) * (size_t)a->rows * (size_t)a->cols) == 0;
}

/* ---- departures ------------------------------------------------------------------- */

void action_text(const Action *act, char *buf, size_t len)
{
    char x[40];
    const char *name = attn_mat_name(act->mat);
    size_t n = 0;
    if (maction_is_model(act)) { /* a model lesson's (maction.h) */
        maction_format(act, buf, len);
        return;
    }
    switch (act->kind) {
    case ACT_CELL_SET:
        snprintf(buf, len, "%s[%d][%d] = %s", name, act->i + 1, act->j + 1, fmt_exact(act->c, x, sizeof x));
        return;
    case ACT_ROW_COPY:
        n = (size_t)snprintf(buf, len, "%s[%d] = %s[%d]", name, act->i + 1, attn_mat_name(act->src), act->src_i + 1);
        if (act->c != 1 && n < len)
            snprintf(buf + n, len - n, " * %s", fmt_exact(act->c, x, sizeof x));
        return;
    case ACT_ROW_SET:
        n = (size_t)snprintf(buf, len, "%s[%d] = [", name, act->i + 1);
        for (int k = 0; k < act->n && n < len; k++)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "", fmt_exact(act->vals[k], x, sizeof x));
        if (n < len)
            snprintf(buf + n, len - n, "]");
        return;
    default:
        action_format(act, buf, len);
        return;
    }
}

static bool writes_matrix(const Action *a)
{
    return a->kind == ACT_CELL_SET || a->kind == ACT_ROW_SET || a->kind == ACT_ROW_COPY;
}

/* Does the later action b write everything the earlier action a wrote
 * (with no swap between them)? Then a no longer matters. */
static bool covers(const Action *b, const Action *a)
{
    if (action_is_option(a) || a->kind == ACT_LR)
        return b->kind == a->kind;
    if (a->kind == ACT_TARGET)
        return b->kind == ACT_TARGET && b->head == a->head && b->i == a->i;
    if (!writes_matrix(a) || !writes_matrix(b) || a->mat != b->mat || a->i != b->i)
        return false;
    return b->kind != ACT_CELL_SET || (a->kind == ACT_CELL_SET && a->j == b->j);
}

static bool same_targets(const Attn *a, const Attn *b)
{
    if (a->ntarget != b->ntarget)
        return false;
    for (int k = 0; k < a->ntarget; k++)
        if (a->target[k].head != b->target[k].head || a->target[k].row != b->target[k].row ||
            memcmp(a->target[k].t, b->target[k].t, sizeof a->target[k].t) != 0)
            return false;
    return true;
}

/* Row i of Q/K/V (p) as the state sets it: not overridden in both, or
 * overridden alike with the same numbers. */
static bool same_qkv_row(const Attn *a, const Attn *b, int p, int i)
{
    if (a->override[p][i] != b->override[p][i] || a->ovh[p][i] != b->ovh[p][i])
        return false;
    const Mat *x = &a->m[M_Q + p], *y = &b->m[M_Q + p];
    return !a->override[p][i] || memcmp(&MAT_AT(x, i, 0), &MAT_AT(y, i, 0), sizeof(double) * (size_t)x->cols) == 0;
}

/* Do two states hold the same token in every row? Each state numbers its
 * own appended names, so an appended token is the same when its name is. */
static bool same_tokens(const Attn *a, const Attn *b)
{
    for (int i = 0; i < MAT_MAX; i++) {
        const char *x = action_token_name(a, a->tok[i]), *y = action_token_name(b, b->tok[i]);
        if (x || y ? !x || !y || strcmp(x, y) != 0 : a->tok[i] != b->tok[i])
            return false;
    }
    return true;
}

/* Does what action a wrote still differ from the script's state? (No swap
 * in effect: indices name the same tokens in both.) */
static bool still_differs(const Action *a, const Attn *cur, const Attn *script)
{
    const OptRow *r = option_of_action(a->kind);
    if (r && r->in_attn) /* an option of the table (options.h); online's block and a window's width go with it */
        return option_get(cur, r) != option_get(script, r) ||
               (r->id == OPT_SOFTMAX && cur->softmax == SOFTMAX_ONLINE && cur->block != script->block) ||
               ((r->flags & OF_WIDTH) && cur->mask == MASK_WINDOW && cur->window != script->window);
    switch (a->kind) {
    case ACT_APPEND: return attn_tokens(cur) != attn_tokens(script) || !same_tokens(cur, script);
    case ACT_TARGET: return !same_targets(cur, script);
    case ACT_CELL_SET: case ACT_ROW_SET: case ACT_ROW_COPY: {
        MatId m = attn_mat_base(a->mat);
        if (m >= M_Q && m <= M_V)
            return a->i >= MAT_MAX || !same_qkv_row(cur, script, m - M_Q, a->i);
        const Mat *x = &cur->m[m], *y = &script->m[m];
        if (!mat_same_shape(x, y) || a->i >= x->rows)
            return true;
        if (a->kind == ACT_CELL_SET)
            return a->j >= x->cols || MAT_AT(x, a->i, a->j) != MAT_AT(y, a->i, a->j);
        return memcmp(&MAT_AT(x, a->i, 0), &MAT_AT(y, a->i, 0), sizeof(double) * (size_t)x->cols) != 0;
    }
    default: return true;
    }
}

/* Do the inputs of two states differ: X, the Ws, W_O, hand-set rows,
 * options, token order, training (targets, lr, steps taken)? */
static bool inputs_differ(const Attn *a, const Attn *b)
{
    bool diff = !attn_same_options(a, b) || a->lr != b->lr || a->nloss != b->nloss || !same_targets(a, b) ||
                !same_tokens(a, b);
    for (int m = M_X; m <= M_WV && !diff; m++)
        diff = !mat_equal(&a->m[m], &b->m[m]);
    if (!diff && a->has_wo)
        diff = !mat_equal(&a->m[M_WO], &b->m[M_WO]);
    for (int p = 0; p < 3 && !diff; p++)
        for (int i = 0; i < a->m[M_Q + p].rows && i < MAT_MAX && !diff; i++)
            diff = !same_qkv_row(a, b, p, i);
    return diff;
}

bool session_saved_edits(const Session *s)
{
    const Lesson *l = s->lesson;
    bool any = l->nedited > 0;
    for (int k = 0; k <= s->step && k < l->nsteps && !any; k++)
        any = l->steps[k].nedit > 0;
    return any;
}

bool lesson_saved_edits(const Lesson *l)
{
    bool any = l->nedited > 0;
    for (int k = 0; k < l->nsteps && !any; k++)
        any = l->steps[k].nedit > 0;
    return any;
}

bool session_same_inputs(const Attn *a, const Attn *b)
{
    return !inputs_differ(a, b);
}

/* Where departure items go: joined into one line ("a, b"), or each kept
 * (malloc'd) for a saved lesson's edited: key. */
typedef struct {
    char *buf;
    size_t len, n;
    const char *sep;          /* between items in buf: ", " when NULL */
    char **items;
    int nitems, cap;
    bool oom;
} Sink;

static void add_item(Sink *k, const char *item)
{
    if (k->buf && k->n < k->len) {
        k->n += (size_t)snprintf(k->buf + k->n, k->len - k->n, "%s%s", k->n ? k->sep ? k->sep : ", " : "", item);
        if (k->n >= k->len)
            k->n = k->len;
    }
    if (!k->items)
        return;
    char *dup = k->nitems < k->cap ? strdup(item) : NULL;
    if (dup)
        k->items[k->nitems++] = dup;
    else
        k->oom = true;
}

static int sink_count(const Sink *k)
{
    return k->items ? k->nitems : (int)k->n;
}

/* Is step k's edit n covered by a later edit of the saved lesson, at or
 * before the current step, with no swap between? */
static bool covered_later(const Session *s, int k, int n)
{
    const Lesson *l = s->lesson;
    const Action *a = &l->steps[k].edit[n];
    for (int j = k; j <= s->step && j < l->nsteps; j++)
        for (int m = j == k ? n + 1 : 0; m < l->steps[j].nedit; m++) {
            if (l->steps[j].edit[m].kind == ACT_SWAP)
                return false;
            if (covers(&l->steps[j].edit[m], a))
                return true;
        }
    return false;
}

/* Does the lesson itself depart from its own numbers at this step (a
 * --variant, a saved lesson's edits: the top-level edited: at every step,
 * a step's edited: from that step on)? Writes its items. */
static bool lesson_departs(const Session *s, Sink *out)
{
    const Lesson *l = s->lesson;
    int steps = 0;
    if (l->reseeded && l->seed != l->own_seed && out->buf) { /* the notice's; no edited: entry */
        char v[40];
        snprintf(v, sizeof v, "variant %lu", l->seed);
        add_item(out, v);
    }
    for (int k = 0; k < l->nedited; k++)
        add_item(out, l->edited[k]);
    for (int k = 0; k <= s->step && k < l->nsteps; k++)
        steps += l->steps[k].nedit;
    for (int k = 0; session_is_model(s) && k <= s->step && k < l->nsteps; k++) /* a model lesson's: as saved */
        for (int n = 0; n < l->steps[k].nedit; n++)
            add_item(out, l->steps[k].edit_text[n]);
    if (session_is_model(s))
        return l->nedited > 0 || steps > 0;
    Attn script = {0};
    bool diff = steps > 0 && (!script_inputs(s, &script) || inputs_differ(&s->cur, &script));
    for (int k = 0; diff && k <= s->step && k < l->nsteps; k++)
        for (int n = 0; n < l->steps[k].nedit; n++) {
            const Action *a = &l->steps[k].edit[n];
            /* the last of each toggle or cell, and only while it differs, as for the student's own */
            if (!covered_later(s, k, n) && (a->kind == ACT_SWAP || a->kind == ACT_STEP || !script.m[M_X].v ||
                                            still_differs(a, &s->cur, &script)))
                add_item(out, l->steps[k].edit_text[n]);
        }
    attn_free(&script);
    return (l->reseeded && l->seed != l->own_seed) || l->nedited > 0 || diff;
}

/* The student's edits that still make a difference, in order, into buf:
 * the last of each toggle or written cell, a toggle or cell the state has
 * back as the script gives it left out, training steps counted as one
 * "step N", swaps unless they cancel out. all: every edit in effect
 * (deduplicated) whatever the state. */
static void edit_items(const Session *s, const Attn *script, bool all, Sink *out)
{
    int first = 0, steps = 0;
    for (int k = 0; k < s->nedits; k++)
        if (s->edits[k].kind == ACT_RESET)
            first = k + 1;
    bool swapped = !same_tokens(&s->cur, script), any_swap = false;
    for (int k = first; k < s->nedits; k++) {
        any_swap = any_swap || s->edits[k].kind == ACT_SWAP;
        steps += s->edits[k].kind == ACT_STEP ? s->edits[k].n : 0;
    }
    bool steps_named = false;
    for (int k = first; k < s->nedits; k++) {
        const Action *a = &s->edits[k];
        bool later = false;
        for (int b = k + 1; b < s->nedits && !later && s->edits[b].kind != ACT_SWAP; b++)
            later = covers(&s->edits[b], a);
        if (later)
            continue;
        if (a->kind == ACT_SWAP && !swapped && !all)
            continue;
        if (!all && a->kind != ACT_SWAP && a->kind != ACT_STEP && !(any_swap && writes_matrix(a)) &&
            !still_differs(a, &s->cur, script))
            continue;
        char item[64 * 28];
        if (a->kind == ACT_STEP) {
            if (steps_named)
                continue;
            steps_named = true;
            Action st = {.kind = ACT_STEP, .n = steps};
            action_text(&st, item, sizeof item);
        } else {
            action_text(a, item, sizeof item);
        }
        add_item(out, item);
    }
}

/* ---- a model lesson's (session_model.c) ---- */

static bool same_ref(ModelRef a, ModelRef b)
{
    return a.kind == b.kind && a.layer == b.layer && (a.kind != MM_ATTN || a.attn == b.attn);
}

/* Does the later model action b make the earlier a no longer matter? */
static bool model_covers(const Action *b, const Action *a)
{
    if (a->kind == ACT_M_ABLATE || a->kind == ACT_M_RESTORE)
        return (b->kind == ACT_M_ABLATE || b->kind == ACT_M_RESTORE) && b->i == a->i && b->head == a->head;
    if (a->kind == ACT_M_TOKENS || a->kind == ACT_M_GENERATE)
        return b->kind == ACT_M_TOKENS;
    if (a->mref.kind != MM_NONE)
        return writes_matrix(b) && same_ref(a->mref, b->mref) && a->i == b->i &&
               (b->kind != ACT_CELL_SET || (a->kind == ACT_CELL_SET && a->j == b->j));
    return action_is_option(a) && b->kind == a->kind;
}

static bool model_same_attn(const ModelAttnOpts *a, const ModelAttnOpts *b)
{
    return a->scale == b->scale && a->softmax == b->softmax && a->mask == b->mask &&
           (a->mask != MASK_WINDOW || a->window == b->window) && a->temp == b->temp &&
           (a->softmax != SOFTMAX_ONLINE || a->block == b->block);
}

/* The same parameters, input, ablations and options? */
static bool model_same_inputs(const Model *a, const Model *b)
{
    ModelRef p[MODEL_PARAMS_MAX];
    int n = model_params(a, p, MODEL_PARAMS_MAX);
    bool same = a->n == b->n && memcmp(a->tok, b->tok, sizeof(int) * (size_t)a->n) == 0;
    for (int l = 0; l < a->cfg.layers && same; l++)
        same = a->layer[l].ablate == b->layer[l].ablate && model_same_attn(&a->cfg.attn[l], &b->cfg.attn[l]);
    for (int k = 0; k < n && same; k++)
        same = mat_equal(model_mat(a, p[k]), model_mat(b, p[k]));
    return same;
}

/* The student's model actions in effect, the last of each, training steps
 * counted as one "step N". */
static void model_edit_items(const Session *s, Sink *out)
{
    int first = 0, steps = 0;
    for (int k = 0; k < s->nedits; k++)
        first = s->edits[k].kind == ACT_RESET ? k + 1 : first;
    for (int k = first; k < s->nedits; k++)
        steps += s->edits[k].kind == ACT_STEP ? s->edits[k].n : 0;
    bool steps_named = false;
    for (int k = first; k < s->nedits; k++) {
        const Action *a = &s->edits[k];
        bool later = false;
        for (int b = k + 1; b < s->nedits && !later; b++)
            later = a->kind != ACT_STEP && model_covers(&s->edits[b], a);
        if (later || (a->kind == ACT_STEP && steps_named))
            continue;
        char item[64 * 28];
        Action st = {.kind = ACT_STEP, .n = steps};
        steps_named = steps_named || a->kind == ACT_STEP;
        action_text(a->kind == ACT_STEP ? &st : a, item, sizeof item);
        add_item(out, item);
    }
}

static bool model_departures(const Session *s, bool with_lesson, Sink *out)
{
    bool lesson = with_lesson && lesson_departs(s, out);
    if (s->nedits == 0)
        return lesson;
    const Model *script = session_model_script(s);
    bool diff = !script || !model_same_inputs(s->mcur, script);
    if (diff)
        model_edit_items(s, out);
    return lesson || diff;
}

/* The departures of s into out: the lesson's own (with_lesson), then the
 * student's edits that make a difference. Returns whether it departed. */
static bool departures(const Session *s, bool with_lesson, Sink *out)
{
    if (session_is_model(s))
        return model_departures(s, with_lesson, out);
    bool lesson = with_lesson && lesson_departs(s, out);
    if (s->nedits == 0)
        return lesson;
    Attn script = {0};
    if (!script_inputs(s, &script)) { /* out of memory: say so rather than claim the script's numbers */
        out->oom = true;
        add_item(out, "?");
        return true;
    }
    bool diff = inputs_differ(&s->cur, &script);
    if (diff) {
        int at = sink_count(out);
        edit_items(s, &script, false, out);
        if (sink_count(out) == at) /* every edit undone by another, yet the numbers differ: name them all */
            edit_items(s, &script, true, out);
    }
    attn_free(&script);
    return lesson || diff;
}

/* How many actions the steps' edited: hold in all. */
static int lesson_edits(const Lesson *l)
{
    int n = 0;
    for (int k = 0; k < l->nsteps; k++)
        n += l->steps[k].nedit;
    return n;
}

bool session_departed(const Session *s, char *what, size_t len)
{
    Sink out = {.buf = what, .len = len};
    if (what && len)
        what[0] = '\0';
    return departures(s, true, &out);
}

bool session_diverged(const Session *s)
{
    return session_departed(s, NULL, 0);
}

char *session_departures_dup(const Session *s)
{
    size_t len = (size_t)(s->nedits + s->lesson->nedited + lesson_edits(s->lesson) + 2) * (64 * 28) + 64;
    char *buf = malloc(len);
    if (buf && !session_departed(s, buf, len))
        buf[0] = '\0';
    return buf;
}

int session_edited(const Session *s, char ***out)
{
    Sink k = {.cap = s->nedits + s->lesson->nedited + lesson_edits(s->lesson) + 1};
    *out = NULL;
    k.items = calloc((size_t)k.cap, sizeof *k.items);
    if (!k.items)
        return -1;
    departures(s, true, &k);
    if (k.oom) {
        for (int i = 0; i < k.nitems; i++)
            free(k.items[i]);
        free(k.items);
        return -1;
    }
    *out = k.items;
    return k.nitems;
}

char *session_saved_about(const Session *s, Lang lang)
{
    const Lesson *l = s->lesson;
    const char *own = l->about.s[lang], *other = l->about.s[lang == LANG_EN ? LANG_ZH : LANG_EN];
    size_t cap = (size_t)(s->nedits + 1) * (64 * 28) + (own ? strlen(own) : 0) + 128;
    char *what = malloc(cap), *buf = malloc(cap);
    Sink k = {.buf = what, .len = cap, .sep = "; "};
    if (what)
        what[0] = '\0';
    if (!what || !buf || !departures(s, false, &k) || !what[0] || (!own && other)) {
        /* nothing departed; or the other language stands in */
        free(what);
        free(buf);
        return own ? strdup(own) : NULL;
    }
    size_t n = 0;
    if (own && *own)
        n = (size_t)snprintf(buf, cap, "%s%s", own, lang == LANG_ZH ? "" : " ");
    snprintf(buf + n, cap - n, "%s%s%s", lang == LANG_ZH ? "保存前做过的改动：" : "Saved after: ", what,
             lang == LANG_ZH ? "。" : ".");
    free(what);
    return buf;
}
