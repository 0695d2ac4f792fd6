/* test_modelload.c - model lessons (DESIGN.md "From a head to a model",
 * "Trained here"): the loader's vocab:, model:, options:, sampling:,
 * weights: (drawn and from a weights file), the steps' stage/layer/focus/
 * expect by model names, train:, and every error message, exactly. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#undef expect_check  /* cmocka's mock macro; here it is lesson.h's function */
#include "lesson/lesson.h"
#include "lesson/lmodel.h"
#include "lesson/weightsfile.h"

static char err[LESSON_ERR_MAX];

static bool load(const char *yaml, Lesson *l)
{
    return lesson_load_buffer("t.yaml", yaml, strlen(yaml), l, err, sizeof err);
}

/* Loading yaml must fail with exactly `want`. */
#define assert_load_error(yaml, want) assert_load_error_at((yaml), (want), __FILE__, __LINE__)
static void assert_load_error_at(const char *yaml, const char *want, const char *file, int line)
{
    Lesson l;
    if (load(yaml, &l)) {
        lesson_free(&l);
        print_error("loaded, want the error %s\n", want);
        _fail(file, line);
    }
    if (strcmp(err, want) != 0) {
        print_error("error\n  %s\nwant\n  %s\n", err, want);
        _fail(file, line);
    }
}

#define VOCAB "format: qkvtutor/1\nvocab: [<s>, A, B, C]\ntokens: [<s>, A, B]\n"
#define MODEL1 "model: {layers: 1, d_model: 4, heads: 2, ctx: 8}\n"
#define DRAWN "weights: {random: {seed: 1, scale: 0.5}}\n"

/* numpy: RandomState(7).randn(8, 8) * 0.3, the lesson's E (vocab 8 x
 * d_model 8), then randn(8, 8) * 0.3 row 1 (P[1]), then randn(8, 8) *
 * 0.3 row 1 (L1.Wq[1]); printed with repr() by /usr/bin/python3:
 *   r = np.random.RandomState(7); E = r.randn(8, 8) * 0.3; P = r.randn(8, 8) * 0.3; Wq = r.randn(8, 8) * 0.3 */
static const double ref_E[64] = {
    0.5071577111401068, -0.13978121116224984, 0.009846049103575321, 0.12225488489895234, -0.23667690858772156,
    0.000619671871784439, -0.0002671157573794088, -0.5264172919036262, 0.30529740169904795, 0.1801495547758648,
    -0.1876286921900279, -0.05146447835871635, 0.15158981225902549, -0.0784069245574941, -0.07282472360176398,
    -0.43597242374723716, 0.16637409356756636, 0.037164271586111526, 0.08233797712798907, -0.457957359560952,
    0.4952099073559426, 0.04630066063690741, -0.11614198298591644, 0.6087216662283336, -0.013615808958193826,
    -0.43520360974397243, -0.121568356628306, -0.6864945305915168, 0.3148189648029764, -0.12494229555600556,
    -0.22276605756137033, 0.3217410394726486, -0.49532267682175163, 0.1606288068978273, -0.6193244409363526,
    -0.1986478019000426, -0.36126595367991976, 0.4385926881640572, 0.5298482633788001, -0.09882412557391952,
    0.25221997264306073, -0.053995920375705095, 0.17041856619839457, -0.22585115892643942, -0.5125017609501168,
    -0.5409295975439223, 0.11493655552725358, 0.6742785158423098, 0.0808234891523661, -0.1573813858202557,
    0.5736056586995821, 0.07119055399115803, 0.03043019556348463, 0.07577332066659526, -0.039713159270054144,
    -0.09284290217666412, -0.4304890398106662, 0.15048723695431224, -0.028432635131968247, 0.3579257767032032,
    -0.1106455405343539, -0.5719109635591404, -0.029883189568459347, 0.5098611890240042};
static const double ref_P1[8] = {-0.11502693687945376, -0.2669570583062248, -0.3580775766774549, -0.315005043322612,
                                 -0.09005812104004891, -0.35399462803746157, 0.449291734679275, -0.08479057082261413};
static const double ref_Wq1[8] = {0.2892601453174227, 0.08509092715043706, -0.1850765847271418, -0.10868466852591706,
                                  -0.15629170059129358, 0.06291661709298017, -0.32339546827521165, -0.5497277900185729};

/* The shipped example: two layers, its settings, its tokens and its drawn weights. */
static void loads_two_layers(void **state)
{
    (void)state;
    Lesson l;
    if (!lesson_load_file("tests/lessons/model-2l.yaml", &l, err, sizeof err))
        fail_msg("%s", err);
    const LessonModel *lm = l.model;
    assert_non_null(lm);
    assert_int_equal(lm->cfg.layers, 2);
    assert_int_equal(lm->cfg.d_model, 8);
    assert_int_equal(lm->cfg.heads, 2);
    assert_int_equal(lm->cfg.d_ff, 16);
    assert_int_equal(lm->cfg.act, ACT_GELU);
    assert_int_equal(lm->cfg.norm, NORM_LAYER);
    assert_int_equal(lm->cfg.positions, MPOS_LEARNED);
    assert_int_equal(lm->cfg.ctx, 8);
    assert_int_equal(lm->cfg.vocab, 8);
    assert_int_equal(lm->cfg.unembed, UNEMBED_SEPARATE);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(lm->cfg.attn[k].mask, MASK_CAUSAL);
        assert_int_equal(lm->cfg.attn[k].scale, SCALE_SQRT_DK);
    }
    assert_false(lm->cfg.sample);
    assert_int_equal(lm->nvocab, 8);
    assert_string_equal(lm->vocab[0], "<s>");
    assert_string_equal(lm->vocab[7], "G");
    static const int tok[] = {0, 1, 2, 3, 1, 2};
    assert_int_equal(lm->ntok, 6);
    assert_int_equal(l.ntok, 6);
    for (int k = 0; k < 6; k++)
        assert_int_equal(lm->tok[k], tok[k]);
    assert_string_equal(l.tokens[3], "C");
    assert_int_equal(lm->wsrc, WSRC_RANDOM);
    assert_int_equal(lm->wseed, 7);
    assert_true(lm->wscale == 0.3);
    const Model *m = lm->base;
    assert_int_equal(m->n, 6);
    for (int k = 0; k < 64; k++) /* bit for bit: the same generator and the same product */
        assert_true(m->E.v[k] == ref_E[k]);
    for (int k = 0; k < 8; k++) {
        assert_true(MAT_AT(&m->P, 0, k) == ref_P1[k]);
        assert_true(MAT_AT(&m->layer[0].att.m[M_WQ], 0, k) == ref_Wq1[k]);
    }
    assert_int_equal(m->at_stage, 0); /* nothing reached */
    /* the steps: stage, layer (next: the last), focus by name */
    assert_int_equal(l.nsteps, 4);
    assert_int_equal(l.steps[0].stage, MSTAGE_EMBED);
    assert_int_equal(l.steps[0].layer, 1);
    assert_int_equal(l.steps[2].stage, MSTAGE_SOFTMAX);
    assert_int_equal(l.steps[2].layer, 2);
    assert_int_equal(l.steps[2].focus.kind, FOCUS_CELL);
    assert_int_equal(l.steps[2].focus.mref.kind, MM_ATTN);
    assert_int_equal(l.steps[2].focus.mref.layer, 2);
    assert_int_equal(l.steps[2].focus.i, 2);
    assert_int_equal(l.steps[2].focus.j, 0);
    assert_int_equal(l.steps[3].stage, MSTAGE_NEXT);
    assert_int_equal(l.steps[3].layer, 2);
    assert_int_equal(l.steps[3].nexpect, 2);
    assert_int_equal(l.steps[3].expect[0].mref.kind, MM_PROBS);
    assert_int_equal(l.steps[3].expect[0].n, 8);
    assert_int_equal(l.steps[3].expect[0].j, -1);
    assert_near(l.steps[3].expect[0].tol[0], 0.0005, 1e-15);
    lesson_free(&l);
}

/* expect_check_model on the base model run to each step: the example's
 * expectations (an independent numpy forward, see the lesson's header) hold;
 * a wrong one is named; one not yet computed is refused. */
static void expects_hold_on_the_model(void **state)
{
    (void)state;
    Lesson l;
    char msg[512];
    assert_true(lesson_load_file("tests/lessons/model-2l.yaml", &l, err, sizeof err));
    Model *m = calloc(1, sizeof *m);
    assert_true(model_copy(m, l.model->base));
    for (int k = 0; k < l.nsteps; k++) {
        model_run_to(m, l.steps[k].layer, l.steps[k].stage);
        for (int e = 0; e < l.steps[k].nexpect; e++)
            if (!expect_check_model(&l.steps[k].expect[e], m, 3, msg, sizeof msg))
                fail_msg("step %d: %s", k + 1, msg);
    }
    Expect *e = &l.steps[3].expect[1]; /* logits[6][3] = 0.434 */
    double was = e->val[0];
    e->val[0] = 0.5;
    assert_false(expect_check_model(e, m, 3, msg, sizeof msg));
    assert_string_equal(msg, "logits[6][3] is 0.434, expected 0.500 (within 0.0005)");
    e->val[0] = was;
    char what[128];
    expect_describe(&l.steps[1].expect[0], what, sizeof what);
    assert_string_equal(what, "L1.A2[4] = [0.277, 0.401, 0.145, 0.177, 0.000, 0.000]");
    model_run_to(m, 1, MSTAGE_QKV);
    assert_false(expect_check_model(&l.steps[2].expect[0], m, 3, msg, sizeof msg));
    assert_string_equal(msg, "L2.A1 is not computed at this step, it needs stage softmax");
    model_free(m);
    free(m);
    lesson_free(&l);
}

/* Defaults: one layer, causal, greedy; options and sampling set them. */
static void settings_and_options(void **state)
{
    (void)state;
    Lesson l;
    assert_true(load(VOCAB MODEL1 DRAWN, &l));
    assert_int_equal(l.model->cfg.attn[0].mask, MASK_CAUSAL);
    assert_int_equal(l.model->cfg.norm, NORM_LAYER);
    assert_int_equal(l.model->cfg.vocab, 4);
    assert_int_equal(l.digits, 3);
    /* no steps: one per stage of the layer, then next */
    assert_int_equal(l.nsteps, 7);
    assert_int_equal(l.steps[5].stage, MSTAGE_PROJECT);
    assert_int_equal(l.steps[6].stage, MSTAGE_NEXT);
    assert_false(l.steps_given);
    lesson_free(&l);
    assert_true(load(VOCAB "model: {layers: 3, d_model: 6, heads: 3, kv_heads: 1, d_ff: 5, act: relu, norm: rmsnorm, "
                           "eps: 0.001, positions: rope, rope_base: 500, ctx: 4, unembed: tied, d_k: 4, d_v: 2}\n"
                           "options: {mask: window 2, scale: none, softmax: online, block: 3, temperature: 0.5, "
                           "digits: 4}\n"
                           "sampling: {temperature: 0.8, seed: 11}\n" DRAWN,
                     &l));
    const ModelCfg *c = &l.model->cfg;
    assert_int_equal(c->layers, 3);
    assert_int_equal(c->kv_heads, 1);
    assert_int_equal(c->d_k, 4);
    assert_int_equal(c->d_v, 2);
    assert_int_equal(c->d_ff, 5);
    assert_int_equal(c->act, ACT_RELU);
    assert_int_equal(c->norm, NORM_RMS);
    assert_true(c->eps == 0.001);
    assert_int_equal(c->positions, MPOS_ROPE);
    assert_true(c->rope_base == 500);
    assert_int_equal(c->unembed, UNEMBED_TIED);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(c->attn[k].mask, MASK_WINDOW);
        assert_int_equal(c->attn[k].window, 2);
        assert_int_equal(c->attn[k].scale, SCALE_NONE);
        assert_int_equal(c->attn[k].softmax, SOFTMAX_ONLINE);
        assert_int_equal(c->attn[k].block, 3);
        assert_true(c->attn[k].temp == 0.5);
    }
    assert_true(c->sample);
    assert_true(c->sample_temp == 0.8);
    assert_int_equal(c->sample_seed, 11);
    assert_int_equal(l.digits, 4);
    assert_int_equal(l.nsteps, 3 * 7 + 1);
    lesson_free(&l);
    assert_true(load(VOCAB MODEL1 "options: {mask: none}\n" DRAWN, &l));
    assert_int_equal(l.model->cfg.attn[0].mask, MASK_NONE);
    lesson_free(&l);
}

/* The vocab's look-ups: exact, then the nearest for "did you mean". */
static void vocab_lookups(void **state)
{
    (void)state;
    Lesson l;
    const char *near[3];
    assert_true(load("format: qkvtutor/1\nvocab: [cat, dog, cow, 猫]\ntokens: [猫]\n" MODEL1 DRAWN, &l));
    assert_int_equal(lmodel_vocab_index(l.model, "dog", -1), 1);
    assert_int_equal(lmodel_vocab_index(l.model, "dogs", 3), 1);
    assert_int_equal(lmodel_vocab_index(l.model, "猫", -1), 3);
    assert_int_equal(lmodel_vocab_index(l.model, "Dog", -1), -1);
    assert_int_equal(lmodel_vocab_near(l.model, "Dog", -1, near, 3), 1);
    assert_string_equal(near[0], "dog"); /* case only: the nearest */
    assert_int_equal(lmodel_vocab_near(l.model, "caw", -1, near, 2), 2);
    assert_string_equal(near[0], "cat"); /* distance 1, the earlier entry first */
    assert_string_equal(near[1], "cow");
    assert_int_equal(lmodel_vocab_near(l.model, "horse", -1, near, 1), 1); /* dog and cow: 4 edits each; the first */
    assert_string_equal(near[0], "dog");
    assert_int_equal(l.model->tok[0], 3);
    lesson_free(&l);
}

/* Every message of vocab:, tokens:, model:, options:, sampling: and weights:. */
static void errors_model(void **state)
{
    (void)state;
    assert_load_error("format: qkvtutor/1\nvocab: [<s>, A, B, C]\ntokens: [<s>, A, b]\n" MODEL1 DRAWN,
                      "t.yaml:3:18: token 3 \"b\" is not in vocab (did you mean \"B\"?)");
    assert_load_error(VOCAB "model: {layers: 2, d_model: 10, heads: 3, ctx: 8}\n" DRAWN,
                      "t.yaml:4:40: heads = 3 does not divide d_model = 10 (each head takes d_model / heads "
                      "columns); write heads that divide d_model, or give d_k and d_v in model:");
    assert_load_error(VOCAB "model: {layers: 1, ctx: 2}\n" DRAWN,
                      "t.yaml:3:9: 3 tokens do not fit the model's ctx = 2 (its longest input); write at most 2 "
                      "tokens, or a larger ctx in model:");
    assert_load_error(VOCAB "model: {layers: 1, ctx: 3}\noptions: {offset: 1}\n" DRAWN,
                      "t.yaml:3:9: 3 tokens do not fit the model's ctx = 3 from offset 1; write at most 2 tokens, "
                      "or a larger ctx in model:");
    assert_load_error(VOCAB "model: {layers: 2, head: 2}\n" DRAWN,
                      "t.yaml:4:20: unknown key \"head\" in model (did you mean \"heads\"?)");
    assert_load_error(VOCAB "model: {layers: 9}\n" DRAWN,
                      "t.yaml:4:17: layers must be a whole number from 1 to 8, found \"9\"");
    assert_load_error(VOCAB "model: {layers: two}\n" DRAWN,
                      "t.yaml:4:17: layers must be a whole number from 1 to 8, found \"two\"");
    assert_load_error(VOCAB "model: {d_model: 65}\n" DRAWN,
                      "t.yaml:4:18: d_model must be a whole number from 1 to 64, found \"65\"");
    assert_load_error(VOCAB "model: {d_model: 8, heads: 4, kv_heads: 3}\n" DRAWN,
                      "t.yaml:4:41: kv_heads must be a whole number from 1 to heads = 4 that divides heads (K/V "
                      "heads shared by the query heads), found \"3\"");
    assert_load_error(VOCAB "model: {heads: 4, d_model: 8, d_k: 17}\n" DRAWN,
                      "t.yaml:4:36: d_k must be a whole number from 1 to 16 (heads x d_k <= 64), found \"17\"");
    assert_load_error(VOCAB "model: {d_ff: 257}\n" DRAWN,
                      "t.yaml:4:15: d_ff must be a whole number from 0 to 256, found \"257\"");
    assert_load_error(VOCAB "model: {act: tanh}\n" DRAWN, "t.yaml:4:14: act must be relu or gelu, found \"tanh\"");
    assert_load_error(VOCAB "model: {norm: batch}\n" DRAWN,
                      "t.yaml:4:15: norm must be none, layernorm or rmsnorm, found \"batch\"");
    assert_load_error(VOCAB "model: {positions: alibi}\n" DRAWN,
                      "t.yaml:4:20: positions must be learned, sinusoidal, rope or none, found \"alibi\"");
    assert_load_error(VOCAB "model: {unembed: shared}\n" DRAWN,
                      "t.yaml:4:18: unembed must be separate or tied, found \"shared\"");
    assert_load_error(VOCAB "model: {eps: 0}\n" DRAWN,
                      "t.yaml:4:14: eps must be a number above 0 and at most 1, found \"0\"");
    assert_load_error(VOCAB "model: {positions: rope, rope_base: 1}\n" DRAWN,
                      "t.yaml:4:37: rope_base must be a number above 1 (10000 in most models), found \"1\"");
    assert_load_error(VOCAB "model: {positions: rope, d_model: 6, heads: 2}\n" DRAWN,
                      "t.yaml:4:20: positions: rope turns the columns of q and k in pairs, so d_k must be even; "
                      "this model has d_k = 3 (write an even d_k, or positions: sinusoidal)");
    assert_load_error(VOCAB "model: {ctx: 65}\n" DRAWN, "t.yaml:4:14: ctx must be a whole number from 1 to 64, found \"65\"");
    assert_load_error(VOCAB "model: [1]\n" DRAWN,
                      "t.yaml:4:8: model must be a mapping like {layers: 2, d_model: 16, heads: 2, ctx: 16}, found a list");
}

static void errors_model_top(void **state)
{
    (void)state;
    assert_load_error("format: qkvtutor/1\nvocab: [A]\ntokens: [A]\n" MODEL1 DRAWN,
                      "t.yaml:2:8: vocab has 1 entry, a model lesson needs 2 to 128");
    assert_load_error("format: qkvtutor/1\nvocab: [A, B, A]\ntokens: [A]\n" MODEL1 DRAWN,
                      "t.yaml:2:15: vocab entry 3 \"A\" is given twice, the first is entry 1");
    assert_load_error("format: qkvtutor/1\nvocab: [A, '']\ntokens: [A]\n" MODEL1 DRAWN,
                      "t.yaml:2:12: vocab entry 2 is empty, every entry needs some text");
    assert_load_error("format: qkvtutor/1\nvocab: A\ntokens: [A]\n" MODEL1 DRAWN,
                      "t.yaml:2:8: vocab must be a list of symbols like [A, B, C], found \"A\"");
    assert_load_error("format: qkvtutor/1\nvocab: [A, B]\n" MODEL1 DRAWN,
                      "t.yaml:1:1: missing key \"tokens\", a model lesson needs format, vocab, tokens, model and "
                      "weights");
    assert_load_error(VOCAB MODEL1, "t.yaml:1:1: missing key \"weights\", a model lesson needs format, vocab, "
                                    "tokens, model and weights");
    assert_load_error(VOCAB "X: [[1]]\n" MODEL1 DRAWN,
                      "t.yaml:4:1: X is not written in a model lesson: E and P make the stream (h = E[token] + "
                      "P[position]); remove X");
    assert_load_error(VOCAB "heads: 2\n" MODEL1 DRAWN,
                      "t.yaml:4:1: in a model lesson heads is the model's: write it in model:, like model: "
                      "{heads: ...}");
    assert_load_error(VOCAB "overrides: {}\n" MODEL1 DRAWN, "t.yaml:4:1: overrides is not part of a model lesson; "
                                                           "remove it");
    assert_load_error(VOCAB MODEL1 "options: {positions: rope}\n" DRAWN,
                      "t.yaml:5:11: in a model lesson positions is the model's: write it in model:, like model: "
                      "{positions: ...}");
    assert_load_error(VOCAB MODEL1 "options: {lr: 0.1}\n" DRAWN,
                      "t.yaml:5:11: in a model lesson the learning rate is train:'s, like train: {optimizer: "
                      "{adam: {lr: 0.003}}}");
    assert_load_error(VOCAB MODEL1 "options: {temperature: 50}\n" DRAWN,
                      "t.yaml:5:24: temperature must be from 0.05 to 20 (1 is the plain softmax), found \"50\"");
    assert_load_error(VOCAB MODEL1 "sampling: {temperature: 0.01}\n" DRAWN,
                      "t.yaml:5:25: temperature must be from 0.05 to 20 (1 is the plain softmax), found \"0.01\"");
    assert_load_error(VOCAB MODEL1 "sampling: {seed: -1}\n" DRAWN,
                      "t.yaml:5:18: seed must be a whole number from 0 to 4294967295, found \"-1\"");
    assert_load_error(VOCAB MODEL1 "sampling: {sead: 1}\n" DRAWN,
                      "t.yaml:5:12: unknown key \"sead\" in sampling (did you mean \"seed\"?)");
    assert_load_error(VOCAB MODEL1 "weights: {random: {scale: 1}}\n",
                      "t.yaml:5:11: random is missing seed, write e.g. random: {seed: 7, scale: 0.3}");
    assert_load_error(VOCAB MODEL1 "weights: {random: {seed: 1, d_k: 2}}\n",
                      "t.yaml:5:29: unknown key \"d_k\" in random, expected seed, scale or embed_scale");
    assert_load_error(VOCAB MODEL1 "weights: {random: {seed: 1}, file: w.yaml}\n",
                      "t.yaml:5:30: weights takes random: or file:, not both; keep one");
    assert_load_error(VOCAB MODEL1 "weights: {}\n",
                      "t.yaml:5:1: weights needs random: {seed, scale} or file: PATH (a weights file)");
    assert_load_error(VOCAB MODEL1 "weights: {Wq: [[1]]}\n",
                      "t.yaml:5:11: unknown key \"Wq\" in weights, expected random or file");
    assert_load_error("format: qkvtutor/1\ntokens: [a]\nX: [[1]]\nweights: {random: {seed: 1, d_k: 1}}\n"
                      "train: {steps: 1}\n",
                      "t.yaml:5:1: train belongs to a model lesson, one with a model: key; add model: {layers: 1, "
                      "d_model: 8, ...} or remove train");
}

#define TWO "format: qkvtutor/1\nvocab: [<s>, A, B, C]\ntokens: [<s>, A, B]\n" \
            "model: {layers: 2, d_model: 4, heads: 2, ctx: 8}\nweights: {random: {seed: 1, scale: 0.5}}\nsteps:\n"

/* The steps of a model lesson: stage, layer, focus and expect, each refused
 * where it is written. */
static void errors_steps(void **state)
{
    (void)state;
    assert_load_error(TWO "  - {stage: ffn}\n",
                      "t.yaml:7:13: stage \"ffn\" needs a feed-forward block, and this model has d_ff = 0 (attention "
                      "only); give d_ff in model:, or show another stage");
    assert_load_error(TWO "  - {stage: 9}\n", "t.yaml:7:13: stage 9 is out of range, expected 1 to 8 or embed, qkv, "
                                              "scores, softmax, output, project, ffn or next");
    assert_load_error(TWO "  - {stage: sofmax}\n",
                      "t.yaml:7:13: unknown stage \"sofmax\" (did you mean \"softmax\"?), expected embed, qkv, "
                      "scores, softmax, output, project, ffn or next");
    assert_load_error(TWO "  - {say: hi}\n", "t.yaml:7:5: step 1 has no stage, expected stage: embed, qkv, scores, "
                                             "softmax, output, project, ffn or next");
    assert_load_error(TWO "  - {stage: qkv, layer: 3}\n",
                      "t.yaml:7:25: layer \"3\" is out of range, this model has 2 layers: write 1 to 2");
    assert_load_error(TWO "  - {stage: next, layer: 1}\n",
                      "t.yaml:7:26: stage next comes after the last layer: write layer: 2, or leave layer out");
    assert_load_error(TWO "  - {stage: qkv, layer: 2, focus: 'L2.A1[1][1]'}\n",
                      "t.yaml:7:35: L2.A1 is computed at layer 2, stage softmax, this step shows layer 2, stage qkv; "
                      "focus on it at a later step");
    assert_load_error(TWO "  - {stage: output, layer: 2, expect: {'p[1][1]': 0.5}}\n",
                      "t.yaml:7:40: p is computed at stage next, this step shows layer 2, stage output; expect it at "
                      "a later step");
    assert_load_error(TWO "  - {stage: next, focus: 'p[4]'}\n", "t.yaml:7:26: row 4 is out of range in \"p[4]\", p has "
                                                                "3 rows");
    assert_load_error(TWO "  - {stage: next, focus: 'p[1][5]'}\n",
                      "t.yaml:7:26: column 5 is out of range in \"p[1][5]\", p has 4 columns");
    assert_load_error(TWO "  - {stage: next, focus: 'Wq[1][1]'}\n",
                      "t.yaml:7:26: unknown matrix in \"Wq[1][1]\", expected a name of this model like E, L1.Wq, "
                      "L1.A1, L1.h, logits or p");
    assert_load_error(TWO "  - {stage: next, focus: p}\n", "t.yaml:7:26: focus must be a row like \"L1.h[2]\" or a "
                                                           "cell like \"L1.A1[3][1]\", found \"p\"");
    assert_load_error(TWO "  - {stage: next, focus: 'p[0]'}\n", "t.yaml:7:26: indices start at 1, found \"p[0]\"");
    assert_load_error(TWO "  - {stage: scores, expect: {'L1.S1[1][2]': 0.5}}\n",
                      "t.yaml:7:45: L1.S1[1][2] is masked (key 2 comes after query 1), its score is -inf: write -inf "
                      "there");
    assert_load_error(TWO "  - {stage: scores, expect: {'L1.S1[2][1]': -inf}}\n",
                      "t.yaml:7:45: L1.S1[2][1] is not masked; -inf is only for a masked score");
    assert_load_error(TWO "  - {stage: next, expect: {'p[1]': [0.1, 0.2]}}\n",
                      "t.yaml:7:36: p[1] expects 4 numbers, one per column of p; this list has 2");
    assert_load_error(TWO "  - {stage: next, layer: 2, laye: 1}\n",
                      "t.yaml:7:29: unknown key \"laye\" in step 1 (did you mean \"layer\"?)");
}

/* Names with one layer may leave out the "L1."; masked scores take -inf; do:
 * is kept as written for the model action language (steps.h's hook). */
static void steps_one_layer_names(void **state)
{
    (void)state;
    Lesson l;
    char msg[256];
    assert_true(load("format: qkvtutor/1\nvocab: [<s>, A, B, C]\ntokens: [<s>, A, B]\n"
                     "model: {layers: 1, d_model: 4, heads: 1, ctx: 8, d_ff: 3}\nweights: {random: {seed: 1}}\n"
                     "steps:\n"
                     "  - {stage: scores, expect: {'S[1]': [0.5, -inf, -inf]}}\n"
                     "  - {stage: ffn, focus: 'A[2][1]', do: [tokens = A B, generate 2], expect: {'A[1]': [1, 0, 0]}}\n",
                     &l));
    assert_int_equal(l.nsteps, 2);
    const Step *st = &l.steps[1];
    assert_int_equal(st->stage, MSTAGE_FFN);
    assert_int_equal(st->layer, 1);
    assert_int_equal(st->focus.mref.kind, MM_ATTN);
    assert_int_equal(st->focus.mref.layer, 1);
    assert_int_equal(st->focus.mref.attn, M_A);
    assert_int_equal(st->focus.i, 1);
    assert_int_equal(st->nact, 2);
    assert_string_equal(st->act_text[0], "tokens = A B");
    assert_string_equal(st->act_text[1], "generate 2");
    assert_true(isinf(l.steps[0].expect[0].val[1]) && l.steps[0].expect[0].val[1] < 0);
    assert_near(st->expect[0].tol[0], 0.0005, 1e-15); /* a whole number of a result: the lesson's digits */
    Model *m = calloc(1, sizeof *m);
    assert_true(model_copy(m, l.model->base));
    model_run_to(m, 1, MSTAGE_FFN);
    assert_true(expect_check_model(&st->expect[0], m, 3, msg, sizeof msg)); /* row 1 sees only itself */
    l.steps[0].expect[0].val[0] = MAT_AT(&m->layer[0].att.m[M_S], 0, 0);
    assert_true(expect_check_model(&l.steps[0].expect[0], m, 3, msg, sizeof msg));
    model_free(m);
    free(m);
    lesson_free(&l);
}

/* ---- weights files ----------------------------------------------------------- */

static char tmpdir[64];

static void put_file(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Load tmpdir/NAME (a lesson) into l; false with err. */
static bool load_tmp(const char *name, Lesson *l)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return lesson_load_file(path, l, err, sizeof err);
}

static bool same_params(const Model *a, const Model *b)
{
    ModelRef ra[MODEL_PARAMS_MAX], rb[MODEL_PARAMS_MAX];
    int n = model_params(a, ra, MODEL_PARAMS_MAX);
    if (n != model_params(b, rb, MODEL_PARAMS_MAX))
        return false;
    for (int k = 0; k < n; k++) {
        const Mat *x = model_mat(a, ra[k]), *y = model_mat(b, rb[k]);
        if (x->rows != y->rows || x->cols != y->cols ||
            memcmp(x->v, y->v, sizeof(double) * (size_t)x->rows * (size_t)x->cols) != 0)
            return false;
    }
    return true;
}

#define TINY_MODEL "model: {layers: 1, d_model: 2, heads: 1, ctx: 2, norm: none, positions: none, unembed: tied}\n"
#define TINY "format: qkvtutor/1\nvocab: [A, B]\ntokens: [A, B]\n" TINY_MODEL

/* The tiny model's file, as weights_format writes it (numpy:
 * RandomState(3).randn(2, 2) * 0.5 for E, then Wq, Wk, Wv, Wo). */
static const char tiny_file[] =
    "format: qkvtutor-weights/1\n"
    "model:\n  layers: 1\n  d_model: 2\n  heads: 1\n  kv_heads: 1\n  d_k: 2\n  d_v: 2\n  d_ff: 0\n  act: gelu\n"
    "  norm: none\n  eps: 1e-05\n  positions: none\n  rope_base: 10000\n  ctx: 2\n  unembed: tied\n"
    "params:\n"
    "  E:\n    - [0.8943142367151593, 0.21825492525599471]\n    - [0.04824873403600431, -0.9317463516822454]\n"
    "  L1.Wq:\n    - [-0.13869410125719953, -0.17737948963449338]\n    - [-0.041370740741229886, -0.31350033841192365]\n"
    "  L1.Wk:\n    - [-0.02190908448796412, -0.23860901517975133]\n    - [-0.6569323766813411, 0.4423111902497923]\n"
    "  L1.Wv:\n    - [0.4406590211037649, 0.8547865318264742]\n    - [0.025016821088430105, -0.20233870730044543]\n"
    "  L1.Wo:\n    - [-0.2726799738097652, -0.7732386577914842]\n    - [0.49118371712908004, -0.5505338150557378]\n";

/* Written, then read: the same parameters bit for bit, and the text is the
 * format's (numpy's draws, shortest round-trip). */
static void weights_round_trip(void **state)
{
    (void)state;
    Lesson a, b;
    size_t len;
    char path[128];
    assert_true(load(TINY "weights: {random: {seed: 3, scale: 0.5}}\n", &a));
    char *text = weights_format(a.model, a.model->base, &len);
    assert_non_null(text);
    assert_string_equal(text, tiny_file);
    assert_int_equal(len, strlen(tiny_file));
    free(text);
    /* the two-layer example: every parameter (E, P, W's, norms, W1 b1 W2 b2, gf betaf, WU) back bit for bit */
    assert_true(lesson_load_file("tests/lessons/model-2l.yaml", &b, err, sizeof err));
    Model *m = b.model->base;
    MAT_AT(&m->layer[1].g2, 0, 3) = 1.0 / 3; /* not all 1 and 0: the gains and biases round-trip too */
    MAT_AT(&m->layer[0].b1, 0, 5) = -2.5e-300;
    MAT_AT(&m->betaf, 0, 0) = -0.0;
    snprintf(path, sizeof path, "%s/w2.yaml", tmpdir);
    assert_true(weights_write(path, b.model, m, err, sizeof err));
    put_file("l2.yaml", "format: qkvtutor/1\nvocab: [<s>, A, B, C, D, E, F, G]\ntokens: [<s>, A, B, C, A, B]\n"
                        "model: {layers: 2, d_model: 8, heads: 2, d_ff: 16, ctx: 8}\nweights: {file: w2.yaml}\n");
    Lesson c;
    if (!load_tmp("l2.yaml", &c))
        fail_msg("%s", err);
    assert_int_equal(c.model->wsrc, WSRC_FILE);
    assert_string_equal(c.model->wfile, "w2.yaml");
    assert_true(same_params(c.model->base, m));
    assert_true(signbit(MAT_AT(&c.model->base->betaf, 0, 0)));
    lesson_free(&c);
    lesson_free(&b);
    lesson_free(&a);
}

/* A weights file that does not fit is refused at its place in the file. */
static void weights_errors(void **state)
{
    (void)state;
    Lesson l;
    put_file("t.yaml", TINY "weights: {file: w.yaml}\n");
    static const struct {
        const char *from, *to, *want;
    } cases[] = {
        {"d_model: 2", "d_model: 3",
         "w.yaml:4:12: the weights file's model: has d_model = 3, the lesson's has d_model = 2; these weights are for "
         "another model"},
        {"  - [-0.13869410125719953, -0.17737948963449338]", "  - [-0.13869410125719953]",
         "w.yaml:22:5: L1.Wq must be 2x2 (rows x columns) for this model, the weights file has 2x1"},
        {"    - [-0.041370740741229886, -0.31350033841192365]\n", "",
         "w.yaml:22:5: L1.Wq must be 2x2 (rows x columns) for this model, the weights file has 1x2"},
        {"L1.Wo:", "L1.Wx:", "w.yaml:17:1: params is missing L1.Wo, 2x2 (rows x columns) for this model"},
        {"L1.Wo:", "L1.Wq:", "w.yaml:17:1: params is missing L1.Wo, 2x2 (rows x columns) for this model"},
        {"qkvtutor-weights/1", "qkvtutor-weights/2",
         "w.yaml:1:9: format must be \"qkvtutor-weights/1\", found \"qkvtutor-weights/2\""},
        {"0.8943142367151593", ".nan", "w.yaml:19:8: \".nan\" is not allowed, numbers must be finite"},
        {"params:\n", "parms:\n", "w.yaml:17:1: unknown key \"parms\" in a weights file (did you mean \"params\"?)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char text[sizeof tiny_file + 64], full[LESSON_ERR_MAX + 64];
        const char *at = strstr(tiny_file, cases[k].from);
        assert_non_null(at);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - tiny_file), tiny_file, cases[k].to,
                 at + strlen(cases[k].from));
        put_file("w.yaml", text);
        assert_false(load_tmp("t.yaml", &l));
        snprintf(full, sizeof full, "%s/%s", tmpdir, cases[k].want);
        assert_string_equal(err, full);
    }
    put_file("w.yaml", tiny_file);
    assert_true(load_tmp("t.yaml", &l)); /* as written: it loads */
    lesson_free(&l);
    char want[256];
    put_file("t.yaml", TINY "weights: {file: none.yaml}\n");
    assert_false(load_tmp("t.yaml", &l));
    snprintf(want, sizeof want, "%s/t.yaml:5:17: cannot read the weights file \"%s/none.yaml\": No such file or "
                                "directory", tmpdir, tmpdir);
    assert_string_equal(err, want);
    assert_load_error(TINY "weights: {file: ''}\n", "t.yaml:5:17: file is empty, write the weights file's path, like "
                                                    "weights/induction-2l.yaml");
}

/* ---- train: -------------------------------------------------------------------- */

#define TRAINED "format: qkvtutor/1\nvocab: [<s>, A, B, C, \" \", AB]\ntokens: [<s>, A, B]\n" \
                "model: {layers: 1, d_model: 4, heads: 1, ctx: 8}\nweights: {random: {seed: 1, scale: 0.5}}\n"

static void train_section(void **state)
{
    (void)state;
    Lesson l;
    assert_true(load(TRAINED "train: {data: {task: copy, length: [2, 3], seed: 5}, optimizer: {sgd: {lr: 0.2}}, "
                             "batch: 8, steps: 10, from: {random: {seed: 3, scale: 0.1, embed_scale: 1}}}\n", &l));
    const TrainSpec *t = &l.model->train;
    assert_true(t->given);
    assert_int_equal(t->line, 6);
    assert_int_equal(t->data, TDATA_COPY);
    assert_int_equal(t->lmin, 2);
    assert_int_equal(t->lmax, 3);
    assert_int_equal(t->data_seed, 5);
    assert_int_equal(t->opt, OPT_SGD);
    assert_true(t->lr == 0.2);
    assert_int_equal(t->batch, 8);
    assert_int_equal(t->steps, 10);
    assert_true(t->from_given);
    assert_int_equal(t->from_seed, 3);
    assert_true(t->from_scale == 0.1 && t->from_embed_scale == 1.0);
    lesson_free(&l);
    /* the defaults: adam 0.003, batch 64, 3000 steps, no from:; sgd's lr 0.1 */
    assert_true(load(TRAINED "train: {data: {sequences: [[A, B, C], [<s>, AB, \" \"]]}, loss: next_token}\n", &l));
    t = &l.model->train;
    assert_int_equal(t->data, TDATA_SEQUENCES);
    assert_int_equal(t->opt, OPT_ADAM);
    assert_true(t->lr == 0.003);
    assert_int_equal(t->batch, 64);
    assert_int_equal(t->steps, 3000);
    assert_false(t->from_given);
    assert_int_equal(t->nseq, 2);
    assert_int_equal(t->seq_len[0], 3);
    assert_int_equal(t->seq_len[1], 3);
    static const int seq[] = {1, 2, 3, 0, 5, 4}; /* each sequence at k * ctx */
    for (int k = 0; k < 3; k++) {
        assert_int_equal(t->seq_tok[k], seq[k]);
        assert_int_equal(t->seq_tok[8 + k], seq[3 + k]);
    }
    lesson_free(&l);
    assert_true(load(TRAINED "train: {data: {task: copy, length: [1, 2]}, optimizer: {sgd: {}}}\n", &l));
    assert_true(l.model->train.lr == 0.1);
    assert_int_equal(l.model->train.data_seed, 1);
    lesson_free(&l);
    /* text: greedy longest match ("AB" before "A"), " " a vocab entry, newlines skipped; cut at ctx = 8 */
    put_file("a.txt", "AB A\nB C AAB\n  C\n");
    put_file("t.yaml", TRAINED "train: {data: {text: a.txt}}\n");
    if (!load_tmp("t.yaml", &l))
        fail_msg("%s", err);
    t = &l.model->train;
    assert_int_equal(t->data, TDATA_TEXT);
    assert_string_equal(t->text_file, "a.txt");
    assert_int_equal(t->nseq, 2);
    assert_int_equal(t->seq_len[0], 8);
    assert_int_equal(t->seq_len[1], 4);
    static const int text[] = {5, 4, 1, 2, 4, 3, 4, 1, 5, 4, 4, 3};
    for (int k = 0; k < 12; k++)
        assert_int_equal(t->seq_tok[k], text[k]);
    lesson_free(&l);
    put_file("a.txt", "AB A\nB C\n  Cx\n");
    assert_false(load_tmp("t.yaml", &l));
    char want[300];
    snprintf(want, sizeof want, "%s/a.txt:3:4: \"x\" is not in vocab, and no vocab entry starts here (did you mean "
                                "\"A\", \"B\" or \"C\"?); the text is read as vocab entries", tmpdir);
    assert_string_equal(err, want);
}

static void train_errors(void **state)
{
    (void)state;
    assert_load_error(TRAINED "train: {data: {task: copy, length: [2, 3]}, optimizer: {adam: {lr: 0}}}\n",
                      "t.yaml:6:68: lr must be a number above 0 (the learning rate), found \"0\"");
    assert_load_error(TRAINED "train: {data: {task: copy, length: [2, 3]}, optimizer: {sgd: {lr: .inf}}}\n",
                      "t.yaml:6:67: \".inf\" is not allowed, numbers must be finite");
    assert_load_error(TRAINED "train: {data: {task: copy, length: [2, 3]}, batch: 300}\n",
                      "t.yaml:6:52: batch must be a whole number from 1 to 256, found \"300\"");
    assert_load_error(TRAINED "train: {data: {task: copy, length: [2, 3]}, steps: 100001}\n",
                      "t.yaml:6:52: steps must be a whole number from 1 to 100000, found \"100001\"");
    assert_load_error(TRAINED "train: {data: {task: copy, length: [2, 4]}}\n",
                      "t.yaml:6:40: length's hi must be a whole number from 2 to 3, found \"4\"");
    assert_load_error(TRAINED "train: {data: {task: copy}}\n",
                      "t.yaml:6:22: task: copy's default length [3, 6] does not fit ctx = 8 (a segment and its copy "
                      "in ctx - 1); write length: [lo, hi] with hi at most 3");
    assert_load_error(TRAINED "train: {data: {task: sort}}\n",
                      "t.yaml:6:22: task must be copy (the only task), found \"sort\"");
    assert_load_error(TRAINED "train: {batch: 3}\n",
                      "t.yaml:6:1: train: needs data: {task: copy, length: [3, 6], seed: 1}, {sequences: [[A, B], "
                      "...]} or {text: FILE}");
    assert_load_error(TRAINED "train: {data: {sequences: [[A, B, C], [A, b]]}}\n",
                      "t.yaml:6:43: sequence 2, token 2 \"b\" is not in vocab (did you mean \"B\"?)");
    assert_load_error(TRAINED "train: {data: {sequences: [[A, B, C], [A]]}}\n",
                      "t.yaml:6:39: sequence 2 has 1 token, write 2 to ctx = 8");
    assert_load_error(TRAINED "train: {data: {task: copy, length: [1, 2]}, loss: mse}\n",
                      "t.yaml:6:51: loss must be next_token (the only loss), found \"mse\"");
    assert_load_error(TRAINED "train: {data: {task: copy, length: [1, 2]}, optimizer: {adamw: {lr: 1}}}\n",
                      "t.yaml:6:57: unknown optimizer \"adamw\" (did you mean \"adam\"?)");
    assert_load_error(TRAINED "train: {data: {task: copy, text: a.txt}}\n",
                      "t.yaml:6:15: data takes one of task:, sequences: or text:, not several");
    assert_load_error(TRAINED "train: {data: {sequences: [[A, B]], seed: 1}}\n",
                      "t.yaml:6:37: seed is the copy task's, with task: copy");
    assert_load_error(TRAINED "train: {data: {task: copy, length: [1, 2]}, from: {random: {scale: 1}}}\n",
                      "t.yaml:6:52: random is missing seed, write e.g. random: {seed: 3, scale: 0.1}");
    assert_load_error(TRAINED "train: {data: {task: copy, length: [1, 2]}, stpes: 3}\n",
                      "t.yaml:6:45: unknown key \"stpes\" in train (did you mean \"steps\"?)");
    assert_load_error(TRAINED "train: {data: {text: none.txt}}\n",
                      "t.yaml:6:22: cannot read the text file \"none.txt\": No such file or directory");
}

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/qkv-modelload-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    static const char *const names[] = {"t.yaml", "w.yaml", "w2.yaml", "l2.yaml", "a.txt"};
    char path[128];
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[k]);
        unlink(path);
    }
    return rmdir(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loads_two_layers),
        cmocka_unit_test(expects_hold_on_the_model),
        cmocka_unit_test(settings_and_options),
        cmocka_unit_test(vocab_lookups),
        cmocka_unit_test(errors_model),
        cmocka_unit_test(errors_model_top),
        cmocka_unit_test(errors_steps),
        cmocka_unit_test(steps_one_layer_names),
        cmocka_unit_test(weights_round_trip),
        cmocka_unit_test(weights_errors),
        cmocka_unit_test(train_section),
        cmocka_unit_test(train_errors),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
