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
#include "core/model.h"

#define TEMPLATE_ABOUT 0    /* the `stage` of about: before the first step */

/* Parse a reference "M[i]" / "M[i][j]" (1-based) into 0-based indices, *j =
 * -1 for a row. One function, so the shared reference parser can replace it:
 * returns TREF_OK, TREF_SYNTAX (not a reference), TREF_NAME (no such
 * matrix) or TREF_ZERO (an index of 0). */
enum { TREF_OK, TREF_SYNTAX, TREF_NAME, TREF_ZERO };
int template_ref_parse(const char *s, MatId *m, int *i, int *j);

typedef enum { R_MAT, R_COLUMN, R_TOKEN, R_DK, R_DV, R_DMODEL, R_N, R_HEADS, R_T, R_LR, R_LOSS, R_STEPS,
               R_KV_HEADS, R_WINDOW, R_OFFSET, R_BLOCK, R_CACHE,
               /* a model lesson's (tplmodel.c): its sizes, the sampling temperature, the prediction
                  and its p and logit, the greedy token and its p, a head's two scores */
               R_LAYERS, R_VOCAB, R_D_FF, R_CTX, R_T_S, R_NEXT, R_P_NEXT, R_LOGIT_NEXT, R_GREEDY, R_P_GREEDY,
               R_PREV, R_INDUCTION } RefKind;

typedef struct {
    RefKind kind;
    MatId m;
    int i, j;               /* 0-based; j = -1 for a row, i = -1 for a column (R_COLUMN);
                               R_PREV, R_INDUCTION: i is the head (1-based), mr.layer the layer */
    ModelRef mr;            /* a model lesson's matrix (R_MAT, R_COLUMN): mr.kind != MM_NONE, m unused */
} TplRef;

const char *tpl_skip_space(const char *s);
/* One "[n]" at *sp with optional spaces (*v saturated, as num_whole); moves *sp past it. */
bool tpl_parse_index(const char **sp, long long *v);
/* Index k (0 or 1) of a reference "M[i][j]", its digits as written, for a message. */
const char *tpl_index_written(const char *s, int k, char *buf, size_t len);
/* "{inner}" made safe for a message (cut after 40 bytes), in buf. */
const char *tpl_quote_ref(const char *inner, char *buf, size_t len);
/* Is the n bytes at w the word name? */
bool tpl_word_is(const char *w, size_t n, const char *name);
/* {token[i]} (s is past "token") against ntok tokens: r->i the 0-based row. */
bool tpl_resolve_token(const char *inner, const char *s, int ntok, TplRef *r, char *msg, size_t len);
/* Resolve the text between the braces against `shape` for a step showing
 * `stage` (TEMPLATE_ABOUT: before the first step); `what` names the
 * reference's place in messages. On failure writes a message into msg
 * (len bytes) when msg is not NULL. */
bool tpl_resolve(const char *inner, const Attn *shape, int stage, const char *what, TplRef *r, char *msg,
                 size_t len);

/* The same for a model lesson (tplmodel.c): the names of DESIGN.md "From a
 * head to a model" ("L2.A1[3][1]", "p[5][3]", "E[3][1]", {next},
 * {L1.H1.prev} ...) against `shape`'s sizes, for a step showing (layer,
 * stage) (stage TEMPLATE_ABOUT: before the first step). */
bool tpl_resolve_model(const char *inner, const Model *shape, int layer, int stage, const char *what, TplRef *r,
                       char *msg, size_t len);
/* Is a result of layer rl (0: the model's own h_final, logits, p) computed
 * at model stage rs computed at a step showing (layer, stage)? rs 0 (a
 * parameter) always is; nothing but parameters at TEMPLATE_ABOUT. */
bool tpl_model_computed(int rl, int rs, int layer, int stage);
/* A model reference "L2.A1[3][1]" / "p[5]" (1-based; *j = -1 for a row):
 * the name by model_lookup (a head's name as heads_resolve maps it on the
 * layer's Attn), indices inside the matrix. TREF_* as template_ref_parse,
 * with TREF_RANGE for an index out of range; msg says what is wrong (when
 * not NULL). */
enum { TREF_RANGE = TREF_ZERO + 1, TREF_HEAD };
int tpl_model_ref_parse(const char *s, const Model *shape, ModelRef *r, int *i, int *j, char *msg, size_t len);

#endif
