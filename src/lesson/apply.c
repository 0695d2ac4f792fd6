/* apply.c - an action applied to the state (see action.h: action_apply):
 * its indices and numbers checked against the lesson's shape, then the
 * cell, row, option (by the option table, options.h), appended token or
 * training step written; on failure nothing changes.
 *
 * An appended token's name is kept in the state it was appended to
 * (Attn.tok_name, freed and copied with it): the core names rows by number
 * only (Attn.tok), so each distinct name gets an id from ACTION_TOKEN_BASE
 * that lesson_token() turns back into the name. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "options.h"
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

/* append: n below MAT_MAX, a row of d_model numbers. */
static bool apply_append(Attn *a, const Action *act, char *err, size_t errlen)
{
    int n = attn_tokens(a), d = attn_d_model(a);
    if (n >= MAT_MAX) {
        snprintf(err, errlen, _("there are already %d tokens, a lesson has at most %d; append no more"), n, MAT_MAX);
        return false;
    }
    if (act->n != d) {
        snprintf(err, errlen, _("append needs a row of d_model = %d numbers, one per column of X; it has %d"), d,
                 act->n);
        return false;
    }
    int names = a->ntok_name, k = attn_name_index(a, act->word);
    if (k < 0 || !attn_append(a, act->vals, act->n)) {
        a->ntok_name = names; /* refused: the state as it was */
        snprintf(err, errlen, "%s", _("out of memory: the token was not appended"));
        return false;
    }
    a->tok[n] = ACTION_TOKEN_BASE + k;
    return true;
}

/* positions = none | sinusoidal | rope. */
static bool apply_positions(Attn *a, const Action *act, char *err, size_t errlen)
{
    if (act->opt == POS_ROPE && attn_d_k(a) % 2 != 0) {
        snprintf(err, errlen, _("RoPE turns the columns of q and k in pairs, so d_k must be even; this lesson has "
                                "d_k = %d"), attn_d_k(a));
        return false;
    }
    if (!attn_set_positions(a, (Positions)act->opt)) {
        snprintf(err, errlen, "%s", _("out of memory: positions were not changed"));
        return false;
    }
    a->reached = STAGE_NONE; /* P, H or the rotation change, and everything after them */
    return true;
}

/* An option of the table (options.h) set: its field in the state (mask's
 * window too), then the stages it feeds are stale. positions allocates. */
static bool apply_option(Attn *a, const OptRow *r, const Action *act, char *err, size_t errlen)
{
    if (r->id == OPT_POS)
        return apply_positions(a, act, err, errlen);
    char *field = (char *)a + r->in_attn;
    double v = option_action_value(r, act);
    int i = (int)v;
    if (r->type == OT_NUMBER)
        memcpy(field, &v, sizeof v);
    else
        memcpy(field, &i, sizeof i);
    if ((r->flags & OF_WIDTH) && i == 2)
        a->window = act->n;
    a->reached = a->reached < r->stale ? a->reached : r->stale;
    return true;
}

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

/* What cross-attention or padding keys refuse of an action (DESIGN.md "From
 * a head to a model"): an option checked on a copy of its fields, an
 * append or a training action by its kind. */
static bool cross_refused(const Attn *a, const Action *act, const OptRow *r, char *err, size_t errlen)
{
    bool cross = attn_is_cross(a);
    if (!cross && attn_real_keys(a) == attn_keys(a))
        return false;
    if (r && action_is_option(act) && (r->id == OPT_MASK || r->id == OPT_POS)) {
        Attn t = *a; /* the scalars only: attn_check_options reads no matrix cell */
        if (r->id == OPT_MASK) {
            t.mask = (Mask)(int)option_action_value(r, act);
            t.window = t.mask == MASK_WINDOW ? act->n : t.window;
        } else {
            t.positions = (Positions)act->opt;
        }
        switch (attn_check_options(&t)) {
        case ATTN_OPT_CROSS_MASK:
            snprintf(err, errlen, "%s", _("cross-attention has no mask: the source has no future to hide and every "
                                          "target token sees the whole source; write mask = none"));
            return true;
        case ATTN_OPT_CROSS_POS:
            snprintf(err, errlen, "%s", _("positions are not taught with cross-attention here: the target and the "
                                          "source would each need their own; write positions = none"));
            return true;
        case ATTN_OPT_PAD_ALL:
            snprintf(err, errlen, "%s", _("that mask would leave a query row with only padding keys, nothing to "
                                          "attend to; choose a wider window or mask = none"));
            return true;
        default:
            return false;
        }
    }
    if (cross && act->kind == ACT_APPEND) {
        snprintf(err, errlen, "%s", _("append adds a token whose own key is cached; with cross-attention the keys "
                                      "are the source's, so there is nothing to append to"));
        return true;
    }
    if (cross && (act->kind == ACT_TARGET || act->kind == ACT_STEP)) {
        snprintf(err, errlen, "%s", _("training steps are taught with self-attention (lesson 9); this lesson's "
                                      "attention is cross"));
        return true;
    }
    return false;
}

static bool apply_one(Attn *a, const Action *act, char *err, size_t errlen)
{
    const OptRow *r = option_of_action(act->kind);
    if (cross_refused(a, act, r, err, errlen))
        return false;
    if (r && action_is_option(act))
        return apply_option(a, r, act, err, errlen);
    if ((act->kind == ACT_ROW_COPY || act->kind == ACT_ROW_SET || act->kind == ACT_CELL_SET) &&
        (act->mat == M_XS || (act->kind == ACT_ROW_COPY && act->src == M_XS)) && !attn_is_cross(a)) {
        snprintf(err, errlen, "%s", _("Xs is the source of cross-attention; this lesson's attention is self, "
                                      "edit X instead"));
        return false;
    }
    switch (act->kind) {
    case ACT_APPEND:
        return apply_append(a, act, err, errlen);
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
    default: /* the options: above */
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
    return option_of_action(act->kind) && act->kind != ACT_LR; /* lr is training's */
}
