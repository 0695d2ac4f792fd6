/* theme.h - colour roles: every look on screen is a role, set up once.
 *
 * Each role has a colour look per theme (foreground, background, attributes)
 * and a mono look (attributes only), kept in one table in palette.c
 * (no curses: the SVG writer reads it too). Meaning
 * never rests on colour alone: the focused row, column and cell differ in
 * attributes too (bold, underline, reverse), so mono and colour-blind users
 * see them. theme_attr() is what drawing code asks for. */
#ifndef QKV_THEME_H
#define QKV_THEME_H

#include <stdbool.h>

#include "layout/palette.h"
#include "layout/role.h"
/* Set up colour pairs for theme t (after initscr). Falls back to mono when
 * the terminal has no colours. Returns the theme actually in use. */
ThemeId theme_apply(ThemeId t);
/* The curses attributes (pair and flags) for a role in the current theme. */
int theme_attr(Role r);
bool theme_is_mono(void);
/* The writer's look (grid.h) of a role, bold and underlined or not. */
static inline int theme_look(Role r, bool bold, bool under)
{
    return (int)r * 4 + (bold ? 1 : 0) + (under ? 2 : 0);
}

#endif
