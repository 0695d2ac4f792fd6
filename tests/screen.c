/* screen.c - headless curses for tests (see screen.h). */
#include "screen.h"

#include <curses.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "term/grid.h"
#include "term/view.h"

static SCREEN *scr;
static FILE *out, *in;

bool screen_open(int lines, int cols)
{
    setlocale(LC_ALL, "C.UTF-8");
    out = fopen("/dev/null", "w");
    in = fopen("/dev/null", "r");
    if (!out || !in)
        return false;
    scr = newterm("xterm-256color", out, in);
    if (!scr)
        return false;
    set_term(scr);
    resizeterm(lines, cols);
    view_screen_fd(fileno(out));
    view_screen_ready(); /* as view_run: our writer on this screen */
    return true;
}

void screen_resize(int lines, int cols)
{
    resizeterm(lines, cols);
}

void screen_close(void)
{
    if (scr) {
        endwin();
        delscreen(scr);
        scr = NULL;
    }
    if (out)
        fclose(out);
    if (in)
        fclose(in);
    out = in = NULL;
}

/* Append the text of row y of the back grid (what view_draw drew) to buf
 * at *n, trimming trailing blanks. */
static void row_text(int y, char *buf, size_t *n)
{
    size_t start = *n, keep = *n;
    Grid *g = grid_term();
    if (!g || y >= grid_rows(g)) {
        buf[(*n)++] = '\n';
        return;
    }
    const GridCell *r = grid_back_row(g, y);
    for (int x = 0; x < grid_cols(g); x++) {
        if (r[x].n == 0 || r[x].n > 4)
            continue; /* a wide character's right half */
        memcpy(buf + *n, r[x].b, r[x].n);
        *n += r[x].n;
        if (!(r[x].n == 1 && r[x].b[0] == ' '))
            keep = *n;
    }
    *n = keep > start ? keep : start;
    buf[(*n)++] = '\n';
}

char *screen_text(void)
{
    size_t cap = (size_t)LINES * ((size_t)COLS * 8 + 2) + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (int y = 0; y < LINES; y++)
        row_text(y, buf, &n);
    buf[n] = '\0';
    return buf;
}

unsigned long screen_attr(int y, int x)
{
    Grid *g = grid_term();
    if (!g || y < 0 || x < 0 || y >= grid_rows(g) || x >= grid_cols(g))
        return 0;
    int a = grid_style(g, grid_back_row(g, y)[x].look)->attr;
    return (a & GRID_BOLD ? A_BOLD : 0) | (a & GRID_DIM ? A_DIM : 0) | (a & GRID_UNDER ? A_UNDERLINE : 0) |
           (a & GRID_REVERSE ? A_REVERSE : 0);
}

int screen_find(const char *s, int *x)
{
    char *text = screen_text();
    if (!text)
        return -1;
    int row = -1;
    char *hit = strstr(text, s);
    if (hit) {
        row = 0;
        char *line = text;
        for (char *p = text; p < hit; p++)
            if (*p == '\n') {
                row++;
                line = p + 1;
            }
        *hit = '\0';
        size_t wl = mbstowcs(NULL, line, 0);
        wchar_t *w = malloc((wl + 1) * sizeof *w);
        mbstowcs(w, line, wl + 1);
        *x = wcswidth(w, wl);
        free(w);
    }
    free(text);
    return row;
}
