/* narroom.c - how many lines a step's narration (or the title card) could
 * have before it is cut (see layout_narration_space in layout.h).
 *
 * The layout gives the narration what the matrices leave, so a short text
 * never shows the room it had. This lays the step out once more with a
 * narration far too long for any screen, in a copy of the lesson, and
 * reads how many lines it got: every text of up to that many lines fits
 * whole, one line more is cut. */
#include <stdlib.h>
#include <string.h>

#include "layout.h"

/* Far more than a screen: 1,500 words of 2 letters. */
static const char *long_text(void)
{
    static char text[4501];
    if (!text[0]) {
        for (int k = 0; k < 1500; k++)
            memcpy(text + 3 * k, "mm ", 3);
        text[4499] = '\0';
    }
    return text;
}

int layout_narration_space(const Session *s, int step, Lang lang, int cols, int rows)
{
    const Lesson *l = s->lesson;
    Lesson probe = *l;
    Step *steps = malloc(sizeof *steps * (size_t)(l->nsteps > 0 ? l->nsteps : 1));
    if (!steps)
        return 0;
    memcpy(steps, l->steps, sizeof *steps * (size_t)l->nsteps);
    Text text = {{(char *)long_text(), (char *)long_text()}};
    if (step < 0)
        probe.about = text;
    else
        steps[step].say = text;
    probe.steps = steps;
    Session *t = malloc(sizeof *t); /* 24 KB: not on the stack of --dump's step */
    int room[3] = {0, 0, 0};
    if (t && session_init(t, &probe)) {
        layout_narration_room(t, step, lang, cols, rows, room);
        session_free(t);
    }
    free(t);
    free(steps);
    return room[1];
}
