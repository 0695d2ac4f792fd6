/* gridterm.c - the terminal's grid (grid.h): made from the current
 * terminal's terminfo, flushed with one write(2) per frame. */
#include <errno.h>
#include <unistd.h>

#include "grid.h"

static Grid *term;
static int term_fd = STDOUT_FILENO;
static unsigned long long term_bytes;

void grid_term_open(int fd)
{
    grid_free(term);
    term = grid_new(caps_terminfo());
    term_fd = fd;
}

Grid *grid_term(void)
{
    if (!term)
        term = grid_new(caps_terminfo());
    return term;
}

bool grid_term_flush(int cy, int cx)
{
    Grid *g = grid_term();
    if (!g)
        return false;
    size_t n;
    const char *s = grid_flush(g, cy, cx, &n);
    term_bytes += n;
    while (n > 0) {
        ssize_t w = write(term_fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        s += w;
        n -= (size_t)w;
    }
    return true;
}

unsigned long long grid_term_written(void)
{
    return term_bytes;
}
