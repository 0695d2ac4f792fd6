/* layout.c - one frame's plan: header, ribbon, matrices, arithmetic,
 * narration, status line and key bar (see layout.h).
 *
 * Reading down the screen: the title and step, the stage ribbon, the
 * matrices of the stage in up to three bands, the arithmetic of the
 * focused cell, the narration, the status lines and the key bar. The
 * matrices a stage's arithmetic quotes are "operands": the rows and
 * columns it uses never scroll away while anything else can give way.
 * Widths are display columns (text_width), never bytes. Every figure of a
 * frame lives in a Ctx on the stack or in the Plan. */
#include "layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/explain.h"
#include "../lesson/fmt.h"
#include "../lesson/i18n.h"
#include "../lesson/train.h"
#include "../lesson/live.h"

#define MAX_BOXES 4
#define MAX_BANDS 4
#define MAX_LINES 16
#define BAND_GAP 2

/* A matrix to show and what is highlighted in it. */
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
    bool quoted;            /* the arithmetic quotes its highlighted row/column whole */
    bool all;               /* the arithmetic quotes every cell (a row focus's operand) */
    bool panel;             /* quoted only by the training panel (W_Q, W_K): gives way to it */
} Box;

typedef struct {
    int n;
    Box box[MAX_BOXES];
} Band;

/* One frame being laid out. */
typedef struct {
    const LayoutIn *in;
    Plan *p;
    const Session *s;
    const Lesson *l;
    const Attn *a;
    int cols, rows;
    int pad;                /* extra column per cell when the band has room */
    int widest[M_COUNT];    /* the widest number per matrix, 0: not yet known */
    int row_step;           /* rows per matrix row: 2 in presentation mode with room */
    int top;                /* rows above a box's cells: title, (marks,) column header */
    int band_r0;            /* the first row shown by the last labelled box */
    bool rows_cut;          /* the band being laid out scrolls its rows */
    int gap;                /* blank columns between boxes: BAND_GAP, or 1 beside tight bars */
    bool noted;             /* the arithmetic says "(≈: computed before rounding)" already */
} Ctx;

Role role_heat(double w)
{
    if (!(w >= 0.25)) /* also NaN */
        return ROLE_HEAT1;
    if (w < 0.5)
        return ROLE_HEAT2;
    return w < 0.75 ? ROLE_HEAT3 : ROLE_HEAT4;
}

/* ---- the plan's storage ----------------------------------------------------- */

void plan_init(Plan *p)
{
    memset(p, 0, sizeof *p);
}

void plan_free(Plan *p)
{
    free(p->run);
    free(p->text);
    free(p->cell);
    plan_init(p);
}

const char *plan_text(const Plan *p, int off)
{
    return p->text + off;
}

static void plan_reset(Plan *p)
{
    p->too_small = false;
    p->nrun = p->ntext = p->ncell = p->nbox = p->nblock = p->nomitted = 0;
    p->xmat = M_COUNT;
    p->xi = p->xj = -1;
    p->oom = false;
}

/* Grow *buf (elements of size sz) to hold need; false when out of memory. */
static bool grow(void **buf, int *cap, int need, size_t sz)
{
    if (need <= *cap)
        return true;
    int n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*buf, (size_t)n * sz);
    if (!q)
        return false;
    *buf = q;
    *cap = n;
    return true;
}

/* Keep n bytes of s in the plan's text; returns the offset, -1 when out of memory. */
static int keep_text(Plan *p, const char *s, size_t n)
{
    if (!grow((void **)&p->text, &p->captext, p->ntext + (int)n + 1, 1)) {
        p->oom = true;
        return -1;
    }
    int off = p->ntext;
    memcpy(p->text + off, s, n);
    p->text[off + (int)n] = '\0';
    p->ntext += (int)n + 1;
    return off;
}

/* Put s (already safe) at (y, x), clipped to w columns and the screen.
 * Returns the columns used. */
static int put_b(Ctx *c, int y, int x, int w, const char *s, Role r, bool bold)
{
    if (w <= 0 || y < 0 || y >= c->rows || x < 0 || x >= c->cols)
        return 0;
    if (x + w > c->cols)
        w = c->cols - x;
    size_t n = text_fit(s, w);
    if (n == 0)
        return 0;
    Plan *p = c->p;
    int off = keep_text(p, s, n);
    if (off < 0 || !grow((void **)&p->run, &p->caprun, p->nrun + 1, sizeof *p->run)) {
        p->oom = true;
        return 0;
    }
    int used = text_width_n(s, n);
    p->run[p->nrun++] = (PlanRun){y, x, used, r, bold, off, (int)n};
    return used;
}

static int put(Ctx *c, int y, int x, int w, const char *s, Role r)
{
    return put_b(c, y, x, w, s, r, false);
}

/* w blank columns in role r (a highlighted label, a cell, the key bar). */
static void fill_b(Ctx *c, int y, int x, int w, Role r, bool bold)
{
    static const char sp[] = "                                                                ";
    while (w > 0) {
        int k = w < (int)sizeof sp - 1 ? w : (int)sizeof sp - 1;
        put_b(c, y, x, k, sp, r, bold);
        x += k;
        w -= k;
    }
}

static void fill(Ctx *c, int y, int x, int w, Role r)
{
    fill_b(c, y, x, w, r, false);
}

/* Lesson text: sanitised first, so it can never reach the terminal raw. */
static int put_lesson(Ctx *c, int y, int x, int w, const char *s, Role r)
{
    char safe[FMT_LINE];
    text_sanitize(s, safe, sizeof safe, c->in->ascii);
    return put(c, y, x, w, safe, r);
}

static const char *sym(const Ctx *c, const char *utf8, const char *ascii)
{
    return c->in->ascii ? ascii : utf8;
}

static int tok_width(const Ctx *c, int i)
{
    char safe[256];
    text_sanitize(lesson_token(c->l, c->a, i), safe, sizeof safe, c->in->ascii);
    int w = text_width(safe);
    return w > 8 ? 8 : w;
}

static PlanBlock *add_block(Ctx *c, BlockKind k, int y, int x, int w, int h, int want, bool cut)
{
    Plan *p = c->p;
    if (p->nblock >= PLAN_MAX_BLOCKS)
        return NULL;
    p->block[p->nblock] = (PlanBlock){k, y, x, w, h, want, cut};
    return &p->block[p->nblock++];
}

/* ---- which matrices a stage shows ----------------------------------------- */

/* The head's matrix shown for base (M_Q .. M_O) at stages 3-5, the base
 * itself with one head (attn_shown); H() is the same for the Ctx. */
static MatId hm(const Session *s, MatId base)
{
    return attn_shown(&s->cur, base, s->head);
}
#define H(c, base) hm((c)->s, (base))

static Box mkbox(MatId id, int hrow, Role hrole, int hcol, int ci, int cj)
{
    Box b = {id, false, hrow, hrole, hcol, ci, cj, false, false, -1, false, false, false};
    return b;
}

static Box operand(MatId id, int hrow, Role hrole, int hcol)
{
    Box b = mkbox(id, hrow, hrole, hcol, -1, -1);
    b.quoted = true;
    return b;
}

/* A result on the board: the focused cell, its row label and column
 * header; the rows and columns it came from are highlighted in its inputs. */
static Box result_box(MatId id, int i, int j)
{
    return mkbox(id, -1, ROLE_ROW, -1, i, j);
}

/* A row focus: the result's whole row is lit and quoted; the operand
 * whose columns (or rows) the row's cells each read is quoted whole. */
static Box row_result(Box b)
{
    b.hrow = b.ci;
    b.hrow_role = ROLE_ROW;
    b.cj = -1;
    b.hcol = -1;
    b.quoted = true;
    return b;
}

static Box all_of(Box b)
{
    b.hcol = -1;
    if (b.hrow_role == ROLE_COL)
        b.hrow = -1;
    b.quoted = true;
    b.all = true;
    return b;
}

/* Apply a row focus to the boxes of a band: the result (focused cell) and
 * the operand each cell of the row reads a different part of (W at stage 2,
 * K at stage 3, V at stage 5). */
static void row_focus(const Ctx *c, Band *b, int n)
{
    if (!c->in->frow || c->in->mode == LAYOUT_EDIT)
        return;
    int st = session_stage(c->s);
    for (int k = 0; k < n; k++)
        for (int m = 0; m < b[k].n; m++) {
            Box *x = &b[k].box[m];
            if (x->ci >= 0 && !x->placeholder)
                *x = row_result(*x);
            else if (x->quoted && ((st == STAGE_QKV && attn_mat_is_param(x->id)) || (st == STAGE_SCORES && x->id == M_K) ||
                                   (st == STAGE_OUTPUT && x->id == M_V)))
                *x = all_of(*x);
        }
}

static Box heat(Box b)
{
    b.heat = true;
    return b;
}

static void add(Band *b, Box x)
{
    if (b->n < MAX_BOXES)
        b->box[b->n++] = x;
}

/* The bands that follow a focus (f's cell i, j at stage 2): the stage's
 * operands above, its result below (presentation and edit mode). */
static int stage_bands_at(const Ctx *c, Band *b, MatId f, int i, int j)
{
    int st = session_stage(c->s);
    memset(b, 0, sizeof(Band) * 2);
    switch (st) {
    case STAGE_PROJECT:
        add(&b[0], operand(M_O, i, ROLE_ROW, -1));
        add(&b[0], operand(M_WO, -1, ROLE_ROW, j));
        add(&b[1], mkbox(M_Y, i, ROLE_ROW, j, i, j));
        return 2;
    case STAGE_INPUT:
        if (c->a->positions == POS_SINUSOIDAL) { /* X + P = H, the cell's sum */
            add(&b[0], operand(M_X, i, ROLE_ROW, -1));
            add(&b[0], operand(M_P, i, ROLE_ROW, -1));
            add(&b[1], mkbox(M_H, i, ROLE_ROW, -1, i, j));
            return 2;
        }
        add(&b[0], mkbox(M_X, i, ROLE_ROW, -1, i, j));
        for (MatId w = M_WQ; w <= M_WV; w++)
            add(&b[1], mkbox(w, -1, ROLE_ROW, -1, -1, -1));
        return 2;
    case STAGE_QKV:
        add(&b[0], operand(c->a->positions == POS_SINUSOIDAL ? M_H : M_X, i, ROLE_ROW, -1));
        add(&b[0], operand((MatId)(f - M_Q + M_WQ), -1, ROLE_ROW, j));
        for (MatId m = M_Q; m <= M_V; m++)
            add(&b[1], m == f ? mkbox(m, i, ROLE_ROW, j, i, j) : mkbox(m, -1, ROLE_ROW, -1, -1, -1));
        return 2;
    case STAGE_SCORES:
        add(&b[0], operand(H(c, M_Q), i, ROLE_ROW, -1));
        add(&b[0], operand(H(c, M_K), j, ROLE_COL, -1));
        add(&b[1], heat(mkbox(H(c, M_S), i, ROLE_ROW, j, i, j)));
        return 2;
    case STAGE_SOFTMAX:
        add(&b[0], heat(operand(H(c, M_S), i, ROLE_ROW, -1)));
        add(&b[1], heat(mkbox(H(c, M_A), i, ROLE_ROW, j, i, j)));
        return 2;
    default:
        add(&b[0], heat(operand(H(c, M_A), i, ROLE_ROW, -1)));
        add(&b[0], operand(H(c, M_V), -1, ROLE_ROW, j));
        add(&b[1], mkbox(H(c, M_O), i, ROLE_ROW, j, i, j));
        return 2;
    }
}

static int stage_bands(const Ctx *c, Band *b)
{
    return stage_bands_at(c, b, c->in->fmat, c->in->fi, c->in->fj);
}

static int band_spare(Ctx *c, Band *b);

/* Is the training panel shown: targets set, from the softmax stage on? */
static bool training(const Ctx *c)
{
    return c->a->ntarget > 0 && session_stage(c->s) >= STAGE_SOFTMAX && c->a->reached >= STAGE_SOFTMAX;
}

/* The board, the normal layout: Q K V on top from the first step, and below
 * them X with the W in use while Q K V are made, then S A O. A matrix keeps
 * its place from step to step and a stage fills in dots, so a next redraws
 * only what changed (`make bench`: bytes_ratio_next). */
static int board_bands(Ctx *c, Band *b)
{
    int i = c->in->fi, j = c->in->fj, st = session_stage(c->s);
    MatId f = c->in->fmat;
    memset(b, 0, sizeof(Band) * 2);
    if (st == STAGE_PROJECT) /* O with its heads' column groups, W_O, Y */
        return stage_bands_at(c, b, f, i, j);
    for (MatId m = M_Q; m <= M_V; m++) {
        Box x = mkbox(st >= STAGE_SCORES ? H(c, m) : m, -1, ROLE_ROW, -1, -1, -1);
        if (st < STAGE_QKV)
            x.placeholder = true;
        else if (st == STAGE_QKV && m == f)
            x = result_box(m, i, j);
        else if (st == STAGE_SCORES && m != M_V)
            x = m == M_Q ? operand(H(c, m), i, ROLE_ROW, -1) : operand(H(c, m), j, ROLE_COL, -1);
        else if (st == STAGE_OUTPUT && m == M_V)
            x = operand(H(c, m), -1, ROLE_ROW, j);
        add(&b[0], x);
    }
    bool pos = c->a->positions == POS_SINUSOIDAL;
    if (pos && st == STAGE_INPUT) { /* X + P = H */
        add(&b[1], operand(M_X, i, ROLE_ROW, -1));
        add(&b[1], operand(M_P, i, ROLE_ROW, -1));
        add(&b[1], mkbox(M_H, i, ROLE_ROW, -1, i, j));
        return 2;
    }
    if (st <= STAGE_QKV) {
        /* X and the three Ws when they fit side by side, else X and the W in use
         * (with positions, H: what stage 2 projects). */
        Band *xw = &b[1];
        add(xw, st == STAGE_INPUT ? mkbox(M_X, i, ROLE_ROW, -1, i, j) : operand(pos ? M_H : M_X, i, ROLE_ROW, -1));
        for (MatId w = M_WQ; w <= M_WV; w++)
            add(xw, st == STAGE_QKV && w - M_WQ == f - M_Q ? operand(w, -1, ROLE_ROW, j) : mkbox(w, -1, ROLE_ROW, -1, -1, -1));
        if (band_spare(c, xw) < 0) {
            xw->box[1] = xw->box[1 + f - M_Q];
            xw->n = 2;
        }
        return 2;
    }
    if (training(c)) { /* what a step changes, W_Q and W_K, in place of Q K V */
        b[0].n = 0;
        Box wq = mkbox(M_WQ, -1, ROLE_ROW, -1, -1, -1), wk = mkbox(M_WK, -1, ROLE_ROW, -1, -1, -1);
        wq.quoted = wk.quoted = true; /* the panel's ∂L/∂W_Q and ∂L/∂W_K: kept on screen */
        wq.panel = wk.panel = true;   /* ... unless the panel itself needs the rows */
        add(&b[0], wq);
        add(&b[0], wk);
        if (st == STAGE_OUTPUT)
            add(&b[0], operand(M_V, -1, ROLE_ROW, j));
    }
    MatId ms = H(c, M_S), ma = H(c, M_A), mo = H(c, M_O);
    Box s = st == STAGE_SCORES ? result_box(ms, i, j) : st == STAGE_SOFTMAX ? operand(ms, i, ROLE_ROW, -1) : mkbox(ms, -1, ROLE_ROW, -1, -1, -1);
    Box a = st == STAGE_SOFTMAX ? result_box(ma, i, j) : st == STAGE_OUTPUT ? operand(ma, i, ROLE_ROW, -1) : mkbox(ma, -1, ROLE_ROW, -1, -1, -1);
    Box o = st == STAGE_OUTPUT ? result_box(mo, i, j) : mkbox(mo, -1, ROLE_ROW, -1, -1, -1);
    s.heat = a.heat = true;
    a.placeholder = st < STAGE_SOFTMAX;
    o.placeholder = st < STAGE_OUTPUT;
    add(&b[1], s);
    add(&b[1], a);
    add(&b[1], o);
    if (st == STAGE_OUTPUT && attn_heads(c->a) > 1) { /* the heads' O side by side, when it fits */
        add(&b[1], mkbox(M_O, i, ROLE_ROW, -1, -1, -1));
        if (band_spare(c, &b[1]) < 0)
            b[1].n--;
    }
    return 2;
}

/* Is matrix id shown in the first n bands? */
static Box *find_box(Band *b, int n, MatId id)
{
    for (int k = 0; k < n; k++)
        for (int m = 0; m < b[k].n; m++)
            if (b[k].box[m].id == id)
                return &b[k].box[m];
    return NULL;
}

/* Edit mode at stage 2: the cell being edited, with what its arithmetic
 * quotes (X and the W it is made from) above it. From stage 3 on: the
 * matrix being edited (Q K V, or X with a W), and what the student
 * watches change: the stage's operands and result (S with A; A and V
 * with O), whose arithmetic the panel then shows. */
static int edit_bands(Ctx *c, Band *b)
{
    const LayoutIn *in = c->in;
    MatId e = in->emat;
    bool qkv = e >= M_Q && e <= M_V;
    int st = session_stage(c->s), n = 0;
    memset(b, 0, sizeof(Band) * MAX_BANDS);
    if (st <= STAGE_QKV && qkv)
        return stage_bands_at(c, b, e, in->ei, in->ej);
    if (qkv)
        for (MatId m = M_Q; m <= M_V; m++)
            add(&b[n], m == e ? mkbox(m, in->ei, ROLE_ROW, -1, in->ei, in->ej) : mkbox(m, -1, ROLE_ROW, -1, -1, -1));
    else {
        MatId w = e == M_X ? M_WQ : e; /* W_O goes with O, what it multiplies, once O is computed */
        MatId in0 = e == M_WO && c->a->reached >= STAGE_OUTPUT ? M_O : M_X;
        add(&b[n], e == M_X ? mkbox(M_X, in->ei, ROLE_ROW, -1, in->ei, in->ej) : mkbox(in0, -1, ROLE_ROW, -1, -1, -1));
        add(&b[n], e == M_X ? mkbox(w, -1, ROLE_ROW, -1, -1, -1) : mkbox(w, in->ei, ROLE_ROW, -1, in->ei, in->ej));
    }
    n++;
    if (st < STAGE_SCORES) {
        for (MatId m = M_Q; m <= M_V; m++)
            add(&b[n], mkbox(m, -1, ROLE_ROW, -1, -1, -1));
        return n + 1;
    }
    Band sb[2];
    stage_bands(c, sb);
    /* Side by side when they fit (S with A, A with O), else one band each. */
    Band one = sb[0];
    for (int m = 0; m < sb[1].n; m++)
        add(&one, sb[1].box[m]);
    if (band_spare(c, &one) >= 0) {
        sb[0] = one;
        sb[1].n = 0;
    }
    for (int k = 0; k < 2; k++) {
        for (int m = 0; m < sb[k].n; m++) {
            Box *have = find_box(b, n, sb[k].box[m].id), *want = &sb[k].box[m];
            if (!have)
                add(&b[n], *want);
            else if (have->id == e) { /* the edited matrix, quoted by the stage: its row whole */
                have->hrow = want->hrow;
                have->hrow_role = want->hrow_role;
                have->hcol = want->hcol;
                have->quoted = want->quoted;
            } else {
                *have = *want;
            }
        }
        if (b[n].n > 0)
            n++;
    }
    return n;
}

/* ---- one matrix ------------------------------------------------------------- */

static bool rows_are_tokens(MatId id)
{
    return !attn_mat_is_param(id);
}

static bool cols_are_tokens(MatId id)
{
    id = attn_mat_base(id);
    return id == M_QKT || id == M_S || id == M_A;
}

static bool is_heat(MatId id)
{
    id = attn_mat_base(id);
    return id == M_S || id == M_A;
}

/* The widest of the numbers among values v[0..n) (only those that differ
 * from skip[k], when skip is given): only the extremes on each side of
 * zero, up to where numbers turn scientific, need writing. */
static int widest_of(const Ctx *c, const double *v, const double *skip, int n)
{
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    char buf[64];
    double cand[7] = {0, 0, 0, 0, INFINITY, -INFINITY, NAN};
    bool odd = false, any = false;
    for (int k = 0; k < n; k++) {
        double x = v[k];
        if (skip && (x == skip[k] || (isnan(x) && isnan(skip[k]))))
            continue;
        any = true;
        int cl = fabs(x) < 1e6 ? 0 : 2;
        odd = odd || !isfinite(x);
        if (isfinite(x) && x > cand[cl])
            cand[cl] = x;
        else if (isfinite(x) && x < cand[cl + 1])
            cand[cl + 1] = x;
    }
    int w = 0;
    for (int k = 0; any && k < (odd ? 7 : 4); k++) {
        int m = text_width(fmt_num(cand[k], &fo, buf, sizeof buf));
        w = m > w ? m : w;
    }
    return w;
}

/* The widest number of a matrix, with room left of it for what stands
 * before a number: a change mark (▲ ▼) on a changed cell and, in mono, a
 * heat shade; worked out once per frame. The blank that starts every cell
 * is not counted: marks never touch the number to their left. */
static int widest(Ctx *c, MatId id)
{
    if (c->widest[id] > 0)
        return c->widest[id];
    const Mat *m = &c->a->m[id];
    const Attn *b = &c->s->before;
    int n = m->rows * m->cols, shade = c->in->mono && is_heat(id) ? 1 : 0;
    int w = 1 + c->l->digits + 2; /* "-0." */
    int real = widest_of(c, m->v, NULL, n) + shade;
    w = real > w ? real : w;
    if (c->s->has_before && b->reached >= attn_mat_stage(id) && c->a->reached >= attn_mat_stage(id) &&
        mat_same_shape(m, &b->m[id])) {
        int moved = widest_of(c, m->v, b->m[id].v, n);
        if (moved > 0 && moved + 1 + shade > w)
            w = moved + 1 + shade;
    }
    return c->widest[id] = w;
}

/* Width of one cell: the widest number and a space before it, where a
 * change marker (▲ ▼) goes. */
static int cell_width(Ctx *c, MatId id)
{
    return widest(c, id) + 1 + c->pad;
}

static int head_group(const Ctx *c, MatId id, int k, char *buf, size_t len);

/* Is row i of Q, K, V (or of a head's Q2, K2, V2: its part) set by hand? */
static bool row_hand(const Ctx *c, MatId id, int i)
{
    MatId b = attn_mat_base(id);
    int h = attn_mat_head(id);
    if (b < M_Q || b > M_V)
        return false;
    if (!h)
        return session_overridden(c->s, id, i);
    int w = b == M_V ? attn_d_v(c->a) : attn_d_k(c->a);
    return i >= 0 && i < MAT_MAX && attn_cell_overridden(c->a, b - M_Q, i, (h - 1) * w);
}

static bool any_override(const Ctx *c, MatId id)
{
    MatId b = attn_mat_base(id);
    if (b < M_Q || b > M_V)
        return false;
    for (int i = 0; i < c->a->m[id].rows; i++)
        if (row_hand(c, id, i))
            return true;
    return false;
}

static int label_width(const Ctx *c, MatId id, const Mat *m, bool nolabel)
{
    int w = 2;
    if (nolabel) /* only Q, K and V need a column for the "set by hand" mark */
        return attn_mat_base(id) >= M_Q && attn_mat_base(id) <= M_V ? 1 : 0;
    if (!rows_are_tokens(id)) {
        char buf[32];
        if (id == M_WO && head_group(c, M_WO, m->rows - 1, buf, sizeof buf) > 0)
            return text_width(buf) + 1;
        return snprintf(buf, sizeof buf, "%d", m->rows) + 1;
    }
    for (int i = 0; i < m->rows && i < attn_tokens(c->a); i++)
        w = tok_width(c, i) > w ? tok_width(c, i) : w;
    /* room for the "set by hand" mark, a blank apart from the token */
    return w + (any_override(c, id) ? 3 : 2);
}

/* A head's box: "S2 = Q2·K2ᵀ/√2" and so on. */
static const char *head_title(const Ctx *c, MatId id, char *buf, size_t len)
{
    int h = attn_mat_head(id);
    bool a = c->in->ascii;
    switch (attn_mat_base(id)) {
    case M_Q: case M_K: case M_V: /* "Q2 = X·Wq2", H with positions */
        snprintf(buf, len, "%s = %s%s%s%d", attn_mat_name(id), c->a->positions == POS_SINUSOIDAL ? "H" : "X",
                 a ? "*" : "·", attn_mat_name((MatId)(attn_mat_base(id) - M_Q + M_WQ)), h);
        break;
    case M_S:
        if (c->a->scale == SCALE_SQRT_DK)
            snprintf(buf, len, a ? "S%d = Q%d*K%d^T/sqrt(%d)" : "S%d = Q%d·K%dᵀ/√%d", h, h, h, c->l->d_k);
        else
            snprintf(buf, len, a ? "S%d = Q%d*K%d^T" : "S%d = Q%d·K%dᵀ", h, h, h);
        break;
    case M_A: snprintf(buf, len, c->a->temp != 1.0 ? "A%d = softmax(S%d/T)" : "A%d = softmax(S%d)", h, h); break;
    case M_O: snprintf(buf, len, a ? "O%d = A%d*V%d" : "O%d = A%d·V%d", h, h, h); break;
    default:  snprintf(buf, len, "%s", attn_mat_name(id)); break;
    }
    return buf;
}

static const char *box_title(const Ctx *c, MatId id, char *buf, size_t len)
{
    bool sc = c->a->scale == SCALE_SQRT_DK;
    if (attn_mat_head(id))
        return head_title(c, id, buf, len);
    if (id == M_O && attn_heads(c->a) > 1) {
        size_t n = (size_t)snprintf(buf, len, "O = [");
        for (int h = 1; h <= attn_heads(c->a) && n < len; h++)
            n += (size_t)snprintf(buf + n, len - n, "%sO%d", h > 1 ? " " : "", h);
        if (n < len)
            snprintf(buf + n, len - n, "]");
        return buf;
    }
    switch (id) {
    case M_WO: return "Wo";
    case M_Y: return sym(c, "Y = O·Wo", "Y = O*Wo");
    case M_Q: case M_K: case M_V:
        snprintf(buf, len, "%s = %s%s%s", attn_mat_name(id), c->a->positions == POS_SINUSOIDAL ? "H" : "X",
                 sym(c, "·", "*"), attn_mat_name((MatId)(id - M_Q + M_WQ)));
        return buf;
    case M_P: return "P";
    case M_H: return "H = X + P";
    case M_QKT: return sym(c, "Q·Kᵀ", "Q*K^T");
    case M_S:
        if (!sc)
            return sym(c, "S = Q·Kᵀ", "S = Q*K^T");
        snprintf(buf, len, c->in->ascii ? "S = Q*K^T/sqrt(%d)" : "S = Q·Kᵀ/√%d", c->l->d_k);
        return buf;
    case M_A: return c->a->temp != 1.0 ? "A = softmax(S/T)" : "A = softmax(S)";
    case M_O: return sym(c, "O = A·V", "O = A*V");
    default: return attn_mat_name(id);
    }
}

/* The narrowest a box can be: one column of cells, or every column when
 * its highlighted row is quoted by the arithmetic. */
static int box_floor(Ctx *c, const Box *b)
{
    const Mat *m = &c->a->m[b->id];
    /* A's arithmetic is its row's walk: the row whole. A row focus's W: its columns may scroll. */
    bool arow = b->id == M_A && b->ci >= 0 && !b->placeholder && c->a->reached >= STAGE_SOFTMAX;
    int cols = (b->quoted && b->hrow >= 0) || arow ? m->cols : 1;
    return label_width(c, b->id, m, b->nolabel) + cols * cell_width(c, b->id) + 1;
}

/* The full width a box wants: its cells, or its title when that is wider. */
static int box_need(Ctx *c, const Box *b)
{
    const Mat *m = &c->a->m[b->id];
    char t[64];
    int cells = label_width(c, b->id, m, b->nolabel) + m->cols * cell_width(c, b->id) + 1;
    int title = text_width(box_title(c, b->id, t, sizeof t)) + 8 + text_width(_("not yet"));
    return b->placeholder && title > cells ? title : cells;
}

/* The rows a box must keep in view: all of them when its highlighted
 * column is quoted by the arithmetic, else one. */
static int box_keep_rows(const Ctx *c, const Box *b)
{
    return (b->quoted && b->hcol >= 0) || b->all ? c->a->m[b->id].rows : 1;
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

/* The row of `before` that holds the token row i of the current state
 * holds (a swap moves tokens, not positions). */
static int before_row(const Ctx *c, int i)
{
    const Attn *b = &c->s->before, *a = c->a;
    if (i < 0 || i >= MAT_MAX || b->tok[i] == a->tok[i])
        return i;
    for (int k = 0; k < attn_tokens(b) && k < MAT_MAX; k++)
        if (b->tok[k] == a->tok[i])
            return k;
    return i;
}

/* Cell (i, j) of id as it was before the last change, for the same tokens:
 * after a swap the rows of token matrices (and the key columns of the
 * scores and weights) are looked up by token; P and the weights stay. */
static double before_cell(const Ctx *c, MatId id, int i, int j)
{
    MatId base = attn_mat_base(id);
    bool rows = base != M_P && !attn_mat_is_param(base), cols = base == M_QKT || base == M_S || base == M_A;
    return MAT_AT(&c->s->before.m[id], rows ? before_row(c, i) : i, cols ? before_row(c, j) : j);
}

/* Did cell (i, j) change, as shown, with the last change? +1 up, -1 down.
 * Differences below the digits shown are not marked, nor cells now NaN,
 * nor cells that only moved with their token (a swap). */
static int changed(const Ctx *c, MatId id, int i, int j)
{
    const Attn *b = &c->s->before, *a = c->a;
    if (!c->s->has_before || b->reached < attn_mat_stage(id) || !mat_same_shape(&a->m[id], &b->m[id]))
        return 0;
    FmtOpt fo = {c->l->digits, true, false};
    char sx[64], sy[64];
    double x = MAT_AT(&a->m[id], i, j), y = before_cell(c, id, i, j);
    if (isnan(x) || strcmp(fmt_num(x, &fo, sx, sizeof sx), fmt_num(y, &fo, sy, sizeof sy)) == 0)
        return 0; /* a NaN has no direction: never ▼NaN */
    return x > y || isnan(y) ? 1 : -1;
}

static Role cell_role(const Ctx *c, const Box *b, int i, int j, unsigned *flags)
{
    const LayoutIn *in = c->in;
    *flags |= i == b->hrow ? CELL_ROW : 0;
    *flags |= j == b->hcol ? CELL_COL : 0;
    if (in->mode == LAYOUT_EDIT && b->id == in->emat && i == in->ei && j == in->ej) {
        *flags |= CELL_EDIT | CELL_FOCUS;
        return ROLE_EDIT;
    }
    if (i == b->ci && j == b->cj) {
        *flags |= CELL_FOCUS;
        return ROLE_CELL;
    }
    if (i == b->hrow)
        return b->hrow_role;
    if (j == b->hcol)
        return ROLE_COL;
    if (b->placeholder)
        return ROLE_DIM;
    if (attn_mat_stage(b->id) == c->s->fresh_stage && !attn_mat_is_param(b->id) && b->id != M_X) {
        *flags |= CELL_FRESH;
        return ROLE_FRESH;
    }
    return ROLE_NORMAL;
}

/* What a box's title says it is: not yet, parameter, input or result. */
static const char *box_role_plain(const Box *b)
{
    return b->placeholder ? _("not yet") : attn_mat_is_param(b->id) ? _("parameter")
           : b->id == M_X ? _("input") : _("result");
}

/* After an append that left every earlier row as it was (the causal mask
 * or a window): how many rows of K and V a cache kept, else 0. */
static int cached_rows(const Ctx *c)
{
    const Session *s = c->s;
    AttnWork w;
    if (!s->has_before || attn_tokens(&s->before) + 1 != attn_tokens(&s->cur) ||
        !attn_append_work(&s->before, &s->cur, &w) || !w.exact)
        return 0;
    return w.n - 1;
}

/* What a box's title says it is; for today's models also what is special
 * about it: K's and V's cached rows after an append, the query heads that
 * share a K/V head, A never stored whole under the online softmax, Q and K
 * turned by RoPE. Written into a static buffer, used at once. */
static const char *box_role(const Ctx *c, const Box *b)
{
    static char role[96];
    MatId base = attn_mat_base(b->id);
    int head = attn_mat_head(b->id), h = attn_heads(c->a), g = attn_kv_heads(c->a), cached;
    if (b->placeholder)
        return _("not yet");
    if (attn_mat_is_param(b->id) || b->id == M_X)
        return attn_mat_is_param(b->id) ? _("parameter") : _("input");
    if ((base == M_K || base == M_V) && (cached = cached_rows(c)) > 0) {
        snprintf(role, sizeof role, cached == 1 ? _("result, row 1 cached") : _("result, rows 1-%d cached"), cached);
        return role;
    }
    if ((base == M_K || base == M_V) && head && g < h) { /* query heads k with the same K/V head */
        int kv = attn_kv_head(c->a, head), first = 0, last = 0;
        for (int k = 1; k <= h; k++)
            if (attn_kv_head(c->a, k) == kv) {
                first = first ? first : k;
                last = k;
            }
        snprintf(role, sizeof role, _("result, shared by heads %d-%d"), first, last);
        return role;
    }
    if (base == M_A && c->a->softmax == SOFTMAX_ONLINE)
        return _("result, never stored whole");
    if ((base == M_Q || base == M_K) && c->a->positions == POS_ROPE)
        return _("result, rotated");
    return _("result");
}

/* The width of a box's whole title: "A = softmax(S)  3×3 result". */
static int box_title_width(Ctx *c, const Box *b)
{
    const Mat *m = &c->a->m[b->id];
    char t[64], line[160];
    snprintf(line, sizeof line, "%s  %d%s%d", box_title(c, b->id, t, sizeof t), m->rows, sym(c, "×", "x"), m->cols);
    return text_width(line) + 1 + text_width(box_role_plain(b));
}

/* The title line: name, shape, and whether it is a parameter or a result. */
static void box_title_line(Ctx *c, const Box *b, int y, int x, int w)
{
    const Mat *m = &c->a->m[b->id];
    char t[64], line[160];
    const char *role = box_role(c, b);
    snprintf(line, sizeof line, "%s  %d%s%d", box_title(c, b->id, t, sizeof t), m->rows, sym(c, "×", "x"), m->cols);
    if (text_width(line) + 1 + text_width(role) > w) /* the note on today's models only where it fits */
        role = box_role_plain(b);
    /* No room for the formula and the role ("result", "not yet"): the name
     * and the shape, else the name alone, so every box keeps saying what it
     * is; the role goes last, only where not even "K result" fits. */
    if (text_width(line) + 1 + text_width(role) > w)
        snprintf(line, sizeof line, "%s  %d%s%d", attn_mat_name(b->id), m->rows, sym(c, "×", "x"), m->cols);
    if (text_width(line) + 1 + text_width(role) > w && text_width(attn_mat_name(b->id)) + 1 + text_width(role) <= w)
        snprintf(line, sizeof line, "%s", attn_mat_name(b->id));
    int used = put(c, y, x, w, line, b->placeholder ? ROLE_DIM : ROLE_TITLE);
    if (used + 1 + text_width(role) <= w) /* the role whole, or not at all */
        put(c, y, x + used + 1, w - used - 1, role,
            b->placeholder ? ROLE_DIM : attn_mat_is_param(b->id) ? ROLE_PARAM : ROLE_RESULT);
}

/* Column headers: token names for score-like matrices, else 1..n. */
/* With heads, the columns of Q, K, V, O (and of the Ws) and the rows of
 * W_O come in head groups: "h2·1" is head 2's column 1. Width 0 (and buf
 * empty) when id has no groups. */
static int head_group(const Ctx *c, MatId id, int k, char *buf, size_t len)
{
    int heads = attn_heads(c->a), w = 0;
    buf[0] = '\0';
    if (heads < 2)
        return 0;
    if (id == M_Q || id == M_K || id == M_WQ || id == M_WK)
        w = attn_d_k(c->a);
    else if (id == M_V || id == M_O || id == M_WV || id == M_WO)
        w = attn_d_v(c->a);
    if (w == 0)
        return 0;
    snprintf(buf, len, c->in->ascii ? "h%d.%d" : "h%d·%d", k / w + 1, k % w + 1);
    return text_width(buf);
}

static void box_header(Ctx *c, const Box *b, int y, int x, int lw, int cw, int c0, int vc)
{
    const Mat *m = &c->a->m[b->id];
    for (int j = c0; j < c0 + vc; j++) {
        char num[16];
        Role r = j == b->hcol || j == b->cj ? ROLE_COL : ROLE_LABEL;
        int cx = x + lw + (j - c0) * cw;
        if (cols_are_tokens(b->id) && j < attn_tokens(c->a)) {
            int tw = tok_width(c, j) > cw - 1 ? cw - 1 : tok_width(c, j);
            put_lesson(c, y, cx + cw - tw, tw, lesson_token(c->l, c->a, j), r);
        } else {
            char grp[32];
            int gw = b->id == M_WO ? 0 : head_group(c, b->id, j, grp, sizeof grp);
            if (gw > 0 && gw < cw) /* the column's head */
                put(c, y, cx + cw - gw, cw, grp, r);
            else {
                snprintf(num, sizeof num, "%d", j + 1);
                put(c, y, cx + cw - (int)strlen(num), cw, num, r);
            }
        }
    }
    if (c0 > 0)
        put(c, y, x + lw - 1, 1, sym(c, "◂", "<"), ROLE_HINT);
    if (c0 + vc < m->cols)
        put(c, y, x + lw + vc * cw, 1, sym(c, "▸", ">"), ROLE_HINT);
}

static void row_label(Ctx *c, const Box *b, int y, int x, int lw, int i)
{
    bool hand = row_hand(c, b->id, i);
    if (b->nolabel) {
        if (hand)
            put(c, y, x, 1, sym(c, "✎", "*"), ROLE_HAND);
        return;
    }
    bool lit = i == b->hrow || i == b->ci || i == b->lrow;
    Role r = i == b->hrow ? b->hrow_role : lit ? ROLE_ROW : ROLE_LABEL;
    int tw = lw - 2 - (any_override(c, b->id) ? 1 : 0), used;
    if (rows_are_tokens(b->id) && i < attn_tokens(c->a))
        used = put_lesson(c, y, x, tw, lesson_token(c->l, c->a, i), r);
    else {
        char num[32], grp[32];
        if (b->id == M_WO && head_group(c, M_WO, i, grp, sizeof grp) > 0) /* W_O's rows: the heads' columns of O */
            snprintf(num, sizeof num, "%*s", lw - 1, grp);
        else
            snprintf(num, sizeof num, "%*d", lw - 1, i + 1);
        used = put(c, y, x, lw, num, r);
    }
    if (lit && used < lw - 2)
        fill(c, y, x + used, lw - 2 - used, r);
    if (hand)
        put(c, y, x + lw - 2, 1, sym(c, "✎", "*"), ROLE_HAND);
    else if (lit && used < lw - 1)
        fill(c, y, x + lw - 2, 1, r);
    if (lit && used < lw)
        fill(c, y, x + lw - 1, 1, r);
}

/* The heat shade of cell (i, j) of a heatmap box: weights as they are,
 * scores scaled to the box's range [lo, hi]. */
static Role heat_of(const Box *b, const Mat *m, int i, int j, double lo, double hi)
{
    double w = attn_mat_base(b->id) == M_A ? MAT_AT(m, i, j) : hi > lo ? (MAT_AT(m, i, j) - lo) / (hi - lo) * 0.999 : 0;
    return role_heat(w);
}

/* Keep a cell in the plan. */
static void keep_cell(Ctx *c, const Box *b, int y, int x, int cw, int i, int j, const char *num, unsigned flags,
                      Role role, Role shade)
{
    Plan *p = c->p;
    if (y < 0 || y >= c->rows || x < 0 || x >= c->cols)
        return;
    int off = keep_text(p, num, strlen(num));
    if (off < 0 || !grow((void **)&p->cell, &p->capcell, p->ncell + 1, sizeof *p->cell)) {
        p->oom = true;
        return;
    }
    int w = x + cw > c->cols ? c->cols - x : cw;
    p->cell[p->ncell++] = (PlanCell){b->id, i, j, y, x, w, flags, role, shade, p->nbox, off, (int)strlen(num)};
}

/* One cell, right-aligned in cw columns: [blank][shade][mark]number. The
 * blank keeps a mark or a shade from touching the number to the left. */
static void cell(Ctx *c, const Box *b, int y, int x, int cw, int i, int j, double lo, double hi)
{
    static const char *shade[4] = {"░", "▒", "▓", "█"}, *ascii[4] = {".", ":", "+", "#"};
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    char num[64];
    const Mat *m = &c->a->m[b->id];
    MatId base = attn_mat_base(b->id); /* S2 and A2 are masked like S and A */
    bool masked = !b->placeholder && (base == M_S || base == M_A) && attn_masked(c->a, i, j);
    bool hidden = !b->placeholder && session_ask_hidden(c->s, b->id, i, j); /* an open ask: "?" */
    if (b->placeholder)
        snprintf(num, sizeof num, "%s", sym(c, "·", "."));
    else if (hidden)
        snprintf(num, sizeof num, "?");
    else if (masked && base == M_S)
        snprintf(num, sizeof num, "%s", sym(c, "−∞", "-inf"));
    else
        fmt_num(MAT_AT(m, i, j), &fo, num, sizeof num);
    unsigned flags = masked ? CELL_MASKED : 0;
    Role role = cell_role(c, b, i, j, &flags);
    if (masked && (role == ROLE_NORMAL || role == ROLE_FRESH))
        role = ROLE_DIM; /* hidden by the mask: muted, never a heat colour */
    int nw = text_width(num), d = b->placeholder || hidden || (masked && base == M_S) ? 0 : changed(c, b->id, i, j);
    bool hot = b->heat && !b->placeholder && !masked && !hidden; /* a shade would tell the answer */
    Role shade_role = hot ? heat_of(b, m, i, j, lo, hi) : ROLE_NORMAL;
    flags |= (hot ? CELL_HEAT : 0) | (d > 0 ? CELL_UP : d < 0 ? CELL_DOWN : 0);
    /* A heatmap shades the cell behind the number in colour; in mono a
     * shade character stands before it. */
    bool plain = role == ROLE_NORMAL || role == ROLE_FRESH, bold = false;
    Role r = role;
    if (hot && !c->in->mono && plain) {
        r = shade_role;
        bold = role == ROLE_FRESH;
    }
    bool mshade = hot && c->in->mono;
    int lead = cw - nw - (d ? 1 : 0) - (mshade ? 1 : 0), x0 = x;
    if (lead > 0) {
        fill_b(c, y, x, lead, r, bold);
        x += lead;
    }
    if (mshade)
        x += put_b(c, y, x, 1, (c->in->ascii ? ascii : shade)[shade_role - ROLE_HEAT1], r, bold);
    if (d)
        x += put(c, y, x, 1, d > 0 ? sym(c, "▲", "^") : sym(c, "▼", "v"), d > 0 ? ROLE_UP : ROLE_DOWN);
    put_b(c, y, x, x0 + cw - x, num, r, bold);
    keep_cell(c, b, y, x0, cw, i, j, num, flags, role, shade_role);
}

/* The range the heat shades span: weights as they are (0 to 1), scores
 * between the smallest and largest finite score. */
static void heat_range(const Mat *m, MatId id, double *lo, double *hi)
{
    *lo = 0;
    *hi = 1;
    if (attn_mat_base(id) == M_A)
        return;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int k = 0; k < m->rows * m->cols; k++)
        if (isfinite(m->v[k])) {
            *lo = m->v[k] < *lo ? m->v[k] : *lo;
            *hi = m->v[k] > *hi ? m->v[k] : *hi;
        }
}

/* Big focus marks for presentation mode: an arrow at the focused row and
 * (with a marks row) one above the focused column. */
static void focus_marks(Ctx *c, const Box *b, int y, int x, int lw, int cw, int r0, int vr, int c0, int vc)
{
    int j = b->cj >= 0 ? b->cj : b->hcol, i = b->ci >= 0 ? b->ci : b->hrow;
    if (c->top == 3 && j >= c0 && j < c0 + vc)
        put(c, y + 1, x + lw + (j - c0) * cw + cw - 3, 1, sym(c, "▼", "v"), ROLE_COL);
    if (i >= r0 && i < r0 + vr && x > 0)
        put(c, y + c->top + (i - r0) * c->row_step, x - 1, 1, sym(c, "▶", ">"), ROLE_ROW);
}

/* Lay out one box in a w x h area; its title may take `more` columns of
 * the blank to its right (negative: it stops that many short, so two
 * blanks always part it from the next box's title). */
static void box(Ctx *c, const Box *b, int y, int x, int w, int h, int more)
{
    const Mat *m = &c->a->m[b->id];
    int top = c->top, step = c->row_step;
    int lw = label_width(c, b->id, m, b->nolabel), cw = cell_width(c, b->id);
    int vc = (w - lw - 1) / cw, vr = (h - top + step - 1) / step;
    vc = vc < 1 ? 1 : vc > m->cols ? m->cols : vc;
    vr = vr < 1 ? 1 : vr > m->rows ? m->rows : vr;
    int c0 = window(m->cols, vc, b->cj >= 0 ? b->cj : b->hcol);
    int r0 = b->nolabel ? c->band_r0 : window(m->rows, vr, b->ci >= 0 ? b->ci : b->hrow >= 0 ? b->hrow : b->lrow);
    if (!b->nolabel)
        c->band_r0 = r0;
    else if (r0 + vr > m->rows)
        r0 = c->band_r0 = m->rows - vr > 0 ? m->rows - vr : 0;
    box_title_line(c, b, y, x, w + more);
    if (c->in->present)
        focus_marks(c, b, y, x, lw, cw, r0, vr, c0, vc);
    box_header(c, b, y + top - 1, x, lw, cw, c0, vc);
    double lo, hi;
    heat_range(m, b->id, &lo, &hi);
    Plan *p = c->p;
    for (int i = r0; i < r0 + vr; i++) {
        int ry = y + top + (i - r0) * step;
        row_label(c, b, ry, x, lw, i);
        for (int j = c0; j < c0 + vc; j++)
            cell(c, b, ry, x + lw + (j - c0) * cw, cw, i, j, lo, hi);
    }
    int edge = x + lw + vc * cw; /* scroll marks go right of the cells */
    if (r0 > 0)
        put(c, y + top, edge, 1, sym(c, "▴", "^"), ROLE_HINT);
    if (r0 + vr < m->rows && (vr > 1 || r0 == 0)) /* one row shown: ▴ alone says it scrolls */
        put(c, y + top + (vr - 1) * step, edge, 1, sym(c, "▾", "v"), ROLE_HINT);
    if (p->nbox < PLAN_MAX_BOXES) {
        int click = b->ci >= 0 ? 0 : b->hrow_role == ROLE_COL ? 2 : b->hcol >= 0 ? 3 : 1;
        p->box[p->nbox++] = (PlanBox){b->id, y, x, w, h, m->rows, m->cols, r0, vr, c0, vc, y + top, x + lw, cw, step,
                                      b->placeholder, click};
    }
}

/* ---- bands ------------------------------------------------------------------ */

static int band_rows(const Ctx *c, const Band *b)
{
    int r = 0;
    for (int k = 0; k < b->n; k++)
        r = c->a->m[b->box[k].id].rows > r ? c->a->m[b->box[k].id].rows : r;
    return r;
}

static bool band_has_a(const Ctx *c, const Band *b);

/* The rows a band must keep: its quoted columns whole; beside A at work,
 * a row per key, so the bars (which may stand in for A's row) show it all. */
static int band_keep(const Ctx *c, const Band *b)
{
    int r = 1;
    for (int k = 0; k < b->n; k++)
        r = box_keep_rows(c, &b->box[k]) > r ? box_keep_rows(c, &b->box[k]) : r;
    if (band_has_a(c, b) && c->a->reached >= STAGE_SOFTMAX) {
        int keys = c->a->m[M_A].cols - 1; /* the bars' title takes the header's row */
        r = keys > r ? keys : r;
    }
    return r;
}

/* Boxes after the first whose rows are the same tokens share its labels,
 * which then light up the row any of them works on. */
static void share_labels(const Ctx *c, Band *b)
{
    if (b->n > 0) /* the first box labels its rows (a box moved from another band may come without) */
        b->box[0].nolabel = false;
    for (int k = 1; k < b->n; k++) {
        const Box *f = &b->box[0], *x = &b->box[k];
        /* A key's row (K at the scores stage) keeps its own labels when
         * rows scroll: it may be far from the query's row. */
        bool own = c->rows_cut && x->hrow >= 0 && x->hrow_role == ROLE_COL;
        b->box[k].nolabel = rows_are_tokens(f->id) && rows_are_tokens(x->id) && !own &&
                            c->a->m[f->id].rows == c->a->m[x->id].rows;
        if (b->box[k].nolabel && b->box[0].lrow < 0 && (x->ci >= 0 || (x->hrow >= 0 && x->hrow_role == ROLE_ROW)))
            b->box[0].lrow = x->ci >= 0 ? x->ci : x->hrow;
    }
}

/* The columns a band's boxes want side by side, each in need[] (may be
 * NULL), at the padding in c->pad; the room for them is in *room. */
static int band_need(Ctx *c, Band *b, int extra, int *need, int *room)
{
    int total = 0, one;
    share_labels(c, b);
    for (int k = 0; k < b->n; k++) {
        total += one = box_need(c, &b->box[k]);
        if (need)
            need[k] = one;
    }
    *room = c->cols - 2 - extra - c->gap * (b->n - 1);
    return total;
}

/* The columns left over beside a band at its narrowest (no cell padding);
 * negative when its columns must scroll. */
static int band_spare(Ctx *c, Band *b)
{
    int room, pad = c->pad;
    c->pad = 0;
    int need = band_need(c, b, 0, NULL, &room), spare = room - need;
    c->pad = pad;
    return spare;
}

/* Cut the boxes' widths need[] down to w in total: the widest first down
 * to the next widest, by ranks; none below its floor. */
static int squeeze(Band *b, int *need, const int *rank, const int *floor, int total, int w, int passes)
{
    for (int pass = 0; pass < passes && total > w; pass++)
        while (total > w) {
            int big = -1;
            for (int k = 0; k < b->n; k++)
                if (rank[k] <= pass && need[k] > floor[k] && (big < 0 || need[k] > need[big]))
                    big = k;
            if (big < 0)
                break;
            int next = floor[big];
            for (int k = 0; k < b->n; k++)
                if (k != big && rank[k] <= pass && need[k] > floor[k] && need[k] > next)
                    next = need[k];
            int cut = need[big] - next > 0 ? need[big] - next : 1;
            cut = cut < total - w ? cut : total - w;
            need[big] -= cut;
            total -= cut;
        }
    return total;
}

/* Lay the boxes of a band side by side in the screen's width less `extra`,
 * shrinking the widest first when they do not all fit. Returns the column
 * after the last box. */
static int band(Ctx *c, Band *b, int y, int h, int extra)
{
    int need[MAX_BOXES], total = 0, w = 0;
    c->rows_cut = (h - c->top) / c->row_step < band_rows(c, b);
    for (c->pad = 1; c->pad > 0; c->pad--)
        if ((total = band_need(c, b, extra, need, &w)) <= w)
            break;
    if (c->pad == 0)
        total = band_need(c, b, extra, need, &w);
    /* Who gives way: dots first, then the boxes no highlight is in, then
     * the inputs (to half their width, never below what the arithmetic
     * quotes), then all alike; then, short of room, anything down to one
     * column, so nothing is laid out past the screen. */
    /* Placeholders (dots) give way first, down to one column; when the
     * others still do not fit whole, they leave the band rather than a
     * quoted column scrolling away. */
    int dots_min = 0;
    for (int k = 0; k < b->n; k++) {
        int fl = box_floor(c, &b->box[k]);
        dots_min += b->box[k].placeholder && fl < need[k] ? fl : need[k];
    }
    for (int k = b->n - 1; k > 0 && total > w && dots_min > w; k--)
        if (b->box[k].placeholder && b->n > 1) {
            total -= need[k];
            w += c->gap;
            for (int m = k; m + 1 < b->n; m++) {
                b->box[m] = b->box[m + 1];
                need[m] = need[m + 1];
            }
            b->n--;
        }
    int rank[MAX_BOXES], one[MAX_BOXES], half[MAX_BOXES], floor[MAX_BOXES], gap = c->gap;
    for (int k = 0; k < b->n; k++) {
        const Box *x = &b->box[k];
        rank[k] = x->placeholder ? 0 : x->ci >= 0 ? 3 : x->hrow >= 0 || x->hcol >= 0 || x->all ? 2 : 1;
        one[k] = box_floor(c, x);
        one[k] = one[k] < need[k] ? one[k] : need[k];
        half[k] = need[k] / 2 > one[k] ? need[k] / 2 : one[k];
    }
    for (int pass = 0; pass < 4 && total > w; pass++) {
        for (int k = 0; k < b->n; k++)
            floor[k] = pass == 2 && rank[k] == 2 ? half[k] : one[k];
        total = squeeze(b, need, rank, floor, total, w, pass + 1);
    }
    if (total > w && b->n > 1 && gap > 1) { /* one blank between boxes instead of two */
        w += b->n - 1;
        gap = 1;
    }
    /* Still short: boxes nothing is highlighted in leave the band, last
     * first; the first too (S beside A and O at the output stage, newcomer
     * review 27), the next one then labelling the rows. */
    for (int k = b->n - 1; k >= 0 && b->n > 1 && total > w; k--)
        if (rank[k] <= 1) {
            total -= need[k];
            w += gap;
            for (int m = k; m + 1 < b->n; m++) {
                b->box[m] = b->box[m + 1];
                need[m] = need[m + 1];
                rank[m] = rank[m + 1];
            }
            b->n--;
            if (k == 0 && b->box[0].nolabel) {
                const Mat *m0 = &c->a->m[b->box[0].id];
                int more = label_width(c, b->box[0].id, m0, false) - label_width(c, b->box[0].id, m0, true);
                b->box[0].nolabel = false;
                need[0] += more;
                total += more;
            }
        }
    if (total > w) {
        int any[MAX_BOXES], last[MAX_BOXES];
        for (int k = 0; k < b->n; k++) {
            any[k] = 0;
            const Mat *m = &c->a->m[b->box[k].id];
            last[k] = label_width(c, b->box[k].id, m, b->box[k].nolabel) + cell_width(c, b->box[k].id) + 1;
            last[k] = last[k] < need[k] ? last[k] : need[k];
        }
        total = squeeze(b, need, any, last, total, w, 1);
    }
    /* Room to spare: a box whose whole title is wider than its cells gets
     * the columns it needs, so the title keeps its formula. */
    for (int k = 0; k < b->n && total < w; k++) {
        int want = box_title_width(c, &b->box[k]) - need[k] - (k + 1 < b->n ? gap - 2 : 0);
        if (want > 0) {
            int more = want < w - total ? want : w - total;
            need[k] += more;
            total += more;
        }
    }
    int x = 1;
    for (int k = 0; k < b->n; k++) {
        box(c, &b->box[k], y, x, need[k], h, k + 1 < b->n ? gap - 2 : 0); /* titles 2 apart */
        x += need[k] + gap;
    }
    c->rows_cut = false;
    return x - gap;
}

/* ---- the focused row's weights as bars ----------------------------------- */

/* The widest token among A's columns, the keys the bars are labelled by. */
static int keys_width(const Ctx *c)
{
    int lw = 0;
    for (int j = 0; j < c->a->m[M_A].cols; j++)
        lw = tok_width(c, j) > lw ? tok_width(c, j) : lw;
    return lw;
}

/* The columns of a bar's number: "0.313 -> 0.873" after an edit. */
#define BARS_NUMW(digits) (2 * ((digits) + 2) + 3)

/* The length of a bar of weight 1: one scale for a screen width, in every
 * mode, so 0.313 is as long in edit mode as in normal mode. */
static int bar_len(const Ctx *c)
{
    int bw = (c->cols - 40) / 8;
    return bw < 4 ? 4 : bw > 20 ? 20 : bw;
}

static int changed(const Ctx *c, MatId id, int i, int j);

/* Do the bars show before -> after: did a weight of the focused row change? */
static bool bars_before(const Ctx *c)
{
    const Attn *a = c->a, *b = &c->s->before;
    MatId ma = H(c, M_A);
    if (!c->s->has_before || b->reached < STAGE_SOFTMAX || !mat_same_shape(&a->m[ma], &b->m[ma]))
        return false;
    for (int j = 0; j < a->m[ma].cols; j++)
        if (changed(c, ma, c->in->fi, j))
            return true;
    return false;
}

/* The columns of the bars' numbers: room for "0.313 → 0.873" at every
 * step, so the boxes beside the bars keep their places when an edit
 * brings the before -> after (a redraw repaints only what changed). */
static int bars_numw(const Ctx *c)
{
    return BARS_NUMW(c->l->digits);
}

/* The columns the bars take: the keys' names, the bar and its number. */
static int bars_width(const Ctx *c)
{
    char t[64];
    snprintf(t, sizeof t, _("attention of row %d"), c->in->fi + 1);
    int w = keys_width(c) + 2 + bar_len(c) + bars_numw(c) + 1;
    return w > text_width(t) + 1 ? w : text_width(t) + 1;
}

static void bar(Ctx *c, int y, int x, int bw, double w, Role r)
{
    static const char *part[8] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (!(w >= 0))
        w = 0;
    if (w > 1)
        w = 1;
    int eighths = (int)lround(w * bw * 8);
    char buf[256];
    size_t n = 0;
    const char *full = c->in->ascii ? "#" : "█";
    /* bounded by the buffer, whatever the width asked for */
    for (int k = 0; k < eighths / 8 && n + strlen(full) + 4 < sizeof buf; k++, n += strlen(full))
        memcpy(buf + n, full, strlen(full));
    buf[n] = '\0';
    if (!c->in->ascii && n + 4 < sizeof buf)
        snprintf(buf + n, sizeof buf - n, "%s", part[eighths % 8]);
    put(c, y, x, bw, buf, r);
}

/* Bars for row fi of A: one per key, with before -> after after an edit. */
static void bars(Ctx *c, int y, int x, int w, int h)
{
    const Attn *a = c->a;
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    char t[256], n1[48], n2[48];
    MatId ma = H(c, M_A);
    int n = a->m[ma].cols, i = c->in->fi;
    /* The bars on A's data rows, below its column header, when they fit. */
    int top = c->top, step = c->row_step;
    if (top + (n - 1) * step >= h) {
        top = 1;
        step = 1;
    }
    int r0 = window(n, (h - top + step - 1) / step, c->in->fj);
    bool show_before = bars_before(c);
    snprintf(t, sizeof t, _("attention of row %d"), i + 1);
    put(c, y, x, w, t, ROLE_TITLE);
    int lw = keys_width(c), numw = bars_numw(c), bw = bar_len(c);
    for (int j = r0; j < n && top + (j - r0) * step < h; j++) {
        int yy = y + top + (j - r0) * step;
        double now = MAT_AT(&a->m[ma], i, j);
        bool hidden = session_ask_hidden(c->s, ma, i, j); /* an open ask: no bar, "?" */
        put_lesson(c, yy, x, lw, lesson_token(c->l, c->a, j), j == c->in->fj ? ROLE_COL : ROLE_LABEL);
        if (!hidden)
            bar(c, yy, x + lw + 1, bw, now, ROLE_BAR);
        if (hidden)
            snprintf(n2, sizeof n2, "?");
        else
            fmt_num(now, &fo, n2, sizeof n2);
        int d = hidden ? 0 : changed(c, ma, i, j);
        if (show_before && d) {
            fmt_num(before_cell(c, ma, i, j), &fo, n1, sizeof n1);
            snprintf(t, sizeof t, "%*s %s %*s", fo.digits + 2, n1, sym(c, "→", "->"), fo.digits + 2, n2);
        } else {
            snprintf(t, sizeof t, "%s", n2);
        }
        int tw = text_width(t) < numw ? text_width(t) : numw; /* right-aligned, as in a matrix */
        put(c, yy, x + lw + 2 + bw + numw - tw, tw, t, d ? ROLE_UP : ROLE_NORMAL);
    }
    add_block(c, BLOCK_BARS, y, x, w, h, h, false);
}

/* Does this band show A as the matrix being worked on (the softmax stage,
 * or the result of an edit), so the focused row's bars go beside it? */
static bool band_has_a(const Ctx *c, const Band *b)
{
    for (int k = 0; k < b->n; k++)
        if (attn_mat_base(b->box[k].id) == M_A && !b->box[k].placeholder && (b->box[k].ci >= 0 || c->in->mode == LAYOUT_EDIT))
            return true;
    return false;
}

/* The columns the focused row's bars get beside this band, 0 for none:
 * their width when the band fits beside them, letting placeholders (O,
 * not yet computed) go and unquoted boxes scroll their columns. */
static int bars_room(Ctx *c, Band *b)
{
    if (!band_has_a(c, b) || c->a->reached < STAGE_SOFTMAX)
        return 0;
    int need = bars_width(c), spare = band_spare(c, b);
    if (spare >= need)
        return need;
    Band less = *b;
    while (less.n > 1 && less.box[less.n - 1].placeholder)
        less.n--;
    spare = band_spare(c, &less);
    if (spare < need) { /* tight: one blank between boxes, the bars to the last column */
        c->gap = 1;
        spare = band_spare(c, &less) + 1;
        if (spare >= need) {
            *b = less;
            return need - 1;
        }
        c->gap = BAND_GAP;
    }
    /* Short of room, the boxes no arithmetic quotes may scroll their
     * columns for the bars; A too, whose focused row the bars repeat. */
    int give = 0, floors = 0;
    for (int k = 0; k < less.n; k++) {
        int fl = box_floor(c, &less.box[k]), nd = box_need(c, &less.box[k]);
        floors += fl < nd ? fl : nd;
        if (!less.box[k].quoted)
            give += nd - fl > 0 ? (nd - fl < nd / 2 ? nd - fl : nd / 2) : 0;
    }
    if (spare + give >= need) {
        *b = less;
        return need;
    }
    /* No room for the bars: A shows its focused row whole when it can... */
    if (floors + c->gap * (less.n - 1) <= c->cols - 2)
        return 0;
    /* ...else the bars stand in for A (they show that row whole), beside
     * what the arithmetic quotes. */
    Band noa = less;
    noa.n = 0;
    for (int k = 0; k < less.n; k++)
        if (less.box[k].id != M_A)
            noa.box[noa.n++] = less.box[k];
    if (noa.n == 0 || noa.n == less.n || band_spare(c, &noa) < need)
        return 0;
    *b = noa;
    return need;
}

/* ---- text ------------------------------------------------------------------ */

/* Is byte b part of a number or a word (digits, letters, the point)? */
static bool wordish(unsigned char b)
{
    return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '.' || b == '_';
}

/* Cut line (safe text, FMT_LINE bytes) to w columns, ending in " …",
 * never inside a number or a word. Arithmetic (terms) is cut at a space
 * between its terms, and an operator left dangling at the end (+ − × ÷ · =
 * , ;) goes with what was cut: "= (1.210)(0.510) + (0.900)(1.200) …", not
 * "= 1.69 …". Text without a space to cut at in reach (Chinese) is cut
 * between characters, but still not inside a number. */
static void ellipsize(const Ctx *c, char *line, int w, bool terms)
{
    const char *more = sym(c, " …", " ...");
    int room = w - text_width(more);
    size_t cut = text_fit(line, room > 0 ? room : 0), full = strlen(line);
    if (cut < full) {
        size_t k = cut;
        if (terms)
            while (k > 0 && line[k] != ' ')
                k--;
        else {
            while (k > 0 && wordish((unsigned char)line[k]) && wordish((unsigned char)line[k - 1]))
                k--;
            if (line[k] >= '0' && line[k] <= '9') /* a sign belongs to its number */
                k = k >= 3 && strncmp(line + k - 3, "−", 3) == 0 ? k - 3 : k >= 1 && line[k - 1] == '-' ? k - 1 : k;
        }
        if (k > 0)
            cut = k;
    }
    static const char *const dangling[] = {"+", "−", "-", "×", "÷", "·", "=", "*", "/", ",", ";", "→", "⇒"};
    for (bool again = true; again && cut > 0;) {
        while (cut > 0 && line[cut - 1] == ' ')
            cut--;
        again = false;
        for (size_t d = 0; terms && d < sizeof dangling / sizeof *dangling; d++) {
            size_t n = strlen(dangling[d]);
            if (cut > n && strncmp(line + cut - n, dangling[d], n) == 0 && line[cut - n - 1] == ' ') {
                cut -= n;
                again = true;
                break;
            }
        }
    }
    snprintf(line + cut, 8, "%s", more);
}

/* Wrap `text` (safe) at w columns into up to max lines, arithmetic between
 * its terms (fmt_wrap); returns the count, *more when text was left over. */
static int wrap(const char *text, int w, char lines[][FMT_LINE], int max, bool terms, bool *more)
{
    int n = 0;
    const char *p = text;
    while (*p && n < max) {
        size_t len = fmt_wrap(p, w, terms);
        snprintf(lines[n++], FMT_LINE, "%.*s", (int)len, p);
        for (p += len; *p == ' '; p++) {}
    }
    if (more)
        *more = *p != '\0';
    return n;
}

/* The cell the arithmetic explains: edit mode's cursor, else the focus. */
static void explained(const Ctx *c, MatId *m, int *i, int *j)
{
    const LayoutIn *in = c->in;
    int st = session_stage(c->s);
    if (in->mode == LAYOUT_EDIT && st <= STAGE_QKV) {
        *m = in->emat;
        *i = in->ei;
        *j = in->ej;
        return;
    }
    *m = st == STAGE_QKV ? in->fmat : H(c, attn_stage_mat(st));
    *i = in->fi;
    *j = in->fj;
}

int layout_arith(const Session *s, MatId m, int i, int j, bool row, const FmtOpt *fo, char lines[][FMT_LINE],
                 int max)
{
    if (!row || attn_mat_base(m) == M_A) /* A's arithmetic is the row's walk already */
        return session_explain(s, m, i, j, fo, lines, max);
    bool given = (m == M_X && s->cur.positions == POS_NONE) || attn_mat_is_param(m); /* with positions: h = x + p */
    if (given && max > 0) { /* given numbers: "x₁ = [1.000, 0.000]   (note)" */
        char name[48], num[64];
        int n = session_explain(s, m, i, 0, fo, lines, max);
        /* the note after the value, "   (…)" in English, "   （…）" in Chinese */
        const char *note = n > 0 ? strstr(lines[0], "   ") : NULL;
        char tail[FMT_LINE];
        snprintf(tail, sizeof tail, "%s", note ? note : "");
        effect_cell_name(m, i, -1, fo, name, sizeof name);
        snprintf(lines[0], FMT_LINE, "%s = [", name);
        for (int k = 0; k < s->cur.m[m].cols; k++)
            snprintf(lines[0] + strlen(lines[0]), FMT_LINE - strlen(lines[0]), "%s%s", k ? ", " : "",
                     session_ask_hidden(s, m, i, k) ? "?" : fmt_num(MAT_AT(&s->cur.m[m], i, k), fo, num, sizeof num));
        snprintf(lines[0] + strlen(lines[0]), FMT_LINE - strlen(lines[0]), "]%s", tail);
        return 1;
    }
    int n = 0;
    char one[FMT_MAX_LINES][FMT_LINE];
    for (int k = 0; k < s->cur.m[m].cols && n < max; k++) {
        int got = session_explain(s, m, i, k, fo, one, FMT_MAX_LINES);
        for (int g = 0; g < got && n < max; g++) {
            bool seen = false;
            for (int h = 0; h < n && !seen; h++)
                seen = strcmp(lines[h], one[g]) == 0;
            if (!seen)
                snprintf(lines[n++], FMT_LINE, "%s", one[g]);
        }
    }
    return n;
}

/* The note a line with " ≈ " carries, once per screen (fmt_note_approx). */
static const char *approx_note(const Ctx *c)
{
    return c->in->ascii ? _("(~: computed before rounding)") : _("(≈: computed before rounding)");
}

/* The arithmetic's lines wrapped at w; *first gets how many of them the
 * first cell takes (a row focus: the rest may give way before the
 * narration does). */
static int explain_lines(Ctx *c, int w, char lines[][FMT_LINE], int max, bool *more, int *first)
{
    char raw[FMT_MAX_LINES][FMT_LINE];
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    bool row = c->in->frow && c->in->mode != LAYOUT_EDIT;
    explained(c, &c->p->xmat, &c->p->xi, &c->p->xj);
    *more = false;
    /* the session's: what an open ask hides reads "?"; a row focus, every
     * cell of the row (lines the cells share, once) */
    int n = layout_arith(c->s, c->p->xmat, c->p->xi, c->p->xj, row, &fo, raw, FMT_MAX_LINES), out = 0;
    int one = n;
    if (row && attn_mat_base(c->p->xmat) != M_A) { /* the first cell's own lines */
        char tmp[FMT_MAX_LINES][FMT_LINE];
        one = session_explain(c->s, c->p->xmat, c->p->xi, 0, &fo, tmp, FMT_MAX_LINES);
    }
    *more = row && n == FMT_MAX_LINES && c->a->m[c->p->xmat].cols > 1;
    *first = 0;
    for (int k = 0; k < n; k++)
        c->noted = c->noted || strstr(raw[k], approx_note(c));
    for (int k = 0; k < n; k++) {
        if (out >= max) {
            *more = true;
            break;
        }
        bool left;
        out += wrap(raw[k], w, lines + out, max - out, true, &left);
        *more = *more || left;
        if (k + 1 == one)
            *first = out;
    }
    if (*first == 0)
        *first = out;
    return out;
}

/* The title card before step 1: the lesson's title and its about: (filled
 * in from the starting state), in the narration's place. */
static int card_lines(Ctx *c, int w, char lines[][FMT_LINE], int max, bool *more)
{
    char title[FMT_LINE];
    char *about = lesson_about_text(c->l, c->in->lang, c->in->ascii);
    char *safe = about ? fmt_prose(about, c->in->ascii) : NULL;
    text_sanitize(text_get(&c->l->title, c->in->lang), title, sizeof title, c->in->ascii);
    bool cut = false;
    int n = title[0] ? wrap(title, w, lines, max, false, &cut) : 0;
    if (safe && *safe && n > 0 && n < max)
        lines[n++][0] = '\0';
    n += safe && n < max ? wrap(safe, w, lines + n, max - n, false, more) : 0;
    *more = *more || cut;
    free(safe);
    free(about);
    return n;
}

/* The narration, its templates filled in from the live state (open asks
 * as "?"): session_say. */
static int say_lines(Ctx *c, int w, char lines[][FMT_LINE], int max, bool *more)
{
    *more = false;
    if (c->in->title_card)
        return card_lines(c, w, lines, max, more);
    char *say = session_say(c->s, c->in->lang, c->in->ascii);
    char *safe = say ? fmt_prose(say, c->in->ascii) : NULL;
    *more = false;
    int n = safe ? wrap(safe, w, lines, max, false, more) : 0;
    free(safe);
    free(say);
    return n;
}

/* Short lines of text (the notice, the trace, the tally): wrapped whole. */
static int text_lines(const Ctx *c, const char *text, int w, char lines[][FMT_LINE], int max, bool terms,
                      bool *more)
{
    char safe[FMT_LINE];
    text_sanitize(text, safe, sizeof safe, c->in->ascii);
    *more = false;
    return safe[0] ? wrap(safe, w, lines, max, terms, more) : 0;
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
static void status_hint(const Ctx *c, char *buf, size_t len, Role *role)
{
    const Attn *a = c->a;
    *role = ROLE_HINT;
    buf[0] = '\0';
    for (int i = 0; i < a->m[M_A].rows; i++) {
        AttnTrouble t = attn_row_trouble_head(a, c->s->head, i);
        if (t != ATTN_FINE) {
            snprintf(buf, len, "%s", trouble_text(t));
            *role = ROLE_ERROR;
            return;
        }
    }
    fmt_override_status(c->s, c->in->ascii, buf, len);
}

/* The status text: a message wins over the standing hint, unless the hint
 * is a warning (an overflow) and the message is not. Empty when neither. */
static Role status_text(const Ctx *c, char *line, size_t len)
{
    Role role;
    const LayoutIn *in = c->in;
    status_hint(c, line, len, &role);
    if (in->msg && in->msg[0] && (role != ROLE_ERROR || in->msg_role == ROLE_ERROR)) {
        text_sanitize(in->msg, line, len, in->ascii);
        role = in->msg_role;
    }
    return role;
}

/* ---- header, ribbon ----------------------------------------------------------- */

/* Today's models in the header: the window, RoPE and its offset, the
 * online softmax's blocks, and with shared K/V heads the numbers the KV
 * cache keeps per token. Returns the new length. */
static int header_modern(const Ctx *c, char *right, size_t len, int n, const char *dot)
{
    const Attn *a = c->a;
    char item[4][64];
    int k = 0;
    if (a->mask == MASK_WINDOW)
        snprintf(item[k++], sizeof item[0], "%s%s %d", dot, _("window"), a->window);
    if (a->positions == POS_ROPE)
        snprintf(item[k++], sizeof item[0], "%sRoPE", dot);
    if (a->softmax == SOFTMAX_ONLINE)
        snprintf(item[k++], sizeof item[0], "%s%s %d", dot, _("block"), a->block);
    if (attn_kv_heads(a) != attn_heads(a))
        snprintf(item[k++], sizeof item[0], _("%skv %d/%d, cache %d/token"), dot, attn_kv_heads(a), attn_heads(a),
                 attn_cache_per_token(a));
    for (int x = 0; x < k && n > 0 && n < (int)len; x++) /* each whole, leaving the title a third of the row */
        if (text_width(right) + text_width(item[x]) <= c->cols * 2 / 3)
            n += snprintf(right + n, len - (size_t)n, "%s", item[x]);
    if (a->offset != 0 && n > 0 && n < (int)len)
        n += snprintf(right + n, len - (size_t)n, "%s%s %d", dot, _("offset"), a->offset);
    return n;
}

static void header(Ctx *c)
{
    char right[256], t[40];
    const Session *s = c->s;
    const char *dot = " · ";
    int n = snprintf(right, sizeof right, "%d/%d%s%s %s%s%s", s->step + 1, session_steps(s), dot, _("scale"),
                     c->a->scale == SCALE_SQRT_DK ? sym(c, "÷√d", "/sqrt(d)") : _("none"), dot,
                     c->a->softmax == SOFTMAX_ONLINE ? _("online") : c->a->softmax == SOFTMAX_STABLE ? _("stable") : _("naive"));
    /* The newer options, only when they differ from the defaults. */
    if (c->a->mask == MASK_CAUSAL && n > 0 && n < (int)sizeof right)
        n += snprintf(right + n, sizeof right - (size_t)n, "%s%s", dot, _("causal"));
    n = header_modern(c, right, sizeof right, n, dot);
    if (c->a->temp != 1.0 && n > 0 && n < (int)sizeof right)
        n += snprintf(right + n, sizeof right - (size_t)n, "%sT=%s", dot, fmt_exact(c->a->temp, t, sizeof t));
    if (c->a->positions == POS_SINUSOIDAL && n > 0 && n < (int)sizeof right)
        snprintf(right + n, sizeof right - (size_t)n, "%s%s", dot, _("+pos"));
    int rw = text_width(right), room = c->cols - rw - 4;
    /* The lesson's title whole when it fits; else without "qkvtutor · ";
     * else cut, ending in "…". */
    char title[FMT_LINE];
    const char *brand = "qkvtutor · ";
    text_sanitize(text_get(&c->l->title, c->in->lang), title, sizeof title, c->in->ascii);
    int used = 0;
    if (text_width(brand) + text_width(title) <= room)
        used = put(c, 0, 1, room, brand, ROLE_TITLE);
    if (text_width(title) > room - used) {
        const char *more = sym(c, "…", "...");
        int keep = room - used - text_width(more);
        snprintf(title + text_fit(title, keep > 0 ? keep : 0), 8, "%s", more);
    }
    put(c, 0, 1 + used, room - used, title, ROLE_TITLE);
    put(c, 0, c->cols - rw - 1, rw, right, ROLE_HINT);
    add_block(c, BLOCK_HEADER, 0, 0, c->cols, 1, 1, false);
}

/* One ribbon item: "[3 QKᵀ/√d]" for the current stage, " 2 Q K V " for
 * another, or only " 2 " when `bare` (a ribbon too wide for its room). */
static void ribbon_item(const Ctx *c, int k, int st, bool bare, char *item, size_t len)
{
    static const char *utf[] = {"", "1 X", "2 Q K V", "3 QKᵀ", "4 softmax", "5 A·V", "6 O·Wo"};
    static const char *asc[] = {"", "1 X", "2 Q K V", "3 QK^T", "4 softmax", "5 A*V", "6 O*Wo"};
    const char *name = c->in->ascii ? asc[k] : utf[k];
    const char *div = k == STAGE_SCORES && c->a->scale == SCALE_SQRT_DK ? sym(c, "/√d", "/sqrt(d)") : "";
    if (k == st)
        snprintf(item, len, "[%s%s]", name, div);
    else if (bare)
        snprintf(item, len, " %d ", k);
    else
        snprintf(item, len, " %s%s ", name, div);
}

/* The stage ribbon; stage 3 reads QKᵀ/√d only when the scores are scaled.
 * With 2+ heads "head 2/3" stands at the right end, and the stages never
 * run into it: where the names do not all fit, only the current stage
 * keeps its name (" 1 ▸ 2 ▸ [3 QKᵀ] ▸ 4 ▸ 5 ▸ 6 "). */
static void ribbon(Ctx *c, int y)
{
    int st = session_stage(c->s), x = 1, last = attn_last_stage(c->a), end = c->cols;
    const char *sep = sym(c, last > STAGE_COUNT ? "▸" : " ▸ ", last > STAGE_COUNT ? ">" : " > ");
    if (attn_heads(c->a) > 1) { /* "head 2/3" at the right end; the stages show it at 3-5 */
        char hd[64];
        snprintf(hd, sizeof hd, _("head %d/%d"), c->s->head, attn_heads(c->a));
        int hw = text_width(hd);
        end = c->cols - hw - 2;
        put(c, y, end + 1, hw, hd, st >= STAGE_SCORES && st <= STAGE_OUTPUT ? ROLE_RIBBON_CUR : ROLE_DIM);
    }
    int w = 0; /* does the whole ribbon fit? */
    for (int k = 1; k <= last; k++) {
        char item[64];
        ribbon_item(c, k, st, false, item, sizeof item);
        w += text_width(item) + (k < last ? text_width(sep) : 0);
    }
    bool bare = x + w > end;
    for (int k = 1; k <= last; k++) {
        char item[64];
        ribbon_item(c, k, st, bare, item, sizeof item);
        Role r = k == st ? ROLE_RIBBON_CUR : k < st ? ROLE_RIBBON : ROLE_DIM;
        x += put(c, y, x, end - x, item, r);
        if (k < last)
            x += put(c, y, x, end - x, sep, ROLE_DIM);
    }
    add_block(c, BLOCK_RIBBON, y, 0, c->cols, 1, 1, false);
}

static void too_small(Ctx *c)
{
    char msg[256], lines[8][FMT_LINE];
    c->p->too_small = true;
    if (session_dirty(c->s))
        snprintf(msg, sizeof msg, _("The terminal is %dx%d; qkvtutor needs at least %dx%d. Enlarge it: "
                                    "you have unsaved edits."), c->cols, c->rows, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
    else
        snprintf(msg, sizeof msg, _("The terminal is %dx%d; qkvtutor needs at least %dx%d. Enlarge it, or press q."),
                 c->cols, c->rows, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
    int n = wrap(msg, c->cols > 2 ? c->cols - 2 : 1, lines, 8, false, NULL);
    for (int k = 0; k < n && k < c->rows; k++)
        put(c, k, 1, c->cols - 1, lines[k], ROLE_ERROR);
    add_block(c, BLOCK_TOO_SMALL, 0, 0, c->cols, n < c->rows ? n : c->rows, n, n > c->rows);
}

/* ---- the frame ------------------------------------------------------------------ */

/* On a tall screen the board keeps X and the Ws in view once S A O have
 * taken their place: between Q K V and S A O, all three Ws when they fit,
 * else Wq and Wk. Returns 1 when a band was added. */
static int context_band(Ctx *c, Band *b, int n)
{
    int rows = 0;
    if (session_stage(c->s) < STAGE_SCORES || n != 2)
        return 0;
    for (int k = 0; k < n; k++)
        rows += band_rows(c, &b[k]) + 3;
    Band x = {0};
    add(&x, mkbox(M_X, -1, ROLE_ROW, -1, -1, -1));
    for (MatId w = M_WQ; w <= M_WV; w++) /* training: Q K instead, the Ws are on top */
        add(&x, mkbox(training(c) ? (MatId)(w - M_WQ + M_Q) : w, -1, ROLE_ROW, -1, -1, -1));
    if (training(c))
        x.n = 3;
    if (band_spare(c, &x) < 0)
        x.n--;
    if (band_spare(c, &x) < 0 || rows + band_rows(c, &x) + 3 + 3 + 14 > c->rows)
        return 0;
    b[2] = b[1];
    b[1] = x;
    return 1;
}

/* A band whose quoted boxes cannot stand side by side even at their floors
 * (Q and K at 60 columns once q₁ is wide) goes on two bands: the first
 * quoted box, then the others; boxes nothing is quoted from leave. */
static void split_bands(Ctx *c, Band *b, int *nb)
{
    for (int k = 0; k < *nb && *nb < MAX_BANDS; k++) {
        Band *x = &b[k];
        int room, pad = c->pad, quoted = 0, floors = 0;
        c->pad = 0;
        band_need(c, x, 0, NULL, &room);
        c->pad = pad;
        for (int m = 0; m < x->n; m++)
            if (x->box[m].quoted || x->box[m].ci >= 0 || x->box[m].all) {
                Box y = x->box[m];
                if (y.hrow >= 0 && y.hrow_role == ROLE_COL)
                    y.nolabel = false; /* a key's row keeps its own labels when rows scroll */
                if (quoted == 0)
                    y.nolabel = false; /* the first labels the rows once the others leave */
                quoted++;
                floors += box_floor(c, &y) + 1;
            }
        if (quoted < 2 || floors - 1 <= c->cols - 2)
            continue;
        Band first = {0}, rest = {0};
        for (int m = 0; m < x->n; m++) {
            Box y = x->box[m];
            if (!(y.quoted || y.ci >= 0 || y.all))
                continue;
            y.nolabel = false;
            y.lrow = -1;
            add(first.n ? &rest : &first, y);
        }
        for (int m = *nb; m > k + 1; m--)
            b[m] = b[m - 1];
        b[k] = first;
        b[k + 1] = rest;
        (*nb)++;
        k++;
    }
}

/* The bands to lay out: edit mode's, the board, or in presentation mode
 * the stage's operands and its result. */
static int layout_bands(Ctx *c, Band *b)
{
    if (c->in->mode == LAYOUT_EDIT) {
        int n = edit_bands(c, b);
        split_bands(c, b, &n);
        return n;
    }
    int n;
    if (!c->in->present) {
        n = board_bands(c, b);
        n += context_band(c, b, n);
    } else {
        n = stage_bands(c, b);
    }
    row_focus(c, b, n);
    split_bands(c, b, &n);
    return n;
}

/* The matrices of the stage that are not on screen at all. */
static void note_omitted(Ctx *c)
{
    int st = session_stage(c->s);
    static const MatId all[] = {M_X, M_WQ, M_WK, M_WV, M_Q, M_K, M_V, M_S, M_A, M_O};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
        bool shown = false;
        for (int m = 0; m < c->p->nbox && !shown; m++)
            shown = c->p->box[m].id == all[k];
        if (!shown && attn_mat_stage(all[k]) <= st)
            c->p->omitted[c->p->nomitted++] = all[k];
    }
}

/* A text block below the matrices. Parts flow in screen order after the
 * matrices, except those anchored to the last rows (the status lines and
 * the key bar). Short of rows, parts give way by rank (lowest first):
 * first down to `soft` lines, before any matrix row scrolls, then down to
 * `min`. A part cut short ends in "…". A new block (an effect trace, a
 * notice) is one more Part with its place, rank and floors. */
typedef struct {
    BlockKind kind;
    Role role;
    bool bold;
    bool bottom;            /* anchored to the last rows */
    bool bar;               /* one line across the whole width (the key bar) */
    int gap;                /* blank rows above it, the first thing to go */
    int n, want;            /* lines kept, lines it has */
    int soft, min;          /* fewest lines before, and after, the matrices scroll */
    int rank;               /* gives way before the parts of higher rank */
    bool cut;               /* lines were left out: the last one ends in "…" */
    char (*lines)[FMT_LINE];
} Part;

#define MAX_PARTS 12
#define MAX_RANK 4

/* The vertical budget: every figure below the ribbon, in rows. */
typedef struct {
    int blank_top;           /* the blank row under the ribbon */
    int band_gap;            /* blank rows after each band */
    int n;
    Part part[MAX_PARTS];
} Budget;

static Part *add_part(Budget *g, Part p)
{
    if (g->n >= MAX_PARTS)
        return NULL;
    g->part[g->n] = p;
    return &g->part[g->n++];
}

static int mats_rows(Ctx *c, const Band *b, int nb, const Budget *g, bool floor)
{
    int r = 0;
    for (int k = 0; k < nb; k++)
        r += (floor ? band_keep(c, &b[k]) : band_rows(c, &b[k])) * c->row_step + c->top + g->band_gap;
    return r;
}

static int text_rows(const Budget *g)
{
    int r = g->blank_top;
    for (int k = 0; k < g->n; k++)
        r += g->part[k].n + (g->part[k].n ? g->part[k].gap : 0);
    return r;
}

static bool fits(Ctx *c, const Band *b, int nb, const Budget *g, bool floor)
{
    return text_rows(g) + mats_rows(c, b, nb, g, floor) <= c->rows - 2;
}

/* Parts give way, lowest rank first, down to their soft or hard floor. */
static void give_way(Ctx *c, const Band *b, int nb, Budget *g, bool hard, bool floor)
{
    for (int rank = 0; rank < MAX_RANK; rank++)
        for (int k = 0; k < g->n; k++) {
            Part *p = &g->part[k];
            int to = hard ? p->min : p->soft;
            while (p->rank == rank && p->n > to && !fits(c, b, nb, g, floor)) {
                p->n--;
                p->cut = true;
            }
        }
}

/* Does the arithmetic (or the focus) need anything in this band? */
static bool band_needed(const Band *b)
{
    for (int k = 0; k < b->n; k++) {
        const Box *x = &b->box[k];
        if (!x->placeholder && (x->ci >= 0 || x->quoted || x->all || x->hrow >= 0 || x->hcol >= 0))
            return true;
    }
    return false;
}

/* Give way, in order, until everything fits: presentation's double rows,
 * the blank lines, the bands the arithmetic quotes nothing from (Q K V at
 * the softmax stage: whole, so they read as left out, in Plan.omitted), then
 * those only the training panel names (W_Q and W_K, before its lines), the
 * parts down to their soft floors (narration to two lines, the key bar),
 * presentation's marks row, then the rows no arithmetic quotes
 * (band_heights); past that, the blanks between bands and the parts down
 * to their hard floors (narration, then arithmetic, to one line). */
static void budget(Ctx *c, Band *b, int *nb, Budget *g)
{
    if (c->row_step == 2 && !fits(c, b, *nb, g, false))
        c->row_step = 1;
    if (!fits(c, b, *nb, g, false))
        g->blank_top = 0;
    for (int k = g->n - 1; k >= 0 && !fits(c, b, *nb, g, false); k--)
        g->part[k].gap = 0;
    for (int k = 0; k < *nb && !fits(c, b, *nb, g, false);) {
        if (band_needed(&b[k]) || *nb == 1) {
            k++;
            continue;
        }
        for (int m = k; m + 1 < *nb; m++)
            b[m] = b[m + 1];
        (*nb)--;
    }
    /* then W_Q and W_K, shown for the training panel: the panel's own
     * lines come first (newcomer review 14); a band left empty goes */
    for (int k = 0; k < *nb && *nb > 1 && !fits(c, b, *nb, g, false); k++) {
        int n = 0;
        for (int m = 0; m < b[k].n; m++)
            if (!b[k].box[m].panel)
                b[k].box[n++] = b[k].box[m];
        if (n == b[k].n)
            continue;
        b[k].n = n;
        if (n == 0) {
            for (int m = k; m + 1 < *nb; m++)
                b[m] = b[m + 1];
            (*nb)--;
        }
        k--;
    }
    give_way(c, b, *nb, g, false, false);
    if (c->top == 3 && !fits(c, b, *nb, g, false))
        c->top = 2; /* presentation's marks row goes before a matrix row */
    if (fits(c, b, *nb, g, true))
        return; /* the matrices scroll what no arithmetic quotes */
    if (!fits(c, b, *nb, g, true))
        g->band_gap = 0;
    give_way(c, b, *nb, g, true, true);
}

/* Give the bands their rows in `avail`: the tallest gives way first,
 * down to the rows the arithmetic quotes, then down to one. */
static void band_heights(Ctx *c, const Band *b, int nb, int avail, int per, int *rows)
{
    int need = 0;
    for (int k = 0; k < nb; k++)
        need += rows[k] = band_rows(c, &b[k]);
    for (int pass = 0; pass < 2; pass++)
        while (need * c->row_step + per * nb > avail) {
            int big = -1;
            for (int k = 0; k < nb; k++) {
                int floor = pass == 0 ? band_keep(c, &b[k]) : 1;
                if (rows[k] > floor && (big < 0 || rows[k] - floor > rows[big] - (pass == 0 ? band_keep(c, &b[big]) : 1)))
                    big = k;
            }
            if (big < 0)
                break;
            rows[big]--;
            need--;
        }
}

/* Lay out a part from row y; returns the rows it took. */
static int lay_part(Ctx *c, Part *p, int y)
{
    if (p->bar) {
        int used = put(c, y, 0, c->cols, p->lines[0], p->role);
        fill(c, y, used, c->cols - used, p->role);
        add_block(c, p->kind, y, 0, c->cols, 1, 1, false);
        return 1;
    }
    if (p->cut && p->n > 0)
        ellipsize(c, p->lines[p->n - 1], c->cols - 2,
                  p->kind == BLOCK_ARITH || p->kind == BLOCK_TRAIN || p->kind == BLOCK_TRACE);
    for (int i = 0; i < p->n; i++)
        put_b(c, y + i, 1, c->cols - 2, p->lines[i], p->role, p->bold);
    if (p->n > 0 || p->want > 0)
        add_block(c, p->kind, y, 1, c->cols - 2, p->n, p->want, p->cut);
    return p->n;
}

/* The exercise line: the open question (in the step's question: words,
 * their templates filled in, when it has them) and how to answer it; on
 * the lesson's last step the tally, except on a slide (newcomer review
 * 28). "" when neither. */
static void ask_text(const Ctx *c, char *buf, size_t len)
{
    const Session *s = c->s;
    char name[64], tally[256];
    buf[0] = '\0';
    int k = session_ask_open(s);
    if (k < 0)
        k = session_ask_retry(s); /* answered wrong: still asked until retried or revealed */
    if (k >= 0) {
        ask_name(session_ask_at(s, k), name, sizeof name);
        const char *q = text_get(&session_step(s)->question, c->in->lang);
        TplOpt o = {c->l->digits, c->in->ascii, session_ask_hidden_cb, s, c->in->lang};
        char *words = *q ? template_expand_dup(q, &s->cur, c->l, &o) : NULL;
        char *safe = words ? fmt_prose(words, c->in->ascii) : NULL;
        if (c->in->slide && safe && *safe) /* a class sees the question; how to answer is the terminal's */
            snprintf(buf, len, "? %s %s", safe, name);
        else if (c->in->slide)
            snprintf(buf, len, "? %s", name);
        else if (safe && *safe)
            snprintf(buf, len, _("? %s %s: type your answer, Enter grades it; Space reveals it."), safe, name);
        else
            snprintf(buf, len, _("? %s: type your answer, Enter grades it; Space reveals it."), name);
        free(safe);
        free(words);
    }
    if (s->step == session_steps(s) - 1 && !c->in->picture) { /* a picture shows no student's tally */
        session_ask_tally(s, tally, sizeof tally);
        if (tally[0])
            snprintf(buf + strlen(buf), len - strlen(buf), _("%sYour answers: %s."), buf[0] ? "  " : "", tally);
    }
}

/* One short part (the trace, the notice, the exercise line): `text`
 * wrapped whole, kept until the narration is down to its floor (rank 1),
 * or after the arithmetic (rank 3). */
static void short_part(Ctx *c, Budget *g, BlockKind k, Role r, int rank, const char *text, bool terms,
                       char (*lines)[FMT_LINE])
{
    bool more;
    int n = text_lines(c, text, c->cols - 2, lines, 4, terms, &more);
    if (n == 0)
        return;
    add_part(g, (Part){k, r, .lines = lines, .n = n, .want = n + more, .cut = more, .soft = n, .min = 0,
                       .rank = rank});
}

/* The parts below the matrices: the arithmetic, the effect trace, the
 * edited-state notice, the narration (dimmed when the numbers are the
 * student's), the exercise line, the status lines and the key bar. */
static void parts(Ctx *c, Budget *g, char (*ari)[FMT_LINE], char (*say)[FMT_LINE], char (*st)[FMT_LINE],
                  char (*kb)[FMT_LINE], char (*more_lines)[FMT_LINE], char (*train)[FMT_LINE])
{
    const LayoutIn *in = c->in;
    char status[FMT_LINE], text[FMT_LINE];
    int w = c->cols - 2, first = 1;
    bool more;
    Part *p = add_part(g, (Part){BLOCK_ARITH, ROLE_ARITH, .lines = ari, .rank = 2});
    int one;
    p->n = explain_lines(c, w, ari, in->frow ? MAX_LINES / 2 : 6, &more, &one);
    p->want = p->n + more;
    p->cut = more;
    p->soft = p->n;
    if (one < p->n) { /* a row's other cells give way first, before the narration */
        p->rank = 0;
        p->soft = one;
    }
    p->min = p->n ? 1 : 0;
    bool arith = p->n > 0;
    if (training(c)) { /* the target, the loss and the chain rule */
        FmtOpt tf = {c->l->digits, in->ascii, false};
        char raw[6][FMT_LINE];
        int ti = train_focus_target(c->a, c->s->head > 0 ? c->s->head - 1 : 0, in->fi);
        /* an open ask on the target's row: the loss and α − t would give it away */
        tf.hiding = ti >= 0 && session_ask_hides_training(c->s, c->a->target[ti].head, c->a->target[ti].row);
        int nraw = train_lines(c->l, c->a, ti, in->fj, &tf, raw, 6);
        for (int k = 0; k < nraw && c->noted; k++) { /* the note once per screen: the arithmetic has it */
            char *note = strstr(raw[k], approx_note(c));
            if (note && note - raw[k] >= 3)
                note[-3] = '\0';
        }
        /* at the softmax stage, whose α the panel carries on, rank 2 with the
         * arithmetic: the narration (to two lines), the key bar and the trace
         * give way first (newcomer review 14); later, rank 0: its later lines
         * go before the narration */
        int trank = session_stage(c->s) == STAGE_SOFTMAX ? 2 : 0;
        p = add_part(g, (Part){BLOCK_TRAIN, ROLE_ARITH, .lines = train, .rank = trank});
        int head = 0; /* the lines of the first: the target and the loss, kept whole */
        for (int k = 0; k < nraw && p->n < 8; k++) {
            p->n += wrap(raw[k], w, train + p->n, 8 - p->n, true, &more);
            p->cut = p->cut || more;
            if (k == 0)
                head = p->n;
        }
        p->want = p->n + p->cut;
        p->soft = head < p->n ? head + 1 : head; /* the loss, and ∂L/∂s = α − t */
        p->min = head;
        p->gap = arith ? 1 : 0;
    }
    FmtOpt fo = {c->l->digits, in->ascii, false};
    if (session_trace_line(c->s, in->fi, in->fj, &fo, text, sizeof text))
        short_part(c, g, BLOCK_TRACE, ROLE_ARITH, 1, text, true, more_lines);
    /* above the narration: the head it is about, when another is shown;
     * a departed state's one line saying what is true and what departed */
    char (*notice)[FMT_LINE] = more_lines + 4;
    int nn = 0, about = session_say_head(c->s);
    bool cut;
    if (about && about != c->s->head) {
        snprintf(text, sizeof text, _("this step is about head %d — %s shows it"), about,
                 about < c->s->head ? "[" : "]");
        nn += text_lines(c, text, w, notice, 2, false, &cut);
    }
    bool diverged = session_notice(c->s, in->ascii, w, text, sizeof text);
    if (diverged)
        nn += text_lines(c, text, w, notice + nn, 4 - nn, false, &cut);
    if (nn)
        add_part(g, (Part){BLOCK_NOTICE, ROLE_HINT, .lines = notice, .n = nn, .want = nn, .soft = nn, .min = 0,
                           .rank = 1});
    p = add_part(g, (Part){BLOCK_SAY, diverged ? ROLE_DIM : ROLE_SAY, .bold = in->present, .lines = say, .rank = 0});
    p->n = say_lines(c, w, say, MAX_LINES, &more);
    p->want = p->n + more;
    p->cut = more;
    p->soft = p->n < 2 ? p->n : 2;
    p->min = p->n < 1 ? p->n : 1;
    /* one blank between the arithmetic and what follows it */
    if (arith && g->n > first)
        g->part[first].gap = in->present ? 2 : 1;
    ask_text(c, text, sizeof text);
    short_part(c, g, BLOCK_ASK, ROLE_PROMPT, 3, text, false, more_lines + 8);
    Role srole = status_text(c, status, sizeof status);
    p = add_part(g, (Part){BLOCK_STATUS, srole, .bottom = true, .lines = st, .rank = MAX_RANK});
    p->n = p->want = p->soft = p->min = status[0] ? wrap(status, w, st, MAX_LINES, false, NULL) : 0;
    if (in->keybar && (!in->present || in->field)) { /* presentation: only an open field */
        snprintf(kb[0], FMT_LINE, "%s", in->keybar);
        int keep = in->field ? 1 : 0; /* an open field never gives way */
        add_part(g, (Part){BLOCK_KEYBAR, ROLE_KEYBAR, .bottom = true, .bar = true, .n = 1, .want = 1, .soft = keep,
                           .min = keep, .rank = 1, .lines = kb});
    }
}

static void frame(Ctx *c, char (*lines)[FMT_LINE])
{
    header(c);
    ribbon(c, 1);
    Band bands[MAX_BANDS];
    int nb = layout_bands(c, bands);
    Budget g = {.blank_top = 1, .band_gap = 1};
    parts(c, &g, lines, lines + MAX_LINES, lines + 2 * MAX_LINES, lines + 3 * MAX_LINES, lines + 4 * MAX_LINES,
          lines + 5 * MAX_LINES);
    c->top = c->in->present ? 3 : 2;
    c->row_step = c->in->present ? 2 : 1;
    budget(c, bands, &nb, &g);
    int y = 2 + g.blank_top, rows[MAX_BANDS];
    band_heights(c, bands, nb, c->rows - y - (text_rows(&g) - g.blank_top), c->top + g.band_gap, rows);
    int y0 = y;
    for (int k = 0; k < nb; k++) {
        int h = rows[k] * c->row_step + c->top, extra = bars_room(c, &bands[k]);
        bool tight = c->gap < BAND_GAP;
        int end = band(c, &bands[k], y, h, extra), bx = c->cols - extra;
        if (c->in->present && end + BAND_GAP < bx) /* a big screen: the bars beside A, not at the edge (review 26) */
            bx = end + BAND_GAP;
        if (extra > 0)
            bars(c, y, bx, tight ? extra : extra - 1, h);
        c->gap = BAND_GAP;
        y += h + g.band_gap;
    }
    add_block(c, BLOCK_MATRICES, y0, 0, c->cols, y - y0, mats_rows(c, bands, nb, &g, false), false);
    int bottom = c->rows; /* the anchored parts, from the last row up */
    for (int k = g.n - 1; k >= 0; k--)
        if (g.part[k].bottom && g.part[k].n > 0)
            bottom -= g.part[k].n;
    for (int k = 0, yb = bottom; k < g.n; k++) {
        Part *p = &g.part[k];
        if (p->bottom) {
            yb += lay_part(c, p, yb);
            continue;
        }
        if (p->n > 0 && p->gap)
            y += p->gap <= bottom - y - p->n ? p->gap : 0;
        if (p->n > bottom - y) { /* no room left for all its lines */
            p->n = bottom - y > 0 ? bottom - y : 0;
            p->cut = true;
        }
        y += lay_part(c, p, y);
    }
    note_omitted(c);
}

void layout_plan(const LayoutIn *in, Plan *p)
{
    Ctx c = {0};
    c.in = in;
    c.p = p;
    c.s = in->s;
    c.l = in->s->lesson;
    c.a = &in->s->cur;
    c.cols = in->cols;
    c.rows = in->rows;
    c.row_step = 1;
    c.top = 2;
    c.gap = BAND_GAP;
    plan_reset(p);
    if (c.cols < LAYOUT_MIN_COLS || c.rows < LAYOUT_MIN_ROWS) {
        too_small(&c);
        return;
    }
    char (*lines)[FMT_LINE] = malloc(sizeof(char[FMT_LINE]) * MAX_LINES * 6);
    if (!lines) {
        p->oom = true;
        return;
    }
    frame(&c, lines);
    free(lines);
}

/* ---- reading a plan back ------------------------------------------------------ */

const PlanBlock *plan_block(const Plan *p, BlockKind k)
{
    for (int b = 0; b < p->nblock; b++)
        if (p->block[b].kind == k)
            return &p->block[b];
    return NULL;
}

const PlanCell *plan_cell(const Plan *p, MatId id, int i, int j)
{
    for (int k = 0; k < p->ncell; k++)
        if (p->cell[k].id == id && p->cell[k].i == i && p->cell[k].j == j)
            return &p->cell[k];
    return NULL;
}

bool plan_hit(const Plan *p, int y, int x, MatId *id, int *i, int *j, int *click)
{
    for (int k = 0; k < p->nbox; k++) {
        const PlanBox *b = &p->box[k];
        if (b->placeholder || x < b->cx || y < b->cy)
            continue;
        int cc = (x - b->cx) / b->cw, r = (y - b->cy) / b->step;
        if (r >= b->nr || cc >= b->nc)
            continue;
        *id = b->id;
        *i = b->r0 + r;
        *j = b->c0 + cc;
        *click = b->click;
        return true;
    }
    return false;
}

void layout_focus_step(Session *s, int *fi, int *fj, bool *frow, MatId *fmat)
{
    const Focus *f = &session_step(s)->focus;
    *frow = false;
    if (f->kind == FOCUS_NONE)
        return;
    *fi = f->i;
    *fj = f->kind == FOCUS_CELL ? f->j : 0;
    *frow = f->kind == FOCUS_ROW; /* the row as a whole: its every cell explained */
    if (f->mat >= M_Q && f->mat <= M_V)
        *fmat = f->mat;
    /* With heads, a cell of the joined O (or of Q, K, V from stage 3 on) is
     * its head's: look at that head, at the head's column. */
    MatId b = f->mat;
    int heads = attn_heads(&s->cur), st = session_stage(s);
    if (heads > 1 && st >= STAGE_SCORES && st <= STAGE_OUTPUT && (b == M_O || (b >= M_Q && b <= M_V))) {
        int w = b == M_V || b == M_O ? attn_d_v(&s->cur) : attn_d_k(&s->cur);
        session_set_head(s, *fj / w + 1);
        *fj %= w;
    }
}

void layout_clamp_focus(const Session *s, int *fi, int *fj, MatId fmat)
{
    int st = session_stage(s);
    MatId f = st == STAGE_QKV ? fmat : attn_shown(&s->cur, attn_stage_mat(st), s->head);
    int rows = s->cur.m[f].rows, cols = s->cur.m[f].cols;
    *fi = *fi >= rows ? rows - 1 : *fi < 0 ? 0 : *fi;
    *fj = *fj >= cols ? cols - 1 : *fj < 0 ? 0 : *fj;
}

bool layout_narration_fits(const Session *s, int step, Lang lang, int cols, int rows)
{
    int room[3];
    return layout_narration_room(s, step, lang, cols, rows, room);
}

bool layout_narration_room(const Session *s, int step, Lang lang, int cols, int rows, int room[3])
{
    Session t;
    room[0] = room[1] = room[2] = 0;
    Plan p;
    /* The rule is the author's: the narration fits in the script's own state.
     * A saved lesson's edited: log would add the departure notice, which
     * the narration may give a line to (it then ends in "…"). */
    Lesson scripted = *s->lesson;
    scripted.nedited = 0;
    scripted.edited = NULL;
    if (!session_init(&t, &scripted))
        return false;
    session_goto(&t, step);
    LayoutIn in = {.s = &t, .lang = lang, .mode = LAYOUT_NORMAL, .fmat = M_Q, .emat = M_Q, .msg_role = ROLE_HINT,
                   .keybar = "", .cols = cols, .rows = rows};
    layout_focus_step(&t, &in.fi, &in.fj, &in.frow, &in.fmat);
    layout_clamp_focus(&t, &in.fi, &in.fj, in.fmat);
    plan_init(&p);
    layout_plan(&in, &p);
    const PlanBlock *b = plan_block(&p, BLOCK_SAY);
    bool fits = !p.too_small && !p.oom && (!b || !b->cut);
    if (b) {
        room[0] = b->w;
        room[1] = b->h;
        room[2] = b->want;
    }
    plan_free(&p);
    session_free(&t);
    return fits;
}
