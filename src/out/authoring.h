/* authoring.h - what --check and --dump tell a lesson's author about its
 * texts: the room each narration has at 80x24, whether the title card fits
 * there, and which texts lack a translation.
 *
 * The room comes from the layout, which out/ does not link: the caller
 * passes the layout's functions in (NarrationFits and NarrationSpace,
 * below; render.h's RenderOpt carries them). Messages name the place as FILE:LINE:COL with the file
 * name the caller gives (already made safe to print), in the language ui.
 * Each language is measured with the interface in that language, as the
 * view shows it (i18n_set switches for the measure and back). Nothing
 * here loads, edits or lays out a lesson. */
#ifndef QKV_AUTHORING_H
#define QKV_AUTHORING_H

#include <stdio.h>

#include "lesson/lesson.h"
#include "lesson/session.h"

/* The screen every narration must fit whole, in normal mode. */
#define CHECK_COLS 80
#define CHECK_ROWS 24

/* Does step `step`'s narration in `lang` show whole at cols x rows, and with
 * how much room (room[] = columns, lines it got, lines it wanted)? The
 * layout answers it (layout_narration_room); render.c does not link the
 * layout, so the caller passes it in. */
typedef bool (*NarrationFits)(const Session *s, int step, Lang lang, int cols, int rows, int room[3]);
/* The most lines step `step`'s narration (-1: the title card) could have
 * whole at cols x rows (layout_narration_space). */
typedef int (*NarrationSpace)(const Session *s, int step, Lang lang, int cols, int rows);


/* The texts of step k (say:, question:), or with k < 0 the lesson's (title:,
 * about:), written as {zh, en} with one language left out: one line each,
 * e.g. "my.yaml:14:11: step 3: say: has en text but no zh; add zh: ... (until
 * then the en text shows in zh)". Returns how many. */
int authoring_translations(FILE *out, const char *file, const Lesson *l, int k);
/* Step k's narration shows whole at CHECK_COLS x CHECK_ROWS in both
 * languages: one line per language where it does not, at the narration's
 * place, with the room it has ("my.yaml:14:11: step 3 (zh): the narration
 * needs 6 lines, at 80x24 this step has room for 4 lines of 78 columns;
 * shorten it"). Returns how many did not. */
int authoring_narration(FILE *out, const char *file, const Session *s, int k, NarrationFits fits, Lang ui);
/* The title card (title:, a blank line, about:) shows whole at CHECK_COLS x
 * CHECK_ROWS in both languages: one line per language where it does not,
 * at the about: text. Returns how many did not (0 without about:). */
int authoring_card(FILE *out, const char *file, const Session *s, NarrationFits fits, Lang ui);
/* --dump: one line on the room of step k's narration (k < 0: the title
 * card) at CHECK_COLS x CHECK_ROWS and the lines each language uses, e.g.
 * "  room at 80x24: 3 lines of 78 columns; en uses 2, zh uses 3 (too long)".
 * Nothing when the step has no narration or the layout is not given. */
void authoring_room(FILE *out, const Session *s, int k, NarrationFits fits, NarrationSpace space, Lang ui);

#endif
