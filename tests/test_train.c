/* test_train.c - the training actions (target, lr, step) through the one
 * action path: parsing and formatting, exact refusals, the session's undo
 * (one `step N` is one entry), replay, the status line, the lesson option
 * lr: and load errors with FILE:LINE:COL. Figures: REFERENCE.md "Training". */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "lessonfix.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "core/grad.h"
#include "lesson/action.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "lesson/lesson.h"
#include "lesson/save.h"
#include "words/live.h"
#include "lesson/session.h"
#include <unistd.h>

#define HEAD "format: qkvtutor/1\n" \
             "title: Training\n" \
             "tokens: [我, love, 猫]\n" \
             "X:\n" \
             "  - [1, 0, 0, 0]\n" \
             "  - [0, 1, 0, 0]\n" \
             "  - [0, 0, 1, 0.2]\n" \
             "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n"
#define OPTS "options: {scale: none, softmax: naive}\n"
#define STEPS "steps:\n" \
              "  - stage: softmax\n" \
              "    focus: \"A[1][3]\"\n" \
              "  - stage: output\n"

typedef LessonFix Fix;

static int setup(void **state)
{
    *state = lessonfix_open("t.yaml", HEAD OPTS STEPS);
    return *state ? 0 : -1;
}

/* Parse text, format it back, and compare with want (NULL: the same text). */
static void roundtrip(const char *text, const char *want)
{
    Action a;
    char err[256], back[512];
    int col;
    if (!action_parse(text, &a, err, sizeof err, &col))
        print_error("%s: %s\n", text, err);
    assert_true(action_parse(text, &a, err, sizeof err, &col));
    action_format(&a, back, sizeof back);
    assert_string_equal(back, want ? want : text);
}

/* The training actions parse and format back in canonical form. */
static void parse_and_format(void **state)
{
    roundtrip("target A[1] = 3", NULL);
    roundtrip("target  A[2]=[0.25, 0.75 ,0]", "target A[2] = [0.25, 0.75, 0]");
    roundtrip("target A[1] = none", NULL);
    roundtrip("lr = 0.5", NULL);
    roundtrip("lr=1e-3", "lr = 0.001");
    roundtrip("step", NULL);
    roundtrip("step 1", "step");
    roundtrip("step 10000", NULL);
}

/* Syntax errors name what is wrong and where (1-based column). */
static void parse_errors(void **state)
{
    static const struct {
        const char *text, *msg;
        int col;
    } cases[] = {
        {"lr = 0", "lr must be above 0 (each step moves W by -lr times the gradient), found 0", 6},
        {"lr = -0.5", "lr must be above 0 (each step moves W by -lr times the gradient), found -0.5", 6},
        {"lr = nan", "lr must be a finite number above 0, like lr = 0.5; found nan", 6},
        {"lr = 1e999", "numbers must be finite", 6},
        {"step 0", "step takes 1 to 10000 steps, found 0", 6},
        {"step 10001", "step takes 1 to 10000 steps, found 10001", 6},
        {"step 2.5", "step takes a whole number of steps from 1 to 10000, like step 10; found \"2.5\"", 6},
        {"step ten", "step takes a whole number of steps from 1 to 10000, like step 10; found \"ten\"", 6},
        {"target Q[1] = 3", "a target is a row of the attention weights, like target A[1] = 3; found Q[1]", 8},
        {"target A[1][2] = 3", "a target is a whole row of A, like target A[1] = 3 (all of row 1's weight on key 3), "
                               "not a cell", 8},
        {"target A[1] = 0", "keys are numbered from 1", 15},
        {"target A[1] = all", "expected a key number from 1, a list like [0, 0.5, 0.5], or none; found \"all\"", 15},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Action a;
        char err[256];
        int col = 0;
        assert_false(action_parse(cases[k].text, &a, err, sizeof err, &col));
        if (strcmp(err, cases[k].msg) != 0 || col != cases[k].col)
            print_error("%s: \"%s\" at %d\n", cases[k].text, err, col);
        assert_string_equal(err, cases[k].msg);
        assert_int_equal(col, cases[k].col);
    }
}

/* Refusals at apply time: the exact message, and nothing changes. */
static void refusals_change_nothing(void **state)
{
    Fix *f = *state;
    static const struct {
        const char *pre, *text, *msg;
    } cases[] = {
        {NULL, "step", "nothing to learn yet: set a target first, like target A[1] = 3 (in the view, T targets the "
                       "focused cell of A)"},
        {NULL, "target A[4] = 1", "row 4 is out of range: A has rows 1 to 3"},
        {NULL, "target A[1] = 4", "key 4 is out of range: A has keys 1 to 3"},
        {NULL, "target A[1] = [0.5, 0.5]", "a target row of A takes 3 numbers, one per key; this one has 2"},
        {NULL, "target A[1] = [1.2, -0.2, 0]", "a target is a distribution: weight 2 is -0.2, below 0; every weight "
                                               "must be 0 or more"},
        {NULL, "target A[1] = [0.3, 0.3, 0.3]", "a target is a distribution: its weights must sum to 1, these sum "
                                                "to 0.9"},
        {"mask = causal", "target A[1] = 3", "key 3 comes after query 1, so the causal mask hides it; a target for "
                                             "row 1 may put weight on keys 1 to 1 only"},
        {"mask = causal", "target A[2] = [0.5, 0, 0.5]", "key 3 comes after query 2, so the causal mask hides it; "
                                                         "its target weight must be 0, not 0.5"},
        {"Q[1] = K[1] * 5", "step", "nothing to learn yet: set a target first, like target A[1] = 3 (in the view, T "
                                    "targets the focused cell of A)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char err[256];
        assert_true(session_act_text(&f->s, "reset", err, sizeof err));
        if (cases[k].pre)
            assert_true(session_act_text(&f->s, cases[k].pre, err, sizeof err));
        int n = f->s.nedits;
        double wq = MAT_AT(&f->s.cur.m[M_WQ], 0, 0);
        assert_false(session_act_text(&f->s, cases[k].text, err, sizeof err));
        if (strcmp(err, cases[k].msg) != 0)
            print_error("%s: \"%s\"\n", cases[k].text, err);
        assert_string_equal(err, cases[k].msg);
        assert_int_equal(f->s.nedits, n);
        assert_int_equal(f->s.cur.ntarget, 0);
        assert_true(MAT_AT(&f->s.cur.m[M_WQ], 0, 0) == wq);
    }
}

/* While a row of Q or K is set by hand, a step is refused and says how to
 * get back (r); after reset it works. */
static void override_refuses_step(void **state)
{
    Fix *f = *state;
    char err[256];
    assert_true(session_act_text(&f->s, "target A[1] = 3", err, sizeof err));
    assert_true(session_act_text(&f->s, "K[2] = [1, 2, 3]", err, sizeof err));
    assert_false(session_act_text(&f->s, "step", err, sizeof err));
    assert_string_equal(err, "a step trains W_Q and W_K, but row 2 of K is set by hand, not computed from them; reset "
                             "it first (r in the view, or undo the edit with u)");
    assert_true(session_undo(&f->s));
    assert_true(session_act_text(&f->s, "step", err, sizeof err));
    assert_near(MAT_AT(&f->s.cur.m[M_A], 0, 2), 0.38660927092940062, 1e-12);
}

/* One `step 10` is one undo entry; undo brings back the weights exactly,
 * redo the trained ones; the status line names the steps. */
static void step_n_is_one_undo(void **state)
{
    Fix *f = *state;
    char err[256], msg[512];
    Attn start = {0};
    assert_true(attn_copy(&start, &f->s.cur));
    assert_true(session_act_text(&f->s, "target A[1] = 3", err, sizeof err));
    assert_true(session_act_text(&f->s, "step 10", err, sizeof err));
    assert_int_equal(f->s.nedits, 2);
    assert_near(MAT_AT(&f->s.cur.m[M_A], 0, 2), 0.95948465588132115, 1e-12);
    assert_near(MAT_AT(&f->s.before.m[M_A], 0, 2), 0.34975870948206467, 1e-15);
    effect_status(&f->s, EFFECT_ACT, NULL, M_A, 0, 2, false, msg, sizeof msg);
    assert_string_equal(msg, "10 gradient steps, lr 0.5: α₁₃ 0.350 → 0.959. u undoes it.");
    assert_true(session_undo(&f->s));
    assert_true(mat_max_diff(&f->s.cur.m[M_WQ], &start.m[M_WQ]) == 0.0);
    assert_int_equal(f->s.cur.ntarget, 1);
    assert_true(session_redo(&f->s));
    assert_near(MAT_AT(&f->s.cur.m[M_A], 0, 2), 0.95948465588132115, 1e-12);
    assert_true(mat_max_diff(&f->s.cur.m[M_X], &start.m[M_X]) == 0.0);
    assert_true(mat_max_diff(&f->s.cur.m[M_WV], &start.m[M_WV]) == 0.0);
    attn_free(&start);
}

/* lr changes the step; moving between steps replays the same numbers. */
static void lr_and_replay(void **state)
{
    Fix *f = *state;
    char err[256];
    assert_true(session_act_text(&f->s, "target A[1] = 3", err, sizeof err));
    assert_true(session_act_text(&f->s, "lr = 0.25", err, sizeof err));
    assert_near(f->s.cur.lr, 0.25, 0);
    assert_true(session_act_text(&f->s, "step 2", err, sizeof err));
    double a13 = MAT_AT(&f->s.cur.m[M_A], 0, 2);
    assert_near(a13, 0.38856019467753689, 1e-12); /* numpy: two steps at lr 0.25 */
    assert_true(session_next(&f->s));
    assert_true(session_prev(&f->s));
    assert_true(MAT_AT(&f->s.cur.m[M_A], 0, 2) == a13);
    assert_true(session_act_text(&f->s, "target A[1] = none", err, sizeof err));
    assert_int_equal(f->s.cur.ntarget, 0);
}

/* The lesson option lr: is the starting learning rate; bad values are load
 * errors with FILE:LINE:COL, and so is a bad training do:. */
static void lesson_lr_and_errors(void **state)
{
    static const struct {
        const char *opts, *steps, *msg;
    } cases[] = {
        {"options: {lr: 0}\n", STEPS, "t.yaml:10:15: lr must be a number above 0 (the learning rate), found \"0\""},
        {"options: {lr: -1}\n", STEPS, "t.yaml:10:15: lr must be a number above 0 (the learning rate), found \"-1\""},
        {OPTS, "steps:\n  - stage: softmax\n    do: step\n",
         "t.yaml:13:9: nothing to learn yet: set a target first, like target A[1] = 3 (in the view, T targets the "
         "focused cell of A)"},
        {OPTS, "steps:\n  - stage: softmax\n    do: step 10001\n",
         "t.yaml:13:14: step takes 1 to 10000 steps, found 10001"},
        {OPTS, "steps:\n  - stage: softmax\n    do: \"target A[1] = [0.5, 0.6, 0]\"\n",
         "t.yaml:13:9: a target is a distribution: its weights must sum to 1, these sum to 1.1"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Lesson l;
        char yaml[2048], err[512];
        snprintf(yaml, sizeof yaml, "%s%s%s", HEAD, cases[k].opts, cases[k].steps);
        assert_false(lesson_load_buffer("t.yaml", yaml, strlen(yaml), &l, err, sizeof err));
        if (strcmp(err, cases[k].msg) != 0)
            print_error("case %zu: \"%s\"\n", k, err);
        assert_string_equal(err, cases[k].msg);
    }
    Lesson l;
    Attn a = {0};
    char err[512];
    const char *yaml = HEAD "options: {lr: 0.125}\n" STEPS;
    assert_true(lesson_load_buffer("t.yaml", yaml, strlen(yaml), &l, err, sizeof err));
    assert_true(lesson_base(&l, &a));
    assert_near(a.lr, 0.125, 0);
    attn_free(&a);
    lesson_free(&l);
}

/* Saving writes the target, lr and the steps taken as edits; the saved
 * lesson opens with the same lr, W_Q and W_K. */
static void save_keeps_lr_and_weights(void **state)
{
    Fix *f = *state;
    char err[256], path[] = "/tmp/qkv-train-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    assert_true(session_act_text(&f->s, "target A[1] = 3", err, sizeof err));
    assert_true(session_act_text(&f->s, "lr = 0.25", err, sizeof err));
    assert_true(session_act_text(&f->s, "step 3", err, sizeof err));
    if (!lesson_save(&f->s, path, err, sizeof err))
        fail_msg("%s", err);
    Lesson l;
    Session s2;
    assert_true(lesson_load_file(path, &l, err, sizeof err));
    assert_true(session_init(&s2, &l)); /* the edits replayed at their step: the same lr and trained Ws */
    assert_near(s2.cur.lr, 0.25, 0);
    assert_true(mat_max_diff(&s2.cur.m[M_WQ], &f->s.cur.m[M_WQ]) == 0.0);
    assert_true(mat_max_diff(&s2.cur.m[M_WK], &f->s.cur.m[M_WK]) == 0.0);
    session_free(&s2);
    lesson_free(&l);
    unlink(path);
}

/* Lesson 09 saved at its target step, and with the mask switched on after
 * the target: the saved lesson loads (a later step the mask makes
 * impossible is left out), opens with the session's state, and without the
 * mask its next steps train exactly as the session did. */
static void save_keeps_targets(void **state)
{
    char err[512], path[] = "/tmp/qkv-train-XXXXXX";
    for (int masked = 0; masked < 2; masked++) {
        Lesson l, r;
        Session s, rs;
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        assert_true(lesson_load_file("lessons/09-attention-is-learned.yaml", &l, err, sizeof err));
        assert_true(session_init(&s, &l));
        assert_true(session_goto(&s, 1)); /* do: target A[1] = 3 */
        if (masked)
            assert_true(session_act_text(&s, "mask = causal", err, sizeof err));
        if (!lesson_save(&s, path, err, sizeof err))
            fail_msg("%s", err);
        if (!lesson_load_file(path, &r, err, sizeof err))
            fail_msg("the saved lesson does not load: %s", err);
        assert_true(session_init(&rs, &r));
        assert_int_equal(rs.step, 1);
        assert_int_equal(rs.cur.ntarget, s.cur.ntarget); /* the script's target, then the student's mask */
        /* step 3 explains the gradient, step 4 takes it (do: step) */
        for (int k = 0; k < 2; k++) {
            assert_true(session_next(&rs));
            assert_true(session_next(&s));
        }
        if (!masked) { /* (with the mask, the session applies the student's edit after the script) */
            assert_true(mat_max_diff(&rs.cur.m[M_WQ], &s.cur.m[M_WQ]) == 0.0);
            assert_true(mat_max_diff(&rs.cur.m[M_A], &s.cur.m[M_A]) == 0.0);
            assert_near(MAT_AT(&rs.cur.m[M_A], 0, 2), 0.38660927092940062, 1e-12);
        }
        session_free(&rs);
        lesson_free(&r);
        session_free(&s);
        lesson_free(&l);
        unlink(path);
        snprintf(path, sizeof path, "/tmp/qkv-train-XXXXXX");
    }
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    i18n_set(LANG_EN, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_and_format),
        cmocka_unit_test(parse_errors),
        cmocka_unit_test_setup_teardown(refusals_change_nothing, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(override_refuses_step, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(step_n_is_one_undo, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(lr_and_replay, setup, lessonfix_teardown),
        cmocka_unit_test(lesson_lr_and_errors),
        cmocka_unit_test_setup_teardown(save_keeps_lr_and_weights, setup, lessonfix_teardown),
        cmocka_unit_test(save_keeps_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
