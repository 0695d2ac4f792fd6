/* theme.c - the colour roles set up on the terminal (see theme.h); the
 * looks themselves are in palette.c, shared with the SVG writer. */
#include "theme.h"

#include <curses.h>
#include <math.h>
#include <string.h>

#include "grid.h"
#include "layout/palette.h"

/* The palette numbers its colours as curses does. */
_Static_assert(PAL_BLACK == COLOR_BLACK && PAL_RED == COLOR_RED && PAL_BLUE == COLOR_BLUE && PAL_WHITE == COLOR_WHITE,
               "palette colours are curses colours");

/* A palette attribute set (PAL_*) as curses attributes. */
static int curses_attr(int pal)
{
    return (pal & PAL_BOLD ? A_BOLD : 0) | (pal & PAL_DIM ? A_DIM : 0) | (pal & PAL_UNDERLINE ? A_UNDERLINE : 0) |
           (pal & PAL_REVERSE ? A_REVERSE : 0);
}

static struct {
    ThemeId theme;
    int attr[ROLE_COUNT];
} cur;

static PalLook look_of(int r, ThemeId t)
{
    return t == THEME_LIGHT ? palette[r].light : t == THEME_PROJECTOR ? palette[r].proj : palette[r].dark;
}

/* The writer's looks (grid.h): each role plain, bold, underlined and
 * both, in its colours and attributes (pal: PAL_ bits, the same as GRID_). */
static void set_styles(ThemeId t, const PalLook *role)
{
    GridStyle st[ROLE_COUNT * 4];
    for (int r = 0; r < ROLE_COUNT; r++)
        for (int k = 0; k < 4; k++) {
            GridStyle *s = &st[theme_look((Role)r, k & 1, k & 2)];
            s->fg = t == THEME_MONO ? -1 : role[r].fg;
            s->bg = t == THEME_MONO ? -1 : role[r].bg;
            /* every cell also takes the normal role's attributes, as curses'
             * background gave them (the projector's bold) */
            s->attr = ((role[r].attr | role[ROLE_NORMAL].attr) & (PAL_BOLD | PAL_DIM | PAL_UNDERLINE | PAL_REVERSE)) |
                      (k & 1 ? GRID_BOLD : 0) | (k & 2 ? GRID_UNDER : 0);
        }
    Grid *g = grid_term();
    if (g)
        grid_set_styles(g, st, ROLE_COUNT * 4);
}

_Static_assert((int)PAL_BOLD == (int)GRID_BOLD && (int)PAL_DIM == (int)GRID_DIM && (int)PAL_UNDERLINE == (int)GRID_UNDER &&
                   (int)PAL_REVERSE == (int)GRID_REVERSE,
               "palette attributes are the writer's");

ThemeId theme_apply(ThemeId t)
{
    if (t != THEME_MONO && (!has_colors() || start_color() == ERR || COLORS < 8))
        t = THEME_MONO;
    cur.theme = t;
    PalLook role[ROLE_COUNT];
    if (t == THEME_MONO) {
        for (int r = 0; r < ROLE_COUNT; r++) {
            cur.attr[r] = curses_attr(palette[r].mono);
            role[r] = (PalLook){-1, -1, palette[r].mono};
        }
        bkgdset(' ');
        set_styles(t, role);
        return t;
    }
    use_default_colors();
    for (int r = 0; r < ROLE_COUNT; r++) {
        PalLook k = look_of(r, t);
        if (r >= ROLE_HEAT1 && r <= ROLE_HEAT4) {
            int h = r - ROLE_HEAT1;
            k.bg = COLORS >= 256 ? (t == THEME_PROJECTOR ? palette_heat256_proj : palette_heat256)[h] : palette_heat8[h];
            k.fg = COLORS >= 256 && h == 3 ? COLOR_BLACK : COLOR_WHITE; /* dark text on orange */
        }
        init_pair((short)(r + 1), k.fg, k.bg);
        cur.attr[r] = (int)COLOR_PAIR(r + 1) | curses_attr(k.attr);
        role[r] = k;
    }
    set_styles(t, role);
    bkgdset((chtype)' ' | (chtype)cur.attr[ROLE_NORMAL]); /* the projector's black, everywhere */
    return t;
}

int theme_attr(Role r)
{
    return cur.attr[r];
}

bool theme_is_mono(void)
{
    return cur.theme == THEME_MONO;
}
