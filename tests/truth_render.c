/* truth_render.c - every screen of every built-in lesson as text, for the
 * truth test (tests/truth.py reads it back; DESIGN.md "The truth test").
 *
 * For every embedded lesson, every step, each state below, en and zh, at
 * 100x30 and 80x24, it builds the frame plan with layout_plan() as the view
 * does and prints one record:
 *
 *   @@ REC lesson=L step=N/M lang=en size=100x30 state=S departed=0|1 heads=H digits=D stage=K
 *   APPLIED <action>            what was done to reach the state (or REFUSED <action>: why)
 *   ASKED <mat> <i> <j> <state> <digits> <v>...   every ask at this step (1-based, j=0: a row), %.17g
 *   WASASKED <mat> <i> <j> <ci> <cj> <v>   each asked cell in the state before the departure (what u
 *                               brings back), and the cell (ci, cj) its tokens hold now (a swap moves them)
 *   VAL <mat> <i> <j> <v>       every cell of every matrix computed at this step (every head)
 *   SCALAR <name> <v>           T, lr, loss, steps, d_k, d_v, d_model, n, heads
 *   RAWSAY <text>               the step's say: in this language, templates as written
 *   <KIND> <text>               the plan's text grouped by block kind (NOTICE, SAY, ARITH, TRAIN,
 *                               TRACE, STATUS, ASK, BARS, MATRICES, HEADER, RIBBON, KEYBAR), one
 *                               screen row per line
 *   CELL <mat> <i> <j> <text>   every matrix cell laid out, 1-based
 *   @@ END
 *
 * States (through the session's one path, session_act_text / session_set_head,
 * as the UI applies them): scripted; edit (Q[1] = K[1] * 5, head 1's Q with
 * heads); mask (the opposite of the state's); temp (T = 0.5); positions
 * (toggled); swap (1 3, or 1 2 with two tokens); head2 (head 2 shown, not a
 * departure); train (a target on A[1] and one step, where allowed); variant7
 * (random weights drawn with seed 7, as --variant 7); reopen (the edit, saved
 * with lesson_save, loaded again and opened at the same step); wrong (at a
 * step that asks, every ask answered wrong, as the view's answer field
 * does: the cells stay hidden, the status line has the grade, not a
 * departure); today's models: window (mask = window 2), offset (offset = 3),
 * rope (positions = rope where d_k is even), online (softmax = online,
 * block = 2; the stable softmax where it is online), append (a token "new"
 * with a row of 0.5s, where there are fewer than 64); the view's other
 * toggles: scale (s), softmax (m: stable <-> naive) and warmer (>: T
 * doubled; temp is <). At a step that asks, each state is recorded once
 * more (at 100x30) with its asks revealed: state=NAME-revealed.
 *
 * Usage: truth_render [LESSON-PREFIX]   (all built-in lessons by default) */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/grad.h"
#include "layout/layout.h"
#include "lesson/embedded.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "lesson/lesson.h"
#include "words/live.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "lesson/asking.h"
#include "lesson/lmodel.h"
#include "lesson/tplref.h"
#include "lesson/maction.h"

static const char keybar[] = " Space next  PgUp back  ←↑↓→ focus  e edit  : action  s scale  ? help  q quit";

typedef enum {
    ST_SCRIPTED, ST_EDIT, ST_MASK, ST_TEMP, ST_POSITIONS, ST_SWAP, ST_HEAD2, ST_TRAIN, ST_VARIANT, ST_REOPEN,
    ST_WRONG, ST_WINDOW, ST_OFFSET, ST_ROPE, ST_ONLINE, ST_APPEND, ST_SCALE, ST_SOFTMAX, ST_WARMER, ST_N
} StateKind;
static const char *state_name[ST_N] = {"scripted", "edit", "mask", "temp", "positions",
                                       "swap", "head2", "train", "variant7", "reopen", "wrong",
                                       "window", "offset", "rope", "online", "append", "scale", "softmax",
                                       "warmer"};

static const char *block_name[BLOCK_KINDS] = {
    [BLOCK_HEADER] = "HEADER", [BLOCK_RIBBON] = "RIBBON", [BLOCK_MATRICES] = "MATRICES", [BLOCK_BARS] = "BARS",
    [BLOCK_ARITH] = "ARITH",   [BLOCK_SAY] = "SAY",       [BLOCK_STATUS] = "STATUS",     [BLOCK_KEYBAR] = "KEYBAR",
    [BLOCK_TOO_SMALL] = "TOO_SMALL", [BLOCK_TRACE] = "TRACE", [BLOCK_NOTICE] = "NOTICE", [BLOCK_ASK] = "ASK",
    [BLOCK_TRAIN] = "TRAIN",
};

/* The View's focus, as view_focus_from_step keeps it. */
typedef struct {
    int fi, fj;
    bool frow;
    MatId fmat;
    bool effect;             /* the status line names the last change (effect_status, per language) */
    char msg[1024];
    Attn was;                /* the state before the departure (was.v NULL: none) */
    bool has_was;
} Focus2;

static void focus_step(Session *s, Focus2 *f)
{
    layout_focus_step(s, &f->fi, &f->fj, &f->frow, &f->fmat);
    layout_clamp_focus(s, &f->fi, &f->fj, f->fmat);
    f->msg[0] = '\0';
    f->effect = false;
}

/* Go to step n from the first, as a class does: next reveals an open question first. */
static void walk_to(Session *s, Focus2 *f, int n)
{
    focus_step(s, f);
    while (s->step < n && (session_ask_reveal(s), session_next(s)))
        focus_step(s, f);
}

/* Apply one action as the view's ':' prompt does; the status line names it. */
static bool act(Session *s, Focus2 *f, const char *text, char *applied, size_t len)
{
    char err[512];
    if (!session_act_text(s, text, err, sizeof err)) {
        size_t k = strlen(applied);
        snprintf(applied + k, len - k, "%sREFUSED %s: %s", k ? "; " : "", text, err);
        snprintf(f->msg, sizeof f->msg, "%s: %s", text, err);
        f->effect = false;
        return false;
    }
    size_t k = strlen(applied);
    snprintf(applied + k, len - k, "%s%s", k ? "; " : "APPLIED ", text);
    layout_clamp_focus(s, &f->fi, &f->fj, f->fmat);
    f->effect = true;
    return true;
}

/* ---- the record ------------------------------------------------------------ */

static void print_values(const Session *s)
{
    const Attn *a = &s->cur;
    for (int id = 0; id < M_COUNT; id++) {
        const Mat *m = &a->m[id];
        if (!m->v || m->rows <= 0)
            continue;
        MatId base = attn_mat_base((MatId)id);
        int head = attn_mat_head((MatId)id);
        if (head > attn_heads(a))
            continue;
        if (attn_mat_stage(base) > a->reached && !attn_mat_is_param((MatId)id))
            continue;
        if ((id == M_WO || id == M_Y) && !a->has_wo)
            continue;
        for (int i = 0; i < m->rows; i++)
            for (int j = 0; j < m->cols; j++)
                printf("VAL %s %d %d %.17g\n", attn_mat_name((MatId)id), i + 1, j + 1, m->v[i * m->cols + j]);
    }
    printf("SCALAR T %.17g\nSCALAR lr %.17g\n", a->temp, a->lr);
    if (a->ntarget > 0 && a->reached >= STAGE_SOFTMAX)
        printf("SCALAR loss %.17g\n", grad_loss(a));
    printf("SCALAR steps %d\n", a->ntarget > 0 ? a->nloss : 0);
    printf("SCALAR d_k %d\nSCALAR d_v %d\nSCALAR d_model %d\nSCALAR n %d\nSCALAR heads %d\n", attn_d_k(a),
           attn_d_v(a), attn_d_model(a), attn_tokens(a), attn_heads(a));
    for (int k = 0; k < a->ntarget; k++) {
        printf("TARGET %d %d", a->target[k].head + 1, a->target[k].row + 1);
        for (int j = 0; j < attn_tokens(a); j++)
            printf(" %.17g", a->target[k].t[j]);
        putchar('\n');
    }
}

/* The row of cur holding the token row r of was holds. */
static int now_row(const Attn *was, const Attn *cur, int r)
{
    for (int k = 0; k < MAT_MAX; k++)
        if (cur->tok[k] == was->tok[r])
            return k;
    return r;
}

/* Each asked cell as the state before the departure held it, and where its tokens are now. */
static void print_was_asked(const Session *s, const Attn *was)
{
    for (int k = 0; k < session_ask_count(s); k++) {
        const Ask *q = session_ask_at(s, k);
        const Mat *m = &was->m[q->mat];
        MatId base = attn_mat_base(q->mat);
        bool cols = base == M_QKT || base == M_S || base == M_A;
        if (!m->v || q->i >= m->rows)
            continue;
        for (int j = q->j < 0 ? 0 : q->j; j < (q->j < 0 ? m->cols : q->j + 1); j++)
            printf("WASASKED %s %d %d %d %d %.17g\n", attn_mat_name(q->mat), q->i + 1, j + 1,
                   now_row(was, &s->cur, q->i) + 1, (cols ? now_row(was, &s->cur, j) : j) + 1, MAT_AT(m, q->i, j));
    }
}

static void print_asks(const Session *s)
{
    static const char *sname[] = {"open", "right", "wrong", "revealed", "retried", "wrong-revealed"};
    for (int k = 0; k < session_ask_count(s); k++) {
        const Ask *q = session_ask_at(s, k);
        const Mat *m = &s->cur.m[q->mat];
        printf("ASKED %s %d %d %s %d", attn_mat_name(q->mat), q->i + 1, q->j + 1, sname[session_ask_state(s, k)],
               s->lesson->digits);
        for (int j = q->j < 0 ? 0 : q->j; j < (q->j < 0 ? m->cols : q->j + 1); j++)
            printf(" %.17g", m->v[q->i * m->cols + j]);
        putchar('\n');
    }
}

/* One line with newlines turned into spaces. */
static void print_flat(const char *tag, const char *t)
{
    printf("%s ", tag);
    for (; *t; t++)
        putchar(*t == '\n' || *t == '\r' ? ' ' : *t);
    putchar('\n');
}

typedef struct {
    int y, x, k;
} RunRef;

static int run_cmp(const void *pa, const void *pb)
{
    const RunRef *a = pa, *b = pb;
    return a->y != b->y ? a->y - b->y : a->x != b->x ? a->x - b->x : a->k - b->k;
}

/* The plan's runs grouped by the block they fall in, one screen row a line. */
static void print_plan(const Plan *p)
{
    RunRef *r = malloc(sizeof *r * (size_t)(p->nrun + 1));
    int *owner = malloc(sizeof *owner * (size_t)(p->nrun + 1));
    if (!r || !owner)
        abort();
    for (int k = 0; k < p->nrun; k++) {
        r[k] = (RunRef){p->run[k].y, p->run[k].x, k};
        owner[k] = -1;
        for (int b = 0; b < p->nblock; b++) {
            const PlanBlock *bl = &p->block[b];
            if (p->run[k].y >= bl->y && p->run[k].y < bl->y + bl->h && p->run[k].x >= bl->x &&
                p->run[k].x < bl->x + (bl->w > 0 ? bl->w : 1 << 20)) {
                owner[k] = b;
                break;
            }
        }
    }
    qsort(r, (size_t)p->nrun, sizeof *r, run_cmp);
    for (int b = -1; b < p->nblock; b++) {
        const char *tag = b < 0 ? "OTHER" : block_name[p->block[b].kind];
        for (int k = 0; k < p->nrun;) {
            int y = r[k].y, col = 0, any = 0;
            char line[4096];
            size_t n = 0;
            for (; k < p->nrun && r[k].y == y; k++) {
                const PlanRun *run = &p->run[r[k].k];
                if (owner[r[k].k] != b)
                    continue;
                if (!any)
                    col = run->x;
                any = 1;
                while (col < run->x && n < sizeof line - 1) {
                    line[n++] = ' ';
                    col++;
                }
                if (n + (size_t)run->len < sizeof line - 1) {
                    memcpy(line + n, plan_text(p, run->off), (size_t)run->len);
                    n += (size_t)run->len;
                }
                col += run->w;
            }
            line[n] = '\0';
            if (any && n > 0)
                printf("%s %s\n", tag, line);
        }
    }
    for (int c = 0; c < p->ncell; c++) {
        const PlanCell *cell = &p->cell[c];
        printf("CELL %s %d %d %.*s\n", attn_mat_name(cell->id), cell->i + 1, cell->j + 1, cell->len,
               plan_text(p, cell->off));
    }
    free(r);
    free(owner);
}

static void record(const char *lesson, Session *s, Focus2 *f, StateKind st, bool departed, const char *applied,
                   Lang lang, int cols, int rows)
{
    i18n_set(lang, "build/locale");
    if (f->effect) { /* as the view's say_change: the change and its effect on the focused result */
        int stage = session_stage(s);
        MatId m = stage == STAGE_QKV ? f->fmat : attn_stage_mat(stage);
        effect_status(s, EFFECT_ACT, NULL, m, f->fi, f->fj, false, f->msg, sizeof f->msg);
    }
    printf("@@ REC lesson=%s step=%d/%d lang=%s size=%dx%d state=%s%s departed=%d heads=%d head=%d digits=%d "
           "stage=%d\n",
           lesson, s->step + 1, session_steps(s), lang == LANG_ZH ? "zh" : "en", cols, rows, state_name[st],
           session_ask_count(s) > 0 && session_ask_open(s) < 0 && session_ask_retry(s) < 0 ? "-revealed" : "",
           departed, attn_heads(&s->cur), s->head, s->lesson->digits, session_stage(s));
    if (applied[0])
        printf("%s\n", applied);
    print_asks(s);
    if (f->has_was)
        print_was_asked(s, &f->was);
    print_values(s);
    print_flat("RAWSAY", text_get(&session_step(s)->say, lang));
    LayoutIn in = {.s = s, .lang = lang, .mode = LAYOUT_NORMAL, .fi = f->fi, .fj = f->fj, .frow = f->frow,
                   .fmat = f->fmat, .emat = M_Q, .msg = f->msg, .msg_role = ROLE_HINT, .keybar = keybar,
                   .cols = cols, .rows = rows};
    Plan p;
    plan_init(&p);
    layout_plan(&in, &p);
    print_plan(&p);
    plan_free(&p);
    printf("@@ END\n");
}

/* ---- the states --------------------------------------------------------------- */

static bool load_embedded(int k, Lesson *l)
{
    char err[LESSON_ERR_MAX];
    if (!lesson_load_buffer(embedded_lessons[k].name, embedded_lessons[k].data, embedded_lessons[k].len, l, err,
                            sizeof err)) {
        fprintf(stderr, "truth_render: %s\n", err);
        return false;
    }
    return true;
}

static const char *short_name(const char *name)
{
    const char *b = strrchr(name, '/');
    return b ? b + 1 : name;
}

static void edit_text(const Session *s, char *buf, size_t len)
{
    snprintf(buf, len, attn_heads(&s->cur) > 1 ? "Q1[1] = K1[1] * 5" : "Q[1] = K[1] * 5");
}

/* Do two states differ in anything a screen shows: a number of a matrix
 * computed, an option, a target, the steps taken? */
static bool states_differ(const Attn *a, const Attn *b)
{
    if (a->reached != b->reached || !attn_same_options(a, b) || a->ntarget != b->ntarget || a->nloss != b->nloss ||
        a->lr != b->lr)
        return true;
    for (int k = 0; k < a->ntarget; k++)
        if (memcmp(&a->target[k], &b->target[k], sizeof a->target[k]) != 0)
            return true;
    for (int i = 0; i < MAT_MAX; i++)
        if (a->tok[i] != b->tok[i])
            return true;
    for (int id = 0; id < M_COUNT; id++) {
        const Mat *x = &a->m[id], *y = &b->m[id];
        if (x->rows != y->rows || x->cols != y->cols)
            return true;
        if (x->v && y->v && memcmp(x->v, y->v, sizeof *x->v * (size_t)(x->rows * x->cols)) != 0)
            return true;
    }
    return false;
}

/* Build the state `st` at step n into s (from lesson l). Returns false
 * when the state does not exist for this lesson (printed as SKIP). */
static bool make_state(const Lesson *l, StateKind st, int n, Session *s, Focus2 *f, bool *departed, char *applied,
                       size_t alen)
{
    char text[512];
    applied[0] = '\0';
    *departed = st != ST_SCRIPTED && st != ST_HEAD2 && st != ST_WRONG;
    if (!session_init(s, l))
        abort();
    walk_to(s, f, n);
    const Attn *a = &s->cur;
    Attn script;
    memset(&script, 0, sizeof script);
    if (!attn_copy(&script, a) || !attn_copy(&f->was, a))
        abort();
    f->has_was = true;
    i18n_set(LANG_EN, "build/locale");
    switch (st) {
    case ST_SCRIPTED:
    case ST_VARIANT:
        break;
    case ST_EDIT:
        edit_text(s, text, sizeof text);
        act(s, f, text, applied, alen);
        break;
    case ST_MASK:
        act(s, f, a->mask == MASK_CAUSAL ? "mask = none" : "mask = causal", applied, alen);
        break;
    case ST_TEMP:
        act(s, f, a->temp == 0.5 ? "temperature = 2" : "temperature = 0.5", applied, alen);
        break;
    case ST_POSITIONS:
        act(s, f, a->positions == POS_SINUSOIDAL ? "positions = none" : "positions = sinusoidal", applied, alen);
        break;
    case ST_SWAP:
        act(s, f, attn_tokens(a) >= 3 ? "swap 1 3" : "swap 1 2", applied, alen);
        break;
    case ST_HEAD2: {
        if (attn_heads(a) < 2) {
            attn_free(&script);
            return false;
        }
        int h = session_set_head(s, 2);
        layout_clamp_focus(s, &f->fi, &f->fj, f->fmat);
        snprintf(applied, alen, "APPLIED head %d shown", h);
        snprintf(f->msg, sizeof f->msg, "head %d of %d", h, attn_heads(a));
        break;
    }
    case ST_TRAIN:
        if (act(s, f, attn_heads(a) > 1 && s->head > 1 ? "target A2[1] = 2" : "target A[1] = 2", applied, alen))
            act(s, f, "step", applied, alen); /* a refusal is printed; the target stays */
        break;
    case ST_WRONG: { /* each ask answered wrong: 99 for every cell asked (no ask's value) */
        if (session_ask_count(s) == 0) {
            attn_free(&script);
            return false;
        }
        for (int k = 0; k < session_ask_count(s); k++) {
            char answer[256] = "";
            for (int c = 0; c < ask_cells(session_ask_at(s, k), &s->cur); c++)
                snprintf(answer + strlen(answer), sizeof answer - strlen(answer), "%s99", c ? " " : "");
            if (session_ask_answer(s, answer, false, f->msg, sizeof f->msg) != GRADE_WRONG)
                abort();
            snprintf(applied + strlen(applied), alen - strlen(applied), "%s%s", k ? "; " : "APPLIED answer ",
                     answer);
        }
        break;
    }
    case ST_WINDOW:
        act(s, f, a->mask == MASK_WINDOW && a->window == 2 ? "mask = causal" : "mask = window 2", applied, alen);
        break;
    case ST_OFFSET:
        act(s, f, a->offset == 3 ? "offset = 0" : "offset = 3", applied, alen);
        break;
    case ST_ROPE:
        if (attn_d_k(a) % 2 != 0) {
            attn_free(&script);
            return false;
        }
        act(s, f, a->positions == POS_ROPE ? "positions = none" : "positions = rope", applied, alen);
        break;
    case ST_ONLINE:
        if (a->softmax == SOFTMAX_ONLINE)
            act(s, f, "softmax = stable", applied, alen);
        else if (act(s, f, "softmax = online", applied, alen))
            act(s, f, "block = 2", applied, alen);
        break;
    case ST_APPEND: {
        if (attn_tokens(a) >= MAT_MAX) {
            attn_free(&script);
            return false;
        }
        snprintf(text, sizeof text, "append new [");
        for (int c = 0; c < attn_d_model(a); c++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s0.5", c ? ", " : "");
        snprintf(text + strlen(text), sizeof text - strlen(text), "]");
        act(s, f, text, applied, alen);
        break;
    }
    case ST_SCALE:
        act(s, f, a->scale == SCALE_NONE ? "scale = sqrt_dk" : "scale = none", applied, alen);
        break;
    case ST_SOFTMAX:
        act(s, f, a->softmax == SOFTMAX_NAIVE ? "softmax = stable" : "softmax = naive", applied, alen);
        break;
    case ST_WARMER: /* as > does: T doubled */
        snprintf(text, sizeof text, "temperature = %.17g", a->temp * 2 <= ATTN_TEMP_MAX ? a->temp * 2 : a->temp / 2);
        act(s, f, text, applied, alen);
        break;
    case ST_REOPEN:
    default:
        break;
    }
    /* Departed by construction: something the script did not do changed the
     * state (an action that repeats what the script did changes nothing). */
    if (*departed && st != ST_VARIANT && !states_differ(&script, &s->cur)) {
        *departed = false;
        size_t k = strlen(applied);
        snprintf(applied + k, alen - k, " (no change: the script's own state)");
    }
    attn_free(&script);
    return st != ST_REOPEN;
}

/* Save after the edit, load the file, open it at the same step. */
static bool make_reopen(const Lesson *l, int n, Lesson *l2, Session *s, Focus2 *f, bool *departed, char *applied,
                        size_t alen, const char *path)
{
    Session s0;
    Focus2 f0 = {.fmat = M_Q};
    char text[128], err[LESSON_ERR_MAX];
    if (!make_state(l, ST_EDIT, n, &s0, &f0, departed, applied, alen)) {
        session_free(&s0);
        attn_free(&f0.was);
        return false;
    }
    edit_text(&s0, text, sizeof text);
    bool ok = lesson_save(&s0, path, err, sizeof err);
    session_free(&s0);
    attn_free(&f0.was);
    if (!ok) {
        snprintf(applied, alen, "REFUSED save: %s", err);
        return false;
    }
    if (!lesson_load_file(path, l2, err, sizeof err)) {
        snprintf(applied, alen, "REFUSED reopen: %s", err);
        return false;
    }
    if (!session_init(s, l2))
        abort();
    session_open_at(s, l2->start > 0 ? l2->start - 1 : n);
    focus_step(s, f);
    snprintf(applied, alen, "APPLIED %s; save; reopen at step %d", text, s->step + 1);
    /* departed as make_state found it: an edit the script already made saves nothing new */
    return true;
}

/* ---- model lessons ------------------------------------------------------------
 * A model lesson's states: scripted; tokens (the student's own input: the
 * lesson's tokens in reverse, one more appended where ctx allows); ablate
 * (L1.H1's output 0); layer (another layer shown: not a departure); wrong
 * (every ask answered 99). The values are printed by the model's names
 * (VAL L1.A 4 2 ..., VAL p 4 3 ...), and the layer shown's attention
 * matrices also by their one-layer names (VAL A 4 2 ...), as its cells and
 * arithmetic name them. */
typedef enum { MS_SCRIPTED, MS_TOKENS, MS_ABLATE, MS_LAYER, MS_WRONG, MS_N } MStateKind;
static const char *mstate_name[MS_N] = {"scripted", "tokens", "ablate", "layer", "wrong"};

/* Every matrix of m computed at its cursor, by name (and, for the layer
 * shown, its Attn's by their one-layer names). */
static void print_model_mats(const Model *m, int shown)
{
    ModelRef all[MODEL_PARAMS_MAX + 3 + MODEL_LAYERS_MAX * (8 + 9 * (ATTN_HEADS_MAX + 1))];
    int n = model_params(m, all, MODEL_PARAMS_MAX);
    static const ModelMatKind top[] = {MM_H_FINAL, MM_LOGITS, MM_PROBS}, own[] = {MM_H_IN, MM_A, MM_H_MID, MM_B,
                                                                                   MM_U, MM_F, MM_H};
    for (size_t t = 0; t < 3; t++)
        all[n++] = (ModelRef){top[t], 0, M_X};
    for (int l = 1; l <= m->cfg.layers; l++) {
        for (size_t t = 0; t < sizeof own / sizeof *own; t++)
            all[n++] = (ModelRef){own[t], l, M_X};
        all[n++] = (ModelRef){MM_ATTN, l, M_Y};
        for (int h = 0; h <= (m->cfg.heads > 1 ? m->cfg.heads : 0); h++)
            for (MatId b = M_Q; b <= M_O; b = (MatId)(b + 1))
                all[n++] = (ModelRef){MM_ATTN, l, h ? attn_head_id(b, h) : b};
    }
    for (int k = 0; k < n; k++) {
        const Mat *x = model_mat(m, all[k]);
        if (!x || x->rows <= 0 || !tpl_model_computed(all[k].layer, model_ref_stage(m, all[k]), m->at_layer,
                                                      m->at_stage < 1 ? 0 : m->at_stage))
            continue;
        char name[48];
        model_ref_name(m, all[k], name, sizeof name);
        for (int i = 0; i < x->rows; i++)
            for (int j = 0; j < x->cols; j++) {
                printf("VAL %s %d %d %.17g\n", name, i + 1, j + 1, MAT_AT(x, i, j));
                if (all[k].kind == MM_ATTN && all[k].layer == shown)
                    printf("VAL %s %d %d %.17g\n", attn_mat_name(all[k].attn), i + 1, j + 1, MAT_AT(x, i, j));
            }
    }
}

static void print_model_scalars(const Model *m)
{
    const ModelCfg *c = &m->cfg;
    printf("SCALAR n %d\nSCALAR d_model %d\nSCALAR heads %d\nSCALAR d_k %d\nSCALAR d_v %d\nSCALAR layers %d\n"
           "SCALAR vocab %d\nSCALAR d_ff %d\nSCALAR ctx %d\nSCALAR T %.17g\nSCALAR T_s %.17g\n", m->n, c->d_model,
           c->heads, model_d_k(c), model_d_v(c), c->layers, c->vocab, c->d_ff, c->ctx, c->attn[0].temp,
           c->sample_temp);
    if (model_reached(m, c->layers, MSTAGE_NEXT)) {
        int t = model_predict(m), g = model_greedy(m);
        printf("SCALAR p_next %.17g\nSCALAR logit_next %.17g\nSCALAR p_greedy %.17g\n", MAT_AT(&m->p, m->n - 1, t),
               MAT_AT(&m->logits, m->n - 1, t), MAT_AT(&m->p, m->n - 1, g));
    }
    for (int l = 1; l <= c->layers; l++)
        for (int h = 1; h <= c->heads && tpl_model_computed(l, MSTAGE_SOFTMAX, m->at_layer, m->at_stage); h++) {
            double v;
            if (model_prev_score(m, l, h, &v))
                printf("SCALAR L%d.H%d.prev %.17g\n", l, h, v);
            if (model_induction_score(m, l, h, &v))
                printf("SCALAR L%d.H%d.induction %.17g\n", l, h, v);
        }
}

static void print_model_asks(const Session *s)
{
    static const char *sname[] = {"open", "right", "wrong", "revealed", "retried", "wrong-revealed"};
    const Model *m = session_model(s);
    for (int k = 0; k < session_ask_count(s); k++) {
        const Ask *q = session_ask_at(s, k);
        const Mat *x = model_mat(m, q->mref);
        char name[48];
        model_ref_name(m, q->mref, name, sizeof name);
        printf("ASKED %s %d %d %s %d", name, q->i + 1, q->j + 1, sname[session_ask_state(s, k)], s->lesson->digits);
        for (int j = q->j < 0 ? 0 : q->j; x && j < (q->j < 0 ? x->cols : q->j + 1); j++)
            printf(" %.17g", MAT_AT(x, q->i, j));
        putchar('\n');
    }
}

static void mrecord(const char *lesson, Session *s, Focus2 *f, MStateKind st, bool departed, const char *applied,
                    Lang lang, int cols, int rows)
{
    i18n_set(lang, "build/locale");
    const Model *m = session_model(s);
    printf("@@ REC lesson=%s step=%d/%d lang=%s size=%dx%d state=%s%s departed=%d heads=%d head=%d digits=%d "
           "stage=%d layer=%d\n",
           lesson, s->step + 1, session_steps(s), lang == LANG_ZH ? "zh" : "en", cols, rows, mstate_name[st],
           session_ask_count(s) > 0 && session_ask_open(s) < 0 && session_ask_retry(s) < 0 ? "-revealed" : "",
           departed, m->cfg.heads, s->head, s->lesson->digits, session_stage(s), session_layer(s));
    if (applied[0])
        printf("%s\n", applied);
    print_model_asks(s);
    print_model_mats(m, session_layer(s));
    print_model_scalars(m);
    /* the say: and the question: (the ASK line quotes its templates too) */
    char raw[8192];
    snprintf(raw, sizeof raw, "%s %s", text_get(&session_step(s)->say, lang), text_get(&session_step(s)->question, lang));
    print_flat("RAWSAY", raw);
    LayoutIn in = {.s = s, .lang = lang, .mode = LAYOUT_NORMAL, .fi = f->fi, .fj = f->fj, .frow = f->frow,
                   .fmat = f->fmat, .emat = M_Q, .msg = f->msg, .msg_role = ROLE_HINT, .keybar = keybar,
                   .cols = cols, .rows = rows};
    Plan p;
    plan_init(&p);
    layout_plan(&in, &p);
    print_plan(&p);
    plan_free(&p);
    printf("@@ END\n");
}

/* Build model state st at step n; false when it does not exist here. */
static bool make_mstate(const Lesson *l, MStateKind st, int n, Session *s, Focus2 *f, bool *departed, char *applied,
                        size_t alen)
{
    char text[1024];
    applied[0] = '\0';
    *departed = st == MS_TOKENS || st == MS_ABLATE;
    if (!session_init(s, l))
        abort();
    walk_to(s, f, n);
    const Model *m = session_model(s);
    i18n_set(LANG_EN, "build/locale");
    switch (st) {
    case MS_TOKENS: { /* the lesson's tokens reversed, one more where ctx allows */
        int cnt = m->n + (m->n < maction_max_tokens(m) ? 1 : 0);
        snprintf(text, sizeof text, "tokens =");
        for (int k = 0; k < cnt; k++)
            snprintf(text + strlen(text), sizeof text - strlen(text), " %s",
                     l->model->vocab[m->tok[(m->n - 1 - k % m->n + m->n) % m->n]]);
        act(s, f, text, applied, alen);
        break;
    }
    case MS_ABLATE:
        act(s, f, m->layer[0].ablate & 1u ? "restore L1.H1" : "ablate L1.H1", applied, alen);
        break;
    case MS_LAYER: {
        if (m->cfg.layers < 2)
            return false;
        int shown = session_set_layer(s, session_layer(s) % m->cfg.layers + 1);
        snprintf(applied, alen, "APPLIED layer %d shown", shown);
        break;
    }
    case MS_WRONG:
        if (session_ask_count(s) == 0)
            return false;
        for (int k = 0; k < session_ask_count(s); k++) {
            char answer[512] = "";
            for (int c = 0; c < session_ask_cells(s, session_ask_at(s, k)); c++)
                snprintf(answer + strlen(answer), sizeof answer - strlen(answer), "%s99", c ? " " : "");
            if (session_ask_answer(s, answer, false, f->msg, sizeof f->msg) != GRADE_WRONG)
                abort();
            snprintf(applied + strlen(applied), alen - strlen(applied), "%s%s", k ? "; " : "APPLIED answer ", answer);
        }
        break;
    default:
        break;
    }
    return true;
}

/* Every state of a model lesson, every step, both languages, both sizes. */
static void model_lesson(const char *name, const Lesson *l)
{
    static const int sizes[][2] = {{100, 30}, {80, 24}};
    for (int st = 0; st < MS_N; st++)
        for (int n = 0; n < l->nsteps; n++) {
            Session s;
            Focus2 f = {.fmat = M_Q};
            bool departed = false;
            char applied[2048];
            if (!make_mstate(l, (MStateKind)st, n, &s, &f, &departed, applied, sizeof applied)) {
                printf("@@ SKIP lesson=%s step=%d state=%s: not for this lesson\n", name, n + 1, mstate_name[st]);
                session_free(&s);
                continue;
            }
            for (int lang = 0; lang < LANG_COUNT; lang++)
                for (int z = 0; z < 2; z++)
                    mrecord(name, &s, &f, (MStateKind)st, departed, applied, (Lang)lang, sizes[z][0], sizes[z][1]);
            if (session_ask_count(&s) > 0 && st != MS_WRONG && session_ask_reveal(&s) > 0)
                for (int lang = 0; lang < LANG_COUNT; lang++)
                    mrecord(name, &s, &f, (MStateKind)st, departed, applied, (Lang)lang, sizes[0][0], sizes[0][1]);
            session_free(&s);
        }
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "C.UTF-8");
    static const int sizes[][2] = {{100, 30}, {80, 24}};
    char path[] = "/tmp/qkvtutor-truth-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 2;
    close(fd);
    char savepath[64];
    snprintf(savepath, sizeof savepath, "%s.yaml", path);
    for (int k = 0; k < embedded_count; k++) {
        const char *name = short_name(embedded_lessons[k].name);
        if (argc > 1 && strncmp(name, argv[1], strlen(argv[1])) != 0)
            continue;
        Lesson l;
        if (!load_embedded(k, &l))
            return 2;
        if (l.model) { /* a model lesson: its own states */
            model_lesson(name, &l);
            lesson_free(&l);
            continue;
        }
        for (int st = 0; st < ST_N; st++) {
            Lesson lv, l2;
            const Lesson *use = &l;
            bool have_lv = false;
            if (st == ST_VARIANT) {
                if (!l.random) {
                    printf("@@ SKIP lesson=%s state=%s: written-out weights, no --variant\n", name, state_name[st]);
                    continue;
                }
                if (!load_embedded(k, &lv) || !lesson_reseed(&lv, 7))
                    return 2;
                have_lv = true;
                use = &lv;
            }
            for (int n = 0; n < l.nsteps; n++) {
                Session s;
                Focus2 f = {.fmat = M_Q};
                bool departed = false, reopened = false;
                char applied[2048];
                if (st == ST_REOPEN) {
                    reopened = make_reopen(&l, n, &l2, &s, &f, &departed, applied, sizeof applied, savepath);
                    if (!reopened) {
                        printf("@@ SKIP lesson=%s step=%d state=%s: %s\n", name, n + 1, state_name[st], applied);
                        continue;
                    }
                } else if (!make_state(use, (StateKind)st, n, &s, &f, &departed, applied, sizeof applied)) {
                    printf("@@ SKIP lesson=%s step=%d state=%s: not for this lesson\n", name, n + 1,
                           state_name[st]);
                    session_free(&s);
                    attn_free(&f.was);
                    continue;
                }
                if (st == ST_VARIANT)
                    departed = lv.seed != l.seed;
                for (int lang = 0; lang < LANG_COUNT; lang++)
                    for (int z = 0; z < 2; z++)
                        record(name, &s, &f, (StateKind)st, departed, applied, (Lang)lang, sizes[z][0],
                               sizes[z][1]);
                /* a step that asks: once more with its asks revealed, the narration's answer shown
                 * (state "…-revealed"), so its sentences are checked in this state too */
                if (session_ask_count(&s) > 0 && st != ST_WRONG && session_ask_reveal(&s) > 0)
                    for (int lang = 0; lang < LANG_COUNT; lang++)
                        record(name, &s, &f, (StateKind)st, departed, applied, (Lang)lang, sizes[0][0],
                               sizes[0][1]);
                session_free(&s);
                attn_free(&f.was);
                if (reopened)
                    lesson_free(&l2);
            }
            if (have_lv)
                lesson_free(&lv);
        }
        lesson_free(&l);
    }
    unlink(path);
    unlink(savepath);
    return 0;
}
