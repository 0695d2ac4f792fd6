/* train.c - targets, the learning rate and gradient steps as actions (see train.h). */
#include "train.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"
#include "text/text.h"

void train_target_name(const Action *a, char *buf, size_t len)
{
    if (a->head >= 0)
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
        num_general(v, sizeof v, act->vals[bad], 6);
        snprintf(err, errlen, _("a target is a distribution: weight %d is %s, below 0; every weight must be 0 or more"),
                 bad + 1, v);
        return false;
    case GRAD_DIST_MASKED:
        num_general(v, sizeof v, act->vals[bad], 6);
        snprintf(err, errlen, _("key %d comes after query %d, so the causal mask hides it; its target weight must "
                                "be 0, not %s"), bad + 1, act->i + 1, v);
        return false;
    case GRAD_DIST_SUM: {
        double sum = 0;
        for (int j = 0; j < act->n; j++)
            sum += act->vals[j];
        num_general(v, sizeof v, sum, 10);
        snprintf(err, errlen, _("a target is a distribution: its weights must sum to 1, these sum to %s"), v);
        return false;
    }
    }
    return false;
}

static bool apply_target(Attn *a, const Action *act, char *err, size_t errlen)
{
    double t[MAT_MAX];
    if (act->head == -1 && grad_heads(a) > 1) {
        snprintf(err, errlen, _("A is one per head in a lesson with %d heads: write A1 to A%d"), grad_heads(a),
                 grad_heads(a));
        return false;
    }
    Action named = *act;
    if (named.head == -1)
        named.head = 0; /* one head: A is A1 */
    act = &named;
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
                                "reset it first (r in the view, or undo the edit with u)"), row + 1, attn_mat_name(m));
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

/* ---- the training panel ----------------------------------------------------- */

int train_focus_target(const Attn *a, int head, int fi)
{
    int k = grad_find(a, head, fi);
    for (int x = 0; k < 0 && x < a->ntarget; x++)
        if (a->target[x].head == head)
            k = x;
    return k >= 0 ? k : a->ntarget > 0 ? 0 : -1;
}

void train_sparkline(const Attn *a, bool ascii, int width, char *buf, size_t len)
{
    static const char *const utf[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char *const asc[8] = {"_", ".", "-", "~", "=", "+", "*", "#"};
    double v[ATTN_LOSS_HIST + 1];
    int n = 0;
    for (int k = 0; k < a->nloss; k++)
        v[n++] = a->loss_hist[k];
    v[n++] = grad_loss(a);
    int first = n > width ? n - width : 0;
    double lo = v[first], hi = v[first];
    for (int k = first; k < n; k++) {
        lo = v[k] < lo ? v[k] : lo;
        hi = v[k] > hi ? v[k] : hi;
    }
    size_t o = 0;
    buf[0] = '\0';
    for (int k = first; k < n && o + 4 < len; k++) {
        int lv = !(hi > lo) || !isfinite(v[k]) ? 7 : (int)lround((v[k] - lo) / (hi - lo) * 7);
        const char *ch = (ascii ? asc : utf)[lv < 0 ? 0 : lv > 7 ? 7 : lv];
        o += (size_t)snprintf(buf + o, len - o, "%s", ch);
    }
}

/* "[0.313, 0.337, −0.650]" of n values. */
static char *vec(const double *v, int n, const FmtOpt *fo, char *buf, size_t len)
{
    char x[64];
    size_t o = (size_t)snprintf(buf, len, "[");
    for (int k = 0; k < n && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ", " : "", fmt_num(v[k], fo, x, sizeof x));
    if (o < len)
        snprintf(buf + o, len - o, "]");
    return buf;
}

/* The ≈ rule on the panel's lines; while an open ask hides the panel's
 * values ("?"), nothing is judged. */
static const char *panel_eq(double from, double result, const FmtOpt *fo)
{
    return fo->hiding ? " = " : fmt_eq(from, result, fo);
}

static const char *panel_eq_vec(const double *from, const double *result, int n, const FmtOpt *fo)
{
    return fo->hiding ? " = " : fmt_eq_vec(from, result, n, fo);
}

/* A number or "[a, b]" worked out from the weights α: "?" and "[?, ?]"
 * while an open ask hides them (fo->hiding, session_ask_hides_training). */
static char *dnum(double v, const FmtOpt *fo, char *buf, size_t len)
{
    if (fo->hiding) {
        snprintf(buf, len, "?");
        return buf;
    }
    return fmt_num(v, fo, buf, len);
}

static char *dvec(const double *v, int n, const FmtOpt *fo, char *buf, size_t len)
{
    if (!fo->hiding)
        return vec(v, n, fo, buf, len);
    size_t o = (size_t)snprintf(buf, len, "[");
    for (int k = 0; k < n && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s?", k ? ", " : "");
    if (o < len)
        snprintf(buf + o, len - o, "]");
    return buf;
}

/* Line 1: the target and the loss, with its history. */
static void line_loss(const Lesson *l, const Attn *a, const GradExplain *e, const FmtOpt *fo, char *buf, size_t len)
{
    char tgt[512], sub[32], num[64], spark[256], alpha[64], lr[64];
    int hot = -1, nz = 0;
    for (int j = 0; j < e->n; j++)
        if (e->t[j] > 0)
            hot = j, nz++;
    Action act = {.kind = ACT_TARGET, .i = e->row, .head = grad_heads(a) > 1 ? e->head : -1};
    train_target_name(&act, tgt, sizeof tgt);
    size_t o = strlen(tgt);
    if (nz == 1) {
        char from[128], to[128];
        text_sanitize(lesson_token(l, a, e->row), from, sizeof from, fo->ascii);
        text_sanitize(lesson_token(l, a, hot), to, sizeof to, fo->ascii);
        snprintf(tgt + o, sizeof tgt - o, _(" = %d (%s %s %s)"), hot + 1, from, fo->ascii ? "->" : "→", to);
        fmt_sub2(e->row + 1, hot + 1, fo, sub, sizeof sub);
        snprintf(alpha, sizeof alpha, fo->ascii ? "-ln a%s" : "−ln α%s", sub);
    } else {
        char v[256];
        snprintf(tgt + o, sizeof tgt - o, " = %s", vec(e->t, e->n, fo, v, sizeof v));
        fmt_sub(e->row + 1, fo, sub, sizeof sub);
        snprintf(alpha, sizeof alpha, fo->ascii ? "-sum_j t_j ln a%sj" : "−Σⱼ tⱼ ln α%sⱼ", sub);
    }
    train_sparkline(a, fo->ascii, 24, spark, sizeof spark);
    if (fo->hiding) /* its last bar would tell the loss */
        spark[0] = '\0';
    double from = 0; /* −Σ t ln α from the weights as A shows them */
    for (int j = 0; j < e->vis; j++)
        if (e->t[j] != 0)
            from -= e->t[j] * log(fmt_shown(e->alpha[j], fo));
    const char *eq = panel_eq(from, e->loss, fo);
    snprintf(buf, len, _("target %s · loss L = %s = %s  %s  (lr %s)"), tgt, alpha, dnum(e->loss, fo, num, sizeof num),
             spark, fmt_exact(a->lr, lr, sizeof lr));
    if (strcmp(eq, " = ") != 0) { /* "L = −ln α₁₃ ≈ 0.815": the last " = " before the number */
        char *at = strstr(buf, alpha);
        at = at ? strstr(at + strlen(alpha), " = ") : NULL;
        if (at && strlen(buf) + strlen(eq) < len) {
            memmove(at + strlen(eq), at + 3, strlen(at + 3) + 1);
            memcpy(at, eq, strlen(eq));
        }
    }
}

/* dL/ds_i = alpha_i - t (÷ T). */
static void line_ds(const GradExplain *e, const FmtOpt *fo, char *buf, size_t len)
{
    char sub[32], v[512], t[64];
    fmt_sub(e->row + 1, fo, sub, sizeof sub);
    const double *d = e->temp != 1.0 ? e->ds : e->dz;
    double from[MAT_MAX]; /* from the weights as A shows them, the target and T as written */
    for (int j = 0; j < e->vis; j++)
        from[j] = (fmt_shown(e->alpha[j], fo) - e->t[j]) / e->temp;
    const char *eq = panel_eq_vec(from, d, e->vis, fo);
    if (e->temp != 1.0)
        snprintf(buf, len, fo->ascii ? "dL/ds%s = (a%s - t) / T = (a%s - t) / %s%s%s" : "∂L/∂s%s = (α%s − t) ÷ T = (α%s − t) ÷ %s%s%s",
                 sub, sub, sub, fmt_exact(e->temp, t, sizeof t), eq, dvec(d, e->vis, fo, v, sizeof v));
    else
        snprintf(buf, len, fo->ascii ? "dL/ds%s = a%s - t%s%s" : "∂L/∂s%s = α%s − t%s%s", sub, sub, eq,
                 dvec(d, e->vis, fo, v, sizeof v));
}

/* dL/dq_i = sum_j (alpha_ij - t_j) k_j (÷ √d_k, ÷ T) with its terms. */
static void line_dq(const Attn *a, const GradExplain *e, const FmtOpt *fo, char *buf, size_t len)
{
    double from[MAT_MAX] = {0}; /* from the α − t as printed and K's cells as shown */
    for (int c = 0; c < e->d_k; c++) {
        for (int j = 0; j < e->vis; j++)
            from[c] += fmt_shown(e->dz[j], fo) * fmt_shown(MAT_AT(&a->m[M_K], j, e->head * e->d_k + c), fo);
        from[c] = from[c] / e->divisor / e->temp;
    }
    char sub[32], sj[32], num[64], v[512], t[64];
    fmt_sub(e->row + 1, fo, sub, sizeof sub);
    size_t o = (size_t)snprintf(buf, len, fo->ascii ? "dL/dq%s = sum_j (a%sj - t_j) k_j" : "∂L/∂q%s = Σⱼ (α%sⱼ − tⱼ)·kⱼ",
                                sub, sub);
    char div[64] = ""; /* written after the sum too: ((α − t)k₁ + …) ÷ √d_k */
    if (e->scaled)
        snprintf(div, sizeof div, fo->ascii ? " / sqrt(%d)" : " ÷ √%d", e->d_k);
    if (e->temp != 1.0)
        snprintf(div + strlen(div), sizeof div - strlen(div), fo->ascii ? " / %s" : " ÷ %s",
                 fmt_exact(e->temp, t, sizeof t));
    if (o < len)
        o += (size_t)snprintf(buf + o, len - o, "%s = %s", div, div[0] ? "(" : "");
    for (int j = 0; j < e->vis && o < len; j++) {
        fmt_sub(j + 1, fo, sj, sizeof sj);
        o += (size_t)snprintf(buf + o, len - o, "%s(%s)k%s", j ? " + " : "", dnum(e->dz[j], fo, num, sizeof num), sj);
    }
    if (div[0] && o < len)
        o += (size_t)snprintf(buf + o, len - o, ")%s", div);
    if (o < len)
        snprintf(buf + o, len - o, "%s%s", panel_eq_vec(from, e->dq, e->d_k, fo), dvec(e->dq, e->d_k, fo, v, sizeof v));
}

/* dL/dWq = h_i^T dL/dq_i; dL/dk_j's part from this row, and dL/dWk. */
static void line_dw(const GradExplain *e, const FmtOpt *fo, bool k, char *buf, size_t len)
{
    char sub[32], sk[32], v[512], w[512], num[64];
    fmt_sub(e->row + 1, fo, sub, sizeof sub);
    fmt_sub(e->key + 1, fo, sk, sizeof sk);
    if (!k) {
        snprintf(buf, len, fo->ascii ? "dL/dWq = h%s^T dL/dq%s = %s^T %s" : "∂L/∂W_Q = h%sᵀ·∂L/∂q%s = %sᵀ·%s", sub, sub,
                 vec(e->h, e->d_model, fo, v, sizeof v), dvec(e->dq, e->d_k, fo, w, sizeof w));
        return;
    }
    char sk2[32], div[64] = "", t[64];
    fmt_sub2(e->row + 1, e->key + 1, fo, sk2, sizeof sk2);
    if (e->scaled)
        snprintf(div, sizeof div, fo->ascii ? " / sqrt(%d)" : " ÷ √%d", e->d_k);
    if (e->temp != 1.0)
        snprintf(div + strlen(div), sizeof div - strlen(div), fo->ascii ? " / %s" : " ÷ %s",
                 fmt_exact(e->temp, t, sizeof t));
    char q[512];
    double from[MAT_MAX]; /* from (α − t) and q as printed */
    for (int c = 0; c < e->d_k; c++)
        from[c] = fmt_shown(e->dz[e->key], fo) * fmt_shown(e->q[c], fo) / e->divisor / e->temp;
    snprintf(buf, len, fo->ascii ? _("dL/dk%s (from row %d) = (a%s - t%s) q%s%s = (%s) %s%s = %s; dL/dWk = sum_j h_j^T dL/dk_j")
                                 : _("∂L/∂k%s (from row %d) = (α%s − t%s)·q%s%s = (%s)·%s%s = %s; ∂L/∂W_K = Σⱼ hⱼᵀ·∂L/∂kⱼ"),
             sk, e->row + 1, sk2, sk, sub, div, dnum(e->dz[e->key], fo, num, sizeof num),
             vec(e->q, e->d_k, fo, q, sizeof q), div, dvec(e->dk, e->d_k, fo, v, sizeof v));
    const char *eq = panel_eq_vec(from, e->dk, e->d_k, fo);
    char needle[600]; /* the " = " before ∂L/∂k's value, in any language */
    snprintf(needle, sizeof needle, " = %s", v);
    char *at = strcmp(eq, " = ") != 0 ? strstr(buf, needle) : NULL;
    if (at && strlen(buf) + strlen(eq) < len) {
        memmove(at + strlen(eq), at + 3, strlen(at + 3) + 1);
        memcpy(at, eq, strlen(eq));
    }
}

int train_lines(const Lesson *l, const Attn *a, int ti, int fj, const FmtOpt *fo, char lines[][FMT_LINE], int max)
{
    GradExplain e;
    char lr[64];
    if (max < 1 || !grad_explain(a, ti, fj, &e))
        return 0;
    int n = 0;
    line_loss(l, a, &e, fo, lines[n++], FMT_LINE);
    if (n < max)
        line_ds(&e, fo, lines[n++], FMT_LINE);
    if (n < max)
        line_dq(a, &e, fo, lines[n++], FMT_LINE);
    if (n < max)
        line_dw(&e, fo, false, lines[n++], FMT_LINE);
    if (n < max)
        line_dw(&e, fo, true, lines[n++], FMT_LINE);
    if (n < max)
        snprintf(lines[n++], FMT_LINE, fo->ascii ? _("a step (g): W <- W - %s * dL/dW for W_Q and W_K; X, W_V stay")
                                                 : _("a step (g): W ← W − %s·∂L/∂W for W_Q and W_K; X, W_V stay"),
                 fmt_exact(a->lr, lr, sizeof lr));
    /* the note once, after ∂L/∂s: the loss line above it is kept whole on a small screen */
    for (int k = 0; k < n; k++)
        if (strstr(lines[k], fo->ascii ? " ~ " : " ≈ ")) {
            fmt_note_add(lines[n > 1 ? 1 : 0], fo->ascii);
            break;
        }
    return n;
}
