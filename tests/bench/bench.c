/* bench.c - how fast qkvtutor answers a key, and how much it writes.
 *
 * Usage: bench LESSON1 LESSON64 [ITERATIONS]
 * Prints one line per figure, "bench: NAME VALUE UNIT":
 *   keypress_us_*  median µs of one keypress (next, back, arrows, s, u):
 *                  view_key + view_draw + wnoutrefresh + doupdate on a
 *                  headless 24x80 screen (tests/screen.h, output to /dev/null);
 *   edit_us_*      median µs of one edit keypress (edit mode's "+" nudge on
 *                  the last step: the action, a recompute of all five
 *                  stages, the frame); an untimed "u" undoes it each time;
 *   bytes_ratio_next  bytes written to the terminal by a "next" keypress
 *                  over the bytes of a full repaint of the same screen
 *                  (median over every next of lesson 1, output to a file).
 * The whole-process figures (startup, RSS, numpy) are measured by
 * tests/bench/proc.c. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lesson/i18n.h"
#include "lesson/lesson.h"
#include "screen.h"
#include "view/view.h"

typedef struct {
    wint_t ch;
    bool code;
} Key;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void frame(View *v)
{
    view_draw(v);
    wnoutrefresh(stdscr);
    doupdate();
}

/* One timed keypress: the key, the recompute it causes, the frame. */
static double timed_key(View *v, Key k)
{
    double t0 = now_us();
    view_key(v, k.ch, k.code);
    frame(v);
    return now_us() - t0;
}

static bool load(const char *path, Lesson *l)
{
    char err[LESSON_ERR_MAX];
    if (lesson_load_file(path, l, err, sizeof err))
        return true;
    fprintf(stderr, "bench: %s\n", err);
    return false;
}

static const ViewOpt opt = {LANG_EN, false, "dark", false};

/* The walk a student makes: forward through every step, move the focus,
 * toggle the scaling and undo it, back to the start. */
static int script(const Lesson *l, Key *keys, int max)
{
    int n = 0;
    for (int k = 1; k < l->nsteps && n < max; k++)
        keys[n++] = (Key){'n', false};
    const Key mid[] = {{KEY_DOWN, true}, {KEY_RIGHT, true}, {'s', false}, {'u', false},
                       {KEY_UP, true}, {KEY_LEFT, true}, {'m', false}, {'u', false}};
    for (size_t k = 0; k < sizeof mid / sizeof *mid && n < max; k++)
        keys[n++] = mid[k];
    for (int k = 1; k < l->nsteps && n < max; k++)
        keys[n++] = (Key){KEY_PPAGE, true};
    return n;
}

static double bench_keys(const char *path, int iters)
{
    Lesson l;
    if (!load(path, &l))
        return -1;
    View *v = view_new(&l, &opt);
    Key keys[1024];
    int nkeys = script(&l, keys, 1024);
    double *t = malloc(sizeof *t * (size_t)iters);
    frame(v);
    for (int k = 0; k < iters / 10; k++) /* warm up */
        timed_key(v, keys[k % nkeys]);
    for (int k = 0; k < iters; k++)
        t[k] = timed_key(v, keys[k % nkeys]);
    double m = median(t, iters);
    free(t);
    view_free(v);
    lesson_free(&l);
    return m;
}

static double bench_edit(const char *path, int iters)
{
    Lesson l;
    if (!load(path, &l))
        return -1;
    View *v = view_new(&l, &opt);
    double *t = malloc(sizeof *t * (size_t)iters);
    view_key(v, KEY_END, true);
    view_key(v, 'e', false);
    frame(v);
    for (int k = 0; k < iters; k++) {
        t[k] = timed_key(v, (Key){'+', false});
        view_key(v, 'u', false);
    }
    double m = median(t, iters);
    free(t);
    view_free(v);
    lesson_free(&l);
    return m;
}

/* Bytes a "next" writes over the bytes of a full repaint of the result. */
static double bench_bytes(const char *path, int *samples)
{
    Lesson l;
    if (!load(path, &l))
        return -1;
    FILE *out = tmpfile(), *in = fopen("/dev/null", "r");
    SCREEN *scr = out && in ? newterm("xterm-256color", out, in) : NULL;
    if (!scr) {
        fprintf(stderr, "bench: cannot open a screen on a temporary file\n");
        return -1;
    }
    set_term(scr);
    resizeterm(24, 80);
    View *v = view_new(&l, &opt);
    double ratio[LESSON_MAX_STEPS];
    int n = 0;
    struct stat st;
    frame(v);
    for (int k = 1; k < l.nsteps; k++) {
        fflush(out);
        fstat(fileno(out), &st);
        off_t before = st.st_size;
        view_key(v, 'n', false);
        frame(v);
        fflush(out);
        fstat(fileno(out), &st);
        off_t next = st.st_size - before;
        before = st.st_size;
        clearok(curscr, TRUE);
        doupdate();
        fflush(out);
        fstat(fileno(out), &st);
        off_t full = st.st_size - before;
        if (full > 0)
            ratio[n++] = (double)next / (double)full;
    }
    view_free(v);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    lesson_free(&l);
    *samples = n;
    return n ? median(ratio, n) : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench LESSON1 LESSON64 [ITERATIONS]\n");
        return 2;
    }
    int iters = argc > 3 ? atoi(argv[3]) : 2000;
    setenv("TERM", "xterm-256color", 1);
    i18n_set(LANG_EN, NULL);
    if (!screen_open(24, 80)) {
        fprintf(stderr, "bench: cannot open a headless screen\n");
        return 2;
    }
    double k1 = bench_keys(argv[1], iters), k64 = bench_keys(argv[2], iters);
    double e1 = bench_edit(argv[1], iters), e64 = bench_edit(argv[2], iters / 4);
    screen_close();
    int samples = 0;
    double ratio = bench_bytes(argv[1], &samples);
    if (k1 < 0 || k64 < 0 || e1 < 0 || e64 < 0 || ratio < 0)
        return 1;
    printf("bench: keypress_us_lesson1 %.1f us\n", k1);
    printf("bench: keypress_us_64x64 %.1f us\n", k64);
    printf("bench: edit_us_lesson1 %.1f us\n", e1);
    printf("bench: edit_us_64x64 %.1f us\n", e64);
    printf("bench: bytes_ratio_next %.3f ratio (median of %d next keypresses)\n", ratio, samples);
    printf("bench: budget keypress_us_lesson1 %s (%.1f < 200)\n", k1 < 200 ? "ok" : "OVER", k1);
    printf("bench: budget keypress_us_64x64 %s (%.1f < 2000)\n", k64 < 2000 ? "ok" : "OVER", k64);
    printf("bench: budget bytes_ratio_next %s (%.3f < 0.3)\n", ratio < 0.3 ? "ok" : "OVER", ratio);
    return 0;
}
