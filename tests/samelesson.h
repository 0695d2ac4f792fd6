/* samelesson.h - one check for tests that load a lesson two ways (skimmed
 * or not, replayed or parsed): the two Lessons hold the same. Include it
 * after cmocka (testutil.h) and the lesson headers. */
#ifndef QKV_TEST_SAMELESSON_H
#define QKV_TEST_SAMELESSON_H

#include <stdlib.h>
#include <string.h>

#include "lesson/save.h"
#include "lesson/session.h"

/* Everything a loaded lesson holds: its start, the steps' stages, lines,
 * asks and expect checks (which a saved file leaves out), and the lesson
 * saved at every step (weights, options, overrides, script, narration).
 * how names the second way in a failure ("skimmed", "replayed"). */
static inline void assert_same_lesson(const Lesson *a, const Lesson *b, const char *name, const char *how)
{
    assert_int_equal(a->nsteps, b->nsteps);
    assert_int_equal(a->start, b->start);
    for (int k = 0; k < a->nsteps; k++) {
        const Step *x = &a->steps[k], *y = &b->steps[k];
        assert_int_equal(x->stage, y->stage);
        assert_int_equal(x->line, y->line);
        assert_int_equal(x->nask, y->nask);
        assert_int_equal(x->nexpect, y->nexpect);
        for (int j = 0; j < x->nexpect; j++) {
            const Expect *ex = &x->expect[j], *ey = &y->expect[j];
            assert_true(ex->mat == ey->mat && ex->i == ey->i && ex->j == ey->j && ex->n == ey->n);
            assert_true(ex->line == ey->line && ex->col == ey->col);
            assert_memory_equal(ex->val, ey->val, (size_t)ex->n * sizeof *ex->val);
            assert_memory_equal(ex->tol, ey->tol, (size_t)ex->n * sizeof *ex->tol);
        }
    }
    Session sa, sb;
    assert_true(session_init(&sa, a));
    assert_true(session_init(&sb, b));
    for (int k = 0; k <= a->nsteps; k++) {
        session_goto(&sa, k);
        session_goto(&sb, k);
        size_t la = 0, lb = 0;
        char *ta = lesson_save_text(&sa, &la), *tb = lesson_save_text(&sb, &lb);
        assert_non_null(ta);
        assert_non_null(tb);
        if (la != lb || memcmp(ta, tb, la) != 0)
            fail_msg("%s: the %s lesson differs at step %d", name, how, k);
        free(ta);
        free(tb);
    }
    session_free(&sa);
    session_free(&sb);
}

#endif
