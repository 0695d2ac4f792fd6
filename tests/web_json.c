/* web_json.c - --json of every built-in lesson at every step, from the C
 * compiled for the browser (make web-json: emcc, run by node), for
 * tests/web.py to compare string for string with the native
 * `qkvtutor --json --at K` (DESIGN.md "In the browser": the numbers are
 * bit-identical; wasm's libm is musl's, the terminal's glibc's).
 *
 * Usage: web_json   prints, for each lesson N and K = 0 .. its steps,
 *   @@ lesson N at K
 *   <render_json's output, as --json --at K prints it>                       */
#include <stdio.h>

#include "lesson/embedded.h"
#include "lesson/lesson.h"
#include "out/render.h"

int main(void)
{
    for (int n = 0; n < embedded_count; n++) {
        const EmbeddedLesson *e = &embedded_lessons[n];
        char err[LESSON_ERR_MAX];
        Lesson l;
        if (!lesson_load_buffer(e->name, e->data, e->len, &l, err, sizeof err)) {
            fprintf(stderr, "web_json: %s\n", err);
            return 2;
        }
        for (int at = 0; at <= l.nsteps; at++) {
            RenderOpt o = {LANG_EN, false, at};
            printf("@@ lesson %d at %d\n", n + 1, at);
            fflush(stdout);
            if (render_json(stdout, &l, &o) != 0)
                return 2;
            fflush(stdout);
        }
        lesson_free(&l);
    }
    return 0;
}
