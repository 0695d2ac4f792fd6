/* fmt.h - numbers and arithmetic written out, shared by the view and --dump.
 *
 * The core explains a cell as data (explain.h); fmt_explain() turns those
 * terms into lines of text such as
 *   score₁₂ = q₁·k₂ = (0.149)(−0.169) + (−0.041)(−0.304) + (0.194)(0.094) = 0.006
 * In ASCII mode (no UTF-8 terminal) the same line reads
 *   score_12 = q_1.k_2 = (0.149)(-0.169) + ... = 0.006
 * No curses here: the view decides where the lines go. */
#ifndef QKV_FMT_H
#define QKV_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include "core/explain.h"
#include "text/num.h"

#endif

#ifndef QKV_FMT_SESSION
#define QKV_FMT_SESSION
/* Write the lines explaining e. Returns the number of lines (0 for EX_NONE).
 * A sum whose operands, as shown, do not give the result as shown ends in
 * "≈" ("~" in ASCII) instead of "=". */
int fmt_explain(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int max);

/* Notes that need to know who set a number (session.h). */
#include "lesson/action.h"
struct Session;

/* fmt_explain, with the notes only the session knows: an X or W cell or a
 * Q/K/V row set by the lesson's script or by hand. */
int fmt_explain_in(const struct Session *s, const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int max);
/* The status line's note on an overridden row of Q/K/V, saying who set it:
 * "✎ Q row 1 set by the lesson at step 3 (Q[1] = K[1] * 5), no longer X·W",
 * or "... set by hand, ... (u undoes, r resets)". Empty when not overridden. */
void fmt_override_note(const struct Session *s, MatId m, int i, bool ascii, char *buf, size_t len);
/* The note on the first overridden row of Q, K, V; false (buf empty) if none. */
bool fmt_override_status(const struct Session *s, bool ascii, char *buf, size_t len);

/* The name of an action, the one naming of a change (the status line's
 * effect_status(), undo/redo, the trace line): "scaling ÷√3", "no scaling",
 * "stable softmax", "naive softmax", "reset", "Q[1] = K[1] * 5" (numbers
 * exact). */
void fmt_action_name(const struct Session *s, const Action *act, bool ascii, char *buf, size_t len);
/* The same for a toggle or reset alone (no session): scale at d_k. */
void fmt_toggle_name(const Action *act, int d_k, bool ascii, char *buf, size_t len);
#endif

#ifndef QKV_FMT_WRAP
#define QKV_FMT_WRAP
/* The byte length of the next line when wrapping s at `cols` display
 * columns: with `terms` (arithmetic), between terms (before " = ", after
 * " + ") in the second half of the line; else at the last space near the
 * end, else anywhere but inside a Latin word (Chinese has no spaces).
 * Always >= 1 unless s is empty. Skip spaces at the start of the next line
 * yourself. */
size_t fmt_wrap(const char *s, int cols, bool terms);
#endif

/* Lesson prose made safe to show and ready to wrap: line breaks and tabs
 * become spaces, control characters visible stand-ins (text_sanitize).
 * Returns a malloc'd string, or NULL when out of memory. */
char *fmt_prose(const char *s, bool ascii);
