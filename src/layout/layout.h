/* layout.h - what goes where on one frame, decided without a terminal.
 *
 * layout_plan() is a pure function: (the session's state, the View's
 * focus and mode, the screen size, the language) -> a Plan. The Plan says
 * where every run of text goes and in which Role (never a colour), which
 * matrices are shown as boxes and which of their rows and columns, every
 * cell shown with its roles, the text blocks (header, ribbon, arithmetic,
 * narration, status, key bar) and what was left out. The curses view
 * paints a Plan run by run (src/view/draw.c) and reads it back for mouse
 * clicks (plan_hit); an SVG writer can paint the same Plan.
 *
 * Order of calls: plan_init() once, layout_plan() per frame (it reuses the
 * Plan's memory), plan_free() at the end. Nothing here keeps state between
 * calls: every figure of a frame lives in the Plan. No curses here. */
#ifndef QKV_LAYOUT_H
#define QKV_LAYOUT_H

#include <stdbool.h>
#include "words/fmt.h"
#include "lesson/session.h"
#include "role.h"

/* The smallest screen the layout works on; below it the plan holds one
 * message saying so (PLAN_TOO_SMALL). */
#define LAYOUT_MIN_COLS 60
#define LAYOUT_MIN_ROWS 18

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

void plan_init(Plan *p);
void plan_free(Plan *p);
/* The text of a run or a cell (not terminated: use its len). */
const char *plan_text(const Plan *p, int off);

/* Lay out one frame into p (its previous contents are dropped). */
void layout_plan(const LayoutIn *in, Plan *p);

/* The block of a kind, or NULL when the plan has none. */
const PlanBlock *plan_block(const Plan *p, BlockKind k);
/* The cell of matrix id at (i, j) shown in the plan, or NULL. */
const PlanCell *plan_cell(const Plan *p, MatId id, int i, int j);
/* Which cell was laid out at screen (y, x): its matrix, index and what a
 * click there means (PlanBox.click). False outside every box's cells. */
bool plan_hit(const Plan *p, int y, int x, MatId *id, int *i, int *j, int *click);

/* The arithmetic lines the plan shows for cell (m, i, j), as the session
 * writes them (open asks as "?"); with row, for every cell of row i, the
 * lines the cells share once (A's row walk is one explanation). Returns the
 * line count. */
int layout_arith(const Session *s, MatId m, int i, int j, bool row, const FmtOpt *fo, char lines[][FMT_LINE], int max);

/* The focus the current step names (its focus: key) into fi, fj, frow and
 * fmat; a step without one leaves fi, fj and fmat as they are. With heads,
 * a focus on a head's columns also shows that head (session_set_head). One
 * rule for the view, --svg and --check. */
void layout_focus_step(Session *s, int *fi, int *fj, bool *frow, MatId *fmat);
/* Keep the focus inside the matrix the current stage explains (fmat at the
 * projections stage). */
void layout_clamp_focus(const Session *s, int *fi, int *fj, MatId fmat);

/* Does step `step`'s narration in `lang` fit whole at cols x rows in normal
 * mode, on the lesson as written (no edits)? For --check. */
bool layout_narration_fits(const Session *s, int step, Lang lang, int cols, int rows);
/* The same, and room[] = {the narration's columns, the lines it got, the
 * lines it wanted} at that step (0s when the screen is too small). Step -1
 * is the title card before step 1 (the title, a blank line and about:). */
bool layout_narration_room(const Session *s, int step, Lang lang, int cols, int rows, int room[3]);
/* The most lines the narration of `step` (-1: the title card) could have
 * at cols x rows before it is cut: what a narration long enough gets. For
 * --dump's "room" line; 0 when the screen is too small (narroom.c). */
int layout_narration_space(const Session *s, int step, Lang lang, int cols, int rows);

#endif
