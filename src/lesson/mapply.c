/* mapply.c - a model lesson's actions applied to a Model and written back
 * as text (see maction.h). */
#include "maction.h"

#include <stdio.h>
#include <string.h>

#include "core/rng.h"
#include "text/i18n.h"
#include "text/num.h"

bool maction_is_model(const Action *act)
{
    return act->kind == ACT_M_TOKENS || act->kind == ACT_M_GENERATE || act->kind == ACT_M_ABLATE ||
           act->kind == ACT_M_RESTORE || act->mref.kind != MM_NONE;
}

/* "L1.Wq[2]" or "E[3][1]" at buf; returns the length. */
static int cell_name(ModelRef r, int i, int j, char *buf, size_t len)
{
    char name[32];
    model_ref_name(NULL, r, name, sizeof name);
    if (j < 0)
        return snprintf(buf, len, "%s[%d]", name, i + 1);
    return snprintf(buf, len, "%s[%d][%d]", name, i + 1, j + 1);
}

static void format_tokens(const Action *act, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "tokens =");
    for (int k = 0; k < act->n && o < len; k++) {
        int id = (int)act->vals[k];
        const char *name = act->lm && id >= 0 && id < act->lm->nvocab ? act->lm->vocab[id] : "?";
        o += (size_t)snprintf(buf + o, len - o, " %s", name);
    }
}

void maction_format(const Action *act, char *buf, size_t len)
{
    char t[SHORTEST_MAX];
    size_t o;
    switch (act->kind) {
    case ACT_M_TOKENS: format_tokens(act, buf, len); return;
    case ACT_M_GENERATE:
        if (act->n == 1)
            snprintf(buf, len, "generate");
        else
            snprintf(buf, len, "generate %d", act->n);
        return;
    case ACT_M_ABLATE:
    case ACT_M_RESTORE:
        snprintf(buf, len, "%s L%d.H%d", act->kind == ACT_M_ABLATE ? "ablate" : "restore", act->i, act->head);
        return;
    case ACT_CELL_SET:
        o = (size_t)cell_name(act->mref, act->i, act->j, buf, len);
        if (o < len)
            snprintf(buf + o, len - o, " = %s", fmt_exact(act->c, t, sizeof t));
        return;
    case ACT_ROW_COPY:
        o = (size_t)cell_name(act->mref, act->i, -1, buf, len);
        if (o < len)
            o += (size_t)snprintf(buf + o, len - o, " = ");
        if (o < len)
            o += (size_t)cell_name(act->msrc, act->src_i, -1, buf + o, len - o);
        if (act->c != 1 && o < len)
            snprintf(buf + o, len - o, " * %s", fmt_exact(act->c, t, sizeof t));
        return;
    default:
        o = (size_t)cell_name(act->mref, act->i, -1, buf, len);
        if (o < len)
            o += (size_t)snprintf(buf + o, len - o, " = [");
        for (int k = 0; k < act->n && o < len; k++)
            o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ", " : "", fmt_exact(act->vals[k], t, sizeof t));
        if (o < len)
            snprintf(buf + o, len - o, "]");
        return;
    }
}

/* Set the options of every layer's attention; false (m unchanged) when
 * the model refuses them. */
static bool apply_option(Model *m, const Action *act, char *err, size_t errlen)
{
    ModelCfg c = m->cfg;
    for (int l = 0; l < c.layers; l++) {
        ModelAttnOpts *o = &c.attn[l];
        switch (act->kind) {
        case ACT_SCALE: o->scale = (Scale)act->opt; break;
        case ACT_SOFTMAX: o->softmax = (Softmax)act->opt; break;
        case ACT_MASK:
            o->mask = (Mask)act->opt;
            if (o->mask == MASK_WINDOW)
                o->window = act->n;
            break;
        case ACT_TEMP: o->temp = act->c; break;
        default: o->block = act->n; break;
        }
    }
    ModelBad b = model_cfg_check(&c);
    if (b != MODEL_OK) {
        snprintf(err, errlen, _("%s is out of range for this model"), model_bad_key(b));
        return false;
    }
    m->cfg = c;
    m->at_layer = m->at_stage = 0; /* the options are set at each layer's stage 1 */
    return true;
}

/* A cell, a row, or a row copy into a parameter. */
static bool apply_matrix(Model *m, const Action *act, char *err, size_t errlen)
{
    Mat *x = model_mat_mut(m, act->mref);
    char name[80];
    cell_name(act->mref, act->i, act->j, name, sizeof name);
    if (!x || act->i >= x->rows || act->j >= x->cols || (act->kind == ACT_ROW_SET && act->n != x->cols)) {
        snprintf(err, errlen, _("%s does not fit this model's shapes"), name);
        return false;
    }
    if (act->kind == ACT_CELL_SET) {
        MAT_AT(x, act->i, act->j) = act->c;
    } else if (act->kind == ACT_ROW_SET) {
        for (int k = 0; k < x->cols; k++)
            MAT_AT(x, act->i, k) = act->vals[k];
    } else {
        if (!model_ref_is_param(act->msrc))
            model_run_all(m); /* a result is read as computed */
        const Mat *y = model_mat(m, act->msrc);
        if (!y || act->src_i >= y->rows || y->cols != x->cols) {
            cell_name(act->msrc, act->src_i, -1, name, sizeof name);
            snprintf(err, errlen, _("%s does not fit this model's shapes"), name);
            return false;
        }
        double row[MODEL_VOCAB_MAX + MODEL_D_FF_MAX];
        for (int k = 0; k < x->cols; k++) /* the source may be the target's own row */
            row[k] = MAT_AT(y, act->src_i, k) * act->c;
        for (int k = 0; k < x->cols; k++)
            MAT_AT(x, act->i, k) = row[k];
    }
    m->at_layer = m->at_stage = 0;
    return true;
}

/* Append the prediction up to act->n times; stops at ctx. */
static bool apply_generate(Model *m, const Action *act, char *err, size_t errlen, char *note, size_t notelen)
{
    int max = maction_max_tokens(m), tok[MODEL_CTX_MAX];
    if (m->n >= max) {
        snprintf(err, errlen, _("the input already has the %d tokens the model reads (ctx); nothing to append to"),
                 max);
        return false;
    }
    Rng r;
    rng_seed(&r, (uint32_t)m->cfg.sample_seed);
    memcpy(tok, m->tok, sizeof(int) * (size_t)m->n);
    int n = m->n, k = 0;
    for (; k < act->n && n < max; k++) {
        model_run_all(m);
        const double *row = &MAT_AT(&m->p, m->n - 1, 0);
        tok[n] = m->cfg.sample ? model_sample(row, m->cfg.vocab, &r, NULL) : model_greedy(m);
        if (!model_set_tokens(m, tok, ++n)) {
            snprintf(err, errlen, "%s", _("out of memory; nothing was changed"));
            return false;
        }
    }
    if (k < act->n && note)
        snprintf(note, notelen, _("generate stopped at the %d tokens the model reads (ctx), after %d"), max, k);
    return true;
}

bool maction_apply(Model *m, const Action *act, char *err, size_t errlen, char *note, size_t notelen)
{
    int tok[MODEL_CTX_MAX];
    switch (act->kind) {
    case ACT_M_TOKENS:
        for (int k = 0; k < act->n && k < MODEL_CTX_MAX; k++)
            tok[k] = (int)act->vals[k];
        if (act->n > maction_max_tokens(m) || !model_set_tokens(m, tok, act->n)) {
            snprintf(err, errlen, _("the model reads 1 to %d tokens of its vocab"), maction_max_tokens(m));
            return false;
        }
        return true;
    case ACT_M_GENERATE: return apply_generate(m, act, err, errlen, note, notelen);
    case ACT_M_ABLATE:
    case ACT_M_RESTORE:
        if (act->i < 1 || act->i > m->cfg.layers || act->head < 1 || act->head > m->cfg.heads) {
            snprintf(err, errlen, _("this model has no head L%d.H%d"), act->i, act->head);
            return false;
        }
        model_set_ablate(m, act->i, act->head, act->kind == ACT_M_ABLATE);
        return true;
    case ACT_SCALE: case ACT_SOFTMAX: case ACT_MASK: case ACT_TEMP: case ACT_BLOCK:
        return apply_option(m, act, err, errlen);
    case ACT_CELL_SET: case ACT_ROW_SET: case ACT_ROW_COPY:
        if (act->mref.kind != MM_NONE && model_ref_is_param(act->mref))
            return apply_matrix(m, act, err, errlen);
        break;
    default: break;
    }
    snprintf(err, errlen, "%s", _("this action does not apply to a model"));
    return false;
}
