/* train.c - targets, the learning rate and gradient steps as actions (see train.h). */
#include "train.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "i18n.h"
#include "num.h"

bool train_target_ref(const char *name, int len, Action *a)
{
    int n = 0;
    while (n < len && name[n] != '[' && name[n] != ' ' && name[n] != '\t')
        n++;
    if (n < 1 || name[0] != 'A')
        return false;
    int head = 0;
    for (int k = 1; k < n; k++) { /* "A2": head 2 */
        if (name[k] < '0' || name[k] > '9')
            return false;
        head = head < 100 ? head * 10 + (name[k] - '0') : head;
    }
    a->mat = M_A;
    a->head = n > 1 ? head - 1 : 0;
    return n == 1 || head >= 1;
}

void train_target_name(const Action *a, char *buf, size_t len)
{
    if (a->head > 0)
        snprintf(buf, len, "A%d[%d]", a->head + 1, a->i + 1);
    else
        snprintf(buf, len, "A[%d]", a->i + 1);
}

/* "row 1 of A" / "row 1 of A2". */
static void row_name(int head, int row, char *buf, size_t len)
{
    if (head > 0)
        snprintf(buf, len, _("row %d of A%d"), row + 1, head + 1);
    else
        snprintf(buf, len, _("row %d of A"), row + 1);
}

/* The distribution of an ACT_TARGET into t, checked against a. */
static bool target_dist(const Attn *a, const Action *act, double *t, char *err, size_t errlen)
{
    int n = attn_tokens(a), bad;
    char v[40];
    if (act->opt == TARGET_KEY) {
        if (act->j >= n) {
            snprintf(err, errlen, _("key %d is out of range: A has keys 1 to %d"), act->j + 1, n);
            return false;
        }
        if (attn_masked(a, act->i, act->j)) {
            snprintf(err, errlen, _("key %d comes after query %d, so the causal mask hides it; a target for row "
                                    "%d may put weight on keys 1 to %d only"), act->j + 1, act->i + 1, act->i + 1,
                     act->i + 1);
            return false;
        }
        for (int j = 0; j < n; j++)
            t[j] = j == act->j;
        return true;
    }
    switch (grad_check_dist(a, act->i, act->vals, act->n, &bad)) {
    case GRAD_DIST_OK:
        memcpy(t, act->vals, sizeof(double) * (size_t)n);
        return true;
    case GRAD_DIST_WIDTH:
        snprintf(err, errlen, _("a target row of A takes %d numbers, one per key; this one has %d"), n, act->n);
        return false;
    case GRAD_DIST_NOT_FINITE:
        snprintf(err, errlen, "%s", _("numbers must be finite"));
        return false;
    case GRAD_DIST_NEGATIVE:
        num_snprintf(v, sizeof v, "%g", act->vals[bad]);
        snprintf(err, errlen, _("a target is a distribution: weight %d is %s, below 0; every weight must be 0 or more"),
                 bad + 1, v);
        return false;
    case GRAD_DIST_MASKED:
        num_snprintf(v, sizeof v, "%g", act->vals[bad]);
        snprintf(err, errlen, _("key %d comes after query %d, so the causal mask hides it; its target weight must "
                                "be 0, not %s"), bad + 1, act->i + 1, v);
        return false;
    case GRAD_DIST_SUM: {
        double sum = 0;
        for (int j = 0; j < act->n; j++)
            sum += act->vals[j];
        num_snprintf(v, sizeof v, "%.10g", sum);
        snprintf(err, errlen, _("a target is a distribution: its weights must sum to 1, these sum to %s"), v);
        return false;
    }
    }
    return false;
}

static bool apply_target(Attn *a, const Action *act, char *err, size_t errlen)
{
    double t[MAT_MAX];
    if (act->head < 0 || act->head >= grad_heads(a)) {
        snprintf(err, errlen, _("head %d is out of range: this lesson has %d head(s)"), act->head + 1,
                 grad_heads(a));
        return false;
    }
    if (act->i < 0 || act->i >= attn_tokens(a)) {
        snprintf(err, errlen, _("row %d is out of range: %s has rows 1 to %d"), act->i + 1, "A", attn_tokens(a));
        return false;
    }
    if (act->opt != TARGET_NONE && !target_dist(a, act, t, err, errlen))
        return false;
    if (!grad_set_target(a, act->head, act->i, act->opt == TARGET_NONE ? NULL : t)) {
        snprintf(err, errlen, "%s", _("out of memory; nothing was changed"));
        return false;
    }
    return true;
}

bool train_can_step(const Attn *a, char *err, size_t errlen)
{
    MatId m = M_Q;
    int k = 0, row = 0, col = 0;
    char name[32];
    switch (grad_ready(a, &m, &k, &row, &col)) {
    case GRAD_READY:
        return true;
    case GRAD_NO_TARGET:
        snprintf(err, errlen, "%s", _("nothing to learn yet: set a target first, like target A[1] = 3 (in the view, "
                                      "T targets the focused cell of A)"));
        return false;
    case GRAD_OVERRIDE:
        snprintf(err, errlen, _("a step trains W_Q and W_K, but row %d of %s is set by hand, not computed from them; "
                                "press r to reset it (or u to undo the edit)"), row + 1, attn_mat_name(m));
        return false;
    case GRAD_MASKED_TARGET:
        row_name(a->target[k].head, row, name, sizeof name);
        snprintf(err, errlen, _("the target of %s puts weight on key %d, which the causal mask hides; set another "
                                "target or turn the mask off"), name, col + 1);
        return false;
    case GRAD_NOT_FINITE:
        row_name(a->target[k].head, row, name, sizeof name);
        snprintf(err, errlen, _("%s is not a finite number (inf or NaN), so it has no gradient; use smaller "
                                "numbers"), name);
        return false;
    }
    return false;
}

static bool apply_step(Attn *a, const Action *act, char *err, size_t errlen)
{
    if (act->n < 1 || act->n > GRAD_STEP_MAX) {
        snprintf(err, errlen, _("step takes 1 to %d steps, found %d"), GRAD_STEP_MAX, act->n);
        return false;
    }
    if (a->ntarget > 0 && a->reached < STAGE_SOFTMAX)
        attn_run_to(a, STAGE_SOFTMAX);
    if (!train_can_step(a, err, errlen))
        return false;
    if (!grad_descend(a, act->n)) {
        snprintf(err, errlen, "%s", _("this step would make W_Q or W_K infinite (or memory ran out); nothing was "
                                      "changed; try a smaller learning rate, like lr = 0.1"));
        return false;
    }
    return true;
}

bool train_apply(Attn *a, const Action *act, char *err, size_t errlen)
{
    switch (act->kind) {
    case ACT_TARGET:
        return apply_target(a, act, err, errlen);
    case ACT_LR:
        if (!(act->c > 0) || !isfinite(act->c)) {
            snprintf(err, errlen, "%s", _("lr must be a finite number above 0"));
            return false;
        }
        a->lr = act->c;
        return true;
    case ACT_STEP:
        return apply_step(a, act, err, errlen);
    default:
        snprintf(err, errlen, "%s", _("not a training action"));
        return false;
    }
}
