/* optim.c - SGD, Adam and one training step (see optim.h). */
#include "optim.h"

#include <math.h>

#include "model_back.h"

void optim_init(Optim *o, OptKind kind, double lr)
{
    *o = (Optim){.kind = kind, .lr = lr, .beta1 = OPT_BETA1, .beta2 = OPT_BETA2, .eps = OPT_EPS};
}

void optim_free(Optim *o)
{
    if (o->have_state) {
        model_free(&o->m);
        model_free(&o->v);
    }
    o->have_state = false;
    o->t = 0;
}

bool optim_copy(Optim *dst, const Optim *src)
{
    if (dst == src)
        return true;
    optim_free(dst);
    *dst = (Optim){.kind = src->kind, .lr = src->lr, .beta1 = src->beta1, .beta2 = src->beta2, .eps = src->eps,
                   .t = src->t};
    if (!src->have_state)
        return true;
    if (!model_copy(&dst->m, &src->m) || !model_copy(&dst->v, &src->v)) {
        model_free(&dst->m);
        model_free(&dst->v);
        return false;
    }
    dst->have_state = true;
    return true;
}

/* The new value of one weight; Adam's moments into *mm, *vv. */
static double adam_one(const Optim *o, double w, double gr, double *mm, double *vv, double step_size,
                       double bc2_sqrt)
{
    *mm = *mm * o->beta1 + gr * (1.0 - o->beta1);
    *vv = *vv * o->beta2 + (1.0 - o->beta2) * gr * gr;
    double denom = sqrt(*vv) / bc2_sqrt + o->eps;
    return w + -step_size * (*mm / denom);
}

/* One pass over every parameter: with apply false only check that each
 * gradient and each new weight is finite; with apply true write them (and
 * Adam's moments). Both passes compute the same numbers. */
static TrainStatus update_pass(Optim *o, Model *m, const Model *g, bool apply, ModelRef *bad)
{
    ModelRef refs[MODEL_PARAMS_MAX];
    int np = model_params(m, refs, MODEL_PARAMS_MAX);
    long t = o->t + 1;
    double step_size = o->lr / (1.0 - pow(o->beta1, (double)t));
    double bc2_sqrt = sqrt(1.0 - pow(o->beta2, (double)t));
    for (int k = 0; k < np; k++) {
        Mat *w = model_mat_mut(m, refs[k]);
        const Mat *gr = model_mat(g, refs[k]);
        double *mv = o->kind == OPT_ADAM ? model_mat_mut(&o->m, refs[k])->v : NULL;
        double *vv = o->kind == OPT_ADAM ? model_mat_mut(&o->v, refs[k])->v : NULL;
        *bad = refs[k];
        for (size_t i = 0; i < (size_t)w->rows * (size_t)w->cols; i++) {
            double x, mm = mv ? mv[i] : 0.0, v2 = vv ? vv[i] : 0.0;
            if (!isfinite(gr->v[i]))
                return TRAIN_GRAD_NOT_FINITE;
            if (o->kind == OPT_SGD)
                x = w->v[i] + -o->lr * gr->v[i];
            else
                x = adam_one(o, w->v[i], gr->v[i], &mm, &v2, step_size, bc2_sqrt);
            if (!isfinite(x))
                return TRAIN_WEIGHT_NOT_FINITE;
            if (apply) {
                w->v[i] = x;
                if (mv) {
                    mv[i] = mm;
                    vv[i] = v2;
                }
            }
        }
    }
    return TRAIN_OK;
}

TrainStatus optim_update(Optim *o, Model *m, const Model *g, ModelRef *bad)
{
    if (o->kind == OPT_ADAM && !o->have_state) {
        if (!model_grad_init(&o->m, m) || !model_grad_init(&o->v, m)) {
            model_free(&o->m);
            return TRAIN_NOMEM;
        }
        o->have_state = true;
    }
    TrainStatus st = update_pass(o, m, g, false, bad);
    if (st != TRAIN_OK)
        return st;
    (void)update_pass(o, m, g, true, bad);
    o->t++;
    m->at_layer = m->at_stage = 0; /* the weights changed: nothing is reached */
    return TRAIN_OK;
}

TrainStatus model_train_step(Model *m, Model *g, Optim *o, const int *tok, const int *len, int nseq, double *loss,
                             ModelRef *bad)
{
    int positions = 0;
    for (int s = 0; s < nseq; s++)
        positions += len[s] > 1 ? len[s] - 1 : 0;
    if (nseq < 1 || positions == 0)
        return TRAIN_BAD_BATCH;
    model_grad_zero(g);
    double sum = 0.0, w = 1.0 / positions;
    for (int s = 0, off = 0; s < nseq; off += len[s], s++) {
        if (!model_set_tokens(m, tok + off, len[s]))
            return TRAIN_BAD_BATCH;
        model_run_all(m);
        bool ok;
        sum += model_backward(m, g, w, &ok);
        if (!ok)
            return TRAIN_NOMEM;
    }
    *loss = sum / positions;
    if (!isfinite(*loss))
        return TRAIN_LOSS_NOT_FINITE;
    return optim_update(o, m, g, bad);
}
