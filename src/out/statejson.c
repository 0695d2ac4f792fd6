/* statejson.c - --json: a lesson's state as one JSON object, written
 * straight to the stream by json.c's writer (see render.h). */
#include "render.h"

#include <stdlib.h>

#include "core/grad.h"
#include "json.h"
#include "jsonmat.h"
#include "modeljson.h"
#include "lesson/departures.h"
#include "text/num.h"

/* "training": {lr, targets: [{head, row, target}], loss, grad: {Wq, Wk}}
 * for state a (reached the softmax), 1-based head and row. */
static bool json_training(Json *j, const Attn *a)
{
    Mat gq = {0}, gk = {0};
    json_object(j, "training");
    json_number(j, "lr", a->lr);
    json_array(j, "targets");
    for (int k = 0; k < a->ntarget; k++) {
        json_object(j, NULL);
        json_number(j, "head", a->target[k].head + 1);
        json_number(j, "row", a->target[k].row + 1);
        json_array(j, "target");
        for (int c = 0; c < attn_tokens(a); c++)
            json_number(j, NULL, a->target[k].t[c]);
        json_end(j);
        json_end(j);
    }
    json_end(j);
    json_number(j, "loss", grad_loss(a));
    bool ok = grad_compute(a, &gq, &gk);
    if (ok) {
        json_object(j, "grad");
        json_matrix(j, "Wq", &gq, NULL);
        json_matrix(j, "Wk", &gk, NULL);
        json_end(j);
    }
    json_end(j);
    mat_free(&gq);
    mat_free(&gk);
    return ok;
}

/* Cross-attention's "attention" and "source", and "pad" with padding keys;
 * lessons without them print what they always did. */
static void json_cross(Json *j, const Lesson *l, const Attn *a)
{
    if (attn_is_cross(a)) {
        json_string(j, "attention", "cross");
        json_array(j, "source");
        for (int k = 0; k < attn_keys(a); k++)
            json_string(j, NULL, lesson_key_token(l, a, k));
        json_end(j);
    }
    if (attn_real_keys(a) < attn_keys(a)) {
        json_array(j, "pad");
        for (int k = 0; k < attn_keys(a); k++)
            json_number(j, NULL, attn_is_pad(a, k));
        json_end(j);
    }
}

/* Write the --json object for state a, straight to the stream; false when
 * out of memory (the gradient's matrices). */
static bool json_state(Json *j, const Lesson *l, const Attn *a, Lang lang)
{
    json_object(j, NULL);
    json_string(j, "format", "qkvtutor/1");
    json_string(j, "title", text_get(&l->title, lang));
    json_array(j, "tokens");
    for (int i = 0; i < attn_tokens(a) && i < MAT_MAX; i++)
        json_string(j, NULL, lesson_token(l, a, i)); /* in the order a swap left them, appended ones after */
    json_end(j);
    json_cross(j, l, a);
    json_options(j, a, NULL);
    json_number(j, "d_model", l->d_model);
    json_number(j, "d_k", l->d_k);
    json_number(j, "d_v", l->d_v);
    bool multi = attn_heads(a) > 1;
    const Attn *hides = a->mask != MASK_NONE || attn_real_keys(a) < attn_keys(a) ? a : NULL; /* S's -inf: null */
    json_object(j, "matrices");
    if (attn_is_cross(a))
        json_matrix(j, "Xs", &a->m[M_XS], NULL);
    for (int id = 0; id < M_HEAD0; id++) {
        if (!a->m[id].v || (multi && (id == M_QKT || id == M_S || id == M_A)))
            continue; /* no W_O; per head (below) */
        if ((id == M_P || id == M_H) && a->positions != POS_SINUSOIDAL)
            continue; /* P and H only with positions */
        json_matrix(j, attn_mat_name((MatId)id), &a->m[id], id == M_S ? hides : NULL);
    }
    if (a->positions == POS_ROPE && a->m[M_Q0].v) { /* RoPE: Q and K before the rotation */
        json_matrix(j, "Q0", &a->m[M_Q0], NULL);
        json_matrix(j, "K0", &a->m[M_K0], NULL);
    }
    json_end(j);
    bool ok = true;
    if (a->ntarget > 0 && a->reached >= STAGE_SOFTMAX)
        ok = json_training(j, a);
    /* With 2+ heads or W_O: "heads" and "d_out"; one-head lessons print
     * exactly what they did before. */
    if (multi || a->has_wo) {
        json_number(j, "heads", attn_heads(a));
        json_number(j, "d_out", attn_d_out(a));
    }
    if (multi) {
        json_array(j, "per_head");
        for (int h = 1; h <= attn_heads(a); h++) {
            static const char *const hnames[ATTN_HM_N] = {"Q", "K", "V", "QKt", "S", "A", "O"};
            json_object(j, NULL);
            for (int k = 0; k < ATTN_HM_N; k++) {
                MatId id = attn_head_id((MatId)(M_Q + k), h);
                json_matrix(j, hnames[k], &a->m[id], M_Q + k == M_S ? hides : NULL);
            }
            json_end(j);
        }
        json_end(j);
    }
    json_end(j);
    return ok;
}

int render_json(FILE *out, const Lesson *l, const RenderOpt *o)
{
    if (l->model)
        return render_model_json(out, l, o->at, o->lang) ? 0 : render_no_memory();
    /* the state after step N (a session walks the script there; without
     * --at, a lesson's start: or a save's edits: the step it opens at), else
     * the lesson as written: no session. A session is 24 KB: on the heap,
     * and only then, so the stack --json 1 touches stays short. */
    int at = o->at ? o->at : l->start > 0 ? l->start : lesson_saved_edits(l) ? 1 : 0;
    Session *s = at ? malloc(sizeof *s) : NULL;
    if (at && (!s || !session_init(s, l))) {
        free(s);
        return render_no_memory();
    }
    Attn a = {0};
    bool ok;
    if (at)
        ok = (session_goto(s, at - 1) || s->step == at - 1) && attn_copy(&a, &s->cur);
    else
        ok = lesson_base(l, &a);
    if (ok)
        attn_run_to(&a, attn_last_stage(&a));
    Json *j = ok ? malloc(sizeof *j) : NULL;
    if (j) {
        json_init(j, out);
        ok = json_state(j, l, &a, o->lang);
        json_finish(j);
        free(j);
    }
    int rc = j && ok ? 0 : render_no_memory();
    attn_free(&a);
    if (at)
        session_free(s);
    free(s);
    return rc;
}
