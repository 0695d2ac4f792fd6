/* tplmodel.c - a model lesson's template references (see tplref.h):
 * "L2.A1[3][1]", "p[5][3]", "E[3][1]", {token[2]}, {next}, {p_next},
 * {L1.H1.prev}, the model's sizes, read and resolved against a model's
 * shapes for the layer and stage a step shows. It evaluates nothing
 * (template.c does) and keeps no state. */
#include "tplref.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "heads.h"
#include "text/i18n.h"
#include "text/text.h"

#define SAY(...) do { if (msg) snprintf(msg, len, __VA_ARGS__); } while (0)

bool tpl_model_computed(int rl, int rs, int layer, int stage)
{
    if (rs == 0)
        return true;
    if (stage == TEMPLATE_ABOUT)
        return false;
    if (rl == 0)
        return stage >= MSTAGE_NEXT;
    return rl < layer || (rl == layer && rs <= stage) || stage >= MSTAGE_NEXT;
}

/* The length of a model name at s: letters, digits, '_' and the '.' of
 * "L2.Wq" (a '.' only between name characters). */
static size_t name_span(const char *s)
{
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_' ||
           (s[n] == '.' && n > 0 && (isalnum((unsigned char)s[n + 1]) || s[n + 1] == '_')))
        n++;
    return n;
}

/* "L<digits>." at w: the layer (0 when none) and the rest's offset in *rest. */
static int layer_of(const char *w, size_t n, size_t *rest)
{
    size_t k = 1;
    int l = 0;
    *rest = 0;
    if (n < 3 || w[0] != 'L' || !isdigit((unsigned char)w[1]))
        return 0;
    while (k < n && isdigit((unsigned char)w[k]) && l < 1000)
        l = l * 10 + (w[k++] - '0');
    if (k >= n || w[k] != '.')
        return 0;
    *rest = k + 1;
    return l;
}

/* Is w[0..n) one of the model's own names (model.h), whether or not this
 * model has that matrix? */
static bool model_word(const char *w, size_t n)
{
    static const char *const names[] = {"E", "P", "gf", "betaf", "WU", "g1", "beta1", "g2", "beta2", "W1", "b1",
                                        "W2", "b2", "h_in", "a", "h_mid", "b", "u", "f", "h", "h_final", "logits",
                                        "p"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (tpl_word_is(w, n, names[k]))
            return true;
    return false;
}

/* The matrix named w[0..n) in model m: *r; TREF_NAME (msg says why) or TREF_HEAD. */
static int model_name(const Model *m, const char *w, size_t n, ModelRef *r, char *msg, size_t len)
{
    char nm[64];
    snprintf(nm, sizeof nm, "%.*s", (int)(n < 40 ? n : 40), w);
    char hm[256];
    if (model_lookup(m, w, (int)n, r) && r->kind != MM_ATTN)
        return TREF_OK;
    size_t rest;
    int l = layer_of(w, n, &rest), layers = m->cfg.layers;
    if (l == 0 && rest == 0 && layers == 1)
        l = 1; /* one layer: "A1" is "L1.A1" */
    int id = attn_mat_lookup(w + rest, (int)(n - rest));
    bool attn = id >= 0 && id != M_X && id != M_H && id != M_P;
    if (l >= 1 && l <= layers && attn) {
        MatId mm = (MatId)id;
        if (!heads_resolve(&m->layer[l - 1].att, &mm, hm, sizeof hm)) {
            SAY("%s", hm);
            return TREF_HEAD;
        }
        ModelRef t = {MM_ATTN, l, mm};
        if (model_mat(m, t)) {
            *r = t;
            return TREF_OK;
        }
    }
    if (l > layers)
        SAY(layers == 1 ? _("%s names layer %d, and the model has 1 layer: write L1 or leave the layer out")
                        : _("%s names layer %d, and the model has %d layers: L1 to L%d"), nm, l, layers, layers);
    else if (l == 0 && (attn || model_word(w, n)) && layers > 1)
        SAY(_("%s is one per layer in a model of %d layers: write L1.%s to L%d.%s"), nm, layers, nm, layers, nm);
    else if (attn || model_word(w + rest, n - rest))
        SAY(_("this model has no %s (P exists with learned positions, WU with a separate unembedding, beta with "
              "layernorm, W1, b1, W2, b2, g2, beta2, b, u and f with d_ff above 0)"), nm);
    else
        SAY(_("unknown name %s, expected a model's matrix: E, P, WU, gf, betaf, h_final, logits, p, or a layer's "
              "(L1.Wq, L1.Q, L1.S, L1.A1, L1.O, L1.Y, L1.h_in, L1.a, L1.h_mid, L1.b, L1.f, L1.h, L1.W1 ...)"), nm);
    return TREF_NAME;
}

int tpl_model_ref_parse(const char *s, const Model *shape, ModelRef *r, int *i, int *j, char *msg, size_t len)
{
    char digits[32], nm[64];
    const char *text = s;
    long long i1, j1 = 0;
    s = tpl_skip_space(s);
    size_t n = name_span(s);
    const char *w = s;
    s += n;
    bool cell = false;
    if (n == 0 || !tpl_parse_index(&s, &i1))
        return TREF_SYNTAX;
    if (*tpl_skip_space(s) == '[') {
        cell = true;
        if (!tpl_parse_index(&s, &j1))
            return TREF_SYNTAX;
    }
    if (*tpl_skip_space(s) != '\0')
        return TREF_SYNTAX;
    int st = model_name(shape, w, n, r, msg, len);
    if (st != TREF_OK)
        return st;
    if (i1 == 0 || (cell && j1 == 0))
        return TREF_ZERO;
    const Mat *x = model_mat(shape, *r);
    model_ref_name(shape, *r, nm, sizeof nm);
    if (i1 > x->rows) {
        SAY(x->rows == 1 ? _("row %s is out of range in %s, %s has 1 row")
                         : _("row %s is out of range in %s, %s has %d rows"),
            tpl_index_written(text, 0, digits, sizeof digits), text, nm, x->rows);
        return TREF_RANGE;
    }
    if (cell && j1 > x->cols) {
        SAY(x->cols == 1 ? _("column %s is out of range in %s, %s has 1 column")
                         : _("column %s is out of range in %s, %s has %d columns"),
            tpl_index_written(text, 1, digits, sizeof digits), text, nm, x->cols);
        return TREF_RANGE;
    }
    *i = (int)i1 - 1;
    *j = cell ? (int)j1 - 1 : -1;
    return TREF_OK;
}

/* A head's score: "[Lk.]Hh.prev" or "[Lk.]Hh.induction"; false when inner is not one. */
static bool score_ref(const char *inner, const Model *shape, int layer, int stage, TplRef *r, char *msg,
                      size_t len, bool *ok)
{
    char qb[200];
    const char *w = tpl_skip_space(inner);
    size_t n = name_span(w), rest;
    int l = layer_of(w, n, &rest);
    const char *h = w + rest;
    if (l == 0 && rest == 0)
        l = shape->cfg.layers == 1 ? 1 : 0;
    if (h[0] != 'H' || !isdigit((unsigned char)h[1]))
        return false;
    int head = 0;
    const char *e = h + 1;
    while (isdigit((unsigned char)*e) && head < 1000)
        head = head * 10 + (*e++ - '0');
    bool prev = strncmp(e, ".prev", 5) == 0 && (size_t)(e + 5 - w) == n;
    bool ind = strncmp(e, ".induction", 10) == 0 && (size_t)(e + 10 - w) == n;
    if (!prev && !ind)
        return false;
    *ok = false;
    r->kind = prev ? R_PREV : R_INDUCTION;
    r->mr = (ModelRef){MM_ATTN, l, M_A};
    r->i = head;
    if (*tpl_skip_space(w + n) != '\0')
        SAY(_("%s takes no index, write {L1.H1.prev} or {L1.H1.induction}"), tpl_quote_ref(inner, qb, sizeof qb));
    else if (l == 0)
        SAY(_("%s: the model has %d layers, name the layer: {L1.H1.prev}"), tpl_quote_ref(inner, qb, sizeof qb),
            shape->cfg.layers);
    else if (l > shape->cfg.layers)
        SAY(_("%s names layer %d, and the model has %d layers"), tpl_quote_ref(inner, qb, sizeof qb), l,
            shape->cfg.layers);
    else if (head < 1 || head > shape->cfg.heads)
        SAY(_("%s names head %d, and each layer has %d heads: H1 to H%d"), tpl_quote_ref(inner, qb, sizeof qb),
            head, shape->cfg.heads, shape->cfg.heads);
    else if (!tpl_model_computed(l, MSTAGE_SOFTMAX, layer, stage))
        SAY(_("%s is a head's score, computed from its weights at layer %d, stage softmax; quote it at a step that "
              "shows them"), tpl_quote_ref(inner, qb, sizeof qb), l);
    else
        *ok = true;
    return true;
}

/* The model's sizes and settings, the prediction's words, and those of a
 * one-layer lesson a model has none of. -1: not such a name. */
static int model_word_ref(const char *inner, const char *w, size_t wn, int stage, TplRef *r, char *msg,
                          size_t len)
{
    static const struct { const char *name; RefKind kind; } words[] = {
        {"d_k", R_DK}, {"d_v", R_DV}, {"d_model", R_DMODEL}, {"n", R_N}, {"heads", R_HEADS},
        {"kv_heads", R_KV_HEADS}, {"offset", R_OFFSET}, {"T", R_T}, {"layers", R_LAYERS}, {"vocab", R_VOCAB},
        {"d_ff", R_D_FF}, {"ctx", R_CTX}, {"T_s", R_T_S}, {"next", R_NEXT}, {"p_next", R_P_NEXT},
        {"logit_next", R_LOGIT_NEXT}, {"greedy", R_GREEDY}, {"p_greedy", R_P_GREEDY}};
    static const char *const none[] = {"lr", "loss", "steps", "window", "block", "cache"};
    char qb[200];
    for (size_t k = 0; k < sizeof none / sizeof *none; k++)
        if (tpl_word_is(w, wn, none[k])) {
            SAY(_("%s is a one-layer lesson's; a model lesson quotes its sizes {layers}, {d_model}, {heads}, {d_k}, "
                  "{d_ff}, {vocab}, {ctx}, {n}, its matrices and {next}, {p_next}, {L1.H1.prev}"),
                tpl_quote_ref(inner, qb, sizeof qb));
            return 0;
        }
    for (size_t k = 0; k < sizeof words / sizeof *words; k++) {
        if (!tpl_word_is(w, wn, words[k].name))
            continue;
        r->kind = words[k].kind;
        if (*tpl_skip_space(w + wn) != '\0') {
            SAY(_("%s takes no index, write {%s}"), tpl_quote_ref(inner, qb, sizeof qb), words[k].name);
            return 0;
        }
        if (r->kind >= R_NEXT && r->kind <= R_P_GREEDY && stage < MSTAGE_NEXT) {
            SAY(_("%s is the model's prediction, computed at stage next; quote it at a step that shows it"),
                tpl_quote_ref(inner, qb, sizeof qb));
            return 0;
        }
        return 1;
    }
    return -1;
}

bool tpl_resolve_model(const char *inner, const Model *shape, int layer, int stage, const char *what, TplRef *r,
                       char *msg, size_t len)
{
    char qb[200], nm[64];
    const char *w = tpl_skip_space(inner);
    size_t wn = name_span(w);
    memset(r, 0, sizeof *r);
    bool ok = false;
    int word = model_word_ref(inner, w, wn, stage, r, msg, len);
    if (word >= 0)
        return word == 1;
    if (score_ref(inner, shape, layer, stage, r, msg, len, &ok))
        return ok;
    if (tpl_word_is(w, wn, "token"))
        return tpl_resolve_token(inner, w + wn, shape->n, r, msg, len);
    r->kind = R_MAT;
    int st = tpl_model_ref_parse(inner, shape, &r->mr, &r->i, &r->j, msg, len);
    if (st == TREF_ZERO)
        SAY(_("indices start at 1, found %s"), tpl_quote_ref(inner, qb, sizeof qb));
    else if (st == TREF_SYNTAX && wn > 0 && *tpl_skip_space(w + wn) == '[')
        SAY(_("%s must be a row like {p[4]} or a cell like {L1.A[2][1]}"), tpl_quote_ref(inner, qb, sizeof qb));
    else if (st == TREF_SYNTAX)
        SAY(_("unknown name %s in %s, expected a cell like {L1.A[2][1]} or {p[4][2]}, a row like {logits[4]}, "
              "{token[2]}, {next}, {p_next}, {logit_next}, {greedy}, {p_greedy}, {L1.H1.prev}, {L1.H1.induction}, "
              "{layers}, {d_model}, {heads}, {d_k}, {d_v}, {d_ff}, {vocab}, {ctx}, {n}, {T}, {T_s}, arithmetic "
              "like {-ln(p[4][2])} with + - * / ( ) and exp, ln, sqrt, shown, sum, max, or a fixed figure like "
              "{=0.695}; write {{ for a literal {"),
            tpl_quote_ref(inner, qb, sizeof qb), what);
    if (st != TREF_OK)
        return false;
    int need = model_ref_stage(shape, r->mr), rl = r->mr.layer;
    if (tpl_model_computed(rl, need, layer, stage))
        return true;
    model_ref_name(shape, r->mr, nm, sizeof nm);
    if (stage == TEMPLATE_ABOUT)
        SAY(_("%s quotes %s, a result computed at stage %s; about is shown before the first step and can quote only "
              "the parameters (E, P, L1.Wq ...), tokens and the sizes"),
            tpl_quote_ref(inner, qb, sizeof qb), nm, model_stage_key(need));
    else if (rl == 0)
        SAY(_("%s quotes %s, which is computed at stage next; this step shows layer %d, stage %s, quote it at a "
              "later step"), tpl_quote_ref(inner, qb, sizeof qb), nm, layer, model_stage_key(stage));
    else
        SAY(_("%s quotes %s, which is computed at layer %d, stage %s; this step shows layer %d, stage %s, quote it "
              "at a later step"), tpl_quote_ref(inner, qb, sizeof qb), nm, rl, model_stage_key(need), layer,
            model_stage_key(stage));
    return false;
}
