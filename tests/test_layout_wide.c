/* test_layout_wide.c - presentation mode on a projector's wide screen
 * (200x50): the board fills the screen, and stays put within a stage.
 *
 * For every built-in lesson, every step, in English and Chinese, the
 * presentation plan at 200x50 (the step's focus, as the view sets it):
 *  - the board (every matrix box and the weight bars) spans at least half
 *    of the screen's columns and two fifths of its rows (the text below
 *    takes the rest), and its middle is within a
 *    tenth of the screen's width of the screen's middle (it was a third of
 *    the screen in the top-left corner);
 *  - between two steps of the same stage that show the same boxes, no box
 *    moves (same x and y), unless the later step's own do: changed numbers.
 * No curses. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "lesson/embedded.h"
#include "lesson/lesson.h"
#include "lesson/session.h"
#include "text/i18n.h"
#include "testutil.h" /* after lesson.h: cmocka defines a macro expect_check */

enum { COLS = 200, ROWS = 50 };

typedef struct {
    int x0, y0, x1, y1;
} Box;

/* The presentation plan of the session's current step. */
static void lay(Session *s, Lang lang, Plan *p)
{
    LayoutIn in = {.s = s, .lang = lang, .mode = LAYOUT_NORMAL, .fmat = M_Q, .emat = M_Q, .msg = "",
                   .msg_role = ROLE_HINT, .keybar = "", .cols = COLS, .rows = ROWS, .present = true};
    layout_focus_step(s, &in.fi, &in.fj, &in.frow, &in.fmat);
    layout_clamp_focus(s, &in.fi, &in.fj, in.fmat);
    layout_plan(&in, p);
}

static Box board(const Plan *p)
{
    Box b = {COLS, ROWS, 0, 0};
    for (int k = 0; k < p->nbox; k++) {
        const PlanBox *x = &p->box[k];
        b.x0 = x->x < b.x0 ? x->x : b.x0;
        b.y0 = x->y < b.y0 ? x->y : b.y0;
        b.x1 = x->x + x->w > b.x1 ? x->x + x->w : b.x1;
        b.y1 = x->y + x->h > b.y1 ? x->y + x->h : b.y1;
    }
    const PlanBlock *bars = plan_block(p, BLOCK_BARS);
    if (bars && bars->w > 0) {
        b.x1 = bars->x + bars->w > b.x1 ? bars->x + bars->w : b.x1;
        b.y1 = bars->y + bars->h > b.y1 ? bars->y + bars->h : b.y1;
    }
    return b;
}

/* Do two plans show the same boxes (ids and shapes, in order)? */
static bool same_boxes(const Plan *a, const Plan *b)
{
    if (a->nbox != b->nbox)
        return false;
    for (int k = 0; k < a->nbox; k++)
        if (a->box[k].id != b->box[k].id || a->box[k].rows != b->box[k].rows || a->box[k].cols != b->box[k].cols)
            return false;
    return true;
}

static int bad;

static void one_lesson(int k, Lang lang, int *checked, int *pairs)
{
    Lesson l;
    Session s;
    Plan p[2];
    char err[512];
    if (!lesson_load_buffer(embedded_lessons[k].name, embedded_lessons[k].data, embedded_lessons[k].len, &l, err,
                            sizeof err))
        fail_msg("%s", err);
    assert_true(session_init(&s, &l));
    plan_init(&p[0]);
    plan_init(&p[1]);
    int last_stage = -1;
    for (int step = 0; step < session_steps(&s); step++) {
        session_goto(&s, step);
        Plan *now = &p[step % 2], *before = &p[(step + 1) % 2];
        lay(&s, lang, now);
        Box b = board(now);
        int w = b.x1 - b.x0, h = b.y1 - b.y0, mid = (b.x0 + b.x1) / 2;
        if (now->nbox > 0 && (w * 2 < COLS || h * 5 < ROWS * 2 || abs(mid - COLS / 2) > COLS / 10) && ++bad)
            printf("%s step %d (%s): the board is columns %d-%d, rows %d-%d of %dx%d\n", embedded_lessons[k].name,
                     step + 1, lang == LANG_ZH ? "zh" : "en", b.x0, b.x1, b.y0, b.y1, COLS, ROWS);
        (*checked)++;
        int st = session_stage(&s);
        bool acts = session_step(&s)->nact > 0;
        if (st == last_stage && !acts && same_boxes(now, before)) {
            for (int m = 0; m < now->nbox; m++)
                if ((now->box[m].x != before->box[m].x || now->box[m].y != before->box[m].y) && ++bad)
                    printf("%s step %d (%s): box %d moved from (%d, %d) to (%d, %d) within stage %d\n",
                             embedded_lessons[k].name, step + 1, lang == LANG_ZH ? "zh" : "en", m,
                             before->box[m].x, before->box[m].y, now->box[m].x, now->box[m].y, st);
            (*pairs)++;
        }
        last_stage = st;
    }
    plan_free(&p[0]);
    plan_free(&p[1]);
    session_free(&s);
    lesson_free(&l);
}

static void test_wide_board(void **state)
{
    int checked = 0, pairs = 0;
    for (int lg = 0; lg < 2; lg++) {
        Lang lang = lg ? LANG_ZH : LANG_EN;
        i18n_set(lang, "build/locale");
        for (int k = 0; k < embedded_count; k++)
            one_lesson(k, lang, &checked, &pairs);
    }
    i18n_set(LANG_EN, "build/locale");
    printf("test_layout_wide: %d steps at %dx%d, %d pairs of steps within a stage kept their boxes\n", checked, COLS,
           ROWS, pairs);
    assert_int_equal(bad, 0);
    assert_true(checked > 100 && pairs > 20);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wide_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
