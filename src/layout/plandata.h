/* plandata.h - the frame plan as data: the layout's input (LayoutIn), and
 * the Plan it gives: runs of text with their roles, boxes, cells, blocks.
 *
 * Types only, no functions: layout.h declares what reads and fills them,
 * layout_int.h what the layout's own files share; both include this one,
 * so neither needs the other. No curses, no state. */
#ifndef QKV_PLANDATA_H
#define QKV_PLANDATA_H

#include <stdbool.h>
#include "words/fmt.h"
#include "lesson/session.h"
#include "role.h"

typedef enum { LAYOUT_NORMAL, LAYOUT_EDIT } LayoutMode;

/* What the View knows that decides the frame. Strings are borrowed. */
typedef struct {
    const Session *s;
    Lang lang;
    bool ascii;              /* no UTF-8: ASCII stand-ins for symbols */
    bool mono;               /* no colour: shades and marks as characters */
    bool present;            /* presentation mode: big marks, no key bar */
    LayoutMode mode;
    int fi, fj;              /* focus: query row i, key column j (0-based) */
    bool frow;               /* the focus is row fi as a whole (a lesson's focus: "K[2]") */
    MatId fmat;              /* stage 2's explained matrix: Q, K or V */
    MatId emat;              /* edit mode: the cell cursor */
    int ei, ej;
    const char *msg;         /* the status message, "" or NULL for none */
    Role msg_role;
    const char *keybar;      /* the key bar's text (or the open field), NULL: none */
    bool field;              /* the key bar holds a text field: it never gives way */
    bool title_card;         /* before step 1: the narration's place shows the title and about: */
    int cols, rows;
    bool slide;              /* a slide (--slides): the question without how to answer it */
    bool picture;            /* a picture of the step (--svg, --slides), not a student's screen: no tally */
    bool ask_quit;           /* below the smallest screen with unsaved edits, q asked: the question, in what fits */
    bool mview;              /* a model lesson's model view: every layer x head's pattern (M) */
    bool watch;              /* the watch mode: the model view with the loss curve */
    const double *loss;      /* the watch mode's loss history (session_loss_history), nloss of them */
    int nloss;
    long steps;              /* the training steps taken (session_train_steps) */
} LayoutIn;

/* A run of text: already sanitised UTF-8, w display columns from (y, x). */
typedef struct {
    int y, x, w;
    Role role;
    bool bold;               /* the role's look, bolder (fresh heat cells, presentation narration) */
    int off, len;            /* bytes in Plan.text */
    bool under;              /* underlined: a changed number with no room for its ▲/▼ */
} PlanRun;

/* A matrix on screen: its area, its shape, and the rows r0.. r0+nr-1 and
 * columns c0.. c0+nc-1 shown (the rest scrolled away: what was left out). Cells start at (cy, cx):
 * row r0+k at cy + k*step, column c0+m at cx + m*cw. */
typedef struct {
    MatId id;
    int y, x, w, h;
    int rows, cols;          /* the matrix's shape */
    int r0, nr, c0, nc;
    int cy, cx, cw, step;
    bool placeholder;        /* stage not reached: shape only, dots */
    int click;               /* what a click means: 0 the focused matrix, 1 a query row, 2 a key, 3 a column */
} PlanBox;

enum {
    CELL_FOCUS = 1, CELL_ROW = 2, CELL_COL = 4, CELL_FRESH = 8, CELL_UP = 16, CELL_DOWN = 32,
    CELL_EDIT = 64, CELL_HEAT = 128, CELL_MASKED = 256 /* reserved for the causal mask */
};

/* A cell shown: matrix, index (0-based), where, its roles (CELL_*), its
 * heat shade and the number as shown (text in Plan.text). */
typedef struct {
    MatId id;
    int i, j;
    int y, x, w;
    unsigned flags;
    Role role, heat;
    int box;                 /* index into Plan.box */
    int off, len;
} PlanCell;

typedef enum {
    BLOCK_HEADER, BLOCK_RIBBON, BLOCK_MATRICES, BLOCK_BARS, BLOCK_ARITH, BLOCK_SAY, BLOCK_STATUS,
    BLOCK_KEYBAR, BLOCK_TOO_SMALL,
    BLOCK_TRACE,             /* the effect trace of the last change, for the focused row */
    BLOCK_NOTICE,            /* the edited-state notice above the narration */
    BLOCK_ASK,               /* the open question, and on the last step the tally */
    BLOCK_TRAIN,             /* training: the target, the loss and the chain rule */
    BLOCK_KINDS
} BlockKind;

/* A text block: its rows and columns, how many lines it wanted and got,
 * and whether it was cut (its last line then ends in "…"). */
typedef struct {
    BlockKind kind;
    int y, x, w, h;
    int want;
    bool cut;
} PlanBlock;

#define PLAN_MAX_BOXES 12
#define PLAN_MAX_BLOCKS 16

typedef struct {
    bool too_small;
    PlanRun *run;
    int nrun, caprun;
    char *text;
    int ntext, captext;
    PlanCell *cell;
    int ncell, capcell;
    PlanBox box[PLAN_MAX_BOXES];
    int nbox;
    PlanBlock block[PLAN_MAX_BLOCKS];
    int nblock;
    /* What was left out: matrices of the stage not shown at all. */
    MatId omitted[M_COUNT];
    int nomitted;
    /* The arithmetic shown: which cell it explains. */
    MatId xmat;
    int xi, xj;
    bool oom;                /* a run or cell was dropped for want of memory */
    /* layout_plan's scratch lines (a frame's text parts before they are
     * placed): made on the first frame and kept with the plan, so a
     * keypress maps and faults in no memory (plan_free frees them). */
    char (*scratch)[FMT_LINE];
} Plan;

#endif
