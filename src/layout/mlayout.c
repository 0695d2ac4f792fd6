/* mlayout.c - a model lesson's frame (layout.h's layout_model): today's
 * frame on the layer's Attn at stages 2-5,
 * and the model's own matrices at stages 1 (h_in, a), 6 (Y, h_mid), 7
 * (f, h) and 8 (logits, p and the next token's bars), each showing the
 * columns around the focus that fit, with "…" where columns are left out,
 * never a number cut. The arithmetic is model_explain's, written by
 * words/fmtmodel.c. No curses, no state between frames. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model_explain.h"
#include "lesson/lmodel.h"
#include "words/fmt.h"
#include "words/fmtmodel.h"
#include "text/i18n.h"
#include "words/live.h"
#include "layout.h"
#include "layout_int.h"
#include "mgrid.h"

/* ---- which matrices a stage shows ------------------------------------------------ */

void layout_model_extent(const Model *m, int layer, int stage, MatId fmat, int head, int *rows, int *cols)
{
    const Attn *a = &m->layer[layer - 1].att;
    *rows = m->n;
    if (stage == 2)
        *cols = a->m[fmat >= M_Q && fmat <= M_V ? fmat : M_Q].cols;
    else if (stage >= 3 && stage <= 5)
        *cols = a->m[attn_shown(a, attn_stage_mat(stage), head)].cols;
    else if (stage == 8)
        *cols = m->cfg.vocab;
    else
        *cols = m->cfg.d_model;
}

/* ---- the frame of an own stage --------------------------------------------------- */

static void grid_of(const Frame *c, ModelRef r, bool explained, MGrid *g)
{
    memset(g, 0, sizeof *g);
    g->m = model_mat(c->model, r);
    g->ref = r;
    g->fi = c->in->fi;
    g->fj = c->in->fj;
    g->focus = explained;
    g->vocab_cols = r.kind == MM_LOGITS || r.kind == MM_PROBS;
    if (r.kind == MM_F && g->fj >= c->model->cfg.d_ff)
        g->fj = 0;
    g->dots = !model_reached(c->model, r.layer ? r.layer : c->model->cfg.layers, model_ref_stage(c->model, r));
}

/* Stages 1, 6, 7, 8: the matrices in bands, the next token's bars at 8,
 * then the parts (arithmetic, narration, status, key bar) as today's. */
static void own_frame(Frame *c, char (*lines)[FMT_LINE])
{
    header_lay(c);
    ribbon_lay(c, 1);
    ModelRef refs[4];
    MGrid g[4];
    int ex, ng = model_stage_refs(c, refs, &ex);
    for (int k = 0; k < ng; k++)
        grid_of(c, refs[k], k == ex, &g[k]);
    Budget b = {.blank_top = 0, .band_gap = 0, .last_gap = 1};
    parts_lay(c, &b, lines, lines + MAX_LINES, lines + 2 * MAX_LINES, lines + 3 * MAX_LINES, lines + 4 * MAX_LINES,
              lines + 5 * MAX_LINES);
    int bars = c->mstage == 8 ? 1 + (c->model->cfg.vocab < 5 ? c->model->cfg.vocab : 5) : 0;
    int y = mgrid_board(c, g, ng, 2, &b, bars);
    int bottom = c->rows;
    for (int k = b.n - 1; k >= 0; k--)
        if (b.part[k].bottom && b.part[k].n > 0)
            bottom -= b.part[k].n;
    for (int k = 0, yb = bottom; k < b.n; k++) {
        Part *p = &b.part[k];
        if (p->bottom) {
            yb += layout_part_lay(c, p, yb);
            continue;
        }
        if (p->n > 0 && p->gap)
            y += p->gap <= bottom - y - p->n ? p->gap : 0;
        if (p->n > bottom - y) {
            p->n = bottom - y > 0 ? bottom - y : 0;
            p->cut = true;
        }
        y += layout_part_lay(c, p, y);
    }
}

/* ---- today's frame on the layer's Attn (stages 2-5) ------------------------------- */

/* A session and a lesson that show the layer's Attn as today's frame
 * shows a one-layer lesson's: cur is the layer's Attn (its matrices
 * borrowed, never freed), the tokens are the model's vocab entries. */
typedef struct {
    Session s;
    Lesson l;
    char *tok[MODEL_CTX_MAX];
} Shadow;

static Shadow *shadow_make(const Frame *c)
{
    Shadow *sh = malloc(sizeof *sh);
    if (!sh)
        return NULL;
    sh->s = *c->s;
    sh->l = *c->s->lesson;
    for (int i = 0; i < c->model->n; i++)
        sh->tok[i] = (char *)(c->vocab ? c->vocab[c->model->tok[i]] : "?");
    sh->l.tokens = sh->tok;
    sh->l.d_model = c->model->cfg.d_model;
    sh->l.d_k = c->model->cfg.d_k;
    sh->l.d_v = c->model->cfg.d_v;
    sh->l.heads = c->model->cfg.heads;
    sh->l.ntok = c->model->n;
    sh->s.lesson = &sh->l;
    sh->s.cur = c->model->layer[c->mlayer - 1].att;
    const Model *b = c->mbefore;
    bool same = b && b->n == c->model->n && model_reached(b, c->mlayer, c->mstage);
    sh->s.before = same ? b->layer[c->mlayer - 1].att : sh->s.cur;
    sh->s.has_before = c->s->has_before && same;
    return sh;
}

/* ---- the entry points -------------------------------------------------------------- */

/* The layer's stage is not computed at this step: say so, and how to go on. */
static void not_reached(Frame *c)
{
    char msg[256], lines[4][FMT_LINE];
    header_lay(c);
    ribbon_lay(c, 1);
    snprintf(msg, sizeof msg, _("Layer %d is not computed yet at this step: { and } show another layer, Space goes on."),
             c->mlayer);
    int n = lines_wrap(msg, c->cols - 2, lines, 4, false, NULL);
    for (int k = 0; k < n; k++)
        plan_put(c, 3 + k, 1, c->cols - 2, lines[k], ROLE_HINT);
    plan_add_block(c, BLOCK_SAY, 3, 1, c->cols - 2, n, n, false);
}

void layout_model(const LayoutIn *in, const Model *m, const Model *before, int layer, int stage, Plan *p)
{
    Frame c = {0};
    int tokw[MAT_MAX] = {0};
    const LessonModel *lm = in->s->lesson->model;
    layer = layer < 1 ? 1 : layer > m->cfg.layers ? m->cfg.layers : layer;
    c = (Frame){.in = in, .p = p, .s = in->s, .l = in->s->lesson, .a = &m->layer[layer - 1].att, .cols = in->cols,
                .rows = in->rows, .row_step = 1, .top = 2, .gap = BAND_GAP, .tokw = tokw, .model = m,
                .mbefore = before, .mlayer = stage == 8 ? m->cfg.layers : layer, .mstage = stage,
                .vocab = lm ? (const char *const *)lm->vocab : NULL};
    plan_reset(p);
    if (c.cols < LAYOUT_MIN_COLS || c.rows < LAYOUT_MIN_ROWS) {
        too_small_lay(&c);
        return;
    }
    if (!p->scratch)
        p->scratch = malloc(sizeof(char[FMT_LINE]) * MAX_LINES * 6);
    Shadow *sh = shadow_make(&c);
    if (!p->scratch || !sh) {
        free(sh);
        p->oom = true;
        return;
    }
    c.l = &sh->l; /* the tokens by their vocab names, in every frame */
    c.a = &sh->s.cur;
    c.bars_w = bars_width(&c);
    if (in->mview || in->watch)
        model_view_lay(&c);
    else if (!model_reached(m, c.mlayer, stage))
        not_reached(&c);
    else if (stage >= 2 && stage <= 5) {
        c.s = &sh->s;
        layout_frame(&c, p->scratch);
    } else
        own_frame(&c, p->scratch);
    free(sh);
}

void layout_model_session(const LayoutIn *in, Plan *p)
{
    const Session *s = in->s;
    const Model *m = session_model(s);
    if (!m) { /* not made (out of memory): what the screen can say */
        Frame c = {.in = in, .p = p, .s = s, .l = s->lesson, .a = &s->cur, .cols = in->cols, .rows = in->rows};
        plan_reset(p);
        too_small_lay(&c);
        return;
    }
    layout_model(in, m, session_model_before(s), session_layer(s), session_stage(s), p);
}
