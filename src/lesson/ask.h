/* ask.h - exercises: a step may ask a cell or a row of a result.
 *
 *   ask: "S[1][2]"            ask: ["A[1]", "O[1][2]"]
 *
 * ask_parse() reads one reference and checks it against the lesson's shapes
 * and the step's stage (what is asked must be computed at that step; X and
 * the Ws are given, not asked). ask_grade() reads a student's answer: a
 * number, or for a row numbers separated by commas or spaces (U+2212 minus
 * and the full-width comma accepted), and grades each number: right when
 * within max(1 % of the value, one unit of the last shown digit, 10^-digits).
 * The session's records (answered right / wrong / revealed) are in live.h. */
#ifndef QKV_ASK_H
#define QKV_ASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/attn.h"
#include "core/model.h"
#include "text/num.h"

#define ASK_MAX 16          /* per step */

typedef struct {
    MatId mat;
    int i, j;               /* 0-based; j = -1 for a whole row */
    int line, col;          /* where it was written (1-based) */
    ModelRef mref;          /* a model lesson's result ("L1.A[3][2]", "p[4][7]"): mref.kind != MM_NONE, mat unused */
} Ask;

/* ASK_WRONG: answered wrong, still hidden and open to a retry while its
 * step is shown; ASK_RETRIED: wrong first, right on a later try;
 * ASK_WRONG_REVEALED: wrong, then revealed (counts as wrong). */
typedef enum { ASK_OPEN, ASK_RIGHT, ASK_WRONG, ASK_REVEALED, ASK_RETRIED, ASK_WRONG_REVEALED } AskState;
typedef enum { GRADE_BAD = -1, GRADE_WRONG = 0, GRADE_RIGHT = 1 } Grade;

/* Parse "S[1][2]" or "A[1]" for a step showing `stage` against the shapes
 * in `shape`. On error returns false with one line in msg. */
bool ask_parse(const char *text, const Attn *shape, int stage, Ask *out, char *msg, size_t len);
/* The cells asked: 1, or the row's width. */
int ask_cells(const Ask *a, const Attn *state);
/* Is cell (m, i, j) part of what a asks? */
bool ask_covers(const Ask *a, MatId m, int i, int j);
/* The tolerance for a value shown with `digits` decimals. */
double ask_tolerance(double value, int digits);
/* Grade an answer against the live values in state. GRADE_BAD when it
 * cannot be read (msg says why: not a number, or how many are needed);
 * else GRADE_RIGHT or GRADE_WRONG (msg empty). */
Grade ask_grade(const Ask *a, const Attn *state, int digits, const char *answer, char *msg, size_t len);
/* The same, and off[k] says whether the k-th number typed is off (a row's
 * cells, in order; off may be NULL). */
Grade ask_grade_off(const Ask *a, const Attn *state, int digits, const char *answer, bool *off, char *msg,
                    size_t len);
/* Whether character cp can be part of an answer ask_grade reads: digits,
 * signs (- + and the minus sign), the point, an exponent's e, inf and ∞
 * (a masked score), and the separators between a row's numbers. */
bool ask_answer_char(uint32_t cp);
/* ---- a model lesson's asks: the same on a Model (DESIGN.md "From a head to
 * a model"): a cell or row of a result ("L1.A[3][2]", "p[4][7]",
 * "L2.h[1]"), computed by the step's (layer, stage); parameters (E, P, the
 * W's, gains, biases, WU) are given, not asked. ---- */
bool ask_parse_model(const char *text, const Model *shape, int layer, int stage, Ask *out, char *msg, size_t len);
int ask_cells_model(const Ask *a, const Model *m);
/* Is cell (i, j) of the matrix r names part of what a asks? */
bool ask_covers_model(const Ask *a, ModelRef r, int i, int j);
Grade ask_grade_model_off(const Ask *a, const Model *m, int digits, const char *answer, bool *off, char *msg,
                          size_t len);
void ask_values_model(const Ask *a, const Model *m, const FmtOpt *fo, char *buf, size_t len);

/* "S[1][2]", "A[1]"; a model lesson's "L1.A[3][2]", "p[4][7]" */
void ask_name(const Ask *a, char *buf, size_t len);
/* The asked values as the screen writes them: "0.006", or a row
 * "0.313, 0.337, 0.350". */
void ask_values(const Ask *a, const Attn *state, const FmtOpt *fo, char *buf, size_t len);

#endif
