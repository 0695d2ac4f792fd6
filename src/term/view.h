/* view.h - the interactive step-through view in a terminal (ncursesw).
 *
 * view_run() owns the terminal from start to end: it checks that stdin and
 * stdout are terminals, sets up curses, runs the key loop and restores the
 * terminal on every way out (q, signals, fatal errors). The View functions
 * below let tests drive the same code on a headless screen: create curses
 * themselves (newterm on /dev/null), then view_new(), view_key(), view_draw(). */
#ifndef QKV_VIEW_H
#define QKV_VIEW_H

#include <stdbool.h>
#include <wchar.h>
#include "lesson/lesson.h"
#include "lesson/save.h"

typedef struct {
    Lang lang;
    bool ascii;          /* no UTF-8: ASCII stand-ins for symbols */
    const char *theme;   /* NULL: dark, or mono under NO_COLOR */
    bool present;        /* presentation mode */
    int start_step;      /* 1-based step to open at (--at N); 0: the lesson's start */
    bool card;           /* open on the title card (about:) when the lesson starts at step 1 */
    LessonCheck save_check; /* w runs it on the file it would write (save.h); NULL: none */
} ViewOpt;

typedef struct View View;

/* Run the view on a lesson. Returns the exit status (0, or 2 without a
 * terminal, with a message on stderr). */
int view_run(const Lesson *l, const ViewOpt *o);

/* Is name a theme (dark, light, mono, projector)? */
bool view_theme_known(const char *name);

/* Right after newterm (view_run does it; tests and the benchmark too, on
 * their own screens): our writer (grid.h) takes the new terminal's
 * strings and writes to the descriptor view_screen_fd gave (standard
 * output by default; before view_screen_ready). */
void view_screen_fd(int fd);
void view_screen_ready(void);

/* For tests and the benchmark: curses must already be initialised. */
View *view_new(const Lesson *l, const ViewOpt *o);
void view_free(View *v);
/* Handle one key (a character, or a KEY_ code when is_code). Returns false
 * once the view wants to quit. */
bool view_key(View *v, wint_t ch, bool is_code);
/* Draw the frame into the back grid (does not write): only what differs
 * from the last frame drawn, which the grid is taken to still hold. */
void view_draw(View *v);
/* The watch mode's frame while no key comes: one batch of training steps
 * and a redraw; false (nothing done) when the view is not watching. */
bool view_tick(View *v);
/* Send the frame drawn to the terminal: what differs from what it shows,
 * in one write (the cursor where the open text field wants it). */
void view_flush(View *v);
/* Forget what was drawn: the next view_draw paints the whole screen (for
 * a caller that wrote to stdscr itself). */
void view_repaint(View *v);
/* A left click at screen row y, column x (as drawn by the last view_draw). */
bool view_click(View *v, int y, int x);
/* Feed a string of keys (characters only), e.g. ":Q[1] = K[1] * 5\r". */
void view_keys(View *v, const char *keys);

#endif
