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

/* ---- held-out scores ---------------------------------------------------- */
#define TRAIN_HELD 100          /* held-out copy sequences */
#define TRAIN_HELD_SEED 999UL   /* their stream's seed (998 when the data's own seed is 999) */

/* What a trained model does on data it was not trained on. With task:
 * copy: TRAIN_HELD sequences of copy_task_draw (the train: lengths, at
 * ctx) from RandomState(seed); loss_copy is the mean -ln p of the copy's
 * 2nd..Lth symbols (those an induction head can predict), loss_rest of
 * every other position that has a next token. Other data: the data's own
 * sequences (the first TRAIN_HELD that fit), loss_rest their mean loss and
 * no loss_copy. Each layer x head's scores are means over the sequences
 * (induction over those in which a token repeats; has_ind false when none). */
typedef struct {
    bool copy;
    unsigned long seed;
    int nseq;
    double loss_rest, loss_copy;
    double prev[MODEL_LAYERS_MAX][ATTN_HEADS_MAX];
    double ind[MODEL_LAYERS_MAX][ATTN_HEADS_MAX];
    bool has_ind[MODEL_LAYERS_MAX][ATTN_HEADS_MAX];
} TrainEval;

/* Evaluate m on spec's held-out data; m's input is set back afterwards,
 * nothing reached. false when there is no sequence to evaluate on, or out
 * of memory. */
bool train_eval(Model *m, const TrainSpec *spec, TrainEval *e);

#endif
