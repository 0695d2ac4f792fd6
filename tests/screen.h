/* screen.h - a headless curses screen for view tests and the benchmark.
 *
 * screen_open() starts curses on /dev/null (no terminal needed) at a given
 * size; screen_text() reads back what view_draw drew (the writer's back grid, src/term/grid.h),
 * as UTF-8 lines (a wide character's second cell is skipped, trailing
 * blanks trimmed). */
#ifndef QKV_SCREEN_H
#define QKV_SCREEN_H

#include <stdbool.h>
#include <stddef.h>

bool screen_open(int lines, int cols);
void screen_resize(int lines, int cols);
void screen_close(void);
/* The whole screen as text, one line per row, '\n'-terminated. Caller frees. */
char *screen_text(void);
/* The attributes (A_* bits, colour pair masked out) of the cell at (y, x). */
unsigned long screen_attr(int y, int x);
/* Find the first occurrence of s on the screen; returns its row or -1 and
 * the column in *x (display columns). */
int screen_find(const char *s, int *x);

#endif
