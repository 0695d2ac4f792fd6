/* save.h - writing the current state as a new lesson file.
 *
 * lesson_save() writes the lesson itself and the student's edits
 * (saveplan.h): X and the weights written out (the shortest text that reads
 * back exactly, with a '.' whatever LC_NUMERIC says), the lesson's own
 * `overrides:`, options and about:, every step with its do:, asks and
 * narration (templates as written), expect: up to the first edit, each edit
 * in effect under `edited:` at the step where it was made, and `start:` at
 * the current step. Reopened, it is the lesson's own before the first edit
 * and the state saved at `start:`. The file is written with libyaml's
 * emitter through the atomic writer: a reader sees the old file or the new
 * one, never a part. On failure nothing is left behind and err says why in
 * one line. */
#ifndef QKV_SAVE_H
#define QKV_SAVE_H

#include <stdbool.h>
#include <stddef.h>
#include "session.h"

bool lesson_save(const Session *s, const char *path, char *err, size_t errlen);
/* A lesson's bytes checked as `qkvtutor --check` checks a file (the out/
 * layer's render_check_text, handed down by main so that `w` runs the real
 * check): returns --check's exit status (0 passes) and, when it fails, the
 * first message in msg. */
typedef int (*LessonCheck)(const char *name, const char *text, size_t len, char *msg, size_t msglen);
/* The lesson lesson_save() would write, in memory (malloc'd, *len bytes),
 * so the view can check it before writing; NULL when out of memory. */
char *lesson_save_text(const Session *s, size_t *len);
/* Can path be saved to: a new name or a regular file? A folder or a device
 * is refused up front with one line in err ("cannot save lessons: it is a
 * folder; type a file name, such as lessons/lesson.yaml"). lesson_save() checks it too. */
bool lesson_save_target(const char *path, char *err, size_t errlen);
/* A default file name for saving: "<lesson name>-edited.yaml". */
void lesson_save_name(const Lesson *l, char *buf, size_t len);

#endif
