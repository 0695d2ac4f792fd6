/* template.c - {REF} in narration: the expression language, read and
 * checked at load against the lesson's shapes (see template.h); filled in
 * when shown by words/narrate.c. Its references (S[1][2], token[2], T ...)
 * are read and resolved by tplref.c. */
#include "template.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/num.h"
#include "text/i18n.h"
#include "diag.h"
#include "heads.h"
#include "core/grad.h"

/* ---- expressions (references: tplref.c) */

/* One expression being read; with st (expanding) its value is computed
 * from st, else (checking) only its names are resolved against shape. */
typedef struct {
    const char *inner, *s;
    const Attn *shape;  /* the state: shapes (checking) or values (expanding) */
    const Model *model; /* a model lesson's instead (shape unused) */
    bool eval;
    int stage;
    int layer;          /* a model lesson's: the layer of (layer, stage) */
    const char *what;
    const TplOpt *opt;
    bool hidden;        /* a hidden cell was used */
    char *msg;
    size_t len;
} Px;

/* ---- expressions ------------------------------------------------------------- */

static bool expr(Px *p, Val *v);

/* "{...}" is malformed: say what to write. */
static bool malformed(Px *p, const char *why)
{
    char qb[200];
    if (p->msg)
        snprintf(p->msg, p->len, _("%s in %s is not an expression: %s; write a reference like {A[1][2]}, "
                                   "arithmetic like {-ln(A[1][3])} or {sum(A[*][1])}, or {=0.695} for a fixed figure"),
                 tpl_quote_ref(p->inner, qb, sizeof qb), p->what, why);
    return false;
}

bool tpl_is_word(int c)
{
    return isalnum(c) || c == '_';
}

bool template_cell_hidden(const TplOpt *opt, const TplRef *r, int i, int j)
{
    if (!opt)
        return false;
    if (r->mr.kind != MM_NONE)
        return opt->mhidden && opt->mhidden(opt->ctx, r->mr, i, j);
    return opt->hidden && opt->hidden(opt->ctx, r->m, i, j);
}

static bool cell_hidden(const Px *p, MatId m, int i, int j)
{
    return p->opt && p->opt->hidden && p->opt->hidden(p->opt->ctx, m, i, j);
}

const Mat *template_ref_mat(const TplRef *r, const Attn *state, const Model *model)
{
    return r->mr.kind != MM_NONE ? model_mat(model, r->mr) : &state->m[r->m];
}

static const Mat *ref_mat(const Px *p, const TplRef *r)
{
    return template_ref_mat(r, p->shape, p->model);
}

/* Is any cell of what r names hidden? */
static bool any_hidden(const Px *p, const TplRef *r)
{
    const Mat *x = ref_mat(p, r);
    for (int i = 0; x && i < x->rows; i++)
        for (int j = 0; j < x->cols; j++)
            if (template_cell_hidden(p->opt, r, i, j))
                return true;
    return false;
}

/* A model lesson's sizes, settings, prediction and head scores (the
 * model at its cursor, p->layer the layer shown); false when there is no
 * value (a score without a previous token or a repeat: "…"). */
static bool model_value(Px *p, Val *v)
{
    const Model *m = p->model;
    const ModelCfg *c = &m->cfg;
    TplRef *r = &v->r;
    int l = p->layer >= 1 && p->layer <= c->layers ? p->layer : 1, last = m->n - 1;
    v->kind = V_NUM;
    v->integer = true;
    switch (r->kind) {
    case R_DK:       v->x = model_d_k(c); return true;
    case R_DV:       v->x = model_d_v(c); return true;
    case R_DMODEL:   v->x = c->d_model; return true;
    case R_N:        v->x = m->n; return true;
    case R_HEADS:    v->x = c->heads; return true;
    case R_KV_HEADS: v->x = model_kv_heads(c); return true;
    case R_OFFSET:   v->x = c->offset; return true;
    case R_LAYERS:   v->x = c->layers; return true;
    case R_VOCAB:    v->x = c->vocab; return true;
    case R_D_FF:     v->x = c->d_ff; return true;
    case R_CTX:      v->x = c->ctx; return true;
    default: break;
    }
    v->integer = false;
    if (r->kind == R_T || r->kind == R_T_S) {
        v->x = r->kind == R_T ? c->attn[l - 1].temp : c->sample_temp;
        v->setting = true;
        return true;
    }
    if (!p->eval)
        return true;
    if (r->kind == R_PREV || r->kind == R_INDUCTION) {
        TplRef a = {R_MAT, M_A, 0, 0, {MM_ATTN, r->mr.layer, attn_shown(&m->layer[r->mr.layer - 1].att, M_A, r->i)}};
        p->hidden |= any_hidden(p, &a);
        return r->kind == R_PREV ? model_prev_score(m, r->mr.layer, r->i, &v->x)
                                 : model_induction_score(m, r->mr.layer, r->i, &v->x);
    }
    /* the prediction: from the last rows of logits and p */
    if (!model_reached(m, c->layers, MSTAGE_NEXT))
        return false;
    TplRef pr = {R_MAT, M_A, 0, 0, {MM_PROBS, 0, M_X}}, lg = {R_MAT, M_A, 0, 0, {MM_LOGITS, 0, M_X}};
    for (int j = 0; j < c->vocab; j++)
        p->hidden |= template_cell_hidden(p->opt, &pr, last, j) || template_cell_hidden(p->opt, &lg, last, j);
    int t = r->kind == R_NEXT || r->kind == R_P_NEXT || r->kind == R_LOGIT_NEXT ? model_predict(m) : model_greedy(m);
    if (r->kind == R_NEXT || r->kind == R_GREEDY) {
        v->kind = V_TOKEN;
        r->j = t;
        return true;
    }
    v->x = MAT_AT(r->kind == R_LOGIT_NEXT ? &m->logits : &m->p, last, t);
    return true;
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

/* The value of a resolved reference: a cell, a row, a column, a token, a
 * size or a setting of the state (p->shape); false when there is none. */
static bool ref_value(Px *p, Val *v, bool column)
{
    v->integer = false;
    v->setting = false;
    v->x = 0;
    const Attn *a = p->shape;
    TplRef *r = &v->r;
    if (p->model && r->kind != R_MAT && r->kind != R_TOKEN)
        return model_value(p, v);
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
        v->x = MAT_AT(ref_mat(p, r), r->i, r->j);
        p->hidden |= template_cell_hidden(p->opt, r, r->i, r->j);
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

/* A reference at p->s: a name, then any "[...]" groups ("[*]" first: a column). */
static bool reference(Px *p, Val *v)
{
    const char *b = p->s, *e = b;
    while (tpl_is_word((unsigned char)*e) || (p->model && *e == '.' && tpl_is_word((unsigned char)e[1])))
        e++; /* a model's names have dots: L2.A1, L1.H1.prev */
    for (;;) {
        const char *t = tpl_skip_space(e);
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
        char *q = (char *)tpl_skip_space(star + 1);
        if (*q == '*' && *tpl_skip_space(q + 1) == ']') {
            column = true;
            *q = '1';
        }
    }
    TplRef *r = &v->r;
    memset(r, 0, sizeof *r); /* mr.kind MM_NONE: a one-layer lesson's matrix */
    if (p->model ? !tpl_resolve_model(sub, p->model, p->layer, p->stage, p->what, r, p->msg, p->len)
                 : !tpl_resolve(sub, p->shape, p->stage, p->what, r, p->msg, p->len)) {
        char qm[200], qo[200], *at;
        tpl_quote_ref(sub, qm, sizeof qm);
        tpl_quote_ref(orig, qo, sizeof qo);
        if (column && p->msg && (at = strstr(p->msg, qm)) != NULL) { /* quote what was written */
            char rest[DIAG_MSG_MAX]; /* a message: as long as the loader keeps */
            snprintf(rest, sizeof rest, "%s", at + strlen(qm));
            snprintf(at, p->len - (size_t)(at - p->msg), "%s%s", qo, rest);
        }
        return false;
    }
    if (column && (r->kind != R_MAT || r->j < 0)) {
        char qb[200];
        if (p->msg)
            snprintf(p->msg, p->len, _("%s: a column is written like {sum(A[*][1])}, with * for the row and a "
                                       "column number"), tpl_quote_ref(p->inner, qb, sizeof qb));
        return false;
    }
    return ref_value(p, v, column);
}

/* x as the screen shows it: rounded to the lesson's digits (exactly as
 * printed, so a sum of shown( ) values is what a student's hand sum of
 * the screen's digits gives). */
static double shown_value(const Px *p, double x)
{
    if (!p->eval || !p->opt || !isfinite(x))
        return x;
    return num_as_printed(x, p->opt->digits);
}

/* sum( ) (is_sum) or max( ) of a row or a column, or of its values as
 * shown: sum(shown(A[*][1])). p->s is past "sum(". */
static bool aggregate(Px *p, bool is_sum, Val *v)
{
    Val a;
    p->s = tpl_skip_space(p->s);
    bool round = false;
    if (strncmp(p->s, "shown", 5) == 0 && *tpl_skip_space(p->s + 5) == '(') {
        round = true;
        p->s = tpl_skip_space(tpl_skip_space(p->s + 5) + 1);
    }
    const char *at = p->s;
    if (!tpl_is_word((unsigned char)*at) || !reference(p, &a))
        return tpl_is_word((unsigned char)*at) ? false : malformed(p, _("sum( ) and max( ) take a row like A[1] "
                                                                   "or a column like A[*][1]"));
    if (a.kind != V_ROW && a.kind != V_COL)
        return malformed(p, _("sum( ) and max( ) take a row like A[1] or a column like A[*][1]"));
    if (round) {
        p->s = tpl_skip_space(p->s);
        if (*p->s != ')')
            return malformed(p, _("a \")\" is missing"));
        p->s++;
    }
    const Mat *m = ref_mat(p, &a.r);
    int cnt = a.kind == V_ROW ? m->cols : m->rows;
    double acc = is_sum ? 0.0 : -INFINITY;
    for (int k = 0; k < cnt; k++) {
        int i = a.kind == V_ROW ? a.r.i : k, j = a.kind == V_ROW ? k : a.r.j;
        double x = round ? shown_value(p, MAT_AT(m, i, j)) : MAT_AT(m, i, j);
        acc = is_sum ? acc + x : (x > acc ? x : acc);
        p->hidden |= template_cell_hidden(p->opt, &a.r, i, j);
    }
    v->kind = V_NUM;
    v->integer = false;
    v->setting = false;
    v->x = acc;
    return true;
}

/* sum( ), max( ) of a row or a column (or of its values as shown:
 * sum(shown(A[*][1]))); exp( ), ln( ), sqrt( ), shown( ) of a number. */
static bool call(Px *p, const char *name, size_t nlen, Val *v)
{
    static const char *const fn[] = {"exp", "ln", "sqrt", "sum", "max", "shown"};
    int f = -1;
    for (int k = 0; k < 6; k++)
        if (tpl_word_is(name, nlen, fn[k]))
            f = k;
    if (f < 0) {
        char qb[200], w[48];
        snprintf(w, sizeof w, "%.*s", (int)(nlen < 40 ? nlen : 40), name);
        if (p->msg)
            snprintf(p->msg, p->len, _("unknown function %s( ) in %s, the functions are exp( ), ln( ), sqrt( ), "
                                       "shown( ), sum( ) and max( )"), w, tpl_quote_ref(p->inner, qb, sizeof qb));
        return false;
    }
    p->s++; /* "(" */
    Val a;
    if (f == 3 || f == 4) { /* a row or a column */
        if (!aggregate(p, f == 3, v))
            return false;
    } else {
        if (!expr(p, &a))
            return false;
        if (a.kind != V_NUM)
            return malformed(p, _("exp( ), ln( ), sqrt( ) and shown( ) take a number, not a whole row"));
        v->kind = V_NUM;
        v->integer = false;
        v->setting = false;
        v->x = f == 0 ? exp(a.x) : f == 1 ? log(a.x) : f == 2 ? sqrt(a.x) : shown_value(p, a.x);
    }
    p->s = tpl_skip_space(p->s);
    if (*p->s != ')')
        return malformed(p, _("a \")\" is missing"));
    p->s++;
    return true;
}

static bool primary(Px *p, Val *v)
{
    p->s = tpl_skip_space(p->s);
    const char *s = p->s;
    if (*s == '(') {
        p->s++;
        if (!expr(p, v))
            return false;
        p->s = tpl_skip_space(p->s);
        if (*p->s != ')')
            return malformed(p, _("a \")\" is missing"));
        p->s++;
        return true;
    }
    if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        char *end;
        v->kind = V_NUM;
        v->x = num_value(s, &end);
        v->integer = true;
        v->setting = false;
        for (const char *t = s; t < end; t++)
            v->integer = v->integer && isdigit((unsigned char)*t);
        p->s = end;
        return true;
    }
    if (tpl_is_word((unsigned char)*s)) {
        const char *e = s;
        while (tpl_is_word((unsigned char)*e))
            e++;
        if (*tpl_skip_space(e) == '(' && !isdigit((unsigned char)*s)) {
            p->s = tpl_skip_space(e);
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
    p->s = tpl_skip_space(p->s);
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
        p->s = tpl_skip_space(p->s);
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
        p->s = tpl_skip_space(p->s);
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
    const char *s = tpl_skip_space(body);
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
    return *tpl_skip_space(s) == '\0';
}

/* Read the whole of inner: false with a message when it is not a value. */
static bool tpl_evaluate(Px *p, Val *v)
{
    p->s = p->inner;
    if (*tpl_skip_space(p->inner) == '=') {
        char qb[200];
        if (fixed_ok(tpl_skip_space(p->inner) + 1))
            return true;
        if (p->msg)
            snprintf(p->msg, p->len, _("%s in %s is not a number; a fixed figure is written like {=0.695}"),
                     tpl_quote_ref(p->inner, qb, sizeof qb), p->what);
        return false;
    }
    if (!expr(p, v))
        return false;
    p->s = tpl_skip_space(p->s);
    if (*p->s == ')')
        return malformed(p, _("a \")\" has no \"(\""));
    if (*p->s)
        return malformed(p, _("something follows the value; join values with + - * /"));
    return true;
}

bool template_eval(const char *inner, const Attn *state, int stage, const TplOpt *opt, Val *v, bool *hidden)
{
    const Model *m = opt ? opt->model : NULL;
    if (m) /* the model's cursor: (0, 0) is before the first step */
        stage = m->at_stage < MSTAGE_EMBED ? TEMPLATE_ABOUT : m->at_stage;
    Px px = {.inner = inner, .s = inner, .shape = state, .model = m, .eval = true, .stage = stage,
             .layer = m ? m->at_layer : 0, .what = "", .opt = opt};
    bool ok = tpl_evaluate(&px, v);
    *hidden = px.hidden;
    return ok;
}

/* ---- scanning ---------------------------------------------------------------- */

/* At s[0] == '{' (not "{{"): copy the text up to the closing '}' into
 * inner. Returns the byte length of the whole "{...}", 0 when unclosed. */
size_t tpl_ref_span(const char *s, char *inner, size_t len)
{
    const char *close = strchr(s + 1, '}');
    if (!close)
        return 0;
    size_t n = (size_t)(close - s - 1);
    if (n >= len) { /* too long to be a reference: keep its start for the message */
        n = text_char_start(s + 1, len - 1);
    }
    memcpy(inner, s + 1, n);
    inner[n] = '\0';
    return (size_t)(close - s) + 1;
}

bool template_has_refs(const char *text)
{
    return text && strchr(text, '{') != NULL;
}

/* Check every reference of text as the Px template says (shape or model,
 * stage, layer, what); see template_check. */
static bool check_refs(const char *text, const Px *how, int *errcol, char *msg, size_t len)
{
    const char *what = how->what;
    int col = 1;
    for (const char *p = text; p && *p;) {
        if (*p != '{') {
            col += !text_is_cont((unsigned char)*p);
            p++;
            continue;
        }
        if (p[1] == '{') {
            p += 2;
            col++;
            continue;
        }
        char inner[REF_MAX + 1];
        size_t n = tpl_ref_span(p, inner, sizeof inner);
        *errcol = col;
        if (n == 0) {
            snprintf(msg, len, _("unclosed \"{\" in %s; close the reference with \"}\", or write \"{{\" for a "
                                 "literal \"{\""), what);
            return false;
        }
        if (n - 2 > REF_MAX) {
            char qb[200];
            snprintf(msg, len, _("%s in %s is too long; a template holds at most %d characters"),
                     tpl_quote_ref(inner, qb, sizeof qb), what, REF_MAX);
            return false;
        }
        Px px = *how;
        px.inner = px.s = inner;
        px.msg = msg;
        px.len = len;
        Val v;
        if (!tpl_evaluate(&px, &v))
            return false;
        col += (int)text_chars(p, n);
        p += n;
    }
    return true;
}

bool template_check(const char *text, const Attn *shape, int stage, const char *what, int *errcol, char *msg,
                    size_t len)
{
    Px how = {.shape = shape, .stage = stage, .what = what};
    return check_refs(text, &how, errcol, msg, len);
}

bool template_check_model(const char *text, const Model *shape, int layer, int stage, const char *what,
                          int *errcol, char *msg, size_t len)
{
    Px how = {.model = shape, .stage = stage, .layer = layer, .what = what};
    return check_refs(text, &how, errcol, msg, len);
}
