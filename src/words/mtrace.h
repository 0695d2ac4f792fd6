/* mtrace.h - the line a model lesson's change leaves on the status row
 * (DESIGN.md "From a head to a model": the effect trace follows an edit
 * through the layers to the prediction):
 *   "ablate L1.H1: p(C) 0.910 → 0.070, the prediction is now F"
 *   "undo step 10: p(B) 0.214 → 0.187, still the prediction"
 * The token is the one predicted before the change; both p's are the last
 * row's, computed to the end (stage next) whatever stage is shown, from
 * session_model_before() and session_model(). Numbers go through fmt_num
 * with the lesson's digits; the words are translatable. No curses; it
 * calls nothing in live.c (live.c calls it). */
#ifndef QKV_MTRACE_H
#define QKV_MTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include "lesson/session.h"

/* The line for the change just made, named `name` (effect_name's: "ablate
 * L1.H1", "undo step 10"; effect_status() calls this for a model lesson);
 * false, with the name alone, when there is nothing to compare: not a model
 * lesson, no change, out of memory. The generate's note, when it stopped
 * at ctx, follows in parentheses. */
bool session_mtrace_line(const Session *s, const char *name, bool ascii, int digits, char *buf, size_t len);

#endif
