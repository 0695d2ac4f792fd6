/* watchbench.c - the watch mode's budget (DESIGN.md "Speed and limits"):
 * lesson 18 from its random weights, W pressed on a headless 80x24 screen,
 * then the frames the terminal loop draws while no key comes (view_tick:
 * a batch of training steps, then the frame drawn and sent, as the
 * terminal loop does). It reads each layer-2 head's induction score back from the screen,
 * as the class sees it ("ind  0.62" under "L2.H1"), and prints the frames
 * per second and the time until a layer-2 head's score first passes 0.5.
 *
 *   watchbench LESSON [SECONDS]   (SECONDS: the hang guard, 120 unless given)
 *
 * Output: "watch: frames N seconds S fps F steps K passed T" (T: seconds
 * until the score passed 0.5, -1 if it did not within the guard), then
 * "watch: score X" (the last L2 induction score read). Exit 0 when both
 * were measured, 1 when the screen held no score to read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lesson/lesson.h"
#include "screen.h"
#include "term/view.h"
#include "text/i18n.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The best layer-2 induction score on the screen: the row of head names
 * ("L1.H1  L1.H2  L2.H1 ...") and the row of "ind" values under it, matched
 * by column. -1 when the screen shows none. */
static double screen_l2_induction(void)
{
    char *text = screen_text();
    double best = -1;
    const char *names = NULL;
    for (char *line = text; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (strstr(line, "L1.H1"))
            names = line;
        else if (names && strstr(line, "ind ")) {
            /* for each "L2.Hk" in the names row, the number after "ind" at its column */
            for (const char *p = strstr(names, "L2.H"); p; p = strstr(p + 1, "L2.H")) {
                size_t col = (size_t)(p - names);
                if (strlen(line) <= col)
                    break;
                const char *q = strstr(line + col, "ind");
                double x;
                if (q && (size_t)(q - line) < col + 3 && sscanf(q + 3, "%lf", &x) == 1 && x > best)
                    best = x;
            }
            break;
        }
        line = end ? end + 1 : NULL;
    }
    free(text);
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: watchbench LESSON [SECONDS]\n");
        return 2;
    }
    double guard = argc > 2 ? atof(argv[2]) : 120;
    setenv("TERM", "xterm-256color", 1);
    i18n_set(LANG_EN, NULL);
    Lesson l;
    char err[LESSON_ERR_MAX];
    if (!lesson_load_file(argv[1], &l, err, sizeof err)) {
        fprintf(stderr, "watchbench: %s\n", err);
        return 2;
    }
    if (!screen_open(24, 80)) {
        fprintf(stderr, "watchbench: cannot open a headless screen\n");
        return 2;
    }
    ViewOpt opt = {LANG_EN, false, "dark", false, 0, false, NULL};
    View *v = view_new(&l, &opt);
    view_draw(v);
    view_flush(v);
    view_key(v, 'W', false);
    view_draw(v);
    view_flush(v);
    long frames = 0;
    double t0 = now(), t = t0, passed = -1, score = -1;
    while ((t = now()) - t0 < guard) {
        if (!view_tick(v))
            break; /* the watch mode stopped itself (a NaN, a limit) */
        view_draw(v); /* as the terminal loop: the frame laid out, painted and sent */
        view_flush(v);
        frames++;
        score = screen_l2_induction();
        if (getenv("WATCHBENCH_SHOW") && frames % atoi(getenv("WATCHBENCH_SHOW")) == 0) {
            char *shown = screen_text(); /* the screen as the class sees it, for a look */
            fprintf(stderr, "frame %ld, score read %.2f:\n%s", frames, score, shown);
            free(shown);
        }
        if (score > 0.5 && passed < 0)
            passed = now() - t0;
        if (passed >= 0 && now() - t0 > passed + 2 && now() - t0 > 10) /* 10 s at least: enough frames to time */
            break;
    }
    double secs = now() - t0;
    view_key(v, 'x', false); /* any key stops it; the message names the steps taken */
    view_draw(v);
    char *text = screen_text();
    long steps = 0;
    const char *s = strstr(text, "Stopped after ");
    if (s)
        steps = atol(s + strlen("Stopped after "));
    free(text);
    printf("watch: frames %ld seconds %.2f fps %.1f steps %ld passed %.2f\n", frames, secs, frames / secs, steps,
           passed);
    printf("watch: score %.2f\n", score);
    view_free(v);
    screen_close();
    lesson_free(&l);
    return score < 0 ? 1 : 0;
}
