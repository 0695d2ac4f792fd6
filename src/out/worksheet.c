/* worksheet.c - --worksheet and --answers (see worksheet.h). */
#include "worksheet.h"

#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "lesson/session.h"
#include "lesson/template.h"
#include "words/narrate.h"
#include "mdtable.h"
#include "render.h"
#include "worksheet_features.h"
#include "mworksheet.h"
#include "lesson/lmodel.h"

#define BLANK "______"
/* Where a printed sheet should start a new page (pandoc and the HTML of
 * --class keep raw HTML; GitHub shows nothing). */
#define PAGE_BREAK "<div class=\"page-break\" style=\"break-before: page\"></div>"

/* ---- the questions ----------------------------------------------------------------- */

typedef struct {
    int step;           /* 0-based */
    Ask ask;
} Question;

static int lesson_asks(const Lesson *l)
{
    int n = 0;
    for (int k = 0; k < l->nsteps; k++)
        n += l->steps[k].nask;
    return n;
}

/* Every ask in script order; or, for a lesson without asks, one question
 * per stage 2..5 (see worksheet.h). Returns the count; q holds at least
 * max(asks, 4). */
static int collect_model(const Lesson *l, Question *q);

static int collect(const Lesson *l, Question *q)
{
    int n = 0;
    for (int k = 0; k < l->nsteps; k++)
        for (int a = 0; a < l->steps[k].nask; a++)
            q[n++] = (Question){k, l->steps[k].ask[a]};
    if (n)
        return n;
    if (l->model)
        return collect_model(l, q);
    for (int stage = STAGE_QKV; stage <= STAGE_OUTPUT; stage++) {
        int at = -1;
        for (int k = 0; k < l->nsteps && at < 0; k++) {
            const Step *st = &l->steps[k];
            const Focus *f = &st->focus;
            if (st->stage == stage && f->kind != FOCUS_NONE && f->mat != M_X && !attn_mat_is_param(f->mat)) {
                at = k;
                q[n] = (Question){k, {f->mat, f->i, f->kind == FOCUS_CELL ? f->j : -1, st->line, 0, {MM_NONE, 0, M_X}}};
            }
        }
        for (int k = 0; k < l->nsteps && at < 0; k++)
            if (l->steps[k].stage == stage) {
                at = k;
                q[n] = (Question){k, {attn_stage_mat(stage), 0, 0, l->steps[k].line, 0, {MM_NONE, 0, M_X}}};
            }
        n += at >= 0;
    }
    return n;
}

/* A model lesson without asks: a question per (layer, stage) its steps show
 * (mworksheet.h), at most as many as the lesson has steps. */
static int collect_model(const Lesson *l, Question *q)
{
    Session s;
    int n = 0;
    if (!session_init(&s, l))
        return 0;
    for (int k = 0; k < l->nsteps; k++) {
        const Step *st = &l->steps[k];
        bool seen = false;
        for (int p = 0; p < n && !seen; p++)
            seen = l->steps[q[p].step].stage == st->stage && l->steps[q[p].step].layer == st->layer;
        session_goto(&s, k);
        if (!seen && s.step == k && mws_default_ask(l, session_model(&s), k, &q[n].ask))
            q[n++].step = k;
    }
    session_free(&s);
    return n;
}

/* The asked values as the screen writes them (a model lesson's too). */
static void q_values(const Session *s, const Ask *a, const FmtOpt *fo, char *buf, size_t len)
{
    if (a->mref.kind != MM_NONE)
        ask_values_model(a, session_model(s), fo, buf, len);
    else
        ask_values(a, &s->cur, fo, buf, len);
}

/* In the sheet's narration every value any question asks is "?": a later
 * step's narration must not give away an earlier answer. */
static bool asked_anywhere(const void *ctx, MatId m, int i, int j)
{
    const Lesson *l = ctx;
    for (int k = 0; k < l->nsteps; k++)
        for (int a = 0; a < l->steps[k].nask; a++) {
            const Ask *q = &l->steps[k].ask[a];
            if (ask_covers(q, m, i, j) || (m == M_QKT && ask_covers(q, M_S, i, j)) ||
                (m == M_S && ask_covers(q, M_QKT, i, j)))
                return true;
        }
    return false;
}

/* The same for a model lesson's cells (ask.h's model asks). */
static bool asked_anywhere_model(const void *ctx, ModelRef r, int i, int j)
{
    const Lesson *l = ctx;
    for (int k = 0; k < l->nsteps; k++)
        for (int a = 0; a < l->steps[k].nask; a++)
            if (ask_covers_model(&l->steps[k].ask[a], r, i, j))
                return true;
    return false;
}

/* The script's actions of steps from..to, as written, one list item each
 * in a code span: "- `Q[1] = K[1] * 5`". */
/* With --variant K, an action the seed refuses is marked as skipped, with
 * why (render_variant_skips), so the sheet never says it happened. */
static void put_actions(FILE *out, const Lesson *l, int from, int to, bool ascii)
{
    /* one replay per lesson and seed, not one per question */
    static const Lesson *for_l;
    static unsigned long for_seed;
    static VariantSkip sk[16];
    static int nsk;
    if (for_l != l || for_seed != l->seed) {
        nsk = render_variant_skips(l, sk, 16);
        for_l = l;
        for_seed = l->seed;
    }
    for (int k = from; k <= to; k++)
        for (int a = 0; a < l->steps[k].nact; a++) {
            char safe[1024];
            text_sanitize(l->steps[k].act_text[a], safe, sizeof safe, ascii);
            for (char *p = safe; *p; p++)
                if (*p == '`')
                    *p = '\'';
            fprintf(out, "- `%s`", safe);
            for (int n = 0; n < nsk && n < 16; n++)
                if (sk[n].step == k && sk[n].act == a) {
                    char why[400];
                    text_sanitize(sk[n].why, why, sizeof why, ascii);
                    fputs(" — ", out);
                    fprintf(out, _("skipped under variant %lu: %s"), l->seed, why);
                }
            fputc('\n', out);
        }
    fputc('\n', out);
}

/* Does lesson text write a decimal number itself: a fixed figure {=0.651}
 * or a literal 0.651 outside a template? Such a number is the lesson's own
 * and is false for another variant, so a variant's sheet leaves that
 * narration out (the question: text stays). */
static bool writes_numbers(const char *s)
{
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (p[0] == '{' && p[1] == '{') {
            p++;
            continue;
        }
        if (*p == '{') {
            if (p[1] == '=')
                return true;
            depth++;
        } else if (*p == '}' && depth > 0) {
            depth--;
        } else if (depth == 0 && *p == '.' && p > s && p[-1] >= '0' && p[-1] <= '9' && p[1] >= '0' && p[1] <= '9') {
            return true;
        }
    }
    return false;
}

/* Print one question; false when out of memory. */
static bool put_question(FILE *out, const Lesson *l, const Session *s, const Question *q, int num, int prev_step,
                         bool narrate, const WorksheetOpt *o)
{
    bool ok = true;
    const Step *st = &l->steps[q->step];
    char name[48];
    fputs("### ", out);
    if (l->model)
        mws_stage_heading(out, l, q->step, num);
    else
        fprintf(out, _("%d · stage %d: %s"), num, st->stage, render_stage_title_of(l, st->stage));
    fputs("\n\n", out);
    int acts = 0;
    for (int k = prev_step + 1; k <= q->step; k++)
        acts += l->steps[k].nact;
    if (acts) {
        fprintf(out, "%s\n\n", prev_step < 0 ? _("Before this question the lesson does:")
                                               : _("Then, before this question, the lesson does:"));
        put_actions(out, l, prev_step + 1, q->step, o->ascii);
    }
    const char *say = text_get(&st->say, o->lang);
    if (narrate && *say && !(l->reseeded && writes_numbers(say))) {
        TplOpt to = {l->digits, o->ascii, asked_anywhere, l, o->lang, l->model ? s->mcur : NULL, asked_anywhere_model};
        char *text = template_has_refs(say) ? template_expand_dup(say, &s->cur, l, &to) : strdup(say);
        ok = text && put_md(out, text, o->ascii);
        if (ok)
            fputs("\n\n", out);
        free(text);
    }
    ask_name(&q->ask, name, sizeof name);
    const char *words = text_get(&st->question, o->lang);
    if (*words) { /* the step's question: words, then what to fill in */
        TplOpt to = {l->digits, o->ascii, asked_anywhere, l, o->lang, l->model ? s->mcur : NULL, asked_anywhere_model};
        char *text = template_expand_dup(words, &s->cur, l, &to);
        ok = ok && text && put_md(out, text, o->ascii);
        free(text);
        fputs("\n\n", out);
    }
    if (l->model) {
        ok = ok && mws_put_needs(out, l, session_model(s), &q->ask, o->ascii);
        fprintf(out, "**%s = ?**\n\n", name);
        return ok && mws_put_blank(out, l, session_model(s), &q->ask, o->ascii);
    }
    fprintf(out, "**%s = ?**\n\n", name);
    return ok && put_blank(out, l, &s->cur, &q->ask, o->ascii);
}

/* Move the session to a question's step; false when the state could not be
 * rebuilt (out of memory). */
static bool go(Session *s, int step)
{
    session_goto(s, step);
    return s->step == step;
}

/* ---- the key --------------------------------------------------------------------------- */

/* Each cell's arithmetic as --dump writes it, lines the previous cell
 * already gave (a row's shared first line) left out. */
static void put_arithmetic(FILE *out, const Session *s, const Ask *q, const FmtOpt *fo)
{
    static char lines[FMT_MAX_LINES][FMT_LINE], prev[FMT_MAX_LINES][FMT_LINE];
    int first = q->j >= 0 ? q->j : 0, cells = ask_cells(q, &s->cur), nprev = 0;
    fputs("```text\n", out);
    for (int c = 0; c < cells; c++) {
        Explain e;
        if (!explain_cell(&s->cur, q->mat, q->i, first + c, &e))
            continue;
        int n = fmt_explain_in(s, &e, fo, lines, FMT_MAX_LINES);
        for (int k = 0; k < n; k++) {
            bool seen = false;
            for (int p = 0; p < nprev && !seen; p++)
                seen = strcmp(lines[k], prev[p]) == 0;
            if (!seen)
                fprintf(out, "%s\n", lines[k]);
        }
        memcpy(prev, lines, sizeof lines);
        nprev = n;
    }
    fputs("```\n\n", out);
}

static bool put_key(FILE *out, const Lesson *l, Session *s, const Question *q, int nq, const WorksheetOpt *o,
                    const FmtOpt *fo)
{
    char name[48], vals[FMT_LINE], num[16];
    fprintf(out, "## %s", _("Answer key"));
    if (o->student > 0)
        fprintf(out, " · %s %02d", _("student"), o->student);
    if (l->reseeded)
        fprintf(out, " · %s %lu", _("variant"), l->seed);
    fputs("\n\n", out);
    Table t;
    bool ok = tab_new(&t, nq + 1, 4);
    if (ok) {
        tab_set(&t, 0, 0, "#", false, o->ascii);
        tab_set(&t, 0, 1, _("step"), false, o->ascii);
        tab_set(&t, 0, 2, _("asked"), false, o->ascii);
        tab_set(&t, 0, 3, _("answer"), false, o->ascii);
        t.right[0] = t.right[1] = true;
        for (int k = 0; ok && k < nq; k++) {
            ok = go(s, q[k].step);
            snprintf(num, sizeof num, "%d", k + 1);
            tab_set(&t, k + 1, 0, num, false, o->ascii);
            snprintf(num, sizeof num, "%d", q[k].step + 1);
            tab_set(&t, k + 1, 1, num, false, o->ascii);
            ask_name(&q[k].ask, name, sizeof name);
            tab_set(&t, k + 1, 2, name, false, o->ascii);
            q_values(s, &q[k].ask, fo, vals, sizeof vals);
            tab_set(&t, k + 1, 3, vals, false, o->ascii);
        }
        ok = ok && !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    for (int k = 0; ok && k < nq; k++) {
        if (!(ok = go(s, q[k].step)))
            break;
        ask_name(&q[k].ask, name, sizeof name);
        q_values(s, &q[k].ask, fo, vals, sizeof vals);
        fprintf(out, "### %d · %s = %s\n\n", k + 1, name, vals);
        if (l->model)
            mws_put_arithmetic(out, l, session_model(s), &q[k].ask, fo);
        else
            put_arithmetic(out, s, &q[k].ask, fo);
    }
    return ok;
}

/* ---- the sheet --------------------------------------------------------------------------- */

/* Does the script, up to step `last`, take an action of this kind? */
static bool script_does(const Lesson *l, int last, ActKind kind, int opt)
{
    for (int k = 0; k <= last && k < l->nsteps; k++)
        for (int a = 0; a < l->steps[k].nact; a++)
            if (l->steps[k].act[a].kind == kind && (opt < 0 || l->steps[k].act[a].opt == opt))
                return true;
    return false;
}

/* A caption "**M** r×c · what" then M's table. */
static bool put_given(FILE *out, const Lesson *l, const Attn *a, MatId id, const char *what, const FmtOpt *fo)
{
    const Mat *m = &a->m[id];
    fprintf(out, "**%s** %d%s%d · %s\n\n", attn_mat_name(id), m->rows, fo->ascii ? "x" : "×", m->cols, what);
    return put_matrix(out, l, a, id, NULL, fo);
}

/* Cross-attention's source: its tokens (a "#" table whose second column
 * says "source token") and Xs. */
static bool put_source(FILE *out, const Lesson *l, const Attn *base, const WorksheetOpt *o, const FmtOpt *fo)
{
    char buf[16];
    fprintf(out, "**%s**\n\n", _("Source"));
    fputs(_("Cross-attention: Q = X·Wq from the tokens above, K = Xs·Wk and V = Xs·Wv from the source "
            "below; S and A have a row per token and a column per source token."), out);
    fputs("\n\n", out);
    Table t = {0};
    bool ok = tab_new(&t, l->nsrc + 1, 2);
    if (ok) {
        tab_set(&t, 0, 0, "#", false, o->ascii);
        tab_set(&t, 0, 1, _("source token"), false, o->ascii);
        t.right[0] = true;
        for (int i = 0; i < l->nsrc; i++) {
            snprintf(buf, sizeof buf, "%d", i + 1);
            tab_set(&t, i + 1, 0, buf, false, o->ascii);
            tab_set(&t, i + 1, 1, l->source[i], true, o->ascii);
        }
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    return ok && put_given(out, l, base, M_XS, _("source: the sentence cross-attention reads"), fo);
}

/* P, when the lesson starts with positions or an action before the last
 * question turns them on: the formula and the table (from a copy of the
 * base state with positions on). */
static bool put_positions(FILE *out, const Lesson *l, const Attn *base, const FmtOpt *fo)
{
    Attn p = {0};
    if (!attn_copy(&p, base))
        return false;
    p.positions = POS_SINUSOIDAL;
    attn_run_to(&p, STAGE_INPUT);
    fputs(_("With positions: sinusoidal, H = X + P, and Q, K, V are projected from H. "
            "P[p][2m] = sin(p ÷ 10000^(2m ÷ d_model)), P[p][2m+1] = cos(the same), p = the row's position: "
            "offset + its index counting from 0, offset 0 unless the options give one (P stays with the "
            "positions when tokens swap)."), out);
    fputs("\n\n", out);
    bool ok = put_given(out, l, &p, M_P, _("positions"), fo);
    attn_free(&p);
    return ok;
}

/* With heads >= 2: which columns of each W are which head's. */
static bool put_heads(FILE *out, const Lesson *l, bool ascii)
{
    char buf[64];
    Table t;
    fprintf(out, "**%s**\n\n", _("Heads"));
    fprintf(out, _("%d heads. Head k uses its own columns of Wq and Wk (so of Q and K) and of Wv (so of V); "
                   "\"S2\", \"A2\" name head 2's matrices. O is the heads' outputs side by side, and Y = O·Wo."),
            l->heads);
    fputs("\n\n", out);
    if (!tab_new(&t, l->heads + 1, 3))
        return false;
    tab_set(&t, 0, 0, _("head"), false, ascii);
    tab_set(&t, 0, 1, _("columns of Wq, Wk, Q, K"), false, ascii);
    tab_set(&t, 0, 2, _("columns of Wv, V, O"), false, ascii);
    t.right[0] = true;
    for (int h = 0; h < l->heads; h++) {
        snprintf(buf, sizeof buf, "%d", h + 1);
        tab_set(&t, h + 1, 0, buf, false, ascii);
        snprintf(buf, sizeof buf, "%d%s%d", h * l->d_k + 1, ascii ? "-" : "–", (h + 1) * l->d_k);
        tab_set(&t, h + 1, 1, buf, false, ascii);
        snprintf(buf, sizeof buf, "%d%s%d", h * l->d_v + 1, ascii ? "-" : "–", (h + 1) * l->d_v);
        tab_set(&t, h + 1, 2, buf, false, ascii);
    }
    bool ok = !t.oom;
    if (ok)
        tab_print(out, &t);
    tab_free(&t);
    return ok;
}

/* The options table: sizes, then every option that changes a number. Each
 * value starts with the word the lesson language uses (sqrt_dk, causal ...). */
static bool put_options(FILE *out, const Lesson *l, int last, bool ascii)
{
    char buf[WS_OPT_LEN], v[64];
    enum { ROWS = 20 };
    const char *name[ROWS];
    char val[ROWS][WS_OPT_LEN];
    int n = 0;
#define OPT_ROW(nm, ...) (name[n] = (nm), snprintf(val[n], sizeof val[n], __VA_ARGS__), n++)
    OPT_ROW("n", "%d", l->ntok);
    OPT_ROW("d_model", "%d", l->d_model);
    OPT_ROW("heads", "%d", l->heads);
    n = ws_modern_rows(l, last, "heads", name, val, n, ROWS);
    OPT_ROW("d_k", "%d%s", l->d_k, l->heads > 1 ? _(" per head") : "");
    OPT_ROW("d_v", "%d%s", l->d_v, l->heads > 1 ? _(" per head") : "");
    if (l->d_out > 0)
        OPT_ROW("d_out", "%d", l->d_out);
    OPT_ROW("scale", "%s", l->scale == SCALE_SQRT_DK ? _("sqrt_dk: S = Q·Kᵀ ÷ √d_k") : _("none: S = Q·Kᵀ"));
    ws_softmax_value(l, buf, sizeof buf);
    OPT_ROW("softmax", "%s", buf);
    n = ws_modern_rows(l, last, "softmax", name, val, n, ROWS);
    ws_mask_value(l, buf, sizeof buf);
    OPT_ROW("mask", "%s", buf);
    fmt_exact(l->temp > 0 ? l->temp : 1.0, v, sizeof v);
    OPT_ROW("temperature", _("%s: A = softmax(S ÷ T)"), v);
    ws_positions_value(l, buf, sizeof buf);
    OPT_ROW("positions", "%s", buf);
    n = ws_modern_rows(l, last, "positions", name, val, n, ROWS);
    if (l->attention == ATTENTION_CROSS)
        OPT_ROW("attention", "%s", _("cross: Q = X·Wq, K = Xs·Wk, V = Xs·Wv"));
    if (l->npad > 0) { /* "0 0 1: ..." one per key */
        size_t o = 0;
        for (int k = 0; k < l->npad && o + 3 < sizeof buf; k++)
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%d", k ? " " : "", l->pad[k]);
        OPT_ROW("pad", _("%s: a key marked 1 is padding, −∞ in S before the softmax and exactly 0 in A"), buf);
    }
    if (script_does(l, last, ACT_STEP, -1) || script_does(l, last, ACT_TARGET, -1)) {
        fmt_exact(l->lr > 0 ? l->lr : ATTN_LR_DEFAULT, v, sizeof v);
        OPT_ROW("lr", _("%s: a step is W ← W − lr·∂L/∂W on Wq and Wk, L = −Σ t·ln A over the targets"), v);
    }
    OPT_ROW("digits", _("%d: the decimals shown"), l->digits);
#undef OPT_ROW
    fprintf(out, "**%s**\n\n", _("Options"));
    Table t;
    if (!tab_new(&t, n + 1, 2))
        return false;
    tab_set(&t, 0, 0, _("option"), false, ascii);
    tab_set(&t, 0, 1, _("value"), false, ascii);
    for (int k = 0; k < n; k++) {
        tab_set(&t, k + 1, 0, name[k], true, ascii);
        text_sanitize(val[k], buf, sizeof buf, ascii);
        tab_set(&t, k + 1, 1, buf, true, ascii);
    }
    bool ok = !t.oom;
    if (ok)
        tab_print(out, &t);
    tab_free(&t);
    return ok;
}

/* The givens: everything an answer depends on (worksheet.h). `last` is the
 * last question's step (0-based). */
static bool put_givens(FILE *out, const Lesson *l, const Attn *base, int last, const WorksheetOpt *o,
                       const FmtOpt *fo)
{
    char buf[256], v[64];
    bool ok = true;
    fprintf(out, "## %s\n\n", _("Given"));
    /* tokens */
    fprintf(out, "**%s**\n\n", _("Tokens"));
    Table t = {0};
    if ((ok = tab_new(&t, l->ntok + 1, 2))) {
        tab_set(&t, 0, 0, "#", false, o->ascii);
        tab_set(&t, 0, 1, _("token"), false, o->ascii);
        t.right[0] = true;
        for (int i = 0; i < l->ntok; i++) {
            snprintf(buf, sizeof buf, "%d", i + 1);
            tab_set(&t, i + 1, 0, buf, false, o->ascii);
            tab_set(&t, i + 1, 1, l->tokens[i], true, o->ascii);
        }
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    ok = ok && put_given(out, l, base, M_X, _("input: this sentence"), fo);
    if (ok && l->attention == ATTENTION_CROSS) /* cross-attention: the source's tokens and rows */
        ok = put_source(out, l, base, o, fo);
    if (ok && (l->positions == POS_SINUSOIDAL || script_does(l, last, ACT_POS, POS_SINUSOIDAL)))
        ok = put_positions(out, l, base, fo);
    /* the weights */
    if (l->random) {
        fmt_exact(l->rscale, v, sizeof v);
        fprintf(out, _("The weights are parameters (learned in training, fixed at inference), drawn like numpy: "
                       "np.random.seed(%lu), then randn(rows, columns) × %s for %s, in that order, each of the "
                       "shape its table shows."), l->seed, v,
                l->xs_drawn ? l->d_out > 0 ? "Wq, Wk, Wv, Wo, Xs" : "Wq, Wk, Wv, Xs"
                : l->d_out > 0 ? "Wq, Wk, Wv, Wo" : "Wq, Wk, Wv");
        fputs("\n\n", out);
    }
    static const MatId ws[] = {M_WQ, M_WK, M_WV, M_WO};
    for (int k = 0; ok && k < (l->d_out > 0 ? 4 : 3); k++)
        ok = put_given(out, l, base, ws[k],
                       ws[k] == M_WO ? _("parameter: Y = O·Wo, O the heads' outputs side by side")
                                     : _("parameter (learned in training, fixed at inference)"), fo);
    /* rows of Q, K, V the lesson sets */
    for (int m = 0; ok && m < 3; m++) {
        bool any = false;
        for (int i = 0; i < l->ntok; i++)
            any = any || l->override[m][i];
        if (!any)
            continue;
        fprintf(out, "**%s** · %s\n\n", attn_mat_name((MatId)(M_Q + m)),
                _("rows set by the lesson, not computed as X·W"));
        ok = put_matrix(out, l, base, (MatId)(M_Q + m), l->override[m], fo);
    }
    if (ok && l->heads > 1)
        ok = l->kv_heads > 0 && l->kv_heads != l->heads ? ws_put_gqa_heads(out, l, o->ascii)
                                                        : put_heads(out, l, o->ascii);
    return ok && put_options(out, l, last, o->ascii) && ws_put_modern_notes(out, l, last, o->ascii) &&
           ws_put_train_note(out, l, last, o->ascii);
}

/* A YAML metadata block: pandoc takes the page title and language from it
 * (GitHub shows it as a small table). */
void worksheet_front_matter(FILE *out, const Lesson *l, const WorksheetOpt *o)
{
    char title[512];
    text_sanitize(text_get(&l->title, o->lang), title, sizeof title, o->ascii);
    fputs("---\npagetitle: \"", out);
    for (const char *p = title; *p; p++) {
        if (*p == '"' || *p == '\\')
            fputc('\\', out);
        fputc(*p, out);
    }
    fprintf(out, " · %s\"\nlang: %s\n---\n\n", o->answers ? _("answer key") : _("worksheet"),
            o->lang == LANG_ZH ? "zh-CN" : "en");
}

/* One row of --class's marking table: "| 01 | 1 | a | b |" with each
 * question's answer. */
int worksheet_key_row(FILE *out, const Lesson *l, const WorksheetOpt *o)
{
    FmtOpt fo = {l->digits, o->ascii, false};
    int total = lesson_asks(l);
    Question *q = malloc(sizeof *q * (size_t)(total > 4 ? total : 4 + l->nsteps));
    Session s;
    if (!q || !session_init(&s, l)) {
        free(q);
        return 2;
    }
    int nq = collect(l, q);
    char vals[FMT_LINE];
    bool ok = true;
    fprintf(out, "| %02d | %lu |", o->student, l->seed);
    for (int k = 0; ok && k < nq; k++) {
        ok = go(&s, q[k].step);
        q_values(&s, &q[k].ask, &fo, vals, sizeof vals);
        fprintf(out, " %s |", vals);
    }
    fputc('\n', out);
    session_free(&s);
    free(q);
    return ok ? 0 : 2;
}

/* The header of that table: student, variant, then each question asked. */
int worksheet_key_header(FILE *out, const Lesson *l, const WorksheetOpt *o)
{
    int total = lesson_asks(l);
    Question *q = malloc(sizeof *q * (size_t)(total > 4 ? total : 4 + l->nsteps));
    if (!q)
        return 2;
    int nq = collect(l, q);
    char name[48];
    fprintf(out, "| %s | %s |", _("student"), _("variant"));
    for (int k = 0; k < nq; k++) {
        ask_name(&q[k].ask, name, sizeof name);
        fprintf(out, " %d: %s |", k + 1, name);
    }
    fputs("\n|---:|---:|", out);
    for (int k = 0; k < nq; k++)
        fputs("---|", out);
    fputc('\n', out);
    free(q);
    return 0;
}

/* The sheet's front matter and title line: the lesson, "Worksheet", the
 * student's number and the variant, a line for the name. */
static bool put_title(FILE *out, const Lesson *l, const WorksheetOpt *o)
{
    worksheet_front_matter(out, l, o);
    fputs("# ", out);
    bool ok = put_md(out, text_get(&l->title, o->lang), o->ascii);
    fprintf(out, "\n\n%s", _("Worksheet"));
    if (o->student > 0)
        fprintf(out, " · %s %02d", _("student"), o->student);
    if (l->reseeded)
        fprintf(out, " · %s %lu", _("variant"), l->seed);
    fprintf(out, " · %s ____________________\n\n", _("Name:"));
    return ok;
}

int render_worksheet(FILE *out, const Lesson *l, const WorksheetOpt *o)
{
    FmtOpt fo = {l->digits, o->ascii, false};
    int total = lesson_asks(l);
    Question *q = malloc(sizeof *q * (size_t)(total > 4 ? total : 4 + l->nsteps));
    Session s;
    Attn base = {0};
    if (!q || (!l->model && !lesson_base(l, &base)) || !session_init(&s, l)) {
        free(q);
        attn_free(&base);
        fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
        return 2;
    }
    int nq = collect(l, q);
    if (o->key_only) { /* --class's key.md: this variant's key alone */
        bool ok = put_key(out, l, &s, q, nq, o, &fo);
        session_free(&s);
        attn_free(&base);
        free(q);
        return ok ? 0 : 2;
    }
    bool ok = put_title(out, l, o);
    char *about = lesson_about_text(l, o->lang, o->ascii);
    if (l->reseeded && session_diverged(&s) && ((about && *about) || nq > 0)) { /* --variant K */
        fputs(o->ascii ? "* " : "✎ ", out);
        fprintf(out, _("Variant %lu: the numbers are this variant's; the words around them were written for the "
                       "lesson's own numbers."), l->seed);
        fputs("\n\n", out);
    }
    ok = ok && about && put_md(out, about, o->ascii);
    if (ok && *about)
        fputs("\n\n", out);
    free(about);
    ok = ok && (l->model ? mws_put_givens(out, l, l->model->base, o->ascii)
                         : put_givens(out, l, &base, nq > 0 ? q[nq - 1].step : l->nsteps - 1, o, &fo));
    if (ok) {
        fprintf(out, "## %s\n\n", _("Questions"));
        fprintf(out, _("Write each answer with %d decimals: it counts as right within 1%% of the value or one "
                       "unit of the last decimal."), l->digits);
        fputs("\n\n", out);
    }
    int prev = -1;
    for (int k = 0; ok && k < nq; k++) {
        ok = go(&s, q[k].step) && put_question(out, l, &s, &q[k], k + 1, prev, total > 0, o);
        prev = q[k].step;
    }
    if (ok && o->answers) {
        fputs(PAGE_BREAK "\n\n", out);
        ok = put_key(out, l, &s, q, nq, o, &fo);
    }
    session_free(&s);
    attn_free(&base);
    free(q);
    if (!ok)
        fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
    return ok ? 0 : 2;
}
