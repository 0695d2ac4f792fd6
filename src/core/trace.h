/* trace.h - the effect trace: how a change travelled through the pipeline.
 *
 * Given the state before and after a change (an edit, a toggle, undo, redo,
 * reset), trace_compute() finds the earliest stage whose inputs or results
 * differ (X or a W, then Q/K/V, then S, then A, then O) and, for every later
 * stage both states reached, the focused query row's cell before -> after:
 *
 *   origin Q row 1  =>  S[1][1] -0.066 -> 3.013  =>  A[1][1] 0.313 -> 0.873  =>  O[1][1] ...
 *
 * A stage's cell is (i, j) with j clamped to the matrix's width. For the
 * Q/K/V stage after a change of X or a W, it is the first changed cell of
 * q_i, else of k_j, else of v_j (what the focused score reads), else of any
 * row of Q, K or V, else Q[i][j]; after a change of column c of Wq, Wk or
 * Wv, the cell is in column c of Q, K or V. When that cell is in another
 * query row r (Q) or key row r (K, V), the later stages follow row r of S
 * and A (or column r) instead of i (or j), so every cell shown changed
 * because of the origin. A swap (the states' token order differs) is
 * TRACE_SWAP, and cells are then compared token by token, as the change
 * marks and the bars compare them (a row that only moved is unchanged):
 * a cell's before is the same token's (bi, bj), the cell it left, which the
 * line names ("α₃₁ (was α₁₃) 0.350 → 0.350"); P and the weights, which
 * stay with the positions, compare by position. Positions switched on or
 * off show as P changing.
 * Matrices of stages a state has not reached hold stale numbers and are not
 * compared (only the hand-set rows of Q/K/V, which are inputs).
 * The mask kind also covers a window's width, the softmax kind the online
 * softmax's block. After attn_append (after has one token more, the earlier
 * rows of X the same) the kind is TRACE_APPEND and the cells are the new
 * row's: Q[n][j], S[n][j], A[n][j], O[n][j], Y[n][j] with `added` set.
 * Past the Q/K/V stage the cells are the focused cell's own path, walked
 * back from the last stage reached (S[i][j], A[i][j], O[i][j'] or Y[i][j'])
 * through cells that changed, each one that the next really depends on
 * (reverting it alone and recomputing the next stage moves that cell) and
 * that moved because of the origin (the state recomputed with the origin as
 * before gives the cell back): a changed Q row r reaches S, A, O only in
 * row r, a K row r column r of S, a V row only O. A stage may be skipped
 * (v_2 => o_12). When the focused cell did not move, no_effect is set, n is
 * 0 and `focus` names it. Swaps and appends follow the rows as above.
 * A change of several inputs (a gradient step moves W_Q and W_K) names the
 * first as the origin and the later ones in also[]. Data only: words/live.h
 * writes the line. */
#ifndef QKV_TRACE_H
#define QKV_TRACE_H

#include <stdbool.h>
#include "attn.h"

typedef enum {
    TRACE_NONE,         /* nothing differs */
    TRACE_MATRIX,       /* an input or a result matrix: origin_mat */
    TRACE_SCALE,        /* the scaling option (origin is then S) */
    TRACE_SOFTMAX,      /* the softmax option (origin is then A) */
    TRACE_MASK,         /* the mask option (origin is then S) */
    TRACE_TEMP,         /* the temperature (origin is then A) */
    TRACE_SWAP,         /* two tokens traded rows: origin_i and origin_j are the rows */
    TRACE_POSITIONS,    /* RoPE switched, or its base or the offset changed (origin Q) */
    TRACE_APPEND        /* a token was added (attn_append): origin X, origin_i its row;
                           the cells follow the new row and have no before (NaN) */
} TraceKind;

#define TRACE_ROWS 3
#define TRACE_ALSO 3

typedef struct {
    MatId mat;
    int i, j;           /* 0-based */
    int bi, bj;         /* the cell of before holding the same tokens: (i, j) but after a swap */
    double before, after;
} TraceCell;

typedef struct {
    TraceKind kind;
    MatId origin;       /* the first matrix that differs (TRACE_MATRIX) */
    int origin_i, origin_j;  /* its first differing cell, 0-based */
    bool origin_row;    /* more than one cell of that row differs */
    int nrows;          /* rows of the origin that differ (up to TRACE_ROWS kept in rows[]): */
    int rows[TRACE_ROWS];    /* in order; the focused row always among them when it differs */
    bool added;         /* TRACE_APPEND: the cells' row is new (before is NaN) */
    int nalso;          /* TRACE_MATRIX: later inputs that differ too (a gradient step moves W_Q */
    struct {            /* and W_K): each with its rows that differ, as rows[] above */
        MatId mat;
        int nrows;
        int rows[TRACE_ROWS];
    } also[TRACE_ALSO];
    int n;              /* cells after the origin: the focused cell's own path */
    TraceCell cell[STAGE_MAX];
    bool no_effect;     /* the focused cell `focus` did not move: no path (n is 0) */
    TraceCell focus;
} Trace;

/* Compare two states of the same shapes for query row i and key column j
 * (0-based). Returns false (and t->kind = TRACE_NONE) when they do not
 * differ or the shapes do not match. */
bool trace_compute(const Attn *before, const Attn *after, int i, int j, Trace *t);
/* The same, following head `head`'s S, A and O (1-based; 0 or one head: the
 * plain ones); stage 6 adds Y[i][j]. */
bool trace_compute_head(const Attn *before, const Attn *after, int head, int i, int j, Trace *t);

#endif
