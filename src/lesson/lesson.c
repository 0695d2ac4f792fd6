/* lesson.c - what a loaded lesson does at run time: release it, build the
 * state it starts from, check an expectation (see lesson.h). Loading is in
 * load.c. */
#include "lesson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lmodel.h"
#include "text/i18n.h"
#include "text/num.h"

static void step_free(Step *st)
{
    for (int k = 0; k < st->nact; k++)
        free(st->act_text[k]);
    free(st->act);
    free(st->act_text);
    for (int k = 0; k < st->nedit; k++)
        free(st->edit_text[k]);
    free(st->edit);
    free(st->edit_text);
    text_free(&st->say);
    text_free(&st->question);
    free(st->ask);
    free(st->expect);
}

void lesson_free(Lesson *l)
{
    if (!l)
        return;
    free(l->file);
    text_free(&l->title);
    text_free(&l->about);
    for (int k = 0; l->tokens && k < l->ntok; k++)
        free(l->tokens[k]);
    free(l->tokens);
    for (int k = 0; l->source && k < l->nsrc; k++)
        free(l->source[k]);
    free(l->source);
    Mat *mats[] = {&l->X, &l->Wq, &l->Wk, &l->Wv, &l->Wo, &l->over[0], &l->over[1], &l->over[2], &l->Xs};
    for (size_t k = 0; k < sizeof mats / sizeof *mats; k++)
        mat_free(mats[k]);
    for (int k = 0; k < VARY_MAX; k++)
        mat_free(&l->vown[k]);
    for (int k = 0; l->steps && k < l->nsteps; k++)
        step_free(&l->steps[k]);
    free(l->steps);
    for (int k = 0; l->edited && k < l->nedited; k++)
        free(l->edited[k]);
    free(l->edited);
    if (l->model) {
        lmodel_free(l->model);
        free(l->model);
    }
    memset(l, 0, sizeof *l);
}

bool lesson_base(const Lesson *l, Attn *a)
{
    int h = l->heads > 0 ? l->heads : 1, g = l->kv_heads > 0 ? l->kv_heads : h;
    bool cross = l->attention == ATTENTION_CROSS && l->nsrc > 0;
    if (cross ? !attn_init_cross(a, l->ntok, l->nsrc, l->d_model, h, g, l->d_k, l->d_v, l->d_out)
              : !attn_init_kv(a, l->ntok, l->d_model, h, g, l->d_k, l->d_v, l->d_out))
        return false;
    memcpy(a->pad, l->pad, sizeof a->pad);
    if ((cross && !mat_copy(&a->m[M_XS], &l->Xs)) || !mat_copy(&a->m[M_X], &l->X) || !mat_copy(&a->m[M_WQ], &l->Wq) ||
        !mat_copy(&a->m[M_WK], &l->Wk) || !mat_copy(&a->m[M_WV], &l->Wv) ||
        (l->d_out > 0 && !mat_copy(&a->m[M_WO], &l->Wo))) {
        attn_free(a);
        return false;
    }
    for (int m = 0; m < 3; m++) {
        const Mat *o = &l->over[m];
        Mat *dst = &a->m[M_Q + m];
        for (int i = 0; i < o->rows && o->rows == dst->rows && o->cols == dst->cols; i++) {
            a->override[m][i] = l->override[m][i];
            a->ovh[m][i] = l->ovh[m][i];
            if (l->override[m][i])
                memcpy(&MAT_AT(dst, i, 0), &MAT_AT(o, i, 0), sizeof(double) * (size_t)o->cols);
        }
    }
    a->scale = l->scale;
    a->softmax = l->softmax;
    a->mask = l->mask;
    a->temp = l->temp > 0 ? l->temp : 1.0; /* a Lesson built by hand may leave it 0 */
    a->lr = l->lr > 0 ? l->lr : ATTN_LR_DEFAULT;
    a->window = l->window > 0 ? l->window : 1;
    a->rope_base = l->rope_base > 1 ? l->rope_base : ATTN_ROPE_BASE_DEFAULT;
    a->offset = l->offset;
    a->block = l->block > 0 ? l->block : ATTN_BLOCK_DEFAULT;
    if (!attn_set_positions(a, l->positions)) {
        attn_free(a);
        return false;
    }
    a->reached = STAGE_NONE;
    return true;
}

/* The decimals a value was written with, from its tolerance (0.0005 -> 3). */
static int written_decimals(double tol)
{
    return (int)lround(-log10(tol / 0.5));
}

/* The matrix an expectation names: a model lesson's "L2.A1", else "A". */
static const char *expect_name(const Expect *e, char *buf, size_t len)
{
    if (e->mref.kind == MM_NONE)
        return attn_mat_name(e->mat);
    model_ref_name(NULL, e->mref, buf, len);
    return buf;
}

void expect_describe(const Expect *e, char *buf, size_t len)
{
    size_t o = 0;
    int col = e->j >= 0 ? e->j + 1 : 0;
    char name[48];
    if (len == 0)
        return;
    if (col)
        o = (size_t)snprintf(buf, len, "%s[%d][%d] = ", expect_name(e, name, sizeof name), e->i + 1, col);
    else
        o = (size_t)snprintf(buf, len, "%s[%d] = [", expect_name(e, name, sizeof name), e->i + 1);
    for (int k = 0; k < e->n && o < len; k++) {
        char v[48];
        num_format(v, sizeof v, e->val[k], written_decimals(e->tol[k]));
        o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ", " : "", v);
    }
    if (!col && o < len)
        snprintf(buf + o, len - o, "]");
}

/* Write a failed cell as "A[1][2] is 0.337, expected 0.873 (within 0.0005)". */
static void expect_msg(const Expect *e, int col, double got, int digits, char *msg, size_t len)
{
    int dec = written_decimals(e->tol[col]);
    char is[48], want[48], tol[48];
    num_format(is, sizeof is, got, digits > dec ? digits : dec);
    num_format(want, sizeof want, e->val[col], dec);
    num_format(tol, sizeof tol, e->tol[col], dec + 1);
    char name[48];
    snprintf(msg, len, _("%s[%d][%d] is %s, expected %s (within %s)"), expect_name(e, name, sizeof name), e->i + 1,
             (e->j >= 0 ? e->j : col) + 1, is, want, tol);
}

/* Append "; " and piece to msg (o bytes used) when it fits with room for
 * the "and N more" tail; returns false when it did not fit. */
static bool append_piece(char *msg, size_t len, size_t *o, const char *piece)
{
    const size_t tail = 40;
    size_t need = (*o ? 2 : 0) + strlen(piece);
    if (*o + need + tail >= len && !(*o == 0 && need < len))
        return false;
    *o += (size_t)snprintf(msg + *o, len - *o, "%s%s", *o ? "; " : "", piece);
    return true;
}

/* The cells of e against matrix m (in range): every wrong one named. */
static bool expect_cells(const Expect *e, const Mat *m, int digits, char *msg, size_t len)
{
    int first = e->j >= 0 ? e->j : 0;
    size_t o = 0;
    int wrong = 0, left = 0;
    if (len)
        msg[0] = '\0';
    for (int k = 0; k < e->n; k++) {
        double got = MAT_AT(m, e->i, first + k);
        if (isinf(e->val[k]) ? got == e->val[k] : fabs(got - e->val[k]) <= e->tol[k])
            continue; /* -inf: a masked score, which only -inf matches */
        char piece[160];
        expect_msg(e, k, got, digits, piece, sizeof piece);
        wrong++;
        if (left || !append_piece(msg, len, &o, piece))
            left++;
    }
    if (left && o < len)
        snprintf(msg + o, len - o, _("; and %d more"), left);
    return wrong == 0;
}

bool expect_check(const Expect *e, const Attn *a, int digits, char *msg, size_t len)
{
    const Mat *m = &a->m[e->mat];
    const char *name = attn_mat_name(e->mat);
    int first = e->j >= 0 ? e->j : 0;
    if (a->reached < attn_mat_stage(e->mat)) {
        snprintf(msg, len, _("%s is not computed at this step, it needs stage %s"), name,
                 attn_stage_key(attn_mat_stage(e->mat)));
        return false;
    }
    if (e->i < 0 || e->i >= m->rows || first < 0 || first + e->n > m->cols) {
        snprintf(msg, len, _("%s[%d] is out of range, %s is %dx%d"), name, e->i + 1, name, m->rows, m->cols);
        return false;
    }
    return expect_cells(e, m, digits, msg, len);
}

bool expect_check_model(const Expect *e, const Model *m, int digits, char *msg, size_t len)
{
    char name[48];
    const Mat *x = model_mat(m, e->mref);
    int stage = model_ref_stage(m, e->mref), layer = e->mref.layer > 0 ? e->mref.layer : m->cfg.layers;
    expect_name(e, name, sizeof name);
    if (stage > 0 && !model_reached(m, layer, stage)) {
        snprintf(msg, len, _("%s is not computed at this step, it needs stage %s"), name, model_stage_key(stage));
        return false;
    }
    int first = e->j >= 0 ? e->j : 0;
    if (!x || e->i < 0 || e->i >= x->rows || first < 0 || first + e->n > x->cols) {
        snprintf(msg, len, _("%s[%d] is out of range, %s is %dx%d"), name, e->i + 1, name, x ? x->rows : 0,
                 x ? x->cols : 0);
        return false;
    }
    return expect_cells(e, x, digits, msg, len);
}

const char *action_token_name(const Attn *a, int id)
{
    return attn_name_at(a, id - ACTION_TOKEN_BASE);
}

const char *lesson_token(const Lesson *l, const Attn *a, int i)
{
    int t = i >= 0 && i < MAT_MAX ? a->tok[i] : i;
    const char *appended = action_token_name(a, t); /* a token appended by an action */
    return t >= 0 && t < l->ntok ? l->tokens[t] : appended ? appended : "?";
}

const char *lesson_key_token(const Lesson *l, const Attn *a, int j)
{
    if (attn_is_cross(a))
        return l->source && j >= 0 && j < l->nsrc ? l->source[j] : "?";
    return lesson_token(l, a, j);
}

bool lesson_rows_are_source(const Attn *a, MatId id)
{
    MatId b = attn_mat_base(id);
    return attn_is_cross(a) && (id == M_XS || id == M_K0 || b == M_K || b == M_V);
}

const char *lesson_row_token(const Lesson *l, const Attn *a, MatId id, int i)
{
    return lesson_rows_are_source(a, id) ? lesson_key_token(l, a, i) : lesson_token(l, a, i);
}
