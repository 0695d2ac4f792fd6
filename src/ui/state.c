/* state.c - what every handler shares: the status line, applying an action,
 * the focus and where it may go (the frame's input and hits are frame.c). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/grad.h"
#include "lesson/save.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "ui_int.h"


void ui_say(View *v, Role r, const char *msg)
{
    snprintf(v->msg, sizeof v->msg, "%s", msg);
    v->msg_role = r;
}

/* Name the change the session just made on the status line, with its
 * effect on the focused result (effect_status: one place for every
 * change's status), as `label` when not NULL. */
void ui_say_change(View *v, EffectWhat what, const char *label)
{
    char msg[sizeof v->msg];
    MatId m;
    int i, j;
    view_clamp_focus(v);
    view_explained(v, &m, &i, &j);
    effect_status(&v->s, what, label, m, i, j, v->ascii, msg, sizeof msg);
    ui_say(v, ROLE_HINT, msg);
}

/* Apply one action through the session, the only way numbers change, and
 * name it on the status line (or say why it was refused). */
int ui_act(View *v, const char *text)
{
    char err[256], msg[512];
    if (!session_act_text(&v->s, text, err, sizeof err)) {
        snprintf(msg, sizeof msg, "%s: %s", text, err);
        ui_say(v, ROLE_ERROR, msg);
    } else {
        ui_say_change(v, EFFECT_ACT, NULL);
    }
    return FLAG_REDRAW;
}

void ui_moved(View *v)
{
    view_focus_from_step(v);
    v->msg[0] = '\0';
}

bool ui_is_enter(UiKey ch)
{
    return ch == '\r' || ch == '\n' || ch == UI_KEY_ENTER;
}

bool ui_is_backspace(UiKey ch)
{
    return ch == UI_KEY_BACKSPACE || ch == 127 || ch == 8;
}

/* Can ch start an answer (a digit, a sign, a decimal point)? */
bool ui_answer_key(UiKey ch)
{
    return (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == 0x2212;
}

/* Say which matrix edit mode is on. */
void ui_say_edit_mat(View *v)
{
    char msg[256];
    snprintf(msg, sizeof msg, _("Edit mode on %s: every change is an action, so u undoes it."),
             attn_mat_name(v->emat));
    ui_say(v, ROLE_HINT, msg);
}

/* Move the focus by (di, dj), kept inside the stage's matrices. */
int ui_focus_by(View *v, int di, int dj)
{
    v->fi += di;
    v->fj += dj;
    view_clamp_focus(v);
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

/* ---- focus ------------------------------------------------------------------- */

MatId view_focus_mat(const View *v)
{
    if (v->mode == MODE_EDIT)
        return v->emat;
    int st = session_stage(&v->s);
    return layout_focus_mat(st, v->fmat);
}

void view_explained(const View *v, MatId *m, int *i, int *j)
{
    int st = session_stage(&v->s);
    if (v->mode == MODE_EDIT && st <= STAGE_QKV) {
        *m = v->emat;
        *i = v->ei;
        *j = v->ej;
        return;
    }
    *m = layout_focus_mat(st, v->fmat);
    *i = v->fi;
    *j = v->fj;
}

/* The focus (fi, fj) indexes the stage's matrix, in edit mode too: from
 * stage 3 on, edit mode's arithmetic works out the stage's focused cell. */
void view_clamp_focus(View *v)
{
    layout_clamp_focus(&v->s, &v->fi, &v->fj, v->fmat);
}

void view_focus_from_step(View *v)
{
    layout_focus_step(&v->s, &v->fi, &v->fj, &v->frow, &v->fmat);
}
