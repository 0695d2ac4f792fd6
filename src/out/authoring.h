/* authoring.h - what --check and --dump tell a lesson's author about its
 * texts: the room each narration has at 80x24, whether the title card fits
 * there, and which texts lack a translation.
 *
 * The room comes from the layout, which out/ does not link: the caller
 * passes the layout's functions in (render.h's NarrationFits and
 * NarrationSpace). Messages name the place as FILE:LINE:COL with the file
 * name the caller gives (already made safe to print), in the language ui.
 * Each language is measured with the interface in that language, as the
 * view shows it (i18n_set switches for the measure and back). Nothing
 * here loads, edits or lays out a lesson. */
#ifndef QKV_AUTHORING_H
#define QKV_AUTHORING_H

#include <stdio.h>

#include "lesson/lesson.h"
#include "lesson/session.h"
#include "render.h"

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
void authoring_room(FILE *out, const Session *s, int k, const RenderOpt *o);

#endif
