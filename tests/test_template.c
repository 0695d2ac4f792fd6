/* test_template.c - {REF} templates (lesson/template.h): filled in from a
 * state as the screen writes numbers, checked at load with exact
 * FILE:LINE:COL messages, and kept as written when a lesson is saved (whose
 * about: then says which edits made it). Figures: lesson 1 (tutorial A). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/lesson.h"
#include "lesson/live.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "lesson/template.h"

#define HEAD "format: qkvtutor/1\n" \
             "tokens: [我, love, 猫]\n" \
             "X:\n  - [1, 0, 0, 0]\n  - [0, 1, 0, 0]\n  - [0, 0, 1, 0.2]\n" \
             "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n" \
             "options: {scale: none, softmax: naive}\n"
/* line 10 */
#define STEPS "steps:\n"

static char err[LESSON_ERR_MAX];

/* Load HEAD + more; returns true when it loads. */
static bool try_load(const char *more, Lesson *l)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s%s", HEAD, more);
    return lesson_load_buffer("t.yaml", buf, strlen(buf), l, err, sizeof err);
}

static void assert_load_error(const char *more, const char *want)
{
    Lesson l;
    if (try_load(more, &l)) {
        lesson_free(&l);
        fail_msg("loaded, expected: %s", want);
    }
    assert_string_equal(err, want);
}

/* Lesson 1 at the output stage, with the Q[1] = K[1] * 5 override. */
typedef struct {
    Lesson l;
    Attn a;
} Fix;

static int setup(void **state)
{
    Fix *f = calloc(1, sizeof *f);
    *state = f;
    if (!f || !try_load("", &f->l) || !lesson_base(&f->l, &f->a)) {
        print_error("%s\n", err);
        return -1;
    }
    attn_run_to(&f->a, STAGE_OUTPUT);
    return 0;
}

static int teardown(void **state)
{
    Fix *f = *state;
    attn_free(&f->a);
    lesson_free(&f->l);
    free(f);
    return 0;
}

static void assert_expands(Fix *f, const char *text, const TplOpt *o, const char *want)
{
    char out[1024];
    size_t n = template_expand(text, &f->a, &f->l, o, out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
    char *dup = template_expand_dup(text, &f->a, &f->l, o);
    assert_string_equal(dup, want);
    free(dup);
}

static void test_expand(void **state)
{
    Fix *f = *state;
    TplOpt o = {3, false, NULL, NULL}, a = {3, true, NULL, NULL}, two = {2, false, NULL, NULL};
    assert_expands(f, "score₁₂ = {S[1][2]}", &o, "score₁₂ = 0.006");
    assert_expands(f, "{A[1]}", &o, "0.313, 0.337, 0.350");
    assert_expands(f, "{S[1][1]} / {S[1][1]}", &o, "−0.066 / −0.066");
    assert_expands(f, "{S[1][1]}", &a, "-0.066");
    assert_expands(f, "{O[1]}", &two, "−0.10, 0.16, −0.16");
    assert_expands(f, "{token[1]}→{token[2]}", &o, "我→love");
    assert_expands(f, "d_k={d_k}, d_v={d_v}, d_model={d_model}, n={n}", &o, "d_k=3, d_v=3, d_model=4, n=3");
    assert_expands(f, "{{S[1][2]} and {{ and a } alone", &o, "{S[1][2]} and { and a } alone");
    assert_expands(f, "{ S [1] [2] }", &o, "0.006");
    assert_expands(f, "{QKt[3][3]} {Wq[1][1]} {X[3][4]}", &o, "−0.290 0.149 0.200");
    assert_expands(f, "no references", &o, "no references");
    assert_expands(f, "", &o, "");
    /* not checked (a bad reference) or not computed: "…"; unclosed: as written */
    assert_expands(f, "{Z[1]} {S[9][9]}", &o, "… …");
    assert_expands(f, "{Z[1]}", &a, "...");
    f->a.reached = STAGE_SCORES;
    assert_expands(f, "{S[1][2]} {A[1][1]}", &o, "0.006 …");
    assert_expands(f, "open {S[1][2]", &o, "open {S[1][2]");
}

static bool hide_s12(const void *ctx, MatId m, int i, int j)
{
    (void)ctx;
    return m == M_S && i == 0 && j == 1;
}

/* An asked cell still open is "?", also inside a row. */
static void test_expand_hidden(void **state)
{
    Fix *f = *state;
    TplOpt o = {3, false, hide_s12, NULL};
    assert_expands(f, "{S[1][2]}; {S[1]}; {S[1][1]}", &o, "?; −0.066, ?, 0.044; −0.066");
}

/* A small buffer: cut at a character boundary, the needed length returned. */
static void test_expand_cut(void **state)
{
    Fix *f = *state;
    TplOpt o = {3, false, NULL, NULL};
    char out[8];
    /* "我的 −0.066": 我 (3) 的 (3) space (1) − (3) ... */
    size_t n = template_expand("我的 {S[1][1]}", &f->a, &f->l, &o, out, sizeof out);
    assert_int_equal(n, strlen("我的 −0.066"));
    assert_string_equal(out, "我的 ");
    n = template_expand("{token[1]}{token[1]}{token[1]}", &f->a, &f->l, &o, out, 5);
    assert_int_equal(n, 9);
    assert_string_equal(out, "我");
    n = template_expand("abc", &f->a, &f->l, &o, NULL, 0);
    assert_int_equal(n, 3);
    assert_true(template_has_refs("a {b}"));
    assert_false(template_has_refs("a b"));
    assert_false(template_has_refs(NULL));
}

/* A good lesson quoting every kind loads; {{ needs no reference. */
static void test_load_ok(void **state)
{
    (void)state;
    Lesson l;
    bool ok = try_load("about: \"{token[3]} has {X[3][4]} in feature {d_model}; {{not a ref}\"\n"
                       STEPS
                       "  - stage: qkv\n"
                       "    say: \"q₁ = {Q[1]}, {Wq[1][1]}, {d_k}, {n}\"\n"
                       "  - stage: scores\n"
                       "    say: {zh: \"分数 {S[1][2]}\", en: \"score {QKt[1][2]}\"}\n", &l);
    if (!ok)
        fail_msg("%s", err);
    assert_string_equal(l.steps[1].say.s[LANG_ZH], "分数 {S[1][2]}"); /* kept as written */
    char *about = lesson_about_text(&l, LANG_EN, false);
    assert_string_equal(about, "猫 has 0.200 in feature 4; {not a ref}");
    free(about);
    lesson_free(&l);
}

/* Every load error, with its exact place: the "{" in a plain or quoted
 * one-line scalar (columns count characters), else the scalar's start. */
static void test_load_errors(void **state)
{
    (void)state;
    /* "    say: " is 9 columns: a scalar starts at column 10 */
    assert_load_error(STEPS "  - stage: qkv\n    say: see {Z[1][2]} here\n",
                      "t.yaml:12:14: unknown matrix in {Z[1][2]}, expected X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O");
    assert_load_error(STEPS "  - stage: qkv\n    say: \"score {S[1][2]}\"\n",
                      "t.yaml:12:17: {S[1][2]} quotes S, which is computed at stage scores; this step shows "
                      "stage qkv, quote it at a later step");
    assert_load_error(STEPS "  - stage: qkv\n    say: '{Q[4]}'\n",
                      "t.yaml:12:11: row 4 is out of range in {Q[4]}, Q has 3 rows");
    assert_load_error(STEPS "  - stage: output\n    say: \"{K[1][4]}\"\n",
                      "t.yaml:12:11: column 4 is out of range in {K[1][4]}, K has 3 columns");
    assert_load_error(STEPS "  - stage: qkv\n    say:\n      en: fine\n      zh: \"三个词 {token[4]}\"\n",
                      "t.yaml:14:16: token 4 is out of range in {token[4]}, there are 3 tokens");
    assert_load_error(STEPS "  - stage: qkv\n    say: \"x {S[1]\"\n",
                      "t.yaml:12:13: unclosed \"{\" in say; close the reference with \"}\", or write \"{{\" for "
                      "a literal \"{\"");
    assert_load_error(STEPS "  - stage: qkv\n    say: \"{foo} and\"\n",
                      "t.yaml:12:11: unknown reference {foo} in say, expected a cell like {S[1][2]}, a row like "
                      "{A[1]}, {token[2]}, {d_k}, {d_model} or {n}; write {{ for a literal {");
    assert_load_error(STEPS "  - stage: qkv\n    say: \"{d_k[1]}\"\n",
                      "t.yaml:12:11: {d_k[1]} takes no index, write {d_k}");
    assert_load_error(STEPS "  - stage: scores\n    say: \"{S[0][1]}\"\n",
                      "t.yaml:12:11: indices start at 1, found {S[0][1]}");
    assert_load_error(STEPS "  - stage: scores\n    say: \"{S[1}\"\n",
                      "t.yaml:12:11: {S[1} must be a row like {A[1]} or a cell like {S[1][2]}");
    assert_load_error(STEPS "  - stage: qkv\n    say: \"{token[0]}\"\n",
                      "t.yaml:12:11: indices start at 1, found {token[0]}");
    assert_load_error(STEPS "  - stage: qkv\n    say: \"{token}\"\n",
                      "t.yaml:12:11: {token} must be like {token[2]}, one token by its number");
    /* a block scalar, or one over several lines: the scalar's start */
    assert_load_error(STEPS "  - stage: qkv\n    say: |\n      one\n      two {A[1]}\n",
                      "t.yaml:12:10: {A[1]} quotes A, which is computed at stage softmax; this step shows "
                      "stage qkv, quote it at a later step");
    assert_load_error(STEPS "  - stage: qkv\n    say: \"one\n      two {A[1]}\"\n",
                      "t.yaml:12:10: {A[1]} quotes A, which is computed at stage softmax; this step shows "
                      "stage qkv, quote it at a later step");
    /* about: only what exists before the first step; "about: " is 7 columns */
    assert_load_error("about: \"x {S[1][1]}\"\n",
                      "t.yaml:10:11: {S[1][1]} quotes S, which is computed at stage scores; about is shown "
                      "before the first step and can quote only X, Wq, Wk, Wv, tokens, d_k, d_model and n");
    assert_load_error("about: {en: ok, zh: \"{Q[1]}\"}\n",
                      "t.yaml:10:22: {Q[1]} quotes Q, which is computed at stage qkv; about is shown "
                      "before the first step and can quote only X, Wq, Wk, Wv, tokens, d_k, d_model and n");
}

/* Saving keeps say: as written and the asks, and about: names the edits in effect. */
static void test_save_keeps_templates(void **state)
{
    (void)state;
    Lesson l, back;
    Session s;
    char dir[] = "/tmp/qkvtutor-tpl-XXXXXX", path[128], e[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/saved.yaml", dir);
    bool ok = try_load("about: {zh: 三个词, en: Three tokens}\n" STEPS
                       "  - stage: scores\n    say: \"score₁₂ = {S[1][2]}\"\n"
                       "  - stage: softmax\n    say: {zh: \"权重 {A[1]}\", en: \"weights {A[1]}\"}\n"
                       "    ask: [\"A[1]\", \"A[2][3]\"]\n", &l);
    if (!ok)
        fail_msg("%s", err);
    assert_true(session_init(&s, &l));
    assert_true(session_act_text(&s, "X[1][1] = 3", e, sizeof e));
    assert_true(session_act_text(&s, "reset", e, sizeof e)); /* edits before a reset are not named */
    assert_true(session_act_text(&s, "Q[1] = K[1] * 5", e, sizeof e));
    assert_true(session_act_text(&s, "scale = sqrt_dk", e, sizeof e));
    if (!lesson_save(&s, path, e, sizeof e))
        fail_msg("%s", e);
    FILE *fp = fopen(path, "r");
    char text[8192] = "";
    assert_non_null(fp);
    size_t n = fread(text, 1, sizeof text - 1, fp);
    text[n] = '\0';
    fclose(fp);
    if (!strstr(text, "\"score₁₂ = {S[1][2]}\"") || !strstr(text, "\"weights {A[1]}\"") ||
        !strstr(text, "\"权重 {A[1]}\""))
        fail_msg("templates not kept:\n%s", text);
    if (!strstr(text, "\"Three tokens Saved after: Q[1] = K[1] * 5; scale = sqrt_dk.\"") ||
        !strstr(text, "\"三个词保存前做过的改动：Q[1] = K[1] * 5; scale = sqrt_dk。\""))
        fail_msg("about does not name the edits:\n%s", text);
    /* it loads again, and its narration quotes its own (saved) numbers */
    if (!lesson_load_file(path, &back, e, sizeof e))
        fail_msg("%s", e);
    assert_int_equal(back.steps[1].nask, 2); /* the exercises are kept */
    assert_int_equal(back.steps[1].ask[1].mat, M_A);
    assert_int_equal(back.steps[1].ask[1].i, 1);
    assert_int_equal(back.steps[1].ask[1].j, 2);
    Session s2;
    assert_true(session_init(&s2, &back));
    session_goto(&s2, 0);
    char *say = session_say(&s2, LANG_EN, false);
    assert_string_equal(say, "score₁₂ = 0.327"); /* 0.567 ÷ √3 */
    free(say);
    session_free(&s2);
    lesson_free(&back);
    /* no edits: about as written, no note */
    session_free(&s);
    assert_true(session_init(&s, &l));
    char *about = session_saved_about(&s, LANG_EN);
    assert_string_equal(about, "Three tokens");
    free(about);
    session_free(&s);
    lesson_free(&l);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_expand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expand_hidden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expand_cut, setup, teardown),
        cmocka_unit_test(test_load_ok),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_save_keeps_templates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
