/* schema.h - reading a lesson's values from its YAML document, with
 * messages (shared by load.c, the lesson's top level, and steps.c, its
 * step script).
 *
 * A Loader is one load: its Diag (messages, diag.h) and the document being
 * walked (ydoc.h). Every schema_* reader checks one node's shape and value
 * and either fills its output or writes one "FILE:LINE:COL: ..." message
 * and returns false; the walker then stops and the loader frees the
 * half-built lesson. Readers never recurse and never allocate except
 * schema_dup_text() and schema_text() (the strings they return). Numbers go
 * through num.h and references through ref.h, so every field reads them
 * the same way. */
#ifndef QKV_SCHEMA_H
#define QKV_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "diag.h"
#include "lesson.h"
#include "ref.h"
#include "ydoc.h"

/* One load: its messages and the document being walked. */
typedef struct {
    Diag d;
    yaml_document_t *doc;
    bool partial;            /* the part of a file before its YAML syntax error */
    int digits;              /* the lesson's digits, once options are read (whole-number expectations) */
    bool no_narration; /* LESSON_LOAD_NO_NARRATION: about:, say:, question: not read */
    long grad_steps;   /* `step N` actions counted so far (LESSON_MAX_GRAD_STEPS) */
    const char *src;   /* the file's bytes (to see a tag as written) */
    size_t srclen;
} Loader;

/* The keys valid in one mapping, for lookup and for "did you mean". */
typedef struct {
    const char *const *names;
    int n;
    const char *noun;        /* "key" or "language" */
    const char *where;       /* "" at the top, " in options" deeper */
} Keys;

/* snprintf(buf, len, fmt, s) (s not NULL) or snprintf(buf, len, fmt, n)
 * for a format with one %s or %d (a translated " in step %d"), without
 * printf's machinery: such names are made for every step and token, long
 * before a message may need them. Other formats go to snprintf. */
void schema_fill(char *buf, size_t len, const char *fmt, const char *s, int n);

/* Require a scalar that is valid UTF-8 without NUL; `what` names it. */
bool schema_want_text(Loader *c, const yaml_node_t *n, const char *what);
/* The same, and copy it into *out (malloc'd; the caller frees). */
bool schema_dup_text(Loader *c, const yaml_node_t *n, const char *what, char **out);
/* A text field: a plain string (the English slot, which text_get() falls
 * back on) or a mapping {zh: ..., en: ...}. An absent node (NULL) is fine. */
bool schema_text(Loader *c, const yaml_node_t *n, const char *what, Text *t);

/* A finite number (num.h: U+2212 accepted, any locale); *decimals (may be
 * NULL) receives the decimals written, for expect tolerances. Full-width
 * punctuation and decimal commas are named in the message. */
bool schema_num(Loader *c, const yaml_node_t *n, double *v, int *decimals);
/* A whole number 0..max written as plain digits. No message. */
/* Was n written as text, not as a number: quoted ("1.0", '1') or with an
 * explicit tag (!!str 1, !!float 0)? A number is written plain. */
bool schema_not_plain(const Loader *c, const yaml_node_t *n);
bool schema_uint(const Loader *c, const yaml_node_t *n, unsigned long long max, unsigned long long *out);
/* A size such as d_k: a whole number from 1 to MAT_MAX. */
bool schema_size(Loader *c, const yaml_node_t *n, const char *name, int *out);

/* Refuse full-width lookalikes of ",", ".", "-", "[", "]", "=" or digits in
 * a list of numbers (every one), or in one scalar (a number, an action). */
bool schema_lookalikes(Loader *c, const yaml_node_t *row);
bool schema_check_lookalike(Loader *c, const yaml_node_t *n);
/* When a list of numbers holds "0,5", write a hint into buf and return the
 * node of the "0"; else buf is "" and the result is NULL. */
const yaml_node_t *schema_decimal_comma(Loader *c, const yaml_node_t *row, char *buf, size_t len);
/* Fail for a list of the wrong length: at the list, or at its decimal
 * comma with the hint appended. Returns false. */
DIAG_PRINTF(3, 4) bool schema_row_length_fail(Loader *c, const yaml_node_t *row, const char *fmt, ...);

/* Read a mapping's pairs into val[] and key[] (indexed like ks->names),
 * refusing keys that are not text, unknown keys ("did you mean") and
 * duplicates. Unset slots stay NULL. */
bool schema_keys(Loader *c, const yaml_node_t *map, const Keys *ks, yaml_node_t **val, yaml_node_t **key);

/* A matrix reference scalar ("M[i]" or "M[i][j]") checked against the
 * shapes; fills *r. `what` names the field, `form` the expected spelling. */
bool schema_ref(Loader *c, const yaml_node_t *n, const Attn *shape, const char *what, const char *form, Ref *r);
/* An index's digits as written (cut after 24), for a message. */
const char *schema_index_text(const RefIndex *x, char *buf, size_t len);

/* The 0-based file column of byte `off` of a one-line scalar's value
 * (columns count characters); the scalar's start when that is unknown. */
size_t schema_col(const yaml_node_t *n, size_t off);

#endif
