/* view_int.h - the View's state, shared by the view's own files only.
 *
 * loop.c owns the terminal and the main loop, keys.c turns keys into
 * requests and requests into state changes (flags back to the loop),
 * draw.c paints the frame src/layout plans from the state, theme.c holds the colour roles.
 * Nothing here changes a number: edits become action text for the
 * session (session_act_text). */
#ifndef QKV_VIEW_INT_H
#define QKV_VIEW_INT_H

#include <curses.h>
#include "layout/layout.h"
#include "lesson/session.h"
#include "theme.h"
#include "view.h"

#define VIEW_MIN_COLS LAYOUT_MIN_COLS
#define VIEW_MIN_LINES LAYOUT_MIN_ROWS
#define PROMPT_MAX 256
#define HISTORY_MAX 32

/* MODE_ANSWER: the answer field of an ask: step is open. */
typedef enum { MODE_NORMAL, MODE_HELP, MODE_EDIT, MODE_PROMPT, MODE_SAVE, MODE_CONFIRM, MODE_ANSWER } ViewMode;

/* What a key handler asks the loop to do. */
enum { FLAG_NONE = 0, FLAG_REDRAW = 1, FLAG_QUIT = 2 };
enum { CONFIRM_QUIT, CONFIRM_OVERWRITE };

/* A one-line text field with a cursor (the ':' prompt, the save name,
 * the cell editor). */
typedef struct {
    char buf[PROMPT_MAX];
    int len, pos;            /* bytes */
} Field;

struct View {
    const Lesson *lesson;
    Session s;
    Lang lang;
    bool ascii;
    ThemeId theme;
    bool present;
    ViewMode mode;
    int fi, fj;              /* focus: query row i, key column j (0-based) */
    bool frow;               /* the focus is row fi as a whole (a step's focus "K[2]"), until ← → */
    MatId fmat;              /* stage 2's explained matrix: Q, K or V */
    char msg[512];           /* one line for the status row */
    Role msg_role;
    /* edit mode: the cell cursor */
    MatId emat;
    int ei, ej;
    Field field;             /* the text being typed (prompt, cell, name) */
    bool editing;            /* edit mode: the number field is open */
    char history[HISTORY_MAX][PROMPT_MAX];
    int nhist, hpos;
    char save_path[PROMPT_MAX];
    int confirm;             /* what MODE_CONFIRM confirms */
    bool quit;
    int help_top;            /* the help's first line shown (it scrolls where it does not fit) */
    int help_page, help_max; /* set by the last help drawn: lines shown, largest help_top */
    bool card;               /* the title card before step 1 (title and about:) is shown */
    Plan plan;               /* the last frame laid out: painted, and read by view_hit */
};

/* Is a text field open (the key bar holds it, the cursor is in it)? */
static inline bool view_field_open(const View *v)
{
    return v->mode == MODE_PROMPT || v->mode == MODE_SAVE || v->mode == MODE_ANSWER ||
           (v->mode == MODE_EDIT && v->editing);
}

/* draw.c */
void draw_frame(View *v);
/* The matrix explained (and highlighted as a cell) at the current stage. */
MatId view_focus_mat(const View *v);
/* The cell the arithmetic explains (layout.c's rule): edit mode's cursor
 * up to stage 2, else the stage's focused cell. */
void view_explained(const View *v, MatId *m, int *i, int *j);
/* Keep the focus inside the current stage's matrices. */
void view_clamp_focus(View *v);
/* Take the focus from the current step, if it names one. */
void view_focus_from_step(View *v);
/* Which matrix cell was drawn at screen (y, x) in the last frame. role says
 * what a click there means: 0 the focused matrix (row and column), 1 a
 * query row, 2 a key (K's row is column j of S), 3 a column. */
bool view_hit(const View *v, int y, int x, MatId *id, int *i, int *j, int *role);

/* keys.c */
int keys_handle(View *v, wint_t ch, bool is_code);
/* A mouse event at screen (y, x) with ncurses button bits. */
int keys_mouse(View *v, int y, int x, unsigned long buttons);
void keys_draw_help(View *v);
/* The open text field as shown on the key bar (scrolled so the cursor is
 * visible); returns the cursor's screen column. */
int keys_field(const View *v, char *buf, size_t len);
/* The key bar's text for the current mode. */
void keys_bar(const View *v, char *buf, size_t len);

#endif
