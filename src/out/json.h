/* json.h - a small streaming JSON writer for --json.
 *
 * Writes straight to a stdio stream through its own buffer: no tree, no
 * allocation. Numbers go through the one shortest round-trip printer
 * (lesson/shortest.h), so each reads back as the same double. Strings are
 * escaped as JSON requires, and DEL and the C1 controls (U+0080..U+009F)
 * are written as \u escapes too, so the output never carries a byte a
 * terminal acts on. Keys are the caller's (ASCII literals); a NULL key
 * means an array element. Nesting is at most JSON_DEPTH deep. */
#ifndef QKV_JSON_H
#define QKV_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_DEPTH 16

typedef struct {
    FILE *out;
    int depth;
    bool first[JSON_DEPTH]; /* nothing written yet at this depth */
    char close[JSON_DEPTH]; /* '}' or ']' */
    size_t n;
    char buf[16384];
} Json;

void json_init(Json *j, FILE *out);
/* "key": { ... } / [ ... ]; json_end closes the innermost. */
void json_object(Json *j, const char *key);
void json_array(Json *j, const char *key);
void json_end(Json *j);
/* A number; NaN and the infinities, which JSON has no number for, are the
 * strings "nan", "inf" and "-inf". */
void json_number(Json *j, const char *key, double v);
void json_string(Json *j, const char *key, const char *s);
void json_null(Json *j, const char *key);
/* Write what is buffered and a newline; false when the stream failed. */
bool json_finish(Json *j);

#endif
