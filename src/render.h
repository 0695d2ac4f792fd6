/* render.h - the plain-text and JSON renderers behind --dump, --json, --check.
 *
 * Each takes a loaded lesson and writes to a stdio stream; none touches the
 * terminal's modes. `at` is a 1-based step (0: every step for --dump, the
 * lesson as written for --json). Lesson text is sanitised before printing. */
#ifndef QKV_RENDER_H
#define QKV_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include "lesson/lesson.h"

typedef struct {
    Lang lang;
    bool ascii;     /* no UTF-8 on this terminal */
    int at;         /* 0 or 1..nsteps */
} RenderOpt;

/* Print the walkthrough: every step (or step `at`) with its narration,
 * matrices and arithmetic. Returns 0. */
int render_dump(FILE *out, const Lesson *l, const RenderOpt *o);
/* Print the lesson's matrices as one JSON object. Returns 0, or 2 when out
 * of memory. */
int render_json(FILE *out, const Lesson *l, const RenderOpt *o);
/* Run the script and verify every expect; print one line per failure (and a
 * summary). Returns 0 when all hold, 1 otherwise. */
int render_check(FILE *out, const Lesson *l, const RenderOpt *o);
/* The title of stage 1..5, translated: "scores S = Q·Kᵀ (÷ √d_k when scaled)". */
const char *render_stage_title(int stage);

#endif
