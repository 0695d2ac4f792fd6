/* tplref.h - a template's references (tplref.c): the names between the
 * braces of {S[1][2]}, {A2[1]}, {token[2]}, {d_k}, {T}, read and resolved
 * against a state's shapes for the stage a step shows, with a message
 * naming what to write instead. It evaluates nothing (template.c does)
 * and keeps no state. */
#ifndef QKV_TPLREF_H
#define QKV_TPLREF_H

#include <stdbool.h>
#include <stddef.h>
#include "core/attn.h"

#define TEMPLATE_ABOUT 0    /* the `stage` of about: before the first step */

/* Parse a reference "M[i]" / "M[i][j]" (1-based) into 0-based indices, *j =
 * -1 for a row. One function, so the shared reference parser can replace it:
 * returns TREF_OK, TREF_SYNTAX (not a reference), TREF_NAME (no such
 * matrix) or TREF_ZERO (an index of 0). */
enum { TREF_OK, TREF_SYNTAX, TREF_NAME, TREF_ZERO };
int template_ref_parse(const char *s, MatId *m, int *i, int *j);

typedef enum { R_MAT, R_COLUMN, R_TOKEN, R_DK, R_DV, R_DMODEL, R_N, R_HEADS, R_T, R_LR, R_LOSS, R_STEPS,
               R_KV_HEADS, R_WINDOW, R_OFFSET, R_BLOCK, R_CACHE } RefKind;

typedef struct {
    RefKind kind;
    MatId m;
    int i, j;               /* 0-based; j = -1 for a row, i = -1 for a column (R_COLUMN) */
} TplRef;

const char *tpl_skip_space(const char *s);
/* "{inner}" made safe for a message (cut after 40 bytes), in buf. */
const char *tpl_quote_ref(const char *inner, char *buf, size_t len);
/* Is the n bytes at w the word name? */
bool tpl_word_is(const char *w, size_t n, const char *name);
/* Resolve the text between the braces against `shape` for a step showing
 * `stage` (TEMPLATE_ABOUT: before the first step); `what` names the
 * reference's place in messages. On failure writes a message into msg
 * (len bytes) when msg is not NULL. */
bool tpl_resolve(const char *inner, const Attn *shape, int stage, const char *what, TplRef *r, char *msg,
                 size_t len);

#endif
