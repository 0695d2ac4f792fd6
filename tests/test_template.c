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
#include "words/live.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "lesson/template.h"
#include "words/narrate.h"
#include "core/grad.h"

#define HEAD "format: qkvtutor/1\n" \
             "tokens: [我, love, 猫]\n" \
             "X:\n  - [1, 0, 0, 0]\n  - [0, 1, 0, 0]\n  - [0, 0, 1, 0.2]\n" \
             "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n" \
             "options: {scale: none, softmax: naive}\n"
/* line 10 */
#define STEPS "steps:\n"

static char err[LESSON_ERR_MAX];

/* Every message about an unknown name lists all that work. */
#define NAMES "a cell like {S[1][2]}, a row like {A[1]}, {token[2]}, {d_k}, {d_v}, {d_model}, {n}, {heads}, " \
              "{kv_heads}, {cache}, {T}, {lr}, {window}, {offset}, {block}, {loss}, {steps}, arithmetic like {-ln(A[1][3])} with + - * / ( ) and exp, ln, sqrt, shown, " \
              "sum(A[1]), max(A[1]), sum(A[*][1]), max(A[*][1]), or a fixed figure like {=0.695}; write {{ for " \
              "a literal {"
#define MALFORMED "write a reference like {A[1][2]}, arithmetic like {-ln(A[1][3])} or {sum(A[*][1])}, or " \
                  "{=0.695} for a fixed figure"

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
    TplOpt o = {3, false, NULL, NULL, LANG_EN}, a = {3, true, NULL, NULL, LANG_EN}, two = {2, false, NULL, NULL, LANG_EN};
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
    TplOpt o = {3, false, hide_s12, NULL, LANG_EN};
    assert_expands(f, "{S[1][2]}; {S[1]}; {S[1][1]}", &o, "?; −0.066, ?, 0.044; −0.066");
}

/* A small buffer: cut at a character boundary, the needed length returned. */
static void test_expand_cut(void **state)
{
    Fix *f = *state;
    TplOpt o = {3, false, NULL, NULL, LANG_EN};
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

/* Expressions: the state's scalars, arithmetic, functions, rows and
 * columns, fixed figures; Chinese joins a row with 、; a masked cell is −∞. */
static void test_expressions(void **state)
{
    Fix *f = *state;
    TplOpt o = {3, false, NULL, NULL, LANG_EN}, a = {3, true, NULL, NULL, LANG_EN},
           zh = {3, false, NULL, NULL, LANG_ZH};
    assert_expands(f, "{sum(A[*][1])}; {-ln(A[1][3])}", &o, "1.080; 1.051");
    assert_expands(f, "{sum(A[1])} {max(S[1])} {max(A[*][2])} {sum(S[*][1])}", &o, "1.000 0.044 0.337 0.052");
    assert_expands(f, "{exp(S[1][2]) / (1 + 2)} {sqrt(d_k)} {2 * -S[1][1]}", &o, "0.335 1.732 0.132");
    /* shown( ): a value as the screen prints it, for hand checks on the screen's digits */
    assert_expands(f, "{shown(S[1][1]) * 1000} {S[1][1] * 1000}", &o, "−66.000 −65.924");
    assert_expands(f, "{sum(shown(A[*][1]))} {max( shown( A[1] ) )} {shown(A[1][1]) + shown(A[1][2])}", &o,
                   "1.080 0.350 0.650");
    assert_expands(f, "{d_k * 2} {n - 5} {heads} {steps} {(n + 1) / 2}", &o, "6 −2 1 0 2.000");
    /* a setting alone prints as set, like the header (T=0.5); arithmetic on it as any number */
    assert_expands(f, "{T} {lr} {1 / T}", &o, "1 0.5 1.000");
    assert_expands(f, "{n - 5} {S[1][1] - 1}", &a, "-2 -1.066");
    assert_expands(f, "{=0.695} {= -1.50} {=3}", &o, "0.695 −1.50 3");
    assert_expands(f, "{=-1.50}", &a, "-1.50");
    assert_expands(f, "{A[1]}; {A[*][1]}", &zh, "0.313、0.337、0.350; 0.313、0.380、0.387");
    assert_expands(f, "{A[1]}", &o, "0.313, 0.337, 0.350");
    /* not computed yet: the whole expression is "…", also the loss without a target */
    assert_expands(f, "{loss} {1 + loss}", &o, "… …");
    f->a.reached = STAGE_SCORES;
    assert_expands(f, "{A[1][1] + 1} {S[1][2] + 1}", &o, "… 1.006");
    /* a masked cell is −∞ as the matrix shows it */
    f->a.mask = MASK_CAUSAL;
    attn_run_to(&f->a, STAGE_SOFTMAX);
    assert_expands(f, "{S[1]}; {S[1][3]}", &o, "−0.066, −∞, −∞; −∞");
    assert_expands(f, "{S[1]}", &a, "-0.066, -inf, -inf");
}

static bool hide_a11(const void *ctx, MatId m, int i, int j)
{
    (void)ctx;
    return m == M_A && i == 0 && j == 0;
}

/* Anything computed from a hidden cell is "?" whole; the loss of a target
 * on that row too. */
static void test_expressions_hidden(void **state)
{
    Fix *f = *state;
    TplOpt o = {3, false, hide_a11, NULL, LANG_EN};
    assert_expands(f, "{-ln(A[1][1])} {sum(A[*][1])} {max(A[1])} {sum(A[*][2])} {A[1]}", &o,
                   "? ? ? 0.983 ?, 0.337, 0.350");
    double t[3] = {1, 0, 0};
    assert_true(grad_set_target(&f->a, 0, 1, t));
    o.hidden = NULL;
    assert_expands(f, "{loss} {-ln(A[2][1])} {steps}", &o, "0.968 0.968 0");
    assert_true(grad_descend(&f->a, 2));
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_expands(f, "{steps}", &o, "2");
    assert_true(grad_set_target(&f->a, 0, 0, t));
    o.hidden = hide_a11;
    assert_expands(f, "{loss}", &o, "?");
}

/* No literal state numbers: a decimal written out that the state holds to
 * the shown digits is found, named with the template that gives it. */
static void assert_literal(Fix *f, const char *text, const char *lit, const char *ref)
{
    TplLiteral hit;
    bool found = template_literal_find(text, 0, &f->a, 3, false, &hit);
    if (!lit) {
        if (found)
            fail_msg("%s: found %s (%s)", text, hit.lit, hit.ref);
        return;
    }
    if (!found)
        fail_msg("%s: %s not found", text, lit);
    assert_string_equal(hit.lit, lit);
    assert_string_equal(hit.ref, ref);
    assert_memory_equal(text + hit.off, lit, strlen(lit));
}

static void test_literals(void **state)
{
    Fix *f = *state;
    assert_literal(f, "row 1 is 0.313 and more", "0.313", "A[1][1]");
    assert_literal(f, "score −0.066 here", "−0.066", "S[1][1]");
    assert_literal(f, "0.217 − 0.066", "0.066", "S[1][1]"); /* a sign may stand before it */
    assert_literal(f, "column 1 sums to 1.080", "1.080", "sum(A[*][1])");
    assert_literal(f, "S's row 1 sums to −0.017", "−0.017", "sum(S[1])");
    assert_literal(f, "{A[1][1]} then 0.337", "0.337", "A[1][2]");
    assert_literal(f, "q = 0.149", "0.149", "Q[1][1]");
    /* not state numbers: templates, fixed figures, other digits, whole
     * numbers, a minus the value does not have, A's row sum (always 1) */
    assert_literal(f, "{A[1][1]} {=0.313} {{0.5} 0.31 0.3130 3 step 12 −0.313", NULL, NULL);
    assert_literal(f, "x1.080 0.5 1.0", NULL, NULL);
    /* T once it is set, lr and the loss once there is a target */
    f->a.temp = 0.5;
    assert_literal(f, "divided by T = 0.5", "0.5", "T");
    double t[3] = {1, 0, 0};
    assert_true(grad_set_target(&f->a, 0, 1, t));
    f->a.temp = 1.0;
    attn_run_to(&f->a, STAGE_OUTPUT);
    assert_literal(f, "a step of 0.5 times the gradient", "0.5", "lr");
    assert_literal(f, "the loss is 0.968", "0.968", "loss");
    /* --check's line, at its place in the file */
    char buf[512] = "";
    FILE *fp = fmemopen(buf, sizeof buf, "w");
    TextAt at = {12, 9, 1};
    assert_int_equal(template_literals_report(fp, "t.yaml", "A is 0.313, 0.337", &at, &f->a, 3, false), 2);
    fclose(fp);
    assert_string_equal(buf, "t.yaml:12:16: 0.313 is A[1][1] here; write {A[1][1]} so the text stays true after an "
                             "edit (or {=0.313} for a fixed figure)\n"
                             "t.yaml:12:23: 0.337 is A[1][2] here; write {A[1][2]} so the text stays true after an "
                             "edit (or {=0.337} for a fixed figure)\n");
}

/* A good lesson quoting every kind loads; {{ needs no reference; about:
 * may quote the scalars. */
static void test_load_ok(void **state)
{
    (void)state;
    Lesson l;
    bool ok = try_load("about: \"{token[3]} has {X[3][4]} in feature {d_model}; {{not a ref} T={T}\"\n"
                       STEPS
                       "  - stage: qkv\n"
                       "    say: \"q₁ = {Q[1]}, {Wq[1][1]}, {d_k}, {n}\"\n"
                       "  - stage: scores\n"
                       "    say: {zh: \"分数 {S[1][2]}\", en: \"score {QKt[1][2]}\"}\n"
                       "  - stage: softmax\n"
                       "    do: target A[1] = 2\n"
                       "    say: \"{loss} {steps} {T} {lr} {heads} {d_v} {sum(A[*][1]) / n} {=0.5}\"\n", &l);
    if (!ok)
        fail_msg("%s", err);
    assert_string_equal(l.steps[1].say.s[LANG_ZH], "分数 {S[1][2]}"); /* kept as written */
    char *about = lesson_about_text(&l, LANG_EN, false);
    assert_string_equal(about, "猫 has 0.200 in feature 4; {not a ref} T=1");
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
                      "t.yaml:12:11: unknown name {foo} in say, expected " NAMES);
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
    /* expressions: the "{" of the template */
    assert_load_error(STEPS "  - stage: softmax\n    say: \"sum {sum(A[*][4])}\"\n",
                      "t.yaml:12:15: column 4 is out of range in {A[*][4]}, A has 3 columns");
    assert_load_error(STEPS "  - stage: softmax\n    say: \"x {1 + Q[9][1]}\"\n",
                      "t.yaml:12:13: row 9 is out of range in {Q[9][1]}, Q has 3 rows");
    assert_load_error(STEPS "  - stage: scores\n    say: \"x {-ln(A[1][3])}\"\n",
                      "t.yaml:12:13: {A[1][3]} quotes A, which is computed at stage softmax; this step shows stage "
                      "scores, quote it at a later step");
    assert_load_error(STEPS "  - stage: softmax\n    say: \"{2 * tmp}\"\n",
                      "t.yaml:12:11: unknown name {tmp} in say, expected " NAMES);
    assert_load_error(STEPS "  - stage: softmax\n    say: \"{log(A[1][1])}\"\n",
                      "t.yaml:12:11: unknown function log( ) in {log(A[1][1])}, the functions are exp( ), ln( ), "
                      "sqrt( ), shown( ), sum( ) and max( )");
    assert_load_error(STEPS "  - stage: softmax\n    say: \"{S[1][1] +}\"\n",
                      "t.yaml:12:11: {S[1][1] +} in say is not an expression: it ends where a number, a name or "
                      "\"(\" should follow; " MALFORMED);
    assert_load_error(STEPS "  - stage: softmax\n    say: \"{(S[1][1] + 1}\"\n",
                      "t.yaml:12:11: {(S[1][1] + 1} in say is not an expression: a \")\" is missing; " MALFORMED);
    assert_load_error(STEPS "  - stage: softmax\n    say: \"{A[1] * 2}\"\n",
                      "t.yaml:12:11: {A[1] * 2} in say is not an expression: arithmetic takes numbers: a cell like "
                      "A[1][2], not a row, column or token; " MALFORMED);
    assert_load_error(STEPS "  - stage: softmax\n    say: \"{sum(A[1][1])}\"\n",
                      "t.yaml:12:11: {sum(A[1][1])} in say is not an expression: sum( ) and max( ) take a row like "
                      "A[1] or a column like A[*][1]; " MALFORMED);
    assert_load_error(STEPS "  - stage: softmax\n    say: \"{S[1][1] S[1][2]}\"\n",
                      "t.yaml:12:11: {S[1][1] S[1][2]} in say is not an expression: something follows the value; "
                      "join values with + - * /; " MALFORMED);
    assert_load_error(STEPS "  - stage: softmax\n    say: \"{=0.69x}\"\n",
                      "t.yaml:12:11: {=0.69x} in say is not a number; a fixed figure is written like {=0.695}");
    assert_load_error(STEPS "  - stage: scores\n    do: target A[1] = 2\n    say: \"{loss}\"\n",
                      "t.yaml:13:11: {loss} is the training loss, computed at stage softmax; this step shows stage "
                      "scores, quote it at a later step");
    assert_load_error("about: \"{loss}\"\n",
                      "t.yaml:10:9: {loss} is the training loss, computed at stage softmax once a target is set; "
                      "about is shown before the first step, quote it at a step");
    /* question: only with ask:, its templates checked like say:'s */
    assert_load_error(STEPS "  - stage: softmax\n    question: \"What is it?\"\n",
                      "t.yaml:12:5: question gives the words of an ask, and this step asks nothing; add ask: "
                      "\"A[1][2]\" or move the text to say:");
    assert_load_error(STEPS "  - stage: scores\n    ask: \"S[1][2]\"\n    question: {en: ok, zh: \"{A[1][2]} 是多少？\"}\n",
                      "t.yaml:13:29: {A[1][2]} quotes A, which is computed at stage softmax; this step shows stage "
                      "scores, quote it at a later step");
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
                      "before the first step and can quote only X, Wq, Wk, Wv, tokens, d_k, d_v, d_model, n, heads, kv_heads, cache, T, "
                      "lr, window, offset, block and steps");
    assert_load_error("about: {en: ok, zh: \"{Q[1]}\"}\n",
                      "t.yaml:10:22: {Q[1]} quotes Q, which is computed at stage qkv; about is shown "
                      "before the first step and can quote only X, Wq, Wk, Wv, tokens, d_k, d_v, d_model, n, heads, kv_heads, cache, T, "
                      "lr, window, offset, block and steps");
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
                       "    ask: [\"A[1]\", \"A[2][3]\"]\n"
                       "    question: {zh: \"“{token[1]}”的注意力权重是多少？\", en: \"What are {token[1]}'s weights?\"}\n",
                       &l);
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
        !strstr(text, "\"权重 {A[1]}\"") || !strstr(text, "\"What are {token[1]}'s weights?\""))
        fail_msg("templates not kept:\n%s", text);
    /* the about: is the lesson's; the edits are named at their step, those before the reset left out */
    if (!strstr(text, "en: \"Three tokens\"") || !strstr(text, "  edited:\n  - \"Q[1] = K[1] * 5\"\n  - \"scale = "
                                                                 "sqrt_dk\"\n") || strstr(text, "X[1][1] = 3"))
        fail_msg("the edits are not named at their step:\n%s", text);
    /* it loads again, and its narration quotes its own (saved) numbers */
    if (!lesson_load_file(path, &back, e, sizeof e))
        fail_msg("%s", e);
    assert_int_equal(back.steps[1].nask, 2); /* the exercises are kept */
    assert_int_equal(back.steps[1].ask[1].mat, M_A);
    assert_int_equal(back.steps[1].ask[1].i, 1);
    assert_int_equal(back.steps[1].ask[1].j, 2);
    assert_string_equal(back.steps[1].question.s[LANG_ZH], "“{token[1]}”的注意力权重是多少？");
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
        cmocka_unit_test_setup_teardown(test_expressions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expressions_hidden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_literals, setup, teardown),
        cmocka_unit_test(test_load_ok),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_save_keeps_templates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
