/* grid.h - our own output to the terminal: two grids of cells and a
 * writer that sends what differs, in one write(2) per frame.
 *
 * The back grid is what the frame should look like (draw.c paints the
 * plan into it); the front grid is what the terminal shows. grid_flush()
 * compares them row by row and writes the fewest bytes it can find: the
 * cheapest cursor move (absolute, relative on the row, carriage return and
 * newline, or sending a few unchanged cells again), a look's SGR only when
 * the look changes, erase to end of line and erase characters for blanks;
 * when that comes to more than painting the screen whole, the whole repaint.
 * A cell holds a character's UTF-8 bytes, its columns (a wide character's
 * right half is a cell of its own) and its look, an index into a table of
 * styles (theme.c fills it: role x bold x underline). ncurses keeps the
 * keyboard, the terminal's modes and endwin; no frame goes through
 * refresh. */
#ifndef QKV_GRID_H
#define QKV_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"
#include "cell.h"


/* A grid writing with caps (taken over: grid_free frees them). */
Grid *grid_new(Caps *caps);
void grid_free(Grid *g);
/* A new size: both grids blank, the front not known (the next flush
 * repaints whole). False when out of memory. */
bool grid_resize(Grid *g, int rows, int cols);
int grid_rows(const Grid *g);
int grid_cols(const Grid *g);
/* The looks: style k for look k. The next flush repaints whole. */
bool grid_set_styles(Grid *g, const GridStyle *s, int n);
const GridStyle *grid_style(const Grid *g, int look);
/* The back grid blank (look 0), or row y from column x on. */
void grid_clear(Grid *g);
void grid_clear_row(Grid *g, int y, int x);
/* UTF-8 text at (y, x) in a look, cut at the right edge; a character
 * that is not one or two columns wide shows as '?'. A wide character
 * half covered is replaced by a blank. Returns the columns used. */
int grid_put(Grid *g, int y, int x, const char *s, int len, int look);
/* Forget what the terminal shows: the next flush repaints whole. */
void grid_invalidate(Grid *g);
/* The bytes that bring the terminal from the front grid to the back one
 * and the cursor to (cy, cx) (cy < 0: anywhere); the front becomes the
 * back. The buffer is the grid's, valid until the next flush. */
const char *grid_flush(Grid *g, int cy, int cx, size_t *len);
const GridCell *grid_back_row(const Grid *g, int y);
const GridCell *grid_front_row(const Grid *g, int y);
/* The bytes that home the cursor and reset the look, for before endwin
 * and Ctrl-Z (ncurses takes the cursor to be at the top left). */
const char *grid_home(Grid *g, size_t *len);

/* The terminal's grid: made on first use from the current terminal's
 * terminfo, writing to fd (grid_term_open; standard output by default). */
Grid *grid_term(void);
void grid_term_open(int fd);
/* Flush the terminal's grid in one write. False when the write failed. */
bool grid_term_flush(int cy, int cx);
/* Bytes written by grid_term_flush so far (for the benchmark). */
unsigned long long grid_term_written(void);

#endif
