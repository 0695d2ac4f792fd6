/* traincli.h - `qkvtutor --train LESSON --out FILE [--steps N]` (DESIGN.md
 * "Trained here"): train a model lesson on its own train: section and
 * write the weights as a weights file (lesson/weightsfile.h, atomically).
 *
 * The start: train.from's random weights (model_draw_weights_split with
 * its seed, scale and embed_scale), else the lesson's own weights. The
 * steps: --steps N, else train.steps. Progress on stderr: on a terminal a
 * line redrawn in place (step/steps, steps/s, time left, loss), otherwise
 * a plain line every tenth of the run; then the time taken. Ctrl-C (SIGINT)
 * stops after the step under way: the last whole step is written. Then
 * the summary on stdout (deterministic: no time in it): the steps and the
 * losses of the first and last step, the held-out losses and every layer x
 * head's previous-token and induction scores (lesson/trainrun.h's
 * train_eval: copy data: TRAIN_HELD sequences from seed TRAIN_HELD_SEED),
 * and the file written. Errors are one line on stderr: 2 for a lesson
 * that cannot be trained (no model:, no train:, a step not finite: nothing
 * is written), 1 when the file cannot be written (nothing is left). */
#ifndef QKV_TRAINCLI_H
#define QKV_TRAINCLI_H

#include "lesson/lesson.h"

/* steps 0: the lesson's train.steps. Returns the exit status. */
int train_cli(Lesson *l, const char *out, long steps);

#endif
