/* test_tracelive.c - the trace line over every built-in lesson (DESIGN.md
 * "The screen never contradicts itself"): for several steps, focused
 * cells and edits (a Q row, a K row, a V row, an X cell, a weight cell),
 * every cell the trace names really changed, every "⇒" link is a real
 * dependency by the pipeline's definitions (a Q row i reaches S, A, O only
 * in row i, a K row j column j of S, a V row only O rows that weigh it),
 * the path ends at the focused cell or says it had no effect, and after
 * `u` no trace line remains. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#undef expect_check /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/embedded.h"
#include "lesson/lesson.h"
#include "lesson/session.h"
#include "words/fmt.h"
#include "words/live.h"

static bool differs(double a, double b)
{
    return !(a == b) && !(a != a && b != b);
}

/* Is cell u of the origin's rows (the head names them)? */
static bool origin_row(const Trace *t, int r)
{
    for (int k = 0; k < t->nrows && k < TRACE_ROWS; k++)
        if (t->rows[k] == r)
            return true;
    return t->nrows > TRACE_ROWS || (t->nrows == 0 && t->origin_i == r);
}

/* Does v depend on u by the definitions (u one stage or more before v)? */
static bool link_ok(const Attn *a, const TraceCell *u, const TraceCell *v, int head)
{
    MatId bu = attn_mat_base(u->mat), bv = attn_mat_base(v->mat);
    if (bv == M_S)
        return (bu == M_Q && u->i == v->i) || (bu == M_K && u->i == v->j);
    if (bv == M_A)
        return bu == M_S && u->i == v->i;
    if (bv == M_O && bu == M_A)
        return u->i == v->i;
    if (bv == M_O && bu == M_V) { /* O[i] weighs row r of V by α_ir */
        int h = v->mat == M_O && a->heads > 1 ? v->j / attn_d_v(a) + 1 : head;
        return MAT_AT(&a->m[attn_shown(a, M_A, h)], v->i, u->i) != 0;
    }
    if (bv == M_Y)
        return bu == M_O && u->i == v->i;
    return false;
}

/* The origin's link to the path's first cell. */
static bool origin_ok(const Attn *a, const Trace *t, const TraceCell *v, int head)
{
    MatId bv = attn_mat_base(v->mat);
    if (t->kind != TRACE_MATRIX)
        return true; /* an option reaches every cell of its stage */
    switch (t->origin) {
    case M_X:
        return bv >= M_Q && bv <= M_V && origin_row(t, v->i);
    case M_WQ:
    case M_WK:
    case M_WV: /* column c of W makes column c of Q, K or V (RoPE: its pair) */
        return bv == M_Q + (t->origin - M_WQ) &&
               (v->j == t->origin_j || (a->positions == POS_ROPE && v->j / 2 == t->origin_j / 2) ||
                t->origin_row);
    case M_Q:
        return bv == M_S && origin_row(t, v->i);
    case M_K:
        return bv == M_S && origin_row(t, v->j);
    case M_V: {
        if (bv != M_O)
            return false;
        for (int r = 0; r < a->m[M_V].rows; r++) {
            TraceCell u = {M_V, r, 0, 0, 0};
            if (origin_row(t, r) && link_ok(a, &u, v, head))
                return true;
        }
        return false;
    }
    default:
        return true;
    }
}

/* The trace now: its cells changed, its links hold, it ends at (i, j). */
static void check_trace(const Session *s, int i, int j, const char *where)
{
    Trace t;
    if (!session_trace(s, i, j, &t))
        return;
    if (t.kind == TRACE_SWAP || t.kind == TRACE_APPEND)
        return;
    for (int k = 0; k < t.n; k++) {
        const TraceCell *c = &t.cell[k];
        if (!differs(c->before, c->after))
            fail_msg("%s: cell %d (%s[%d][%d]) did not change", where, k, attn_mat_name(c->mat), c->i + 1,
                     c->j + 1);
        if (c->after != MAT_AT(&s->cur.m[c->mat], c->i, c->j) &&
            !(isnan(c->after) && isnan(MAT_AT(&s->cur.m[c->mat], c->i, c->j))))
            fail_msg("%s: cell %d is not the state's", where, k);
        if (k == 0 ? !origin_ok(&s->cur, &t, c, s->head) : !link_ok(&s->cur, &t.cell[k - 1], c, s->head)) {
            char line[FMT_LINE];
            FmtOpt fo = {3, false, false};
            effect_trace_line(&t, &s->cur, &fo, s, line, sizeof line);
            fail_msg("%s: link %d => %s[%d][%d] is no dependency: %s", where, k, attn_mat_name(c->mat), c->i + 1,
                     c->j + 1, line);
        }
    }
    if (t.n && s->cur.reached > STAGE_QKV && attn_mat_base(t.cell[t.n - 1].mat) != M_Q &&
        t.cell[t.n - 1].i != (i < attn_tokens(&s->cur) ? i : 0))
        fail_msg("%s: the path ends in row %d, not the focused row %d", where, t.cell[t.n - 1].i + 1, i + 1);
    if (t.no_effect && differs(t.focus.before, t.focus.after))
        fail_msg("%s: 'no effect' on a cell that moved", where);
}

static const char *const edits[] = {"Q[1] = K[1] * 5", "K[2] = Q[1] * 3", "V[1] = V[2] * 2", "X[1][1] = 2",
                                    "Wq[1][1] = 0.5", "Wk[2][1] = -1", "Wv[1][2] = 1.5"};

static void one_lesson(const EmbeddedLesson *e, int *checked)
{
    Lesson l;
    Session s;
    char err[512], line[FMT_LINE];
    FmtOpt fo = {3, false, false};
    assert_true(lesson_load_buffer(e->name, e->data, e->len, &l, err, sizeof err));
    if (l.model) { /* a model lesson: the one-layer trace has nothing to say (mtrace.c's, test_msession) */
        lesson_free(&l);
        return;
    }
    assert_true(session_init(&s, &l));
    int n = session_steps(&s);
    for (int step = n - 1; step >= 0; step -= (n > 6 ? 2 : 1)) {
        session_goto(&s, step);
        for (size_t k = 0; k < sizeof edits / sizeof *edits; k++) {
            if (!session_act_text(&s, edits[k], err, sizeof err))
                continue;
            int t = attn_tokens(&s.cur);
            const int focus[][2] = {{0, 0}, {t - 1, 0}, {t - 1, t - 1}, {1 % t, 0}};
            for (size_t f = 0; f < sizeof focus / sizeof *focus; f++) {
                char where[256];
                snprintf(where, sizeof where, "%s step %d `%s` focus (%d,%d)", e->name, step + 1, edits[k],
                         focus[f][0] + 1, focus[f][1] + 1);
                check_trace(&s, focus[f][0], focus[f][1], where);
                (*checked)++;
            }
            assert_true(session_undo(&s));
            if (session_trace_line(&s, 0, 0, &fo, line, sizeof line) || line[0])
                fail_msg("%s step %d: after undoing `%s` the trace still says \"%s\"", e->name, step + 1, edits[k],
                         line);
            assert_true(session_redo(&s)); /* redo: the trace is the change's again */
            check_trace(&s, t - 1, 0, "redo");
            assert_true(session_undo(&s));
        }
    }
    session_free(&s);
    lesson_free(&l);
}

static void test_every_lesson(void **state)
{
    (void)state;
    int checked = 0;
    for (int k = 0; k < embedded_count; k++)
        one_lesson(&embedded_lessons[k], &checked);
    assert_true(checked > 500);
}

/* The trial's case: lesson 1 at its last step, focus on row 3, q₁ changed:
 * s₃₁ = q₃·k₁ does not read q₁, so no chain is named. */
/* The built-in lesson whose name holds prefix, at its last step. */
static void open_last_step(const char *prefix, Lesson *l, Session *s)
{
    char err[512];
    const EmbeddedLesson *e = NULL;
    for (int k = 0; k < embedded_count && !e; k++)
        if (strstr(embedded_lessons[k].name, prefix))
            e = &embedded_lessons[k];
    assert_non_null(e);
    assert_true(lesson_load_buffer(e->name, e->data, e->len, l, err, sizeof err));
    assert_true(session_init(s, l));
    session_goto(s, session_steps(s) - 1);
}

static void test_trial_case(void **state)
{
    (void)state;
    Lesson l;
    Session s;
    char err[512], line[FMT_LINE];
    FmtOpt fo = {3, false, false};
    open_last_step("01-", &l, &s);
    assert_true(session_act_text(&s, "Q[1] = K[1] * 5", err, sizeof err));
    assert_true(session_trace_line(&s, 2, 0, &fo, line, sizeof line));
    assert_string_equal(line, "q₁ changed, no effect on o₃₁");
    assert_true(session_trace_line(&s, 0, 0, &fo, line, sizeof line));
    assert_string_equal(line, "q₁ changed ⇒ s₁₁ −0.066 → 3.013 ⇒ α₁₁ 0.313 → 0.873 ⇒ o₁₁ −0.099 → −0.147");
    assert_true(session_act_text(&s, "K[1] = K[1] * 5", err, sizeof err));
    assert_true(session_trace_line(&s, 2, 1, &fo, line, sizeof line)); /* k₁ reaches s₃₁, then row 3 */
    assert_non_null(strstr(line, "k₁ changed ⇒ s₃₁ "));
    assert_non_null(strstr(line, " ⇒ o₃₂ "));
    assert_true(session_undo(&s));
    assert_false(session_trace_line(&s, 2, 1, &fo, line, sizeof line));
    session_free(&s);
    lesson_free(&l);
}

/* With several heads the whole Q's column is named as the matrix labels
 * it: lesson 8's Q[2][3] is head 2's first column, h2·1. */
static void test_head_columns(void **state)
{
    (void)state;
    Lesson l;
    Session s;
    char err[512], line[FMT_LINE];
    FmtOpt fo = {3, false, false};
    open_last_step("08-", &l, &s);
    s.head = 2;
    assert_true(session_act_text(&s, "Q[2][3] = 1.5", err, sizeof err));
    assert_true(session_trace_line(&s, 1, 0, &fo, line, sizeof line));
    if (!strstr(line, "q₂₃ (h2·1) "))
        fail_msg("the trace does not name h2·1: %s", line);
    session_free(&s);
    lesson_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_head_columns),
        cmocka_unit_test(test_trial_case),
        cmocka_unit_test(test_every_lesson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
