/* action.h - the one small language for changing numbers.
 *
 * Lesson `do:` lines, the view's ':' prompt and its cell editor all produce
 * action text, parsed here and applied by the session:
 *   M[i] = N[j]          copy a row          (Q[1] = K[1])
 *   M[i] = N[j] * c      copy a row, scaled  (Q[1] = K[1] * 5)
 *   M[i] = [a, b, c]     write a row
 *   M[i][j] = c          write one cell
 *   scale = none|sqrt_dk     softmax = naive|stable     reset
 *   mask = none|causal       temperature = T (0.05..20)
 *   positions = none|sinusoidal                swap i j (two tokens)
 *   target A[i] = j | [t1, ..., tn] | none       lr = x       step | step N
 * Today's models (DESIGN.md "Attention in today's models"):
 *   append TOKEN [x1, ..., xd]   a token at the end with its row of X
 *   mask = window W   positions = rope   rope_base = B   offset = k
 *   softmax = online  block = B          (kv_heads is a shape: load only)
 * Targets are X and the Ws (the pipeline recomputes from them) and rows of
 * Q, K, V (which become overrides). Indices are 1-based in the text and
 * 0-based in an Action. References are read by ref.h and numbers by num.h
 * (the Unicode minus U+2212 the screen shows is accepted; the locale never
 * matters). Parsing checks syntax, and says what it found and what could
 * come there; action_apply() checks indices and widths against the state.
 * Neither ever exits. */
#ifndef QKV_ACTION_H
#define QKV_ACTION_H

#include <stdbool.h>
#include <stddef.h>
#include "core/attn.h"
#include "core/model.h"
#include "options.h"

typedef enum {
    ACT_ROW_COPY, ACT_ROW_SET, ACT_CELL_SET, ACT_SCALE, ACT_SOFTMAX, ACT_RESET,
    ACT_MASK, ACT_TEMP, ACT_POS, ACT_SWAP,
    ACT_TARGET, ACT_LR, ACT_STEP,   /* training (train.h) */
    ACT_APPEND, ACT_OFFSET, ACT_BLOCK, ACT_ROPE_BASE, /* today's models */
    ACT_M_TOKENS, ACT_M_GENERATE, ACT_M_ABLATE, ACT_M_RESTORE /* a model lesson's (maction.h) */
} ActKind;

#define ACTION_TOKEN_BYTES ATTN_NAME_BYTES /* an appended token's name, as a lesson's tokens */
/* Appended tokens are named in Attn.tok[] by ids ACTION_TOKEN_BASE + k, k
 * their name's index in the state's own Attn.tok_name (a lesson's own
 * tokens are 0..63): action_token_name() gives the name. */
#define ACTION_TOKEN_BASE 1000

/* ACT_TARGET's opt: no target, all weight on key j, or the distribution vals. */
enum { TARGET_NONE, TARGET_KEY, TARGET_DIST };

typedef struct {
    ActKind kind;
    MatId mat;          /* target */
    int i, j;           /* target row / cell, 0-based */
    MatId src;          /* ACT_ROW_COPY: source matrix and row */
    int src_i;
    double c;           /* ACT_ROW_COPY: factor (1 when absent); ACT_CELL_SET: value; ACT_TEMP: T */
    int n;              /* ACT_ROW_SET: count of vals */
    double vals[MAT_MAX];
    int opt;            /* ACT_SCALE: Scale; ACT_SOFTMAX: Softmax; ACT_MASK: Mask; ACT_POS: Positions */
    /* ACT_MASK with MASK_WINDOW: the width in n; ACT_OFFSET, ACT_BLOCK: n;
     * ACT_ROPE_BASE: c; ACT_APPEND: the token's name in word, its row of X
     * in vals (n of them) */
    char word[ACTION_TOKEN_BYTES + 1];
    /* ACT_SWAP: the two tokens are i and src_i (0-based) */
    /* ACT_TARGET: row i of head `head`'s A (mat M_A), opt TARGET_*, key j or
     * n vals; ACT_LR: c; ACT_STEP: n steps (1..GRAD_STEP_MAX) */
    int head;
    /* A model lesson's action (maction.h): a cell, row or row copy writes
     * the parameter mref (kind != MM_NONE), a row copy reads msrc; tokens =
     * and generate's tokens are vocab indices in vals (n of them), named by
     * lm's vocab; ablate / restore: layer i, head `head` (1-based both);
     * generate: n appended of opt asked for */
    ModelRef mref, msrc;
    const struct LessonModel *lm;
} Action;

/* Parse one action. On failure returns false, writes a message saying what
 * was expected to err, and sets *errcol to the 1-based column of the
 * problem within text. */
bool action_parse(const char *text, Action *out, char *err, size_t errlen, int *errcol);
/* The same, with the messages fitted to a lesson's shapes (shape may be
 * NULL): the matrices listed are the ones it has (Wo with W_O; with heads
 * >= 2 the heads' names A1 to Ah, never a bare name it refuses). */
bool action_parse_in(const char *text, const Attn *shape, Action *out, char *err, size_t errlen, int *errcol);
/* Apply to a state's inputs (X, Ws, overridden rows, options). Does not
 * recompute: the caller runs the pipeline afterwards. ACT_RESET is the
 * session's business and is refused here. Returns false with a message when
 * an index or width does not fit; the state is then unchanged. */
bool action_apply(Attn *a, const Action *act, char *err, size_t errlen);
/* Does the action change an option (scale, softmax, mask, temperature,
 * positions) rather than numbers or token order? */
bool action_is_option(const Action *act);
/* The option table's row an action of this kind sets (the row's action
 * column, options.h), or NULL: not an option. */
const OptRow *option_of_action(ActKind kind);
/* The kind of action that sets row r (meaningful for OF_ACTION rows). */
ActKind option_act(const OptRow *r);
/* The value an action of the row's kind carries (opt, c or n). */
double option_action_value(const OptRow *r, const Action *act);
/* Write an action back as text (the canonical form), e.g. for history. */
void action_format(const Action *act, char *buf, size_t len);

/* The name of an appended token's id (lesson.c) (ACTION_TOKEN_BASE + k) in state a,
 * or NULL. */
const char *action_token_name(const Attn *a, int id);

#endif
