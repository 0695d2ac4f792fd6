/* test_live.c - lesson/live.h on lesson 1's numbers (tutorial A, unscaled,
 * naive, 3 digits): the effect trace line after an action-prompt edit, a
 * cell-editor edit, an X edit, a W edit and the scale/softmax toggles; the
 * status line naming every change (action, toggle, undo, redo, reset); the
 * edited-state notice; narration filled in from the live state. */
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "lessonfix.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/lesson.h"
#include "lesson/live.h"
#include "lesson/session.h"

/* Lesson 1's set-up; steps at every stage, a do: step and narration that
 * quotes the state. */
#define LESSON1 "format: qkvtutor/1\n" \
                "tokens: [我, love, 猫]\n" \
                "X:\n  - [1.0, 0.0, 0.0, 0.0]\n  - [0.0, 1.0, 0.0, 0.0]\n  - [0.0, 0.0, 1.0, 0.2]\n" \
                "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n" \
                "options: {scale: none, softmax: naive, digits: 3}\n" \
                "steps:\n" \
                "  - stage: input\n" \
                "  - stage: qkv\n" \
                "    focus: \"Q[1]\"\n" \
                "  - stage: scores\n" \
                "    focus: \"S[1][2]\"\n" \
                "    say: \"Reveal: score₁₂ = q₁·k₂ = {S[1][2]}, row {S[1]}.\"\n" \
                "  - stage: softmax\n" \
                "    focus: \"A[1]\"\n" \
                "    say: {en: \"weights {A[1]}\", zh: \"权重 {A[1]}\"}\n" \
                "  - stage: output\n" \
                "    focus: \"O[1][1]\"\n" \
                "    say: \"o₁ = {A[1][1]}·v₁ + …\"\n" \
                "  - stage: output\n" \
                "    do: \"scale = sqrt_dk\"\n"
enum { ST_INPUT, ST_QKV, ST_SCORES, ST_SOFTMAX, ST_OUTPUT, ST_DO };

typedef LessonFix Fix;

static char err[LESSON_ERR_MAX];
static const FmtOpt utf = {3, false, false}, ascii = {3, true, false};

static int setup(void **state)
{
    *state = lessonfix_open("l1.yaml", LESSON1);
    return *state ? 0 : -1;
}

static void act(Fix *f, const char *text)
{
    if (!session_act_text(&f->s, text, err, sizeof err))
        fail_msg("%s: %s", text, err);
}

static void assert_trace(Fix *f, int i, int j, const FmtOpt *fo, const char *want)
{
    char line[FMT_LINE];
    assert_true(session_trace_line(&f->s, i, j, fo, line, sizeof line));
    assert_string_equal(line, want);
}

static void assert_effect(Fix *f, EffectWhat what, MatId m, int i, int j, const FmtOpt *fo, const char *want)
{
    char name[256], line[FMT_LINE];
    effect_name(&f->s, what, fo->ascii, name, sizeof name);
    assert_true(effect_line(&f->s, name, m, i, j, fo, line, sizeof line));
    assert_string_equal(line, want);
}

/* The action prompt, lesson 1 at the output stage: the line. */
static void test_trace_prompt(void **state)
{
    Fix *f = *state;
    session_goto(&f->s, ST_OUTPUT);
    act(f, "Q[1] = K[1] * 5");
    assert_trace(f, 0, 0, &utf, "q₁ changed ⇒ s₁₁ −0.066 → 3.013 ⇒ α₁₁ 0.313 → 0.873 ⇒ o₁₁ −0.099 → −0.147");
    assert_trace(f, 0, 0, &ascii, "q_1 changed => s_11 -0.066 -> 3.013 => a_11 0.313 -> 0.873 => o_11 -0.099 -> -0.147");
    assert_effect(f, EFFECT_ACT, M_O, 0, 0, &utf, "Q[1] = K[1] * 5: o₁₁ −0.099 → −0.147");
    assert_effect(f, EFFECT_ACT, M_A, 0, 0, &utf, "Q[1] = K[1] * 5: α₁₁ 0.313 → 0.873");
    /* at the scores stage the trace stops at S; focus column 2 gives the
     * issue's 0.567 */
    session_goto(&f->s, ST_SCORES);
    act(f, "reset");
    act(f, "Q[1] = K[1] * 5");
    assert_trace(f, 0, 1, &utf, "q₁ changed ⇒ s₁₂ 0.006 → 0.567");
}

/* The cell editor writes `M[i][j] = c`: one cell of Q, then the trace. */
static void test_trace_editor(void **state)
{
    Fix *f = *state;
    session_goto(&f->s, ST_SOFTMAX);
    act(f, "Q[1][2] = 1");
    /* s₁₁ = (0.149)(0.073) + (1)(−0.574) + (0.194)(−0.517) = −0.664 */
    assert_trace(f, 0, 0, &utf, "q₁₂ changed ⇒ s₁₁ −0.066 → −0.664 ⇒ α₁₁ 0.313 → 0.268");
}

/* An X edit and a W edit start at X / W and go through Q, K or V. */
static void test_trace_x_w(void **state)
{
    Fix *f = *state;
    session_goto(&f->s, ST_SCORES);
    act(f, "X[1][1] = 2");
    /* q₁₁ = 2·Wq[1][1] = 0.298; s₁₂ = q₁·k₂ = 0.012 (hand-checked) */
    char line[FMT_LINE];
    assert_true(session_trace_line(&f->s, 0, 1, &utf, line, sizeof line));
    assert_string_equal(line, "x₁₁ changed ⇒ q₁₁ 0.149 → 0.298 ⇒ s₁₂ 0.006 → 0.012");
    act(f, "reset");
    act(f, "Wk[2][1] = 0");
    assert_true(session_trace_line(&f->s, 0, 1, &utf, line, sizeof line));
    /* K row 2 is x₂·Wk: k₂₁ = Wk[2][1] */
    assert_string_equal(line, "Wk₂₁ changed ⇒ k₂₁ −0.169 → 0.000 ⇒ s₁₂ 0.006 → 0.031");
}

/* The toggles: scale and softmax, traced from S and A. Lesson 2's
 * Space s Space: with Q[1] = K[1] * 5, α₁₁ 0.873 → 0.695. */
static void test_trace_toggles(void **state)
{
    Fix *f = *state;
    session_goto(&f->s, ST_SOFTMAX);
    act(f, "Q[1] = K[1] * 5");
    act(f, "scale = sqrt_dk");
    assert_trace(f, 0, 0, &utf, "scaling ÷√3 ⇒ s₁₁ 3.013 → 1.739 ⇒ α₁₁ 0.873 → 0.695");
    assert_effect(f, EFFECT_ACT, M_A, 0, 0, &utf, "scaling ÷√3: α₁₁ 0.873 → 0.695");
    assert_effect(f, EFFECT_ACT, M_A, 0, 0, &ascii, "scaling / sqrt(3): a_11 0.873 -> 0.695");
    act(f, "softmax = stable");
    assert_trace(f, 0, 0, &utf, "stable softmax ⇒ α₁₁ 0.695 → 0.695");
    assert_effect(f, EFFECT_ACT, M_A, 0, 0, &utf, "stable softmax: α₁₁ 0.695 (unchanged)");
    act(f, "scale = none");
    assert_effect(f, EFFECT_ACT, M_A, 0, 0, &utf, "no scaling: α₁₁ 0.695 → 0.873");
}

/* Undo, redo and reset name themselves and their effect. */
static void test_effect_undo_redo_reset(void **state)
{
    Fix *f = *state;
    session_goto(&f->s, ST_SOFTMAX);
    act(f, "Q[1] = K[1] * 5");
    assert_true(session_undo(&f->s));
    assert_effect(f, EFFECT_UNDO, M_A, 0, 0, &utf, "undo Q[1] = K[1] * 5: α₁₁ 0.873 → 0.313");
    assert_true(session_redo(&f->s));
    assert_effect(f, EFFECT_REDO, M_A, 0, 0, &utf, "redo Q[1] = K[1] * 5: α₁₁ 0.313 → 0.873");
    act(f, "reset");
    assert_effect(f, EFFECT_ACT, M_A, 0, 0, &utf, "reset: α₁₁ 0.873 → 0.313");
    assert_trace(f, 0, 0, &utf, "q₁ changed ⇒ s₁₁ 3.013 → −0.066 ⇒ α₁₁ 0.873 → 0.313");
    /* the focused matrix not computed yet: the trace's last cell stands in */
    session_goto(&f->s, ST_SCORES);
    act(f, "Q[1] = K[1] * 5");
    assert_effect(f, EFFECT_ACT, M_O, 0, 0, &utf, "Q[1] = K[1] * 5: s₁₁ −0.066 → 3.013");
    /* nothing to compare before any change */
    Session fresh;
    char line[256];
    assert_true(session_init(&fresh, &f->l));
    effect_name(&fresh, EFFECT_ACT, false, line, sizeof line);
    assert_string_equal(line, "");
    assert_false(effect_line(&fresh, "x", M_A, 0, 0, &utf, line, sizeof line));
    assert_false(session_trace_line(&fresh, 0, 0, &utf, line, sizeof line));
    assert_string_equal(line, "");
    session_free(&fresh);
}

/* The notice: any student edit or toggle in effect, not the script's do:. */
static void test_diverged(void **state)
{
    Fix *f = *state;
    session_goto(&f->s, ST_DO); /* the script's own scale = sqrt_dk */
    assert_false(session_diverged(&f->s));
    act(f, "scale = none");
    assert_true(session_diverged(&f->s));
    act(f, "scale = sqrt_dk"); /* back to the script's numbers, by hand */
    assert_false(session_diverged(&f->s));
    act(f, "X[3][4] = 0.5");
    assert_true(session_diverged(&f->s));
    act(f, "reset");
    assert_false(session_diverged(&f->s));
    act(f, "K[2] = [1, 2, 3]");
    assert_true(session_diverged(&f->s));
    /* moving back keeps the edit in effect */
    session_goto(&f->s, ST_INPUT);
    assert_true(session_diverged(&f->s));
    session_goto(&f->s, ST_DO);
    while (session_undo(&f->s)) {}
    assert_false(session_diverged(&f->s));
    /* the script's state at this step */
    Attn script = {0};
    assert_true(session_script_state(&f->s, &script));
    assert_attn_same(&script, &f->s.cur);
    attn_free(&script);
}

/* Narration quotes the live state: the contradiction is gone. */
static void test_say_live(void **state)
{
    Fix *f = *state;
    session_goto(&f->s, ST_SCORES);
    char *say = session_say(&f->s, LANG_EN, false);
    assert_string_equal(say, "Reveal: score₁₂ = q₁·k₂ = 0.006, row −0.066, 0.006, 0.044.");
    free(say);
    act(f, "Q[1] = K[1] * 5");
    say = session_say(&f->s, LANG_EN, false);
    assert_string_equal(say, "Reveal: score₁₂ = q₁·k₂ = 0.567, row 3.013, 0.567, 0.184.");
    free(say);
    say = session_say(&f->s, LANG_EN, true);
    assert_string_equal(say, "Reveal: score₁₂ = q₁·k₂ = 0.567, row 3.013, 0.567, 0.184.");
    free(say);
    session_goto(&f->s, ST_SOFTMAX);
    say = session_say(&f->s, LANG_ZH, false);
    assert_string_equal(say, "权重 0.873、0.076、0.052");
    free(say);
    session_goto(&f->s, ST_OUTPUT);
    say = session_say(&f->s, LANG_EN, false);
    assert_string_equal(say, "o₁ = 0.873·v₁ + …");
    free(say);
    session_goto(&f->s, ST_INPUT); /* no say: "" */
    say = session_say(&f->s, LANG_EN, false);
    assert_string_equal(say, "");
    free(say);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_trace_prompt, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_trace_editor, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_trace_x_w, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_trace_toggles, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_effect_undo_redo_reset, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_diverged, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_say_live, setup, lessonfix_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
