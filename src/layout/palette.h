/* palette.h - each role's look per theme, as plain data (no curses).
 *
 * One table, read by the terminal's theme (theme.c turns a look into a
 * curses colour pair and attributes) and by the SVG writer (src/out/svg.c turns
 * it into fills). Colours are the eight classic terminal colours, in curses'
 * numbering (PAL_BLACK 0 .. PAL_WHITE 7), or PAL_DEFAULT for the terminal's
 * own foreground or background. */
#ifndef QKV_PALETTE_H
#define QKV_PALETTE_H

#include "role.h"

enum {
    PAL_DEFAULT = -1, PAL_BLACK, PAL_RED, PAL_GREEN, PAL_YELLOW, PAL_BLUE, PAL_MAGENTA, PAL_CYAN, PAL_WHITE
};

/* Attributes of a look: any of these bits. */
enum { PAL_BOLD = 1, PAL_DIM = 2, PAL_UNDERLINE = 4, PAL_REVERSE = 8 };

/* One look: foreground, background (PAL_DEFAULT: the terminal's), attributes. */
typedef struct {
    short fg, bg;
    int attr;
} PalLook;

/* Per role: the dark, light and projector looks, then the mono attributes. */
typedef struct {
    PalLook dark, light, proj;
    int mono;
} PalRole;

extern const PalRole palette[ROLE_COUNT];

/* The themes, by name: "dark", "light", "mono", "projector". */
typedef enum { THEME_DARK, THEME_LIGHT, THEME_MONO, THEME_PROJECTOR, THEME_COUNT } ThemeId;

/* Theme by name; -1 if unknown. */
int theme_lookup(const char *name);
const char *theme_name(ThemeId t);

/* Background shades of the heat roles (ROLE_HEAT1..4), dark blue to bright
 * orange: on 256-colour terminals (xterm's colour numbers), and on 8. The
 * text on them is white, but black on the brightest 256-colour shade. */
extern const short palette_heat256[4];
/* The projector theme's 256-colour shades: the low end visible on black. */
extern const short palette_heat256_proj[4];
extern const short palette_heat8[4];

#endif
