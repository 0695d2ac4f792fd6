/* render.c - --dump and --check (see render.h; --json is statejson.c). */
#include "render.h"

#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "core/grad.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "text/text.h"
#include "lesson/lmodel.h"
#include "lesson/session.h"
#include "lesson/template.h"
#include "words/narrate.h"
#include "lesson/train.h"
#include "authoring.h"
#include "dumpgrid.h"
#include "modeldump.h"
#include "lesson/lmodel.h"

static void put_text(FILE *out, const char *s, bool ascii)
{
    dump_text(out, s, ascii);
}

static void put_wrapped(FILE *out, const char *s, bool ascii, int width)
{
    dump_wrapped(out, s, ascii, width);
}

/* Say so, for a renderer that ran out of memory; returns 2, the exit status. */
int render_no_memory(void)
{
    fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
    return 2;
}

/* Who set an overridden row of Q/K/V, after its numbers in the dump. */
static const char *row_note(const Session *s, MatId id, int i, char *buf, size_t len)
{
    Origin o = session_row_origin(s, id, i);
    if (o.by == OV_HAND)
        return _("   (set by hand, no longer X·W)");
    if (o.by == OV_SCRIPT && o.step >= 0) {
        snprintf(buf, len, _("   (set by the lesson at step %d, no longer X·W)"), o.step + 1);
        return buf;
    }
    return o.by == OV_SCRIPT ? _("   (set by the lesson, no longer X·W)") : "";
}

/* The note after row i of an overridden Q/K/V row (dump_grid's note). */
typedef struct {
    const Session *s;
    MatId id;
} RowNoteCtx;

static const char *grid_note(const void *ctx, int i, char *buf, size_t len)
{
    const RowNoteCtx *c = ctx;
    const Attn *a = &c->s->cur;
    bool over = c->id >= M_Q && c->id <= M_V && a->override[c->id - M_Q][i];
    return over ? row_note(c->s, c->id, i, buf, len) : "";
}

/* Print one matrix with its name, shape, role and row/column labels. */
static void put_matrix(FILE *out, const Lesson *l, const Session *s, MatId id, const FmtOpt *fo)
{
    const Attn *a = &s->cur;
    const char *tok[MAT_MAX], *key[MAT_MAX];
    int n = attn_tokens(a) < MAT_MAX ? attn_tokens(a) : MAT_MAX, nk = attn_keys(a);
    for (int i = 0; i < n; i++)
        tok[i] = lesson_token(l, a, i);
    for (int k = 0; k < nk; k++) /* the keys: the source's tokens with cross-attention */
        key[k] = lesson_key_token(l, a, k);
    const Mat *m = &a->m[id];
    MatId base = attn_mat_base(id);
    bool src = lesson_rows_are_source(a, id);
    RowNoteCtx ctx = {s, id};
    DumpGrid g = {
        .name = attn_mat_name(id), .m = m,
        .role = attn_mat_is_param(id) ? _("parameter (learned in training, fixed at inference)")
                : id == M_X           ? _("input: this sentence")
                : id == M_XS          ? _("source: the sentence cross-attention reads")
                : id == M_P           ? _("positions: sin/cos of the token's place, p = 0, 1, 2, ...")
                : id == M_H           ? _("the input with positions: H = X + P")
                                      : _("result for this input"),
        .row_tok = src ? key : m->rows == attn_tokens(a) && !attn_mat_is_param(id) ? tok : NULL,
        .col_tok = base == M_S || base == M_QKT || base == M_A ? key : NULL, .ncol_tok = nk,
        .masked = id == M_S ? a : NULL, .note = grid_note, .ctx = &ctx};
    dump_grid(out, &g, fo);
}

/* The matrices a stage shows in the dump: what it produced (with heads,
 * each head's, then O joined). ids has room for 4 * ATTN_HEADS_MAX + 8. */
static int stage_mats(int stage, const Attn *a, MatId *ids)
{
    int n = 0;
    if (stage == STAGE_PROJECT) {
        ids[n++] = M_O;
        ids[n++] = M_WO;
        ids[n++] = M_Y;
        return n;
    }
    if (attn_heads(a) > 1 && stage >= STAGE_SCORES) {
        for (int h = 1; h <= attn_heads(a); h++) {
            if (stage == STAGE_SCORES && a->scale == SCALE_SQRT_DK)
                ids[n++] = attn_head_id(M_QKT, h);
            ids[n++] = attn_head_id(stage == STAGE_SCORES ? M_S : stage == STAGE_SOFTMAX ? M_A : M_O, h);
        }
        if (stage == STAGE_OUTPUT)
            ids[n++] = M_O;
        return n;
    }
    switch (stage) {
    case STAGE_INPUT:  ids[0] = M_X; ids[1] = attn_is_cross(a) ? M_XS : M_P; ids[2] = M_H;
                       return a->positions == POS_SINUSOIDAL ? 3 : attn_is_cross(a) ? 2 : 1;
    case STAGE_QKV:    ids[0] = M_WQ; ids[1] = M_WK; ids[2] = M_WV;
                       ids[3] = M_Q; ids[4] = M_K; ids[5] = M_V; return 6;
    case STAGE_SCORES: ids[0] = a->scale == SCALE_SQRT_DK ? M_QKT : M_S; ids[1] = M_S;
                       return a->scale == SCALE_SQRT_DK ? 2 : 1;
    case STAGE_SOFTMAX: ids[0] = M_A; return 1;
    default:           ids[0] = M_O; return 1;
    }
}

const char *render_stage_title_of(const Lesson *l, int stage)
{
    if (l && l->attention == ATTENTION_CROSS && stage == STAGE_QKV)
        return _("Q = X·Wq, K = Xs·Wk, V = Xs·Wv (K and V from the source)");
    return render_stage_title(stage);
}

const char *render_stage_title(int stage)
{
    static const char *t[] = {"", N_("input X"), N_("Q = X·Wq, K = X·Wk, V = X·Wv"),
                              N_("scores S = Q·Kᵀ (÷ √d_k when scaled)"), N_("softmax A, row by row"),
                              N_("output O = A·V"), N_("projection Y = O·Wo (the heads joined)")};
    return _(t[stage]);
}

/* The focus of a step, or a default one for its stage. */
static Focus step_focus(const Step *st)
{
    if (st->focus.kind != FOCUS_NONE)
        return st->focus;
    Focus f = {.kind = FOCUS_CELL, .mat = attn_stage_mat(st->stage)};
    return f;
}

static void put_explain(FILE *out, const Session *s, Focus f, const FmtOpt *fo)
{
    Explain e;
    static char lines[FMT_MAX_LINES][FMT_LINE];
    int j = f.kind == FOCUS_CELL ? f.j : 0;
    if (!explain_cell(&s->cur, f.mat, f.i, j, &e))
        return;
    int n = fmt_explain_in(s, &e, fo, lines, FMT_MAX_LINES);
    if (n)
        fputc('\n', out);
    for (int k = 0; k < n; k++)
        fprintf(out, "  %s\n", lines[k]);
}

static void put_label(FILE *out, const char *label)
{
    dump_label(out, label);
}

/* "  options: causal mask · T = 0.5 · sinusoidal positions" when any of the
 * newer options differs from its default; nothing otherwise. */
static void put_options(FILE *out, const Attn *a, bool ascii)
{
    char t[40];
    if (a->mask == MASK_NONE && a->temp == 1.0 && a->positions == POS_NONE && a->offset == 0 &&
        a->softmax != SOFTMAX_ONLINE && attn_kv_heads(a) == attn_heads(a))
        return;
    const char *sep = ascii ? " - " : " · ";
    put_label(out, _("options:"));
    bool any = false;
    if (a->mask == MASK_CAUSAL) {
        fputs(_("causal mask"), out);
        any = true;
    }
    if (a->mask == MASK_WINDOW) {
        fprintf(out, _("window of %d"), a->window);
        any = true;
    }
    if (a->temp != 1.0) {
        fprintf(out, "%sT = %s", any ? sep : "", fmt_exact(a->temp, t, sizeof t));
        any = true;
    }
    if (a->positions == POS_SINUSOIDAL)
        fprintf(out, "%s%s", any ? sep : "", _("sinusoidal positions"));
    if (a->positions == POS_ROPE) {
        fprintf(out, "%s", any ? sep : "");
        fprintf(out, _("RoPE, base %s"), fmt_exact(a->rope_base, t, sizeof t));
    }
    any = any || a->positions != POS_NONE;
    if (a->offset != 0) {
        fprintf(out, "%s", any ? sep : "");
        fprintf(out, _("offset %d"), a->offset);
        any = true;
    }
    if (a->softmax == SOFTMAX_ONLINE) {
        fprintf(out, "%s", any ? sep : "");
        fprintf(out, _("online softmax, blocks of %d"), a->block);
        any = true;
    }
    if (attn_kv_heads(a) != attn_heads(a)) {
        fprintf(out, "%s", any ? sep : "");
        fprintf(out, attn_kv_heads(a) == 1 ? _("%d query heads share %d K/V head") : _("%d query heads share %d K/V heads"),
                attn_heads(a), attn_kv_heads(a));
    }
    fputc('\n', out);
}

/* The training panel's lines, as the view shows them (from the softmax stage on, with targets). */
static void put_training(FILE *out, const Lesson *l, const Session *s, Focus f, const FmtOpt *fo)
{
    char lines[6][FMT_LINE];
    if (session_stage(s) < STAGE_SOFTMAX || s->cur.ntarget == 0 || s->cur.reached < STAGE_SOFTMAX)
        return;
    int n = train_lines(l, &s->cur, train_focus_target(&s->cur, s->head > 0 ? s->head - 1 : 0, f.i), f.kind == FOCUS_CELL ? f.j : 0, fo, lines, 6);
    for (int k = 0; k < n; k++) {
        if (k == 0)
            put_label(out, _("training:"));
        else
            fprintf(out, "  %*s", text_width(_("training:")) + 1, "");
        put_text(out, lines[k], fo->ascii);
        fputc('\n', out);
    }
}

/* The step's expect: checks, each "holds" or why not (not under --variant:
 * its numbers are not the lesson's). */
static void put_expects(FILE *out, const Lesson *l, const Session *s, const Step *st)
{
    for (int k = 0; k < st->nexpect && !l->reseeded; k++) {
        static char msg[EXPECT_MSG_MAX];
        char what[EXPECT_MSG_MAX / 8];
        if (expect_check(&st->expect[k], &s->cur, l->digits, msg, sizeof msg)) {
            expect_describe(&st->expect[k], what, sizeof what);
            put_label(out, _("expect:"));
            /* TRANSLATORS: "expect: A[1] = [0.873, 0.076, 0.052] holds" in --dump */
            fprintf(out, _("%s holds"), what);
            fputc('\n', out);
        } else {
            put_label(out, _("expect:"));
            fprintf(out, "%s\n", msg);
        }
    }
}

/* The question's own words, as the view's question line has them (asked
 * cells "?"). */
static void put_question(FILE *out, const Lesson *l, const Session *s, const RenderOpt *o)
{
    const Step *st = session_step(s);
    const char *question = st->nask > 0 ? text_get(&st->question, o->lang) : "";
    if (!*question)
        return;
    TplOpt to = {l->digits, o->ascii, session_ask_hidden_cb, s, o->lang, l->model ? s->mcur : NULL,
                 session_ask_mhidden_cb};
    char *words = template_expand_dup(question, &s->cur, l, &to);
    char *prose = words ? fmt_prose(words, o->ascii) : NULL;
    if (prose && *prose) {
        put_label(out, _("question:"));
        put_text(out, prose, o->ascii);
        fputc('\n', out);
    }
    free(prose);
    free(words);
}

static void put_step(FILE *out, const Lesson *l, const Session *s, const RenderOpt *o, const FmtOpt *fo)
{
    const Step *st = session_step(s);
    fprintf(out, "\n%s %d/%d ", o->ascii ? "==" : "──", s->step + 1, l->nsteps);
    fprintf(out, _("· stage %d: %s"), st->stage, render_stage_title_of(l, st->stage));
    fprintf(out, " %s\n", o->ascii ? "==" : "──");
    for (int k = 0; k < st->nact; k++) {
        fprintf(out, "  do: ");
        put_text(out, st->act_text[k], o->ascii);
        fputc('\n', out);
    }
    put_options(out, &s->cur, o->ascii);
    if (s->has_before) { /* the step's do: changed numbers: follow the change */
        char line[FMT_LINE];
        Focus f = step_focus(st);
        if (session_trace_line(s, f.i, f.kind == FOCUS_CELL ? f.j : 0, fo, line, sizeof line) && *line) {
            put_label(out, _("effect:"));
            put_text(out, line, o->ascii);
            fputc('\n', out);
        }
    }
    char *say = session_say(s, o->lang, o->ascii), notice[FMT_LINE];
    /* a saved lesson's edits: every step says its words were for other numbers */
    if (session_saved_edits(s) && say && *say && session_notice(s, o->ascii, 0, notice, sizeof notice)) {
        fputs("  ", out);
        put_text(out, notice, o->ascii);
        fputc('\n', out);
    }
    if (say && *say)
        put_wrapped(out, say, o->ascii, 76);
    free(say);
    authoring_room(out, s, s->step, o->fits, o->space, o->lang);
    put_question(out, l, s, o);
    for (int k = 0; k < st->nask; k++) {
        char name[32], vals[FMT_LINE];
        ask_name(&st->ask[k], name, sizeof name);
        session_ask_values(s, &st->ask[k], fo, vals, sizeof vals);
        put_label(out, _("ask:"));
        fprintf(out, "%s = ? ", name);
        put_label(out, _("answer:"));
        fprintf(out, "%s\n", vals);
    }
    MatId ids[4 * ATTN_HEADS_MAX + 8];
    int n = stage_mats(st->stage, &s->cur, ids);
    for (int k = 0; k < n; k++)
        put_matrix(out, l, s, ids[k], fo);
    put_explain(out, s, step_focus(st), fo);
    put_training(out, l, s, step_focus(st), fo);
    put_expects(out, l, s, st);
}

int render_variant_skips(const Lesson *l, VariantSkip *out, int max)
{
    Attn base = {0}, a = {0};
    int n = 0;
    if (!l->reseeded)
        return 0;
    if (!lesson_base(l, &base) || !attn_copy(&a, &base)) {
        attn_free(&base);
        return -1;
    }
    for (int k = 0; k < l->nsteps; k++)
        for (int m = 0; m < l->steps[k].nact; m++) {
            const Action *act = &l->steps[k].act[m];
            char why[200];
            if (act->kind == ACT_RESET) {
                if (!attn_copy(&a, &base))
                    n = -1;
            } else if (!action_apply(&a, act, why, sizeof why) && n >= 0) {
                if (n < max) {
                    out[n].step = k;
                    out[n].act = m;
                    snprintf(out[n].why, sizeof out[n].why, "%s", why);
                }
                n++;
            }
        }
    attn_free(&a);
    attn_free(&base);
    return n;
}

/* --dump --variant K: one line per script action the seed refuses. */
static void put_variant_skips(FILE *out, const Lesson *l, bool ascii)
{
    VariantSkip sk[16];
    int n = render_variant_skips(l, sk, 16);
    for (int k = 0; k < n && k < 16; k++) {
        char act[200], why[400];
        text_quote_n(l->steps[sk[k].step].act_text[sk[k].act], 80, "", "", act, sizeof act);
        text_sanitize(sk[k].why, why, sizeof why, ascii);
        fprintf(out, _("variant %lu: step %d's action \"%s\" is skipped under this seed: %s"), l->seed,
                sk[k].step + 1, act, why);
        fputc('\n', out);
    }
    if (n > 16)
        fprintf(out, _("variant %lu: %d more actions are skipped under this seed\n"), l->seed, n - 16);
}

/* The lesson's file name as messages show it (text_shown: no raw escape
 * or control bytes reach the terminal). */
static const char *file_shown(const Lesson *l)
{
    static char buf[4096];
    return text_shown(l->file, buf, sizeof buf);
}

int render_dump(FILE *out, const Lesson *l, const RenderOpt *o)
{
    if (l->model)
        return render_model_dump(out, l, o->at, o->lang, o->ascii) ? 0 : render_no_memory();
    Session *s = malloc(sizeof *s); /* 24 KB: off the stack, which the room's layout needs */
    FmtOpt fo = {l->digits, o->ascii, false};
    if (!s || !session_init(s, l)) {
        free(s);
        return render_no_memory();
    }
    fputs("qkvtutor · ", out);
    put_text(out, text_get(&l->title, o->lang), o->ascii);
    fprintf(out, "\n%s · ", file_shown(l));
    fprintf(out, _("%d tokens, d_model %d, d_k %d, d_v %d"), l->ntok, l->d_model, l->d_k, l->d_v);
    if (l->heads > 1 || l->d_out > 0)
        fprintf(out, _(", heads %d, d_out %d"), l->heads, l->d_out);
    if (l->reseeded) /* --variant K */
        fprintf(out, " · %s %lu", _("variant"), l->seed);
    fputc('\n', out);
    put_variant_skips(out, l, o->ascii);
    char *about = lesson_about_text(l, o->lang, o->ascii);
    if (about && *about)
        put_wrapped(out, about, o->ascii, 76);
    free(about);
    authoring_room(out, s, -1, o->fits, o->space, o->lang);
    char notice[FMT_LINE];
    if (!lesson_saved_edits(l) && session_notice(s, o->ascii, 0, notice, sizeof notice)) { /* --variant K: once */
        put_text(out, notice, o->ascii);
        fputc('\n', out);
    }
    int first = o->at ? o->at - 1 : 0, last = o->at ? o->at - 1 : l->nsteps - 1;
    session_goto(s, first);
    for (int k = first; k <= last; k++) {
        session_goto(s, k);
        put_step(out, l, s, o, &fo);
    }
    session_free(s);
    free(s);
    return 0;
}

/* No literal state numbers (template.h): step k's say: and question:, or
 * with k < 0 the about:, in both languages (a text written once is checked
 * once). A lesson error: one line each on `out` (stderr, like the loader's
 * errors). Returns how many numbers are written out. */
static int check_literals(FILE *out, const Lesson *l, const Attn *a, const Model *m, int k)
{
    int bad = 0;
    const Text *t[2] = {k < 0 ? &l->about : &l->steps[k].say, k < 0 ? NULL : &l->steps[k].question};
    const TextAt *at[2] = {k < 0 ? l->about_at : l->steps[k].say_at, k < 0 ? NULL : l->steps[k].question_at};
    for (int f = 0; f < 2; f++)
        for (int n = 0; t[f] && n < LANG_COUNT; n++) {
            /* in the order they are written */
            int g = (at[f][LANG_ZH].line < at[f][LANG_EN].line) == (n == 0) ? LANG_ZH : LANG_EN;
            const char *text = text_get(t[f], (Lang)g);
            if (n == 1 && text == text_get(t[f], (Lang)(g == LANG_ZH ? LANG_EN : LANG_ZH)))
                continue;
            bad += m ? template_literals_report_model(out, file_shown(l), text, &at[f][g], m, l->digits, k < 0)
                     : template_literals_report(out, file_shown(l), text, &at[f][g], a, l->digits, k < 0);
        }
    return bad;
}

/* --check on a model lesson: the session walks the script (its do:
 * actions applied, as the view does), and at each step every expect: is
 * checked against the model shown (expect_check_model), the narration
 * against its literal state numbers and its room, with the lines and
 * summary of a one-layer lesson's. */
static int check_model_lesson(FILE *out, FILE *err, const Lesson *l, const RenderOpt *o, NarrationFits fits)
{
    const char *file = file_shown(l);
    Session *s = calloc(1, sizeof *s);
    if (!s || !session_init(s, l)) {
        free(s);
        return render_no_memory();
    }
    int total = 0, failed = 0, narration = 0, literals = 0, words = authoring_translations(out, file, l, -1);
    narration += fits ? authoring_card(out, file, s, fits, o->lang) : 0;
    literals += check_literals(err, l, NULL, l->model->base, -1);
    for (int k = 0; k < l->nsteps; k++) {
        session_goto(s, k);
        const Step *st = &l->steps[k];
        const Model *m = session_model(s);
        literals += m ? check_literals(err, l, NULL, m, k) : 0;
        words += authoring_translations(out, file, l, k);
        if (fits)
            narration += authoring_narration(out, file, s, k, fits, o->lang);
        for (int e = 0; m && e < st->nexpect; e++) {
            static char msg[EXPECT_MSG_MAX];
            total++;
            if (!expect_check_model(&st->expect[e], m, l->digits, msg, sizeof msg)) {
                failed++;
                fprintf(out, "%s:%d:%d: %s %d: %s\n", file, st->expect[e].line, st->expect[e].col, _("step"), k + 1,
                        msg);
            }
        }
    }
    session_free(s);
    free(s);
    fprintf(out, "%s: %d %s, %d %s", file, total - failed, _("expectations hold"), failed, _("failed"));
    if (narration)
        fprintf(out, narration == 1 ? _("; %d narration too long for %dx%d") : _("; %d narrations too long for %dx%d"),
                narration, CHECK_COLS, CHECK_ROWS);
    if (words)
        fprintf(out, words == 1 ? _("; %d translation missing") : _("; %d translations missing"), words);
    fputc('\n', out);
    return literals ? 2 : failed || narration || words ? 1 : 0;
}

int render_check(FILE *out, const Lesson *l, const RenderOpt *o)
{
    return render_check_fits(out, l, o, NULL);
}

int render_check_fits(FILE *out, const Lesson *l, const RenderOpt *o, NarrationFits fits)
{ return render_check_streams(out, stderr, l, o, fits); }

int render_check_streams(FILE *out, FILE *err, const Lesson *l, const RenderOpt *o, NarrationFits fits)
{
    if (l->model) /* a model lesson: its own walk (the session's model) */
        return check_model_lesson(out, err, l, o, fits);
    Session s;
    int total = 0, failed = 0, narration = 0, literals = 0, words = authoring_translations(out, file_shown(l), l, -1);
    if (!session_init(&s, l))
        return render_no_memory();
    narration += fits ? authoring_card(out, file_shown(l), &s, fits, o->lang) : 0;
    Attn base = {0};
    if (lesson_base(l, &base))
        literals += check_literals(err, l, &base, NULL, -1);
    attn_free(&base);
    session_goto(&s, 0);
    for (int k = 0; k < l->nsteps; k++) {
        session_goto(&s, k);
        const Step *st = session_step(&s);
        Attn script = {0}; /* the words are the script's: a saved lesson's edits make no literal */
        bool own = session_saved_edits(&s) && session_script_state(&s, &script);
        literals += check_literals(err, l, own ? &script : &s.cur, NULL, k);
        attn_free(&script);
        words += authoring_translations(out, file_shown(l), l, k);
        if (fits)
            narration += authoring_narration(out, file_shown(l), &s, k, fits, o->lang);
        for (int e = 0; e < st->nexpect; e++) {
            static char msg[EXPECT_MSG_MAX];
            total++;
            if (!expect_check(&st->expect[e], &s.cur, l->digits, msg, sizeof msg)) {
                failed++;
                fprintf(out, "%s:%d:%d: %s %d: %s\n", file_shown(l), st->expect[e].line, st->expect[e].col,
                        _("step"), k + 1, msg);
            }
        }
    }
    session_free(&s);
    fprintf(out, "%s: %d %s, %d %s", file_shown(l), total - failed, _("expectations hold"), failed, _("failed"));
    if (narration)
        fprintf(out, narration == 1 ? _("; %d narration too long for %dx%d") : _("; %d narrations too long for %dx%d"),
                narration, CHECK_COLS, CHECK_ROWS);
    if (words)
        fprintf(out, words == 1 ? _("; %d translation missing") : _("; %d translations missing"), words);
    fputc('\n', out);
    return literals ? 2 : failed || narration || words ? 1 : 0; /* a literal state number is a lesson error */
}
