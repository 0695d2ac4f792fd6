/* modeldump.h - --dump of a model lesson (a Lesson with model:; DESIGN.md
 * "From a head to a model"): the header, then every step (or step --at N)
 * with its layer and stage, its actions, the layer's attention options,
 * its narration and the matrices that stage shows, through the same text
 * pieces as a one-layer lesson's dump (dumpgrid.h). Prints only numbers the
 * core computed (model.h). */
#ifndef QKV_MODELDUMP_H
#define QKV_MODELDUMP_H

#include <stdbool.h>
#include <stdio.h>
#include "lesson/lesson.h"

/* render_dump for a model lesson: every step, or only 1-based step `at`
 * (0: every step), in language lang, ASCII only with ascii; false when out
 * of memory (nothing said: render_dump says so). */
bool render_model_dump(FILE *out, const Lesson *l, int at, Lang lang, bool ascii);
/* The title of model stage 1..8, translated ("embed: h = E[token] + P, a = Norm₁(h)"). */
const char *render_model_stage_title(int stage);

#endif
