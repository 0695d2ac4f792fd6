/* ui.h - the interactive state machine, without a screen.
 *
 * A View is the app's state between two keys: the session (the lesson's
 * numbers, the script cursor, edits, undo), the focus, the head shown, the
 * mode (normal, edit, prompt, answer, save, confirm, help), the open text
 * field and the last frame's Plan (for mouse hits by plan cell). A back end
 * (src/term for curses) turns its input into UI keys (a character, or a
 * UI_KEY_ code) and mouse events, hands them to ui_key() / ui_mouse(),
 * and repaints on the FLAG_ bits they return; it lays out a frame with
 * ui_layout_input() + layout_plan() and paints the Plan.
 *
 * One key table (keymap.c, an X-macro) binds keys to requests and writes
 * the help screen and the key bar. Numbers change only through
 * session_act_text(): the action language. Nothing here includes curses,
 * writes to the terminal or reads the clock; the back end tells the View
 * its screen size (cols, rows) and how to switch the theme (apply_theme). */
#ifndef QKV_UI_H
#define QKV_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout/layout.h"
#include "layout/palette.h"
#include "lesson/save.h"
#include "lesson/session.h"

#define PROMPT_MAX 256
#define HISTORY_MAX 32

/* A UI key: a Unicode character, or one of these codes (above Unicode). */
typedef uint32_t UiKey;
enum {
    UI_ESC = 27,
    UI_KEY_BASE = 0x110000,
    UI_KEY_UP = UI_KEY_BASE, UI_KEY_DOWN, UI_KEY_LEFT, UI_KEY_RIGHT, UI_KEY_HOME, UI_KEY_END,
    UI_KEY_NPAGE, UI_KEY_PPAGE, UI_KEY_BACKSPACE, UI_KEY_ENTER,
    UI_KEY_RESIZE,           /* the screen changed size: redraw, nothing else */
    UI_KEY_OTHER             /* a key the back end knows and the UI does not */
};

/* A mouse event: the wheel, or a click at a screen cell. */
typedef enum { UI_MOUSE_NONE, UI_MOUSE_CLICK, UI_MOUSE_WHEEL_UP, UI_MOUSE_WHEEL_DOWN } UiMouse;

/* MODE_ANSWER: the answer field of an ask: step is open. */
typedef enum { MODE_NORMAL, MODE_HELP, MODE_EDIT, MODE_PROMPT, MODE_SAVE, MODE_CONFIRM, MODE_ANSWER } ViewMode;

/* What a key handler asks the back end to do. */
enum { FLAG_NONE = 0, FLAG_REDRAW = 1, FLAG_QUIT = 2 };
enum { CONFIRM_QUIT, CONFIRM_OVERWRITE };

/* A one-line text field with a cursor (the ':' prompt, the save name,
 * the cell editor). */
typedef struct {
    char buf[PROMPT_MAX];
    int len, pos;            /* bytes */
} Field;

typedef struct View {
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
    char kept[PROMPT_MAX];   /* the answer graded wrong, at step kept_step, ask kept_ask: */
    int kept_step, kept_ask; /* Enter and Backspace edit it, a digit starts a new one */
    char history[HISTORY_MAX][PROMPT_MAX];
    int nhist, hpos;
    char save_path[PROMPT_MAX];
    int confirm;             /* what MODE_CONFIRM confirms */
    bool quit;
    int help_top;            /* the help's first line shown (it scrolls where it does not fit) */
    bool help_say;           /* the help screen holds the step's whole narration (N), not the keys */
    int help_page, help_max; /* set by the last help laid out: lines shown, largest help_top */
    bool card;               /* the title card before step 1 (title and about:) is shown */
    Plan plan;               /* the last frame laid out: painted, and read by ui_hit */
    struct Painted *painted; /* the back end's own record of what it painted last (NULL: none) */
    int cols, rows;          /* the screen's size, kept up to date by the back end */
    /* a model lesson: the model view (M), the watch mode (W) and its run:
     * the edits before it and after it (u undoes them all while nothing
     * came after) */
    bool mview, watch, ran;
    int run_from, run_end;
    /* The back end's theme switch: sets theme t up and returns the theme
     * in use (mono on a screen without colours); NULL keeps t as it is. */
    ThemeId (*apply_theme)(ThemeId t);
    /* --check on what `w` is about to write (save.h); NULL: the loader's
     * check only (a back end without out/, such as the tests') */
    LessonCheck save_check;
} View;

/* Is a text field open (the key bar holds it, the cursor is in it)? */
static inline bool view_field_open(const View *v)
{
    return v->mode == MODE_PROMPT || v->mode == MODE_SAVE || v->mode == MODE_ANSWER ||
           (v->mode == MODE_EDIT && v->editing);
}

/* dispatch.c: one key, one mouse event; FLAG_* back. */
int keys_handle(View *v, UiKey ch);
int keys_mouse(View *v, int y, int x, UiMouse m);

/* state.c: the focus */
/* The matrix explained (and highlighted as a cell) at the current stage. */
MatId view_focus_mat(const View *v);
/* The cell the arithmetic explains (layout.c's rule): edit mode's cursor
 * up to stage 2, else the stage's focused cell. */
void view_explained(const View *v, MatId *m, int *i, int *j);
/* Keep the focus inside the current stage's matrices. */
void view_clamp_focus(View *v);
/* Take the focus from the current step, if it names one. */
void view_focus_from_step(View *v);
/* Which matrix cell was laid out at screen (y, x) in the last frame. role
 * says what a click there means: 0 the focused matrix (row and column), 1 a
 * query row, 2 a key (K's row is column j of S), 3 a column. */
bool view_hit(const View *v, int y, int x, MatId *id, int *i, int *j, int *role);
/* What the layout needs from the View; bar (len bytes) holds the key bar's
 * text. mono: the back end shows no colours. */
void ui_layout_input(const View *v, bool mono, LayoutIn *in, char *bar, size_t len);

/* mkeys.c: the watch mode. While ui_watching(), the back end waits for a
 * key only briefly and, when none comes, calls ui_watch_tick (one batch of
 * training steps) and repaints on its FLAG_*; the next key stops it. */
bool ui_watching(const View *v);
int ui_watch_tick(View *v);
/* The same with a batch of n steps (1 to 10): the page sizes it to its
 * frame (a step in the browser is slower than in the terminal). */
int ui_watch_tick_n(View *v, int n);

/* keymap.c: the key bar and the open field */
/* The open text field as shown on the key bar (scrolled so the cursor is
 * visible); returns the cursor's screen column. */
int keys_field(const View *v, char *buf, size_t len);
/* The key bar's text for the current mode. */
void keys_bar(const View *v, char *buf, size_t len);
/* The normal mode's key bar at a screen width (also for --svg). */
void view_keybar(bool ascii, bool asking, int cols, char *buf, size_t len);
/* The help screen's lines without a screen, for tests/keys_table.c (which
 * checks README.md and the man page against them): line(keys, help, ctx)
 * for each line, a request's keys and those of the requests after it that
 * have no help of their own, help untranslated. */
void keys_help_lines(void (*line)(const char *keys, const char *help, void *ctx), void *ctx);
/* The same for the help screen of a lesson: model false leaves out the keys
 * only model lessons answer ({ } M i W). */
void keys_help_lines_in(bool model, void (*line)(const char *keys, const char *help, void *ctx), void *ctx);

/* help.c: the help screen as lines, wrapped to the screen: each key line's
 * description wraps under itself, then a blank line and the edit-mode keys.
 * ui_help() fills it for the View's size and scroll position and sets
 * help_page and help_max; the back end paints rows 2 .. page+1 from
 * help_top, and `more` on the last row when scroll is set. */
#define HELP_LINES 96
typedef struct {
    int n, kx, tx, w;                  /* lines; key and text columns; text width */
    int first_edit;                    /* the first line under the table: the marks' legend, the edit-mode keys */
    bool scroll;                       /* it does not all fit: `more` says how to scroll */
    const char *keys[HELP_LINES];      /* NULL: a continuation (or the edit text) */
    char keybuf[HELP_LINES][160];
    const char *text[HELP_LINES];
    int tlen[HELP_LINES];
    char title[160], more[160];
    char body[8192];                   /* the narration shown by N (its lines point into it) */
} HelpText;
void ui_help(View *v, HelpText *h);

#endif
