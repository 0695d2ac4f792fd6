/* live.h - keeping the screen true while a student edits: the narration
 * filled in from the live state, whether the state has left the script's,
 * the exercises' records, and the line naming a change's effect.
 *
 * No curses: the view (and --dump) call these and draw the results.
 *
 *   session_say()        the step's say: with {REF}s filled in (asked cells
 *                        still open show "?")
 *   session_departed()   the state left the script's (an edit, a toggle, a
 *                        swap, training, a variant, a saved lesson's edits):
 *                        the view dims the narration under session_notice()
 *   effect_line()        "scaling ÷√3: α₁₁ 0.873 → 0.695" after any change
 *   session_trace_line() "q₁ changed ⇒ s₁₁ −0.066 → 3.013 ⇒ α₁₁ 0.313 → 0.873 ⇒ o₁₁ −0.099 → −0.147"
 *   session_ask_*()      the current step's asks: hidden cells, answering,
 *                        revealing, and the tally "right 3 of 4, 1 revealed"
 *
 * Answer records belong to the session (allocated at the first answer,
 * freed by session_free); they survive moving between steps, edits, undo
 * and reset. A cell is hidden while an ask covering it at the current step
 * is open. */
#ifndef QKV_LIVE_H
#define QKV_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include "core/trace.h"
#include "lesson/ask.h"
#include "fmt.h"
#include "lesson/session.h"
#include "lesson/template.h"

/* ---- narration -------------------------------------------------------------- */

/* The current step's say: in lang, templates filled in from s->cur (open
 * asks as "?"). malloc'd, "" when the step says nothing; NULL when out of
 * memory. Not yet sanitised: pass it to fmt_prose() or text_sanitize(). */
char *session_say(const Session *s, Lang lang, bool ascii);
/* The lesson's about: in lang, filled in from the lesson's starting state
 * (X, the Ws, tokens, sizes). malloc'd as above. */
char *lesson_about_text(const Lesson *l, Lang lang, bool ascii);

/* The about: a saved lesson gets (not expanded, templates kept): the
 * lesson's own in lang, then a note of the student's departures in effect
 * (as session_departed() names them, joined by "; "), in that language:
 * "Saved after: Q[1] = K[1] * 5; scale = none." / "保存前做过的改动：Q[1] =
 * K[1] * 5; scale = none。". NULL when there is nothing to write (or out of memory);
 * else malloc'd. */
char *session_saved_about(const Session *s, Lang lang);

/* ---- departures and the notice ------------------------------------------------ */

/* Has the state departed from what the lesson's own script gives at this
 * step (DESIGN.md "States")? It has after a student's edit in effect that
 * changes the state (a cell or row, any option: scale, softmax, mask,
 * temperature, positions; a swap; a target, lr or gradient step), and
 * always in a lesson that departs itself: a --variant K other than its
 * seed, a saved lesson whose edited: records edits. Undoing every edit, a
 * reset, or toggling an option back gives the script's state again.
 * `what` (may be NULL) gets what departed in the action language, short,
 * joined by ", ": "variant 7", the lesson's edited: entries, then the
 * student's edits that still make a difference, the last of each toggle or
 * cell ("mask = causal, Q[1] = K[1] * 5, step 2"; numbers shortest
 * round-trip, fmt_exact). */
bool session_departed(const Session *s, char *what, size_t len);
/* session_departed() without the list (the view's dimming). */
bool session_diverged(const Session *s);
/* The same list, malloc'd ("" when scripted), with room to spare for a
 * caller that shortens it in place: at least 64 bytes past its end. */
char *session_departures_dup(const Session *s);
/* The edits a saved lesson records in edited: (the lesson's own, then the
 * student's, as session_departed() names them, without a variant): a
 * malloc'd array of malloc'd strings into *out; returns the count, -1 when
 * out of memory. */
int session_edited(const Session *s, char ***out);
/* The one-line notice of a departed state, fitting `cols` display columns
 * (0: no limit): "✎ after mask = causal, Q[1] = K[1] * 5: numbers live,
 * words written for the lesson's numbers"; when that is too wide,
 * "✎ after LIST: numbers live, words as written", the list cut to fit and
 * ended in "…". False and "" in a scripted state. */
bool session_notice(const Session *s, bool ascii, int cols, char *buf, size_t len);
/* One action in the action language, numbers shortest round-trip
 * (fmt_exact): "Q[2][1] = 5.1", "mask = causal", "step 2". */
void action_text(const Action *act, char *buf, size_t len);
/* The script's own state at this step (no student edits), computed to the
 * step's stage, into a zeroed Attn the caller frees. */
bool session_script_state(const Session *s, Attn *out);

/* The head (1-based) the current step's narration is about, in a lesson
 * of two or more heads: the head of its focus ("A2[1]": 2; "A[1]": 1), else
 * the one its templates quote ({A2[2][1]}); 0 when it names none or
 * several. The view says so above the narration when another is shown. */
int session_say_head(const Session *s);

/* ---- every change names its effect ------------------------------------------ */

typedef enum { EFFECT_ACT, EFFECT_UNDO, EFFECT_REDO } EffectWhat;

/* The name of the change just made (fmt_action_name): after session_act()
 * (EFFECT_ACT) the last action, e.g. "Q[1] = K[1] * 5", "scaling ÷√3", "no
 * scaling", "stable softmax", "naive softmax", "reset"; after session_undo() "undo
 * Q[1] = K[1] * 5"; after session_redo() "redo ...". "" when there is none. */
void effect_name(const Session *s, EffectWhat what, bool ascii, char *buf, size_t len);
/* "NAME: α₁₁ 0.873 → 0.695": the focused result (mat, i, j) before and
 * after the last change (s->before -> s->cur). When that matrix is not
 * computed at this step, the last cell of the trace stands in; when the
 * cell shows the same digits, "NAME: s₁₁ 0.006 (unchanged)". Returns false (and
 * writes NAME alone) when there was no change to compare (!s->has_before). */
bool effect_line(const Session *s, const char *name, MatId mat, int i, int j, const FmtOpt *fo, char *buf,
                 size_t len);

/* The one status line naming a change just made (after session_act,
 * session_undo or session_redo, as `what` says) with its effect on the
 * focused result (mat, i, j), and what u or Ctrl-R does next:
 *   "scaling ÷√3: α₁₁ 0.873 → 0.695. u undoes it."
 *   "undo Q[1] = K[1] * 5: α₁₁ 0.873 → 0.313. Ctrl-R redoes it."
 *   "reset: α₁₁ 0.873 → 0.313. u undoes the reset."
 * label, when not NULL, names an EFFECT_ACT change instead (a nudge:
 * "Q[1][1] + 0.1"). Every change's status goes through here. */
void effect_status(const Session *s, EffectWhat what, const char *label, MatId mat, int i, int j, bool ascii,
                   char *buf, size_t len);

/* ---- the effect trace -------------------------------------------------------- */

/* The trace of the last change (s->before -> s->cur) for query row i and
 * key column j (0-based); false when there was none. */
bool session_trace(const Session *s, int i, int j, Trace *t);
/* Write a trace as one line; hidden cells (open asks) show "?". */
void effect_trace_line(const Trace *t, const Attn *after, const FmtOpt *fo, const Session *s, char *buf, size_t len);
/* Both: the line for the last change, "" and false when there was none. */
bool session_trace_line(const Session *s, int i, int j, const FmtOpt *fo, char *buf, size_t len);
/* The short name of a cell as the trace writes it: "q₁₂", "s₁₁", "α₁₁",
 * "o₁₁", "x₂₁", "Wq₁₁" (ASCII: "a_11"); a row "q₁" when j < 0. */
void effect_cell_name(MatId m, int i, int j, const FmtOpt *fo, char *buf, size_t len);

/* ---- exercises ---------------------------------------------------------------- */

int session_ask_count(const Session *s);                 /* asks at this step */
const Ask *session_ask_at(const Session *s, int k);      /* k < session_ask_count */
AskState session_ask_state(const Session *s, int k);
/* The first ask at this step still open, or -1: while there is one, typed
 * digits go to the answer, not to the stage keys. */
int session_ask_open(const Session *s);
/* Grade an answer to the first open ask at this step (else the first
 * answered wrong: a retry) and record it. msg gets the result line:
 * "✓ right: S[1][2] = 0.006", or "✗ not quite: S[1][2] (your answer: 0.01).
 * Type again, or Space to reveal." without the true value (a row also says
 * which numbers are off), or why the answer cannot be read (GRADE_BAD,
 * nothing recorded). With no open ask, GRADE_BAD and "". */
Grade session_ask_answer(Session *s, const char *answer, bool ascii, char *msg, size_t len);
/* The first ask at this step answered wrong, which the student may answer
 * again (session_ask_answer grades it when none is open), or -1. */
int session_ask_retry(const Session *s);
/* Reveal every open ask at this step, and every one answered wrong (the
 * view calls it when next is pressed there, before moving on; a wrong one
 * still counts as wrong). Returns how many were revealed. */
int session_ask_reveal(Session *s);
/* Is cell (m, i, j) hidden as "?" now: asked at this step, not yet
 * answered right or revealed (a wrong answer keeps it hidden)? One asked weight of A hides its whole row (the
 * row adds up to 1). */
bool session_ask_hidden(const Session *s, MatId m, int i, int j);
/* Does an open ask hide the training panel's numbers for the target of
 * head (0-based) at row: its row of A, S or QKᵀ is asked (the loss and
 * ∂L/∂s = α − t give α back in one step)? */
bool session_ask_hides_training(const Session *s, int head, int row);
/* The same with the signature TplOpt.hidden wants; ctx is the Session. */
bool session_ask_hidden_cb(const void *ctx, MatId m, int i, int j);
/* The arithmetic of cell (mat, i, j) in the current state, as fmt_explain()
 * writes it, with every number an open ask hides written "?" (the asked
 * result, and the operands that are the asked values themselves, e.g. the
 * weights α₁ₖ in o₁'s sum while A[1] is asked). Returns the line count. */
int session_explain(const Session *s, MatId mat, int i, int j, const FmtOpt *fo, char lines[][FMT_LINE], int max);
/* Counts over the whole lesson (right: first time or after a retry). */
void session_ask_counts(const Session *s, int *total, int *right, int *wrong, int *revealed);
/* The same, with how many were right after a retry and how many are not
 * answered yet. */
void session_ask_counts2(const Session *s, int *total, int *right, int *wrong, int *revealed, int *retried, int *open);
/* "right 2 of 4 (1 after a retry), 1 wrong, 1 not answered": each part
 * only when it is not 0 ("revealed" too); "" when the lesson asks nothing. */
void session_ask_tally(const Session *s, char *buf, size_t len);

#endif
