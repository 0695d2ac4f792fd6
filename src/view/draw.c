/* draw.c - paint a frame plan, and the View's focus rules.
 *
 * src/layout decides what goes where (layout_plan); this file only fills
 * the layout's input from the View, paints the plan run by run (a role
 * becomes the theme's attributes) and keeps the plan for mouse clicks.
 * The help screen is drawn by keys.c from the key table. */
#include <stdio.h>
#include <string.h>

#include "../lesson/fmt.h"
#include "view_int.h"

MatId view_focus_mat(const View *v)
{
    if (v->mode == MODE_EDIT)
        return v->emat;
    int st = session_stage(&v->s);
    return st == STAGE_QKV ? v->fmat : attn_stage_mat(st);
}

/* What the layout needs from the View; bar holds the key bar's text. */
static void layout_input(const View *v, LayoutIn *in, char *bar, size_t len)
{
    bool field = v->mode == MODE_PROMPT || v->mode == MODE_SAVE || (v->mode == MODE_EDIT && v->editing);
    keys_bar(v, bar, len);
    *in = (LayoutIn){
        .s = &v->s, .lang = v->lang, .ascii = v->ascii, .mono = theme_is_mono(), .present = v->present,
        .mode = v->mode == MODE_EDIT ? LAYOUT_EDIT : LAYOUT_NORMAL,
        .fi = v->fi, .fj = v->fj, .fmat = v->fmat, .emat = v->emat, .ei = v->ei, .ej = v->ej,
        .msg = v->msg, .msg_role = v->msg_role, .keybar = bar, .field = field,
        .cols = COLS, .rows = LINES,
    };
}

/* Paint the plan: each run in its role's look. */
static void paint(const Plan *p)
{
    for (int k = 0; k < p->nrun; k++) {
        const PlanRun *r = &p->run[k];
        attrset(theme_attr(r->role) | (r->bold ? A_BOLD : 0));
        mvaddnstr(r->y, r->x, plan_text(p, r->off), r->len);
    }
    attrset(A_NORMAL);
}

void draw_frame(View *v)
{
    erase();
    if (v->mode == MODE_HELP && COLS >= LAYOUT_MIN_COLS && LINES >= LAYOUT_MIN_ROWS) {
        v->plan.nbox = 0; /* nothing to click on */
        keys_draw_help(v);
        return;
    }
    view_clamp_focus(v);
    LayoutIn in;
    char bar[FMT_LINE];
    layout_input(v, &in, bar, sizeof bar);
    layout_plan(&in, &v->plan);
    paint(&v->plan);
}

bool view_hit(const View *v, int y, int x, MatId *id, int *i, int *j, int *role)
{
    return plan_hit(&v->plan, y, x, id, i, j, role);
}

/* ---- focus ------------------------------------------------------------------- */

/* The focus (fi, fj) indexes the stage's matrix, in edit mode too: from
 * stage 3 on, edit mode's arithmetic works out the stage's focused cell. */
void view_clamp_focus(View *v)
{
    const Attn *a = &v->s.cur;
    int st = session_stage(&v->s);
    MatId f = st == STAGE_QKV ? v->fmat : attn_shown(a, attn_stage_mat(st), v->s.head);
    int rows = a->m[f].rows, cols = a->m[f].cols;
    v->fi = v->fi >= rows ? rows - 1 : v->fi < 0 ? 0 : v->fi;
    v->fj = v->fj >= cols ? cols - 1 : v->fj < 0 ? 0 : v->fj;
}

void view_focus_from_step(View *v)
{
    const Focus *f = &session_step(&v->s)->focus;
    if (f->kind == FOCUS_NONE)
        return;
    v->fi = f->i;
    v->fj = f->kind == FOCUS_CELL ? f->j : 0;
    if (f->mat >= M_Q && f->mat <= M_V)
        v->fmat = f->mat;
    /* With heads, a cell of the joined O (or of Q, K, V from stage 3 on) is
     * its head's: look at that head, at the head's column. */
    MatId b = f->mat;
    int heads = attn_heads(&v->s.cur), st = session_stage(&v->s);
    if (heads > 1 && st >= STAGE_SCORES && st <= STAGE_OUTPUT && (b == M_O || (b >= M_Q && b <= M_V))) {
        int w = b == M_V || b == M_O ? attn_d_v(&v->s.cur) : attn_d_k(&v->s.cur);
        session_set_head(&v->s, v->fj / w + 1);
        v->fj %= w;
    }
}
