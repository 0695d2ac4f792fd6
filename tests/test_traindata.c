/* test_traindata.c - the batches of a train: section (lesson/traindata.h):
 * the copy stream is copy_task_draw's sequences of RandomState(seed) in
 * order (the three of test_copytask.c, numpy's), batch after batch; a list
 * of sequences is taken round, leaving out those that do not fit; a text
 * is cut into pieces of ctx; a copied feed goes on where the original was;
 * and a training run (lesson/trainrun.h) stops at a non-finite step with
 * the step and the parameter named. */
#include <math.h>
#include <locale.h>
#include "testutil.h"
#include <stdlib.h>
#include "core/copytask.h"
#include "core/model_back.h"
#include "lesson/embedded.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/lesson.h"
#include "lesson/traindata.h"
#include "lesson/trainrun.h"
#include "text/i18n.h"

/* RandomState(1)'s first three copy sequences at n 14, vocab 27, lengths 3..6
 * (test_copytask.c, from numpy). */
static const int numpy3[3][14] = {
    {0, 12, 13, 9, 10, 12, 6, 16, 1, 12, 6, 16, 1, 14},
    {0, 19, 21, 6, 19, 21, 21, 6, 19, 21, 5, 24, 24, 10},
    {0, 14, 10, 10, 8, 23, 26, 2, 1, 8, 23, 26, 2, 1},
};

static TrainSpec copy_spec(int batch)
{
    return (TrainSpec){.given = true, .data = TDATA_COPY, .lmin = 3, .lmax = 6, .data_seed = 1, .opt = OPT_ADAM,
                       .lr = 0.01, .batch = batch, .steps = 10};
}

static void copy_is_the_stream(void **state)
{
    (void)state;
    TrainSpec s = copy_spec(2);
    TrainFeed f;
    train_feed_init(&f, &s, 14, 27);
    int tok[2 * 14], len[2], n = 0;
    assert_true(train_feed_next(&f, tok, len, &n));
    assert_int_equal(n, 2);
    assert_int_equal(len[0], 14);
    assert_int_equal(len[1], 14);
    for (int i = 0; i < 14; i++) {
        assert_int_equal(tok[i], numpy3[0][i]);
        assert_int_equal(tok[14 + i], numpy3[1][i]);
    }
    TrainFeed copy = f; /* a plain value: the copy goes on from here too */
    assert_true(train_feed_next(&f, tok, len, &n));
    for (int i = 0; i < 14; i++)
        assert_int_equal(tok[i], numpy3[2][i]);
    int tok2[2 * 14], len2[2];
    assert_true(train_feed_next(&copy, tok2, len2, &n));
    assert_memory_equal(tok, tok2, sizeof tok);
    assert_int_equal(f.batches, 2);
    /* the 4th sequence is the stream's 4th: drawn on from the same Rng */
    Rng r;
    rng_seed(&r, 1);
    int want[14];
    CopySpan sp;
    for (int k = 0; k < 4; k++)
        assert_true(copy_task_draw(&r, 14, 27, 3, 6, want, &sp));
    assert_memory_equal(tok + 14, want, sizeof want);
}

/* seqs: [1 2 3] [4 5] [6 7 8 9 10 11] (too long for ctx 4) [1 2 3 4] [9] (too short) */
static int seq_len[5] = {3, 2, 6, 4, 1};
static int seq_tok[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2, 3, 4, 9};

static void sequences_go_round(void **state)
{
    (void)state;
    TrainSpec s = {.given = true, .data = TDATA_SEQUENCES, .nseq = 5, .seq_len = seq_len, .seq_tok = seq_tok,
                   .opt = OPT_SGD, .lr = 0.1, .batch = 2, .steps = 3};
    TrainFeed f;
    train_feed_init(&f, &s, 4, 12);
    int tok[2 * 4], len[2], n;
    /* fitting: A = [1 2 3], B = [4 5], C = [1 2 3 4]; batches A B, C A, B C */
    assert_true(train_feed_next(&f, tok, len, &n));
    assert_int_equal(n, 2);
    assert_int_equal(len[0], 3);
    assert_int_equal(len[1], 2);
    assert_memory_equal(tok, ((int[]){1, 2, 3, 4, 5}), 5 * sizeof(int));
    assert_true(train_feed_next(&f, tok, len, &n));
    assert_int_equal(len[0], 4);
    assert_int_equal(len[1], 3);
    assert_memory_equal(tok, ((int[]){1, 2, 3, 4, 1, 2, 3}), 7 * sizeof(int));
    assert_true(train_feed_next(&f, tok, len, &n));
    assert_int_equal(len[0], 2);
    assert_int_equal(len[1], 4);
    assert_memory_equal(tok, ((int[]){4, 5, 1, 2, 3, 4}), 6 * sizeof(int));
    /* a batch larger than the list takes the list round within it */
    s.batch = 7;
    int tok7[7 * 4], len7[7];
    train_feed_init(&f, &s, 4, 12);
    assert_true(train_feed_next(&f, tok7, len7, &n));
    assert_int_equal(n, 7);
    assert_memory_equal(len7, ((int[]){3, 2, 4, 3, 2, 4, 3}), 7 * sizeof(int));
    assert_true(train_feed_next(&f, tok7, len7, &n)); /* starts at 7 mod 3 = B */
    assert_memory_equal(len7, ((int[]){2, 4, 3, 2, 4, 3, 2}), 7 * sizeof(int));
    /* a token outside the vocab leaves its sequence out; none left: false */
    train_feed_init(&f, &s, 4, 3);
    assert_false(train_feed_next(&f, tok7, len7, &n)); /* every sequence has a token >= 3 */
    train_feed_init(&f, &s, 1, 12);
    assert_false(train_feed_next(&f, tok7, len7, &n));
    assert_int_equal(n, 0);
}

static void text_is_cut_into_ctx(void **state)
{
    (void)state;
    /* a text of 11 tokens 1..11 (stored as two pieces, 7 + 4) at ctx 4:
     * [1 2 3 4] [5 6 7 8] [9 10 11]; at ctx 5: ... [11] is left out */
    int len[2] = {7, 4}, tok[11] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    TrainSpec s = {.given = true, .data = TDATA_TEXT, .nseq = 2, .seq_len = len, .seq_tok = tok,
                   .opt = OPT_SGD, .lr = 0.1, .batch = 4, .steps = 1};
    TrainFeed f;
    train_feed_init(&f, &s, 4, 12);
    int bt[4 * 5], bl[4], n;
    assert_true(train_feed_next(&f, bt, bl, &n));
    assert_memory_equal(bl, ((int[]){4, 4, 3, 4}), 4 * sizeof(int));
    assert_memory_equal(bt, ((int[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2, 3, 4}), 15 * sizeof(int));
    train_feed_init(&f, &s, 5, 12);
    assert_true(train_feed_next(&f, bt, bl, &n));
    assert_memory_equal(bl, ((int[]){5, 5, 5, 5}), 4 * sizeof(int));
    assert_memory_equal(bt, ((int[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
                        20 * sizeof(int));
}

static ModelCfg small_cfg(void)
{
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = 2;
    c.d_model = 4;
    c.heads = 2;
    c.d_ff = 0;
    c.norm = NORM_NONE;
    c.ctx = 8;
    c.vocab = 6;
    return c;
}

typedef struct {
    long calls, stop_at;
    double last;
} Seen;

static bool seen_step(long step, double loss, void *arg)
{
    Seen *s = arg;
    s->calls++;
    assert_int_equal(step, s->calls);
    s->last = loss;
    return step != s->stop_at;
}

/* A run is model_train_step on the feed's batches, bit for bit; the
 * callback stops it; the model's input is set back. */
static void run_is_the_steps(void **state)
{
    (void)state;
    ModelCfg c = small_cfg();
    int in[3] = {0, 1, 2};
    Model *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *g = calloc(1, sizeof *g);
    assert_true(model_init(a, &c, in, 3));
    model_draw_weights_split(a, 5, 0.3, 1.0);
    assert_true(model_copy(b, a));
    assert_true(model_grad_init(g, b));
    TrainSpec s = copy_spec(3);
    s.lmin = 2;
    s.lmax = 3;
    TrainFeed fa, fb;
    train_feed_init(&fa, &s, 8, 6);
    train_feed_init(&fb, &s, 8, 6);
    Optim oa, ob;
    optim_init(&oa, OPT_ADAM, 0.01);
    optim_init(&ob, OPT_ADAM, 0.01);
    Seen seen = {.stop_at = 4};
    TrainResult r;
    assert_int_equal(train_run(a, &oa, &fa, 10, seen_step, &seen, &r), 4);
    assert_int_equal(r.steps, 4);
    assert_true(r.stopped);
    assert_int_equal(r.status, TRAIN_OK);
    assert_int_equal(seen.calls, 4);
    assert_int_equal(a->n, 3);
    assert_memory_equal(a->tok, in, sizeof in);
    int tok[3 * 8], len[3], n;
    double loss = 0, first = 0;
    ModelRef bad;
    for (int k = 0; k < 4; k++) {
        assert_true(train_feed_next(&fb, tok, len, &n));
        assert_int_equal(model_train_step(b, g, &ob, tok, len, n, &loss, &bad), TRAIN_OK);
        if (k == 0)
            first = loss;
    }
    assert_true(r.loss == loss && seen.last == loss && r.first_loss == first);
    assert_true(mat_max_diff(&a->layer[1].att.m[M_WQ], &b->layer[1].att.m[M_WQ]) == 0.0);
    assert_true(mat_max_diff(&a->E, &b->E) == 0.0);
    assert_int_equal(oa.t, 4);
    optim_free(&oa);
    optim_free(&ob);
    model_free(a);
    model_free(b);
    model_free(g);
    free(a);
    free(b);
    free(g);
}

/* SGD at lr 1e300: the run stops at the first step that is not finite,
 * names it and the parameter, and keeps the whole steps before it. */
static void not_finite_stops(void **state)
{
    (void)state;
    ModelCfg c = small_cfg();
    int in[2] = {0, 1};
    Model *m = calloc(1, sizeof *m);
    assert_true(model_init(m, &c, in, 2));
    model_draw_weights_split(m, 5, 0.3, 1.0);
    TrainSpec s = copy_spec(2);
    s.lmin = 2;
    s.lmax = 3;
    TrainFeed f;
    train_feed_init(&f, &s, 8, 6);
    Optim o;
    optim_init(&o, OPT_SGD, 1e300);
    TrainResult r;
    long took = train_run(m, &o, &f, 50, NULL, NULL, &r);
    assert_int_not_equal(r.status, TRAIN_OK);
    assert_int_equal(r.bad_step, took + 1);
    assert_int_equal(f.batches, took); /* the failed step took no batch */
    char msg[256], want[256];
    train_result_message(m, &r, 1e300, msg, sizeof msg);
    if (r.status == TRAIN_GRAD_NOT_FINITE || r.status == TRAIN_WEIGHT_NOT_FINITE) {
        char name[32];
        (void)model_ref_name(m, r.bad, name, sizeof name);
        snprintf(want, sizeof want,
                 r.status == TRAIN_GRAD_NOT_FINITE ? "step %ld: the gradient of %s is not finite; lower lr (now 1e+300)"
                                                   : "step %ld: %s would not be finite after the update; lower lr (now 1e+300)",
                 took + 1, name);
    } else {
        snprintf(want, sizeof want, "step %ld: the loss is not finite; lower lr (now 1e+300)", took + 1);
    }
    assert_string_equal(msg, want);
    print_message("stopped: %s\n", msg);
    model_free(m);
    free(m);
}

/* Lesson 17's model, recipe and held-out set: 20 steps, then train_eval's
 * scores are tests/bench/induction.c's (`induction steps=20 every=20`:
 * copy loss 3.2807, previous-token 0.128 0.110, induction 0.141 0.130). */
static void eval_is_the_benchs(void **state)
{
    (void)state;
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = 2;
    c.d_model = 16;
    c.heads = 2;
    c.d_ff = 0;
    c.norm = NORM_NONE;
    c.ctx = 14;
    c.vocab = 27;
    int in[14] = {0};
    Model *m = calloc(1, sizeof *m);
    assert_true(model_init(m, &c, in, 14));
    model_draw_weights_split(m, 3, 0.144, 1.0);
    TrainSpec s = copy_spec(64);
    TrainFeed f;
    train_feed_init(&f, &s, 14, 27);
    Optim o;
    optim_init(&o, OPT_ADAM, 0.01);
    TrainResult r;
    assert_int_equal(train_run(m, &o, &f, 20, NULL, NULL, &r), 20);
    TrainEval e;
    assert_true(train_eval(m, &s, &e));
    assert_true(e.copy);
    assert_int_equal(e.seed, 999);
    assert_int_equal(e.nseq, TRAIN_HELD);
    assert_near(e.loss_copy, 3.2807, 5e-5);
    assert_near(e.prev[0][0], 0.128, 5e-4);
    assert_near(e.prev[0][1], 0.110, 5e-4);
    assert_near(e.ind[1][0], 0.141, 5e-4);
    assert_near(e.ind[1][1], 0.130, 5e-4);
    assert_true(e.has_ind[1][0] && e.has_ind[0][1]);
    assert_int_equal(m->n, 14); /* the input set back */
    s.data_seed = 999;          /* the held-out stream is never the data's */
    assert_true(train_eval(m, &s, &e));
    assert_int_equal(e.seed, 998);
    optim_free(&o);
    model_free(m);
    free(m);
}

/* The shipped weights file is built in beside lesson 17, found from the
 * lesson's relative path. */
static void weights_are_built_in(void **state)
{
    (void)state;
    const char *l17 = "lessons/17-induction-head.yaml";
    const EmbeddedFile *e = embedded_file_near(l17, "weights/induction-2l.yaml");
    assert_non_null(e);
    assert_string_equal(e->name, "lessons/weights/induction-2l.yaml");
    FILE *f = fopen("lessons/weights/induction-2l.yaml", "rb");
    assert_non_null(f);
    char *buf = malloc(e->len + 1);
    assert_int_equal(fread(buf, 1, e->len + 1, f), e->len);
    fclose(f);
    assert_memory_equal(buf, e->data, e->len);
    free(buf);
    assert_ptr_equal(embedded_file_near(l17, "./weights/../weights/induction-2l.yaml"), e);
    assert_null(embedded_file_near(l17, "../weights/induction-2l.yaml"));
    assert_null(embedded_file_near(l17, "/lessons/weights/induction-2l.yaml"));
    assert_null(embedded_file_near("elsewhere/17.yaml", "weights/induction-2l.yaml"));
    assert_null(embedded_file_near(l17, "weights/none.yaml"));
}

/* Lesson 18's weights: {random: {seed, scale, embed_scale}} are train.from's
 * draw (model_draw_weights_split), and its train: is lesson 17's. */
static void lesson18_starts_from_train_from(void **state)
{
    (void)state;
    Lesson l, k;
    char err[1024];
    assert_true(lesson_load_file("lessons/18-watch-it-learn.yaml", &l, err, sizeof err));
    assert_true(lesson_load_file("lessons/17-induction-head.yaml", &k, err, sizeof err));
    const LessonModel *lm = l.model;
    assert_non_null(lm);
    assert_true(lm->train.given && lm->train.from_given);
    assert_int_equal(lm->wseed, lm->train.from_seed);
    assert_true(lm->wscale == lm->train.from_scale && lm->wembed_scale == lm->train.from_embed_scale);
    Model *m = calloc(1, sizeof *m);
    assert_true(model_copy(m, lm->base));
    model_draw_weights_split(m, 1, 0.144, 1.0);
    assert_true(mat_max_diff(&m->E, &lm->base->E) == 0.0);
    assert_true(mat_max_diff(&m->P, &lm->base->P) == 0.0);
    assert_true(mat_max_diff(&m->WU, &lm->base->WU) == 0.0);
    assert_true(mat_max_diff(&m->layer[1].att.m[M_WK], &lm->base->layer[1].att.m[M_WK]) == 0.0);
    const TrainSpec *a = &lm->train, *b = &k.model->train;
    assert_true(a->data == b->data && a->lmin == b->lmin && a->lmax == b->lmax && a->data_seed == b->data_seed);
    assert_true(a->opt == b->opt && a->lr == b->lr && a->batch == b->batch && a->steps == b->steps);
    assert_true(a->from_seed == b->from_seed && a->from_scale == b->from_scale &&
                a->from_embed_scale == b->from_embed_scale);
    model_free(m);
    free(m);
    lesson_free(&l);
    lesson_free(&k);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    i18n_set(LANG_EN, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_is_the_stream),
        cmocka_unit_test(sequences_go_round),
        cmocka_unit_test(text_is_cut_into_ctx),
        cmocka_unit_test(run_is_the_steps),
        cmocka_unit_test(not_finite_stops),
        cmocka_unit_test(eval_is_the_benchs),
        cmocka_unit_test(weights_are_built_in),
        cmocka_unit_test(lesson18_starts_from_train_from),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
