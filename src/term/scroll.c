/* scroll.c - rows moved since the last frame (see scroll.h). */
#include "scroll.h"

#include <string.h>

static bool blank(const GridCell *c)
{
    return c->n == 1 && c->b[0] == ' ' && c->look == 0;
}

/* The cells of back row r that front row f already shows (not counting
 * plain blanks, which erasing makes cheaply); f NULL: a blank row. */
static int kept(const GridCell *r, const GridCell *f, int cols)
{
    int n = 0;
    for (int x = 0; x < cols; x++)
        n += !blank(&r[x]) && f && memcmp(&r[x], &f[x], sizeof *r) == 0;
    return n;
}

static bool row_eq(const GridCell *a, const GridCell *b, int cols)
{
    return memcmp(a, b, (size_t)cols * sizeof *a) == 0;
}

typedef struct {
    const GridCell *back, *front;
    int rows, cols;
    int *now;                /* kept(back[y], front[y]) by row, -1: not counted yet */
} Rows;

static const GridCell *row(const GridCell *g, const Rows *r, int y)
{
    return g + (size_t)y * (size_t)r->cols;
}

static int now_kept(Rows *r, int y)
{
    if (r->now[y] < 0)
        r->now[y] = kept(row(r->back, r, y), row(r->front, r, y), r->cols);
    return r->now[y];
}

/* What scrolling back row y's content from front row y - d gains over
 * leaving it: the cells it would show that it does not now. */
static int gain_row(Rows *r, int y, int d)
{
    int s = y - d;
    if (s < 0 || s >= r->rows)
        return -1;
    return kept(row(r->back, r, y), row(r->front, r, s), r->cols) - now_kept(r, y);
}

/* The rows a scroll of rows a..b by d leaves blank lose what they show. */
static int vacated(Rows *r, int a, int b, int d)
{
    int v0 = d > 0 ? a - d : b + 1, v1 = d > 0 ? a - 1 : b - d, g = 0;
    for (int y = v0 < 0 ? 0 : v0; y <= v1 && y < r->rows; y++)
        g -= now_kept(r, y);
    return g;
}

bool scroll_pick(const GridCell *back, const GridCell *front, const unsigned char *changed, int rows, int cols,
                 int min_gain, ScrollMove *m)
{
    int best = min_gain, now[rows];
    Rows r = {back, front, rows, cols, now};
    bool found = false;
    for (int y = 0; y < rows; y++)
        now[y] = -1;
    for (int d = -SCROLL_MAX; d <= SCROLL_MAX; d++) {
        if (d == 0)
            continue;
        for (int y = 0; y < rows;) {
            int s = y - d;
            if (s < 0 || s >= rows || !changed[y] || !row_eq(row(back, &r, y), row(front, &r, s), cols)) {
                y++;
                continue;
            }
            /* an exact match grows over rows that gain too (a line that
             * moved and changed a little) */
            int a = y, b = y, g = gain_row(&r, y, d), k;
            while (b + 1 < rows && (k = gain_row(&r, b + 1, d)) > 0) {
                g += k;
                b++;
            }
            while (a - 1 >= 0 && (k = gain_row(&r, a - 1, d)) > 0) {
                g += k;
                a--;
            }
            g += vacated(&r, a, b, d);
            if (g > best) {
                best = g;
                found = true;
                m->top = d > 0 ? a - d : a;
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
