/* test_oom.c - running out of memory gives a clear failure, never a crash
 * or a half-built state (issue 10: unchecked allocations in session.c's
 * rebuild and render.c). malloc, calloc and realloc are replaced here so
 * that every allocation from the n-th on fails; each operation is run
 * with n = 0, 1, 2, ... until it succeeds. Under AddressSanitizer, which
 * owns malloc, the tests are skipped. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include "testutil.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/embedded.h"
#include "lesson/lesson.h"
#include "lesson/session.h"
#include "out/render.h"
#include "out/worksheet.h"

#if defined(__SANITIZE_ADDRESS__)
#define INTERPOSED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INTERPOSED 0
#endif
#endif
#ifndef INTERPOSED
#define INTERPOSED 1
#endif

static long budget = -1; /* allocations left before they fail; -1: no limit */

#if INTERPOSED
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static bool may_allocate(void)
{
    if (budget < 0)
        return true;
    if (budget == 0)
        return false;
    budget--;
    return true;
}

void *malloc(size_t n)
{
    return may_allocate() ? __libc_malloc(n) : NULL;
}

void *calloc(size_t n, size_t size)
{
    return may_allocate() ? __libc_calloc(n, size) : NULL;
}

void *realloc(void *p, size_t n)
{
    return may_allocate() ? __libc_realloc(p, n) : NULL;
}
#endif

#define LESSON "format: qkvtutor/1\n" \
               "title: oom\n" \
               "tokens: [a, b, c]\n" \
               "X: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]]\n" \
               "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n" \
               "overrides: {\"K[3]\": [1, 2, 3]}\n" \
               "steps:\n  - stage: input\n  - stage: qkv\n  - stage: softmax\n" \
               "  - stage: softmax\n    do: \"Q[1] = K[1] * 5\"\n  - stage: output\n"

static Lesson lesson;

static int setup(void **state)
{
    char err[LESSON_ERR_MAX];
    if (!INTERPOSED)
        return 0;
    return lesson_load_buffer("oom.yaml", LESSON, strlen(LESSON), &lesson, err, sizeof err) ? 0 : -1;
}

static int teardown(void **state)
{
    if (INTERPOSED)
        lesson_free(&lesson);
    return 0;
}

/* session_init either succeeds or fails with nothing left to free. */
static void init_fails_cleanly(void **state)
{
    if (!INTERPOSED)
        skip();
    bool ok = false;
    long n;
    for (n = 0; !ok && n < 10000; n++) {
        Session s;
        budget = n;
        ok = session_init(&s, &lesson);
        budget = -1;
        if (ok)
            session_free(&s);
        else
            assert_null(s.lesson); /* zeroed: nothing half-made */
    }
    assert_true(ok);
    assert_true(n > 10); /* the allocations did fail on the way */
}

/* A move over a do: step that runs out of memory stays where it was, with
 * the state intact (rebuild wrote into the shown state and left it half). */
static void goto_fails_cleanly(void **state)
{
    if (!INTERPOSED)
        skip();
    bool ok = false;
    for (long n = 0; !ok && n < 10000; n++) {
        Session s;
        Attn was = {0};
        assert_true(session_init(&s, &lesson));
        assert_true(session_goto(&s, 2));
        assert_true(attn_copy(&was, &s.cur));
        budget = n;
        ok = session_goto(&s, 4); /* across step 4's do: */
        budget = -1;
        if (!ok) {
            assert_int_equal(s.step, 2);
            assert_attn_same(&s.cur, &was);
        } else {
            assert_int_equal(s.step, 4);
            assert_true(session_overridden(&s, M_Q, 0));
            assert_int_equal(session_override_by(&s, M_Q, 0), OV_SCRIPT);
        }
        attn_free(&was);
        session_free(&s);
    }
    assert_true(ok);
}

/* An action or a reset that runs out of memory changes nothing and says so. */
static void act_fails_cleanly(void **state)
{
    if (!INTERPOSED)
        skip();
    static const char *acts[] = {"Q[2] = K[1] * 5", "reset"};
    for (int a = 0; a < 2; a++) {
        bool ok = false;
        for (long n = 0; !ok && n < 10000; n++) {
            Session s;
            Attn was = {0};
            char err[256] = "";
            assert_true(session_init(&s, &lesson));
            assert_true(session_goto(&s, 3));
            assert_true(session_act_text(&s, "X[1][1] = 2", err, sizeof err));
            assert_true(attn_copy(&was, &s.cur));
            int nedits = s.nedits;
            budget = n;
            ok = session_act_text(&s, acts[a], err, sizeof err);
            budget = -1;
            if (!ok) {
                assert_string_equal(err, "out of memory; nothing was changed");
                assert_int_equal(s.nedits, nedits);
                assert_attn_same(&s.cur, &was);
            }
            attn_free(&was);
            session_free(&s);
        }
        assert_true(ok);
    }
}

/* --json and --dump out of memory: exit status 2 and our one line. */
static void render_fails_cleanly(void **state)
{
    if (!INTERPOSED)
        skip();
    for (int which = 0; which < 2; which++) {
        bool ok = false;
        for (long n = 0; !ok && n < 100000; n++) {
            FILE *out = tmpfile();
            assert_non_null(out);
            int err = dup(2), null = open("/dev/null", O_WRONLY);
            assert_true(err >= 0 && null >= 0);
            dup2(null, 2);
            RenderOpt o = {LANG_EN, false, 4};
            budget = n;
            int rc = which ? render_dump(out, &lesson, &o) : render_json(out, &lesson, &o);
            budget = -1;
            dup2(err, 2);
            close(err);
            close(null);
            fclose(out);
            assert_true(rc == 0 || rc == 2);
            ok = rc == 0;
        }
        assert_true(ok);
    }
}

/* A model lesson's --json and --dump (out/modeljson.c, modeldump.c), whole
 * and at step 3, out of memory: exit status 2 and our one line, or the
 * whole output. */
static void model_render_fails_cleanly(void **state)
{
    (void)state;
    if (!INTERPOSED)
        skip();
    Lesson l;
    char err[LESSON_ERR_MAX];
    assert_true(lesson_load_file("tests/lessons/model-2l.yaml", &l, err, sizeof err));
    for (int which = 0; which < 4; which++) {
        bool ok = false;
        for (long n = 0; !ok && n < 100000; n++) {
            FILE *out = tmpfile();
            assert_non_null(out);
            int e = dup(2), null = open("/dev/null", O_WRONLY);
            assert_true(e >= 0 && null >= 0);
            dup2(null, 2);
            RenderOpt o = {LANG_EN, false, which >= 2 ? 3 : 0};
            budget = n;
            int rc = which % 2 ? render_dump(out, &l, &o) : render_json(out, &l, &o);
            budget = -1;
            dup2(e, 2);
            close(e);
            close(null);
            fclose(out);
            assert_true(rc == 0 || rc == 2);
            ok = rc == 0;
        }
        assert_true(ok);
    }
    lesson_free(&l);
}

/* --worksheet --answers out of memory: exit status 2, or the whole sheet;
 * never a sheet cut short with status 0. */
static void worksheet_fails_cleanly(void **state)
{
    if (!INTERPOSED)
        skip();
    char *whole = NULL;
    size_t whole_len = 0;
    FILE *full = open_memstream(&whole, &whole_len);
    WorksheetOpt wo = {LANG_EN, false, true, 0, false};
    assert_int_equal(render_worksheet(full, &lesson, &wo), 0);
    fclose(full);
    bool ok = false;
    long n;
    for (n = 0; !ok && n < 100000; n++) {
        FILE *out = tmpfile();
        assert_non_null(out);
        int err = dup(2), null = open("/dev/null", O_WRONLY);
        assert_true(err >= 0 && null >= 0);
        dup2(null, 2);
        budget = n;
        int rc = render_worksheet(out, &lesson, &wo);
        budget = -1;
        dup2(err, 2);
        close(err);
        close(null);
        assert_true(rc == 0 || rc == 2);
        if ((ok = rc == 0)) {
            long len = ftell(out);
            assert_int_equal(len, (long)whole_len);
        }
        fclose(out);
    }
    assert_true(ok);
    assert_true(n > 10); /* it did allocate: the failures were exercised */
    free(whole);
}

/* Loading a built-in lesson from its array (its recorded events replayed,
 * whole and skimmed) or from a copy (libyaml) either succeeds or fails
 * with the out-of-memory message and nothing to free. */
static void load_fails_cleanly(void **state)
{
    if (!INTERPOSED)
        skip();
    const EmbeddedLesson *e = &embedded_lessons[0];
    char *copy = malloc(e->len);
    assert_non_null(copy);
    memcpy(copy, e->data, e->len);
    for (int way = 0; way < 4; way++) {
        const char *buf = way < 2 ? e->data : copy;
        unsigned flags = way % 2 ? LESSON_LOAD_NO_NARRATION : 0;
        bool ok = false;
        long n;
        for (n = 0; !ok && n < 100000; n++) {
            Lesson l;
            char err[LESSON_ERR_MAX];
            budget = n;
            ok = lesson_load_buffer_all(e->name, buf, e->len, &l, err, sizeof err, NULL, flags);
            budget = -1;
            if (ok) {
                lesson_free(&l);
            } else {
                assert_int_equal(l.nsteps, 0);
                assert_null(l.file);
                if (!strstr(err, "out of memory"))
                    fail_msg("way %d, allocation %ld fails: %s", way, n, err);
            }
        }
        assert_true(ok);
        assert_true(n > 5);
    }
    free(copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load_fails_cleanly),
        cmocka_unit_test_setup_teardown(init_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(goto_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(act_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(render_fails_cleanly, setup, teardown),
        cmocka_unit_test(model_render_fails_cleanly),
        cmocka_unit_test_setup_teardown(worksheet_fails_cleanly, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
