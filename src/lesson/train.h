/* train.h - the training actions of the action language, applied to a state:
 *
 *   target A[i] = j           all of row i's weight on key j
 *   target A2[i] = [t1, ...]  a distribution (head 2's A): non-negative,
 *                             summing to 1, 0 wherever the mask hides a key
 *   target A[i] = none        no target on row i
 *   lr = x                    the learning rate (> 0; lesson option lr:)
 *   step | step N             N steps of gradient descent on W_Q and W_K
 *
 * action.c parses them and calls train_apply(); the core (core/grad.h)
 * holds the targets in the state and computes. Every refusal is one line
 * saying what is wrong and what to do; the state is then unchanged. */
#ifndef QKV_TRAIN_H
#define QKV_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include "core/grad.h"
#include "action.h"
#include "text/num.h"
#include "lesson.h"

/* "A[1]" for a bare A (head -1), "A1[1]", "A2[1]" for a head named. */
void train_target_name(const Action *a, char *buf, size_t len);
/* Apply ACT_TARGET, ACT_LR or ACT_STEP. */
bool train_apply(Attn *a, const Action *act, char *err, size_t errlen);
/* Why a step cannot be taken from a (one line into err), or true when it can. */
bool train_can_step(const Attn *a, char *err, size_t errlen);

/* ---- the training panel ----------------------------------------------------- */

/* The target the panel explains for the view's head (0-based) and focused
 * query row fi: that row's target, else the head's first, else the first;
 * -1 when there is none. */
int train_focus_target(const Attn *a, int head, int fi);
/* The panel's lines for target ti of the current state (reached the
 * softmax), key column fj: the target and the loss with a sparkline of its
 * history, then the chain rule with the real numbers (dL/ds, dL/dq,
 * dL/dWq, dL/dk, dL/dWk) and the step. Returns the count (0 when there is
 * nothing to show). */
int train_lines(const Lesson *l, const Attn *a, int ti, int fj, const FmtOpt *fo, char lines[][FMT_LINE], int max);
/* The sparkline of the loss history and the current loss, ▁..█ (ASCII
 * _.-~=+*#), at most `width` characters, into buf. */
void train_sparkline(const Attn *a, bool ascii, int width, char *buf, size_t len);

#endif
