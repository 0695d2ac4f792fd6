/* diag.h - the loader's messages: one line, "FILE:LINE:COL: what is wrong,
 * what is expected".
 *
 * A Diag belongs to one load: it names the file and points at the caller's
 * error buffer. The first failure writes the whole message there; every
 * diag_fail* returns false so a parser can `return diag_fail(...)`. The
 * walker goes on after some failures (another step, another row), so a
 * DiagList collects every message, for --check to print them all. Lines
 * and columns come from libyaml's marks (0-based, printed 1-based; columns
 * count characters, not bytes).
 *
 * User text never reaches a message raw: diag_quote() sanitises it (no
 * control characters reach the terminal) and cuts it. For a misspelt name,
 * diag_suggest() finds the closest valid one ("did you mean"), and
 * diag_join_or() lists them all ("a, b or c"). Nothing here allocates. */
#ifndef QKV_DIAG_H
#define QKV_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#ifdef __GNUC__
#define DIAG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DIAG_PRINTF(f, a)
#endif

#define DIAG_LIST_MAX 20    /* messages kept for --check; more are counted */
#define DIAG_MSG_MAX 512

/* Every message of one load, for --check: the first DIAG_LIST_MAX in file
 * order (line, then column), and how many there were in all. */
typedef struct DiagList {
    struct {
        size_t line, col;
        char text[DIAG_MSG_MAX];
    } m[DIAG_LIST_MAX];
    int n, total;
    size_t before;           /* when > 0: keep only messages above this line (0-based) */
} DiagList;

typedef struct {
    const char *file;        /* the name used in messages */
    char *err;               /* the caller's buffer: the first message */
    size_t errlen;
    char quoted[2][200];     /* user text made safe for messages */
    int qi;
    DiagList *list;          /* NULL, or where every message is also kept */
    int failures;            /* messages written so far */
    bool syntax;             /* the failure is libyaml's syntax error: the parse stopped there */
} Diag;

/* Write "FILE:LINE:COL: message" (line and col 0-based) into the caller's
 * buffer when it is the load's first message, and into d->list. Return
 * false. */
bool diag_vfail_at(Diag *d, size_t line, size_t col, const char *fmt, va_list ap);
DIAG_PRINTF(4, 5) bool diag_fail_at(Diag *d, size_t line, size_t col, const char *fmt, ...);
/* The same at the start of node n. */
DIAG_PRINTF(3, 4) bool diag_fail(Diag *d, const yaml_node_t *n, const char *fmt, ...);
bool diag_oom(Diag *d, const yaml_node_t *n);

/* Quote user text: "text", sanitised, cut after 40 bytes ("text..."). The
 * result lives in d and two buffers rotate, so one message may quote twice. */
const char *diag_quote(Diag *d, const char *s);
/* Describe a node for "found ...": a quoted scalar, "a list", "a mapping"
 * or "nothing". */
const char *diag_found(Diag *d, const yaml_node_t *n);
/* Require node type t; otherwise fail with "<fmt...>, found <what it is>". */
DIAG_PRINTF(4, 5) bool diag_want(Diag *d, const yaml_node_t *n, yaml_node_type_t t, const char *fmt, ...);

/* Write names as "a, b, c or d" into buf; returns buf. */
const char *diag_join_or(const char *const *names, int n, char *buf, size_t len);
/* Levenshtein distance of two short strings (over 32 bytes count as 99). */
int diag_edit_distance(const char *a, const char *b);
/* Sort d->list into file order (stable: line, then column). */
void diag_list_sort(DiagList *list);
/* The name closest to word within two edits (and closer than its own
 * length), or NULL; a name differing only in case always matches. */
const char *diag_suggest(const char *word, const char *const *names, int n);

#endif
