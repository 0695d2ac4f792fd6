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

#define FMT_LINE 4096
#define FMT_MAX_LINES 8

typedef struct {
    int digits;     /* decimals shown */
    bool ascii;     /* no UTF-8: '-', '_12', 'sqrt(3)' */
    bool hiding;    /* an open ask hides the training panel's values (train.c) */
} FmtOpt;

/* A value that an open ask hides: written into an Explain in its place,
 * printed by fmt_num as a mark the caller turns into "?". The ≈ rule skips
 * it: fmt_shown() gives NaN for it, and a NaN operand or result is never
 * judged (the reader sees "?", not a number to redo). */
#define FMT_HIDDEN 8.5e+299

/* Write v with `digits` decimals into buf (at least 32 bytes); negative
 * numbers use U+2212 unless ascii; -0.000 is written 0.000; from a million
 * up, scientific (7.26e+28) so a cell keeps its width; inf and NaN are
 * written as such. Returns buf. */
char *fmt_num(double v, const FmtOpt *o, char *buf, size_t len);
/* Write 1-based index digits as subscripts (₁₂) or "_12" in ASCII. */
char *fmt_sub(int i1, const FmtOpt *o, char *buf, size_t len);
/* The subscript of a cell, "₁₂", or "₁,₁₂" when an index has two digits. */
char *fmt_sub2(int i1, int j1, const FmtOpt *o, char *buf, size_t len);
/* Write the lines explaining e. Returns the number of lines (0 for EX_NONE).
 * A sum whose operands, as shown, do not give the result as shown ends in
 * "≈" ("~" in ASCII) instead of "=". */
int fmt_explain(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int max);
/* The ≈ rule, for every arithmetic line: v as the screen shows it (rounded
 * to o->digits), to recompute a result from its printed operands; then
 * " = " when that recomputed value `from` prints as `result` does, else
 * " ≈ " (" ~ " in ASCII): a reader redoing it gets another last digit.
 * A hidden value (FMT_HIDDEN, NaN) is not judged; a result the printed
 * operands cannot give at all (−ln 0.000 is ∞) is " ≈ ". */
double fmt_shown(double v, const FmtOpt *o);
const char *fmt_eq(double from, double result, const FmtOpt *o);
/* The same over n values ("exp(s) = [a, b, c]"): " ≈ " when any differs. */
const char *fmt_eq_vec(const double *from, const double *result, int n, const FmtOpt *o);
/* Once per screen: append "   (≈: computed before rounding)" to the first
 * of lines[0..n) that says " ≈ ", unless *noted; then set *noted. */
void fmt_note_approx(char lines[][FMT_LINE], int n, bool ascii, bool *noted);
/* Append that note to line (a FMT_LINE buffer) whatever it says. */
void fmt_note_add(char *line, bool ascii);
/* The shortest text that reads back (strtod) as exactly v, always with a
 * '.' whatever LC_NUMERIC says: 1e+300, 1e-09, 0.1, -2.5. Returns buf. */
char *fmt_exact(double v, char *buf, size_t len);

#endif

#ifndef QKV_FMT_SESSION
#define QKV_FMT_SESSION
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
