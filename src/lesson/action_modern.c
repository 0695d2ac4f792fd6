/* action_modern.c - applying and writing the actions of today's models
 * (see action.h and DESIGN.md "Attention in today's models"): append,
 * mask = window W, positions = rope, rope_base, offset, softmax = online,
 * block. The parsing is in action.c with the rest of the language.
 *
 * An appended token's name is kept here: the core names rows by number
 * only (Attn.tok), so each distinct name gets an id from ACTION_TOKEN_BASE
 * that lesson_token() turns back into the name. Names are never freed (at
 * most TOKEN_NAMES of them, as short as a lesson's tokens). */
#include "action.h"

#include <stdio.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"

#define TOKEN_NAMES 512

static char token_names[TOKEN_NAMES][ACTION_TOKEN_BYTES + 1];
static int ntoken_names;

/* The id of a name, added when new; -1 when the table is full. */
static int token_id(const char *name)
{
    for (int k = 0; k < ntoken_names; k++)
        if (strcmp(token_names[k], name) == 0)
            return ACTION_TOKEN_BASE + k;
    if (ntoken_names == TOKEN_NAMES)
        return -1;
    snprintf(token_names[ntoken_names], sizeof token_names[0], "%s", name);
    return ACTION_TOKEN_BASE + ntoken_names++;
}

const char *action_token_name(int id)
{
    int k = id - ACTION_TOKEN_BASE;
    return k >= 0 && k < ntoken_names ? token_names[k] : NULL;
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
    int id = token_id(act->word);
    if (id < 0 || !attn_append(a, act->vals, act->n)) {
        snprintf(err, errlen, "%s", _("out of memory: the token was not appended"));
        return false;
    }
    a->tok[n] = id;
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
