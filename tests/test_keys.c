/* test_keys.c - what keys do and what the status line says, on a headless
 * screen: the defects of issue 10 a new user met (stage keys in lessons
 * that skip a stage, e before Q K V exist, silent actions, edit mode naming
 * the wrong matrix, an empty Enter, the edit field losing digits, saving
 * onto a folder, --at N in the view). The status line is read from the
 * View (view_int.h), so these hold whatever the layout draws. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text/i18n.h"
#include "words/live.h"
#include "lesson/session.h"
#include "screen.h"
#include "out/checktext.h"
#include "term/view_int.h"
#include "testutil.h" /* after lesson.h: cmocka defines a macro expect_check */

#define HEAD "format: qkvtutor/1\n" \
             "title: keys\n" \
             "tokens: [我, love, 猫]\n" \
             "X: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]]\n" \
             "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n" \
             "options: {scale: none, softmax: naive, digits: 3}\n"
/* lesson 02's stages: 2, then 4 six times, then 5 */
#define LESSON2 HEAD "steps:\n  - stage: qkv\n" \
                "  - stage: softmax\n  - stage: softmax\n    do: \"Q[1] = K[1] * 5\"\n" \
                "  - stage: softmax\n  - stage: softmax\n  - stage: softmax\n  - stage: softmax\n" \
                "  - stage: output\n"
/* lesson 05's stages: the story told twice */
#define LESSON5 HEAD "steps:\n  - stage: input\n  - stage: qkv\n  - stage: softmax\n" \
                "  - stage: input\n  - stage: qkv\n  - stage: softmax\n" \
                "  - stage: output\n  - stage: softmax\n  - stage: output\n"

typedef struct {
    Lesson l;
    View *v;
} Fix;

static const ViewOpt dark = {LANG_EN, false, "dark", false, 0, false, NULL};

static Fix *open_at(const char *yaml, int start)
{
    Fix *f = calloc(1, sizeof *f);
    char err[512];
    ViewOpt o = dark;
    o.start_step = start;
    assert_non_null(f);
    if (!lesson_load_buffer("t.yaml", yaml, strlen(yaml), &f->l, err, sizeof err))
        fail_msg("%s", err);
    f->v = view_new(&f->l, &o);
    assert_non_null(f->v);
    return f;
}

static Fix *open_yaml(const char *yaml)
{
    return open_at(yaml, 0);
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

static void key(View *v, int code)
{
    view_key(v, (wint_t)code, true);
    view_draw(v);
}

static void keys(View *v, const char *s)
{
    view_keys(v, s);
    view_draw(v);
}

static bool shown(const char *text)
{
    int x;
    return screen_find(text, &x) >= 0;
}

#define assert_shown(t) do { if (!shown(t)) { char *s_ = screen_text(); \
    print_error("not on screen: %s\n%s", t, s_); free(s_); fail(); } } while (0)

/* Lesson 02 at step 1: 3 and 1 stay and say the lesson has no such step;
 * End then 3 stays at the last step (it jumped back to step 1). */
static void stage_keys_lesson2(void **state)
{
    Fix *f = open_yaml(LESSON2);
    keys(f->v, "3");
    assert_int_equal(f->v->s.step, 0);
    assert_string_equal(f->v->msg, "This lesson has no step at stage 3; its steps show stages 2, 4, 5.");
    keys(f->v, "1");
    assert_int_equal(f->v->s.step, 0);
    assert_string_equal(f->v->msg, "This lesson has no step at stage 1; its steps show stages 2, 4, 5.");
    key(f->v, KEY_END);
    assert_int_equal(f->v->s.step, 7);
    keys(f->v, "3");
    assert_int_equal(f->v->s.step, 7);
    assert_int_equal(session_stage(&f->v->s), STAGE_OUTPUT);
    keys(f->v, "4");
    assert_int_equal(f->v->s.step, 1); /* an earlier stage: looked for behind, the first of its run */
    close_fix(f);
}

/* Lesson 05 at step 1: 3 stays at stage 1 (it landed on stage 2), in zh too. */
static void stage_keys_lesson5(void **state)
{
    Fix *f = open_yaml(LESSON5);
    keys(f->v, "3");
    assert_int_equal(f->v->s.step, 0);
    assert_int_equal(session_stage(&f->v->s), STAGE_INPUT);
    assert_string_equal(f->v->msg, "This lesson has no step at stage 3; its steps show stages 1, 2, 4, 5.");
    keys(f->v, "2");
    assert_int_equal(f->v->s.step, 1);
    close_fix(f);
}

/* An action on a matrix a later stage computes, typed at stage 1: the
 * status says it is done and where it shows, not that x₁₁ is unchanged. */
static void action_before_its_stage(void **state)
{
    Fix *f = open_yaml(LESSON5);
    keys(f->v, ":Q[1] = K[1]\r");
    assert_int_equal(f->v->s.step, 0);
    assert_string_equal(f->v->msg, "Q[1] = K[1]: done; it shows from stage 2 (Space goes on). u undoes it.");
    close_fix(f);
}

/* e at stage 1 does not move the lesson on (it showed Q, K, V ahead of the
 * script, and Esc did not go back): it says which step computes them. */
static void edit_before_qkv(void **state)
{
    Fix *f = open_yaml(LESSON5);
    keys(f->v, "e");
    assert_int_equal(f->v->s.step, 0);
    assert_int_equal(f->v->s.cur.reached, STAGE_INPUT);
    assert_int_equal(f->v->mode, MODE_NORMAL);
    assert_string_equal(f->v->msg, "Edit mode needs Q, K, V, computed at step 2. To change X here: :X[1][1] = 2");
    close_fix(f);
    f = open_yaml(HEAD "steps:\n  - stage: input\n  - stage: input\n");
    keys(f->v, "e");
    assert_string_equal(f->v->msg, "This lesson never computes Q, K, V. To change X here: :X[1][1] = 2");
    close_fix(f);
}

/* Every change names itself and its effect on the focused result: s, m,
 * u, Ctrl-R, r, a ':' action, an edit-mode set and both nudges (issue 10:
 * s and m said nothing; issue 11: the name alone did not say what moved).
 * At stage 2 the focused result is q₁₁, which a toggle leaves alone. */
static void actions_name_themselves(void **state)
{
    Fix *f = open_yaml(LESSON2);
    View *v = f->v;
    keys(v, "r");
    assert_string_equal(v->msg, "Nothing to reset: this is the lesson as written.");
    keys(v, "s");
    assert_string_equal(v->msg, "scaling ÷√3: q₁₁ 0.149 (unchanged). u undoes it.");
    keys(v, "m");
    assert_string_equal(v->msg, "stable softmax: q₁₁ 0.149 (unchanged). u undoes it.");
    keys(v, "u");
    assert_string_equal(v->msg, "undo stable softmax: q₁₁ 0.149 (unchanged). Ctrl-R redoes it.");
    keys(v, "\x12"); /* Ctrl-R */
    assert_string_equal(v->msg, "redo stable softmax: q₁₁ 0.149 (unchanged). u undoes it.");
    keys(v, "s");
    assert_string_equal(v->msg, "no scaling: q₁₁ 0.149 (unchanged). u undoes it.");
    keys(v, ":Q[1] = K[1] * 5\r");
    assert_string_equal(v->msg, "Q[1] = K[1] * 5: q₁₁ 0.149 → 0.363. u undoes it.");
    keys(v, "r");
    assert_string_equal(v->msg, "reset: q₁₁ 0.363 → 0.149. u undoes the reset.");
    keys(v, "u");
    assert_string_equal(v->msg, "undo reset: q₁₁ 0.149 → 0.363. Ctrl-R redoes it.");
    keys(v, "e2\r");
    assert_string_equal(v->msg, "Q[1][1] = 2: q₁₁ 0.363 → 2.000. u undoes it.");
    keys(v, "+");
    assert_string_equal(v->msg, "Q[1][1] + 0.1: q₁₁ 2.000 → 2.100. u undoes it.");
    keys(v, "_");
    assert_string_equal(v->msg, "Q[1][1] − 0.1: q₁₁ 2.100 → 2.000. u undoes it.");
    keys(v, "u");
    assert_string_equal(v->msg, "undo Q[1][1] = 2: q₁₁ 2.000 → 2.100. Ctrl-R redoes it."); /* what the nudge set */
    /* - starts a negative number (it used to nudge, then the field read 0.5) */
    int n = v->s.nedits;
    keys(v, "-0.5");
    assert_true(v->editing);
    assert_shown(" Q[1][1] = -0.5");
    keys(v, "\r");
    assert_string_equal(v->msg, "Q[1][1] = -0.5: q₁₁ 2.100 → −0.500. u undoes it.");
    assert_int_equal(v->s.nedits, n + 1);                       /* one action, not a nudge and a set */
    assert_near(MAT_AT(&v->s.cur.m[M_Q], 0, 0), -0.5, 1e-15);
    keys(v, "−1\r");                                            /* U+2212 too */
    assert_near(MAT_AT(&v->s.cur.m[M_Q], 0, 0), -1.0, 1e-15);
    keys(v, "1.21\r+");                                         /* a nudge lands on the decimal meant */
    assert_true(MAT_AT(&v->s.cur.m[M_Q], 0, 0) == 1.31);        /* not 1.3100000000000003 */
    keys(v, "\r");                                              /* Enter: the field holds the exact value */
    assert_shown(" Q[1][1] = 1.31");
    keys(v, "qy");                                              /* the view's keys are not typed into a number */
    assert_true(v->editing);
    assert_string_equal(v->field.buf, "1.31");
    assert_string_equal(v->msg, "A cell takes a number: digits, - and . (like -0.5 or 1e-3). Enter sets it; "
                                "Esc closes the field first.");
    keys(v, "\x1b");
    assert_shown(" ←↑↓→ cell  0-9 or - number  Enter edit  + _ nudge 0.1  Tab matrix  Esc leave");
    close_fix(f);
    /* The softmax stage (lesson 02's Space s Space): the line. */
    f = open_yaml(LESSON2);
    v = f->v;
    keys(v, "nn");
    keys(v, "s");
    assert_string_equal(v->msg, "scaling ÷√3: α₁₁ 0.873 → 0.695. u undoes it.");
    keys(v, "m");
    assert_string_equal(v->msg, "stable softmax: α₁₁ 0.695 (unchanged). u undoes it.");
    keys(v, "e");
    keys(v, "\t"); /* K: edit mode at stage 4 explains the stage's α₁₁ */
    keys(v, "+");
    assert_string_equal(v->msg, "K[1][1] + 0.1: α₁₁ 0.695 → 0.699. u undoes it.");
    close_fix(f);
}

/* Tab names the matrix edit mode is on (it kept saying Q). */
static void edit_tab_names_matrix(void **state)
{
    Fix *f = open_yaml(LESSON2);
    keys(f->v, "e");
    assert_string_equal(f->v->msg, "Edit mode on Q: every change is an action, so u undoes it.");
    keys(f->v, "\t");
    assert_string_equal(f->v->msg, "Edit mode on K: every change is an action, so u undoes it.");
    keys(f->v, "\t\t\t");
    assert_int_equal(f->v->emat, M_WQ);
    assert_string_equal(f->v->msg, "Edit mode on Wq: every change is an action, so u undoes it.");
    keys(f->v, "\t\t\t");                                    /* no W_O here: Wv, then Q again */
    assert_int_equal(f->v->emat, M_Q);
    close_fix(f);
}

static char *read_lesson(const char *path);

/* In a lesson with W_O (08) Tab reaches Wo after Wv, and a number sets its
 * cell (newcomer review 29: the cycle stopped at Wv). */
static void edit_tab_reaches_wo(void **state)
{
    Fix *f = open_yaml(read_lesson("lessons/08-two-heads.yaml"));
    View *v = f->v;
    keys(v, "6e");
    for (int k = 0; k < 7; k++)
        keys(v, "\t");
    assert_int_equal(v->emat, M_WO);
    assert_string_equal(v->msg, "Edit mode on Wo: every change is an action, so u undoes it.");
    assert_shown("O = [O1 O2]  4×4 result                Wo  4×4 parameter"); /* beside what it multiplies */
    v->ei = 0;
    v->ej = 0;
    keys(v, "0.25\r");
    assert_string_equal(v->msg, "Wo[1][1] = 0.25: y₂₁ 1.367 → 0.696. u undoes it."); /* 0.25·0.895 + 0.5·0.944 */
    assert_near(MAT_AT(&v->s.cur.m[M_WO], 0, 0), 0.25, 1e-15);
    keys(v, "\t");
    assert_int_equal(v->emat, M_Q);
    close_fix(f);
}

/* Newcomer D4: a drawn number (lesson 01's Q[2][2], shown −0.070) nudges
 * from the digits shown: 0.03, and the status and the notice say so (they
 * said 0.0296…, 16 digits, as undo and a saved lesson did). */
static void nudge_from_digits_shown(void **state)
{
    (void)state;
    Fix *f = open_at(read_lesson("lessons/01-three-tokens.yaml"), 3);
    View *v = f->v;
    assert_true(MAT_AT(&v->s.cur.m[M_Q], 1, 1) != num_round15(MAT_AT(&v->s.cur.m[M_Q], 1, 1))); /* 16 digits */
    keys(v, "el+");                                             /* edit mode on the focused row 2 */
    assert_true(MAT_AT(&v->s.cur.m[M_Q], 1, 1) == 0.03);
    assert_string_equal(v->msg, "Q[2][2] + 0.1: q₂₂ −0.070 → 0.030. u undoes it.");
    char notice[256];
    assert_true(session_notice(&v->s, false, 0, notice, sizeof notice));
    assert_non_null(strstr(notice, "Q[2][2] = 0.03"));
    close_fix(f);
}

/* An empty Enter in edit mode cancels (it said "" is not a number). */
static void edit_empty_enter_cancels(void **state)
{
    Fix *f = open_yaml(LESSON2);
    keys(f->v, "e\r");
    assert_true(f->v->editing);
    keys(f->v, "\x15\r"); /* Ctrl-U clears the field, Enter */
    assert_false(f->v->editing);
    assert_int_equal(f->v->mode, MODE_EDIT);
    assert_string_equal(f->v->msg, "");
    assert_int_equal(f->v->s.nedits, 0);
    keys(f->v, "5\x7f  \r"); /* typed, erased, blanks: still nothing */
    assert_false(f->v->editing);
    assert_int_equal(f->v->s.nedits, 0);
    close_fix(f);
}

/* Enter opens the field with the cell's exact value, so Enter again keeps
 * it (1e300 became 1e+62, 1e-9 became 0). */
static void edit_field_exact(void **state)
{
    static const char *typed[] = {"1e300", "1e-9", "0.1", "-123456.789012345"};
    static const double want[] = {1e300, 1e-9, 0.1, -123456.789012345};
    Fix *f = open_yaml(LESSON2);
    keys(f->v, "e");
    for (int k = 0; k < 4; k++) {
        char line[64];
        snprintf(line, sizeof line, "\x15%s\r", typed[k]);
        keys(f->v, "\r"); /* open the field (with the old value) */
        keys(f->v, line);
        assert_true(MAT_AT(&f->v->s.cur.m[M_Q], 0, 0) == want[k]);
        keys(f->v, "\r\r"); /* open with the value, set it again */
        keys(f->v, "\r\r");
        assert_true(MAT_AT(&f->v->s.cur.m[M_Q], 0, 0) == want[k]);
    }
    close_fix(f);
}

/* The save prompt refuses a folder up front and stays open (it offered to
 * overwrite it, then failed). */
static void save_refuses_folder(void **state)
{
    char dir[] = "/tmp/qkv-keys-XXXXXX", line[128], want[256];
    assert_non_null(mkdtemp(dir));
    Fix *f = open_yaml(LESSON2);
    keys(f->v, "s");
    snprintf(line, sizeof line, "w\x15%s\r", dir);
    keys(f->v, line);
    snprintf(want, sizeof want, "cannot save %s: it is a folder; type a file name, such as %s/lesson.yaml", dir, dir);
    assert_string_equal(f->v->msg, want);
    assert_int_equal(f->v->mode, MODE_SAVE);
    keys(f->v, "/a.yaml\r");
    snprintf(want, sizeof want, "%s/a.yaml", dir);
    assert_int_equal(access(want, F_OK), 0);
    assert_int_equal(f->v->mode, MODE_NORMAL);
    unlink(want);
    rmdir(dir);
    close_fix(f);
}

/* w runs the real --check (render_check_text, which main hands the view)
 * on the file it would write and refuses with its first message: lesson 01
 * with step 1's expectation made wrong is not saved, the edit is kept. A
 * state with huge numbers (X[1][1] = 1e308 at step 8, newcomer review 30:
 * the file was written, then --check failed on it) saves now, and the file
 * passes --check: the saved lesson is the lesson's own up to the edit, and
 * the narration is measured in the script's own state, as --check does. */
static void save_refuses_unchecked(void **state)
{
    char dir[] = "/tmp/qkv-keys-XXXXXX", line[160], path[128], msg[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/big.yaml", dir);
    char *yaml = read_lesson("lessons/01-three-tokens.yaml"), *at = strstr(yaml, "\"X[3]\": [0.0, 0.0, 1.0, 0.2]");
    assert_non_null(at);
    memcpy(at + strlen("\"X[3]\": [0.0, 0.0, 1.0, 0."), "3", 1); /* 0.2 -> 0.3: step 1's check fails */
    Fix *f = open_at(yaml, 8);
    View *v = f->v;
    v->save_check = render_check_text;
    keys(v, ":X[1][1] = 2\r");
    snprintf(line, sizeof line, "w\x15%s\r", path);
    keys(v, line);
    snprintf(msg, sizeof msg, "Not saved: qkvtutor --check would refuse the saved lesson: %s:46:5: step 1: X[3][4] "
                              "is 0.200, expected 0.3 (within 0.05).", path);
    assert_string_equal(v->msg, msg);
    assert_int_equal(v->msg_role, ROLE_ERROR);
    assert_int_equal(access(path, F_OK), -1);                  /* nothing written */
    assert_true(session_dirty(&v->s));                          /* the edit is kept */
    close_fix(f);
    yaml = read_lesson("lessons/01-three-tokens.yaml"); /* the lesson as shipped */
    f = open_at(yaml, 8);
    v = f->v;
    v->save_check = render_check_text;
    keys(v, ":X[1][1] = 1e308\r");
    keys(v, line);
    assert_int_equal(access(path, F_OK), 0);
    Lesson l;
    char err[512];
    assert_true(lesson_load_file(path, &l, err, sizeof err));
    size_t n = 0;
    char *text = lesson_save_text(&v->s, &n);
    assert_int_equal(render_check_text(path, text, n, err, sizeof err), 0);
    free(text);
    lesson_free(&l);
    unlink(path);
    rmdir(dir);
    close_fix(f);
}

/* --at N opens the view at step N, with nothing marked as changed. */
static void view_opens_at_step(void **state)
{
    Fix *f = open_at(LESSON2, 3);
    assert_int_equal(f->v->s.step, 2);
    assert_int_equal(f->v->s.cur.reached, STAGE_SOFTMAX);
    assert_false(f->v->s.has_before);
    assert_true(session_overridden(&f->v->s, M_Q, 0)); /* step 3's do: applied */
    view_draw(f->v);
    int x;
    assert_true(screen_find("3/8", &x) >= 0);
    close_fix(f);
    f = open_at(LESSON2, 0);
    assert_int_equal(f->v->s.step, 0);
    close_fix(f);
}

static char *read_lesson(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}


/* Exercises (tests/live/templates-asks.yaml): the asked cell is "?" in the
 * matrix, the arithmetic and the narration; digits open the answer field
 * (3 does not jump to stage 3); Enter grades it (✗ with the true value and
 * its arithmetic); an answer that cannot be read keeps the field open;
 * next reveals an open ask and stays; the last step shows the tally. */
static void asks_answered(void **state)
{
    Fix *f = open_yaml(read_lesson("tests/live/templates-asks.yaml"));
    View *v = f->v;
    keys(v, "n");
    assert_int_equal(v->s.step, 1);
    assert_shown("score₁₂ = q₁·k₂ = ?.");                       /* the narration's template */
    assert_shown("(0.194)(0.094) = ?");                          /* the arithmetic */
    assert_shown("? S[1][2]: type your answer, Enter grades it; Space reveals it.");
    assert_shown(" 0-9 answer (1-5 do not jump)  Space reveal ");
    assert_false(shown("Space next"));
    keys(v, "3");
    assert_int_equal(v->mode, MODE_ANSWER);
    assert_int_equal(v->s.step, 1);                              /* 3 did not jump to stage 3 */
    assert_shown(" answer S[1][2] = 3");
    keys(v, "]sm?u");                                            /* the view's keys are not typed */
    assert_string_equal(v->field.buf, "3");
    assert_int_equal(v->mode, MODE_ANSWER);
    assert_string_equal(v->msg, "An answer is numbers: digits, - and . (a row's numbers separated by commas). "
                                "Enter grades it; Esc closes the answer field first.");
    keys(v, "e-1");                                              /* what a number may hold is */
    assert_string_equal(v->field.buf, "3e-1");
    assert_string_equal(v->msg, "");                             /* typing on clears the refusal */
    keys(v, "\x15" "1,2\r");
    assert_int_equal(v->mode, MODE_ANSWER);                     /* unreadable: the field stays */
    assert_int_equal(v->msg_role, ROLE_ERROR);
    keys(v, "\x15" "0.01\r");
    assert_int_equal(v->mode, MODE_NORMAL);
    assert_string_equal(v->msg, "✗ not quite: S[1][2] (your answer: 0.01). Type again, or Space to reveal.");
    assert_shown("(0.194)(0.094) = ?");                          /* no true value: a retry is real */
    assert_false(shown("0.006"));
    assert_shown("? S[1][2]: type your answer, Enter grades it; Space reveals it.");
    assert_shown(" 0-9 answer (1-5 do not jump)  Space reveal ");
    keys(v, "r");                                               /* not "Nothing to reset" */
    assert_string_equal(v->msg, "Your answer to S[1][2] stays graded; type a new one (or Enter) to try again.");
    keys(v, "\r");                                              /* Enter opens the field again */
    assert_int_equal(v->mode, MODE_ANSWER);
    assert_int_equal(v->s.step, 1);
    assert_shown(" answer S[1][2] =");
    keys(v, "\x1b");
    assert_int_equal(v->mode, MODE_NORMAL);
    keys(v, "0.006");                                           /* typing after a grade: a new answer */
    assert_int_equal(v->mode, MODE_ANSWER);
    assert_shown(" answer S[1][2] = 0.006");
    keys(v, "\r");
    assert_string_equal(v->msg, "✓ right: S[1][2] = 0.006");
    keys(v, "\r");                                              /* right now: Enter goes on */
    assert_int_equal(v->s.step, 2);
    assert_shown("我 weighs ?, ?, ?.");
    keys(v, "0.313, 0.337 0.35\r");
    assert_string_equal(v->msg, "✓ right: A[1] = 0.313, 0.337, 0.350");
    assert_shown("α₁ = exp ÷ sum = [0.313, 0.337, 0.350]");
    assert_shown("? A[3][3]: type");
    keys(v, "0.5\r");
    assert_string_equal(v->msg, "✗ not quite: A[3][3] (your answer: 0.5). Type again, or Space to reveal.");
    assert_shown("? A[3][3]: type");
    keys(v, " ");                                               /* next reveals, and stays */
    assert_int_equal(v->s.step, 2);
    assert_string_equal(v->msg, "Revealed: A[3][3] = 0.287. Space goes on.");
    assert_false(shown("? A[3][3]"));
    assert_int_equal(v->fi, 2);                                 /* the focus on what was asked */
    keys(v, "  ");
    assert_int_equal(v->s.step, 4);
    assert_shown("o₁₁ = ?");
    keys(v, "−0.147\r");                                        /* U+2212 opens the field too */
    assert_string_equal(v->msg, "✓ right: O[1][1] = −0.147");
    assert_shown("Your answers: right 3 of 4 (1 after a retry), 1 wrong.");
    keys(v, "P");                                               /* projected: no student's tally */
    assert_true(v->present);
    assert_false(shown("Your answers"));
    keys(v, "P");
    assert_shown("Your answers: right 3 of 4 (1 after a retry), 1 wrong.");
    close_fix(f);
    /* zh */
    i18n_set(LANG_ZH, "build/locale");
    ViewOpt zh = dark;
    zh.lang = LANG_ZH;
    Lesson l;
    char err[512];
    const char *yaml = read_lesson("tests/live/templates-asks.yaml");
    assert_true(lesson_load_buffer("t.yaml", yaml, strlen(yaml), &l, err, sizeof err));
    View *z = view_new(&l, &zh);
    keys(z, "n");
    assert_shown("? S[1][2]：输入你的答案，按 Enter 判分；按 Space 揭晓。");
    keys(z, " ");
    assert_string_equal(z->msg, "揭晓：S[1][2] = 0.006。按 Space 继续。");
    view_free(z);
    lesson_free(&l);
    i18n_set(LANG_EN, NULL);
}

/* Lesson 01 step 7 asks S[1][2]. The new user's keys: 5, Enter (✗), then
 * Backspace to fix the 5: it edits the answer kept in the field and stays
 * at step 7 (it went back to step 6, the answer lost). With nothing left to
 * delete Backspace still stays, and says PgUp goes back; at an open
 * question too. Enter opens the field empty: typing replaces the wrong
 * answer (it was appended to it: 0.35 then 0.006 gave 0.350.006). */
static void backspace_after_wrong_answer(void **state)
{
    Fix *f = open_at(read_lesson("lessons/01-three-tokens.yaml"), 7);
    View *v = f->v;
    assert_int_equal(v->s.step, 6);
    keys(v, "5\r");
    assert_string_equal(v->msg, "✗ not quite: S[1][2] (your answer: 5). Type again, or Space to reveal.");
    key(v, KEY_BACKSPACE);
    assert_int_equal(v->s.step, 6);                             /* not back to step 6 of 14 */
    assert_shown("7/14");
    assert_int_equal(v->mode, MODE_ANSWER);                     /* the 5 deleted, the field open */
    assert_string_equal(v->field.buf, "");
    assert_shown(" answer S[1][2] =");
    key(v, KEY_BACKSPACE);                                      /* nothing to delete: stays */
    assert_int_equal(v->s.step, 6);
    assert_int_equal(v->mode, MODE_ANSWER);
    keys(v, "0.35\r");
    assert_string_equal(v->msg, "✗ not quite: S[1][2] (your answer: 0.35). Type again, or Space to reveal.");
    keys(v, "\x7f");                                           /* DEL, as many terminals send it */
    assert_int_equal(v->mode, MODE_ANSWER);
    assert_string_equal(v->field.buf, "0.3");
    assert_shown(" answer S[1][2] = 0.3");
    keys(v, "\x1b\r");                                        /* Esc, then Enter: a new answer */
    assert_string_equal(v->field.buf, "");
    keys(v, "0.006\r");
    assert_string_equal(v->msg, "✓ right: S[1][2] = 0.006");
    key(v, KEY_BACKSPACE);                                      /* answered: Backspace goes back */
    assert_int_equal(v->s.step, 5);
    close_fix(f);
    f = open_at(read_lesson("lessons/01-three-tokens.yaml"), 7); /* an open question */
    v = f->v;
    key(v, KEY_BACKSPACE);
    assert_int_equal(v->s.step, 6);
    assert_int_equal(v->mode, MODE_NORMAL);
    assert_string_equal(v->msg, "Nothing typed to delete: type your answer. PgUp goes back a step.");
    key(v, KEY_PPAGE);
    assert_int_equal(v->s.step, 5);
    close_fix(f);
}

/* Training keys: before the softmax stage they say where A comes; T sets
 * a target on the focused cell (again: none); g without a target says why;
 * g and G name the steps and their effect on the focused weight; u takes
 * back a whole G; while a row of Q is set by hand, g says why and how. */
static void training_keys(void **state)
{
    Fix *f = open_yaml(LESSON2);
    keys(f->v, "g");
    assert_string_equal(f->v->msg, "Training works on A, computed at step 2 (stage 4, softmax): T sets a target there, "
                                   "g takes a step.");
    keys(f->v, "n");
    keys(f->v, "g");
    assert_string_equal(f->v->msg, "step: nothing to learn yet: set a target first, like target A[1] = 3 (in the view, T "
                                   "targets the focused cell of A)");
    f->v->fi = 0;
    f->v->fj = 2;
    keys(f->v, "T");
    assert_string_equal(f->v->msg, "target A[1] = 3: α₁₃ 0.350 (unchanged). u undoes it.");
    keys(f->v, "g");
    assert_string_equal(f->v->msg, "one gradient step, lr 0.5: α₁₃ 0.350 → 0.387. u undoes it.");
    keys(f->v, "G");
    /* 1 + 10 steps: REFERENCE.md step 11 */
    assert_string_equal(f->v->msg, "10 gradient steps, lr 0.5: α₁₃ 0.387 → 0.966. u undoes it.");
    int n = f->v->s.nedits;
    keys(f->v, "u");
    assert_int_equal(f->v->s.nedits, n - 1);
    assert_near(MAT_AT(&f->v->s.cur.m[M_A], 0, 2), 0.38660927092940062, 1e-12);
    keys(f->v, ":step 2\r"); /* the prompt names the steps and their effect too */
    assert_string_equal(f->v->msg, "2 gradient steps, lr 0.5: α₁₃ 0.387 → 0.535. u undoes it.");
    keys(f->v, "u");
    keys(f->v, "n"); /* step 3's do: Q[1] = K[1] * 5 */
    keys(f->v, "g");
    assert_string_equal(f->v->msg, "step: a step trains W_Q and W_K, but row 1 of Q is set by hand, not computed from "
                                   "them; reset it first (r in the view, or undo the edit with u)");
    keys(f->v, "p");
    keys(f->v, "T");
    assert_string_equal(f->v->msg, "target A[1] = none: α₁₃ 0.387 (unchanged). u undoes it.");
    close_fix(f);
}

/* Ctrl-C is a reflex for "cancel": it closes the ':' prompt, the cell
 * editor, the save name, the answer field and the help first (the line
 * typed is dropped, nothing else); with unsaved edits it asks like q, and
 * Ctrl-C at that question stays; with nothing to lose it quits. */
static void ctrl_c_cancels_then_asks(void **state)
{
    Fix *f = open_yaml(LESSON2);
    View *v = f->v;
    keys(v, ":Q[1] = K[1]\r");
    assert_true(session_dirty(&v->s));
    keys(v, ":X[1");
    assert_int_equal(v->mode, MODE_PROMPT);
    assert_true(view_key(v, 3, false));                         /* the prompt closes, the view stays */
    assert_int_equal(v->mode, MODE_NORMAL);
    assert_int_equal(v->s.nedits, 1);                           /* the edit is kept */
    keys(v, "e0.7");
    assert_true(v->editing);
    assert_true(view_key(v, 3, false));                         /* the cell editor closes, edit mode stays */
    assert_int_equal(v->mode, MODE_EDIT);
    assert_false(v->editing);
    assert_int_equal(v->s.nedits, 1);
    keys(v, "\x1b" "w");
    assert_int_equal(v->mode, MODE_SAVE);
    assert_true(view_key(v, 3, false));
    assert_int_equal(v->mode, MODE_NORMAL);
    assert_string_equal(v->msg, "Not saved.");
    keys(v, "?");
    assert_true(view_key(v, 3, false));
    assert_int_equal(v->mode, MODE_NORMAL);
    assert_true(view_key(v, 3, false));                         /* unsaved edits: it asks */
    assert_int_equal(v->mode, MODE_CONFIRM);
    assert_string_equal(v->msg, "You have unsaved edits. Quit anyway? y quits, w saves, any other key stays.");
    assert_true(view_key(v, 3, false));                         /* a second Ctrl-C stays */
    assert_int_equal(v->mode, MODE_NORMAL);
    assert_true(view_key(v, 3, false));
    assert_false(view_key(v, 'y', false));                      /* y quits */
    close_fix(f);
    f = open_yaml(LESSON2);                                     /* nothing to lose: Ctrl-C quits */
    assert_false(view_key(f->v, 3, false));
    close_fix(f);
    f = open_yaml(read_lesson("tests/live/templates-asks.yaml")); /* the answer field */
    keys(f->v, "n3");
    assert_int_equal(f->v->mode, MODE_ANSWER);
    assert_true(view_key(f->v, 3, false));
    assert_int_equal(f->v->mode, MODE_NORMAL);
    assert_true(session_ask_open(&f->v->s) >= 0);               /* still open, not graded */
    close_fix(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(stage_keys_lesson2, setup, teardown),
        cmocka_unit_test_setup_teardown(stage_keys_lesson5, setup, teardown),
        cmocka_unit_test_setup_teardown(action_before_its_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(edit_before_qkv, setup, teardown),
        cmocka_unit_test_setup_teardown(actions_name_themselves, setup, teardown),
        cmocka_unit_test(nudge_from_digits_shown),
        cmocka_unit_test_setup_teardown(edit_tab_names_matrix, setup, teardown),
        cmocka_unit_test_setup_teardown(edit_tab_reaches_wo, setup, teardown),
        cmocka_unit_test_setup_teardown(edit_empty_enter_cancels, setup, teardown),
        cmocka_unit_test_setup_teardown(edit_field_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(save_refuses_folder, setup, teardown),
        cmocka_unit_test_setup_teardown(save_refuses_unchecked, setup, teardown),
        cmocka_unit_test_setup_teardown(view_opens_at_step, setup, teardown),
        cmocka_unit_test_setup_teardown(asks_answered, setup, teardown),
        cmocka_unit_test_setup_teardown(backspace_after_wrong_answer, setup, teardown),
        cmocka_unit_test_setup_teardown(training_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(ctrl_c_cancels_then_asks, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
