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

/* Record where a text field n (a string or {zh:, en:}) is written; a plain
 * string stands for both languages. */
void steps_text_at(Loader *c, const yaml_node_t *n, TextAt at[LANG_COUNT]);

/* A model lesson's script (stepsmodel.c; load.c calls it in place of
 * steps_load for a model lesson): stage embed .. next or 1..8, layer 1..layers, focus and expect
 * by model names, checked against l->model->base. */
bool steps_model_load(Loader *c, const yaml_node_t *root, const yaml_node_t *n, Lesson *l);
/* The hook for a model lesson's do: and edited: actions, each a scalar
 * node: the model action language's parser (the helper "msession" replaces
 * this). Today it accepts every action as written; false, with the message,
 * when it refuses one. */
bool steps_model_action_check(Loader *c, const yaml_node_t *n, const Lesson *l);
/* The hooks for a model lesson's {REF} templates and asks (the helper
 * "tpl" replaces these): a text field n (say:, question: of step st, or
 * about: with st NULL; a string or {zh:, en:}) and a step's ask: node. Today
 * the text is accepted as written and ask: is only checked to be text (or
 * a list of it), not kept in st->ask. False, with the message, on a refusal. */
bool steps_model_text_check(Loader *c, const yaml_node_t *n, const Lesson *l, const Step *st, const char *what);
bool steps_model_asks(Loader *c, const yaml_node_t *n, const Lesson *l, Step *st);

#endif
