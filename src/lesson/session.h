/* session.h - a lesson being stepped through and edited.
 *
 * The session owns the script cursor (which step is shown), the user's
 * edits, undo and redo, and the pipeline state that results. The state at
 * step N is: the lesson's base, then the `do:` actions of steps 1..N, then
 * the user's actions in order, computed up to step N's stage. Every change
 * to the numbers goes through session_act(): the view's prompt, its cell
 * editor and nudges produce action text; nothing else writes to matrices.
 *
 * `before` is the state as it was just before the last change (a user
 * action, or the `do:` of the step just entered), at the same stage, so the
 * view can show 0.313 -> 0.873 and mark changed cells. */
#ifndef QKV_SESSION_H
#define QKV_SESSION_H

#include <stdbool.h>
#include "lesson.h"

#define SESSION_MAX_EDITS 1024

typedef struct {
    const Lesson *lesson;
    int step;                 /* 0-based index into lesson->steps */
    Attn cur;                 /* the state shown */
    Attn before;              /* the state before the last change */
    bool has_before;          /* a change happened on the last move/action */
    Action *edits;            /* the user's actions, applied after the script */
    int nedits, nredo, cap;   /* edits[nedits..nedits+nredo) can be redone */
    int saved_nedits;         /* nedits when last saved (or -1 when diverged) */
    int fresh_stage;          /* the stage computed by the last keypress, 0 none */
    AskState *asked;          /* one per ask of the lesson, in step order (live.h); NULL: all open */
} Session;

bool session_init(Session *s, const Lesson *l);
void session_free(Session *s);

int session_steps(const Session *s);
const Step *session_step(const Session *s);
int session_stage(const Session *s);   /* stage of the current step */
/* Move the cursor to step n (clamped). Recomputes. Returns true if moved. */
bool session_goto(Session *s, int n);
bool session_next(Session *s);
bool session_prev(Session *s);
/* Jump to a step showing `stage`: a later stage after the current step, an
 * earlier one before it, at the first step of that run of steps (or, when
 * no step shows it, the nearest stage below it). */
bool session_goto_stage(Session *s, int stage);

/* Parse and apply one action typed by the user (or made by the editor).
 * On error nothing changes and err holds one line. */
bool session_act_text(Session *s, const char *text, char *err, size_t errlen);
bool session_act(Session *s, const Action *act, char *err, size_t errlen);
bool session_undo(Session *s);
bool session_redo(Session *s);
bool session_dirty(const Session *s);
void session_mark_saved(Session *s);

/* Is row i of Q/K/V (mat) set by hand in the current state? */
bool session_overridden(const Session *s, MatId mat, int i);

#endif
