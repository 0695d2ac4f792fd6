/* test_ask.c - exercises (lesson/ask.h and the session's records in
 * lesson/live.h): `ask:` parsed and checked at load with exact messages,
 * answers graded within max(1 %, one unit of the last shown digit), the
 * Unicode minus and commas or spaces accepted, hidden cells, answering,
 * revealing and the tally. Figures: lesson 1 (tutorial A). */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "lessonfix.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/embedded.h"
#include "text/i18n.h"
#include "lesson/lesson.h"
#include "words/live.h"
#include "lesson/session.h"

#define HEAD "format: qkvtutor/1\n" \
             "tokens: [我, love, 猫]\n" \
             "X:\n  - [1, 0, 0, 0]\n  - [0, 1, 0, 0]\n  - [0, 0, 1, 0.2]\n" \
             "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n" \
             "options: {scale: none, softmax: naive}\n" \
             "steps:\n"
/* steps start at line 11 */
#define ASKS "  - stage: qkv\n" \
             "  - stage: scores\n" \
             "    ask: \"S[1][2]\"\n" \
             "    say: \"score₁₂ = {S[1][2]}, row {S[1]}\"\n" \
             "  - stage: softmax\n" \
             "    ask: [\"A[1]\", \"A[2][2]\"]\n" \
             "  - stage: output\n" \
             "    ask: \"O[3][1]\"\n" \
             "  - stage: output\n"
enum { ST_QKV, ST_SCORES, ST_SOFTMAX, ST_OUTPUT, ST_LAST };

static char err[LESSON_ERR_MAX];

static bool try_load(const char *steps, Lesson *l)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s%s", HEAD, steps);
    return lesson_load_buffer("t.yaml", buf, strlen(buf), l, err, sizeof err);
}

static void assert_load_error(const char *steps, const char *want)
{
    Lesson l;
    if (try_load(steps, &l)) {
        lesson_free(&l);
        fail_msg("loaded, expected: %s", want);
    }
    assert_string_equal(err, want);
}

typedef LessonFix Fix;

static int setup(void **state)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s%s", HEAD, ASKS);
    *state = lessonfix_open("t.yaml", buf);
    return *state ? 0 : -1;
}

static void test_load(void **state)
{
    Fix *f = *state;
    const Step *st = &f->l.steps[ST_SOFTMAX];
    assert_int_equal(f->l.steps[ST_SCORES].nask, 1);
    assert_int_equal(st->nask, 2);
    assert_int_equal(st->ask[0].mat, M_A);
    assert_int_equal(st->ask[0].i, 0);
    assert_int_equal(st->ask[0].j, -1);
    assert_int_equal(st->ask[1].i, 1);
    assert_int_equal(st->ask[1].j, 1);
    assert_int_equal(st->ask[1].line, 16);
    assert_int_equal(st->ask[1].col, 19);
}

static void test_load_errors(void **state)
{
    (void)state;
    assert_load_error("  - stage: qkv\n    ask: \"S[1][2]\"\n",
                      "t.yaml:12:10: S is computed at stage scores, this step shows stage qkv; ask it at a later step");
    assert_load_error("  - stage: scores\n    ask: \"Z[1]\"\n",
                      "t.yaml:12:10: unknown matrix in \"Z[1]\", expected X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O");
    assert_load_error("  - stage: scores\n    ask: [\"S[1][2]\", \"S[4][1]\"]\n",
                      "t.yaml:12:22: row 4 is out of range in \"S[4][1]\", S has 3 rows");
    assert_load_error("  - stage: output\n    ask: \"O[1][4]\"\n",
                      "t.yaml:12:10: column 4 is out of range in \"O[1][4]\", O has 3 columns");
    assert_load_error("  - stage: output\n    ask: \"O[0][1]\"\n",
                      "t.yaml:12:10: indices start at 1, found \"O[0][1]\"");
    assert_load_error("  - stage: output\n    ask: \"O 1 2\"\n",
                      "t.yaml:12:10: ask must be a row like \"A[1]\" or a cell like \"S[1][2]\", found \"O 1 2\"");
    assert_load_error("  - stage: output\n    ask: \"Wq[1][1]\"\n",
                      "t.yaml:12:10: \"Wq[1][1]\" asks for Wq, which the lesson gives; ask for a result: "
                      "Q, K, V, QKt, S, A or O");
    assert_load_error("  - stage: output\n    ask: {a: 1}\n",
                      "t.yaml:12:10: ask must be a cell like \"S[1][2]\", a row like \"A[1]\", or a list of them, "
                      "found a mapping");
    assert_load_error("  - stage: output\n    ask: [\"O[1]\", [1]]\n",
                      "t.yaml:12:19: ask must be text, found a list");
    assert_load_error("  - stage: output\n    ask: [\"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", "
                      "\"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\", \"O[1]\"]\n",
                      "t.yaml:12:10: 17 asks, at most 16 are allowed in one step");
}

static void test_tolerance(void **state)
{
    (void)state;
    assert_near(ask_tolerance(0.0058, 3), 0.001, 1e-9);   /* one unit of 0.006 */
    assert_near(ask_tolerance(3.013, 3), 0.03013, 1e-9);   /* 1 % */
    assert_near(ask_tolerance(-3.013, 3), 0.03013, 1e-9);
    assert_near(ask_tolerance(0.5, 1), 0.1, 1e-9);
}

static Grade grade(Fix *f, int step, int k, const char *answer)
{
    session_goto(&f->s, step);
    return ask_grade(&f->l.steps[step].ask[k], &f->s.cur, 3, answer, err, sizeof err);
}

/* S[1][2] = 0.00578: within 0.001; A[1] = 0.313, 0.337, 0.350. */
static void test_grade(void **state)
{
    Fix *f = *state;
    assert_int_equal(grade(f, ST_SCORES, 0, "0.006"), GRADE_RIGHT);
    assert_int_equal(grade(f, ST_SCORES, 0, " 0.0067 "), GRADE_RIGHT);
    assert_int_equal(grade(f, ST_SCORES, 0, "0.0049"), GRADE_RIGHT);
    assert_int_equal(grade(f, ST_SCORES, 0, "0.0069"), GRADE_WRONG);
    assert_int_equal(grade(f, ST_SCORES, 0, "0.004"), GRADE_WRONG);
    assert_int_equal(grade(f, ST_SCORES, 0, "−0.006"), GRADE_WRONG);
    assert_int_equal(grade(f, ST_SCORES, 0, "6e-3"), GRADE_RIGHT);
    assert_int_equal(grade(f, ST_SOFTMAX, 0, "0.313, 0.337, 0.350"), GRADE_RIGHT);
    assert_int_equal(grade(f, ST_SOFTMAX, 0, "0.314 0.337 0.35"), GRADE_RIGHT);
    assert_int_equal(grade(f, ST_SOFTMAX, 0, "0.31 0.34 0.35"), GRADE_WRONG); /* 0.31: off by 0.0035 > 1 % */
    assert_int_equal(grade(f, ST_SOFTMAX, 0, "0.313，0.337，0.350"), GRADE_RIGHT);
    assert_int_equal(grade(f, ST_SOFTMAX, 0, ".313,.337,.35"), GRADE_RIGHT);
    assert_int_equal(grade(f, ST_SOFTMAX, 0, "0.333 0.333 0.333"), GRADE_WRONG);
    assert_int_equal(grade(f, ST_OUTPUT, 0, "−0.096"), GRADE_RIGHT);   /* O[3][1], Unicode minus */
    assert_int_equal(grade(f, ST_OUTPUT, 0, "-0.0965"), GRADE_RIGHT);
    assert_int_equal(grade(f, ST_OUTPUT, 0, "0.096"), GRADE_WRONG);
    /* answers that cannot be read */
    assert_int_equal(grade(f, ST_SOFTMAX, 0, "0.313, 0.337"), GRADE_BAD);
    assert_string_equal(err, "A[1] is a row of 3 numbers; type them separated by commas or spaces, found 2");
    assert_int_equal(grade(f, ST_SCORES, 0, ""), GRADE_BAD);
    assert_string_equal(err, "S[1][2] is one number; type it, like 0.25");
    assert_int_equal(grade(f, ST_SCORES, 0, "0.006 0.1"), GRADE_BAD);
    assert_string_equal(err, "S[1][2] is one number; type it, like 0.25");
    assert_int_equal(grade(f, ST_SCORES, 0, "zero"), GRADE_BAD);
    assert_string_equal(err, "\"zero\" is not a number; type a number like 0.25 or -1.5");
    assert_int_equal(grade(f, ST_SOFTMAX, 0, "0.3, 1/3, 0.3"), GRADE_BAD);
    assert_string_equal(err, "\"1/3\" is not a number; type a number like 0.25 or -1.5");
}

/* The session: hidden cells, answers, reveal, tally. */
static void test_session(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    char msg[512], tally[128];
    session_ask_tally(s, tally, sizeof tally);
    assert_string_equal(tally, "right 0 of 4, 4 not answered"); /* lesson review L12: says so */
    assert_int_equal(session_ask_count(s), 0);
    assert_int_equal(session_ask_open(s), -1);
    assert_false(session_ask_hidden(s, M_S, 0, 1));
    assert_int_equal(session_ask_answer(s, "1", false, msg, sizeof msg), GRADE_BAD);
    assert_string_equal(msg, "");

    session_goto(s, ST_SCORES);
    assert_int_equal(session_ask_open(s), 0);
    assert_true(session_ask_hidden(s, M_S, 0, 1));
    assert_false(session_ask_hidden(s, M_S, 0, 0));
    assert_true(session_ask_hidden(s, M_QKT, 0, 1)); /* q₁·k₂ is the score, or ÷√d_k from it */
    char *say = session_say(s, LANG_EN, false);
    assert_string_equal(say, "score₁₂ = ?, row −0.066, ?, 0.044"); /* the narration does not tell */
    free(say);
    assert_int_equal(session_ask_answer(s, "0.01 0.02", false, msg, sizeof msg), GRADE_BAD);
    assert_int_equal(session_ask_state(s, 0), ASK_OPEN);
    assert_int_equal(session_ask_answer(s, "0.006", false, msg, sizeof msg), GRADE_RIGHT);
    assert_string_equal(msg, "✓ right: S[1][2] = 0.006");
    assert_int_equal(session_ask_state(s, 0), ASK_RIGHT);
    assert_false(session_ask_hidden(s, M_S, 0, 1));
    say = session_say(s, LANG_EN, false);
    assert_string_equal(say, "score₁₂ = 0.006, row −0.066, 0.006, 0.044");
    free(say);
    assert_int_equal(session_ask_open(s), -1);

    session_goto(s, ST_SOFTMAX); /* two asks: answered in order */
    assert_true(session_ask_hidden(s, M_A, 0, 2));
    assert_true(session_ask_hidden(s, M_A, 1, 1));
    assert_true(session_ask_hidden(s, M_A, 1, 0)); /* A[2][2] hides row 2: it adds up to 1 */
    assert_false(session_ask_hidden(s, M_A, 2, 0));
    assert_int_equal(session_ask_answer(s, "0.3 0.3 0.4", false, msg, sizeof msg), GRADE_WRONG);
    /* no true value: a retry must not be a copy (newcomer review 12) */
    assert_string_equal(msg, "✗ not quite: A[1] (your answer: 0.3 0.3 0.4); numbers 1, 2, 3 are off. Type again, or "
                             "Space to reveal.");
    assert_int_equal(session_ask_open(s), 1);
    assert_int_equal(session_ask_state(s, 0), ASK_WRONG);
    assert_true(session_ask_hidden(s, M_A, 0, 2)); /* still "?" until right or revealed */
    say = session_say(s, LANG_EN, false);
    assert_null(strstr(say, "0.313"));
    free(say);
    assert_int_equal(session_ask_answer(s, "-0.32", true, msg, sizeof msg), GRADE_WRONG);
    assert_string_equal(msg, "not quite: A[2][2] (your answer: -0.32). Type again, or Space to reveal.");
    assert_true(session_ask_hidden(s, M_A, 1, 0));
    /* Retry (newcomer review 12): nothing open, the first wrong answer is graded again */
    assert_int_equal(session_ask_open(s), -1);
    assert_int_equal(session_ask_retry(s), 0);
    assert_int_equal(session_ask_answer(s, "0.313 0.3 0.35", false, msg, sizeof msg), GRADE_WRONG);
    assert_string_equal(msg, "✗ not quite: A[1] (your answer: 0.313 0.3 0.35); number 2 is off. Type again, or Space to "
                             "reveal."); /* lesson review L7: which numbers */
    assert_int_equal(session_ask_state(s, 0), ASK_WRONG);
    assert_int_equal(session_ask_answer(s, "0.313 0.337 0.35", false, msg, sizeof msg), GRADE_RIGHT);
    assert_string_equal(msg, "✓ right: A[1] = 0.313, 0.337, 0.350");
    assert_int_equal(session_ask_state(s, 0), ASK_RETRIED);
    assert_false(session_ask_hidden(s, M_A, 0, 2));
    assert_int_equal(session_ask_retry(s), 1);
    assert_true(session_ask_hidden(s, M_A, 1, 1));
    session_ask_tally(s, tally, sizeof tally);
    assert_string_equal(tally, "right 2 of 4 (1 after a retry), 1 wrong, 1 not answered");

    session_goto(s, ST_OUTPUT); /* next reveals */
    assert_int_equal(session_ask_reveal(s), 1);
    assert_int_equal(session_ask_reveal(s), 0);
    assert_int_equal(session_ask_state(s, 0), ASK_REVEALED);
    assert_false(session_ask_hidden(s, M_O, 2, 0));

    session_ask_tally(s, tally, sizeof tally);
    assert_string_equal(tally, "right 2 of 4 (1 after a retry), 1 wrong, 1 revealed");
    session_goto(s, ST_SOFTMAX); /* the wrong one, still hidden, revealed: it stays wrong */
    assert_true(session_ask_hidden(s, M_A, 1, 1));
    assert_int_equal(session_ask_reveal(s), 1);
    assert_int_equal(session_ask_state(s, 1), ASK_WRONG_REVEALED);
    assert_int_equal(session_ask_state(s, 0), ASK_RETRIED);
    assert_false(session_ask_hidden(s, M_A, 1, 1));
    assert_int_equal(session_ask_retry(s), -1); /* revealed: no more tries */
    assert_int_equal(session_ask_answer(s, "0.320", false, msg, sizeof msg), GRADE_BAD);
    session_ask_tally(s, tally, sizeof tally);
    assert_string_equal(tally, "right 2 of 4 (1 after a retry), 1 wrong, 1 revealed");
    int total, right, wrong, revealed;
    session_ask_counts(s, &total, &right, &wrong, &revealed);
    assert_int_equal(total, 4);
    assert_int_equal(right, 2);
    assert_int_equal(wrong, 1);
    assert_int_equal(revealed, 1);
    /* records survive moving back, edits and reset */
    session_goto(s, ST_SCORES);
    assert_true(session_act_text(s, "reset", err, sizeof err));
    assert_int_equal(session_ask_state(s, 0), ASK_RIGHT);
}

/* The answer is graded against the live value: after an edit, S[1][2] is 0.567. */
static void test_live_value(void **state)
{
    Fix *f = *state;
    char msg[512];
    session_goto(&f->s, ST_SCORES);
    assert_true(session_act_text(&f->s, "Q[1] = K[1] * 5", err, sizeof err));
    assert_int_equal(session_ask_answer(&f->s, "0.006", false, msg, sizeof msg), GRADE_WRONG);
    assert_string_equal(msg, "✗ not quite: S[1][2] (your answer: 0.006). Type again, or Space to reveal.");
    assert_int_equal(session_ask_answer(&f->s, "0.567", false, msg, sizeof msg), GRADE_RIGHT);
    assert_string_equal(msg, "✓ right: S[1][2] = 0.567");
}

/* The arithmetic hides the asked values until answered or revealed. */
static void test_explain_hidden(void **state)
{
    Fix *f = *state;
    Session *s = &f->s;
    FmtOpt fo = {3, false, false};
    char lines[FMT_MAX_LINES][FMT_LINE], msg[256];
    session_goto(s, ST_SCORES);
    assert_int_equal(session_explain(s, M_S, 0, 1, &fo, lines, FMT_MAX_LINES), 1);
    assert_string_equal(lines[0], "score₁₂ = q₁·k₂ = (0.149)(−0.169) + (−0.041)(−0.304) + (0.194)(0.094) = ?");
    assert_int_equal(session_explain(s, M_S, 0, 0, &fo, lines, FMT_MAX_LINES), 1);
    assert_string_equal(lines[0], "score₁₁ = q₁·k₁ = (0.149)(0.073) + (−0.041)(−0.574) + (0.194)(−0.517) = −0.066");
    assert_int_equal(session_ask_answer(s, "0.005", false, msg, sizeof msg), GRADE_RIGHT);
    session_explain(s, M_S, 0, 1, &fo, lines, FMT_MAX_LINES);
    assert_string_equal(lines[0], "score₁₂ = q₁·k₂ = (0.149)(−0.169) + (−0.041)(−0.304) + (0.194)(0.094) = 0.006");

    session_goto(s, ST_SOFTMAX); /* A[1] and A[2][2] asked */
    assert_int_equal(session_explain(s, M_A, 0, 0, &fo, lines, FMT_MAX_LINES), 3);
    assert_string_equal(lines[0], "s₁ = [−0.066, 0.006, 0.044]");
    assert_string_equal(lines[1], "exp(s) = [?, ?, ?];  sum = ?"); /* α is one division away */
    assert_string_equal(lines[2], "α₁ = exp ÷ sum = [?, ?, ?]");
    session_explain(s, M_A, 1, 0, &fo, lines, FMT_MAX_LINES); /* one weight asked: the row adds up to 1 */
    assert_string_equal(lines[2], "α₂ = exp ÷ sum = [?, ?, ?]");
    session_explain(s, M_A, 2, 0, &fo, lines, FMT_MAX_LINES);
    assert_string_equal(lines[1], "exp(s) ≈ [1.008, 0.850, 0.749];  sum ≈ 2.606   (≈: computed before rounding)");
    /* ASCII: the same, with its own number format */
    FmtOpt ascii = {3, true, false};
    session_explain(s, M_A, 1, 0, &ascii, lines, FMT_MAX_LINES);
    assert_string_equal(lines[1], "exp(s) = [?, ?, ?];  sum = ?");
    assert_string_equal(lines[2], "α_2 = exp / sum = [?, ?, ?]");
    assert_int_equal(session_ask_reveal(s), 2);
    session_explain(s, M_A, 0, 0, &fo, lines, FMT_MAX_LINES);
    assert_string_equal(lines[2], "α₁ = exp ÷ sum = [0.313, 0.337, 0.350]");

    session_goto(s, ST_OUTPUT); /* O[3][1] asked: the result, not the weights */
    assert_int_equal(session_explain(s, M_O, 2, 0, &fo, lines, FMT_MAX_LINES), 2);
    assert_string_equal(lines[1], "o₃₁ = (0.387)(−0.163) + (0.326)(0.113) + (0.287)(−0.244) = ?");
    assert_int_equal(session_explain(s, M_O, 2, 1, &fo, lines, FMT_MAX_LINES), 2);
    assert_string_equal(lines[1], "o₃₂ = (0.387)(0.033) + (0.326)(−0.180) + (0.287)(0.605) = 0.128");
}

/* A built-in lesson and a session on it at step `step` (1-based). */
static Fix *builtin(const char *prefix, int step)
{
    Fix *f = calloc(1, sizeof *f);
    const EmbeddedLesson *e = NULL;
    for (int k = 0; k < embedded_count && !e; k++)
        if (strncmp(embedded_lessons[k].name + strlen("lessons/"), prefix, strlen(prefix)) == 0)
            e = &embedded_lessons[k];
    assert_non_null(f);
    assert_non_null(e);
    assert_true(lesson_load_buffer(e->name, e->data, e->len, &f->l, err, sizeof err));
    assert_true(session_init(&f->s, &f->l));
    assert_true(session_goto(&f->s, step - 1));
    return f;
}

/* Lesson-author review H1: with two heads the arithmetic showed the answer
 * under the matrix's "?"; classroom review 17: lesson 9's training panel
 * gave α₁₃ away. An asked score hides its exp, the max it is and the sum. */
static void test_hidden_everywhere(void **state)
{
    (void)state;
    FmtOpt fo = {3, false, false};
    char lines[FMT_MAX_LINES][FMT_LINE];
    Fix *f = builtin("08-", 4); /* ask: S1[2][1] */
    MatId s1 = attn_head_id(M_S, 1), a1 = attn_head_id(M_A, 1), a2 = attn_head_id(M_A, 2);
    assert_true(session_ask_hidden(&f->s, s1, 1, 0));
    assert_int_equal(session_explain(&f->s, s1, 1, 0, &fo, lines, FMT_MAX_LINES), 1);
    assert_string_equal(lines[0], "head 1: score₂₁ = q₂·k₁ = (2.000)(2.000) + (0.000)(0.000) = ? ÷ √2 = ?");
    assert_true(session_goto(&f->s, 4)); /* step 5, softmax: nothing asked */
    session_explain(&f->s, a1, 1, 0, &fo, lines, FMT_MAX_LINES);
    assert_string_equal(lines[0], "head 1: s₂ = [2.828, 0.000, −2.828, 0.000]");
    lessonfix_close(f);

    f = builtin("08-", 7); /* ask: A2[1][3] */
    assert_true(session_ask_hidden(&f->s, a2, 0, 0));
    assert_false(session_ask_hidden(&f->s, a1, 0, 0));
    assert_int_equal(session_explain(&f->s, a2, 0, 2, &fo, lines, FMT_MAX_LINES), 4);
    assert_string_equal(lines[0], "head 2: s₁ = [2.828, 0.000, 2.828, 0.000]");
    assert_string_equal(lines[1], "max = 2.828;  s − max = [0.000, −2.828, 0.000, −2.828]");
    assert_string_equal(lines[2], "exp(s − max) = [?, ?, ?, ?];  sum = ?");
    assert_string_equal(lines[3], "α₁ = exp ÷ sum = [?, ?, ?, ?]");
    assert_true(session_ask_hides_training(&f->s, 1, 0));
    assert_false(session_ask_hides_training(&f->s, 0, 0));
    assert_false(session_ask_hides_training(&f->s, 1, 1));
    lessonfix_close(f);

    /* a score asked in the softmax row: its entries, the max it is, the sum */
    f = lessonfix_open("t.yaml", HEAD "  - stage: softmax\n    ask: \"S[1][3]\"\n" "  - stage: output\n");
    assert_non_null(f);
    session_goto(&f->s, 0);
    assert_int_equal(session_explain(&f->s, M_A, 0, 0, &fo, lines, FMT_MAX_LINES), 3);
    assert_string_equal(lines[0], "s₁ = [−0.066, 0.006, ?]");
    assert_string_equal(lines[1], "exp(s) = [0.936, 1.006, ?];  sum = ?");
    assert_true(session_ask_hides_training(&f->s, 0, 0));
    lessonfix_close(f);
    f = lessonfix_open("t.yaml", HEAD "  - stage: softmax\n    do: [\"softmax = stable\", \"mask = causal\"]\n"
                                      "    ask: [\"S[3][1]\", \"S[1][2]\"]\n");
    assert_non_null(f);
    session_goto(&f->s, 0);
    session_explain(&f->s, M_A, 2, 0, &fo, lines, FMT_MAX_LINES);
    assert_string_equal(lines[0], "s₃ = [?, −0.163, −0.290]");
    assert_string_equal(lines[1], "max = ?;  s − max = [?, ?, ?]"); /* the asked 0.008 is the max */
    assert_string_equal(lines[2], "exp(s − max) = [?, ?, ?];  sum = ?");
    session_explain(&f->s, M_S, 0, 1, &fo, lines, FMT_MAX_LINES); /* masked: not "−∞" */
    assert_string_equal(lines[0], "score₁₂ = ?");
    lessonfix_close(f);
}

/* In Chinese: the result lines and the tally (the catalogue make builds). */
static void test_zh(void **state)
{
    Fix *f = *state;
    char msg[256], tally[128];
    i18n_set(LANG_ZH, "build/locale");
    session_goto(&f->s, ST_SCORES);
    assert_int_equal(session_ask_answer(&f->s, "0.006", false, msg, sizeof msg), GRADE_RIGHT);
    assert_string_equal(msg, "✓ 答对了：S[1][2] = 0.006");
    session_goto(&f->s, ST_SOFTMAX);
    assert_int_equal(session_ask_answer(&f->s, "1, 0, 0", false, msg, sizeof msg), GRADE_WRONG);
    assert_string_equal(msg, "✗ 不太对：A[1]（你的答案：1, 0, 0）；第 1、2、3 个数不对。再输入一次，或按 Space 揭晓。");
    assert_int_equal(session_ask_answer(&f->s, "0.3", false, msg, sizeof msg), GRADE_WRONG); /* A[2][2] */
    assert_string_equal(msg, "✗ 不太对：A[2][2]（你的答案：0.3）。再输入一次，或按 Space 揭晓。");
    session_ask_tally(&f->s, tally, sizeof tally);
    assert_string_equal(tally, "答对 1 题，共 4 题，答错 2 题，未作答 1 题");
    assert_int_equal(session_ask_answer(&f->s, "0.313, 0.337, 0.350", false, msg, sizeof msg), GRADE_RIGHT);
    session_ask_reveal(&f->s); /* A[2][2]: wrong, then revealed */
    session_ask_tally(&f->s, tally, sizeof tally);
    assert_string_equal(tally, "答对 2 题，共 4 题（其中 1 题是重答后答对的），答错 1 题，未作答 1 题");
    i18n_set(LANG_EN, NULL);
}

/* Lesson-author review L8: at a question step the effect trace shows the
 * value before the step's change (it was on screen a step earlier); only
 * the asked value after it is "?". Lesson 9, step 5 asks A[1][3] after
 * nine gradient steps. */
static void test_trace_before(void **state)
{
    (void)state;
    Fix *f = builtin("09-", 4);
    FmtOpt fo = {3, false, false};
    char line[FMT_LINE];
    assert_true(session_next(&f->s));
    assert_int_equal(session_ask_open(&f->s), 0);
    assert_true(session_trace_line(&f->s, 0, 2, &fo, line, sizeof line));
    /* content review C-22: the step moved W_K's four rows too, and the line says so */
    assert_string_equal(line, "Wq₁, Wk₁, Wk₂, Wk₃, … changed ⇒ q₁₁ 0.073 → −0.066 ⇒ s₁₃ 0.156 → 2.649 ⇒ α₁₃ 0.387 → ?");
    assert_int_equal(session_ask_answer(&f->s, "0.5", false, line, sizeof line), GRADE_WRONG);
    session_trace_line(&f->s, 0, 2, &fo, line, sizeof line); /* answered wrong: still ? */
    assert_non_null(strstr(line, "α₁₃ 0.387 → ?"));
    session_ask_reveal(&f->s);
    session_trace_line(&f->s, 0, 2, &fo, line, sizeof line);
    assert_non_null(strstr(line, "α₁₃ 0.387 → 0.959"));
    lessonfix_close(f);
}

/* Newcomer D1: while a question is open, a student's toggle or edit never
 * prints the asked value as the "before" (the answer u brings back), in
 * the trace, the status line or after an undo; after a swap the asked cell
 * stays hidden where its tokens went. Lesson 1, step 7 asks S[1][2]
 * (0.006, unscaled). */
static void test_toggle_hides_before(void **state)
{
    (void)state;
    Fix *f = builtin("01-", 7);
    FmtOpt fo = {3, false, false};
    char line[FMT_LINE];
    assert_int_equal(session_ask_open(&f->s), 0);
    assert_true(session_act_text(&f->s, "scale = sqrt_dk", err, sizeof err));
    assert_true(session_trace_line(&f->s, 0, 1, &fo, line, sizeof line));
    assert_string_equal(line, "scaling ÷√3 ⇒ s₁₂ ? → ?");
    effect_status(&f->s, EFFECT_ACT, NULL, M_S, 0, 1, false, line, sizeof line);
    assert_string_equal(line, "scaling ÷√3: s₁₂ ? → ?. u undoes it.");
    assert_true(session_undo(&f->s)); /* the before is now the scaled answer, Ctrl-R's */
    effect_status(&f->s, EFFECT_UNDO, NULL, M_S, 0, 1, false, line, sizeof line);
    assert_string_equal(line, "undo scaling ÷√3: s₁₂ ? → ?. Ctrl-R redoes it.");
    assert_true(session_act_text(&f->s, "Q[1] = K[1] * 3", err, sizeof err));
    assert_true(session_trace_line(&f->s, 0, 1, &fo, line, sizeof line));
    assert_string_equal(line, "q₁ changed ⇒ s₁₂ ? → ?");
    assert_true(session_undo(&f->s));
    /* swap 1 3: 我's score with love, the old answer, is S[3][2] now */
    assert_false(session_ask_hidden(&f->s, M_S, 2, 1));
    assert_true(session_act_text(&f->s, "swap 1 3", err, sizeof err));
    assert_true(session_ask_hidden(&f->s, M_S, 0, 1));
    assert_true(session_ask_hidden(&f->s, M_S, 2, 1));
    assert_false(session_ask_hidden(&f->s, M_S, 1, 0));
    assert_true(session_trace_line(&f->s, 2, 1, &fo, line, sizeof line));
    assert_string_equal(line, "x₁ and x₃ swapped ⇒ q₃₂ (was q₁₂) −0.041 → −0.041 ⇒ s₃₂ (was s₁₂) ? → ?");
    session_ask_reveal(&f->s);
    assert_false(session_ask_hidden(&f->s, M_S, 2, 1));
    assert_true(session_trace_line(&f->s, 2, 1, &fo, line, sizeof line));
    assert_string_equal(line, "x₁ and x₃ swapped ⇒ q₃₂ (was q₁₂) −0.041 → −0.041 ⇒ s₃₂ (was s₁₂) 0.006 → 0.006");
    lessonfix_close(f);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8"); /* gettext translates only under a real locale */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_load, setup, lessonfix_teardown),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_tolerance),
        cmocka_unit_test_setup_teardown(test_grade, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_session, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_live_value, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_explain_hidden, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_zh, setup, lessonfix_teardown),
        cmocka_unit_test(test_hidden_everywhere),
        cmocka_unit_test(test_trace_before),
        cmocka_unit_test(test_toggle_hides_before),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
