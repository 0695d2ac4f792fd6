/* save_interrupt.c - a save killed at any moment leaves the old file or the
 * new one, never a part.
 *
 * Usage: save_interrupt [--naive] LESSON [ROUNDS]
 * The lesson (large-ish, so one save takes many write() calls) is loaded
 * once. Each round forks a child that saves the session to the same path
 * again and again, each time with a new value in X[1][1] (the version),
 * while the parent SIGKILLs it after a random delay of 0 to 3 save times.
 * After each kill the parent checks the path:
 *   - absent only if no save ever completed;
 *   - otherwise it loads (lesson_load_file), it is complete (every step is
 *     there, the last one's narration intact), and its version is not older
 *     than the version seen before: the old file or a newer one.
 * Temporary files (.NAME.tmp*.yaml, text/afile.c) left by a kill are allowed; they are counted,
 * reported and removed. Prints ok/FAIL lines; exits 1 on any failure.
 * --naive checks the checker: the child then rewrites the file in place
 * (fopen "w" and a copy in small pieces), which this test must catch. */
#define _GNU_SOURCE
#include <dirent.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lesson/lesson.h"
#include "lesson/save.h"
#include "lesson/session.h"

static char dir[512], path[600];
static bool naive;

/* The unsafe way to save, for --naive: write the target in place. */
static bool naive_save(const Session *s, char *err, size_t len)
{
    char scratch[700], buf[512];
    snprintf(scratch, sizeof scratch, "%s/scratch.yaml", dir);
    if (!lesson_save(s, scratch, err, len))
        return false;
    FILE *in = fopen(scratch, "rb"), *out = fopen(path, "wb");
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) {
        fwrite(buf, 1, n, out);
        fflush(out);
    }
    if (in)
        fclose(in);
    return out && fclose(out) == 0;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Save forever, version after version (the child). */
static void child(Session *s, long first)
{
    char err[LESSON_ERR_MAX], act[64];
    for (long v = first;; v++) {
        snprintf(act, sizeof act, "X[1][1] = %ld", v);
        if (!session_act_text(s, act, err, sizeof err) ||
            !(naive ? naive_save(s, err, sizeof err) : lesson_save(s, path, err, sizeof err))) {
            fprintf(stderr, "save_interrupt: child: %s\n", err);
            _exit(3);
        }
    }
}

/* Remove and count the temporaries (.NAME.tmpXXXXXX.yaml) a kill left. */
static int sweep_temps(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    char p[1200];
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp") || strcmp(e->d_name, "scratch.yaml") == 0) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
            n++;
        }
    if (d)
        closedir(d);
    return n;
}

/* Check the file after a kill; *seen is the newest version seen so far
 * (-1: none yet). Returns false with a message on a partial or old file. */
static bool check_file(const Lesson *orig, long *seen, char *why, size_t len)
{
    struct stat st;
    Lesson l;
    char err[LESSON_ERR_MAX];
    if (stat(path, &st) != 0) {
        if (*seen < 0)
            return true;
        snprintf(why, len, "the file vanished after version %ld had been saved", *seen);
        return false;
    }
    if (!lesson_load_file(path, &l, err, sizeof err)) {
        snprintf(why, len, "partial file (%lld bytes): %s", (long long)st.st_size, err);
        return false;
    }
    const Step *last = &l.steps[l.nsteps - 1], *want = &orig->steps[orig->nsteps - 1];
    bool complete = l.nsteps == orig->nsteps && strcmp(text_get(&last->say, LANG_EN), text_get(&want->say, LANG_EN)) == 0;
    long v = (long)MAT_AT(&l.X, 0, 0);
    lesson_free(&l);
    if (!complete) {
        snprintf(why, len, "incomplete file (%lld bytes): steps missing or cut", (long long)st.st_size);
        return false;
    }
    if (v < *seen) {
        snprintf(why, len, "version %ld after version %ld: an older file came back", v, *seen);
        return false;
    }
    *seen = v;
    return true;
}

int main(int argc, char **argv)
{
    naive = argc > 1 && strcmp(argv[1], "--naive") == 0;
    argv += naive;
    argc -= naive;
    if (argc < 2) {
        fprintf(stderr, "usage: save_interrupt [--naive] LESSON [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 200;
    setlocale(LC_ALL, "C.UTF-8");
    Lesson l;
    Session s;
    char err[LESSON_ERR_MAX];
    if (!lesson_load_file(argv[1], &l, err, sizeof err) || !session_init(&s, &l)) {
        fprintf(stderr, "save_interrupt: %s\n", err);
        return 2;
    }
    snprintf(dir, sizeof dir, "%s/qkv-save-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("save_interrupt: mkdtemp");
        return 2;
    }
    snprintf(path, sizeof path, "%s/lesson.yaml", dir);

    /* How long one save takes here, to spread the kills over it. */
    double t0 = now_us();
    for (int k = 0; k < 5; k++)
        if (!lesson_save(&s, path, err, sizeof err)) {
            fprintf(stderr, "save_interrupt: %s\n", err);
            return 2;
        }
    double save_us = (now_us() - t0) / 5;
    unlink(path);
    struct stat st0;
    srand((unsigned)time(NULL) ^ (unsigned)getpid());

    int failed = 0, temps = 0, absent = 0, kills_mid = 0;
    long seen = -1;
    for (int r = 0; r < rounds; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("save_interrupt: fork");
            return 2;
        }
        if (pid == 0)
            child(&s, (long)(r + 1) * 1000000);
        useconds_t delay = (useconds_t)(rand() % (int)(3 * save_us + 1));
        usleep(delay);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        if (!WIFSIGNALED(status)) {
            printf("FAIL: round %d: the child exited (status %d) before the kill\n", r + 1, WEXITSTATUS(status));
            failed++;
            continue;
        }
        char why[LESSON_ERR_MAX + 64];
        if (!check_file(&l, &seen, why, sizeof why)) {
            printf("FAIL: round %d (killed after %u us): %s\n", r + 1, (unsigned)delay, why);
            failed++;
        }
        if (stat(path, &st0) != 0)
            absent++;
        int t = sweep_temps();
        temps += t;
        kills_mid += t > 0;
    }
    unlink(path);
    sweep_temps();
    rmdir(dir);
    session_free(&s);
    lesson_free(&l);
    printf("%s: interrupted save: %d rounds, one save %.0f us, %d kills caught a save in progress "
           "(%d stray temp files left, removed), file absent after %d kills (before any save completed), "
           "%d partial or old files\n",
           failed ? "FAIL" : "ok", rounds, save_us, kills_mid, temps, absent, failed);
    return failed ? 1 : 0;
}
