/* template_int.h - the template language's reader state (lesson/template.c:
 * parsing, checking, evaluating). Only lesson/template*.c include this; the
 * writer (words/narrate.c) uses template.h's template_eval(). */
#ifndef QKV_TEMPLATE_INT_H
#define QKV_TEMPLATE_INT_H

#include "template.h"

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

bool tpl_evaluate(Px *p, Val *v);

#endif
