/* ref.h - references as lessons and students write them: "Q[1]", "S[1][2]",
 * and, for narration templates, "token[2]" or "d_k".
 *
 * One scanner for every place a reference is written: lesson keys (focus,
 * expect, overrides), the action language (both sides of "Q[1] = K[1]"),
 * narration templates ("{S[1][2]}", "{A[1]}", "{token[2]}", "{d_k}") and
 * exercises (ask: "S[1][2]" or a row "A[1]").
 *
 * The grammar is NAME, NAME[i] or NAME[i][j]: a name of letters, digits and
 * '_', then up to two 1-based indices in brackets; spaces and tabs are
 * allowed around every part. Steps, each independent of the others:
 *   ref_scan()   reads the syntax at the start of a text (a prefix: the
 *                caller goes on at r->end), knowing no matrix and no shape;
 *   ref_parse()  the same for a whole text (only spaces may follow);
 *   ref_matrix() resolves the name to a MatId and requires [i] or [i][j];
 *   ref_check()  checks the indices against a state's shapes.
 * A Ref points into the text it was scanned from (the name and each index's
 * digits as written, so a message can quote exactly what was typed) and is
 * valid while that text is. Nothing here allocates or prints: callers turn
 * a RefStatus and r->err_at into their own message and column. */
#ifndef QKV_REF_H
#define QKV_REF_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include "core/attn.h"
#include "text/num.h"

#define REF_INDEX_MAX NUM_WHOLE_MAX  /* a larger index is kept as this (num.h: out of range anyway) */

typedef enum {
    REF_OK,
    /* syntax (ref_scan, ref_parse); r->err_at is where it went wrong */
    REF_NO_NAME,    /* no name at err_at */
    REF_NO_NUMBER,  /* "[" not followed by a number */
    REF_NO_CLOSE,   /* a number not followed by "]" */
    REF_TRAILING,   /* ref_parse: text after the reference */
    /* meaning */
    REF_ZERO,       /* an index is 0; indices start at 1 (err_at: its digits) */
    REF_UNKNOWN,    /* ref_matrix: the name is not a matrix */
    REF_NO_INDEX,   /* ref_matrix: a matrix reference needs [i] or [i][j] */
    REF_ROW_RANGE,  /* ref_check: no such row */
    REF_COL_RANGE,  /* ref_check: no such column */
    /* heads (ref_head) */
    REF_NO_HEAD,    /* "A3" in a lesson with fewer heads */
    REF_WHICH_HEAD, /* bare QKt, S or A in a lesson with 2+ heads */
    REF_NO_WO       /* Wo or Y in a lesson without W_O */
} RefStatus;

typedef struct {
    const char *at;     /* the digits as written */
    int len;
    long long v;        /* 1-based, at most REF_INDEX_MAX (num_whole) */
} RefIndex;

typedef struct {
    const char *name;   /* as written, name_len bytes (0: none) */
    int name_len;
    int n;              /* indices written: 0, 1 (a row) or 2 (a cell) */
    RefIndex idx[2];
    MatId mat;          /* set by ref_matrix() */
    const char *err_at; /* where the problem is, for a status other than REF_OK */
    const char *end;    /* just after the last character of the reference */
} Ref;

/* Scan a reference at the start of s (after spaces). Returns REF_OK,
 * REF_ZERO when the syntax is right but an index is 0, or a syntax status.
 * The name and the indices read so far are filled in even on failure. */
RefStatus ref_scan(const char *s, Ref *r);
/* Scan the whole of s: as ref_scan(), and REF_TRAILING when anything but
 * spaces follows. A syntax status comes before REF_ZERO. */
RefStatus ref_parse(const char *s, Ref *r);
/* Resolve r's name to a matrix (r->mat). REF_UNKNOWN when it is not one,
 * REF_NO_INDEX when no index was written. Indices are not looked at. */
RefStatus ref_matrix(Ref *r);
/* Check a resolved reference against a's shapes: REF_ROW_RANGE or
 * REF_COL_RANGE when an index is past the end (or 0). */
RefStatus ref_check(const Ref *r, const Attn *a);

/* Heads: "Q2", "S2", "A2" ... name head 2's matrices (attn.h). Map *m to
 * what it means in a: with one head "S1" is S (and "Q1" is Q); a head past
 * the lesson's, a bare QKt, S or A with 2+ heads, and Wo or Y without W_O
 * are refused with a one-line message in msg (when not NULL), e.g.
 * "A3 names head 3, but this lesson has 2 heads: A1 to A2". */
RefStatus ref_head(const Attn *a, MatId *m, char *msg, size_t len);

/* Index k (0 or 1) of the reference at the start of s, its digits as
 * written (num_whole_text), for a message; "?" when there is none. */
const char *ref_index_written(const char *s, int k, char *buf, size_t len);

/* 0-based row, and column (-1 for a row reference). */
static inline int ref_row(const Ref *r)
{
    return (int)(r->idx[0].v > INT_MAX ? INT_MAX : r->idx[0].v) - 1;
}

static inline int ref_col(const Ref *r)
{
    return r->n == 2 ? (int)(r->idx[1].v > INT_MAX ? INT_MAX : r->idx[1].v) - 1 : -1;
}

/* Is st a syntax status (the text is not a reference at all)? */
static inline bool ref_syntax_error(RefStatus st)
{
    return st >= REF_NO_NAME && st <= REF_TRAILING;
}

/* The matrix names a lesson of this shape (NULL: one head, no W_O) takes:
 * writable ones (the left of "=") or all of them, as "X, Wq, ... or V". */
const char *ref_matrix_list(const Attn *shape, bool writable, char *buf, size_t len);

#endif
