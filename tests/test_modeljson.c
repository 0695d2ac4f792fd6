/* test_modeljson.c - --json and --dump of a model lesson (out/modeljson.c,
 * out/modeldump.c) on a lesson built here (lesson/lmodel.h's LessonModel
 * around a core Model): the object's keys and order, the reached stages
 * only at --at N, S's masked entries as null, the numbers as the core's
 * shortest round-trip text, the predicted token, the heads' scores, and
 * --dump's step lines and matrices. Every number against every stage of
 * torch: tests/model_lesson_ref.py. */
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/lesson.h"
#include "lesson/lmodel.h"
#include "out/render.h"
#include "text/shortest.h"

static char *names[] = {"A", "B", "C"};

/* A 2-layer model lesson (d 4, 2 heads, d_ff 3, causal) on A B C A B, with steps
 * (1 embed), (2 scores), (next). */
static Lesson *model_lesson(int d_ff)
{
    Lesson *l = calloc(1, sizeof *l);
    LessonModel *lm = calloc(1, sizeof *lm);
    assert_non_null(l);
    assert_non_null(lm);
    model_cfg_default(&lm->cfg);
    lm->cfg.layers = 2, lm->cfg.d_model = 4, lm->cfg.heads = 2, lm->cfg.d_ff = d_ff, lm->cfg.vocab = 3;
    lm->cfg.ctx = 6;
    lm->nvocab = 3;
    lm->vocab = names;
    int tok[] = {0, 1, 2, 0, 1};
    lm->ntok = 5;
    memcpy(lm->tok, tok, sizeof tok);
    lm->base = calloc(1, sizeof *lm->base);
    assert_non_null(lm->base);
    assert_true(model_init(lm->base, &lm->cfg, tok, 5));
    model_draw_weights(lm->base, 7, 0.5);
    l->model = lm;
    l->file = "model.yaml";
    l->title.s[LANG_EN] = "a model";
    l->digits = 3;
    l->nsteps = 3;
    l->steps = calloc(3, sizeof *l->steps);
    assert_non_null(l->steps);
    l->steps[0].stage = MSTAGE_EMBED, l->steps[0].layer = 1;
    l->steps[1].stage = MSTAGE_SCORES, l->steps[1].layer = 2;
    l->steps[2].stage = MSTAGE_NEXT, l->steps[2].layer = 2;
    return l;
}

static void free_lesson(Lesson *l)
{
    model_free(l->model->base);
    free(l->model->base);
    free(l->model);
    free(l->steps);
    free(l);
}

static char *render(Lesson *l, int at, bool json)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    RenderOpt ro = {.lang = LANG_EN, .at = at};
    assert_non_null(f);
    assert_int_equal(json ? render_json(f, l, &ro) : render_dump(f, l, &ro), 0);
    fclose(f);
    return buf;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* "[v0,v1,...]" of a row, as the JSON writer prints it. */
static void row_text(const double *v, int n, char *buf)
{
    char *p = buf;
    *p++ = '[';
    for (int k = 0; k < n; k++) {
        if (k)
            *p++ = ',';
        p += shortest_print(v[k], p);
    }
    *p++ = ']';
    *p = '\0';
}

static void test_json_whole(void **state)
{
    (void)state;
    Lesson *l = model_lesson(3);
    char *j = render(l, 0, true);
    const char *keys[] = {"{\"format\":\"qkvtutor/1\",\"title\":\"a model\",\"tokens\":[\"A\",\"B\",\"C\",\"A\",\"B\"],"
                          "\"options\":{\"scale\":\"sqrt_dk\",\"softmax\":\"stable\",\"mask\":\"causal\"",
                          "\"positions\":\"learned\"", "\"d_model\":4,\"d_k\":2,\"d_v\":2,\"heads\":2,\"model\":{",
                          "\"vocab\":[\"A\",\"B\",\"C\"],\"params\":{\"E\":", "\"layers\":[{\"h_in\":", "\"h_final\":",
                          "\"logits\":", "\"p\":", "\"scores\":["};
    const char *at = j;
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const char *p = strstr(at, keys[k]);
        if (!p)
            fail_msg("no %s after offset %td in %s", keys[k], at - j, j);
        at = p;
    }
    assert_int_equal(count(j, "\"per_head\":"), 2);
    assert_int_equal(count(j, "\"b\":"), 2);
    assert_int_equal(count(j, "\"f\":"), 2);
    assert_int_equal(count(j, "\"h\":"), 2);
    assert_int_equal(count(j, "\"induction\":"), 4); /* A B repeat */
    assert_int_equal(count(j, "\"prev\":"), 4);
    /* S under the causal mask: row 1's later entries are null */
    assert_non_null(strstr(j, ",null,null,null,null],["));
    /* the last row of p, and the next token, as the core has them */
    Model m = {0};
    assert_true(model_copy(&m, l->model->base));
    model_run_all(&m);
    char want[64 * SHORTEST_MAX], next[32];
    row_text(&MAT_AT(&m.p, 4, 0), 3, want);
    assert_non_null(strstr(j, want));
    snprintf(next, sizeof next, "\"next\":\"%s\"", names[model_predict(&m)]);
    assert_non_null(strstr(j, next));
    row_text(&MAT_AT(&m.layer[1].att.m[M_WQ], 0, 0), 4, want); /* a parameter: L2.Wq's first row */
    assert_non_null(strstr(j, want));
    assert_non_null(strstr(j, "\"L2.Wq\":["));
    model_free(&m);
    free(j);
    free_lesson(l);
}

/* --at 2: layer 2 to its scores; no softmax there, no stage 8. */
static void test_json_at(void **state)
{
    (void)state;
    Lesson *l = model_lesson(0);
    char *j = render(l, 2, true);
    assert_int_equal(count(j, "\"h_in\":"), 2);
    assert_int_equal(count(j, "\"S\":"), 4);     /* 2 layers x 2 heads */
    assert_int_equal(count(j, "\"A\":"), 2);     /* layer 1's heads only */
    assert_int_equal(count(j, "\"h\":"), 1);     /* d_ff 0: layer 1's h after its projection */
    assert_int_equal(count(j, "\"b\":"), 0);
    assert_null(strstr(j, "\"h_final\""));
    assert_null(strstr(j, "\"next\""));
    assert_int_equal(count(j, "\"layer\":"), 2); /* the scores of layer 1's two heads */
    free(j);
    j = render(l, 1, true);
    assert_int_equal(count(j, "\"h_in\":"), 1);
    assert_null(strstr(j, "\"per_head\""));
    assert_non_null(strstr(j, "\"scores\":[]}"));
    free(j);
    free_lesson(l);
}

static void test_dump(void **state)
{
    (void)state;
    Lesson *l = model_lesson(3);
    char *d = render(l, 0, false);
    assert_non_null(strstr(d, "model.yaml · 5 tokens, vocab 3, layers 2, d_model 4, heads 2, d_k 2, d_v 2, d_ff 3\n"));
    assert_non_null(strstr(d, "── 1/3 · layer 1/2 · stage 1: embed"));
    assert_non_null(strstr(d, "── 2/3 · layer 2/2 · stage 3: scores"));
    assert_non_null(strstr(d, "── 3/3 · layer 2/2 · stage 8: next token"));
    assert_non_null(strstr(d, "\n  E  3×4  parameter"));
    assert_non_null(strstr(d, "\n  L2.S2  5×5  result for this input\n"));
    assert_non_null(strstr(d, "\n  logits  5×3  result for this input\n"));
    assert_non_null(strstr(d, "options: causal mask\n"));
    assert_non_null(strstr(d, "−∞"));
    assert_non_null(strstr(d, "  next: "));
    free(d);
    d = render(l, 2, false);
    assert_null(strstr(d, "── 1/3"));
    assert_non_null(strstr(d, "── 2/3"));
    free(d);
    free_lesson(l);
}

/* A model lesson from its file (the loader's tests/lessons/model-2l.yaml):
 * --dump says every expect holds; --json --at 2 stops at layer 1's softmax. */
static void test_lesson_file(void **state)
{
    (void)state;
    Lesson l;
    char err[LESSON_ERR_MAX];
    if (!lesson_load_file("tests/lessons/model-2l.yaml", &l, err, sizeof err))
        fail_msg("%s", err);
    char *d = render(&l, 0, false);
    assert_int_equal(count(d, "\n  expect: "), 7);
    assert_int_equal(count(d, " holds\n"), 7);
    assert_non_null(strstr(d, "\n  E  8×8  parameter"));
    assert_non_null(strstr(d, "── 4/4 · layer 2/2 · stage 8: next token"));
    free(d);
    char *j = render(&l, 2, true);
    assert_int_equal(count(j, "\"h_in\":"), 1);
    assert_int_equal(count(j, "\"A\":"), 2);
    assert_int_equal(count(j, "\"O\":"), 0);
    assert_int_equal(count(j, "\"layer\":"), 2);
    free(j);
    lesson_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_whole),
        cmocka_unit_test(test_json_at),
        cmocka_unit_test(test_dump),
        cmocka_unit_test(test_lesson_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
