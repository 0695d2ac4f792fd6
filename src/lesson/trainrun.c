/* trainrun.c - a training run (see trainrun.h). */
#include "trainrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
