/* session_log.c - the edit log of a session (see session_hooks.h). */
#include "session.h"
#include "session_hooks.h"

#include <stdlib.h>

bool session_log_push(Session *s, const Action *act)
{
    if (s->nedits >= SESSION_MAX_EDITS)
        return false;
    if (s->nedits == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        Action *e = realloc(s->edits, sizeof *e * (size_t)cap);
        if (e)
            s->edits = e;
        short *at = e ? realloc(s->edit_step, sizeof *at * (size_t)cap) : NULL;
        if (!at)
            return false;
        s->edit_step = at;
        s->cap = cap;
    }
    s->edit_step[s->nedits] = (short)s->step;
    if (s->saved_nedits > s->nedits)
        s->saved_nedits = -1; /* the saved state can no longer be reached by undo */
    s->edits[s->nedits++] = *act;
    s->nredo = 0;
    return true;
}

