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
#include "lesson/session.h"
#include "authoring.h"

typedef struct {
    Lang lang;
    bool ascii;     /* no UTF-8 on this terminal */
    int at;         /* 0 or 1..nsteps */
    /* --dump: with both, every step says the room its narration has at
     * CHECK_COLS x CHECK_ROWS (authoring.h); NULL: it does not */
    NarrationFits fits;
    NarrationSpace space;
} RenderOpt;

/* Room for a row expectation's message naming every wrong cell (64 cells). */
#define EXPECT_MSG_MAX 8192

/* Print the walkthrough: every step (or step `at`) with its narration,
 * matrices and arithmetic. Returns 0. */
int render_dump(FILE *out, const Lesson *l, const RenderOpt *o);
/* Print the lesson's matrices as one JSON object. Returns 0, or 2 when out
 * of memory. */
int render_json(FILE *out, const Lesson *l, const RenderOpt *o);
/* Run the script and verify every expect; print one line per failure (and a
 * summary). Returns 0 when all hold, 1 otherwise. */
int render_check(FILE *out, const Lesson *l, const RenderOpt *o);
/* The same, and with fits (--check passes layout_narration_room) every
 * step's narration, in both languages, must show whole at CHECK_COLS x
 * CHECK_ROWS: one line per step and language where it does not, at the
 * narration's place, with the room that step leaves it, e.g.
 * "my.yaml:14:11: step 3 (zh): the narration needs 6 lines, at 80x24 this
 * step has room for 4 lines of 78 columns; shorten it", and so must the
 * title card. Every text written as {zh, en} must give both languages. The
 * summary counts these apart from the expectations; any of them makes the
 * result 1. */
int render_check_fits(FILE *out, const Lesson *l, const RenderOpt *o, NarrationFits fits);
/* The same with the lesson errors (literal numbers in the narration) on err
 * rather than stderr. */
int render_check_streams(FILE *out, FILE *err, const Lesson *l, const RenderOpt *o, NarrationFits fits);
/* Say so, for a renderer that ran out of memory ("qkvtutor: out of
 * memory" on stderr); returns 2, the exit status. */
int render_no_memory(void);
/* The title of stage 1..5, translated: "scores S = Q·Kᵀ (÷ √d_k when scaled)". */
const char *render_stage_title(int stage);
/* The same for lesson l: cross-attention's stage 2 says K and V come from Xs. */
const char *render_stage_title_of(const Lesson *l, int stage);

/* --variant K: the script's actions that the new seed refuses. The loader
 * checks do: actions against the lesson's own seed; replayed under seed K
 * (as the session does: from the base, step by step) an action may fail,
 * e.g. an override that overflows, and the session then skips it. Each such
 * action is listed here with the reason, so --dump and the worksheet say so.
 * Fills up to max entries; returns how many there are (0 without
 * --variant), or -1 when out of memory. */
typedef struct {
    int step, act;      /* 0-based */
    char why[200];      /* action_apply's message */
} VariantSkip;
int render_variant_skips(const Lesson *l, VariantSkip *out, int max);

#endif
