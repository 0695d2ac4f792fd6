/* embedfile.c - the built-in files lessons name (see embedded.h). */
#include "embedded.h"

#include <string.h>

/* dir[0..dlen) + "/" + path, with "./" and "x/../" taken out, into buf;
 * false when it does not fit or climbs above the start. */
static bool join(const char *dir, size_t dlen, const char *path, char *buf, size_t len)
{
    size_t n = 0;
    if (dlen + strlen(path) + 2 > len)
        return false;
    memcpy(buf, dir, dlen);
    n = dlen;
    buf[n] = '\0';
    for (const char *p = path; *p;) {
        size_t seg = strcspn(p, "/");
        if (seg == 1 && p[0] == '.') {
            /* nothing */
        } else if (seg == 2 && p[0] == '.' && p[1] == '.') {
            if (n == 0)
                return false;
            while (n > 0 && buf[n - 1] != '/')
                n--;
            n = n > 0 ? n - 1 : 0;
        } else if (seg > 0) {
            if (n)
                buf[n++] = '/';
            memcpy(buf + n, p, seg);
            n += seg;
        }
        buf[n] = '\0';
        p += seg + (p[seg] == '/');
    }
    return true;
}

const EmbeddedFile *embedded_file_near(const char *lesson, const char *path)
{
    char want[512];
    const char *slash = strrchr(lesson, '/');
    if (!path || path[0] == '/' || !join(lesson, slash ? (size_t)(slash - lesson) : 0, path, want, sizeof want))
        return NULL;
    for (int k = 0; k < embedded_file_count; k++)
        if (strcmp(embedded_files[k].name, want) == 0)
            return &embedded_files[k];
    return NULL;
}
