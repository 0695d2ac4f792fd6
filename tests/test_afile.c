/* test_afile.c - the atomic file writer (src/text/afile.c), with failures
 * made on purpose: a missing folder, a folder in the target's place, a
 * folder below a file, a write that fails (RLIMIT_FSIZE: the kernel
 * refuses the bytes, "File too large"), an fsync that fails (fsync is
 * wrapped at link time: -Wl,--wrap=fsync), and an unwritable folder when
 * not run as root. After each: the exact message, the old target byte for
 * byte, and no file left beside it. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "text/afile.h"

/* ---- the fsync hook ---- */
int __real_fsync(int fd);
int __wrap_fsync(int fd);
static int fsync_fails; /* errno for the next fsyncs, 0: the real one */

int __wrap_fsync(int fd)
{
    if (fsync_fails) {
        errno = fsync_fails;
        return -1;
    }
    return __real_fsync(fd);
}

static char dir[64];

static int setup(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/test_afile.XXXXXX");
    umask(022);
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", dir, dir);
    fsync_fails = 0;
    return system(cmd) == 0 ? 0 : -1;
}

/* The names in folder d, sorted, joined by spaces ("" when empty). */
static void names(const char *d, char *out, size_t len)
{
    struct dirent **e;
    int n = scandir(d, &e, NULL, alphasort);
    out[0] = '\0';
    for (int k = 0; k < n; k++) {
        if (strcmp(e[k]->d_name, ".") && strcmp(e[k]->d_name, ".."))
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", e[k]->d_name);
        free(e[k]);
    }
    if (n >= 0)
        free(e);
}

static void path_of(char *p, size_t len, const char *name)
{
    snprintf(p, len, "%s/%s", dir, name);
}

static void assert_file(const char *path, const char *want)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, want);
}

static void assert_names(const char *d, const char *want)
{
    char got[1024];
    names(d, got, sizeof got);
    assert_string_equal(got, want);
}

static void test_writes_and_replaces(void **state)
{
    char p[256], err[512] = "";
    path_of(p, sizeof p, "lesson.yaml");
    assert_true(afile_write(p, "one\n", 4, err, sizeof err));
    assert_file(p, "one\n");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* a new file: 0666 less the umask */
    assert_int_equal(chmod(p, 0600), 0);
    assert_true(afile_write(p, "two\n", 4, err, sizeof err));
    assert_file(p, "two\n");
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600); /* an old file keeps its mode */
    assert_names(dir, "lesson.yaml");
    assert_string_equal(err, "");
}

/* afile_read: the whole file NUL-terminated; a file over max gives max + 1
 * bytes (the caller's "too big"); a missing one NULL with ENOENT. */
static void test_reads(void **state)
{
    char p[256], err[512] = "";
    size_t len = 99;
    path_of(p, sizeof p, "w.yaml");
    assert_true(afile_write(p, "abcdef", 6, err, sizeof err));
    char *b = afile_read(p, 6, &len);
    assert_non_null(b);
    assert_int_equal(len, 6);
    assert_string_equal(b, "abcdef");
    free(b);
    b = afile_read(p, 4, &len);
    assert_non_null(b);
    assert_int_equal(len, 5);
    assert_string_equal(b, "abcde");
    free(b);
    path_of(p, sizeof p, "none.yaml");
    errno = 0;
    assert_null(afile_read(p, 4, &len));
    assert_int_equal(errno, ENOENT);
}

/* A symbolic link is replaced by the file; what it pointed to is untouched. */
static void test_link_replaced(void **state)
{
    char p[256], t[256], err[512];
    path_of(t, sizeof t, "target.txt");
    path_of(p, sizeof p, "link.yaml");
    assert_true(afile_write(t, "keep\n", 5, err, sizeof err));
    assert_int_equal(symlink("target.txt", p), 0);
    assert_true(afile_write(p, "new\n", 4, err, sizeof err));
    assert_file(t, "keep\n");
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_file(p, "new\n");
}

static void test_missing_folder(void **state)
{
    char p[256], want[512], err[512];
    path_of(p, sizeof p, "nope/x.yaml");
    assert_false(afile_write(p, "x", 1, err, sizeof err));
    snprintf(want, sizeof want, "cannot write %s/nope/x.yaml: No such file or directory", dir);
    assert_string_equal(err, want);
    assert_names(dir, "");
}

static void test_target_is_a_folder(void **state)
{
    char p[256], want[512], err[512];
    path_of(p, sizeof p, "sub");
    assert_int_equal(mkdir(p, 0755), 0);
    assert_false(afile_write(p, "x", 1, err, sizeof err));
    snprintf(want, sizeof want, "cannot write %s/sub: Is a directory", dir);
    assert_string_equal(err, want);
    assert_names(dir, "sub");
    assert_names(p, "");
}

static void test_folder_below_a_file(void **state)
{
    char p[256], f[256], want[512], err[512];
    path_of(f, sizeof f, "plain");
    assert_true(afile_write(f, "x", 1, err, sizeof err));
    path_of(p, sizeof p, "plain/x.yaml");
    assert_false(afile_write(p, "x", 1, err, sizeof err));
    snprintf(want, sizeof want, "cannot write %s/plain/x.yaml: Not a directory", dir);
    assert_string_equal(err, want);
    assert_names(dir, "plain");
}

/* The kernel refuses the bytes past RLIMIT_FSIZE: the write fails for
 * real, the old file stays whole. */
static void test_write_fails(void **state)
{
    char p[256], want[512], err[512], big[8192];
    path_of(p, sizeof p, "key.md");
    assert_true(afile_write(p, "old\n", 4, err, sizeof err));
    memset(big, 'a', sizeof big);
    struct rlimit was, small = {4096, 4096};
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    small.rlim_max = was.rlim_max;
    void (*h)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    bool ok = afile_write(p, big, sizeof big, err, sizeof err);
    setrlimit(RLIMIT_FSIZE, &was);
    signal(SIGXFSZ, h);
    assert_false(ok);
    snprintf(want, sizeof want, "cannot write %s/key.md: File too large", dir);
    assert_string_equal(err, want);
    assert_file(p, "old\n");
    assert_names(dir, "key.md");
}

static void test_fsync_fails(void **state)
{
    char p[256], want[512], err[512];
    path_of(p, sizeof p, "my.yaml");
    assert_true(afile_write(p, "old\n", 4, err, sizeof err));
    fsync_fails = EIO;
    assert_false(afile_write(p, "new\n", 4, err, sizeof err));
    fsync_fails = 0;
    snprintf(want, sizeof want, "cannot write %s/my.yaml: Input/output error", dir);
    assert_string_equal(err, want);
    assert_file(p, "old\n");
    assert_names(dir, "my.yaml");
}

/* Written through the FILE *, then abandoned: nothing is left; finished
 * but not committed: nothing is in place; committed: in place. The
 * temporary keeps the target's extension. */
static void test_stream_steps(void **state)
{
    char p[256], err[512];
    path_of(p, sizeof p, "sheets.html");
    AFile a;
    FILE *f = afile_open(&a, p);
    assert_non_null(f);
    fprintf(f, "<p>half");
    assert_non_null(strstr(a.tmp, "/.sheets.tmp"));
    assert_string_equal(a.tmp + strlen(a.tmp) - 5, ".html");
    afile_abort(&a);
    assert_names(dir, "");
    f = afile_open(&a, p);
    fprintf(f, "<p>whole</p>\n");
    assert_true(afile_finish(&a));
    assert_int_equal(access(p, F_OK), -1);
    assert_true(afile_commit(&a));
    assert_file(p, "<p>whole</p>\n");
    assert_names(dir, "sheets.html");
    /* the message quotes the name: no escape reaches the terminal */
    AFile b = {.err = ENOSPC};
    snprintf(b.path, sizeof b.path, "x\033]0;y.yaml");
    afile_error(&b, err, sizeof err);
    assert_string_equal(err, "cannot write x\\x1b]0;y.yaml: No space left on device");
}

/* Not as root, who writes anywhere: a folder without write permission. */
static void test_unwritable_folder(void **state)
{
    char d[256], p[256], want[512], err[512];
    path_of(d, sizeof d, "ro");
    assert_int_equal(mkdir(d, 0555), 0);
    path_of(p, sizeof p, "ro/x.yaml");
    bool ok = afile_write(p, "x", 1, err, sizeof err);
    if (geteuid() == 0) {
        assert_true(ok);
        return;
    }
    assert_false(ok);
    snprintf(want, sizeof want, "cannot write %s/ro/x.yaml: Permission denied", dir);
    assert_string_equal(err, want);
    assert_names(d, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_writes_and_replaces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_target_is_a_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_below_a_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fsync_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stream_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwritable_folder, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
