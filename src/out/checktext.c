/* checktext.c - --check on a lesson's bytes (see checktext.h). */
#include "checktext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "lesson/diag.h"
#include "render.h"
#include "text/i18n.h"

/* The first line of a stream's text that is not the summary ("NAME: 3
 * expectations hold, ..."), into msg. */
static bool first_line(const char *text, const char *name, char *msg, size_t msglen)
{
    char summary[512];
    snprintf(summary, sizeof summary, "%s: ", name ? name : "");
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t n = strcspn(p, "\n");
        if (name && strncmp(p, summary, strlen(summary)) == 0)
            continue;
        snprintf(msg, msglen, "%.*s", (int)n, p);
        return n > 0;
    }
    return false;
}

int render_check_text(const char *name, const char *text, size_t len, char *msg, size_t msglen)
{
    static DiagList list; /* 10 KB: not on the stack of a keypress */
    Lesson l;
    msg[0] = '\0';
    if (!lesson_load_buffer_all(name, text, len, &l, msg, msglen, &list, 0))
        return 2; /* msg: the loader's first error, as --check prints it first */
    char *out = NULL, *err = NULL;
    size_t nout = 0, nerr = 0;
    FILE *fo = open_memstream(&out, &nout), *fe = open_memstream(&err, &nerr);
    int rc = 2;
    if (fo && fe) {
        RenderOpt ro = {.lang = LANG_EN};
        rc = render_check_streams(fo, fe, &l, &ro, layout_narration_room);
    }
    if (fo)
        fclose(fo);
    if (fe)
        fclose(fe);
    if (!fo || !fe)
        snprintf(msg, msglen, "%s", _("out of memory"));
    else if (rc != 0 && !first_line(err, NULL, msg, msglen))
        first_line(out, name, msg, msglen); /* the summary line starts with the name: skip it */
    free(out);
    free(err);
    lesson_free(&l);
    return rc;
}
