/* json.h - a small streaming JSON writer for --json.
 *
 * Writes straight to a stdio stream through its own buffer: no tree. Numbers
 * go through the one shortest round-trip printer (text/shortest.h), so each
 * reads back as the same double; past JSON_MEMO_AFTER numbers, the writer
 * keeps the text of the last numbers it printed in a small table (allocated
 * then, freed by json_finish), because big lessons print the same doubles
 * again and again (a head's Q is a slice of Q, S is QKᵀ unscaled). Strings are
 * escaped as JSON requires, and DEL and the C1 controls (U+0080..U+009F)
 * are written as \u escapes too, so the output never carries a byte a
 * terminal acts on. Keys are the caller's (ASCII literals); a NULL key
 * means an array element. Nesting is at most JSON_DEPTH deep. */
#ifndef QKV_JSON_H
#define QKV_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_DEPTH 16
#define JSON_MEMO_AFTER 1024

struct JsonMemo;

typedef struct {
    FILE *out;
    size_t numbers;         /* printed so far */
    bool no_memo;           /* json_no_memo: never make the memo */
    struct JsonMemo *memo;  /* NULL until JSON_MEMO_AFTER numbers, or out of memory */
    int depth;
    bool first[JSON_DEPTH]; /* nothing written yet at this depth */
    char close[JSON_DEPTH]; /* '}' or ']' */
    size_t n;
    char buf[16384];
} Json;

void json_init(Json *j, FILE *out);
/* Never make the memo (after json_init): for output whose numbers seldom
 * repeat, such as a model's parameters and stages (its 512 KiB would cost
 * page faults and find nothing). */
void json_no_memo(Json *j);
/* "key": { ... } / [ ... ]; json_end closes the innermost. */
void json_object(Json *j, const char *key);
void json_array(Json *j, const char *key);
void json_end(Json *j);
/* A number; NaN and the infinities, which JSON has no number for, are the
 * strings "nan", "inf" and "-inf". */
void json_number(Json *j, const char *key, double v);
/* "key": [v[0], ..., v[n-1]], each as json_number writes it. */
void json_numbers(Json *j, const char *key, const double *v, int n);
void json_string(Json *j, const char *key, const char *s);
void json_null(Json *j, const char *key);
/* Write what is buffered and a newline, free the memo; false when the
 * stream failed. Call it once for each json_init. */
bool json_finish(Json *j);

#endif
