/* svg_screen.c - the terminal's screen of a step, for tests/svg.sh to set
 * against the SVG of the same step.
 *
 * Usage: svg_screen LOCALEDIR LESSON.yaml STEP COLS ROWS en|zh THEME [present]
 * Draws the real view on a headless screen (tests/screen.c) at COLS x ROWS:
 * the lesson opened at its first step, then "n" pressed and the frame drawn
 * until STEP, as a class steps through it (twice at a question: the first
 * reveals it), and prints the screen as text
 * (screen_text: one line per row, trailing blanks trimmed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/i18n.h"
#include "lesson/lesson.h"
#include "screen.h"
#include "term/view.h"

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: svg_screen LOCALEDIR LESSON STEP COLS ROWS en|zh THEME [present]\n");
        return 2;
    }
    int step = atoi(argv[3]), cols = atoi(argv[4]), rows = atoi(argv[5]);
    Lang lang = strcmp(argv[6], "zh") == 0 ? LANG_ZH : LANG_EN;
    char err[LESSON_ERR_MAX];
    Lesson l;
    setenv("TERM", "xterm-256color", 1);
    if (!screen_open(rows, cols)) {
        fprintf(stderr, "svg_screen: no headless screen\n");
        return 2;
    }
    i18n_set(lang, argv[1]);
    if (!lesson_load_file(argv[2], &l, err, sizeof err)) {
        screen_close();
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    l.start = 0; /* from the first step, as --svg steps */
    ViewOpt o = {lang, false, argv[7], argc > 8 && strcmp(argv[8], "present") == 0, 0, false, NULL};
    View *v = view_new(&l, &o);
    if (!v) {
        screen_close();
        return 2;
    }
    view_draw(v);
    for (int k = 1; k < step; k++) {
        view_keys(v, l.steps[k - 1].nask ? "nn" : "n"); /* at a question, next reveals first */
        view_draw(v);
    }
    char *text = screen_text();
    view_free(v);
    screen_close();
    lesson_free(&l);
    if (!text)
        return 2;
    fputs(text, stdout);
    free(text);
    return 0;
}
