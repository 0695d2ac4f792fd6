/* template.c - {REF} in narration: checked at load, filled in when shown
 * (see template.h). */
#include "template.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "i18n.h"
#include "heads.h"
#include "../core/grad.h"

#define REF_MAX 160         /* bytes between the braces */

typedef enum { R_MAT, R_COLUMN, R_TOKEN, R_DK, R_DV, R_DMODEL, R_N, R_HEADS, R_T, R_LR, R_LOSS, R_STEPS,
               R_KV_HEADS, R_WINDOW, R_OFFSET, R_BLOCK, R_CACHE } RefKind;

typedef struct {
    RefKind kind;
    MatId m;
    int i, j;               /* 0-based; j = -1 for a row, i = -1 for a column (R_COLUMN) */
} Ref;

/* ---- parsing ----------------------------------------------------------------- */

static const char *skip_sp(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* Parse one "[n]" with optional spaces; *v is the number as written. */
static bool parse_index(const char **sp, long *v)
{
    const char *s = skip_sp(*sp);
    if (*s++ != '[')
        return false;
    s = skip_sp(s);
    if (!isdigit((unsigned char)*s))
        return false;
    for (*v = 0; isdigit((unsigned char)*s); s++)
        *v = *v < 100000 ? *v * 10 + (*s - '0') : *v;
    s = skip_sp(s);
    if (*s++ != ']')
        return false;
    *sp = s;
    return true;
}

int template_ref_parse(const char *s, MatId *m, int *i, int *j)
{
    long i1, j1 = 0;
    bool cell = false;
    s = skip_sp(s);
    const char *name = s;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    int id = attn_mat_lookup(name, (int)(s - name));
    if (s == name || !parse_index(&s, &i1))
        return TREF_SYNTAX;
    s = skip_sp(s);
    if (*s == '[') {
        cell = true;
        if (!parse_index(&s, &j1))
            return TREF_SYNTAX;
    }
    if (*skip_sp(s) != '\0')
        return TREF_SYNTAX;
    if (id < 0)
        return TREF_NAME;
    if (i1 == 0 || (cell && j1 == 0))
        return TREF_ZERO;
    *m = (MatId)id;
    *i = (int)i1 - 1;
    *j = cell ? (int)j1 - 1 : -1;
    return TREF_OK;
}

/* Write "{inner}" made safe for a message (cut after 40 bytes) into buf. */
static const char *quote(const char *inner, char *buf, size_t len)
{
    return text_quote(inner, "{", "}", buf, len);
}

static bool word_is(const char *w, size_t n, const char *name)
{
    return strlen(name) == n && memcmp(w, name, n) == 0;
}

/* Messages are written only when msg is not NULL (the loader wants them;
 * expanding does not). */
#define SAY(...) do { if (msg) snprintf(msg, len, __VA_ARGS__); } while (0)

/* {token[i]}: one token by its 1-based number. */
static bool resolve_token(const char *inner, const char *s, int ntok, Ref *r, char *msg, size_t len)
{
    char qb[200];
    long v;
    r->kind = R_TOKEN;
    if (!parse_index(&s, &v) || *skip_sp(s) != '\0') {
        SAY(_("%s must be like {token[2]}, one token by its number"), quote(inner, qb, sizeof qb));
        return false;
    }
    if (v < 1) {
        SAY(_("indices start at 1, found %s"), quote(inner, qb, sizeof qb));
        return false;
    }
    if (v > ntok) {
        SAY(ntok == 1 ? _("token %ld is out of range in %s, there is 1 token")
                      : _("token %ld is out of range in %s, there are %d tokens"),
            v, quote(inner, qb, sizeof qb), ntok);
        return false;
    }
    r->i = (int)v - 1;
    return true;
}

/* {M[i]} or {M[i][j]}: inside the shapes, and computed by `stage`. */
static bool resolve_matrix(const char *inner, const Attn *shape, int stage, const char *what, Ref *r, char *msg,
                           size_t len)
{
    char qb[200];
    const char *w = skip_sp(inner), *e = w;
    while (isalnum((unsigned char)*e) || *e == '_')
        e++;
    r->kind = R_MAT;
    int st = template_ref_parse(inner, &r->m, &r->i, &r->j);
    if (st == TREF_NAME)
        SAY(_("unknown matrix in %s, expected X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O"), quote(inner, qb, sizeof qb));
    else if (st == TREF_ZERO)
        SAY(_("indices start at 1, found %s"), quote(inner, qb, sizeof qb));
    else if (st != TREF_OK && e > w && attn_mat_lookup(w, (int)(e - w)) >= 0)
        SAY(_("%s must be a row like {A[1]} or a cell like {S[1][2]}"), quote(inner, qb, sizeof qb));
    else if (st != TREF_OK)
        SAY(_("unknown name %s in %s, expected a cell like {S[1][2]}, a row like {A[1]}, {token[2]}, {d_k}, {d_v}, "
              "{d_model}, {n}, {heads}, {T}, {lr}, {loss}, {steps}, arithmetic like {-ln(A[1][3])} with + - * / ( ) "
              "and exp, ln, sqrt, sum(A[1]), max(A[1]), sum(A[*][1]), max(A[*][1]), or a fixed figure like "
              "{=0.695}; write {{ for a literal {"),
            quote(inner, qb, sizeof qb), what);
    if (st != TREF_OK)
        return false;
    char hm[256];
    if (!heads_resolve(shape, &r->m, hm, sizeof hm)) {
        SAY("%s", hm);
        return false;
    }
    const Mat *x = &shape->m[r->m];
    const char *name = attn_mat_name(r->m);
    int need = attn_mat_stage(r->m);
    if (r->i >= x->rows)
        SAY(x->rows == 1 ? _("row %d is out of range in %s, %s has 1 row")
                         : _("row %d is out of range in %s, %s has %d rows"),
            r->i + 1, quote(inner, qb, sizeof qb), name, x->rows);
    else if (r->j >= x->cols)
        SAY(x->cols == 1 ? _("column %d is out of range in %s, %s has 1 column")
                         : _("column %d is out of range in %s, %s has %d columns"),
            r->j + 1, quote(inner, qb, sizeof qb), name, x->cols);
    else if (stage == TEMPLATE_ABOUT && need > STAGE_INPUT)
        SAY(_("%s quotes %s, which is computed at stage %s; about is shown before the first step and can quote "
              "only X, Wq, Wk, Wv, tokens, d_k, d_v, d_model, n, heads, T, lr and steps"),
            quote(inner, qb, sizeof qb), name, attn_stage_key(need));
    else if (stage != TEMPLATE_ABOUT && need > stage)
        SAY(_("%s quotes %s, which is computed at stage %s; this step shows stage %s, quote it at a later step"),
            quote(inner, qb, sizeof qb), name, attn_stage_key(need), attn_stage_key(stage));
    else
        return true;
    return false;
}

/* Resolve the text between the braces against `shape` for a step showing
 * `stage` (TEMPLATE_ABOUT: before the first step). On failure writes a
 * message when msg is not NULL. */
static bool resolve(const char *inner, const Attn *shape, int stage, const char *what, Ref *r, char *msg,
                    size_t len)
{
    char qb[200];
    const char *s = skip_sp(inner), *w = s;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    size_t wn = (size_t)(s - w);
    static const struct { const char *name; RefKind kind; } sizes[] = {
        {"d_k", R_DK}, {"d_v", R_DV}, {"d_model", R_DMODEL}, {"n", R_N}, {"heads", R_HEADS},
        {"T", R_T}, {"lr", R_LR}, {"loss", R_LOSS}, {"steps", R_STEPS},
        /* today's models: K/V heads, the window's width, the first position, keys per block, and the
           numbers a KV cache keeps per token (kv_heads x (d_k + d_v)) */
        {"kv_heads", R_KV_HEADS}, {"window", R_WINDOW}, {"offset", R_OFFSET}, {"block", R_BLOCK},
        {"cache", R_CACHE}};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        if (word_is(w, wn, sizes[k].name)) {
            r->kind = sizes[k].kind;
            if (*skip_sp(s) != '\0') {
                SAY(_("%s takes no index, write {%s}"), quote(inner, qb, sizeof qb), sizes[k].name);
                return false;
            }
            if (r->kind != R_LOSS)
                return true;
            /* the loss needs A and a target */
            if (stage == TEMPLATE_ABOUT)
                SAY(_("%s is the training loss, computed at stage softmax once a target is set; about is shown "
                      "before the first step, quote it at a step"), quote(inner, qb, sizeof qb));
            else if (stage < STAGE_SOFTMAX)
                SAY(_("%s is the training loss, computed at stage softmax; this step shows stage %s, quote it at "
                      "a later step"), quote(inner, qb, sizeof qb), attn_stage_key(stage));
            else /* without a target (a saved lesson's earlier steps) it shows "…" */
                return true;
            return false;
        }
    if (word_is(w, wn, "token"))
        return resolve_token(inner, s, shape->m[M_X].rows, r, msg, len);
    return resolve_matrix(inner, shape, stage, what, r, msg, len);
}

/* ---- expressions ------------------------------------------------------------- */

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

static bool expr(Px *p, Val *v);

/* "{...}" is malformed: say what to write. */
static bool malformed(Px *p, const char *why)
{
    char qb[200];
    if (p->msg)
        snprintf(p->msg, p->len, _("%s in %s is not an expression: %s; write a reference like {A[1][2]}, "
                                   "arithmetic like {-ln(A[1][3])} or {sum(A[*][1])}, or {=0.695} for a fixed figure"),
                 quote(p->inner, qb, sizeof qb), p->what, why);
    return false;
}

static bool is_word(int c)
{
    return isalnum(c) || c == '_';
}

static bool cell_hidden(const Px *p, MatId m, int i, int j)
{
    return p->opt && p->opt->hidden && p->opt->hidden(p->opt->ctx, m, i, j);
}

/* The loss hides nothing an open question asks: it is "?" when a target
 * row of A holds a hidden cell. */
static bool loss_hidden(const Px *p)
{
    const Attn *a = p->shape;
    for (int k = 0; k < a->ntarget; k++) {
        MatId m = attn_heads(a) > 1 ? attn_head_id(M_A, a->target[k].head + 1) : M_A;
        for (int j = 0; j < attn_tokens(a); j++)
            if (cell_hidden(p, m, a->target[k].row, j) || cell_hidden(p, M_A, a->target[k].row, j))
                return true;
    }
    return false;
}

/* A reference at p->s: a name, then any "[...]" groups ("[*]" first: a column). */
static bool reference(Px *p, Val *v)
{
    const char *b = p->s, *e = b;
    while (is_word((unsigned char)*e))
        e++;
    for (;;) {
        const char *t = skip_sp(e);
        if (*t != '[')
            break;
        const char *c = strchr(t, ']');
        e = c ? c + 1 : t + strlen(t);
    }
    p->s = e;
    char sub[REF_MAX + 1];
    size_t n = (size_t)(e - b);
    memcpy(sub, b, n);
    sub[n] = '\0';
    /* "M[*][j]": a column, checked as M[1][j] */
    char orig[REF_MAX + 1];
    memcpy(orig, sub, n + 1);
    bool column = false;
    char *star = strchr(sub, '[');
    if (star) {
        char *q = (char *)skip_sp(star + 1);
        if (*q == '*' && *skip_sp(q + 1) == ']') {
            column = true;
            *q = '1';
        }
    }
    Ref *r = &v->r;
    if (!resolve(sub, p->shape, p->stage, p->what, r, p->msg, p->len)) {
        char qm[200], qo[200], *at;
        quote(sub, qm, sizeof qm);
        quote(orig, qo, sizeof qo);
        if (column && p->msg && (at = strstr(p->msg, qm)) != NULL) { /* quote what was written */
            char rest[LESSON_ERR_MAX];
            snprintf(rest, sizeof rest, "%s", at + strlen(qm));
            snprintf(at, p->len - (size_t)(at - p->msg), "%s%s", qo, rest);
        }
        return false;
    }
    if (column && (r->kind != R_MAT || r->j < 0)) {
        char qb[200];
        if (p->msg)
            snprintf(p->msg, p->len, _("%s: a column is written like {sum(A[*][1])}, with * for the row and a "
                                       "column number"), quote(p->inner, qb, sizeof qb));
        return false;
    }
    v->integer = false;
    v->setting = false;
    v->x = 0;
    const Attn *a = p->shape;
    switch (r->kind) {
    case R_MAT:
        if (column) {
            r->kind = R_COLUMN;
            r->i = -1;
            v->kind = V_COL;
            return true;
        }
        if (r->j < 0) {
            v->kind = V_ROW;
            return true;
        }
        v->kind = V_NUM;
        v->x = MAT_AT(&a->m[r->m], r->i, r->j);
        p->hidden |= cell_hidden(p, r->m, r->i, r->j);
        return true;
    case R_TOKEN:
        v->kind = V_TOKEN;
        return true;
    default:
        break;
    }
    v->kind = V_NUM;
    v->integer = true;
    switch (r->kind) {
    case R_DK:     v->x = attn_d_k(a); break;
    case R_DV:     v->x = attn_d_v(a); break;
    case R_DMODEL: v->x = attn_d_model(a); break;
    case R_N:      v->x = attn_tokens(a); break;
    case R_HEADS:  v->x = attn_heads(a); break;
    case R_STEPS:  v->x = a->nloss; break;
    case R_KV_HEADS: v->x = attn_kv_heads(a); break;
    case R_WINDOW: v->x = a->window; break;
    case R_OFFSET: v->x = a->offset; break;
    case R_BLOCK:  v->x = a->block; break;
    case R_CACHE:  v->x = attn_cache_per_token(a); break;
    case R_T:      v->x = a->temp; v->integer = false; v->setting = true; break;
    case R_LR:     v->x = a->lr; v->integer = false; v->setting = true; break;
    case R_LOSS:
        v->integer = false;
        if (p->eval && a->ntarget == 0)
            return false; /* nothing to learn: "…" */
        if (p->eval) {
            v->x = grad_loss(a);
            p->hidden |= loss_hidden(p);
        }
        break;
    default: break;
    }
    return true;
}

/* sum( ), max( ) of a row or a column; exp( ), ln( ), sqrt( ) of a number. */
static bool call(Px *p, const char *name, size_t nlen, Val *v)
{
    static const char *const fn[] = {"exp", "ln", "sqrt", "sum", "max"};
    int f = -1;
    for (int k = 0; k < 5; k++)
        if (word_is(name, nlen, fn[k]))
            f = k;
    if (f < 0) {
        char qb[200], w[48];
        snprintf(w, sizeof w, "%.*s", (int)(nlen < 40 ? nlen : 40), name);
        if (p->msg)
            snprintf(p->msg, p->len, _("unknown function %s( ) in %s, the functions are exp( ), ln( ), sqrt( ), "
                                       "sum( ) and max( )"), w, quote(p->inner, qb, sizeof qb));
        return false;
    }
    p->s++; /* "(" */
    Val a;
    if (f >= 3) { /* a row or a column */
        p->s = skip_sp(p->s);
        const char *at = p->s;
        if (!is_word((unsigned char)*at) || !reference(p, &a))
            return is_word((unsigned char)*at) ? false : malformed(p, _("sum( ) and max( ) take a row like A[1] "
                                                                       "or a column like A[*][1]"));
        if (a.kind != V_ROW && a.kind != V_COL)
            return malformed(p, _("sum( ) and max( ) take a row like A[1] or a column like A[*][1]"));
        const Mat *m = &p->shape->m[a.r.m];
        int cnt = a.kind == V_ROW ? m->cols : m->rows;
        double acc = f == 3 ? 0.0 : -INFINITY;
        for (int k = 0; k < cnt; k++) {
            int i = a.kind == V_ROW ? a.r.i : k, j = a.kind == V_ROW ? k : a.r.j;
            double x = MAT_AT(m, i, j);
            acc = f == 3 ? acc + x : (x > acc ? x : acc);
            p->hidden |= cell_hidden(p, a.r.m, i, j);
        }
        v->kind = V_NUM;
        v->integer = false;
        v->setting = false;
        v->x = acc;
    } else {
        if (!expr(p, &a))
            return false;
        if (a.kind != V_NUM)
            return malformed(p, _("exp( ), ln( ) and sqrt( ) take a number, not a whole row"));
        v->kind = V_NUM;
        v->integer = false;
        v->setting = false;
        v->x = f == 0 ? exp(a.x) : f == 1 ? log(a.x) : sqrt(a.x);
    }
    p->s = skip_sp(p->s);
    if (*p->s != ')')
        return malformed(p, _("a \")\" is missing"));
    p->s++;
    return true;
}

static bool primary(Px *p, Val *v)
{
    p->s = skip_sp(p->s);
    const char *s = p->s;
    if (*s == '(') {
        p->s++;
        if (!expr(p, v))
            return false;
        p->s = skip_sp(p->s);
        if (*p->s != ')')
            return malformed(p, _("a \")\" is missing"));
        p->s++;
        return true;
    }
    if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        char *end;
        v->kind = V_NUM;
        v->x = strtod(s, &end);
        v->integer = true;
        v->setting = false;
        for (const char *t = s; t < end; t++)
            v->integer = v->integer && isdigit((unsigned char)*t);
        p->s = end;
        return true;
    }
    if (is_word((unsigned char)*s)) {
        const char *e = s;
        while (is_word((unsigned char)*e))
            e++;
        if (*skip_sp(e) == '(' && !isdigit((unsigned char)*s)) {
            p->s = skip_sp(e);
            return call(p, s, (size_t)(e - s), v);
        }
        return reference(p, v);
    }
    if (!*s)
        return malformed(p, _("it ends where a number, a name or \"(\" should follow"));
    return malformed(p, _("a number, a name or \"(\" should come where it has another character"));
}

static bool unary(Px *p, Val *v)
{
    p->s = skip_sp(p->s);
    if (*p->s == '-') {
        p->s++;
        if (!unary(p, v))
            return false;
        if (v->kind != V_NUM)
            return malformed(p, _("arithmetic takes numbers: a cell like A[1][2], not a row, column or token"));
        v->x = -v->x;
        v->setting = false;
        return true;
    }
    return primary(p, v);
}

static bool term(Px *p, Val *v)
{
    if (!unary(p, v))
        return false;
    for (;;) {
        p->s = skip_sp(p->s);
        char op = *p->s;
        if (op != '*' && op != '/')
            return true;
        p->s++;
        Val b;
        if (!unary(p, &b))
            return false;
        if (v->kind != V_NUM || b.kind != V_NUM)
            return malformed(p, _("arithmetic takes numbers: a cell like A[1][2], not a row, column or token"));
        v->x = op == '*' ? v->x * b.x : v->x / b.x;
        v->integer = op == '*' && v->integer && b.integer;
        v->setting = false;
    }
}

static bool expr(Px *p, Val *v)
{
    if (!term(p, v))
        return false;
    for (;;) {
        p->s = skip_sp(p->s);
        char op = *p->s;
        if (op != '+' && op != '-')
            return true;
        p->s++;
        Val b;
        if (!term(p, &b))
            return false;
        if (v->kind != V_NUM || b.kind != V_NUM)
            return malformed(p, _("arithmetic takes numbers: a cell like A[1][2], not a row, column or token"));
        v->x = op == '+' ? v->x + b.x : v->x - b.x;
        v->integer = v->integer && b.integer;
        v->setting = false;
    }
}

/* "{=0.695}": a fixed figure, -?digits[.digits]; *body is past "=". */
static bool fixed_ok(const char *body)
{
    const char *s = skip_sp(body);
    if (*s == '-')
        s++;
    else if (strncmp(s, "\xe2\x88\x92", 3) == 0)
        s += 3;
    if (!isdigit((unsigned char)*s))
        return false;
    while (isdigit((unsigned char)*s))
        s++;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return *skip_sp(s) == '\0';
}

/* Read the whole of inner: false with a message when it is not a value. */
static bool evaluate(Px *p, Val *v)
{
    p->s = p->inner;
    if (*skip_sp(p->inner) == '=') {
        char qb[200];
        if (fixed_ok(skip_sp(p->inner) + 1))
            return true;
        if (p->msg)
            snprintf(p->msg, p->len, _("%s in %s is not a number; a fixed figure is written like {=0.695}"),
                     quote(p->inner, qb, sizeof qb), p->what);
        return false;
    }
    if (!expr(p, v))
        return false;
    p->s = skip_sp(p->s);
    if (*p->s == ')')
        return malformed(p, _("a \")\" has no \"(\""));
    if (*p->s)
        return malformed(p, _("something follows the value; join values with + - * /"));
    return true;
}

/* ---- scanning ---------------------------------------------------------------- */

/* At s[0] == '{' (not "{{"): copy the text up to the closing '}' into
 * inner. Returns the byte length of the whole "{...}", 0 when unclosed. */
static size_t ref_span(const char *s, char *inner, size_t len)
{
    const char *close = strchr(s + 1, '}');
    if (!close)
        return 0;
    size_t n = (size_t)(close - s - 1);
    if (n >= len) { /* too long to be a reference: keep its start for the message */
        n = len - 1;
        while (n > 0 && ((unsigned char)s[1 + n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(inner, s + 1, n);
    inner[n] = '\0';
    return (size_t)(close - s) + 1;
}

bool template_has_refs(const char *text)
{
    return text && strchr(text, '{') != NULL;
}

bool template_check(const char *text, const Attn *shape, int stage, const char *what, int *errcol, char *msg,
                    size_t len)
{
    int col = 1;
    for (const char *p = text; p && *p;) {
        if (*p != '{') {
            col += ((unsigned char)*p & 0xC0) != 0x80;
            p++;
            continue;
        }
        if (p[1] == '{') {
            p += 2;
            col++;
            continue;
        }
        char inner[REF_MAX + 1];
        size_t n = ref_span(p, inner, sizeof inner);
        *errcol = col;
        if (n == 0) {
            snprintf(msg, len, _("unclosed \"{\" in %s; close the reference with \"}\", or write \"{{\" for a "
                                 "literal \"{\""), what);
            return false;
        }
        if (n - 2 > REF_MAX) {
            char qb[200];
            snprintf(msg, len, _("%s in %s is too long; a template holds at most %d characters"),
                     quote(inner, qb, sizeof qb), what, REF_MAX);
            return false;
        }
        Px px = {inner, inner, shape, false, stage, what, NULL, false, msg, len};
        Val v;
        if (!evaluate(&px, &v))
            return false;
        for (size_t k = 0; k < n; k++)
            col += ((unsigned char)p[k] & 0xC0) != 0x80;
        p += n;
    }
    return true;
}

/* The output of an expansion: bytes written, whether it was cut, and the
 * length the whole expansion needs. */
typedef struct {
    char *out;
    size_t len, w, need;
    bool cut;
} Out;

static void put(Out *o, const char *s, size_t n)
{
    o->need += n;
    if (o->cut || o->len == 0)
        return;
    size_t room = o->len - 1 - o->w, k = n < room ? n : room;
    memcpy(o->out + o->w, s, k);
    o->w += k;
    if (k < n) { /* cut, never inside a character */
        o->cut = true;
        if (((unsigned char)s[k] & 0xC0) == 0x80) {
            while (o->w > 0 && ((unsigned char)o->out[o->w - 1] & 0xC0) == 0x80)
                o->w--;
            if (o->w > 0)
                o->w--; /* the lead byte of the cut character */
        }
    }
}

static void puts_(Out *o, const char *s)
{
    put(o, s, strlen(s));
}

/* A number as the screen writes it: fmt_num, a masked −∞ as the matrix
 * shows it, a whole number (a size, a count) without decimals. */
static void put_num(Out *o, double x, bool integer, const TplOpt *opt)
{
    char buf[64];
    if (isinf(x)) {
        puts_(o, x > 0 ? (opt->ascii ? "inf" : "∞") : (opt->ascii ? "-inf" : "−∞"));
        return;
    }
    if (integer && fabs(x) < 1e15) {
        snprintf(buf, sizeof buf, "%.0f", fabs(x));
        if (x < 0)
            puts_(o, opt->ascii ? "-" : "−");
        puts_(o, buf);
        return;
    }
    FmtOpt fo = {opt->digits, opt->ascii, false};
    puts_(o, fmt_num(x, &fo, buf, sizeof buf));
}

static void put_cell(Out *o, const Attn *a, const TplOpt *opt, MatId m, int i, int j)
{
    if (opt->hidden && opt->hidden(opt->ctx, m, i, j)) {
        puts_(o, "?");
        return;
    }
    put_num(o, MAT_AT(&a->m[m], i, j), false, opt);
}

/* A fixed figure as written, the minus as the screen writes it. */
static void put_fixed(Out *o, const char *body, const TplOpt *opt)
{
    const char *s = skip_sp(body);
    if (*s == '-' || strncmp(s, "\xe2\x88\x92", 3) == 0) {
        puts_(o, opt->ascii ? "-" : "−");
        s += *s == '-' ? 1 : 3;
    }
    size_t n = 0;
    while (s[n] && s[n] != ' ')
        n++;
    put(o, s, n);
}

/* Write one value: a number, a row or column joined (", ", Chinese "、"), a token. */
static void put_val(Out *o, const Val *v, const Attn *a, const Lesson *l, const TplOpt *opt)
{
    const char *sep = opt->lang == LANG_ZH ? "、" : ", ";
    switch (v->kind) {
    case V_NUM:
        if (v->setting && isfinite(v->x)) { /* as the header writes it */
            char buf[64];
            fmt_exact(v->x, buf, sizeof buf);
            puts_(o, buf);
            return;
        }
        put_num(o, v->x, v->integer, opt);
        return;
    case V_TOKEN:
        puts_(o, !l ? "?" : a ? lesson_token(l, a, v->r.i) : v->r.i < l->ntok ? l->tokens[v->r.i] : "?"); /* the token now in row i */
        return;
    case V_ROW:
        for (int j = 0; j < a->m[v->r.m].cols; j++) {
            if (j)
                puts_(o, sep);
            put_cell(o, a, opt, v->r.m, v->r.i, j);
        }
        return;
    case V_COL:
        for (int i = 0; i < a->m[v->r.m].rows; i++) {
            if (i)
                puts_(o, sep);
            put_cell(o, a, opt, v->r.m, i, v->r.j);
        }
        return;
    }
}

size_t template_expand(const char *text, const Attn *state, const Lesson *l, const TplOpt *opt, char *out,
                       size_t len)
{
    Out o = {out, len, 0, 0, false};
    for (const char *p = text; p && *p;) {
        size_t run = strcspn(p, "{");
        put(&o, p, run);
        p += run;
        if (!*p)
            break;
        if (p[1] == '{') {
            put(&o, "{", 1);
            p += 2;
            continue;
        }
        char inner[REF_MAX + 1];
        size_t n = ref_span(p, inner, sizeof inner);
        int stage = state->reached < STAGE_INPUT ? TEMPLATE_ABOUT : state->reached;
        if (n == 0) { /* unclosed: the rest as written */
            puts_(&o, p);
            break;
        }
        Px px = {inner, inner, state, true, stage, "", opt, false, NULL, 0};
        Val v;
        if (n - 2 > REF_MAX || !evaluate(&px, &v))
            puts_(&o, opt->ascii ? "..." : "…");
        else if (*skip_sp(inner) == '=')
            put_fixed(&o, skip_sp(inner) + 1, opt);
        else if (px.hidden && (v.kind == V_NUM))
            puts_(&o, "?");
        else
            put_val(&o, &v, state, l, opt);
        p += n;
    }
    if (len > 0)
        out[o.w] = '\0';
    return o.need;
}

char *template_expand_dup(const char *text, const Attn *state, const Lesson *l, const TplOpt *o)
{
    size_t n = template_expand(text, state, l, o, NULL, 0);
    char *buf = malloc(n + 1);
    if (buf)
        template_expand(text, state, l, o, buf, n + 1);
    return buf;
}

/* ---- no literal state numbers ------------------------------------------------ */

/* Does the literal (digits only, k decimals, value x; `neg`: written with
 * a minus) stand for v? Without a sign it may quote a negative value after
 * a minus ("0.217 − 0.132×0.500"). */
static bool same_number(const char *digits, int k, double x, double v, int shown, bool exact)
{
    if (!isfinite(v) || (digits[-1] == '-' && v >= 0))
        return false;
    if (exact && fabs(fabs(v) - x) < 1e-9)
        return true;
    if (k != shown)
        return false;
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", shown, fabs(v));
    return strcmp(buf, digits) == 0;
}

/* The first cell, sum or scalar of a equal to the literal; name in ref. */
static bool state_number(const Attn *a, const char *digits, int k, int shown, bool about, char *ref, size_t len)
{
    double x = strtod(digits, NULL);
    /* T is a state number once it is set (the plain softmax's 1 is not
     * shown), lr once there is something to learn (the training panel) */
    if (a->temp != 1.0 && same_number(digits, k, x, a->temp, shown, true)) {
        snprintf(ref, len, "T");
        return true;
    }
    if (!about && a->ntarget > 0 && same_number(digits, k, x, a->lr, shown, true)) {
        snprintf(ref, len, "lr");
        return true;
    }
    if (!about && a->ntarget > 0 && a->reached >= STAGE_SOFTMAX &&
        same_number(digits, k, x, grad_loss(a), shown, false)) {
        snprintf(ref, len, "loss");
        return true;
    }
    static const MatId order[] = {M_A, M_S, M_O, M_Y, M_QKT, M_Q, M_K, M_V, M_H, M_P, M_X, M_WQ, M_WK, M_WV, M_WO};
    int heads = attn_heads(a);
    for (size_t o = 0; o < sizeof order / sizeof *order; o++) {
        MatId base = order[o];
        bool per_head = base >= M_Q && base <= M_O;
        for (int h = 0; h <= (per_head && heads > 1 ? heads : 0); h++) {
            MatId id = h ? attn_head_id(base, h) : base;
            MatId m = id;
            if (!heads_resolve(a, &m, NULL, 0) || m != id)
                continue;
            const Mat *mm = &a->m[id];
            bool param = id == M_X || id == M_WQ || id == M_WK || id == M_WV || id == M_WO;
            if (!mm->v || mm->rows == 0 || (about ? !param : attn_mat_stage(id) > a->reached))
                continue;
            const char *name = attn_mat_name(id);
            for (int i = 0; i < mm->rows; i++)
                for (int j = 0; j < mm->cols; j++)
                    if (same_number(digits, k, x, MAT_AT(mm, i, j), shown, false)) {
                        snprintf(ref, len, "%s[%d][%d]", name, i + 1, j + 1);
                        return true;
                    }
            if (attn_mat_base(id) != M_S && attn_mat_base(id) != M_A)
                continue;
            /* row sums, then column sums; A's rows always sum to 1 (a
             * literal 1.000 there is the rule, not the state) */
            for (int i = 0; attn_mat_base(id) == M_S && i < mm->rows; i++) {
                double sum = 0;
                for (int j = 0; j < mm->cols; j++)
                    sum += MAT_AT(mm, i, j);
                if (same_number(digits, k, x, sum, shown, false)) {
                    snprintf(ref, len, "sum(%s[%d])", name, i + 1);
                    return true;
                }
            }
            for (int j = 0; j < mm->cols; j++) {
                double sum = 0;
                for (int i = 0; i < mm->rows; i++)
                    sum += MAT_AT(mm, i, j);
                if (same_number(digits, k, x, sum, shown, false)) {
                    snprintf(ref, len, "sum(%s[*][%d])", name, j + 1);
                    return true;
                }
            }
        }
    }
    return false;
}

bool template_literal_find(const char *text, size_t from, const Attn *a, int digits, bool about, TplLiteral *hit)
{
    static const char minus[] = "\xe2\x88\x92";
    for (const char *p = text + from; p && *p;) {
        if (*p == '{') {
            if (p[1] == '{') {
                p += 2;
                continue;
            }
            const char *e = strchr(p, '}');
            if (!e)
                return false;
            p = e + 1;
            continue;
        }
        bool after_word = p > text && (is_word((unsigned char)p[-1]) || p[-1] == '.');
        if (!isdigit((unsigned char)*p) || after_word) {
            p++;
            continue;
        }
        const char *s = p, *e = p;
        while (isdigit((unsigned char)*e))
            e++;
        if (*e != '.' || !isdigit((unsigned char)e[1])) { /* a whole number: an index, a size, a count */
            p = e;
            continue;
        }
        const char *dot = e;
        for (e++; isdigit((unsigned char)*e);)
            e++;
        p = e;
        if (is_word((unsigned char)*e))
            continue;
        const char *start = s;
        if (s - text >= 3 && memcmp(s - 3, minus, 3) == 0)
            start = s - 3;
        else if (s > text && s[-1] == '-')
            start = s - 1;
        char num[40];
        if ((size_t)(e - s) + 1 >= sizeof num)
            continue;
        snprintf(num, sizeof num, "%c%.*s", start < s ? '-' : '+', (int)(e - s), s);
        if (!state_number(a, num + 1, (int)(e - dot - 1), digits, about, hit->ref, sizeof hit->ref))
            continue;
        hit->off = (size_t)(start - text);
        hit->end = (size_t)(e - text);
        snprintf(hit->lit, sizeof hit->lit, "%.*s", (int)(e - start), start);
        return true;
    }
    return false;
}

int template_literals_report(FILE *out, const char *file, const char *text, const TextAt *at, const Attn *a,
                             int digits, bool about)
{
    int n = 0;
    TplLiteral hit;
    for (size_t from = 0; text && template_literal_find(text, from, a, digits, about, &hit); from = hit.end) {
        int col = at->col + 1;
        if (at->quote >= 0) {
            col += at->quote;
            for (size_t k = 0; k < hit.off; k++)
                col += ((unsigned char)text[k] & 0xC0) != 0x80;
        }
        fprintf(out, "%s:%d:%d: ", file, at->line, col);
        fprintf(out, _("%s is %s here; write {%s} so the text stays true after an edit (or {=%s} for a fixed "
                       "figure)"), hit.lit, hit.ref, hit.ref, hit.lit);
        fputc('\n', out);
        n++;
    }
    return n;
}
