/* actiontext.c - an action written back in the action language (see
 * action.h: action_format), numbers shortest round-trip (fmt_exact). */
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "maction.h"
#include "options.h"
#include "text/num.h"
#include "train.h"

/* A target's right-hand side: "none", a key column, or a row of weights. */
static void format_target(const Action *act, char *buf, size_t len)
{
    char t[SHORTEST_MAX];
    int o = snprintf(buf, len, "target ");
    if (o > 0 && (size_t)o < len)
        train_target_name(act, buf + o, len - (size_t)o);
    o = (int)strlen(buf);
    if (act->opt == TARGET_NONE)
        snprintf(buf + o, len - (size_t)o, " = none");
    else if (act->opt == TARGET_KEY)
        snprintf(buf + o, len - (size_t)o, " = %d", act->j + 1);
    else {
        o += snprintf(buf + o, len - (size_t)o, " = [");
        for (int k = 0; k < act->n && o > 0 && (size_t)o < len; k++)
            o += snprintf(buf + o, len - (size_t)o, "%s%s", k ? ", " : "", fmt_exact(act->vals[k], t, sizeof t));
        if (o > 0 && (size_t)o < len)
            snprintf(buf + o, len - (size_t)o, "]");
    }
}

/* A cell, a row copy or a row of numbers. */
static void format_matrix(const Action *act, char *buf, size_t len)
{
    const char *name = attn_mat_name(act->mat);
    char t[SHORTEST_MAX];
    int o;
    switch (act->kind) {
    case ACT_CELL_SET:
        snprintf(buf, len, "%s[%d][%d] = %s", name, act->i + 1, act->j + 1, fmt_exact(act->c, t, sizeof t));
        return;
    case ACT_ROW_COPY:
        if (act->c == 1)
            snprintf(buf, len, "%s[%d] = %s[%d]", name, act->i + 1, attn_mat_name(act->src), act->src_i + 1);
        else
            snprintf(buf, len, "%s[%d] = %s[%d] * %s", name, act->i + 1, attn_mat_name(act->src), act->src_i + 1,
                     fmt_exact(act->c, t, sizeof t));
        return;
    default:
        o = snprintf(buf, len, "%s[%d] = [", name, act->i + 1);
        for (int k = 0; k < act->n && o > 0 && (size_t)o < len; k++)
            o += snprintf(buf + o, len - (size_t)o, "%s%s", k ? ", " : "", fmt_exact(act->vals[k], t, sizeof t));
        if (o > 0 && (size_t)o < len)
            snprintf(buf + o, len - (size_t)o, "]");
        return;
    }
}

/* "append 猫 [1, 0]". */
static void format_append(const Action *act, char *buf, size_t len)
{
    char x[SHORTEST_MAX];
    size_t o = (size_t)snprintf(buf, len, "append %s [", act->word);
    for (int k = 0; k < act->n && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ", " : "", fmt_exact(act->vals[k], x, sizeof x));
    if (o < len)
        snprintf(buf + o, len - o, "]");
}

void action_format(const Action *act, char *buf, size_t len)
{
    char t[SHORTEST_MAX];
    const OptRow *r = option_of_action(act->kind);
    if (maction_is_model(act)) { /* a model lesson's (maction.h) */
        maction_format(act, buf, len);
        return;
    }
    if (r) { /* "key = value", as the option table spells it */
        snprintf(buf, len, "%s = %s", r->key, option_text(r, option_action_value(r, act), act->n, t, sizeof t));
        return;
    }
    switch (act->kind) {
    case ACT_SWAP:    snprintf(buf, len, "swap %d %d", act->i + 1, act->src_i + 1); return;
    case ACT_TARGET:  format_target(act, buf, len); return;
    case ACT_STEP:
        if (act->n == 1)
            snprintf(buf, len, "step");
        else
            snprintf(buf, len, "step %d", act->n);
        return;
    case ACT_RESET:   snprintf(buf, len, "reset"); return;
    case ACT_APPEND:  format_append(act, buf, len); return;
    default: return; /* the options: above */
    case ACT_CELL_SET:
    case ACT_ROW_COPY:
    case ACT_ROW_SET: format_matrix(act, buf, len); return;
    }
}
