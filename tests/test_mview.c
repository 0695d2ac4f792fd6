/* test_mview.c - a model lesson (tests/lessons/model-2l.yaml) in the view,
 * drawn on a headless screen and read back: its steps' golden screens at
 * 80x24 and 60x18, the model view, the keys { } M i g W and what they say
 * in a one-layer lesson. `make golden` (QKV_GOLDEN=1) rewrites the
 * screens under tests/golden/model-2l-*.txt for review. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/embedded.h"
#include "lesson/lmodel.h"
#include "lesson/session.h"
#include "text/i18n.h"
#include "screen.h"
#include "term/view.h"
#include "testutil.h" /* after lesson.h: cmocka defines a macro expect_check */
#include "golden.h"

#define MODEL_LESSON "tests/lessons/model-2l.yaml"

typedef struct {
    Lesson l;
    View *v;
} Fix;

static const ViewOpt dark = {LANG_EN, false, "dark", false, 0, false, NULL};

static Fix *open_file_with(const char *path, bool train);

static Fix *open_file(const char *path)
{
    return open_file_with(path, false);
}

/* The lesson, with a train: section (the copy task) when train. */
static Fix *open_file_with(const char *path, bool train)
{
    Fix *f = calloc(1, sizeof *f);
    char err[512];
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    if (!lesson_load_buffer(path, buf, n, &f->l, err, sizeof err))
        fail_msg("%s", err);
    if (train) {
        TrainSpec *t = &f->l.model->train;
        *t = (TrainSpec){.given = true, .data = TDATA_COPY, .lmin = 2, .lmax = 3, .data_seed = 1, .opt = OPT_ADAM,
                         .lr = 0.01, .batch = 8, .steps = 100};
    }
    f->v = view_new(&f->l, &dark);
    assert_non_null(f->v);
    return f;
}

static void close_fix(Fix *f)
{
    view_free(f->v);
    lesson_free(&f->l);
    free(f);
}

static int setup(void **state)
{
    setenv("TERM", "xterm-256color", 1);
    i18n_set(LANG_EN, NULL);
    return screen_open(24, 80) ? 0 : -1;
}

static int teardown(void **state)
{
    screen_close();
    return 0;
}


#define assert_on_screen(s) do { int x_; if (screen_find(s, &x_) < 0) { char *t_ = screen_text(); \
    print_error("not on screen: %s\n%s", s, t_); free(t_); fail(); } } while (0)

/* Every step, and the model view, at 80x24 and 60x18. */
static void test_golden_model(void **state)
{
    static const int sizes[2][2] = {{24, 80}, {18, 60}};
    for (int s = 0; s < 2; s++) {
        screen_resize(sizes[s][0], sizes[s][1]);
        Fix *f = open_file(MODEL_LESSON);
        char name[64];
        for (int k = 0; k < f->l.nsteps; k++) {
            view_draw(f->v);
            snprintf(name, sizeof name, "model-2l-step%d-%dx%d", k + 1, sizes[s][1], sizes[s][0]);
            golden(name);
            view_keys(f->v, "n");
        }
        view_keys(f->v, "M");
        view_draw(f->v);
        snprintf(name, sizeof name, "model-2l-mview-%dx%d", sizes[s][1], sizes[s][0]);
        golden(name);
        close_fix(f);
    }
}

/* { } switch the layer the ribbon names; M shows every head; i opens the
 * prompt holding the input. */
static void test_model_keys(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_file(MODEL_LESSON);
    view_keys(f->v, "n"); /* step 2: layer 1's softmax */
    view_draw(f->v);
    assert_on_screen("L1/2 ·");
    assert_on_screen("[4 softmax]");
    view_keys(f->v, "}");
    view_draw(f->v);
    assert_on_screen("L2/2 ·");
    assert_on_screen("Layer 2 of 2.");
    view_keys(f->v, "{");
    view_draw(f->v);
    assert_on_screen("L1/2 ·");
    view_keys(f->v, "M");
    view_draw(f->v);
    assert_on_screen("L1.H1");
    assert_on_screen("L2.H2");
    view_keys(f->v, "Mi");
    view_draw(f->v);
    assert_on_screen(":tokens = <s> A B C A B");
    view_keys(f->v, " D\r"); /* tokens = <s> A B C A B D */
    view_draw(f->v);
    assert_on_screen("7×7"); /* S and A on the seven tokens */
    view_keys(f->v, "g"); /* no train: section */
    view_draw(f->v);
    assert_on_screen("no train: section");
    close_fix(f);
}

/* W trains a batch a frame with the loss curve over the model view; a
 * key stops it, u undoes the whole run; g and G step 1 and 100. */
static void test_watch(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_file_with(MODEL_LESSON, true);
    view_keys(f->v, "W");
    for (int k = 0; k < 3; k++)
        assert_true(view_tick(f->v));
    view_draw(f->v);
    if (getenv("QKV_SHOW")) {
        char *t = screen_text();
        printf("%s", t);
        free(t);
    }
    assert_on_screen("step 15 · any key stops"); /* 5 steps a frame */
    assert_on_screen("L2.H1");
    view_keys(f->v, "x"); /* stops, and does nothing else */
    assert_false(view_tick(f->v));
    view_draw(f->v);
    assert_on_screen("Stopped after 15 training steps");
    view_keys(f->v, "u");
    view_draw(f->v);
    assert_on_screen("Undid the whole training run.");
    view_keys(f->v, "G");
    view_draw(f->v);
    view_keys(f->v, "W");
    assert_true(view_tick(f->v));
    view_draw(f->v);
    assert_on_screen("step 105 · any key stops");
    view_keys(f->v, "x");
    close_fix(f);
}

/* In a one-layer lesson the model keys say what they are for. */
static void test_one_layer_says(void **state)
{
    screen_resize(24, 80);
    const EmbeddedLesson *e = NULL;
    for (int k = 0; k < embedded_count && !e; k++)
        if (strncmp(embedded_lessons[k].name, "lessons/01", 10) == 0)
            e = &embedded_lessons[k];
    assert_non_null(e);
    Fix *f = calloc(1, sizeof *f);
    char err[512];
    assert_true(lesson_load_buffer(e->name, e->data, e->len, &f->l, err, sizeof err));
    f->v = view_new(&f->l, &dark);
    const char *keys[] = {"}", "{", "M", "i", "W"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        view_keys(f->v, keys[k]);
        view_draw(f->v);
        assert_on_screen("only in model lessons");
    }
    close_fix(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_model),
        cmocka_unit_test(test_model_keys),
        cmocka_unit_test(test_watch),
        cmocka_unit_test(test_one_layer_says),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
