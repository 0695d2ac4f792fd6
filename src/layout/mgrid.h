/* mgrid.h - one of a model's own matrices on the board (mgrid.c), and
 * the board of a model stage: the matrices in bands, the next token's
 * bars, the rows the text parts below give up. Only mlayout.c and
 * mview.c include it (after layout_int.h). No curses. */
#ifndef QKV_MGRID_H
#define QKV_MGRID_H

#include "core/model.h"

typedef struct {
    const Mat *m;           /* NULL: the model has no such matrix (it is not shown) */
    ModelRef ref;
    int fi, fj;             /* the focused cell: its row and column are kept in view */
    bool focus;             /* the explained matrix: the cell is the focus; else an operand */
    bool vocab_cols;        /* columns named by the vocab (logits, p) */
    bool dots;              /* not computed yet: dots */
} MGrid;

/* The columns grid g takes whole, and at least (its labels, "…" and three
 * columns around the focus). */
int mgrid_width(Frame *c, const MGrid *g, bool least);
/* Lay g out in (y, x, w wide, h rows): its title, its column header and
 * h - 2 rows around the focused row, the columns around the focused
 * column that fit in w, "…" where columns are left out. Returns the
 * columns used. */
int mgrid_lay(Frame *c, const MGrid *g, int y, int x, int w, int h);
/* The stage's grids side by side where they fit (else one band each),
 * from row y0, then `bars` rows of the next token's bars (0: none),
 * sized with the parts of b (which give way by rank first, then the
 * grids' rows down to the focused one's neighbours). Returns the row
 * under the board. */
int mgrid_board(Frame *c, MGrid *g, int ng, int y0, Budget *b, int bars);
/* The focused row's top tokens of p as bars: "B  0.912 ██████████",
 * with the prediction's line above them. */
void mgrid_bars(Frame *c, int y, int x, int w, int h);

#endif
