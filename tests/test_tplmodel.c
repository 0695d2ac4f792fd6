/* test_tplmodel.c - a model lesson's templates and asks (lesson/template.h,
 * lesson/tplref.h, lesson/ask.h): names of DESIGN.md "From a head to a
 * model" checked against the step's layer and stage, filled in from the
 * model as the screen writes numbers, hidden while asked, and asks graded
 * on the model's cells.
 *
 * Figures: one layer, d_model 4, 2 heads, d_ff 8 (gelu), layernorm,
 * learned positions, ctx 8, vocab [<s>, A, B, C, D, E], tokens A B C A,
 * weights randn * 0.5 from seed 7. The numbers below come from an
 * independent numpy forward (float64) of the same draws. */
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#undef expect_check
#include "lesson/lesson.h"
#include "lesson/lmodel.h"
#include "lesson/ask.h"
#include "lesson/template.h"
#include "words/narrate.h"
#include "words/live.h"
#include "lesson/session.h"
#include "lesson/asking.h"
#include "core/model.h"

static char *vocab[] = {"<s>", "A", "B", "C", "D", "E"};

typedef struct {
    Model m;
    LessonModel lm;
    Lesson l;
} Fix;

static int setup(void **state)
{
    Fix *f = calloc(1, sizeof *f);
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = 1;
    c.d_model = 4;
    c.heads = 2;
    c.d_ff = 8;
    c.ctx = 8;
    c.vocab = 6;
    int tok[] = {1, 2, 3, 1};
    if (!f || !model_init(&f->m, &c, tok, 4))
        return -1;
    model_draw_weights(&f->m, 7, 0.5);
    f->lm.nvocab = 6;
    f->lm.vocab = vocab;
    f->l.model = &f->lm;
    f->l.digits = 3;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    Fix *f = *state;
    model_free(&f->m);
    free(f);
    return 0;
}

/* text expanded from the model at its cursor, in English (hidden: mh) */
static char *expand(Fix *f, const char *text, bool (*mh)(const void *, ModelRef, int, int))
{
    TplOpt o = {3, false, NULL, NULL, LANG_EN, &f->m, mh};
    return template_expand_dup(text, NULL, &f->l, &o);
}

static void assert_expands(Fix *f, const char *text, const char *want)
{
    char *got = expand(f, text, NULL);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

/* check text for a step showing (layer, stage): "" when it passes, else the message */
static const char *check(Fix *f, const char *text, int layer, int stage)
{
    static char msg[LESSON_ERR_MAX];
    int col = 0;
    if (template_check_model(text, &f->m, layer, stage, "say", &col, msg, sizeof msg))
        return "";
    return msg;
}

static void test_values(void **state)
{
    Fix *f = *state;
    model_run_all(&f->m);
    assert_expands(f, "{L1.A1[4][2]} {A2[3][2]} {L1.h[3][1]} {E[1][1]}", "0.279 0.951 −1.749 0.845");
    assert_expands(f, "{logits[4][3]} / {p[4][3]} / {p[1]}", "1.924 / 0.458 / 0.059, 0.136, 0.042, 0.371, 0.329, 0.062");
    assert_expands(f, "{L1.f[2][3]} {sum(p[4])} {max(L1.A2[*][2])}", "1.630 1.000 0.951");
    assert_expands(f, "{token[1]}{token[4]} → {next} {p_next} {logit_next} {greedy} {p_greedy}",
                   "AA → B 0.458 1.924 B 0.458");
    assert_expands(f, "{L1.H1.prev} {H2.prev} {L1.H1.induction} {H2.induction}", "0.424 0.451 0.279 0.101");
    assert_expands(f, "{layers} {d_model} {heads} {d_k} {d_ff} {vocab} {ctx} {n} {T_s}", "1 4 2 2 8 6 8 4 1");
    assert_expands(f, "{-ln(p[4][3])} {=0.5}", "0.780 0.5");
}

static void test_sampled(void **state)
{
    Fix *f = *state;
    f->m.cfg.sample = true;
    f->m.cfg.sample_seed = 5; /* numpy's RandomState(5).choice draws index 1 */
    model_run_all(&f->m);
    assert_expands(f, "{next} {p_next} / {greedy} {p_greedy}", "A 0.385 / B 0.458");
}

/* Not reached: a reference beyond the model's cursor is "…". */
static void test_not_reached(void **state)
{
    Fix *f = *state;
    model_run_to(&f->m, 1, MSTAGE_SOFTMAX);
    assert_expands(f, "{L1.A1[4][2]} {p[4][3]} {next} {E[1][1]}", "0.279 … … 0.845");
}

static bool hide_p42(const void *ctx, ModelRef r, int i, int j)
{
    (void)ctx;
    return r.kind == MM_PROBS && i == 3 && j == 2;
}

static void test_hidden(void **state)
{
    Fix *f = *state;
    model_run_all(&f->m);
    char *got = expand(f, "{p[4]} | {p[4][3]} {1 - p[4][3]} {next} {p_next} {p[3][3]} {E[2][1]}", hide_p42);
    assert_string_equal(got, "0.026, 0.385, ?, 0.030, 0.015, 0.085 | ? ? ? ? 0.513 −0.394");
    free(got);
}

static void test_check(void **state)
{
    Fix *f = *state;
    assert_string_equal(check(f, "{L1.A1[4][2]} {L1.H1.prev}", 1, MSTAGE_SOFTMAX), "");
    assert_string_equal(check(f, "{p[4][3]} {next} {sum(p[4])} {L1.h[1]}", 1, MSTAGE_NEXT), "");
    assert_string_equal(check(f, "{E[6][4]} {L1.Wq[4][4]} {token[4]} {d_ff}", 1, TEMPLATE_ABOUT), "");
    assert_string_equal(check(f, "{L1.A1[4][2]}", 1, MSTAGE_QKV),
                        "{L1.A1[4][2]} quotes L1.A1, which is computed at layer 1, stage softmax; this step shows "
                        "layer 1, stage qkv, quote it at a later step");
}

static void test_check_messages(void **state)
{
    Fix *f = *state;
    char m1[LESSON_ERR_MAX];
    snprintf(m1, sizeof m1, "%s", check(f, "{L1.S1[2][1]}", 1, MSTAGE_QKV));
    assert_non_null(strstr(m1, "which is computed at layer 1, stage scores; this step shows layer 1, stage qkv"));
    assert_string_equal(check(f, "{p[4][3]}", 1, MSTAGE_FFN),
                        "{p[4][3]} quotes p, which is computed at stage next; this step shows layer 1, stage ffn, "
                        "quote it at a later step");
    assert_string_equal(check(f, "{next}", 1, MSTAGE_FFN),
                        "{next} is the model's prediction, computed at stage next; quote it at a step that shows it");
    assert_string_equal(check(f, "{p[5][1]}", 1, MSTAGE_NEXT), "row 5 is out of range in p[5][1], p has 4 rows");
    assert_string_equal(check(f, "{p[1][7]}", 1, MSTAGE_NEXT),
                        "column 7 is out of range in p[1][7], p has 6 columns");
    assert_string_equal(check(f, "{L2.A1[1][1]}", 1, MSTAGE_NEXT),
                        "L2.A1 names layer 2, and the model has 1 layer: write L1 or leave the layer out");
    assert_string_equal(check(f, "{L1.A[1][1]}", 1, MSTAGE_NEXT),
                        "A is one per head in a lesson with 2 heads: write A1 to A2");
    assert_string_equal(check(f, "{L1.A3[1][1]}", 1, MSTAGE_NEXT),
                        "A3 names head 3, but this lesson has 2 heads: A1 to A2");
    assert_string_equal(check(f, "{L1.H3.prev}", 1, MSTAGE_NEXT),
                        "{L1.H3.prev} names head 3, and each layer has 2 heads: H1 to H2");
    assert_string_equal(check(f, "{H1.prev}", 1, MSTAGE_QKV),
                        "{H1.prev} is a head's score, computed from its weights at layer 1, stage softmax; quote it "
                        "at a step that shows them");
    assert_string_equal(check(f, "{loss}", 1, MSTAGE_NEXT),
                        "{loss} is a one-layer lesson's; a model lesson quotes its sizes {layers}, {d_model}, "
                        "{heads}, {d_k}, {d_ff}, {vocab}, {ctx}, {n}, its matrices and {next}, {p_next}, {L1.H1.prev}");
    assert_string_equal(check(f, "{L1.a[1][1]}", 1, TEMPLATE_ABOUT),
                        "{L1.a[1][1]} quotes L1.a, a result computed at stage embed; about is shown before the first "
                        "step and can quote only the parameters (E, P, L1.Wq ...), tokens and the sizes");
    assert_non_null(strstr(check(f, "{WQ[1][1]}", 1, MSTAGE_NEXT), "unknown name WQ, expected a model's matrix"));
    assert_string_equal(check(f, "{token[5]}", 1, MSTAGE_NEXT),
                        "token 5 is out of range in {token[5]}, there are 4 tokens");
}

/* A model without a feed-forward and with tied weights has no W1, no WU. */
static void test_check_absent(void **state)
{
    (void)state;
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = 2;
    c.d_model = 4;
    c.unembed = UNEMBED_TIED;
    int tok[] = {0, 1};
    Model m;
    assert_true(model_init(&m, &c, tok, 2));
    char msg[LESSON_ERR_MAX];
    int col = 0;
    assert_false(template_check_model("a {L1.W1[1][1]}", &m, 2, MSTAGE_NEXT, "say", &col, msg, sizeof msg));
    assert_int_equal(col, 3);
    assert_string_equal(msg, "this model has no L1.W1 (P exists with learned positions, WU with a separate "
                             "unembedding, beta with layernorm, W1, b1, W2, b2, g2, beta2, b, u and f with d_ff "
                             "above 0)");
    assert_false(template_check_model("{A[1][1]}", &m, 2, MSTAGE_NEXT, "say", &col, msg, sizeof msg));
    assert_string_equal(msg, "A is one per layer in a model of 2 layers: write L1.A to L2.A");
    assert_false(template_check_model("{L2.h[1][1]}", &m, 1, MSTAGE_PROJECT, "say", &col, msg, sizeof msg));
    assert_string_equal(msg, "{L2.h[1][1]} quotes L2.h, which is computed at layer 2, stage project; this step "
                             "shows layer 1, stage project, quote it at a later step");
    assert_true(template_check_model("{L1.h[2][1]} {L2.A[2][1]}", &m, 2, MSTAGE_SOFTMAX, "say", &col, msg, sizeof msg));
    assert_true(template_check_model("{L1.H1.prev} {L2.H1.induction}", &m, 2, MSTAGE_NEXT, "say", &col, msg,
                                     sizeof msg));
    model_free(&m);
}

static void test_asks(void **state)
{
    Fix *f = *state;
    Ask a;
    char msg[LESSON_ERR_MAX], name[48];
    assert_true(ask_parse_model("L1.A1[4][2]", &f->m, 1, MSTAGE_SOFTMAX, &a, msg, sizeof msg));
    ask_name(&a, name, sizeof name);
    assert_string_equal(name, "L1.A1[4][2]");
    assert_false(ask_parse_model("p[4][3]", &f->m, 1, MSTAGE_FFN, &a, msg, sizeof msg));
    assert_string_equal(msg, "p is computed at stage next, this step shows layer 1, stage ffn; ask it at a later step");
    assert_false(ask_parse_model("E[1][1]", &f->m, 1, MSTAGE_NEXT, &a, msg, sizeof msg));
    assert_string_equal(msg, "\"E[1][1]\" asks for E, which the lesson gives; ask for a result: a layer's Q, K, V, S, "
                             "A, O, Y, a, h_mid, f, h, or logits or p");
    assert_false(ask_parse_model("p[9][1]", &f->m, 1, MSTAGE_NEXT, &a, msg, sizeof msg));
    assert_string_equal(msg, "row 9 is out of range in p[9][1], p has 4 rows");
    assert_false(ask_parse_model("p[4]x", &f->m, 1, MSTAGE_NEXT, &a, msg, sizeof msg));
    assert_string_equal(msg, "ask must be a row like \"p[4]\" or a cell like \"L1.A[3][2]\", found \"p[4]x\"");

    model_run_all(&f->m);
    assert_true(ask_parse_model("p[4][3]", &f->m, 1, MSTAGE_NEXT, &a, msg, sizeof msg));
    assert_int_equal(ask_grade_model_off(&a, &f->m, 3, "0.458", NULL, msg, sizeof msg), GRADE_RIGHT);
    assert_int_equal(ask_grade_model_off(&a, &f->m, 3, "0.46", NULL, msg, sizeof msg), GRADE_RIGHT); /* within 1 % */
    assert_int_equal(ask_grade_model_off(&a, &f->m, 3, "0.385", NULL, msg, sizeof msg), GRADE_WRONG);
    assert_int_equal(ask_grade_model_off(&a, &f->m, 3, "x", NULL, msg, sizeof msg), GRADE_BAD);
    assert_true(ask_parse_model("L1.A2[2]", &f->m, 1, MSTAGE_NEXT, &a, msg, sizeof msg));
    assert_int_equal(ask_cells_model(&a, &f->m), 4);
    bool off[4];
    assert_int_equal(ask_grade_model_off(&a, &f->m, 3, "0.091, 0.5, 0, 0", off, msg, sizeof msg), GRADE_WRONG);
    assert_false(off[0]);
    assert_true(off[1]);
    FmtOpt fo = {3, false, false};
    char vals[128];
    ask_values_model(&a, &f->m, &fo, vals, sizeof vals);
    assert_string_equal(vals, "0.091, 0.909, 0.000, 0.000");
    assert_true(ask_covers_model(&a, (ModelRef){MM_ATTN, 1, a.mref.attn}, 1, 3));
    assert_false(ask_covers_model(&a, (ModelRef){MM_ATTN, 1, a.mref.attn}, 2, 3));
    assert_false(ask_covers(&a, M_X, 1, 0)); /* a model ask names no one-layer matrix */
}

/* No literal state numbers: a number the model holds is named by its template. */
static void test_literals(void **state)
{
    Fix *f = *state;
    TplLiteral hit;
    const char *text = "E gives 0.845; the weight is 0.279, p is 0.385 and {p[4][3]} 0.1234 {=0.5} 3.5";
    assert_true(template_literal_find_model(text, 0, &f->m, 3, true, &hit)); /* about: the parameters */
    assert_string_equal(hit.lit, "0.845");
    assert_string_equal(hit.ref, "E[1][1]");
    assert_false(template_literal_find_model(text, hit.end, &f->m, 3, true, &hit));
    model_run_to(&f->m, 1, MSTAGE_SOFTMAX);
    assert_true(template_literal_find_model(text, 15, &f->m, 3, false, &hit));
    assert_string_equal(hit.ref, "L1.A1[4][2]");
    if (template_literal_find_model(text, hit.end, &f->m, 3, false, &hit))
        fail_msg("%s is %s", hit.lit, hit.ref); /* p: not yet */
    model_run_all(&f->m);
    assert_true(template_literal_find_model(text, 36, &f->m, 3, false, &hit));
    assert_string_equal(hit.lit, "0.385");
    assert_string_equal(hit.ref, "p[4][2]");
    assert_true(template_literal_find_model("prev is 0.424", 0, &f->m, 3, false, &hit));
    assert_string_equal(hit.ref, "L1.H1.prev");
}

/* Through a session: the step's say: from the model shown, its asks
 * hidden in the narration until answered, graded on the model's cells. */
static void test_session(void **state)
{
    Fix *f = *state;
    Step steps[2] = {{0}};
    Ask asks[2];
    char msg[LESSON_ERR_MAX];
    assert_true(ask_parse_model("L1.A1[4][2]", &f->m, 1, MSTAGE_SOFTMAX, &asks[0], msg, sizeof msg));
    assert_true(ask_parse_model("p[4]", &f->m, 1, MSTAGE_NEXT, &asks[1], msg, sizeof msg));
    steps[0] = (Step){.stage = MSTAGE_SOFTMAX, .layer = 1, .nask = 1, .ask = &asks[0]};
    steps[1] = (Step){.stage = MSTAGE_NEXT, .layer = 1, .nask = 1, .ask = &asks[1]};
    steps[0].say.s[LANG_EN] = "{token[4]} on {token[2]}: {L1.A1[4][2]} of {L1.A1[4]}; prev {L1.H1.prev}";
    steps[1].say.s[LANG_EN] = "next {next} at {p_next}, p {p[4]}, {L1.A1[4][2]}";
    f->lm.cfg = f->m.cfg;
    f->lm.ntok = 4;
    memcpy(f->lm.tok, f->m.tok, sizeof(int) * 4);
    f->lm.base = &f->m;
    f->l.file = "t.yaml";
    f->l.nsteps = 2;
    f->l.steps = steps;
    Session s;
    assert_true(session_init(&s, &f->l));
    assert_true(session_is_model(&s));
    char *say = session_say(&s, LANG_EN, false);
    assert_string_equal(say, "A on B: ? of ?, ?, ?, ?; prev ?");
    free(say);
    assert_int_equal(session_ask_answer(&s, "0.3", false, msg, sizeof msg), GRADE_WRONG);
    assert_string_equal(msg, "✗ not quite: L1.A1[4][2] (your answer: 0.3). Type again, or Space to reveal.");
    assert_int_equal(session_ask_answer(&s, "0.279", false, msg, sizeof msg), GRADE_RIGHT);
    assert_string_equal(msg, "✓ right: L1.A1[4][2] = 0.279");
    say = session_say(&s, LANG_EN, false);
    assert_string_equal(say, "A on B: 0.279 of 0.157, 0.279, 0.250, 0.314; prev 0.424");
    free(say);
    session_goto(&s, 1);
    assert_true(session_ask_mhidden(&s, (ModelRef){MM_PROBS, 0, M_X}, 3, 0));
    assert_false(session_ask_mhidden(&s, (ModelRef){MM_PROBS, 0, M_X}, 2, 0));
    say = session_say(&s, LANG_EN, false);
    assert_string_equal(say, "next ? at ?, p ?, ?, ?, ?, ?, ?, 0.279");
    free(say);
    assert_int_equal(session_ask_answer(&s, "0.026 0.385 0.458 0.030 0.015 0.085", false, msg, sizeof msg),
                     GRADE_RIGHT);
    say = session_say(&s, LANG_ZH, false);
    assert_string_equal(say, "next B at 0.458, p 0.026、0.385、0.458、0.030、0.015、0.085, 0.279");
    free(say);
    assert_true(session_act_text(&s, "ablate L1.H2", msg, sizeof msg));
    say = session_say(&s, LANG_EN, false);
    assert_string_equal(say, "next B at 0.496, p 0.043, 0.315, 0.496, 0.023, 0.012, 0.109, 0.279"); /* numpy: O's head 2 = 0 */
    free(say);
    session_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sampled, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_reached, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hidden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_check_messages, setup, teardown),
        cmocka_unit_test(test_check_absent),
        cmocka_unit_test_setup_teardown(test_asks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_literals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_session, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
