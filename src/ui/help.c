/* help.c - the help screen as lines wrapped to the screen, scrolled where
 * it does not fit (the back end paints them). */
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

/* The help's lines, wrapped to the screen: each key line's description
 * wraps under itself (nothing is cut on the right), then a blank line and
 * the edit-mode keys. */

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

/* The keys: the table, then the marks' legend and the edit-mode keys. */
static void help_keys(View *v, HelpText *h)
{
    const char *edit = _("Edit mode: arrows move, Tab cycles Q K V X Wq Wk Wv (Wo), a number (-0.5 too) then Enter sets, + / _ nudge by 0.1, Esc leaves.");
    int kw = 0, cols = v->cols;
    bool model = session_is_model(&v->s);
    keys_help_lines_in(model, help_key_width, &kw);
    h->kx = 2;
    h->tx = cols >= 80 ? 32 : 2 + kw + 2; /* 80 columns and up: the table as it always was */
    h->w = cols - 1 - h->tx;
    keys_help_lines_in(model, help_collect, h);
    /* Under the table, from column 2: the legend of the change marks'
     * fallback (box.c: a changed number whose cell has no room for its
     * mark is underlined), where a blank line was, so the help still fits
     * 80x24 whole; then the edit-mode keys. */
    const char *legend = v->ascii ? _("underlined: changed, no room for its ^/v")
                                  : _("underlined: changed, no room for its ▲/▼");
    h->first_edit = h->n;
    help_wrap(h, NULL, legend, 2, cols - 3);
    help_wrap(h, NULL, edit, 2, cols - 3);
    snprintf(h->title, sizeof h->title, "%s", _("qkvtutor keys  (Esc, ? or q closes this help)"));
}

/* N: the step's whole narration as the screen would show it (open asks as
 * "?"), or on the title card the lesson's about:, wrapped to the screen. */
static void help_narration(View *v, HelpText *h)
{
    char *say = v->card ? lesson_about_text(v->lesson, v->lang, v->ascii) : session_say(&v->s, v->lang, v->ascii);
    char *safe = say ? fmt_prose(say, v->ascii) : NULL;
    snprintf(h->body, sizeof h->body, "%s", safe && *safe ? safe : _("This step says nothing."));
    free(safe);
    free(say);
    h->kx = h->tx = 2;
    h->w = v->cols - 4;
    help_wrap(h, NULL, h->body, 2, h->w);
    h->first_edit = h->n; /* every line in the text's own look */
    snprintf(h->title, sizeof h->title, "%s", _("The whole narration  (Esc, N or q closes)"));
}

void ui_help(View *v, HelpText *h)
{
    memset(h, 0, sizeof *h);
    if (v->help_say)
        help_narration(v, h);
    else
        help_keys(v, h);
    /* Rows 2 .. rows-1; when it does not all fit, the last row says how to scroll. */
    int avail = v->rows - 2;
    h->scroll = h->n > avail;
    v->help_page = h->scroll ? avail - 1 : avail;
    v->help_max = h->scroll ? h->n - v->help_page : 0;
    if (v->help_top > v->help_max)
        v->help_top = v->help_max;
    if (h->scroll)
        snprintf(h->more, sizeof h->more,
                 v->ascii ? _("lines %d-%d of %d - Down j PgDn Space more - Up k PgUp back")
                          : _("lines %d-%d of %d · ↓ j PgDn Space more · ↑ k PgUp back"),
                 v->help_top + 1, v->help_top + v->help_page, h->n);
}
