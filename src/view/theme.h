/* theme.h - colour roles: every look on screen is a role, set up once.
 *
 * Each role has a colour look per theme (foreground, background, attributes)
 * and a mono look (attributes only), kept in one table in theme.c. Meaning
 * never rests on colour alone: the focused row, column and cell differ in
 * attributes too (bold, underline, reverse), so mono and colour-blind users
 * see them. theme_attr() is what drawing code asks for. */
#ifndef QKV_THEME_H
#define QKV_THEME_H

#include <stdbool.h>

#define COLOR_ROLES(X) \
    X(ROLE_NORMAL)  X(ROLE_TITLE)  X(ROLE_RIBBON) X(ROLE_RIBBON_CUR) X(ROLE_LABEL) \
    X(ROLE_PARAM)   X(ROLE_RESULT) X(ROLE_ROW)    X(ROLE_COL)        X(ROLE_CELL)  \
    X(ROLE_FRESH)   X(ROLE_UP)     X(ROLE_DOWN)   X(ROLE_DIM)        X(ROLE_ARITH) \
    X(ROLE_SAY)     X(ROLE_KEYBAR) X(ROLE_KEY)    X(ROLE_ERROR)      X(ROLE_HINT)  \
    X(ROLE_BAR)     X(ROLE_BAR_OLD) X(ROLE_HAND)  X(ROLE_PROMPT)     X(ROLE_EDIT)  \
    X(ROLE_HEAT1)   X(ROLE_HEAT2)  X(ROLE_HEAT3)  X(ROLE_HEAT4)

typedef enum {
#define ROLE_ENUM(r) r,
    COLOR_ROLES(ROLE_ENUM)
#undef ROLE_ENUM
    ROLE_COUNT
} Role;

typedef enum { THEME_DARK, THEME_LIGHT, THEME_MONO, THEME_PROJECTOR, THEME_COUNT } ThemeId;

/* Theme by name ("dark", "light", "mono", "projector"); -1 if unknown. */
int theme_lookup(const char *name);
const char *theme_name(ThemeId t);
/* Set up colour pairs for theme t (after initscr). Falls back to mono when
 * the terminal has no colours. Returns the theme actually in use. */
ThemeId theme_apply(ThemeId t);
/* The curses attributes (pair and flags) for a role in the current theme. */
int theme_attr(Role r);
/* Heat role for a weight in [0, 1]. */
Role theme_heat(double w);
bool theme_is_mono(void);

#endif
