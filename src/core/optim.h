/* optim.h - the optimizers and one training step of a whole model
 * (DESIGN.md "Trained here"), in double precision and deterministic.
 *
 *   SGD   w <- w + (-lr) g                                  (torch's optim.SGD)
 *   Adam  t <- t + 1, m <- beta1 m + (1 - beta1) g, v <- beta2 v + (1 - beta2) g g,
 *         w <- w + (-lr / (1 - beta1^t)) m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
 *         (torch's optim.Adam, its defaults betas 0.9, 0.999 and eps 1e-8,
 *         in its order of operations)
 *
 * A step is one batch: each sequence's forward and backward (model_back.h)
 * with w = 1 / (the batch's positions that have a next token), then one
 * update of every parameter (model_params). A step that would make the loss,
 * a gradient or a weight not finite changes nothing and says which
 * parameter. No I/O, no globals. */
#ifndef QKV_OPTIM_H
#define QKV_OPTIM_H

#include <stdbool.h>
#include "model.h"

typedef enum { OPT_SGD, OPT_ADAM } OptKind;

#define OPT_BETA1 0.9
#define OPT_BETA2 0.999
#define OPT_EPS 1e-8

typedef struct {
    OptKind kind;
    double lr, beta1, beta2, eps;
    long t;             /* Adam: the steps taken */
    bool have_state;    /* m and v allocated (on the first Adam step) */
    Model m, v;         /* Adam's moments, in the parameters of two models */
} Optim;

/* SGD or Adam with learning rate lr and torch's defaults; no moments yet. */
void optim_init(Optim *o, OptKind kind, double lr);
void optim_free(Optim *o);
/* Deep copy (undo keeps an optimizer's state with the weights). */
bool optim_copy(Optim *dst, const Optim *src);

typedef enum {
    TRAIN_OK,
    TRAIN_NOMEM,
    TRAIN_BAD_BATCH,        /* no sequence, or one that does not fit the model */
    TRAIN_LOSS_NOT_FINITE,  /* the batch's loss */
    TRAIN_GRAD_NOT_FINITE,  /* *bad's gradient */
    TRAIN_WEIGHT_NOT_FINITE /* *bad after the update */
} TrainStatus;

/* Update every parameter of m by its gradient in g (g as model_back.h's
 * holder). On TRAIN_WEIGHT_NOT_FINITE or TRAIN_GRAD_NOT_FINITE nothing is
 * changed (the optimizer's state neither) and *bad names the parameter. */
TrainStatus optim_update(Optim *o, Model *m, const Model *g, ModelRef *bad);

/* One training step on the batch of nseq sequences: sequence s is
 * tok[off_s .. off_s + len[s]) with off_s the sum of the lengths before it.
 * *loss the batch's mean loss (before the update). g is a gradient holder
 * for m (model_grad_init), zeroed here. Afterwards m's input is the last
 * sequence, nothing reached (the caller runs what it shows). */
TrainStatus model_train_step(Model *m, Model *g, Optim *o, const int *tok, const int *len, int nseq, double *loss,
                             ModelRef *bad);

#endif
