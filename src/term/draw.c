/* draw.c - paint a frame plan, and the View's focus rules.
 *
 * src/layout decides what goes where (layout_plan); this file only fills
 * the layout's input from the View, paints the plan run by run (a role
 * becomes the theme's attributes) and keeps the plan for mouse clicks.
 * The help screen is drawn by keys.c from the key table. */
#include <stdio.h>
#include <string.h>

#include "text/fmt.h"
#include "view_int.h"

MatId view_focus_mat(const View *v)
{
    if (v->mode == MODE_EDIT)
        return v->emat;
    int st = session_stage(&v->s);
    return st == STAGE_QKV ? v->fmat : attn_stage_mat(st);
}

void view_explained(const View *v, MatId *m, int *i, int *j)
{
    int st = session_stage(&v->s);
    if (v->mode == MODE_EDIT && st <= STAGE_QKV) {
        *m = v->emat;
        *i = v->ei;
        *j = v->ej;
        return;
    }
    *m = st == STAGE_QKV ? v->fmat : attn_stage_mat(st);
    *i = v->fi;
    *j = v->fj;
}

/* What the layout needs from the View; bar holds the key bar's text. */
static void layout_input(const View *v, LayoutIn *in, char *bar, size_t len)
{
    bool field = view_field_open(v);
    keys_bar(v, bar, len);
    *in = (LayoutIn){
        .s = &v->s, .lang = v->lang, .ascii = v->ascii, .mono = theme_is_mono(), .present = v->present,
        .mode = v->mode == MODE_EDIT ? LAYOUT_EDIT : LAYOUT_NORMAL,
        .fi = v->fi, .fj = v->fj, .frow = v->frow, .fmat = v->fmat, .emat = v->emat, .ei = v->ei, .ej = v->ej,
        .msg = v->msg, .msg_role = v->msg_role, .keybar = bar, .field = field, .title_card = v->card,
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
    layout_clamp_focus(&v->s, &v->fi, &v->fj, v->fmat);
}

void view_focus_from_step(View *v)
{
    layout_focus_step(&v->s, &v->fi, &v->fj, &v->frow, &v->fmat);
}
