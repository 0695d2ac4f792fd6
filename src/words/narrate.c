/* narrate.c - narration's {REF}s filled in from the state, as people read
 * numbers (the lesson's digits, the one number printer), and the literal
 * state numbers a lesson should not write (see narrate.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grad.h"
#include "text/i18n.h"
#include "lesson/heads.h"
#include "lesson/lmodel.h"
#include "text/num.h"
#include "narrate.h"

/* The output of an expansion: bytes written, whether it was cut, and the
 * length the whole expansion needs. */
typedef struct {
    char *out;
    size_t len, w, need;
    bool cut;
} NarrBuf;

static void buf_put(NarrBuf *o, const char *s, size_t n)
{
    o->need += n;
    if (o->cut || o->len == 0)
        return;
    size_t room = o->len - 1 - o->w, k = n < room ? n : room;
    memcpy(o->out + o->w, s, k);
    o->w += k;
    if (k < n) { /* cut, never inside a character */
        o->cut = true;
        if (text_is_cont((unsigned char)s[k])) /* back to the lead byte of the cut character */
            o->w = text_char_prev(o->out, o->w);
    }
}

static void buf_puts(NarrBuf *o, const char *s)
{
    buf_put(o, s, strlen(s));
}

/* A number as the screen writes it: fmt_num, a masked −∞ as the matrix
 * shows it, a whole number (a size, a count) without decimals. */
static void put_num(NarrBuf *o, double x, bool integer, const TplOpt *opt)
{
    char buf[64];
    if (isinf(x)) {
        buf_puts(o, x > 0 ? (opt->ascii ? "inf" : "∞") : (opt->ascii ? "-inf" : "−∞"));
        return;
    }
    if (integer && fabs(x) < 1e15) {
        num_format(buf, sizeof buf, fabs(x), 0);
        if (x < 0)
            buf_puts(o, opt->ascii ? "-" : "−");
        buf_puts(o, buf);
        return;
    }
    FmtOpt fo = {opt->digits, opt->ascii, false};
    buf_puts(o, fmt_num(x, &fo, buf, sizeof buf));
}

static void put_cell(NarrBuf *o, const Mat *x, const TplOpt *opt, const TplRef *r, int i, int j)
{
    if (template_cell_hidden(opt, r, i, j)) {
        buf_puts(o, "?");
        return;
    }
    put_num(o, MAT_AT(x, i, j), false, opt);
}

/* A token's name: row i's (a swap moves names with their rows), or in a
 * model lesson the vocab entry of row i's token, or of the prediction. */
static const char *token_name(const Val *v, const Attn *a, const Lesson *l, const TplOpt *opt)
{
    const Model *m = opt->model;
    if (!l)
        return "?";
    if (m && l->model) {
        int t = v->r.kind == R_TOKEN ? (v->r.i < m->n ? m->tok[v->r.i] : -1) : v->r.j;
        return t >= 0 && t < l->model->nvocab ? l->model->vocab[t] : "?";
    }
    return a ? lesson_token(l, a, v->r.i) : v->r.i < l->ntok ? l->tokens[v->r.i] : "?";
}

/* A fixed figure as written, the minus as the screen writes it. */
static void put_fixed(NarrBuf *o, const char *body, const TplOpt *opt)
{
    const char *s = tpl_skip_space(body);
    if (*s == '-' || strncmp(s, "\xe2\x88\x92", 3) == 0) {
        buf_puts(o, opt->ascii ? "-" : "−");
        s += *s == '-' ? 1 : 3;
    }
    size_t n = 0;
    while (s[n] && s[n] != ' ')
        n++;
    buf_put(o, s, n);
}

/* Write one value: a number, a row or column joined (", ", Chinese "、"), a token. */
static void put_val(NarrBuf *o, const Val *v, const Attn *a, const Lesson *l, const TplOpt *opt)
{
    const char *sep = opt->lang == LANG_ZH ? "、" : ", ";
    const Mat *x = v->kind == V_ROW || v->kind == V_COL ? template_ref_mat(&v->r, a, opt->model) : NULL;
    switch (v->kind) {
    case V_NUM:
        if (v->setting && isfinite(v->x)) { /* as the header writes it */
            char buf[64];
            fmt_exact(v->x, buf, sizeof buf);
            buf_puts(o, buf);
            return;
        }
        put_num(o, v->x, v->integer, opt);
        return;
    case V_TOKEN:
        buf_puts(o, token_name(v, a, l, opt)); /* the token now in row i */
        return;
    case V_ROW:
        for (int j = 0; j < x->cols; j++) {
            if (j)
                buf_puts(o, sep);
            put_cell(o, x, opt, &v->r, v->r.i, j);
        }
        return;
    case V_COL:
        for (int i = 0; i < x->rows; i++) {
            if (i)
                buf_puts(o, sep);
            put_cell(o, x, opt, &v->r, i, v->r.j);
        }
        return;
    }
}

size_t template_expand(const char *text, const Attn *state, const Lesson *l, const TplOpt *opt, char *out,
                       size_t len)
{
    NarrBuf o = {out, len, 0, 0, false};
    for (const char *p = text; p && *p;) {
        size_t run = strcspn(p, "{");
        buf_put(&o, p, run);
        p += run;
        if (!*p)
            break;
        if (p[1] == '{') {
            buf_put(&o, "{", 1);
            p += 2;
            continue;
        }
        char inner[REF_MAX + 1];
        size_t n = tpl_ref_span(p, inner, sizeof inner);
        int stage = !state || state->reached < STAGE_INPUT ? TEMPLATE_ABOUT : state->reached; /* a model's: its own */
        if (n == 0) { /* unclosed: the rest as written */
            buf_puts(&o, p);
            break;
        }
        Val v;
        bool hidden = false;
        if (n - 2 > REF_MAX || !template_eval(inner, state, stage, opt, &v, &hidden))
            buf_puts(&o, opt->ascii ? "..." : "…");
        else if (*tpl_skip_space(inner) == '=')
            put_fixed(&o, tpl_skip_space(inner) + 1, opt);
        else if (hidden && (v.kind == V_NUM || v.kind == V_TOKEN)) /* a token: the prediction */
            buf_puts(&o, "?");
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
    num_format(buf, sizeof buf, fabs(v), shown);
    return strcmp(buf, digits) == 0;
}

/* Is the number (digits, k decimals, value x) a cell of mm (named name,
 * a matrix like base), or (S and A) a row or column sum? ref gets its
 * name: "S[1][2]", "sum(S[1])". */
static bool named_number(const Mat *mm, const char *name, MatId base, const char *digits, int k, double x, int shown,
                         char *ref, size_t len)
{
    for (int i = 0; i < mm->rows; i++)
        for (int j = 0; j < mm->cols; j++)
            if (same_number(digits, k, x, MAT_AT(mm, i, j), shown, false)) {
                snprintf(ref, len, "%s[%d][%d]", name, i + 1, j + 1);
                return true;
            }
    if (base != M_S && base != M_A)
        return false;
    /* row sums, then column sums; A's rows always sum to 1 (a literal 1.000
     * there is the rule, not the state) */
    for (int i = 0; base == M_S && i < mm->rows; i++) {
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
    return false;
}

/* Is the number (digits, k decimals, value x) a cell of matrix id, or
 * (S and A) a row or column sum? ref gets its name: "S[1][2]", "sum(S[1])". */
static bool matrix_number(const Mat *mm, MatId id, const char *digits, int k, double x, int shown, char *ref,
                          size_t len)
{
    return named_number(mm, attn_mat_name(id), attn_mat_base(id), digits, k, x, shown, ref, len);
}

/* The first cell, sum or scalar of a equal to the literal; name in ref. */
static bool state_number(const Attn *a, const char *digits, int k, int shown, bool about, char *ref, size_t len)
{
    double x = num_value(digits, NULL);
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
            if (matrix_number(mm, id, digits, k, x, shown, ref, len))
                return true;
        }
    }
    return false;
}

/* A model lesson's: the first cell of a matrix computed at the model's
 * cursor (results last computed first, then parameters), a row or column
 * sum of S, a column sum of A, a head's score, T or T_s once set. */
static bool model_number(const Model *m, const char *digits, int k, int shown, bool about, char *ref, size_t len)
{
    double x = num_value(digits, NULL);
    const ModelCfg *c = &m->cfg;
    int layer = m->at_layer, stage = about || m->at_stage < MSTAGE_EMBED ? TEMPLATE_ABOUT : m->at_stage;
    const char *set = c->attn[0].temp != 1.0 && same_number(digits, k, x, c->attn[0].temp, shown, true) ? "T"
                      : c->sample_temp != 1.0 && same_number(digits, k, x, c->sample_temp, shown, true) ? "T_s"
                                                                                                       : NULL;
    if (set) {
        snprintf(ref, len, "%s", set);
        return true;
    }
    ModelRef all[MODEL_PARAMS_MAX + 3 + MODEL_LAYERS_MAX * (12 + 3 * ATTN_HEADS_MAX)];
    int n = 0;
    static const ModelMatKind top[] = {MM_PROBS, MM_LOGITS, MM_H_FINAL}, own[] = {MM_H, MM_F, MM_U, MM_B, MM_H_MID};
    static const MatId att[] = {M_Y, M_O, M_V, M_K, M_Q}, per_head[] = {M_A, M_S, M_QKT};
    for (size_t t = 0; t < 3; t++)
        all[n++] = (ModelRef){top[t], 0, M_X};
    for (int l = c->layers; l >= 1; l--) {
        for (size_t t = 0; t < 5; t++)
            all[n++] = (ModelRef){own[t], l, M_X};
        for (int h = c->heads > 1 ? 1 : 0; h <= (c->heads > 1 ? c->heads : 0); h++)
            for (size_t t = 0; t < 3; t++)
                all[n++] = (ModelRef){MM_ATTN, l, h ? attn_head_id(per_head[t], h) : per_head[t]};
        for (size_t t = 0; t < 5; t++)
            all[n++] = (ModelRef){MM_ATTN, l, att[t]};
        all[n++] = (ModelRef){MM_A, l, M_X};
        all[n++] = (ModelRef){MM_H_IN, l, M_X};
    }
    n += model_params(m, all + n, MODEL_PARAMS_MAX);
    for (int q = 0; q < n; q++) {
        const Mat *mm = model_mat(m, all[q]);
        char name[48];
        if (!mm || mm->rows == 0 || !tpl_model_computed(all[q].layer, model_ref_stage(m, all[q]), layer, stage))
            continue;
        model_ref_name(m, all[q], name, sizeof name);
        MatId base = all[q].kind == MM_ATTN ? attn_mat_base(all[q].attn) : M_X;
        if (named_number(mm, name, base, digits, k, x, shown, ref, len))
            return true;
    }
    for (int l = 1; l <= c->layers; l++)
        for (int h = 1; h <= c->heads && tpl_model_computed(l, MSTAGE_SOFTMAX, layer, stage); h++) {
            double sc;
            if (model_prev_score(m, l, h, &sc) && same_number(digits, k, x, sc, shown, false)) {
                snprintf(ref, len, "L%d.H%d.prev", l, h);
                return true;
            }
            if (model_induction_score(m, l, h, &sc) && same_number(digits, k, x, sc, shown, false)) {
                snprintf(ref, len, "L%d.H%d.induction", l, h);
                return true;
            }
        }
    return false;
}

/* The literal state number of text from byte `from`: a's (a one-layer
 * lesson's) or with m a model lesson's. */
static bool literal_find(const char *text, size_t from, const Attn *a, const Model *m, int digits, bool about,
                         TplLiteral *hit)
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
        bool after_word = p > text && (tpl_is_word((unsigned char)p[-1]) || p[-1] == '.');
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
        if (tpl_is_word((unsigned char)*e))
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
        if (m ? !model_number(m, num + 1, (int)(e - dot - 1), digits, about, hit->ref, sizeof hit->ref)
              : !state_number(a, num + 1, (int)(e - dot - 1), digits, about, hit->ref, sizeof hit->ref))
            continue;
        hit->off = (size_t)(start - text);
        hit->end = (size_t)(e - text);
        snprintf(hit->lit, sizeof hit->lit, "%.*s", (int)(e - start), start);
        return true;
    }
    return false;
}

bool template_literal_find(const char *text, size_t from, const Attn *a, int digits, bool about, TplLiteral *hit)
{
    return literal_find(text, from, a, NULL, digits, about, hit);
}

bool template_literal_find_model(const char *text, size_t from, const Model *m, int digits, bool about,
                                 TplLiteral *hit)
{
    return literal_find(text, from, NULL, m, digits, about, hit);
}

/* One line per literal state number of a's, or with m a model's. */
static int literals_report(FILE *out, const char *file, const char *text, const TextAt *at, const Attn *a,
                           const Model *m, int digits, bool about)
{
    int n = 0;
    TplLiteral hit;
    for (size_t from = 0; text && literal_find(text, from, a, m, digits, about, &hit); from = hit.end) {
        int col = at->col + 1;
        if (at->quote >= 0) {
            col += at->quote;
            col += (int)text_chars(text, hit.off);
        }
        fprintf(out, "%s:%d:%d: ", file, at->line, col);
        fprintf(out, _("%s is %s here; write {%s} so the text stays true after an edit (or {=%s} for a fixed "
                       "figure)"), hit.lit, hit.ref, hit.ref, hit.lit);
        fputc('\n', out);
        n++;
    }
    return n;
}

int template_literals_report(FILE *out, const char *file, const char *text, const TextAt *at, const Attn *a,
                             int digits, bool about)
{
    return literals_report(out, file, text, at, a, NULL, digits, about);
}

int template_literals_report_model(FILE *out, const char *file, const char *text, const TextAt *at, const Model *m,
                                   int digits, bool about)
{
    return literals_report(out, file, text, at, NULL, m, digits, about);
}
