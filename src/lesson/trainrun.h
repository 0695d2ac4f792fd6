/* trainrun.h - a training run of a model lesson (DESIGN.md "Trained
 * here"): steps of model_train_step (core/optim.h) on the batches of a
 * TrainFeed, the same for `qkvtutor --train`, a lesson's `step N` and the
 * view's g, G and watch mode.
 *
 * Each step: the feed's next batch, one optimizer step, then the callback
 * with the step's number (1-based within the run) and the batch's loss
 * (before the update); the callback returns false to stop after that
 * step. A step that would make the loss, a gradient or a weight not finite
 * changes nothing (model_train_step's promise) and stops the run, with the
 * parameter named. Afterwards m's input is the one it had before (its
 * tokens set back), nothing reached: the caller runs what it shows. No
 * I/O, no globals. */
#ifndef QKV_TRAINRUN_H
#define QKV_TRAINRUN_H

#include <stdbool.h>
#include <stddef.h>
#include "core/model.h"
#include "core/optim.h"
#include "traindata.h"

/* Called after every whole step; false stops the run there. */
typedef bool (*TrainStepFn)(long step, double loss, void *arg);

typedef struct {
    long steps;         /* whole steps taken */
    double loss;        /* the last whole step's loss (NAN before any) */
    double first_loss;  /* the first step's (NAN before any) */
    TrainStatus status; /* TRAIN_OK, or why the run stopped before its end */
    ModelRef bad;       /* the parameter, for TRAIN_GRAD/WEIGHT_NOT_FINITE */
    long bad_step;      /* the step that failed (steps + 1), 0 if none */
    bool stopped;       /* the callback asked to stop */
} TrainResult;

/* Take up to `steps` steps of m on f's batches with o; each calls fn (may
 * be NULL) with arg. Returns the whole steps taken (also in r->steps).
 * TRAIN_BAD_BATCH when the feed has no batch that fits; TRAIN_NOMEM. */
long train_run(Model *m, Optim *o, TrainFeed *f, long steps, TrainStepFn fn, void *arg, TrainResult *r);

/* The one line that says why a run stopped early (r->status != TRAIN_OK),
 * naming the step and the parameter, with the learning rate lr: "step 412:
 * the gradient of L1.Wq is not finite; lower lr (now 0.5)". Translated. */
void train_result_message(const Model *m, const TrainResult *r, double lr, char *buf, size_t len);

#endif
