/* maction.h - a model lesson's actions (DESIGN.md "From a head to a model"
 * and "Trained here"), parsed with the model's own names (model_lookup) and
 * applied by the session (session_model.c):
 *   tokens = A B C D A B C     the input: 1..ctx entries of the vocab
 *   generate | generate N      append the prediction N times (greedy, or
 *                              sampled: one stream seeded with the lesson's
 *                              sampling seed for the N draws); stops at ctx
 *   ablate L1.H2 / restore L1.H2   a head's output 0 before W_O, or back
 *   L1.Wq[1][2] = 0.5   E[3] = [..]   L2.Wo[1] = L2.Wo[2] * 2
 *                              a cell or row of any parameter (a row copy
 *                              may read a result, computed first)
 *   mask = ..., scale = ..., softmax = ..., temperature = T, block = B
 *                              the attention's options, in every layer
 *   step | step N              N training steps on the train: loss (only in
 *                              a lesson with train:)
 *   reset                      back to the script (the session's)
 * Indices are 1-based in the text, 0-based in the Action. Results (L1.Q,
 * p, ...) are refused naming the parameter to edit instead; a token not in
 * the vocab is refused naming the nearest ones. Errors are one line with
 * the 1-based column in *errcol; nothing here exits or does I/O. */
#ifndef QKV_MACTION_H
#define QKV_MACTION_H

#include <stdbool.h>
#include <stddef.h>
#include "action.h"
#include "core/model.h"
#include "lmodel.h"

/* Parse one action of a model lesson against model m (its names and
 * shapes) and lm (its vocab and train:). */
bool maction_parse(const char *text, const Model *m, const LessonModel *lm, Action *out, char *err, size_t errlen,
                   int *errcol);
/* Is act a model lesson's own (tokens, generate, ablate, restore, a
 * parameter's cell or row)? Options, step and reset are shared kinds. */
bool maction_is_model(const Action *act);
/* The canonical text: "tokens = A B C", "generate 3", "ablate L1.H2",
 * "L1.Wq[1][2] = 0.5", "E[3] = [1, 2]", "L2.Wo[1] = L2.Wo[2] * 2"
 * (numbers shortest round-trip). */
void maction_format(const Action *act, char *buf, size_t len);
/* Apply everything but step and reset (the session's) to m: parameters,
 * tokens, ablations and options are changed, nothing is recomputed beyond
 * what a row copy from a result or generate needs; the caller runs what it
 * shows. false with a message (m unchanged) when it does not fit.
 * generate writes to *note (may be NULL) when it stopped at ctx. */
bool maction_apply(Model *m, const Action *act, char *err, size_t errlen, char *note, size_t notelen);
/* The most tokens the model's input may hold (ctx, less the offset with
 * learned positions). */
int maction_max_tokens(const Model *m);

#endif
