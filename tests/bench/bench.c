/* bench.c - how fast qkvtutor answers a key, and how much it writes.
 *
 * Usage: bench [-n ITERATIONS] [--proc LAUNCH BINARY] [--empty EMPTY_DYN EMPTY_STATIC] [--model LESSON]
 *              [--numpy PYTHON SCRIPT] LESSON1 LESSON64 [LESSON64_8HEADS [LESSON...]]
 * Prints one line per figure, "bench: NAME VALUE UNIT":
 *   keypress_us_*  median µs of one keypress (next, back, arrows, s, u):
 *                  view_key + view_draw + view_flush (our writer, one write)
 *                  on a headless 24x80 screen (tests/screen.h, to /dev/null);
 *                  keypress_us_lesson1_present the same in presentation mode;
 *   layout_us_80x24  median µs of the frame plan alone (layout_plan, no
 *                  curses) for each step of lesson 1 at 80x24;
 *   edit_us_*      median µs of one edit keypress (edit mode's "+" nudge on
 *                  the last step: the action, a recompute of all five
 *                  stages, the frame); an untimed "u" undoes it each time;
 *   train_step_us_*  median µs of g (one gradient step on W_Q and W_K,
 *                  the recompute of every stage, the frame) after T on the
 *                  last step; train_ten_us_64x64 the same for G (ten steps);
 *   bytes_ratio_next  bytes our writer sends for a "next" keypress
 *                  over the bytes it sends for a forced whole repaint of the
 *                  same screen (cells changed: read from its front grid)
 *                  (median over every next of lesson 1, output to a file) at
 *                  80x24, the budget's size; bytes_ratio_next_120x40 the same
 *                  on a larger terminal, for comparison.
 * With --proc, whole processes, every command once per round, the rounds
 * repeated PROC_RUNS times (alternated, never in blocks, so a change in the
 * machine's load falls on all of them alike), medians of wall time from
 * spawn to exit and peak resident set (wait4's ru_maxrss), through LAUNCH
 * (tests/bench/launch.c):
 *   empty_dynamic_ms, empty_static_ms  `int main(void) { return 0; }`
 *                  linked dynamically and statically (EMPTY_DYN, EMPTY_STATIC
 *                  from --empty): the floor of any process on this machine;
 *   startup_ms, peak_rss_kib   `BINARY --json 1`; ratio_empty: it over the
 *                  empty dynamic program (budget <= 1.25);
 *   startup_file_ms  `BINARY --json LESSON1` (lesson 1 read from its file,
 *                  through libyaml; --json 1 replays the built-in lesson's
 *                  parse recorded at build time);
 *   json_ms_8heads_64x64  `BINARY --json` of the 8-head lesson; ratio_json_8heads
 *                  over startup_file_ms, like with like (budget <= 15), and
 *                  ratio_json_8heads_builtin over --json 1, for comparison;
 *   worksheet_ms   `BINARY --worksheet --answers --variant 7 1`;
 *   svg_ms         `BINARY --svg --at 7 1` (reported, no budget);
 *   json_ms_model  with --model LESSON: `BINARY --json LESSON` of a model
 *                  lesson of lesson 17's shape; ratio_json_model over
 *                  --json 1 (budget <= 3), and over lesson 1's file;
 * and with --numpy, the same pipeline as a numpy script in the same rounds:
 *   numpy_ms, numpy_peak_rss_kib, ratio_wall, ratio_rss, ratio_wall_worksheet;
 *   once with the environment as it is, and once (numpy_noenv_*) without
 *   OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which some machines set.
 * Every lesson after LESSON64_8HEADS (`make bench` passes every built-in
 * lesson) gets its budget line bytes_next (80x24): for each next, its
 * bytes ÷ the full repaint's, over max(0.45, the share of the cells showing
 * something before or after that the next changed, character or look);
 * the median over the lesson's nexts must be <= 1. A next that changes
 * little may send 0.45 of a repaint; one that changes more (a new stage's
 * band, another head, a gradient step) no more bytes per changed cell
 * than a repaint spends per cell.
 * json_roundtrip: every number of every lesson given (all its matrices, computed
 * through the last stage, as --json prints them) through the one printer
 * (shortest_print) and back through strtod: how many come back with other
 * bits (budget: none).
 * Then a verdict per budget: "bench: budget NAME ok|OVER"; the design's one
 * budget it cannot measure (the whole `make test`) is named, not judged. The exit status
 * is 0 unless a measurement could not be taken. QKV_BENCH_THEME=mono (or
 * light, projector) measures another theme; QKV_BENCH_VERBOSE=1 prints the
 * bytes of each next keypress and of its full repaint; QKV_BENCH_DUMP=DIR
 * writes those bytes to DIR/80x24-next-N and DIR/80x24-full-N (and 120x40)
 * and the screen after it as text to DIR/80x24-screen-N;
 * QKV_BENCH_PROC_ONLY=1 runs the whole processes alone; QKV_BENCH_BYTES_ONLY=1
 * measures only bytes_ratio_next (80x24) of every lesson given, one or more. */
#include <curses.h>
#include <fcntl.h>
#include <locale.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "layout/layout.h"
#include "text/i18n.h"
#include "lesson/lesson.h"
#include "lesson/session.h"
#include "screen.h"
#include "term/grid.h"
#include "term/view.h"
#include "text/shortest.h"

extern char **environ;

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
    view_flush(v);
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

/* The view's options; QKV_BENCH_THEME picks another theme (default dark). */
static ViewOpt opt = {LANG_EN, false, "dark", false, 0, false, NULL};

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
    if (l->heads > 1 && n + 2 < max) { /* at the output stage: the next head and back */
        keys[n++] = (Key){KEY_PPAGE, true};
        keys[n++] = (Key){']', false};
        keys[n++] = (Key){'[', false};
    }
    for (int k = 1; k < l->nsteps && n < max; k++)
        keys[n++] = (Key){KEY_PPAGE, true};
    return n;
}

/* With `all_on`, the lesson's options turn on the causal mask, a
 * temperature of 0.5 and sinusoidal positions (as options: would). */
static bool all_on;

static double bench_keys(const char *path, int iters)
{
    Lesson l;
    if (!load(path, &l))
        return -1;
    if (all_on) {
        l.mask = MASK_CAUSAL;
        l.temp = 0.5;
        l.positions = POS_SINUSOIDAL;
    }
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

/* The frame plan alone: layout_plan for each step of a lesson in turn. */
static double bench_layout(const char *path, int iters)
{
    Lesson l;
    Session s;
    Plan p;
    if (!load(path, &l))
        return -1;
    if (!session_init(&s, &l)) {
        lesson_free(&l);
        return -1;
    }
    plan_init(&p);
    double *t = malloc(sizeof *t * (size_t)iters);
    LayoutIn in = {.s = &s, .lang = LANG_EN, .fmat = M_Q, .emat = M_Q, .msg = "", .msg_role = ROLE_HINT,
                   .keybar = " Space next  PgUp back  e edit  : action  ? help  q quit", .cols = 80, .rows = 24};
    for (int k = 0; k < iters; k++) {
        session_goto(&s, k % l.nsteps);
        double t0 = now_us();
        layout_plan(&in, &p);
        t[k] = now_us() - t0;
    }
    double m = median(t, iters);
    free(t);
    plan_free(&p);
    session_free(&s);
    lesson_free(&l);
    return m;
}

/* On the last step, press `first` (e: edit mode on Q; T: target the
 * focused cell of A), then time `key` (+: a nudge; g: one gradient step;
 * G: ten), each the change, the recompute of every stage and the frame;
 * an untimed u undoes it before the next. */
static double bench_undone(const char *path, int iters, int first, int key)
{
    Lesson l;
    if (!load(path, &l))
        return -1;
    View *v = view_new(&l, &opt);
    double *t = malloc(sizeof *t * (size_t)iters);
    view_key(v, KEY_END, true);
    view_key(v, first, false);
    frame(v);
    for (int k = 0; k < iters; k++) {
        t[k] = timed_key(v, (Key){key, false});
        view_key(v, 'u', false);
    }
    double m = median(t, iters);
    free(t);
    view_free(v);
    lesson_free(&l);
    return m;
}

/* QKV_BENCH_DUMP=DIR: write what the next to step N sent (DIR/80x24-next-N)
 * and its full repaint (DIR/80x24-full-N), to see where the bytes go. */
static void dump_bytes(FILE *out, const char *dir, const char *size, int step, off_t at, off_t next, off_t full)
{
    char *buf = malloc((size_t)(next + full));
    char path[4096];
    if (!buf || pread(fileno(out), buf, (size_t)(next + full), at) != next + full) {
        free(buf);
        return;
    }
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s-%s-%d", dir, size, k ? "full" : "next", step);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(k ? buf + next : buf, 1, (size_t)(k ? full : next), f);
            fclose(f);
        }
    }
    free(buf);
}

/* QKV_BENCH_DUMP=DIR: the screen after the next to step N as text
 * (DIR/80x24-screen-N), to see what moved. */
static void dump_text(const char *dir, const char *size, int step, int lines, int cols)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-screen-%d", dir, size, step);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    for (int y = 0; y < lines; y++) {
        for (int x = 0; x < cols; x++) {
            const GridCell *c = &grid_front_row(grid_term(), y)[x];
            if (c->n >= 1 && c->n <= 4)
                fwrite(c->b, 1, c->n, f);
        }
        fputc('\n', f);
    }
    fclose(f);
}

/* One screen cell as the terminal has it (our writer's front grid): the
 * character and its look. */
typedef GridCell Cell;

static void cell_at(int y, int x, Cell *c)
{
    *c = grid_front_row(grid_term(), y)[x];
}

static bool cell_blank(const Cell *c)
{
    return c->n == 1 && c->b[0] == ' ' && c->look == 0;
}

/* The share of the screen a next really changed, whatever the painter:
 * the cells that differ from before (character or look) over the cells
 * that show something before or after (a cell blank both times is no
 * work for anyone); 0..1. Snapshot first with take = true. */
static double cells_changed(Cell *snap, int lines, int cols, bool take)
{
    int changed = 0, shown = 0;
    for (int y = 0; y < lines; y++)
        for (int x = 0; x < cols; x++) {
            Cell c;
            cell_at(y, x, &c);
            if (take) {
                snap[y * cols + x] = c;
                continue;
            }
            changed += memcmp(&c, &snap[y * cols + x], sizeof c) != 0;
            shown += !cell_blank(&c) || !cell_blank(&snap[y * cols + x]);
        }
    return shown ? (double)changed / shown : 0;
}

/* Bytes a "next" writes over the bytes of a full repaint of the result;
 * *changed: the median share of the cells the nexts changed; *floor: the
 * median over the nexts of the ratio over its budget, max(0.45, the share
 * that next changed) (<= 1: within budget). */
#define BYTES_BUDGET 0.45

static double bench_bytes(const char *path, int lines, int cols, int *samples, double *changed, double *floor)
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
    resizeterm(lines, cols);
    view_screen_fd(fileno(out));
    view_screen_ready();
    char size[32];
    snprintf(size, sizeof size, "%dx%d", cols, lines);
    View *v = view_new(&l, &opt);
    double ratio[LESSON_MAX_STEPS], share[LESSON_MAX_STEPS], over[LESSON_MAX_STEPS];
    Cell *snap = calloc((size_t)lines * (size_t)cols, sizeof *snap);
    int n = 0;
    struct stat st;
    frame(v);
    for (int k = 1; snap && k < l.nsteps; k++) {
        cells_changed(snap, lines, cols, true);
        fflush(out);
        fstat(fileno(out), &st);
        off_t before = st.st_size;
        view_key(v, 'n', false);
        frame(v);
        fflush(out);
        fstat(fileno(out), &st);
        off_t next = st.st_size - before;
        before = st.st_size;
        share[n] = cells_changed(snap, lines, cols, false);
        grid_invalidate(grid_term());
        view_flush(v);
        fflush(out);
        fstat(fileno(out), &st);
        off_t full = st.st_size - before;
        if (getenv("QKV_BENCH_DUMP")) {
            dump_bytes(out, getenv("QKV_BENCH_DUMP"), size, k + 1, before - next, next, full);
            dump_text(getenv("QKV_BENCH_DUMP"), size, k + 1, lines, cols);
        }
        if (getenv("QKV_BENCH_VERBOSE"))
            fprintf(stderr, "bench: %dx%d next to step %d (stage %d): %lld bytes, full repaint %lld bytes, cells changed %.3f\n",
                    cols, lines, k + 1, l.steps[k].stage, (long long)next, (long long)full, share[n]);
        if (full > 0) {
            ratio[n] = (double)next / (double)full;
            over[n] = ratio[n] / (share[n] > BYTES_BUDGET ? share[n] : BYTES_BUDGET);
            n++;
        }
    }
    view_free(v);
    free(snap);
    endwin();
    delscreen(scr);
    fclose(out);
    fclose(in);
    lesson_free(&l);
    *samples = n;
    if (changed)
        *changed = n ? median(share, n) : -1;
    if (floor)
        *floor = n ? median(over, n) : -1;
    return n ? median(ratio, n) : -1;
}

/* Every value of every matrix of the lesson at path, as --json prints it,
 * printed and read back: adds the values to *n and those whose bits differ
 * to *bad. */
static bool bench_roundtrip(const char *path, long *n, long *bad)
{
    Lesson l;
    Attn a = {0};
    if (!load(path, &l))
        return false;
    bool ok = lesson_base(&l, &a);
    if (ok)
        attn_run_to(&a, attn_last_stage(&a));
    for (int id = 0; ok && id < M_COUNT; id++)
        for (int k = 0; a.m[id].v && k < a.m[id].rows * a.m[id].cols; k++) {
            char text[SHORTEST_MAX];
            double v = a.m[id].v[k], back;
            if (v != v || v - v != 0) /* NaN, inf: --json writes them as strings */
                continue;
            shortest_print(v, text);
            back = strtod(text, NULL);
            ++*n;
            *bad += memcmp(&v, &back, sizeof v) != 0;
        }
    attn_free(&a);
    lesson_free(&l);
    return ok;
}

static const char *launcher;   /* tests/bench/launch.c, built next to bench */
static char *empty_dyn, *empty_static; /* int main(void) { return 0; }, two links */
static char *model_lesson;            /* --model LESSON: a model lesson's --json */

/* Run argv to the end with stdout on /dev/null, through the launcher (see
 * launch.c for why); wall ms and peak RSS KiB. */
static bool run_proc(char *const *argv, char **envp, double *ms, long *rss)
{
    char *largv[16];
    int n = 0, fds[2], status, code = -1;
    largv[n++] = (char *)launcher;
    for (int k = 0; argv[k] && n < 15; k++)
        largv[n++] = argv[k];
    largv[n] = NULL;
    if (pipe(fds) != 0)
        return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int e = posix_spawn(&pid, launcher, &fa, NULL, largv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    bool ok = e == 0 && f && fscanf(f, "%lf %ld %d", ms, rss, &code) == 3;
    if (f)
        fclose(f);
    if (e == 0)
        waitpid(pid, &status, 0);
    return ok && code == 0;
}

/* environ without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE. */
static char **env_without_openblas(void)
{
    int n = 0;
    while (environ[n])
        n++;
    char **env = calloc((size_t)n + 1, sizeof *env);
    int k = 0;
    for (int i = 0; env && i < n; i++)
        if (strncmp(environ[i], "OPENBLAS_CORETYPE=", 18) != 0 && strncmp(environ[i], "OPENBLAS_L2_SIZE=", 17) != 0)
            env[k++] = environ[i];
    return env;
}

#define PROC_RUNS 30

typedef struct {
    double ms[PROC_RUNS];
    double rss[PROC_RUNS];
    int n;
} Runs;

static bool sample(Runs *r, char *const *argv, char **envp)
{
    long rss;
    if (!run_proc(argv, envp, &r->ms[r->n], &rss)) {
        fprintf(stderr, "bench: %s did not run to a clean exit\n", argv[0]);
        return false;
    }
    r->rss[r->n++] = (double)rss;
    return true;
}

static const char *verdict(bool ok)
{
    return ok ? "ok" : "OVER";
}

enum { P_EMPTY_DYN, P_EMPTY_STATIC, P_JSON1, P_JSON1_FILE, P_JSON8H, P_WORKSHEET, P_SVG, P_NUMPY, P_NUMPY_NOENV, P_JSON_MODEL,
       P_N };

/* Whole processes, alternated: each round runs every command once. */
static bool bench_proc(char *bin, char *l1, char *l8h, char *python, char *script)
{
    char *argv[P_N][8] = {
        [P_EMPTY_DYN] = {empty_dyn, NULL},
        [P_EMPTY_STATIC] = {empty_static, NULL},
        [P_JSON1] = {bin, "--json", "1", NULL},
        [P_JSON1_FILE] = {bin, "--json", l1, NULL},
        [P_JSON8H] = {l8h ? bin : NULL, "--json", l8h, NULL},
        [P_WORKSHEET] = {bin, "--worksheet", "--answers", "--variant", "7", "1", NULL},
        [P_SVG] = {bin, "--svg", "--at", "7", "1", NULL},
        [P_NUMPY] = {python, script, NULL},
        [P_NUMPY_NOENV] = {python, script, NULL},
        [P_JSON_MODEL] = {model_lesson ? bin : NULL, "--json", model_lesson, NULL},
    };
    char **noenv = env_without_openblas();
    static Runs r[P_N];
    double ms[P_N] = {0}, rss[P_N] = {0};
    for (int round = -2; round < PROC_RUNS; round++) /* two rounds to warm the page cache */
        for (int c = 0; c < P_N; c++) {
            if (!argv[c][0])
                continue;
            char **env = c == P_NUMPY_NOENV ? noenv : environ;
            if (round < 0) {
                long x;
                double t;
                run_proc(argv[c], env, &t, &x);
            } else if (!sample(&r[c], argv[c], env)) {
                free(noenv);
                return false;
            }
        }
    free(noenv);
    for (int c = 0; c < P_N; c++)
        if (r[c].n) {
            ms[c] = median(r[c].ms, r[c].n);
            rss[c] = median(r[c].rss, r[c].n);
        }
    printf("bench: processes: %d rounds, each running every command below once, in turn\n", PROC_RUNS);
    if (empty_dyn)
        printf("bench: empty_dynamic_ms %.3f ms (int main(void) { return 0; }, dynamically linked)\n",
               ms[P_EMPTY_DYN]);
    if (empty_static)
        printf("bench: empty_static_ms %.3f ms (the same, linked statically)\n", ms[P_EMPTY_STATIC]);
    printf("bench: startup_ms %.3f ms (qkvtutor --json 1)\n", ms[P_JSON1]);
    printf("bench: peak_rss_kib %.0f KiB\n", rss[P_JSON1]);
    printf("bench: startup_file_ms %.3f ms (qkvtutor --json %s: the same lesson read from its file, through "
           "libyaml, not from its recording)\n", ms[P_JSON1_FILE], l1);
    if (l8h)
        printf("bench: json_ms_8heads_64x64 %.2f ms (qkvtutor --json of the 8-head lesson), %.0f KiB peak\n",
               ms[P_JSON8H], rss[P_JSON8H]);
    printf("bench: worksheet_ms %.2f ms (qkvtutor --worksheet --answers --variant 7 1)\n", ms[P_WORKSHEET]);
    printf("bench: svg_ms %.2f ms (qkvtutor --svg --at 7 1)\n", ms[P_SVG]);
    if (empty_dyn) {
        double q = ms[P_JSON1] / ms[P_EMPTY_DYN];
        printf("bench: budget ratio_empty %s (%.2f <= 1.25: --json 1 / the empty dynamic program)\n",
               verdict(q <= 1.25), q);
    }
    if (l8h) {
        /* Like with like: the 8-head lesson is read from its file, so it is
         * compared with lesson 1 read from its file, not with the built-in
         * lesson's recorded parse (that ratio is printed too). */
        double q = ms[P_JSON8H] / ms[P_JSON1_FILE];
        printf("bench: ratio_json_8heads_builtin %.1f (the 8-head lesson's --json / --json 1, built in)\n",
               ms[P_JSON8H] / ms[P_JSON1]);
        printf("bench: budget ratio_json_8heads %s (%.1f <= 15: the 8-head lesson's --json / --json of lesson 1's "
               "file)\n", verdict(q <= 15), q);
    }
    if (model_lesson) {
        double q = ms[P_JSON_MODEL] / ms[P_JSON1];
        printf("bench: json_ms_model %.3f ms (qkvtutor --json %s), %.0f KiB peak\n", ms[P_JSON_MODEL], model_lesson,
               rss[P_JSON_MODEL]);
        printf("bench: ratio_json_model_file %.2f (the model lesson's --json / --json of lesson 1's file)\n",
               ms[P_JSON_MODEL] / ms[P_JSON1_FILE]);
        printf("bench: budget ratio_json_model %s (%.2f <= 3: the model lesson's --json / --json 1)\n", verdict(q <= 3),
               q);
    }
    if (!python) {
        printf("bench: numpy skipped (no /usr/bin/python3 with numpy)\n");
        return true;
    }
    printf("bench: numpy_ms %.1f ms (environment as it is%s), %.0f KiB peak\n", ms[P_NUMPY],
           getenv("OPENBLAS_CORETYPE") ? ", OPENBLAS_CORETYPE set" : "", rss[P_NUMPY]);
    printf("bench: numpy_noenv_ms %.1f ms (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset), %.0f KiB peak\n",
           ms[P_NUMPY_NOENV], rss[P_NUMPY_NOENV]);
    double ratio = ms[P_NUMPY] / ms[P_JSON1], ratio_ws = ms[P_NUMPY] / ms[P_WORKSHEET];
    double ratio_rss = rss[P_NUMPY] / rss[P_JSON1];
    printf("bench: budget ratio_wall %s (%.1f >= 40: numpy / --json 1)\n", verdict(ratio >= 40), ratio);
    printf("bench: budget ratio_wall_worksheet %s (%.1f >= 40: numpy / the worksheet)\n", verdict(ratio_ws >= 40),
           ratio_ws);
    printf("bench: budget ratio_rss %s (%.1f >= 8: numpy / --json 1, peak memory)\n", verdict(ratio_rss >= 8),
           ratio_rss);
    return true;
}

/* Bytes per next at 80x24 for each lesson in paths: the figures, or
 * (budget) a verdict line each. A next may send 0.45 of a full repaint, or
 * the share of the screen's cells it changes when that is more (a new
 * stage's band, a head's numbers, a gradient step): the median over a
 * lesson's nexts of bytes ÷ full repaint ÷ max(0.45, share) must be <= 1.
 * False when a lesson cannot be measured. */
static bool bytes_lessons(int n, char **paths, bool budget)
{
    for (int k = 0; k < n; k++) {
        int samples = 0;
        double ch = 0, fl = 0, q = bench_bytes(paths[k], 24, 80, &samples, &ch, &fl);
        if (q < 0)
            return false;
        const char *base = strrchr(paths[k], '/');
        if (budget)
            printf("bench: budget bytes_next %s (%.3f <= 1: %s, median of %d nexts at 80x24 of bytes ÷ full "
                   "repaint ÷ max(0.45, share of cells changed); median ratio %.3f, share %.3f)\n",
                   verdict(fl <= 1), fl, base ? base + 1 : paths[k], samples, q, ch);
        else
            printf("bench: bytes_ratio_next %.3f (%s, median of %d nexts at 80x24; cells changed %.3f; "
                   "over budget %.3f)\n", q, base ? base + 1 : paths[k], samples, ch, fl);
    }
    return true;
}

/* QKV_BENCH_BYTES_ONLY: bytes_ratio_next of each lesson given, nothing else. */
static int bench_bytes_only(int n, char **paths)
{
    setlocale(LC_ALL, "C.UTF-8"); /* as screen_open: UTF-8 cells, not ~X */
    setenv("TERM", "xterm-256color", 1);
    i18n_set(LANG_EN, NULL);
    return bytes_lessons(n, paths, false) ? 0 : 1;
}

int main(int argc, char **argv)
{
    int iters = 2000;
    char *bin = NULL, *python = NULL, *script = NULL;
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "-n") == 0 && a + 1 < argc)
            iters = atoi(argv[++a]);
        else if (strcmp(argv[a], "--proc") == 0 && a + 2 < argc)
            launcher = argv[a + 1], bin = argv[a + 2], a += 2;
        else if (strcmp(argv[a], "--numpy") == 0 && a + 2 < argc)
            python = argv[a + 1], script = argv[a + 2], a += 2;
        else if (strcmp(argv[a], "--empty") == 0 && a + 2 < argc)
            empty_dyn = argv[a + 1], empty_static = argv[a + 2], a += 2;
        else if (strcmp(argv[a], "--model") == 0 && a + 1 < argc)
            model_lesson = argv[++a];
        else
            break;
    }
    if (getenv("QKV_BENCH_BYTES_ONLY") && a < argc)
        return bench_bytes_only(argc - a, argv + a);
    if (argc - a < 2 || iters < 10) {
        fprintf(stderr, "usage: bench [-n ITERATIONS] [--proc LAUNCH BINARY] [--empty EMPTY_DYN EMPTY_STATIC] "
                        "[--numpy PYTHON SCRIPT] LESSON1 LESSON64 [LESSON64_8HEADS [LESSON...]]\n");
        return 2;
    }
    const char *l1 = argv[a], *l64 = argv[a + 1], *l8h = argc - a >= 3 ? argv[a + 2] : NULL;
    setenv("TERM", "xterm-256color", 1);
    i18n_set(LANG_EN, NULL);
    if (getenv("QKV_BENCH_THEME"))
        opt.theme = getenv("QKV_BENCH_THEME");
    if (getenv("QKV_BENCH_PROC_ONLY") && bin) /* the whole processes alone */
        return bench_proc(bin, (char *)l1, (char *)l8h, python, script) ? 0 : 1;
    if (!screen_open(24, 80)) {
        fprintf(stderr, "bench: cannot open a headless screen\n");
        return 2;
    }
    double k1 = bench_keys(l1, iters), k64 = bench_keys(l64, iters);
    all_on = true;
    double k64m = bench_keys(l64, iters);
    all_on = false;
    opt.present = true;
    double kp = bench_keys(l1, iters);
    opt.present = false;
    double lay = bench_layout(l1, iters);
    double k8h = l8h ? bench_keys(l8h, iters) : 0;
    double e1 = bench_undone(l1, iters, 'e', '+'), e64 = bench_undone(l64, iters / 4, 'e', '+');
    double t1 = bench_undone(l1, iters, 'T', 'g'), t64 = bench_undone(l64, iters / 4, 'T', 'g'),
           g64 = bench_undone(l64, iters / 10, 'T', 'G');
    screen_close();
    int samples = 0, samples_big = 0;
    double ratio = bench_bytes(l1, 24, 80, &samples, NULL, NULL),
           ratio_big = bench_bytes(l1, 40, 120, &samples_big, NULL, NULL);
    if (k8h < 0 || k1 < 0 || kp < 0 || lay < 0 || k64 < 0 || k64m < 0 || e1 < 0 || e64 < 0 || ratio < 0 ||
        ratio_big < 0 || t1 < 0 || t64 < 0 || g64 < 0)
        return 1;
    printf("bench: keypress_us_lesson1 %.1f us (median of %d)\n", k1, iters);
    printf("bench: keypress_us_lesson1_present %.1f us (median of %d, presentation mode)\n", kp, iters);
    printf("bench: layout_us_80x24 %.1f us (median of %d, the frame plan alone)\n", lay, iters);
    printf("bench: keypress_us_64x64 %.1f us (median of %d)\n", k64, iters);
    printf("bench: keypress_us_64x64_mask_temp_pos %.1f us (median of %d; causal mask, T = 0.5, positions)\n", k64m,
           iters);
    if (l8h)
        printf("bench: keypress_us_8heads_64x64 %.1f us (median of %d; 64 tokens, d_model 64, 8 heads of d_k 8, "
               "W_O; [ and ] among the keys)\n", k8h, iters);
    printf("bench: edit_us_lesson1 %.1f us (median of %d)\n", e1, iters);
    printf("bench: edit_us_64x64 %.1f us (median of %d)\n", e64, iters / 4);
    printf("bench: bytes_ratio_next %.3f ratio (80x24, median of %d next keypresses)\n", ratio, samples);
    printf("bench: bytes_ratio_next_120x40 %.3f ratio (the same at 120x40, for comparison)\n", ratio_big);
    printf("bench: budget keypress_us_lesson1 %s (%.1f < 150)\n", verdict(k1 < 150), k1);
    printf("bench: budget keypress_us_lesson1_present %s (%.1f < 150)\n", verdict(kp < 150), kp);
    printf("bench: budget keypress_us_64x64 %s (%.1f < 2000)\n", verdict(k64 < 2000), k64);
    printf("bench: budget keypress_us_64x64_mask_temp_pos %s (%.1f < 2000)\n", verdict(k64m < 2000), k64m);
    if (l8h)
        printf("bench: budget keypress_us_8heads_64x64 %s (%.1f < 2000)\n", verdict(k8h < 2000), k8h);
    printf("bench: budget edit_us_lesson1 %s (%.1f < 300)\n", verdict(e1 < 300), e1);
    printf("bench: budget edit_us_64x64 %s (%.1f < 2000)\n", verdict(e64 < 2000), e64);
    if (argc > a + 3 && !bytes_lessons(argc - a - 3, argv + a + 3, true)) /* every built-in lesson */
        return 1;
    long nums = 0, bad = 0;
    for (int k = a; k < argc; k++)
        if (!bench_roundtrip(argv[k], &nums, &bad))
            return 1;
    printf("bench: json_roundtrip %ld of %ld numbers read back with other bits (every lesson above, all matrices)\n",
           bad, nums);
    printf("bench: budget json_roundtrip %s (%ld differ; none may)\n", verdict(bad == 0), bad);
    printf("bench: train_step_us_lesson1 %.1f us (median of %d: g, one gradient step, recompute and frame)\n", t1,
           iters);
    printf("bench: train_step_us_64x64 %.1f us (median of %d)\n", t64, iters / 4);
    printf("bench: train_ten_us_64x64 %.1f us (median of %d: G, ten steps)\n", g64, iters / 10);
    printf("bench: budget train_step_us_lesson1 %s (%.1f < 300)\n", verdict(t1 < 300), t1);
    printf("bench: budget train_step_us_64x64 %s (%.1f < 3000)\n", verdict(t64 < 3000), t64);
    printf("bench: budget train_ten_us_64x64 %s (%.1f < 10000)\n", verdict(g64 < 10000), g64);
    fflush(stdout);
    if (bin && !bench_proc(bin, (char *)l1, (char *)l8h, python, script))
        return 1;
    printf("bench: budget make_test_minutes not measured here (<= 6 on this machine, idle: `time make test`)\n");
    return 0;
}
