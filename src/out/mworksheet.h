/* mworksheet.h - the parts of a worksheet (worksheet.h) that a model lesson
 * (DESIGN.md "From a head to a model") writes differently.
 *
 * The givens: the input's tokens and the vocab (numbered: a logit's or p's
 * column is a vocab entry), the model's settings with the formulas that
 * use them (norm, residual, feed-forward, attention options, softmax over
 * the vocab at T_s), and where the weights come from: a numpy draw stated
 * in full (seed, scale, the order and shape of every parameter: a sheet
 * solver may redraw them) or a weights file (then only the numbers each
 * question needs are on the sheet).
 *
 * Each question then gives what its cell needs, one stage back, from the
 * state at its step (the script's actions applied), with names as on
 * screen and MWS_EXTRA decimals more than the lesson's digits (so that
 * the rounding of a given does not move the answer's last decimal):
 *   L1.h_in            E's row of the token, P's row of the position
 *   Ll.h_in (l >= 2)   L(l-1).h's row
 *   a, b, h_final      the row normed, its gain and bias
 *   Q, K, V            the row of a, the asked columns of Wq, Wk or Wv
 *   QKt, S, A, O       the head's Q row and the K (and V) rows it sees
 *   Y, h_mid           (h_in's row,) O's row and the asked columns of Wo
 *   u, f               b's row, the columns of W1 and b1
 *   h (d_ff > 0)       h_mid's row, f's row, the columns of W2 and b2
 *   logits             h_final's row, the columns of WU (tied: rows of E)
 *   p                  the logits row
 * Tables are at most MWS_COLS numbers wide (wider ones are split: the
 * header names each column), rows labelled "position token" (results),
 * by vocab entry (E) or 1.. (weights). No curses. */
#ifndef QKV_MWORKSHEET_H
#define QKV_MWORKSHEET_H

#include <stdbool.h>
#include <stdio.h>

#include "lesson/ask.h"
#include "lesson/lesson.h"

#define MWS_EXTRA 2
#define MWS_COLS 8

/* The givens of a model lesson; false when out of memory. */
bool mws_put_givens(FILE *out, const Lesson *l, const Model *base, bool ascii);
/* What question q needs, from model m at its step; false when out of memory. */
bool mws_put_needs(FILE *out, const Lesson *l, const Model *m, const Ask *q, bool ascii);
/* The blank row to write the answer in. */
bool mws_put_blank(FILE *out, const Lesson *l, const Model *m, const Ask *q, bool ascii);
/* The key's arithmetic of each asked cell (the view's lines). */
void mws_put_arithmetic(FILE *out, const Lesson *l, const Model *m, const Ask *q, const FmtOpt *fo);
/* A lesson without asks: the question of step k (its stage's result, the
 * last token's row, column 1; p at the predicted token). False for a step
 * whose stage asks nothing new. */
bool mws_default_ask(const Lesson *l, const Model *m, int step, Ask *out);
/* "layer 2/2 · stage 4: softmax A, row by row" for a question's heading. */
void mws_stage_heading(FILE *out, const Lesson *l, int step, int num);

#endif
