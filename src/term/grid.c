/* grid.c - the back and front grids and the writer (see grid.h). */
#include "grid.h"
#include "grid_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "text/text.h"

const GridCell grid_unknown_cell = {{0, 0, 0, 0}, 0xff, 1, 0xffff};

GridCell grid_blank_cell(int look)
{
    GridCell c = {{' ', 0, 0, 0}, 1, 1, (uint16_t)look};
    return c;
}

/* The look a blank in look k is kept in (grid_set_styles). */
static int canon_look(const Grid *g, int k)
{
    return k >= 0 && k < g->nstyle ? g->canon[k] : k;
}

Grid *grid_new(Caps *caps)
{
    Grid *g = caps ? calloc(1, sizeof *g) : NULL;
    if (!g) {
        caps_free(caps);
        return NULL;
    }
    g->c = caps;
    g->whole = true;
    g->cy = g->cx = g->look = -1;
    return g;
}

void grid_free(Grid *g)
{
    if (!g)
        return;
    caps_free(g->c);
    free(g->back);
    free(g->front);
    free(g->dirty);
    free(g->style);
    free(g->lk);
    free(g->lklen);
    free(g->canon);
    free(g->out);
    free(g);
}

int grid_rows(const Grid *g)
{
    return g->rows;
}

int grid_cols(const Grid *g)
{
    return g->cols;
}

void grid_invalidate(Grid *g)
{
    g->whole = true;
    g->cy = g->cx = g->look = -1;
}

bool grid_resize(Grid *g, int rows, int cols)
{
    if (rows < 1 || cols < 1)
        return false;
    size_t n = (size_t)rows * (size_t)cols;
    GridCell *b = malloc(n * sizeof *b), *f = malloc(n * sizeof *f);
    unsigned char *d = malloc((size_t)rows);
    if (!b || !f || !d) {
        free(b);
        free(f);
        free(d);
        return false;
    }
    free(g->back);
    free(g->front);
    free(g->dirty);
    g->back = b;
    g->front = f;
    g->dirty = d;
    g->rows = rows;
    g->cols = cols;
    grid_clear(g);
    grid_invalidate(g);
    return true;
}

bool grid_set_styles(Grid *g, const GridStyle *s, int n)
{
    GridStyle *st = malloc((size_t)(n > 0 ? n : 1) * sizeof *st);
    char(*lk)[LOOK_MAX] = malloc((size_t)(n > 0 ? n : 1) * sizeof *lk);
    unsigned char *len = malloc((size_t)(n > 0 ? n : 1));
    uint16_t *canon = malloc((size_t)(n > 0 ? n : 1) * sizeof *canon);
    if (!st || !lk || !len || !canon) {
        free(st);
        free(lk);
        free(len);
        free(canon);
        return false;
    }
    /* Blanks show only the background, underline and reverse: a blank
     * takes the first look that shows it the same. */
    for (int k = 0; k < n; k++) {
        canon[k] = (uint16_t)k;
        for (int j = 0; j < k; j++)
            if (s[j].bg == s[k].bg && (s[j].attr & (GRID_UNDER | GRID_REVERSE)) == (s[k].attr & (GRID_UNDER | GRID_REVERSE)) &&
                (!(s[k].attr & GRID_REVERSE) || s[j].fg == s[k].fg)) {
                canon[k] = (uint16_t)j;
                break;
            }
    }
    memcpy(st, s, (size_t)n * sizeof *st);
    memset(len, 0xff, (size_t)(n > 0 ? n : 1));
    free(g->style);
    free(g->lk);
    free(g->lklen);
    free(g->canon);
    g->canon = canon;
    g->style = st;
    g->lk = lk;
    g->lklen = len;
    g->nstyle = n;
    grid_invalidate(g);
    return true;
}

const GridStyle *grid_style(const Grid *g, int look)
{
    static const GridStyle plain = {-1, -1, 0};
    return look >= 0 && look < g->nstyle ? &g->style[look] : &plain;
}

void grid_clear_row(Grid *g, int y, int x)
{
    if (y < 0 || y >= g->rows || x >= g->cols)
        return;
    if (x < 0)
        x = 0;
    GridCell *r = g->back + (size_t)y * (size_t)g->cols;
    if (x > 0 && r[x].w == 0) /* the left half of a wide character goes too */
        r[x - 1] = grid_blank_cell(r[x - 1].look);
    GridCell b = grid_blank_cell(0);
    for (int k = x; k < g->cols; k++)
        r[k] = b;
    g->dirty[y] = 1;
}

void grid_clear(Grid *g)
{
    for (int y = 0; y < g->rows; y++)
        grid_clear_row(g, y, 0);
}

/* Cell x of row r takes c (w columns): the halves of wide characters it
 * covers in part become blanks. */
static void set_cell(GridCell *r, int cols, int x, GridCell c)
{
    if (r[x].w == 0 && x > 0)
        r[x - 1] = grid_blank_cell(r[x - 1].look);
    int end = x + c.w; /* the first column after c */
    if (end < cols && r[end].w == 0)
        r[end] = grid_blank_cell(r[end].look);
    r[x] = c;
    if (c.w == 2) {
        GridCell half = {{0, 0, 0, 0}, 0, 0, c.look};
        r[x + 1] = half;
    }
}

int grid_put(Grid *g, int y, int x, const char *s, int len, int look)
{
    if (y < 0 || y >= g->rows || x < 0)
        return 0;
    GridCell *r = g->back + (size_t)y * (size_t)g->cols;
    int x0 = x;
    for (int k = 0; k < len && x < g->cols;) {
        uint32_t cp = (unsigned char)s[k];
        int n = 1, w = 1;
        if (cp >= 0x80) {
            n = (int)text_utf8_next(s + k, (size_t)(len - k), &cp);
            w = cp == TEXT_BAD_CP ? -1 : text_cp_columns(cp);
        } else if (cp < 0x20 || cp == 0x7f) {
            w = -1;
        }
        GridCell c = {{'?', 0, 0, 0}, 1, 1, (uint16_t)look};
        if (w == 0) { /* a combining mark: not shown */
            k += n;
            continue;
        }
        if (w == 1 || w == 2) {
            memcpy(c.b, s + k, (size_t)n);
            c.n = (uint8_t)n;
            c.w = (uint8_t)w;
        }
        if (x + c.w > g->cols)
            break;
        if (c.n == 1 && c.b[0] == ' ')
            c.look = (uint16_t)canon_look(g, look);
        set_cell(r, g->cols, x, c);
        x += c.w;
        k += n;
    }
    g->dirty[y] = 1;
    return x - x0;
}

const GridCell *grid_back_row(const Grid *g, int y)
{
    return g->back + (size_t)y * (size_t)g->cols;
}

const GridCell *grid_front_row(const Grid *g, int y)
{
    return g->front + (size_t)y * (size_t)g->cols;
}

/* ---- the writer ---- */

void grid_emit(Grid *g, const char *s, int n)
{
    if (n <= 0 || (g->olen + n > g->ocap && !grow_buf((void **)&g->out, &g->ocap, g->olen + n, 1)))
        return;
    memcpy(g->out + g->olen, s, (size_t)n);
    g->olen += n;
}

void grid_emit_str(Grid *g, const char *s)
{
    grid_emit(g, s, caps_len(s));
}

/* The parameters of a plain SGR string \E[...m into par (after a ';'). */
static bool sgr_params(const char *s, char *par, int *npar, int max)
{
    int n = caps_len(s);
    if (n < 3 || s[0] != '\033' || s[1] != '[' || s[n - 1] != 'm' || *npar + n > max)
        return false;
    for (int k = 2; k < n - 1; k++)
        if (!((s[k] >= '0' && s[k] <= '9') || s[k] == ';'))
            return false;
    par[(*npar)++] = ';';
    memcpy(par + *npar, s + 2, (size_t)(n - 3));
    *npar += n - 3;
    return true;
}

static void cat(char *o, int *n, const char *s, int len)
{
    if (s && len > 0 && *n + len <= LOOK_MAX) { /* a string the terminal lacks adds nothing */
        memcpy(o + *n, s, (size_t)len);
        *n += len;
    }
}

/* Look k's SGR into o: a reset and then its attributes and colours, as
 * one \E[0;...m when the terminal's strings are plain SGR. */
static int build_look(Grid *g, int k, char *o)
{
    const GridStyle *st = grid_style(g, k);
    Caps *c = g->c;
    char fg[32], bg[32];
    const char *part[6];
    int np = 0, n = 0;
    if (st->attr & GRID_BOLD)
        part[np++] = c->bold;
    if (st->attr & GRID_DIM)
        part[np++] = c->dim;
    if (st->attr & GRID_UNDER)
        part[np++] = c->smul;
    if (st->attr & GRID_REVERSE)
        part[np++] = c->rev;
    if (c->colors > 0 && st->fg >= 0 && st->fg < c->colors) {
        fg[caps_parm(&c->setaf, st->fg, fg)] = '\0';
        part[np++] = fg;
    }
    if (c->colors > 0 && st->bg >= 0 && st->bg < c->colors) {
        bg[caps_parm(&c->setab, st->bg, bg)] = '\0';
        part[np++] = bg;
    }
    if (c->nsgr0_pre >= 0) {
        char par[LOOK_MAX], rest[LOOK_MAX];
        int npar = 1, nrest = 0;
        par[0] = '0';
        for (int p = 0; p < np; p++)
            if (!sgr_params(part[p], par, &npar, LOOK_MAX - 8))
                cat(rest, &nrest, part[p], caps_len(part[p]));
        cat(o, &n, "\033[", 2);
        cat(o, &n, par, npar);
        cat(o, &n, "m", 1);
        cat(o, &n, rest, nrest);
        return n;
    }
    cat(o, &n, c->sgr0 ? c->sgr0 : "", caps_len(c->sgr0));
    if (c->colors > 0)
        cat(o, &n, c->op ? c->op : "", caps_len(c->op));
    for (int p = 0; p < np; p++)
        cat(o, &n, part[p], caps_len(part[p]));
    return n;
}

void grid_set_look(Grid *g, int look)
{
    if (g->look == look)
        return;
    g->look = look;
    if (look < g->nstyle) {
        grid_look_len(g, look);
        grid_emit(g, g->lk[look], g->lklen[look]);
        return;
    }
    char o[LOOK_MAX];
    grid_emit(g, o, build_look(g, look, o));
}

int grid_look_len(Grid *g, int look)
{
    if (look >= g->nstyle) {
        char o[LOOK_MAX];
        return build_look(g, look, o);
    }
    if (g->lklen[look] == 0xff)
        g->lklen[look] = (unsigned char)build_look(g, look, g->lk[look]);
    return g->lklen[look];
}

/* Can blanks in this look be made by erasing (EL, ECH, clear)? The
 * terminal erases in the current background (with bce) and no attribute
 * that shows on a blank. */
bool grid_erasable(const Grid *g, int look)
{
    const GridStyle *st = grid_style(g, look);
    bool colour = g->c->colors > 0 && st->bg >= 0;
    return !(st->attr & (GRID_UNDER | GRID_REVERSE)) && (!colour || g->c->bce);
}

static bool same(const GridCell *a, const GridCell *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

static bool is_blank(const GridCell *c, int look)
{
    return c->n == 1 && c->b[0] == ' ' && c->look == look;
}

/* Send back cell x of row y (its look first) and take it as shown. */
static void put_cell(Grid *g, int y, int x)
{
    GridCell *B = g->back + (size_t)y * (size_t)g->cols, *F = g->front + (size_t)y * (size_t)g->cols;
    const GridCell *b = &B[x];
    F[x] = *b;
    if (b->w == 2)
        F[x + 1] = B[x + 1];
    if (g->c->am && !g->c->xenl && y == g->rows - 1 && x + b->w >= g->cols) {
        g->cy = g->cx = -1; /* the last cell would scroll this terminal: left as it is */
        return;
    }
    if (!(b->n == 1 && b->b[0] == ' ' && canon_look(g, g->look) == b->look))
        grid_set_look(g, b->look);
    grid_emit(g, (const char *)b->b, b->n);
    g->cx += b->w;
    if (g->cx >= g->cols) /* past the margin: where the cursor is depends on the terminal */
        g->cy = g->cx = -1;
}

int grid_parm_len(CapParm *p, int n)
{
    char o[32];
    return caps_parm(p, n, o);
}

enum { BIG = 1 << 20 };

/* Bytes to go right from column a to b on row y: the forward move, or the
 * cells between sent again when they are in the current look (*again). */
static int fwd_cost(Grid *g, int y, int a, int b, bool *again)
{
    Caps *c = g->c;
    int n = b - a, best = BIG;
    if (n == 1 && c->cuf1)
        best = caps_len(c->cuf1);
    else if (c->cuf.tmpl)
        best = grid_parm_len(&c->cuf, n);
    *again = false;
    const GridCell *B = g->back + (size_t)y * (size_t)g->cols;
    if (B[a].w == 0 || g->look < 0)
        return best;
    int bytes = 0;
    for (int k = a; k < b && bytes < best; k++) {
        if ((B[k].look != g->look && !(B[k].n == 1 && B[k].b[0] == ' ' && B[k].look == canon_look(g, g->look))) ||
            B[k].n == 0xff)
            return best;
        bytes += B[k].n;
    }
    if (bytes < best)
        *again = true;
    return bytes < best ? bytes : best;
}

static void fwd_do(Grid *g, int y, int b, bool again)
{
    char o[32];
    int n = b - g->cx;
    if (again) {
        while (g->cx >= 0 && g->cx < b)
            put_cell(g, y, g->cx);
        return;
    }
    if (n == 1 && g->c->cuf1)
        grid_emit_str(g, g->c->cuf1);
    else
        grid_emit(g, o, caps_parm(&g->c->cuf, n, o));
    g->cx = b;
}

static int back_cost(Grid *g, int n)
{
    Caps *c = g->c;
    int one = c->cub1 ? caps_len(c->cub1) * n : BIG, parm = c->cub.tmpl ? grid_parm_len(&c->cub, n) : BIG;
    return one < parm ? one : parm;
}

/* The cursor to (y, x) by the cheapest way the terminal has. */
void grid_move_to(Grid *g, int y, int x)
{
    if (g->cy == y && g->cx == x)
        return;
    Caps *c = g->c;
    char o[32];
    int cup = caps_cup(c, y, x, g->rows, g->cols, o), best = cup > 0 ? cup : BIG, how = 0;
    bool again = false, again0 = false, near = g->cy == y || (g->cy >= 0 && y > g->cy && y - g->cy < 4);
    int from0 = x > 0 && near ? fwd_cost(g, y, 0, x, &again0) : 0; /* from column 0 after a CR */
    if (g->cy == y && g->cx >= 0) {
        int cost = x > g->cx ? fwd_cost(g, y, g->cx, x, &again) : back_cost(g, g->cx - x);
        if (cost < best) {
            best = cost;
            how = 1;
        }
        if (c->cr && caps_len(c->cr) + from0 < best) {
            best = caps_len(c->cr) + from0;
            how = 2;
        }
        if (c->hpa.tmpl && grid_parm_len(&c->hpa, x) < best) {
            best = grid_parm_len(&c->hpa, x);
            how = 4;
        }
    } else if (near && c->cr && c->cud1 &&
               caps_len(c->cr) + (y - g->cy) * caps_len(c->cud1) + from0 < best) {
        how = 3;
    }
    if (how == 0) {
        grid_emit(g, o, cup);
    } else if (how == 4) {
        grid_emit(g, o, caps_parm(&c->hpa, x, o));
    } else if (how == 1 && x > g->cx) {
        fwd_do(g, y, x, again);
    } else if (how == 1) {
        int n = g->cx - x;
        if (c->cub1 && caps_len(c->cub1) * n <= (c->cub.tmpl ? grid_parm_len(&c->cub, n) : BIG))
            for (int k = 0; k < n; k++)
                grid_emit_str(g, c->cub1);
        else
            grid_emit(g, o, caps_parm(&c->cub, n, o));
    } else {
        grid_emit_str(g, c->cr);
        for (int k = g->cy; how == 3 && k < y; k++)
            grid_emit_str(g, c->cud1);
        g->cy = y;
        g->cx = 0;
        if (x > 0)
            fwd_do(g, y, x, again0);
    }
    g->cy = y;
    g->cx = x;
}

/* Blanks from column x of row y to the end in look, by erase to end of
 * line when that is shorter than sending them. */
static void flush_tail(Grid *g, int y, int x, int look)
{
    GridCell *B = g->back + (size_t)y * (size_t)g->cols, *F = g->front + (size_t)y * (size_t)g->cols;
    while (x < g->cols && same(&B[x], &F[x]))
        x++;
    if (x == g->cols)
        return;
    int last = g->cols - 1;
    while (same(&B[last], &F[last]))
        last--;
    if (F[x].w == 0 && x > 0) { /* the right half of a wide character: send its left cell again */
        grid_move_to(g, y, x - 1);
        put_cell(g, y, x - 1);
    }
    if (last - x + 1 <= caps_len(g->c->el) || (g->c->am && !g->c->xenl && y == g->rows - 1)) {
        grid_move_to(g, y, x);
        for (int k = x; k <= last && g->cy == y; k++)
            put_cell(g, y, k);
        for (int k = x; k <= last; k++)
            F[k] = B[k];
        return;
    }
    grid_move_to(g, y, x);
    grid_set_look(g, look);
    grid_emit_str(g, g->c->el);
    for (int k = x; k < g->cols; k++)
        F[k] = B[k];
}

/* A run of blanks at column x worth erasing with ECH: its length, or 0. */
static int ech_run(Grid *g, const GridCell *B, int x, int end)
{
    if (!g->c->ech.tmpl || !is_blank(&B[x], B[x].look) || !grid_erasable(g, B[x].look))
        return 0;
    int k = x;
    while (k < end && is_blank(&B[k], B[x].look))
        k++;
    return k - x > grid_parm_len(&g->c->ech, k - x) + 3 ? k - x : 0;
}

/* Row y: the cells that differ, left to right. */
void grid_flush_row(Grid *g, int y)
{
    int cols = g->cols;
    GridCell *B = g->back + (size_t)y * (size_t)cols, *F = g->front + (size_t)y * (size_t)cols;
    if (memcmp(B, F, (size_t)cols * sizeof *B) == 0)
        return;
    int tail = cols, tl = B[cols - 1].look;
    if (g->c->el && grid_erasable(g, tl))
        while (tail > 0 && is_blank(&B[tail - 1], tl))
            tail--;
    for (int x = 0; x < tail;) {
        if (same(&B[x], &F[x])) {
            x++;
            continue;
        }
        int s = x;
        while (s > 0 && (B[s].w == 0 || F[s].w == 0))
            s--;
        grid_move_to(g, y, s);
        int e = s;
        while (e < tail && g->cy == y) {
            bool need = e < x || !same(&B[e], &F[e]) || F[e].w == 0 || (B[e].w == 2 && !same(&B[e + 1], &F[e + 1]));
            if (!need)
                break;
            int k = ech_run(g, B, e, tail);
            if (k > 0) {
                grid_move_to(g, y, e);
                grid_set_look(g, B[e].look);
                char o[32];
                grid_emit(g, o, caps_parm(&g->c->ech, k, o));
                for (int j = e; j < e + k; j++)
                    F[j] = B[j];
                e += k;
                break;
            }
            int w = B[e].w ? B[e].w : 1;
            if (g->cx != e)
                grid_move_to(g, y, e);
            put_cell(g, y, e);
            e += w;
        }
        x = e > x ? e : x + 1;
    }
    if (tail < cols)
        flush_tail(g, y, tail, tl);
}

const char *grid_home(Grid *g, size_t *len)
{
    char o[32];
    g->olen = 0;
    grid_emit(g, o, caps_cup(g->c, 0, 0, g->rows, g->cols, o));
    grid_emit_str(g, g->c->sgr0);
    *len = (size_t)g->olen;
    return g->out;
}
