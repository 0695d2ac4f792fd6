/* live.c - narration filled in, the edited-state notice, change effects,
 * the trace line and the exercises' records (see live.h). */
#include "live.h"
#include "mtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/action.h"
#include "lesson/lmodel.h"
#include "text/i18n.h"

/* ---- narration ---------------------------------------------------------------- */

char *session_say(const Session *s, Lang lang, bool ascii)
{
    const char *say = text_get(&session_step(s)->say, lang);
    if (!template_has_refs(say))
        return strdup(say);
    TplOpt o = {s->lesson->digits, ascii, session_ask_hidden_cb, s, lang, s->lesson->model ? s->mcur : NULL,
                session_ask_mhidden_cb};
    return template_expand_dup(say, &s->cur, s->lesson, &o);
}

char *lesson_about_text(const Lesson *l, Lang lang, bool ascii)
{
    const char *about = text_get(&l->about, lang);
    if (!template_has_refs(about))
        return strdup(about);
    TplOpt o = {l->digits, ascii, NULL, NULL, lang, l->model ? l->model->base : NULL, NULL};
    if (l->model) /* a model lesson: its weights, nothing reached */
        return template_expand_dup(about, NULL, l, &o);
    Attn base = {0};
    if (!lesson_base(l, &base))
        return NULL;
    char *out = template_expand_dup(about, &base, l, &o);
    attn_free(&base);
    return out;
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
    MatId b = m == M_Q0 ? M_Q : m == M_K0 ? M_K : attn_mat_base(m); /* RoPE's Q and K before the turn */
    const char *name = b == M_A && fo->ascii ? "a" : b == M_XS ? "xs" : b < M_HEAD0 ? names[b] : "?";
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
static const char *cell_shown(const Session *s, MatId m, int i, int j, double v, const FmtOpt *fo, char *buf,
                              size_t len)
{
    if (s && session_ask_hidden(s, m, i, j))
        return "?";
    return fmt_num(v, fo, buf, len);
}

/* A trace cell's name: effect_cell_name, and where several heads share
 * the whole Q, K, V or O, the column as the matrix labels it: "q₂₃ (h2·1)". */
static void trace_cell_name(const Session *s, MatId m, int i, int j, const FmtOpt *fo, char *buf, size_t len)
{
    effect_cell_name(m, i, j, fo, buf, len);
    const Attn *a = s ? &s->cur : NULL;
    if (!a || j < 0 || attn_heads(a) < 2 || (m != M_Q && m != M_K && m != M_V && m != M_O))
        return;
    int w = m == M_V || m == M_O ? attn_d_v(a) : attn_d_k(a);
    size_t n = strlen(buf);
    if (w > 0 && n < len)
        snprintf(buf + n, len - n, fo->ascii ? " (h%d.%d)" : " (h%d·%d)", j / w + 1, j % w + 1);
}

/* Is the after of a change of cell (m, i, j), which was (bi, bj) before it
 * (a swap moves tokens), hidden by an open ask? */
static bool change_hidden(const Session *s, MatId m, int i, int j, int bi, int bj)
{
    return s && (session_ask_hidden(s, m, i, j) || session_ask_hidden(s, m, bi, bj));
}

/* And its before? Whenever the student has changed something (an edit, a
 * toggle, one to redo): that before is the answer of the state u or Ctrl-R
 * brings back. A step's own do: shows where the number came from, as the
 * step before showed it, unless it prints as the hidden answer does. */
static bool before_hidden(const Session *s, const TraceCell *c, const FmtOpt *fo)
{
    char b[64], a[64];
    if (!change_hidden(s, c->mat, c->i, c->j, c->bi, c->bj))
        return false;
    return s->nedits + s->nredo > 0 ||
           strcmp(fmt_num(c->before, fo, b, sizeof b), fmt_num(c->after, fo, a, sizeof a)) == 0;
}

/* The name of a changed cell: "α₃₁", and after a swap moved its tokens,
 * the cell it was: "α₃₁ (was α₁₃)". */
static void change_name(const Session *s, MatId m, int i, int j, int bi, int bj, const FmtOpt *fo, char *buf,
                        size_t len)
{
    if (bi == i && bj == j) {
        trace_cell_name(s, m, i, j, fo, buf, len);
        return;
    }
    char was[48], name[48];
    trace_cell_name(s, m, i, j, fo, name, sizeof name);
    trace_cell_name(s, m, bi, bj, fo, was, sizeof was);
    snprintf(buf, len, _("%s (was %s)"), name, was);
}

/* "α₁₁ 0.313 → 0.873" into buf ("α₁₁ ? → ?" while an open ask hides the
 * cell after the student's change: before and after alike). */
static void put_change(const Session *s, const TraceCell *c, const FmtOpt *fo, char *buf, size_t len)
{
    char name[128], b[64], a[64];
    const char *bs = before_hidden(s, c, fo) ? "?" : fmt_num(c->before, fo, b, sizeof b);
    const char *as = change_hidden(s, c->mat, c->i, c->j, c->bi, c->bj) ? "?" : fmt_num(c->after, fo, a, sizeof a);
    change_name(s, c->mat, c->i, c->j, c->bi, c->bj, fo, name, sizeof name);
    snprintf(buf, len, "%s %s %s %s", name, bs, fo->ascii ? "->" : "→", as);
}

/* A cell of a trace: "α₁₁ 0.313 → 0.873", or "α₄₁ = 0.268 (new)" in an
 * appended row (nothing before it). */
static void put_trace_cell(const Session *s, const Trace *t, const TraceCell *c, const FmtOpt *fo, char *buf,
                           size_t len)
{
    char name[48], a[64];
    if (!t->added) {
        put_change(s, c, fo, buf, len);
        return;
    }
    trace_cell_name(s, c->mat, c->i, c->j, fo, name, sizeof name);
    snprintf(buf, len, _("%s = %s (new)"), name, cell_shown(s, c->mat, c->i, c->j, c->after, fo, a, sizeof a));
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
    if (known && !w.exact && w.kv_kept) { /* no mask: K and V still hold here, the earlier outputs do not */
        snprintf(buf, len,
                 _(": 1 row of Q, K, V and %d + %d scores (the earlier rows see it too), not %d rows and %d; "
                   "K and V stay, but %d earlier rows of A and O change: a next layer's cache would be stale"),
                 w.scores_new, w.scores_col, n, n * n, w.nstale);
        return;
    }
    size_t o = (size_t)snprintf(buf, len, _(": it costs 1 row of Q, K, V and %d scores, not %d rows and %d"),
                                known ? w.scores_new : hi - lo, n, n * n);
    if (!known || o >= len)
        return;
    if (w.exact)
        snprintf(buf + o, len - o, _("; rows 1 to %d unchanged: K and V cached"), n - 1);
    else
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

/* Cell (i, j) of mat, and the cell of s->before holding the same tokens. */
static TraceCell before_cell(const Session *s, MatId mat, int i, int j)
{
    MatId base = attn_mat_base(mat);
    bool rows = base != M_P && !attn_mat_is_param(base), cols = base == M_QKT || base == M_S || base == M_A;
    TraceCell c = {mat, i, j, rows ? before_row(s, i) : i, cols ? before_row(s, j) : j, 0, MAT_AT(&s->cur.m[mat], i, j)};
    c.before = MAT_AT(&s->before.m[mat], c.bi, c.bj);
    return c;
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
    TraceCell c = before_cell(s, mat, i, j);
    char b[64], a[64];
    if (strcmp(fmt_num(c.before, fo, b, sizeof b), fmt_num(c.after, fo, a, sizeof a)) == 0) { /* as shown */
        const Action *act = s->nedits > 0 && s->edits ? &s->edits[s->nedits - 1] : NULL;
        int later = act && act->mat >= 0 && act->mat < M_COUNT ? attn_mat_stage(act->mat) : 0;
        if (later > session_stage(s)) { /* an edit of a matrix this stage does not show yet */
            snprintf(buf, len, _("%s: done; it shows from stage %d (Space goes on)"), name, later);
            return true;
        }
        change_name(s, mat, i, j, c.bi, c.bj, fo, change, sizeof change);
        snprintf(buf, len, _("%s: %s %s (unchanged)"), name, change,
                 change_hidden(s, mat, i, j, c.bi, c.bj) ? "?" : a);
        return true;
    }
    put_change(s, &c, fo, change, sizeof change);
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
    if (session_is_model(s)) /* a model lesson: traced to the prediction (mtrace.h) */
        session_mtrace_line(s, name, ascii, s->lesson->digits, line, sizeof line);
    else
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
    if (!s->has_before || s->undone || session_is_model(s)) { /* after an undo the state is an earlier one:
                                                                  nothing to trace; a model's: mtrace.h */
        memset(t, 0, sizeof *t);
        return false;
    }
    return trace_compute_head(&s->before, &s->cur, s->head, i, j, t);
}

/* "x₁, x₃" or "x₁, x₂, x₃, …": the rows of m, as the trace keeps them. */
static size_t put_rows(MatId m, const int *rows, int nrows, const FmtOpt *fo, char *buf, size_t len)
{
    char name[64];
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < nrows && k < TRACE_ROWS && n < len; k++) {
        effect_cell_name(m, rows[k], -1, fo, name, sizeof name);
        n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? _(", ") : "", name);
    }
    if (nrows > TRACE_ROWS && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", _(", "), fo->ascii ? "..." : "…");
    return n < len ? n : len;
}

/* The head of a matrix change's trace: "x₁, x₃ changed" for several rows,
 * "q₁ changed" or "Wq₁₂ changed" for one; the other inputs that changed
 * with it too (content review C-22: a gradient step's W_K), "Wq₁, Wk₁, Wk₂,
 * Wk₃, … changed". */
static void trace_matrix_head(const Session *s, const Trace *t, const FmtOpt *fo, char *head, size_t len)
{
    char name[320];
    if (t->nrows > 1)
        put_rows(t->origin, t->rows, t->nrows, fo, name, sizeof name);
    else
        trace_cell_name(s, t->origin, t->origin_i, t->origin_row ? -1 : t->origin_j, fo, name, sizeof name);
    for (int k = 0; k < t->nalso && k < TRACE_ALSO; k++) {
        size_t n = strlen(name);
        if (n + 2 < sizeof name) {
            snprintf(name + n, sizeof name - n, "%s", _(", "));
            n = strlen(name);
            put_rows(t->also[k].mat, t->also[k].rows, t->also[k].nrows, fo, name + n, sizeof name - n);
        }
    }
    snprintf(head, len, _("%s changed"), name);
}

void effect_trace_line(const Trace *t, const Attn *after, const FmtOpt *fo, const Session *s, char *buf, size_t len)
{
    char head[320], name[128];
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
        char work[256];
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
        trace_matrix_head(s, t, fo, head, sizeof head);
        break;
    }
    size_t n = (size_t)snprintf(buf, len, "%s", head);
    for (int k = 0; k < t->n && n < len; k++) {
        char change[256];
        put_trace_cell(s, t, &t->cell[k], fo, change, sizeof change);
        n += (size_t)snprintf(buf + n, len - n, "%s%s", arrow, change);
    }
    if (t->no_effect && n < len) {
        effect_cell_name(t->focus.mat, t->focus.i, t->focus.j, fo, name, sizeof name);
        snprintf(buf + n, len - n, _(", no effect on %s"), name);
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

#define HIDE(v, cond) do { if (cond) { (v) = HIDDEN_MARK; any = true; } } while (0)

/* The softmax row's numbers an open ask hides; true when any. */
static bool hide_softmax(const Session *s, Explain *e, MatId ms, MatId mq, MatId ma)
{
    bool any = false;
    /* Rule (lessons/README.md "Exercises"): an asked score hides itself
     * wherever the row writes it (s, z, s − max, its exp) and what gives
     * it back in one step (the max when it is the max, the sum of the
     * exps); an asked weight hides its whole row of α, and the exps and
     * their sum, from which a weight is one division away. */
    bool srow = false, arow = session_ask_row_hidden(s, ma, e->i);
    for (int k = 0; k < e->n; k++) {
        bool h = session_ask_hidden(s, ms, e->i, k) || session_ask_hidden(s, mq, e->i, k);
        srow = srow || h;
        if (h && e->stable && e->z[k] == e->max)
            HIDE(e->max, true);
        HIDE(e->a[k], h);
        HIDE(e->z[k], h);
        HIDE(e->shifted[k], h);
        HIDE(e->prod[k], h || arow);
        HIDE(e->weight[k], arow);
    }
    for (int k = 0; k < e->n && e->max == HIDDEN_MARK; k++) { /* s − (s − max) would give the max */
        HIDE(e->shifted[k], true);
        HIDE(e->prod[k], true);
    }
    HIDE(e->sum, srow || arow);
    HIDE(e->result, arow);
    return any;
}

int session_explain(const Session *s, MatId mat, int i, int j, const FmtOpt *fo, char lines[][FMT_LINE], int max)
{
    Explain e;
    if (!explain_cell(&s->cur, mat, i, j, &e))
        return 0;
    bool any = false;
    const Attn *a = &s->cur;
    MatId ms = attn_shown(a, M_S, e.head), mq = attn_shown(a, M_QKT, e.head), ma = attn_shown(a, M_A, e.head);
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
        any = hide_softmax(s, &e, ms, mq, ma) || any;
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
