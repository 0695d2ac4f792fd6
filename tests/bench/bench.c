/* bench.c - how fast qkvtutor answers a key, and how much it writes.
 *
 * Usage: bench [-n ITERATIONS] [--proc LAUNCH BINARY] [--numpy PYTHON SCRIPT] LESSON1 LESSON64
 * Prints one line per figure, "bench: NAME VALUE UNIT":
 *   keypress_us_*  median µs of one keypress (next, back, arrows, s, u):
 *                  view_key + view_draw + wnoutrefresh + doupdate on a
 *                  headless 24x80 screen (tests/screen.h, output to /dev/null);
 *                  keypress_us_lesson1_present the same in presentation mode;
 *   layout_us_80x24  median µs of the frame plan alone (layout_plan, no
 *                  curses) for each step of lesson 1 at 80x24;
 *   edit_us_*      median µs of one edit keypress (edit mode's "+" nudge on
 *                  the last step: the action, a recompute of all five
 *                  stages, the frame); an untimed "u" undoes it each time;
 *   train_step_us_*  median µs of g (one gradient step on W_Q and W_K,
 *                  the recompute of every stage, the frame) after T on the
 *                  last step; train_ten_us_64x64 the same for G (ten steps);
 *   bytes_ratio_next  bytes written to the terminal by a "next" keypress
 *                  over the bytes of a full repaint of the same screen
 *                  (median over every next of lesson 1, output to a file) at
 *                  80x24, the budget's size; bytes_ratio_next_120x40 the same
 *                  on a larger terminal, for comparison.
 * With --proc, whole processes too (30 runs each, medians):
 *   svg_ms         `BINARY --svg --at 7 1` from fork to exit (median;
 *                  reported, no budget)
 *   startup_ms, peak_rss_kib   `BINARY --json 1` from fork to exit, and its
 *                  peak resident set (wait4's ru_maxrss), through LAUNCH
 *                  (tests/bench/launch.c);
 * and with --numpy, the same pipeline as a numpy script, run interleaved:
 *   numpy_startup_ms, numpy_peak_rss_kib, ratio_wall_interleaved, ratio_rss; once with
 *   the environment as it is, and once (numpy_noenv_*) without
 *   OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which some machines set.
 * With --proc, also worksheet_ms_interleaved: `BINARY --worksheet --answers
 * --variant 7 1` (issue 15: a student's sheet with its key), whole process.
 * With --hyperfine JSON (hyperfine -N --export-json of `qkvtutor --json 1`
 * then the numpy script, then the worksheet command), hyperfine_ms,
 * numpy_hyperfine_ms and ratio_wall from its medians, and worksheet_ms and
 * ratio_wall_worksheet (numpy / worksheet, budget >= 40 like --json's): each command in its own steady state, as issue 2's
 * "side by side with /usr/bin/time or hyperfine" measures it. Interleaved,
 * every qkvtutor run follows a 30 MB numpy process, and on this kind of VM
 * the first touch of each page costs 10-20 us, which qkvtutor's hundred page
 * faults pay for; both figures are printed, the budget uses hyperfine's.
 * Then a verdict per budget: "bench: budget NAME ok|OVER". The exit status
 * is 0 unless a measurement could not be taken. QKV_BENCH_THEME=mono (or
 * light, projector) measures another theme; QKV_BENCH_VERBOSE=1 prints the
 * bytes of each next keypress and of its full repaint; QKV_BENCH_DUMP=DIR
 * writes those bytes to DIR/80x24-next-N and DIR/80x24-full-N (and 120x40). */
#include <cJSON.h>
#include <curses.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "layout/layout.h"
#include "text/i18n.h"
#include "lesson/lesson.h"
#include "lesson/session.h"
#include "screen.h"
#include "term/view.h"

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

/* The view's options; QKV_BENCH_THEME picks another theme (default dark). */
static ViewOpt opt = {LANG_EN, false, "dark", false, 0, false};

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

/* Bytes a "next" writes over the bytes of a full repaint of the result. */
static double bench_bytes(const char *path, int lines, int cols, int *samples)
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
    char size[32];
    snprintf(size, sizeof size, "%dx%d", cols, lines);
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
        if (getenv("QKV_BENCH_DUMP"))
            dump_bytes(out, getenv("QKV_BENCH_DUMP"), size, k + 1, before - next, next, full);
        if (getenv("QKV_BENCH_VERBOSE"))
            fprintf(stderr, "bench: %dx%d next to step %d (stage %d): %lld bytes, full repaint %lld bytes\n", cols,
                    lines, k + 1, l.steps[k].stage, (long long)next, (long long)full);
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

static const char *launcher;   /* tests/bench/launch.c, built next to bench */
static const char *hyperfine;  /* hyperfine --export-json of qkvtutor and numpy */

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

/* The medians (ms) of hyperfine's commands, qkvtutor's first, numpy's
 * second, the worksheet's third (*ws = -1 when absent), from its
 * --export-json file. */
static bool hyperfine_medians(const char *path, double *q, double *np, double *ws)
{
    FILE *f = fopen(path, "rb");
    char buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    cJSON *root = cJSON_Parse(buf), *res = cJSON_GetObjectItem(root, "results");
    cJSON *a = cJSON_GetArrayItem(res, 0), *b = cJSON_GetArrayItem(res, 1);
    cJSON *ma = cJSON_GetObjectItem(a, "median"), *mb = cJSON_GetObjectItem(b, "median");
    cJSON *mc = cJSON_GetObjectItem(cJSON_GetArrayItem(res, 2), "median");
    bool ok = cJSON_IsNumber(ma) && cJSON_IsNumber(mb) && ma->valuedouble > 0;
    if (ok) {
        *q = ma->valuedouble * 1e3;
        *np = mb->valuedouble * 1e3;
        *ws = cJSON_IsNumber(mc) && mc->valuedouble > 0 ? mc->valuedouble * 1e3 : -1;
    } else {
        fprintf(stderr, "bench: cannot read hyperfine's medians from %s\n", path);
    }
    cJSON_Delete(root);
    return ok;
}

/* `qkvtutor --json LESSON` as a whole process: the median ms and peak RSS. */
static bool bench_json_of(char *bin, char *lesson, double *ms, double *rss)
{
    char *argv[] = {bin, "--json", lesson, NULL};
    static Runs r;
    r.n = 0;
    for (int k = 0; k < 3; k++) { /* warm the page cache */
        long x;
        double t;
        run_proc(argv, environ, &t, &x);
    }
    for (int k = 0; k < PROC_RUNS; k++)
        if (!sample(&r, argv, environ))
            return false;
    *ms = median(r.ms, r.n);
    *rss = median(r.rss, r.n);
    return true;
}

/* Whole processes: qkvtutor --json 1, and the numpy script when given. */
static bool bench_proc(char *bin, char *python, char *script)
{
    char *q_argv[] = {bin, "--json", "1", NULL};
    char *np_argv[] = {python, script, NULL};
    char *ws_argv[] = {bin, "--worksheet", "--answers", "--variant", "7", "1", NULL};
    char **noenv = env_without_openblas();
    static Runs q, np, np2, ws;
    for (int k = 0; k < 3; k++) { /* warm the page cache */
        double ms;
        long rss;
        run_proc(q_argv, environ, &ms, &rss);
        if (python)
            run_proc(np_argv, environ, &ms, &rss);
    }
    for (int k = 0; k < PROC_RUNS; k++)
        if (!sample(&q, q_argv, environ) || !sample(&ws, ws_argv, environ) ||
            (python && (!sample(&np, np_argv, environ) || !sample(&np2, np_argv, noenv))))
            return false;
    free(noenv);
    double q_ms = median(q.ms, q.n), q_rss = median(q.rss, q.n);
    printf("bench: startup_ms %.2f ms (qkvtutor --json 1, median of %d)\n", q_ms, q.n);
    printf("bench: peak_rss_kib %.0f KiB\n", q_rss);
    /* --svg, the whole process: reported, no budget */
    char *svg_argv[] = {bin, "--svg", "--at", "7", "1", NULL};
    static Runs svg;
    for (int k = 0; k < PROC_RUNS; k++)
        if (!sample(&svg, svg_argv, environ))
            return false;
    printf("bench: svg_ms %.2f ms (qkvtutor --svg --at 7 1, median of %d)\n", median(svg.ms, svg.n), svg.n);
    double ws_ms = median(ws.ms, ws.n);
    printf("bench: worksheet_ms_interleaved %.2f ms (qkvtutor --worksheet --answers --variant 7 1, median of %d)\n",
           ws_ms, ws.n);
    if (!python) {
        printf("bench: numpy skipped (no /usr/bin/python3 with numpy)\n");
        return true;
    }
    double n_ms = median(np.ms, np.n), n_rss = median(np.rss, np.n);
    double n2_ms = median(np2.ms, np2.n), n2_rss = median(np2.rss, np2.n);
    printf("bench: numpy_startup_ms %.1f ms (environment as it is%s)\n", n_ms,
           getenv("OPENBLAS_CORETYPE") ? ", OPENBLAS_CORETYPE set" : "");
    printf("bench: numpy_peak_rss_kib %.0f KiB\n", n_rss);
    printf("bench: ratio_wall_interleaved %.1f x (numpy / qkvtutor, each run right after the other's)\n", n_ms / q_ms);
    printf("bench: ratio_rss %.1f x (numpy / qkvtutor)\n", n_rss / q_rss);
    printf("bench: numpy_noenv_startup_ms %.1f ms (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset)\n", n2_ms);
    printf("bench: numpy_noenv_peak_rss_kib %.0f KiB\n", n2_rss);
    printf("bench: ratio_wall_noenv %.1f x\n", n2_ms / q_ms);
    printf("bench: ratio_rss_noenv %.1f x\n", n2_rss / q_rss);
    double h_q, h_np, h_ws = -1, ratio = n_ms / q_ms, ratio_ws = n_ms / ws_ms;
    printf("bench: ratio_wall_worksheet_interleaved %.1f x (numpy / the worksheet)\n", ratio_ws);
    if (hyperfine && hyperfine_medians(hyperfine, &h_q, &h_np, &h_ws)) {
        printf("bench: hyperfine_ms %.2f ms (qkvtutor --json 1, hyperfine -N median)\n", h_q);
        printf("bench: numpy_hyperfine_ms %.1f ms (the same hyperfine run)\n", h_np);
        printf("bench: ratio_wall %.1f x (numpy / qkvtutor, hyperfine medians)\n", ratio = h_np / h_q);
    } else {
        printf("bench: ratio_wall %.1f x (no hyperfine: the interleaved figure)\n", ratio);
    }
    if (h_ws > 0) {
        printf("bench: worksheet_ms %.2f ms (qkvtutor --worksheet --answers --variant 7 1, hyperfine -N median)\n",
               h_ws);
        printf("bench: ratio_wall_worksheet %.1f x (numpy / the worksheet, hyperfine medians)\n",
               ratio_ws = h_np / h_ws);
    } else {
        printf("bench: ratio_wall_worksheet %.1f x (no hyperfine: the interleaved figure)\n", ratio_ws);
    }
    printf("bench: budget ratio_wall %s (%.1f >= 40)\n", verdict(ratio >= 40), ratio);
    printf("bench: budget ratio_wall_worksheet %s (%.1f >= 40)\n", verdict(ratio_ws >= 40), ratio_ws);
    printf("bench: budget ratio_rss %s (%.1f >= 8)\n", verdict(n_rss / q_rss >= 8), n_rss / q_rss);
    return true;
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
        else if (strcmp(argv[a], "--hyperfine") == 0 && a + 1 < argc)
            hyperfine = argv[++a];
        else
            break;
    }
    if ((argc - a != 2 && argc - a != 3) || iters < 10) {
        fprintf(stderr, "usage: bench [-n ITERATIONS] [--proc LAUNCH BINARY] [--numpy PYTHON SCRIPT] "
                        "[--hyperfine JSON] LESSON1 LESSON64 [LESSON64_8HEADS]\n");
        return 2;
    }
    const char *l1 = argv[a], *l64 = argv[a + 1], *l8h = argc - a == 3 ? argv[a + 2] : NULL;
    setenv("TERM", "xterm-256color", 1);
    i18n_set(LANG_EN, NULL);
    if (getenv("QKV_BENCH_THEME"))
        opt.theme = getenv("QKV_BENCH_THEME");
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
    double ratio = bench_bytes(l1, 24, 80, &samples), ratio_big = bench_bytes(l1, 40, 120, &samples_big);
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
    printf("bench: budget keypress_us_lesson1 %s (%.1f < 200)\n", verdict(k1 < 200), k1);
    printf("bench: budget keypress_us_lesson1_present %s (%.1f < 200)\n", verdict(kp < 200), kp);
    printf("bench: budget keypress_us_64x64 %s (%.1f < 2000)\n", verdict(k64 < 2000), k64);
    printf("bench: budget keypress_us_64x64_mask_temp_pos %s (%.1f < 2000)\n", verdict(k64m < 2000), k64m);
    if (l8h)
        printf("bench: budget keypress_us_8heads_64x64 %s (%.1f < 2000)\n", verdict(k8h < 2000), k8h);
    printf("bench: budget edit_us_lesson1 %s (%.1f < 300)\n", verdict(e1 < 300), e1);
    printf("bench: budget edit_us_64x64 %s (%.1f < 2000)\n", verdict(e64 < 2000), e64);
    printf("bench: budget bytes_ratio_next %s (%.3f < 0.45)\n", verdict(ratio < 0.45), ratio);
    printf("bench: train_step_us_lesson1 %.1f us (median of %d: g, one gradient step, recompute and frame)\n", t1,
           iters);
    printf("bench: train_step_us_64x64 %.1f us (median of %d)\n", t64, iters / 4);
    printf("bench: train_ten_us_64x64 %.1f us (median of %d: G, ten steps)\n", g64, iters / 10);
    printf("bench: budget train_step_us_lesson1 %s (%.1f < 300)\n", verdict(t1 < 300), t1);
    printf("bench: budget train_step_us_64x64 %s (%.1f < 3000)\n", verdict(t64 < 3000), t64);
    printf("bench: budget train_ten_us_64x64 %s (%.1f < 10000)\n", verdict(g64 < 10000), g64);
    fflush(stdout);
    double jm, jr;
    if (bin && l8h) {
        if (!bench_json_of(bin, (char *)l8h, &jm, &jr))
            return 1;
        printf("bench: json_ms_8heads_64x64 %.2f ms (qkvtutor --json of the 8-head lesson, whole process, median "
               "of %d)\n", jm, PROC_RUNS);
        printf("bench: json_peak_rss_kib_8heads_64x64 %.0f KiB\n", jr);
        fflush(stdout);
    }
    if (bin && !bench_proc(bin, python, script))
        return 1;
    return 0;
}
