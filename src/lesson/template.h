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
 * ("…" while no target is set). template_check() runs
 * when the lesson is loaded and refuses a reference to an unknown matrix, an
 * index out of range, or a matrix not computed at the step's stage (about:
 * is shown before the first step and may quote only X, Wq, Wk, Wv, tokens
 * and the sizes). template_expand() (words/narrate.h) fills the references in from a state,
 * numbers written like the screen writes them (fmt_num: the lesson's digits,
 * U+2212 for minus unless ASCII; sizes and counts as whole numbers), a row
 * as its values joined by ", " (Chinese: "、").
 * A `}` on its own is literal. Lesson text is expanded before it is
 * sanitised; tokens are inserted as written. */
#ifndef QKV_TEMPLATE_H
#define QKV_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "text/text.h"
#include "tplref.h"


typedef struct {
    int digits;         /* decimals, as the lesson's `digits` */
    bool ascii;         /* no UTF-8: '-' for minus */
    /* Optional: a cell shown as "?" (an ask not yet answered). */
    bool (*hidden)(const void *ctx, MatId m, int i, int j);
    const void *ctx;
    Lang lang;          /* a row or column joins with ", " (LANG_EN) or "、" (LANG_ZH) */
    /* A model lesson: the model the references name (NULL: a one-layer
     * lesson's Attn state), at its cursor (at_layer, at_stage; nothing
     * reached: about:), and its cells shown as "?" (may be NULL). */
    const Model *model;
    bool (*mhidden)(const void *ctx, ModelRef r, int i, int j);
} TplOpt;

/* Check every reference in text for a step showing `stage` (1..5), or for
 * about: (TEMPLATE_ABOUT). `shape` holds the lesson's shapes (its X has one
 * row per token); `what` names the field ("say", "about") in messages. On
 * error returns false, writes one line to msg and sets *errcol to the
 * 1-based column, in characters, of the reference's "{" within text. */
bool template_check(const char *text, const Attn *shape, int stage, const char *what, int *errcol, char *msg,
                    size_t len);

/* The same for a model lesson (tplmodel.c's names, DESIGN.md "From a head
 * to a model"): every reference checked against `shape`'s sizes for a step
 * showing (layer, stage) of the model (stage TEMPLATE_ABOUT: about:). */
bool template_check_model(const char *text, const Model *shape, int layer, int stage, const char *what,
                          int *errcol, char *msg, size_t len);

/* Does text hold any reference? (Cheap; callers skip expanding when not.) */
bool template_has_refs(const char *text);


/* ---- evaluating one reference (the writer, words/narrate.c, fills numbers
 * in with these; the reader above checks with the same code) ---- */

#define REF_MAX 160         /* bytes between the braces */


/* A value inside "{...}": a number, or (alone, or as sum/max's argument) a
 * row, a column, a token. */
typedef enum { V_NUM, V_ROW, V_COL, V_TOKEN } VKind;

typedef struct {
    VKind kind;
    double x;
    bool integer;       /* a size, a count or a whole number written without '.' */
    bool setting;       /* {T} or {lr} alone: printed exactly as set (0.5, 20), like the header */
    TplRef r;              /* V_ROW, V_COL, V_TOKEN */
} Val;

/* Evaluate the text between a reference's braces against `state` at
 * `stage` (its values; hidden cells through opt->hidden). False when it does
 * not resolve; *hidden says whether a hidden cell was used. With
 * opt->model, against that model at its cursor (state and stage unused;
 * hidden cells through opt->mhidden); a token value (V_TOKEN) is then row
 * r.i's token, or with r.kind R_NEXT / R_GREEDY vocab entry r.j. */
bool template_eval(const char *inner, const Attn *state, int stage, const TplOpt *opt, Val *v, bool *hidden);
/* The matrix a resolved R_MAT / R_COLUMN reference names: model's when
 * r->mr names one, else state's. */
const Mat *template_ref_mat(const TplRef *r, const Attn *state, const Model *model);
/* Is cell (i, j) of what r names hidden by opt (hidden / mhidden)? */
bool template_cell_hidden(const TplOpt *opt, const TplRef *r, int i, int j);
/* At s[0] == '{' (not "{{"): copy the text up to the closing '}' into inner
 * (size len). Returns the byte length of the whole "{...}", 0 when unclosed. */
size_t tpl_ref_span(const char *s, char *inner, size_t len);
bool tpl_is_word(int c);   /* a letter, digit or '_' (a name goes on) */

#endif
