/* layout.h - what goes where on one frame, decided without a terminal.
 *
 * layout_plan() is a pure function: (the session's state, the View's
 * focus and mode, the screen size, the language) -> a Plan. The Plan says
 * where every run of text goes and in which Role (never a colour), which
 * matrices are shown as boxes and which of their rows and columns, every
 * cell shown with its roles, the text blocks (header, ribbon, arithmetic,
 * narration, status, key bar) and what was left out. The curses view
 * paints a Plan run by run (src/term/draw.c) and reads it back for mouse
 * clicks (plan_hit); an SVG writer can paint the same Plan.
 *
 * Order of calls: plan_init() once, layout_plan() per frame (it reuses the
 * Plan's memory), plan_free() at the end. Nothing here keeps state between
 * calls: every figure of a frame lives in the Plan. No curses here. The
 * Plan's and LayoutIn's data are plandata.h's. */
#ifndef QKV_LAYOUT_H
#define QKV_LAYOUT_H

#include <stdbool.h>
#include "words/fmt.h"
#include "lesson/session.h"
#include "plandata.h"

/* The smallest screen the layout works on; below it the plan holds one
 * message saying so (PLAN_TOO_SMALL). */
#define LAYOUT_MIN_COLS 60
#define LAYOUT_MIN_ROWS 18


void plan_init(Plan *p);
void plan_free(Plan *p);
/* The text of a run or a cell (not terminated: use its len). */
const char *plan_text(const Plan *p, int off);

/* Lay out one frame into p (its previous contents are dropped). */
void layout_plan(const LayoutIn *in, Plan *p);

/* A model lesson's frame (layout_plan calls it with the session's state):
 * model m at (layer, stage) (stage 1..8; 8 is after the last layer),
 * before the state before the last change (NULL: none), the focus
 * (fi, fj) on the stage's explained matrix (1: a, 2: Q K V, 3-5: the
 * head's, 6: h_mid, 7: h, 8: p), in->mview / in->watch the model view.
 * Stages 2-5 are today's frame on the layer's Attn; 1, 6, 7 and 8 show
 * the model's own matrices, the columns around the focus that fit, with
 * "…" for those left out (mlayout.c, mview.c). in->s gives the
 * narration, the status and the asks. */
void layout_model(const LayoutIn *in, const Model *m, const Model *before, int layer, int stage, Plan *p);
void layout_model_session(const LayoutIn *in, Plan *p);
/* The rows and columns of the matrix the model's stage explains. */
void layout_model_extent(const Model *m, int layer, int stage, MatId fmat, int head, int *rows, int *cols);

/* The block of a kind, or NULL when the plan has none. */
const PlanBlock *plan_block(const Plan *p, BlockKind k);
/* The cell of matrix id at (i, j) shown in the plan, or NULL. */
const PlanCell *plan_cell(const Plan *p, MatId id, int i, int j);
/* Which cell was laid out at screen (y, x): its matrix, index and what a
 * click there means (PlanBox.click). False outside every box's cells. */
bool plan_hit(const Plan *p, int y, int x, MatId *id, int *i, int *j, int *click);

/* The arithmetic lines the plan shows for cell (m, i, j), as the session
 * writes them (open asks as "?"); with row, for every cell of row i, the
 * lines the cells share once (A's row walk is one explanation). Returns the
 * line count. */
int layout_arith(const Session *s, MatId m, int i, int j, bool row, const FmtOpt *fo, char lines[][FMT_LINE], int max);

/* The focus the current step names (its focus: key) into fi, fj, frow and
 * fmat; a step without one leaves fi, fj and fmat as they are. With heads,
 * a focus on a head's columns also shows that head (session_set_head). One
 * rule for the view, --svg and --check. */
void layout_focus_step(Session *s, int *fi, int *fj, bool *frow, MatId *fmat);
/* Keep the focus inside the matrix the current stage explains (fmat at the
 * projections stage). */
void layout_clamp_focus(const Session *s, int *fi, int *fj, MatId fmat);
/* The matrix the focus explains at stage st: fmat at stage 2 (one of Q, K,
 * V; Q when fmat is not), fmat at stage 1 when it is cross-attention's Xs,
 * else the stage's own matrix. */
static inline MatId layout_focus_mat(int st, MatId fmat)
{
    if (st == STAGE_QKV)
        return fmat >= M_Q && fmat <= M_V ? fmat : M_Q;
    return st == STAGE_INPUT && fmat == M_XS ? M_XS : attn_stage_mat(st);
}

/* Does step `step`'s narration in `lang` fit whole at cols x rows in normal
 * mode, on the lesson as written (no edits)? For --check. */
bool layout_narration_fits(const Session *s, int step, Lang lang, int cols, int rows);
/* The same, and room[] = {the narration's columns, the lines it got, the
 * lines it wanted} at that step (0s when the screen is too small). Step -1
 * is the title card before step 1 (the title, a blank line and about:). */
bool layout_narration_room(const Session *s, int step, Lang lang, int cols, int rows, int room[3]);
/* The most lines the narration of `step` (-1: the title card) could have
 * at cols x rows before it is cut: what a narration long enough gets. For
 * --dump's "room" line; 0 when the screen is too small (narroom.c). */
int layout_narration_space(const Session *s, int step, Lang lang, int cols, int rows);

#endif
