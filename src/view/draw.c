/* draw.c - one frame: header, ribbon, matrices, arithmetic, narration, bars.
 *
 * Reading down the screen: the title and step, the stage ribbon, the
 * matrices of the stage in one or two bands, the arithmetic of the focused
 * cell, the narration, a status line and the key bar. Everything is laid
 * out from LINES and COLS on every frame, so a resize is just a redraw.
 * Widths are display columns (text_width), never bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/explain.h"
#include "../lesson/fmt.h"
#include "../lesson/i18n.h"
#include "view_int.h"

#define MAX_BOXES 4
#define MAX_BANDS 3
#define MAX_LINES 16

/* A matrix on screen and what is highlighted in it. */
typedef struct {
    MatId id;
    bool placeholder;       /* stage not reached: shape only, dots */
    int hrow;               /* highlighted row, -1 none */
    Role hrow_role;
    int hcol;               /* highlighted column (key column), -1 none */
    int ci, cj;             /* focused cell, -1 none */
    bool heat;              /* shade the cells by value (a heatmap) */
    bool nolabel;           /* rows are labelled by the box to its left */
    int lrow;               /* row label to highlight for the band, -1 none */
} Box;

typedef struct {
    int n;
    Box box[MAX_BOXES];
} Band;

static int band_spare(const View *v, Band *b);

/* ---- small drawing helpers ---------------------------------------------- */

/* Draw s (already safe) at (y, x), clipped to w columns. Returns columns used. */
static int put(int y, int x, int w, const char *s, int attr)
{
    if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
        return 0;
    if (x + w > COLS)
        w = COLS - x;
    size_t n = text_fit(s, w);
    attrset(attr);
    mvaddnstr(y, x, s, (int)n);
    attrset(A_NORMAL);
    return text_width_n(s, n);
}

/* Draw lesson text: sanitised first, so it can never reach the terminal raw. */
static int put_lesson(const View *v, int y, int x, int w, const char *s, int attr)
{
    char safe[FMT_LINE];
    text_sanitize(s, safe, sizeof safe, v->ascii);
    return put(y, x, w, safe, attr);
}

static void fill(int y, int x, int w, int attr)
{
    if (y >= 0 && y < LINES && x < COLS && w > 0)
        mvhline(y, x, (chtype)' ' | (chtype)attr, x + w > COLS ? COLS - x : w);
}

static const char *sym(const View *v, const char *utf8, const char *ascii)
{
    return v->ascii ? ascii : utf8;
}

static int tok_width(const View *v, int i)
{
    char safe[256];
    text_sanitize(v->lesson->tokens[i], safe, sizeof safe, v->ascii);
    int w = text_width(safe);
    return w > 8 ? 8 : w;
}

/* ---- which matrices a stage shows ----------------------------------------- */

static Box mkbox(MatId id, int hrow, Role hrole, int hcol, int ci, int cj)
{
    Box b = {id, false, hrow, hrole, hcol, ci, cj, false, false, -1};
    return b;
}

/* A result on the board: the focused cell, its row label and column
 * header; the rows and columns it came from are highlighted in its inputs. */
static Box result_box(MatId id, int i, int j)
{
    return mkbox(id, -1, ROLE_ROW, -1, i, j);
}

MatId view_focus_mat(const View *v)
{
    if (v->mode == MODE_EDIT)
        return v->emat;
    int st = session_stage(&v->s);
    return st == STAGE_QKV ? v->fmat : attn_stage_mat(st);
}

/* The bands that follow the focus (presentation and edit mode): the stage's
 * inputs above, its result below. */
static int stage_bands(const View *v, Band *b)
{
    int i = v->fi, j = v->fj, st = session_stage(&v->s);
    MatId f = v->fmat;
    memset(b, 0, sizeof(Band) * 2);
    switch (st) {
    case STAGE_INPUT:
        b[0].box[b[0].n++] = mkbox(M_X, i, ROLE_ROW, -1, i, j);
        for (MatId w = M_WQ; w <= M_WV; w++)
            b[1].box[b[1].n++] = mkbox(w, -1, ROLE_ROW, -1, -1, -1);
        return 2;
    case STAGE_QKV:
        b[0].box[b[0].n++] = mkbox(M_X, i, ROLE_ROW, -1, -1, -1);
        b[0].box[b[0].n++] = mkbox((MatId)(f - M_Q + M_WQ), -1, ROLE_ROW, j, -1, -1);
        for (MatId m = M_Q; m <= M_V; m++)
            b[1].box[b[1].n++] = m == f ? mkbox(m, i, ROLE_ROW, j, i, j) : mkbox(m, -1, ROLE_ROW, -1, -1, -1);
        return 2;
    case STAGE_SCORES:
        b[0].box[b[0].n++] = mkbox(M_Q, i, ROLE_ROW, -1, -1, -1);
        b[0].box[b[0].n++] = mkbox(M_K, j, ROLE_COL, -1, -1, -1);
        b[1].box[b[1].n] = mkbox(M_S, i, ROLE_ROW, j, i, j);
        b[1].box[b[1].n++].heat = true;
        b[1].box[b[1].n] = mkbox(M_A, -1, ROLE_ROW, -1, -1, -1);
        b[1].box[b[1].n++].placeholder = true;
        return 2;
    case STAGE_SOFTMAX:
        b[0].box[b[0].n] = mkbox(M_S, i, ROLE_ROW, -1, -1, -1);
        b[0].box[b[0].n++].heat = true;
        b[0].box[b[0].n] = mkbox(M_O, -1, ROLE_ROW, -1, -1, -1);
        b[0].box[b[0].n++].placeholder = true;
        b[1].box[b[1].n] = mkbox(M_A, i, ROLE_ROW, j, i, j);
        b[1].box[b[1].n++].heat = true;
        return 2;
    default:
        b[0].box[b[0].n] = mkbox(M_A, i, ROLE_ROW, -1, -1, -1);
        b[0].box[b[0].n++].heat = true;
        b[0].box[b[0].n++] = mkbox(M_V, -1, ROLE_ROW, j, -1, -1);
        b[1].box[b[1].n++] = mkbox(M_O, i, ROLE_ROW, j, i, j);
        return 2;
    }
}

/* The board, the normal layout: Q K V on top from the first step, and below
 * them X with the W in use while Q K V are made, then S A O. A matrix keeps
 * its place from step to step and a stage fills in dots, so a next redraws
 * only what changed (`make bench`: bytes_ratio_next). */
static int board_bands(const View *v, Band *b)
{
    int i = v->fi, j = v->fj, st = session_stage(&v->s);
    MatId f = v->fmat;
    memset(b, 0, sizeof(Band) * 2);
    for (MatId m = M_Q; m <= M_V; m++) {
        Box x = mkbox(m, -1, ROLE_ROW, -1, -1, -1);
        if (st < STAGE_QKV)
            x.placeholder = true;
        else if (st == STAGE_QKV && m == f)
            x = result_box(m, i, j);
        else if (st == STAGE_SCORES && m != M_V)
            x = m == M_Q ? mkbox(m, i, ROLE_ROW, -1, -1, -1) : mkbox(m, j, ROLE_COL, -1, -1, -1);
        else if (st == STAGE_OUTPUT && m == M_V)
            x.hcol = j;
        b[0].box[b[0].n++] = x;
    }
    if (st <= STAGE_QKV) {
        /* X and the three Ws when they fit side by side, else X and the W in use. */
        Band *xw = &b[1];
        xw->box[xw->n++] = st == STAGE_INPUT ? mkbox(M_X, i, ROLE_ROW, -1, i, j) : mkbox(M_X, i, ROLE_ROW, -1, -1, -1);
        for (MatId w = M_WQ; w <= M_WV; w++)
            xw->box[xw->n++] = mkbox(w, -1, ROLE_ROW, st == STAGE_QKV && w - M_WQ == f - M_Q ? j : -1, -1, -1);
        if (band_spare(v, xw) < 0) {
            xw->box[1] = xw->box[1 + f - M_Q];
            xw->n = 2;
        }
        return 2;
    }
    Box s = st == STAGE_SCORES ? result_box(M_S, i, j) : mkbox(M_S, st == STAGE_SOFTMAX ? i : -1, ROLE_ROW, -1, -1, -1);
    Box a = st == STAGE_SOFTMAX ? result_box(M_A, i, j) : mkbox(M_A, st == STAGE_OUTPUT ? i : -1, ROLE_ROW, -1, -1, -1);
    Box o = st == STAGE_OUTPUT ? result_box(M_O, i, j) : mkbox(M_O, -1, ROLE_ROW, -1, -1, -1);
    s.heat = a.heat = true;
    a.placeholder = st < STAGE_SOFTMAX;
    o.placeholder = st < STAGE_OUTPUT;
    b[1].box[0] = s;
    b[1].box[1] = a;
    b[1].box[2] = o;
    b[1].n = 3;
    return 2;
}

/* ---- one matrix ------------------------------------------------------------- */

static bool rows_are_tokens(MatId id)
{
    return !attn_mat_is_param(id);
}

static bool cols_are_tokens(MatId id)
{
    return id == M_QKT || id == M_S || id == M_A;
}

/* Extra columns per cell: 1 when the band has room, so change marks (▲ ▼)
 * never touch the number to their left. Set per band by draw_band. */
static int cell_pad;

/* The widest number per matrix, worked out once per frame (see draw_frame). */
static int widest[M_COUNT];

/* Width of one cell: the widest number and a space before it, where a
 * change marker (▲ ▼) goes. */
static int cell_width(const View *v, MatId id)
{
    const Mat *m = &v->s.cur.m[id];
    if (widest[id] > 0)
        return widest[id] + 1 + cell_pad;
    FmtOpt fo = {v->lesson->digits, v->ascii};
    char buf[64];
    int w = 1 + v->lesson->digits + 2; /* "-0." */
    /* Widths grow with magnitude on each side of zero, up to where numbers
     * turn scientific: only the extremes on each side of that need writing. */
    double cand[7] = {0, 0, 0, 0, INFINITY, -INFINITY, NAN};
    bool odd = false;
    for (int k = 0; k < m->rows * m->cols; k++) {
        double x = m->v[k];
        int c = fabs(x) < 1e6 ? 0 : 2;
        odd = odd || !isfinite(x);
        if (isfinite(x) && x > cand[c])
            cand[c] = x;
        else if (isfinite(x) && x < cand[c + 1])
            cand[c + 1] = x;
    }
    for (int k = 0; k < (odd ? 7 : 4); k++) {
        int n = text_width(fmt_num(cand[k], &fo, buf, sizeof buf));
        w = n > w ? n : w;
    }
    widest[id] = w;
    return w + 1 + cell_pad;
}

static int label_width(const View *v, MatId id, const Mat *m, bool nolabel)
{
    int w = 2;
    if (nolabel)
        return 1;
    if (!rows_are_tokens(id)) {
        char buf[16];
        return snprintf(buf, sizeof buf, "%d", m->rows) + 1;
    }
    for (int i = 0; i < m->rows && i < v->lesson->ntok; i++)
        w = tok_width(v, i) > w ? tok_width(v, i) : w;
    return w + 2; /* room for the "set by hand" mark */
}

static const char *box_title(const View *v, MatId id, char *buf, size_t len)
{
    bool sc = v->s.cur.scale == SCALE_SQRT_DK;
    switch (id) {
    case M_Q: return sym(v, "Q = X·Wq", "Q = X*Wq");
    case M_K: return sym(v, "K = X·Wk", "K = X*Wk");
    case M_V: return sym(v, "V = X·Wv", "V = X*Wv");
    case M_QKT: return sym(v, "Q·Kᵀ", "Q*K^T");
    case M_S:
        if (!sc)
            return sym(v, "S = Q·Kᵀ", "S = Q*K^T");
        snprintf(buf, len, v->ascii ? "S = Q*K^T/sqrt(%d)" : "S = Q·Kᵀ/√%d", v->lesson->d_k);
        return buf;
    case M_A: return "A = softmax(S)";
    case M_O: return sym(v, "O = A·V", "O = A*V");
    default: return attn_mat_name(id);
    }
}

/* The narrowest a box can be and still show one column of cells. */
static int one_column(const View *v, const Box *b)
{
    return label_width(v, b->id, &v->s.cur.m[b->id], b->nolabel) + cell_width(v, b->id) + 1;
}

/* The full width a box wants: its cells, or its title when that is wider. */
static int box_need(const View *v, const Box *b)
{
    const Mat *m = &v->s.cur.m[b->id];
    char t[64];
    int cells = label_width(v, b->id, m, b->nolabel) + m->cols * cell_width(v, b->id) + 1;
    int title = text_width(box_title(v, b->id, t, sizeof t)) + 8 + text_width(_("not yet"));
    return b->placeholder && title > cells ? title : cells;
}

/* The first index of a window of `vis` out of `n` that shows `focus`. */
static int window(int n, int vis, int focus)
{
    if (vis >= n || focus < 0)
        return 0;
    int start = focus - vis / 2;
    if (start < 0)
        start = 0;
    if (start > n - vis)
        start = n - vis;
    return start;
}

/* Did cell (i, j) change, as shown, with the last change? +1 up, -1 down.
 * Differences below the digits shown are not marked. */
static int changed(const View *v, MatId id, int i, int j)
{
    const Attn *b = &v->s.before, *a = &v->s.cur;
    if (!v->s.has_before || b->reached < attn_mat_stage(id) || !mat_same_shape(&a->m[id], &b->m[id]))
        return 0;
    FmtOpt fo = {v->lesson->digits, true};
    char sx[64], sy[64];
    double x = MAT_AT(&a->m[id], i, j), y = MAT_AT(&b->m[id], i, j);
    if (strcmp(fmt_num(x, &fo, sx, sizeof sx), fmt_num(y, &fo, sy, sizeof sy)) == 0)
        return 0;
    return x > y || (isnan(y) && !isnan(x)) ? 1 : -1;
}

static Role cell_role(const View *v, const Box *b, int i, int j)
{
    if (v->mode == MODE_EDIT && b->id == v->emat && i == v->ei && j == v->ej)
        return ROLE_EDIT;
    if (i == b->ci && j == b->cj)
        return ROLE_CELL;
    if (i == b->hrow)
        return b->hrow_role;
    if (j == b->hcol)
        return ROLE_COL;
    if (b->placeholder)
        return ROLE_DIM;
    if (attn_mat_stage(b->id) == v->s.fresh_stage && !attn_mat_is_param(b->id) && b->id != M_X)
        return ROLE_FRESH;
    return ROLE_NORMAL;
}

/* The title line: name, shape, and whether it is a parameter or a result. */
static void draw_box_title(const View *v, const Box *b, int y, int x, int w)
{
    const Mat *m = &v->s.cur.m[b->id];
    char t[64], line[160];
    const char *role = b->placeholder                ? _("not yet")
                       : attn_mat_is_param(b->id) ? _("parameter")
                       : b->id == M_X              ? _("input")
                                                   : _("result");
    snprintf(line, sizeof line, "%s  %d%s%d", box_title(v, b->id, t, sizeof t), m->rows, sym(v, "×", "x"), m->cols);
    /* No room for the formula (or, for dots, for the formula and "not yet"):
     * the name alone. */
    if (text_width(line) > w || (b->placeholder && text_width(line) + 1 + text_width(role) > w))
        snprintf(line, sizeof line, "%s  %d%s%d", attn_mat_name(b->id), m->rows, sym(v, "×", "x"), m->cols);
    int used = put(y, x, w, line, theme_attr(b->placeholder ? ROLE_DIM : ROLE_TITLE));
    if (used + 1 + text_width(role) <= w) /* the role whole, or not at all */
        put(y, x + used + 1, w - used - 1, role,
            theme_attr(b->placeholder ? ROLE_DIM : attn_mat_is_param(b->id) ? ROLE_PARAM : ROLE_RESULT));
}

/* Column headers: token names for score-like matrices, else 1..n. */
static void draw_box_header(const View *v, const Box *b, int y, int x, int lw, int cw, int c0, int vc)
{
    const Mat *m = &v->s.cur.m[b->id];
    for (int j = c0; j < c0 + vc; j++) {
        char num[16];
        int attr = theme_attr(j == b->hcol || j == b->cj ? ROLE_COL : ROLE_LABEL);
        int cx = x + lw + (j - c0) * cw;
        if (cols_are_tokens(b->id) && j < v->lesson->ntok) {
            int tw = tok_width(v, j) > cw - 1 ? cw - 1 : tok_width(v, j);
            put_lesson(v, y, cx + cw - tw, tw, v->lesson->tokens[j], attr);
        } else {
            snprintf(num, sizeof num, "%d", j + 1);
            put(y, cx + cw - (int)strlen(num), cw, num, attr);
        }
    }
    if (c0 > 0)
        put(y, x + lw - 1, 1, sym(v, "◂", "<"), theme_attr(ROLE_HINT));
    if (c0 + vc < m->cols)
        put(y, x + lw + vc * cw, 1, sym(v, "▸", ">"), theme_attr(ROLE_HINT));
}

static void draw_row_label(const View *v, const Box *b, int y, int x, int lw, int i)
{
    if (b->nolabel) {
        if (b->id >= M_Q && b->id <= M_V && session_overridden(&v->s, b->id, i))
            put(y, x, 1, sym(v, "✎", "*"), theme_attr(ROLE_HAND));
        return;
    }
    bool lit = i == b->hrow || i == b->ci || i == b->lrow;
    int attr = theme_attr(i == b->hrow ? b->hrow_role : lit ? ROLE_ROW : ROLE_LABEL);
    if (lit)
        fill(y, x, lw, attr);
    if (rows_are_tokens(b->id) && i < v->lesson->ntok)
        put_lesson(v, y, x, lw - 2, v->lesson->tokens[i], attr);
    else {
        char num[16];
        snprintf(num, sizeof num, "%*d", lw - 1, i + 1);
        put(y, x, lw, num, attr);
    }
    if (b->id >= M_Q && b->id <= M_V && session_overridden(&v->s, b->id, i))
        put(y, x + lw - 2, 1, sym(v, "✎", "*"), theme_attr(ROLE_HAND));
}

/* The heat shade of cell (i, j) of a heatmap box: weights as they are,
 * scores scaled to the box's range [lo, hi]. */
static Role heat_of(const Box *b, const Mat *m, int i, int j, double lo, double hi)
{
    double w = b->id == M_A ? MAT_AT(m, i, j) : hi > lo ? (MAT_AT(m, i, j) - lo) / (hi - lo) * 0.999 : 0;
    return theme_heat(w);
}

static void draw_cell(const View *v, const Box *b, int y, int x, int cw, int i, int j, double lo, double hi)
{
    static const char *shade[4] = {"░", "▒", "▓", "█"}, *ascii[4] = {" ", ".", "+", "#"};
    FmtOpt fo = {v->lesson->digits, v->ascii};
    char num[64];
    const Mat *m = &v->s.cur.m[b->id];
    if (b->placeholder)
        snprintf(num, sizeof num, "%s", sym(v, "·", "."));
    else
        fmt_num(MAT_AT(m, i, j), &fo, num, sizeof num);
    Role role = cell_role(v, b, i, j);
    int attr = theme_attr(role), nw = text_width(num), d = b->placeholder ? 0 : changed(v, b->id, i, j);
    bool heat = b->heat && !b->placeholder;
    Role shade_role = heat ? heat_of(b, m, i, j, lo, hi) : ROLE_NORMAL;
    /* A heatmap shades the cell behind the number in colour; in mono a
     * shade character stands before it, where no change mark is. */
    bool plain = role == ROLE_NORMAL || role == ROLE_FRESH;
    if (heat && !theme_is_mono() && plain)
        attr = theme_attr(shade_role) | (role == ROLE_FRESH ? A_BOLD : 0);
    /* A change mark needs a blank column before it, or it reads as part of
     * the number to its left: without one, colour says it instead (mono
     * has no colour, so the mark stays; its shade character goes). */
    bool free = cw - nw - 1 >= 1, room = free || theme_is_mono();
    Role dr = d > 0 ? ROLE_UP : ROLE_DOWN;
    fill(y, x, cw, attr); /* whole cells: a highlighted row is one bar, with no attribute churn */
    put(y, x + cw - nw, nw, num, d && !room && plain ? theme_attr(dr) : attr);
    if (d && room)
        put(y, x + cw - nw - 1, 1, d > 0 ? sym(v, "▲", "^") : sym(v, "▼", "v"), theme_attr(dr));
    else if (heat && theme_is_mono() && free)
        put(y, x + cw - nw - 1, 1, (v->ascii ? ascii : shade)[shade_role - ROLE_HEAT1], attr);
}

/* The range the heat shades span: weights as they are (0 to 1), scores
 * between the smallest and largest finite score. */
static void heat_range(const Mat *m, MatId id, double *lo, double *hi)
{
    *lo = 0;
    *hi = 1;
    if (id == M_A)
        return;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 0; k < m->rows * m->cols; k++)
        if (isfinite(m->v[k])) {
            *lo = m->v[k] < *lo ? m->v[k] : *lo;
            *hi = m->v[k] > *hi ? m->v[k] : *hi;
        }
}

/* Where each matrix was drawn in the last frame, for mouse clicks. */
typedef struct {
    Box b;
    int y, x, lw, cw, r0, c0, vr, vc, step;
} Hit;

/* Rows per matrix row: 2 in presentation mode when there is room. */
static int row_step = 1;

static struct {
    int n;
    Hit at[MAX_BANDS * MAX_BOXES];
} hits;

static void remember(const Box *b, int y, int x, int lw, int cw, int r0, int c0, int vr, int vc)
{
    if (hits.n < MAX_BANDS * MAX_BOXES)
        hits.at[hits.n++] = (Hit){*b, y, x, lw, cw, r0, c0, vr, vc, row_step};
}

/* Big focus marks for presentation mode: an arrow at the focused row and
 * one above the focused column. */
static void draw_marks(const View *v, const Box *b, int y, int x, int lw, int cw, int r0, int c0, int vc)
{
    int j = b->cj >= 0 ? b->cj : b->hcol, i = b->ci >= 0 ? b->ci : b->hrow;
    if (j >= c0 && j < c0 + vc)
        put(y, x + lw + (j - c0) * cw + cw - 3, 1, sym(v, "▼", "v"), theme_attr(ROLE_COL));
    if (i >= r0 && x > 0)
        put(y + 2 + (i - r0) * row_step, x - 1, 1, sym(v, "▶", ">"), theme_attr(ROLE_ROW));
}

/* The first row shown by the last box drawn: boxes whose rows are labelled
 * by the box to their left (nolabel) must show the same rows. */
static int band_r0;

/* Draw one box in a w x h area. */
static void draw_box(const View *v, const Box *b, int y, int x, int w, int h)
{
    const Mat *m = &v->s.cur.m[b->id];
    int top = v->present ? 3 : 2; /* title, (marks,) column header */
    int lw = label_width(v, b->id, m, b->nolabel), cw = cell_width(v, b->id);
    int vc = (w - lw - 1) / cw, vr = (h - top + row_step - 1) / row_step;
    vc = vc < 1 ? 1 : vc > m->cols ? m->cols : vc;
    vr = vr < 1 ? 1 : vr > m->rows ? m->rows : vr;
    int c0 = window(m->cols, vc, b->cj >= 0 ? b->cj : b->hcol);
    int r0 = b->nolabel ? band_r0 : window(m->rows, vr, b->ci >= 0 ? b->ci : b->hrow >= 0 ? b->hrow : b->lrow);
    if (!b->nolabel)
        band_r0 = r0;
    else if (r0 + vr > m->rows)
        r0 = band_r0 = m->rows - vr > 0 ? m->rows - vr : 0;
    draw_box_title(v, b, y, x, w);
    if (v->present)
        draw_marks(v, b, y + 1, x, lw, cw, r0, c0, vc);
    draw_box_header(v, b, y + top - 1, x, lw, cw, c0, vc);
    remember(b, y + top, x, lw, cw, r0, c0, vr, vc);
    double lo, hi;
    heat_range(m, b->id, &lo, &hi);
    for (int i = r0; i < r0 + vr; i++) {
        int ry = y + top + (i - r0) * row_step;
        draw_row_label(v, b, ry, x, lw, i);
        for (int j = c0; j < c0 + vc; j++)
            draw_cell(v, b, ry, x + lw + (j - c0) * cw, cw, i, j, lo, hi);
    }
    int edge = x + lw + vc * cw; /* scroll marks go right of the cells */
    if (r0 > 0)
        put(y + top, edge, 1, sym(v, "▴", "^"), theme_attr(ROLE_HINT));
    if (r0 + vr < m->rows)
        put(y + top + (vr - 1) * row_step, edge, 1, sym(v, "▾", "v"), theme_attr(ROLE_HINT));
}

/* ---- bands ------------------------------------------------------------------ */

static int band_rows(const View *v, const Band *b)
{
    int r = 0;
    for (int k = 0; k < b->n; k++)
        r = v->s.cur.m[b->box[k].id].rows > r ? v->s.cur.m[b->box[k].id].rows : r;
    return r;
}

/* Boxes after the first whose rows are the same tokens share its labels,
 * which then light up the row any of them works on. */
static void share_labels(const View *v, Band *b)
{
    for (int k = 1; k < b->n; k++) {
        const Box *f = &b->box[0], *x = &b->box[k];
        b->box[k].nolabel = rows_are_tokens(f->id) && rows_are_tokens(x->id) &&
                            v->s.cur.m[f->id].rows == v->s.cur.m[x->id].rows;
        if (b->box[k].nolabel && b->box[0].lrow < 0 && (x->ci >= 0 || (x->hrow >= 0 && x->hrow_role == ROLE_ROW)))
            b->box[0].lrow = x->ci >= 0 ? x->ci : x->hrow;
    }
}

#define BAND_GAP 2

/* The columns a band's boxes want side by side, each in need[] (may be
 * NULL), at the padding in cell_pad; the room for them is in *room. */
static int band_need(const View *v, Band *b, int extra, int *need, int *room)
{
    int total = 0, one;
    share_labels(v, b);
    for (int k = 0; k < b->n; k++) {
        total += one = box_need(v, &b->box[k]);
        if (need)
            need[k] = one;
    }
    *room = COLS - 2 - extra - BAND_GAP * (b->n - 1);
    return total;
}

/* The columns left over beside a band at its narrowest (no cell padding);
 * negative when its columns must scroll. */
static int band_spare(const View *v, Band *b)
{
    int room, pad = cell_pad;
    cell_pad = 0;
    int need = band_need(v, b, 0, NULL, &room), spare = room - need;
    cell_pad = pad;
    return spare;
}

/* Lay the boxes of a band side by side in `w` columns, shrinking the widest
 * first when they do not all fit, and draw them. */
static void draw_band(const View *v, Band *b, int y, int h, int extra)
{
    int need[MAX_BOXES], total = 0, w = 0;
    for (cell_pad = 1; cell_pad > 0; cell_pad--)
        if ((total = band_need(v, b, extra, need, &w)) <= w)
            break;
    if (cell_pad == 0)
        total = band_need(v, b, extra, need, &w);
    /* Who gives way, the widest first down to the next widest: dots first,
     * then the boxes no highlight is in, then the inputs (to half their
     * width), then all alike; none below one column of cells. */
    int rank[MAX_BOXES], one[MAX_BOXES], half[MAX_BOXES];
    for (int k = 0; k < b->n; k++) {
        const Box *x = &b->box[k];
        rank[k] = x->placeholder ? 0 : x->ci >= 0 ? 3 : x->hrow >= 0 || x->hcol >= 0 ? 2 : 1;
        one[k] = one_column(v, x);
        half[k] = need[k] / 2 > one[k] ? need[k] / 2 : one[k];
    }
    for (int pass = 0; pass < 4 && total > w; pass++)
        while (total > w) {
            int big = -1, floor[MAX_BOXES];
            for (int k = 0; k < b->n; k++) {
                floor[k] = pass == 2 && rank[k] == 2 ? half[k] : one[k];
                if (rank[k] <= pass && need[k] > floor[k] && (big < 0 || need[k] > need[big]))
                    big = k;
            }
            if (big < 0)
                break;
            int next = floor[big]; /* cut the widest down to the next widest */
            for (int k = 0; k < b->n; k++)
                if (k != big && rank[k] <= pass && need[k] > floor[k] && need[k] > next)
                    next = need[k];
            int cut = need[big] - next > 0 ? need[big] - next : 1;
            cut = cut < total - w ? cut : total - w;
            need[big] -= cut;
            total -= cut;
        }
    int x = 1;
    for (int k = 0; k < b->n; k++) {
        draw_box(v, &b->box[k], y, x, need[k], h);
        x += need[k] + BAND_GAP;
    }
}

/* ---- the focused row's weights as bars ----------------------------------- */

/* The widest token among A's columns, the keys the bars are labelled by. */
static int keys_width(const View *v)
{
    int lw = 0;
    for (int j = 0; j < v->s.cur.m[M_A].cols; j++)
        lw = tok_width(v, j) > lw ? tok_width(v, j) : lw;
    return lw;
}

/* The columns of a bar's number: "0.313 -> 0.873" after an edit. */
#define BARS_NUMW(digits) (2 * ((digits) + 2) + 3)

static void draw_bar(const View *v, int y, int x, int bw, double w, Role r)
{
    static const char *part[8] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (!(w >= 0))
        w = 0;
    if (w > 1)
        w = 1;
    int eighths = (int)lround(w * bw * 8), k;
    char buf[FMT_LINE] = "";
    for (k = 0; k < eighths / 8; k++)
        strcat(buf, v->ascii ? "#" : "█");
    if (!v->ascii)
        strcat(buf, part[eighths % 8]);
    put(y, x, bw, buf, theme_attr(r));
}

/* Bars for row fi of A: one per key, with before -> after after an edit. */
static void draw_bars(const View *v, int y, int x, int w, int h)
{
    const Attn *a = &v->s.cur, *b = &v->s.before;
    FmtOpt fo = {v->lesson->digits, v->ascii};
    char t[256], n1[48], n2[48];
    int n = a->m[M_A].cols, i = v->fi;
    /* The bars on A's data rows, below its column header, when they fit. */
    int top = v->present ? 3 : 2, step = row_step;
    if (top + (n - 1) * step >= h) {
        top = 1;
        step = 1;
    }
    int r0 = window(n, (h - top + step - 1) / step, v->fj);
    bool show_before = v->s.has_before && b->reached >= STAGE_SOFTMAX && mat_same_shape(&a->m[M_A], &b->m[M_A]);
    snprintf(t, sizeof t, _("attention of row %d"), i + 1);
    put(y, x, w, t, theme_attr(ROLE_TITLE));
    int lw = keys_width(v), numw = BARS_NUMW(fo.digits), bw = w - lw - 2 - numw; /* one scale, edited or not */
    if (bw < 4)
        return;
    for (int j = r0; j < n && top + (j - r0) * step < h; j++) {
        int yy = y + top + (j - r0) * step;
        double now = MAT_AT(&a->m[M_A], i, j);
        put_lesson(v, yy, x, lw, v->lesson->tokens[j], theme_attr(j == v->fj ? ROLE_COL : ROLE_LABEL));
        draw_bar(v, yy, x + lw + 1, bw, now, ROLE_BAR);
        fmt_num(now, &fo, n2, sizeof n2);
        if (show_before && changed(v, M_A, i, j)) {
            fmt_num(MAT_AT(&b->m[M_A], i, j), &fo, n1, sizeof n1);
            snprintf(t, sizeof t, "%*s %s %*s", fo.digits + 2, n1, sym(v, "→", "->"), fo.digits + 2, n2);
        } else {
            snprintf(t, sizeof t, "%s", n2);
        }
        int tw = text_width(t) < numw ? text_width(t) : numw; /* right-aligned, as in a matrix */
        put(yy, x + lw + 2 + bw + numw - tw, tw, t, theme_attr(changed(v, M_A, i, j) ? ROLE_UP : ROLE_NORMAL));
    }
}

/* ---- header, ribbon, text panels -------------------------------------------- */

/* Cut line (safe text, FMT_LINE bytes) to w columns, ending in " …". */
static void ellipsize(const View *v, char *line, int w)
{
    const char *more = sym(v, " …", " ...");
    snprintf(line + text_fit(line, w - text_width(more)), 8, "%s", more);
}

static void draw_header(const View *v)
{
    char right[128];
    fill(0, 0, COLS, theme_attr(ROLE_NORMAL));
    snprintf(right, sizeof right, "%d/%d · %s %s · %s", v->s.step + 1, session_steps(&v->s), _("scale"),
             v->s.cur.scale == SCALE_SQRT_DK ? sym(v, "÷√d", "/sqrt(d)") : _("none"),
             v->s.cur.softmax == SOFTMAX_STABLE ? _("stable") : _("naive"));
    int rw = text_width(right);
    int used = put(0, 1, COLS - rw - 4, "qkvtutor · ", theme_attr(ROLE_TITLE));
    put_lesson(v, 0, 1 + used, COLS - rw - 4 - used, text_get(&v->lesson->title, v->lang), theme_attr(ROLE_TITLE));
    put(0, COLS - rw - 1, rw, right, theme_attr(ROLE_HINT));
}

static void draw_ribbon(const View *v, int y)
{
    static const char *utf[] = {"", "1 X", "2 Q K V", "3 QKᵀ/√d", "4 softmax", "5 A·V"};
    static const char *asc[] = {"", "1 X", "2 Q K V", "3 QK^T/sqrt(d)", "4 softmax", "5 A*V"};
    int st = session_stage(&v->s), x = 1;
    for (int k = 1; k <= STAGE_COUNT; k++) {
        char item[64];
        snprintf(item, sizeof item, k == st ? "[%s]" : " %s ", v->ascii ? asc[k] : utf[k]);
        Role r = k == st ? ROLE_RIBBON_CUR : k < st ? ROLE_RIBBON : ROLE_DIM;
        x += put(y, x, COLS - x, item, theme_attr(r));
        if (k < STAGE_COUNT)
            x += put(y, x, COLS - x, sym(v, " ▸ ", " > "), theme_attr(ROLE_DIM));
    }
}

/* Wrap `text` (safe) at w columns into up to max lines, arithmetic between
 * its terms (fmt_wrap); returns the count. */
static int wrap(const char *text, int w, char lines[][FMT_LINE], int max, bool terms)
{
    int n = 0;
    for (const char *p = text; *p && n < max;) {
        size_t len = fmt_wrap(p, w, terms);
        snprintf(lines[n++], FMT_LINE, "%.*s", (int)len, p);
        for (p += len; *p == ' '; p++) {}
    }
    return n;
}

static int explain_lines(const View *v, int w, char lines[][FMT_LINE], int max)
{
    Explain e;
    char raw[FMT_MAX_LINES][FMT_LINE];
    FmtOpt fo = {v->lesson->digits, v->ascii};
    int i = v->mode == MODE_EDIT ? v->ei : v->fi, j = v->mode == MODE_EDIT ? v->ej : v->fj;
    if (!explain_cell(&v->s.cur, view_focus_mat(v), i, j, &e))
        return 0;
    int n = fmt_explain(&e, &fo, raw, FMT_MAX_LINES), out = 0;
    for (int k = 0; k < n && out < max; k++)
        out += wrap(raw[k], w, lines + out, max - out, true);
    return out;
}

static int say_lines(const View *v, int w, char lines[][FMT_LINE], int max)
{
    char *safe = fmt_prose(text_get(&session_step(&v->s)->say, v->lang), v->ascii);
    int n = safe ? wrap(safe, w, lines, max, false) : 0;
    free(safe);
    return n;
}

/* What to say about a row of A that is not finite (see attn_row_trouble). */
static const char *trouble_text(AttnTrouble t)
{
    switch (t) {
    case ATTN_SCORES_NOT_FINITE:
        return _("S has values that are not finite, so A cannot be computed.");
    case ATTN_EXP_OVERFLOW:
        return _("exp overflowed: inf/NaN. Press m: the stable softmax subtracts the row max.");
    case ATTN_EXP_UNDERFLOW:
        return _("every exp underflowed to 0, so 0/0 = NaN. Press m: the stable softmax subtracts the row max.");
    default:
        return _("A has values that are not finite.");
    }
}

/* A hint for what is on screen when there is no message: overflow first. */
static void status_hint(const View *v, char *buf, size_t len, Role *role)
{
    const Attn *a = &v->s.cur;
    *role = ROLE_HINT;
    buf[0] = '\0';
    for (int i = 0; i < a->m[M_A].rows; i++) {
        AttnTrouble t = attn_row_trouble(a, i);
        if (t != ATTN_FINE) {
            snprintf(buf, len, "%s", trouble_text(t));
            *role = ROLE_ERROR;
            return;
        }
    }
    for (MatId m = M_Q; m <= M_V; m++)
        for (int i = 0; i < a->m[m].rows; i++)
            if (a->override[m - M_Q][i]) {
                if (v->s.nedits == 0) /* the lesson's own do: or overrides */
                    snprintf(buf, len, _("%s %s row %d set by the lesson, no longer X%sW"), sym(v, "✎", "*"),
                             attn_mat_name(m), i + 1, sym(v, "·", "*"));
                else
                    snprintf(buf, len, _("%s %s row %d set by hand, no longer X%sW (u undoes, r resets)"),
                             sym(v, "✎", "*"), attn_mat_name(m), i + 1, sym(v, "·", "*"));
                return;
            }
}

/* The status line: a message wins over the standing hint, unless the hint
 * is a warning (an overflow) and the message is not. Empty when neither. */
static Role status_line(const View *v, char *line, size_t len)
{
    Role role;
    status_hint(v, line, len, &role);
    if (v->msg[0] && (role != ROLE_ERROR || v->msg_role == ROLE_ERROR)) {
        snprintf(line, len, "%s", v->msg);
        role = v->msg_role;
    }
    return role;
}

/* The status line (when there is one) above the key bar. */
static void draw_bottom(View *v, const char *status, Role role)
{
    char line[FMT_LINE];
    if (status[0]) { /* too long for the line: cut at a character, marked … */
        char cut[FMT_LINE];
        snprintf(cut, sizeof cut, "%s", status);
        if (text_width(cut) > COLS - 2)
            ellipsize(v, cut, COLS - 2);
        put(LINES - (v->present ? 1 : 2), 1, COLS - 2, cut, theme_attr(role));
    }
    if (v->present)
        return;
    keys_bar(v, line, sizeof line);
    fill(LINES - 1, 0, COLS, theme_attr(ROLE_KEYBAR));
    put(LINES - 1, 0, COLS, line, theme_attr(ROLE_KEYBAR));
}

static void draw_too_small(const View *v)
{
    char msg[256], lines[8][FMT_LINE];
    snprintf(msg, sizeof msg, _("The terminal is %dx%d; qkvtutor needs at least %dx%d. Enlarge it, or press q."),
             COLS, LINES, VIEW_MIN_COLS, VIEW_MIN_LINES);
    if (session_dirty(&v->s))
        snprintf(msg, sizeof msg, _("The terminal is %dx%d; qkvtutor needs at least %dx%d. Enlarge it: "
                                    "you have unsaved edits."), COLS, LINES, VIEW_MIN_COLS, VIEW_MIN_LINES);
    int n = wrap(msg, COLS > 2 ? COLS - 2 : 1, lines, 8, false);
    for (int k = 0; k < n && k < LINES; k++)
        put(k, 1, COLS - 1, lines[k], theme_attr(ROLE_ERROR));
}

/* Draw text lines with one attribute, starting at row y; returns rows used. */
static int draw_lines(char lines[][FMT_LINE], int n, int y, int attr)
{
    for (int k = 0; k < n; k++)
        put(y + k, 1, COLS - 2, lines[k], attr);
    return n;
}

/* Edit mode shows the matrix being edited with its neighbours above, and
 * what it feeds below: the stage's result once scores exist. */
static int edit_bands(const View *v, Band *b)
{
    Band st[2];
    stage_bands(v, st);
    memset(b, 0, sizeof(Band) * 2);
    MatId e = v->emat;
    if (e >= M_Q && e <= M_V)
        for (MatId m = M_Q; m <= M_V; m++)
            b[0].box[b[0].n++] = mkbox(m, m == e ? v->ei : -1, ROLE_ROW, -1, -1, -1);
    else {
        b[0].box[b[0].n++] = mkbox(M_X, e == M_X ? v->ei : -1, ROLE_ROW, -1, -1, -1);
        b[0].box[b[0].n++] = mkbox(e == M_X ? M_WQ : e, e != M_X ? v->ei : -1, ROLE_ROW, -1, -1, -1);
    }
    if (session_stage(&v->s) >= STAGE_SCORES)
        b[1] = st[1];
    else if (e >= M_Q && e <= M_V)
        return 1;
    else
        for (MatId m = M_Q; m <= M_V; m++)
            b[1].box[b[1].n++] = mkbox(m, -1, ROLE_ROW, -1, -1, -1);
    return 2;
}

/* On a tall screen the board keeps X and the Ws in view once S A O have
 * taken their place: between Q K V and S A O, all three Ws when they fit,
 * else Wq and Wk. Returns 1 when a band was added. */
static int context_band(const View *v, Band *b, int n)
{
    int rows = 0;
    if (session_stage(&v->s) < STAGE_SCORES || n != 2)
        return 0;
    for (int k = 0; k < n; k++)
        rows += band_rows(v, &b[k]) + 3;
    Band c = {0};
    c.box[c.n++] = mkbox(M_X, -1, ROLE_ROW, -1, -1, -1);
    for (MatId w = M_WQ; w <= M_WV; w++)
        c.box[c.n++] = mkbox(w, -1, ROLE_ROW, -1, -1, -1);
    if (band_spare(v, &c) < 0)
        c.n--;
    if (band_spare(v, &c) < 0 || rows + band_rows(v, &c) + 3 + 3 + 14 > LINES)
        return 0;
    b[2] = b[1];
    b[1] = c;
    return 1;
}

/* The bands to draw: the stage's, edit mode's, or in presentation mode
 * only the band holding the focused cell. */
static int layout_bands(const View *v, Band *b)
{
    if (v->mode == MODE_EDIT)
        return edit_bands(v, b);
    if (!v->present) {
        int n = board_bands(v, b);
        return n + context_band(v, b, n);
    }
    stage_bands(v, b);
    for (int k = 0; k < b[1].n; k++)
        if (b[1].box[k].ci >= 0) {
            b[0] = b[1];
            return 1;
        }
    return 1;
}

/* Does this band show A as the matrix being worked on (the softmax stage,
 * or the result of an edit), so the focused row's bars go beside it? */
static bool band_has_a(const View *v, const Band *b)
{
    for (int k = 0; k < b->n; k++)
        if (b->box[k].id == M_A && !b->box[k].placeholder && (b->box[k].ci >= 0 || v->mode == MODE_EDIT))
            return true;
    return false;
}

/* The narrowest the bars may be: the keys' names, a short bar and room
 * for "before -> after"; and the title. */
static int bars_min(const View *v)
{
    char t[64];
    snprintf(t, sizeof t, _("attention of row %d"), v->fi + 1);
    int least = keys_width(v) + 2 + 4 + BARS_NUMW(v->lesson->digits) + 1;
    return least > text_width(t) + 1 ? least : text_width(t) + 1;
}

/* The columns the focused row's bars get beside this band, 0 for none:
 * half the screen when the band fits beside it, else a placeholder (O,
 * not yet computed) gives its room to the bars. */
static int bars_room(const View *v, Band *b)
{
    if (!band_has_a(v, b) || v->s.cur.reached < STAGE_SOFTMAX)
        return 0;
    int half = COLS / 2 - 4, spare = band_spare(v, b);
    if (spare >= half)
        return half;
    Band less = *b;
    while (less.n > 1 && less.box[less.n - 1].placeholder)
        less.n--;
    spare = band_spare(v, &less);
    /* Short of room, the boxes beside A may scroll their columns for them. */
    int give = 0;
    for (int k = 0; k < less.n; k++)
        if (less.box[k].id != M_A)
            give += box_need(v, &less.box[k]) / 2;
    int least = bars_min(v);
    if (less.n == b->n || spare + give < least)
        return 0;
    *b = less;
    return spare < least ? least : spare < half ? spare : half;
}

/* Draw the bands from row y, giving them at most `avail` rows; returns the
 * row after them. */
static int draw_matrices(View *v, Band *bands, int nb, int y, int avail)
{
    int rows[MAX_BANDS] = {0}, need = 0, top = v->present ? 3 : 2;
    for (int k = 0; k < nb; k++)
        need += rows[k] = band_rows(v, &bands[k]);
    row_step = v->present && 2 * need + (top + 1) * nb <= avail ? 2 : 1;
    if (row_step == 2)
        for (int k = 0; k < nb; k++)
            need += rows[k], rows[k] *= 2;
    /* Shrink the tallest band until everything fits; matrices then scroll. */
    for (;;) {
        int big = 0;
        for (int k = 1; k < nb; k++)
            big = rows[k] > rows[big] ? k : big;
        if (need + (top + 1) * nb <= avail || rows[big] <= 2)
            break;
        rows[big]--;
        need--;
    }
    hits.n = 0;
    for (int k = 0; k < nb; k++) {
        int extra = bars_room(v, &bands[k]);
        bool bars = extra > 0;
        draw_band(v, &bands[k], y, rows[k] + top, extra);
        if (bars)
            draw_bars(v, y, COLS - extra, extra - 1, rows[k] + top);
        y += rows[k] + top + 1;
    }
    return y;
}

void draw_frame(View *v)
{
    erase();
    memset(widest, 0, sizeof widest);
    hits.n = 0;
    if (COLS < VIEW_MIN_COLS || LINES < VIEW_MIN_LINES) {
        draw_too_small(v);
        return;
    }
    if (v->mode == MODE_HELP) {
        keys_draw_help(v);
        return;
    }
    view_clamp_focus(v);
    draw_header(v);
    draw_ribbon(v, 1);
    Band bands[MAX_BANDS];
    char status[FMT_LINE];
    Role srole = status_line(v, status, sizeof status);
    /* The key bar and the status line; an empty status line lends its row. */
    int nb = layout_bands(v, bands), bottom = (v->present ? 0 : 1) + (status[0] ? 1 : 0);
    int gap = v->present ? 2 : 1;
    static char ari[MAX_LINES][FMT_LINE], say[MAX_LINES][FMT_LINE];
    int na = explain_lines(v, COLS - 2, ari, 6), ns = say_lines(v, COLS - 2, say, 6);
    /* The matrices come first: narration gives up lines (down to two, the
     * last marked …) before the matrices have to scroll. */
    int full = 0, top = v->present ? 3 : 2;
    for (int k = 0; k < nb; k++)
        full += band_rows(v, &bands[k]) + top + 1;
    int text = na + (na ? gap : 0), y0 = 3;
    /* Short of room, blank lines go first: the one below the ribbon, then
     * the one between the arithmetic and the narration. */
    if (!v->present && y0 + full + text + ns + bottom > LINES)
        y0 = 2;
    if (!v->present && na && y0 + full + text + ns + bottom > LINES) {
        gap = 0;
        text = na;
    }
    while (ns > 2 && y0 + full + text + ns + bottom > LINES) {
        ns--;
        ellipsize(v, say[ns - 1], COLS - 2);
    }
    int y = draw_matrices(v, bands, nb, y0, LINES - y0 - bottom - text - ns);
    y += draw_lines(ari, na, y, theme_attr(ROLE_ARITH));
    y += na ? gap : 0;
    int say_attr = theme_attr(ROLE_SAY) | (v->present ? A_BOLD : 0);
    draw_lines(say, ns > LINES - bottom - y ? LINES - bottom - y : ns, y, say_attr);
    draw_bottom(v, status, srole);
}

bool view_hit(const View *v, int y, int x, MatId *id, int *i, int *j, int *role)
{
    for (int k = 0; k < hits.n; k++) {
        const Hit *h = &hits.at[k];
        int c = (x - h->x - h->lw) / h->cw, r = (y - h->y) / h->step;
        if (h->b.placeholder || x < h->x + h->lw || y < h->y || r >= h->vr || c < 0 || c >= h->vc)
            continue;
        *id = h->b.id;
        *i = h->r0 + r;
        *j = h->c0 + c;
        *role = h->b.ci >= 0 ? 0 : h->b.hrow_role == ROLE_COL ? 2 : h->b.hcol >= 0 ? 3 : 1;
        return true;
    }
    return false;
}

/* ---- focus ------------------------------------------------------------------- */

void view_clamp_focus(View *v)
{
    const Attn *a = &v->s.cur;
    MatId f = view_focus_mat(v);
    int rows = a->m[f].rows, cols = a->m[f].cols;
    v->fi = v->fi >= rows ? rows - 1 : v->fi < 0 ? 0 : v->fi;
    v->fj = v->fj >= cols ? cols - 1 : v->fj < 0 ? 0 : v->fj;
}

void view_focus_from_step(View *v)
{
    const Focus *f = &session_step(&v->s)->focus;
    if (f->kind == FOCUS_NONE)
        return;
    v->fi = f->i;
    v->fj = f->kind == FOCUS_CELL ? f->j : 0;
    if (f->mat >= M_Q && f->mat <= M_V)
        v->fmat = f->mat;
}
