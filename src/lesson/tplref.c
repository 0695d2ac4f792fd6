/* tplref.c - a template's references: "S[1][2]", "A2[1]", "token[2]",
 * "d_k", "T" ... read, their indices checked as written, and resolved
 * against a state's shapes for a step's stage (see tplref.h). */
#include "tplref.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"
#include "text/text.h"
#include "heads.h"

const char *tpl_skip_space(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* Parse one "[n]" with optional spaces; *v is the number (num_whole:
 * saturated, so messages quote the digits as written). */
bool tpl_parse_index(const char **sp, long long *v)
{
    const char *s = tpl_skip_space(*sp);
    if (*s++ != '[')
        return false;
    s = tpl_skip_space(s);
    if (!isdigit((unsigned char)*s))
        return false;
    s += num_whole(s, v);
    s = tpl_skip_space(s);
    if (*s++ != ']')
        return false;
    *sp = s;
    return true;
}

/* Index k (0 or 1) of a reference template_ref_parse() read, its digits as
 * written (num_whole_text), for a message. */
const char *tpl_index_written(const char *s, int k, char *buf, size_t len)
{
    long long v;
    for (int n = 0; (s = strchr(s, '[')) != NULL; n++) {
        s = tpl_skip_space(s + 1);
        if (n == k)
            return num_whole_text(s, num_whole(s, &v), buf, len);
    }
    snprintf(buf, len, "?");
    return buf;
}

int template_ref_parse(const char *s, MatId *m, int *i, int *j)
{
    long long i1, j1 = 0;
    bool cell = false;
    s = tpl_skip_space(s);
    const char *name = s;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    int id = attn_mat_lookup(name, (int)(s - name));
    if (s == name || !tpl_parse_index(&s, &i1))
        return TREF_SYNTAX;
    s = tpl_skip_space(s);
    if (*s == '[') {
        cell = true;
        if (!tpl_parse_index(&s, &j1))
            return TREF_SYNTAX;
    }
    if (*tpl_skip_space(s) != '\0')
        return TREF_SYNTAX;
    if (id < 0)
        return TREF_NAME;
    if (i1 == 0 || (cell && j1 == 0))
        return TREF_ZERO;
    *m = (MatId)id;
    *i = (int)(i1 > INT_MAX ? INT_MAX : i1) - 1;
    *j = cell ? (int)(j1 > INT_MAX ? INT_MAX : j1) - 1 : -1;
    return TREF_OK;
}

/* Write "{inner}" made safe for a message (cut after 40 bytes) into buf. */
const char *tpl_quote_ref(const char *inner, char *buf, size_t len)
{
    return text_quote(inner, "{", "}", buf, len);
}

bool tpl_word_is(const char *w, size_t n, const char *name)
{
    return strlen(name) == n && memcmp(w, name, n) == 0;
}

/* Messages are written only when msg is not NULL (the loader wants them;
 * expanding does not). */
#define SAY(...) do { if (msg) snprintf(msg, len, __VA_ARGS__); } while (0)

/* {token[i]}: one token by its 1-based number. */
bool tpl_resolve_token(const char *inner, const char *s, int ntok, TplRef *r, char *msg, size_t len)
{
    char qb[200], digits[32];
    long long v;
    const char *at = s;
    r->kind = R_TOKEN;
    if (!tpl_parse_index(&s, &v) || *tpl_skip_space(s) != '\0') {
        SAY(_("%s must be like {token[2]}, one token by its number"), tpl_quote_ref(inner, qb, sizeof qb));
        return false;
    }
    if (v < 1) {
        SAY(_("indices start at 1, found %s"), tpl_quote_ref(inner, qb, sizeof qb));
        return false;
    }
    if (v > ntok) {
        long long ignored;
        at = tpl_skip_space(tpl_skip_space(at) + 1);  /* "[n]" was read: its digits */
        SAY(ntok == 1 ? _("token %s is out of range in %s, there is 1 token")
                      : _("token %s is out of range in %s, there are %d tokens"),
            num_whole_text(at, num_whole(at, &ignored), digits, sizeof digits), tpl_quote_ref(inner, qb, sizeof qb), ntok);
        return false;
    }
    r->i = (int)v - 1;
    return true;
}

/* {M[i]} or {M[i][j]}: inside the shapes, and computed by `stage`. */
static bool resolve_matrix(const char *inner, const Attn *shape, int stage, const char *what, TplRef *r, char *msg,
                           size_t len)
{
    char qb[200];
    const char *w = tpl_skip_space(inner), *e = w;
    while (isalnum((unsigned char)*e) || *e == '_')
        e++;
    r->kind = R_MAT;
    int st = template_ref_parse(inner, &r->m, &r->i, &r->j);
    if (st == TREF_NAME)
        SAY(_("unknown matrix in %s, expected X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O"), tpl_quote_ref(inner, qb, sizeof qb));
    else if (st == TREF_ZERO)
        SAY(_("indices start at 1, found %s"), tpl_quote_ref(inner, qb, sizeof qb));
    else if (st != TREF_OK && e > w && attn_mat_lookup(w, (int)(e - w)) >= 0)
        SAY(_("%s must be a row like {A[1]} or a cell like {S[1][2]}"), tpl_quote_ref(inner, qb, sizeof qb));
    else if (st != TREF_OK)
        SAY(_("unknown name %s in %s, expected a cell like {S[1][2]}, a row like {A[1]}, {token[2]}, {d_k}, {d_v}, "
              "{d_model}, {n}, {heads}, {kv_heads}, {cache}, {T}, {lr}, {window}, {offset}, {block}, {loss}, {steps}, "
              "arithmetic like {-ln(A[1][3])} with + - * / ( ) "
              "and exp, ln, sqrt, shown, sum(A[1]), max(A[1]), sum(A[*][1]), max(A[*][1]), or a fixed figure like "
              "{=0.695}; write {{ for a literal {"),
            tpl_quote_ref(inner, qb, sizeof qb), what);
    if (st != TREF_OK)
        return false;
    char hm[256];
    if (!heads_resolve(shape, &r->m, hm, sizeof hm)) {
        SAY("%s", hm);
        return false;
    }
    if ((r->m == M_Q0 || r->m == M_K0) && (shape->positions != POS_ROPE || !shape->m[r->m].v))
        r->m = r->m == M_Q0 ? M_Q : M_K; /* without RoPE nothing turns: Q and K are as they were */
    const Mat *x = &shape->m[r->m];
    const char *name = attn_mat_name(r->m);
    int need = attn_mat_stage(r->m);
    char digits[32];
    if (r->i >= x->rows)
        SAY(x->rows == 1 ? _("row %s is out of range in %s, %s has 1 row")
                         : _("row %s is out of range in %s, %s has %d rows"),
            tpl_index_written(inner, 0, digits, sizeof digits), tpl_quote_ref(inner, qb, sizeof qb), name, x->rows);
    else if (r->j >= x->cols)
        SAY(x->cols == 1 ? _("column %s is out of range in %s, %s has 1 column")
                         : _("column %s is out of range in %s, %s has %d columns"),
            tpl_index_written(inner, 1, digits, sizeof digits), tpl_quote_ref(inner, qb, sizeof qb), name, x->cols);
    else if (stage == TEMPLATE_ABOUT && need > STAGE_INPUT)
        SAY(_("%s quotes %s, which is computed at stage %s; about is shown before the first step and can quote "
              "only X, Wq, Wk, Wv, tokens, d_k, d_v, d_model, n, heads, kv_heads, cache, T, lr, window, offset, "
              "block and steps"),
            tpl_quote_ref(inner, qb, sizeof qb), name, attn_stage_key(need));
    else if (stage != TEMPLATE_ABOUT && need > stage)
        SAY(_("%s quotes %s, which is computed at stage %s; this step shows stage %s, quote it at a later step"),
            tpl_quote_ref(inner, qb, sizeof qb), name, attn_stage_key(need), attn_stage_key(stage));
    else
        return true;
    return false;
}

/* Resolve the text between the braces against `shape` for a step showing
 * `stage` (TEMPLATE_ABOUT: before the first step). On failure writes a
 * message when msg is not NULL. */
bool tpl_resolve(const char *inner, const Attn *shape, int stage, const char *what, TplRef *r, char *msg,
                    size_t len)
{
    char qb[200];
    const char *s = tpl_skip_space(inner), *w = s;
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
        if (tpl_word_is(w, wn, sizes[k].name)) {
            r->kind = sizes[k].kind;
            if (*tpl_skip_space(s) != '\0') {
                SAY(_("%s takes no index, write {%s}"), tpl_quote_ref(inner, qb, sizeof qb), sizes[k].name);
                return false;
            }
            if (r->kind != R_LOSS)
                return true;
            /* the loss needs A and a target */
            if (stage == TEMPLATE_ABOUT)
                SAY(_("%s is the training loss, computed at stage softmax once a target is set; about is shown "
                      "before the first step, quote it at a step"), tpl_quote_ref(inner, qb, sizeof qb));
            else if (stage < STAGE_SOFTMAX)
                SAY(_("%s is the training loss, computed at stage softmax; this step shows stage %s, quote it at "
                      "a later step"), tpl_quote_ref(inner, qb, sizeof qb), attn_stage_key(stage));
            else /* without a target (a saved lesson's earlier steps) it shows "…" */
                return true;
            return false;
        }
    if (tpl_word_is(w, wn, "token"))
        return tpl_resolve_token(inner, s, shape->m[M_X].rows, r, msg, len);
    return resolve_matrix(inner, shape, stage, what, r, msg, len);
}
