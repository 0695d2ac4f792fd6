/* scroll.h - which rows of the screen moved up or down since the last
 * frame (for grid.c's writer: a scroll region moves them in a few bytes,
 * as curses' hashmap did). Plain data, no terminal. */
#ifndef QKV_SCROLL_H
#define QKV_SCROLL_H

#include <stdbool.h>

#include "cell.h"

/* Rows top..bot (0-based, inclusive) scroll by n: n > 0 moves their
 * content down n rows, n < 0 up; the rows it leaves become blanks. */
typedef struct {
    int top, bot, n;
} ScrollMove;

/* The scroll that saves the most cells when the back grid's rows equal
 * the front's moved by up to SCROLL_MAX rows: false when none saves more
 * than min_gain cells (the cells of rows the scroll would blank and the
 * frame keeps count against it). changed[y]: back row y differs from
 * front row y. */
#define SCROLL_MAX 8
bool scroll_pick(const GridCell *back, const GridCell *front, const unsigned char *changed, int rows, int cols,
                 int min_gain, ScrollMove *m);
/* The front grid after the scroll: the rows moved, those left blank
 * filled with fill. */
void scroll_apply(GridCell *front, int rows, int cols, const ScrollMove *m, GridCell fill);

#endif
