/* modeljson.h - --json and --dump's state of a model lesson (a Lesson with
 * model:, lesson/lmodel.h; DESIGN.md "From a head to a model", its JSON
 * bullet). The JSON writer only prints what the core computed (model.h):
 * it recomputes no number. A one-layer lesson never comes here. */
#ifndef QKV_MODELJSON_H
#define QKV_MODELJSON_H

#include <stdbool.h>
#include <stdio.h>
#include "core/model.h"
#include "json.h"
#include "lesson/lesson.h"
#include "lesson/session.h"

/* The model of lesson l (l->model != NULL) at 1-based step `at`: the
 * session's state there, the script's do: of steps 1..at applied (tokens
 * =, ablate, edits, step N), run to that step's layer and stage; at 0:
 * the lesson's weights on its tokens, run through the last stage (8).
 * *out zeroed or a previous Model. false when out of memory. */
bool render_model_state(const Lesson *l, int at, Model *out);
/* Session s walked forward to 0-based step k (each ask on the way
 * revealed); false when it cannot get there. */
bool render_model_walk(Session *s, int k);

/* The --json object of model m (of lesson l): "format", "title",
 * "tokens", "options" (layer 1's attention options; "positions" the
 * model's), "d_model", "d_k", "d_v", "heads", then "model" (its settings:
 * layers, d_model, heads, kv_heads, d_k, d_v, d_ff, act, norm, eps,
 * positions, rope_base with rope, offset, ctx, vocab (how many), unembed,
 * sampling {temperature, seed when sampled}), "vocab", "params" (every
 * parameter by its name, model_params' order), "layers" (for each layer
 * whose stage 1 is reached: {h_in, a, per_head [{Q, K, V, QKt, S, A, O}],
 * Q0 and K0 with rope (before the rotation), O, Y, h_mid, b and f with
 * d_ff > 0, h}, each matrix only once its stage is reached; masked entries
 * of S are null), and once stage 8 is reached "h_final", "logits", "p" and
 * "next" (the predicted token's name, model_predict), then "scores" [{layer,
 * head, prev, induction}] for every head whose softmax is reached (prev
 * only with 2 or more tokens, induction only when a token repeats). */
void model_json_write(Json *j, const Lesson *l, const Model *m, Lang lang);

/* render_json for a model lesson: the state at 1-based step `at` (0: the
 * lesson's start:, else the lesson run through) in language lang; false
 * when out of memory (nothing said: render_json says so). */
bool render_model_json(FILE *out, const Lesson *l, int at, Lang lang);

#endif
