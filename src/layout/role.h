/* role.h - what a piece of the screen is, not how it looks.
 *
 * The layout layer tags every run of text with a Role; the view's theme
 * (theme.c) maps each role to curses attributes, and an SVG writer maps it
 * to colours. No curses here. */
#ifndef QKV_ROLE_H
#define QKV_ROLE_H

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

/* The heat role for a weight in [0, 1] (NaN and below 0.25: the lightest). */
Role role_heat(double w);

#endif
