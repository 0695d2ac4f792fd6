/* live.c - narration filled in, the edited-state notice, change effects,
 * the trace line and the exercises' records (see live.h). */
#include "live.h"

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

char *session_saved_about(const Session *s, Lang lang)
{
    const Lesson *l = s->lesson;
    const char *own = l->about.s[lang], *other = l->about.s[lang == LANG_EN ? LANG_ZH : LANG_EN];
    int first = 0;
    for (int k = 0; k < s->nedits; k++)
        if (s->edits[k].kind == ACT_RESET)
            first = k + 1;
    if (first >= s->nedits || (!own && other)) /* no edits; or the other language stands in */
        return own ? strdup(own) : NULL;
    size_t cap = (size_t)(s->nedits - first) * 300 + (own ? strlen(own) : 0) + 128, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    if (own && *own)
        n = (size_t)snprintf(buf, cap, "%s%s", own, lang == LANG_ZH ? "" : " ");
    n += (size_t)snprintf(buf + n, cap - n, "%s", lang == LANG_ZH ? "保存前做过的改动：" : "Saved after: ");
    for (int k = first; k < s->nedits; k++) {
        char act[256];
        action_format(&s->edits[k], act, sizeof act);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", k > first ? "; " : "", act);
    }
    snprintf(buf + n, cap - n, "%s", lang == LANG_ZH ? "。" : ".");
    return buf;
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

bool session_diverged(const Session *s)
{
    if (s->nedits == 0)
        return false;
    Attn script = {0};
    if (!script_inputs(s, &script))
        return true; /* out of memory: say so rather than claim the script's numbers */
    const Attn *a = &s->cur;
    bool diff = a->scale != script.scale || a->softmax != script.softmax;
    for (int m = M_X; m <= M_WV && !diff; m++)
        diff = !mat_equal(&a->m[m], &script.m[m]);
    if (!diff && a->has_wo)
        diff = !mat_equal(&a->m[M_WO], &script.m[M_WO]);
    for (int m = 0; m < 3 && !diff; m++) {
        const Mat *x = &a->m[M_Q + m], *y = &script.m[M_Q + m];
        for (int i = 0; i < x->rows && !diff; i++) {
            diff = a->override[m][i] != script.override[m][i] || a->ovh[m][i] != script.ovh[m][i];
            if (!diff && a->override[m][i])
                diff = memcmp(&MAT_AT(x, i, 0), &MAT_AT(y, i, 0), sizeof(double) * (size_t)x->cols) != 0;
        }
    }
    attn_free(&script);
    return diff;
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

/* "α₁₁ 0.313 → 0.873" into buf. */
static void put_change(const Session *s, MatId m, int i, int j, double before, double after, const FmtOpt *fo,
                       char *buf, size_t len)
{
    char name[48], b[64], a[64];
    effect_cell_name(m, i, j, fo, name, sizeof name);
    snprintf(buf, len, "%s %s %s %s", name, shown(s, m, i, j, before, fo, b, sizeof b), fo->ascii ? "->" : "→",
             shown(s, m, i, j, after, fo, a, sizeof a));
}

bool effect_line(const Session *s, const char *name, MatId mat, int i, int j, const FmtOpt *fo, char *buf,
                 size_t len)
{
    char change[256];
    snprintf(buf, len, "%s", name);
    if (!s->has_before)
        return false;
    const Mat *m = &s->cur.m[mat];
    bool reached = attn_mat_stage(mat) <= s->cur.reached && attn_mat_stage(mat) <= s->before.reached;
    if (!reached || i < 0 || i >= m->rows || !mat_same_shape(m, &s->before.m[mat])) {
        Trace t;
        if (!session_trace(s, i, j, &t) || t.n == 0)
            return true;
        const TraceCell *c = &t.cell[t.n - 1];
        put_change(s, c->mat, c->i, c->j, c->before, c->after, fo, change, sizeof change);
        snprintf(buf, len, _("%s: %s"), name, change);
        return true;
    }
    j = j < 0 ? 0 : j >= m->cols ? m->cols - 1 : j;
    double before = MAT_AT(&s->before.m[mat], i, j), after = MAT_AT(m, i, j);
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
    char head[128], name[48];
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
    case TRACE_MATRIX:
        effect_cell_name(t->origin, t->origin_i, t->origin_row ? -1 : t->origin_j, fo, name, sizeof name);
        snprintf(head, sizeof head, _("%s changed"), name);
        break;
    }
    size_t n = (size_t)snprintf(buf, len, "%s", head);
    for (int k = 0; k < t->n && n < len; k++) {
        char change[256];
        const TraceCell *c = &t->cell[k];
        put_change(s, c->mat, c->i, c->j, c->before, c->after, fo, change, sizeof change);
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

Grade session_ask_answer(Session *s, const char *answer, bool ascii, char *msg, size_t len)
{
    int k = session_ask_open(s);
    if (len)
        msg[0] = '\0';
    if (k < 0)
        return GRADE_BAD;
    const Ask *a = session_ask_at(s, k);
    Grade g = ask_grade(a, &s->cur, s->lesson->digits, answer, msg, len);
    if (g == GRADE_BAD)
        return g;
    if (!records(s)) {
        snprintf(msg, len, "%s", _("out of memory"));
        return GRADE_BAD;
    }
    s->asked[ask_base(s->lesson, s->step) + k] = g == GRADE_RIGHT ? ASK_RIGHT : ASK_WRONG;
    char name[32], vals[1024], safe[256], cut[80];
    FmtOpt fo = {s->lesson->digits, ascii, false};
    ask_name(a, name, sizeof name);
    ask_values(a, &s->cur, &fo, vals, sizeof vals);
    if (g == GRADE_RIGHT) {
        snprintf(msg, len, _("%sright: %s = %s"), ascii ? "" : "✓ ", name, vals);
    } else {
        snprintf(cut, sizeof cut, "%s", answer);
        text_sanitize(cut, safe, sizeof safe, ascii);
        snprintf(msg, len, _("%snot quite: %s = %s (your answer: %s)"), ascii ? "" : "✗ ", name, vals, safe);
    }
    return g;
}

int session_ask_reveal(Session *s)
{
    int n = 0, base = ask_base(s->lesson, s->step);
    for (int k = 0; k < session_ask_count(s); k++)
        if (session_ask_state(s, k) == ASK_OPEN && records(s)) {
            s->asked[base + k] = ASK_REVEALED;
            n++;
        }
    return n;
}

bool session_ask_hidden(const Session *s, MatId m, int i, int j)
{
    const Step *st = session_step(s);
    for (int k = 0; k < st->nask; k++)
        if (ask_covers(&st->ask[k], m, i, j) && session_ask_state(s, k) == ASK_OPEN)
            return true;
    return false;
}

bool session_ask_hidden_cb(const void *ctx, MatId m, int i, int j)
{
    return session_ask_hidden((const Session *)ctx, m, i, j);
}

/* A value no lesson produces, written in place of a hidden number and then
 * replaced by "?" in the formatted lines. */
#define HIDDEN_MARK 8.5e+299

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
#define HIDE(v, cond) do { if (cond) { (v) = HIDDEN_MARK; any = true; } } while (0)
    switch (e.kind) {
    case EX_PROJ:
        HIDE(e.result, session_ask_hidden(s, e.mat, e.i, e.j));
        break;
    case EX_SCORE: {
        bool h = session_ask_hidden(s, M_S, e.i, e.j) || session_ask_hidden(s, M_QKT, e.i, e.j);
        HIDE(e.sum, h);
        HIDE(e.result, h);
        break;
    }
    case EX_SOFTMAX:
        for (int k = 0; k < e.n; k++) {
            bool h = session_ask_hidden(s, M_S, e.i, k);
            HIDE(e.a[k], h);
            HIDE(e.shifted[k], h);
            HIDE(e.weight[k], session_ask_hidden(s, M_A, e.i, k));
        }
        HIDE(e.result, session_ask_hidden(s, M_A, e.i, e.j));
        break;
    case EX_OUTPUT:
        for (int k = 0; k < e.n; k++)
            HIDE(e.a[k], session_ask_hidden(s, M_A, e.i, k));
        HIDE(e.result, session_ask_hidden(s, M_O, e.i, e.j));
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
    int n = ask_total(s->lesson);
    *total = n;
    *right = *wrong = *revealed = 0;
    for (int k = 0; s->asked && k < n; k++) {
        *right += s->asked[k] == ASK_RIGHT;
        *wrong += s->asked[k] == ASK_WRONG;
        *revealed += s->asked[k] == ASK_REVEALED;
    }
}

void session_ask_tally(const Session *s, char *buf, size_t len)
{
    int total, right, wrong, revealed;
    session_ask_counts(s, &total, &right, &wrong, &revealed);
    if (len)
        buf[0] = '\0';
    if (total == 0)
        return;
    size_t n = (size_t)snprintf(buf, len, _("right %d of %d"), right, total);
    if (wrong && n < len)
        n += (size_t)snprintf(buf + n, len - n, _(", %d wrong"), wrong);
    if (revealed && n < len)
        snprintf(buf + n, len - n, _(", %d revealed"), revealed);
}
