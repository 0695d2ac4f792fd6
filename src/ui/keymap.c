/* keymap.c - the one key table: REQUESTS (ui_int.h) and BINDINGS bind keys
 * to requests; the same tables write the help's lines and the key bar. */
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

/* key (a character or a UI_KEY_ code), label in help (NULL: silent alias), request.
 * A request whose help is NULL shares the line of the one before it. */
#define BINDINGS(X) \
    X(' ', "Space", REQ_NEXT)      X('\r', "Enter", REQ_NEXT)   X('\n', NULL, REQ_NEXT) \
    X(UI_KEY_ENTER, NULL, REQ_NEXT)   X(UI_KEY_NPAGE, "PgDn", REQ_NEXT) X('n', "n", REQ_NEXT) \
    X(UI_KEY_BACKSPACE, "Backspace", REQ_PREV) X(127, NULL, REQ_PREV) X(8, NULL, REQ_PREV) \
    X(UI_KEY_PPAGE, "PgUp", REQ_PREV) X('p', "p", REQ_PREV)        X('b', "b", REQ_PREV) \
    X(UI_KEY_HOME, "Home", REQ_FIRST) X(UI_KEY_END, "End", REQ_LAST) \
    X('1', "1-6", REQ_STAGE) X('2', NULL, REQ_STAGE) X('3', NULL, REQ_STAGE) \
    X('4', NULL, REQ_STAGE)  X('5', NULL, REQ_STAGE) X('6', NULL, REQ_STAGE) \
    X('7', NULL, REQ_STAGE)  X('8', NULL, REQ_STAGE) /* a model lesson's FFN and next */ \
    X(UI_KEY_UP, "Up", REQ_UP)        X('k', "k", REQ_UP) \
    X(UI_KEY_DOWN, "Down", REQ_DOWN)  X('j', "j", REQ_DOWN) \
    X(UI_KEY_LEFT, "Left", REQ_LEFT)  X('h', "h", REQ_LEFT) \
    X(UI_KEY_RIGHT, "Right", REQ_RIGHT) X('l', "l", REQ_RIGHT) \
    X('e', "e", REQ_EDIT)          X(':', ":", REQ_PROMPT) \
    X('s', "s", REQ_SCALE)         X('m', "m", REQ_SOFTMAX) \
    X('c', "c", REQ_MASK)          X('<', "<", REQ_COOLER)     X('>', ">", REQ_WARMER) \
    X('o', "o", REQ_POS) \
    X('u', "u", REQ_UNDO)          X(CTRL('r'), "Ctrl-R", REQ_REDO) X('r', "r", REQ_RESET) \
    X('w', "w", REQ_SAVE)          X('-', "0-9, -", REQ_ANSWER) X('L', "L", REQ_LANG) \
    X('t', "t", REQ_THEME)         X('P', "P", REQ_PRESENT) \
    X('[', "[", REQ_HEAD_PREV)     X(']', "]", REQ_HEAD_NEXT) \
    X('T', "T", REQ_TARGET)        X('g', "g", REQ_STEP)        X('G', "G", REQ_STEP10) \
    X('N', "N", REQ_SAY) \
    X('{', "{", REQ_LAYER_PREV)    X('}', "}", REQ_LAYER_NEXT)  X('M', "M", REQ_MODEL_VIEW) \
    X('i', "i", REQ_TOKENS)        X('W', "W", REQ_WATCH) \
    X('?', "?", REQ_HELP)          X('q', "q", REQ_QUIT)        X(CTRL('c'), "Ctrl-C", REQ_QUIT)

static const struct {
    UiKey key;
    const char *label;
    Request req;
} bindings[] = {
#define BIND_ROW(k, label, req) {k, label, req},
    BINDINGS(BIND_ROW)
#undef BIND_ROW
};

#define NBIND (sizeof bindings / sizeof *bindings)

static const struct {
    const char *help, *bar;
    Handler fn;
} requests[REQ_COUNT] = {
#define REQ_ROW(id, help, bar, fn) [id] = {help, bar, fn},
    REQUESTS(REQ_ROW)
#undef REQ_ROW
};

int keymap_normal_key(View *v, UiKey ch)
{
    for (size_t k = 0; k < NBIND; k++)
        if (bindings[k].key == ch)
            return requests[bindings[k].req].fn(v, ch);
    return FLAG_NONE;
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
/* The requests only a model lesson answers (its layers, model view, input
 * and watch mode): a one-layer lesson's help leaves them out, so it still
 * fits 80x24 whole. */
static bool model_only(int r)
{
    return r == REQ_LAYER_PREV || r == REQ_LAYER_NEXT || r == REQ_MODEL_VIEW || r == REQ_TOKENS || r == REQ_WATCH;
}

void keys_help_lines(void (*line)(const char *keys, const char *help, void *ctx), void *ctx)
{
    keys_help_lines_in(true, line, ctx);
}

void keys_help_lines_in(bool model, void (*line)(const char *keys, const char *help, void *ctx), void *ctx)
{
    char keys[160], more[96];
    for (int r = 0; r < REQ_COUNT; r++) {
        if (!requests[r].help || (!model && model_only(r)))
            continue;
        labels_of((Request)r, keys, sizeof keys);
        for (int k = r + 1; k < REQ_COUNT && !requests[k].help; k++) {
            labels_of((Request)k, more, sizeof more);
            snprintf(keys + strlen(keys), sizeof keys - strlen(keys), " / %s", more);
        }
        line(keys, requests[r].help, ctx);
    }
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
    int room = v->cols - 3 - text_width(label);
    const char *start = v->field.buf, *cur = v->field.buf + v->field.pos;
    char before[PROMPT_MAX];
    for (;;) {
        snprintf(before, sizeof before, "%.*s", (int)(cur - start), start);
        if (text_width(before) < room || start >= cur)
            break;
        start = v->field.buf + text_char_next(v->field.buf, SIZE_MAX, (size_t)(start - v->field.buf));
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
    view_keybar(v->ascii, session_ask_open(&v->s) >= 0 || session_ask_retry(&v->s) >= 0, v->cols, buf, len);
}

/* The key bar for (ascii, asking, cols) in the language now, into buf. */
static void keybar_make(bool ascii, bool asking, int cols, char *buf, size_t len)
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

/* The same bar comes back frame after frame: it is made again only when
 * what it depends on changed (not once per keypress). */
void view_keybar(bool ascii, bool asking, int cols, char *buf, size_t len)
{
    static struct {
        bool made, ascii, asking;
        int cols;
        unsigned gen;
        char bar[FMT_LINE];
    } last;
    unsigned gen = i18n_generation();
    if (!last.made || last.ascii != ascii || last.asking != asking || last.cols != cols || last.gen != gen) {
        keybar_make(ascii, asking, cols, last.bar, sizeof last.bar);
        last.made = true;
        last.ascii = ascii;
        last.asking = asking;
        last.cols = cols;
        last.gen = gen;
    }
    snprintf(buf, len, "%s", last.bar);
}
