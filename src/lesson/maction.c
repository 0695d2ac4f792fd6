/* maction.c - a model lesson's actions parsed with the model's names (see
 * maction.h); mapply.c applies and writes them. */
#include "maction.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "actionlex.h"
#include "diag.h"
#include "text/i18n.h"
#include "text/num.h"

/* A model name's characters: letters, digits, '_' and the layer's '.'. */
static int name_len(const char *p)
{
    int n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.')
        n++;
    return n;
}

/* The parameters a lesson may edit, for messages: the model's own and
 * layer 1's ("E, P, L1.Wq, ..., WU"). */
static const char *param_list(const Model *m, char *buf, size_t len)
{
    ModelRef p[MODEL_PARAMS_MAX];
    int n = model_params(m, p, MODEL_PARAMS_MAX), o = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && o >= 0 && (size_t)o < len; k++) {
        if (p[k].layer > 1)
            continue;
        char name[32];
        model_ref_name(m, p[k], name, sizeof name);
        o += snprintf(buf + o, len - (size_t)o, "%s%s", o ? ", " : "", name);
    }
    if (m->cfg.layers > 1 && o >= 0 && (size_t)o < len)
        snprintf(buf + o, len - (size_t)o, _(" (L2. and on for the other layers)"));
    return buf;
}

/* The parameter to edit instead of the result r. */
static const char *edit_instead(const Model *m, ModelRef r, char *buf, size_t len)
{
    int l = r.layer;
    const char *w = "E";
    switch (r.kind) {
    case MM_H_IN: case MM_A: w = l > 1 ? NULL : "E"; break;
    case MM_H_MID: w = "Wo"; break;
    case MM_B: w = "g2"; break;
    case MM_U: case MM_F: w = "W1"; break;
    case MM_H: w = m->cfg.d_ff > 0 ? "W2" : "Wo"; break;
    case MM_H_FINAL: snprintf(buf, len, "gf"); return buf;
    case MM_LOGITS: case MM_PROBS: snprintf(buf, len, m->cfg.unembed == UNEMBED_TIED ? "E" : "WU"); return buf;
    case MM_ATTN: {
        MatId b = attn_mat_base(r.attn);
        w = b == M_Q || b == M_Q0 ? "Wq" : b == M_K || b == M_K0 ? "Wk" : b == M_V || b == M_O ? "Wv"
            : b == M_Y ? "Wo" : NULL;
        if (!w) { /* the scores and weights come from both */
            snprintf(buf, len, _("L%d.Wq or L%d.Wk"), l, l);
            return buf;
        }
        break;
    }
    default: break;
    }
    if (!w) /* a later layer's input is the layer before's output */
        snprintf(buf, len, "L%d.Wo", l - 1);
    else if (strcmp(w, "E") == 0)
        snprintf(buf, len, "E");
    else
        snprintf(buf, len, "L%d.%s", l, w);
    return buf;
}

/* A matrix name at lx->p into *r: a parameter (target) or any matrix. */
static bool model_name(Lex *lx, const Model *m, bool target, ModelRef *r)
{
    lex_skip_ws(lx);
    const char *at = lx->p;
    int n = name_len(at);
    char list[512], q[80];
    if (n == 0)
        return lex_fail(lx, at, N_("expected a matrix of the model (%s), found %s"), param_list(m, list, sizeof list),
                        lex_quote_word(at, q, sizeof q));
    if (!model_lookup(m, at, n, r))
        return lex_fail(lx, at, N_("this model has no matrix %.*s; its parameters are %s"), n, at,
                        param_list(m, list, sizeof list));
    if (target && !model_ref_is_param(*r)) {
        char name[32], ins[32];
        model_ref_name(m, *r, name, sizeof name);
        return lex_fail(lx, at, N_("%s is computed by the model; edit %s instead"), name,
                        edit_instead(m, *r, ins, sizeof ins));
    }
    lx->p += n;
    return true;
}

/* "[k]" with k in 1..max (the rows or columns of what) into *out, 0-based. */
static bool index_in(Lex *lx, int max, const char *what, int *out)
{
    char q[80];
    if (!lex_accept(lx, '['))
        return lex_fail(lx, lx->p, N_("expected \"[\" and a %s number, found %s"), what,
                        lex_quote_word(lx->p, q, sizeof q));
    lex_skip_ws(lx);
    const char *at = lx->p;
    long long v;
    if (!lex_count(lx, &v, N_("expected a whole number from 1 in the brackets, found %s")))
        return false;
    if (v < 1 || v > max)
        return lex_fail(lx, at, N_("%s %lld does not exist: there are %d (1 to %d)"), what, v, max, max);
    if (!lex_accept(lx, ']'))
        return lex_fail(lx, lx->p, N_("expected \"]\", found %s"), lex_quote_word(lx->p, q, sizeof q));
    *out = (int)v - 1;
    return true;
}

/* "[a, b, c]" of exactly want numbers into out->vals. */
static bool number_row(Lex *lx, Action *out, int want)
{
    const char *start = lx->p;
    char q[80];
    out->n = 0;
    if (!lex_accept(lx, ']')) {
        do {
            double v;
            if (out->n >= MAT_MAX)
                return lex_fail(lx, lx->p, N_("a row written out has at most %d numbers; set a longer one cell by "
                                              "cell"), MAT_MAX);
            if (!lex_parse_number(lx, &v))
                return false;
            out->vals[out->n++] = v;
        } while (lex_accept(lx, ','));
        if (!lex_accept(lx, ']'))
            return lex_fail(lx, lx->p, N_("expected \",\" or \"]\" in the row, found %s"),
                            lex_quote_word(lx->p, q, sizeof q));
    }
    if (out->n != want)
        return lex_fail(lx, start, N_("the row has %d numbers; it needs %d"), out->n, want);
    return true;
}

/* The right side of "NAME[i] = ...": a row of numbers or a row copy. */
static bool model_row_rhs(Lex *lx, const Model *m, Action *out, const Mat *dst)
{
    if (lex_accept(lx, '[')) {
        out->kind = ACT_ROW_SET;
        return number_row(lx, out, dst->cols) && lex_expect_end(lx, END_PLAIN);
    }
    out->kind = ACT_ROW_COPY;
    out->c = 1;
    const char *at = lx->p;
    if (!model_name(lx, m, false, &out->msrc))
        return false;
    const Mat *src = model_mat(m, out->msrc);
    if (!index_in(lx, src->rows, _("row"), &out->src_i))
        return false;
    if (src->cols != dst->cols) {
        char a[32], b[32];
        model_ref_name(m, out->msrc, a, sizeof a);
        model_ref_name(m, out->mref, b, sizeof b);
        return lex_fail(lx, at, N_("%s has rows of %d numbers, %s of %d: they do not fit"), a, src->cols, b,
                        dst->cols);
    }
    if (lex_accept(lx, '*') && !lex_parse_number(lx, &out->c))
        return false;
    return lex_expect_end(lx, END_ROW_COPY);
}

/* "NAME[i][j] = c", "NAME[i] = [...]", "NAME[i] = NAME2[k] * c". */
static bool model_assign(Lex *lx, const Model *m, Action *out)
{
    if (!model_name(lx, m, true, &out->mref))
        return false;
    const Mat *x = model_mat(m, out->mref);
    char q[80];
    out->j = -1;
    if (!index_in(lx, x->rows, _("row"), &out->i))
        return false;
    lex_skip_ws(lx);
    if (*lx->p == '[' && !index_in(lx, x->cols, _("column"), &out->j))
        return false;
    if (!lex_accept(lx, '='))
        return lex_fail(lx, lx->p, N_("expected \"=\", found %s"), lex_quote_word(lx->p, q, sizeof q));
    if (out->j < 0)
        return model_row_rhs(lx, m, out, x);
    out->kind = ACT_CELL_SET;
    return lex_parse_number(lx, &out->c) && lex_expect_end(lx, END_PLAIN);
}

/* The nearest vocab entries, quoted: "\"C\"" or "\"C\" or \"D\"" (diag_join_or). */
static void near_list(const LessonModel *lm, const char *w, int n, char *buf, size_t len)
{
    const char *near[3], *qs[3];
    char q[3][VOCAB_NAME_BYTES + 3];
    int k = lmodel_vocab_near(lm, w, n, near, 3);
    for (int i = 0; i < k; i++) {
        snprintf(q[i], sizeof q[i], "\"%s\"", near[i]);
        qs[i] = q[i];
    }
    diag_join_or(qs, k, buf, len);
}

/* "tokens = A B C": entries of the vocab, separated by spaces (or commas,
 * in brackets or not). */
static bool parse_tokens(Lex *lx, const Model *m, const LessonModel *lm, Action *out)
{
    out->kind = ACT_M_TOKENS;
    out->lm = lm;
    if (!lex_accept(lx, '='))
        return lex_fail(lx, lx->p, N_("expected \"=\" after tokens, like tokens = %s %s"), lm->vocab[0],
                        lm->vocab[lm->nvocab > 1 ? 1 : 0]);
    bool bracket = lex_accept(lx, '[');
    int max = maction_max_tokens(m);
    for (;;) {
        while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == ',')
            lx->p++;
        if (*lx->p == '\0' || (bracket && *lx->p == ']'))
            break;
        const char *w = lx->p;
        while (*lx->p && *lx->p != ' ' && *lx->p != '\t' && *lx->p != ',' && !(bracket && *lx->p == ']'))
            lx->p++;
        int n = (int)(lx->p - w), id = lmodel_vocab_index(lm, w, n);
        if (id < 0) {
            char near[200];
            near_list(lm, w, n, near, sizeof near);
            return lex_fail(lx, w, N_("\"%.*s\" is not in the vocab; did you mean %s?"), n, w, near);
        }
        if (out->n >= max)
            return lex_fail(lx, w, N_("the model reads at most %d tokens (ctx); this is token %d"), max, out->n + 1);
        out->vals[out->n++] = id;
    }
    if (bracket && !lex_accept(lx, ']'))
        return lex_fail(lx, lx->p, N_("expected \"]\" after the tokens"));
    if (out->n == 0)
        return lex_fail(lx, lx->p, N_("tokens = needs 1 to %d entries of the vocab, like tokens = %s %s"), max,
                        lm->vocab[0], lm->vocab[lm->nvocab > 1 ? 1 : 0]);
    return lex_expect_end(lx, END_PLAIN);
}

/* "generate", "generate N" (1..ctx) and "step", "step N" (1..TRAIN_STEPS_MAX). */
static bool parse_count(Lex *lx, Action *out, ActKind kind, long max, const char *msg)
{
    out->kind = kind;
    out->n = out->opt = 1;
    lex_skip_ws(lx);
    if (*lx->p == '\0')
        return true;
    const char *at = lx->p;
    long long v;
    char q[80];
    if (!lex_count(lx, &v, msg))
        return false;
    if (v < 1 || v > max)
        return lex_fail(lx, at, msg, lex_quote_word(at, q, sizeof q));
    out->n = out->opt = (int)v;
    return lex_expect_end(lx, END_PLAIN);
}

/* "ablate L1.H2", "restore L1.H2" (with one layer "H2" too). */
static bool parse_head(Lex *lx, const Model *m, Action *out, ActKind kind)
{
    out->kind = kind;
    lex_skip_ws(lx);
    const char *at = lx->p, *p = at;
    int l = 0, h = 0;
    char q[80];
    if (p[0] == 'L' && isdigit((unsigned char)p[1])) {
        for (p++; isdigit((unsigned char)*p) && l < 100; p++)
            l = l * 10 + (*p - '0');
        if (*p++ != '.')
            l = -1;
    } else if (m->cfg.layers == 1) {
        l = 1;
    }
    if (l >= 0 && *p == 'H' && isdigit((unsigned char)p[1]))
        for (p++; isdigit((unsigned char)*p) && h < 100; p++)
            h = h * 10 + (*p - '0');
    if (l < 1 || l > m->cfg.layers || h < 1 || h > m->cfg.heads || isalnum((unsigned char)*p))
        return lex_fail(lx, at, N_("expected a head L1.H1 to L%d.H%d, found %s"), m->cfg.layers, m->cfg.heads,
                        lex_quote_word(at, q, sizeof q));
    lx->p = p;
    out->i = l;
    out->head = h;
    return lex_expect_end(lx, END_PLAIN);
}

/* An option of the attention (every layer's): mask, scale, softmax,
 * temperature, block; parsed by the one-layer language. */
static bool parse_option(Lex *lx, const char *text, const char *w, int n, Action *out)
{
    if (!action_parse(text, out, lx->err, lx->errlen, lx->errcol))
        return false;
    if (out->kind == ACT_SCALE || out->kind == ACT_SOFTMAX || out->kind == ACT_MASK || out->kind == ACT_TEMP ||
        out->kind == ACT_BLOCK)
        return true;
    return lex_fail(lx, w, N_("%.*s is part of the model's shape (its model: section), not an action of a model "
                              "lesson"), n, w);
}

bool maction_parse(const char *text, const Model *m, const LessonModel *lm, Action *out, char *err, size_t errlen,
                   int *errcol)
{
    Lex lx = {text, text, err, errlen, errcol, NULL};
    memset(out, 0, sizeof *out);
    const char *w;
    int n = lex_word(&lx, &w);
    const char *after = lx.p;
    lex_skip_ws(&lx);
    bool word_only = *lx.p != '[' && *lx.p != '.';
    lx.p = after;
#define IS(s) (word_only && n == (int)strlen(s) && strncmp(w, s, (size_t)n) == 0)
    if (IS("reset")) {
        out->kind = ACT_RESET;
        return lex_expect_end(&lx, END_PLAIN);
    }
    if (IS("tokens") && lm)
        return parse_tokens(&lx, m, lm, out);
    if (IS("generate"))
        return parse_count(&lx, out, ACT_M_GENERATE, maction_max_tokens(m),
                           N_("generate takes how many tokens to append, from 1 to the context, like generate 3; "
                              "found %s"));
    if (IS("ablate") || IS("restore"))
        return parse_head(&lx, m, out, w[0] == 'a' ? ACT_M_ABLATE : ACT_M_RESTORE);
    if (IS("step")) {
        if (!lm || !lm->train.given)
            return lex_fail(&lx, w, N_("step trains the model, and this lesson has no train: section to train on"));
        return parse_count(&lx, out, ACT_STEP, TRAIN_STEPS_MAX,
                           N_("step takes a whole number of training steps from 1 to 100000, like step 10; found "
                              "%s"));
    }
    const OptRow *opt = word_only ? option_by_word(w, n) : NULL;
    if (opt && (opt->flags & OF_ACTION))
        return parse_option(&lx, text, w, n, out);
#undef IS
    if (n == 0 && *lx.p == '\0')
        return lex_fail(&lx, lx.p, N_("empty action, expected e.g. tokens = ..., generate 3, ablate L1.H1 or "
                                      "L1.Wq[1][2] = 0.5"));
    ModelRef r;
    if (n > 0 && word_only && !model_lookup(m, w, n, &r))
        return lex_fail(&lx, w, N_("unknown action \"%.*s\"; the actions are tokens = ..., generate N, ablate L1.H1, "
                                   "restore L1.H1, L1.Wq[i][j] = c, E[i] = [...], mask =, scale =, softmax =, "
                                   "temperature =, block =, step N, reset"), n, w);
    lx.p = text;
    return model_assign(&lx, m, out);
}

int maction_max_tokens(const Model *m)
{
    return m->cfg.positions == MPOS_LEARNED ? m->cfg.ctx - m->cfg.offset : m->cfg.ctx;
}
