/* modeldump.c - --dump of a model lesson (modeldump.h). */
#include "modeldump.h"

#include <stdlib.h>

#include "dumpgrid.h"
#include "lesson/lmodel.h"
#include "modeljson.h"
#include "text/i18n.h"
#include "text/num.h"
#include "words/live.h"

const char *render_model_stage_title(int stage)
{
    static const char *t[] = {"", N_("embed: the stream h, and a = Norm₁(h)"), N_("Q = a·Wq, K = a·Wk, V = a·Wv"),
                              N_("scores S = Q·Kᵀ (÷ √d_k when scaled)"), N_("softmax A, row by row"),
                              N_("output O = A·V"), N_("residual: h = h + O·Wo"),
                              N_("feed-forward: h = h + act(b·W₁ + b₁)·W₂ + b₂, b = Norm₂(h)"),
                              N_("next token: logits = Norm_f(h)·W_U, p = softmax(logits ÷ T)")};
    return stage >= MSTAGE_EMBED && stage <= MSTAGE_NEXT ? _(t[stage]) : "";
}

/* What the matrices of a dump are labelled with: the input's tokens and the vocab. */
typedef struct {
    const char *tok[MODEL_CTX_MAX];
    const char *const *vocab;
    int nvocab;
} Labels;

/* One matrix of model m by reference, labelled: rows by token (results)
 * or vocab entry (E), columns by token (QKt, S, A) or vocab entry (WU,
 * logits, p). */
static void put_ref(FILE *out, const Model *m, ModelRef r, const Labels *lb, const FmtOpt *fo)
{
    const Mat *x = model_mat(m, r);
    if (!x || !x->v)
        return;
    char name[48];
    model_ref_name(m, r, name, sizeof name);
    bool param = model_ref_is_param(r);
    MatId base = r.kind == MM_ATTN ? attn_mat_base(r.attn) : M_COUNT;
    bool by_vocab = r.kind == MM_WU || r.kind == MM_LOGITS || r.kind == MM_PROBS;
    DumpGrid g = {.name = name, .m = x,
                  .role = param ? _("parameter (learned in training, fixed at inference)") : _("result for this input"),
                  .row_tok = r.kind == MM_E ? lb->vocab : !param && x->rows == m->n ? lb->tok : NULL,
                  .col_tok = by_vocab ? lb->vocab : base == M_S || base == M_QKT || base == M_A ? lb->tok : NULL,
                  .ncol_tok = by_vocab ? lb->nvocab : m->n,
                  .masked = base == M_S ? &m->layer[r.layer - 1].att : NULL};
    dump_grid(out, &g, fo);
}

static ModelRef ref(ModelMatKind k, int layer)
{
    return (ModelRef){k, layer, M_X};
}

static ModelRef aref(int layer, MatId id)
{
    return (ModelRef){MM_ATTN, layer, id};
}

/* The references stage `stage` of layer l shows, into r (room for 64); how many. */
static int stage_refs(const Model *m, int l, int stage, ModelRef *r)
{
    const Attn *a = &m->layer[l - 1].att;
    int n = 0, h = attn_heads(a);
    switch (stage) {
    case MSTAGE_EMBED:
        if (l == 1) {
            r[n++] = ref(MM_E, 0);
            if (m->cfg.positions == MPOS_LEARNED)
                r[n++] = ref(MM_P, 0);
        }
        r[n++] = ref(MM_H_IN, l);
        r[n++] = ref(MM_A, l);
        return n;
    case MSTAGE_QKV:
        for (MatId id = M_WQ; id <= M_WV; id++)
            r[n++] = aref(l, id);
        for (MatId id = M_Q; id <= M_V; id++)
            r[n++] = aref(l, id);
        return n;
    case MSTAGE_SCORES:
    case MSTAGE_SOFTMAX:
    case MSTAGE_OUTPUT:
        for (int k = 1; k <= h; k++) {
            if (stage == MSTAGE_SCORES && a->scale == SCALE_SQRT_DK)
                r[n++] = aref(l, attn_shown(a, M_QKT, k));
            r[n++] = aref(l, attn_shown(a, stage == MSTAGE_SCORES ? M_S : stage == MSTAGE_SOFTMAX ? M_A : M_O, k));
        }
        if (stage == MSTAGE_OUTPUT && h > 1)
            r[n++] = aref(l, M_O);
        return n;
    case MSTAGE_PROJECT:
        r[n++] = aref(l, M_O);
        r[n++] = aref(l, M_WO);
        r[n++] = aref(l, M_Y);
        r[n++] = ref(MM_H_MID, l);
        return n;
    case MSTAGE_FFN:
        r[n++] = ref(MM_B, l);
        r[n++] = ref(MM_W1, l);
        r[n++] = ref(MM_F, l);
        r[n++] = ref(MM_W2, l);
        r[n++] = ref(MM_H, l);
        return n;
    default:
        r[n++] = ref(MM_H_FINAL, 0);
        r[n++] = ref(m->cfg.unembed == UNEMBED_TIED ? MM_E : MM_WU, 0);
        r[n++] = ref(MM_LOGITS, 0);
        r[n++] = ref(MM_PROBS, 0);
        return n;
    }
}

/* "  options: causal mask · T = 0.5 · RoPE, base 10000 ..." for layer l's attention. */
static void put_options(FILE *out, const Model *m, int l, bool ascii)
{
    const ModelAttnOpts *a = &m->cfg.attn[l - 1];
    const char *sep = ascii ? " - " : " · ";
    char t[40];
    dump_label(out, _("options:"));
    fputs(a->mask == MASK_CAUSAL ? _("causal mask") : a->mask == MASK_NONE ? _("no mask") : "", out);
    if (a->mask == MASK_WINDOW)
        fprintf(out, _("window of %d"), a->window);
    if (a->temp != 1.0)
        fprintf(out, "%sT = %s", sep, fmt_exact(a->temp, t, sizeof t));
    if (m->cfg.positions == MPOS_ROPE) {
        fputs(sep, out);
        fprintf(out, _("RoPE, base %s"), fmt_exact(m->cfg.rope_base, t, sizeof t));
    }
    if (a->softmax == SOFTMAX_ONLINE) {
        fputs(sep, out);
        fprintf(out, _("online softmax, blocks of %d"), a->block);
    }
    int g = model_kv_heads(&m->cfg), h = m->cfg.heads;
    if (g != h) {
        fputs(sep, out);
        fprintf(out, g == 1 ? _("%d query heads share %d K/V head") : _("%d query heads share %d K/V heads"), h, g);
    }
    fputc('\n', out);
}

/* Room for a row expectation's message naming every wrong cell (render.h's EXPECT_MSG_MAX). */
#define DUMP_EXPECT_MSG 8192

/* The step's expect: checks, each "holds" or why not (as a one-layer lesson's dump). */
static void put_expects(FILE *out, const Lesson *l, const Model *m, const Step *st)
{
    for (int k = 0; k < st->nexpect; k++) {
        static char msg[DUMP_EXPECT_MSG];
        char what[DUMP_EXPECT_MSG / 8];
        dump_label(out, _("expect:"));
        if (expect_check_model(&st->expect[k], m, l->digits, msg, sizeof msg)) {
            expect_describe(&st->expect[k], what, sizeof what);
            fprintf(out, _("%s holds"), what);
            fputc('\n', out);
        } else {
            fprintf(out, "%s\n", msg);
        }
    }
}

/* Step k (0-based): its title line, actions, options, narration, matrices. */
static void put_step(FILE *out, const Lesson *l, const Model *m, int k, const char *say, const FmtOpt *fo)
{
    const Step *st = &l->steps[k];
    int layer = st->stage == MSTAGE_NEXT ? m->cfg.layers : st->layer < 1 ? 1 : st->layer;
    Labels lb = {.vocab = (const char *const *)l->model->vocab, .nvocab = l->model->nvocab};
    for (int i = 0; i < m->n; i++)
        lb.tok[i] = m->tok[i] < lb.nvocab ? lb.vocab[m->tok[i]] : "?";
    fprintf(out, "\n%s %d/%d ", fo->ascii ? "==" : "──", k + 1, l->nsteps);
    fprintf(out, _("· layer %d/%d · stage %d: %s"), layer, m->cfg.layers, st->stage,
            render_model_stage_title(st->stage));
    fprintf(out, " %s\n", fo->ascii ? "==" : "──");
    for (int a = 0; a < st->nact; a++) {
        fputs("  do: ", out);
        dump_text(out, st->act_text[a], fo->ascii);
        fputc('\n', out);
    }
    put_options(out, m, layer, fo->ascii);
    if (say && *say)
        dump_wrapped(out, say, fo->ascii, 76);
    ModelRef r[64];
    int n = stage_refs(m, layer, st->stage, r);
    for (int i = 0; i < n; i++)
        put_ref(out, m, r[i], &lb, fo);
    if (st->stage == MSTAGE_NEXT) {
        int next = model_predict(m);
        char p[64];
        fputc('\n', out);
        dump_label(out, _("next:"));
        dump_text(out, next < lb.nvocab ? lb.vocab[next] : "?", fo->ascii);
        fprintf(out, m->cfg.sample ? _(" (sampled, p = %s)\n") : _(" (the most likely, p = %s)\n"),
                fmt_num(MAT_AT(&m->p, m->n - 1, next), fo, p, sizeof p));
    }
    put_expects(out, l, m, st);
}

/* The file name as messages show it (no raw escape or control bytes). */
static const char *file_shown(const Lesson *l)
{
    static char buf[4096];
    return text_shown(l->file, buf, sizeof buf);
}

bool render_model_dump(FILE *out, const Lesson *l, int at, Lang lang, bool ascii)
{
    const ModelCfg *c = &l->model->base->cfg;
    FmtOpt fo = {l->digits, ascii, false};
    Model *m = calloc(1, sizeof *m); /* 56 KB: on the heap */
    if (!m)
        return false;
    fputs("qkvtutor · ", out);
    dump_text(out, text_get(&l->title, lang), ascii);
    fprintf(out, "\n%s · ", file_shown(l));
    fprintf(out, _("%d tokens, vocab %d, layers %d, d_model %d, heads %d, d_k %d, d_v %d, d_ff %d"),
            l->model->base->n, c->vocab, c->layers, c->d_model, c->heads, model_d_k(c), model_d_v(c), c->d_ff);
    fputc('\n', out);
    const char *about = text_get(&l->about, lang);
    if (about && *about)
        dump_wrapped(out, about, ascii, 76);
    int first = at ? at - 1 : 0, last = at ? at - 1 : l->nsteps - 1;
    Session *s = calloc(1, sizeof *s); /* one walk through the script: step N trains once */
    bool inited = s && session_init(s, l), ok = inited;
    for (int k = first; k <= last && ok; k++) {
        char *say = NULL;
        ok = render_model_walk(s, k) && model_copy(m, session_model(s)) &&
             (say = session_say(s, lang, ascii)) != NULL;
        if (ok)
            put_step(out, l, m, k, say, &fo);
        free(say);
    }
    if (inited)
        session_free(s);
    free(s);
    model_free(m);
    free(m);
    return ok;
}
