/* layout_int.h - what the layout's files share, and nobody else sees.
 *
 * The layout is split by widget: plan.c (the plan's storage), stagebands.c
 * (which matrices a stage shows), box.c (one matrix), band.c (boxes side by
 * side), bars.c (the weights as bars), textblock.c (arithmetic, narration,
 * status), board.c (the frame's bands and budget), mlayout.c, mgrid.c and
 * mview.c (a model lesson's frames), parts.c (the text parts below the matrices), header.c (header
 * and ribbon), present.c (presentation on a big screen) and layout.c (the
 * frame's budget).
 * A Frame is one frame being laid out: it lives on layout_plan()'s stack
 * and is written into the Plan; nothing here keeps state between frames.
 * Only the layout's own .c files include this file (after layout.h, which
 * it does not include itself: plandata.h holds the types both need). No curses. */
#ifndef QKV_LAYOUT_INT_H
#define QKV_LAYOUT_INT_H

#include "core/grow.h"
#include "plandata.h"

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
    int marks;              /* 1: cells whose change marks need a column get it (band_lay, when all fits) */
    int widest[M_COUNT];    /* the widest number per matrix, 0: not yet known */
    int row_step;           /* rows per matrix row: 2 in presentation mode with room */
    int top;                /* rows above a box's cells: title, (marks,) column header */
    int band_r0;            /* the first row shown by the last labelled box */
    bool rows_cut;          /* the band being laid out scrolls its rows */
    int gap;                /* blank columns between boxes: BAND_GAP, or 1 beside tight bars */
    bool noted;             /* the arithmetic says "(≈: computed before rounding)" already */
    int *tokw;              /* token i's columns + 1 once measured (0: not yet), or NULL */
    int bars_w;             /* the weight bars' columns (bars_width), measured once per frame */
    /* a model lesson (mlayout.c): the state shown, the one before the last
     * change (NULL: none), the layer and stage shown, the vocab's names;
     * model NULL: a one-layer lesson */
    const Model *model, *mbefore;
    int mlayer, mstage;
    const char *const *vocab;
} Frame;

/* The head's matrix shown for base (M_Q .. M_O) at stages 3-5, the base
 * itself with one head (attn_shown). */
#define HEAD_MAT(c, base) attn_shown(&(c)->s->cur, (base), (c)->s->head)

/* present.c: presentation mode on a big screen */
/* Rows per matrix row for the stage's bands: 1 outside presentation mode,
 * 2 in it, 3 or 4 on a tall screen where the bands leave room. */
int presentation_rows(const Frame *c, const Band *b, int nb);
/* Over 120 columns, the plan's rows y0 .. y1-1 (the board) centred. */
void centre_board(Frame *c, int y0, int y1);

/* plan.c */
const char *frame_sym(const Frame *c, const char *utf8, const char *ascii);
int frame_tok_width(const Frame *c, int i);
/* Key j's label width: a source token's with cross-attention. */
int frame_key_width(const Frame *c, int j);
PlanBlock *plan_add_block(Frame *c, BlockKind k, int y, int x, int w, int h, int want, bool cut);
void plan_fill(Frame *c, int y, int x, int w, Role r);
void plan_fill_styled(Frame *c, int y, int x, int w, Role r, bool bold);
int plan_keep_text(Plan *p, const char *s, size_t n);
int plan_put(Frame *c, int y, int x, int w, const char *s, Role r);
int plan_put_lesson(Frame *c, int y, int x, int w, const char *s, Role r);
int plan_put_styled(Frame *c, int y, int x, int w, const char *s, Role r, bool bold);
int plan_put_measured(Frame *c, int y, int x, int w, const char *s, size_t n, int sw, Role r, bool bold);
void plan_reset(Plan *p);

/* stagebands.c */
void band_add(Band *b, Box x);
int board_bands(Frame *c, Band *b);
Box box_make(MatId id, int hrow, Role hrole, int hcol, int ci, int cj);
int edit_bands(Frame *c, Band *b);
int stage_bands(const Frame *c, Band *b);
void stage_row_focus(const Frame *c, Band *b, int n);
bool stage_training(const Frame *c);

/* box.c */
double box_before_cell(const Frame *c, MatId id, int i, int j);
int box_cell_width(Frame *c, MatId id);
int box_changed(const Frame *c, MatId id, int i, int j);
int box_floor(Frame *c, const Box *b);
int box_keep_rows(const Frame *c, const Box *b);
int box_label_width(const Frame *c, MatId id, const Mat *m, bool nolabel);
void box_lay(Frame *c, const Box *b, int y, int x, int w, int h, int more);
int box_need(Frame *c, const Box *b);
bool box_rows_are_tokens(MatId id);
int box_title_width(Frame *c, const Box *b);
int box_title_width_now(Frame *c, const Box *b);
int box_window(int n, int vis, int focus);

/* band.c */
bool band_has_a(const Frame *c, const Band *b);
int band_keep(const Frame *c, const Band *b);
int band_lay(Frame *c, Band *b, int y, int h, int extra);
int band_need(Frame *c, Band *b, int extra, int *need, int *room);
int band_rows(const Frame *c, const Band *b);
int band_spare(Frame *c, Band *b);

/* bars.c */
int bars_width(const Frame *c);
void bars_lay(Frame *c, int y, int x, int w, int h);
int bars_room(Frame *c, Band *b);

/* textblock.c */
const char *arith_approx_note(const Frame *c);
int arith_lines(Frame *c, int w, char lines[][FMT_LINE], int max, bool *more, int *first);
int block_lines(const Frame *c, const char *text, int w, char lines[][FMT_LINE], int max, bool terms,
                      bool *more);
void line_ellipsize(const Frame *c, char *line, int w, bool terms);
int lines_wrap(const char *text, int w, char lines[][FMT_LINE], int max, bool terms, bool *more);
int narration_lines(Frame *c, int w, char lines[][FMT_LINE], int max, bool *more);
Role status_line_text(const Frame *c, char *line, size_t len);

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
    int band_gap;            /* blank rows between two bands */
    int last_gap;            /* blank rows under the last band: it goes with the parts' blanks,
                              * before those between bands, so no matrix moves a row */
    int n;
    Part part[MAX_PARTS];
} Budget;

/* parts.c: the parts below the matrices into g, their lines in the
 * buffers given (the arithmetic, narration, status, key bar, the short
 * parts' and the training panel's). */
void parts_lay(Frame *c, Budget *g, char (*ari)[FMT_LINE], char (*say)[FMT_LINE], char (*st)[FMT_LINE],
                 char (*kb)[FMT_LINE], char (*more_lines)[FMT_LINE], char (*train)[FMT_LINE]);

/* board.c: the frame of today's stages (the board, its parts), a part
 * laid from row y, and the rows the parts take (mlayout.c's frames too) */
void layout_frame(Frame *c, char (*lines)[FMT_LINE]);
int layout_part_lay(Frame *c, Part *p, int y);
int layout_text_rows(const Budget *g);

/* A model lesson: its ribbon (header.c); the matrices each of its own
 * stages (1, 6, 7, 8) shows, *ex the explained one, and their arithmetic
 * (textblock.c); the model view and the watch mode (mview.c) */
void model_ribbon_lay(Frame *c, int y);
bool model_own_stage(const Frame *c);
int model_stage_refs(const Frame *c, ModelRef *refs, int *ex);
int model_arith_lines(Frame *c, int w, char lines[][FMT_LINE], int max, bool *more, int *first);
void model_view_lay(Frame *c);

/* header.c */
void header_lay(Frame *c);
void ribbon_lay(Frame *c, int y);
void too_small_lay(Frame *c);

#endif
