/* draw.c - paint a frame plan and the help screen.
 *
 * src/layout decides what goes where (layout_plan) from the View's state
 * (ui_layout_input); this file only paints the plan run by run (a role
 * becomes the theme's attributes) and keeps it in the View for mouse
 * clicks. The help's lines come from src/ui (ui_help). */
#include <stdio.h>
#include <string.h>

#include "text/fmt.h"
#include "text/text.h"
#include "view_int.h"

void draw_size(View *v)
{
    v->cols = COLS;
    v->rows = LINES;
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

/* The help screen: the title, then the key lines from help_top. */
static void paint_help(View *v)
{
    static HelpText h;
    ui_help(v, &h);
    attrset(theme_attr(ROLE_TITLE));
    mvaddnstr(0, 2, h.title, (int)text_fit(h.title, COLS - 3));
    for (int r = 0; r < v->help_page && v->help_top + r < h.n; r++) {
        int k = v->help_top + r, y = 2 + r;
        if (h.keys[k]) {
            attrset(theme_attr(ROLE_KEY));
            mvaddnstr(y, h.kx, h.keys[k], (int)text_fit(h.keys[k], h.tx - h.kx - 1));
        }
        attrset(theme_attr(k >= h.first_edit ? ROLE_HINT : ROLE_NORMAL));
        int x = k >= h.first_edit ? 2 : h.tx;
        mvaddnstr(y, x, h.text[k], (int)text_fit(h.text[k], COLS - 1 - x) < h.tlen[k]
                                       ? (int)text_fit(h.text[k], COLS - 1 - x) : h.tlen[k]);
    }
    if (h.scroll) {
        attrset(theme_attr(ROLE_HINT));
        mvaddnstr(LINES - 1, 2, h.more, (int)text_fit(h.more, COLS - 3));
    }
    attrset(A_NORMAL);
}

void draw_frame(View *v)
{
    erase();
    draw_size(v);
    if (v->mode == MODE_HELP && COLS >= LAYOUT_MIN_COLS && LINES >= LAYOUT_MIN_ROWS) {
        v->plan.nbox = 0; /* nothing to click on */
        paint_help(v);
        return;
    }
    view_clamp_focus(v);
    LayoutIn in;
    char bar[FMT_LINE];
    ui_layout_input(v, theme_is_mono(), &in, bar, sizeof bar);
    layout_plan(&in, &v->plan);
    paint(&v->plan);
}
