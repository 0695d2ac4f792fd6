/* session_model.c - a model lesson's session (see session.h's model part):
 * the state at step N is the base model, the do: (and a saved lesson's
 * edited:) actions of steps 1..N, then the student's actions, computed to
 * the step's (layer, stage).
 *
 * Nothing that trains is replayed when it need not be: the script's state
 * is kept for every step that has actions (computed the first time it is
 * needed), and the state after each training action is kept as a
 * snapshot (the model, the optimizer, the feed and the loss history) keyed
 * by the script's state it started from and by how many of the student's
 * actions it includes; a rebuild starts from the latest snapshot that
 * fits. Undo of a training run takes the state before it (the snapshot
 * before, or the script's, and the cheap actions after it): bit for bit
 * what it was, as everything here is deterministic. */
#include "session.h"
#include "session_hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grad.h"
#include "core/model_back.h"
#include "lmodel.h"
#include "maction.h"
#include "text/i18n.h"
#include "traindata.h"

#define SNAP_MAX 24

/* One state with its training run. */
typedef struct {
    Model m;
    Optim o;
    TrainFeed f;
    double *loss;           /* the loss of every training step taken to make it */
    int nloss, lcap;
    bool ok;                /* holds a state */
} MState;

typedef struct {
    int ver, nedit;         /* the script's state it started from; the student's actions it includes */
    long used;
    MState st;
} Snap;

struct SessionTrain {
    int nsteps;
    int *ver;               /* ver[k]: the last step j <= k with actions (-1: none, the base) */
    int *nact;              /* each step's parsed do:, then its edited: */
    Action **act;
    MState base, *script;   /* script[j] for the steps j with actions, when computed */
    MState st3[3], *cur, *before, *next; /* the three, swapped by pointer (a state is ~170 KB) */
    Snap snap[SNAP_MAX];
    long clock;
    char note[160];
};

static void mstate_free(MState *st)
{
    model_free(&st->m);
    optim_free(&st->o);
    free(st->loss);
    memset(st, 0, sizeof *st);
}

/* optim_copy, into the moments dst has when it has them (no new allocation
 * on every keypress). */
static bool optim_reuse_copy(Optim *dst, const Optim *src)
{
    if (!dst->have_state || !src->have_state)
        return optim_copy(dst, src);
    if (!model_copy(&dst->m, &src->m) || !model_copy(&dst->v, &src->v))
        return false;
    dst->kind = src->kind, dst->lr = src->lr, dst->beta1 = src->beta1, dst->beta2 = src->beta2;
    dst->eps = src->eps, dst->t = src->t;
    return true;
}

/* Deep copy into dst (zeroed or a previous state). */
static bool mstate_copy(MState *dst, const MState *src)
{
    if (dst == src)
        return true;
    if (dst->lcap < src->nloss) {
        double *l = realloc(dst->loss, sizeof *l * (size_t)(src->nloss + 16));
        if (!l)
            return false;
        dst->loss = l;
        dst->lcap = src->nloss + 16;
    }
    if (!model_copy(&dst->m, &src->m) || !optim_reuse_copy(&dst->o, &src->o))
        return false;
    if (src->nloss)
        memcpy(dst->loss, src->loss, sizeof *src->loss * (size_t)src->nloss);
    dst->nloss = src->nloss;
    dst->f = src->f;
    dst->ok = src->ok;
    return true;
}

static void mstate_swap(MState **a, MState **b)
{
    MState *t = *a;
    *a = *b;
    *b = t;
}

/* The session's pointers to the state shown and the one before. */
static void point(Session *s)
{
    s->mcur = &s->train->cur->m;
    s->mbefore = &s->train->before->m;
}

/* "step 3 of 10 made the loss not finite (L1.Wq); nothing was changed". */
static void train_message(TrainStatus ts, long k, int n, ModelRef bad, char *err, size_t errlen)
{
    char name[32];
    model_ref_name(NULL, bad, name, sizeof name);
    if (ts == TRAIN_NOMEM)
        snprintf(err, errlen, "%s", _("out of memory; nothing was changed"));
    else if (ts == TRAIN_BAD_BATCH)
        snprintf(err, errlen, _("the train: section gives no sequence that fits the model; nothing was changed"));
    else if (ts == TRAIN_LOSS_NOT_FINITE)
        snprintf(err, errlen, _("training step %ld of %d: the loss is not finite; nothing was changed"), k, n);
    else
        snprintf(err, errlen, _("training step %ld of %d: %s would not be finite; nothing was changed"), k, n, name);
}

/* n training steps on the lesson's train: loss; the input is kept. On
 * failure st may be half-trained: the caller drops it. */
static bool mstate_train(MState *st, const TrainSpec *spec, int n, char *err, size_t errlen)
{
    int keep[MODEL_CTX_MAX], keepn = st->m.n, len[TRAIN_BATCH_MAX], nseq = 0;
    memcpy(keep, st->m.tok, sizeof(int) * (size_t)keepn);
    int *tok = malloc(sizeof *tok * (size_t)spec->batch * (size_t)st->m.cfg.ctx);
    double *l = st->lcap - st->nloss >= n ? st->loss : realloc(st->loss, sizeof *l * (size_t)(st->nloss + n + 16));
    Model g = {0};
    TrainStatus ts = TRAIN_NOMEM;
    ModelRef bad = {MM_NONE, 0, M_X};
    long k = 0;
    if (l) {
        st->loss = l;
        st->lcap = st->lcap - st->nloss >= n ? st->lcap : st->nloss + n + 16;
    }
    if (tok && l && model_grad_init(&g, &st->m)) {
        for (ts = TRAIN_OK; k < n && ts == TRAIN_OK; k++) {
            double loss = 0;
            ts = train_feed_next(&st->f, tok, len, &nseq)
                     ? model_train_step(&st->m, &g, &st->o, tok, len, nseq, &loss, &bad)
                     : TRAIN_BAD_BATCH;
            if (ts == TRAIN_OK)
                st->loss[st->nloss++] = loss;
        }
    }
    model_free(&g);
    free(tok);
    if (ts != TRAIN_OK)
        train_message(ts, k, n, bad, err, errlen);
    return model_set_tokens(&st->m, keep, keepn) && ts == TRAIN_OK; /* the student's input, always */
}

/* Apply one action to st; a reset goes back to origin. */
static bool mstate_apply(const Session *s, MState *st, const Action *a, const MState *origin, char *err,
                         size_t errlen, char *note, size_t notelen)
{
    if (a->kind == ACT_RESET)
        return mstate_copy(st, origin);
    if (a->kind == ACT_STEP) {
        if (!s->lesson->model->train.given) {
            snprintf(err, errlen, "%s", _("step trains the model, and this lesson has no train: section to train on"));
            return false;
        }
        return mstate_train(st, &s->lesson->model->train, a->n, err, errlen);
    }
    return maction_apply(&st->m, a, err, errlen, note, notelen);
}

/* The script's state of version v (-1: the base), computed the first time. */
static const MState *script_state(const Session *s, int v)
{
    struct SessionTrain *t = s->train;
    if (v < 0)
        return &t->base;
    if (t->script[v].ok)
        return &t->script[v];
    int pv = v > 0 ? t->ver[v - 1] : -1;
    const MState *prev = script_state(s, pv);
    MState *st = &t->script[v];
    char err[200];
    if (!prev || !mstate_copy(st, prev))
        return NULL;
    for (int a = 0; a < t->nact[v]; a++)
        (void)mstate_apply(s, st, &t->act[v][a], &t->base, err, sizeof err, NULL, 0); /* checked at load */
    st->ok = true;
    return st;
}

/* The (layer, stage) the view shows at the current step. */
static void target(const Session *s, int *layer, int *stage)
{
    const Model *m = &s->train->cur->m;
    *stage = s->lesson->steps[s->step].stage;
    *layer = *stage == MSTAGE_NEXT ? m->cfg.layers : s->layer;
    if (*stage == MSTAGE_FFN && m->cfg.d_ff == 0)
        *stage = MSTAGE_PROJECT;
}

/* Compute m to (layer, stage): forward from what is reached, or only the
 * cursor back when it is reached already. */
static void run_to(Model *m, int layer, int stage)
{
    if (model_reached(m, layer, stage)) {
        m->at_layer = layer;
        m->at_stage = stage;
        return;
    }
    int l = m->at_layer, st = m->at_stage;
    if (st == 0) {
        model_run_to(m, layer, stage);
        return;
    }
    while ((l != layer || st != stage) && model_stage_next(m, &l, &st))
        model_run_stage(m, l, st);
}

static void run_shown(const Session *s, Model *m)
{
    int layer, stage;
    target(s, &layer, &stage);
    run_to(m, layer, stage);
}

/* Keep a copy of st as the state of version v after nedit actions. */
static void snap_put(struct SessionTrain *t, int v, int nedit, const MState *st)
{
    int pick = 0;
    for (int k = 0; k < SNAP_MAX; k++) {
        if (t->snap[k].st.ok && t->snap[k].ver == v && t->snap[k].nedit == nedit) {
            pick = k;
            break;
        }
        if (!t->snap[k].st.ok || t->snap[k].used < t->snap[pick].used)
            pick = t->snap[pick].st.ok ? k : pick;
    }
    Snap *p = &t->snap[pick];
    if (!mstate_copy(&p->st, st)) {
        mstate_free(&p->st);
        return;
    }
    p->ver = v;
    p->nedit = nedit;
    p->used = ++t->clock;
}

/* The latest snapshot of version v within the first upto actions, or NULL. */
static Snap *snap_find(struct SessionTrain *t, int v, int upto)
{
    Snap *best = NULL;
    for (int k = 0; k < SNAP_MAX; k++) {
        Snap *p = &t->snap[k];
        if (p->st.ok && p->ver == v && p->nedit <= upto && (!best || p->nedit > best->nedit))
            best = p;
    }
    if (best)
        best->used = ++t->clock;
    return best;
}

/* Forget the snapshots that include action `from` or later (the log changed there). */
static void snap_drop_from(struct SessionTrain *t, int from)
{
    for (int k = 0; k < SNAP_MAX; k++)
        if (t->snap[k].st.ok && t->snap[k].nedit > from)
            mstate_free(&t->snap[k].st);
}

/* The state at step k into *out: the script's (step k's; without step k's
 * own actions when !with_last), then the student's actions from the latest
 * snapshot, computed to what the view shows. */
static bool build(Session *s, int k, bool with_last, MState *out)
{
    struct SessionTrain *t = s->train;
    int v = with_last ? t->ver[k] : k > 0 ? t->ver[k - 1] : -1;
    const MState *sc = script_state(s, v);
    if (!sc)
        return false;
    Snap *p = snap_find(t, v, s->nedits);
    int from = p ? p->nedit : 0;
    if (!mstate_copy(out, p ? &p->st : sc))
        return false;
    char err[200];
    for (int n = from; n < s->nedits; n++) {
        const Action *a = &s->edits[n];
        /* checked when first applied; on another script's state a run may stop
         * at a step that is not finite there: its steps before it stay, as
         * every replay of it gives */
        (void)mstate_apply(s, out, a, sc, err, sizeof err, NULL, 0);
        if (a->kind == ACT_STEP)
            snap_put(t, v, n + 1, out);
    }
    run_shown(s, &out->m);
    return true;
}

/* Parse every step's do: and edited: against the base model. */
static bool parse_script(Session *s)
{
    const Lesson *l = s->lesson;
    struct SessionTrain *t = s->train;
    char err[300];
    int col, last = -1;
    for (int k = 0; k < l->nsteps; k++) {
        const Step *st = &l->steps[k];
        int n = st->nact + st->nedit;
        t->act[k] = calloc((size_t)(n ? n : 1), sizeof **t->act);
        if (!t->act[k])
            return false;
        for (int a = 0; a < n; a++) {
            const char *text = a < st->nact ? st->act_text[a] : st->edit_text[a - st->nact];
            if (text && maction_parse(text, l->model->base, l->model, &t->act[k][t->nact[k]], err, sizeof err,
                                      &col))
                t->nact[k]++; /* a bad one was refused at load */
        }
        last = n > 0 ? k : last;
        t->ver[k] = last;
    }
    return true;
}

/* The base state: the lesson's model, with the train: section's optimizer and feed. */
static bool base_state(Session *s)
{
    const LessonModel *lm = s->lesson->model;
    MState *b = &s->train->base;
    if (!model_copy(&b->m, lm->base))
        return false;
    optim_init(&b->o, lm->train.given ? lm->train.opt : OPT_ADAM, lm->train.given ? lm->train.lr : 0.001);
    if (lm->train.given)
        train_feed_init(&b->f, &lm->train, lm->base->cfg.ctx, lm->base->cfg.vocab);
    b->ok = true;
    return true;
}

bool session_model_init(Session *s, const Lesson *l)
{
    struct SessionTrain *t = calloc(1, sizeof *t);
    s->train = t;
    int n = l->nsteps;
    if (!t || !(t->ver = calloc((size_t)n + 1, sizeof *t->ver)) || !(t->nact = calloc((size_t)n + 1, sizeof(int))) ||
        !(t->act = calloc((size_t)n + 1, sizeof *t->act)) || !(t->script = calloc((size_t)n + 1, sizeof *t->script)))
        return false;
    t->nsteps = n;
    if (!parse_script(s) || !base_state(s))
        return false;
    s->head = 1;
    s->layer = l->steps[s->step].layer > 0 ? l->steps[s->step].layer : 1;
    t->cur = &t->st3[0], t->before = &t->st3[1], t->next = &t->st3[2];
    if (!build(s, s->step, true, t->cur))
        return false;
    point(s);
    s->fresh_stage = l->steps[s->step].stage;
    return true;
}

void session_model_free(Session *s)
{
    struct SessionTrain *t = s->train;
    if (!t)
        return;
    for (int k = 0; k < t->nsteps; k++) {
        mstate_free(&t->script[k]);
        free(t->act ? t->act[k] : NULL);
    }
    for (int k = 0; k < SNAP_MAX; k++)
        mstate_free(&t->snap[k].st);
    mstate_free(&t->base);
    for (int k = 0; k < 3; k++)
        mstate_free(&t->st3[k]);
    free(t->script);
    free(t->act);
    free(t->nact);
    free(t->ver);
    free(t);
    s->train = NULL;
    s->mcur = s->mbefore = NULL;
}

bool session_model_goto(Session *s, int n)
{
    struct SessionTrain *t = s->train;
    int old = s->step, old_stage = s->lesson->steps[old].stage;
    s->step = n;
    s->undone = false;
    int layer = s->lesson->steps[n].layer;
    s->layer = layer > 0 ? layer : s->layer;
    if (t->ver[n] == t->ver[old]) { /* the same inputs: compute what is not yet reached */
        run_shown(s, &t->cur->m);
        s->has_before = false;
    } else {
        if (!build(s, n, true, t->next)) {
            s->step = old;
            return false;
        }
        mstate_swap(&t->cur, &t->next);
        s->has_before = n > old && t->ver[n] == n && build(s, n, false, t->before);
        point(s);
    }
    int stage = s->lesson->steps[n].stage;
    s->fresh_stage = stage > old_stage ? stage : stage == old_stage ? s->fresh_stage : 0;
    return true;
}

/* Make next the state shown; the old one becomes before. */
static void adopt(Session *s)
{
    struct SessionTrain *t = s->train;
    mstate_swap(&t->before, &t->cur);
    mstate_swap(&t->cur, &t->next);
    point(s);
    s->has_before = true;
    s->undone = false;
    s->fresh_stage = 0;
}

/* Apply act; with merge, a step action adds its steps to the last edit
 * (session_train_more), which the log then replays as one `step N`. */
static bool apply_logged(Session *s, const Action *act, bool merge, char *err, size_t errlen)
{
    struct SessionTrain *t = s->train;
    char note[160] = "";
    int v = t->ver[s->step];
    if (act->kind == ACT_RESET && s->nedits >= SESSION_MAX_EDITS) {
        s->nedits = s->nredo = 0; /* a full log: reset starts a new history */
        s->saved_nedits = -1;
        snap_drop_from(t, 0);
    }
    const MState *sc = script_state(s, v);
    bool mem = sc && mstate_copy(t->next, t->cur);
    if (!mem || !mstate_apply(s, t->next, act, sc, err, errlen, note, sizeof note)) {
        if (!mem)
            snprintf(err, errlen, "%s", _("out of memory; nothing was changed"));
        return false;
    }
    if (merge) { /* the batches go on from the state trained so far, so step a; step b = step a+b */
        s->edits[s->nedits - 1].n += act->n;
        if (s->saved_nedits == s->nedits)
            s->saved_nedits = -1; /* the saved lesson had fewer steps */
    } else if (s->nedits >= SESSION_MAX_EDITS) {
        snprintf(err, errlen, _("too many edits (%d); press r to reset first"), SESSION_MAX_EDITS);
        return false;
    }
    snap_drop_from(t, merge ? s->nedits - 1 : s->nedits);
    if (!merge && !session_log_push(s, act)) {
        snprintf(err, errlen, "%s", _("out of memory; nothing was changed"));
        return false;
    }
    if (act->kind == ACT_STEP)
        snap_put(t, v, s->nedits, t->next);
    if (act->kind == ACT_M_GENERATE && note[0]) /* what was appended, as the log replays it */
        s->edits[s->nedits - 1].n = t->next->m.n - t->cur->m.n;
    snprintf(t->note, sizeof t->note, "%s", note);
    run_shown(s, &t->next->m);
    adopt(s);
    return true;
}

bool session_model_act(Session *s, const Action *act, char *err, size_t errlen)
{
    return apply_logged(s, act, false, err, errlen);
}

bool session_model_train_more(Session *s, int n, bool more, char *err, size_t errlen)
{
    Action act = {.kind = ACT_STEP, .n = n};
    const Action *last = s->nedits > 0 ? &s->edits[s->nedits - 1] : NULL;
    bool merge = more && last && last->kind == ACT_STEP && s->nredo == 0 && s->edit_step[s->nedits - 1] == s->step &&
                 last->n + n <= GRAD_STEP_MAX;
    return apply_logged(s, &act, merge, err, errlen);
}

bool session_model_act_text(Session *s, const char *text, char *err, size_t errlen)
{
    Action act;
    int col;
    if (!maction_parse(text, &s->train->cur->m, s->lesson->model, &act, err, errlen, &col))
        return false;
    return session_model_act(s, &act, err, errlen);
}

void session_model_relog(Session *s)
{
    struct SessionTrain *t = s->train;
    t->note[0] = '\0';
    if (build(s, s->step, true, t->next))
        adopt(s);
}

const Model *session_model_script(const Session *s)
{
    const MState *st = script_state(s, s->train->ver[s->step]);
    return st ? &st->m : NULL;
}

/* ---- the accessors (session.h) ---- */

bool session_is_model(const Session *s)
{
    return s->lesson && s->lesson->model && s->train;
}

const Model *session_model(const Session *s)
{
    return session_is_model(s) ? s->mcur : NULL;
}

const Model *session_model_before(const Session *s)
{
    return session_is_model(s) && s->has_before ? s->mbefore : NULL;
}

int session_layer(const Session *s)
{
    return s->layer;
}

int session_set_layer(Session *s, int l)
{
    if (!session_is_model(s))
        return s->layer;
    int layers = s->mcur->cfg.layers;
    s->layer = ((l - 1) % layers + layers) % layers + 1;
    run_shown(s, &s->train->cur->m);
    if (s->has_before)
        run_shown(s, &s->train->before->m);
    return s->layer;
}

int session_loss_history(const Session *s, const double **loss)
{
    const MState *c = session_is_model(s) ? s->train->cur : NULL;
    *loss = c && c->nloss ? c->loss : NULL;
    return c ? c->nloss : 0;
}

long session_train_steps(const Session *s)
{
    return session_is_model(s) ? s->train->cur->nloss : 0;
}

const char *session_model_note(const Session *s)
{
    return session_is_model(s) ? s->train->note : "";
}
