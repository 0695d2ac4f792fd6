/* dispatch.c - one key or mouse event to the current mode's handler, then
 * the normal table; a mouse click focuses the plan cell under it. */
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

/* ---- the mouse: a click focuses a cell (selects it in edit mode), the
 * wheel moves the focus and so scrolls large matrices ---- */

int keys_mouse(View *v, int y, int x, UiMouse m)
{
    MatId id;
    int i, j, role;
    if (m == UI_MOUSE_WHEEL_UP || m == UI_MOUSE_WHEEL_DOWN)
        return ui_focus_by(v, m == UI_MOUSE_WHEEL_UP ? -1 : 1, 0);
    if (m != UI_MOUSE_CLICK || !view_hit(v, y, x, &id, &i, &j, &role))
        return FLAG_NONE;
    if (v->mode == MODE_EDIT && id <= M_V) {
        v->emat = id;
        v->ei = i;
        v->ej = j;
        v->editing = false;
        ui_say_edit_mat(v);
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
    return ui_focus_by(v, 0, 0);
}

/* ---- dispatch ---------------------------------------------------------------------------- */

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
        return keys_handle(v, UI_ESC);
    case MODE_CONFIRM:
        return mode_confirm(v, CTRL('c'));
    case MODE_EDIT:
        if (v->editing)
            return mode_edit(v, UI_ESC);
        break;
    case MODE_NORMAL:
        break;
    }
    return req_quit(v, CTRL('c'));
}

int keys_handle(View *v, UiKey ch)
{
    int r = -1;
    if (v->watch && ch != UI_KEY_RESIZE)
        return ui_watch_stop(v); /* any key stops the watch mode, Ctrl-C too */
    if (ch == CTRL('c'))
        return interrupt_key(v);
    switch (v->mode) {
    case MODE_HELP:    return mode_help(v, ch);
    case MODE_PROMPT:  return mode_prompt(v, ch);
    case MODE_SAVE:    return mode_save(v, ch);
    case MODE_CONFIRM: return mode_confirm(v, ch);
    case MODE_ANSWER:  return mode_answer(v, ch);
    case MODE_EDIT:    r = mode_edit(v, ch); break;
    case MODE_NORMAL:  break;
    }
    if (r >= 0)
        return r;
    if (v->card && v->mode == MODE_NORMAL && ch == 'N')
        return req_say(v, ch); /* the title card's whole about:, and the card stays */
    if (v->card && v->mode == MODE_NORMAL && ch != UI_KEY_RESIZE) {
        v->card = false; /* any key leaves the title card for step 1; q and ? also do their own */
        v->msg[0] = '\0';
        if (ch >= UI_KEY_BASE || (ch != 'q' && ch != '?'))
            return FLAG_REDRAW;
    }
    /* An open question takes digits (1-5 do not jump then) and signs. */
    if (v->mode == MODE_NORMAL && ui_answer_key(ch) && session_ask_open(&v->s) >= 0)
        return req_answer(v, ch);
    /* A question answered wrong: typing starts a new answer, Enter opens the
     * field with the answer given, Backspace edits it. */
    if (v->mode == MODE_NORMAL && session_ask_open(&v->s) < 0 && session_ask_retry(&v->s) >= 0 &&
        (ui_answer_key(ch) || ui_is_enter(ch) || ui_is_backspace(ch)))
        return req_answer(v, ch);
    /* Backspace at a question deletes what was typed, and never goes back a step. */
    if (v->mode == MODE_NORMAL && ui_is_backspace(ch) && session_ask_open(&v->s) >= 0)
        return req_answer(v, ch);
    r = keymap_normal_key(v, ch);
    if (v->mode == MODE_EDIT && session_stage(&v->s) < STAGE_QKV) {
        v->mode = MODE_NORMAL; /* Q, K, V are not computed before stage 2 */
        ui_say(v, ROLE_HINT, _("Edit mode left: Q, K and V are computed from stage 2 on."));
    }
    return r;
}
