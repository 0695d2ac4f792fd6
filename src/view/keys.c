/* keys.c - one table binds keys to requests; it also writes the help screen.
 *
 * REQUESTS lists what the user can ask for, with its help text and handler;
 * BINDINGS lists the keys for each request, with the label help shows (NULL
 * for a silent alias). The current mode's handler runs first (prompt, edit,
 * help, confirm); keys it does not take fall back to the normal table.
 * Handlers change the View and return FLAG_* for the loop. Numbers change
 * only through session_act_text(): the action language. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/grad.h"
#include "../lesson/fmt.h"
#include "../lesson/live.h"
#include "../lesson/i18n.h"
#include "../lesson/live.h"
#include "../lesson/save.h"
#include <sys/stat.h>
#include "view_int.h"

#define CTRL(c) ((c) & 0x1f)
#define KEY_ESC 27

typedef int (*Handler)(View *v, wint_t ch);

#define REQUESTS(X) \
    X(REQ_NEXT,    N_("next step"),                         N_("next"),    req_next)    \
    X(REQ_PREV,    N_("previous step"),                     N_("back"),    req_prev)    \
    X(REQ_FIRST,   N_("first / last step"),                 NULL,      req_first)   \
    X(REQ_LAST,    NULL,                                    NULL,      req_last)    \
    X(REQ_STAGE,   N_("jump to that stage"),                NULL,      req_stage)   \
    X(REQ_UP,      N_("focus query row i"),                 NULL,      req_up)      \
    X(REQ_DOWN,    NULL,                                    NULL,      req_down)    \
    X(REQ_LEFT,    N_("focus key column j"),                NULL,      req_left)    \
    X(REQ_RIGHT,   NULL,                                    N_("focus"), req_right) \
    X(REQ_EDIT,    N_("edit mode on the focused row of Q"), N_("edit"),    req_edit)    \
    X(REQ_PROMPT,  N_("action prompt, e.g. Q[1] = K[1] * 5"), N_("action"), req_prompt) \
    X(REQ_SCALE,   N_("toggle scaling: none / divide by sqrt(d_k)"), N_("scale"), req_scale) \
    X(REQ_SOFTMAX, N_("toggle softmax: naive / stable"),    N_("softmax"), req_softmax) \
    X(REQ_MASK,    N_("causal mask; temperature / 2, x 2; positions"), NULL, req_mask) \
    X(REQ_COOLER,  NULL,                                    NULL,      req_cooler)  \
    X(REQ_WARMER,  NULL,                                    NULL,      req_warmer)  \
    X(REQ_POS,     NULL,                                    NULL,      req_pos)     \
    X(REQ_UNDO,    N_("undo / redo / reset to the lesson as written"), N_("undo"), req_undo) \
    X(REQ_REDO,    NULL,                                    NULL,      req_redo)    \
    X(REQ_RESET,   NULL,                                    NULL,      req_reset)   \
    X(REQ_SAVE,    N_("save the current state as a new lesson"), N_("save"), req_save)  \
    X(REQ_ANSWER,  N_("answer a question (ask:); Enter grades it"), NULL, req_answer) \
    X(REQ_LANG,    N_("language (中文 / En); theme; presentation"), N_("中/En"), req_lang) \
    X(REQ_THEME,   NULL,                                    NULL,      req_theme)   \
    X(REQ_PRESENT, NULL,                                    NULL,      req_present) \
    X(REQ_HEAD_PREV, N_("previous / next head (lessons with 2+ heads)"), NULL, req_head_prev) \
    X(REQ_HEAD_NEXT, NULL,                                  NULL,      req_head_next) \
    X(REQ_TARGET,  N_("training: target A's cell / one step / ten"), NULL, req_target) \
    X(REQ_STEP,    NULL,                                    N_("learn"), req_step)    \
    X(REQ_STEP10,  NULL,                                    NULL,      req_step10)  \
    X(REQ_HELP,    N_("this help"),                         N_("help"),    req_help)    \
    X(REQ_QUIT,    N_("quit"),                              N_("quit"),    req_quit)

typedef enum {
#define REQ_ENUM(id, help, bar, fn) id,
    REQUESTS(REQ_ENUM)
#undef REQ_ENUM
    REQ_COUNT
} Request;

/* key, is a KEY_ code, label in help (NULL: silent alias), request.
 * A request whose help is NULL shares the line of the one before it. */
#define BINDINGS(X) \
    X(' ', 0, "Space", REQ_NEXT)      X('\r', 0, "Enter", REQ_NEXT)   X('\n', 0, NULL, REQ_NEXT) \
    X(KEY_ENTER, 1, NULL, REQ_NEXT)   X(KEY_NPAGE, 1, "PgDn", REQ_NEXT) X('n', 0, "n", REQ_NEXT) \
    X(KEY_BACKSPACE, 1, "Backspace", REQ_PREV) X(127, 0, NULL, REQ_PREV) X(8, 0, NULL, REQ_PREV) \
    X(KEY_PPAGE, 1, "PgUp", REQ_PREV) X('p', 0, "p", REQ_PREV)        X('b', 0, "b", REQ_PREV) \
    X(KEY_HOME, 1, "Home", REQ_FIRST) X(KEY_END, 1, "End", REQ_LAST) \
    X('1', 0, "1-6", REQ_STAGE) X('2', 0, NULL, REQ_STAGE) X('3', 0, NULL, REQ_STAGE) \
    X('4', 0, NULL, REQ_STAGE)  X('5', 0, NULL, REQ_STAGE) X('6', 0, NULL, REQ_STAGE) \
    X(KEY_UP, 1, "Up", REQ_UP)        X('k', 0, "k", REQ_UP) \
    X(KEY_DOWN, 1, "Down", REQ_DOWN)  X('j', 0, "j", REQ_DOWN) \
    X(KEY_LEFT, 1, "Left", REQ_LEFT)  X('h', 0, "h", REQ_LEFT) \
    X(KEY_RIGHT, 1, "Right", REQ_RIGHT) X('l', 0, "l", REQ_RIGHT) \
    X('e', 0, "e", REQ_EDIT)          X(':', 0, ":", REQ_PROMPT) \
    X('s', 0, "s", REQ_SCALE)         X('m', 0, "m", REQ_SOFTMAX) \
    X('c', 0, "c", REQ_MASK)          X('<', 0, "<", REQ_COOLER)     X('>', 0, ">", REQ_WARMER) \
    X('o', 0, "o", REQ_POS) \
    X('u', 0, "u", REQ_UNDO)          X(CTRL('r'), 0, "Ctrl-R", REQ_REDO) X('r', 0, "r", REQ_RESET) \
    X('w', 0, "w", REQ_SAVE)          X('-', 0, "0-9, -", REQ_ANSWER) X('L', 0, "L", REQ_LANG) \
    X('t', 0, "t", REQ_THEME)         X('P', 0, "P", REQ_PRESENT) \
    X('[', 0, "[", REQ_HEAD_PREV)     X(']', 0, "]", REQ_HEAD_NEXT) \
    X('T', 0, "T", REQ_TARGET)        X('g', 0, "g", REQ_STEP)        X('G', 0, "G", REQ_STEP10) \
    X('?', 0, "?", REQ_HELP)          X('q', 0, "q", REQ_QUIT)        X(CTRL('c'), 0, "Ctrl-C", REQ_QUIT)

static const struct {
    int key;
    bool code;
    const char *label;
    Request req;
} bindings[] = {
#define BIND_ROW(k, c, label, req) {k, c, label, req},
    BINDINGS(BIND_ROW)
#undef BIND_ROW
};

#define NBIND (sizeof bindings / sizeof *bindings)

/* ---- helpers ------------------------------------------------------------------ */

static void say_msg(View *v, Role r, const char *msg)
{
    snprintf(v->msg, sizeof v->msg, "%s", msg);
    v->msg_role = r;
}

/* Name the change the session just made on the status line, with its
 * effect on the focused result (effect_status: one place for every
 * change's status), as `label` when not NULL. */
static void say_change(View *v, EffectWhat what, const char *label)
{
    char msg[sizeof v->msg];
    MatId m;
    int i, j;
    view_clamp_focus(v);
    view_explained(v, &m, &i, &j);
    effect_status(&v->s, what, label, m, i, j, v->ascii, msg, sizeof msg);
    say_msg(v, ROLE_HINT, msg);
}

/* Apply one action through the session, the only way numbers change, and
 * name it on the status line (or say why it was refused). */
static int act(View *v, const char *text)
{
    char err[256], msg[512];
    if (!session_act_text(&v->s, text, err, sizeof err)) {
        snprintf(msg, sizeof msg, "%s: %s", text, err);
        say_msg(v, ROLE_ERROR, msg);
    } else {
        say_change(v, EFFECT_ACT, NULL);
    }
    return FLAG_REDRAW;
}

static void moved(View *v)
{
    view_focus_from_step(v);
    v->msg[0] = '\0';
}

/* ---- normal-mode requests -------------------------------------------------------- */

static void reveal(View *v);

static int req_next(View *v, wint_t ch)
{
    if (session_ask_open(&v->s) >= 0 || session_ask_retry(&v->s) >= 0) {
        reveal(v); /* an open question (or one answered wrong): next reveals it, and stays */
        return FLAG_REDRAW;
    }
    if (!session_next(&v->s))
        say_msg(v, ROLE_HINT, _("This is the last step. Home goes back to the first."));
    else
        moved(v);
    return FLAG_REDRAW;
}

static int req_prev(View *v, wint_t ch)
{
    if (v->s.step == 0 && lesson_has_about(v->lesson)) {
        v->card = true; /* before step 1: the title card */
        say_msg(v, ROLE_HINT, _("Press any key to begin with step 1."));
    } else if (!session_prev(&v->s))
        say_msg(v, ROLE_HINT, _("This is the first step."));
    else
        moved(v);
    return FLAG_REDRAW;
}

static int req_first(View *v, wint_t ch)
{
    if (v->s.step == 0 && lesson_has_about(v->lesson)) {
        v->card = true; /* Home at step 1: the title card */
        say_msg(v, ROLE_HINT, _("Press any key to begin with step 1."));
    } else if (session_goto(&v->s, 0))
        moved(v);
    return FLAG_REDRAW;
}

static int req_last(View *v, wint_t ch)
{
    if (session_goto(&v->s, session_steps(&v->s) - 1))
        moved(v);
    return FLAG_REDRAW;
}

/* The stages the lesson's steps show, "1, 2, 4, 5" ("1、2、4、5" in zh). */
static void stages_shown(const View *v, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = STAGE_INPUT; k <= STAGE_MAX; k++)
        if (session_has_stage(&v->s, k))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", buf[0] ? (v->lang == LANG_ZH ? "、" : ", ") : "", k);
}

static int req_stage(View *v, wint_t ch)
{
    int stage = (int)ch - '0';
    char list[64], msg[256];
    if (session_goto_stage(&v->s, stage)) {
        moved(v);
    } else if (!session_has_stage(&v->s, stage)) { /* stay, and say why */
        stages_shown(v, list, sizeof list);
        snprintf(msg, sizeof msg, _("This lesson has no step at stage %d; its steps show stages %s."), stage, list);
        say_msg(v, ROLE_HINT, msg);
    }
    return FLAG_REDRAW;
}

/* [ and ]: look at the previous / next head; stages 3-5 show it. */
static int head_by(View *v, int d)
{
    char msg[256];
    int heads = attn_heads(&v->s.cur);
    if (heads < 2) {
        say_msg(v, ROLE_HINT, _("This lesson has one head; [ and ] switch heads in lessons with heads: 2 or more."));
        return FLAG_REDRAW;
    }
    int h = session_set_head(&v->s, v->s.head + d), st = session_stage(&v->s);
    view_clamp_focus(v);
    if (st >= STAGE_SCORES && st <= STAGE_OUTPUT)
        snprintf(msg, sizeof msg, _("head %d of %d: its own columns of Q, K and V, its own S, A and O"), h, heads);
    else
        snprintf(msg, sizeof msg, _("head %d of %d: stages 3 to 5 show it"), h, heads);
    say_msg(v, ROLE_HINT, msg);
    return FLAG_REDRAW;
}

static int req_head_prev(View *v, wint_t ch) { return head_by(v, -1); }
static int req_head_next(View *v, wint_t ch) { return head_by(v, 1); }

/* Move the focus by (di, dj), kept inside the stage's matrices. */
static int focus_by(View *v, int di, int dj)
{
    v->fi += di;
    v->fj += dj;
    view_clamp_focus(v);
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

static int req_up(View *v, wint_t ch)    { return focus_by(v, -1, 0); }
static int req_down(View *v, wint_t ch)  { return focus_by(v, 1, 0); }
/* Left and right pick a cell of a focused row. */
static int req_left(View *v, wint_t ch)  { v->frow = false; return focus_by(v, 0, -1); }
static int req_right(View *v, wint_t ch) { v->frow = false; return focus_by(v, 0, 1); }

/* Say which matrix edit mode is on. */
static void say_edit_mat(View *v)
{
    char msg[256];
    snprintf(msg, sizeof msg, _("Edit mode on %s: every change is an action, so u undoes it."),
             attn_mat_name(v->emat));
    say_msg(v, ROLE_HINT, msg);
}

/* Edit mode works on Q, K and V, so it needs them computed: before the
 * script reaches them it stays closed (never revealing them ahead of the
 * script) and says where they come, and how to change X meanwhile. */
static int req_edit(View *v, wint_t ch)
{
    char msg[256];
    if (session_stage(&v->s) < STAGE_QKV) {
        int k = session_step_reaching(&v->s, STAGE_QKV);
        if (k >= 0)
            snprintf(msg, sizeof msg, _("Edit mode needs Q, K, V, computed at step %d. To change X here: :X[1][1] = 2"),
                     k + 1);
        else
            snprintf(msg, sizeof msg, "%s", _("This lesson never computes Q, K, V. To change X here: :X[1][1] = 2"));
        say_msg(v, ROLE_HINT, msg);
        return FLAG_REDRAW;
    }
    v->mode = MODE_EDIT;
    v->emat = M_Q;
    v->ei = v->fi < v->s.cur.m[M_Q].rows ? v->fi : 0;
    v->ej = 0;
    v->editing = false;
    v->field.len = v->field.pos = 0;
    v->field.buf[0] = '\0';
    say_edit_mat(v);
    return FLAG_REDRAW;
}

static int req_prompt(View *v, wint_t ch)
{
    v->mode = MODE_PROMPT;
    v->field.len = v->field.pos = 0;
    v->field.buf[0] = '\0';
    v->hpos = v->nhist;
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

static int req_scale(View *v, wint_t ch)
{
    return act(v, v->s.cur.scale == SCALE_NONE ? "scale = sqrt_dk" : "scale = none");
}

static int req_softmax(View *v, wint_t ch)
{
    return act(v, v->s.cur.softmax == SOFTMAX_NAIVE ? "softmax = stable" : "softmax = naive");
}

/* Apply a toggle's action and name it with its effect. */
static int toggle(View *v, const char *text, const char *what)
{
    char err[256], msg[512];
    if (!session_act_text(&v->s, text, err, sizeof err)) {
        snprintf(msg, sizeof msg, "%s: %s", text, err);
        say_msg(v, ROLE_ERROR, msg);
        return FLAG_REDRAW;
    }
    say_change(v, EFFECT_ACT, what);
    return FLAG_REDRAW;
}

static int req_mask(View *v, wint_t ch)
{
    bool on = v->s.cur.mask == MASK_NONE;
    return toggle(v, on ? "mask = causal" : "mask = none",
                  on ? _("causal mask on: each token sees only itself and earlier tokens") : _("causal mask off"));
}

/* Temperature halved or doubled, within ATTN_TEMP_MIN..ATTN_TEMP_MAX. */
static int temp_by(View *v, double f)
{
    char text[64], what[128], t[40];
    double next = v->s.cur.temp * f;
    if (next < ATTN_TEMP_MIN - 1e-12 || next > ATTN_TEMP_MAX + 1e-12) {
        snprintf(what, sizeof what, _("The temperature stays within 0.05 to 20; it is %s."),
                 fmt_exact(v->s.cur.temp, t, sizeof t));
        say_msg(v, ROLE_HINT, what);
        return FLAG_REDRAW;
    }
    fmt_exact(next, t, sizeof t);
    snprintf(text, sizeof text, "temperature = %s", t);
    snprintf(what, sizeof what, "%s T = %s", _("temperature"), t);
    return toggle(v, text, what);
}

static int req_cooler(View *v, wint_t ch) { return temp_by(v, 0.5); }
static int req_warmer(View *v, wint_t ch) { return temp_by(v, 2.0); }

static int req_pos(View *v, wint_t ch)
{
    bool on = v->s.cur.positions == POS_NONE;
    return toggle(v, on ? "positions = sinusoidal" : "positions = none",
                  on ? _("sinusoidal positions on: H = X + P") : _("positions off: H = X"));
}

static int req_undo(View *v, wint_t ch)
{
    if (session_undoable(&v->s) && session_undo(&v->s))
        say_change(v, EFFECT_UNDO, NULL);
    else
        say_msg(v, ROLE_HINT, _("Nothing to undo."));
    return FLAG_REDRAW;
}

static int req_redo(View *v, wint_t ch)
{
    if (session_redo(&v->s))
        say_change(v, EFFECT_REDO, NULL);
    else
        say_msg(v, ROLE_HINT, _("Nothing to redo."));
    return FLAG_REDRAW;
}

static int req_reset(View *v, wint_t ch)
{
    int k = session_ask_retry(&v->s);
    if (v->s.nedits == 0 && k >= 0) { /* not "nothing": the answer can be tried again */
        char name[32], msg[160];
        ask_name(session_ask_at(&v->s, k), name, sizeof name);
        snprintf(msg, sizeof msg, _("Your answer to %s stays graded; type a new one (or Enter) to try again."), name);
        say_msg(v, ROLE_HINT, msg);
        return FLAG_REDRAW;
    }
    if (v->s.nedits == 0) {
        say_msg(v, ROLE_HINT, _("Nothing to reset: this is the lesson as written."));
        return FLAG_REDRAW;
    }
    return act(v, "reset");
}

/* Training works on A: from the softmax stage on. False (and a hint
 * saying where A comes) before it. */
static bool training_stage(View *v)
{
    char msg[256];
    if (session_stage(&v->s) >= STAGE_SOFTMAX)
        return true;
    int k = session_step_reaching(&v->s, STAGE_SOFTMAX);
    if (k >= 0)
        snprintf(msg, sizeof msg, _("Training works on A, computed at step %d (stage 4, softmax): T sets a target "
                                    "there, g takes a step."), k + 1);
    else
        snprintf(msg, sizeof msg, "%s", _("This lesson never computes A, so there is nothing to train."));
    say_msg(v, ROLE_HINT, msg);
    return false;
}

/* T: all of the focused row's weight on the focused key; again on the
 * same cell, no target on that row. */
static int req_target(View *v, wint_t ch)
{
    char text[64];
    if (!training_stage(v))
        return FLAG_REDRAW;
    int h = v->s.head > 0 ? v->s.head : 1, k = grad_find(&v->s.cur, h - 1, v->fi);
    bool same = k >= 0 && v->s.cur.target[k].t[v->fj] == 1.0;
    char name[16] = "A";
    if (attn_heads(&v->s.cur) > 1) /* the head shown: A2[1] */
        snprintf(name, sizeof name, "A%d", h);
    if (same)
        snprintf(text, sizeof text, "target %s[%d] = none", name, v->fi + 1);
    else
        snprintf(text, sizeof text, "target %s[%d] = %d", name, v->fi + 1, v->fj + 1);
    return act(v, text);
}

/* g and G: a gradient step, named with its effect on the focused weight
 * like every action: "one gradient step, lr 0.5: α₁₃ 0.350 → 0.387". */
static int req_step(View *v, wint_t ch)
{
    return training_stage(v) ? act(v, "step") : FLAG_REDRAW;
}

static int req_step10(View *v, wint_t ch)
{
    return training_stage(v) ? act(v, "step 10") : FLAG_REDRAW;
}

static int req_save(View *v, wint_t ch);
static int req_answer(View *v, wint_t ch);

static int req_lang(View *v, wint_t ch)
{
    v->lang = v->lang == LANG_ZH ? LANG_EN : LANG_ZH;
    i18n_set(v->lang, NULL);
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

static int req_theme(View *v, wint_t ch)
{
    ThemeId next = (ThemeId)((v->theme + 1) % THEME_COUNT);
    v->theme = theme_apply(next);
    char msg[128];
    snprintf(msg, sizeof msg, _("Theme: %s"), theme_name(v->theme));
    say_msg(v, ROLE_HINT, msg);
    return FLAG_REDRAW;
}

static int req_present(View *v, wint_t ch)
{
    v->present = !v->present;
    return FLAG_REDRAW;
}

static int req_help(View *v, wint_t ch)
{
    v->mode = MODE_HELP;
    return FLAG_REDRAW;
}

static int req_quit(View *v, wint_t ch)
{
    if (session_dirty(&v->s)) {
        v->mode = MODE_CONFIRM;
        v->confirm = CONFIRM_QUIT;
        say_msg(v, ROLE_ERROR, _("You have unsaved edits. Quit anyway? y quits, w saves, any other key stays."));
        return FLAG_REDRAW;
    }
    return FLAG_QUIT;
}

static const struct {
    const char *help, *bar;
    Handler fn;
} requests[REQ_COUNT] = {
#define REQ_ROW(id, help, bar, fn) [id] = {help, bar, fn},
    REQUESTS(REQ_ROW)
#undef REQ_ROW
};

/* ---- the text field (prompt, cell editor, file name) ------------------------------- */

static void field_set(Field *f, const char *s)
{
    snprintf(f->buf, sizeof f->buf, "%s", s);
    f->len = f->pos = (int)strlen(f->buf);
}

/* Step back or forward over one UTF-8 character. */
static int utf8_prev(const Field *f, int pos)
{
    while (pos > 0 && (f->buf[--pos] & 0xC0) == 0x80) {}
    return pos;
}

static int utf8_next(const Field *f, int pos)
{
    while (pos < f->len && (f->buf[++pos] & 0xC0) == 0x80) {}
    return pos;
}

static void field_insert(Field *f, wint_t ch)
{
    char mb[8];
    mbstate_t st = {0};
    size_t n = wcrtomb(mb, (wchar_t)ch, &st);
    if (n == (size_t)-1 || f->len + (int)n >= PROMPT_MAX - 1)
        return;
    memmove(f->buf + f->pos + n, f->buf + f->pos, (size_t)(f->len - f->pos + 1));
    memcpy(f->buf + f->pos, mb, n);
    f->len += (int)n;
    f->pos += (int)n;
}

/* Line editing keys shared by every field. Returns true if ch was one. */
static bool field_key(Field *f, wint_t ch, bool code)
{
    if (code && ch == KEY_LEFT)
        f->pos = utf8_prev(f, f->pos);
    else if (code && ch == KEY_RIGHT)
        f->pos = utf8_next(f, f->pos);
    else if (code && ch == KEY_HOME)
        f->pos = 0;
    else if (code && ch == KEY_END)
        f->pos = f->len;
    else if ((code && ch == KEY_BACKSPACE) || (!code && (ch == 127 || ch == 8))) {
        int p = utf8_prev(f, f->pos);
        memmove(f->buf + p, f->buf + f->pos, (size_t)(f->len - f->pos + 1));
        f->len -= f->pos - p;
        f->pos = p;
    } else if (!code && ch == CTRL('u'))
        field_set(f, "");
    else if (!code && ch >= ' ' && ch != 127)
        field_insert(f, ch);
    else
        return false;
    return true;
}

/* ---- the ':' prompt --------------------------------------------------------------- */

static void history_push(View *v, const char *s)
{
    if (v->nhist > 0 && strcmp(v->history[v->nhist - 1], s) == 0)
        return;
    if (v->nhist == HISTORY_MAX) {
        memmove(v->history[0], v->history[1], sizeof v->history[0] * (HISTORY_MAX - 1));
        v->nhist--;
    }
    snprintf(v->history[v->nhist++], PROMPT_MAX, "%s", s);
}

static int prompt_enter(View *v)
{
    char err[256];
    if (v->field.len == 0) {
        v->mode = MODE_NORMAL;
        return FLAG_REDRAW;
    }
    history_push(v, v->field.buf);
    v->hpos = v->nhist;
    if (!session_act_text(&v->s, v->field.buf, err, sizeof err)) {
        say_msg(v, ROLE_ERROR, err); /* the prompt stays open with the text */
        return FLAG_REDRAW;
    }
    v->mode = MODE_NORMAL;
    Action act;
    int col;
    if (action_parse(v->field.buf, &act, err, sizeof err, &col) && act.kind == ACT_SWAP) {
        char what[400], t1[128], t2[128]; /* name the swap: the tokens now in those rows */
        text_sanitize(lesson_token(v->s.lesson, &v->s.cur, act.i), t1, sizeof t1, v->ascii);
        text_sanitize(lesson_token(v->s.lesson, &v->s.cur, act.src_i), t2, sizeof t2, v->ascii);
        snprintf(what, sizeof what, _("swap %d %d: row %d is now %s, row %d is %s"),
                 act.i + 1, act.src_i + 1, act.i + 1, t1, act.src_i + 1, t2);
        say_change(v, EFFECT_ACT, what);
    } else {
        say_change(v, EFFECT_ACT, NULL);
    }
    return FLAG_REDRAW;
}

static int mode_prompt(View *v, wint_t ch, bool code)
{
    if (!code && ch == KEY_ESC) {
        v->mode = MODE_NORMAL;
        v->msg[0] = '\0';
    } else if ((!code && (ch == '\r' || ch == '\n')) || (code && ch == KEY_ENTER))
        return prompt_enter(v);
    else if (code && (ch == KEY_UP || ch == KEY_DOWN)) {
        v->hpos += ch == KEY_UP ? -1 : 1;
        v->hpos = v->hpos < 0 ? 0 : v->hpos > v->nhist ? v->nhist : v->hpos;
        field_set(&v->field, v->hpos < v->nhist ? v->history[v->hpos] : "");
    } else if (field_key(&v->field, ch, code))
        v->msg[0] = '\0';
    return FLAG_REDRAW;
}

/* ---- edit mode: a cell cursor over Q K V X Wq Wk Wv -------------------------------- */

/* Tab's cycle; W_O ends it in lessons that have one (stage 6). */
static const MatId edit_cycle[] = {M_Q, M_K, M_V, M_X, M_WQ, M_WK, M_WV, M_WO};

static void edit_clamp(View *v)
{
    const Mat *m = &v->s.cur.m[v->emat];
    v->ei = v->ei < 0 ? 0 : v->ei >= m->rows ? m->rows - 1 : v->ei;
    v->ej = v->ej < 0 ? 0 : v->ej >= m->cols ? m->cols - 1 : v->ej;
}

/* Set the cell under the cursor through the action language: to the text
 * typed, or (a nudge, named `label`) to value. */
static int edit_set(View *v, double value, const char *typed, const char *label)
{
    char text[PROMPT_MAX + 32], num[40];
    if (typed)
        snprintf(text, sizeof text, "%s[%d][%d] = %s", attn_mat_name(v->emat), v->ei + 1, v->ej + 1, typed);
    else
        snprintf(text, sizeof text, "%s[%d][%d] = %s", attn_mat_name(v->emat), v->ei + 1, v->ej + 1,
                 fmt_exact(value, num, sizeof num));
    char err[256];
    if (!session_act_text(&v->s, text, err, sizeof err)) {
        char msg[512];
        if (typed)
            snprintf(msg, sizeof msg, _("\"%s\" is not a number we can use: %s. The old value stays."), typed, err);
        else /* a nudge the action refused */
            snprintf(msg, sizeof msg, "%s", err);
        say_msg(v, ROLE_ERROR, msg);
        return FLAG_REDRAW;
    }
    say_change(v, EFFECT_ACT, label);
    field_set(&v->field, "");
    return FLAG_REDRAW;
}

/* Nudge the cell by `by`. Edit mode keeps Q, K and V computed (it leaves
 * when the stage drops below them), so the value read here is current. */
static int edit_nudge(View *v, double by)
{
    char label[64];
    snprintf(label, sizeof label, "%s[%d][%d] %s %g", attn_mat_name(v->emat), v->ei + 1, v->ej + 1,
             by < 0 ? (v->ascii ? "-" : "−") : "+", fabs(by));
    return edit_set(v, MAT_AT(&v->s.cur.m[v->emat], v->ei, v->ej) + by, NULL, label);
}

static int edit_move(View *v, wint_t ch)
{
    v->ei += ch == KEY_DOWN || ch == 'j' ? 1 : ch == KEY_UP || ch == 'k' ? -1 : 0;
    v->ej += ch == KEY_RIGHT || ch == 'l' ? 1 : ch == KEY_LEFT || ch == 'h' ? -1 : 0;
    edit_clamp(v);
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

static bool is_enter(wint_t ch, bool code)
{
    return (!code && (ch == '\r' || ch == '\n')) || (code && ch == KEY_ENTER);
}

/* Open the number field: with the cell's value (Enter) or the first key typed. */
static int edit_open(View *v, wint_t ch)
{
    char buf[64];
    v->editing = true;
    if (ch) {
        field_set(&v->field, "");
        field_insert(&v->field, ch);
    } else { /* the exact value, so Enter again keeps it exactly */
        field_set(&v->field, fmt_exact(MAT_AT(&v->s.cur.m[v->emat], v->ei, v->ej), buf, sizeof buf));
    }
    return FLAG_REDRAW;
}

static int edit_cursor_key(View *v, wint_t ch, bool code)
{
    if (!code && ch == KEY_ESC) {
        v->mode = MODE_NORMAL;
        v->msg[0] = '\0';
        return FLAG_REDRAW;
    }
    if (!code && ch == '\t') {
        size_t k = 0;
        while (edit_cycle[k] != v->emat)
            k++;
        size_t n = sizeof edit_cycle / sizeof *edit_cycle - (v->s.cur.has_wo ? 0 : 1);
        v->emat = edit_cycle[(k + 1) % n];
        edit_clamp(v);
        say_edit_mat(v);
        return FLAG_REDRAW;
    }
    if ((code && (ch == KEY_UP || ch == KEY_DOWN || ch == KEY_LEFT || ch == KEY_RIGHT)) ||
        (!code && ch < 128 && strchr("hjkl", (int)ch) && ch))
        return edit_move(v, ch);
    /* + and _ (the shifted keys of = and -) nudge; - starts a negative
     * number, like a digit starts a number: typing -0.5 sets -0.5. */
    if (!code && (ch == '+' || ch == '_'))
        return edit_nudge(v, ch == '+' ? 0.1 : -0.1);
    if (is_enter(ch, code))
        return edit_open(v, 0);
    if (!code && (ch == '-' || ch == 0x2212 || (ch < 128 && (isdigit((int)ch) || ch == '.'))))
        return edit_open(v, ch == 0x2212 ? '-' : ch);
    return -1; /* not ours: the normal table (n, p, s, m, u, ...) */
}

static int mode_edit(View *v, wint_t ch, bool code)
{
    if (!v->editing)
        return edit_cursor_key(v, ch, code);
    if (!code && ch == KEY_ESC) {
        v->editing = false;
        v->msg[0] = '\0';
    } else if (is_enter(ch, code) && v->field.buf[strspn(v->field.buf, " ")] == '\0') {
        v->editing = false; /* nothing typed: cancel, like Esc */
        field_set(&v->field, "");
        v->msg[0] = '\0';
    } else if (is_enter(ch, code)) {
        int r = edit_set(v, 0, v->field.buf, NULL);
        if (v->msg_role != ROLE_ERROR || !v->msg[0])
            v->editing = false;
        return r;
    } else {
        field_key(&v->field, ch, code);
    }
    return FLAG_REDRAW;
}

/* ---- exercises: the answer field of an ask: step ------------------------------------ */

/* Can ch start an answer (a digit, a sign, a decimal point)? */
static bool answer_key(wint_t ch)
{
    return (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == 0x2212;
}

/* Focus the cell (or row) an ask is about when the arithmetic can show it:
 * the grade then comes with its arithmetic. */
static void focus_ask(View *v, const Ask *a)
{
    int st = session_stage(&v->s);
    bool qkv = st == STAGE_QKV && a->mat >= M_Q && a->mat <= M_V;
    if (a->mat != attn_stage_mat(st) && !qkv)
        return;
    if (qkv)
        v->fmat = a->mat;
    v->fi = a->i;
    if (a->j >= 0)
        v->fj = a->j;
    view_clamp_focus(v);
}

static int req_answer(View *v, wint_t ch)
{
    if (session_ask_open(&v->s) < 0 && session_ask_retry(&v->s) < 0) {
        say_msg(v, ROLE_HINT, _("There is no question at this step."));
        return FLAG_REDRAW;
    }
    v->mode = MODE_ANSWER;
    field_set(&v->field, "");
    if (ch)
        field_insert(&v->field, ch);
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

/* Next at an open question reveals every open ask of the step (and every
 * one answered wrong), and says the values: "Revealed: S[1][2] = 0.006.
 * Space goes on." */
static void reveal(View *v)
{
    char list[sizeof v->msg / 2] = "", name[32], vals[96], msg[sizeof v->msg];
    FmtOpt fo = {v->lesson->digits, v->ascii, false};
    const Ask *last = NULL;
    for (int k = 0; k < session_ask_count(&v->s); k++)
        if (session_ask_state(&v->s, k) == ASK_OPEN || session_ask_state(&v->s, k) == ASK_WRONG) {
            last = session_ask_at(&v->s, k);
            ask_name(last, name, sizeof name);
            ask_values(last, &v->s.cur, &fo, vals, sizeof vals);
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s = %s", list[0] ? "; " : "", name, vals);
        }
    session_ask_reveal(&v->s);
    if (last)
        focus_ask(v, last);
    snprintf(msg, sizeof msg, _("Revealed: %s. Space goes on."), list);
    say_msg(v, ROLE_HINT, msg);
}

/* Enter grades the answer: ✓ with the value (the cell shows its number
 * again and the arithmetic works it out), or ✗ with the student's answer
 * and no true value (the cell stays "?": type again, or Space reveals). An
 * answer that cannot be read keeps the field open and says why. */
static int answer_enter(View *v)
{
    char msg[sizeof v->msg];
    int k = session_ask_open(&v->s);
    if (k < 0)
        k = session_ask_retry(&v->s);
    if (v->field.buf[strspn(v->field.buf, " ")] == '\0') {
        v->mode = MODE_NORMAL; /* nothing typed: like Esc */
        return FLAG_REDRAW;
    }
    const Ask *a = k >= 0 ? session_ask_at(&v->s, k) : NULL;
    Grade g = session_ask_answer(&v->s, v->field.buf, v->ascii, msg, sizeof msg);
    if (g == GRADE_BAD) {
        say_msg(v, ROLE_ERROR, msg[0] ? msg : _("There is no question at this step."));
        if (!msg[0])
            v->mode = MODE_NORMAL;
        return FLAG_REDRAW;
    }
    v->mode = MODE_NORMAL;
    if (a)
        focus_ask(v, a);
    say_msg(v, g == GRADE_RIGHT ? ROLE_HINT : ROLE_ERROR, msg);
    return FLAG_REDRAW;
}

static int mode_answer(View *v, wint_t ch, bool code)
{
    if (!code && ch == KEY_ESC) {
        v->mode = MODE_NORMAL;
        v->msg[0] = '\0';
    } else if (is_enter(ch, code)) {
        return answer_enter(v);
    } else if (field_key(&v->field, ch, code)) {
        if (v->msg_role == ROLE_ERROR)
            v->msg[0] = '\0';
    }
    return FLAG_REDRAW;
}

/* ---- saving (w): a name, a confirmation before overwriting, an atomic write ---- */

/* Would the lesson saved from this state pass its own --check? Its
 * narration must show whole at 80x24 at every step; numbers from a million
 * up (1e+308 in X) are written 1.49e+307, widen every matrix and leave the
 * narration no room, and the scores may not even be numbers. False, with
 * the reason in msg, when it would not. */
static bool save_checks(View *v, char *msg, size_t len)
{
    size_t n = 0;
    char *text = lesson_save_text(&v->s, &n), err[512];
    Lesson l;
    Session s;
    bool ok = true;
    if (!text || !lesson_load_buffer(v->save_path, text, n, &l, err, sizeof err)) {
        free(text);
        return true; /* out of memory: lesson_save says so itself */
    }
    free(text);
    if (session_init(&s, &l)) {
        for (int k = 0; k < l.nsteps && ok; k++) {
            session_goto(&s, k);
            for (int g = 0; g < 2 && ok; g++) {
                Lang lang = g ? LANG_ZH : LANG_EN;
                if (*text_get(&l.steps[k].say, lang) && !layout_narration_fits(&s, k, lang, 80, 24)) {
                    snprintf(msg, len, _("Not saved: with numbers this large, step %d's narration cannot be shown "
                                         "whole at 80x24, so the saved lesson would fail qkvtutor --check. Use "
                                         "smaller numbers (u undoes the edit), then save."), k + 1);
                    ok = false;
                }
            }
        }
        session_free(&s);
    }
    lesson_free(&l);
    return ok;
}

static int do_save(View *v)
{
    char err[512], msg[PROMPT_MAX + 160];
    v->mode = MODE_NORMAL;
    if (!save_checks(v, err, sizeof err)) {
        say_msg(v, ROLE_ERROR, err);
        return FLAG_REDRAW;
    }
    if (!lesson_save(&v->s, v->save_path, err, sizeof err)) {
        say_msg(v, ROLE_ERROR, err);
        return FLAG_REDRAW;
    }
    session_mark_saved(&v->s);
    snprintf(msg, sizeof msg, _("Saved %s. Open it with: qkvtutor %s"), v->save_path, v->save_path);
    say_msg(v, ROLE_HINT, msg);
    return FLAG_REDRAW;
}

static int req_save(View *v, wint_t ch)
{
    char name[PROMPT_MAX];
    lesson_save_name(v->lesson, name, sizeof name);
    v->mode = MODE_SAVE;
    field_set(&v->field, name);
    say_msg(v, ROLE_HINT, _("Save as a new lesson: Enter saves, Ctrl-U clears the name, Esc cancels."));
    return FLAG_REDRAW;
}

static int mode_save(View *v, wint_t ch, bool code)
{
    struct stat st;
    if (!code && ch == KEY_ESC) {
        v->mode = MODE_NORMAL;
        say_msg(v, ROLE_HINT, _("Not saved."));
    } else if (is_enter(ch, code)) {
        if (v->field.len == 0)
            return FLAG_REDRAW;
        snprintf(v->save_path, sizeof v->save_path, "%s", v->field.buf);
        if (stat(v->save_path, &st) != 0)
            return do_save(v);
        char bad[PROMPT_MAX + 160];
        if (!lesson_save_target(v->save_path, bad, sizeof bad)) {
            say_msg(v, ROLE_ERROR, bad); /* the prompt stays open to fix the name */
            return FLAG_REDRAW;
        }
        char msg[PROMPT_MAX + 128];
        snprintf(msg, sizeof msg, _("%s exists. Overwrite it? y overwrites, any other key cancels."), v->save_path);
        say_msg(v, ROLE_ERROR, msg);
        v->mode = MODE_CONFIRM;
        v->confirm = CONFIRM_OVERWRITE;
    } else {
        field_key(&v->field, ch, code);
    }
    return FLAG_REDRAW;
}

/* ---- help and confirmation ------------------------------------------------------------ */

/* The help closes with Esc, ? or q, and scrolls where it does not fit:
 * Down, j one line; PgDn, Space a page; Up, k, PgUp, Backspace, b back;
 * Home, End. (help_page and help_max come from the last help drawn.) */
static int mode_help(View *v, wint_t ch, bool code)
{
    int page = v->help_page > 1 ? v->help_page - 1 : 1;
    if (!code && (ch == KEY_ESC || ch == '?' || ch == 'q')) {
        v->mode = MODE_NORMAL;
        v->help_top = 0;
    } else if ((code && ch == KEY_DOWN) || (!code && ch == 'j'))
        v->help_top++;
    else if ((code && ch == KEY_NPAGE) || (!code && ch == ' '))
        v->help_top += page;
    else if ((code && ch == KEY_UP) || (!code && ch == 'k'))
        v->help_top--;
    else if ((code && (ch == KEY_PPAGE || ch == KEY_BACKSPACE)) || (!code && (ch == 'b' || ch == 127 || ch == 8)))
        v->help_top -= page;
    else if (code && ch == KEY_HOME)
        v->help_top = 0;
    else if (code && ch == KEY_END)
        v->help_top = v->help_max;
    v->help_top = v->help_top > v->help_max ? v->help_max : v->help_top < 0 ? 0 : v->help_top;
    return FLAG_REDRAW;
}

static int mode_confirm(View *v, wint_t ch, bool code)
{
    bool yes = !code && (ch == 'y' || ch == 'Y');
    v->mode = MODE_NORMAL;
    v->msg[0] = '\0';
    if (v->confirm == CONFIRM_OVERWRITE) {
        if (yes)
            return do_save(v);
        say_msg(v, ROLE_HINT, _("Not saved."));
        return FLAG_REDRAW;
    }
    if (yes)
        return FLAG_QUIT;
    if (!code && ch == 'w')
        return req_save(v, ch);
    return FLAG_REDRAW;
}


/* ---- the mouse: a click focuses a cell (selects it in edit mode), the
 * wheel moves the focus and so scrolls large matrices ---- */

int keys_mouse(View *v, int y, int x, unsigned long buttons)
{
    MatId id;
    int i, j, role;
    if (buttons & (BUTTON4_PRESSED | BUTTON5_PRESSED))
        return focus_by(v, buttons & BUTTON4_PRESSED ? -1 : 1, 0);
    if (!(buttons & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)) || !view_hit(v, y, x, &id, &i, &j, &role))
        return FLAG_NONE;
    if (v->mode == MODE_EDIT && id <= M_V) {
        v->emat = id;
        v->ei = i;
        v->ej = j;
        v->editing = false;
        say_edit_mat(v);
        return FLAG_REDRAW;
    }
    if (session_stage(&v->s) == STAGE_QKV && id >= M_Q && id <= M_V) {
        v->fmat = id; /* any of Q K V: the one the arithmetic explains */
        role = 0;
    }
    v->frow = false; /* a click picks a cell */
    if (role == 0 || role == 1)
        v->fi = i;
    if (role == 0 || role == 3)
        v->fj = j;
    if (role == 2)
        v->fj = i;
    return focus_by(v, 0, 0);
}

/* ---- dispatch ---------------------------------------------------------------------------- */

static int normal_key(View *v, wint_t ch, bool code)
{
    for (size_t k = 0; k < NBIND; k++)
        if (bindings[k].key == (int)ch && bindings[k].code == code)
            return requests[bindings[k].req].fn(v, ch);
    return FLAG_NONE;
}

/* Ctrl-C (typed, or SIGINT from the loop) is a reflex for "cancel": it
 * closes an open field (the ':' prompt, the save name, the answer, the cell
 * editor) or the help like Esc, leaves a confirmation like any key that is
 * not y, and otherwise is q (which asks first when edits are unsaved). */
static int interrupt_key(View *v)
{
    switch (v->mode) {
    case MODE_HELP:
    case MODE_PROMPT:
    case MODE_SAVE:
    case MODE_ANSWER:
        return keys_handle(v, KEY_ESC, false);
    case MODE_CONFIRM:
        return mode_confirm(v, CTRL('c'), false);
    case MODE_EDIT:
        if (v->editing)
            return mode_edit(v, KEY_ESC, false);
        break;
    case MODE_NORMAL:
        break;
    }
    return req_quit(v, CTRL('c'));
}

int keys_handle(View *v, wint_t ch, bool is_code)
{
    int r = -1;
    if (!is_code && ch == CTRL('c'))
        return interrupt_key(v);
    switch (v->mode) {
    case MODE_HELP:    return mode_help(v, ch, is_code);
    case MODE_PROMPT:  return mode_prompt(v, ch, is_code);
    case MODE_SAVE:    return mode_save(v, ch, is_code);
    case MODE_CONFIRM: return mode_confirm(v, ch, is_code);
    case MODE_ANSWER:  return mode_answer(v, ch, is_code);
    case MODE_EDIT:    r = mode_edit(v, ch, is_code); break;
    case MODE_NORMAL:  break;
    }
    if (r >= 0)
        return r;
    if (v->card && v->mode == MODE_NORMAL && !(is_code && ch == KEY_RESIZE)) {
        v->card = false; /* any key leaves the title card for step 1; q and ? also do their own */
        v->msg[0] = '\0';
        if (is_code || (ch != 'q' && ch != '?'))
            return FLAG_REDRAW;
    }
    /* An open question takes digits (1-5 do not jump then) and signs. */
    if (v->mode == MODE_NORMAL && !is_code && answer_key(ch) && session_ask_open(&v->s) >= 0)
        return req_answer(v, ch);
    /* A question answered wrong: typing starts a new answer, Enter opens the field. */
    if (v->mode == MODE_NORMAL && session_ask_open(&v->s) < 0 && session_ask_retry(&v->s) >= 0 &&
        ((!is_code && answer_key(ch)) || is_enter(ch, is_code)))
        return req_answer(v, is_enter(ch, is_code) ? 0 : ch);
    r = normal_key(v, ch, is_code);
    if (v->mode == MODE_EDIT && session_stage(&v->s) < STAGE_QKV) {
        v->mode = MODE_NORMAL; /* Q, K, V are not computed before stage 2 */
        say_msg(v, ROLE_HINT, _("Edit mode left: Q, K and V are computed from stage 2 on."));
    }
    return r;
}

/* ---- the help screen and the key bar, both from the tables ---------------------------------- */

/* All labels of a request's keys, "Space, Enter, PgDn, n". */
static void labels_of(Request r, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t k = 0; k < NBIND; k++)
        if (bindings[k].req == r && bindings[k].label) {
            size_t n = strlen(buf);
            snprintf(buf + n, len - n, "%s%s", n ? ", " : "", bindings[k].label);
        }
}

/* The help screen's lines without a screen, for tests/keys_table.c (which
 * checks README.md and the man page against them): line(keys, help, ctx) for
 * each line, a request's keys and those of the requests after it that have no help of their own, help untranslated. */
void keys_help_lines(void (*line)(const char *keys, const char *help, void *ctx), void *ctx);
void keys_help_lines(void (*line)(const char *keys, const char *help, void *ctx), void *ctx)
{
    char keys[160], more[96];
    for (int r = 0; r < REQ_COUNT; r++) {
        if (!requests[r].help)
            continue;
        labels_of((Request)r, keys, sizeof keys);
        for (int k = r + 1; k < REQ_COUNT && !requests[k].help; k++) {
            labels_of((Request)k, more, sizeof more);
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), " / %s", more);
        }
        line(keys, requests[r].help, ctx);
    }
}

/* The help's lines, wrapped to the screen: each key line's description
 * wraps under itself (nothing is cut on the right), then a blank line and
 * the edit-mode keys. */
#define HELP_LINES 96
typedef struct {
    int n, kx, tx, w;                  /* lines; key and text columns; text width */
    const char *keys[HELP_LINES];      /* NULL: a continuation (or the edit text) */
    char keybuf[HELP_LINES][160];
    const char *text[HELP_LINES];
    int tlen[HELP_LINES];
} HelpText;

/* A word that is a number or an operator ("5", "*", "=", "/") sticks to
 * its neighbours: a line break never separates "K[1] *" from "5", nor
 * "2" from "个". */
static bool help_glue(const char *w, size_t n)
{
    return n > 0 && strspn(w, "0123456789.*=+-<>()") >= n;
}

static bool help_breakable(const char *s, size_t k)
{
    size_t a = k;
    while (a > 0 && s[a - 1] != ' ')
        a--;
    size_t b = strcspn(s + k + 1, " ");
    bool number_next = s[k + 1] >= '0' && s[k + 1] <= '9'; /* "微调 0.1，" stays together */
    return !help_glue(s + a, k - a) && !help_glue(s + k + 1, b) && !number_next;
}

/* The next line's length: fmt_wrap's, moved back to a space where the
 * break keeps numbers and operators with their neighbours. */
static size_t help_break(const char *s, int w)
{
    size_t n = fmt_wrap(s, w, false);
    if (s[n] != ' ')
        return n;
    for (size_t k = n; k > 0; k--)
        if (s[k] == ' ' && s[k - 1] != ' ' && help_breakable(s, k))
            return k;
    return n;
}

static void help_wrap(HelpText *h, const char *keys, const char *text, int x, int w)
{
    for (bool first = true; *text && h->n < HELP_LINES; first = false) {
        size_t n = help_break(text, w);
        h->keys[h->n] = NULL;
        if (first && keys) {
            snprintf(h->keybuf[h->n], sizeof h->keybuf[0], "%s", keys);
            h->keys[h->n] = h->keybuf[h->n];
        }
        h->text[h->n] = text;
        h->tlen[h->n] = (int)n;
        h->n++;
        (void)x;
        text += n;
        text += strspn(text, " ");
    }
}

static void help_collect(const char *keys, const char *help, void *ctx)
{
    HelpText *h = ctx;
    help_wrap(h, keys, _(help), h->tx, h->w);
}

static void help_key_width(const char *keys, const char *help, void *ctx)
{
    int *w = ctx, k = text_width(keys);
    *w = k > *w ? k : *w;
}

void keys_draw_help(View *v)
{
    static HelpText h;
    const char *edit = _("Edit mode: arrows move, Tab cycles Q K V X Wq Wk Wv (Wo), a number (-0.5 too) then Enter sets, + / _ nudge by 0.1, Esc leaves.");
    int kw = 0;
    keys_help_lines(help_key_width, &kw);
    memset(&h, 0, sizeof h);
    h.kx = 2;
    h.tx = COLS >= 80 ? 32 : 2 + kw + 2; /* 80 columns and up: the table as it always was */
    h.w = COLS - 1 - h.tx;
    keys_help_lines(help_collect, &h);
    if (h.n < HELP_LINES)
        h.text[h.n++] = ""; /* a blank line, then the edit-mode keys from column 2 */
    int first_edit = h.n;
    help_wrap(&h, NULL, edit, 2, COLS - 3);
    /* Rows 2 .. LINES-1; when it does not all fit, the last row says how to scroll. */
    int avail = LINES - 2;
    bool scroll = h.n > avail;
    v->help_page = scroll ? avail - 1 : avail;
    v->help_max = scroll ? h.n - v->help_page : 0;
    if (v->help_top > v->help_max)
        v->help_top = v->help_max;
    attrset(theme_attr(ROLE_TITLE));
    const char *title = _("qkvtutor keys  (Esc, ? or q closes this help)");
    mvaddnstr(0, 2, title, (int)text_fit(title, COLS - 3));
    for (int r = 0; r < v->help_page && v->help_top + r < h.n; r++) {
        int k = v->help_top + r, y = 2 + r;
        if (h.keys[k]) {
            attrset(theme_attr(ROLE_KEY));
            mvaddnstr(y, h.kx, h.keys[k], (int)text_fit(h.keys[k], h.tx - h.kx - 1));
        }
        attrset(theme_attr(k >= first_edit ? ROLE_HINT : ROLE_NORMAL));
        int x = k >= first_edit ? 2 : h.tx;
        mvaddnstr(y, x, h.text[k], (int)text_fit(h.text[k], COLS - 1 - x) < h.tlen[k]
                                       ? (int)text_fit(h.text[k], COLS - 1 - x) : h.tlen[k]);
    }
    if (scroll) {
        char more[160];
        snprintf(more, sizeof more,
                 v->ascii ? _("lines %d-%d of %d - Down j PgDn Space more - Up k PgUp back")
                          : _("lines %d-%d of %d · ↓ j PgDn Space more · ↑ k PgUp back"),
                 v->help_top + 1, v->help_top + v->help_page, h.n);
        attrset(theme_attr(ROLE_HINT));
        mvaddnstr(LINES - 1, 2, more, (int)text_fit(more, COLS - 3));
    }
    attrset(A_NORMAL);
}

/* The first short label of a request's keys, for the key bar. */
static const char *first_label(Request r)
{
    for (size_t k = 0; k < NBIND; k++)
        if (bindings[k].req == r && bindings[k].label && strlen(bindings[k].label) <= 5)
            return bindings[k].label;
    return "";
}

/* The key bar: the mode's field when one is open; else the requests that
 * have a bar label, in table order, as many as fit, with help and quit
 * always shown at the end. */
int keys_field(const View *v, char *buf, size_t len)
{
    char t[96], name[64];
    const char *label = v->mode == MODE_PROMPT ? ":" : v->mode == MODE_SAVE ? _("save as: ") : t;
    int k = session_ask_open(&v->s);
    if (k < 0)
        k = session_ask_retry(&v->s); /* answering a graded question again */
    snprintf(t, sizeof t, "%s[%d][%d] = ", attn_mat_name(v->emat), v->ei + 1, v->ej + 1);
    if (v->mode == MODE_ANSWER && k >= 0) {
        ask_name(session_ask_at(&v->s, k), name, sizeof name);
        snprintf(t, sizeof t, _("answer %s = "), name);
    }
    /* Scroll the text so the cursor stays on screen: drop characters from
     * the left until the part before the cursor fits. */
    int room = COLS - 3 - text_width(label);
    const char *start = v->field.buf, *cur = v->field.buf + v->field.pos;
    char before[PROMPT_MAX];
    for (;;) {
        snprintf(before, sizeof before, "%.*s", (int)(cur - start), start);
        if (text_width(before) < room || start >= cur)
            break;
        for (start++; (*start & 0xC0) == 0x80; start++) {}
    }
    snprintf(buf, len, " %s%s", label, start);
    return 1 + text_width(label) + text_width(before);
}

void keys_bar(const View *v, char *buf, size_t len)
{
    if (view_field_open(v)) {
        keys_field(v, buf, len);
        return;
    }
    if (v->mode == MODE_EDIT) {
        snprintf(buf, len, " %s", _("←↑↓→ cell  0-9 or - number  Enter edit  + _ nudge 0.1  Tab matrix  Esc leave"));
        return;
    }
    view_keybar(v->ascii, session_ask_open(&v->s) >= 0 || session_ask_retry(&v->s) >= 0, COLS, buf, len);
}

void view_keybar(bool ascii, bool asking, int cols, char *buf, size_t len)
{
    char item[REQ_COUNT + 1][64], tail[160];
    int n = 0;
    if (asking) /* the question first: digits answer, Space reveals (instead of next) */
        snprintf(item[n++], sizeof item[0], " %s ", _("0-9 answer (1-5 do not jump)  Space reveal"));
    for (int r = 0; r < REQ_COUNT; r++)
        if (requests[r].bar && !(asking && r == REQ_NEXT)) {
            const char *key = r == REQ_RIGHT ? (ascii ? "arrows" : "←↑↓→") : first_label((Request)r);
            snprintf(item[n++], sizeof item[0], " %s %s ", key, _(requests[r].bar));
        }
    snprintf(tail, sizeof tail, "%s%s", item[n - 2], item[n - 1]); /* help, quit */
    int room = cols - text_width(tail);
    buf[0] = '\0';
    for (int k = 0; k < n - 2; k++) {
        if (text_width(buf) + text_width(item[k]) > room)
            break;
        snprintf(buf + strlen(buf), len - strlen(buf), "%s", item[k]);
    }
    snprintf(buf + strlen(buf), len - strlen(buf), "%s", tail);
}

