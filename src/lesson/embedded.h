/* embedded.h - the lessons/ folder, built into the binary by make. */
#ifndef QKV_EMBEDDED_H
#define QKV_EMBEDDED_H

#include <stddef.h>

typedef struct {
    const char *name;   /* "lessons/01-three-tokens.yaml" */
    const char *data;
    size_t len;
} EmbeddedLesson;

extern const EmbeddedLesson embedded_lessons[];
extern const int embedded_count;

#endif
