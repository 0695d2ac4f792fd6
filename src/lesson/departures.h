/* departures.h - has the state left the lesson's script, and by which edits.
 *
 * The model's side of "the screen never contradicts itself": the script's
 * own state at this step, the student's edits still in effect, the lesson's
 * own departures (a variant, a saved lesson's edited:), named in the action
 * language with numbers shortest round-trip. The words around them (the
 * notice, the dimmed narration) are words/live.h's. No I/O, no curses. */
#ifndef QKV_DEPARTURES_H
#define QKV_DEPARTURES_H

#include <stdbool.h>
#include <stddef.h>
#include "session.h"

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

/* The about: a saved lesson gets (not expanded, templates kept): the
 * lesson's own in lang, then a note of the student's departures in effect
 * (as session_departed() names them, joined by "; "), in that language:
 * "Saved after: Q[1] = K[1] * 5; scale = none." / "保存前做过的改动：Q[1] =
 * K[1] * 5; scale = none。". NULL when there is nothing to write (or out of memory);
 * else malloc'd. */
char *session_saved_about(const Session *s, Lang lang);

/* One action in the action language, numbers shortest round-trip
 * (fmt_exact): "Q[2][1] = 5.1", "mask = causal", "step 2". */
void action_text(const Action *act, char *buf, size_t len);
/* Are a saved lesson's edits in effect at this step (its top-level
 * edited:, or a step's edited: at or before it)? --dump then says at each
 * step that the words were written for other numbers. */
bool session_saved_edits(const Session *s);
/* Does the lesson record a student's edits at all (at any step)? */
bool lesson_saved_edits(const Lesson *l);
/* Do two states have the same inputs: X, the Ws, W_O, hand-set rows,
 * options, token order, training (targets, lr, steps taken)? */
bool session_same_inputs(const Attn *a, const Attn *b);
/* The script's own state at this step (no student edits), computed to the
 * step's stage, into a zeroed Attn the caller frees. */
bool session_script_state(const Session *s, Attn *out);

#endif
