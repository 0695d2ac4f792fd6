/* session.c - the script cursor, the user's edits, undo/redo (see session.h). */
#include "session.h"
#include "session_hooks.h"
#include "text/i18n.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int session_steps(const Session *s)
{
    return s->lesson->nsteps;
}

const Step *session_step(const Session *s)
{
    return &s->lesson->steps[s->step];
}

int session_stage(const Session *s)
{
    return s->lesson->steps[s->step].stage;
}

/* Apply one action during a replay; `reset` goes back to `origin`. */
static void replay_one(Attn *a, const Action *act, const Attn *origin)
{
    char err[160];
    if (act->kind == ACT_RESET) {
        attn_copy(a, origin);
        return;
    }
    (void)action_apply(a, act, err, sizeof err); /* checked when first applied */
}

/* Build the state of step `upto` from scratch: the base, the script's
 * actions of steps 0..upto (the last one's only when with_last; each
 * step's do:, then a saved lesson's edited: of that step), then the
 * user's edits, computed to that step's stage. On success *a (which may
 * hold a previous state) is replaced; when out of memory it is left as it
 * was and false is returned. */
static bool rebuild(const Session *s, int upto, bool with_last, Attn *a)
{
    const Lesson *l = s->lesson;
    Attn base = {0}, script = {0}, next = {0};
    bool ok = lesson_base(l, &base) && attn_copy(&next, &base);
    for (int k = 0; ok && k <= upto; k++) {
        if (k == upto && !with_last)
            break;
        for (int n = 0; n < l->steps[k].nact; n++)
            replay_one(&next, &l->steps[k].act[n], &base);
        for (int n = 0; n < l->steps[k].nedit; n++) /* a saved lesson's student actions, after its do: */
            replay_one(&next, &l->steps[k].edit[n], &base);
    }
    ok = ok && attn_copy(&script, &next);
    for (int n = 0; ok && n < s->nedits; n++)
        replay_one(&next, &s->edits[n], &script);
    if (ok) {
        attn_run_to(&next, l->steps[upto].stage);
        attn_free(a);
        *a = next;
    } else {
        attn_free(&next);
    }
    attn_free(&base);
    attn_free(&script);
    return ok;
}

/* A swap trades two tokens' rows: who set them goes with them. */
static void swap_marks(Session *s, int a, int b)
{
    int cols = s->cur.m[M_X].cols;
    if (a < 0 || b < 0 || a >= MAT_MAX || b >= MAT_MAX || a == b)
        return;
    for (int p = 0; p < 3; p++) {
        Origin t = s->row_by[p][a];
        s->row_by[p][a] = s->row_by[p][b];
        s->row_by[p][b] = t;
    }
    int top = ((a > b ? a : b) + 1) * cols;
    if (top > s->cell_by_top[M_X])
        s->cell_by_top[M_X] = top;
    for (int j = 0; j < cols && j < MAT_MAX; j++) {
        unsigned char t = s->cell_by[M_X][a * cols + j];
        s->cell_by[M_X][a * cols + j] = s->cell_by[M_X][b * cols + j];
        s->cell_by[M_X][b * cols + j] = t;
    }
}

/* Record who set what an action writes (see track). */
static void mark(Session *s, const Action *act, Origin o)
{
    if (act->kind == ACT_SWAP) {
        if (act->i < s->cur.m[M_X].rows && act->src_i < s->cur.m[M_X].rows)
            swap_marks(s, act->i, act->src_i);
        return;
    }
    MatId m = act->mat;
    if (attn_mat_head(m)) /* "Q2[1]": a part of Q's row 1 */
        m = attn_mat_base(m);
    int cols = s->cur.m[m].cols;
    if ((act->kind != ACT_ROW_COPY && act->kind != ACT_ROW_SET && act->kind != ACT_CELL_SET) || act->i < 0 ||
        act->i >= s->cur.m[m].rows || act->i >= MAT_MAX)
        return;
    if (m >= M_Q && m <= M_V) {
        s->row_by[m - M_Q][act->i] = o;
        return;
    }
    if (m > M_WV || cols > MAT_MAX)
        return;
    if ((act->i + 1) * cols > s->cell_by_top[m])
        s->cell_by_top[m] = (act->i + 1) * cols;
    for (int j = 0; j < cols; j++)
        if (act->kind != ACT_CELL_SET || j == act->j)
            s->cell_by[m][act->i * cols + j] = o.by;
}

/* The last `reset` among n actions, or -1: what came before it is undone. */
static int last_reset(const Action *act, int n)
{
    int r = -1;
    for (int k = 0; k < n; k++)
        r = act[k].kind == ACT_RESET ? k : r;
    return r;
}

/* Work out who set each overridden row and each edited cell of the current
 * state: the file's overrides, then the script's do: of steps 0..step, then
 * the student's edits (a reset drops what came before it). */
static void track(Session *s)
{
    const Lesson *l = s->lesson;
    int from = 0, from_act = 0;
    memset(s->row_by, 0, sizeof s->row_by);
    for (int m = 0; m < 4; m++) { /* only where a mark may stand: the whole table is 16 KB */
        int top = s->cell_by_top[m];
        memset(s->cell_by[m], 0, (size_t)(top < 0 ? 0 : top < MAT_MAX * MAT_MAX ? top : MAT_MAX * MAT_MAX));
        s->cell_by_top[m] = 0;
    }
    for (int k = 0; k <= s->step; k++) { /* a script reset: start after it */
        int r = last_reset(l->steps[k].act, l->steps[k].nact);
        if (r >= 0)
            from = k, from_act = r + 1;
    }
    for (int m = 0; m < 3 && from == 0 && from_act == 0; m++)
        for (int i = 0; i < MAT_MAX; i++)
            if (l->override[m][i])
                s->row_by[m][i] = (Origin){OV_SCRIPT, -1, 0};
    for (int k = from; k <= s->step; k++) {
        for (int n = k == from ? from_act : 0; n < l->steps[k].nact; n++)
            mark(s, &l->steps[k].act[n], (Origin){OV_SCRIPT, (short)k, (short)n});
        for (int n = 0; n < l->steps[k].nedit; n++) /* a saved lesson's student edits: by hand */
            mark(s, &l->steps[k].edit[n], (Origin){OV_HAND, -1, 0});
    }
    for (int n = last_reset(s->edits, s->nedits) + 1; n < s->nedits; n++)
        mark(s, &s->edits[n], (Origin){OV_HAND, -1, 0});
}

bool session_init(Session *s, const Lesson *l)
{
    memset(s, 0, sizeof *s);
    s->lesson = l;
    s->saved_nedits = 0;
    s->step = l->start > 0 ? l->start - 1 : 0;
    if (l->model) { /* a model lesson (session_model.c) */
        if (!session_model_init(s, l)) {
            session_free(s);
            return false;
        }
        return true;
    }
    if (!rebuild(s, s->step, true, &s->cur)) {
        session_free(s);
        return false;
    }
    s->fresh_stage = session_stage(s);
    s->head = 1;
    if (attn_mat_head(l->steps[s->step].focus.mat) && l->steps[s->step].focus.kind != FOCUS_NONE)
        s->head = attn_mat_head(l->steps[s->step].focus.mat);
    track(s);
    return true;
}

void session_free(Session *s)
{
    session_model_free(s);
    attn_free(&s->cur);
    attn_free(&s->before);
    free(s->edits);
    free(s->edit_step);
    free(s->asked);
    memset(s, 0, sizeof *s);
}

/* Do any steps in (from, to] carry script actions? */
static bool script_acts_between(const Session *s, int from, int to)
{
    int lo = from < to ? from + 1 : to + 1, hi = from < to ? to : from;
    for (int k = lo; k <= hi; k++)
        if (s->lesson->steps[k].nact > 0 || s->lesson->steps[k].nedit > 0)
            return true;
    return false;
}

bool session_goto(Session *s, int n)
{
    if (n < 0)
        n = 0;
    if (n >= session_steps(s))
        n = session_steps(s) - 1;
    if (n == s->step)
        return false;
    if (session_is_model(s))
        return session_model_goto(s, n);
    int old = s->step, old_stage = session_stage(s);
    s->step = n;
    s->undone = false;
    int stage = session_stage(s);
    if (!script_acts_between(s, old, n)) {
        /* Same inputs: compute only the stages not yet reached, or hide. */
        if (stage > s->cur.reached)
            for (int k = s->cur.reached + 1; k <= stage; k++)
                attn_run_stage(&s->cur, k);
        else
            s->cur.reached = stage;
        s->has_before = false;
    } else {
        if (!rebuild(s, n, true, &s->cur)) { /* out of memory: stay where we were */
            s->step = old;
            return false;
        }
        s->has_before = n > old && (s->lesson->steps[n].nact > 0 || s->lesson->steps[n].nedit > 0) &&
                        rebuild(s, n, false, &s->before);
    }
    /* What entering a stage computed stays fresh while the stage lasts. */
    s->fresh_stage = stage > old_stage ? stage : stage == old_stage ? s->fresh_stage : 0;
    const Focus *f = &s->lesson->steps[n].focus;
    if (f->kind != FOCUS_NONE && attn_mat_head(f->mat))
        s->head = attn_mat_head(f->mat);
    track(s);
    return true;
}

int session_set_head(Session *s, int h)
{
    int heads = session_is_model(s) ? s->mcur->cfg.heads : attn_heads(&s->cur);
    s->head = ((h - 1) % heads + heads) % heads + 1;
    return s->head;
}

bool session_next(Session *s)
{
    return session_goto(s, s->step + 1);
}

bool session_prev(Session *s)
{
    return session_goto(s, s->step - 1);
}

bool session_goto_stage(Session *s, int stage)
{
    const Step *st = s->lesson->steps;
    int n = session_steps(s), cur = session_stage(s), pick = -1;
    /* A lesson may tell its story twice (lesson 05): a later stage is looked
     * for after the current step, an earlier one before it, the current
     * one where it is; then the first step of that run of steps. */
    if (stage > cur) {
        for (int k = s->step + 1; k < n && pick < 0; k++)
            pick = st[k].stage == stage ? k : -1;
    } else {
        for (int k = s->step; k >= 0 && pick < 0; k--)
            pick = st[k].stage == stage ? k : -1;
    }
    for (int k = 0; k < n && pick < 0; k++) /* not on that side: anywhere */
        if (st[k].stage == stage)
            pick = k;
    if (pick < 0) /* no step shows it: stay (the view says so) */
        return false;
    while (pick > 0 && st[pick - 1].stage == stage)
        pick--;
    return session_goto(s, pick);
}

bool session_has_stage(const Session *s, int stage)
{
    for (int k = 0; k < session_steps(s); k++)
        if (s->lesson->steps[k].stage == stage)
            return true;
    return false;
}

int session_step_reaching(const Session *s, int stage)
{
    for (int k = s->step + 1; k < session_steps(s); k++)
        if (s->lesson->steps[k].stage >= stage)
            return k;
    for (int k = s->step - 1; k >= 0; k--)
        if (s->lesson->steps[k].stage >= stage)
            return k;
    return -1;
}

void session_open_at(Session *s, int n)
{
    session_goto(s, n);
    s->has_before = false;
    s->fresh_stage = session_stage(s);
}

/* Make *next the current state (taking ownership); the old one becomes
 * `before`, for the view's before -> after. */
static void adopt(Session *s, Attn *next)
{
    Attn old = s->before;
    s->before = s->cur;
    s->cur = *next;
    attn_free(&old);
    s->has_before = true;
    s->undone = false;
    s->fresh_stage = 0;
}

bool session_train_more(Session *s, int n, bool more, char *err, size_t errlen)
{
    Action act = {.kind = ACT_STEP, .n = n};
    return session_is_model(s) ? session_model_train_more(s, n, more, err, errlen) : session_act(s, &act, err, errlen);
}

bool session_act(Session *s, const Action *act, char *err, size_t errlen)
{
    if (session_is_model(s))
        return session_model_act(s, act, err, errlen);
    Attn next = {0};
    bool ok;
    if (act->kind == ACT_RESET && s->nedits >= SESSION_MAX_EDITS) {
        s->nedits = s->nredo = 0; /* a full log: reset starts a new history */
        s->saved_nedits = -1;
    }
    bool mem = true;
    if (act->kind == ACT_RESET) {
        /* Back to the lesson as written at this step: replay without edits. */
        int keep = s->nedits;
        s->nedits = 0;
        ok = mem = rebuild(s, s->step, true, &next);
        s->nedits = keep;
    } else {
        ok = (mem = attn_copy(&next, &s->cur)) && action_apply(&next, act, err, errlen);
    }
    if (ok && s->nedits >= SESSION_MAX_EDITS) {
        snprintf(err, errlen, _("too many edits (%d); press r to reset first"), SESSION_MAX_EDITS);
        ok = false;
    }
    if (ok && !session_log_push(s, act))
        ok = mem = false;
    if (!ok) {
        if (!mem)
            snprintf(err, errlen, "%s", _("out of memory; nothing was changed"));
        attn_free(&next);
        return false;
    }
    attn_run_to(&next, session_stage(s));
    adopt(s, &next);
    track(s);
    return true;
}

bool session_act_text(Session *s, const char *text, char *err, size_t errlen)
{
    Action act;
    int col;
    if (session_is_model(s))
        return session_model_act_text(s, text, err, errlen);
    if (!action_parse(text, &act, err, errlen, &col))
        return false;
    return session_act(s, &act, err, errlen);
}

/* Recompute after the edit log changed, keeping the old state as `before`. */
static void relog(Session *s)
{
    Attn next = {0};
    if (session_is_model(s)) {
        session_model_relog(s);
        return;
    }
    if (!rebuild(s, s->step, true, &next))
        return;
    adopt(s, &next);
    track(s);
}

bool session_undo(Session *s)
{
    if (s->nedits == 0)
        return false;
    s->nedits--;
    s->nredo++;
    relog(s);
    s->undone = true;
    return true;
}

bool session_undo_n(Session *s, int n)
{
    if (n <= 0 || s->nedits < n)
        return false;
    s->nedits -= n;
    s->nredo += n;
    relog(s);
    s->undone = true;
    return true;
}

bool session_redo(Session *s)
{
    if (s->nredo == 0)
        return false;
    s->nedits++;
    s->nredo--;
    relog(s);
    return true;
}

bool session_dirty(const Session *s)
{
    return s->nedits != s->saved_nedits;
}

void session_mark_saved(Session *s)
{
    s->saved_nedits = s->nedits;
}

bool session_overridden(const Session *s, MatId mat, int i)
{
    mat = attn_mat_base(mat);
    if (mat < M_Q || mat > M_V || i < 0 || i >= MAT_MAX)
        return false;
    return s->cur.override[mat - M_Q][i];
}

Origin session_row_origin(const Session *s, MatId mat, int i)
{
    Origin none = {OV_NONE, -1, 0};
    mat = attn_mat_base(mat);
    if (!session_overridden(s, mat, i))
        return none;
    Origin o = s->row_by[mat - M_Q][i];
    if (o.by == OV_NONE) /* overridden, yet no action says so: the lesson's */
        o = (Origin){OV_SCRIPT, -1, 0};
    return o;
}

Override session_override_by(const Session *s, MatId mat, int i)
{
    return (Override)session_row_origin(s, mat, i).by;
}

Override session_cell_by(const Session *s, MatId mat, int i, int j)
{
    if (mat >= M_Q && mat <= M_V)
        return session_override_by(s, mat, i);
    if (mat < M_X || mat > M_WV || i < 0 || j < 0 || i >= s->cur.m[mat].rows || j >= s->cur.m[mat].cols)
        return OV_NONE;
    return (Override)s->cell_by[mat][i * s->cur.m[mat].cols + j];
}

const Action *session_undoable(const Session *s)
{
    return s->nedits > 0 ? &s->edits[s->nedits - 1] : NULL;
}

const Action *session_redoable(const Session *s)
{
    return s->nredo > 0 ? &s->edits[s->nedits] : NULL;
}
