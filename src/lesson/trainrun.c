/* trainrun.c - a training run (see trainrun.h). */
#include "trainrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/copytask.h"
#include "core/model_back.h"
#include "text/i18n.h"
#include "text/shortest.h"

static long run_steps(Model *m, Model *g, Optim *o, TrainFeed *f, long steps, TrainStepFn fn, void *arg,
                      TrainResult *r, int *tok, int *len)
{
    for (long s = 1; s <= steps; s++) {
        int nseq = 0;
        double loss = NAN;
        TrainFeed keep = *f;
        if (!train_feed_next(f, tok, len, &nseq)) {
            r->status = TRAIN_BAD_BATCH;
        } else {
            ModelRef bad = {MM_NONE, 0, 0};
            r->status = model_train_step(m, g, o, tok, len, nseq, &loss, &bad);
            r->bad = bad;
        }
        if (r->status != TRAIN_OK) {
            *f = keep; /* the failed step took no batch either */
            r->bad_step = s;
            return s - 1;
        }
        r->steps = s;
        r->loss = loss;
        if (s == 1)
            r->first_loss = loss;
        if (fn && !fn(s, loss, arg)) {
            r->stopped = true;
            return s;
        }
    }
    return steps;
}

long train_run(Model *m, Optim *o, TrainFeed *f, long steps, TrainStepFn fn, void *arg, TrainResult *r)
{
    *r = (TrainResult){.loss = NAN, .first_loss = NAN, .status = TRAIN_OK, .bad = {MM_NONE, 0, 0}};
    if (steps <= 0)
        return 0;
    int n = m->n, saved[MODEL_CTX_MAX];
    memcpy(saved, m->tok, sizeof saved);
    int batch = f->spec ? f->spec->batch : 0;
    if (batch < 1 || batch > TRAIN_BATCH_MAX) {
        r->status = TRAIN_BAD_BATCH;
        r->bad_step = 1;
        return 0;
    }
    Model *g = calloc(1, sizeof *g);
    int *tok = malloc(sizeof *tok * (size_t)batch * MODEL_CTX_MAX);
    int *len = malloc(sizeof *len * (size_t)batch);
    if (!g || !tok || !len || !model_grad_init(g, m)) {
        r->status = TRAIN_NOMEM;
        r->bad_step = 1;
    } else {
        (void)run_steps(m, g, o, f, steps, fn, arg, r, tok, len);
        model_free(g);
    }
    free(g);
    free(tok);
    free(len);
    if (!model_set_tokens(m, saved, n))
        m->at_layer = m->at_stage = 0; /* same shapes as before: cannot fail but for memory */
    return r->steps;
}

void train_result_message(const Model *m, const TrainResult *r, double lr, char *buf, size_t len)
{
    char name[64] = "?", lrs[SHORTEST_MAX];
    if (r->bad.kind != MM_NONE)
        (void)model_ref_name(m, r->bad, name, sizeof name);
    (void)shortest_print(lr, lrs);
    switch (r->status) {
    case TRAIN_OK:
        snprintf(buf, len, _("%ld steps"), r->steps);
        break;
    case TRAIN_NOMEM:
        snprintf(buf, len, _("step %ld: out of memory"), r->bad_step);
        break;
    case TRAIN_BAD_BATCH:
        snprintf(buf, len, _("step %ld: the training data has no sequence that fits the model "
                             "(2 to ctx tokens of the vocab)"), r->bad_step);
        break;
    case TRAIN_LOSS_NOT_FINITE:
        snprintf(buf, len, _("step %ld: the loss is not finite; lower lr (now %s)"), r->bad_step, lrs);
        break;
    case TRAIN_GRAD_NOT_FINITE:
        snprintf(buf, len, _("step %ld: the gradient of %s is not finite; lower lr (now %s)"), r->bad_step, name,
                 lrs);
        break;
    case TRAIN_WEIGHT_NOT_FINITE:
        snprintf(buf, len, _("step %ld: %s would not be finite after the update; lower lr (now %s)"), r->bad_step,
                 name, lrs);
        break;
    }
}

/* ---- held-out scores ---- */

typedef struct {
    double rest, copy, prev[MODEL_LAYERS_MAX][ATTN_HEADS_MAX], ind[MODEL_LAYERS_MAX][ATTN_HEADS_MAX];
    long nrest, ncopy;
    int nind[MODEL_LAYERS_MAX][ATTN_HEADS_MAX];
} EvalSums;

/* One sequence's losses and scores into *s; sp NULL: not a copy sequence. */
static bool eval_one(Model *m, const int *tok, int n, const CopySpan *sp, EvalSums *s)
{
    if (!model_set_tokens(m, tok, n))
        return false;
    model_run_all(m);
    for (int i = 0; i + 1 < n; i++) {
        double nl = -log(MAT_AT(&m->p, i, tok[i + 1]));
        int j = sp ? i - sp->b : 0; /* token i+1 is body place i: the copy's symbol j */
        if (sp && j >= 1 && j < sp->len)
            s->copy += nl, s->ncopy++;
        else
            s->rest += nl, s->nrest++;
    }
    for (int l = 1; l <= m->cfg.layers; l++)
        for (int h = 1; h <= m->cfg.heads; h++) {
            double v = 0.0;
            if (model_prev_score(m, l, h, &v))
                s->prev[l - 1][h - 1] += v;
            if (model_induction_score(m, l, h, &v))
                s->ind[l - 1][h - 1] += v, s->nind[l - 1][h - 1]++;
        }
    return true;
}

static void eval_means(const Model *m, const EvalSums *s, int nseq, TrainEval *e)
{
    e->nseq = nseq;
    e->loss_rest = s->nrest ? s->rest / (double)s->nrest : NAN;
    e->loss_copy = s->ncopy ? s->copy / (double)s->ncopy : NAN;
    for (int l = 0; l < m->cfg.layers; l++)
        for (int h = 0; h < m->cfg.heads; h++) {
            e->prev[l][h] = s->prev[l][h] / nseq;
            e->has_ind[l][h] = s->nind[l][h] > 0;
            e->ind[l][h] = s->nind[l][h] ? s->ind[l][h] / s->nind[l][h] : NAN;
        }
}

/* The copy task's held-out sequences. */
static int eval_copy(Model *m, const TrainSpec *spec, TrainEval *e, EvalSums *s)
{
    Rng r;
    int tok[MODEL_CTX_MAX], n = m->cfg.ctx, done = 0;
    CopySpan sp;
    e->seed = spec->data_seed == TRAIN_HELD_SEED ? TRAIN_HELD_SEED - 1 : TRAIN_HELD_SEED;
    rng_seed(&r, (uint32_t)e->seed);
    for (int k = 0; k < TRAIN_HELD; k++) {
        if (!copy_task_draw(&r, n, m->cfg.vocab, spec->lmin, spec->lmax, tok, &sp) || !eval_one(m, tok, n, &sp, s))
            return done;
        done++;
    }
    return done;
}

/* The data's own sequences, each once (the first TRAIN_HELD that fit). */
static int eval_list(Model *m, const TrainSpec *spec, EvalSums *s)
{
    TrainSpec one = *spec;
    one.batch = 1;
    TrainFeed f;
    train_feed_init(&f, &one, m->cfg.ctx, m->cfg.vocab);
    long count = train_feed_count(&f);
    int tok[MODEL_CTX_MAX], len, nseq, done = 0;
    while (done < TRAIN_HELD && done < count && train_feed_next(&f, tok, &len, &nseq) && eval_one(m, tok, len, NULL, s))
        done++;
    return done;
}

bool train_eval(Model *m, const TrainSpec *spec, TrainEval *e)
{
    *e = (TrainEval){.copy = spec->data == TDATA_COPY};
    int n = m->n, saved[MODEL_CTX_MAX];
    memcpy(saved, m->tok, sizeof saved);
    EvalSums *s = calloc(1, sizeof *s);
    if (!s)
        return false;
    int done = e->copy ? eval_copy(m, spec, e, s) : eval_list(m, spec, s);
    if (done > 0)
        eval_means(m, s, done, e);
    free(s);
    if (!model_set_tokens(m, saved, n))
        m->at_layer = m->at_stage = 0;
    return done > 0;
}
