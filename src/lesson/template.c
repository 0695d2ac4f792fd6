/* template.c - {REF} in narration: checked at load, filled in when shown
 * (see template.h). */
#include "template.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "i18n.h"
#include "heads.h"

#define REF_MAX 64          /* bytes between the braces */

typedef enum { R_MAT, R_TOKEN, R_DK, R_DV, R_DMODEL, R_N } RefKind;

typedef struct {
    RefKind kind;
    MatId m;
    int i, j;               /* 0-based; j = -1 for a row */
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
    char cut[48];
    size_t n = strlen(inner);
    bool longer = n > 40;
    if (longer) {
        n = 40;
        while (n > 0 && ((unsigned char)inner[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(cut, inner, n);
    cut[n] = '\0';
    char safe[160];
    text_sanitize(cut, safe, sizeof safe, false);
    snprintf(buf, len, "{%s%s}", safe, longer ? "..." : "");
    return buf;
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
        SAY(_("unknown reference %s in %s, expected a cell like {S[1][2]}, a row like {A[1]}, {token[2]}, "
              "{d_k}, {d_model} or {n}; write {{ for a literal {"), quote(inner, qb, sizeof qb), what);
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
              "only X, Wq, Wk, Wv, tokens, d_k, d_model and n"),
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
        {"d_k", R_DK}, {"d_v", R_DV}, {"d_model", R_DMODEL}, {"n", R_N}};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        if (word_is(w, wn, sizes[k].name)) {
            r->kind = sizes[k].kind;
            if (*skip_sp(s) == '\0')
                return true;
            SAY(_("%s takes no index, write {%s}"), quote(inner, qb, sizeof qb), sizes[k].name);
            return false;
        }
    if (word_is(w, wn, "token"))
        return resolve_token(inner, s, shape->m[M_X].rows, r, msg, len);
    return resolve_matrix(inner, shape, stage, what, r, msg, len);
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
        Ref r;
        *errcol = col;
        if (n == 0) {
            snprintf(msg, len, _("unclosed \"{\" in %s; close the reference with \"}\", or write \"{{\" for a "
                                 "literal \"{\""), what);
            return false;
        }
        if (n - 2 > REF_MAX) {
            char qb[200];
            snprintf(msg, len, _("unknown reference %s in %s, expected a cell like {S[1][2]}, a row like "
                                 "{A[1]}, {token[2]}, {d_k}, {d_model} or {n}; write {{ for a literal {"),
                     quote(inner, qb, sizeof qb), what);
            return false;
        }
        if (!resolve(inner, shape, stage, what, &r, msg, len))
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

static void put_cell(Out *o, const Attn *a, const TplOpt *opt, MatId m, int i, int j)
{
    char buf[64];
    if (opt->hidden && opt->hidden(opt->ctx, m, i, j)) {
        puts_(o, "?");
        return;
    }
    FmtOpt fo = {opt->digits, opt->ascii, false};
    puts_(o, fmt_num(MAT_AT(&a->m[m], i, j), &fo, buf, sizeof buf));
}

/* Write one resolved reference's value. */
static void put_ref(Out *o, const Ref *r, const Attn *a, const Lesson *l, const TplOpt *opt)
{
    char buf[32];
    switch (r->kind) {
    case R_TOKEN:
        puts_(o, l && r->i < l->ntok ? l->tokens[r->i] : "?");
        return;
    case R_DK:     snprintf(buf, sizeof buf, "%d", attn_d_k(a)); break;
    case R_DV:     snprintf(buf, sizeof buf, "%d", attn_d_v(a)); break;
    case R_DMODEL: snprintf(buf, sizeof buf, "%d", attn_d_model(a)); break;
    case R_N:      snprintf(buf, sizeof buf, "%d", attn_tokens(a)); break;
    case R_MAT:
        if (r->j >= 0) {
            put_cell(o, a, opt, r->m, r->i, r->j);
        } else {
            for (int j = 0; j < a->m[r->m].cols; j++) {
                if (j)
                    puts_(o, ", ");
                put_cell(o, a, opt, r->m, r->i, j);
            }
        }
        return;
    }
    puts_(o, buf);
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
        Ref r;
        int stage = state->reached < STAGE_INPUT ? TEMPLATE_ABOUT : state->reached;
        if (n == 0) { /* unclosed: the rest as written */
            puts_(&o, p);
            break;
        }
        if (n - 2 <= REF_MAX && resolve(inner, state, stage, "", &r, NULL, 0))
            put_ref(&o, &r, state, l, opt);
        else
            puts_(&o, opt->ascii ? "..." : "…");
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
