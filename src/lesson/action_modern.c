/* action_modern.c - applying and writing the actions of today's models
 * (see action.h and DESIGN.md "Attention in today's models"): append,
 * mask = window W, positions = rope, rope_base, offset, softmax = online,
 * block. The parsing is in action.c with the rest of the language.
 *
 * An appended token's name is kept in the state it was appended to
 * (Attn.tok_name, freed and copied with it): the core names rows by number
 * only (Attn.tok), so each distinct name gets an id from ACTION_TOKEN_BASE
 * that lesson_token() turns back into the name. */
#include "action.h"

#include <stdio.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"

const char *action_token_name(const Attn *a, int id)
{
    return attn_name_at(a, id - ACTION_TOKEN_BASE);
}

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

static void stale_from(Attn *a, int stage)
{
    a->reached = a->reached < stage ? a->reached : stage;
}

bool action_apply_modern(Attn *a, const Action *act, char *err, size_t errlen)
{
    switch (act->kind) {
    case ACT_APPEND:
        return apply_append(a, act, err, errlen);
    case ACT_POS:
        return apply_positions(a, act, err, errlen);
    case ACT_MASK:
        a->mask = (Mask)act->opt;
        if (act->opt == MASK_WINDOW)
            a->window = act->n;
        stale_from(a, STAGE_QKV);
        return true;
    case ACT_SOFTMAX:
        a->softmax = (Softmax)act->opt;
        stale_from(a, STAGE_SCORES);
        return true;
    case ACT_BLOCK:
        a->block = act->n;
        stale_from(a, STAGE_SCORES);
        return true;
    case ACT_OFFSET: /* RoPE turns by the position; sinusoidal P is the position's */
        a->offset = act->n;
        a->reached = STAGE_NONE;
        return true;
    case ACT_ROPE_BASE:
        a->rope_base = act->c;
        a->reached = STAGE_NONE;
        return true;
    default:
        snprintf(err, errlen, "%s", _("not an action of today's models"));
        return false;
    }
}

bool action_format_modern(const Action *act, char *buf, size_t len)
{
    char x[SHORTEST_MAX];
    size_t o;
    switch (act->kind) {
    case ACT_APPEND:
        o = (size_t)snprintf(buf, len, "append %s [", act->word);
        for (int k = 0; k < act->n && o < len; k++) {
            o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ", " : "", fmt_exact(act->vals[k], x, sizeof x));
        }
        if (o < len)
            snprintf(buf + o, len - o, "]");
        return true;
    case ACT_OFFSET:
        snprintf(buf, len, "offset = %d", act->n);
        return true;
    case ACT_BLOCK:
        snprintf(buf, len, "block = %d", act->n);
        return true;
    case ACT_ROPE_BASE:
        snprintf(buf, len, "rope_base = %s", fmt_exact(act->c, x, sizeof x));
        return true;
    case ACT_MASK:
        if (act->opt != MASK_WINDOW)
            return false;
        snprintf(buf, len, "mask = window %d", act->n);
        return true;
    case ACT_POS:
        if (act->opt != POS_ROPE)
            return false;
        snprintf(buf, len, "positions = rope");
        return true;
    case ACT_SOFTMAX:
        if (act->opt != SOFTMAX_ONLINE)
            return false;
        snprintf(buf, len, "softmax = online");
        return true;
    default:
        return false;
    }
}
