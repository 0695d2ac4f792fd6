/* tools/lessonrec.c - the built-in lessons' YAML event streams, recorded at
 * build time (`make` runs it for build/lessons.c; see src/lesson/ydoc.h).
 *
 *   lessonrec FILE...   C arrays on stdout: for the n-th FILE, rec_n (the
 *                       two YdocRecs: the whole document, and the one the
 *                       loader reads for --json, its narration skimmed) and
 *                       QKV_REC_n, the two pointers for its EmbeddedLesson
 *                       (0, 0 under QKV_NO_RECORDINGS or when the file is
 *                       not one the loader accepts as YAML).
 *
 * Each file is prepared as src/lesson/load.c prepares a lesson's bytes:
 * a byte-order mark dropped, then skim_narration() on the rest; where skim
 * declines, the --json stream is the whole one. A host tool, outside the
 * program's layers: it links ydoc, skim, diag and text/'s base. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/diag.h"
#include "lesson/lesson.h"
#include "lesson/skim.h"
#include "lesson/ydoc.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc(LESSON_MAX_BYTES + 1) : NULL;
    *len = buf ? fread(buf, 1, LESSON_MAX_BYTES + 1, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

static void bytes(const char *name, const unsigned char *b, size_t n)
{
    printf("static const unsigned char %s[] = {", name);
    for (size_t k = 0; k < n; k++)
        printf("%s0x%02x,", k % 16 ? "" : "\n", b[k]);
    printf("%s};\n", n ? "\n" : "0");
}

/* Record path's two streams as rec_n; false when there is none to record. */
static bool record(const char *path, int n)
{
    size_t len, full = 0;
    char *buf = slurp(path, &len);
    if (!buf || len > LESSON_MAX_BYTES) {
        fprintf(stderr, "lessonrec: %s: cannot read, or too big: not recorded\n", path);
        free(buf);
        return false;
    }
    const char *at = buf;
    if (len >= 3 && memcmp(at, "\xef\xbb\xbf", 3) == 0) {
        at += 3;
        len -= 3;
    }
    char err[DIAG_MSG_MAX], *skimmed = malloc(len ? len : 1);
    Diag d = {.file = path, .err = err, .errlen = sizeof err};
    YdocTape t = {0};
    size_t slen = skimmed ? skim_narration(skimmed, at, len) : (size_t)-1;
    bool ok = ydoc_record(&d, at, len, &t, NULL);
    full = t.len;
    if (ok && slen != (size_t)-1)
        ok = ydoc_record(&d, skimmed, slen, &t, NULL);
    if (ok) {
        char name[64];
        snprintf(name, sizeof name, "rec_%d_ev", n);
        bytes(name, t.ev, t.len);
        snprintf(name, sizeof name, "rec_%d_str", n);
        bytes(name, (const unsigned char *)t.str, t.strlen);
        size_t skim_at = slen != (size_t)-1 ? full : 0, skim_len = slen != (size_t)-1 ? t.len - full : full;
        printf("static const YdocRec rec_%d[2] = {\n"
               "  {rec_%d_ev, %zu, (const char *)rec_%d_str, sizeof rec_%d_str},\n"
               "  {rec_%d_ev + %zu, %zu, (const char *)rec_%d_str, sizeof rec_%d_str}};\n",
               n, n, full, n, n, n, skim_at, skim_len, n, n);
        printf("#define QKV_REC_%d &rec_%d[0], &rec_%d[1]\n", n, n, n);
    } else {
        fprintf(stderr, "lessonrec: %s: not recorded (the loader will parse it): %s\n", path, err);
    }
    free(t.ev);
    free(t.str);
    free(skimmed);
    free(buf);
    return ok;
}

int main(int argc, char **argv)
{
    printf("/* the events libyaml delivers for each built-in lesson, recorded by tools/lessonrec */\n"
           "#include \"lesson/ydoc.h\"\n#ifndef QKV_NO_RECORDINGS\n");
    bool *done = calloc((size_t)argc, sizeof *done);
    if (!done)
        return 1;
    for (int k = 1; k < argc; k++)
        done[k] = record(argv[k], k - 1);
    printf("#endif\n");
    for (int k = 1; k < argc; k++)
        if (done[k])
            printf("#ifdef QKV_NO_RECORDINGS\n#define QKV_REC_%d 0, 0\n#endif\n", k - 1);
        else
            printf("#define QKV_REC_%d 0, 0\n", k - 1);
    free(done);
    return ferror(stdout) ? 1 : 0;
}
