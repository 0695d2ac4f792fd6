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
 *   session_ask_*()      the current step's asks (lesson/asking.h); here only
 *                        session_explain(), the arithmetic with asked numbers "?"
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
#include "lesson/asking.h"
#include "lesson/departures.h"
#include "fmt.h"
#include "lesson/session.h"
#include "narrate.h"

/* ---- narration -------------------------------------------------------------- */

/* The current step's say: in lang, templates filled in from s->cur (open
 * asks as "?"). malloc'd, "" when the step says nothing; NULL when out of
 * memory. Not yet sanitised: pass it to fmt_prose() or text_sanitize(). */
char *session_say(const Session *s, Lang lang, bool ascii);
/* The lesson's about: in lang, filled in from the lesson's starting state
 * (X, the Ws, tokens, sizes). malloc'd as above. */
char *lesson_about_text(const Lesson *l, Lang lang, bool ascii);


/* ---- departures and the notice ------------------------------------------------ */

/* The one-line notice of a departed state, fitting `cols` display columns
 * (0: no limit): "✎ after mask = causal, Q[1] = K[1] * 5: numbers live,
 * words written for the lesson's numbers"; when that is too wide,
 * "✎ after LIST: numbers live, words as written", the list cut to fit and
 * ended in "…". False and "" in a scripted state. */
bool session_notice(const Session *s, bool ascii, int cols, char *buf, size_t len);

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

/* The arithmetic of cell (mat, i, j) in the current state, as fmt_explain()
 * writes it, with every number an open ask hides written "?" (the asked
 * result, and the operands that are the asked values themselves, e.g. the
 * weights α₁ₖ in o₁'s sum while A[1] is asked). Returns the line count. */
int session_explain(const Session *s, MatId mat, int i, int j, const FmtOpt *fo, char lines[][FMT_LINE], int max);

#endif
