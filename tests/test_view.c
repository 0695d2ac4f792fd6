/* test_view.c - the view drawn on a headless screen and read back.
 *
 * Golden screens live in tests/golden/; `make golden` (QKV_GOLDEN=1)
 * rewrites them, and the diff is reviewed like code. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/embedded.h"
#include "words/fmt.h"
#include "lesson/session.h"
#include "text/i18n.h"
#include "screen.h"
#include "term/grid.h"
#include "term/view.h"
#include "testutil.h" /* after lesson.h: cmocka defines a macro expect_check */
#include "golden.h"

typedef struct {
    Lesson l;
    View *v;
} Fix;

static const EmbeddedLesson *builtin(const char *prefix)
{
    for (int k = 0; k < embedded_count; k++)
        if (strncmp(embedded_lessons[k].name, prefix, strlen(prefix)) == 0)
            return &embedded_lessons[k];
    return NULL;
}

static Fix *open_lesson_text(const char *name, const char *yaml, size_t len, const ViewOpt *o)
{
    Fix *f = calloc(1, sizeof *f);
    char err[512];
    assert_non_null(f);
    if (!lesson_load_buffer(name, yaml, len, &f->l, err, sizeof err))
        fail_msg("%s", err);
    f->v = view_new(&f->l, o);
    assert_non_null(f->v);
    return f;
}

static Fix *open_builtin(const char *prefix, const ViewOpt *o)
{
    const EmbeddedLesson *e = builtin(prefix);
    assert_non_null(e);
    return open_lesson_text(e->name, e->data, e->len, o);
}

/* A built-in lesson with its asks taken out: for the tests of the view's
 * mechanics (stage keys, edits, the trace), whose digits would otherwise
 * type answers at the lesson's question steps. */
static Fix *open_plain(const char *prefix, const ViewOpt *o)
{
    const EmbeddedLesson *e = builtin(prefix);
    Fix *f = calloc(1, sizeof *f);
    char err[512];
    assert_non_null(e);
    assert_non_null(f);
    if (!lesson_load_buffer(e->name, e->data, e->len, &f->l, err, sizeof err))
        fail_msg("%s", err);
    for (int k = 0; k < f->l.nsteps; k++) {
        free(f->l.steps[k].ask);
        f->l.steps[k].ask = NULL;
        f->l.steps[k].nask = 0;
    }
    f->v = view_new(&f->l, o);
    assert_non_null(f->v);
    return f;
}

static void close_fix(Fix *f)
{
    view_free(f->v);
    lesson_free(&f->l);
    free(f);
}

static const ViewOpt dark = {LANG_EN, false, "dark", false, 0, false, NULL};
static const ViewOpt mono = {LANG_EN, false, "mono", false, 0, false, NULL};

static int setup(void **state)
{
    setenv("TERM", "xterm-256color", 1);
    i18n_set(LANG_EN, NULL);
    return screen_open(30, 100) ? 0 : -1;
}

static int teardown(void **state)
{
    screen_close();
    return 0;
}


static bool on_screen(const char *s)
{
    int x;
    return screen_find(s, &x) >= 0;
}

/* Is there a screen line holding these words in this order, separated
 * only by blanks? (Cell widths vary with the room a band has.) */
static bool row_on_screen(const char *const *words)
{
    char *text = screen_text(), *save = NULL;
    bool found = false;
    for (char *line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
        char *p = strstr(line, words[0]);
        found = p != NULL;
        for (int k = 1; found && words[k]; k++) {
            p += strlen(words[k - 1]);
            p += strspn(p, " ");
            found = strncmp(p, words[k], strlen(words[k])) == 0;
        }
    }
    free(text);
    return found;
}

#define assert_row(...) do { const char *w_[] = {__VA_ARGS__, NULL}; if (!row_on_screen(w_)) { \
    char *t_ = screen_text(); print_error("row not on screen: %s ...\n%s", w_[0], t_); free(t_); fail(); } } while (0)

#define assert_on_screen(s) do { if (!on_screen(s)) { char *t_ = screen_text(); \
    print_error("not on screen: %s\n%s", s, t_); free(t_); fail(); } } while (0)

/* Every step of lesson 01, as it opens (a question still open), matches its
 * golden screen at 100x30 and 80x24. */
static void test_golden_steps(void **state)
{
    static const int sizes[2][2] = {{30, 100}, {24, 80}};
    for (int s = 0; s < 2; s++) {
        screen_resize(sizes[s][0], sizes[s][1]);
        Fix *f = open_builtin("lessons/01", &dark);
        for (int k = 0; k < f->l.nsteps; k++) {
            char name[64];
            view_draw(f->v);
            snprintf(name, sizeof name, "01-step%d-%dx%d", k + 1, sizes[s][1], sizes[s][0]);
            golden(name);
            /* next at a question reveals it and stays: a second next moves on */
            view_keys(f->v, f->l.steps[k].nask ? "nn" : "n");
        }
        close_fix(f);
    }
}

/* Pressing 1-5 walks the ribbon through all five stages in order; stage 3
 * reads QKᵀ in lesson 01, which does not scale, and QKᵀ/√d once s scales. */
static void test_ribbon_walks_stages(void **state)
{
    static const char *marks[] = {"[1 X]", "[2 Q K V]", "[3 QKᵀ]", "[4 softmax]", "[5 A·V]"};
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "1");
    for (int st = 1; st <= 5; st++) {
        view_keys(f->v, (char[]){(char)('0' + st), 0});
        view_draw(f->v);
        assert_on_screen(marks[st - 1]);
    }
    view_keys(f->v, "3s");
    view_draw(f->v);
    assert_on_screen("[3 QKᵀ/√d]");
    close_fix(f);
}

/* Focus (1,2) at the scores stage writes out score12 with every product. */
static void test_score12_arithmetic(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "3kkkhhhl"); /* row 1, column 2 */
    view_draw(f->v);
    assert_on_screen("score₁₂ = q₁·k₂ = (0.149)(−0.169) + (−0.041)(−0.304) + (0.194)(0.094) = 0.006");
    close_fix(f);
}

/* In mono the focused cell, query row and key column differ by attributes
 * alone: score12 is reverse, q1 (Q's row 1) bold, k2 (K's row 2, column 2
 * of Kᵀ) underlined; the rest of S stays plain. */
static void test_mono_focus_attributes(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &mono);
    view_keys(f->v, "3kkkhhhl");
    view_draw(f->v);
    int x, y = screen_find("0.006", &x);
    assert_true(y > 0);
    assert_true(screen_attr(y, x) & A_REVERSE);          /* the cell */
    int yq = screen_find("0.149", &x);                   /* q1, in Q above S */
    assert_true(yq > 0 && yq < y);
    assert_true(screen_attr(yq, x) & A_BOLD);
    assert_false(screen_attr(yq, x) & A_REVERSE);
    int yk = screen_find("−0.169", &x);                  /* k2 */
    assert_true(yk > yq && yk < y);
    assert_true(screen_attr(yk, x + 1) & A_UNDERLINE);
    assert_int_equal(screen_find("0.044", &x), y);       /* S's row: only the cell is marked */
    assert_false(screen_attr(y, x) & (A_BOLD | A_REVERSE | A_UNDERLINE));
    close_fix(f);
}

/* A typed action recomputes at once and the bars show before -> after. */
static void test_action_before_after(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "4kkk:Q[1] = K[1] * 5\r");
    view_draw(f->v);
    assert_on_screen("0.313 → 0.873");
    assert_row("▲0.873", "▼0.076", "▼0.052");
    view_keys(f->v, "s");
    view_draw(f->v);
    assert_row("▼0.695", "▲0.169"); /* A gives its third column to the bars */
    assert_on_screen("0.873 → 0.695");
    assert_on_screen("0.052 → 0.136");
    assert_row("▼1.739", "▼0.327", "▼0.106"); /* s₁, quoted by the arithmetic, whole */
    view_keys(f->v, "uu");
    view_draw(f->v);
    assert_row("▼0.313", "▲0.337");
    assert_on_screen("0.873 → 0.313");
    assert_on_screen("0.052 → 0.350");
    close_fix(f);
}

/* The title card (M2): a lesson started from step 1 opens on its title and
 * about:; any key goes to step 1; p (PgUp) at step 1 shows it again. */
static void test_title_card(void **state)
{
    (void)state;
    screen_resize(24, 80);
    ViewOpt o = dark;
    o.card = true;
    Fix *f = open_builtin("lessons/01", &o);
    view_draw(f->v);
    assert_on_screen("four features per token");
    assert_on_screen("Press any key to begin with step 1.");
    view_keys(f->v, "x");
    view_draw(f->v);
    assert_false(on_screen("four features per token"));
    assert_on_screen("Each token is one row of X");
    assert_on_screen(" 1/14 ");
    view_keys(f->v, "p");
    view_draw(f->v);
    assert_on_screen("four features per token");
    view_keys(f->v, " ");
    view_draw(f->v);
    assert_on_screen(" 1/14 "); /* the key that leaves the card does not also step */
    close_fix(f);
}

/* The prompt shows what is typed; an error keeps it open and changes nothing. */
static void test_prompt_error(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "4:A[1] = [1, 2, 3]");
    view_draw(f->v);
    golden("01-prompt-80x24");
    view_keys(f->v, "\r");
    view_draw(f->v);
    assert_on_screen("A is computed by the pipeline");
    assert_on_screen(":A[1] = [1, 2, 3]");
    assert_row("0.313", "0.337", "0.350");
    close_fix(f);
}

/* Edit mode: the cursor starts on Q; a typed number and Enter set the cell. */
static void test_edit_mode(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "4e");
    view_draw(f->v);
    golden("01-edit-80x24");
    view_keys(f->v, "2\r");
    view_draw(f->v);
    assert_on_screen("Q[1][1] = 2: α₁₁ 0.313 → 0.442. u undoes it."); /* the stage's focused result */
    assert_on_screen("2.000");
    view_keys(f->v, "+");
    view_draw(f->v);
    assert_on_screen("2.100");
    view_keys(f->v, "\tx");  /* Tab to K; x is not a number key here */
    view_keys(f->v, "1.5.2\r"); /* invalid: the old value stays */
    view_draw(f->v);
    assert_on_screen("not a number");
    view_keys(f->v, "\x1b");          /* close the number field */
    view_key(f->v, KEY_HOME, true);    /* stage 1 has no Q: edit mode ends */
    view_draw(f->v);
    assert_on_screen("Edit mode left");
    assert_on_screen("[1 X]");
    close_fix(f);
}

/* Below the minimum size the screen says so, and recovers on resize. */
static void test_too_small(void **state)
{
    Fix *f = open_plain("lessons/01", &dark);
    screen_resize(8, 30);
    view_draw(f->v);
    assert_on_screen("needs at least");
    screen_resize(24, 80);
    view_draw(f->v);
    assert_on_screen("[1 X]");
    close_fix(f);
}

/* The help screen comes from the key table and Esc closes it. */
static void test_help(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "?");
    view_draw(f->v);
    assert_on_screen("Space, Enter, PgDn, n");
    assert_on_screen("next step");
    view_keys(f->v, "\x1b");
    view_draw(f->v);
    assert_on_screen("[1 X]");
    close_fix(f);
}

/* The words of the screen, one per line, sorted, without the help's
 * scroll line ("lines 1-15 of 32 · ..."). */
static void help_words(char *out, size_t len, bool append)
{
    char *t = screen_text(), *save = NULL;
    if (!append)
        out[0] = '\0';
    for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (strstr(line, "lines ") && strstr(line, " of "))
            continue;
        char *ws = NULL;
        for (char *w = strtok_r(line, " ", &ws); w; w = strtok_r(NULL, " ", &ws)) {
            char key[96];
            snprintf(key, sizeof key, "\n%s\n", w);
            if (!strstr(out, key) && strlen(out) + strlen(key) < len)
                snprintf(out + strlen(out), len - strlen(out), "%s", key + (out[0] ? 1 : 0));
        }
    }
    free(t);
}

/* At 60x18 (the smallest size, and presentation's) the help does not fit:
 * it wraps each description under itself (nothing cut on the right), says
 * which lines are shown, and scrolls with Down/j, PgDn/Space, Up/k, End;
 * every word of the 200x60 help is reachable. (Newcomer review 15: the
 * last four entries were missing and nothing scrolled.) */
static void test_help_scrolls(void **state)
{
    static char all[8192], small[8192];
    screen_resize(60, 200);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "?");
    view_draw(f->v);
    help_words(all, sizeof all, false);
    assert_false(on_screen("lines 1-"));                        /* it all fits: no scroll line */
    screen_resize(18, 60);
    view_draw(f->v);
    assert_on_screen("lines 1-15 of 33 · ↓ j PgDn Space more · ↑ k PgUp back");
    assert_on_screen(":                      action prompt, e.g.");
    assert_on_screen("                       Q[1] = K[1] * 5"); /* the example kept whole */
    assert_false(on_screen("q, Ctrl-C"));
    help_words(small, sizeof small, false);
    view_keys(f->v, "j");
    view_draw(f->v);
    assert_on_screen("lines 2-16 of 33");
    for (int k = 0; k < 4; k++) {
        view_keys(f->v, " ");
        view_draw(f->v);
        help_words(small, sizeof small, true);
        char *t = screen_text();
        for (char *line = t; *line; line = strchr(line, '\n') + 1) { /* nothing reaches the edge */
            size_t n = strcspn(line, "\n");
            char one[512];
            snprintf(one, sizeof one, "%.*s", (int)n, line);
            assert_true(text_width(one) < 60);
        }
        free(t);
    }
    assert_on_screen("lines 19-33 of 33");                      /* Space stops at the end */
    assert_on_screen("q, Ctrl-C              quit");
    assert_on_screen("Esc leaves.");
    assert_on_screen("underlined: changed, no room for its ▲/▼"); /* the marks' legend, under the table */
    for (char *w = all; *w; w = strchr(w, '\n') + 1) {           /* every word is reachable */
        char key[96];
        snprintf(key, sizeof key, "\n%.*s\n", (int)strcspn(w, "\n"), w);
        if (!strstr(small, key) && strncmp(small, key + 1, strlen(key) - 1) != 0)
            fail_msg("at 60x18 the help never shows \"%.*s\"", (int)strcspn(w, "\n"), w);
    }
    view_key(f->v, KEY_PPAGE, true);
    view_draw(f->v);
    assert_on_screen("lines 5-19 of 33");
    view_key(f->v, KEY_HOME, true);
    view_draw(f->v);
    assert_on_screen("lines 1-15 of 33");
    view_key(f->v, KEY_END, true);
    view_keys(f->v, "\x1b?");                                   /* it opens again at the top */
    view_draw(f->v);
    assert_on_screen("lines 1-15 of 33");
    view_keys(f->v, "\x1b");
    /* zh: wrapped too, the last entries reachable */
    i18n_set(LANG_ZH, "build/locale");
    view_keys(f->v, "?");
    view_draw(f->v);
    assert_on_screen("第 1-15 行/共 27 · ↓ j PgDn Space 往下 · ↑ k PgUp 往上");
    view_key(f->v, KEY_END, true);
    view_draw(f->v);
    assert_on_screen("q, Ctrl-C              退出");
    assert_on_screen("微调 0.1，Esc 离开");                      /* never "微调" / "0.1" */
    assert_on_screen("下划线：这个数变了，旁边放不下 ▲/▼");
    i18n_set(LANG_EN, NULL);
    close_fix(f);
}

static char *big_lesson(int n)
{
    static char buf[1 << 16];
    int o = snprintf(buf, sizeof buf, "format: qkvtutor/1\ntitle: Sixteen\ntokens: [");
    for (int i = 0; i < n; i++)
        o += snprintf(buf + o, sizeof buf - (size_t)o, "%st%d", i ? ", " : "", i + 1);
    o += snprintf(buf + o, sizeof buf - (size_t)o, "]\nX:\n");
    for (int i = 0; i < n; i++) {
        o += snprintf(buf + o, sizeof buf - (size_t)o, "  - [");
        for (int j = 0; j < n; j++)
            o += snprintf(buf + o, sizeof buf - (size_t)o, "%s%d", j ? ", " : "", i == j);
        o += snprintf(buf + o, sizeof buf - (size_t)o, "]\n");
    }
    snprintf(buf + o, sizeof buf - (size_t)o, "weights:\n  random: {seed: 7, scale: 0.5, d_k: %d}\n", n);
    return buf;
}

/* A 16-token lesson scrolls to keep the focused row and column in view. */
static void test_sixteen_tokens_scroll(void **state)
{
    screen_resize(24, 80);
    char *yaml = big_lesson(16);
    Fix *f = open_lesson_text("big.yaml", yaml, strlen(yaml), &dark);
    view_keys(f->v, "3");
    for (int k = 0; k < 15; k++)
        view_keys(f->v, "jl");
    view_draw(f->v);
    assert_on_screen("score₁₆,₁₆ = q₁₆·k₁₆");
    assert_on_screen("t16");
    assert_on_screen("▴");
    assert_on_screen("◂");
    close_fix(f);
}

/* Without UTF-8 the arithmetic and marks fall back to ASCII. */
static void test_ascii_fallback(void **state)
{
    static const ViewOpt ascii = {LANG_EN, true, "mono", false, 0, false, NULL};
    screen_resize(30, 100);
    Fix *f = open_plain("lessons/01", &ascii);
    view_keys(f->v, "3kkkhhhl");
    view_draw(f->v);
    assert_on_screen("score_12 = q_1.k_2 = (0.149)(-0.169) + (-0.041)(-0.304) + (0.194)(0.094) = 0.006");
    assert_on_screen("[3 QK^T]");
    close_fix(f);
}

/* Control characters in lesson text are shown as visible stand-ins. */
static void test_hostile_title(void **state)
{
    static const char yaml[] =
        "format: qkvtutor/1\ntitle: \"evil\\e]0;pwned\\a title\"\ntokens: [\"a\\eb\", c]\n"
        "X: [[1, 0], [0, 1]]\nweights:\n  random: {seed: 1, scale: 1, d_k: 2}\n";
    screen_resize(24, 80);
    Fix *f = open_lesson_text("evil.yaml", yaml, strlen(yaml), &dark);
    view_draw(f->v);
    assert_on_screen("evil␛]0;pwned␇ title");
    assert_on_screen("a␛b");
    close_fix(f);
}

/* A huge edit overflows the naive softmax: shown honestly, with the hint. */
static void test_overflow_hint(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "4:Q[1] = K[1] * 10000\r");
    view_draw(f->v);
    assert_on_screen("NaN");
    assert_on_screen("exp overflowed: inf/NaN. Press m: the stable softmax subtracts the row max.");
    view_keys(f->v, "m");
    view_draw(f->v);
    assert_false(on_screen("exp overflowed"));
    assert_on_screen("NaN → 1.000");
    assert_row("▲1.000", "▲0.000");
    assert_row("6025.076", "1133.754", "368.145");
    close_fix(f);
}

/* A click on a cell focuses it; in edit mode it selects the cell. */
static void test_mouse_click(void **state)
{
    int x, y;
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "3");
    view_draw(f->v);
    y = screen_find("−0.290", &x); /* S[3][3] */
    assert_true(y > 0);
    view_click(f->v, y, x + 2);
    view_draw(f->v);
    assert_on_screen("score₃₃ = q₃·k₃");
    view_keys(f->v, "e");
    view_draw(f->v);
    y = screen_find("−0.574", &x); /* K[1][2] */
    view_click(f->v, y, x + 2);
    view_keys(f->v, "7"); /* the number field names the cell clicked */
    view_draw(f->v);
    assert_on_screen("K[1][2] = 7");
    close_fix(f);
}

/* Presentation mode: no key bar, the stage's operands and result (the
 * softmax stage quotes S: S is shown), big focus marks. */
static void test_presentation(void **state)
{
    static const ViewOpt present = {LANG_EN, false, "projector", true, 0, false, NULL};
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &present);
    view_keys(f->v, "4");
    view_draw(f->v);
    golden("01-present-80x24");
    assert_false(on_screen("? help"));
    assert_on_screen("S = Q·Kᵀ");
    assert_false(on_screen("Q = X·Wq"));
    assert_on_screen("▶我");
    screen_resize(18, 60); /* a projector's big font: S and A still both shown */
    view_draw(f->v);
    golden("01-present-60x18");
    assert_on_screen("S = Q·Kᵀ");
    assert_on_screen("A = softmax(S)");
    screen_resize(50, 200); /* a projector at 200x50: the board fills the wall, centred */
    view_draw(f->v);
    golden("01-present-200x50");
    screen_resize(24, 80);
    view_keys(f->v, "P");
    view_draw(f->v);
    assert_on_screen("? help");
    close_fix(f);
}

/* Lesson 16, cross-attention: the non-square S and A with the source's
 * tokens on their columns and on K and V, the padding key's −∞ and 0, X
 * beside Xs, at 80x24, 60x18 and 120x40 (steps 2, 3, 4, 5, 7 and 8). */
static void test_golden_cross(void **state)
{
    static const int sizes[3][2] = {{24, 80}, {18, 60}, {40, 120}};
    for (int s = 0; s < 3; s++) {
        screen_resize(sizes[s][0], sizes[s][1]);
        Fix *f = open_builtin("lessons/16", &dark);
        for (int k = 0; k < f->l.nsteps; k++) {
            char name[64];
            view_draw(f->v);
            if (k == 1 || k == 2 || k == 3 || k == 4 || k == 6 || k == 7) {
                snprintf(name, sizeof name, "16-step%d-%dx%d", k + 1, sizes[s][1], sizes[s][0]);
                golden(name);
            }
            if (k == 4) { /* A[2] asked: the padding key's weight is part of the answer */
                assert_on_screen("<pad>");
                assert_on_screen("−∞");
            }
            view_keys(f->v, f->l.steps[k].nask ? "nn" : "n");
        }
        close_fix(f);
    }
}

/* Large terminals lay out every stage without losing the text panels. */
static void test_large_sizes(void **state)
{
    static const int sizes[][2] = {{40, 120}, {60, 200}};
    for (int s = 0; s < 2; s++) {
        screen_resize(sizes[s][0], sizes[s][1]);
        Fix *f = open_builtin("lessons/02", &dark);
        for (int k = 0; k < f->l.nsteps; k++, view_keys(f->v, "n")) {
            view_draw(f->v);
            assert_on_screen("? help");
            assert_on_screen("qkvtutor · ");
        }
        close_fix(f);
    }
}

/* Chinese throughout: the interface from the catalogue, the narration from
 * the lesson; L switches both live. */
static void test_chinese_and_live_switch(void **state)
{
    static const ViewOpt zh = {LANG_ZH, false, "dark", false, 0, false, NULL};
    screen_resize(24, 80);
    i18n_set(LANG_ZH, "build/locale");
    Fix *f = open_plain("lessons/01", &zh);
    view_keys(f->v, "4");
    view_draw(f->v);
    golden("01-step7-zh-80x24");
    assert_on_screen("第 1 行的注意力");
    assert_on_screen("q 退出");
    assert_on_screen("softmax 对每个分数取 exp");
    view_keys(f->v, "L");
    view_draw(f->v);
    assert_on_screen("attention of row 1");
    assert_on_screen("q quit");
    assert_on_screen("Softmax takes exp of each score");
    close_fix(f);
    i18n_set(LANG_EN, NULL);
}

/* When a band scrolls, the boxes that borrow its first box's row labels
 * show the same rows: with eight tokens at 80x24 the S A O band scrolls to
 * keep t7 in view, and t7's line holds t7's weights and output. */
static void test_shared_labels_scroll_together(void **state)
{
    screen_resize(24, 80);
    char *yaml = big_lesson(8);
    Fix *f = open_lesson_text("seven.yaml", yaml, strlen(yaml), &dark);
    view_keys(f->v, "5jjjjjj"); /* the output stage, row t7 */
    view_draw(f->v);
    assert_on_screen("o₇₁ = ");
    assert_on_screen("▴");
    Session s;
    assert_true(session_init(&s, &f->l));
    session_goto_stage(&s, STAGE_OUTPUT);
    FmtOpt fo = {f->l.digits, false, false};
    char a[64], o[64];
    fmt_num(MAT_AT(&s.cur.m[M_A], 6, 0), &fo, a, sizeof a);
    fmt_num(MAT_AT(&s.cur.m[M_O], 6, 0), &fo, o, sizeof o);
    char *text = screen_text(), *line = NULL; /* S A O's t7 line: the last one */
    for (char *p = strstr(text, "\n t7 "); p; p = strstr(p + 1, "\n t7 "))
        line = p;
    char *end = line ? strchr(line + 1, '\n') : NULL;
    assert_non_null(end);
    *end = '\0';
    char *pa = strstr(line, a), *po = pa ? strstr(pa + strlen(a), o) : NULL;
    if (!po)
        fprintf(stderr, "want %s then %s on t7's line:%s\n", a, o, line);
    assert_non_null(po);
    free(text);
    session_free(&s);
    close_fix(f);
}

/* No screen width overflows anything: the sequence that overflowed the
 * bars' 4,096-byte buffer from 2,780 columns, drawn at 3,000 (run under
 * AddressSanitizer by make asan). */
static void test_very_wide_screen(void **state)
{
    screen_resize(40, 3000);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, ":Q[1] = K[1] * 10000\rm4");
    view_draw(f->v);
    assert_on_screen("attention of row 1");
    assert_on_screen("████████████████████ "); /* weight 1: the bar's full length, as at 200 columns */
    assert_false(on_screen("█████████████████████"));
    close_fix(f);
    screen_resize(30, 100);
}

/* A status message longer than the screen is wide is shown whole, on two
 * lines: `:Q[1] = 1e308` used to end in "for one cell write M[ …". */
static void test_status_whole(void **state)
{
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, ":Q[1] = 1e308\r");
    view_draw(f->v);
    assert_on_screen(" a row takes a list");
    assert_on_screen(" M[i][j] = c\n :Q[1] = 1e308");
    assert_false(on_screen("…"));
    close_fix(f);
}

/* After an edit: the effect trace for the focused row, its own line, on
 * the action prompt, the toggles and edit mode; the edited-state notice;
 * the narration dimmed. Lesson 1 at the softmax stage, then at the output
 * stage where the trace reaches o₁₁. ASCII: the same with "=>". */
static void test_trace_and_notice(void **state)
{
    static const char notice[] = "✎ after Q[1] = K[1] * 5: numbers live, words written for the lesson's numbers";
    screen_resize(24, 80);
    Fix *f = open_plain("lessons/01", &dark);
    view_keys(f->v, "4");
    view_draw(f->v);
    assert_false(on_screen("numbers live"));
    view_keys(f->v, ":Q[1] = K[1] * 5\r");
    view_draw(f->v);
    assert_on_screen("q₁ changed ⇒ s₁₁ −0.066 → 3.013 ⇒ α₁₁ 0.313 → 0.873");
    assert_on_screen(notice);
    assert_on_screen("Q[1] = K[1] * 5: α₁₁ 0.313 → 0.873. u undoes it.");
    int x, y = screen_find("Softmax takes exp", &x); /* the narration, dimmed */
    assert_true(y > 0);
    assert_true(screen_attr(y, x) & A_DIM);
    view_keys(f->v, "s");
    view_draw(f->v);
    assert_on_screen("scaling ÷√3 ⇒ s₁₁ 3.013 → 1.739 ⇒ α₁₁ 0.873 → 0.695");
    assert_on_screen("scaling ÷√3: α₁₁ 0.873 → 0.695. u undoes it.");
    view_keys(f->v, "m");
    view_draw(f->v);
    assert_on_screen("stable softmax ⇒ α₁₁ 0.695 → 0.695");
    view_keys(f->v, "uue2\r"); /* edit mode: q₁₁ = 2 */
    view_draw(f->v);
    assert_on_screen("q₁₁ changed ⇒ s₁₁ 3.013 → 3.131 ⇒ α₁₁ 0.873 → 0.916"); /* 2(0.073) + (−2.870)(−0.574) + (−2.587)(−0.517) */
    view_keys(f->v, "\x1br");
    view_draw(f->v);
    assert_on_screen("reset: α₁₁ 0.916 → 0.313. u undoes the reset.");
    assert_false(on_screen("numbers live")); /* the lesson as written again */
    y = screen_find("Softmax takes exp", &x);
    assert_false(screen_attr(y, x) & A_DIM);
    view_keys(f->v, "5:Q[1] = K[1] * 5\r");
    view_draw(f->v);
    assert_on_screen("q₁ changed ⇒ s₁₁ −0.066 → 3.013 ⇒ α₁₁ 0.313 → 0.873 ⇒ o₁₁ −0.099 → −0.147");
    close_fix(f);
    static const ViewOpt ascii = {LANG_EN, true, "mono", false, 0, false, NULL};
    screen_resize(30, 100); /* the ASCII line is longer: one line at 100 columns */
    f = open_plain("lessons/01", &ascii);
    view_keys(f->v, "5:Q[1] = K[1] * 5\r");
    view_draw(f->v);
    assert_on_screen("q_1 changed => s_11 -0.066 -> 3.013 => a_11 0.313 -> 0.873 => o_11 -0.099 -> -0.147");
    assert_on_screen("* after Q[1] = K[1] * 5: numbers live, words written for the lesson's numbers");
    close_fix(f);
    i18n_set(LANG_ZH, "build/locale");
    static const ViewOpt zh = {LANG_ZH, false, "dark", false, 0, false, NULL};
    screen_resize(24, 80);
    f = open_plain("lessons/01", &zh);
    view_keys(f->v, "4s");
    view_draw(f->v);
    assert_on_screen("✎ 改动后（scale = sqrt_dk）：数字是实时的，文字是按课程原来的数写的");
    assert_on_screen("缩放 ÷√3：α₁₁ 0.313 → 0.322。按 u 可撤销。");
    close_fix(f);
    i18n_set(LANG_EN, NULL);
}

/* A row focus (lesson 1 step 3, "K[2]") explains the row cell by cell and
 * lights the whole row; ← → then pick one cell. */
static void test_row_focus(void **state)
{
    screen_resize(30, 100);
    Fix *f = open_plain("lessons/01", &mono);
    view_keys(f->v, "nn");
    view_draw(f->v);
    assert_on_screen("k₂₁ = x₂·Wk[:,1] = ");
    assert_on_screen("k₂₂ = x₂·Wk[:,2] = ");
    assert_on_screen("k₂₃ = x₂·Wk[:,3] = (0.000)(−0.517) + (1.000)(0.094) + (0.000)(0.440) + (0.000)(−0.427) = 0.094");
    int x, y = screen_find("−0.169  −0.304   0.094", &x); /* K's row 2, all lit alike */
    assert_true(y > 0);
    assert_true(screen_attr(y, x + 1) & A_BOLD);
    assert_true(screen_attr(y, x + 20) & A_BOLD);
    int xq, yq = screen_find("0.457  −0.070  −0.070", &xq);   /* Q's row 2: plain */
    assert_int_equal(yq, y);
    assert_false(screen_attr(yq, xq + 1) & A_BOLD);
    view_keys(f->v, "l");
    view_draw(f->v);
    assert_false(on_screen("k₂₁ = "));
    assert_on_screen("k₂₂ = x₂·Wk[:,2] = ");
    assert_false(on_screen("k₂₃ = "));
    close_fix(f);
}

/* Every cell of the screen: the back grid's characters and looks. */
typedef GridCell Cell;

static Cell *screen_cells(void)
{
    Grid *g = grid_term();
    assert_non_null(g);
    assert_int_equal(grid_rows(g), LINES);
    assert_int_equal(grid_cols(g), COLS);
    Cell *c = calloc((size_t)(LINES * COLS), sizeof *c);
    assert_non_null(c);
    for (int y = 0; y < LINES; y++)
        memcpy(c + y * COLS, grid_back_row(g, y), (size_t)COLS * sizeof *c);
    return c;
}

/* A frame painted over the last one (only what differs) leaves the screen
 * exactly as the same frame painted whole on a blank screen: every
 * built-in lesson, walked forward and back with focus moves, toggles,
 * the mask, temperature and positions, language, presentation, edit mode,
 * training, the help and a theme switch, and an unbound key (Z: the frame
 * on screen is kept, not laid out again) after some of them, at 80x24 and
 * 60x18. */
static void test_partial_paint_equals_whole(void **state)
{
    static const int sizes[][2] = {{24, 80}, {18, 60}};
    const char *walk = "nnnnZjlsu[]c<>oLLPPZejlZ\x1bnnnnnnnnnnnnnnnnnnnnhkTg?\x1btZnnnnnnnnnnnnnnnnnnnnbbbbbbbbZ";
    for (int s = 0; s < 2; s++) {
        screen_resize(sizes[s][0], sizes[s][1]);
        for (int k = 0; k < embedded_count; k++) {
            Fix *f = open_lesson_text(embedded_lessons[k].name, embedded_lessons[k].data, embedded_lessons[k].len, &dark);
            view_draw(f->v);
            for (const char *p = walk; *p; p++) {
                view_key(f->v, (wint_t)(unsigned char)*p, false);
                view_draw(f->v);
                Cell *partial = screen_cells();
                view_repaint(f->v);
                view_draw(f->v);
                Cell *whole = screen_cells();
                for (int c = 0; c < LINES * COLS; c++)
                    if (memcmp(&partial[c], &whole[c], sizeof *whole) != 0)
                        fail_msg("%s at %dx%d after key %d (%c): cell (%d, %d) differs", embedded_lessons[k].name,
                                 COLS, LINES, (int)(p - walk), *p, c / COLS, c % COLS);
                free(partial);
                free(whole);
            }
            close_fix(f);
        }
    }
    screen_resize(30, 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_steps),
        cmocka_unit_test(test_golden_cross),
        cmocka_unit_test(test_ribbon_walks_stages),
        cmocka_unit_test(test_score12_arithmetic),
        cmocka_unit_test(test_mono_focus_attributes),
        cmocka_unit_test(test_action_before_after),
        cmocka_unit_test(test_prompt_error),
        cmocka_unit_test(test_edit_mode),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_help_scrolls),
        cmocka_unit_test(test_sixteen_tokens_scroll),
        cmocka_unit_test(test_ascii_fallback),
        cmocka_unit_test(test_hostile_title),
        cmocka_unit_test(test_overflow_hint),
        cmocka_unit_test(test_mouse_click),
        cmocka_unit_test(test_presentation),
        cmocka_unit_test(test_title_card),
        cmocka_unit_test(test_large_sizes),
        cmocka_unit_test(test_chinese_and_live_switch),
        cmocka_unit_test(test_shared_labels_scroll_together),
        cmocka_unit_test(test_very_wide_screen),
        cmocka_unit_test(test_status_whole),
        cmocka_unit_test(test_trace_and_notice),
        cmocka_unit_test(test_row_focus),
        cmocka_unit_test(test_partial_paint_equals_whole),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
