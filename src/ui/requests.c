/* requests.c - the normal mode's requests: steps, stages, focus, heads,
 * toggles, undo, training, language, theme, presentation, quit. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/grad.h"
#include "lesson/options.h"
#include "lesson/save.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "ui_int.h"

/* ---- normal-mode requests -------------------------------------------------------- */

int req_next(View *v, UiKey ch)
{
    if (session_ask_open(&v->s) >= 0 || session_ask_retry(&v->s) >= 0) {
        answer_reveal(v); /* an open question (or one answered wrong): next reveals it, and stays */
        return FLAG_REDRAW;
    }
    if (!session_next(&v->s))
        ui_say(v, ROLE_HINT, _("This is the last step. Home goes back to the first."));
    else
        ui_moved(v);
    return FLAG_REDRAW;
}

int req_prev(View *v, UiKey ch)
{
    if (v->s.step == 0 && lesson_has_about(v->lesson)) {
        v->card = true; /* before step 1: the title card */
        ui_say(v, ROLE_HINT, _("Press any key to begin with step 1."));
    } else if (!session_prev(&v->s))
        ui_say(v, ROLE_HINT, _("This is the first step."));
    else
        ui_moved(v);
    return FLAG_REDRAW;
}

int req_first(View *v, UiKey ch)
{
    if (v->s.step == 0 && lesson_has_about(v->lesson)) {
        v->card = true; /* Home at step 1: the title card */
        ui_say(v, ROLE_HINT, _("Press any key to begin with step 1."));
    } else if (session_goto(&v->s, 0))
        ui_moved(v);
    return FLAG_REDRAW;
}

int req_last(View *v, UiKey ch)
{
    if (session_goto(&v->s, session_steps(&v->s) - 1))
        ui_moved(v);
    return FLAG_REDRAW;
}

/* The stages the lesson's steps show, "1, 2, 4, 5" ("1、2、4、5" in zh). */
static void stages_shown(const View *v, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int k = STAGE_INPUT; k <= (session_is_model(&v->s) ? MSTAGE_MAX : STAGE_MAX); k++)
        if (session_has_stage(&v->s, k))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", buf[0] ? (v->lang == LANG_ZH ? "、" : ", ") : "", k);
}

int req_stage(View *v, UiKey ch)
{
    int stage = (int)ch - '0';
    char list[64], msg[256];
    if (session_goto_stage(&v->s, stage)) {
        ui_moved(v);
    } else if (!session_has_stage(&v->s, stage)) { /* stay, and say why */
        stages_shown(v, list, sizeof list);
        snprintf(msg, sizeof msg, _("This lesson has no step at stage %d; its steps show stages %s."), stage, list);
        ui_say(v, ROLE_HINT, msg);
    }
    return FLAG_REDRAW;
}

/* [ and ]: look at the previous / next head; stages 3-5 show it. */
static int head_by(View *v, int d)
{
    char msg[256];
    int heads = attn_heads(&v->s.cur);
    if (heads < 2) {
        ui_say(v, ROLE_HINT, _("This lesson has one head; [ and ] switch heads in lessons with heads: 2 or more."));
        return FLAG_REDRAW;
    }
    int h = session_set_head(&v->s, v->s.head + d), st = session_stage(&v->s);
    view_clamp_focus(v);
    if (st >= STAGE_SCORES && st <= STAGE_OUTPUT)
        snprintf(msg, sizeof msg, _("head %d of %d: its own columns of Q, K and V, its own S, A and O"), h, heads);
    else
        snprintf(msg, sizeof msg, _("head %d of %d: stages 3 to 5 show it"), h, heads);
    ui_say(v, ROLE_HINT, msg);
    return FLAG_REDRAW;
}

int req_head_prev(View *v, UiKey ch) { return head_by(v, -1); }
int req_head_next(View *v, UiKey ch) { return head_by(v, 1); }

int req_up(View *v, UiKey ch)    { return ui_focus_by(v, -1, 0); }
int req_down(View *v, UiKey ch)  { return ui_focus_by(v, 1, 0); }
/* Left and right pick a cell of a focused row. */
int req_left(View *v, UiKey ch)  { v->frow = false; return ui_focus_by(v, 0, -1); }
int req_right(View *v, UiKey ch) { v->frow = false; return ui_focus_by(v, 0, 1); }

/* Edit mode works on Q, K and V, so it needs them computed: before the
 * script reaches them it stays closed (never revealing them ahead of the
 * script) and says where they come, and how to change X meanwhile. */
int req_edit(View *v, UiKey ch)
{
    char msg[256];
    if (session_is_model(&v->s)) { /* the cell editor works on one layer's Q, K, V */
        ui_say(v, ROLE_HINT, _("In a model lesson, change a weight with the : prompt, e.g. :L1.Wq[1][2] = 0.5"));
        return FLAG_REDRAW;
    }
    if (session_stage(&v->s) < STAGE_QKV) {
        int k = session_step_reaching(&v->s, STAGE_QKV);
        if (k >= 0)
            snprintf(msg, sizeof msg, _("Edit mode needs Q, K, V, computed at step %d. To change X here: :X[1][1] = 2"),
                     k + 1);
        else
            snprintf(msg, sizeof msg, "%s", _("This lesson never computes Q, K, V. To change X here: :X[1][1] = 2"));
        ui_say(v, ROLE_HINT, msg);
        return FLAG_REDRAW;
    }
    v->mode = MODE_EDIT;
    v->emat = M_Q;
    v->ei = v->fi < v->s.cur.m[M_Q].rows ? v->fi : 0;
    v->ej = 0;
    v->editing = false;
    v->field.len = v->field.pos = 0;
    v->field.buf[0] = '\0';
    ui_say_edit_mat(v);
    return FLAG_REDRAW;
}

int req_prompt(View *v, UiKey ch)
{
    v->mode = MODE_PROMPT;
    v->field.len = v->field.pos = 0;
    v->field.buf[0] = '\0';
    v->hpos = v->nhist;
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

int req_scale(View *v, UiKey ch)
{
    return ui_act(v, v->s.cur.scale == SCALE_NONE ? "scale = sqrt_dk" : "scale = none");
}

int req_softmax(View *v, UiKey ch)
{
    return ui_act(v, v->s.cur.softmax == SOFTMAX_NAIVE ? "softmax = stable" : "softmax = naive");
}

/* Apply a toggle's action and name it with its effect. */
static int toggle(View *v, const char *text, const char *what)
{
    char err[256], msg[512];
    if (!session_act_text(&v->s, text, err, sizeof err)) {
        snprintf(msg, sizeof msg, "%s: %s", text, err);
        ui_say(v, ROLE_ERROR, msg);
        return FLAG_REDRAW;
    }
    ui_say_change(v, EFFECT_ACT, what);
    return FLAG_REDRAW;
}

int req_mask(View *v, UiKey ch)
{
    bool on = v->s.cur.mask == MASK_NONE;
    return toggle(v, on ? "mask = causal" : "mask = none",
                  on ? _("causal mask on: each token sees only itself and earlier tokens") : _("causal mask off"));
}

/* Temperature halved or doubled, within its range (the option table). */
static int temp_by(View *v, double f)
{
    const OptRow *r = option_row(OPT_TEMP);
    char text[64], what[160], t[40], lo[SHORTEST_MAX], hi[SHORTEST_MAX];
    double next = v->s.cur.temp * f;
    if (next < r->lo - 1e-12 || next > r->hi + 1e-12) {
        option_bounds(r, lo, hi, sizeof lo);
        snprintf(what, sizeof what, _("The temperature stays within %s to %s; it is %s."), lo, hi,
                 fmt_exact(v->s.cur.temp, t, sizeof t));
        ui_say(v, ROLE_HINT, what);
        return FLAG_REDRAW;
    }
    fmt_exact(next, t, sizeof t);
    snprintf(text, sizeof text, "%s = %s", r->key, t);
    snprintf(what, sizeof what, "%s T = %s", _("temperature"), t);
    return toggle(v, text, what);
}

int req_cooler(View *v, UiKey ch) { return temp_by(v, 0.5); }
int req_warmer(View *v, UiKey ch) { return temp_by(v, 2.0); }

int req_pos(View *v, UiKey ch)
{
    bool on = v->s.cur.positions == POS_NONE;
    return toggle(v, on ? "positions = sinusoidal" : "positions = none",
                  on ? _("sinusoidal positions on: H = X + P") : _("positions off: H = X"));
}

int req_undo(View *v, UiKey ch)
{
    if (ui_undo_run(v))
        return FLAG_REDRAW;
    if (session_undoable(&v->s) && session_undo(&v->s))
        ui_say_change(v, EFFECT_UNDO, NULL);
    else
        ui_say(v, ROLE_HINT, _("Nothing to undo."));
    return FLAG_REDRAW;
}

int req_redo(View *v, UiKey ch)
{
    if (session_redo(&v->s))
        ui_say_change(v, EFFECT_REDO, NULL);
    else
        ui_say(v, ROLE_HINT, _("Nothing to redo."));
    return FLAG_REDRAW;
}

int req_reset(View *v, UiKey ch)
{
    int k = session_ask_retry(&v->s);
    if (v->s.nedits == 0 && k >= 0) { /* not "nothing": the answer can be tried again */
        char name[32], msg[160];
        ask_name(session_ask_at(&v->s, k), name, sizeof name);
        snprintf(msg, sizeof msg, _("Your answer to %s stays graded; type a new one (or Enter) to try again."), name);
        ui_say(v, ROLE_HINT, msg);
        return FLAG_REDRAW;
    }
    if (v->s.nedits == 0) {
        ui_say(v, ROLE_HINT, _("Nothing to reset: this is the lesson as written."));
        return FLAG_REDRAW;
    }
    return ui_act(v, "reset");
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
    ui_say(v, ROLE_HINT, msg);
    return false;
}

/* T: all of the focused row's weight on the focused key; again on the
 * same cell, no target on that row. */
int req_target(View *v, UiKey ch)
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
    return ui_act(v, text);
}

/* g and G: a gradient step, named with its effect on the focused weight
 * like every action: "one gradient step, lr 0.5: α₁₃ 0.350 → 0.387". */
int req_step(View *v, UiKey ch)
{
    if (session_is_model(&v->s))
        return model_steps(v, 1);
    return training_stage(v) ? ui_act(v, "step") : FLAG_REDRAW;
}

int req_step10(View *v, UiKey ch)
{
    if (session_is_model(&v->s))
        return model_steps(v, 100);
    return training_stage(v) ? ui_act(v, "step 10") : FLAG_REDRAW;
}

int req_lang(View *v, UiKey ch)
{
    v->lang = v->lang == LANG_ZH ? LANG_EN : LANG_ZH;
    i18n_set(v->lang, NULL);
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

int req_theme(View *v, UiKey ch)
{
    ThemeId next = (ThemeId)((v->theme + 1) % THEME_COUNT);
    v->theme = v->apply_theme ? v->apply_theme(next) : next;
    char msg[128];
    snprintf(msg, sizeof msg, _("Theme: %s"), theme_name(v->theme));
    ui_say(v, ROLE_HINT, msg);
    return FLAG_REDRAW;
}

int req_present(View *v, UiKey ch)
{
    v->present = !v->present;
    return FLAG_REDRAW;
}

int req_help(View *v, UiKey ch)
{
    v->mode = MODE_HELP;
    v->help_say = false;
    return FLAG_REDRAW;
}

/* N: the step's whole narration, in the help's place (help.c lays it out). */
int req_say(View *v, UiKey ch)
{
    v->mode = MODE_HELP;
    v->help_say = true;
    v->help_top = 0;
    return FLAG_REDRAW;
}

int req_quit(View *v, UiKey ch)
{
    if (session_dirty(&v->s)) {
        v->mode = MODE_CONFIRM;
        v->confirm = CONFIRM_QUIT;
        ui_say(v, ROLE_ERROR, _("You have unsaved edits. Quit anyway? y quits, w saves, any other key stays."));
        return FLAG_REDRAW;
    }
    return FLAG_QUIT;
}
