/* mtrace.c - a model lesson's change traced to the prediction (see mtrace.h). */
#include "mtrace.h"

#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "lesson/lmodel.h"
#include "text/i18n.h"

/* A copy of m computed to the end; false when out of memory. */
static bool computed(const Model *m, Model *out)
{
    if (!model_copy(out, m))
        return false;
    if (!model_reached(out, out->cfg.layers, MSTAGE_NEXT))
        model_run_all(out);
    return true;
}

static const char *token_name(const Session *s, int id)
{
    const LessonModel *lm = s->lesson->model;
    return id >= 0 && id < lm->nvocab ? lm->vocab[id] : "?";
}

bool session_mtrace_line(const Session *s, const char *name, bool ascii, int digits, char *buf, size_t len)
{
    snprintf(buf, len, "%s", name);
    const Model *mb = session_model_before(s), *mc = session_model(s);
    if (!mb || !mc)
        return false;
    Model b = {0}, c = {0};
    bool ok = computed(mb, &b) && computed(mc, &c);
    if (ok) {
        FmtOpt fo = {.digits = digits, .ascii = ascii};
        int was = model_predict(&b), now = model_predict(&c);
        char x[40], y[40], tail[160];
        fmt_num(MAT_AT(&b.p, b.n - 1, was), &fo, x, sizeof x);
        fmt_num(MAT_AT(&c.p, c.n - 1, was), &fo, y, sizeof y);
        if (now == was)
            snprintf(tail, sizeof tail, "%s", _("still the prediction"));
        else
            snprintf(tail, sizeof tail, _("the prediction is now %s"), token_name(s, now));
        snprintf(buf, len, "%s%sp(%s) %s %s %s, %s", name, name[0] ? ": " : "", token_name(s, was), x,
                 ascii ? "->" : "→", y, tail);
        const char *note = session_model_note(s);
        if (note[0] && !s->undone)
            snprintf(buf + strlen(buf), len - strlen(buf), " (%s)", note);
    }
    model_free(&b);
    model_free(&c);
    return ok;
}
