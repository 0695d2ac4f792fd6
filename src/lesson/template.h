/* template.h - live values in narration: {S[1][2]}, {A[1]}, {token[2]},
 * {d_k}, {d_v}, {d_model}, {n}, {heads}, the state's scalars {T}, {lr},
 * {loss}, {steps}; arithmetic on them with + - * /, ( ), numbers, unary
 * minus, exp( ), ln( ), sqrt( ), sum( ) and max( ) of a row (A[1]) or a
 * column (A[*][1]); {=0.695} a fixed figure printed as written (its minus
 * as the screen writes it); "{{" is a literal "{".
 *
 * A lesson's `say:`, `about:` and `question:` may quote the state. An
 * expression that uses a hidden cell (an open question) is "?" whole; a row
 * shows its hidden cells as "?". A masked cell is "−∞" ("-inf" in ASCII).
 * {steps} counts the gradient steps since the targets were last set (at most
 * ATTN_LOSS_HIST); {loss} is the loss of all targets and needs stage softmax
 * and a target set by then. template_check() runs
 * when the lesson is loaded and refuses a reference to an unknown matrix, an
 * index out of range, or a matrix not computed at the step's stage (about:
 * is shown before the first step and may quote only X, Wq, Wk, Wv, tokens
 * and the sizes). template_expand() fills the references in from a state,
 * numbers written like the screen writes them (fmt_num: the lesson's digits,
 * U+2212 for minus unless ASCII; sizes and counts as whole numbers), a row
 * as its values joined by ", " (Chinese: "、").
 * A `}` on its own is literal. Lesson text is expanded before it is
 * sanitised; tokens are inserted as written. */
#ifndef QKV_TEMPLATE_H
#define QKV_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include "lesson.h"

#define TEMPLATE_ABOUT 0    /* the `stage` of about: before the first step */

typedef struct {
    int digits;         /* decimals, as the lesson's `digits` */
    bool ascii;         /* no UTF-8: '-' for minus */
    /* Optional: a cell shown as "?" (an ask not yet answered). */
    bool (*hidden)(const void *ctx, MatId m, int i, int j);
    const void *ctx;
    Lang lang;          /* a row or column joins with ", " (LANG_EN) or "、" (LANG_ZH) */
} TplOpt;

/* Check every reference in text for a step showing `stage` (1..5), or for
 * about: (TEMPLATE_ABOUT). `shape` holds the lesson's shapes (its X has one
 * row per token); `what` names the field ("say", "about") in messages. On
 * error returns false, writes one line to msg and sets *errcol to the
 * 1-based column, in characters, of the reference's "{" within text. */
bool template_check(const char *text, const Attn *shape, int stage, const char *what, int *errcol, char *msg,
                    size_t len);

/* Expand text with the values of `state` (tokens from l) into out (size
 * len, always terminated when len > 0, cut at a character boundary).
 * Returns the length the whole expansion needs, like snprintf. A reference
 * that does not resolve (not checked, or beyond state->reached) is written
 * as "…" ("..." in ASCII), a hidden cell as "?". */
size_t template_expand(const char *text, const Attn *state, const Lesson *l, const TplOpt *o, char *out,
                       size_t len);
/* The same into a malloc'd string; NULL when out of memory. */
char *template_expand_dup(const char *text, const Attn *state, const Lesson *l, const TplOpt *o);
/* Does text hold any reference? (Cheap; callers skip expanding when not.) */
bool template_has_refs(const char *text);

/* Parse a reference "M[i]" / "M[i][j]" (1-based) into 0-based indices, *j =
 * -1 for a row. One function, so the shared reference parser can replace it:
 * returns TREF_OK, TREF_SYNTAX (not a reference), TREF_NAME (no such
 * matrix) or TREF_ZERO (an index of 0). */
enum { TREF_OK, TREF_SYNTAX, TREF_NAME, TREF_ZERO };
int template_ref_parse(const char *s, MatId *m, int *i, int *j);

#endif
