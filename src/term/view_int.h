/* view_int.h - the curses back end's own declarations, for its files only.
 *
 * The View's state and its key handling are src/ui's (ui.h): curses-free.
 * This back end owns the terminal (loop.c: set-up, the key loop, signals,
 * restoring it), turns curses keys and mouse events into UI keys
 * (keys.c), paints the plan src/layout makes from the View and the help
 * screen (draw.c), and turns the palette's looks into colour pairs
 * (theme.c). Nothing here changes a number or the View's state beyond
 * the screen size it reports. */
#ifndef QKV_VIEW_INT_H
#define QKV_VIEW_INT_H

#include <curses.h>
#include "layout/layout.h"
#include "lesson/session.h"
#include "theme.h"
#include "ui/ui.h"
#include "view.h"

#define VIEW_MIN_COLS LAYOUT_MIN_COLS
#define VIEW_MIN_LINES LAYOUT_MIN_ROWS

/* draw.c */
/* The screen's size into the View (the UI reads it there). */
void draw_size(View *v);
/* Lay out and paint the frame (or the help screen) into stdscr; ask_quit:
 * below the smallest screen with unsaved edits, q asked (loop.c). */
void draw_frame(View *v, bool ask_quit);
/* A key was handled; changed: it asked for a repaint. When keys came since
 * the last frame and none asked, the next draw_frame keeps the screen as
 * it is: not laid out or painted again. */
void draw_key(View *v, bool changed);
/* Drop the record of what was painted (view_free). */
void draw_forget(View *v);

/* keys.c */
/* A curses key (a character, or a KEY_ code when is_code) as a UI key. */
UiKey term_key(wint_t ch, bool is_code);
/* A curses mouse event's buttons as a UI mouse event. */
UiMouse term_mouse(unsigned long buttons);

#endif
