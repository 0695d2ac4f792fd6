/* afile.c - the atomic file writer (afile.h). */
#include "afile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"
#include "text.h"

/* The temporary's name for path: DIR/.STEM.tmpXXXXXX.EXT; *suffix gets the
 * length of ".EXT" (mkstemps keeps it). False when it does not fit. */
static bool temp_name(const char *path, char *tmp, size_t len, int *suffix)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        dot = base + strlen(base);
    int dir = (int)(base - path), stem = (int)(dot - base);
    *suffix = (int)strlen(dot);
    int n = snprintf(tmp, len, "%.*s.%.*s.tmpXXXXXX%s", dir, path, stem, base, dot);
    return n > 0 && (size_t)n < len;
}

/* The mode the target would get: an existing regular file's, else what
 * open(2) gives a new file, 0666 less the umask. */
static mode_t target_mode(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return st.st_mode & 07777;
    mode_t um = umask(0);
    umask(um);
    return 0666 & ~um;
}

/* Keep the first failure's errno; remove the temporary. */
static bool fail(AFile *a, int e)
{
    if (!a->err)
        a->err = e ? e : EIO;
    afile_abort(a);
    return false;
}

FILE *afile_open(AFile *a, const char *path)
{
    memset(a, 0, sizeof *a);
    int suffix = 0;
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path ||
        !temp_name(path, a->tmp, sizeof a->tmp, &suffix)) {
        a->tmp[0] = '\0';
        a->err = ENAMETOOLONG;
        return NULL;
    }
    mode_t mode = target_mode(path);
    int fd = mkstemps(a->tmp, suffix); /* O_CREAT | O_EXCL, mode 0600 */
    if (fd < 0) {
        a->tmp[0] = '\0';
        a->err = errno;
        return NULL;
    }
    if (fchmod(fd, mode) != 0 || !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        fail(a, e);
        return NULL;
    }
    return a->f;
}

bool afile_finish(AFile *a)
{
    if (!a->tmp[0])
        return a->err == 0;
    if (!a->f)
        return true;
    FILE *f = a->f;
    a->f = NULL;
    bool ok = fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
    int e = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    return ok || fail(a, e);
}

/* Make the rename durable: fsync the folder that holds path. */
static void sync_dir(const char *path)
{
    char dir[AFILE_PATH];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    int fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

bool afile_commit(AFile *a)
{
    if (!afile_finish(a))
        return false;
    if (!a->tmp[0])
        return fail(a, EINVAL);
    if (rename(a->tmp, a->path) != 0)
        return fail(a, errno);
    a->tmp[0] = '\0';
    sync_dir(a->path);
    return true;
}

void afile_abort(AFile *a)
{
    if (a->f) {
        fclose(a->f);
        a->f = NULL;
    }
    if (a->tmp[0])
        unlink(a->tmp);
    a->tmp[0] = '\0';
}

void afile_error(const AFile *a, char *msg, size_t len)
{
    char shown[1024];
    text_shown(a->path, shown, sizeof shown);
    snprintf(msg, len, _("cannot write %s: %s"), shown, strerror(a->err ? a->err : EIO));
}

bool afile_write(const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
    AFile a;
    FILE *f = afile_open(&a, path);
    if (f && (len == 0 || fwrite(buf, 1, len, f) == len) && afile_commit(&a))
        return true;
    if (f && !a.err)
        fail(&a, errno);
    afile_error(&a, err, errlen);
    return false;
}

char *afile_read(const char *path, size_t max, size_t *len)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    /* a regular file's own size when it fits; else room to tell it is too big */
    size_t want = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= max
                      ? (size_t)st.st_size + 1
                      : max + 1;
    char *buf = malloc(want + 1);
    if (!buf) {
        fclose(f);
        errno = ENOMEM;
        return NULL;
    }
    *len = fread(buf, 1, want, f);
    int e = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (e) {
        free(buf);
        errno = e;
        return NULL;
    }
    buf[*len] = '\0';
    return buf;
}
