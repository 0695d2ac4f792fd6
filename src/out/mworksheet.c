/* mworksheet.c - a model lesson's worksheet parts (mworksheet.h). */
#include "mworksheet.h"

#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "core/model_explain.h"
#include "lesson/lmodel.h"
#include "mdtable.h"
#include "modeldump.h"
#include "text/i18n.h"
#include "words/fmt.h"
#include "words/fmtmodel.h"

#define BLANK "______"

enum { LAB_TOK, LAB_NUM, LAB_VOCAB };

typedef struct {
    const Lesson *l;
    const Model *m;
    bool ascii;
} Ctx;

static const char *vocab_name(const Lesson *l, int v)
{
    return v >= 0 && v < l->model->nvocab ? l->model->vocab[v] : "?";
}

static void label(const Ctx *c, Table *t, int r, int col, int kind, int k)
{
    char buf[80];
    if (kind == LAB_VOCAB) {
        tab_set(t, r, col, vocab_name(c->l, k), true, c->ascii);
        return;
    }
    if (kind == LAB_TOK) {
        snprintf(buf, sizeof buf, "%d %s", k + 1, k < c->m->n ? vocab_name(c->l, c->m->tok[k]) : "?");
        tab_set(t, r, col, buf, true, c->ascii);
        return;
    }
    snprintf(buf, sizeof buf, "%d", k + 1);
    tab_set(t, r, col, buf, false, c->ascii);
}

/* "**name** · what", then the cells rows x cols of x as tables of at most
 * MWS_COLS numbers each (the header: name, then each column's label). */
static bool put_sub(FILE *out, const Ctx *c, ModelRef r, const char *what, const int *rows, int nr, int rlab,
                    const int *cols, int nc, int clab)
{
    const Mat *x = model_mat(c->m, r);
    if (!x || !x->v || nr <= 0 || nc <= 0)
        return true;
    char name[48], v[64];
    model_ref_name(c->m, r, name, sizeof name);
    FmtOpt fo = {c->l->digits + MWS_EXTRA, c->ascii, false};
    fprintf(out, "**%s** · ", name);
    bool ok = put_md(out, what, c->ascii);
    fputs("\n\n", out);
    for (int c0 = 0; ok && c0 < nc; c0 += MWS_COLS) {
        int w = nc - c0 < MWS_COLS ? nc - c0 : MWS_COLS;
        Table t;
        if (!(ok = tab_new(&t, nr + 1, w + 1)))
            break;
        tab_set(&t, 0, 0, name, false, c->ascii);
        for (int k = 0; k < w; k++) {
            label(c, &t, 0, k + 1, clab, cols[c0 + k]);
            t.right[k + 1] = true;
        }
        for (int i = 0; i < nr; i++) {
            label(c, &t, i + 1, 0, rlab, rows[i]);
            for (int k = 0; k < w; k++)
                tab_set(&t, i + 1, k + 1, fmt_num(MAT_AT(x, rows[i], cols[c0 + k]), &fo, v, sizeof v), false,
                        c->ascii);
        }
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
        tab_free(&t);
    }
    return ok;
}

static ModelRef mref(ModelMatKind k, int layer)
{
    return (ModelRef){k, layer, M_X};
}

static ModelRef aref(int layer, MatId id)
{
    return (ModelRef){MM_ATTN, layer, id};
}

static int span(int *out, int from, int n)
{
    for (int k = 0; k < n; k++)
        out[k] = from + k;
    return n;
}

/* A row vector's cells (gains, biases): all of them, or the asked columns. */
static bool put_vec(FILE *out, const Ctx *c, ModelRef r, const char *what, const int *cols, int nc)
{
    static const int zero[1] = {0};
    const Mat *x = model_mat(c->m, r);
    return !x || !x->v || put_sub(out, c, r, what, zero, 1, LAB_NUM, cols, nc, LAB_NUM);
}

/* Norm k's gain and bias (layer l, or 0 for Norm_f), when the norm has them. */
static bool put_gains(FILE *out, const Ctx *c, int layer, int which, const int *cols, int nc)
{
    NormKind nk = c->m->cfg.norm;
    if (nk == NORM_NONE)
        return true;
    ModelMatKind g = which == 1 ? MM_G1 : which == 2 ? MM_G2 : MM_GF;
    ModelMatKind b = which == 1 ? MM_BETA1 : which == 2 ? MM_BETA2 : MM_BETAF;
    bool ok = put_vec(out, c, mref(g, layer), _("the norm's gain g"), cols, nc);
    if (ok && nk == NORM_LAYER)
        ok = put_vec(out, c, mref(b, layer), _("the norm's bias β"), cols, nc);
    return ok;
}

/* Head hd's (1-based) Q row i and the K (and V) rows query i sees. */
static bool put_head(FILE *out, const Ctx *c, int layer, int hd, int i, bool with_v)
{
    const Attn *a = &c->m->layer[layer - 1].att;
    int rows[MODEL_CTX_MAX], cols[MAT_MAX], lo, hi;
    attn_visible(a, i, &lo, &hi);
    int nq = span(cols, 0, attn_d_k(a));
    bool ok = put_sub(out, c, aref(layer, attn_shown(a, M_Q, hd)), _("the query row"), &i, 1, LAB_TOK, cols, nq,
                      LAB_NUM);
    int nr = span(rows, lo, hi - lo);
    ok = ok && put_sub(out, c, aref(layer, attn_shown(a, M_K, hd)), _("the keys this query sees (the mask)"), rows,
                       nr, LAB_TOK, cols, nq, LAB_NUM);
    if (ok && with_v)
        ok = put_sub(out, c, aref(layer, attn_shown(a, M_V, hd)), _("their values"), rows, nr, LAB_TOK, cols,
                     span(cols, 0, attn_d_v(a)), LAB_NUM);
    return ok;
}

/* L1.h_in: E's row of the token and P's of the position; later layers' h_in: the h before. */
static bool needs_embed(FILE *out, const Ctx *c, const Ask *q, const int *J, int nj)
{
    int L = q->mref.layer, i = q->i, t = c->m->tok[i], p = i + c->m->cfg.offset;
    if (L > 1)
        return put_sub(out, c, mref(MM_H, L - 1), _("the stream after the layer before"), &i, 1, LAB_TOK, J, nj,
                       LAB_NUM);
    return put_sub(out, c, mref(MM_E, 0), _("the embedding row of the token"), &t, 1, LAB_VOCAB, J, nj, LAB_NUM) &&
           (c->m->cfg.positions != MPOS_LEARNED ||
            put_sub(out, c, mref(MM_P, 0), _("the row of its position (row 1 is position 0)"), &p, 1, LAB_NUM, J, nj,
                    LAB_NUM));
}

/* An attention result's needs (Q K V: a's row and W's columns; QKt S A O:
 * the head's query and the keys, values it sees; Y: O's row, Wo's columns). */
static bool needs_attn(FILE *out, const Ctx *c, const Ask *q, const int *J, int nj)
{
    int L = q->mref.layer, i = q->i, D[MODEL_D_MAX], nd = span(D, 0, c->m->cfg.d_model);
    const Attn *a = &c->m->layer[L - 1].att;
    MatId base = attn_mat_base(q->mref.attn);
    int hd = attn_mat_head(q->mref.attn);
    bool ok = true;
    if (base == M_Q || base == M_K || base == M_V) {
        MatId w = base == M_Q ? M_WQ : base == M_K ? M_WK : M_WV;
        int off = 0, per = base == M_V ? attn_d_v(a) : attn_d_k(a), W[MAT_MAX];
        if (hd > 0)
            off = (base == M_Q ? hd - 1 : attn_kv_head(a, hd) - 1) * per;
        int nw = 0;
        for (int k = 0; k < nj; k++) { /* with RoPE a column of Q or K needs its pair's too */
            bool pair = c->m->cfg.positions == MPOS_ROPE && base != M_V;
            int lo = pair ? (off + J[k]) & ~1 : off + J[k], hi = pair ? lo + 1 : lo;
            for (int col = lo; col <= hi; col++)
                if (nw == 0 || W[nw - 1] < col)
                    W[nw++] = col;
        }
        nj = nw;
        return put_sub(out, c, mref(MM_A, L), _("the normed stream row"), &i, 1, LAB_TOK, D, nd, LAB_NUM) &&
               put_sub(out, c, aref(L, w), _("the columns of the weights"), D, nd, LAB_NUM, W, nj, LAB_NUM);
    }
    if (base == M_QKT || base == M_S || base == M_A || base == M_O) {
        bool all = hd == 0 && base == M_O && attn_heads(a) > 1;
        int from = all ? 1 : hd > 0 ? hd : 1, to = all ? attn_heads(a) : from;
        for (int k = from; ok && k <= to; k++)
            ok = put_head(out, c, L, k, i, base == M_O);
        return ok;
    }
    if (base == M_Y) {
        int on = span(D, 0, a->m[M_O].cols);
        return put_sub(out, c, aref(L, M_O), _("the heads' outputs side by side"), &i, 1, LAB_TOK, D, on, LAB_NUM) &&
               put_sub(out, c, aref(L, M_WO), _("the columns of W_O"), D, on, LAB_NUM, J, nj, LAB_NUM);
    }
    return true;
}

/* h_mid (and h without a feed-forward): h_in's row, O's row, Wo's columns;
 * h after a feed-forward: h_mid's row, f's row, W2's columns, b2. */
static bool needs_resid(FILE *out, const Ctx *c, const Ask *q, const int *J, int nj)
{
    int L = q->mref.layer, i = q->i, D[MODEL_D_MAX];
    if (q->mref.kind == MM_H && c->m->cfg.d_ff > 0) {
        int F[MODEL_D_FF_MAX], nf = span(F, 0, c->m->cfg.d_ff);
        return put_sub(out, c, mref(MM_H_MID, L), _("the stream row before the feed-forward"), &i, 1, LAB_TOK, J, nj,
                       LAB_NUM) &&
               put_sub(out, c, mref(MM_F, L), _("the feed-forward's hidden row"), &i, 1, LAB_TOK, F, nf, LAB_NUM) &&
               put_sub(out, c, mref(MM_W2, L), _("the columns of W2"), F, nf, LAB_NUM, J, nj, LAB_NUM) &&
               put_vec(out, c, mref(MM_B2, L), _("the bias b2"), J, nj);
    }
    int on = span(D, 0, c->m->layer[L - 1].att.m[M_O].cols);
    return put_sub(out, c, mref(MM_H_IN, L), _("the stream row into the layer"), &i, 1, LAB_TOK, J, nj, LAB_NUM) &&
           put_sub(out, c, aref(L, M_O), _("the heads' outputs side by side"), &i, 1, LAB_TOK, D, on, LAB_NUM) &&
           put_sub(out, c, aref(L, M_WO), _("the columns of W_O"), D, on, LAB_NUM, J, nj, LAB_NUM);
}

bool mws_put_needs(FILE *out, const Lesson *l, const Model *m, const Ask *q, bool ascii)
{
    Ctx c = {l, m, ascii};
    ModelRef r = q->mref;
    const Mat *x = model_mat(m, r);
    if (!x)
        return true;
    int L = r.layer, i = q->i, J[MODEL_VOCAB_MAX + MODEL_D_FF_MAX], D[MODEL_D_MAX], nd = span(D, 0, m->cfg.d_model);
    int nj = q->j >= 0 ? (J[0] = q->j, 1) : span(J, 0, x->cols);
    fprintf(out, "%s\n\n", _("This question needs (from the state at its step):"));
    bool ok = true;
    switch (r.kind) {
    case MM_H_IN:
        ok = needs_embed(out, &c, q, J, nj);
        break;
    case MM_A:
        ok = put_sub(out, &c, mref(MM_H_IN, L), _("the stream row"), &i, 1, LAB_TOK, D, nd, LAB_NUM) &&
             put_gains(out, &c, L, 1, J, nj);
        break;
    case MM_B:
        ok = put_sub(out, &c, mref(MM_H_MID, L), _("the stream row"), &i, 1, LAB_TOK, D, nd, LAB_NUM) &&
             put_gains(out, &c, L, 2, J, nj);
        break;
    case MM_H_FINAL:
        ok = put_sub(out, &c, mref(MM_H, m->cfg.layers), _("the stream row after the last layer"), &i, 1, LAB_TOK, D,
                     nd, LAB_NUM) &&
             put_gains(out, &c, 0, 0, J, nj);
        break;
    case MM_ATTN:
        ok = needs_attn(out, &c, q, J, nj);
        break;
    case MM_H_MID:
    case MM_H:
        ok = needs_resid(out, &c, q, J, nj);
        break;
    case MM_U:
    case MM_F:
        ok = put_sub(out, &c, mref(MM_B, L), _("the normed stream row"), &i, 1, LAB_TOK, D, nd, LAB_NUM) &&
             put_sub(out, &c, mref(MM_W1, L), _("the columns of W1"), D, nd, LAB_NUM, J, nj, LAB_NUM) &&
             put_vec(out, &c, mref(MM_B1, L), _("the bias b1"), J, nj);
        break;
    case MM_LOGITS:
        ok = put_sub(out, &c, mref(MM_H_FINAL, 0), _("the final stream row"), &i, 1, LAB_TOK, D, nd, LAB_NUM);
        if (ok && m->cfg.unembed == UNEMBED_TIED)
            ok = put_sub(out, &c, mref(MM_E, 0), _("the rows of E (tied: W_U = Eᵀ)"), J, nj, LAB_VOCAB, D, nd,
                         LAB_NUM);
        else if (ok)
            ok = put_sub(out, &c, mref(MM_WU, 0), _("the columns of W_U"), D, nd, LAB_NUM, J, nj, LAB_VOCAB);
        break;
    case MM_PROBS: {
        int V[MODEL_VOCAB_MAX], nv = span(V, 0, m->cfg.vocab);
        ok = put_sub(out, &c, mref(MM_LOGITS, 0), _("the logits row (p is a softmax over all of it)"), &i, 1,
                     LAB_TOK, V, nv, LAB_VOCAB);
        break;
    }
    default:
        break;
    }
    return ok;
}

bool mws_put_blank(FILE *out, const Lesson *l, const Model *m, const Ask *q, bool ascii)
{
    Ctx c = {l, m, ascii};
    const Mat *x = model_mat(m, q->mref);
    if (!x)
        return true;
    char name[48];
    model_ref_name(m, q->mref, name, sizeof name);
    bool vocab_cols = q->mref.kind == MM_LOGITS || q->mref.kind == MM_PROBS;
    MatId base = q->mref.kind == MM_ATTN ? attn_mat_base(q->mref.attn) : M_COUNT;
    int clab = vocab_cols ? LAB_VOCAB : base == M_S || base == M_QKT || base == M_A ? LAB_TOK : LAB_NUM;
    int first = q->j >= 0 ? q->j : 0, n = ask_cells_model(q, m);
    bool ok = true;
    for (int c0 = 0; ok && c0 < n; c0 += MWS_COLS) {
        int w = n - c0 < MWS_COLS ? n - c0 : MWS_COLS;
        Table t;
        if (!(ok = tab_new(&t, 2, w + 1)))
            break;
        tab_set(&t, 0, 0, name, false, ascii);
        label(&c, &t, 1, 0, LAB_TOK, q->i);
        for (int k = 0; k < w; k++) {
            label(&c, &t, 0, k + 1, clab, first + c0 + k);
            t.right[k + 1] = true;
            tab_set(&t, 1, k + 1, BLANK, false, ascii);
        }
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
        tab_free(&t);
    }
    return ok;
}

void mws_put_arithmetic(FILE *out, const Lesson *l, const Model *m, const Ask *q, const FmtOpt *fo)
{
    static char lines[FMT_MAX_LINES][FMT_LINE], prev[FMT_MAX_LINES][FMT_LINE];
    int first = q->j >= 0 ? q->j : 0, cells = ask_cells_model(q, m), nprev = 0;
    ModelExplain *e = malloc(sizeof *e);
    fputs("```text\n", out);
    for (int k = 0; e && k < cells; k++) {
        int n = 0;
        if (q->mref.kind == MM_ATTN) {
            Explain ae;
            if (explain_cell(&m->layer[q->mref.layer - 1].att, q->mref.attn, q->i, first + k, &ae))
                n = fmt_explain(&ae, fo, lines, FMT_MAX_LINES);
        } else if (model_explain(m, q->mref, q->i, first + k, e)) {
            n = fmt_model_explain(m, e, (const char *const *)l->model->vocab, fo, lines, FMT_MAX_LINES);
        }
        for (int a = 0; a < n; a++) {
            bool seen = false;
            for (int p = 0; p < nprev && !seen; p++)
                seen = strcmp(lines[a], prev[p]) == 0;
            if (!seen)
                fprintf(out, "%s\n", lines[a]);
        }
        memcpy(prev, lines, sizeof lines);
        nprev = n;
    }
    free(e);
    fputs("```\n\n", out);
}

bool mws_default_ask(const Lesson *l, const Model *m, int step, Ask *out)
{
    const Step *st = &l->steps[step];
    int L = st->stage == MSTAGE_NEXT ? m->cfg.layers : st->layer < 1 ? 1 : st->layer;
    const Attn *a = &m->layer[L - 1].att;
    ModelRef r;
    switch (st->stage) {
    case MSTAGE_EMBED: r = mref(MM_A, L); break;
    case MSTAGE_QKV: r = aref(L, attn_shown(a, M_Q, 1)); break;
    case MSTAGE_SCORES: r = aref(L, attn_shown(a, M_S, 1)); break;
    case MSTAGE_SOFTMAX: r = aref(L, attn_shown(a, M_A, 1)); break;
    case MSTAGE_OUTPUT: r = aref(L, attn_shown(a, M_O, 1)); break;
    case MSTAGE_PROJECT: r = mref(MM_H_MID, L); break;
    case MSTAGE_FFN: r = mref(m->cfg.d_ff > 0 ? MM_H : MM_H_MID, L); break;
    case MSTAGE_NEXT: r = mref(MM_PROBS, 0); break;
    default: return false;
    }
    *out = (Ask){M_X, m->n - 1, 0, st->line, 0, r};
    if (st->stage == MSTAGE_NEXT)
        out->j = model_predict(m);
    return true;
}

void mws_stage_heading(FILE *out, const Lesson *l, int step, int num)
{
    const Step *st = &l->steps[step];
    int layers = l->model->cfg.layers, L = st->stage == MSTAGE_NEXT ? layers : st->layer < 1 ? 1 : st->layer;
    fprintf(out, _("%d · layer %d/%d · stage %d: %s"), num, L, layers, st->stage, render_model_stage_title(st->stage));
}

/* ---- the givens ------------------------------------------------------------------ */

/* A numbered list as a table on its side, 12 entries a table: "| # | 1 | 2 |
 * ..." then "| token | A | B | ..." (a vocab of 27 takes 3 short tables). */
#define LIST_COLS 12
static bool put_list(FILE *out, const Ctx *c, const char *head, int n, const int *idx, bool ascii)
{
    char buf[16];
    bool ok = true;
    for (int c0 = 0; ok && c0 < n; c0 += LIST_COLS) {
        int w = n - c0 < LIST_COLS ? n - c0 : LIST_COLS;
        Table t;
        if (!tab_new(&t, 2, w + 1))
            return false;
        tab_set(&t, 0, 0, "#", false, ascii);
        tab_set(&t, 1, 0, head, false, ascii);
        for (int k = 0; k < w; k++) {
            snprintf(buf, sizeof buf, "%d", c0 + k + 1);
            tab_set(&t, 0, k + 1, buf, false, ascii);
            tab_set(&t, 1, k + 1, vocab_name(c->l, idx ? idx[c0 + k] : c0 + k), true, ascii);
        }
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
        tab_free(&t);
    }
    return ok;
}

/* The attention options of layer l as the options table writes them. */
static void mask_text(const ModelAttnOpts *a, char *buf, size_t len)
{
    if (a->mask == MASK_CAUSAL)
        snprintf(buf, len, "%s", _("causal: row i sees keys 1..i"));
    else if (a->mask == MASK_WINDOW)
        snprintf(buf, len, _("window %d: row i sees the %d keys up to i"), a->window, a->window);
    else
        snprintf(buf, len, "%s", _("none: every query sees every key"));
}

/* Where the weights come from: the numpy draw in full, or the file (malloc'd). */
static char *weights_text(const Lesson *l, const Model *base, bool ascii)
{
    const LessonModel *lm = l->model;
    char v[64], v2[64], *para = malloc(6000);
    if (!para)
        return NULL;
    if (lm->wsrc == WSRC_RANDOM) {
        /* every parameter drawn, in order, with its shape */
        char list[4096] = "";
        size_t k = 0;
        ModelRef p[MODEL_PARAMS_MAX];
        int np = model_params(base, p, MODEL_PARAMS_MAX);
        for (int a = 0; a < np; a++) {
            ModelMatKind kd = p[a].kind;
            if (kd != MM_E && kd != MM_P && kd != MM_WU && kd != MM_W1 && kd != MM_W2 &&
                !(kd == MM_ATTN && (p[a].attn == M_WQ || p[a].attn == M_WK || p[a].attn == M_WV || p[a].attn == M_WO)))
                continue;
            const Mat *x = model_mat(base, p[a]);
            char nm[48];
            model_ref_name(base, p[a], nm, sizeof nm);
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s %d%s%d", k ? ", " : "", nm, x->rows,
                                  ascii ? "x" : "×", x->cols);
            if (k >= sizeof list)
                break;
        }
        fmt_exact(lm->wscale, v, sizeof v);
        fmt_exact(lm->wembed_scale, v2, sizeof v2);
        snprintf(para, 6000, _("The weights are parameters (learned in training, fixed at inference), drawn like numpy: "
                       "np.random.seed(%lu), then randn(rows, columns) × %s for each of %s, in that order (E and P "
                       "× %s); gains g are 1, biases b and β are 0."),
                lm->wseed, v, list, v2);
    } else {
        snprintf(para, 6000, _("The weights were trained and are read from %s; each question gives the numbers "
                                      "it needs."), lm->wfile ? lm->wfile : "?");
    }
    return para;
}

/* The positions row: the word and how h is made. */
static const char *positions_text(ModelPos pos)
{
    if (pos == MPOS_LEARNED)
        return _("learned: h = E[token] + P[position], positions from 0");
    if (pos == MPOS_SINUSOIDAL)
        return _("sinusoidal: h = E[token] + P, P[p][2m] = sin(p ÷ 10000^(2m ÷ d_model)), P[p][2m+1] = cos(the same)");
    if (pos == MPOS_ROPE)
        return _("rope: h = E[token]; in each head the pairs of columns (2m+1, 2m+2) of Q and K are turned by the "
                 "angle p·rope_base^(−2m ÷ d_k), p = offset + the row's index from 0");
    return _("none: h = E[token]");
}

/* The model table's rows: each setting, its value and the formula that uses it. */
static int settings_rows(const Lesson *l, const Model *base, const char **name, char (*val)[320])
{
    const ModelCfg *g = &base->cfg;
    int n = 0;
    char v[64];
#define ROW(nm, ...) (name[n] = (nm), snprintf(val[n], sizeof val[n], __VA_ARGS__), n++)
    ROW("n", "%d", base->n);
    ROW("vocab", "%d", g->vocab);
    ROW("layers", "%d", g->layers);
    ROW("d_model", "%d", g->d_model);
    ROW("heads", "%d", g->heads);
    if (model_kv_heads(g) != g->heads)
        ROW("kv_heads", _("%d: query head k reads K/V head ⌊(k − 1)·%d ÷ %d⌋ + 1"), model_kv_heads(g),
            model_kv_heads(g), g->heads);
    ROW("d_k", _("%d per head"), model_d_k(g));
    ROW("d_v", _("%d per head"), model_d_v(g));
    ROW("d_ff", g->d_ff ? "%d" : _("%d: no feed-forward"), g->d_ff);
    if (g->d_ff > 0)
        ROW("act", "%s", g->act == ACT_GELU ? _("gelu: x·Φ(x), Φ(x) = (1 + erf(x ÷ √2)) ÷ 2") : _("relu: max(0, x)"));
    ROW("norm", "%s",
        g->norm == NORM_LAYER ? _("layernorm: (x − μ) ÷ √(σ² + eps) · g + β, μ and σ² the row's mean and variance "
                                  "(÷ d_model)")
        : g->norm == NORM_RMS ? _("rmsnorm: x ÷ √(mean of x² + eps) · g")
                              : _("none: a = h, b = h, h_final = h"));
    if (g->norm != NORM_NONE)
        ROW("eps", "%s", fmt_exact(g->eps, v, sizeof v));
    ROW("positions", "%s", positions_text(g->positions));
    if (g->offset)
        ROW("offset", _("%d: the first token's position"), g->offset);
    if (g->positions == MPOS_ROPE)
        ROW("rope_base", "%s", fmt_exact(g->rope_base, v, sizeof v));
    ROW("unembed", "%s", g->unembed == UNEMBED_TIED ? _("tied: logits = h_final·Eᵀ") : _("separate: logits = h_final·WU"));
    bool same = true;
    for (int k = 1; k < g->layers; k++)
        same = same && memcmp(&g->attn[k], &g->attn[0], sizeof g->attn[0]) == 0;
    for (int k = 0; k < (same ? 1 : g->layers); k++) {
        static char nm[MODEL_LAYERS_MAX][3][16];
        const ModelAttnOpts *a = &g->attn[k];
        snprintf(nm[k][0], sizeof nm[k][0], same ? "scale" : "L%d.scale", k + 1);
        snprintf(nm[k][1], sizeof nm[k][1], same ? "mask" : "L%d.mask", k + 1);
        snprintf(nm[k][2], sizeof nm[k][2], same ? "temperature" : "L%d.temperature", k + 1);
        ROW(nm[k][0], "%s", a->scale == SCALE_SQRT_DK ? _("sqrt_dk: S = Q·Kᵀ ÷ √d_k") : _("none: S = Q·Kᵀ"));
        mask_text(a, val[n], sizeof val[n]);
        name[n++] = nm[k][1];
        ROW(nm[k][2], _("%s: A = softmax(S ÷ T)"), fmt_exact(a->temp, v, sizeof v));
    }
    ROW("T_s", _("%s: p = softmax(logits ÷ T_s) over the vocab"), fmt_exact(g->sample_temp, v, sizeof v));
    if (g->sample)
        ROW("next", _("sampled: numpy's RandomState(%lu).choice(vocab, p = the last row of p)"), g->sample_seed);
    else
        ROW("next", "%s", _("greedy: the vocab entry of the largest p in the last row"));
    ROW("digits", _("%d: the decimals shown"), l->digits);
#undef ROW
    return n;
}

bool mws_put_givens(FILE *out, const Lesson *l, const Model *base, bool ascii)
{
    Ctx c = {l, base, ascii};
    const LessonModel *lm = l->model;
    bool ok = true;
    fprintf(out, "## %s\n\n**%s**\n\n", _("Given"), _("Tokens"));
    ok = put_list(out, &c, _("token"), base->n, base->tok, ascii);
    fprintf(out, "**%s**\n\n", _("Vocab"));
    ok = ok && put_list(out, &c, _("entry"), lm->nvocab, NULL, ascii);
    enum { ROWS = 40 };
    const char *name[ROWS];
    static char val[ROWS][320];
    int n = settings_rows(l, base, name, val);
    fprintf(out, "**%s**\n\n", _("Model"));
    Table t;
    if (ok && (ok = tab_new(&t, n + 1, 2))) {
        tab_set(&t, 0, 0, _("option"), false, ascii);
        tab_set(&t, 0, 1, _("value"), false, ascii);
        for (int k = 0; k < n; k++) {
            tab_set(&t, k + 1, 0, name[k], true, ascii);
            tab_set(&t, k + 1, 1, val[k], true, ascii);
        }
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    if (!ok)
        return false;
    ok = put_md(out, _("The model (pre-norm): h = E[token] + P[position]; in each layer a = Norm₁(h), then per head Q = a·Wq, "
            "K = a·Wk, V = a·Wv (head k: its own d_k columns, in order), S = Q·Kᵀ (÷ √d_k when scaled), "
            "A = softmax(S ÷ T) row by row over the keys the mask lets it see, O = A·V; the heads' O side by side "
            "times Wo is Y, and h_mid = h + Y. With d_ff > 0: b = Norm₂(h_mid), f = act(b·W1 + b1), "
            "h = h_mid + f·W2 + b2 (else h = h_mid). After the last layer h_final = Norm_f(h), "
            "logits = h_final·WU, p = softmax(logits ÷ T_s) over the vocab."), ascii);
    fputs("\n\n", out);
    char *para = weights_text(l, base, ascii);
    ok = ok && para && put_md(out, para, ascii);
    free(para);
    fputs("\n\n", out);
    return ok;
}
