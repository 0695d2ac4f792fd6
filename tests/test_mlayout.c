/* test_mlayout.c - a model lesson's frame (layout_model, mlayout.c,
 * mgrid.c, mview.c) checked without a terminal, on Models built here
 * (model_init + model_draw_weights): every stage 1-8 of both layers, the
 * model view and the watch mode, at 60x18, 80x24, 120x40 and in
 * presentation mode. In every case no two runs overlap, nothing is laid
 * out past the screen, the focused cell's number is on screen whole, the
 * ribbon names the layer, and a wide matrix (d 16, vocab 27) shows "…"
 * for the columns left out. QKV_SHOW=1 prints the screens. */
#include <stdlib.h>
#include <string.h>
#include <locale.h>

#include "core/model.h"
#include "core/model_explain.h"
#include "layout/layout.h"
#include "lesson/lmodel.h"
#include "lesson/session.h"
#include "words/fmt.h"
#include "words/fmtmodel.h"
#include "text/i18n.h"
#include "testutil.h" /* after lesson.h: cmocka defines a macro expect_check */

#define VOCAB 27

typedef struct {
    Model m;
    LessonModel lm;
    Lesson l;
    Step step;
    Session s;
    char *vocab[VOCAB];
    char names[VOCAB][4];
} Fix;

/* A 2-layer model on 14 tokens: d 16, 2 heads, d_ff 32 (or 0), vocab 27. */
static Fix *fix_make(int d_ff, int stage, int layer)
{
    Fix *f = calloc(1, sizeof *f);
    ModelCfg cfg;
    model_cfg_default(&cfg);
    cfg.layers = 2;
    cfg.d_model = 16;
    cfg.heads = 2;
    cfg.d_ff = d_ff;
    cfg.vocab = VOCAB;
    int tok[14] = {0, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1};
    assert_true(model_init(&f->m, &cfg, tok, 14));
    model_draw_weights(&f->m, 7, 0.3);
    model_run_all(&f->m);
    for (int k = 0; k < VOCAB; k++) {
        snprintf(f->names[k], sizeof f->names[k], "%c", k == 0 ? '^' : 'A' + k - 1);
        f->vocab[k] = f->names[k];
    }
    f->lm.cfg = cfg;
    f->lm.nvocab = VOCAB;
    f->lm.vocab = f->vocab;
    f->l.model = &f->lm;
    f->l.digits = 3;
    f->l.nsteps = 1;
    f->l.steps = &f->step;
    f->step.stage = stage;
    f->step.layer = layer;
    f->s.lesson = &f->l;
    f->s.head = 1;
    f->s.mcur = &f->m;
    f->s.layer = layer;
    return f;
}

static void fix_free(Fix *f)
{
    model_free(&f->m);
    free(f);
}

/* The screen as text, from the plan's runs; fails on an overlap or a run
 * past the screen. */
typedef struct {
    int rows, cols;
    char cell[60][200][8];
} Screen;

static void screen_of(const Plan *p, int rows, int cols, Screen *sc)
{
    sc->rows = rows;
    sc->cols = cols;
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++)
            strcpy(sc->cell[y][x], " ");
    static bool used[60][200];
    memset(used, 0, sizeof used);
    for (int k = 0; k < p->nrun; k++) {
        const PlanRun *r = &p->run[k];
        if (r->y < 0 || r->y >= rows || r->x < 0 || r->x + r->w > cols)
            fail_msg("run %d '%.*s' at %d,%d w %d is off the %dx%d screen", k, r->len, plan_text(p, r->off), r->y,
                     r->x, r->w, cols, rows);
        const char *t = plan_text(p, r->off);
        int x = r->x;
        for (int b = 0; b < r->len;) {
            uint32_t cp;
            size_t n = text_utf8_next(t + b, (size_t)(r->len - b), &cp);
            if (used[r->y][x])
                fail_msg("run '%.*s' at %d,%d overlaps another at column %d", r->len, t, r->y, r->x, x);
            used[r->y][x] = true;
            memcpy(sc->cell[r->y][x], t + b, n);
            sc->cell[r->y][x][n] = '\0';
            int w = text_width_n(t + b, n);
            for (int e = 1; e < w; e++) { /* a wide character's second column */
                used[r->y][x + e] = true;
                sc->cell[r->y][x + e][0] = '\0';
            }
            x += w > 0 ? w : 1;
            b += (int)n;
        }
    }
}

static void screen_line(const Screen *sc, int y, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int x = 0; x < sc->cols; x++)
        strncat(buf, sc->cell[y][x], len - strlen(buf) - 1);
}

static bool screen_has(const Screen *sc, const char *s)
{
    char line[1024];
    for (int y = 0; y < sc->rows; y++) {
        screen_line(sc, y, line, sizeof line);
        if (strstr(line, s))
            return true;
    }
    return false;
}

static void screen_print(const Screen *sc, const char *title)
{
    if (!getenv("QKV_SHOW"))
        return;
    char line[1024];
    printf("---- %s\n", title);
    for (int y = 0; y < sc->rows; y++) {
        screen_line(sc, y, line, sizeof line);
        printf("%s|\n", line);
    }
}

static Screen sc;

static void render(Fix *f, int layer, int stage, int fi, int fj, int cols, int rows, bool present, bool mview)
{
    Plan p;
    plan_init(&p);
    f->step.stage = stage;
    f->step.layer = layer;
    LayoutIn in = {.s = &f->s, .lang = LANG_EN, .fi = fi, .fj = fj, .fmat = M_Q, .emat = M_Q, .cols = cols,
                   .rows = rows, .present = present, .mview = mview, .keybar = " Space next  ? help  q quit",
                   .msg_role = ROLE_HINT};
    layout_model(&in, &f->m, NULL, layer, stage, &p);
    assert_false(p.oom);
    assert_false(p.too_small);
    screen_of(&p, rows, cols, &sc);
    char title[64];
    snprintf(title, sizeof title, "L%d stage %d %dx%d%s%s", layer, stage, cols, rows, present ? " present" : "",
             mview ? " mview" : "");
    screen_print(&sc, title);
    plan_free(&p);
}

/* Every stage of both layers at every size: no overlap, on screen, the
 * layer in the ribbon, the focused number on screen. */
static void test_every_stage(void **state)
{
    (void)state;
    static const int sizes[][2] = {{60, 18}, {80, 24}, {120, 40}};
    for (int ff = 0; ff < 2; ff++) {
        Fix *f = fix_make(ff ? 32 : 0, 1, 1);
        for (int z = 0; z < 3; z++)
            for (int l = 1; l <= 2; l++)
                for (int st = 1; st <= 8; st++) {
                    if (!model_stage_exists(&f->m, l, st) && st != 8)
                        continue;
                    for (int pres = 0; pres < 2; pres++) {
                        render(f, l, st, 13, 5, sizes[z][0], sizes[z][1], pres, false);
                        char lay[16];
                        snprintf(lay, sizeof lay, "L%d/2", st == 8 ? 2 : l);
                        assert_true(screen_has(&sc, lay));
                    }
                }
        fix_free(f);
    }
}

/* Stage 1 at 80x24: h_in's and a's columns around the focus, "…" for the
 * rest, a's focused number on screen whole and its norm's arithmetic. */
static void test_embed_wide(void **state)
{
    (void)state;
    Fix *f = fix_make(32, 1, 1);
    render(f, 1, 1, 2, 8, 80, 24, false, false);
    FmtOpt fo = {3, false, false};
    char num[48];
    fmt_num(MAT_AT(&f->m.layer[0].att.m[M_X], 2, 8), &fo, num, sizeof num);
    assert_true(screen_has(&sc, num));
    assert_true(screen_has(&sc, "…"));
    assert_true(screen_has(&sc, "[1 embed]"));
    assert_true(screen_has(&sc, "L1.a[3][9] = (x − μ) ÷ σ · g + β"));
    assert_true(screen_has(&sc, "L1.h_in[3][9] = E[B][9] + P[3][9]"));
    fix_free(f);
}

/* Stage 8: the logits and p around the focused column, the top tokens'
 * bars, the prediction, p's softmax line. */
static void test_next(void **state)
{
    (void)state;
    Fix *f = fix_make(32, 8, 2);
    int next = model_predict(&f->m);
    render(f, 2, 8, 13, next, 80, 24, false, false);
    char want[64];
    snprintf(want, sizeof want, "predicts %s", f->vocab[next]);
    assert_true(screen_has(&sc, want));
    assert_true(screen_has(&sc, "[8 next]"));
    snprintf(want, sizeof want, "p[14][%s] = exp(z − max) ÷ Σ", f->vocab[next]);
    assert_true(screen_has(&sc, want));
    assert_true(screen_has(&sc, "█"));
    fix_free(f);
}

/* The model view: 2 layers x 2 heads on 14 tokens fit 80x24, each named,
 * with both scores. */
static void test_model_view(void **state)
{
    (void)state;
    Fix *f = fix_make(0, 3, 1);
    render(f, 1, 3, 0, 0, 80, 24, false, true);
    const char *names[] = {"L1.H1", "L1.H2", "L2.H1", "L2.H2"};
    for (int k = 0; k < 4; k++)
        assert_true(screen_has(&sc, names[k]));
    double v;
    FmtOpt fo = {2, false, false};
    char num[48], want[64];
    assert_true(model_induction_score(&f->m, 2, 1, &v));
    snprintf(want, sizeof want, "ind  %s", fmt_num(v, &fo, num, sizeof num));
    assert_true(screen_has(&sc, want));
    assert_false(screen_has(&sc, "layers 1-1"));
    render(f, 1, 3, 0, 0, 60, 18, false, true);
    fix_free(f);
}

/* The attention stages are today's frame on the layer's Attn: the layer's
 * own S, the head shown. */
static void test_attention_stage(void **state)
{
    (void)state;
    Fix *f = fix_make(0, 3, 2);
    render(f, 2, 3, 3, 1, 80, 24, false, false);
    assert_true(screen_has(&sc, "[3 QKᵀ]"));
    assert_true(screen_has(&sc, "head 1/2"));
    FmtOpt fo = {3, false, false};
    char num[48];
    const Attn *a = &f->m.layer[1].att;
    fmt_num(MAT_AT(&a->m[attn_shown(a, M_S, 1)], 3, 1), &fo, num, sizeof num);
    assert_true(screen_has(&sc, num));
    fix_free(f);
}

/* The arithmetic of each model cell kind reproduces (fmtmodel.c). */
static void test_fmt_lines(void **state)
{
    (void)state;
    Fix *f = fix_make(32, 8, 2);
    FmtOpt fo = {3, false, false};
    ModelExplain *e = malloc(sizeof *e);
    char lines[FMT_MAX_LINES][FMT_LINE];
    ModelRef refs[] = {{MM_H_IN, 1, M_COUNT}, {MM_H_IN, 2, M_COUNT}, {MM_A, 1, M_COUNT}, {MM_H_MID, 1, M_COUNT},
                       {MM_F, 1, M_COUNT},    {MM_H, 2, M_COUNT},    {MM_LOGITS, 0, M_COUNT}, {MM_PROBS, 0, M_COUNT}};
    const char *starts[] = {"L1.h_in[2][4] = E[A][4] + P[2][4]", "L2.h_in[2][4] = L1.h[2][4]", "μ = ",
                            "L1.h_mid[2][4] = h + y", "L1.f[2][4] = gelu(u) = u · Φ(u) = ", "L2.h[2][4] = h_mid + ffn = ",
                            "logits[2][C] = h·W_U[:,C] = ", "max z = "};
    for (size_t k = 0; k < sizeof refs / sizeof *refs; k++) {
        assert_true(model_explain(&f->m, refs[k], 1, 3, e));
        int n = fmt_model_explain(&f->m, e, (const char *const *)f->vocab, &fo, lines, FMT_MAX_LINES);
        assert_true(n >= 1);
        if (strncmp(lines[0], starts[k], strlen(starts[k])) != 0)
            fail_msg("line '%s' does not start with '%s'", lines[0], starts[k]);
    }
    fix_free(f);
    free(e);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    i18n_set(LANG_EN, "build/locale");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_lines),       cmocka_unit_test(test_embed_wide),
        cmocka_unit_test(test_next),            cmocka_unit_test(test_model_view),
        cmocka_unit_test(test_attention_stage), cmocka_unit_test(test_every_stage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
