/* test_load.c - the lesson loader: shipped lessons, weights, every error
 * message, load-completely-or-not-at-all, expect tolerances and checks. */
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#undef expect_check  /* cmocka's mock macro; here it is lesson.h's function */
#include "lesson/diag.h"
#include "lesson/lesson.h"
#include "lesson/schema.h"
#include "lesson/embedded.h"
#include "words/fmt.h"
#include "text/num.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include <unistd.h>

/* numpy: seed(42); randn(4,3)*0.3 three times (REFERENCE.md, tutorial A). */
static const double ref_wq[] = {0.1490142459, -0.0414792904, 0.1943065614, 0.4569089569, -0.0702460124,
                                -0.0702410871, 0.4737638447, 0.2302304187, -0.1408423158, 0.1627680131,
                                -0.1390253078, -0.1397189261};
static const double ref_wk[] = {0.0725886815, -0.5739840734, -0.5174753498, -0.1686862588, -0.3038493361,
                                0.0942741998, -0.2724072227, -0.4236911104, 0.4396946307, -0.0677328901,
                                0.0202584614, -0.4274244559};
static const double ref_wv[] = {-0.1633148174, 0.0332767769, -0.3452980732, 0.1127094055, -0.180191607,
                                -0.0875081249, -0.1805119837, 0.5556834554, -0.0040491674, -0.3173132787,
                                0.2467634736, -0.366253095};

#define HEAD "format: qkvtutor/1\n" \
             "tokens: [我, love, 猫]\n" \
             "X:\n" \
             "  - [1.0, 0.0, 0.0, 0.0]\n" \
             "  - [0.0, 1.0, 0.0, 0.0]\n" \
             "  - [0.0, 0.0, 1.0, 0.2]\n"
#define RANDOM "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n"
#define TUTORIAL_A HEAD RANDOM "options: {scale: none, softmax: naive}\n"

static char err[LESSON_ERR_MAX];

static bool load(const char *yaml, Lesson *l)
{
    return lesson_load_buffer("t.yaml", yaml, strlen(yaml), l, err, sizeof err);
}

static bool is_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t k = 0; k < n; k++)
        if (b[k])
            return false;
    return true;
}

/* Loading yaml must fail with exactly `want`, leaving the lesson zeroed. */
#define assert_load_error(yaml, want) assert_load_error_at((yaml), (want), __FILE__, __LINE__)
static void assert_load_error_at(const char *yaml, const char *want, const char *file, int line)
{
    Lesson l;
    memset(&l, 0xAB, sizeof l);
    if (load(yaml, &l)) {
        print_error("loaded, expected the error: %s\n", want);
        lesson_free(&l);
        _fail(file, line);
    }
    if (strcmp(err, want) != 0) {
        print_error("error:    %s\nexpected: %s\n", err, want);
        _fail(file, line);
    }
    if (!is_zero(&l, sizeof l)) {
        print_error("the lesson was not left zeroed after: %s\n", want);
        _fail(file, line);
    }
}

static void assert_tutorial_a_weights(const Lesson *l)
{
    assert_int_equal(l->Wq.rows, 4);
    assert_int_equal(l->Wq.cols, 3);
    assert_mat_near(&l->Wq, 4, 3, ref_wq, 1e-10);
    assert_mat_near(&l->Wk, 4, 3, ref_wk, 1e-10);
    assert_mat_near(&l->Wv, 4, 3, ref_wv, 1e-10);
}

/* Every shipped lesson loads; those drawn with seed 42, scale 0.3 on a
 * 4-feature X give tutorial A's weights to ten decimals. */
static void shipped_lessons_load(void **state)
{
    (void)state;
    for (int k = 0; k < embedded_count; k++) {
        const EmbeddedLesson *e = &embedded_lessons[k];
        Lesson l;
        if (!lesson_load_buffer(e->name, e->data, e->len, &l, err, sizeof err))
            fail_msg("%s", err);
        assert_true(l.nsteps >= 1 && l.nsteps <= LESSON_MAX_STEPS);
        if (l.random && l.seed == 42 && l.rscale == 0.3 && l.d_model == 4 && l.d_k == 3 && l.d_v == 3)
            assert_tutorial_a_weights(&l);
        lesson_free(&l);
    }
}

/* random: {seed: 42, scale: 0.3, d_k: 3} reproduces numpy bit for bit. */
static void random_weights_match_numpy(void **state)
{
    (void)state;
    Lesson l;
    assert_true(load(TUTORIAL_A, &l));
    assert_true(l.random);
    assert_int_equal(l.seed, 42);
    assert_int_equal(l.d_model, 4);
    assert_int_equal(l.d_k, 3);
    assert_int_equal(l.d_v, 3);
    assert_tutorial_a_weights(&l);
    assert_int_equal(l.scale, SCALE_NONE);
    assert_int_equal(l.softmax, SOFTMAX_NAIVE);
    assert_string_equal(l.file, "t.yaml");
    assert_string_equal(l.tokens[0], "我");
    assert_string_equal(l.tokens[2], "猫");
    lesson_free(&l);
    assert_true(is_zero(&l, sizeof l));
}

/* d_v defaults to d_k and may differ; scale defaults to 1. */
static void random_d_v(void **state)
{
    (void)state;
    Lesson l;
    assert_true(load(HEAD "weights:\n  random: {seed: 7, d_k: 2, d_v: 5}\n", &l));
    assert_int_equal(l.Wq.cols, 2);
    assert_int_equal(l.Wk.cols, 2);
    assert_int_equal(l.Wv.cols, 5);
    assert_near(l.rscale, 1.0, 0);
    assert_near(MAT_AT(&l.Wq, 0, 0), 1.6905257, 1e-7);  /* seed 7's first normal */
    lesson_free(&l);
}

/* Written-out weights keep their numbers; Wv may have its own width. */
static void written_weights(void **state)
{
    (void)state;
    const char *y = HEAD "weights:\n"
                    "  Wq: [[1, 2], [3, 4], [5, 6], [7, 8]]\n"
                    "  Wk: [[0.5, 0], [0, 0.5], [1e-3, -2], [+1, -1.5e2]]\n"
                    "  Wv: [[1], [2], [3], [4]]\n";
    Lesson l;
    assert_true(load(y, &l));
    assert_false(l.random);
    assert_int_equal(l.d_k, 2);
    assert_int_equal(l.d_v, 1);
    const double wk[] = {0.5, 0, 0, 0.5, 0.001, -2, 1, -150};
    assert_mat_near(&l.Wk, 4, 2, wk, 0);
    assert_near(MAT_AT(&l.Wv, 3, 0), 4, 0);
    lesson_free(&l);
}

/* Without options and steps: sqrt_dk, stable, 3 digits, one step per stage. */
static void defaults(void **state)
{
    (void)state;
    Lesson l;
    assert_true(load(HEAD RANDOM, &l));
    assert_int_equal(l.scale, SCALE_SQRT_DK);
    assert_int_equal(l.softmax, SOFTMAX_STABLE);
    assert_int_equal(l.digits, 3);
    assert_int_equal(l.start, 0);
    assert_false(l.steps_given);
    assert_int_equal(l.nsteps, 5);
    for (int k = 0; k < 5; k++) {
        assert_int_equal(l.steps[k].stage, k + 1);
        assert_int_equal(l.steps[k].nact, 0);
        assert_int_equal(l.steps[k].focus.kind, FOCUS_NONE);
        assert_string_equal(text_get(&l.steps[k].say, LANG_EN), "");
    }
    assert_null(l.title.s[LANG_EN]);
    lesson_free(&l);
}

/* A script: stage names and numbers, focus, do as text and list, say in
 * both forms, expect rows and cells, start. */
static void script(void **state)
{
    (void)state;
    const char *y = TUTORIAL_A "title: {zh: 三个词, en: Three tokens}\nabout: plain text\nstart: 2\n"
                    "steps:\n"
                    "  - stage: input\n    focus: \"X[3]\"\n    say: {zh: 输入}\n"
                    "  - stage: 3\n    focus: S[1][2]\n    do: Q[1] = K[1] * 5\n"
                    "  - stage: softmax\n    do: [scale = sqrt_dk, reset, \"X[1][2] = 0.5\"]\n"
                    "    say: {en: weights, zh: 权重}\n"
                    "    expect: {\"A[1]\": [0.873, 0.076, 0.052], \"S[2][3]\": 1.5e-3}\n";
    Lesson l;
    if (!load(y, &l))
        fail_msg("%s", err);
    assert_true(l.steps_given);
    assert_int_equal(l.nsteps, 3);
    assert_int_equal(l.start, 2);
    assert_string_equal(text_get(&l.title, LANG_ZH), "三个词");
    assert_string_equal(text_get(&l.about, LANG_ZH), "plain text");
    const Step *s = l.steps;
    assert_int_equal(s[0].focus.kind, FOCUS_ROW);
    assert_int_equal(s[0].focus.mat, M_X);
    assert_int_equal(s[0].focus.i, 2);
    assert_string_equal(text_get(&s[0].say, LANG_EN), "输入");
    assert_int_equal(s[1].stage, 3);
    assert_int_equal(s[1].focus.kind, FOCUS_CELL);
    assert_int_equal(s[1].focus.mat, M_S);
    assert_int_equal(s[1].focus.j, 1);
    assert_int_equal(s[1].nact, 1);
    assert_int_equal(s[1].act[0].kind, ACT_ROW_COPY);
    assert_string_equal(s[1].act_text[0], "Q[1] = K[1] * 5");
    assert_int_equal(s[2].nact, 3);
    assert_int_equal(s[2].act[1].kind, ACT_RESET);
    assert_string_equal(text_get(&s[2].say, LANG_EN), "weights");
    assert_int_equal(s[2].nexpect, 2);
    assert_int_equal(s[2].expect[0].mat, M_A);
    assert_int_equal(s[2].expect[0].j, -1);
    assert_int_equal(s[2].expect[0].n, 3);
    assert_int_equal(s[2].expect[1].j, 2);
    assert_int_equal(s[2].expect[1].line, 23);
    lesson_free(&l);
}

/* Overrides set Q/K/V rows; lesson_base copies them with their flags. */
static void overrides_and_base(void **state)
{
    (void)state;
    Lesson l;
    Attn a;
    assert_true(load(TUTORIAL_A "overrides: {\"Q[1]\": [0.363, -2.870, -2.587], \"V[3]\": [1, 2, 3]}\n", &l));
    assert_true(l.override[0][0]);
    assert_false(l.override[0][1]);
    assert_true(l.override[2][2]);
    assert_true(lesson_base(&l, &a));
    assert_int_equal(a.reached, 0);
    assert_true(a.override[0][0]);
    assert_false(a.override[1][0]);
    assert_near(MAT_AT(&a.m[M_Q], 0, 1), -2.870, 0);
    assert_near(MAT_AT(&a.m[M_V], 2, 2), 3, 0);
    assert_mat_near(&a.m[M_WQ], 4, 3, ref_wq, 1e-10);
    assert_near(MAT_AT(&a.m[M_X], 2, 3), 0.2, 0);
    assert_int_equal(a.scale, SCALE_NONE);
    attn_run_to(&a, STAGE_QKV);
    assert_near(MAT_AT(&a.m[M_Q], 0, 0), 0.363, 0);  /* kept, not X Wq */
    attn_free(&a);
    lesson_free(&l);
}

/* Tokens may be numbers (their text is kept) and carry escapes like ESC,
 * which are shown sanitised later; "\xff" is U+00FF, valid text. */
static void tokens_and_escapes(void **state)
{
    (void)state;
    Lesson l;
    assert_true(load("format: qkvtutor/1\ntitle: \"\\e]0;x\\a \\xff\"\ntokens: [1, 2.50, yes]\n"
                     "X: [[1], [2], [3]]\n" RANDOM, &l));
    assert_string_equal(l.tokens[1], "2.50");
    assert_string_equal(l.tokens[2], "yes");
    assert_string_equal(l.title.s[LANG_EN], "\x1b]0;x\x07 \xc3\xbf");
    lesson_free(&l);
}

/* Shape errors name the rule, e.g. Wq's d_model rows. */
static void errors_shapes(void **state)
{
    (void)state;
    assert_load_error(HEAD "weights:\n  Wq: [[1, 2, 3], [1, 2, 3], [1, 2, 3]]\n  Wk: [[1]]\n  Wv: [[1]]\n",
                      "t.yaml:8:7: Wq must have d_model = 4 rows, one per X column; it has 3");
    assert_load_error("format: qkvtutor/1\ntokens: [a, b, c]\nX:\n  - [1, 0, 0, 0]\n  - [0, 1, 0, 0]\n"
                      "  - [0, 0, 1]\n" RANDOM,
                      "t.yaml:6:5: X row 3 has 3 numbers, row 1 has 4; every row needs d_model = 4");
    assert_load_error("format: qkvtutor/1\ntokens: [a, b, c]\nX: [[1], [2]]\n" RANDOM,
                      "t.yaml:3:4: X has 2 rows but there are 3 tokens; X needs one row per token");
    assert_load_error(HEAD "weights:\n  Wq: [[1, 2], [1, 2], [1, 2], [1, 2]]\n"
                      "  Wk: [[1, 2], [1, 2], [1], [1, 2]]\n  Wv: [[1], [2], [3], [4]]\n",
                      "t.yaml:9:24: Wk row 3 has 1 number; every row needs d_k = 2, the width of Wq");
    assert_load_error(HEAD "weights:\n  Wq: [[1], [1], [1], [1]]\n  Wk: [[1], [1], [1], [1]]\n",
                      "t.yaml:7:1: weights is missing Wv; write Wq, Wk and Wv out, or use random: "
                      "{seed, scale, d_k}");
    assert_load_error(TUTORIAL_A "overrides: {\"K[2]\": [1, 2]}\n",
                      "t.yaml:10:21: K[2] needs d_k = 3 numbers, it has 2");
}

/* Unknown keys get a suggestion within two edits, else the list of keys. */
static void errors_unknown_keys(void **state)
{
    (void)state;
    assert_load_error("format: qkvtutor/1\ntokenz: [a]\n", "t.yaml:2:1: unknown key \"tokenz\" (did you mean \"tokens\"?)");
    assert_load_error("format: qkvtutor/1\nzzzzzz: 1\n",
                      "t.yaml:2:1: unknown key \"zzzzzz\", expected format, title, about, tokens, X, weights, "
                      "overrides, options, start, steps, heads, edited, variants, kv_heads, vocab, model, sampling, train, "
                      "source, Xs, attention or pad");
    assert_load_error(TUTORIAL_A "steps:\n  - {stage: 1, sya: hi}\n",
                      "t.yaml:11:16: unknown key \"sya\" in step 1 (did you mean \"say\"?)");
    assert_load_error(HEAD "weights:\n  random: {seed: 42, scael: 0.3, d_k: 3}\n",
                      "t.yaml:8:22: unknown key \"scael\" in random (did you mean \"scale\"?)");
    assert_load_error(HEAD RANDOM "title: {zh: 猫, zn: chat}\n",
                      "t.yaml:9:16: unknown language \"zn\" in title (did you mean \"zh\"?)");
    assert_load_error(HEAD RANDOM "about: {de: Katze}\n",
                      "t.yaml:9:9: unknown language \"de\" in about, expected zh or en");
    assert_load_error("format: qkvtutor/1\n\"\\e[2J\": 1\n",
                      "t.yaml:2:1: unknown key \"\\x1b[2J\", expected format, title, about, tokens, X, "
                      "weights, overrides, options, start, steps, heads, edited, variants, kv_heads, vocab, model, sampling, "
                      "train, source, Xs, attention or pad");
    assert_load_error("format: qkvtutor/1\nx: [[1]]\n", "t.yaml:2:1: unknown key \"x\" (did you mean \"X\"?)");
    assert_load_error("format: qkvtutor/1\nformat: qkvtutor/1\n",
                      "t.yaml:2:1: \"format\" is given twice, the first is at line 1");
}

/* Required keys, the format string and the top level's shape. */
static void errors_top_level(void **state)
{
    (void)state;
    assert_load_error("format: qkvtutor/1\ntokens: [a]\nweights: {}\n",
                      "t.yaml:1:1: missing key \"X\", a lesson needs at least format, tokens, X and weights");
    assert_load_error("format: qkvtutor/2\ntokens: [a]\nX: [[1]]\n" RANDOM,
                      "t.yaml:1:9: format must be \"qkvtutor/1\", found \"qkvtutor/2\"");
    assert_load_error("", "t.yaml:1:1: the file is empty, a lesson needs at least format, tokens, X and weights");
    assert_load_error("# only a comment\n\n",
                      "t.yaml:1:1: the file is empty, a lesson needs at least format, tokens, X and weights");
    assert_load_error("[1, 2]\n", "t.yaml:1:1: the top level must be a mapping of keys like format:, tokens:, X:, "
                      "found a list");
    assert_load_error("format: qkvtutor/1\n---\nformat: qkvtutor/1\n",
                      "t.yaml:2:1: a second YAML document, a lesson file holds only one; remove the \"---\" or "
                      "split the file");
}

/* Numbers must be decimal and finite. */
static void errors_numbers(void **state)
{
    (void)state;
    assert_load_error("format: qkvtutor/1\ntokens: [a]\nX: [[.nan]]\n" RANDOM,
                      "t.yaml:3:6: \".nan\" is not allowed, numbers must be finite");
    assert_load_error("format: qkvtutor/1\ntokens: [a]\nX: [[-.inf]]\n" RANDOM,
                      "t.yaml:3:6: \"-.inf\" is not allowed, numbers must be finite");
    assert_load_error("format: qkvtutor/1\ntokens: [a]\nX: [[1e999]]\n" RANDOM,
                      "t.yaml:3:6: \"1e999\" is too large, numbers must be finite");
    assert_load_error("format: qkvtutor/1\ntokens: [a]\nX: [[0x10]]\n" RANDOM,
                      "t.yaml:3:6: \"0x10\" is not a number, expected a decimal like 0.5 or -1.2e-3");
    assert_load_error("format: qkvtutor/1\ntokens: [a]\nX: [[[1]]]\n" RANDOM,
                      "t.yaml:3:6: expected a number, found a list");
}

/* Sizes: 1..64 tokens of at most 32 bytes, d_k 1..64, seeds 32-bit. */
static void errors_sizes(void **state)
{
    (void)state;
    char y[1024] = "format: qkvtutor/1\ntokens: [";
    for (int k = 0; k < 65; k++)
        strcat(y, k ? ", t" : "t");
    strcat(y, "]\nX: [[1]]\n" RANDOM);
    assert_load_error(y, "t.yaml:2:9: 65 tokens, at most 64 are allowed");
    assert_load_error("format: qkvtutor/1\ntokens: [a, \"\"]\nX: [[1], [2]]\n" RANDOM,
                      "t.yaml:2:13: token 2 is empty, every token needs some text");
    assert_load_error("format: qkvtutor/1\ntokens: [a, 0123456789abcdef0123456789abcdefX]\nX: [[1], [2]]\n" RANDOM,
                      "t.yaml:2:13: token 2 is longer than 32 bytes (it has 33), shorten it");
    assert_load_error(HEAD "weights:\n  random: {seed: 42, scale: 0.3, d_k: 65}\n",
                      "t.yaml:8:39: d_k is 65, at most 64 are allowed");
    assert_load_error(HEAD "weights:\n  random: {seed: 42, d_k: 0}\n",
                      "t.yaml:8:27: d_k must be a whole number from 1 to 64, found \"0\"");
    assert_load_error(HEAD "weights:\n  random: {seed: -1, d_k: 3}\n",
                      "t.yaml:8:18: seed must be a whole number from 0 to 4294967295, found \"-1\"");
    assert_load_error(HEAD "weights:\n  random: {scale: 0.3, d_k: 3}\n",
                      "t.yaml:8:3: random is missing seed, write e.g. random: {seed: 42, scale: 0.3, d_k: 3}");
    assert_load_error(HEAD "weights:\n  random: {seed: 1, d_k: 3}\n  Wq: [[1]]\n",
                      "t.yaml:8:3: weights cannot mix random with written-out Wq, Wk, Wv; use one or the other");
}

/* Options and start take only their listed values. */
static void errors_options(void **state)
{
    (void)state;
    assert_load_error(HEAD RANDOM "options: {digits: 0}\n",
                      "t.yaml:9:19: digits must be a whole number from 1 to 6, found \"0\"");
    assert_load_error(HEAD RANDOM "options: {scale: sqrt}\n",
                      "t.yaml:9:18: scale must be none or sqrt_dk, found \"sqrt\"");
    assert_load_error(HEAD RANDOM "options: {softmax: [stable]}\n",
                      "t.yaml:9:20: softmax must be naive, stable or online, found a list");
    assert_load_error(HEAD RANDOM "start: 6\n", "t.yaml:9:8: start must be a step number from 1 to 5, found \"6\"");
}

/* Steps: stage names with suggestions, focus/expect/do indices in range. */
static void errors_steps(void **state)
{
    (void)state;
    assert_load_error(HEAD RANDOM "steps:\n  - stage: softmx\n",
                      "t.yaml:10:12: unknown stage \"softmx\" (did you mean \"softmax\"?), expected input, qkv, "
                      "scores, softmax or output");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: 7\n",
                      "t.yaml:10:12: stage 7 is out of range, expected 1 to 5 or input, qkv, scores, softmax or output");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: 6\n",
                      "t.yaml:10:12: stage \"6\" needs W_O: only lessons with heads: 2 or more, or d_out in random:, "
                      "have stage 6 (project)");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: project\n",
                      "t.yaml:10:12: stage \"project\" needs W_O: only lessons with heads: 2 or more, or d_out in "
                      "random:, have stage 6 (project)");
    assert_load_error(HEAD RANDOM "steps:\n  - say: hi\n",
                      "t.yaml:10:5: step 1 has no stage, expected stage: input, qkv, scores, softmax or output");
    assert_load_error(HEAD RANDOM "steps:\n  - {stage: scores, focus: \"S[4][1]\"}\n",
                      "t.yaml:10:28: row 4 is out of range in \"S[4][1]\", S has 3 rows");
    assert_load_error(HEAD RANDOM "steps:\n  - {stage: scores, focus: \"Z[1]\"}\n",
                      "t.yaml:10:28: unknown matrix in \"Z[1]\", expected X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O");
    assert_load_error(HEAD RANDOM "steps:\n  - {stage: scores, focus: \"Q[0]\"}\n",
                      "t.yaml:10:28: indices start at 1, found \"Q[0]\"");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: output\n    expect: {\"O[1][4]\": 0.5}\n",
                      "t.yaml:11:14: column 4 is out of range in \"O[1][4]\", O has 3 columns");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: qkv\n    expect: {\"A[1][1]\": 0.5}\n",
                      "t.yaml:11:14: A is computed at stage softmax, this step shows stage qkv; expect it at a "
                      "later step");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: qkv\n    do: \"Q[4] = K[1] * 5\"\n",
                      "t.yaml:11:9: row 4 is out of range: Q has rows 1 to 3");
}

/* Action syntax errors point at the column inside the do: text. */
static void errors_action_columns(void **state)
{
    (void)state;
    assert_load_error(HEAD RANDOM "steps:\n  - stage: qkv\n    do: Q[1] K[1]\n",
                      "t.yaml:11:14: expected \"=\" after Q[1], found \"K[1]\"");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: qkv\n    do: \"Q[1] K[1]\"\n",
                      "t.yaml:11:15: expected \"=\" after Q[1], found \"K[1]\"");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: qkv\n    do: [reset, \"Q[1] K[1]\"]\n",
                      "t.yaml:11:23: expected \"=\" after Q[1], found \"K[1]\"");
    /* columns count characters, not bytes: the 3-byte U+2212 before the problem is one column */
    assert_load_error(HEAD RANDOM "steps:\n  - stage: qkv\n    do: \"X[1] = [\xe2\x88\x92" "1, 0, 0, x]\"\n",
                      "t.yaml:11:28: expected a number, like 0.5 or -2");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: qkv\n    do:\n      - reset\n      -   Q[1] = [1, 2, x]\n",
                      "t.yaml:13:25: expected a number, like 0.5 or -2");
}

/* Aliases, anchors, deep nesting, bad UTF-8 and raw control characters are
 * refused before the document is built. */
static void errors_stream(void **state)
{
    (void)state;
    assert_load_error("format: qkvtutor/1\ntokens: &t [a]\n",
                      "t.yaml:2:9: YAML aliases and anchors are not allowed, write the values out");
    assert_load_error("a: [1]\nb: *a\n", "t.yaml:2:4: YAML aliases and anchors are not allowed, write the values out");
    char deep[256] = "format: qkvtutor/1\nX: ";
    for (int k = 0; k < 50; k++)
        strcat(deep, "[");
    assert_load_error(deep, "t.yaml:2:11: lists and mappings nested more than 8 deep, a lesson needs at most 5");
    assert_load_error("format: qkvtutor/1\ntitle: caf\xff\n",
                      "t.yaml:2:11: invalid UTF-8 in the file, lessons must be UTF-8 text");
    assert_load_error("format: qkvtutor/1\ntitle: \"\\ud800\"\n",
                      "t.yaml:2:11: this escape is not a Unicode character (a surrogate or above \\U0010FFFF), "
                      "write the character itself");
    assert_load_error("format: qkvtutor/1\ntitle: a\x1b[2J\n",
                      "t.yaml:2:9: control character U+001B in the file, lessons must be plain text (inside "
                      "double quotes, write it as an escape like \\x1b)");
    assert_load_error(HEAD RANDOM "title: \"a\\0b\"\n",
                      "t.yaml:9:8: title contains a NUL character (\\0), which a lesson cannot hold");
    assert_load_error("format: [1, 2\n", "t.yaml:2:1: YAML syntax error, did not find expected ',' or ']' while "
                      "parsing a flow sequence");
}

/* Files: unreadable paths and oversized buffers are refused unread. */
static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Every error of a file, in file order (issue 20): a tab (libyaml stops
 * there) after a full-width comma and point on one line; two steps' mistakes;
 * the first 20 of 25 bad numbers kept, all 25 counted. */
static void errors_all_in_file_order(void **state)
{
    (void)state;
    static DiagList list;
    Lesson l;
    const char *y = "format: qkvtutor/1\ntokens: [a, b]\nX:\n  - [0, 1]\n  - [1.0， 0．5]\n" RANDOM
                    "steps:\n  - {stage: qkv, focus: \"A[1]\"}\n  - {stage: scores, do: \"tempreature = 1\"}\n"
                    "extra:\n\t- 1\n";
    assert_false(lesson_load_buffer_all("t.yaml", y, strlen(y), &l, err, sizeof err, &list, 0));
    assert_int_equal(list.n, 5);
    assert_int_equal(list.total, 5);
    assert_string_equal(list.m[0].text,
                        "t.yaml:5:9: \"，\" in \"1.0， 0．5\" is U+FF0C FULLWIDTH COMMA, write \",\" instead");
    assert_string_equal(list.m[1].text,
                        "t.yaml:5:12: \"．\" in \"1.0， 0．5\" is U+FF0E FULLWIDTH FULL STOP, write \".\" instead");
    assert_true(starts(list.m[2].text, "t.yaml:9:25: A is computed at stage softmax"));
    assert_true(starts(list.m[3].text, "t.yaml:10:26: unknown action \"tempreature\" (did you mean \"temperature\"?)"));
    assert_true(starts(list.m[4].text, "t.yaml:12:1: a tab in the indentation"));
    assert_string_equal(err, list.m[0].text); /* the one-line form: the first in file order */
    char big[4096] = "format: qkvtutor/1\ntokens: [a]\nX: [[";
    for (int k = 0; k < 25; k++)
        strcat(big, k ? ", x" : "x");
    strcat(big, "]]\n" RANDOM);
    assert_false(lesson_load_buffer_all("t.yaml", big, strlen(big), &l, err, sizeof err, &list, 0));
    assert_int_equal(list.n, 20);
    assert_int_equal(list.total, 25);
    assert_string_equal(list.m[19].text, "t.yaml:3:63: \"x\" is not a number, expected a decimal like 0.5 or -1.2e-3");
}

/* A UTF-8 byte-order mark, as Windows editors save, is read past. */
static void bom_accepted(void **state)
{
    (void)state;
    Lesson l;
    const char *y = "\xef\xbb\xbf" "format: qkvtutor/1\ntokens: [a]\nX: [[1, 0]]\n" RANDOM;
    assert_true(load(y, &l));
    assert_int_equal(l.d_model, 2);
    lesson_free(&l);
}

static void files(void **state)
{
    (void)state;
    Lesson l;
    assert_false(lesson_load_file("/nonexistent/x.yaml", &l, err, sizeof err));
    assert_string_equal(err, "/nonexistent/x.yaml: cannot read: No such file or directory");
    assert_true(is_zero(&l, sizeof l));
    assert_false(lesson_load_buffer("big.yaml", "", LESSON_MAX_BYTES + 1, &l, err, sizeof err));
    assert_string_equal(err, "big.yaml: cannot read: too big (1048577 bytes), a lesson has at most 1048576 bytes");
    char path[] = "/tmp/qkv-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(TUTORIAL_A, f);
    fclose(f);
    assert_true(lesson_load_file(path, &l, err, sizeof err));
    assert_string_equal(l.file, path);
    assert_tutorial_a_weights(&l);
    lesson_free(&l);
    remove(path);
}

/* The tolerance is half a unit of the last written decimal. */
static void expect_tolerance(void **state)
{
    (void)state;
    Lesson l;
    assert_true(load(TUTORIAL_A "steps:\n  - stage: output\n    expect: {\"A[1]\": [0.873, 1.200, 2], "
                     "\"S[1][1]\": 1.5e-3, \"O[1][1]\": 12e1}\n", &l));
    const Expect *e = l.steps[0].expect;
    assert_near(e[0].tol[0], 0.0005, 1e-15);
    assert_near(e[0].tol[1], 0.0005, 1e-15);
    assert_near(e[0].tol[2], 0.0005, 1e-15); /* a whole number of A: to the lesson's 3 digits */
    assert_near(e[0].val[1], 1.2, 0);
    assert_near(e[1].tol[0], 0.00005, 1e-18);
    assert_near(e[1].val[0], 0.0015, 0);
    assert_near(e[2].tol[0], 5, 1e-12);
    lesson_free(&l);
    /* a whole number expected of a result means it to the lesson's digits
     * (M9); of X or a W it still means +-0.5 */
    assert_true(load(HEAD RANDOM "options: {digits: 2}\nsteps:\n  - stage: softmax\n    expect: {\"A[1]\": [1, 0, 0], "
                     "\"S[1][1]\": -2, \"X[1][1]\": 1, \"A[2][2]\": 1.0}\n", &l));
    e = l.steps[0].expect;
    assert_near(e[0].tol[0], 0.005, 1e-15);
    assert_near(e[0].tol[2], 0.005, 1e-15);
    assert_near(e[1].tol[0], 0.005, 1e-15);
    assert_near(e[2].tol[0], 0.5, 1e-15);
    assert_near(e[3].tol[0], 0.05, 1e-15);
    lesson_free(&l);
}

/* Build tutorial A's state (no scaling, naive softmax) up to softmax. */
static void tutorial_a_state(Lesson *l, Attn *a, const char *steps)
{
    char y[2048];
    snprintf(y, sizeof y, "%s%s", TUTORIAL_A, steps);
    if (!load(y, l))
        fail_msg("%s", err);
    assert_true(lesson_base(l, a));
    attn_run_to(a, STAGE_SOFTMAX);
}

#define MASKED HEAD RANDOM "options: {scale: none, softmax: naive, mask: causal}\n"

/* A masked score is expected as -inf (any of its spellings) and matches
 * only -inf; a number for it, or -inf for a visible score, is refused at
 * the place (M6). */
static void expect_masked_scores(void **state)
{
    (void)state;
    Lesson l;
    Attn a;
    char msg[256];
    assert_true(load(MASKED "steps:\n  - stage: softmax\n    expect: {\"S[1][2]\": -inf, "
                     "\"S[1][3]\": \"\xe2\x88\x92\xe2\x88\x9e\", \"S[2]\": [2.3, 0.4, -.inf]}\n", &l));
    assert_true(lesson_base(&l, &a));
    attn_run_to(&a, STAGE_SOFTMAX);
    const Expect *e = l.steps[0].expect;
    assert_true(isinf(e[0].val[0]) && e[0].val[0] < 0);
    assert_true(expect_check(&e[0], &a, 3, msg, sizeof msg));
    assert_true(expect_check(&e[1], &a, 3, msg, sizeof msg));
    a.mask = MASK_NONE; /* the same expectation against an unmasked score fails */
    attn_run_to(&a, STAGE_SOFTMAX);
    assert_false(expect_check(&e[0], &a, 3, msg, sizeof msg));
    attn_free(&a);
    lesson_free(&l);
    assert_load_error(MASKED "steps:\n  - stage: scores\n    expect: {\"S[1]\": [1.0]}\n",
                      "t.yaml:12:22: S[1] expects 3 numbers, one per column of S; this list has 1; S[1][2] to "
                      "S[1][3] are masked: write -inf there");
    assert_load_error(MASKED "steps:\n  - stage: scores\n    expect: {\"S[1][2]\": 0}\n",
                      "t.yaml:12:25: S[1][2] is masked at this step (key 2 comes after query 1), its score is -inf: "
                      "write -inf, or expect A there, which is 0");
    assert_load_error(TUTORIAL_A "steps:\n  - stage: scores\n    expect: {\"S[1][2]\": -inf}\n",
                      "t.yaml:12:25: S[1][2] is not masked at this step; -inf is only for a masked score (mask: causal, "
                      "a key after its query)");
}

/* A masked score can be asked: its answer is -inf (or −∞), which the
 * student types; a number is wrong (M7). Saving a student's "mask = causal"
 * keeps the lesson's later asks, so they must stay loadable. */
static void ask_masked_scores(void **state)
{
    (void)state;
    Lesson l;
    Attn a;
    char msg[256];
    assert_true(load(MASKED "steps:\n  - stage: scores\n    ask: [\"S[1][2]\", \"S[1]\"]\n", &l));
    assert_true(lesson_base(&l, &a));
    attn_run_to(&a, STAGE_SCORES);
    const Ask *q = l.steps[0].ask;
    assert_int_equal(ask_grade(&q[0], &a, 3, "-inf", msg, sizeof msg), GRADE_RIGHT);
    assert_int_equal(ask_grade(&q[0], &a, 3, "\xe2\x88\x92\xe2\x88\x9e", msg, sizeof msg), GRADE_RIGHT);
    assert_int_equal(ask_grade(&q[0], &a, 3, "0", msg, sizeof msg), GRADE_WRONG);
    char row[64];
    snprintf(row, sizeof row, "%.3f, -inf, -inf", MAT_AT(&a.m[M_S], 0, 0));
    assert_int_equal(ask_grade(&q[1], &a, 3, row, msg, sizeof msg), GRADE_RIGHT);
    assert_int_equal(ask_grade(&q[1], &a, 3, "-inf, -inf, -inf", msg, sizeof msg), GRADE_WRONG);
    attn_free(&a);
    lesson_free(&l);
}

/* expect_check passes within tolerance and explains a miss in one line. */
static void expect_check_messages(void **state)
{
    (void)state;
    Lesson l;
    Attn a;
    char msg[256];
    tutorial_a_state(&l, &a, "steps:\n  - stage: output\n    expect: {\"A[1]\": [0.313, 0.337, 0.350], "
                     "\"A[1][2]\": 0.873, \"O[1]\": [0, 0, 0], \"A[2][2]\": 0.3200}\n");
    const Expect *e = l.steps[0].expect;
    assert_true(expect_check(&e[0], &a, 3, msg, sizeof msg));
    assert_false(expect_check(&e[1], &a, 3, msg, sizeof msg));
    assert_string_equal(msg, "A[1][2] is 0.337, expected 0.873 (within 0.0005)");
    assert_false(expect_check(&e[2], &a, 3, msg, sizeof msg));
    assert_string_equal(msg, "O is not computed at this step, it needs stage output");
    assert_false(expect_check(&e[3], &a, 2, msg, sizeof msg));
    assert_string_equal(msg, "A[2][2] is 0.3199, expected 0.3200 (within 0.00005)");
    MAT_AT(&a.m[M_A], 0, 1) = NAN;
    assert_false(expect_check(&e[0], &a, 3, msg, sizeof msg));
    assert_string_equal(msg, "A[1][2] is NaN, expected 0.337 (within 0.0005)");
    attn_free(&a);
    lesson_free(&l);
}

/* The Unicode minus U+2212 (what the screen and --dump print) is read
 * wherever a lesson holds a number: X, weights, overrides and expect,
 * with the same tolerance as '-'. */
static void unicode_minus_everywhere(void **state)
{
    (void)state;
    Lesson l;
    const char *y = "format: qkvtutor/1\ntokens: [a, b]\nX: [[\xe2\x88\x92" "0.5, 1], [0, \xe2\x88\x92" "2e\xe2\x88\x92" "1]]\n"
                    "weights: {Wq: [[1, 0], [0, \xe2\x88\x92" "1]], Wk: [[1, 0], [0, 1]], Wv: [[1, 0], [0, 1]]}\n"
                    "overrides: {\"K[2]\": [\xe2\x88\x92" "0.169, 0.5]}\n"
                    "steps:\n  - stage: qkv\n    expect: {\"Q[1][1]\": \xe2\x88\x92" "0.500, \"K[2]\": [\xe2\x88\x92" "0.169, 0.500]}\n";
    if (!load(y, &l))
        fail_msg("%s", err);
    assert_true(MAT_AT(&l.X, 0, 0) == -0.5 && MAT_AT(&l.X, 1, 1) == -0.2);
    assert_true(MAT_AT(&l.Wq, 1, 1) == -1);
    assert_true(MAT_AT(&l.over[1], 1, 0) == -0.169);
    const Expect *e = l.steps[0].expect;
    assert_true(e[0].val[0] == -0.5);
    assert_near(e[0].tol[0], 0.0005, 1e-15);
    assert_true(e[1].val[0] == -0.169);
    lesson_free(&l);
    /* two signs are still not a number */
    assert_load_error(HEAD "weights:\n  random: {seed: 42, scale: \xe2\x88\x92-0.3, d_k: 3}\n",
                      "t.yaml:8:29: \"\xe2\x88\x92-0.3\" is not a number, expected a decimal like 0.5 or -1.2e-3");
}

/* Number punctuation typed with a full-width input method, and decimal
 * commas, are named with the fix. */
static void errors_number_punctuation(void **state)
{
    (void)state;
    assert_load_error("format: qkvtutor/1\ntokens: [a]\nX: [[1.0\xef\xbc\x8c" "0.0]]\n" RANDOM,
                      "t.yaml:3:9: \"\xef\xbc\x8c\" in \"1.0\xef\xbc\x8c" "0.0\" is U+FF0C FULLWIDTH COMMA, write \",\" "
                      "instead");
    assert_load_error("format: qkvtutor/1\ntokens: [a]\nX: [[\"1\xef\xbc\x8e" "5\"]]\n" RANDOM,
                      "t.yaml:3:8: \"\xef\xbc\x8e\" in \"1\xef\xbc\x8e" "5\" is U+FF0E FULLWIDTH FULL STOP, write \".\" "
                      "instead");
    assert_load_error(HEAD RANDOM "overrides: {\"Q[1]\": [0.5, 0,25, 1]}\n",
                      "t.yaml:9:27: Q[1] needs d_k = 3 numbers, it has 4; \"0,25\" looks like a decimal comma, "
                      "write 0.25");
    assert_load_error(HEAD RANDOM "steps:\n  - stage: input\n    expect: {\"X[3]\": [0.0, 0.0, 1.0, 0,2]}\n",
                      "t.yaml:11:38: X[3] expects 4 numbers, one per column of X; this list has 5; \"0,2\" looks like "
                      "a decimal comma, write 0.2");
    /* a comma with a space after it is a real separator: no hint */
    assert_load_error(HEAD RANDOM "steps:\n  - stage: input\n    expect: {\"X[3]\": [0.0, 0.0, 1.0, 0, 2]}\n",
                      "t.yaml:11:22: X[3] expects 4 numbers, one per column of X; this list has 5");
}

/* A focus, like an expect, must be computed at its step's stage. */
static void errors_focus_stage(void **state)
{
    (void)state;
    assert_load_error(HEAD RANDOM "steps:\n  - stage: qkv\n    focus: \"A[1]\"\n",
                      "t.yaml:11:12: A is computed at stage softmax, this step shows stage qkv; focus on it at a "
                      "later step");
    Lesson l;
    assert_true(load(HEAD RANDOM "steps:\n  - stage: softmax\n    focus: \"A[1]\"\n  - stage: 2\n    focus: \"K[2][1]\"\n",
                     &l));
    assert_int_equal(l.steps[1].focus.kind, FOCUS_CELL);
    lesson_free(&l);
}

/* A wrong row names every wrong cell, and says how many more when the
 * message is full. */
static void expect_check_all_wrong_cells(void **state)
{
    (void)state;
    Lesson l;
    Attn a;
    char msg[256], small[120];
    tutorial_a_state(&l, &a, "steps:\n  - stage: softmax\n    expect: {\"A[1]\": [0.873, 0.337, 0.052]}\n");
    const Expect *e = l.steps[0].expect;
    assert_false(expect_check(&e[0], &a, 3, msg, sizeof msg));
    assert_string_equal(msg, "A[1][1] is 0.313, expected 0.873 (within 0.0005); "
                             "A[1][3] is 0.350, expected 0.052 (within 0.0005)");
    assert_false(expect_check(&e[0], &a, 3, small, sizeof small));
    assert_string_equal(small, "A[1][1] is 0.313, expected 0.873 (within 0.0005); and 1 more");
    attn_free(&a);
    lesson_free(&l);
}

/* A number as the screen and --dump print it (fmt_num: U+2212 for minus)
 * reads back through num_parse with the value and decimals shown. */
static void dump_numbers_read_back(void **state)
{
    (void)state;
    static const double vals[] = {-0.169, 0.873, -2.870, -1e-4, 12.5};
    FmtOpt o = {3, false, false};
    for (size_t k = 0; k < sizeof vals / sizeof *vals; k++) {
        char buf[64];
        double v;
        int dec;
        fmt_num(vals[k], &o, buf, sizeof buf);
        if (num_parse(buf, &v, &dec) != NUM_OK)
            fail_msg("\"%s\" (from %g) does not read back", buf, vals[k]);
        assert_int_equal(dec, 3);
        assert_near(v, vals[k], 0.0005);
    }
}

/* An expectation is described with the decimals it was written with. */
static void expect_describe_written(void **state)
{
    (void)state;
    Lesson l;
    char buf[128];
    assert_true(load(TUTORIAL_A "steps:\n  - stage: output\n    expect: {\"A[1]\": [0.873, 0.08, 2], "
                     "\"S[1][2]\": \xe2\x88\x92" "0.0060, \"O[1][1]\": 1.5e-3}\n", &l));
    expect_describe(&l.steps[0].expect[0], buf, sizeof buf);
    assert_string_equal(buf, "A[1] = [0.873, 0.08, 2.000]"); /* 2 of A means 2.000 (digits 3) */
    expect_describe(&l.steps[0].expect[1], buf, sizeof buf);
    assert_string_equal(buf, "S[1][2] = -0.0060");
    expect_describe(&l.steps[0].expect[2], buf, sizeof buf);
    assert_string_equal(buf, "O[1][1] = 0.0015");
    expect_describe(&l.steps[0].expect[0], buf, 10);
    assert_string_equal(buf, "A[1] = [0");
    lesson_free(&l);
}

/* A saved lesson is never larger than the loader accepts: 130 steps of
 * 8,000-character narration load (1,043,000 bytes), but written out with
 * their weights and the edit log they pass LESSON_MAX_BYTES, so the save is
 * refused with why and what to do, nothing is written, and the session
 * keeps its edit. */
static void save_never_too_big(void **state)
{
    (void)state;
    size_t cap = LESSON_MAX_BYTES + 1, n = 0;
    char *buf = malloc(cap), msg[1024];
    assert_non_null(buf);
    n += (size_t)snprintf(buf, cap, "%s", HEAD "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\nsteps:\n");
    while (n + 8100 < LESSON_MAX_BYTES - 4000) {
        n += (size_t)snprintf(buf + n, cap - n, "  - stage: input\n    say: \"");
        for (int k = 0; k < 800; k++)
            n += (size_t)snprintf(buf + n, cap - n, "attention ");
        n += (size_t)snprintf(buf + n, cap - n, "\"\n");
    }
    Lesson l;
    assert_true(lesson_load_buffer("big.yaml", buf, n, &l, msg, sizeof msg));
    free(buf);
    Session s;
    assert_true(session_init(&s, &l));
    assert_true(session_act_text(&s, "X[1][1] = 2", msg, sizeof msg));
    char dir[] = "/tmp/qkv-save-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/big-edited.yaml", dir);
    size_t len = 0;
    char *text = lesson_save_text(&s, &len);
    assert_non_null(text);
    free(text);
    assert_true(len > LESSON_MAX_BYTES);
    char want[512];
    snprintf(want, sizeof want,
             "cannot save %s: with its edits the lesson is %zu bytes, and a lesson file holds at most 1048576, so it "
             "could not be opened again; nothing was written and the edits are kept. Shorten the lesson's narration, "
             "then save", path, len);
    assert_false(lesson_save(&s, path, msg, sizeof msg));
    assert_string_equal(msg, want);
    assert_int_equal(access(path, F_OK), -1);  /* nothing written, no temporary left */
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(s.nedits, 1);             /* the edit is kept */
    session_free(&s);
    lesson_free(&l);
}

/* schema_fill writes what snprintf writes, for the formats it fills itself
 * (one %d or %s, English or Chinese, cut to the buffer) and the ones it
 * leaves to snprintf. */
static void fill_is_snprintf(void **state)
{
    static const char *const fmts[] = {" in step %d", "第 %d 步中的", "token %d", "%d", "x%dy", "%% %d", "%3d", "%1$d"};
    static const int nums[] = {0, 7, 12, -5, 2147483647, -2147483647 - 1};
    static const size_t lens[] = {1, 2, 5, 9, 12, 40};
    char got[64], want[64];
    for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++)
        for (size_t k = 0; k < sizeof nums / sizeof *nums; k++)
            for (size_t n = 0; n < sizeof lens / sizeof *lens; n++) {
                memset(got, 'z', sizeof got);
                schema_fill(got, lens[n], fmts[f], NULL, nums[k]);
                snprintf(want, lens[n], fmts[f], nums[k]);
                assert_string_equal(got, want);
            }
    static const char *const sfmts[] = {" in %s", "%s 中的", "%s", "[%s]%%"};
    for (size_t f = 0; f < sizeof sfmts / sizeof *sfmts; f++)
        for (size_t n = 0; n < sizeof lens / sizeof *lens; n++) {
            schema_fill(got, lens[n], sfmts[f], "question", 0);
            snprintf(want, lens[n], sfmts[f], "question");
            assert_string_equal(got, want);
        }
    schema_fill(got, sizeof got, " in step %d", NULL, 12);
    assert_string_equal(got, " in step 12");
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_lessons_load),
        cmocka_unit_test(fill_is_snprintf),
        cmocka_unit_test(random_weights_match_numpy),
        cmocka_unit_test(random_d_v),
        cmocka_unit_test(written_weights),
        cmocka_unit_test(defaults),
        cmocka_unit_test(script),
        cmocka_unit_test(overrides_and_base),
        cmocka_unit_test(tokens_and_escapes),
        cmocka_unit_test(errors_shapes),
        cmocka_unit_test(errors_unknown_keys),
        cmocka_unit_test(errors_top_level),
        cmocka_unit_test(errors_numbers),
        cmocka_unit_test(errors_sizes),
        cmocka_unit_test(errors_options),
        cmocka_unit_test(errors_steps),
        cmocka_unit_test(errors_action_columns),
        cmocka_unit_test(errors_stream),
        cmocka_unit_test(errors_all_in_file_order),
        cmocka_unit_test(bom_accepted),
        cmocka_unit_test(files),
        cmocka_unit_test(expect_tolerance),
        cmocka_unit_test(expect_masked_scores),
        cmocka_unit_test(ask_masked_scores),
        cmocka_unit_test(expect_check_messages),
        cmocka_unit_test(unicode_minus_everywhere),
        cmocka_unit_test(dump_numbers_read_back),
        cmocka_unit_test(errors_number_punctuation),
        cmocka_unit_test(errors_focus_stage),
        cmocka_unit_test(expect_check_all_wrong_cells),
        cmocka_unit_test(expect_describe_written),
        cmocka_unit_test(save_never_too_big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
