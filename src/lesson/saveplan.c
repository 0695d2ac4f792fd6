/* saveplan.c - placing a session's edits on the steps of a saved lesson
 * (see saveplan.h). */
#include "saveplan.h"

#include <stdlib.h>
#include <string.h>

#include "departures.h"

/* Apply act as a replay does (a reset goes back to base); true when it
 * took. */
static bool replay_one(Attn *a, const Action *act, const Attn *base)
{
    char err[256];
    if (act->kind == ACT_RESET)
        return attn_copy(a, base);
    return action_apply(a, act, err, sizeof err);
}

/* The state at the saved step with the edits placed as p says (p->keep set
 * to whether each took), as the reopened lesson's session will build it. */
static bool replay_placed(const Session *s, SavePlan *p, Attn *out)
{
    const Lesson *l = s->lesson;
    Attn base = {0};
    bool ok = lesson_base(l, &base) && attn_copy(out, &base);
    for (int k = 0; ok && k <= s->step; k++) {
        for (int a = 0; a < l->steps[k].nact; a++)
            replay_one(out, &l->steps[k].act[a], &base);
        for (int a = 0; a < l->steps[k].nedit; a++)
            replay_one(out, &l->steps[k].edit[a], &base);
        for (int n = p->from; n < p->nedit; n++)
            if (p->at[n - p->from] == k)
                p->keep[n - p->from] = replay_one(out, &s->edits[n], &base);
    }
    if (ok)
        attn_run_to(out, l->steps[s->step].stage);
    attn_free(&base);
    return ok;
}

/* The loader's check of the file to be written (every do: and edited: on
 * one scratch state, step by step; reset is not applied there): what would
 * fail there after the first edit is left out. */
static bool check_as_loaded(const Session *s, SavePlan *p)
{
    const Lesson *l = s->lesson;
    char err[256];
    Attn a = {0};
    if (!lesson_base(l, &a))
        return false;
    for (int k = 0; k < l->nsteps; k++) {
        const Step *st = &l->steps[k];
        for (int n = 0; n < st->nact; n++)
            p->keep_do[k][n] = st->act[n].kind == ACT_RESET || action_apply(&a, &st->act[n], err, sizeof err) ||
                               k < p->first;
        for (int n = 0; n < st->nedit; n++)
            p->keep_old[k][n] = st->edit[n].kind == ACT_RESET || action_apply(&a, &st->edit[n], err, sizeof err) ||
                                k < p->first;
        for (int n = p->from; n < p->nedit; n++)
            if (p->at[n - p->from] == k && p->keep[n - p->from])
                p->keep[n - p->from] = action_apply(&a, &s->edits[n], err, sizeof err);
    }
    attn_free(&a);
    return true;
}

/* Each edit at the step it was made, never before the one it follows nor
 * after the saved step; or (at_end) all at the saved step. */
static void place(const Session *s, SavePlan *p, bool at_end)
{
    int prev = 0;
    p->first = s->lesson->nsteps;
    for (int n = p->from; n < p->nedit; n++) {
        int k = at_end ? s->step : s->edit_step[n];
        k = k < prev ? prev : k > s->step ? s->step : k;
        p->at[n - p->from] = (short)(prev = k);
        p->keep[n - p->from] = true;
        if (k < p->first)
            p->first = k;
    }
    for (int k = 0; k < s->lesson->nsteps; k++)
        if (s->lesson->steps[k].nedit > 0 && k < p->first)
            p->first = k;
}

static bool plan_alloc(const Session *s, SavePlan *p)
{
    const Lesson *l = s->lesson;
    int n = p->nedit - p->from;
    p->at = calloc((size_t)(n ? n : 1), sizeof *p->at);
    p->keep = calloc((size_t)(n ? n : 1), sizeof *p->keep);
    p->keep_do = calloc((size_t)l->nsteps, sizeof *p->keep_do);
    p->keep_old = calloc((size_t)l->nsteps, sizeof *p->keep_old);
    bool ok = p->at && p->keep && p->keep_do && p->keep_old;
    p->nsteps = p->keep_do && p->keep_old ? l->nsteps : 0;
    for (int k = 0; ok && k < l->nsteps; k++) {
        p->keep_do[k] = calloc((size_t)l->steps[k].nact + 1, sizeof **p->keep_do);
        p->keep_old[k] = calloc((size_t)l->steps[k].nedit + 1, sizeof **p->keep_old);
        ok = p->keep_do[k] && p->keep_old[k];
    }
    return ok;
}

bool save_plan(const Session *s, SavePlan *p)
{
    memset(p, 0, sizeof *p);
    p->nedit = s->nedits;
    for (int n = 0; n < s->nedits; n++)
        if (s->edits[n].kind == ACT_RESET)
            p->from = n + 1; /* a reset went back to the script: what came before it is gone */
    if (!plan_alloc(s, p)) {
        save_plan_free(p);
        return false;
    }
    Attn got = {0};
    place(s, p, false);
    bool ok = replay_placed(s, p, &got);
    if (ok && !session_same_inputs(&got, &s->cur)) { /* the script between edits changed them */
        place(s, p, true);
        attn_free(&got);
        memset(&got, 0, sizeof got);
        ok = replay_placed(s, p, &got);
    }
    attn_free(&got);
    if (!ok || !check_as_loaded(s, p)) {
        save_plan_free(p);
        return false;
    }
    return true;
}

void save_plan_free(SavePlan *p)
{
    for (int k = 0; k < p->nsteps; k++) {
        free(p->keep_do ? p->keep_do[k] : NULL);
        free(p->keep_old ? p->keep_old[k] : NULL);
    }
    free(p->at);
    free(p->keep);
    free(p->keep_do);
    free(p->keep_old);
    memset(p, 0, sizeof *p);
}
