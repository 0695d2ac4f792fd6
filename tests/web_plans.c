/* web_plans.c - the terminal's screens of every built-in lesson, for
 * tests/web.py to set against the browser page's (DESIGN.md "In the
 * browser": every step's plan text in the page equals the native build's).
 *
 * Usage: web_plans LOCALEDIR COLS ROWS en|zh
 * For each built-in lesson, opened as the page opens it (its start, the
 * title card first, theme dark), the real view drawn on a headless screen
 * (tests/screen.c), then "n" pressed 2 x steps + 1 times (a question's
 * first n reveals it), the screen printed after each:
 *   @@ lesson N frame K
 *   <ROWS lines: screen_text, trailing blanks trimmed>
 * The page does the same keys through web_key (tests/web.py).
 *
 * Usage: web_plans LOCALEDIR COLS ROWS en|zh LESSON AT KEYS [present]
 * One screen: built-in lesson LESSON opened at step AT (0: its start, with
 * the title card), KEYS typed (characters; "\r" is Enter), then drawn.
 *
 * Usage: web_plans LOCALEDIR COLS ROWS en|zh LESSON AT KEYS losses
 * The same, then the loss of every training step taken (g, G; one a line,
 * %.17g: the double exactly), for the page's web_losses(). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/embedded.h"
#include "lesson/lesson.h"
#include "screen.h"
#include "term/view.h"
#include "ui/ui.h" /* the View's session, for the losses */
#include "text/i18n.h"

/* Built-in lesson n in *l, its view opened at step `at`; NULL (the error
 * told) when it cannot be. */
static View *open_view(int n, Lang lang, int at, bool present, Lesson *l)
{
    const EmbeddedLesson *e = &embedded_lessons[n];
    char err[LESSON_ERR_MAX];
    if (!lesson_load_buffer(e->name, e->data, e->len, l, err, sizeof err)) {
        fprintf(stderr, "web_plans: %s\n", err);
        return NULL;
    }
    ViewOpt o = {lang, false, "dark", present, at, true, NULL};
    View *v = view_new(l, &o);
    if (!v)
        lesson_free(l);
    return v;
}

static int lesson_frames(int n, Lang lang)
{
    Lesson l;
    View *v = open_view(n, lang, 0, false, &l);
    if (!v)
        return 2;
    int rc = 0;
    for (int k = 0; rc == 0 && k <= 2 * l.nsteps + 1; k++) {
        if (k)
            view_keys(v, "n");
        view_draw(v);
        char *text = screen_text();
        if (text)
            printf("@@ lesson %d frame %d\n%s", n + 1, k, text);
        rc = text ? 0 : 2;
        free(text);
    }
    view_free(v);
    lesson_free(&l);
    return rc;
}

/* One lesson at step `at`, keys typed, the screen (or the losses) printed. */
static int lesson_keys(int n, Lang lang, int at, const char *keys, bool present, bool losses)
{
    Lesson l;
    View *v = open_view(n, lang, at, present, &l);
    if (!v)
        return 2;
    view_draw(v);
    view_keys(v, keys);
    view_draw(v);
    if (losses) {
        const double *loss = NULL;
        int nl = session_loss_history(&v->s, &loss);
        for (int k = 0; k < nl; k++)
            printf("%.17g\n", loss[k]);
        view_free(v);
        lesson_free(&l);
        return 0;
    }
    char *text = screen_text();
    if (text)
        fputs(text, stdout);
    free(text);
    view_free(v);
    lesson_free(&l);
    return text ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 8 && argc != 9) {
        fprintf(stderr, "usage: web_plans LOCALEDIR COLS ROWS en|zh [LESSON AT KEYS [present|losses]]\n");
        return 2;
    }
    int cols = atoi(argv[2]), rows = atoi(argv[3]);
    Lang lang = argv[4][0] == 'z' ? LANG_ZH : LANG_EN;
    setenv("TERM", "xterm-256color", 1);
    if (!screen_open(rows, cols)) {
        fprintf(stderr, "web_plans: no headless screen\n");
        return 2;
    }
    i18n_set(lang, argv[1]);
    int rc = 0;
    if (argc >= 8) {
        int n = atoi(argv[5]);
        bool losses = argc == 9 && strcmp(argv[8], "losses") == 0;
        rc = n >= 1 && n <= embedded_count ? lesson_keys(n - 1, lang, atoi(argv[6]), argv[7], argc == 9 && !losses, losses)
                                           : 2;
        screen_close();
        return rc;
    }
    for (int n = 0; n < embedded_count && rc == 0; n++)
        rc = lesson_frames(n, lang);
    screen_close();
    return rc;
}
