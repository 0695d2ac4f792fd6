/* modeljson.c - a model lesson's --json object (modeljson.h), written
 * straight to the stream by json.c's writer. */
#include "modeljson.h"

#include <stdlib.h>

#include "jsonmat.h"
#include "lesson/asking.h"
#include "lesson/lmodel.h"
#include "lesson/session.h"

static const char *const act_word[] = {[ACT_RELU] = "relu", [ACT_GELU] = "gelu"};
static const char *const norm_word[] = {[NORM_NONE] = "none", [NORM_LAYER] = "layernorm", [NORM_RMS] = "rmsnorm"};
static const char *const pos_word[] = {[MPOS_LEARNED] = "learned", [MPOS_SINUSOIDAL] = "sinusoidal",
                                       [MPOS_ROPE] = "rope", [MPOS_NONE] = "none"};
static const char *const unembed_word[] = {[UNEMBED_SEPARATE] = "separate", [UNEMBED_TIED] = "tied"};

bool render_model_state(const Lesson *l, int at, Model *out)
{
    if (at < 1 || at > l->nsteps) {
        if (!model_copy(out, l->model->base))
            return false;
        model_run_all(out);
        return true;
    }
    Session *s = calloc(1, sizeof *s); /* 24 KB: not on the stack */
    if (!s || !session_init(s, l)) {
        free(s);
        return false;
    }
    bool ok = render_model_walk(s, at - 1) && model_copy(out, session_model(s));
    session_free(s);
    free(s);
    return ok;
}

bool render_model_walk(Session *s, int k)
{
    if (s->step > k) /* a saved lesson's start: back to the step asked */
        (void)session_goto(s, k);
    while (s->step < k && (session_ask_reveal(s), session_next(s)))
        ;
    return s->step == k && session_model(s);
}

/* The vocab entry of index k, as written. */
static const char *vocab_name(const Lesson *l, int k)
{
    return k >= 0 && k < l->model->nvocab ? l->model->vocab[k] : "?";
}

/* "model": the settings (model.h's ModelCfg, kv_heads, d_k, d_v filled in). */
static void json_settings(Json *j, const ModelCfg *c)
{
    json_object(j, "model");
    json_number(j, "layers", c->layers);
    json_number(j, "d_model", c->d_model);
    json_number(j, "heads", c->heads);
    json_number(j, "kv_heads", model_kv_heads(c));
    json_number(j, "d_k", model_d_k(c));
    json_number(j, "d_v", model_d_v(c));
    json_number(j, "d_ff", c->d_ff);
    json_string(j, "act", act_word[c->act]);
    json_string(j, "norm", norm_word[c->norm]);
    json_number(j, "eps", c->eps);
    json_string(j, "positions", pos_word[c->positions]);
    if (c->positions == MPOS_ROPE)
        json_number(j, "rope_base", c->rope_base);
    json_number(j, "offset", c->offset);
    json_number(j, "ctx", c->ctx);
    json_number(j, "vocab", c->vocab);
    json_string(j, "unembed", unembed_word[c->unembed]);
    json_object(j, "sampling");
    json_number(j, "temperature", c->sample_temp);
    if (c->sample)
        json_number(j, "seed", (double)c->sample_seed);
    json_end(j);
    json_end(j);
}

/* "params": every parameter by its name, in model_params' order. */
static void json_params(Json *j, const Model *m)
{
    ModelRef ref[MODEL_PARAMS_MAX];
    int np = model_params(m, ref, MODEL_PARAMS_MAX);
    json_object(j, "params");
    for (int k = 0; k < np; k++) {
        char name[32];
        model_ref_name(m, ref[k], name, sizeof name);
        json_matrix(j, name, model_mat(m, ref[k]), NULL);
    }
    json_end(j);
}

/* "per_head": each head's Q K V QKt S A O, those reached (S's masked entries null). */
static void json_heads(Json *j, const Model *m, int l)
{
    static const char *const hnames[ATTN_HM_N] = {"Q", "K", "V", "QKt", "S", "A", "O"};
    static const int hstage[ATTN_HM_N] = {MSTAGE_QKV, MSTAGE_QKV, MSTAGE_QKV, MSTAGE_SCORES, MSTAGE_SCORES,
                                          MSTAGE_SOFTMAX, MSTAGE_OUTPUT};
    const Attn *a = &m->layer[l - 1].att;
    json_array(j, "per_head");
    for (int h = 1; h <= attn_heads(a); h++) {
        json_object(j, NULL);
        for (int k = 0; k < ATTN_HM_N && model_reached(m, l, hstage[k]); k++) {
            MatId base = (MatId)(M_Q + k);
            json_matrix(j, hnames[k], &a->m[attn_shown(a, base, h)], base == M_S && a->mask != MASK_NONE ? a : NULL);
        }
        json_end(j);
    }
    json_end(j);
}

/* One layer's object: what its reached stages computed. */
static void json_layer(Json *j, const Model *m, int l)
{
    const ModelLayer *y = &m->layer[l - 1];
    const Attn *a = &y->att;
    bool ffn = m->cfg.d_ff > 0;
    json_object(j, NULL);
    json_matrix(j, "h_in", &y->h_in, NULL);
    json_matrix(j, "a", &a->m[M_X], NULL);
    if (model_reached(m, l, MSTAGE_QKV)) {
        json_heads(j, m, l);
        if (m->cfg.positions == MPOS_ROPE) { /* Q and K before the rotation, as a one-layer lesson's JSON */
            json_matrix(j, "Q0", &a->m[M_Q0], NULL);
            json_matrix(j, "K0", &a->m[M_K0], NULL);
        }
    }
    if (model_reached(m, l, MSTAGE_OUTPUT))
        json_matrix(j, "O", &a->m[M_O], NULL);
    if (model_reached(m, l, MSTAGE_PROJECT)) {
        json_matrix(j, "Y", &a->m[M_Y], NULL);
        json_matrix(j, "h_mid", &y->h_mid, NULL);
    }
    if (ffn && model_reached(m, l, MSTAGE_FFN)) {
        json_matrix(j, "b", &y->b, NULL);
        json_matrix(j, "f", &y->f, NULL);
    }
    if (model_reached(m, l, ffn ? MSTAGE_FFN : MSTAGE_PROJECT))
        json_matrix(j, "h", &y->h, NULL);
    json_end(j);
}

/* "scores": each head's previous-token and induction scores, where its softmax is reached. */
static void json_scores(Json *j, const Model *m)
{
    json_array(j, "scores");
    for (int l = 1; l <= m->cfg.layers; l++)
        for (int h = 1; h <= m->cfg.heads && model_reached(m, l, MSTAGE_SOFTMAX); h++) {
            double v;
            json_object(j, NULL);
            json_number(j, "layer", l);
            json_number(j, "head", h);
            if (model_prev_score(m, l, h, &v))
                json_number(j, "prev", v);
            if (model_induction_score(m, l, h, &v))
                json_number(j, "induction", v);
            json_end(j);
        }
    json_end(j);
}

void model_json_write(Json *j, const Lesson *l, const Model *m, Lang lang)
{
    const ModelCfg *c = &m->cfg;
    json_object(j, NULL);
    json_string(j, "format", "qkvtutor/1");
    json_string(j, "title", text_get(&l->title, lang));
    json_array(j, "tokens");
    for (int i = 0; i < m->n; i++)
        json_string(j, NULL, vocab_name(l, m->tok[i]));
    json_end(j);
    json_options(j, &m->layer[0].att, pos_word[c->positions]);
    json_number(j, "d_model", c->d_model);
    json_number(j, "d_k", model_d_k(c));
    json_number(j, "d_v", model_d_v(c));
    json_number(j, "heads", c->heads);
    json_settings(j, c);
    json_array(j, "vocab");
    for (int k = 0; k < l->model->nvocab; k++)
        json_string(j, NULL, l->model->vocab[k]);
    json_end(j);
    json_params(j, m);
    json_array(j, "layers");
    for (int k = 1; k <= c->layers && model_reached(m, k, MSTAGE_EMBED); k++)
        json_layer(j, m, k);
    json_end(j);
    if (model_reached(m, c->layers, MSTAGE_NEXT)) {
        json_matrix(j, "h_final", &m->h_final, NULL);
        json_matrix(j, "logits", &m->logits, NULL);
        json_matrix(j, "p", &m->p, NULL);
        json_string(j, "next", vocab_name(l, model_predict(m)));
    }
    json_scores(j, m);
    json_end(j);
}

bool render_model_json(FILE *out, const Lesson *l, int at, Lang lang)
{
    at = at ? at : l->start > 0 ? l->start : 0;
    Model *m = calloc(1, sizeof *m); /* 56 KB: on the heap */
    Json *j = m ? malloc(sizeof *j) : NULL;
    bool ok = j && render_model_state(l, at, m);
    if (ok) {
        json_init(j, out);
        json_no_memo(j); /* a model's numbers seldom repeat: the memo's 512 KiB would only cost page faults */
        model_json_write(j, l, m, lang);
        json_finish(j);
    }
    if (m)
        model_free(m);
    free(m);
    free(j);
    return ok;
}
