/* cell.h - one cell of a character grid as plain data: its UTF-8 bytes,
 * its columns and the index of its look. Shared by grid.c's back and front
 * grids and scroll.c's row moves, so scroll.h needs no grid.h. No terminal. */
#ifndef QKV_CELL_H
#define QKV_CELL_H

#include <stdint.h>

typedef struct {
    uint8_t b[4];  /* the character's UTF-8 bytes */
    uint8_t n;     /* how many; 0 for a wide character's right half, 0xff: not known */
    uint8_t w;     /* columns: 1 or 2, 0 for a right half */
    uint16_t look; /* the style's index */
} GridCell;

#endif
