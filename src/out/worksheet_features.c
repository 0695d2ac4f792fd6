/* worksheet_features.c - the givens of today's models on a worksheet (see
 * worksheet_features.h). */
#include "worksheet_features.h"

#include <string.h>

#include "lesson/options.h"
#include "text/i18n.h"
#include "text/num.h"
#include "mdtable.h"

/* Does the lesson, up to step `last`, take an action of this kind (opt < 0:
 * any)? */
static bool acts(const Lesson *l, int last, ActKind kind, int opt)
{
    for (int k = 0; k <= last && k < l->nsteps; k++)
        for (int a = 0; a < l->steps[k].nact; a++)
            if (l->steps[k].act[a].kind == kind && (opt < 0 || l->steps[k].act[a].opt == opt))
                return true;
    return false;
}

static bool uses_rope(const Lesson *l, int last)
{
    return l->positions == POS_ROPE || acts(l, last, ACT_POS, POS_ROPE) || acts(l, last, ACT_ROPE_BASE, -1);
}

static bool uses_online(const Lesson *l, int last)
{
    return l->softmax == SOFTMAX_ONLINE || acts(l, last, ACT_SOFTMAX, SOFTMAX_ONLINE) || acts(l, last, ACT_BLOCK, -1);
}

static bool uses_window(const Lesson *l, int last)
{
    return l->mask == MASK_WINDOW || acts(l, last, ACT_MASK, MASK_WINDOW);
}

static int kv_heads(const Lesson *l)
{
    return l->kv_heads > 0 ? l->kv_heads : l->heads;
}

void ws_softmax_value(const Lesson *l, char *buf, size_t len)
{
    snprintf(buf, len, "%s",
             l->softmax == SOFTMAX_ONLINE ? _("online: the stable softmax's A, computed block by block (below)")
             : l->softmax == SOFTMAX_STABLE ? _("stable: exp(s − max of the row) ÷ their sum")
                                            : _("naive: exp(s) ÷ the row's sum of exp"));
}

void ws_mask_value(const Lesson *l, char *buf, size_t len)
{
    if (l->mask == MASK_WINDOW)
        snprintf(buf, len, _("window %d: S[i][j] = −∞ unless i − %d < j ≤ i, so A[i][j] = 0"), l->window, l->window);
    else
        snprintf(buf, len, "%s", l->mask == MASK_CAUSAL ? _("causal: S[i][j] = −∞ for j > i, so A[i][j] = 0")
                                                        : _("none: every query sees every key"));
}

void ws_positions_value(const Lesson *l, char *buf, size_t len)
{
    snprintf(buf, len, "%s",
             l->positions == POS_ROPE         ? _("rope: H = X; Q and K turn by position (below)")
             : l->positions == POS_SINUSOIDAL ? _("sinusoidal: H = X + P")
                                              : _("none: H = X"));
}

int ws_modern_rows(const Lesson *l, int last, const char *after, const char **name, char (*val)[WS_OPT_LEN], int n,
                   int max)
{
    char v[64];
    if (strcmp(after, "heads") == 0 && kv_heads(l) != l->heads && n < max) {
        name[n] = option_row(OPT_KV_HEADS)->key;
        snprintf(val[n++], WS_OPT_LEN, _("%d: K/V heads; query head k reads K/V head ⌊(k − 1)·kv_heads ÷ heads⌋ + 1 "
                                         "(the heads table)"), kv_heads(l));
    }
    if (strcmp(after, "softmax") == 0 && uses_online(l, last) && n < max) {
        name[n] = option_row(OPT_BLOCK)->key;
        snprintf(val[n++], WS_OPT_LEN, _("%d: keys per block of the online softmax"), l->block);
    }
    if (strcmp(after, "positions") == 0 && uses_rope(l, last) && n < max) {
        name[n] = option_row(OPT_ROPE_BASE)->key;
        fmt_exact(l->rope_base, v, sizeof v);
        snprintf(val[n++], WS_OPT_LEN, _("%s: B, RoPE's base: θ = p · B^(−2(m − 1) ÷ d_k)"), v);
    }
    if (strcmp(after, "positions") == 0 && n < max &&
        (uses_rope(l, last) || l->offset != 0 || acts(l, last, ACT_OFFSET, -1))) {
        name[n] = option_row(OPT_OFFSET)->key;
        snprintf(val[n++], WS_OPT_LEN, _("%d: the first token's position: row i (counting from 0) sits at "
                                         "p = offset + i"), l->offset);
    }
    return n;
}

/* "a–b", 1-based columns of part k (0-based) of width w. */
static void span(char *buf, size_t len, int k, int w, bool ascii)
{
    snprintf(buf, len, "%d%s%d", k * w + 1, ascii ? "-" : "–", (k + 1) * w);
}

bool ws_put_gqa_heads(FILE *out, const Lesson *l, bool ascii)
{
    char buf[512];
    int h = l->heads, g = kv_heads(l);
    fprintf(out, "**%s**\n\n", _("Heads"));
    snprintf(buf, sizeof buf, _("%d query heads share %d K/V heads. Head k uses its own columns of Wq (so of Q) and "
                                "those of its K/V head in Wk and Wv (so in K and V); \"S2\", \"A2\" name head 2's "
                                "matrices, \"K2\", \"V2\" the keys and values it reads. O is the heads' outputs "
                                "side by side, and Y = O·Wo."), h, g);
    if (!put_md(out, buf, ascii))
        return false;
    fputs("\n\n", out);
    Table t;
    if (!tab_new(&t, h + 1, 6))
        return false;
    static const char *head[6] = {N_("head"), N_("columns of Wq, Q"), N_("K/V head"), N_("columns of Wk, K"),
                                  N_("columns of Wv, V"), N_("columns of O")};
    for (int c = 0; c < 6; c++)
        tab_set(&t, 0, c, _(head[c]), false, ascii);
    t.right[0] = t.right[2] = true;
    for (int k = 0; k < h; k++) {
        int kv = k * g / h; /* 0-based: floor((k-1) g / h) + 1 for 1-based k */
        snprintf(buf, sizeof buf, "%d", k + 1);
        tab_set(&t, k + 1, 0, buf, false, ascii);
        span(buf, sizeof buf, k, l->d_k, ascii);
        tab_set(&t, k + 1, 1, buf, false, ascii);
        snprintf(buf, sizeof buf, "%d", kv + 1);
        tab_set(&t, k + 1, 2, buf, false, ascii);
        span(buf, sizeof buf, kv, l->d_k, ascii);
        tab_set(&t, k + 1, 3, buf, false, ascii);
        span(buf, sizeof buf, kv, l->d_v, ascii);
        tab_set(&t, k + 1, 4, buf, false, ascii);
        span(buf, sizeof buf, k, l->d_v, ascii);
        tab_set(&t, k + 1, 5, buf, false, ascii);
    }
    bool ok = !t.oom;
    if (ok)
        tab_print(out, &t);
    tab_free(&t);
    return ok;
}

static bool note(FILE *out, const char *s, bool ascii)
{
    fputs("- ", out);
    bool ok = put_md(out, s, ascii);
    fputc('\n', out);
    return ok;
}

bool ws_put_train_note(FILE *out, const Lesson *l, int last, bool ascii)
{
    if (!acts(l, last, ACT_STEP, -1))
        return true;
    fprintf(out, "**%s**\n\n", _("How a gradient step computes"));
    bool ok = note(out, _("With a target t on row i of A, the loss is L = −Σⱼ tⱼ·ln α_ij, and ∂L/∂s_ij = α_ij − tⱼ "
                          "(÷ T). Every key j is in row i's softmax: ∂L/∂q_i = Σⱼ ∂L/∂s_ij·k_j and ∂L/∂k_j = "
                          "∂L/∂s_ij·q_i (each ÷ √d_k when scaled); the other rows of Q get 0. ∂L/∂W_Q = Xᵀ·∂L/∂Q, "
                          "∂L/∂W_K = Xᵀ·∂L/∂K, and a step sets W ← W − lr·∂L/∂W for W_Q and W_K; step n takes n "
                          "steps, each from the weights the last one left."), ascii);
    fputc('\n', out);
    return ok;
}

bool ws_put_modern_notes(FILE *out, const Lesson *l, int last, bool ascii)
{
    bool win = uses_window(l, last), rope = uses_rope(l, last), online = uses_online(l, last);
    bool append = acts(l, last, ACT_APPEND, -1);
    if (!win && !rope && !online && !append)
        return true;
    fprintf(out, "**%s**\n\n", _("How today's models compute"));
    bool ok = true;
    if (win)
        ok = note(out, _("Sliding window (mask = window W): each query sees itself and the W − 1 keys just before it: "
                         "S[i][j] = −∞ unless i − W < j ≤ i, so A[i][j] = 0 there."), ascii);
    if (ok && rope)
        ok = note(out, _("Rotary positions (positions = rope): H = X. After Q = X·Wq and K = X·Wk, in each head every "
                         "row of Q and K turns pair by pair: columns (2m − 1, 2m) counted within the head, "
                         "m = 1 … d_k ÷ 2 (pairs counted from 1, as on screen), turn by θ = p · B^(−2(m − 1) ÷ d_k) "
                         "radians, B = rope_base, p = offset + the "
                         "row's index counting from 0: (x, y) → (x·cos θ − y·sin θ, x·sin θ + y·cos θ). Q and K are "
                         "the turned rows; V is not turned, nor are rows of Q or K the lesson sets."), ascii);
    if (ok && online)
        ok = note(out, _("Online softmax (softmax = online, FlashAttention): a row's keys go in blocks of b keys "
                         "(b = block), from key 1. With z = s ÷ T for the keys the mask lets through, m = −∞ and l = 0 at "
                         "first, each block sets m_new = max(m, the block's largest z) and l ← l·e^(m − m_new) + "
                         "Σ e^(z − m_new) over its keys, then m ← m_new. After the last block A[i][j] = "
                         "e^(z_j − m) ÷ l (0 for masked keys). O's running output is rescaled the same way: "
                         "o ← o·e^(m − m_new) + Σ e^(z − m_new)·v, O = o ÷ l."), ascii);
    if (ok && append)
        ok = note(out, _("append TOKEN [x₁, …, x_d]: a new last token whose row of X is the numbers given (n grows by "
                         "1). Its rows of Q, K, V are projected like the others and every stage runs again over all n "
                         "tokens. The earlier rows of K and V never change (each is its token's row of X times W_K or "
                         "W_V); with the causal mask their outputs do not change either, so in every layer the earlier "
                         "K and V can be kept (the KV cache)."), ascii);
    fputc('\n', out);
    return ok;
}
