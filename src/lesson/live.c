/* live.c - narration filled in, the edited-state notice, change effects,
 * the trace line and the exercises' records (see live.h). */
#include "live.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "i18n.h"

/* ---- narration ---------------------------------------------------------------- */

char *session_say(const Session *s, Lang lang, bool ascii)
{
    const char *say = text_get(&session_step(s)->say, lang);
    if (!template_has_refs(say))
        return strdup(say);
    TplOpt o = {s->lesson->digits, ascii, session_ask_hidden_cb, s, lang};
    return template_expand_dup(say, &s->cur, s->lesson, &o);
}

char *lesson_about_text(const Lesson *l, Lang lang, bool ascii)
{
    const char *about = text_get(&l->about, lang);
    if (!template_has_refs(about))
        return strdup(about);
    Attn base = {0};
    if (!lesson_base(l, &base))
        return NULL;
    TplOpt o = {l->digits, ascii, NULL, NULL, lang};
    char *out = template_expand_dup(about, &base, l, &o);
    attn_free(&base);
    return out;
}

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

/* Does what action a wrote still differ from the script's state? (No swap
 * in effect: indices name the same tokens in both.) */
static bool still_differs(const Action *a, const Attn *cur, const Attn *script)
{
    switch (a->kind) {
    case ACT_SCALE: return cur->scale != script->scale;
    case ACT_SOFTMAX: return cur->softmax != script->softmax || (cur->softmax == SOFTMAX_ONLINE && cur->block != script->block);
    case ACT_MASK: return cur->mask != script->mask || (cur->mask == MASK_WINDOW && cur->window != script->window);
    case ACT_TEMP: return cur->temp != script->temp;
    case ACT_POS: return cur->positions != script->positions;
    case ACT_OFFSET: return cur->offset != script->offset;
    case ACT_BLOCK: return cur->block != script->block;
    case ACT_ROPE_BASE: return cur->rope_base != script->rope_base;
    case ACT_APPEND: return attn_tokens(cur) != attn_tokens(script) || memcmp(cur->tok, script->tok, sizeof cur->tok) != 0;
    case ACT_LR: return cur->lr != script->lr;
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
                memcmp(a->tok, b->tok, sizeof a->tok) != 0;
    for (int m = M_X; m <= M_WV && !diff; m++)
        diff = !mat_equal(&a->m[m], &b->m[m]);
    if (!diff && a->has_wo)
        diff = !mat_equal(&a->m[M_WO], &b->m[M_WO]);
    for (int p = 0; p < 3 && !diff; p++)
        for (int i = 0; i < a->m[M_Q + p].rows && i < MAT_MAX && !diff; i++)
            diff = !same_qkv_row(a, b, p, i);
    return diff;
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

/* Does the lesson itself depart from its own numbers (a --variant, a saved
 * lesson's edits)? Writes its items. */
static bool lesson_departs(const Lesson *l, Sink *out)
{
    if (l->reseeded && l->seed != l->own_seed && out->buf) { /* the notice's; no edited: entry */
        char v[40];
        snprintf(v, sizeof v, "variant %lu", l->seed);
        add_item(out, v);
    }
    for (int k = 0; k < l->nedited; k++)
        add_item(out, l->edited[k]);
    return (l->reseeded && l->seed != l->own_seed) || l->nedited > 0;
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
    bool swapped = memcmp(s->cur.tok, script->tok, sizeof s->cur.tok) != 0, any_swap = false;
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

/* The departures of s into out: the lesson's own (with_lesson), then the
 * student's edits that make a difference. Returns whether it departed. */
static bool departures(const Session *s, bool with_lesson, Sink *out)
{
    bool lesson = with_lesson && lesson_departs(s->lesson, out);
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
    size_t len = (size_t)(s->nedits + s->lesson->nedited + 2) * (64 * 28) + 64;
    char *buf = malloc(len);
    if (buf && !session_departed(s, buf, len))
        buf[0] = '\0';
    return buf;
}

int session_edited(const Session *s, char ***out)
{
    Sink k = {.cap = s->nedits + s->lesson->nedited + 1};
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

/* The notice's wording: the full one, and a shorter one for narrow screens. */
static const char *notice_form(bool narrow)
{
    return narrow ? _("%s %s: numbers live, words as written")
                  : _("%s after %s: numbers live, words written for the lesson's numbers");
}

bool session_notice(const Session *s, bool ascii, int cols, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    char *what = session_departures_dup(s);
    if (!what || !what[0]) {
        free(what);
        return false;
    }
    const char *mark = ascii ? "*" : "✎", *ell = ascii ? "..." : "…";
    snprintf(buf, len, notice_form(false), mark, what);
    if (cols <= 0 || text_width(buf) <= cols) {
        free(what);
        return true;
    }
    snprintf(buf, len, notice_form(true), mark, what);
    if (text_width(buf) > cols) { /* keep the start of the list, whole items where one fits, then "…" */
        snprintf(buf, len, notice_form(true), mark, "");
        int room = cols - text_width(buf);
        size_t cut = 0;
        char more[8];
        snprintf(more, sizeof more, ", %s", ell);
        for (const char *p = strstr(what, ", "); p; p = strstr(p + 2, ", "))
            if (text_width_n(what, (size_t)(p - what)) + text_width(more) <= room)
                cut = (size_t)(p - what);
        if (cut == 0) { /* not even the first item: cut inside it */
            int r = room - text_width(ell);
            cut = r > 0 ? text_fit(what, r) : 0;
            while (cut > 0 && what[cut - 1] == ' ')
                cut--;
            memcpy(what + cut, ell, strlen(ell) + 1); /* what has room: session_departures_dup() */
        } else {
            memcpy(what + cut, more, strlen(more) + 1);
        }
        snprintf(buf, len, notice_form(true), mark, what);
    }
    free(what);
    return true;
}

/* ---- which head a step speaks of ---------------------------------------------- */

/* The head a matrix of a multi-head state belongs to: its own for "A2",
 * head 1 for the plain per-head names (QKt, S, A stand for head 1's), 0 for
 * the rest. */
static int head_of(MatId m)
{
    if (attn_mat_head(m))
        return attn_mat_head(m);
    return m == M_QKT || m == M_S || m == M_A ? 1 : 0;
}

int session_say_head(const Session *s)
{
    if (attn_heads(&s->cur) < 2)
        return 0;
    const Step *st = session_step(s);
    int head = st->focus.kind != FOCUS_NONE ? head_of(st->focus.mat) : 0;
    for (int lang = 0; lang < LANG_COUNT && !head; lang++) { /* else the heads its templates quote */
        const char *say = st->say.s[lang];
        for (const char *p = say ? strchr(say, '{') : NULL; p; p = strchr(p + 1, '{')) {
            size_t n = 0;
            while (p[1 + n] && ((p[1 + n] >= 'A' && p[1 + n] <= 'Z') || (p[1 + n] >= 'a' && p[1 + n] <= 'z') ||
                                (p[1 + n] >= '0' && p[1 + n] <= '9')))
                n++;
            int id = p[1 + n] == '[' ? attn_mat_lookup(p + 1, (int)n) : -1;
            int h = id >= 0 ? head_of((MatId)id) : 0;
            if (h && head && h != head)
                return 0; /* about several heads */
            head = h ? h : head;
        }
    }
    return head;
}

/* ---- names ------------------------------------------------------------------------ */

void effect_cell_name(MatId m, int i, int j, const FmtOpt *fo, char *buf, size_t len)
{
    static const char *names[M_HEAD0] = {"x", "Wq", "Wk", "Wv", "q", "k", "v", "qk", "s", "α", "o",
                                         "p", "h", "Wo", "y"};
    MatId b = attn_mat_base(m);
    const char *name = b == M_A && fo->ascii ? "a" : names[b];
    char sub[32];
    if (j < 0)
        fmt_sub(i + 1, fo, sub, sizeof sub);
    else
        fmt_sub2(i + 1, j + 1, fo, sub, sizeof sub);
    snprintf(buf, len, "%s%s", name, sub);
}

void effect_name(const Session *s, EffectWhat what, bool ascii, char *buf, size_t len)
{
    char act[256];
    int k = what == EFFECT_UNDO ? s->nedits : s->nedits - 1;
    if (len)
        buf[0] = '\0';
    if (k < 0 || k >= s->nedits + s->nredo || !s->edits)
        return;
    fmt_action_name(s, &s->edits[k], ascii, act, sizeof act);
    if (what == EFFECT_UNDO)
        snprintf(buf, len, _("undo %s"), act);
    else if (what == EFFECT_REDO)
        snprintf(buf, len, _("redo %s"), act);
    else
        snprintf(buf, len, "%s", act);
}

/* A cell's value as shown: "?" while hidden by an open ask. */
static const char *shown(const Session *s, MatId m, int i, int j, double v, const FmtOpt *fo, char *buf,
                         size_t len)
{
    if (s && session_ask_hidden(s, m, i, j))
        return "?";
    return fmt_num(v, fo, buf, len);
}

/* "α₁₁ 0.313 → 0.873" into buf. While the cell is asked only the after
 * value is "?": the before value was on screen a step earlier (lesson
 * review L8), unless it prints as the answer does. */
static void put_change(const Session *s, MatId m, int i, int j, double before, double after, const FmtOpt *fo,
                       char *buf, size_t len)
{
    char name[48], b[64], a[64], truth[64];
    const char *bs = fmt_num(before, fo, b, sizeof b), *as = shown(s, m, i, j, after, fo, a, sizeof a);
    if (strcmp(as, "?") == 0 && strcmp(bs, fmt_num(after, fo, truth, sizeof truth)) == 0)
        bs = "?";
    effect_cell_name(m, i, j, fo, name, sizeof name);
    snprintf(buf, len, "%s %s %s %s", name, bs, fo->ascii ? "->" : "→", as);
}

/* A cell of a trace: "α₁₁ 0.313 → 0.873", or "α₄₁ = 0.268 (new)" in an
 * appended row (nothing before it). */
static void put_trace_cell(const Session *s, const Trace *t, const TraceCell *c, const FmtOpt *fo, char *buf,
                           size_t len)
{
    char name[48], a[64];
    if (!t->added) {
        put_change(s, c->mat, c->i, c->j, c->before, c->after, fo, buf, len);
        return;
    }
    effect_cell_name(c->mat, c->i, c->j, fo, name, sizeof name);
    snprintf(buf, len, _("%s = %s (new)"), name, shown(s, c->mat, c->i, c->j, c->after, fo, a, sizeof a));
}

/* What an append cost, after "x₄ added": the new row's work against a full
 * recompute, and whether the earlier rows stayed (a KV cache is exact) or
 * which changed (without a mask the cache would be stale). */
static void append_work(const Attn *before, const Attn *after, char *buf, size_t len)
{
    AttnWork w;
    int n = attn_tokens(after), lo, hi;
    attn_visible(after, n - 1, &lo, &hi);
    bool known = before && attn_append_work(before, after, &w);
    size_t o = (size_t)snprintf(buf, len, _(": it costs 1 row of Q, K, V and %d scores, not %d rows and %d"),
                                known ? w.scores_new : hi - lo, n, n * n);
    if (!known || o >= len)
        return;
    if (w.exact) {
        snprintf(buf + o, len - o, _("; rows 1 to %d unchanged: K and V cached"), n - 1);
        return;
    }
    snprintf(buf + o, len - o, _("; %d earlier rows changed: a cache would be stale"), w.nstale);
}

/* The row of s->before holding the token of row r now (a swap moves
 * tokens: the status compares a token with itself). */
static int before_row(const Session *s, int r)
{
    const Attn *b = &s->before, *a = &s->cur;
    if (r < 0 || r >= MAT_MAX || b->tok[r] == a->tok[r])
        return r;
    for (int k = 0; k < attn_tokens(b) && k < MAT_MAX; k++)
        if (b->tok[k] == a->tok[r])
            return k;
    return r;
}

static double before_value(const Session *s, MatId mat, int i, int j)
{
    MatId base = attn_mat_base(mat);
    bool rows = base != M_P && !attn_mat_is_param(base), cols = base == M_QKT || base == M_S || base == M_A;
    return MAT_AT(&s->before.m[mat], rows ? before_row(s, i) : i, cols ? before_row(s, j) : j);
}

bool effect_line(const Session *s, const char *name, MatId mat, int i, int j, const FmtOpt *fo, char *buf,
                 size_t len)
{
    char change[256];
    snprintf(buf, len, "%s", name);
    if (!s->has_before)
        return false;
    MatId base = attn_mat_base(mat);
    if (base == M_QKT || base == M_S || base == M_A) /* the head shown, as the trace follows it */
        mat = attn_shown(&s->cur, base, s->head);
    const Mat *m = &s->cur.m[mat];
    bool reached = attn_mat_stage(mat) <= s->cur.reached && attn_mat_stage(mat) <= s->before.reached;
    if (!reached || i < 0 || i >= m->rows || !mat_same_shape(m, &s->before.m[mat])) {
        Trace t;
        if (!session_trace(s, i, j, &t) || t.n == 0)
            return true;
        put_trace_cell(s, &t, &t.cell[t.n - 1], fo, change, sizeof change);
        snprintf(buf, len, _("%s: %s"), name, change);
        return true;
    }
    j = j < 0 ? 0 : j >= m->cols ? m->cols - 1 : j;
    double before = before_value(s, mat, i, j), after = MAT_AT(m, i, j);
    char b[64], a[64];
    if (strcmp(fmt_num(before, fo, b, sizeof b), fmt_num(after, fo, a, sizeof a)) == 0) { /* as shown */
        effect_cell_name(mat, i, j, fo, change, sizeof change);
        snprintf(buf, len, _("%s: %s %s (unchanged)"), name, change, shown(s, mat, i, j, after, fo, a, sizeof a));
        return true;
    }
    put_change(s, mat, i, j, before, after, fo, change, sizeof change);
    snprintf(buf, len, _("%s: %s"), name, change);
    return true;
}

void effect_status(const Session *s, EffectWhat what, const char *label, MatId mat, int i, int j, bool ascii,
                   char *buf, size_t len)
{
    char name[FMT_LINE / 4], line[FMT_LINE / 2];
    FmtOpt fo = {s->lesson->digits, ascii, false};
    int k = what == EFFECT_UNDO ? s->nedits : s->nedits - 1;
    bool reset = k >= 0 && k < s->nedits + s->nredo && s->edits && s->edits[k].kind == ACT_RESET;
    if (label && what == EFFECT_ACT)
        snprintf(name, sizeof name, "%s", label);
    else
        effect_name(s, what, ascii, name, sizeof name);
    effect_line(s, name, mat, i, j, &fo, line, sizeof line);
    if (what == EFFECT_UNDO)
        snprintf(buf, len, _("%s. Ctrl-R redoes it."), line);
    else if (reset && what == EFFECT_ACT)
        snprintf(buf, len, _("%s. u undoes the reset."), line);
    else
        snprintf(buf, len, _("%s. u undoes it."), line);
}

/* ---- the trace line ---------------------------------------------------------------- */

bool session_trace(const Session *s, int i, int j, Trace *t)
{
    if (!s->has_before) {
        memset(t, 0, sizeof *t);
        return false;
    }
    return trace_compute_head(&s->before, &s->cur, s->head, i, j, t);
}

void effect_trace_line(const Trace *t, const Attn *after, const FmtOpt *fo, const Session *s, char *buf, size_t len)
{
    char head[160], name[128];
    const char *arrow = fo->ascii ? " => " : " ⇒ ";
    switch (t->kind) {
    case TRACE_NONE:
        if (len)
            buf[0] = '\0';
        return;
    case TRACE_SCALE:
    case TRACE_SOFTMAX: {
        Action toggle = {.kind = t->kind == TRACE_SCALE ? ACT_SCALE : ACT_SOFTMAX,
                         .opt = t->kind == TRACE_SCALE ? (int)after->scale : (int)after->softmax};
        fmt_toggle_name(&toggle, attn_d_k(after), fo->ascii, head, sizeof head);
        break;
    }
    case TRACE_MASK:
    case TRACE_TEMP: {
        Action opt = {.kind = t->kind == TRACE_MASK ? ACT_MASK : ACT_TEMP, .opt = (int)after->mask, .c = after->temp,
                      .n = after->window};
        action_text(&opt, head, sizeof head);
        break;
    }
    case TRACE_POSITIONS: /* RoPE on or off, its base, the offset: the positions moved */
        snprintf(head, sizeof head, "%s", _("positions changed"));
        break;
    case TRACE_APPEND: {
        char work[128];
        effect_cell_name(M_X, t->origin_i, -1, fo, name, sizeof name);
        append_work(s && s->has_before ? &s->before : NULL, after, work, sizeof work);
        snprintf(head, sizeof head, _("%s added%s"), name, work);
        break;
    }
    case TRACE_SWAP: {
        char other[48];
        effect_cell_name(M_X, t->origin_i, -1, fo, name, sizeof name);
        effect_cell_name(M_X, t->origin_j, -1, fo, other, sizeof other);
        snprintf(head, sizeof head, _("%s and %s swapped"), name, other);
        break;
    }
    case TRACE_MATRIX:
        if (t->nrows > 1) { /* "x₁, x₃ changed", "Wo₁, Wo₂ changed" */
            size_t n = 0;
            head[0] = '\0';
            for (int k = 0; k < t->nrows && k < TRACE_ROWS && n < sizeof head; k++) {
                effect_cell_name(t->origin, t->rows[k], -1, fo, name, sizeof name);
                n += (size_t)snprintf(head + n, sizeof head - n, "%s%s", k ? ", " : "", name);
            }
            if (t->nrows > TRACE_ROWS && n < sizeof head)
                snprintf(head + n, sizeof head - n, ", %s", fo->ascii ? "..." : "…");
            snprintf(name, sizeof name, "%s", head);
            snprintf(head, sizeof head, _("%s changed"), name);
            break;
        }
        effect_cell_name(t->origin, t->origin_i, t->origin_row ? -1 : t->origin_j, fo, name, sizeof name);
        snprintf(head, sizeof head, _("%s changed"), name);
        break;
    }
    size_t n = (size_t)snprintf(buf, len, "%s", head);
    for (int k = 0; k < t->n && n < len; k++) {
        char change[256];
        put_trace_cell(s, t, &t->cell[k], fo, change, sizeof change);
        n += (size_t)snprintf(buf + n, len - n, "%s%s", arrow, change);
    }
}

bool session_trace_line(const Session *s, int i, int j, const FmtOpt *fo, char *buf, size_t len)
{
    Trace t;
    if (len)
        buf[0] = '\0';
    if (!session_trace(s, i, j, &t))
        return false;
    effect_trace_line(&t, &s->cur, fo, s, buf, len);
    return true;
}

/* ---- exercises ---------------------------------------------------------------------- */

/* The index of step k's first ask among all the lesson's asks. */
static int ask_base(const Lesson *l, int step)
{
    int n = 0;
    for (int k = 0; k < step && k < l->nsteps; k++)
        n += l->steps[k].nask;
    return n;
}

static int ask_total(const Lesson *l)
{
    return ask_base(l, l->nsteps);
}

int session_ask_count(const Session *s)
{
    return session_step(s)->nask;
}

const Ask *session_ask_at(const Session *s, int k)
{
    return &session_step(s)->ask[k];
}

AskState session_ask_state(const Session *s, int k)
{
    return s->asked ? s->asked[ask_base(s->lesson, s->step) + k] : ASK_OPEN;
}

int session_ask_open(const Session *s)
{
    for (int k = 0; k < session_ask_count(s); k++)
        if (session_ask_state(s, k) == ASK_OPEN)
            return k;
    return -1;
}

/* Make sure the records exist (all open). */
static bool records(Session *s)
{
    int n = ask_total(s->lesson);
    if (!s->asked && n > 0)
        s->asked = calloc((size_t)n, sizeof *s->asked); /* ASK_OPEN is 0 */
    return s->asked != NULL;
}

int session_ask_retry(const Session *s)
{
    for (int k = 0; k < session_ask_count(s); k++)
        if (session_ask_state(s, k) == ASK_WRONG)
            return k;
    return -1;
}

Grade session_ask_answer(Session *s, const char *answer, bool ascii, char *msg, size_t len)
{
    int k = session_ask_open(s);
    if (k < 0)
        k = session_ask_retry(s);
    if (len)
        msg[0] = '\0';
    if (k < 0)
        return GRADE_BAD;
    const Ask *a = session_ask_at(s, k);
    bool off[MAT_MAX] = {false};
    Grade g = ask_grade_off(a, &s->cur, s->lesson->digits, answer, off, msg, len);
    if (g == GRADE_BAD)
        return g;
    if (!records(s)) {
        snprintf(msg, len, "%s", _("out of memory"));
        return GRADE_BAD;
    }
    AskState *rec = &s->asked[ask_base(s->lesson, s->step) + k];
    if (*rec == ASK_WRONG) /* a retry: right now counts as right after a retry */
        *rec = g == GRADE_RIGHT ? ASK_RETRIED : ASK_WRONG;
    else
        *rec = g == GRADE_RIGHT ? ASK_RIGHT : ASK_WRONG;
    char name[32], vals[1024], safe[256], cut[80];
    FmtOpt fo = {s->lesson->digits, ascii, false};
    ask_name(a, name, sizeof name);
    if (g == GRADE_RIGHT) {
        ask_values(a, &s->cur, &fo, vals, sizeof vals);
        snprintf(msg, len, _("%sright: %s = %s"), ascii ? "" : "✓ ", name, vals);
    } else { /* no true value: the student may try again, or reveal it */
        snprintf(cut, sizeof cut, "%s", answer);
        text_sanitize(cut, safe, sizeof safe, ascii);
        snprintf(msg, len, _("%snot quite: %s (your answer: %s)"), ascii ? "" : "✗ ", name, safe);
        int cells = ask_cells(a, &s->cur), nbad = 0;
        char which[128] = "";
        for (int c = 0; c < cells; c++)
            if (off[c])
                snprintf(which + strlen(which), sizeof which - strlen(which), "%s%d", nbad++ ? _(", ") : "", c + 1);
        size_t n = strlen(msg);
        if (cells > 1 && n < len) /* a row: which numbers were off */
            snprintf(msg + n, len - n, nbad == 1 ? _("; number %s is off") : _("; numbers %s are off"), which);
        n = strlen(msg);
        if (n < len)
            snprintf(msg + n, len - n, "%s", _(". Type again, or Space to reveal."));
    }
    return g;
}

int session_ask_reveal(Session *s)
{
    int n = 0, base = ask_base(s->lesson, s->step);
    for (int k = 0; k < session_ask_count(s); k++) {
        AskState st = session_ask_state(s, k);
        if ((st == ASK_OPEN || st == ASK_WRONG) && records(s)) {
            s->asked[base + k] = st == ASK_OPEN ? ASK_REVEALED : ASK_WRONG_REVEALED;
            n++;
        }
    }
    return n;
}

bool session_ask_hidden(const Session *s, MatId m, int i, int j)
{
    const Step *st = session_step(s);
    for (int k = 0; k < st->nask; k++) {
        const Ask *a = &st->ask[k];
        AskState as = session_ask_state(s, k);
        if (as != ASK_OPEN && as != ASK_WRONG) /* a wrong answer keeps it hidden: retry or reveal */
            continue;
        if (ask_covers(a, m, i, j))
            return true;
        /* a row of A adds up to 1: one weight asked hides its row, else the
         * answer is 1 minus the others */
        if (attn_mat_base(a->mat) == M_A && a->mat == m && a->i == i)
            return true;
    }
    return false;
}

/* Is any cell of row i of m hidden? */
static bool row_hidden(const Session *s, MatId m, int i)
{
    for (int k = 0; k < s->cur.m[m].cols; k++)
        if (session_ask_hidden(s, m, i, k))
            return true;
    return false;
}

bool session_ask_hides_training(const Session *s, int head, int row)
{
    int h = head + (attn_heads(&s->cur) > 1); /* explain's heads are 1-based, 0 with one head */
    return row_hidden(s, attn_shown(&s->cur, M_A, h), row) || row_hidden(s, attn_shown(&s->cur, M_S, h), row) ||
           row_hidden(s, attn_shown(&s->cur, M_QKT, h), row);
}

bool session_ask_hidden_cb(const void *ctx, MatId m, int i, int j)
{
    return session_ask_hidden((const Session *)ctx, m, i, j);
}

/* A value no lesson produces, written in place of a hidden number and then
 * replaced by "?" in the formatted lines. */
#define HIDDEN_MARK FMT_HIDDEN

/* Replace every occurrence of mark in line with "?". */
static void unmark(char *line, const char *mark)
{
    size_t m = strlen(mark);
    for (char *p = strstr(line, mark); p; p = strstr(p + 1, mark)) {
        *p = '?';
        memmove(p + 1, p + m, strlen(p + m) + 1);
    }
}

int session_explain(const Session *s, MatId mat, int i, int j, const FmtOpt *fo, char lines[][FMT_LINE], int max)
{
    Explain e;
    if (!explain_cell(&s->cur, mat, i, j, &e))
        return 0;
    bool any = false;
    const Attn *a = &s->cur;
    MatId ms = attn_shown(a, M_S, e.head), mq = attn_shown(a, M_QKT, e.head), ma = attn_shown(a, M_A, e.head);
#define HIDE(v, cond) do { if (cond) { (v) = HIDDEN_MARK; any = true; } } while (0)
    switch (e.kind) {
    case EX_PROJ:
        HIDE(e.result, session_ask_hidden(s, e.mat, e.i, e.j) ||
                           session_ask_hidden(s, attn_shown(a, attn_mat_base(e.mat), e.head), e.i, e.head ? e.jh : e.j));
        break;
    case EX_SCORE: {
        bool h = session_ask_hidden(s, ms, e.i, e.j) || session_ask_hidden(s, mq, e.i, e.j);
        if (h && e.masked) { /* the answer is −∞: say nothing but "?" */
            char sub[32];
            for (int k = 0; k < max; k++)
                lines[k][0] = '\0';
            fmt_sub2(e.i + 1, e.j + 1, fo, sub, sizeof sub);
            snprintf(lines[0], FMT_LINE, e.head > 0 ? _("head %d: ") : "%.0d", e.head);
            snprintf(lines[0] + strlen(lines[0]), FMT_LINE - strlen(lines[0]), "score%s = ?", sub);
            return max > 0;
        }
        HIDE(e.sum, h);
        HIDE(e.result, h);
        break;
    }
    case EX_SOFTMAX: {
        /* Rule (lessons/README.md "Exercises"): an asked score hides itself
         * wherever the row writes it (s, z, s − max, its exp) and what gives
         * it back in one step (the max when it is the max, the sum of the
         * exps); an asked weight hides its whole row of α, and the exps and
         * their sum, from which a weight is one division away. */
        bool srow = false, arow = row_hidden(s, ma, e.i);
        for (int k = 0; k < e.n; k++) {
            bool h = session_ask_hidden(s, ms, e.i, k) || session_ask_hidden(s, mq, e.i, k);
            srow = srow || h;
            if (h && e.stable && e.z[k] == e.max)
                HIDE(e.max, true);
            HIDE(e.a[k], h);
            HIDE(e.z[k], h);
            HIDE(e.shifted[k], h);
            HIDE(e.prod[k], h || arow);
            HIDE(e.weight[k], arow);
        }
        for (int k = 0; k < e.n && e.max == HIDDEN_MARK; k++) { /* s − (s − max) would give the max */
            HIDE(e.shifted[k], true);
            HIDE(e.prod[k], true);
        }
        HIDE(e.sum, srow || arow);
        HIDE(e.result, arow);
        break;
    }
    case EX_OUTPUT:
        for (int k = 0; k < e.n; k++)
            HIDE(e.a[k], session_ask_hidden(s, ma, e.i, k));
        HIDE(e.result, session_ask_hidden(s, e.mat, e.i, e.j) ||
                           session_ask_hidden(s, attn_shown(a, M_O, e.head), e.i, e.head ? e.jh : e.j));
        break;
    default:
        break;
    }
#undef HIDE
    FmtOpt o = *fo;
    o.hiding = any;
    int n = fmt_explain_in(s, &e, &o, lines, max);
    if (any) {
        char mark[64];
        fmt_num(HIDDEN_MARK, fo, mark, sizeof mark);
        for (int k = 0; k < n; k++)
            unmark(lines[k], mark);
    }
    return n;
}

void session_ask_counts(const Session *s, int *total, int *right, int *wrong, int *revealed)
{
    int retried, open;
    session_ask_counts2(s, total, right, wrong, revealed, &retried, &open);
}

void session_ask_counts2(const Session *s, int *total, int *right, int *wrong, int *revealed, int *retried, int *open)
{
    int n = ask_total(s->lesson);
    *total = n;
    *right = *wrong = *revealed = *retried = 0;
    *open = n;
    for (int k = 0; s->asked && k < n; k++) {
        *right += s->asked[k] == ASK_RIGHT || s->asked[k] == ASK_RETRIED;
        *retried += s->asked[k] == ASK_RETRIED;
        *wrong += s->asked[k] == ASK_WRONG || s->asked[k] == ASK_WRONG_REVEALED;
        *revealed += s->asked[k] == ASK_REVEALED;
        *open -= s->asked[k] != ASK_OPEN;
    }
}

void session_ask_tally(const Session *s, char *buf, size_t len)
{
    int total, right, wrong, revealed, retried, open;
    session_ask_counts2(s, &total, &right, &wrong, &revealed, &retried, &open);
    if (len)
        buf[0] = '\0';
    if (total == 0)
        return;
    size_t n = (size_t)snprintf(buf, len, _("right %d of %d"), right, total);
    if (retried && n < len)
        n += (size_t)snprintf(buf + n, len - n, _(" (%d after a retry)"), retried);
    if (wrong && n < len)
        n += (size_t)snprintf(buf + n, len - n, _(", %d wrong"), wrong);
    if (revealed && n < len)
        n += (size_t)snprintf(buf + n, len - n, _(", %d revealed"), revealed);
    if (open && n < len)
        snprintf(buf + n, len - n, _(", %d not answered"), open);
}
