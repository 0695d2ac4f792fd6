/* test_heads_lesson.c - heads in the lesson layer: the format (heads, d_out,
 * Wo, the draw order), head names in every place a reference is written
 * (ref_head: focus, expect, ask, templates, actions, overrides), head-part
 * overrides through the session, saving and loading a multi-head state, and
 * the messages for what is wrong. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rng.h"
#include "lesson/lesson.h"
#include "words/live.h"
#include "lesson/ref.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "lesson/template.h"
#include "testutil.h" /* after lesson.h: cmocka defines a macro expect_check */

#define HEAD "format: qkvtutor/1\ntokens: [a, b, c]\nX: [[1, 0, 0, 0.5], [0, 1, 0, 0], [0, 0, 1, 0.2]]\n"

static void load_ok(const char *yaml, Lesson *l)
{
    char err[LESSON_ERR_MAX];
    if (!lesson_load_buffer("t.yaml", yaml, strlen(yaml), l, err, sizeof err))
        fail_msg("%s", err);
}

static void load_err(const char *yaml, const char *want)
{
    char err[LESSON_ERR_MAX];
    Lesson l;
    assert_false(lesson_load_buffer("t.yaml", yaml, strlen(yaml), &l, err, sizeof err));
    assert_string_equal(err, want);
}

/* The draw order is Wq, Wk, Wv, then Wo from the same stream, each
 * randn(rows, cols) * scale; d_out defaults to d_model with 2+ heads. */
static void test_draw_order(void **state)
{
    Lesson l;
    load_ok(HEAD "heads: 2\nweights:\n  random: {seed: 7, scale: 0.5, d_k: 3, d_v: 2}\n", &l);
    assert_int_equal(l.heads, 2);
    assert_int_equal(l.d_k, 3);
    assert_int_equal(l.d_v, 2);
    assert_int_equal(l.d_out, 4);
    Rng r;
    rng_seed(&r, 7);
    Mat w[4];
    int shape[4][2] = {{4, 6}, {4, 6}, {4, 4}, {4, 4}};
    const Mat *got[4] = {&l.Wq, &l.Wk, &l.Wv, &l.Wo};
    for (int k = 0; k < 4; k++) {
        assert_true(mat_new(&w[k], shape[k][0], shape[k][1]));
        rng_randn(&r, &w[k], 0.5);
        assert_int_equal(got[k]->rows, shape[k][0]);
        assert_int_equal(got[k]->cols, shape[k][1]);
        assert_true(mat_max_diff(got[k], &w[k]) == 0.0);
        mat_free(&w[k]);
    }
    lesson_free(&l);
    /* One head keeps its numbers and draws no Wo; d_out draws one. */
    load_ok(HEAD "weights:\n  random: {seed: 7, scale: 0.5, d_k: 3}\n", &l);
    assert_int_equal(l.heads, 1);
    assert_int_equal(l.d_out, 0);
    assert_null(l.Wo.v);
    assert_int_equal(l.nsteps, 5);
    lesson_free(&l);
    load_ok(HEAD "weights:\n  random: {seed: 7, scale: 0.5, d_k: 3, d_out: 2}\n", &l);
    assert_int_equal(l.d_out, 2);
    assert_int_equal(l.Wo.rows, 3);
    assert_int_equal(l.nsteps, 6); /* the made-up script reaches stage 6 */
    lesson_free(&l);
}

/* Written out: Wq's columns split into heads of d_k; Wo is required. */
static void test_written_out(void **state)
{
    Lesson l;
    load_ok(HEAD "heads: 2\nweights:\n"
                 "  Wq: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]\n"
                 "  Wk: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]\n"
                 "  Wv: [[1, 0], [0, 1], [1, 1], [0, 0]]\n"
                 "  Wo: [[1, 0, 0], [0, 1, 0]]\n", &l);
    assert_int_equal(l.d_k, 2);
    assert_int_equal(l.d_v, 1);
    assert_int_equal(l.d_out, 3);
    Attn a;
    assert_true(lesson_base(&l, &a));
    attn_run_to(&a, STAGE_PROJECT);
    assert_int_equal(a.reached, STAGE_PROJECT);
    assert_int_equal(a.m[M_Y].cols, 3);
    /* Y's third column is 0: Wo's third column is. */
    for (int i = 0; i < 3; i++)
        assert_true(MAT_AT(&a.m[M_Y], i, 2) == 0.0);
    attn_free(&a);
    lesson_free(&l);
}

static void test_errors(void **state)
{
    load_err(HEAD "heads: 0\nweights:\n  random: {seed: 1, d_k: 2}\n",
             "t.yaml:4:8: heads must be a whole number from 1 to 16, found \"0\"");
    load_err(HEAD "heads: two\nweights:\n  random: {seed: 1, d_k: 2}\n",
             "t.yaml:4:8: heads must be a whole number from 1 to 16, found \"two\"");
    load_err(HEAD "heads: 9\nweights:\n  random: {seed: 1, d_k: 8}\n",
             "t.yaml:6:26: heads x d_k = 9 x 8 = 72 columns of Wq, at most 64 are allowed; use fewer heads or a "
             "smaller d_k");
    load_err(HEAD "heads: 4\nweights:\n  random: {seed: 1, d_k: 2, d_v: 17}\n",
             "t.yaml:6:34: heads x d_v = 4 x 17 = 68 columns of Wv, at most 64 are allowed; use fewer heads or a "
             "smaller d_v");
    load_err(HEAD "heads: 2\nweights:\n  random: {seed: 1, d_k: 2}\n  Wo: [[1]]\n",
             "t.yaml:6:3: weights cannot mix random with written-out Wq, Wk, Wv; use one or the other");
    load_err(HEAD "heads: 2\nweights:\n  Wq: [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]\n"
                  "  Wk: [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]\n"
                  "  Wv: [[1, 0], [0, 1], [1, 1], [0, 0]]\n  Wo: [[1], [1]]\n",
             "t.yaml:6:8: Wq has 3 columns, which do not split into 2 heads; it needs heads x d_k columns, a "
             "multiple of 2");
}

/* "S1" is S with one head; "A3" with two heads, bare S with two heads and Y
 * without W_O are refused with one line each. */
static void test_ref_head(void **state)
{
    Attn one, two;
    char msg[256];
    assert_true(attn_init(&one, 3, 4, 2, 2));
    assert_true(attn_init_heads(&two, 3, 4, 2, 2, 2, 4));
    MatId m = attn_head_id(M_S, 1);
    assert_int_equal(ref_head(&one, &m, msg, sizeof msg), REF_OK);
    assert_int_equal(m, M_S);
    m = attn_head_id(M_Q, 1);
    assert_int_equal(ref_head(&two, &m, msg, sizeof msg), REF_OK);
    assert_int_equal(m, attn_head_id(M_Q, 1));
    m = attn_head_id(M_A, 3);
    assert_int_equal(ref_head(&two, &m, msg, sizeof msg), REF_NO_HEAD);
    assert_string_equal(msg, "A3 names head 3, but this lesson has 2 heads: A1 to A2");
    m = attn_head_id(M_A, 2);
    assert_int_equal(ref_head(&one, &m, msg, sizeof msg), REF_NO_HEAD);
    assert_string_equal(msg, "A2 names head 2, but this lesson has one head: write A (or A1)");
    m = M_S;
    assert_int_equal(ref_head(&two, &m, msg, sizeof msg), REF_WHICH_HEAD);
    assert_string_equal(msg, "S is one per head in a lesson with 2 heads: write S1 to S2");
    m = M_Q; /* the full projection is fine */
    assert_int_equal(ref_head(&two, &m, msg, sizeof msg), REF_OK);
    m = M_Y;
    assert_int_equal(ref_head(&one, &m, msg, sizeof msg), REF_NO_WO);
    m = M_WO;
    assert_int_equal(ref_head(&two, &m, msg, sizeof msg), REF_OK);
    attn_free(&one);
    attn_free(&two);
}

#define TWO HEAD "heads: 2\nweights:\n  random: {seed: 42, scale: 0.8, d_k: 2, d_v: 3, d_out: 2}\n"

/* Q2[1] = K2[1] * 5 sets only head 2's part of Q's row 1; A1 stays, A2 moves. */
static void test_head_action(void **state)
{
    Lesson l;
    Session s;
    char err[256];
    load_ok(TWO "steps:\n  - stage: softmax\n    focus: \"A2[1]\"\n", &l);
    assert_true(session_init(&s, &l));
    assert_int_equal(s.head, 2); /* the step's focus names head 2 */
    Attn before = {0};
    assert_true(attn_copy(&before, &s.cur));
    assert_true(session_act_text(&s, "Q2[1] = K2[1] * 5", err, sizeof err));
    const Mat *q = &s.cur.m[M_Q], *k = &s.cur.m[M_K];
    for (int c = 0; c < 2; c++) {
        assert_true(MAT_AT(q, 0, c) == MAT_AT(&before.m[M_Q], 0, c)); /* head 1's part: X·Wq */
        assert_true(MAT_AT(q, 0, 2 + c) == MAT_AT(k, 0, 2 + c) * 5);
    }
    assert_true(s.cur.override[0][0]);
    assert_int_equal(s.cur.ovh[0][0], 2);
    assert_true(mat_max_diff(&s.cur.m[attn_head_id(M_A, 1)], &before.m[attn_head_id(M_A, 1)]) == 0.0);
    assert_true(mat_max_diff(&s.cur.m[attn_head_id(M_A, 2)], &before.m[attn_head_id(M_A, 2)]) > 0.01);
    /* The trace follows head 2: A2's weight moves. */
    char line[1024];
    FmtOpt fo = {3, false, false};
    assert_true(session_trace_line(&s, 0, 0, &fo, line, sizeof line));
    assert_non_null(strstr(line, "q₁ changed ⇒ s₁₁"));
    /* A head past the lesson's, and a bare S, are refused with the reason. */
    assert_false(session_act_text(&s, "Q3[1] = K3[1]", err, sizeof err));
    assert_string_equal(err, "Q3 names head 3, but this lesson has 2 heads: Q1 to Q2");
    assert_false(session_act_text(&s, "A2[1] = K2[1]", err, sizeof err));
    /* A cell of a head, and W_O, are targets too. */
    assert_true(session_act_text(&s, "K1[2][2] = 1.5", err, sizeof err));
    assert_true(MAT_AT(&s.cur.m[M_K], 1, 1) == 1.5);
    assert_int_equal(s.cur.ovh[1][1], 1);
    assert_true(session_act_text(&s, "Wo[1][1] = 0.25", err, sizeof err));
    assert_true(MAT_AT(&s.cur.m[M_WO], 0, 0) == 0.25);
    /* [ and ]: the head wraps round. */
    assert_int_equal(session_set_head(&s, 3), 1);
    assert_int_equal(session_set_head(&s, 0), 2);
    attn_free(&before);
    session_free(&s);
    lesson_free(&l);
}

/* expect, ask and templates take head names; the wrong head is a load error. */
static void test_head_refs_in_steps(void **state)
{
    Lesson l;
    load_ok(TWO "steps:\n  - stage: softmax\n    ask: \"A2[3]\"\n    say: \"{A1[2][1]} and {S2[1]}\"\n"
                "    expect: {\"A2[1][1]\": 0.5, \"Q1[1]\": [0, 0]}\n", &l);
    assert_int_equal(l.steps[0].ask[0].mat, attn_head_id(M_A, 2));
    assert_int_equal(l.steps[0].expect[0].mat, attn_head_id(M_A, 2));
    lesson_free(&l);
    load_err(TWO "steps:\n  - stage: softmax\n    ask: \"A3[1]\"\n",
             "t.yaml:9:10: A3 names head 3, but this lesson has 2 heads: A1 to A2");
    load_err(TWO "steps:\n  - stage: softmax\n    say: \"{A3[1][1]}\"\n",
             "t.yaml:9:11: A3 names head 3, but this lesson has 2 heads: A1 to A2");
    load_err(TWO "steps:\n  - stage: scores\n    expect: {\"A1[1][1]\": 0.5}\n",
             "t.yaml:9:14: A1 is computed at stage softmax, this step shows stage scores; expect it at a later step");
    load_err(TWO "overrides: {\"Q3[1]\": [1, 2]}\n",
             "t.yaml:7:13: \"Q3[1]\" names head 3, but this lesson has 2 heads");
    load_err(TWO "overrides: {\"Q2[1]\": [1, 2, 3]}\n", "t.yaml:7:22: Q2[1] needs d_k = 2 numbers, it has 3");
    /* A head's override keeps only its columns. */
    load_ok(TWO "overrides: {\"Q2[1]\": [7, 8]}\n", &l);
    Attn a;
    assert_true(lesson_base(&l, &a));
    attn_run_to(&a, STAGE_QKV);
    assert_true(MAT_AT(&a.m[M_Q], 0, 2) == 7 && MAT_AT(&a.m[M_Q], 0, 3) == 8);
    assert_true(MAT_AT(&a.m[M_Q], 0, 0) != 7);
    attn_free(&a);
    lesson_free(&l);
}

/* Saving a two-head state writes heads, Wo and the edits (a head's part
 * overridden); loading it gives the same numbers. */
static void test_save_round_trip(void **state)
{
    Lesson l, l2;
    Session s, s2;
    char err[256], path[] = "/tmp/qkv-heads-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    load_ok(TWO "steps:\n  - stage: project\n    focus: \"Y[1][1]\"\n", &l);
    assert_true(session_init(&s, &l));
    assert_true(session_act_text(&s, "Q2[1] = K2[1] * 5", err, sizeof err));
    assert_true(session_act_text(&s, "Wo[2] = [0.5, -1]", err, sizeof err));
    assert_true(lesson_save(&s, path, err, sizeof err));
    char e2[LESSON_ERR_MAX];
    assert_true(lesson_load_file(path, &l2, e2, sizeof e2));
    assert_int_equal(l2.heads, 2);
    assert_int_equal(l2.d_out, 2);
    assert_int_equal(l2.steps[0].nedit, 2); /* the edits, replayed at the step they were made */
    assert_true(session_init(&s2, &l2));
    assert_true(s2.cur.override[0][0]);
    assert_int_equal(s2.cur.ovh[0][0], 2);
    assert_int_equal(s2.cur.reached, STAGE_PROJECT);
    for (int id = 0; id < M_COUNT; id++)
        if (s.cur.m[id].v && id != M_P && id != M_H)
            assert_true(mat_max_diff(&s.cur.m[id], &s2.cur.m[id]) == 0.0);
    session_free(&s2);
    lesson_free(&l2);
    session_free(&s);
    lesson_free(&l);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draw_order),
        cmocka_unit_test(test_written_out),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_ref_head),
        cmocka_unit_test(test_head_action),
        cmocka_unit_test(test_head_refs_in_steps),
        cmocka_unit_test(test_save_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
