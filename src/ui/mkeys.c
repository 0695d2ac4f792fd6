/* mkeys.c - the requests of model lessons: { } the layer shown, M the
 * model view, i the input field prefilled with `tokens = ...`, g / G one
 * and a hundred training steps, W the watch mode (a step batch each time
 * the back end's wait for a key runs out, ui_watch_tick, all of a run's
 * batches one edit; any key stops it, and u then undoes the whole run). In a one-layer lesson { } M i W say
 * they are for model lessons, and g G keep their meaning (requests.c).
 * Nothing here reads the clock: the back end asks ui_watching() how long
 * to wait. */
#include <stdio.h>
#include <string.h>

#include "lesson/lmodel.h"
#include "text/i18n.h"
#include "ui_int.h"

#define WATCH_BATCH 5 /* training steps per frame of the terminal's watch mode: ~25 ms at lesson 18's size */
#define WATCH_SLICE_MAX 10 /* the most steps ui_watch_tick_n takes in one frame */

/* A model lesson? Else say what the key is for. */
static bool model_only(View *v)
{
    if (session_is_model(&v->s) && session_model(&v->s))
        return true;
    ui_say(v, ROLE_HINT, _("This key works only in model lessons (lessons with a model: section)."));
    return false;
}

/* A model lesson that trains (a train: section)? Else say so. */
static bool trains(View *v)
{
    if (!model_only(v))
        return false;
    if (v->lesson->model->train.given)
        return true;
    ui_say(v, ROLE_HINT, _("This lesson has no train: section, so there is nothing to train on."));
    return false;
}

static int layer_by(View *v, int d)
{
    if (!model_only(v))
        return FLAG_REDRAW;
    if (session_stage(&v->s) == MSTAGE_NEXT && !v->mview) { /* the model view pages by layer at every stage */
        ui_say(v, ROLE_HINT, _("Stage 8 comes after the last layer; { and } show a layer at the other stages."));
        return FLAG_REDRAW;
    }
    int l = session_set_layer(&v->s, session_layer(&v->s) + d);
    char msg[128];
    snprintf(msg, sizeof msg, _("Layer %d of %d."), l, session_model(&v->s)->cfg.layers);
    ui_say(v, ROLE_HINT, msg);
    view_clamp_focus(v);
    return FLAG_REDRAW;
}

int req_layer_prev(View *v, UiKey ch) { return layer_by(v, -1); }
int req_layer_next(View *v, UiKey ch) { return layer_by(v, 1); }

int req_model_view(View *v, UiKey ch)
{
    if (!model_only(v))
        return FLAG_REDRAW;
    v->mview = !v->mview;
    v->msg[0] = '\0';
    return FLAG_REDRAW;
}

/* The ':' prompt, opened with "tokens = A B C" (the input shown). */
int req_tokens(View *v, UiKey ch)
{
    if (!model_only(v))
        return FLAG_REDRAW;
    const Model *m = session_model(&v->s);
    const LessonModel *lm = v->lesson->model;
    char text[PROMPT_MAX];
    snprintf(text, sizeof text, "tokens =");
    for (int i = 0; i < m->n; i++) {
        size_t n = strlen(text);
        snprintf(text + n, sizeof text - n, " %s", lm->vocab[m->tok[i]]);
    }
    v->mode = MODE_PROMPT; /* the ':' prompt's field (req_prompt), holding the input shown */
    v->hpos = v->nhist;
    v->msg[0] = '\0';
    field_set(&v->field, text);
    return FLAG_REDRAW;
}

/* g and G in a model lesson: steps on the lesson's loss. */
int model_steps(View *v, int n)
{
    char text[32];
    if (!trains(v))
        return FLAG_REDRAW;
    snprintf(text, sizeof text, "step %d", n);
    return ui_act(v, text);
}

int req_watch(View *v, UiKey ch)
{
    if (!trains(v))
        return FLAG_REDRAW;
    v->watch = true;
    v->ran = true;
    v->run_from = v->s.nedits;
    ui_say(v, ROLE_HINT, _("Watching it learn: any key stops; u then undoes the whole run."));
    return FLAG_REDRAW;
}

bool ui_watching(const View *v)
{
    return v->watch;
}

int ui_watch_tick(View *v)
{
    return ui_watch_tick_n(v, WATCH_BATCH);
}

int ui_watch_tick_n(View *v, int n)
{
    char text[32], err[256], msg[512];
    if (!v->watch)
        return FLAG_NONE;
    int k = n < 1 ? 1 : n > WATCH_SLICE_MAX ? WATCH_SLICE_MAX : n;
    snprintf(text, sizeof text, "step %d", k);
    /* the run's slices add up in one edit (a `step N` the log replays at once), so a
     * long run never meets the edits' limit; a new edit when one reaches 10,000 */
    if (!session_train_more(&v->s, k, v->s.nedits > v->run_from, err, sizeof err)) { /* a NaN: stop, and say why */
        v->watch = false;
        v->run_end = v->s.nedits;
        snprintf(msg, sizeof msg, "%s: %s", text, err);
        ui_say(v, ROLE_ERROR, msg);
    }
    return FLAG_REDRAW;
}

/* A key during the watch mode stops it (and does nothing else). */
int ui_watch_stop(View *v)
{
    char msg[256];
    v->watch = false;
    v->run_end = v->s.nedits;
    snprintf(msg, sizeof msg, _("Stopped after %ld training steps in all; u undoes the whole run."),
             session_train_steps(&v->s));
    ui_say(v, ROLE_HINT, msg);
    return FLAG_REDRAW;
}

/* u after a watch run: back to before it, all its batches at once. */
bool ui_undo_run(View *v)
{
    if (!v->ran || v->watch || v->s.nedits != v->run_end || v->s.nedits <= v->run_from)
        return false; /* no run, or something done after it: u takes back that */
    session_undo_n(&v->s, v->s.nedits - v->run_from); /* one rebuild, not one a slice */
    v->ran = false;
    ui_say(v, ROLE_HINT, _("Undid the whole training run."));
    return true;
}
