/* test_narration.c - the built-in lessons' narration never quotes a number
 * the student cannot see (issue 16, "Narration quotes only numbers that are
 * on screen"; issue 11, templates).
 *
 * For every built-in lesson (01-09), every step, zh and en: every number in the narration
 * is either filled in by a template ({S[1][2]}, {A[1]}, {n}...), so it is
 * the live value whatever the student changed, or it is written out and
 * then appears on the screen of that step at 80x24 (normal mode, the step's
 * focus): in a matrix, a box's shape, the arithmetic, the bars; anywhere but
 * the narration itself. A number about the lesson as written (the source
 * tutorial's printed row, a sum worked by hand) is a fixed figure, {=0.695}.
 *
 * A number is a decimal (0.006, −0.066, 1.2) or a shape (3×4). Integers on
 * their own (row 1, step 3, lesson 2, ×5, √2) are indices and names, not
 * values, and are not checked. A decimal written without a sign matches the
 * screen with or without one ("0.217 − 0.132×0.500" quotes V₃₂ = −0.500).
 *
 * And the other way round (issue 11, "every number quoted from the state is
 * a template"): a decimal written out must not be the number of a matrix
 * cell on that screen, because a student's edit changes the cell and the
 * narration would then contradict it. Numbers the arithmetic shows but no
 * template can give (exp values, sums, s − max) stay written out; the
 * edited-state notice covers them.
 *
 * And the rule --check applies (template.h, "no literal state numbers"): no
 * decimal written out in say: or question: is a number the state holds at
 * that step (a cell, a row or column sum of S, a column sum of A, T, lr,
 * the loss).
 *
 * Also: every template resolves at its step (no "…" left in the filled-in
 * text) and every step's narration fits whole at 80x24 in both languages. */
#include <stdlib.h>
#include <string.h>
#include <locale.h>

#include "layout/layout.h"
#include "lesson/embedded.h"
#include "text/i18n.h"
#include "words/live.h"
#include "lesson/session.h"
#include "lesson/template.h"
#include "words/narrate.h"
#include "testutil.h" /* after lesson.h: cmocka defines a macro expect_check */

static int setup(void **state)
{
    setlocale(LC_ALL, "C.UTF-8");
    i18n_set(LANG_EN, "build/locale");
    return 0;
}

/* The narration as written with every template blanked out: what is left
 * is the literal text, whose numbers must be on screen. */
static void literal_text(const char *raw, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = raw; *p && n + 2 < len;) {
        if (p[0] == '{' && p[1] == '{') {
            out[n++] = '{';
            p += 2;
        } else if (*p == '{') {
            const char *e = strchr(p, '}');
            assert_non_null(e);
            out[n++] = '|'; /* a template: no number continues across it */
            p = e + 1;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The next number in s from *p: a decimal with an optional sign, or a
 * shape "3×4". Returns false at the end. */
static bool next_number(const char **p, char *num, size_t len)
{
    static const char minus[] = "−", times[] = "×";
    for (const char *s = *p; *s; s++) {
        if (!is_digit(*s) || (s > *p && (is_digit(s[-1]) || s[-1] == '.')))
            continue;
        const char *e = s;
        while (is_digit(*e))
            e++;
        const char *start = s;
        if (*e == '.' && is_digit(e[1])) { /* a decimal, with its sign */
            for (e++; is_digit(*e);)
                e++;
            if (start - *p >= 3 && memcmp(start - 3, minus, 3) == 0)
                start -= 3;
            else if (start > *p && start[-1] == '-')
                start--;
        } else if (strncmp(e, times, 2) == 0 && is_digit(e[2])) { /* a shape */
            for (e += 2; is_digit(*e);)
                e++;
        } else {
            continue; /* an integer on its own: an index or a name */
        }
        snprintf(num, len, "%.*s", (int)(e - start), start);
        *p = e;
        return true;
    }
    return false;
}

/* Does `num` occur in `screen` as a whole number? An unsigned decimal may
 * carry a sign there. */
static bool on_screen(const char *screen, const char *num)
{
    size_t n = strlen(num);
    for (const char *s = strstr(screen, num); s; s = strstr(s + 1, num)) {
        char before = s > screen ? s[-1] : ' ', after = s[n];
        if (is_digit(before) || before == '.' || is_digit(after) || (after == '.' && is_digit(s[n + 1])))
            continue;
        if (!strchr(num, '.') && (strncmp(s + n, "×", 2) == 0 || (s - screen >= 2 && strncmp(s - 2, "×", 2) == 0)))
            continue; /* 3×4 inside 3×4×5 */
        return true;
    }
    return false;
}

/* The matrix cell on screen whose number is `num` (sign ignored), or NULL. */
static const PlanCell *state_cell(const Plan *p, const char *num)
{
    const char *digits = strncmp(num, "−", 3) == 0 ? num + 3 : num[0] == '-' ? num + 1 : num;
    size_t n = strlen(digits);
    for (int k = 0; k < p->ncell; k++) {
        const PlanCell *c = &p->cell[k];
        const char *t = plan_text(p, c->off);
        int len = c->len;
        while (len > 0 && t[0] == ' ')
            t++, len--;
        if (len >= 3 && strncmp(t, "−", 3) == 0)
            t += 3, len -= 3;
        else if (len >= 1 && t[0] == '-')
            t++, len--;
        while (len > 0 && t[len - 1] == ' ')
            len--;
        if ((size_t)len == n && memcmp(t, digits, n) == 0 && !p->box[c->box].placeholder)
            return c;
    }
    return NULL;
}

/* Lay out the current step at cols x rows in normal mode, as the view sets
 * the focus, and gather every run's and cell's text outside the narration. */
static void screen_text(const Session *s, Lang lang, int cols, int rows, Plan *p, char *out, size_t len)
{
    const Focus *f = &session_step(s)->focus;
    LayoutIn in = {.s = s, .lang = lang, .mode = LAYOUT_NORMAL, .fmat = M_Q, .emat = M_Q, .msg = "",
                   .msg_role = ROLE_HINT, .keybar = "", .cols = cols, .rows = rows};
    if (f->kind != FOCUS_NONE) {
        in.fi = f->i;
        in.fj = f->kind == FOCUS_CELL ? f->j : 0;
        if (f->mat >= M_Q && f->mat <= M_V)
            in.fmat = f->mat;
    }
    layout_plan(&in, p);
    assert_false(p->too_small);
    const PlanBlock *say = plan_block(p, BLOCK_SAY);
    size_t n = 0;
    for (int k = 0; k < p->nrun + p->ncell; k++) {
        bool run = k < p->nrun;
        int y = run ? p->run[k].y : p->cell[k - p->nrun].y;
        int off = run ? p->run[k].off : p->cell[k - p->nrun].off;
        int l = run ? p->run[k].len : p->cell[k - p->nrun].len;
        if (say && y >= say->y && y < say->y + say->h && run && p->run[k].role == ROLE_SAY)
            continue;
        if (n + (size_t)l + 2 >= len)
            break;
        memcpy(out + n, plan_text(p, off), (size_t)l);
        n += (size_t)l;
        out[n++] = '\n';
    }
    out[n] = '\0';
}

/* One lesson: every step, both languages. Returns the problems found. */
static int check_lesson(const EmbeddedLesson *e)
{
    static char literal[1 << 14], screen[1 << 16];
    Lesson l;
    Session s;
    Plan p;
    char err[512];
    if (!lesson_load_buffer(e->name, e->data, e->len, &l, err, sizeof err))
        fail_msg("%s", err);
    assert_true(session_init(&s, &l));
    plan_init(&p);
    int bad = 0;
    for (int k = 0; k < l.nsteps; k++) {
        session_goto(&s, k);
        for (int g = 0; g < LANG_COUNT; g++) {
            const char *raw = text_get(&l.steps[k].say, (Lang)g);
            const char *lang = g == LANG_ZH ? "zh" : "en";
            char *filled = session_say(&s, (Lang)g, false);
            assert_non_null(filled);
            if (strstr(filled, "…") && !strstr(raw, "…")) {
                print_error("%s step %d (%s): a template did not resolve: %s\n", e->name, k + 1, lang, filled);
                bad++;
            }
            free(filled);
            if (!layout_narration_fits(&s, k, (Lang)g, 80, 24)) {
                print_error("%s step %d (%s): the narration does not fit whole at 80x24\n", e->name, k + 1, lang);
                bad++;
            }
            literal_text(raw, literal, sizeof literal);
            screen_text(&s, (Lang)g, 80, 24, &p, screen, sizeof screen);
            char num[64];
            const char *fields[2] = {raw, text_get(&l.steps[k].question, (Lang)g)};
            for (int fi = 0; fi < 2; fi++) {
                TplLiteral hit;
                for (size_t from = 0; template_literal_find(fields[fi], from, &s.cur, l.digits, false, &hit);
                     from = hit.end) {
                    print_error("%s step %d (%s): %s is %s here; write {%s}\n", e->name, k + 1, lang, hit.lit,
                                hit.ref, hit.ref);
                    bad++;
                }
            }
            for (const char *q = literal; next_number(&q, num, sizeof num);) {
                const PlanCell *c = strchr(num, '.') ? state_cell(&p, num) : NULL;
                if (c) {
                    print_error("%s step %d (%s): %s is written out but it is %s[%d][%d] on screen; "
                                "make it a template\n", e->name, k + 1, lang, num, attn_mat_name(c->id),
                                c->i + 1, c->j + 1);
                    bad++;
                } else if (!on_screen(screen, num)) {
                    print_error("%s step %d (%s): %s is written out but not on screen\n", e->name, k + 1,
                                lang, num);
                    if (getenv("QKV_SHOW_SCREEN"))
                        print_error("%s\n", screen);
                    bad++;
                }
            }
        }
    }
    plan_free(&p);
    session_free(&s);
    lesson_free(&l);
    return bad;
}

static void test_builtin_narration(void **state)
{
    int seen = 0, bad = 0;
    for (int k = 0; k < embedded_count; k++) {
        const char *n = embedded_lessons[k].name;
        if (strncmp(n, "lessons/0", 9) == 0 && n[9] >= '1' && n[9] <= '9') {
            bad += check_lesson(&embedded_lessons[k]);
            seen++;
        }
    }
    assert_int_equal(seen, 9);
    assert_int_equal(bad, 0);
}

/* The checker itself: a number written out and not on screen is found; the
 * same number as a template is not; a number on screen is not. */
static void test_checker(void **state)
{
    static char literal[256];
    char num[64];
    const char *q;
    literal_text("score {S[1][2]}, row −0.066, {{0.5}, 3×4, step 3, x{A[1]}0.25", literal, sizeof literal);
    assert_string_equal(literal, "score |, row −0.066, {0.5}, 3×4, step 3, x|0.25");
    q = literal;
    assert_true(next_number(&q, num, sizeof num));
    assert_string_equal(num, "−0.066");
    assert_true(next_number(&q, num, sizeof num));
    assert_string_equal(num, "0.5");
    assert_true(next_number(&q, num, sizeof num));
    assert_string_equal(num, "3×4");
    assert_true(next_number(&q, num, sizeof num));
    assert_string_equal(num, "0.25");
    assert_false(next_number(&q, num, sizeof num));
    assert_true(on_screen("S  3×3\n −0.066  0.006", "0.006"));
    assert_true(on_screen("S  3×3\n −0.066  0.006", "−0.066"));
    assert_true(on_screen("S  3×3\n −0.066  0.006", "0.066"));
    assert_true(on_screen("S  3×3\n −0.066  0.006", "3×3"));
    assert_false(on_screen("S  3×3\n −0.066  0.006", "−0.006"));
    assert_false(on_screen("S  3×3\n −0.066  0.0061", "0.006"));
    assert_false(on_screen("S  13×3\n", "3×3"));
    assert_false(on_screen("0.1066", "0.066"));
}

/* layout_narration_space (--dump's "room at 80x24" line) is the room
 * --check measures against: at every step of every built-in lesson, and on
 * the title card, in both languages, a narration of n lines (n words as
 * wide as a line) is whole exactly when it needs at most that many lines,
 * for n up to two past it. One probe session per language walks the steps
 * (a model lesson's script may train: lesson 18's 600 steps, trained once,
 * not once a step and n), the probe's text of step k changed in place. */
static int space_holds(const Lesson *l, Lang g)
{
    static char text[40 * 80];
    Session s, t;
    int bad = 0, room[3];
    assert_true(session_init(&s, l));
    Lesson probe = *l;
    Step *steps = malloc(sizeof *steps * (size_t)l->nsteps);
    assert_non_null(steps);
    memcpy(steps, l->steps, sizeof *steps * (size_t)l->nsteps);
    probe.steps = steps;
    assert_true(session_init(&t, &probe));
    for (int k = lesson_has_about(l) ? -1 : 0; k < l->nsteps; k++) {
        session_goto(&s, k < 0 ? 0 : k);
        session_goto(&t, k < 0 ? 0 : k);
        /* narroom.c's own probe, where the script does not train before step k: its fresh
         * session is cheap there; elsewhere the walk's own probe measures it */
        int space = -1;
        if (!l->model || k <= 0)
            space = layout_narration_space(&s, k, g, 80, 24);
        for (int n = 1; n < 40 && (space < 0 || n <= space + 2); n++) {
            size_t at = 0;
            for (int w = 0; w < n; w++, at += 78)
                memcpy(text + at, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx ", 78);
            text[at - 1] = '\0';
            Text say = {{text, text}};
            if (k < 0)
                probe.about = say;
            else
                steps[k].say = say;
            bool fits = layout_narration_room(&t, k, g, 80, 24, room);
            if (space < 0 && !fits) /* the first n that is cut: the room is n - 1 lines */
                space = room[1];
            if (fits != (room[2] <= space) && space >= 0) {
                print_error("%s step %d (%d): %d lines %s, the room is %d\n", l->file, k + 1, g, room[2],
                            fits ? "fit" : "do not fit", space);
                bad++;
            }
        }
        if (k < 0)
            probe.about = l->about;
        else
            steps[k].say = l->steps[k].say;
    }
    session_free(&t);
    free(steps);
    session_free(&s);
    return bad;
}

static void test_narration_space(void **state)
{
    int bad = 0, seen = 0;
    for (int e = 0; e < embedded_count; e++) {
        Lesson l;
        char err[512];
        if (!lesson_load_buffer(embedded_lessons[e].name, embedded_lessons[e].data, embedded_lessons[e].len, &l,
                                err, sizeof err))
            fail_msg("%s", err);
        for (int g = 0; g < LANG_COUNT; g++)
            bad += space_holds(&l, (Lang)g);
        lesson_free(&l);
        seen++;
    }
    assert_true(seen >= 13);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker),
        cmocka_unit_test(test_builtin_narration),
        cmocka_unit_test(test_narration_space),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
