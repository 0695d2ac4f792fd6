/* ptykey.c - one keypress end to end, as a terminal user gets it: the real
 * binary (its own malloc settings, curses, our writer) on a pseudo-terminal.
 *
 * ptykey N LESSON COLS ROWS BINARY [BINARY...]: opens the lesson, leaves the title card,
 * goes to step 4, then presses next and back (Space, p) alternately N times,
 * each key written only when the last frame has come back; with several
 * binaries (before and after a change) the keys go to each in turn. Prints
 *   bench: keypress_pty_us_<name> MEDIAN us (...)
 * with the key -> first byte of the frame median and p90, the process's
 * on-CPU time per key (/proc/PID/schedstat), its minor page faults per key
 * (/proc/PID/stat) and the median bytes of a frame. Timing only: it is a
 * bench, never a test. Exits 1 when the program does not answer. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Read what comes within first_ms, then until idle_ms pass with nothing. */
static long drain(int fd, int first_ms, int idle_ms)
{
    char buf[65536];
    long n = 0;
    struct pollfd p = {fd, POLLIN, 0};
    while (poll(&p, 1, n ? idle_ms : first_ms) > 0) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r <= 0)
            break;
        n += r;
    }
    return n;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* On-CPU ns (schedstat) and minor faults (stat field 10) of pid. */
static void usage_of(pid_t pid, unsigned long long *cpu_ns, unsigned long *minflt)
{
    char path[64], buf[1024];
    *cpu_ns = 0;
    *minflt = 0;
    snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%llu", cpu_ns) != 1)
            *cpu_ns = 0;
        fclose(f);
    }
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    if (f && fgets(buf, sizeof buf, f)) {
        char *p = strrchr(buf, ')');
        /* after ")": state ppid pgrp session tty tpgid flags minflt */
        if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %lu", minflt) != 1)
            *minflt = 0;
    }
    if (f)
        fclose(f);
}

typedef struct {
    const char *bin;
    pid_t pid;
    int fd;
    double *first;
    double *bytes;
    unsigned long long c0, c1;
    unsigned long f0, f1;
} Run;

/* Start bin on a pty of cols x rows and take it to step 4. */
static bool start(Run *r, const char *lesson, struct winsize *ws, int n)
{
    r->pid = forkpty(&r->fd, NULL, NULL, ws);
    if (r->pid < 0)
        return false;
    if (r->pid == 0) {
        setenv("TERM", "xterm-256color", 1);
        setenv("LANG", "C.UTF-8", 1);
        setenv("LC_ALL", "C.UTF-8", 1);
        execl(r->bin, r->bin, lesson, (char *)NULL);
        _exit(127);
    }
    r->first = calloc((size_t)n, sizeof *r->first);
    r->bytes = calloc((size_t)n, sizeof *r->bytes);
    if (!r->first || !r->bytes || drain(r->fd, 5000, 200) == 0)
        return false;
    for (int k = 0; k < 4; k++) /* the title card, then step 4 */
        if (write(r->fd, " ", 1) != 1 || drain(r->fd, 2000, 50) == 0)
            return false;
    return true;
}

/* Key k into r: false when the program does not answer. */
static bool press(Run *r, int k)
{
    struct pollfd p = {r->fd, POLLIN, 0};
    char buf[65536];
    double t0 = now_us();
    if (write(r->fd, k % 2 ? "p" : " ", 1) != 1 || poll(&p, 1, 2000) <= 0)
        return false;
    double t1 = now_us();
    ssize_t got = read(r->fd, buf, sizeof buf);
    if (got <= 0)
        return false;
    r->first[k] = t1 - t0;
    r->bytes[k] = (double)(got + drain(r->fd, 0, 2));
    return true;
}

static void report(Run *r, const char *lesson, const char *cols, const char *rows, int n, bool named)
{
    qsort(r->first, (size_t)n, sizeof *r->first, cmp);
    qsort(r->bytes, (size_t)n, sizeof *r->bytes, cmp);
    const char *name = strrchr(lesson, '/');
    name = name ? name + 1 : lesson;
    printf("bench: keypress_pty_us_lesson%d_%sx%s %.1f us (median of %d: key written on a pty -> first byte of "
           "the frame, the real binary%s%s; p90 %.1f us; on-CPU %.1f us per key, %.2f minor page faults per key, "
           "%.0f bytes a frame)\n",
           atoi(name), cols, rows, r->first[n / 2], n, named ? " " : "", named ? r->bin : "", r->first[n * 9 / 10],
           (double)(r->c1 - r->c0) / 1e3 / n, (double)(r->f1 - r->f0) / n, r->bytes[n / 2]);
}

int main(int argc, char **argv)
{
    if (argc < 6 || argc > 9) {
        fprintf(stderr, "usage: ptykey N LESSON COLS ROWS BINARY [BINARY...] (keys alternated among them)\n");
        return 2;
    }
    int n = atoi(argv[1]), nb = argc - 5;
    struct winsize ws = {(unsigned short)atoi(argv[4]), (unsigned short)atoi(argv[3]), 0, 0};
    Run run[4] = {{0}};
    int rc = 0;
    for (int b = 0; b < nb && rc == 0; b++) {
        run[b].bin = argv[5 + b];
        if (!start(&run[b], argv[2], &ws, n)) {
            fprintf(stderr, "ptykey: %s did not open %s\n", run[b].bin, argv[2]);
            rc = 1;
        }
    }
    for (int b = 0; b < nb && rc == 0; b++)
        usage_of(run[b].pid, &run[b].c0, &run[b].f0);
    for (int k = 0; k < n && rc == 0; k++)
        for (int b = 0; b < nb && rc == 0; b++) /* side by side: one key each, in turn */
            if (!press(&run[b], k)) {
                fprintf(stderr, "ptykey: %s stopped answering after %d keys\n", run[b].bin, k);
                rc = 1;
            }
    for (int b = 0; b < nb; b++) {
        if (run[b].pid <= 0)
            continue;
        usage_of(run[b].pid, &run[b].c1, &run[b].f1);
        if (write(run[b].fd, "q", 1) != 1) {}
        drain(run[b].fd, 500, 50);
        kill(run[b].pid, SIGTERM);
        waitpid(run[b].pid, NULL, 0);
        if (rc == 0)
            report(&run[b], argv[2], argv[3], argv[4], n, nb > 1);
        free(run[b].first);
        free(run[b].bytes);
    }
    return rc;
}
