/* test_session.c - a lesson stepped through and edited: the script cursor,
 * `do:` steps and `before`, user actions with undo/redo/reset, overrides,
 * naive softmax overflow, and saving (round trip, overwrite, failures).
 * Figures are REFERENCE.md's tutorial A and its "attend to itself" experiment. */
#include <dirent.h>
#include <locale.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "testutil.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/lesson.h"
#include "core/explain.h"
#include "words/fmt.h"
#include "words/live.h"
#include "lesson/save.h"
#include "lesson/session.h"

/* Tutorial A, unscaled and naive, in six steps; step 5 (index 4) makes 我
 * attend to itself. */
#define HEAD "format: qkvtutor/1\n" \
             "title: {zh: 自注意力, en: Self-attention}\n" \
             "about: \"Tutorial A\"\n" \
             "tokens: [我, love, 猫]\n" \
             "X:\n" \
             "  - [1, 0, 0, 0]\n" \
             "  - [0, 1, 0, 0]\n" \
             "  - [0, 0, 1, 0.2]\n" \
             "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n" \
             "options: {scale: none, softmax: naive, digits: 4}\n"
#define STEPS "steps:\n" \
              "  - stage: input\n" \
              "    say: {zh: 输入, en: The input}\n" \
              "  - stage: qkv\n" \
              "    focus: \"Q[1]\"\n" \
              "    say: Q, K and V\n" \
              "  - stage: scores\n" \
              "    focus: \"S[1][2]\"\n" \
              "  - stage: softmax\n" \
              "    focus: \"A[1]\"\n" \
              "    expect: {\"A[1]\": [0.313, 0.337, 0.350]}\n" \
              "  - stage: softmax\n" \
              "    do: \"Q[1] = K[1] * 5\"\n" \
              "    say: {en: \"Attend to itself\"}\n" \
              "    expect: {\"A[1]\": [0.873, 0.076, 0.052]}\n" \
              "  - stage: output\n"
#define TUTORIAL_A HEAD STEPS

enum { ST_INPUT, ST_QKV, ST_SCORES, ST_SOFTMAX, ST_DO, ST_OUTPUT, NSTEPS };

static const double a1_before[] = {0.313, 0.337, 0.350};        /* A row 1, as written */
static const double a1_edit[] = {0.873, 0.076, 0.052};          /* after Q[1] = K[1] * 5 */
static const double a1_edit_scaled[] = {0.695, 0.169, 0.136};   /* ... and scale = sqrt_dk */
static const double a1_scaled[] = {0.322, 0.335, 0.343};        /* scaled, no edit */
/* numpy: Q, K = X @ Wq, X @ Wk */
static const double q_ref[] = {0.14901424590336979, -0.041479290351355398, 0.19430656143020775,
                               0.45690895692240757, -0.070246012417000792, -0.070241087084754156,
                               0.50631744726737526, 0.2024253571771249, -0.16878610099470104};
static const double k_ref[] = {0.072588681469810235, -0.57398407339733937, -0.51747534975390985,
                               -0.16868625877229179, -0.30384933610032711, 0.09427419977858216,
                               -0.28595380068555537, -0.41963941811931199, 0.35420973950365875};

typedef struct {
    Lesson l;
    Session s;
    char dir[64];   /* a temporary directory for saving, "" when none */
} Fix;

static char err[LESSON_ERR_MAX];

static int load_into(Fix *f, const char *yaml)
{
    if (!lesson_load_buffer("t.yaml", yaml, strlen(yaml), &f->l, err, sizeof err)) {
        print_error("%s\n", err);
        return -1;
    }
    return session_init(&f->s, &f->l) ? 0 : -1;
}

/* Load tutorial A and open a session on it. */
static int setup(void **state)
{
    Fix *f = calloc(1, sizeof *f);
    *state = f;
    return f ? load_into(f, TUTORIAL_A) : -1;
}

/* As setup, plus an empty temporary directory for saving. */
static int setup_dir(void **state)
{
    if (setup(state) != 0)
        return -1;
    Fix *f = *state;
    strcpy(f->dir, "/tmp/qkvtutor-session-XXXXXX");
    return mkdtemp(f->dir) ? 0 : -1;
}

/* Remove dir, its files and its empty subdirectories. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    char path[512];
    if (!d)
        return;
    chmod(dir, 0700);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0)
            rmdir(path);
    }
    closedir(d);
    rmdir(dir);
}

static int teardown(void **state)
{
    Fix *f = *state;
    if (f) {
        session_free(&f->s);
        lesson_free(&f->l);
        if (f->dir[0])
            remove_dir(f->dir);
    }
    free(f);
    return 0;
}

/* Row i of m is within tol of want[0..cols). */
#define assert_row_near(m, i, want, tol) assert_row_near_at((m), (i), (want), (tol), #m, __FILE__, __LINE__)
static void assert_row_near_at(const Mat *m, int i, const double *want, double tol, const char *name,
                               const char *file, int line)
{
    for (int j = 0; j < m->cols; j++)
        if (!(fabs(MAT_AT(m, i, j) - want[j]) <= tol)) {
            print_error("%s[%d][%d] = %.12g, want %.12g (tol %g)\n", name, i + 1, j + 1, MAT_AT(m, i, j),
                        want[j], tol);
            _fail(file, line);
        }
}


/* Two states agree within tol on every matrix computed (stage <= reached),
 * and exactly on override flags, options and the reached stage. */
#define assert_attn_near(x, y, tol) assert_attn_near_at((x), (y), (tol), __FILE__, __LINE__)
static void assert_attn_near_at(const Attn *x, const Attn *y, double tol, const char *file, int line)
{
    if (x->reached != y->reached || x->scale != y->scale || x->softmax != y->softmax ||
        memcmp(x->override, y->override, sizeof x->override) != 0 || x->mask != y->mask || x->temp != y->temp ||
        x->positions != y->positions) {
        print_error("reached %d/%d, scale %d/%d, softmax %d/%d, or override flags differ\n", x->reached,
                    y->reached, x->scale, y->scale, x->softmax, y->softmax);
        _fail(file, line);
    }
    for (int m = 0; m < M_COUNT; m++) {
        if (attn_mat_stage((MatId)m) > x->reached)
            continue;
        double d = mat_same_shape(&x->m[m], &y->m[m]) ? mat_max_diff(&x->m[m], &y->m[m]) : INFINITY;
        if (!(d <= tol)) {
            print_error("%s differs by %g (tol %g)\n", attn_mat_name((MatId)m), d, tol);
            _fail(file, line);
        }
    }
}

/* Act with text, failing the test with the session's message when refused. */
#define act_ok(s, text) act_ok_at((s), (text), __FILE__, __LINE__)
static void act_ok_at(Session *s, const char *text, const char *file, int line)
{
    err[0] = '\0';
    if (!session_act_text(s, text, err, sizeof err)) {
        print_error("session_act_text(\"%s\"): %s\n", text, err);
        _fail(file, line);
    }
}

/* ---- stepping ------------------------------------------------------------ */

/* A new session opens at step 0, computed to its stage, clean, with nothing before. */
static void init_at_first_step(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_ptr_equal(s->lesson, &f->l);
    assert_int_equal(session_steps(s), NSTEPS);
    assert_int_equal(s->step, 0);
    assert_ptr_equal(session_step(s), &f->l.steps[0]);
    assert_int_equal(session_stage(s), STAGE_INPUT);
    assert_int_equal(s->cur.reached, STAGE_INPUT);
    assert_false(s->has_before);
    assert_int_equal(s->nedits, 0);
    assert_int_equal(s->nredo, 0);
    assert_false(session_dirty(s));
    assert_int_equal(s->cur.scale, SCALE_NONE);
    assert_int_equal(s->cur.softmax, SOFTMAX_NAIVE);
    assert_near(MAT_AT(&s->cur.m[M_X], 2, 3), 0.2, 0);
    assert_near(MAT_AT(&s->cur.m[M_WQ], 0, 0), 0.1490142459, 1e-10);
}

/* A lesson's start: opens there, with the script's do: up to it applied. */
static void init_at_lesson_start(void **state)
{
    (void)state;
    static const struct { const char *start; int step, stage; const double *a1; } cases[] = {
        {"start: 4\n", ST_SOFTMAX, STAGE_SOFTMAX, a1_before},
        {"start: 5\n", ST_DO, STAGE_SOFTMAX, a1_edit},
        {"start: 6\n", ST_OUTPUT, STAGE_OUTPUT, a1_edit},
        {"start: 1\n", ST_INPUT, STAGE_INPUT, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char yaml[2048];
        Fix f = {0};
        snprintf(yaml, sizeof yaml, "%s%s%s", HEAD, cases[k].start, STEPS);
        assert_int_equal(load_into(&f, yaml), 0);
        assert_int_equal(f.s.step, cases[k].step);
        assert_int_equal(f.s.cur.reached, cases[k].stage);
        assert_false(f.s.has_before);
        assert_false(session_dirty(&f.s));
        if (cases[k].a1)
            assert_row_near(&f.s.cur.m[M_A], 0, cases[k].a1, 5e-4);
        assert_int_equal(f.s.cur.override[0][0], cases[k].a1 == a1_edit);
        session_free(&f.s);
        lesson_free(&f.l);
    }
}

/* next/prev move one step; the state is computed to each step's stage, and
 * going back hides the later stages; at the ends they do not move. */
static void next_prev_reach_each_stage(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    static const int stage[NSTEPS] = {1, 2, 3, 4, 4, 5};
    assert_false(session_prev(s));
    assert_int_equal(s->step, 0);
    for (int k = 1; k < NSTEPS; k++) {
        assert_true(session_next(s));
        assert_int_equal(s->step, k);
        assert_int_equal(session_stage(s), stage[k]);
        assert_int_equal(s->cur.reached, stage[k]);
    }
    assert_false(session_next(s));
    assert_int_equal(s->step, NSTEPS - 1);
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);
    for (int k = NSTEPS - 2; k >= 0; k--) {
        int was = s->cur.reached;
        assert_true(session_prev(s));
        assert_int_equal(s->step, k);
        assert_int_equal(s->cur.reached, stage[k]);
        assert_true(s->cur.reached <= was);
    }
    assert_false(session_prev(s));
    assert_row_near(&s->cur.m[M_Q], 0, q_ref, 1e-15);   /* the do: is undone */
    assert_false(s->cur.override[0][0]);
}

/* goto clamps to the script, returns false when it does not move. */
static void goto_clamps(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, 100));
    assert_int_equal(s->step, NSTEPS - 1);
    assert_int_equal(s->cur.reached, STAGE_OUTPUT);
    assert_false(session_goto(s, NSTEPS - 1));
    assert_false(session_goto(s, NSTEPS));
    assert_true(session_goto(s, -3));
    assert_int_equal(s->step, 0);
    assert_int_equal(s->cur.reached, STAGE_INPUT);
    assert_false(session_goto(s, 0));
    assert_true(session_goto(s, ST_SCORES));
    assert_int_equal(s->cur.reached, STAGE_SCORES);
    assert_true(session_goto(s, ST_QKV));
    assert_int_equal(s->cur.reached, STAGE_QKV);
}

/* goto_stage jumps to the first step showing that stage (in a lesson whose
 * stages only go up). */
static void goto_stage_first_step(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto_stage(s, STAGE_SOFTMAX));
    assert_int_equal(s->step, ST_SOFTMAX);
    assert_int_equal(s->cur.reached, STAGE_SOFTMAX);
    assert_true(session_goto_stage(s, STAGE_OUTPUT));
    assert_int_equal(s->step, ST_OUTPUT);
    assert_true(session_goto_stage(s, STAGE_QKV));
    assert_int_equal(s->step, ST_QKV);
    assert_true(session_goto_stage(s, STAGE_INPUT));
    assert_int_equal(s->step, ST_INPUT);
    assert_false(session_goto_stage(s, STAGE_INPUT));   /* already there */
    /* from the second softmax step, 4 goes back to the first */
    assert_true(session_goto(s, ST_DO));
    assert_true(session_goto_stage(s, STAGE_SOFTMAX));
    assert_int_equal(s->step, ST_SOFTMAX);
    assert_row_near(&s->cur.m[M_A], 0, a1_before, 5e-4);
}

/* Lesson 05 tells its story twice; the stage keys stay in the current
 * telling: from the last step, 1 and 4 go back to the second telling's
 * input and softmax, and from that input, 4 goes forward to its softmax. */
static void goto_stage_two_tellings(void **state)
{
    (void)state;
    Lesson l;
    Session s;
    char e[LESSON_ERR_MAX];
    assert_true(lesson_load_file("lessons/05-parameters-vs-results.yaml", &l, e, sizeof e));
    static const int stages[] = {1, 2, 4, 1, 2, 4, 5, 4, 5, 5};
    assert_int_equal(l.nsteps, 10);
    for (int k = 0; k < 10; k++)
        assert_int_equal(l.steps[k].stage, stages[k]);
    assert_true(session_init(&s, &l));
    assert_true(session_goto(&s, 9));
    assert_true(session_goto_stage(&s, STAGE_SOFTMAX));
    assert_int_equal(s.step, 7);
    assert_true(session_goto_stage(&s, STAGE_INPUT));
    assert_int_equal(s.step, 3);
    assert_true(session_goto_stage(&s, STAGE_SOFTMAX));
    assert_int_equal(s.step, 5);
    assert_true(session_goto_stage(&s, STAGE_OUTPUT));
    assert_int_equal(s.step, 6);
    session_free(&s);
    lesson_free(&l);
}

/* goto_stage for a stage no step shows moves nowhere (the view says the
 * lesson has none), from below it and from above it. */
static void goto_stage_missing_stage(void **state)
{
    (void)state;
    Fix f = {0};
    assert_int_equal(load_into(&f, HEAD "steps:\n"
                                        "  - stage: input\n"
                                        "  - stage: qkv\n"
                                        "  - stage: softmax\n"
                                        "  - stage: output\n"), 0);
    bool moved = session_goto_stage(&f.s, STAGE_SCORES);
    int step = f.s.step;
    bool has = session_has_stage(&f.s, STAGE_SCORES), has4 = session_has_stage(&f.s, STAGE_SOFTMAX);
    session_goto(&f.s, 3);
    bool moved_back = session_goto_stage(&f.s, STAGE_SCORES);
    int step_back = f.s.step;
    session_free(&f.s);
    lesson_free(&f.l);
    assert_false(moved);
    assert_int_equal(step, 0);
    assert_false(has);
    assert_true(has4);
    assert_false(moved_back);
    assert_int_equal(step_back, 3);
}

/* Issue 10: lesson 02's stages (2, 4 x6, 5): at step 1, 1 and 3 stay put;
 * End then 3 stays at the last step (it used to jump back to step 1);
 * lesson 05's (1 2 4 1 2 4 5 4 5): at step 1, 3 stays at stage 1. */
static void goto_stage_skipped_stages(void **state)
{
    (void)state;
    Fix f = {0};
    assert_int_equal(load_into(&f, HEAD "steps:\n"
                                        "  - stage: qkv\n"
                                        "  - stage: softmax\n  - stage: softmax\n  - stage: softmax\n"
                                        "  - stage: softmax\n  - stage: softmax\n  - stage: softmax\n"
                                        "  - stage: output\n"), 0);
    bool m1 = session_goto_stage(&f.s, STAGE_INPUT), m3 = session_goto_stage(&f.s, STAGE_SCORES);
    int at1 = f.s.step;
    session_goto(&f.s, 7);
    bool m3end = session_goto_stage(&f.s, STAGE_SCORES);
    int atend = f.s.step, reach = session_step_reaching(&f.s, STAGE_QKV);
    session_free(&f.s);
    lesson_free(&f.l);
    assert_false(m1);
    assert_false(m3);
    assert_int_equal(at1, 0);
    assert_false(m3end);
    assert_int_equal(atend, 7);
    assert_int_equal(reach, 6); /* the nearest step at stage 2 or later, looking back */

    assert_int_equal(load_into(&f, HEAD "steps:\n"
                                        "  - stage: input\n  - stage: qkv\n  - stage: softmax\n"
                                        "  - stage: input\n  - stage: qkv\n  - stage: softmax\n"
                                        "  - stage: output\n  - stage: softmax\n  - stage: output\n"), 0);
    bool l5 = session_goto_stage(&f.s, STAGE_SCORES);
    int l5step = f.s.step, l5stage = session_stage(&f.s), qkv_at = session_step_reaching(&f.s, STAGE_QKV);
    session_free(&f.s);
    lesson_free(&f.l);
    assert_false(l5);
    assert_int_equal(l5step, 0);
    assert_int_equal(l5stage, STAGE_INPUT);
    assert_int_equal(qkv_at, 1);
}

/* Without steps: one step per stage; goto_stage(k) is step k-1. */
static void default_steps(void **state)
{
    (void)state;
    Fix f = {0};
    assert_int_equal(load_into(&f, HEAD), 0);
    assert_int_equal(session_steps(&f.s), STAGE_COUNT);
    for (int k = STAGE_OUTPUT; k >= STAGE_INPUT; k--) {
        session_goto_stage(&f.s, k);
        assert_int_equal(f.s.step, k - 1);
        assert_int_equal(f.s.cur.reached, k);
    }
    session_free(&f.s);
    lesson_free(&f.l);
}

/* Entering a do: step keeps the state before it (0.313 0.337 0.350) and shows
 * the state after (0.873 0.076 0.052); leaving it backward restores 0.313. */
static void do_step_before_and_after(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, ST_SOFTMAX));
    assert_false(s->has_before);
    assert_row_near(&s->cur.m[M_A], 0, a1_before, 5e-4);

    assert_true(session_next(s));
    assert_int_equal(s->step, ST_DO);
    assert_true(s->has_before);
    assert_int_equal(s->before.reached, STAGE_SOFTMAX);
    assert_row_near(&s->before.m[M_A], 0, a1_before, 5e-4);
    assert_false(s->before.override[0][0]);
    assert_int_equal(s->cur.reached, STAGE_SOFTMAX);
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&s->cur.m[M_Q], 0, j), 5 * k_ref[j], 1e-15);
    assert_true(s->cur.override[0][0]);
    assert_true(session_overridden(s, M_Q, 0));
    assert_int_equal(s->nedits, 0);            /* the script is not a user edit */
    assert_false(session_dirty(s));

    assert_true(session_next(s));              /* a step without do: has no before */
    assert_false(s->has_before);
    assert_int_equal(s->cur.reached, STAGE_OUTPUT);
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);

    assert_true(session_goto(s, ST_DO));
    assert_false(s->has_before);               /* backward never has a before */
    assert_int_equal(s->cur.reached, STAGE_SOFTMAX);
    assert_true(session_prev(s));
    assert_false(s->has_before);
    assert_int_equal(s->step, ST_SOFTMAX);
    assert_row_near(&s->cur.m[M_A], 0, a1_before, 5e-4);
    assert_false(session_overridden(s, M_Q, 0));
}

/* Jumping over a do: step applies it; jumping onto one from afar keeps a before. */
static void do_step_jumps(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, ST_OUTPUT));
    assert_false(s->has_before);
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);
    assert_true(session_goto(s, ST_INPUT));
    assert_false(session_overridden(s, M_Q, 0));
    assert_true(session_goto(s, ST_DO));
    assert_true(s->has_before);
    assert_int_equal(s->before.reached, STAGE_SOFTMAX);
    assert_row_near(&s->before.m[M_A], 0, a1_before, 5e-4);
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);
}

/* ---- user actions, undo, redo, reset -------------------------------------- */

/* Q[1] = K[1] * 5 gives 0.873; scale = sqrt_dk gives 0.695; undo and redo walk
 * back and forth through exactly those states, with `before` the state left. */
static void act_undo_redo(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, ST_SOFTMAX));
    assert_false(session_undo(s));
    assert_false(session_redo(s));

    act_ok(s, "Q[1] = K[1] * 5");
    assert_int_equal(s->nedits, 1);
    assert_int_equal(s->cur.reached, STAGE_SOFTMAX);
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);
    assert_true(s->has_before);
    assert_row_near(&s->before.m[M_A], 0, a1_before, 5e-4);

    act_ok(s, "scale = sqrt_dk");
    assert_int_equal(s->nedits, 2);
    assert_int_equal(s->cur.scale, SCALE_SQRT_DK);
    assert_row_near(&s->cur.m[M_A], 0, a1_edit_scaled, 5e-4);
    assert_row_near(&s->before.m[M_A], 0, a1_edit, 5e-4);

    assert_true(session_undo(s));
    assert_int_equal(s->nedits, 1);
    assert_int_equal(s->nredo, 1);
    assert_int_equal(s->cur.scale, SCALE_NONE);
    assert_int_equal(s->cur.reached, STAGE_SOFTMAX);
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);
    assert_true(s->has_before);
    assert_row_near(&s->before.m[M_A], 0, a1_edit_scaled, 5e-4);

    assert_true(session_undo(s));
    assert_row_near(&s->cur.m[M_A], 0, a1_before, 5e-4);
    assert_false(session_overridden(s, M_Q, 0));
    assert_false(session_undo(s));
    assert_int_equal(s->nedits, 0);
    assert_int_equal(s->nredo, 2);

    assert_true(session_redo(s));
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);
    assert_true(session_overridden(s, M_Q, 0));
    assert_true(session_redo(s));
    assert_row_near(&s->cur.m[M_A], 0, a1_edit_scaled, 5e-4);
    assert_int_equal(s->cur.scale, SCALE_SQRT_DK);
    assert_false(session_redo(s));
    assert_int_equal(s->nedits, 2);
    assert_int_equal(s->nredo, 0);
}

/* A new action after undo drops what could have been redone. */
static void new_action_drops_redo(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, ST_SOFTMAX));
    act_ok(s, "Q[1] = K[1] * 5");
    act_ok(s, "scale = sqrt_dk");
    assert_true(session_undo(s));
    assert_true(session_undo(s));
    act_ok(s, "softmax = stable");
    assert_int_equal(s->nedits, 1);
    assert_int_equal(s->nredo, 0);
    assert_false(session_redo(s));
    assert_false(session_overridden(s, M_Q, 0));
    assert_int_equal(s->cur.scale, SCALE_NONE);
    assert_int_equal(s->cur.softmax, SOFTMAX_STABLE);
    assert_row_near(&s->cur.m[M_A], 0, a1_before, 5e-4);   /* stable = naive here */
}

/* dirty means the edits differ from the last save (or from the lesson). */
static void dirty_and_saved(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_false(session_dirty(s));
    act_ok(s, "scale = sqrt_dk");
    assert_true(session_dirty(s));
    session_mark_saved(s);
    assert_false(session_dirty(s));
    assert_true(session_undo(s));
    assert_true(session_dirty(s));
    assert_true(session_redo(s));
    assert_false(session_dirty(s));
    act_ok(s, "softmax = stable");
    assert_true(session_dirty(s));
    assert_true(session_undo(s));
    assert_false(session_dirty(s));
    /* undo past the save, then a new edit: the saved state cannot come back */
    assert_true(session_undo(s));
    act_ok(s, "scale = sqrt_dk");
    assert_true(session_dirty(s));
    assert_true(session_undo(s));
    assert_true(session_dirty(s));
    /* stepping is not an edit */
    session_mark_saved(s);
    assert_true(session_goto(s, ST_OUTPUT));
    assert_false(session_dirty(s));
}

/* reset returns to the lesson as written at this step, and is itself undoable. */
static void reset_and_undo_reset(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, ST_SOFTMAX));
    act_ok(s, "Q[1] = K[1] * 5");
    act_ok(s, "scale = sqrt_dk");
    assert_row_near(&s->cur.m[M_A], 0, a1_edit_scaled, 5e-4);
    act_ok(s, "X[3][4] = 0.5");
    Attn edited = {0};
    assert_true(attn_copy(&edited, &s->cur));
    act_ok(s, "reset");
    assert_int_equal(s->nedits, 4);
    assert_true(s->has_before);
    assert_attn_same(&s->before, &edited);
    assert_row_near(&s->cur.m[M_A], 0, a1_before, 5e-4);
    assert_int_equal(s->cur.scale, SCALE_NONE);
    assert_int_equal(s->cur.reached, STAGE_SOFTMAX);
    assert_false(session_overridden(s, M_Q, 0));
    assert_near(MAT_AT(&s->cur.m[M_X], 2, 3), 0.2, 0);

    /* the reset holds at other steps too; at the do: step the script still runs */
    assert_true(session_goto(s, ST_DO));
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);
    assert_int_equal(s->cur.scale, SCALE_NONE);
    assert_true(session_goto(s, ST_SOFTMAX));

    assert_true(session_undo(s));
    assert_attn_same(&s->cur, &edited);
    attn_free(&edited);
    assert_near(MAT_AT(&s->cur.m[M_X], 2, 3), 0.5, 0);
    assert_true(session_redo(s));
    assert_row_near(&s->cur.m[M_A], 0, a1_before, 5e-4);

    /* edits after a reset apply on top of it */
    act_ok(s, "scale = sqrt_dk");
    assert_row_near(&s->cur.m[M_A], 0, a1_scaled, 5e-4);
}

/* reset at a do: step keeps the script's change (the lesson as written there). */
static void reset_at_do_step(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, ST_DO));
    act_ok(s, "Q[1] = [1, 2, 3]");
    act_ok(s, "reset");
    assert_row_near(&s->cur.m[M_A], 0, a1_edit, 5e-4);
    assert_true(session_overridden(s, M_Q, 0));
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&s->cur.m[M_Q], 0, j), 5 * k_ref[j], 1e-15);
}

/* The user's edits apply on top of the script at every step. */
static void edits_survive_stepping(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, ST_SOFTMAX));
    act_ok(s, "scale = sqrt_dk");
    assert_row_near(&s->cur.m[M_A], 0, a1_scaled, 5e-4);
    assert_true(session_next(s));                   /* the do: step, then the edit */
    assert_int_equal(s->cur.scale, SCALE_SQRT_DK);
    assert_row_near(&s->cur.m[M_A], 0, a1_edit_scaled, 5e-4);
    assert_true(s->has_before);
    assert_row_near(&s->before.m[M_A], 0, a1_scaled, 5e-4);
    assert_true(session_goto(s, ST_INPUT));
    assert_int_equal(s->cur.scale, SCALE_SQRT_DK);
    assert_true(session_goto(s, ST_OUTPUT));
    assert_row_near(&s->cur.m[M_A], 0, a1_edit_scaled, 5e-4);
    assert_true(session_goto(s, ST_SOFTMAX));
    assert_row_near(&s->cur.m[M_A], 0, a1_scaled, 5e-4);

    /* an edit made at the input stage (nothing past X computed) shows later on */
    assert_true(session_goto(s, ST_INPUT));
    act_ok(s, "X[3][4] = 0.5");
    act_ok(s, "Q[2] = K[1] * 5");
    assert_int_equal(s->cur.reached, STAGE_INPUT);
    assert_true(session_goto(s, ST_QKV));
    assert_int_equal(s->cur.reached, STAGE_QKV);
    for (int j = 0; j < 3; j++) {
        assert_near(MAT_AT(&s->cur.m[M_Q], 1, j), 5 * k_ref[j], 1e-15);
        assert_near(MAT_AT(&s->cur.m[M_Q], 2, j),
                    MAT_AT(&s->cur.m[M_WQ], 2, j) + 0.5 * MAT_AT(&s->cur.m[M_WQ], 3, j), 1e-15);
    }
    assert_true(session_goto(s, ST_OUTPUT));
    assert_true(session_overridden(s, M_Q, 0));       /* the script's */
    assert_true(session_overridden(s, M_Q, 1));       /* the user's */
    assert_near(MAT_AT(&s->cur.m[M_X], 2, 3), 0.5, 0);
}

/* A refused action (bad syntax, bad index, bad width) returns false with a
 * message and changes nothing: state, before, edit log, redo. */
static void bad_action_changes_nothing(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    static const struct { const char *text, *msg; } bad[] = {
        {"Q[1] = K[1] *", "expected a number, like 0.5 or -2"},
        {"A[1] = [1,2,3]", "A is computed by the pipeline; change X, Wq, Wk, Wv, Q, K or V instead"},
        {"Q[4] = K[1]", "row 4 is out of range: Q has rows 1 to 3"},
        {"Q[1] = K[1] * 5 x", "unexpected \"x\", expected the end of the action"},
        {"X[1] = [1,2]", "a row of X takes 4 numbers; this one has 2"},
        {"", "empty action, expected e.g. Q[1] = K[1] * 5, scale = sqrt_dk or reset"},
    };
    assert_true(session_goto(s, ST_SOFTMAX));
    act_ok(s, "scale = sqrt_dk");
    act_ok(s, "Q[2] = K[2] * 2");
    assert_true(session_undo(s));
    Attn cur = {0}, before = {0};
    assert_true(attn_copy(&cur, &s->cur));
    assert_true(attn_copy(&before, &s->before));
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        err[0] = '\0';
        assert_false(session_act_text(s, bad[k].text, err, sizeof err));
        assert_string_equal(err, bad[k].msg);
        assert_attn_same(&s->cur, &cur);
        assert_attn_same(&s->before, &before);
        assert_true(s->has_before);
        assert_int_equal(s->nedits, 1);
        assert_int_equal(s->nredo, 1);
    }
    assert_true(session_redo(s));                   /* the redo survived */
    assert_true(session_overridden(s, M_Q, 1));
    attn_free(&cur);
    attn_free(&before);
}

/* ---- overrides ------------------------------------------------------------- */

/* Issue 10: the session knows who set a row or a cell. Lesson step 5's
 * do: (Q[1] = K[1] * 5) stays the script's after a toggle (the footnote
 * called it "set by hand"); a typed row is the student's until undone; an
 * edited X cell is the student's, its neighbours are not; reset clears. */
static void override_by_script_or_hand(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_int_equal(session_override_by(s, M_Q, 0), OV_NONE);
    assert_true(session_goto(s, ST_DO));
    assert_int_equal(session_override_by(s, M_Q, 0), OV_SCRIPT);
    Origin o = session_row_origin(s, M_Q, 0);
    assert_int_equal(o.step, ST_DO);
    assert_int_equal(o.act, 0);
    assert_true(session_act_text(s, "scale = sqrt_dk", err, sizeof err));
    assert_int_equal(session_override_by(s, M_Q, 0), OV_SCRIPT);
    assert_int_equal(session_override_by(s, M_Q, 1), OV_NONE);
    assert_true(session_act_text(s, "Q[1] = [1, 2, 3]", err, sizeof err));
    assert_int_equal(session_override_by(s, M_Q, 0), OV_HAND);
    assert_true(session_undo(s));
    assert_int_equal(session_override_by(s, M_Q, 0), OV_SCRIPT);
    assert_true(session_redo(s));
    assert_int_equal(session_override_by(s, M_Q, 0), OV_HAND);
    assert_true(session_act_text(s, "X[1][2] = 0.5", err, sizeof err));
    assert_int_equal(session_cell_by(s, M_X, 0, 1), OV_HAND);
    assert_int_equal(session_cell_by(s, M_X, 0, 0), OV_NONE);
    assert_int_equal(session_cell_by(s, M_WQ, 0, 1), OV_NONE);
    assert_true(session_act_text(s, "Wk[2] = [1, 1, 1]", err, sizeof err));
    for (int j = 0; j < 3; j++)
        assert_int_equal(session_cell_by(s, M_WK, 1, j), OV_HAND);
    assert_int_equal(session_cell_by(s, M_WK, 0, 0), OV_NONE);
    /* a swap carries the mark to the last row, and undoing the edit and
     * the swap leaves no mark anywhere (track clears only where marks may
     * stand: the rows marked and swapped) */
    assert_true(session_act_text(s, "swap 1 3", err, sizeof err));
    assert_int_equal(session_cell_by(s, M_X, 2, 1), OV_HAND);
    assert_int_equal(session_cell_by(s, M_X, 0, 1), OV_NONE);
    assert_true(session_undo(s));
    assert_int_equal(session_cell_by(s, M_X, 0, 1), OV_HAND);
    assert_int_equal(session_cell_by(s, M_X, 2, 1), OV_NONE);
    assert_true(session_act_text(s, "swap 1 3", err, sizeof err));
    assert_true(session_act_text(s, "X[3][3] = 0.25", err, sizeof err));
    assert_int_equal(session_cell_by(s, M_X, 2, 2), OV_HAND);
    assert_true(session_undo(s));
    assert_true(session_undo(s));
    assert_int_equal(session_cell_by(s, M_X, 2, 2), OV_NONE);
    assert_int_equal(session_cell_by(s, M_X, 2, 1), OV_NONE);
    assert_int_equal(session_cell_by(s, M_X, 0, 1), OV_HAND);
    assert_true(session_act_text(s, "reset", err, sizeof err));
    assert_int_equal(session_cell_by(s, M_X, 0, 1), OV_NONE);
    assert_int_equal(session_cell_by(s, M_WK, 1, 0), OV_NONE);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            assert_int_equal(session_cell_by(s, M_X, i, j), OV_NONE);
    assert_int_equal(session_override_by(s, M_Q, 0), OV_SCRIPT);
    /* stepping back before the do: step: nobody set it */
    assert_true(session_goto(s, ST_SOFTMAX));
    assert_int_equal(session_override_by(s, M_Q, 0), OV_NONE);
    assert_non_null(session_undoable(s));
    assert_int_equal(session_undoable(s)->kind, ACT_RESET);
    assert_null(session_redoable(s));
}

/* The line explaining cell (i, j) of m, with the session's notes. */
static const char *explained(const Session *s, MatId m, int i, int j)
{
    static char lines[FMT_MAX_LINES][FMT_LINE];
    Explain e;
    FmtOpt fo = {3, false, false};
    if (!explain_cell(&s->cur, m, i, j, &e) || fmt_explain_in(s, &e, &fo, lines, FMT_MAX_LINES) < 1)
        return "";
    return lines[0];
}

/* Issue 10: the notes say who set a number. The lesson's own do: is the
 * lesson's (the footnote said "set by hand" once any key was pressed);
 * typed X and W cells say "set by hand" (they said "written in the
 * lesson" and "learned in training"). */
static void notes_say_who_set_it(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char note[FMT_LINE];
    assert_false(fmt_override_status(s, false, note, sizeof note));
    assert_string_equal(note, "");
    assert_string_equal(explained(s, M_X, 0, 1), "x₁₂ = 0.000   (the input: written in the lesson, one row per token)");
    assert_string_equal(explained(s, M_WQ, 0, 0), "Wq₁₁ = 0.149   (a parameter: learned in training, fixed at inference)");
    assert_true(session_goto(s, ST_DO));
    assert_true(session_act_text(s, "scale = sqrt_dk", err, sizeof err));
    assert_true(fmt_override_status(s, false, note, sizeof note));
    assert_string_equal(note, "✎ Q row 1 set by the lesson at step 5 (Q[1] = K[1] * 5), no longer X·W");
    assert_string_equal(explained(s, M_Q, 0, 0),
                        "q₁₁ = 0.363   (row 1 of Q was set by the lesson at step 5: Q[1] = K[1] * 5; no longer X·Wq)");
    fmt_override_status(s, true, note, sizeof note);
    assert_string_equal(note, "* Q row 1 set by the lesson at step 5 (Q[1] = K[1] * 5), no longer X*W");
    assert_true(session_act_text(s, "Q[1] = [1, 2, 3]", err, sizeof err));
    fmt_override_status(s, false, note, sizeof note);
    assert_string_equal(note, "✎ Q row 1 set by hand, no longer X·W (u undoes, r resets)");
    assert_string_equal(explained(s, M_Q, 0, 1), "q₁₂ = 2.000   (row 1 of Q was set by hand, no longer X·Wq)");
    assert_true(session_act_text(s, "X[1][2] = 0.5", err, sizeof err));
    assert_true(session_act_text(s, "Wq[1][1] = 2", err, sizeof err));
    assert_string_equal(explained(s, M_X, 0, 1), "x₁₂ = 0.500   (the input: set by hand; u undoes, r resets)");
    assert_string_equal(explained(s, M_X, 0, 0), "x₁₁ = 1.000   (the input: written in the lesson, one row per token)");
    assert_string_equal(explained(s, M_WQ, 0, 0), "Wq₁₁ = 2.000   (a parameter: set by hand; in a model it is "
                                                   "learned in training, fixed at inference)");
}

/* A lesson whose script sets an X cell: its note names the step. */
static void notes_script_x(void **state)
{
    (void)state;
    Fix f = {0};
    assert_int_equal(load_into(&f, HEAD "steps:\n  - stage: input\n  - stage: input\n    do: \"X[2][3] = 4\"\n"), 0);
    assert_true(session_goto(&f.s, 1));
    char a[FMT_LINE], b[FMT_LINE];
    snprintf(a, sizeof a, "%s", explained(&f.s, M_X, 1, 2));
    snprintf(b, sizeof b, "%s", explained(&f.s, M_X, 1, 1));
    session_free(&f.s);
    lesson_free(&f.l);
    assert_string_equal(a, "x₂₃ = 4.000   (the input: set by the lesson at step 2)");
    assert_string_equal(b, "x₂₂ = 1.000   (the input: written in the lesson, one row per token)");
}

/* Issue 10, then 11: every change names itself on the status line, with
 * its effect on the focused result, through one function (effect_status):
 * done, undone, redone; reset says u undoes it. */
static void change_names_itself(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char line[FMT_LINE];
    Action a;
    int col;
    assert_true(session_goto(s, ST_SOFTMAX));
    assert_true(session_act_text(s, "scale = sqrt_dk", err, sizeof err));
    effect_status(s, EFFECT_ACT, NULL, M_A, 0, 0, false, line, sizeof line);
    assert_string_equal(line, "scaling ÷√3: α₁₁ 0.3135 → 0.3218. u undoes it.");
    effect_status(s, EFFECT_ACT, NULL, M_A, 0, 0, true, line, sizeof line);
    assert_string_equal(line, "scaling / sqrt(3): a_11 0.3135 -> 0.3218. u undoes it.");
    assert_true(session_undo(s));
    effect_status(s, EFFECT_UNDO, NULL, M_A, 0, 0, false, line, sizeof line);
    assert_string_equal(line, "undo scaling ÷√3: α₁₁ 0.3218 → 0.3135. Ctrl-R redoes it.");
    assert_true(session_redo(s));
    effect_status(s, EFFECT_REDO, NULL, M_A, 0, 0, false, line, sizeof line);
    assert_string_equal(line, "redo scaling ÷√3: α₁₁ 0.3135 → 0.3218. u undoes it.");
    assert_true(session_act_text(s, "reset", err, sizeof err));
    effect_status(s, EFFECT_ACT, NULL, M_A, 0, 0, false, line, sizeof line);
    assert_string_equal(line, "reset: α₁₁ 0.3218 → 0.3135. u undoes the reset.");
    assert_true(session_act_text(s, "Q[1][2] = 0.2", err, sizeof err));
    effect_status(s, EFFECT_ACT, "Q[1][2] + 0.1", M_A, 0, 0, false, line, sizeof line);
    assert_string_equal(line, "Q[1][2] + 0.1: α₁₁ 0.3135 → 0.3026. u undoes it.");
    static const struct { const char *text, *name; } acts[] = {
        {"scale = none", "no scaling"},
        {"softmax = stable", "stable softmax"},
        {"softmax = naive", "naive softmax"},
        {"Q[1] = K[1] * 5", "Q[1] = K[1] * 5"},
        {"Q[2] = K[1]", "Q[2] = K[1]"},
        {"X[1][2] = 1e-9", "X[1][2] = 1e-09"},
        {"K[1] = [0.1, -2, 1e300]", "K[1] = [0.1, -2, 1e+300]"},
        {"reset", "reset"},
    };
    for (size_t k = 0; k < sizeof acts / sizeof *acts; k++) {
        assert_true(action_parse(acts[k].text, &a, err, sizeof err, &col));
        fmt_action_name(s, &a, false, line, sizeof line);
        assert_string_equal(line, acts[k].name);
    }
}

/* A row the file's overrides: set is the lesson's (step -1), until typed over. */
static void override_by_file(void **state)
{
    (void)state;
    Fix f = {0};
    assert_int_equal(load_into(&f, HEAD "overrides: {\"K[2]\": [1, 2, 3]}\n" STEPS), 0);
    assert_true(session_goto(&f.s, ST_QKV));
    Origin o = session_row_origin(&f.s, M_K, 1);
    bool hand = session_act_text(&f.s, "K[2] = [3, 2, 1]", err, sizeof err);
    Override after = session_override_by(&f.s, M_K, 1);
    session_free(&f.s);
    lesson_free(&f.l);
    assert_int_equal(o.by, OV_SCRIPT);
    assert_int_equal(o.step, -1);
    assert_true(hand);
    assert_int_equal(after, OV_HAND);
}

/* An edited row of Q is overridden: it keeps its values when X or Wq change,
 * while rows computed from X·W follow the change. */
static void overridden_row_keeps_values(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, ST_SCORES));
    assert_false(session_overridden(s, M_Q, 0));
    act_ok(s, "Q[1] = K[1] * 5");
    assert_true(session_overridden(s, M_Q, 0));
    assert_false(session_overridden(s, M_Q, 1));
    assert_false(session_overridden(s, M_K, 0));
    assert_false(session_overridden(s, M_V, 0));
    assert_false(session_overridden(s, M_X, 0));      /* only Q, K, V have overrides */
    assert_false(session_overridden(s, M_A, 0));
    assert_false(session_overridden(s, M_Q, -1));
    assert_false(session_overridden(s, M_Q, MAT_MAX));
    double q1[3];
    for (int j = 0; j < 3; j++)
        q1[j] = 5 * k_ref[j];
    assert_row_near(&s->cur.m[M_Q], 0, q1, 1e-15);

    act_ok(s, "X[1] = [0, 0, 0, 1]");                 /* K[1] follows, Q[1] does not */
    assert_row_near(&s->cur.m[M_Q], 0, q1, 0);
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&s->cur.m[M_K], 0, j), MAT_AT(&s->cur.m[M_WK], 3, j), 1e-15);
    act_ok(s, "X[2] = [1, 1, 0, 0]");                 /* Q[2] follows */
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&s->cur.m[M_Q], 1, j), q_ref[j] + q_ref[3 + j], 1e-15);
    act_ok(s, "Wq[4][1] = 10");                       /* Q[3] = X[3]·Wq follows */
    assert_near(MAT_AT(&s->cur.m[M_Q], 2, 0), 0.4737638447 + 0.2 * 10, 1e-10);
    assert_row_near(&s->cur.m[M_Q], 0, q1, 0);
    assert_true(session_overridden(s, M_Q, 0));

    /* the scores use the overridden row */
    double s11 = 0;
    for (int j = 0; j < 3; j++)
        s11 += q1[j] * MAT_AT(&s->cur.m[M_K], 0, j);
    assert_near(MAT_AT(&s->cur.m[M_S], 0, 0), s11, 1e-12);

    /* a cell edit overrides its row too, starting from the computed values */
    act_ok(s, "V[3][2] = 7");
    assert_true(session_overridden(s, M_V, 2));
    assert_near(MAT_AT(&s->cur.m[M_V], 2, 1), 7, 0);

    /* undo removes the override mark with the edit */
    for (int k = 0; k < 5; k++)
        assert_true(session_undo(s));
    assert_false(session_overridden(s, M_Q, 0));
    assert_false(session_overridden(s, M_V, 2));
    assert_row_near(&s->cur.m[M_Q], 0, q_ref, 1e-15);
}

/* ---- naive softmax overflow ------------------------------------------------- */

/* Q[1] = K[1] * 10000 overflows naive exp (scores ~6025 > 709.8) and row 1 of A
 * is not finite; softmax = stable gives a finite row summing to 1. ×1000
 * (largest score ~602) stays finite even when naive. */
static void naive_softmax_overflow(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    assert_true(session_goto(s, ST_SOFTMAX));
    act_ok(s, "Q[1] = K[1] * 1000");
    for (int j = 0; j < 3; j++)
        assert_true(isfinite(MAT_AT(&s->cur.m[M_A], 0, j)));
    assert_near(MAT_AT(&s->cur.m[M_A], 0, 0), 1, 1e-12);

    act_ok(s, "Q[1] = K[1] * 10000");
    assert_near(MAT_AT(&s->cur.m[M_S], 0, 0), 6025.08, 0.01);
    bool finite = true;
    for (int j = 0; j < 3; j++)
        finite = finite && isfinite(MAT_AT(&s->cur.m[M_A], 0, j));
    assert_false(finite);
    assert_row_near(&s->cur.m[M_A], 1, ((const double[]){0.380, 0.320, 0.300}), 5e-4);   /* row 2 fine */

    act_ok(s, "softmax = stable");
    double sum = 0;
    for (int j = 0; j < 3; j++) {
        assert_true(isfinite(MAT_AT(&s->cur.m[M_A], 0, j)));
        assert_true(MAT_AT(&s->cur.m[M_A], 0, j) >= 0);
        sum += MAT_AT(&s->cur.m[M_A], 0, j);
    }
    assert_near(sum, 1, 1e-12);
    assert_near(MAT_AT(&s->cur.m[M_A], 0, 0), 1, 1e-12);
    assert_true(session_undo(s));                     /* and back to naive */
    assert_false(isfinite(MAT_AT(&s->cur.m[M_A], 0, 0)) && isfinite(MAT_AT(&s->cur.m[M_A], 0, 1)) &&
                 isfinite(MAT_AT(&s->cur.m[M_A], 0, 2)));
}

/* ---- the edit log's limit --------------------------------------------------- */

/* At SESSION_MAX_EDITS further edits are refused with a message that says to
 * reset, and reset (r) then works. */
static void edit_limit_then_reset(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    for (int k = 0; k < SESSION_MAX_EDITS; k++)
        act_ok(s, k % 2 ? "scale = none" : "scale = sqrt_dk");
    assert_int_equal(s->nedits, SESSION_MAX_EDITS);
    Attn cur = {0};
    assert_true(attn_copy(&cur, &s->cur));
    assert_false(session_act_text(s, "softmax = stable", err, sizeof err));
    assert_string_equal(err, "too many edits (1024); press r to reset first");
    assert_attn_same(&s->cur, &cur);
    attn_free(&cur);
    /* undo makes room */
    assert_true(session_undo(s));
    act_ok(s, "softmax = stable");
    assert_int_equal(s->nedits, SESSION_MAX_EDITS);
    /* and reset, as the message says, must work at the limit */
    err[0] = '\0';
    bool reset = session_act_text(s, "reset", err, sizeof err);
    if (!reset)
        fail_msg("reset refused at the edit limit: %s", err);
    assert_int_equal(s->cur.softmax, SOFTMAX_NAIVE);
    assert_int_equal(s->cur.scale, SCALE_NONE);
}

/* ---- saving ------------------------------------------------------------------- */

/* Save s to path, load the file back and open a session on it: it opens at
 * the same step with the same numbers (1e-12; %.17g makes them exact), the
 * same options and override flags, narration and focus kept, expect dropped. */
#define assert_save_round_trip(s, path) assert_save_round_trip_at((s), (path), __FILE__, __LINE__)
static void assert_save_round_trip_at(const Session *s, const char *path, const char *file, int line)
{
    char e[LESSON_ERR_MAX];
    Lesson l2;
    Session s2;
    if (!lesson_save(s, path, e, sizeof e)) {
        print_error("lesson_save: %s\n", e);
        _fail(file, line);
    }
    if (!lesson_load_file(path, &l2, e, sizeof e)) {
        print_error("loading the saved file: %s\n", e);
        _fail(file, line);
    }
    if (!session_init(&s2, &l2)) {
        lesson_free(&l2);
        print_error("session_init on the saved lesson failed\n");
        _fail(file, line);
    }
    const Lesson *l = s->lesson;
    bool same_script = s2.step == s->step && l2.nsteps == l->nsteps && l2.ntok == l->ntok &&
                       l2.digits == l->digits && !session_dirty(&s2) && s2.nedits == 0;
    int first = l2.nsteps; /* the saved lesson is the lesson's own up to its first edit (edited:) */
    for (int k = l2.nsteps - 1; same_script && k >= 0; k--)
        first = l2.steps[k].nedit > 0 ? k : first;
    for (int k = 0; same_script && k < l->nsteps; k++) {
        const Step *a = &l->steps[k], *b = &l2.steps[k];
        same_script = a->stage == b->stage && a->focus.kind == b->focus.kind && a->focus.mat == b->focus.mat &&
                      a->focus.i == b->focus.i && (a->focus.kind != FOCUS_CELL || a->focus.j == b->focus.j) &&
                      strcmp(text_get(&a->say, LANG_EN), text_get(&b->say, LANG_EN)) == 0 &&
                      strcmp(text_get(&a->say, LANG_ZH), text_get(&b->say, LANG_ZH)) == 0 &&
                      b->nexpect == (k < first ? a->nexpect : 0) && b->nact == a->nact;
    }
    for (int k = 0; same_script && k < l->ntok; k++)
        same_script = strcmp(l->tokens[k], l2.tokens[k]) == 0;
    /* about: the lesson's own (the edits are named at their steps) */
    same_script = same_script && strcmp(text_get(&l->title, LANG_ZH), text_get(&l2.title, LANG_ZH)) == 0 &&
                  strcmp(text_get(&l->about, LANG_EN), text_get(&l2.about, LANG_EN)) == 0;
    if (!same_script) {
        print_error("the saved lesson's step %d, script, tokens or texts differ from the original\n", s2.step);
        session_free(&s2);
        lesson_free(&l2);
        _fail(file, line);
    }
    assert_attn_near_at(&s2.cur, &s->cur, 1e-12, file, line);
    /* the stages not reached agree as well once computed */
    Attn x = {0}, y = {0};
    bool copied = attn_copy(&x, &s->cur) && attn_copy(&y, &s2.cur);
    session_free(&s2);
    lesson_free(&l2);
    if (!copied) {
        print_error("out of memory\n");
        _fail(file, line);
    }
    attn_run_to(&x, STAGE_OUTPUT);
    attn_run_to(&y, STAGE_OUTPUT);
    assert_attn_near_at(&y, &x, 1e-12, file, line);
    attn_free(&x);
    attn_free(&y);
}


/* Mask, temperature, positions and swap are user actions like any other:
 * applied at once, undone and redone one by one, and reset. */
static void new_actions_undo(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    static const double causal_a2[] = {0.543, 0.457, 0.000};
    assert_true(session_goto(s, ST_OUTPUT));
    Attn orig = {0};
    assert_true(attn_copy(&orig, &s->cur));
    act_ok(s, "mask = causal");
    assert_row_near(&s->cur.m[M_A], 1, causal_a2, 5e-4);
    assert_true(MAT_AT(&s->cur.m[M_A], 0, 1) == 0.0);
    act_ok(s, "temperature = 0.5");
    act_ok(s, "positions = sinusoidal");
    act_ok(s, "swap 1 3");
    assert_string_equal(lesson_token(&f->l, &s->cur, 0), "猫");
    assert_string_equal(lesson_token(&f->l, &s->before, 0), "我");
    assert_int_equal(s->nedits, 4);
    assert_true(session_undo(s));
    assert_string_equal(lesson_token(&f->l, &s->cur, 0), "我");
    assert_int_equal(s->cur.positions, POS_SINUSOIDAL);
    assert_true(session_undo(s));
    assert_int_equal(s->cur.positions, POS_NONE);
    assert_true(session_redo(s));
    assert_true(session_redo(s));
    assert_string_equal(lesson_token(&f->l, &s->cur, 2), "我");
    act_ok(s, "reset");
    assert_attn_same(&s->cur, &orig);
    /* refused: nothing changes, nothing is logged */
    int n = s->nedits;
    assert_false(session_act_text(s, "swap 1 4", err, sizeof err));
    assert_string_equal(err, "token 4 is out of range: there are 3 tokens, swap takes two of 1 to 3");
    assert_false(session_act_text(s, "temperature = 0", err, sizeof err));
    assert_string_equal(err, "the temperature must be from 0.05 to 20, found 0");
    assert_int_equal(s->nedits, n);
    assert_attn_same(&s->cur, &orig);
    attn_free(&orig);
}

/* A save after a swap and the new options loads back with the tokens in
 * their new order, the options, and the same numbers. */
static void save_new_options(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char path[128], e[LESSON_ERR_MAX];
    snprintf(path, sizeof path, "%s/m.yaml", f->dir);
    assert_true(session_goto(s, ST_OUTPUT));
    act_ok(s, "Q[1] = K[1] * 5");
    act_ok(s, "swap 1 2");
    act_ok(s, "mask = causal");
    act_ok(s, "temperature = 0.25");
    act_ok(s, "positions = sinusoidal");
    assert_true(lesson_save(s, path, e, sizeof e));
    Lesson l2;
    Session s2;
    assert_true(lesson_load_file(path, &l2, e, sizeof e));
    assert_true(session_init(&s2, &l2));
    for (int i = 0; i < 3; i++)
        assert_string_equal(lesson_token(&l2, &s2.cur, i), lesson_token(&f->l, &s->cur, i));
    assert_string_equal(l2.tokens[0], "我"); /* the lesson's tokens, and the swap replayed where it was made */
    assert_int_equal(l2.steps[ST_OUTPUT].nedit, 5);
    assert_true(s2.cur.override[0][1]); /* 我's override moved to row 2 with it */
    assert_attn_near(&s2.cur, &s->cur, 1e-12);
    session_free(&s2);
    lesson_free(&l2);
}

/* Only the listed names are in dir (no temporary files left behind). */
#define assert_dir_holds(dir, ...) \
    assert_dir_holds_at((dir), (const char *const[]){__VA_ARGS__, NULL}, __FILE__, __LINE__)
static void assert_dir_holds_at(const char *dir, const char *const *names, const char *file, int line)
{
    DIR *d = opendir(dir);
    int want = 0, got = 0;
    while (names[want])
        want++;
    if (!d) {
        print_error("cannot list %s: %s\n", dir, strerror(errno));
        _fail(file, line);
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        bool known = false;
        for (int k = 0; k < want; k++)
            known = known || strcmp(e->d_name, names[k]) == 0;
        if (!known) {
            print_error("unexpected file %s/%s\n", dir, e->d_name);
            closedir(d);
            _fail(file, line);
        }
        got++;
    }
    closedir(d);
    if (got != want) {
        print_error("%s holds %d files, expected %d\n", dir, got, want);
        _fail(file, line);
    }
}

/* A save with edits (override, option, X cell) at the softmax step loads back
 * into the same state; the file is readable by everyone the umask allows. */
static void save_round_trip(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char path[128];
    snprintf(path, sizeof path, "%s/a.yaml", f->dir);
    assert_true(session_goto(s, ST_SOFTMAX));
    act_ok(s, "Q[1] = K[1] * 5");
    act_ok(s, "scale = sqrt_dk");
    assert_row_near(&s->cur.m[M_A], 0, a1_edit_scaled, 5e-4);
    act_ok(s, "X[3][4] = 0.5");
    assert_near(MAT_AT(&s->cur.m[M_K], 2, 0), k_ref[6] + 0.3 * MAT_AT(&s->cur.m[M_WK], 3, 0), 1e-15);
    mode_t um = umask(022);
    assert_save_round_trip(s, path);
    umask(um);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_dir_holds(f->dir, "a.yaml");
    assert_true(session_dirty(s));                    /* saving does not mark; the caller does */
}

/* glibc keeps the LOCPATH search list it builds while loading a locale
 * (argz) and never frees it; LeakSanitizer (make asan) reads this. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:__argz_add_sep\n";
}

/* Build de_DE.UTF-8 (decimal comma) under dir with localedef and make it
 * this thread's LC_NUMERIC (uselocale; *loc to free); false when this
 * machine cannot. */
static bool comma_locale(const char *dir, locale_t *loc)
{
    char cmd[1024], path[256];
    snprintf(path, sizeof path, "%s/loc", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s && localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", path, path);
    *loc = (locale_t)0;
    if (system(cmd) != 0)
        return false;
    setenv("LOCPATH", path, 1);
    *loc = newlocale(LC_NUMERIC_MASK, "de_DE.UTF-8", (locale_t)0);
    unsetenv("LOCPATH");
    if (!*loc)
        return false;
    uselocale(*loc);
    return strcmp(localeconv()->decimal_point, ",") == 0;
}

static void comma_locale_end(locale_t loc)
{
    uselocale(LC_GLOBAL_LOCALE);
    if (loc)
        freelocale(loc);
}

/* Issue 10: saving under a locale whose decimal point is a comma still
 * writes "0.5" (%.17g wrote "0,5", which loads as another number or not
 * at all), and the file loads back to the same numbers. */
static void save_round_trip_comma_locale(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char path[128], cmd[256];
    locale_t loc;
    act_ok(s, "X[1][2] = 0.5");
    act_ok(s, "Wq[1][1] = 1e-9");
    if (!comma_locale(f->dir, &loc)) {
        comma_locale_end(loc);
        skip();
    }
    snprintf(path, sizeof path, "%s/c.yaml", f->dir);
    assert_save_round_trip(s, path);
    comma_locale_end(loc);
    snprintf(cmd, sizeof cmd, "grep -q '[0-9],[0-9]' %s", path);
    assert_int_not_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s/loc", f->dir);
    assert_int_equal(system(cmd), 0);
}

/* Saving at any step keeps the script (its do: and expect:) and writes the
 * edits where they were made; at the first step with no edits it is the
 * lesson as written. */
static void save_round_trip_other_steps(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char path[128];
    snprintf(path, sizeof path, "%s/b.yaml", f->dir);
    assert_save_round_trip(s, path);                  /* step 0, nothing edited */

    assert_true(session_goto(s, ST_QKV));
    act_ok(s, "V[2] = [1, -2, 3.25]");
    act_ok(s, "softmax = stable");
    act_ok(s, "Wk[2][3] = -0.125");
    assert_save_round_trip(s, path);                  /* the do: step still to come */

    assert_true(session_goto(s, ST_OUTPUT));
    assert_true(session_overridden(s, M_Q, 0));
    assert_save_round_trip(s, path);                  /* the do: step baked in */
    assert_true(session_goto(s, ST_DO));
    assert_save_round_trip(s, path);                  /* saved on the do: step itself */
    assert_dir_holds(f->dir, "b.yaml");
}

/* Saving twice to the same path replaces the file with the newer state. */
static void save_overwrites(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char path[128];
    snprintf(path, sizeof path, "%s/a.yaml", f->dir);
    assert_true(session_goto(s, ST_SOFTMAX));
    act_ok(s, "Q[1] = K[1] * 5");
    assert_save_round_trip(s, path);
    act_ok(s, "scale = sqrt_dk");
    assert_save_round_trip(s, path);

    Lesson l2;
    Session s2;
    assert_true(lesson_load_file(path, &l2, err, sizeof err));
    assert_true(session_init(&s2, &l2));
    assert_int_equal(s2.cur.scale, SCALE_SQRT_DK);
    assert_row_near(&s2.cur.m[M_A], 0, a1_edit_scaled, 5e-4);
    session_free(&s2);
    lesson_free(&l2);
    assert_dir_holds(f->dir, "a.yaml");
}

/* Saving to path must fail with one line "cannot save PATH: ...", and leave
 * the session as it was. */
#define assert_save_fails(s, path) assert_save_fails_at((s), (path), __FILE__, __LINE__)
static void assert_save_fails_at(const Session *s, const char *path, const char *file, int line)
{
    Attn cur = {0};
    int nedits = s->nedits, step = s->step;
    bool dirty = session_dirty(s);
    if (!attn_copy(&cur, &s->cur)) {
        print_error("out of memory\n");
        _fail(file, line);
    }
    char e[LESSON_ERR_MAX] = "";
    bool ok = lesson_save(s, path, e, sizeof e);
    if (ok || strncmp(e, "cannot save ", 12) != 0 || strchr(e, '\n') != NULL || strstr(e, path) == NULL) {
        print_error("lesson_save(%s) %s: \"%s\"\n  expected one line \"cannot save %s: ...\"\n", path,
                    ok ? "succeeded" : "failed", e, path);
        attn_free(&cur);
        _fail(file, line);
    }
    assert_attn_same_at(&s->cur, &cur, file, line);
    attn_free(&cur);
    if (s->nedits != nedits || s->step != step || session_dirty(s) != dirty) {
        print_error("the session changed\n");
        _fail(file, line);
    }
}

/* Saving where no file can be made fails cleanly: a read-only directory (when
 * not root), a missing directory, a path through /proc. */
static void save_failure_unwritable(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char path[128];
    assert_true(session_goto(s, ST_SOFTMAX));
    act_ok(s, "Q[1] = K[1] * 5");

    assert_int_equal(chmod(f->dir, 0555), 0);
    snprintf(path, sizeof path, "%s/probe", f->dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    bool can_write = access(f->dir, W_OK) == 0 || fd >= 0;   /* root ignores the mode */
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/x.yaml", f->dir);
    if (!can_write) {
        assert_save_fails(s, path);
        assert_dir_holds(f->dir, NULL);
    } else { /* root: try it as nobody, for whom the mode holds */
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            char e[LESSON_ERR_MAX] = "";
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(3);
            bool ok = lesson_save(s, path, e, sizeof e);
            _exit(ok ? 1 : strncmp(e, "cannot save ", 12) == 0 && strstr(e, "Permission denied") ? 0 : 2);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_dir_holds(f->dir, NULL);
    }
    assert_int_equal(chmod(f->dir, 0700), 0);

    assert_save_fails(s, "/nonexistent-qkvtutor-dir/x.yaml");
    assert_int_equal(access("/nonexistent-qkvtutor-dir", F_OK), -1);
    assert_save_fails(s, "/proc/self/status/x.yaml");     /* a file, not a directory */
    assert_save_fails(s, "/proc/qkvtutor-test.yaml");
    assert_int_equal(access("/proc/qkvtutor-test.yaml", F_OK), -1);
    snprintf(path, sizeof path, "%s/missing/x.yaml", f->dir);
    assert_save_fails(s, path);
    assert_dir_holds(f->dir, NULL);
}

/* When the temporary file was written but cannot replace the target (it is a
 * directory), the temporary file is removed and the target is untouched. */
static void save_failure_cleans_up(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char path[128];
    snprintf(path, sizeof path, "%s/sub", f->dir);
    assert_int_equal(mkdir(path, 0700), 0);
    act_ok(s, "scale = sqrt_dk");
    assert_save_fails(s, path);
    assert_dir_holds(f->dir, "sub");
    /* Issue 10: a folder is refused up front, with a message that says so */
    char e[LESSON_ERR_MAX], want[LESSON_ERR_MAX];
    assert_false(lesson_save_target(path, e, sizeof e));
    snprintf(want, sizeof want, "cannot save %s: it is a folder; type a file name, such as %s/lesson.yaml", path, path);
    assert_string_equal(e, want);
    assert_false(lesson_save(s, path, e, sizeof e));
    assert_string_equal(e, want);
    assert_false(lesson_save_target("/dev/null", e, sizeof e));
    assert_string_equal(e, "cannot save /dev/null: it is not a regular file; type another name");
    snprintf(want, sizeof want, "%s/new.yaml", f->dir);
    assert_true(lesson_save_target(want, e, sizeof e));
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

/* A write that fails half-way (file size limit) leaves the old file as it was
 * and no temporary file; the message names the reason. */
static void save_failure_mid_write(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char path[128], e[LESSON_ERR_MAX] = "";
    snprintf(path, sizeof path, "%s/a.yaml", f->dir);
    assert_true(lesson_save(s, path, e, sizeof e));
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    static char old[65536], now[65536];
    size_t nold = fread(old, 1, sizeof old, in);
    fclose(in);
    assert_true(nold > 200 && nold < sizeof old);

    act_ok(s, "X[1] = [9, 9, 9, 9]");
    struct rlimit rl, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &rl), 0);
    small = rl;
    small.rlim_cur = 100;
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    bool ok = lesson_save(s, path, e, sizeof e);
    int restored = setrlimit(RLIMIT_FSIZE, &rl);
    signal(SIGXFSZ, was);
    assert_int_equal(restored, 0);
    assert_false(ok);
    assert_true(strncmp(e, "cannot save ", 12) == 0 && strchr(e, '\n') == NULL);
    assert_non_null(strstr(e, strerror(EFBIG)));
    assert_dir_holds(f->dir, "a.yaml");
    in = fopen(path, "rb");
    assert_non_null(in);
    size_t nnow = fread(now, 1, sizeof now, in);
    fclose(in);
    assert_int_equal(nnow, nold);
    assert_memory_equal(now, old, nold);
}

/* The default name to save under is "<lesson name>-edited.yaml". */
static void save_name(void **state)
{
    (void)state;
    static const struct { const char *file, *name; } cases[] = {
        {"t.yaml", "t-edited.yaml"},
        {"lessons/01-three-tokens.yaml", "01-three-tokens-edited.yaml"},
        {"/home/x/my lesson.yaml", "my lesson-edited.yaml"},
        {"noext", "noext-edited.yaml"},
        {"dir/t-edited.yaml", "t-edited.yaml"},         /* not t-edited-edited */
        {"a.b.yaml", "a.b-edited.yaml"},                /* only the extension goes */
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Lesson l;
        char buf[256];
        memset(&l, 0, sizeof l);
        l.file = (char *)cases[k].file;
        lesson_save_name(&l, buf, sizeof buf);
        assert_string_equal(buf, cases[k].name);
    }
}

/* The name of a lesson actually loaded, and a short buffer is cut, not overrun. */
static void save_name_loaded(void **state)
{
    Fix *f = *state;
    char buf[64], small[6];
    lesson_save_name(&f->l, buf, sizeof buf);
    assert_string_equal(buf, "t-edited.yaml");
    memset(small, 'x', sizeof small);
    lesson_save_name(&f->l, small, sizeof small);
    assert_string_equal(small, "t-edi");
}

/* What entering a stage computed stays fresh while the stage lasts: on
 * into the second softmax step, still 4; back, or an edit, clears it. */
static void fresh_lasts_the_stage(void **state)
{
    Fix *f = *state;
    assert_int_equal(f->s.fresh_stage, 1);               /* opened at the input */
    session_goto(&f->s, ST_QKV);
    assert_int_equal(f->s.fresh_stage, 2);
    session_goto(&f->s, ST_SOFTMAX);
    assert_int_equal(f->s.fresh_stage, 4);
    session_next(&f->s);                                  /* ST_DO, still the softmax */
    assert_int_equal(f->s.fresh_stage, 4);
    session_next(&f->s);
    assert_int_equal(f->s.fresh_stage, 5);
    session_prev(&f->s);
    assert_int_equal(f->s.fresh_stage, 0);                /* back: nothing new */
    session_next(&f->s);
    assert_true(session_act_text(&f->s, "Q[2] = K[2]", err, sizeof err));
    assert_int_equal(f->s.fresh_stage, 0);                /* an edit shows changes instead */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(init_at_first_step, setup, teardown),
        cmocka_unit_test(init_at_lesson_start),
        cmocka_unit_test_setup_teardown(next_prev_reach_each_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(goto_clamps, setup, teardown),
        cmocka_unit_test_setup_teardown(fresh_lasts_the_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(goto_stage_first_step, setup, teardown),
        cmocka_unit_test(goto_stage_missing_stage),
        cmocka_unit_test(goto_stage_skipped_stages),
        cmocka_unit_test(goto_stage_two_tellings),
        cmocka_unit_test(default_steps),
        cmocka_unit_test_setup_teardown(do_step_before_and_after, setup, teardown),
        cmocka_unit_test_setup_teardown(do_step_jumps, setup, teardown),
        cmocka_unit_test_setup_teardown(act_undo_redo, setup, teardown),
        cmocka_unit_test_setup_teardown(new_action_drops_redo, setup, teardown),
        cmocka_unit_test_setup_teardown(dirty_and_saved, setup, teardown),
        cmocka_unit_test_setup_teardown(reset_and_undo_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(reset_at_do_step, setup, teardown),
        cmocka_unit_test_setup_teardown(edits_survive_stepping, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_action_changes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(overridden_row_keeps_values, setup, teardown),
        cmocka_unit_test_setup_teardown(override_by_script_or_hand, setup, teardown),
        cmocka_unit_test(override_by_file),
        cmocka_unit_test_setup_teardown(notes_say_who_set_it, setup, teardown),
        cmocka_unit_test(notes_script_x),
        cmocka_unit_test_setup_teardown(change_names_itself, setup, teardown),
        cmocka_unit_test_setup_teardown(naive_softmax_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(edit_limit_then_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(save_round_trip, setup_dir, teardown),
        cmocka_unit_test_setup_teardown(save_round_trip_other_steps, setup_dir, teardown),
        cmocka_unit_test_setup_teardown(save_round_trip_comma_locale, setup_dir, teardown),
        cmocka_unit_test_setup_teardown(save_overwrites, setup_dir, teardown),
        cmocka_unit_test_setup_teardown(save_failure_unwritable, setup_dir, teardown),
        cmocka_unit_test_setup_teardown(save_failure_cleans_up, setup_dir, teardown),
        cmocka_unit_test_setup_teardown(save_failure_mid_write, setup_dir, teardown),
        cmocka_unit_test(save_name),
        cmocka_unit_test_setup_teardown(new_actions_undo, setup, teardown),
        cmocka_unit_test_setup_teardown(save_new_options, setup_dir, teardown),
        cmocka_unit_test_setup_teardown(save_name_loaded, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
