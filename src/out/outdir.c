/* outdir.c - opening and closing the files of an --out folder (outdir.h). */
#include "outdir.h"

#include <errno.h>
#include <string.h>

#include "text/i18n.h"

FILE *out_open(const char *dir, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, _("qkvtutor: cannot write %s: %s\n"), path, strerror(errno));
    return f;
}

bool out_close(FILE *f, const char *path)
{
    if (ferror(f) | (fclose(f) != 0)) {
        fprintf(stderr, _("qkvtutor: cannot write %s: %s\n"), path, strerror(errno));
        return false;
    }
    return true;
}
