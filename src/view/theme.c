/* theme.c - the colour-role table and its set-up (see theme.h). */
#include "theme.h"

#include <curses.h>
#include <math.h>
#include <string.h>

/* One look: foreground, background (-1: terminal default), attributes. */
typedef struct {
    short fg, bg;
    int attr;
} Look;

/* Per role: dark, light, projector looks, then the mono attributes.
 * Colours 0-7 are the classic ones; heat shades use the 256-colour cube
 * when available (see heat256). */
static const struct {
    Look dark, light, proj;
    int mono;
} table[ROLE_COUNT] = {
    [ROLE_NORMAL]     = {{-1, -1, 0}, {-1, -1, 0}, {COLOR_WHITE, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_TITLE]      = {{COLOR_CYAN, -1, A_BOLD}, {COLOR_BLUE, -1, A_BOLD}, {COLOR_YELLOW, COLOR_BLACK, A_BOLD}, A_BOLD},
    [ROLE_RIBBON]     = {{COLOR_WHITE, -1, 0}, {COLOR_BLACK, -1, 0}, {COLOR_WHITE, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_RIBBON_CUR] = {{COLOR_BLACK, COLOR_CYAN, A_BOLD}, {COLOR_WHITE, COLOR_BLUE, A_BOLD}, {COLOR_BLACK, COLOR_YELLOW, A_BOLD}, A_REVERSE | A_BOLD},
    [ROLE_LABEL]      = {{COLOR_CYAN, -1, 0}, {COLOR_BLUE, -1, 0}, {COLOR_CYAN, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_PARAM]      = {{COLOR_YELLOW, -1, A_BOLD}, {COLOR_MAGENTA, -1, A_BOLD}, {COLOR_YELLOW, COLOR_BLACK, A_BOLD}, A_BOLD},
    [ROLE_RESULT]     = {{COLOR_GREEN, -1, A_BOLD}, {COLOR_GREEN, -1, A_BOLD}, {COLOR_GREEN, COLOR_BLACK, A_BOLD}, A_BOLD},
    [ROLE_ROW]        = {{COLOR_WHITE, COLOR_BLUE, A_BOLD}, {COLOR_BLACK, COLOR_CYAN, A_BOLD}, {COLOR_WHITE, COLOR_BLUE, A_BOLD}, A_BOLD},
    [ROLE_COL]        = {{COLOR_WHITE, COLOR_MAGENTA, A_UNDERLINE}, {COLOR_BLACK, COLOR_MAGENTA, A_UNDERLINE}, {COLOR_WHITE, COLOR_MAGENTA, A_BOLD | A_UNDERLINE}, A_UNDERLINE},
    [ROLE_CELL]       = {{COLOR_BLACK, COLOR_YELLOW, A_BOLD}, {COLOR_BLACK, COLOR_YELLOW, A_BOLD}, {COLOR_BLACK, COLOR_YELLOW, A_BOLD}, A_REVERSE | A_BOLD},
    [ROLE_FRESH]      = {{COLOR_GREEN, -1, 0}, {COLOR_GREEN, -1, 0}, {COLOR_GREEN, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_UP]         = {{COLOR_GREEN, -1, A_BOLD}, {COLOR_GREEN, -1, A_BOLD}, {COLOR_GREEN, COLOR_BLACK, A_BOLD}, A_BOLD},
    [ROLE_DOWN]       = {{COLOR_RED, -1, A_BOLD}, {COLOR_RED, -1, A_BOLD}, {COLOR_RED, COLOR_BLACK, A_BOLD}, A_BOLD},
    [ROLE_DIM]        = {{COLOR_WHITE, -1, A_DIM}, {COLOR_BLACK, -1, A_DIM}, {COLOR_WHITE, COLOR_BLACK, 0}, A_DIM},
    [ROLE_ARITH]      = {{COLOR_YELLOW, -1, 0}, {COLOR_BLACK, -1, 0}, {COLOR_YELLOW, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_SAY]        = {{-1, -1, 0}, {-1, -1, 0}, {COLOR_WHITE, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_KEYBAR]     = {{COLOR_BLACK, COLOR_WHITE, 0}, {COLOR_WHITE, COLOR_BLACK, 0}, {COLOR_BLACK, COLOR_WHITE, A_BOLD}, A_REVERSE},
    [ROLE_KEY]        = {{COLOR_CYAN, -1, A_BOLD}, {COLOR_BLUE, -1, A_BOLD}, {COLOR_YELLOW, COLOR_BLACK, A_BOLD}, A_BOLD},
    [ROLE_ERROR]      = {{COLOR_RED, -1, A_BOLD}, {COLOR_RED, -1, A_BOLD}, {COLOR_WHITE, COLOR_RED, A_BOLD}, A_BOLD | A_REVERSE},
    [ROLE_HINT]       = {{COLOR_CYAN, -1, 0}, {COLOR_BLUE, -1, 0}, {COLOR_CYAN, COLOR_BLACK, A_BOLD}, A_BOLD},
    [ROLE_BAR]        = {{COLOR_CYAN, -1, 0}, {COLOR_BLUE, -1, 0}, {COLOR_CYAN, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_BAR_OLD]    = {{COLOR_WHITE, -1, A_DIM}, {COLOR_BLACK, -1, A_DIM}, {COLOR_WHITE, COLOR_BLACK, 0}, A_DIM},
    [ROLE_HAND]       = {{COLOR_MAGENTA, -1, A_BOLD}, {COLOR_MAGENTA, -1, A_BOLD}, {COLOR_MAGENTA, COLOR_BLACK, A_BOLD}, A_BOLD},
    [ROLE_PROMPT]     = {{COLOR_WHITE, COLOR_BLUE, A_BOLD}, {COLOR_WHITE, COLOR_BLUE, A_BOLD}, {COLOR_WHITE, COLOR_BLUE, A_BOLD}, A_REVERSE},
    [ROLE_EDIT]       = {{COLOR_BLACK, COLOR_GREEN, A_BOLD}, {COLOR_BLACK, COLOR_GREEN, A_BOLD}, {COLOR_BLACK, COLOR_GREEN, A_BOLD}, A_REVERSE | A_UNDERLINE},
    [ROLE_HEAT1]      = {{-1, -1, 0}, {-1, -1, 0}, {COLOR_WHITE, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_HEAT2]      = {{-1, -1, 0}, {-1, -1, 0}, {COLOR_WHITE, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_HEAT3]      = {{-1, -1, 0}, {-1, -1, 0}, {COLOR_WHITE, COLOR_BLACK, A_BOLD}, 0},
    [ROLE_HEAT4]      = {{-1, -1, 0}, {-1, -1, 0}, {COLOR_WHITE, COLOR_BLACK, A_BOLD}, 0},
};

/* Background shades for the heat roles on 256-colour terminals (dark
 * blues to bright orange), and on 8 colours. */
static const short heat256[4] = {17, 24, 130, 208};
static const short heat8[4] = {COLOR_BLACK, COLOR_BLUE, COLOR_MAGENTA, COLOR_RED};

static const char *names[THEME_COUNT] = {"dark", "light", "mono", "projector"};

static struct {
    ThemeId theme;
    int attr[ROLE_COUNT];
} cur;

int theme_lookup(const char *name)
{
    for (int t = 0; t < THEME_COUNT; t++)
        if (strcmp(name, names[t]) == 0)
            return t;
    return -1;
}

const char *theme_name(ThemeId t)
{
    return names[t];
}

static Look look_of(int r, ThemeId t)
{
    return t == THEME_LIGHT ? table[r].light : t == THEME_PROJECTOR ? table[r].proj : table[r].dark;
}

ThemeId theme_apply(ThemeId t)
{
    if (t != THEME_MONO && (!has_colors() || start_color() == ERR || COLORS < 8))
        t = THEME_MONO;
    cur.theme = t;
    if (t == THEME_MONO) {
        for (int r = 0; r < ROLE_COUNT; r++)
            cur.attr[r] = table[r].mono;
        bkgdset(' ');
        return t;
    }
    use_default_colors();
    for (int r = 0; r < ROLE_COUNT; r++) {
        Look k = look_of(r, t);
        if (r >= ROLE_HEAT1 && r <= ROLE_HEAT4) {
            int h = r - ROLE_HEAT1;
            k.bg = COLORS >= 256 ? heat256[h] : heat8[h];
            k.fg = COLORS >= 256 && h == 3 ? COLOR_BLACK : COLOR_WHITE; /* dark text on orange */
        }
        init_pair((short)(r + 1), k.fg, k.bg);
        cur.attr[r] = (int)COLOR_PAIR(r + 1) | k.attr;
    }
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
