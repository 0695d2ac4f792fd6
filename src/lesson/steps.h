/* steps.h - the step script of a lesson file: steps: [{stage, focus, do,
 * say, ask, expect}, ...].
 *
 * Called by load.c once the shapes are known (tokens, X, weights,
 * overrides, options): each step's stage, focus, actions and expectations
 * are checked against the lesson's base state, with the `do:` actions of
 * the steps so far applied to a scratch copy, so an index or a stage that
 * does not fit is refused where it is written. */
#ifndef QKV_STEPS_H
#define QKV_STEPS_H

#include <stdbool.h>
#include "schema.h"

/* Fill l->steps from n (NULL: one silent step per stage). root is the
 * top-level mapping, for the place of messages about the whole file. */
bool steps_load(Loader *c, const yaml_node_t *root, const yaml_node_t *n, Lesson *l);
/* Count a `step N` action towards LESSON_MAX_GRAD_STEPS; false (with the
 * message) for the one that passes it. */
bool steps_count_training(Loader *c, const yaml_node_t *n);
/* Check the {REF} templates of a text field n (a string or {zh:, en:}) for a
 * step showing `stage`, or for about: (TEMPLATE_ABOUT); see template.h. */
bool steps_templates(Loader *c, const yaml_node_t *n, const Attn *shape, int stage, const char *what);
/* The same for a model lesson: against model m's sizes for a step showing
 * (layer, stage) of it (stage TEMPLATE_ABOUT: about:). */
bool steps_templates_model(Loader *c, const yaml_node_t *n, const Model *m, int layer, int stage, const char *what);

/* A step's ask: node, one reference or a list of them (at most ASK_MAX),
 * each parsed by parse against shape (a lesson's Attn, a model) into
 * st->ask, with its place; want is the message for a node of another kind. */
typedef bool (*AskParser)(const char *text, const void *shape, const Step *st, Ask *out, char *msg, size_t len);
bool steps_load_asks(Loader *c, const yaml_node_t *n, const char *want, AskParser parse, const void *shape, Step *st);

/* Record where a text field n (a string or {zh:, en:}) is written; a plain
 * string stands for both languages. */
void steps_text_at(Loader *c, const yaml_node_t *n, TextAt at[LANG_COUNT]);

/* A model lesson's script (stepsmodel.c; load.c calls it in place of
 * steps_load for a model lesson): stage embed .. next or 1..8, layer 1..layers, focus and expect
 * by model names, checked against l->model->base. */
bool steps_model_load(Loader *c, const yaml_node_t *root, const yaml_node_t *n, Lesson *l);
/* A model lesson's do: or edited: action, a scalar node, parsed by the
 * model action language (maction.h) against l->model->base: false, with
 * its message at FILE:LINE:COL, when it refuses it. */
bool steps_model_action_check(Loader *c, const yaml_node_t *n, const Lesson *l);
/* A model lesson's {REF} templates and asks against l->model->base: a text
 * field n (say:, question: of step st, or about: with st NULL; a string or
 * {zh:, en:}) checked by model names for the step's (layer, stage)
 * (template.h), and a step's ask: node parsed into st->ask (ask.h). False,
 * with the message at FILE:LINE:COL, on a refusal. (A script's own steps
 * are checked against the input its do: actions make: stepsmodel.c.) */
bool steps_model_text_check(Loader *c, const yaml_node_t *n, const Lesson *l, const Step *st, const char *what);
bool steps_model_asks(Loader *c, const yaml_node_t *n, const Lesson *l, Step *st);

#endif
