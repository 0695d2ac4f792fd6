/* narrate.h - narration's {REF}s filled in from a state, and the literal
 * state numbers a lesson should not write (the template language itself,
 * its checks and its evaluator, is lesson/template.h). Words about a state:
 * no curses, no session; numbers as the screen writes them (text/num). */
#ifndef QKV_NARRATE_H
#define QKV_NARRATE_H

#include <stddef.h>
#include <stdio.h>
#include "lesson/lesson.h"
#include "lesson/template.h"

/* Expand text with the values of `state` (tokens from l) into out (size
 * len, always terminated when len > 0, cut at a character boundary).
 * Returns the length the whole expansion needs, like snprintf. A reference
 * that does not resolve (not checked, or beyond state->reached) is written
 * as "…" ("..." in ASCII), a hidden cell as "?". */
size_t template_expand(const char *text, const Attn *state, const Lesson *l, const TplOpt *o, char *out,
                       size_t len);
/* The same into a malloc'd string; NULL when out of memory. */
char *template_expand_dup(const char *text, const Attn *state, const Lesson *l, const TplOpt *o);
/* No literal state numbers. A number written out in narration (outside
 * templates) that state `a` holds to `digits` decimals: any cell of a
 * matrix computed by a->reached, a row or column sum of S or A, T, lr or
 * the loss (T and lr also when written exactly, like 0.5). Only decimals
 * are looked at: whole numbers (indices, sizes, counts) never are. With
 * `about`, only what exists before the first step (X, the Ws, T, lr).
 * Scans text from byte `from`; returns false when there is none, else true
 * with *hit: the number's byte offset, the number as written and the
 * template that gives it ("A[1][1]", "sum(A[*][1])", "lr"). */
typedef struct {
    size_t off, end;
    char lit[40];
    char ref[48];
} TplLiteral;
bool template_literal_find(const char *text, size_t from, const Attn *a, int digits, bool about, TplLiteral *hit);

/* --check: one line per literal state number in text (see above), written
 * at its place ("FILE:LINE:COL: 0.313 is A[1][1] here; write {A[1][1]}
 * ..."). Returns how many. */
int template_literals_report(FILE *out, const char *file, const char *text, const TextAt *at, const Attn *a,
                             int digits, bool about);

/* The same for a model lesson: any cell of the model's matrices computed
 * at its cursor (at_layer, at_stage; with `about`, or nothing reached, the
 * parameters only), a row or column sum of a layer's S, a column sum of
 * A, a head's previous-token or induction score (computed from its
 * softmax), T or T_s once set; ref names it as the templates do
 * ("L1.A[2][1]", "p[4][3]", "L1.H1.prev"). */
bool template_literal_find_model(const char *text, size_t from, const Model *m, int digits, bool about,
                                 TplLiteral *hit);
int template_literals_report_model(FILE *out, const char *file, const char *text, const TextAt *at, const Model *m,
                                   int digits, bool about);

#endif
