/* test_msession.c - a model lesson's session and its actions (DESIGN.md
 * "From a head to a model", "Trained here"): every action's effect on real
 * numbers, undo and redo bit for bit, a training run undone, the vocab's
 * did-you-mean, greedy generate, the script's do: between steps, and the
 * time a keypress takes on a lesson-17-sized model. Lessons are built here
 * directly (model_init + model_draw_weights), not loaded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/grad.h"
#include "testutil.h"
#undef expect_check
#include "lesson/lesson.h"
#include "lesson/lmodel.h"
#include "lesson/maction.h"
#include "lesson/session.h"
#include "lesson/departures.h"
#include "lesson/save.h"
#include "core/rng.h"
#include <unistd.h>
#include "words/live.h"
#include "words/mtrace.h"

static char *names8[] = {"A", "B", "C", "D", "E", "F", "G", "H"};

typedef struct {
    Lesson l;
    LessonModel lm;
    Model base;
    Step steps[4];
    char *vocab[32];
    char namebuf[32][4];
} Fix;

/* A model lesson: vocab, cfg, tokens, weights drawn with seed 7 at 0.5;
 * steps at stage next, step 1 (0-based) does `do1` when not NULL. */
static Fix *fixture(const ModelCfg *c, const int *tok, int n, const char *do1, bool train)
{
    Fix *f = calloc(1, sizeof *f);
    assert_non_null(f);
    for (int k = 0; k < c->vocab; k++) {
        if (k < 8) {
            f->vocab[k] = names8[k];
        } else {
            snprintf(f->namebuf[k], sizeof f->namebuf[k], "t%d", k);
            f->vocab[k] = f->namebuf[k];
        }
    }
    assert_true(model_init(&f->base, c, tok, n));
    model_draw_weights(&f->base, 7, 0.5);
    f->lm.cfg = f->base.cfg;
    f->lm.nvocab = c->vocab;
    f->lm.vocab = f->vocab;
    f->lm.ntok = n;
    memcpy(f->lm.tok, tok, sizeof(int) * (size_t)n);
    f->lm.base = &f->base;
    if (train)
        f->lm.train = (TrainSpec){.given = true, .data = TDATA_COPY, .lmin = 3, .lmax = 5, .data_seed = 1,
                                  .opt = OPT_ADAM, .lr = 0.01, .batch = 4, .steps = 100};
    f->l.file = "t.yaml";
    f->l.digits = 3;
    f->l.model = &f->lm;
    f->l.nsteps = 3;
    f->l.steps = f->steps;
    for (int k = 0; k < 3; k++) {
        f->steps[k].stage = MSTAGE_NEXT;
        f->steps[k].layer = c->layers;
    }
    static char *text[1];
    if (do1) {
        text[0] = (char *)do1;
        f->steps[1].nact = 1;
        f->steps[1].act_text = text;
    }
    return f;
}

static void fix_free(Fix *f)
{
    model_free(&f->base);
    free(f);
}

static ModelCfg small_cfg(int layers, int heads, NormKind norm)
{
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = layers;
    c.d_model = 4;
    c.heads = heads;
    c.norm = norm;
    c.ctx = 8;
    c.vocab = 8;
    return c;
}

static bool same_mat(const Mat *a, const Mat *b)
{
    return a->rows == b->rows && a->cols == b->cols &&
           memcmp(a->v, b->v, sizeof(double) * (size_t)a->rows * (size_t)a->cols) == 0;
}

/* Every parameter of a and b the same, bit for bit. */
static bool same_params(const Model *a, const Model *b)
{
    ModelRef p[MODEL_PARAMS_MAX];
    int n = model_params(a, p, MODEL_PARAMS_MAX);
    for (int k = 0; k < n; k++)
        if (!same_mat(model_mat(a, p[k]), model_mat(b, p[k])))
            return false;
    return a->n == b->n && memcmp(a->tok, b->tok, sizeof(int) * (size_t)a->n) == 0;
}

static void act(Session *s, const char *text)
{
    char err[300] = "";
    bool ok = session_act_text(s, text, err, sizeof err);
    if (!ok)
        fprintf(stderr, "%s: %s\n", text, err);
    assert_true(ok);
}

static void refused(Session *s, const char *text, const char *want)
{
    char err[300] = "";
    assert_false(session_act_text(s, text, err, sizeof err));
    assert_string_equal(err, want);
}

/* One layer, one head, no norm: ablating the head makes Y = 0, so the last
 * row's logits are (E[tok] + P[pos]) WU, softmaxed by hand. */
static void ablate_by_hand(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(1, 1, NORM_NONE);
    int tok[] = {0, 1, 2, 0, 1};
    Fix *f = fixture(&c, tok, 5, NULL, false);
    Session s;
    assert_true(session_init(&s, &f->l));
    act(&s, "ablate L1.H1");
    const Model *m = session_model(&s);
    assert_int_equal(m->layer[0].ablate, 1u);
    const Mat *O = &m->layer[0].att.m[M_O];
    for (int i = 0; i < m->n; i++)
        for (int j = 0; j < O->cols; j++)
            assert_true(MAT_AT(O, i, j) == 0.0);
    double z[8], mx = -INFINITY, sum = 0;
    for (int v = 0; v < 8; v++) {
        z[v] = 0;
        for (int k = 0; k < 4; k++)
            z[v] += (MAT_AT(&f->base.E, 1, k) + MAT_AT(&f->base.P, 4, k)) * MAT_AT(&f->base.WU, k, v);
        mx = z[v] > mx ? z[v] : mx;
    }
    for (int v = 0; v < 8; v++)
        sum += exp(z[v] - mx);
    for (int v = 0; v < 8; v++)
        assert_true(fabs(MAT_AT(&m->p, 4, v) - exp(z[v] - mx) / sum) < 1e-12);
    assert_non_null(session_model_before(&s));
    assert_int_equal(session_model_before(&s)->layer[0].ablate, 0u);
    act(&s, "restore H1"); /* one layer: the L1. may be left out */
    assert_int_equal(session_model(&s)->layer[0].ablate, 0u);
    session_free(&s);
    fix_free(f);
}

/* A cell, a row and a row copy: their numbers, then undo and redo bit for bit. */
static void edits_undo_redo(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(2, 2, NORM_LAYER);
    int tok[] = {0, 1, 2, 3};
    Fix *f = fixture(&c, tok, 4, NULL, false);
    Session s;
    assert_true(session_init(&s, &f->l));
    act(&s, "L1.Wq[1][2] = 0.5");
    assert_true(MAT_AT(&session_model(&s)->layer[0].att.m[M_WQ], 0, 1) == 0.5);
    act(&s, "E[3] = [1, -2, 0.25, 4]");
    const Mat *E = &session_model(&s)->E;
    assert_true(MAT_AT(E, 2, 0) == 1 && MAT_AT(E, 2, 1) == -2 && MAT_AT(E, 2, 2) == 0.25 && MAT_AT(E, 2, 3) == 4);
    act(&s, "L2.Wo[1] = L2.Wo[2] * 2");
    const Mat *Wo = &session_model(&s)->layer[1].att.m[M_WO];
    for (int k = 0; k < 4; k++)
        assert_true(MAT_AT(Wo, 0, k) == 2 * MAT_AT(&f->base.layer[1].att.m[M_WO], 1, k));
    Model after = {0};
    assert_true(model_copy(&after, session_model(&s)));
    assert_true(session_undo(&s) && session_undo(&s) && session_undo(&s));
    assert_true(same_params(session_model(&s), &f->base));
    assert_true(session_redo(&s) && session_redo(&s) && session_redo(&s));
    assert_true(same_params(session_model(&s), &after));
    assert_true(same_mat(&session_model(&s)->p, &after.p));
    char buf[200];
    action_text(session_undoable(&s), buf, sizeof buf);
    assert_string_equal(buf, "L2.Wo[1] = L2.Wo[2] * 2");
    model_free(&after);
    session_free(&s);
    fix_free(f);
}

/* step 10 trains; undo gives the original weights, redo the trained ones. */
static void train_undo(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(2, 2, NORM_LAYER);
    int tok[] = {0, 1, 2, 3, 1, 2};
    Fix *f = fixture(&c, tok, 6, NULL, true);
    Session s;
    assert_true(session_init(&s, &f->l));
    act(&s, "step 10");
    const double *loss;
    assert_int_equal(session_loss_history(&s, &loss), 10);
    assert_true(isfinite(loss[0]) && loss[0] > 0);
    assert_int_equal(session_train_steps(&s), 10);
    assert_false(same_params(session_model(&s), &f->base));
    assert_int_equal(session_model(&s)->n, 6); /* the input is the student's, not the last batch's */
    Model trained = {0};
    assert_true(model_copy(&trained, session_model(&s)));
    act(&s, "L1.Wk[1][1] = 3");
    act(&s, "step 2");
    char what[200];
    assert_true(session_departed(&s, what, sizeof what));
    assert_string_equal(what, "step 12, L1.Wk[1][1] = 3");
    assert_true(session_undo(&s));
    assert_true(session_undo(&s) && session_undo(&s));
    assert_true(same_params(session_model(&s), &f->base));
    assert_int_equal(session_loss_history(&s, &loss), 0);
    assert_true(session_redo(&s));
    assert_true(same_params(session_model(&s), &trained));
    /* a second run goes on from the same optimizer and feed: as one run of 20 */
    act(&s, "step 10");
    Model twenty = {0};
    assert_true(model_copy(&twenty, session_model(&s)));
    assert_true(session_undo(&s) && session_undo(&s));
    act(&s, "step 20");
    assert_true(same_params(session_model(&s), &twenty));
    model_free(&trained);
    model_free(&twenty);
    session_free(&s);
    fix_free(f);
}

/* The watch mode's batches (session_train_more with more): one edit that
 * grows, the same weights as one `step N`, undone at once, the saved mark
 * dropped; a new edit once the sum would pass GRAD_STEP_MAX, and without
 * more. */
static void train_more_merges(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(1, 1, NORM_NONE);
    int tok[] = {0, 1, 2, 0, 1, 2};
    Fix *f = fixture(&c, tok, 6, NULL, true);
    Session s;
    char err[300] = "";
    assert_true(session_init(&s, &f->l));
    act(&s, "step 2");
    session_mark_saved(&s);
    assert_true(session_train_more(&s, 5, false, err, sizeof err)); /* a new run: its own edit */
    assert_int_equal(s.nedits, 2);
    for (int k = 0; k < 3; k++)
        assert_true(session_train_more(&s, 5, true, err, sizeof err));
    assert_int_equal(s.nedits, 2);
    assert_int_equal(s.edits[1].kind, ACT_STEP);
    assert_int_equal(s.edits[1].n, 20);
    assert_int_equal(session_train_steps(&s), 22);
    assert_true(session_dirty(&s));
    Model run = {0};
    assert_true(model_copy(&run, session_model(&s)));
    assert_true(session_undo(&s)); /* the whole run at once */
    assert_int_equal(session_train_steps(&s), 2);
    assert_false(session_dirty(&s));
    act(&s, "step 20");
    assert_true(same_params(session_model(&s), &run)); /* step 5 x 4 = step 20, bit for bit */
    s.edits[s.nedits - 1].n = GRAD_STEP_MAX - 1; /* near the log's largest step: the next batch is an edit of its own */
    assert_true(session_train_more(&s, 5, true, err, sizeof err));
    assert_int_equal(s.nedits, 3);
    assert_int_equal(s.edits[2].n, 5);
    model_free(&run);
    session_free(&s);
    fix_free(f);
}

/* A watch run's slices (step 1, step 3, ...) undone at once: the state
 * before the run, bit for bit, each slice redoable; n past the edits refused. */
static void undo_n_slices(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(2, 2, NORM_LAYER);
    int tok[] = {0, 1, 2, 3, 1, 2};
    Fix *f = fixture(&c, tok, 6, NULL, true);
    Session s;
    assert_true(session_init(&s, &f->l));
    act(&s, "step 2");
    Model before = {0};
    assert_true(model_copy(&before, session_model(&s)));
    for (int k = 0; k < 40; k++)
        act(&s, k % 2 ? "step 3" : "step 1");
    Model after = {0};
    assert_true(model_copy(&after, session_model(&s)));
    const double *loss;
    assert_int_equal(session_loss_history(&s, &loss), 82);
    assert_false(session_undo_n(&s, 42));
    assert_false(session_undo_n(&s, 0));
    assert_int_equal(s.nedits, 41);
    assert_true(session_undo_n(&s, 40));
    assert_int_equal(s.nedits, 1);
    assert_int_equal(session_loss_history(&s, &loss), 2);
    assert_true(same_params(session_model(&s), &before));
    for (int k = 0; k < 40; k++)
        assert_true(session_redo(&s));
    assert_true(same_params(session_model(&s), &after));
    assert_int_equal(session_loss_history(&s, &loss), 82);
    model_free(&before);
    model_free(&after);
    session_free(&s);
    fix_free(f);
}

static void tokens_and_messages(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(2, 2, NORM_LAYER);
    int tok[] = {0, 1, 2, 3};
    Fix *f = fixture(&c, tok, 4, NULL, false);
    Session s;
    assert_true(session_init(&s, &f->l));
    act(&s, "tokens = A B C D A B C");
    assert_int_equal(session_model(&s)->n, 7);
    assert_int_equal(session_model(&s)->tok[6], 2);
    refused(&s, "tokens = A B Cx", "\"Cx\" is not in the vocab; did you mean \"C\"?");
    Action a;
    char err[300];
    int col = 0;
    assert_false(maction_parse("tokens = A B Cx", &f->base, &f->lm, &a, err, sizeof err, &col));
    assert_int_equal(col, 14);
    refused(&s, "tokens = A b", "\"b\" is not in the vocab; did you mean \"B\"?");
    refused(&s, "tokens = A XY", "\"XY\" is not in the vocab; did you mean \"A\", \"B\" or \"C\"?");
    refused(&s, "L1.Q[1][1] = 0.5", "L1.Q is computed by the model; edit L1.Wq instead");
    refused(&s, "p[1][1] = 0.5", "p is computed by the model; edit WU instead");
    refused(&s, "step 3", "step trains the model, and this lesson has no train: section to train on");
    refused(&s, "ablate L3.H1", "expected a head L1.H1 to L2.H2, found \"L3.H1\"");
    refused(&s, "tokens = A B C D A B C D A", "the model reads at most 8 tokens (ctx); this is token 9");
    act(&s, "mask = none");
    assert_int_equal(session_model(&s)->cfg.attn[0].mask, MASK_NONE);
    assert_int_equal(session_model(&s)->cfg.attn[1].mask, MASK_NONE);
    act(&s, "temperature = 2");
    assert_true(session_model(&s)->cfg.attn[1].temp == 2);
    refused(&s, "positions = rope",
            "positions is part of the model's shape (its model: section), not an action of a model lesson");
    char buf[200];
    assert_true(maction_parse("tokens = [A, B, H]", &f->base, &f->lm, &a, err, sizeof err, &col));
    action_text(&a, buf, sizeof buf);
    assert_string_equal(buf, "tokens = A B H");
    session_free(&s);
    fix_free(f);
}

/* generate with greedy appends the argmax of the last row of p, and stops at ctx. */
static void generate_greedy(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(2, 2, NORM_LAYER);
    int tok[] = {0, 1, 2, 3, 0};
    Fix *f = fixture(&c, tok, 5, NULL, false);
    Session s;
    assert_true(session_init(&s, &f->l));
    Model ref = {0};
    assert_true(model_copy(&ref, &f->base));
    model_run_all(&ref);
    int best = 0;
    for (int v = 1; v < 8; v++)
        best = MAT_AT(&ref.p, 4, v) > MAT_AT(&ref.p, 4, best) ? v : best;
    act(&s, "generate");
    assert_int_equal(session_model(&s)->n, 6);
    assert_int_equal(session_model(&s)->tok[5], best);
    act(&s, "generate 5"); /* 2 more fit in ctx 8 */
    assert_int_equal(session_model(&s)->n, 8);
    assert_string_equal(session_model_note(&s), "generate stopped at the 8 tokens the model reads (ctx), after 2");
    char buf[100];
    action_text(session_undoable(&s), buf, sizeof buf);
    assert_string_equal(buf, "generate 2");
    refused(&s, "generate", "the input already has the 8 tokens the model reads (ctx); nothing to append to");
    model_free(&ref);
    session_free(&s);
    fix_free(f);
}

/* The script's do: at step 2 (index 1); the student's edit is kept across moves. */
static void script_steps(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(2, 2, NORM_LAYER);
    int tok[] = {0, 1, 2, 3};
    Fix *f = fixture(&c, tok, 4, "ablate L1.H2", false);
    Session s;
    assert_true(session_init(&s, &f->l));
    assert_int_equal(session_layer(&s), 2);
    assert_int_equal(session_model(&s)->layer[0].ablate, 0u);
    act(&s, "E[1][1] = 9");
    act(&s, "E[1][1] = 8");
    act(&s, "ablate L2.H1");
    act(&s, "restore L2.H1");
    char what[200];
    assert_true(session_departed(&s, what, sizeof what)); /* the last of each; a head put back still listed */
    assert_string_equal(what, "E[1][1] = 8, restore L2.H1");
    assert_true(session_undo(&s) && session_undo(&s) && session_undo(&s));
    assert_true(session_next(&s));
    assert_int_equal(session_model(&s)->layer[0].ablate, 2u);
    assert_true(MAT_AT(&session_model(&s)->E, 0, 0) == 9);
    assert_non_null(session_model_before(&s));
    assert_int_equal(session_model_before(&s)->layer[0].ablate, 0u);
    assert_true(session_departed(&s, NULL, 0));
    assert_true(session_next(&s));
    assert_int_equal(session_model(&s)->layer[0].ablate, 2u);
    assert_null(session_model_before(&s));
    assert_true(session_prev(&s) && session_prev(&s));
    assert_int_equal(session_model(&s)->layer[0].ablate, 0u);
    assert_int_equal(session_set_layer(&s, 3), 1);
    assert_true(session_undo(&s));
    assert_false(session_departed(&s, NULL, 0));
    session_free(&s);
    fix_free(f);
}

/* The status line: "ablate L1.H1: p(X) a → b, ..." with the real numbers. */
static void trace_line(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(1, 1, NORM_NONE);
    int tok[] = {0, 1, 2, 0, 1};
    Fix *f = fixture(&c, tok, 5, NULL, false);
    Session s;
    assert_true(session_init(&s, &f->l));
    act(&s, "ablate L1.H1");
    char line[300];
    char name[100];
    effect_name(&s, EFFECT_ACT, false, name, sizeof name);
    assert_true(session_mtrace_line(&s, name, false, 3, line, sizeof line));
    const Model *b = session_model_before(&s), *m = session_model(&s);
    int was = model_greedy(b), now = model_greedy(m);
    char want[300], x[40], y[40];
    FmtOpt fo = {.digits = 3};
    fmt_num(MAT_AT(&b->p, 4, was), &fo, x, sizeof x);
    fmt_num(MAT_AT(&m->p, 4, was), &fo, y, sizeof y);
    if (now != was)
        snprintf(want, sizeof want, "ablate L1.H1: p(%s) %s → %s, the prediction is now %s", names8[was], x, y,
                 names8[now]);
    else
        snprintf(want, sizeof want, "ablate L1.H1: p(%s) %s → %s, still the prediction", names8[was], x, y);
    assert_string_equal(line, want);
    fprintf(stderr, "trace: %s\n", line);
    effect_status(&s, EFFECT_ACT, NULL, M_X, 0, 0, false, line, sizeof line);
    strcat(want, ". u undoes it.");
    assert_string_equal(line, want);
    assert_true(session_undo(&s));
    effect_status(&s, EFFECT_UNDO, NULL, M_X, 0, 0, false, line, sizeof line);
    fprintf(stderr, "undo: %s\n", line);
    assert_non_null(strstr(line, "undo ablate L1.H1: p("));
    session_free(&s);
    fix_free(f);
}

/* A step that would make a weight not finite is refused naming the step
 * and the parameter; nothing changes, nothing is logged. */
static void train_not_finite(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(1, 1, NORM_NONE);
    int tok[] = {0, 1, 2, 3};
    Fix *f = fixture(&c, tok, 4, NULL, true);
    f->lm.train.opt = OPT_SGD;
    f->lm.train.lr = 1e308;
    Session s;
    assert_true(session_init(&s, &f->l));
    refused(&s, "step 5", "training step 2 of 5: the loss is not finite; nothing was changed");
    assert_int_equal(s.nedits, 0);
    assert_true(same_params(session_model(&s), &f->base));
    assert_int_equal(session_train_steps(&s), 0);
    act(&s, "E[1][1] = 30"); /* lr times E's gradient overflows in the first update */
    Model before = {0};
    assert_true(model_copy(&before, session_model(&s)));
    refused(&s, "step 5", "training step 1 of 5: E would not be finite; nothing was changed");
    assert_true(same_params(session_model(&s), &before));
    model_free(&before);
    assert_int_equal(s.nedits, 1);
    assert_int_equal(session_train_steps(&s), 0);
    session_free(&s);
    fix_free(f);
}

/* Sampled generate: one stream seeded with the sampling seed, a draw per
 * token (numpy's choice); reset goes back to the script. */
static void generate_sampled_reset(void **state)
{
    (void)state;
    ModelCfg c = small_cfg(2, 2, NORM_LAYER);
    c.sample = true;
    c.sample_seed = 5;
    int tok[] = {0, 1, 2};
    Fix *f = fixture(&c, tok, 3, NULL, false);
    Session s;
    assert_true(session_init(&s, &f->l));
    act(&s, "generate 3");
    Model ref = {0};
    assert_true(model_copy(&ref, &f->base));
    Rng r;
    rng_seed(&r, 5);
    int t[8] = {0, 1, 2};
    for (int n = 3; n < 6; n++) {
        model_run_all(&ref);
        t[n] = model_sample(&MAT_AT(&ref.p, n - 1, 0), 8, &r, NULL);
        assert_true(model_set_tokens(&ref, t, n + 1));
    }
    assert_int_equal(session_model(&s)->n, 6);
    assert_memory_equal(session_model(&s)->tok, t, sizeof(int) * 6);
    act(&s, "reset");
    assert_true(same_params(session_model(&s), &f->base));
    assert_true(session_undo(&s));
    assert_int_equal(session_model(&s)->n, 6);
    model_free(&ref);
    session_free(&s);
    fix_free(f);
}

#define MLESSON "format: qkvtutor/1\n" \
    "title: {zh: 两层, en: Two layers}\n" \
    "vocab: [<s>, A, B, C, D, E, F, G]\n" \
    "tokens: [<s>, A, B, C, A, B]\n" \
    "model: {layers: 2, d_model: 8, heads: 2, d_ff: 16, ctx: 8}\n" \
    "weights:\n  random: {seed: 7, scale: 0.3}\n" \
    "train: {data: {sequences: [[<s>, A, B, A, B], [<s>, C, D, C, D]]}, optimizer: {adam: {lr: 0.01}}, batch: 2, steps: 10}\n" \
    "steps:\n" \
    "  - stage: embed\n" \
    "  - stage: output\n    layer: 1\n    do: [\"ablate L1.H2\", \"E[2][1] = 0.25\", \"step 3\"]\n" \
    "    expect: {\"L1.O[4][5]\": 0}\n" \
    "  - stage: next\n"

/* A loaded model lesson: its do: at step 2, then the student's actions
 * saved under edited: and reopened at the same state, bit for bit. */
static void load_save_reopen(void **state)
{
    (void)state;
    char path[] = "/tmp/msession-XXXXXX.yaml", err[600];
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, MLESSON, strlen(MLESSON)), (long)strlen(MLESSON));
    close(fd);
    Lesson l, l2;
    bool ok = lesson_load_file(path, &l, err, sizeof err);
    if (!ok)
        fprintf(stderr, "%s\n", err);
    assert_true(ok);
    Session s, s2;
    assert_true(session_init(&s, &l));
    assert_int_equal(session_model(&s)->layer[0].ablate, 0u);
    assert_true(session_next(&s));
    assert_int_equal(session_model(&s)->layer[0].ablate, 2u);
    assert_true(MAT_AT(&session_model(&s)->E, 1, 0) != 0.25); /* trained 3 steps after the edit */
    assert_int_equal(session_train_steps(&s), 3);
    act(&s, "L2.Wv[1][1] = 0.5");
    act(&s, "step 2");
    act(&s, "tokens = <s> B A B");
    act(&s, "restore L1.H2");
    act(&s, "ablate L2.H1");
    act(&s, "generate 2");
    size_t len = 0;
    char *text = lesson_save_text(&s, &len);
    assert_non_null(text);
    assert_non_null(strstr(text, "edited:"));
    assert_true(lesson_save(&s, path, err, sizeof err));
    ok = lesson_load_file(path, &l2, err, sizeof err);
    if (!ok)
        fprintf(stderr, "%s\n%s\n", err, text);
    assert_true(ok);
    assert_true(session_init(&s2, &l2));
    assert_int_equal(s2.step, 1);
    assert_true(same_params(session_model(&s2), session_model(&s)));
    assert_int_equal(session_model(&s2)->layer[0].ablate, 0u);
    assert_int_equal(session_model(&s2)->layer[1].ablate, 1u);
    assert_int_equal(session_model(&s2)->n, 6);
    assert_true(same_mat(&session_model(&s2)->p, &session_model(&s)->p) || !model_reached(session_model(&s), 2, 8));
    assert_true(same_mat(&session_model(&s2)->layer[0].att.m[M_O], &session_model(&s)->layer[0].att.m[M_O]));
    assert_int_equal(l2.steps[1].nexpect, 0); /* the numbers are the student's from here */
    assert_int_equal(session_train_steps(&s2), 5);
    const double *la, *lb;
    assert_int_equal(session_loss_history(&s, &la), 5);
    assert_int_equal(session_loss_history(&s2, &lb), 5);
    assert_memory_equal(la, lb, 5 * sizeof *la);
    free(text);
    session_free(&s2);
    session_free(&s);
    lesson_free(&l2);
    lesson_free(&l);
    unlink(path);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Lesson 17's size: vocab 27, d 16, 2 layers of 2 heads, ctx 14; the
 * script ablates at step 2 and the student has trained 50 steps. */
static void keypress_time(void **state)
{
    (void)state;
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = 2, c.d_model = 16, c.heads = 2, c.ctx = 14, c.vocab = 27, c.norm = NORM_LAYER;
    int tok[14];
    for (int i = 0; i < 14; i++)
        tok[i] = 1 + (i * 5) % 7;
    Fix *f = fixture(&c, tok, 14, "ablate L1.H1", true);
    Session s;
    assert_true(session_init(&s, &f->l));
    act(&s, "step 50");
    enum { N = 201 };
    static long mv[N], ed[N];
    for (int k = 0; k < N; k++) {
        long t0 = now_ns();
        assert_true(k % 2 ? session_prev(&s) : session_next(&s));
        mv[k] = now_ns() - t0;
    }
    static long same[N];
    session_goto(&s, 1);
    for (int k = 0; k < N; k++) { /* steps 2 and 3 (1-based): no do: between */
        long t0 = now_ns();
        assert_true(k % 2 ? session_prev(&s) : session_next(&s));
        same[k] = now_ns() - t0;
    }
    qsort(same, N, sizeof *same, cmp_long);
    fprintf(stderr, "lesson-17 size: next/prev with no do: between, median %ld us\n", same[N / 2] / 1000);
    for (int k = 0; k < N; k++) {
        char text[64];
        snprintf(text, sizeof text, "L1.Wq[1][2] = %d", k);
        long t0 = now_ns();
        act(&s, text);
        ed[k] = now_ns() - t0;
        if (k % 50 == 49)
            while (s.nedits > 1)
                assert_true(session_undo(&s));
    }
    qsort(mv, N, sizeof *mv, cmp_long);
    qsort(ed, N, sizeof *ed, cmp_long);
    fprintf(stderr, "lesson-17 size: next/prev across a do: median %ld us, edit median %ld us\n", mv[N / 2] / 1000,
            ed[N / 2] / 1000);
    assert_true(mv[N / 2] < 300000 * 10); /* the figure is reported; this only catches a replay of training */
    session_free(&s);
    fix_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ablate_by_hand),
        cmocka_unit_test(edits_undo_redo),
        cmocka_unit_test(train_undo),
        cmocka_unit_test(train_more_merges),
        cmocka_unit_test(tokens_and_messages),
        cmocka_unit_test(generate_greedy),
        cmocka_unit_test(script_steps),
        cmocka_unit_test(trace_line),
        cmocka_unit_test(train_not_finite),
        cmocka_unit_test(generate_sampled_reset),
        cmocka_unit_test(load_save_reopen),
        cmocka_unit_test(keypress_time),
        cmocka_unit_test(undo_n_slices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
