/* grid_int.h - the writer's insides, shared by grid.c (the grids, looks,
 * cursor moves and a row's cells) and gridflush.c (a frame: the whole
 * repaint, rows scrolled into place, the cheaper of diff and repaint).
 * Only src/term/grid*.c include it; nothing here touches curses. */
#ifndef QKV_GRID_INT_H
#define QKV_GRID_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "caps.h"
#include "cell.h"

#define LOOK_MAX 128 /* bytes of one look's SGR */

struct Grid {
    Caps *c;
    int rows, cols;
    GridCell *back, *front;
    unsigned char *dirty;    /* row y of the back grid changed since the last flush */
    bool whole;              /* the front is not known: repaint whole */
    GridStyle *style;
    int nstyle;
    char (*lk)[LOOK_MAX];    /* each look's SGR, made on first use */
    unsigned char *lklen;    /* its length, 0xff: not made yet */
    uint16_t *canon;         /* a blank in look k looks as one in look canon[k] */
    char *out;
    int olen, ocap;
    int cy, cx;              /* where the cursor is (-1: not known) */
    int look;                /* the look the terminal is in (-1: not known) */
};

/* A cell the terminal's contents are not known for; a blank in a look. */
extern const GridCell grid_unknown_cell;
GridCell grid_blank_cell(int look);
/* Append n bytes (or a string) to the frame's output. */
void grid_emit(Grid *g, const char *s, int n);
void grid_emit_str(Grid *g, const char *s);
/* The terminal into look (its SGR sent only when the look changes). */
void grid_set_look(Grid *g, int look);
/* The bytes of look's SGR (made and kept on first use). */
int grid_look_len(Grid *g, int look);
/* Can blanks in this look be made by erasing (EL, ECH, clear)? */
bool grid_erasable(const Grid *g, int look);
/* The bytes of a parameterized capability for n. */
int grid_parm_len(CapParm *p, int n);
/* The cursor to (y, x) by the cheapest way the terminal has. */
void grid_move_to(Grid *g, int y, int x);
/* Row y: the cells that differ from the front, sent; the front updated. */
void grid_flush_row(Grid *g, int y);

#endif
