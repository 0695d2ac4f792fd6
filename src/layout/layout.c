/* layout.c - one frame's plan (see layout.h): layout_plan, and the focus
 * helpers the View uses. The frame itself is board.c's (a model lesson's:
 * mlayout.c's); the widgets it places live in their own files
 * (layout_int.h), the text parts below the matrices in parts.c.
 *
 * Reading down the screen: the title and step, the stage ribbon, the
 * matrices of the stage in up to three bands, the arithmetic of the
 * focused cell, the narration, the status lines and the key bar. The
 * matrices a stage's arithmetic quotes are "operands": the rows and
 * columns it uses never scroll away while anything else can give way.
 * Widths are display columns (text_width), never bytes. Every figure of a
 * frame lives in a Frame on the stack (layout_int.h) or in the Plan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "lesson/train.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "layout.h"
#include "layout_int.h"

void layout_plan(const LayoutIn *in, Plan *p)
{
    if (in->s->lesson->model) { /* a model lesson: its layers, its stages 1-8 (mlayout.c) */
        layout_model_session(in, p);
        return;
    }
    Frame c = {0};
    int tokw[MAT_MAX] = {0};
    c.tokw = tokw;
    c.in = in;
    c.p = p;
    c.s = in->s;
    c.l = in->s->lesson;
    c.a = &in->s->cur;
    c.cols = in->cols;
    c.rows = in->rows;
    c.row_step = 1;
    c.top = 2;
    c.gap = BAND_GAP;
    plan_reset(p);
    if (c.cols < LAYOUT_MIN_COLS || c.rows < LAYOUT_MIN_ROWS) {
        too_small_lay(&c);
        return;
    }
    c.bars_w = bars_width(&c);
    if (!p->scratch) /* once per plan: the view's plan lives as long as the view */
        p->scratch = malloc(sizeof(char[FMT_LINE]) * MAX_LINES * 6);
    if (!p->scratch) {
        p->oom = true;
        return;
    }
    layout_frame(&c, p->scratch);
}

void layout_focus_step(Session *s, int *fi, int *fj, bool *frow, MatId *fmat)
{
    const Focus *f = &session_step(s)->focus;
    *frow = false;
    if (f->kind == FOCUS_NONE)
        return;
    *fi = f->i;
    *fj = f->kind == FOCUS_CELL ? f->j : 0;
    *frow = f->kind == FOCUS_ROW; /* the row as a whole: its every cell explained */
    if (f->mref.kind != MM_NONE) { /* a model lesson's "L2.A1[3][1]": a head's matrix shows that head */
        MatId a = f->mref.attn;
        if (f->mref.kind == MM_ATTN && a >= M_Q && a <= M_V)
            *fmat = attn_mat_base(a);
        if (f->mref.kind == MM_ATTN && attn_mat_head(a) > 0)
            session_set_head(s, attn_mat_head(a));
        return;
    }
    if ((f->mat >= M_Q && f->mat <= M_V) || f->mat == M_XS) /* Xs: cross-attention's source, at stage 1 */
        *fmat = f->mat;
    /* With heads, a cell of the joined O (or of Q, K, V from stage 3 on) is
     * its head's: look at that head, at the head's column. */
    MatId b = f->mat;
    int heads = attn_heads(&s->cur), st = session_stage(s);
    if (heads > 1 && st >= STAGE_SCORES && st <= STAGE_OUTPUT && (b == M_O || (b >= M_Q && b <= M_V))) {
        int w = b == M_V || b == M_O ? attn_d_v(&s->cur) : attn_d_k(&s->cur);
        session_set_head(s, *fj / w + 1);
        *fj %= w;
    }
}

void layout_clamp_focus(const Session *s, int *fi, int *fj, MatId fmat)
{
    if (session_is_model(s)) { /* the matrix the model's stage explains */
        int rows, cols, layer = session_layer(s), layers = session_model(s)->cfg.layers;
        layout_model_extent(session_model(s), layer < 1 ? 1 : layer > layers ? layers : layer, session_stage(s), fmat,
                            s->head, &rows, &cols);
        *fi = *fi >= rows ? rows - 1 : *fi < 0 ? 0 : *fi;
        *fj = *fj >= cols ? cols - 1 : *fj < 0 ? 0 : *fj;
        return;
    }
    int st = session_stage(s);
    MatId f = st <= STAGE_QKV ? layout_focus_mat(st, fmat) : attn_shown(&s->cur, attn_stage_mat(st), s->head);
    int rows = s->cur.m[f].rows, cols = s->cur.m[f].cols;
    *fi = *fi >= rows ? rows - 1 : *fi < 0 ? 0 : *fi;
    *fj = *fj >= cols ? cols - 1 : *fj < 0 ? 0 : *fj;
}

bool layout_narration_fits(const Session *s, int step, Lang lang, int cols, int rows)
{
    int room[3];
    return layout_narration_room(s, step, lang, cols, rows, room);
}

/* The narration block's room in session t's state at `step` (-1: the
 * title card over step 1); t's head may change to the step's focus. */
static bool room_in(Session *t, int step, Lang lang, int cols, int rows, int room[3])
{
    Plan p;
    char card[256]; /* the title card, as the view opens: its status line says how to go on */
    snprintf(card, sizeof card, "%s", step < 0 ? _("Press any key to begin with step 1.") : "");
    LayoutIn in = {.s = t, .lang = lang, .mode = LAYOUT_NORMAL, .fmat = M_Q, .emat = M_Q, .msg_role = ROLE_HINT,
                   .keybar = "", .cols = cols, .rows = rows, .title_card = step < 0, .msg = card};
    layout_focus_step(t, &in.fi, &in.fj, &in.frow, &in.fmat);
    layout_clamp_focus(t, &in.fi, &in.fj, in.fmat);
    plan_init(&p);
    layout_plan(&in, &p);
    const PlanBlock *b = plan_block(&p, BLOCK_SAY);
    bool fits = !p.too_small && !p.oom && (!b || !b->cut);
    if (b) {
        room[0] = b->w;
        room[1] = b->h;
        room[2] = b->want;
    }
    plan_free(&p);
    return fits;
}

/* Is model lesson session s the script's own state at `step`, as a fresh
 * session moved there shows it: no edit of the student's and no edited:
 * log anywhere in the lesson? */
static bool scripted_model_at(const Session *s, int step)
{
    const Lesson *l = s->lesson;
    if (!session_is_model(s) || s->step != (step < 0 ? 0 : step) || s->nedits > 0 || l->nedited > 0)
        return false;
    for (int k = 0; k < l->nsteps; k++)
        if (l->steps[k].nedit > 0)
            return false;
    return true;
}

static bool room_fresh(const Session *s, int step, Lang lang, int cols, int rows, int room[3]);

bool layout_narration_room(const Session *s, int step, Lang lang, int cols, int rows, int room[3])
{
    room[0] = room[1] = room[2] = 0;
    if (scripted_model_at(s, step)) {
        /* A model lesson's script may train (step N): a fresh session moved to
         * the step would train it all again, for each step and language of
         * --check (lesson 18: 26 s). The caller's walk is already there; only
         * the head the focus picks is set, and set back. */
        Session *w = (Session *)s;
        int head = w->head;
        bool fits = room_in(w, step, lang, cols, rows, room);
        session_set_head(w, head);
        return fits;
    }
    return room_fresh(s, step, lang, cols, rows, room);
}

/* The room in a fresh session of the script's own lesson moved to the step. */
static bool room_fresh(const Session *s, int step, Lang lang, int cols, int rows, int room[3])
{
    Session *t = malloc(sizeof *t); /* 24 KB, and the layout below is deep: not on the stack */
    /* The rule is the author's: the narration fits in the script's own state.
     * A saved lesson's edited: log (at the top, or a step's) would add the
     * departure notice, which the narration may give a line to (it then
     * ends in "…"). */
    Lesson scripted = *s->lesson;
    scripted.nedited = 0;
    scripted.edited = NULL;
    Step *own = malloc(sizeof *own * (size_t)(scripted.nsteps > 0 ? scripted.nsteps : 1));
    if (own) { /* a step's edited: is the student's, not the script's */
        memcpy(own, scripted.steps, sizeof *own * (size_t)scripted.nsteps);
        for (int k = 0; k < scripted.nsteps; k++)
            own[k].nedit = 0;
    }
    scripted.steps = own;
    if (!t || !own || !session_init(t, &scripted)) {
        free(t);
        free(own);
        return false;
    }
    session_goto(t, step < 0 ? 0 : step);
    bool fits = room_in(t, step, lang, cols, rows, room);
    session_free(t);
    free(t);
    free(own);
    return fits;
}
