/* session_hooks.h - what session.c, session_log.c and session_model.c
 * share (a model lesson's session, DESIGN.md "From a head to a model"):
 * session.c calls session_model.c's hooks, both call session_log.c, and
 * nothing calls back, so the session's files stay out of a circle. Only the
 * lesson layer includes it. */
#ifndef QKV_SESSION_HOOKS_H
#define QKV_SESSION_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include "lesson.h"

struct Session;
typedef struct Session Session;

/* Append an action to the edit log (session.c), dropping what could be
 * redone; false when the log is full or out of memory. */
bool session_log_push(Session *s, const Action *act);

/* The model lesson's side of session_init, _free, _goto, _act, _act_text
 * and of undo / redo (after the log's counts changed): session.c calls
 * them when lesson->model. */
bool session_model_init(Session *s, const Lesson *l);
void session_model_free(Session *s);
bool session_model_goto(Session *s, int n);
bool session_model_act(Session *s, const Action *act, char *err, size_t errlen);
bool session_model_act_text(Session *s, const char *text, char *err, size_t errlen);
/* session_train_more in a model lesson (session.h). */
bool session_model_train_more(Session *s, int n, bool more, char *err, size_t errlen);
void session_model_relog(Session *s);
/* The script's own state at the current step (no student actions; its
 * parameters, tokens, ablations and options; not computed), or NULL when
 * out of memory. */
const Model *session_model_script(const Session *s);

#endif
