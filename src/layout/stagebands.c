/* stagebands.c - which matrices a stage shows, in which bands, and what is
 * highlighted in them (the operands of the focused cell's arithmetic). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "lesson/train.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "layout.h"
#include "layout_int.h"

/* ---- which matrices a stage shows ----------------------------------------- */

Box box_make(MatId id, int hrow, Role hrole, int hcol, int ci, int cj)
{
    Box b = {id, false, hrow, hrole, hcol, ci, cj, false, false, -1, false, false, false};
    return b;
}

static Box operand(MatId id, int hrow, Role hrole, int hcol)
{
    Box b = box_make(id, hrow, hrole, hcol, -1, -1);
    b.quoted = true;
    return b;
}

/* What stage 2 projects into f (Q, K or V): X, or H with positions; the
 * source's Xs for K and V with cross-attention. */
static MatId qkv_input(const Frame *c, MatId f)
{
    if (attn_is_cross(c->a) && attn_mat_base(f) != M_Q)
        return M_XS;
    return c->a->positions == POS_SINUSOIDAL ? M_H : M_X;
}

/* A result on the board: the focused cell, its row label and column
 * header; the rows and columns it came from are highlighted in its inputs. */
static Box result_box(MatId id, int i, int j)
{
    return box_make(id, -1, ROLE_ROW, -1, i, j);
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
void stage_row_focus(const Frame *c, Band *b, int n)
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

void band_add(Band *b, Box x)
{
    if (b->n < MAX_BOXES)
        b->box[b->n++] = x;
}

/* The bands that follow a focus (f's cell i, j at stage 2): the stage's
 * operands above, its result below (presentation and edit mode). */
static int stage_bands_at(const Frame *c, Band *b, MatId f, int i, int j)
{
    int st = session_stage(c->s);
    if (st != STAGE_INPUT && (f < M_Q || f > M_V)) /* Xs is stage 1's focus only */
        f = M_Q;
    memset(b, 0, sizeof(Band) * 2);
    switch (st) {
    case STAGE_PROJECT:
        band_add(&b[0], operand(M_O, i, ROLE_ROW, -1));
        band_add(&b[0], operand(M_WO, -1, ROLE_ROW, j));
        band_add(&b[1], box_make(M_Y, i, ROLE_ROW, j, i, j));
        return 2;
    case STAGE_INPUT:
        if (c->a->positions == POS_SINUSOIDAL) { /* X + P = H, the cell's sum */
            band_add(&b[0], operand(M_X, i, ROLE_ROW, -1));
            band_add(&b[0], operand(M_P, i, ROLE_ROW, -1));
            band_add(&b[1], box_make(M_H, i, ROLE_ROW, -1, i, j));
            return 2;
        }
        band_add(&b[0], f == M_XS ? box_make(M_X, -1, ROLE_ROW, -1, -1, -1) : box_make(M_X, i, ROLE_ROW, -1, i, j));
        if (attn_is_cross(c->a)) /* the source's rows beside the target's */
            band_add(&b[0], f == M_XS ? box_make(M_XS, i, ROLE_ROW, -1, i, j) : box_make(M_XS, -1, ROLE_ROW, -1, -1, -1));
        for (MatId w = M_WQ; w <= M_WV; w++)
            band_add(&b[1], box_make(w, -1, ROLE_ROW, -1, -1, -1));
        return 2;
    case STAGE_QKV:
        band_add(&b[0], operand(qkv_input(c, f), i, ROLE_ROW, -1));
        band_add(&b[0], operand((MatId)(f - M_Q + M_WQ), -1, ROLE_ROW, j));
        for (MatId m = M_Q; m <= M_V; m++)
            band_add(&b[1], m == f ? box_make(m, i, ROLE_ROW, j, i, j) : box_make(m, -1, ROLE_ROW, -1, -1, -1));
        return 2;
    case STAGE_SCORES:
        band_add(&b[0], operand(HEAD_MAT(c, M_Q), i, ROLE_ROW, -1));
        band_add(&b[0], operand(HEAD_MAT(c, M_K), j, ROLE_COL, -1));
        band_add(&b[1], heat(box_make(HEAD_MAT(c, M_S), i, ROLE_ROW, j, i, j)));
        return 2;
    case STAGE_SOFTMAX:
        band_add(&b[0], heat(operand(HEAD_MAT(c, M_S), i, ROLE_ROW, -1)));
        band_add(&b[1], heat(box_make(HEAD_MAT(c, M_A), i, ROLE_ROW, j, i, j)));
        return 2;
    default:
        band_add(&b[0], heat(operand(HEAD_MAT(c, M_A), i, ROLE_ROW, -1)));
        band_add(&b[0], operand(HEAD_MAT(c, M_V), -1, ROLE_ROW, j));
        band_add(&b[1], box_make(HEAD_MAT(c, M_O), i, ROLE_ROW, j, i, j));
        return 2;
    }
}

int stage_bands(const Frame *c, Band *b)
{
    return stage_bands_at(c, b, c->in->fmat, c->in->fi, c->in->fj);
}

/* Is the training panel shown: targets set, from the softmax stage on? */
bool stage_training(const Frame *c)
{
    return c->a->ntarget > 0 && session_stage(c->s) >= STAGE_SOFTMAX && c->a->reached >= STAGE_SOFTMAX;
}

/* The board's second band while Q K V are made: X and the three Ws when
 * they fit side by side, else X and the W in use (with positions, H: what
 * stage 2 projects); at stage 1 with positions, X + P = H. */
static int board_inputs(Frame *c, Band *b, MatId f, int i, int j, int st)
{
    bool pos = c->a->positions == POS_SINUSOIDAL;
    if (pos && st == STAGE_INPUT) { /* X + P = H */
        band_add(&b[1], operand(M_X, i, ROLE_ROW, -1));
        band_add(&b[1], operand(M_P, i, ROLE_ROW, -1));
        band_add(&b[1], box_make(M_H, i, ROLE_ROW, -1, i, j));
        return 2;
    }
    Band *xw = &b[1];
    if (attn_is_cross(c->a)) { /* cross: X and Xs, then the W in use (all three when they fit) */
        bool fx = f == M_XS;
        MatId in = st == STAGE_QKV ? qkv_input(c, f) : fx ? M_XS : M_X;
        band_add(xw, st == STAGE_INPUT && !fx ? box_make(M_X, i, ROLE_ROW, -1, i, j)
                     : in == M_X             ? operand(M_X, i, ROLE_ROW, -1)
                                             : box_make(M_X, -1, ROLE_ROW, -1, -1, -1));
        band_add(xw, st == STAGE_INPUT && fx ? box_make(M_XS, i, ROLE_ROW, -1, i, j)
                     : in == M_XS            ? operand(M_XS, i, ROLE_ROW, -1)
                                             : box_make(M_XS, -1, ROLE_ROW, -1, -1, -1));
        int fw = f >= M_Q && f <= M_V ? f - M_Q : 0;
        for (MatId w = M_WQ; w <= M_WV; w++)
            band_add(xw, st == STAGE_QKV && (int)(w - M_WQ) == fw ? operand(w, -1, ROLE_ROW, j) : box_make(w, -1, ROLE_ROW, -1, -1, -1));
        if (band_spare(c, xw) < 0) {
            xw->box[2] = xw->box[2 + fw];
            xw->n = 3;
        }
        if (band_spare(c, xw) < 0 && st == STAGE_QKV) { /* only what the focused cell quotes */
            xw->box[0] = xw->box[in == M_X ? 0 : 1];
            xw->box[1] = xw->box[2];
            xw->n = 2;
        }
        return 2;
    }
    band_add(xw, st == STAGE_INPUT ? box_make(M_X, i, ROLE_ROW, -1, i, j) : operand(pos ? M_H : M_X, i, ROLE_ROW, -1));
    for (MatId w = M_WQ; w <= M_WV; w++)
        band_add(xw, st == STAGE_QKV && w - M_WQ == f - M_Q ? operand(w, -1, ROLE_ROW, j) : box_make(w, -1, ROLE_ROW, -1, -1, -1));
    if (band_spare(c, xw) < 0) {
        xw->box[1] = xw->box[1 + f - M_Q];
        xw->n = 2;
    }
    return 2;
}

/* The board, the normal layout: Q K V on top from the first step, and below
 * them X with the W in use while Q K V are made, then S A O. A matrix keeps
 * its place from step to step and a stage fills in dots, so a next redraws
 * only what box_changed (`make bench`: bytes_ratio_next). */
int board_bands(Frame *c, Band *b)
{
    int i = c->in->fi, j = c->in->fj, st = session_stage(c->s);
    MatId f = c->in->fmat;
    if (st != STAGE_INPUT && (f < M_Q || f > M_V)) /* Xs is stage 1's focus only */
        f = M_Q;
    memset(b, 0, sizeof(Band) * 2);
    if (st == STAGE_PROJECT) /* O with its heads' column groups, W_O, Y */
        return stage_bands_at(c, b, f, i, j);
    for (MatId m = M_Q; m <= M_V; m++) {
        Box x = box_make(st >= STAGE_SCORES ? HEAD_MAT(c, m) : m, -1, ROLE_ROW, -1, -1, -1);
        if (st < STAGE_QKV)
            x.placeholder = true;
        else if (st == STAGE_QKV && m == f)
            x = result_box(m, i, j);
        else if (st == STAGE_SCORES && m != M_V)
            x = m == M_Q ? operand(HEAD_MAT(c, m), i, ROLE_ROW, -1) : operand(HEAD_MAT(c, m), j, ROLE_COL, -1);
        else if (st == STAGE_OUTPUT && m == M_V)
            x = operand(HEAD_MAT(c, m), -1, ROLE_ROW, j);
        band_add(&b[0], x);
    }
    if (st <= STAGE_QKV)
        return board_inputs(c, b, f, i, j, st);
    if (stage_training(c)) { /* what a step changes, W_Q and W_K, in place of Q K V */
        b[0].n = 0;
        Box wq = box_make(M_WQ, -1, ROLE_ROW, -1, -1, -1), wk = box_make(M_WK, -1, ROLE_ROW, -1, -1, -1);
        wq.quoted = wk.quoted = true; /* the panel's ∂L/∂W_Q and ∂L/∂W_K: kept on screen */
        wq.panel = wk.panel = true;   /* ... unless the panel itself needs the rows */
        band_add(&b[0], wq);
        band_add(&b[0], wk);
        if (st == STAGE_OUTPUT)
            band_add(&b[0], operand(M_V, -1, ROLE_ROW, j));
    }
    MatId ms = HEAD_MAT(c, M_S), ma = HEAD_MAT(c, M_A), mo = HEAD_MAT(c, M_O);
    Box s = st == STAGE_SCORES ? result_box(ms, i, j) : st == STAGE_SOFTMAX ? operand(ms, i, ROLE_ROW, -1) : box_make(ms, -1, ROLE_ROW, -1, -1, -1);
    Box a = st == STAGE_SOFTMAX ? result_box(ma, i, j) : st == STAGE_OUTPUT ? operand(ma, i, ROLE_ROW, -1) : box_make(ma, -1, ROLE_ROW, -1, -1, -1);
    Box o = st == STAGE_OUTPUT ? result_box(mo, i, j) : box_make(mo, -1, ROLE_ROW, -1, -1, -1);
    s.heat = a.heat = true;
    a.placeholder = st < STAGE_SOFTMAX;
    o.placeholder = st < STAGE_OUTPUT;
    band_add(&b[1], s);
    band_add(&b[1], a);
    band_add(&b[1], o);
    if (st == STAGE_OUTPUT && attn_heads(c->a) > 1) { /* the heads' O side by side, when it fits */
        band_add(&b[1], box_make(M_O, i, ROLE_ROW, -1, -1, -1));
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
int edit_bands(Frame *c, Band *b)
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
            band_add(&b[n], m == e ? box_make(m, in->ei, ROLE_ROW, -1, in->ei, in->ej) : box_make(m, -1, ROLE_ROW, -1, -1, -1));
    else {
        bool x = e == M_X || e == M_XS; /* an input: X, or the source's Xs (with Wk, what it feeds) */
        MatId w = e == M_X ? M_WQ : e == M_XS ? M_WK : e; /* W_O goes with O, what it multiplies, once O is computed */
        MatId in0 = e == M_WO && c->a->reached >= STAGE_OUTPUT ? M_O : M_X;
        band_add(&b[n], x ? box_make(e, in->ei, ROLE_ROW, -1, in->ei, in->ej) : box_make(in0, -1, ROLE_ROW, -1, -1, -1));
        band_add(&b[n], x ? box_make(w, -1, ROLE_ROW, -1, -1, -1) : box_make(w, in->ei, ROLE_ROW, -1, in->ei, in->ej));
    }
    n++;
    if (st < STAGE_SCORES) {
        for (MatId m = M_Q; m <= M_V; m++)
            band_add(&b[n], box_make(m, -1, ROLE_ROW, -1, -1, -1));
        return n + 1;
    }
    Band sb[2];
    stage_bands(c, sb);
    /* Side by side when they fit (S with A, A with O), else one band each. */
    Band one = sb[0];
    for (int m = 0; m < sb[1].n; m++)
        band_add(&one, sb[1].box[m]);
    if (band_spare(c, &one) >= 0) {
        sb[0] = one;
        sb[1].n = 0;
    }
    for (int k = 0; k < 2; k++) {
        for (int m = 0; m < sb[k].n; m++) {
            Box *have = find_box(b, n, sb[k].box[m].id), *want = &sb[k].box[m];
            if (!have)
                band_add(&b[n], *want);
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
