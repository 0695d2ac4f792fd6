/* edit.c - edit mode: a cell cursor over Q K V X Wq Wk Wv (Wo), numbers
 * typed or nudged, each change an action for the session. */
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
        ui_say(v, ROLE_ERROR, msg);
        return FLAG_REDRAW;
    }
    ui_say_change(v, EFFECT_ACT, label);
    field_set(&v->field, "");
    return FLAG_REDRAW;
}

/* The value a nudge by `by` sets, the decimal meant: 1.21 + 0.1 sets 1.31,
 * not 1.3100000000000003; a cell holding more than 15 digits (drawn, or
 * computed) moves from the digits shown: −0.041 + 0.1 sets 0.059, not
 * 0.0585207096486446, which the notice, undo and a saved lesson then wrote. */
static double nudged(double cell, double by, int digits)
{
    double shown = cell;
    if (isfinite(cell) && num_round15(cell) != cell && fabs(cell) < 1e15)
        shown = num_as_printed(cell, digits);
    return num_round15(shown + by);
}

/* Nudge the cell by `by`. Edit mode keeps Q, K and V computed (it leaves
 * when the stage drops below them), so the value read here is current. */
static int edit_nudge(View *v, double by)
{
    char label[64], step[32];
    snprintf(label, sizeof label, "%s[%d][%d] %s %s", attn_mat_name(v->emat), v->ei + 1, v->ej + 1,
             by < 0 ? (v->ascii ? "-" : "−") : "+", fmt_exact(fabs(by), step, sizeof step));
    return edit_set(v, nudged(MAT_AT(&v->s.cur.m[v->emat], v->ei, v->ej), by, v->lesson->digits), NULL, label);
}

static int edit_move(View *v, UiKey ch)
{
    v->ei += ch == UI_KEY_DOWN || ch == 'j' ? 1 : ch == UI_KEY_UP || ch == 'k' ? -1 : 0;
    v->ej += ch == UI_KEY_RIGHT || ch == 'l' ? 1 : ch == UI_KEY_LEFT || ch == 'h' ? -1 : 0;
    edit_clamp(v);
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

/* Open the number field: with the cell's value (Enter) or the first key typed. */
static int edit_open(View *v, UiKey ch)
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

static int edit_cursor_key(View *v, UiKey ch)
{
    if (ch == UI_ESC) {
        v->mode = MODE_NORMAL;
        v->msg[0] = '\0';
        return FLAG_REDRAW;
    }
    if (ch == '\t') {
        MatId cyc[sizeof edit_cycle / sizeof *edit_cycle + 1];
        size_t n = 0, k = 0;
        for (size_t m = 0; m < sizeof edit_cycle / sizeof *edit_cycle; m++) {
            if (edit_cycle[m] != M_WO || v->s.cur.has_wo)
                cyc[n++] = edit_cycle[m];
            if (edit_cycle[m] == M_X && attn_is_cross(&v->s.cur)) /* cross-attention: the source after X */
                cyc[n++] = M_XS;
        }
        while (k < n && cyc[k] != v->emat)
            k++;
        v->emat = cyc[(k + 1) % n];
        edit_clamp(v);
        ui_say_edit_mat(v);
        return FLAG_REDRAW;
    }
    if (ch == UI_KEY_UP || ch == UI_KEY_DOWN || ch == UI_KEY_LEFT || ch == UI_KEY_RIGHT ||
        (ch < 128 && strchr("hjkl", (int)ch) && ch))
        return edit_move(v, ch);
    /* + and _ (the shifted keys of = and -) nudge; - starts a negative
     * number, like a digit starts a number: typing -0.5 sets -0.5. */
    if (ch == '+' || ch == '_')
        return edit_nudge(v, ch == '+' ? 0.1 : -0.1);
    if (ui_is_enter(ch))
        return edit_open(v, 0);
    if (ch == '-' || ch == 0x2212 || (ch < 128 && (isdigit((int)ch) || ch == '.')))
        return edit_open(v, ch == 0x2212 ? '-' : ch);
    return -1; /* not ours: the normal table (n, p, s, m, u, ...) */
}

int mode_edit(View *v, UiKey ch)
{
    if (!v->editing)
        return edit_cursor_key(v, ch);
    if (ch == UI_ESC) {
        v->editing = false;
        v->msg[0] = '\0';
    } else if (ui_is_enter(ch) && v->field.buf[strspn(v->field.buf, " ")] == '\0') {
        v->editing = false; /* nothing typed: cancel, like Esc */
        field_set(&v->field, "");
        v->msg[0] = '\0';
    } else if (ui_is_enter(ch)) {
        int r = edit_set(v, 0, v->field.buf, NULL);
        if (v->msg_role != ROLE_ERROR || !v->msg[0])
            v->editing = false;
        return r;
    } else if (ch >= ' ' && ch < UI_KEY_BASE && ch != 127 && !num_char(ch)) {
        /* a key meant for the view (q, s, u): not typed into a number */
        ui_say(v, ROLE_ERROR, _("A cell takes a number: digits, - and . (like -0.5 or 1e-3). "
                                "Enter sets it; Esc closes the field first."));
    } else if (field_key(&v->field, ch) && v->msg_role == ROLE_ERROR) {
        v->msg[0] = '\0';
    }
    return FLAG_REDRAW;
}
