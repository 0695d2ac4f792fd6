/* worksheet_features.h - the givens of today's models on a worksheet
 * (DESIGN.md "Attention in today's models"): what a student needs, besides
 * the tables worksheet.c writes, to answer lessons 10-13 by hand.
 *
 * A lesson "uses" a feature when its options set it or an action of a step
 * up to the last question's (0-based `last`) turns it on:
 *   window   the options table's mask row gives the width (mask: window W);
 *            an action mask = window W gets a note with the rule
 *   GQA      a kv_heads row; the heads table gives each query head's K/V
 *            head and the columns of Wk, K, Wv, V it reads (ws_put_gqa_heads)
 *   RoPE     rope_base and offset rows, and a note: pairs, angles, positions
 *   offset   an offset row (also with RoPE, and when an action sets it)
 *   online   a block row, and a note: the running max and sum, block by block
 *   append   a note: a new last row of X, every stage run again
 * No curses. */
#ifndef QKV_WORKSHEET_MODERN_H
#define QKV_WORKSHEET_MODERN_H

#include <stdbool.h>
#include <stdio.h>

#include "lesson/lesson.h"

#define WS_OPT_LEN 320

/* The value of the softmax, mask and positions rows (any of the options). */
void ws_softmax_value(const Lesson *l, char *buf, size_t len);
void ws_mask_value(const Lesson *l, char *buf, size_t len);
void ws_positions_value(const Lesson *l, char *buf, size_t len);

/* Rows after `after` ("heads", "softmax", "positions") the lesson needs:
 * names into name[n..], values into val[n..]; returns the new n (at most
 * max). */
int ws_modern_rows(const Lesson *l, int last, const char *after, const char **name, char (*val)[WS_OPT_LEN], int n,
                   int max);

/* With kv_heads < heads: the heads paragraph and table (which query heads
 * share which K/V head). False when out of memory. */
bool ws_put_gqa_heads(FILE *out, const Lesson *l, bool ascii);

/* The rule of a gradient step (the loss, the chain rule to W_Q and W_K),
 * when the script takes one up to `last`: a sheet that asks after a step
 * says how it computes. False when out of memory. */
bool ws_put_train_note(FILE *out, const Lesson *l, int last, bool ascii);
/* The notes on the actions of today's models the script takes up to `last`
 * (nothing when it takes none). False when out of memory. */
bool ws_put_modern_notes(FILE *out, const Lesson *l, int last, bool ascii);

#endif
