/* field.c - the one-line text field (prompt, cell editor, file name) and
 * the ':' prompt with its history. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wchar.h>

#include "core/grad.h"
#include "lesson/save.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "ui_int.h"

/* ---- the text field (prompt, cell editor, file name) ------------------------------- */

void field_set(Field *f, const char *s)
{
    snprintf(f->buf, sizeof f->buf, "%s", s);
    f->len = f->pos = (int)strlen(f->buf);
}

/* Step back or forward over one UTF-8 character. */
static int field_char_prev(const Field *f, int pos)
{
    return (int)text_char_prev(f->buf, (size_t)pos);
}

static int field_char_next(const Field *f, int pos)
{
    return (int)text_char_next(f->buf, (size_t)f->len, (size_t)pos);
}

void field_insert(Field *f, UiKey ch)
{
    char mb[8];
    size_t n = text_utf8_put_valid((uint32_t)ch, mb);
    if (n == 0 || f->len + (int)n >= PROMPT_MAX - 1)
        return;
    memmove(f->buf + f->pos + n, f->buf + f->pos, (size_t)(f->len - f->pos + 1));
    memcpy(f->buf + f->pos, mb, n);
    f->len += (int)n;
    f->pos += (int)n;
}

/* Line editing keys shared by every field. Returns true if ch was one. */
bool field_key(Field *f, UiKey ch)
{
    if (ch == UI_KEY_LEFT)
        f->pos = field_char_prev(f, f->pos);
    else if (ch == UI_KEY_RIGHT)
        f->pos = field_char_next(f, f->pos);
    else if (ch == UI_KEY_HOME)
        f->pos = 0;
    else if (ch == UI_KEY_END)
        f->pos = f->len;
    else if (ch == UI_KEY_BACKSPACE || ch == 127 || ch == 8) {
        int p = field_char_prev(f, f->pos);
        memmove(f->buf + p, f->buf + f->pos, (size_t)(f->len - f->pos + 1));
        f->len -= f->pos - p;
        f->pos = p;
    } else if (ch == CTRL('u'))
        field_set(f, "");
    else if (ch >= ' ' && ch < UI_KEY_BASE && ch != 127)
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
        ui_say(v, ROLE_ERROR, err); /* the prompt stays open with the text */
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
        ui_say_change(v, EFFECT_ACT, what);
    } else {
        ui_say_change(v, EFFECT_ACT, NULL);
    }
    return FLAG_REDRAW;
}

int mode_prompt(View *v, UiKey ch)
{
    if (ch == UI_ESC) {
        v->mode = MODE_NORMAL;
        v->msg[0] = '\0';
    } else if (ui_is_enter(ch))
        return prompt_enter(v);
    else if (ch == UI_KEY_UP || ch == UI_KEY_DOWN) {
        v->hpos += ch == UI_KEY_UP ? -1 : 1;
        v->hpos = v->hpos < 0 ? 0 : v->hpos > v->nhist ? v->nhist : v->hpos;
        field_set(&v->field, v->hpos < v->nhist ? v->history[v->hpos] : "");
    } else if (field_key(&v->field, ch))
        v->msg[0] = '\0';
    return FLAG_REDRAW;
}
