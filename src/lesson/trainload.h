/* trainload.h - a model lesson's train: section (DESIGN.md "Trained here")
 * into l->model->train (lmodel.h's TrainSpec):
 *
 *   data       {task: copy, length: [lo, hi], seed} (length [3, 6], seed 1;
 *              1 <= lo <= hi and a segment and its copy fit in ctx - 1),
 *              or {sequences: [[A, B, ...], ...]} (vocab entries, each
 *              sequence 2..ctx long, at most TRAIN_SEQ_MAX of them), or
 *              {text: FILE} (relative to the lesson: tokenised by greedy
 *              longest match against the vocab, whitespace skipped where
 *              no entry matches it; cut into sequences of ctx, the last
 *              kept when it has at least 2)
 *   loss       next_token (the only one, and the default)
 *   optimizer  {adam: {lr}} or {sgd: {lr}}; lr > 0, finite (adam 0.003,
 *              sgd 0.1); adam unless given
 *   batch      1..TRAIN_BATCH_MAX (64)     steps  1..TRAIN_STEPS_MAX (3000)
 *   from       {random: {seed, scale, embed_scale}} (scale 1, embed_scale
 *              = scale unless given)
 *
 * Every value out of range is refused at FILE:LINE:COL naming the range; a
 * character of the text file that no vocab entry matches, at its line and
 * column in the text file. Called by modelload.c once the vocab and the
 * model are read. */
#ifndef QKV_TRAINLOAD_H
#define QKV_TRAINLOAD_H

#include <stdbool.h>
#include "schema.h"

#define TRAIN_TEXT_MAX_BYTES (4 * 1024 * 1024)

/* key is the train: key (its line is TrainSpec.line), n its value. */
bool train_load(Loader *c, const yaml_node_t *key, const yaml_node_t *n, Lesson *l);

#endif
