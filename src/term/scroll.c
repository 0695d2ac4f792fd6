/* scroll.c - rows moved since the last frame (see scroll.h). */
#include "scroll.h"

#include <string.h>

/* The cells of a row that are not plain blanks: what sending it costs. */
static int shown(const GridCell *r, int cols)
{
    int n = 0;
    for (int x = 0; x < cols; x++)
        n += !(r[x].n == 1 && r[x].b[0] == ' ' && r[x].look == 0);
    return n;
}

static bool row_eq(const GridCell *a, const GridCell *b, int cols)
{
    return memcmp(a, b, (size_t)cols * sizeof *a) == 0;
}

/* The rows a..b (back) equal front rows a-d..b-d: the gain of scrolling
 * them there, the changed rows' cells less the kept rows it blanks. */
static int gain_of(const GridCell *back, const unsigned char *changed, int rows, int cols, int a, int b, int d,
                   int *cost)
{
    int g = 0;
    for (int y = a; y <= b; y++)
        if (changed[y])
            g += cost[y] < 0 ? (cost[y] = shown(back + (size_t)y * (size_t)cols, cols)) : cost[y];
    int v0 = d > 0 ? a - d : b + 1, v1 = d > 0 ? a - 1 : b - d; /* the rows left blank */
    for (int y = v0 < 0 ? 0 : v0; y <= v1 && y < rows; y++)
        if (!changed[y])
            g -= cost[y] < 0 ? (cost[y] = shown(back + (size_t)y * (size_t)cols, cols)) : cost[y];
    return g;
}

bool scroll_pick(const GridCell *back, const GridCell *front, const unsigned char *changed, int rows, int cols,
                 int min_gain, ScrollMove *m)
{
    int best = min_gain, cost[rows];
    bool found = false;
    for (int y = 0; y < rows; y++)
        cost[y] = -1;
    for (int d = -SCROLL_MAX; d <= SCROLL_MAX; d++) {
        if (d == 0)
            continue;
        for (int y = 0; y < rows;) {
            int s = y - d;
            if (s < 0 || s >= rows || !changed[y] ||
                !row_eq(back + (size_t)y * (size_t)cols, front + (size_t)s * (size_t)cols, cols)) {
                y++;
                continue;
            }
            int b = y;
            while (b + 1 < rows && b + 1 - d >= 0 && b + 1 - d < rows &&
                   row_eq(back + (size_t)(b + 1) * (size_t)cols, front + (size_t)(b + 1 - d) * (size_t)cols, cols))
                b++;
            int g = gain_of(back, changed, rows, cols, y, b, d, cost);
            if (g > best) {
                best = g;
                found = true;
                m->top = d > 0 ? y - d : y;
                m->bot = d > 0 ? b : b - d;
                m->n = d;
            }
            y = b + 1;
        }
    }
    return found;
}

void scroll_apply(GridCell *front, int rows, int cols, const ScrollMove *m, GridCell fill)
{
    size_t w = (size_t)cols;
    int n = m->n > 0 ? m->n : -m->n, len = m->bot - m->top + 1 - n;
    if (len > 0 && m->n > 0)
        memmove(front + (size_t)(m->top + n) * w, front + (size_t)m->top * w, (size_t)len * w * sizeof *front);
    else if (len > 0)
        memmove(front + (size_t)m->top * w, front + (size_t)(m->top + n) * w, (size_t)len * w * sizeof *front);
    int v0 = m->n > 0 ? m->top : m->bot - n + 1, v1 = m->n > 0 ? m->top + n - 1 : m->bot;
    for (int y = v0 < 0 ? 0 : v0; y <= v1 && y < rows; y++)
        for (int x = 0; x < cols; x++)
            front[(size_t)y * w + x] = fill;
}
