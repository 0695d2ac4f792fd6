/* test_saveplay.c - a saved lesson replays the lesson's own script and then
 * the student's edits at the step where each was made (issue 33, HIGH 2;
 * newcomer review D14). For every built-in lesson and several kinds of
 * departure (a temperature, the mask, positions, a cell, a swap, a
 * gradient step; edits at two steps; an edit made later than the step
 * saved at): the saved text passes the real --check (render_check_text,
 * what `w` runs), reopening it gives the state the student saw (and so
 * does its --json), and its
 * --dump is the lesson's own, byte for byte, at every step before the first
 * edit, in both languages. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/departures.h"
#include "lesson/lesson.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "out/checktext.h"
#include "out/render.h"

static const char *const lessons[] = {
    "lessons/01-three-tokens.yaml", "lessons/02-attend-to-itself.yaml", "lessons/03-scaled-and-stable.yaml",
    "lessons/04-shapes.yaml", "lessons/05-parameters-vs-results.yaml", "lessons/06-the-future-is-hidden.yaml",
    "lessons/07-order-and-positions.yaml", "lessons/08-two-heads.yaml", "lessons/09-attention-is-learned.yaml",
    "lessons/10-the-kv-cache.yaml", "lessons/11-windows-and-shared-heads.yaml", "lessons/12-rotary-positions.yaml",
    "lessons/13-online-softmax.yaml"};

/* --dump of a lesson as text (malloc'd). */
static char *dump(const Lesson *l, Lang lang)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    RenderOpt ro = {.lang = lang};
    assert_non_null(f);
    render_dump(f, l, &ro);
    fclose(f);
    return buf;
}

/* --json of a lesson (at: 0, as the file gives it) as text (malloc'd). */
static char *json_of(const Lesson *l, int at)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    RenderOpt ro = {.lang = LANG_EN, .at = at};
    assert_non_null(f);
    assert_int_equal(render_json(f, l, &ro), 0);
    fclose(f);
    return buf;
}

/* Step k's part of a dump (from its "── k/" line to the next), or NULL. */
static const char *step_part(const char *d, int k, size_t *len)
{
    char head[32];
    snprintf(head, sizeof head, "\n── %d/", k + 1);
    const char *p = strstr(d, head);
    if (!p)
        return NULL;
    const char *e = strstr(p + 1, "\n── ");
    *len = e ? (size_t)(e - p) : strlen(p);
    return p;
}

/* The departure kinds: each a list of actions made at step `at`, then (when
 * later >= 0) more at step `later`; the save is at step `save`. A step is
 * 0-based: 'a' a third of the way, 'b' two thirds, 'z' the last. */
typedef struct {
    const char *name;
    char at, later, save;
    const char *acts[3], *more[2];
} Kind;

static const Kind kinds[] = {
    {"none", 'z', 0, 'z', {NULL}, {NULL}},
    {"temperature <", 'a', 0, 'b', {"temperature = 0.5"}, {NULL}},
    {"mask c", 'a', 0, 'b', {"@mask"}, {NULL}},
    {"positions o", 'a', 0, 'z', {"@positions"}, {NULL}},
    {"an edit", 'a', 0, 'b', {"X[1][1] = 0.25"}, {NULL}},
    {"a swap", 'a', 0, 'b', {"swap 1 2"}, {NULL}},
    {"a gradient step", 'b', 0, 'b', {"@target", "step"}, {NULL}},
    {"two steps", 'a', 'b', 'b', {"temperature = 2"}, {"X[1][2] = -0.5"}},
    {"made after the step saved", 'b', 0, 'a', {"temperature = 0.5"}, {NULL}},
};

static int step_of(char c, int nsteps)
{
    return c == 'a' ? nsteps / 3 : c == 'b' ? 2 * nsteps / 3 : nsteps - 1;
}

/* Make the action text (a toggle from the state, a target on the lesson's heads). */
static void action_for(const Session *s, const char *spec, char *buf, size_t len)
{
    if (strcmp(spec, "@mask") == 0)
        snprintf(buf, len, "mask = %s", s->cur.mask == MASK_NONE ? "causal" : "none");
    else if (strcmp(spec, "@positions") == 0)
        snprintf(buf, len, "positions = %s", s->cur.positions == POS_NONE ? "sinusoidal" : "none");
    else if (strcmp(spec, "@target") == 0)
        snprintf(buf, len, "target %s[2] = 1", attn_heads(&s->cur) > 1 ? "A1" : "A");
    else
        snprintf(buf, len, "%s", spec);
}

static int act_all(Session *s, const char *const *acts, int n)
{
    char text[96], err[512];
    int done = 0;
    for (int k = 0; k < n && acts[k]; k++) {
        action_for(s, acts[k], text, sizeof text);
        done += session_act_text(s, text, err, sizeof err); /* one the lesson refuses (a swap of 1 token) is left */
    }
    return done;
}

/* One lesson, one kind: save, check, reopen, compare. */
static void save_and_replay(const char *file, const Kind *kd)
{
    Lesson l, back;
    Session s, s2;
    char err[1024];
    assert_true(lesson_load_file(file, &l, err, sizeof err));
    assert_true(session_init(&s, &l));
    int at = step_of(kd->at, l.nsteps), save = step_of(kd->save, l.nsteps), first = l.nsteps;
    session_goto(&s, at);
    if (act_all(&s, kd->acts, 3) > 0)
        first = at;
    if (kd->later) {
        session_goto(&s, step_of(kd->later, l.nsteps));
        if (act_all(&s, kd->more, 2) > 0 && first == l.nsteps)
            first = step_of(kd->later, l.nsteps);
    }
    session_goto(&s, save);
    if (first > save)
        first = save; /* an edit made after the step saved at is written there */
    size_t n = 0;
    char *text = lesson_save_text(&s, &n);
    assert_non_null(text);
    int rc = render_check_text("saved.yaml", text, n, err, sizeof err);
    if (rc != 0)
        print_error("%s, %s: --check %d: %s\n", file, kd->name, rc, err);
    assert_int_equal(rc, 0);
    assert_true(lesson_load_buffer("saved.yaml", text, n, &back, err, sizeof err));
    assert_true(session_init(&s2, &back));
    assert_int_equal(s2.step, save);
    if (!session_same_inputs(&s2.cur, &s.cur))
        print_error("%s, %s: the reopened state is not the one saved\n", file, kd->name);
    assert_true(session_same_inputs(&s2.cur, &s.cur));
    char *plain = json_of(&back, 0), *there = json_of(&back, save + 1); /* --json prints what was saved */
    assert_string_equal(plain, there);
    free(plain);
    free(there);
    for (int g = 0; g < 2; g++) {
        char *mine = dump(&l, g ? LANG_ZH : LANG_EN), *theirs = dump(&back, g ? LANG_ZH : LANG_EN);
        for (int k = 0; k < first; k++) {
            size_t a = 0, b = 0;
            const char *p = step_part(mine, k, &a), *q = step_part(theirs, k, &b);
            assert_non_null(p);
            assert_non_null(q);
            if (a != b || memcmp(p, q, a) != 0)
                print_error("%s, %s: step %d differs:\n%.*s\n-- saved --\n%.*s\n", file, kd->name, k + 1, (int)a, p,
                            (int)b, q);
            assert_true(a == b && memcmp(p, q, a) == 0);
        }
        free(mine);
        free(theirs);
    }
    session_free(&s2);
    lesson_free(&back);
    free(text);
    session_free(&s);
    lesson_free(&l);
}

static void every_lesson_every_kind(void **state)
{
    for (size_t f = 0; f < sizeof lessons / sizeof *lessons; f++)
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
            save_and_replay(lessons[f], &kinds[k]);
}

/* D14's own case: lesson 6 saved at step 11 with no edits at all is the
 * lesson at step 3: the mask is on there, and the expectations stay. */
static void lesson6_saved_at_11(void **state)
{
    Lesson l, back;
    Session s, s2;
    char err[512];
    assert_true(lesson_load_file(lessons[5], &l, err, sizeof err));
    assert_true(session_init(&s, &l));
    session_goto(&s, 10);
    size_t n = 0;
    char *text = lesson_save_text(&s, &n);
    assert_non_null(strstr(text, "expect:"));
    assert_null(strstr(text, "edited:"));
    assert_true(lesson_load_buffer("rt6.yaml", text, n, &back, err, sizeof err));
    assert_true(session_init(&s2, &back));
    session_goto(&s2, 2);
    assert_int_equal(s2.cur.mask, MASK_CAUSAL);
    assert_true(s2.cur.temp == 1);
    assert_false(session_diverged(&s2));
    session_free(&s2);
    lesson_free(&back);
    free(text);
    session_free(&s);
    lesson_free(&l);
}

/* An edit is written under edited: at the step it was made, after that
 * step's do:, and the reopened lesson departs from there on, not before. */
static void edit_written_where_made(void **state)
{
    Lesson l, back;
    Session s, s2;
    char err[512];
    assert_true(lesson_load_file(lessons[5], &l, err, sizeof err));
    assert_true(session_init(&s, &l));
    session_goto(&s, 4);
    assert_true(session_act_text(&s, "temperature = 0.5", err, sizeof err));
    session_goto(&s, 6);
    size_t n = 0;
    char *text = lesson_save_text(&s, &n);
    assert_non_null(strstr(text, "  edited:\n  - \"temperature = 0.5\"\n"));
    assert_true(lesson_load_buffer("rt.yaml", text, n, &back, err, sizeof err));
    assert_int_equal(back.steps[4].nedit, 1);
    assert_true(session_init(&s2, &back));
    session_goto(&s2, 3);
    assert_false(session_diverged(&s2));
    assert_true(s2.cur.temp == 1);
    session_goto(&s2, 4);
    assert_true(session_diverged(&s2));
    assert_true(s2.cur.temp == 0.5);
    char what[256];
    assert_true(session_departed(&s2, what, sizeof what));
    assert_string_equal(what, "temperature = 0.5");
    session_free(&s2);
    lesson_free(&back);
    free(text);
    session_free(&s);
    lesson_free(&l);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lesson6_saved_at_11),
        cmocka_unit_test(edit_written_where_made),
        cmocka_unit_test(every_lesson_every_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
