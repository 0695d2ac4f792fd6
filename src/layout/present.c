/* present.c - presentation mode on a big screen: how many rows a matrix
 * row takes, and the board centred on a wide one (see layout_int.h). No
 * curses. */
#include <stdlib.h>

#include "layout_int.h"

/* Rows per matrix row: 1; 2 in presentation mode; 3 or 4 there on a tall
 * screen (45 rows and more) when the stage's bands take at most 70 % of it
 * so (the rule reads the bands, not the step's text, so a stage's matrices
 * keep their rows from step to step). budget() gives way from there. */
int presentation_rows(const Frame *c, const Band *b, int nb)
{
    if (!c->in->present)
        return 1;
    if (c->rows < 45)
        return 2;
    for (int step = 4; step > 2; step--) {
        int need = 2;
        for (int k = 0; k < nb; k++)
            need += band_rows(c, &b[k]) * step + c->top + 1;
        if (need * 10 <= c->rows * 7)
            return step;
    }
    return 2;
}

/* Presentation on a wide screen (over 120 columns): the matrices and the
 * bars, rows y0 .. y1-1, centred in the columns their widest line leaves
 * free (the stage's boxes are the same from step to step, so they stay
 * put); the text below keeps the whole width. */
void centre_board(Frame *c, int y0, int y1)
{
    Plan *p = c->p;
    if (!c->in->present || c->cols <= 120)
        return;
    int right = 0;
    for (int k = 0; k < p->nrun; k++)
        if (p->run[k].y >= y0 && p->run[k].y < y1 && p->run[k].x + p->run[k].w > right)
            right = p->run[k].x + p->run[k].w;
    int dx = (c->cols - right) / 2;
    if (dx <= 0)
        return;
    for (int k = 0; k < p->nrun; k++)
        p->run[k].x += p->run[k].y >= y0 && p->run[k].y < y1 ? dx : 0;
    for (int k = 0; k < p->ncell; k++)
        p->cell[k].x += p->cell[k].y >= y0 && p->cell[k].y < y1 ? dx : 0;
    for (int k = 0; k < p->nbox; k++)
        if (p->box[k].y >= y0 && p->box[k].y < y1) {
            p->box[k].x += dx;
            p->box[k].cx += dx;
        }
    for (int k = 0; k < p->nblock; k++)
        p->block[k].x += p->block[k].kind == BLOCK_BARS ? dx : 0;
}
