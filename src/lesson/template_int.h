/* template_int.h - the template language's insides, shared by its reader
 * (lesson/template.c: parsing, checking) and its writer (text/narrate.c:
 * filling numbers in). Nobody else includes this. */
#ifndef QKV_TEMPLATE_INT_H
#define QKV_TEMPLATE_INT_H

#include "template.h"

#define REF_MAX 160         /* bytes between the braces */

typedef enum { R_MAT, R_COLUMN, R_TOKEN, R_DK, R_DV, R_DMODEL, R_N, R_HEADS, R_T, R_LR, R_LOSS, R_STEPS,
               R_KV_HEADS, R_WINDOW, R_OFFSET, R_BLOCK, R_CACHE } RefKind;

typedef struct {
    RefKind kind;
    MatId m;
    int i, j;               /* 0-based; j = -1 for a row, i = -1 for a column (R_COLUMN) */
} Ref;

/* A value inside "{...}": a number, or (alone, or as sum/max's argument) a
 * row, a column, a token. */
typedef enum { V_NUM, V_ROW, V_COL, V_TOKEN } VKind;

typedef struct {
    VKind kind;
    double x;
    bool integer;       /* a size, a count or a whole number written without '.' */
    bool setting;       /* {T} or {lr} alone: printed exactly as set (0.5, 20), like the header */
    Ref r;              /* V_ROW, V_COL, V_TOKEN */
} Val;

/* One expression being read; with st (expanding) its value is computed
 * from st, else (checking) only its names are resolved against shape. */
typedef struct {
    const char *inner, *s;
    const Attn *shape;  /* the state: shapes (checking) or values (expanding) */
    bool eval;
    int stage;
    const char *what;
    const TplOpt *opt;
    bool hidden;        /* a hidden cell was used */
    char *msg;
    size_t len;
} Px;

const char *tpl_skip_space(const char *s);
bool tpl_is_word(int c);
bool tpl_evaluate(Px *p, Val *v);
size_t tpl_ref_span(const char *s, char *inner, size_t len);

#endif
