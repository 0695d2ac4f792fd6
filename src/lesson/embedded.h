/* embedded.h - the lessons/ folder, built into the binary by make. */
#ifndef QKV_EMBEDDED_H
#define QKV_EMBEDDED_H

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

#endif
