/* apply.c - an action applied to the state (see action.h: action_apply):
 * its indices and numbers checked against the lesson's shape, then the
 * cell, row, option or training step written; on failure nothing changes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "text/i18n.h"
#include "text/num.h"
#include "ref.h"
#include "train.h"

/* Check that row i (and cell j, when >= 0) exist in matrix m. */
static bool check_index(const Attn *a, MatId m, int i, int j, char *err, size_t errlen)
{
    const Mat *x = &a->m[m];
    if (i >= x->rows) {
        snprintf(err, errlen, _("row %d is out of range: %s has rows 1 to %d"), i + 1, attn_mat_name(m), x->rows);
        return false;
    }
    if (j >= x->cols) {
        snprintf(err, errlen, _("column %d is out of range: %s has columns 1 to %d"), j + 1, attn_mat_name(m),
                 x->cols);
        return false;
    }
    return true;
}

/* Refuse a row holding inf or NaN (a product that overflowed, or a row of
 * Q/K/V that the pipeline computed as inf): a lesson cannot hold it, so the
 * state could not be saved and loaded back. */
static bool row_finite(const Attn *a, const Action *act, const double *vals, char *err, size_t errlen)
{
    for (int k = 0; k < a->m[act->mat].cols; k++)
        if (!isfinite(vals[k])) {
            snprintf(err, errlen, _("%s[%d][%d] would not be a finite number; use smaller numbers"),
                     attn_mat_name(act->mat), act->i + 1, k + 1);
            return false;
        }
    return true;
}

/* Write values into row i of a target; Q/K/V rows become overrides. A
 * head's row ("Q2[1]") is that head's columns of the full row: only they
 * are overridden, the other heads' columns stay X·W. */
static void put_row(Attn *a, MatId m, int i, const double *vals)
{
    int h = attn_mat_head(m);
    MatId b = attn_mat_base(m);
    Mat *x = &a->m[b];
    int w = a->m[m].cols, c0 = h ? (h - 1) * w : 0;
    memcpy(&MAT_AT(x, i, c0), vals, sizeof(double) * (size_t)w);
    if (b >= M_Q && b <= M_V) {
        int p = b - M_Q;
        if (!h)
            a->ovh[p][i] = 0;
        else if (!a->override[p][i] || a->ovh[p][i])
            a->ovh[p][i] |= (unsigned short)(1u << (h - 1));
        a->override[p][i] = true;
    }
    a->reached = a->reached < STAGE_INPUT ? a->reached : STAGE_INPUT;
}

static bool apply_row(Attn *a, const Action *act, char *err, size_t errlen)
{
    const Mat *x = &a->m[act->mat];
    double row[MAT_MAX];
    if (act->kind == ACT_ROW_SET) {
        if (act->n != x->cols) {
            snprintf(err, errlen, _("a row of %s takes %d numbers; this one has %d"), attn_mat_name(act->mat),
                     x->cols, act->n);
            return false;
        }
        put_row(a, act->mat, act->i, act->vals);
        return true;
    }
    if (!check_index(a, act->src, act->src_i, -1, err, errlen))
        return false;
    const Mat *src = &a->m[act->src];
    if (src->cols != x->cols) {
        snprintf(err, errlen, _("%s rows have %d numbers but %s rows have %d; widths must match"),
                 attn_mat_name(act->mat), x->cols, attn_mat_name(act->src), src->cols);
        return false;
    }
    if (a->reached < attn_mat_stage(act->src))
        attn_run_to(a, attn_mat_stage(act->src));
    for (int k = 0; k < x->cols; k++)
        row[k] = MAT_AT(src, act->src_i, k) * act->c;
    if (!row_finite(a, act, row, err, errlen))
        return false;
    put_row(a, act->mat, act->i, row);
    return true;
}

static bool apply_one(Attn *a, const Action *act, char *err, size_t errlen);

/* Head names are resolved against the state first: "Q1" with one head is
 * Q, "Q3" with two heads is refused (ref_head). */
bool action_apply(Attn *a, const Action *act, char *err, size_t errlen)
{
    Action x = *act;
    if (x.kind == ACT_ROW_COPY || x.kind == ACT_ROW_SET || x.kind == ACT_CELL_SET) {
        if (ref_head(a, &x.mat, err, errlen) != REF_OK)
            return false;
        if (x.kind == ACT_ROW_COPY && ref_head(a, &x.src, err, errlen) != REF_OK)
            return false;
    }
    return apply_one(a, &x, err, errlen);
}

static bool apply_one(Attn *a, const Action *act, char *err, size_t errlen)
{
    if ((act->kind == ACT_MASK && act->opt == MASK_WINDOW) || act->kind == ACT_POS || act->kind == ACT_APPEND ||
        (act->kind == ACT_SOFTMAX && act->opt == SOFTMAX_ONLINE) || act->kind == ACT_OFFSET ||
        act->kind == ACT_BLOCK || act->kind == ACT_ROPE_BASE)
        return action_apply_modern(a, act, err, errlen); /* today's models (action_modern.c) */
    switch (act->kind) {
    case ACT_SCALE: /* S, A and O are stale now */
        a->scale = (Scale)act->opt;
        a->reached = a->reached < STAGE_QKV ? a->reached : STAGE_QKV;
        return true;
    case ACT_SOFTMAX:
        a->softmax = (Softmax)act->opt;
        a->reached = a->reached < STAGE_SCORES ? a->reached : STAGE_SCORES;
        return true;
    case ACT_MASK: /* S, A and O are stale now */
        a->mask = (Mask)act->opt;
        a->reached = a->reached < STAGE_QKV ? a->reached : STAGE_QKV;
        return true;
    case ACT_TEMP:
        a->temp = act->c;
        a->reached = a->reached < STAGE_SCORES ? a->reached : STAGE_SCORES;
        return true;
    case ACT_SWAP:
        for (int k = 0; k < 2; k++) {
            int t = k ? act->src_i : act->i;
            if (t >= attn_tokens(a)) {
                snprintf(err, errlen, _("token %d is out of range: there are %d tokens, swap takes two of 1 to %d"),
                         t + 1, attn_tokens(a), attn_tokens(a));
                return false;
            }
        }
        attn_swap_tokens(a, act->i, act->src_i);
        return true;
    case ACT_TARGET:
    case ACT_LR:
    case ACT_STEP:
        return train_apply(a, act, err, errlen);
    case ACT_RESET:
        snprintf(err, errlen, _("reset is handled by the session"));
        return false;
    default: /* ACT_APPEND and the other options of today's models: above */
        break;
    case ACT_ROW_COPY:
    case ACT_ROW_SET:
        return check_index(a, act->mat, act->i, -1, err, errlen) && apply_row(a, act, err, errlen);
    case ACT_CELL_SET:
        if (!check_index(a, act->mat, act->i, act->j, err, errlen))
            return false;
        if (attn_mat_base(act->mat) >= M_Q && attn_mat_base(act->mat) <= M_V && a->reached < STAGE_QKV)
            attn_run_to(a, STAGE_QKV);
        double row[MAT_MAX];
        memcpy(row, &MAT_AT(&a->m[act->mat], act->i, 0), sizeof(double) * (size_t)a->m[act->mat].cols);
        row[act->j] = act->c;
        if (!row_finite(a, act, row, err, errlen))
            return false;
        put_row(a, act->mat, act->i, row);
        return true;
    }
    return false;
}

bool action_is_option(const Action *act)
{
    return act->kind == ACT_SCALE || act->kind == ACT_SOFTMAX || act->kind == ACT_MASK || act->kind == ACT_TEMP ||
           act->kind == ACT_POS || act->kind == ACT_OFFSET || act->kind == ACT_BLOCK || act->kind == ACT_ROPE_BASE;
}
