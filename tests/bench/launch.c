/* launch.c - run one command and report its wall time and peak memory.
 *
 * Usage: launch COMMAND [ARGS...]   prints "MS RSS_KIB" and the exit status
 * The benchmark spawns this small program, which forks and execs COMMAND
 * with stdout on /dev/null and waits for it with wait4(). Linux counts a
 * process's resident set from before its execve() in ru_maxrss, so the
 * command must be forked by a small process like this one, not by the
 * benchmark (whose own few megabytes would be counted). */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    struct rusage ru;
    int status;
    if (argc < 2)
        return 2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, STDOUT_FILENO);
        execv(argv[1], argv + 1);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
        return 2;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    printf("%.4f %ld %d\n", ms, ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
    return 0;
}
