/* msave.h - a model lesson saved with the student's actions (DESIGN.md
 * "Lesson files", Saving; save.h's lesson_save_text calls it for a model
 * lesson).
 *
 * The lesson is written as its own file says (its YAML document read again:
 * the built-in copy when the lesson is built in, else the file), with the
 * student's actions in effect (after the last reset), in the action
 * language, under `edited:` of the current step (after what that step's
 * edited: held), `start:` at the current step, and expect: left out from
 * that step on (the numbers are the student's). At the current step the
 * reopened lesson replays the script, then these actions, in order: the
 * session's own state. A weights file is named by its full path, so the
 * saved lesson opens wherever it is saved. Comments of the original are
 * not kept. */
#ifndef QKV_MSAVE_H
#define QKV_MSAVE_H

#include <stddef.h>
#include "session.h"

/* The saved lesson's bytes (malloc'd, *len of them); NULL when the
 * lesson's text cannot be read again or out of memory (err says which,
 * one line). */
char *msave_text(const Session *s, size_t *len, char *err, size_t errlen);

#endif
