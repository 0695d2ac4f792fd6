/* cell.h - one cell of a character grid as plain data: its UTF-8 bytes,
 * its columns and the index of its look; a look; the grid's name. Shared
 * by grid.h, grid_int.h (the writer's insides) and scroll.c's row moves, so
 * neither scroll.h nor grid_int.h needs grid.h. No terminal. */
#ifndef QKV_CELL_H
#define QKV_CELL_H

#include <stdint.h>

typedef struct {
    uint8_t b[4];  /* the character's UTF-8 bytes */
    uint8_t n;     /* how many; 0 for a wide character's right half, 0xff: not known */
    uint8_t w;     /* columns: 1 or 2, 0 for a right half */
    uint16_t look; /* the style's index */
} GridCell;

enum { GRID_BOLD = 1, GRID_DIM = 2, GRID_UNDER = 4, GRID_REVERSE = 8 };

/* A look: colours (-1: the terminal's own; 0-255) and GRID_ attributes. */
typedef struct {
    short fg, bg;
    int attr;
} GridStyle;

typedef struct Grid Grid;

#endif
