/* test_live.c - lesson/live.h on lesson 1's numbers (tutorial A, unscaled,
 * naive, 3 digits): the effect trace line after an action-prompt edit, a
 * cell-editor edit, an X edit, a W edit and the scale/softmax toggles; the
 * status line naming every change (action, toggle, undo, redo, reset); the
 * edited-state notice; narration filled in from the live state. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "lessonfix.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/lesson.h"
#include "words/live.h"
#include "lesson/session.h"
#include "lesson/save.h"
#include "text/i18n.h"
#include "text/text.h"
#include <unistd.h>

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

static void assert_notice(Fix *f, int cols, const char *want)
{
    char line[FMT_LINE];
    if (!want) {
        assert_false(session_notice(&f->s, false, cols, line, sizeof line));
        assert_string_equal(line, "");
        assert_false(session_departed(&f->s, NULL, 0));
        return;
    }
    assert_true(session_notice(&f->s, false, cols, line, sizeof line));
    assert_string_equal(line, want);
    assert_true(session_departed(&f->s, NULL, 0));
}

#define LONG_WORDS ": numbers live, words written for the lesson's numbers"

/* Every kind of departure says so, naming what departed in the action
 * language; undoing, reset or toggling back is the script's state again. */
static void test_departures(void **state)
{
    Fix *f = *state;
    session_goto(&f->s, ST_OUTPUT);
    assert_notice(f, 0, NULL);
    act(f, "Q[1] = K[1] * 5"); /* an edit */
    assert_notice(f, 0, "✎ after Q[1] = K[1] * 5" LONG_WORDS);
    act(f, "mask = causal");    /* a toggle the old check missed */
    assert_notice(f, 0, "✎ after Q[1] = K[1] * 5, mask = causal" LONG_WORDS);
    /* 60 columns: the short words, the list cut at its end */
    assert_notice(f, 58, "✎ Q[1] = K[1] * 5, …: numbers live, words as written");
    assert_notice(f, 70, "✎ Q[1] = K[1] * 5, mask = causal: numbers live, words as written");
    act(f, "X[1] = [0.1, 0.2, 0.3, 0.4]");
    assert_notice(f, 70, "✎ Q[1] = K[1] * 5, mask = causal, …: numbers live, words as written");
    act(f, "Q[3] = [0.123456, 0.5, 0.25]");
    assert_notice(f, 41, "✎ Q[1] =…: numbers live, words as written");
    char line[FMT_LINE];
    assert_true(session_notice(&f->s, false, 41, line, sizeof line));
    assert_int_equal(text_width(line), 41);
    while (session_undo(&f->s)) {}
    assert_notice(f, 0, NULL);
    /* a toggle alone, and toggled back */
    act(f, "mask = causal");
    assert_notice(f, 0, "✎ after mask = causal" LONG_WORDS);
    act(f, "mask = none");
    assert_notice(f, 0, NULL);
    act(f, "temperature = 0.5");
    assert_notice(f, 0, "✎ after temperature = 0.5" LONG_WORDS);
    act(f, "reset");
    assert_notice(f, 0, NULL);
    act(f, "positions = sinusoidal");
    assert_notice(f, 0, "✎ after positions = sinusoidal" LONG_WORDS);
    act(f, "positions = none");
    act(f, "swap 1 3");
    assert_notice(f, 0, "✎ after swap 1 3" LONG_WORDS);
    act(f, "swap 1 3"); /* the same order again */
    assert_notice(f, 0, NULL);
    /* the same cell edited twice: the last value, written shortest */
    act(f, "Q[2][1] = 5");
    act(f, "Q[2][1] = 5.1");
    assert_notice(f, 0, "✎ after Q[2][1] = 5.1" LONG_WORDS);
    act(f, "reset");
    /* training the script did not do */
    act(f, "target A[1] = 2");
    assert_notice(f, 0, "✎ after target A[1] = 2" LONG_WORDS);
    act(f, "step");
    act(f, "step 2");
    assert_notice(f, 0, "✎ after target A[1] = 2, step 3" LONG_WORDS);
    act(f, "reset");
    act(f, "lr = 0.25");
    assert_notice(f, 0, "✎ after lr = 0.25" LONG_WORDS);
    act(f, "lr = 0.5"); /* the default: nothing departs */
    assert_notice(f, 0, NULL);
    /* the script's own toggle, done again by hand, is no departure */
    session_goto(&f->s, ST_DO);
    act(f, "scale = sqrt_dk");
    assert_notice(f, 0, NULL);
    act(f, "scale = none");
    assert_notice(f, 0, "✎ after scale = none" LONG_WORDS);
    /* zh */
    i18n_set(LANG_ZH, "build/locale");
    assert_true(session_notice(&f->s, false, 0, line, sizeof line));
    i18n_set(LANG_EN, NULL);
    assert_string_equal(line, "✎ 改动后（scale = none）：数字是实时的，文字是按课程原来的数写的");
}

/* --variant K other than the lesson's seed departs at every step. */
static void test_departure_variant(void **state)
{
    Fix *f = *state;
    session_free(&f->s);
    assert_true(lesson_reseed(&f->l, 42)); /* the lesson's own seed: its own numbers */
    assert_true(session_init(&f->s, &f->l));
    assert_notice(f, 0, NULL);
    session_free(&f->s);
    assert_true(lesson_reseed(&f->l, 7));
    assert_true(session_init(&f->s, &f->l));
    assert_notice(f, 0, "✎ after variant 7" LONG_WORDS);
    session_goto(&f->s, ST_DO);
    act(f, "mask = causal");
    assert_notice(f, 0, "✎ after variant 7, mask = causal" LONG_WORDS);
}

/* A saved lesson records its edits in edited: at the step they were made;
 * reopened, it is the lesson's own before that step, and departs from
 * there on, naming the edits still in effect. */
static void test_departure_saved(void **state)
{
    Fix *f = *state;
    char dir[] = "/tmp/qkv_depart_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/l1-edited.yaml", dir);
    session_goto(&f->s, ST_SOFTMAX);
    act(f, "Q[2][1] = 5");
    act(f, "Q[2][1] = 5.1"); /* what a + nudge writes: 5 + 0.1 read back as 5.1 */
    act(f, "mask = causal");
    assert_true(lesson_save(&f->s, path, err, sizeof err));
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    assert_non_null(strstr(text, "  edited:\n  - \"Q[2][1] = 5\"\n  - \"Q[2][1] = 5.1\"\n  - \"mask = causal\"\n"));
    assert_null(strstr(text, "5.0999"));
    Fix g = {0};
    assert_true(lesson_load_file(path, &g.l, err, sizeof err));
    assert_int_equal(g.l.nedited, 0);
    assert_int_equal(g.l.steps[ST_SOFTMAX].nedit, 3);
    assert_true(session_init(&g.s, &g.l));
    session_goto(&g.s, 0);
    assert_false(session_diverged(&g.s)); /* before the edits: the lesson's own */
    session_goto(&g.s, ST_SOFTMAX);
    assert_notice(&g, 0, "✎ after Q[2][1] = 5.1, mask = causal" LONG_WORDS);
    session_goto(&g.s, ST_OUTPUT);
    assert_true(session_act_text(&g.s, "temperature = 2", err, sizeof err));
    assert_notice(&g, 0, "✎ after Q[2][1] = 5.1, mask = causal, temperature = 2" LONG_WORDS);
    session_free(&g.s);
    lesson_free(&g.l);
    /* a wrong entry is one clear line */
    Lesson bad;
    const char *yaml = "format: qkvtutor/1\ntokens: [a]\nX: [[1]]\nweights: {Wq: [[1]], Wk: [[1]], Wv: [[1]]}\n"
                       "edited: [\"Q[1] == 2\"]\n";
    assert_false(lesson_load_buffer("bad.yaml", yaml, strlen(yaml), &bad, err, sizeof err));
    assert_non_null(strstr(err, "bad.yaml:5:"));
    unlink(path);
    rmdir(dir);
}

/* Side lines name the real cause, the focused row and the head shown. */
static void test_side_lines(void **state)
{
    Fix *f = *state;
    session_goto(&f->s, ST_SOFTMAX);
    act(f, "positions = sinusoidal");
    assert_trace(f, 2, 0, &utf, "p₁, p₂, p₃ changed ⇒ q₃₁ 0.506 → 0.624 ⇒ s₃₁ 0.008 → −0.064 ⇒ α₃₁ 0.387 → 0.350");
    act(f, "reset");
    act(f, "temperature = 0.5");
    assert_trace(f, 2, 0, &utf, "temperature = 0.5 ⇒ α₃₁ 0.387 → 0.442");
    assert_effect(f, EFFECT_ACT, M_A, 2, 0, &utf, "temperature = 0.5: α₃₁ 0.387 → 0.442");
    act(f, "reset");
    act(f, "Wq[2][1] = 1");
    assert_trace(f, 1, 1, &utf, "Wq₂₁ changed ⇒ q₂₁ 0.457 → 1.000 ⇒ s₂₂ −0.062 → −0.154 ⇒ α₂₂ 0.320 → 0.309");
    act(f, "reset");
    act(f, "swap 1 3");
    /* newcomer D3: the numbers follow the token, and the line says from which cell */
    assert_trace(f, 2, 0, &utf,
                 "x₁ and x₃ swapped ⇒ q₃₁ (was q₁₁) 0.149 → 0.149 ⇒ s₃₁ (was s₁₃) 0.044 → 0.044 ⇒ α₃₁ (was α₁₃) "
                 "0.350 → 0.350");
    assert_effect(f, EFFECT_ACT, M_A, 2, 0, &utf, "swap 1 3: α₃₁ (was α₁₃) 0.350 (unchanged)");
    assert_effect(f, EFFECT_ACT, M_A, 1, 1, &utf, "swap 1 3: α₂₂ 0.320 (unchanged)"); /* love stayed */
    act(f, "reset");
    /* after a swap, who set a number follows the token */
    act(f, "Q[1] = K[1] * 5");
    act(f, "X[1][1] = 7");
    act(f, "swap 1 3");
    assert_int_equal(session_override_by(&f->s, M_Q, 2), OV_HAND);
    assert_int_equal(session_override_by(&f->s, M_Q, 0), OV_NONE);
    assert_int_equal(session_cell_by(&f->s, M_X, 2, 0), OV_HAND);
    assert_int_equal(session_cell_by(&f->s, M_X, 0, 0), OV_NONE);
    /* lesson 8, head 2 shown: the status speaks of head 2; the narration is head 1's */
    Fix g = {0};
    assert_true(lesson_load_file("lessons/08-two-heads.yaml", &g.l, err, sizeof err));
    assert_true(session_init(&g.s, &g.l));
    session_goto(&g.s, 4);
    assert_int_equal(session_say_head(&g.s), 1);
    session_set_head(&g.s, 2);
    assert_true(session_act_text(&g.s, "scale = none", err, sizeof err));
    char line[FMT_LINE];
    effect_status(&g.s, EFFECT_ACT, NULL, M_A, 1, 0, false, line, sizeof line);
    assert_string_equal(line, "no scaling: α₂₁ 0.028 → 0.009. u undoes it.");
    /* lesson 8, step 11: both rows of W_O zeroed are named */
    assert_true(session_undo(&g.s));
    session_goto(&g.s, 10);
    session_set_head(&g.s, 1);
    assert_true(session_trace_line(&g.s, 0, 0, &utf, line, sizeof line));
    assert_string_equal(line, "Wo₁, Wo₂ changed ⇒ y₁₁ 0.577 → 0.472");
    session_free(&g.s);
    lesson_free(&g.l);
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

/* Newcomer D7: RoPE's pair index counts from 1, as its columns (2m−1, 2m)
 * and README's θ = p·B^(−2(m−1)/d_k) do (it said "pair m = 0" beside
 * columns 1, 2). Lesson 12, step 2: q₃₁ turned at position 2. */
static void test_rope_pair_from_1(void **state)
{
    (void)state;
    Fix g = {0};
    char lines[FMT_MAX_LINES][FMT_LINE];
    assert_true(lesson_load_file("lessons/12-rotary-positions.yaml", &g.l, err, sizeof err));
    assert_true(session_init(&g.s, &g.l));
    session_goto(&g.s, 1);
    int n = session_explain(&g.s, M_Q, 2, 0, &utf, lines, FMT_MAX_LINES);
    assert_true(n >= 2);
    assert_string_equal(lines[1], "θ = 2·10000^0 = 2.000;  cos 2.000 = −0.416;  sin 2.000 = 0.909   "
                                  "(pair m = 1 at position p = 2)");
    n = session_explain(&g.s, M_Q, 2, 2, &utf, lines, FMT_MAX_LINES);
    assert_non_null(strstr(lines[1], "(pair m = 2 at position p = 2)"));
    session_free(&g.s);
    lesson_free(&g.l);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8"); /* gettext translates only under a real locale */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_trace_prompt, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_trace_editor, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_trace_x_w, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_trace_toggles, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_effect_undo_redo_reset, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_diverged, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_departures, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_departure_variant, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_departure_saved, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_side_lines, setup, lessonfix_teardown),
        cmocka_unit_test_setup_teardown(test_say_live, setup, lessonfix_teardown),
        cmocka_unit_test(test_rope_pair_from_1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
