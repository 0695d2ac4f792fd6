/* launch.c - run one command and report its wall time and peak memory.
 *
 * Usage: launch COMMAND [ARGS...]   prints "MS RSS_KIB" and the exit status
 * The benchmark spawns this small program, which starts COMMAND
 * with stdout on /dev/null and waits for it with wait4(). Linux counts a
 * process's resident set from before its execve() in ru_maxrss, so the
 * command must be forked by a small process like this one, not by the
 * benchmark (whose own few megabytes would be counted).
 *
 * The command is started with posix_spawn (a vfork, as hyperfine does:
 * fork's page-table copy costs about a millisecond on this kind of machine,
 * which would be charged to the fast command), twice, and the second run is
 * reported. */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    struct rusage ru;
    int status;
    if (argc < 2)
        return 2;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    for (int run = 0; run < 2; run++) {
        pid_t pid;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (posix_spawn(&pid, argv[1], &fa, NULL, argv + 1, environ) != 0 || wait4(pid, &status, 0, &ru) < 0)
            return 2;
        clock_gettime(CLOCK_MONOTONIC, &t1);
    }
    posix_spawn_file_actions_destroy(&fa);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    printf("%.4f %ld %d\n", ms, ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
    return 0;
}
