/* keyprof.c - the benchmark's lesson-1 walk of keys alone, for a profiler
 * (valgrind --tool=callgrind --toggle-collect=keyprof_key): the keys of
 * bench.c's keypress_us_lesson1 (next to the end, the arrows, s, u, m,
 * back to the start) on a headless 24x80 screen, each the key, the frame
 * and our writer's flush (view_flush) to /dev/null. With KEYPROF_TIME=1 it prints
 * the fastest time of each key of the walk (which keys cost what).
 * Usage: keyprof [-p] [-n KEYS] LESSON   (-p: presentation mode) */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lesson/lesson.h"
#include "screen.h"
#include "term/view.h"
#include "text/i18n.h"

typedef struct {
    wint_t ch;
    bool code;
} Key;

void keyprof_key(View *v, Key k);

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One keypress, the function the profiler collects. */
__attribute__((noinline)) void keyprof_key(View *v, Key k)
{
    view_key(v, k.ch, k.code);
    view_draw(v);
    view_flush(v);
}

int main(int argc, char **argv)
{
    ViewOpt opt = {LANG_EN, false, "dark", false, 0, false, NULL};
    int n = 200, a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "-p") == 0)
            opt.present = true;
        else if (strcmp(argv[a], "-n") == 0 && a + 1 < argc)
            n = atoi(argv[++a]);
    }
    if (a >= argc) {
        fprintf(stderr, "usage: keyprof [-p] [-n KEYS] LESSON\n");
        return 2;
    }
    setenv("TERM", "xterm-256color", 1);
    i18n_set(LANG_EN, NULL);
    Lesson l;
    char err[LESSON_ERR_MAX];
    if (!lesson_load_file(argv[a], &l, err, sizeof err)) {
        fprintf(stderr, "keyprof: %s\n", err);
        return 2;
    }
    if (!screen_open(24, 80))
        return 2;
    View *v = view_new(&l, &opt);
    Key keys[64];
    int nk = 0;
    for (int k = 1; k < l.nsteps && nk < 20; k++)
        keys[nk++] = (Key){'n', false};
    const Key mid[] = {{KEY_DOWN, true}, {KEY_RIGHT, true}, {'s', false}, {'u', false},
                       {KEY_UP, true},   {KEY_LEFT, true},  {'m', false}, {'u', false}};
    for (size_t k = 0; k < sizeof mid / sizeof *mid; k++)
        keys[nk++] = mid[k];
    for (int k = 1; k < l.nsteps && nk < 60; k++)
        keys[nk++] = (Key){KEY_PPAGE, true};
    view_draw(v);
    view_flush(v);
    static double t[64][400];
    for (int k = 0; k < n; k++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        keyprof_key(v, keys[k % nk]);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (k / nk < 400)
            t[k % nk][k / nk] = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
    }
    if (getenv("KEYPROF_TIME")) {
        static double all[64 * 400];
        int na = 0;
        for (int k = 0; k < nk; k++) {
            double m = 1e9;
            for (int r = 0; r < n / nk && r < 400; r++) {
                m = t[k][r] < m ? t[k][r] : m;
                all[na++] = t[k][r];
            }
            printf("key %2d %4d min %.1f us\n", k, (int)keys[k].ch, m);
        }
        qsort(all, (size_t)na, sizeof *all, cmp_double);
        printf("median of %d: %.1f us\n", na, na ? all[na / 2] : 0);
    }
    view_free(v);
    screen_close();
    lesson_free(&l);
    return 0;
}
