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

/* Who set a number: nobody (the lesson's data, or X·W), the script (the
 * file's `overrides:` or a step's `do:`), or the student (hand edits). */
typedef enum { OV_NONE, OV_SCRIPT, OV_HAND } Override;

/* Where an overridden row or an edited cell came from. */
typedef struct {
    unsigned char by;         /* Override */
    short step;               /* OV_SCRIPT: the 0-based step whose do: set it, -1 the file's overrides: */
    short act;                /* OV_SCRIPT: which action of that step */
} Origin;

typedef struct Session {
    const Lesson *lesson;
    int step;                 /* 0-based index into lesson->steps */
    Attn cur;                 /* the state shown */
    Attn before;              /* the state before the last change */
    bool has_before;          /* a change happened on the last move/action */
    bool undone;              /* that change was an undo: no trace line describes it */
    Action *edits;            /* the user's actions, applied after the script */
    short *edit_step;         /* the 0-based step each of them was made at (a save replays it there) */
    int nedits, nredo, cap;   /* edits[nedits..nedits+nredo) can be redone */
    int saved_nedits;         /* nedits when last saved (or -1 when diverged) */
    int fresh_stage;          /* the stage computed by the last keypress, 0 none */
    /* Who set what in `cur` (kept by the session after every change) */
    Origin row_by[3][MAT_MAX];             /* rows of Q, K, V */
    unsigned char cell_by[4][MAT_MAX * MAT_MAX]; /* cells of X, Wq, Wk, Wv: Override */
    int cell_by_top[4];       /* cell_by[m][cell_by_top[m]..] is all zero (track clears only below) */
    AskState *asked;          /* one per ask of the lesson, in step order (live.h); NULL: all open */
    /* a model lesson (lesson->model != NULL; session_model.c): the state
     * shown and the one before the last change, the layer shown, and the
     * training run's state (optimizer, feed, loss history) with the
     * script's cached states and the snapshots (NULL: not a model lesson) */
    Model *mcur, *mbefore;
    int layer;
    struct SessionTrain *train;
    int head;                 /* the head looked at (1-based): stages 3-5 show it, the trace follows
                                 it; a step focused on a head's matrix ("A2[1]") sets it */
} Session;

bool session_init(Session *s, const Lesson *l);
void session_free(Session *s);
/* Look at head h (1..heads, wrapping around); returns the head now shown. */
int session_set_head(Session *s, int h);

int session_steps(const Session *s);
const Step *session_step(const Session *s);
int session_stage(const Session *s);   /* stage of the current step */
/* Move the cursor to step n (clamped). Recomputes. Returns true if moved. */
bool session_goto(Session *s, int n);
bool session_next(Session *s);
bool session_prev(Session *s);
/* Jump to a step showing `stage`: a later stage after the current step, an
 * earlier one before it, at the first step of that run of steps. When no
 * step shows it, nothing moves (session_has_stage() tells the caller why). */
bool session_goto_stage(Session *s, int stage);
/* Does any step of the lesson show `stage`? */
bool session_has_stage(const Session *s, int stage);
/* The first step after the current one at `stage` or later, else the first
 * before it; -1 when none (0-based). */
int session_step_reaching(const Session *s, int stage);
/* Open at step n (0-based, clamped) as if the lesson started there: no
 * before, the stage fresh. For --at N in the view. */
void session_open_at(Session *s, int n);

/* Parse and apply one action typed by the user (or made by the editor).
 * On error nothing changes and err holds one line. */
bool session_act_text(Session *s, const char *text, char *err, size_t errlen);
bool session_act(Session *s, const Action *act, char *err, size_t errlen);
/* n training steps (`step n`); with more, in a model lesson, added to the
 * last edit when it is a step at this step with nothing to redo and the sum
 * stays a step the log can write (the watch mode: a run of any length is
 * one edit, undone at once), else a new edit. */
bool session_train_more(Session *s, int n, bool more, char *err, size_t errlen);
bool session_undo(Session *s);
/* The last n edits undone at once (all redoable), the state rebuilt once:
 * a watch run of many slices (ui's u), without a rebuild per slice. */
bool session_undo_n(Session *s, int n);
bool session_redo(Session *s);
bool session_dirty(const Session *s);
void session_mark_saved(Session *s);

/* Is row i of Q/K/V (mat) overridden (set by the script or by hand) in the
 * current state? */
bool session_overridden(const Session *s, MatId mat, int i);
/* Who set row i of Q/K/V, or cell (i, j) of X/Wq/Wk/Wv (j ignored for
 * Q/K/V): OV_NONE when it is as computed or as the lesson wrote it. */
Override session_override_by(const Session *s, MatId mat, int i);
Override session_cell_by(const Session *s, MatId mat, int i, int j);
/* Where an overridden Q/K/V row came from (by OV_NONE when not overridden). */
Origin session_row_origin(const Session *s, MatId mat, int i);
/* The action the next undo / redo would take back / apply again, or NULL. */
const Action *session_undoable(const Session *s);
const Action *session_redoable(const Session *s);

/* ---- model lessons (session_model.c) ----------------------------------------- */
/* Is the lesson a model lesson (lesson->model)? Then cur and before are
 * not used: the state is mcur (and mbefore), every stage 1..8 of step and
 * action applies to it, and the functions below tell the view. */
bool session_is_model(const Session *s);
const Model *session_model(const Session *s);
/* The state before the last change, or NULL when there was none. */
const Model *session_model_before(const Session *s);
/* The layer shown, 1..layers; a step sets it, and so do these keys. */
int session_layer(const Session *s);
/* Show layer l (wrapping around 1..layers); returns the layer now shown. */
int session_set_layer(Session *s, int l);
/* The training run's loss history (one per step taken in this session, in
 * order; NULL and 0 when none) and the steps taken in all. */
int session_loss_history(const Session *s, const double **loss);
long session_train_steps(const Session *s);
/* What the last action noted beside its effect ("generate stopped at the
 * 14 tokens the model reads (ctx), after 2"), "" when nothing. */
const char *session_model_note(const Session *s);

#endif
