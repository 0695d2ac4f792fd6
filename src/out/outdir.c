/* outdir.c - the files of an --out folder, all or none (outdir.h). */
#include "outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"
#include "text/i18n.h"

static void say(const AFile *a)
{
    char msg[AFILE_PATH + 1200];
    afile_error(a, msg, sizeof msg);
    fprintf(stderr, "qkvtutor: %s\n", msg);
}

bool out_begin(OutSet *o, const char *dir)
{
    memset(o, 0, sizeof *o);
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    if (mkdir(dir, 0777) == 0) {
        o->made = true;
        return true;
    }
    int e = errno;
    struct stat st;
    if (e == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return true;
    AFile a = {.err = e == EEXIST ? ENOTDIR : e};
    snprintf(a.path, sizeof a.path, "%s", dir);
    say(&a);
    return false;
}

FILE *out_open(OutSet *o, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", o->dir, name);
    if (!grow_buf((void **)&o->file, &o->cap, o->n + 1, sizeof *o->file)) {
        AFile a = {.err = ENOMEM};
        snprintf(a.path, sizeof a.path, "%s", path);
        say(&a);
        return NULL;
    }
    AFile *a = &o->file[o->n];
    FILE *f = afile_open(a, path);
    if (!f) {
        say(a);
        return NULL;
    }
    o->n++;
    return f;
}

bool out_close(OutSet *o, FILE *f)
{
    for (int k = 0; k < o->n; k++)
        if (o->file[k].f == f && f) {
            if (afile_finish(&o->file[k]))
                return true;
            say(&o->file[k]);
            return false;
        }
    return false;
}

const char *out_temp(const OutSet *o, const char *path)
{
    for (int k = 0; k < o->n; k++)
        if (strcmp(o->file[k].path, path) == 0 && o->file[k].tmp[0])
            return o->file[k].tmp;
    return NULL;
}

/* Is every name free for a file (missing, or a file or link)? */
static bool names_free(OutSet *o)
{
    for (int k = 0; k < o->n; k++) {
        struct stat st;
        if (lstat(o->file[k].path, &st) == 0 && S_ISDIR(st.st_mode)) {
            o->file[k].err = EISDIR;
            say(&o->file[k]);
            return false;
        }
    }
    return true;
}

bool out_end(OutSet *o, bool ok)
{
    for (int k = 0; ok && k < o->n; k++)
        if (!afile_finish(&o->file[k])) {
            say(&o->file[k]);
            ok = false;
        }
    for (int k = 0; ok && k < o->n; k++) { /* what another program wrote into a temporary, on disk */
        int fd = open(o->file[k].tmp, O_RDONLY);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
    }
    ok = ok && names_free(o);
    int placed = 0;
    for (; ok && placed < o->n; placed++)
        if (!afile_commit(&o->file[placed])) {
            say(&o->file[placed]);
            ok = false;
            break;
        }
    for (int k = 0; k < o->n; k++) {
        afile_abort(&o->file[k]); /* temporaries not in place */
        if (!ok && k < placed)
            unlink(o->file[k].path); /* this run's, put in place before the failure */
    }
    if (!ok && o->made)
        rmdir(o->dir);
    free(o->file);
    o->file = NULL;
    o->n = o->cap = 0;
    return ok;
}
