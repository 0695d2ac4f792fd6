/* traindata.h - the batches a train: section feeds (DESIGN.md "Trained
 * here"), the same for `qkvtutor --train`, a lesson's `step N` and the
 * view's g, G and watch mode.
 *
 *   copy       each sequence drawn by copy_task_draw (core/copytask.h) at
 *              the model's ctx from one numpy-legacy stream seeded with the
 *              data's seed, batch after batch (the stream goes on)
 *   sequences  batch k is sequences k*batch .. k*batch + batch - 1 of the
 *              list, taken round
 *   text       the file's tokens cut into sequences of ctx (the last may be
 *              shorter, at least 2), then as sequences
 *
 * A TrainFeed is a plain value: copying it (undo keeps one) copies where
 * the stream is. No I/O. */
#ifndef QKV_TRAINDATA_H
#define QKV_TRAINDATA_H

#include <stdbool.h>
#include "core/rng.h"
#include "lmodel.h"

typedef struct {
    const TrainSpec *spec;
    int ctx, vocab;
    Rng rng;                        /* copy: the stream */
    long batches;                   /* batches made so far */
} TrainFeed;

/* Start the feed of spec for a model of ctx positions and vocab symbols. */
void train_feed_init(TrainFeed *f, const TrainSpec *spec, int ctx, int vocab);
/* The next batch: spec->batch sequences into tok (room for batch * ctx)
 * and len (room for batch); *nseq how many. false when the spec has no
 * sequence that fits. */
bool train_feed_next(TrainFeed *f, int *tok, int *len, int *nseq);
/* sequences / text: how many sequences the feed takes round (those that
 * fit); copy: -1 (the stream has no end). */
long train_feed_count(const TrainFeed *f);

#endif
