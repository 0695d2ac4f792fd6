/* answer.c - exercises: the answer field of an ask: step, grading, revealing. */
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

/* ---- exercises: the answer field of an ask: step ------------------------------------ */

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

/* The answer graded wrong to the question asked again now ("" if none). */
static const char *kept_answer(const View *v)
{
    int k = session_ask_retry(&v->s);
    return session_ask_open(&v->s) < 0 && k >= 0 && k == v->kept_ask && v->s.step == v->kept_step ? v->kept : "";
}

/* A digit, a sign or '-' opens the field with it, a new answer. At a
 * question answered wrong, Enter opens the field empty for a new answer
 * (it opened with the old one and appended to it), and Backspace opens it
 * with that answer and deletes its last character, to correct it.
 * Backspace with nothing to delete stays at the question (it does not go
 * back a step). */
int req_answer(View *v, UiKey ch)
{
    if (session_ask_open(&v->s) < 0 && session_ask_retry(&v->s) < 0) {
        ui_say(v, ROLE_HINT, _("There is no question at this step."));
        return FLAG_REDRAW;
    }
    bool again = ui_is_enter(ch) || ui_is_backspace(ch); /* not an answer's first character */
    if (ui_is_backspace(ch) && !kept_answer(v)[0]) {
        ui_say(v, ROLE_HINT, _("Nothing typed to delete: type your answer. PgUp goes back a step."));
        return FLAG_REDRAW;
    }
    v->mode = MODE_ANSWER;
    field_set(&v->field, ui_is_backspace(ch) ? kept_answer(v) : "");
    if (ui_is_backspace(ch))
        field_key(&v->field, ch);
    else if (ch && !again)
        field_insert(&v->field, ch);
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

/* Next at an open question reveals every open ask of the step (and every
 * one answered wrong), and says the values: "Revealed: S[1][2] = 0.006.
 * Space goes on." */
void answer_reveal(View *v)
{
    char list[sizeof v->msg / 2] = "", name[32], vals[96], msg[sizeof v->msg];
    FmtOpt fo = {v->lesson->digits, v->ascii, false};
    const Ask *last = NULL;
    for (int k = 0; k < session_ask_count(&v->s); k++)
        if (session_ask_state(&v->s, k) == ASK_OPEN || session_ask_state(&v->s, k) == ASK_WRONG) {
            last = session_ask_at(&v->s, k);
            ask_name(last, name, sizeof name);
            session_ask_values(&v->s, last, &fo, vals, sizeof vals);
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s = %s", list[0] ? "; " : "", name, vals);
        }
    session_ask_reveal(&v->s);
    if (last)
        focus_ask(v, last);
    snprintf(msg, sizeof msg, _("Revealed: %s. Space goes on."), list);
    ui_say(v, ROLE_HINT, msg);
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
        ui_say(v, ROLE_ERROR, msg[0] ? msg : _("There is no question at this step."));
        if (!msg[0])
            v->mode = MODE_NORMAL;
        return FLAG_REDRAW;
    }
    v->mode = MODE_NORMAL;
    if (g == GRADE_WRONG) { /* kept for Enter and Backspace to correct */
        snprintf(v->kept, sizeof v->kept, "%s", v->field.buf);
        v->kept_step = v->s.step;
        v->kept_ask = k;
    }
    if (a)
        focus_ask(v, a);
    ui_say(v, g == GRADE_RIGHT ? ROLE_HINT : ROLE_ERROR, msg);
    return FLAG_REDRAW;
}

int mode_answer(View *v, UiKey ch)
{
    if (ch == UI_ESC) {
        v->mode = MODE_NORMAL;
        v->msg[0] = '\0';
    } else if (ui_is_enter(ch)) {
        return answer_enter(v);
    } else if (ch >= ' ' && ch < UI_KEY_BASE && ch != 127 && !ask_answer_char(ch)) {
        /* a key meant for the view (s, m, [, ?): not typed into a number */
        ui_say(v, ROLE_ERROR, _("An answer is numbers: digits, - and . (a row's numbers separated by commas). "
                               "Enter grades it; Esc closes the answer field first."));
    } else if (field_key(&v->field, ch)) {
        if (v->msg_role == ROLE_ERROR)
            v->msg[0] = '\0';
    }
    return FLAG_REDRAW;
}
