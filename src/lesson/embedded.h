/* embedded.h - the lessons/ folder, built into the binary by make. */
#ifndef QKV_EMBEDDED_H
#define QKV_EMBEDDED_H

#include <stdbool.h>
#include <stddef.h>

struct YdocRec;

typedef struct {
    const char *name;   /* "lessons/01-three-tokens.yaml" */
    const char *data;
    size_t len;
    /* its YAML events recorded at build time (ydoc.h), replayed by the
     * loader when it reads data itself: the whole document, and the one
     * --json reads (its narration skimmed, skim.h); NULL when not recorded
     * (the web build) */
    const struct YdocRec *full, *skim;
} EmbeddedLesson;

extern const EmbeddedLesson embedded_lessons[];
extern const int embedded_count;

/* The other files under lessons/ that lessons name (weights files,
 * "lessons/weights/induction-2l.yaml"), built in too: their bytes only. */
typedef struct {
    const char *name;
    const char *data;
    size_t len;
} EmbeddedFile;

extern const EmbeddedFile embedded_files[];
extern const int embedded_file_count;

/* The built-in file a built-in lesson's relative path names: path resolved
 * against the lesson's folder ("lessons/17-induction-head.yaml" and
 * "weights/induction-2l.yaml": "lessons/weights/induction-2l.yaml", "./"
 * and "dir/../" taken out); NULL when none is built in. */
const EmbeddedFile *embedded_file_near(const char *lesson, const char *path);

#endif
