/* afile.h - the one atomic file writer: every file the tool writes (a saved
 * lesson, a class set's sheets and keys, slides, weights files) goes
 * through it.
 *
 * The text goes to a temporary file beside the target (same folder, so the
 * rename cannot cross file systems; created with O_EXCL, named
 * ".NAME.tmpXXXXXX.EXT" so that a program choosing by extension, such as
 * chromium opening HTML, reads it as the target), with the mode the target
 * would get (an existing file's mode, else 0666 less the umask); then it is
 * flushed, fsynced, closed, renamed over the target and the folder is
 * fsynced. A reader sees the old file or the new one, never a part. On any
 * failure the temporary is removed, nothing partial is left, and the reason
 * is kept: afile_error() says "cannot write PATH: REASON" in one line
 * (strerror's words, the path quoted as text_shown() does).
 *
 * Two ways to use it: afile_write() for a text in memory; or afile_open()
 * (a FILE * to print into), afile_finish() (written and synced, not yet in
 * place), and afile_commit() (renamed into place) or afile_abort(), so a
 * writer of several files can finish them all before it puts any in place.
 * Never creates folders, never follows the target if it is a symbolic
 * link (the link is replaced, what it points to is untouched), never
 * writes through to the target. Knows no lesson. */
#ifndef QKV_AFILE_H
#define QKV_AFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define AFILE_PATH 4096

typedef struct {
    char path[AFILE_PATH]; /* the target */
    char tmp[AFILE_PATH];  /* the temporary beside it, "" when there is none */
    FILE *f;               /* open on tmp until afile_finish() */
    int err;               /* errno of the first failure, 0 while none */
} AFile;

/* Create the temporary for path and open it for writing; NULL on failure
 * (a->err says why; nothing is left). */
FILE *afile_open(AFile *a, const char *path);
/* Flush, fsync and close the temporary (idempotent). False on failure:
 * the temporary is removed. A write error on the FILE counts. */
bool afile_finish(AFile *a);
/* Finish if need be, rename the temporary over the target, fsync the
 * folder. False on failure, with the temporary removed. */
bool afile_commit(AFile *a);
/* Close and remove the temporary, if any (the target is untouched). */
void afile_abort(AFile *a);
/* The failure in one line: "cannot write PATH: REASON". */
void afile_error(const AFile *a, char *msg, size_t len);
/* path := len bytes of buf, atomically. False with afile_error()'s line in
 * err. */
bool afile_write(const char *path, const void *buf, size_t len, char *err, size_t errlen);
/* The reading side, for the files a lesson names (a weights file, a text
 * file): at most max + 1 bytes of path (so *len > max says "too big"),
 * NUL-terminated, the caller frees; NULL with errno set when it cannot be
 * read. */
char *afile_read(const char *path, size_t max, size_t *len);

#endif
