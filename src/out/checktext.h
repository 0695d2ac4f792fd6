/* checktext.h - `qkvtutor --check` on a lesson's bytes, for `w` (the view
 * hands it the text it is about to write; ui/saving.c, lesson/save.h's
 * LessonCheck): the same loader (every error listed) and the same
 * render_check_streams() with the layout's narration room that --check
 * runs on a file. Writes nothing anywhere but msg. */
#ifndef QKV_CHECKTEXT_H
#define QKV_CHECKTEXT_H

#include <stddef.h>

/* Returns --check's exit status for the lesson text[0..len) named name (0:
 * it passes; 1 a check failed; 2 a lesson error) and, when it is not 0,
 * the first message --check prints, in msg (one line). */
int render_check_text(const char *name, const char *text, size_t len, char *msg, size_t msglen);

#endif
