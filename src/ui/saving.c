/* saving.c - w: a file name, a confirmation before overwriting, an atomic
 * write (lesson_save); the help screen's keys and the quit confirmation. */
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

/* ---- saving (w): a name, a confirmation before overwriting, an atomic write ---- */

/* Would the lesson saved from this state pass its own --check? The view's
 * back end hands down the real one (v->save_check: --check's loader and
 * checks, narration at 80x24 included); without one, the loader's. False,
 * with --check's first message in msg, when it would not. */
static bool save_checks(View *v, char *msg, size_t len)
{
    size_t n = 0;
    char *text = lesson_save_text(&v->s, &n), why[512];
    if (!text || n > LESSON_MAX_BYTES) { /* out of memory, or too big to load: lesson_save says so itself */
        free(text);
        return true;
    }
    int rc = 0;
    Lesson l;
    if (v->save_check)
        rc = v->save_check(v->save_path, text, n, why, sizeof why);
    else if (lesson_load_buffer(v->save_path, text, n, &l, why, sizeof why))
        lesson_free(&l);
    else
        rc = 2;
    free(text);
    if (rc != 0)
        snprintf(msg, len, _("Not saved: qkvtutor --check would refuse the saved lesson: %s."), why);
    return rc == 0;
}

static int do_save(View *v)
{
    char err[1024], msg[PROMPT_MAX + 160];
    v->mode = MODE_NORMAL;
    if (!save_checks(v, err, sizeof err)) {
        ui_say(v, ROLE_ERROR, err);
        return FLAG_REDRAW;
    }
    if (!lesson_save(&v->s, v->save_path, err, sizeof err)) {
        ui_say(v, ROLE_ERROR, err);
        return FLAG_REDRAW;
    }
    session_mark_saved(&v->s);
    snprintf(msg, sizeof msg, _("Saved. Open it later with: qkvtutor %s"), v->save_path);
    ui_say(v, ROLE_HINT, msg);
    return FLAG_REDRAW;
}

int req_save(View *v, UiKey ch)
{
    char name[PROMPT_MAX];
    lesson_save_name(v->lesson, name, sizeof name);
    v->mode = MODE_SAVE;
    field_set(&v->field, name);
    ui_say(v, ROLE_HINT, _("Save as a new lesson: Enter saves, Ctrl-U clears the name, Esc cancels."));
    return FLAG_REDRAW;
}

int mode_save(View *v, UiKey ch)
{
    struct stat st;
    if (ch == UI_ESC) {
        v->mode = MODE_NORMAL;
        ui_say(v, ROLE_HINT, _("Not saved."));
    } else if (ui_is_enter(ch)) {
        if (v->field.len == 0)
            return FLAG_REDRAW;
        snprintf(v->save_path, sizeof v->save_path, "%s", v->field.buf);
        if (stat(v->save_path, &st) != 0)
            return do_save(v);
        char bad[PROMPT_MAX + 160];
        if (!lesson_save_target(v->save_path, bad, sizeof bad)) {
            ui_say(v, ROLE_ERROR, bad); /* the prompt stays open to fix the name */
            return FLAG_REDRAW;
        }
        char msg[PROMPT_MAX + 128];
        snprintf(msg, sizeof msg, _("%s exists. Overwrite it? y overwrites, any other key cancels."), v->save_path);
        ui_say(v, ROLE_ERROR, msg);
        v->mode = MODE_CONFIRM;
        v->confirm = CONFIRM_OVERWRITE;
    } else {
        field_key(&v->field, ch);
    }
    return FLAG_REDRAW;
}

/* ---- help and confirmation ------------------------------------------------------------ */

/* The help closes with Esc, ? or q, and scrolls where it does not fit:
 * Down, j one line; PgDn, Space a page; Up, k, PgUp, Backspace, b back;
 * Home, End. (help_page and help_max come from the last help drawn.) */
int mode_help(View *v, UiKey ch)
{
    int page = v->help_page > 1 ? v->help_page - 1 : 1;
    if (ch == UI_ESC || ch == '?' || ch == 'q' || ch == 'N') {
        v->mode = MODE_NORMAL;
        v->help_top = 0;
        v->help_say = false;
    } else if (ch == UI_KEY_DOWN || ch == 'j')
        v->help_top++;
    else if (ch == UI_KEY_NPAGE || ch == ' ')
        v->help_top += page;
    else if (ch == UI_KEY_UP || ch == 'k')
        v->help_top--;
    else if (ch == UI_KEY_PPAGE || ch == UI_KEY_BACKSPACE || ch == 'b' || ch == 127 || ch == 8)
        v->help_top -= page;
    else if (ch == UI_KEY_HOME)
        v->help_top = 0;
    else if (ch == UI_KEY_END)
        v->help_top = v->help_max;
    v->help_top = v->help_top > v->help_max ? v->help_max : v->help_top < 0 ? 0 : v->help_top;
    return FLAG_REDRAW;
}

int mode_confirm(View *v, UiKey ch)
{
    bool yes = ch == 'y' || ch == 'Y';
    v->mode = MODE_NORMAL;
    v->msg[0] = '\0';
    if (v->confirm == CONFIRM_OVERWRITE) {
        if (yes)
            return do_save(v);
        ui_say(v, ROLE_HINT, _("Not saved."));
        return FLAG_REDRAW;
    }
    if (yes)
        return FLAG_QUIT;
    if (ch == 'w')
        return req_save(v, ch);
    return FLAG_REDRAW;
}
