/* saveplan.h - what a saved lesson replays, and where (DESIGN.md
 * "Lesson files", Saving; save.h writes it).
 *
 * A saved lesson is the lesson itself (its base, its options, every step
 * with its do:, expect:, ask:) plus the student's edits, each written under
 * `edited:` at the step where it was made: its earlier steps are the
 * lesson's own, and from the first edit on it departs. The plan places the
 * edits in effect (those after the last reset, in order: an edit made
 * after going back waits for the one before it) and checks the replay: when
 * the script between two edits would change what they did, and so the
 * state at the saved step would not be the one the student saw, every edit
 * goes to the saved step instead, where the replay is the session's own.
 * An action that fails in the replay (the session skipped it too) and a
 * later do: that the edits made impossible are left out. Pure: reads the
 * session, allocates the plan only. */
#ifndef QKV_SAVEPLAN_H
#define QKV_SAVEPLAN_H

#include <stdbool.h>
#include "session.h"

typedef struct {
    int first;          /* the first step an edit is written at (the lesson's steps: none) */
    int from, nedit;    /* the edits written are the session's edits[from .. nedit) */
    short *at;          /* ... at[n - from] the step each is written at */
    bool *keep;         /* ... and whether it is written */
    bool **keep_do;     /* keep_do[k][a]: step k's do: action a is written */
    bool **keep_old;    /* keep_old[k][a]: step k's own edited: action a is written */
    int nsteps;         /* keep_do and keep_old have one entry per step */
} SavePlan;

/* Plan the save of s; false when out of memory (the plan is then empty). */
bool save_plan(const Session *s, SavePlan *p);
void save_plan_free(SavePlan *p);

#endif
