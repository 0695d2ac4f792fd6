/* fmt_rope_online.c - the arithmetic of today's models written out (see
 * fmt_rope_online.h): RoPE's rotation of one cell of q or k, and the online
 * softmax block by block (stage 4: the running max m and sum l; stage 5:
 * the running output o, then o ÷ l). Every line follows the ≈ rule
 * (fmt_eq): its result recomputed from the operands as printed. */
#include "fmt_rope_online.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text/i18n.h"
#include "text/text.h"

#define addf(line, ...) text_append(line, FMT_LINE, __VA_ARGS__) /* a FMT_LINE line, never overflowed */

/* "a − b" with b's sign folded in: "−0.605 + 0.170", not "−0.605 − −0.170". */
static const char *diff(double a, double b, const FmtOpt *o, char *buf, size_t len)
{
    char x[48], y[48];
    snprintf(buf, len, "%s %s %s", fmt_num(a, o, x, sizeof x), b < 0 ? "+" : o->ascii ? "-" : "−",
             fmt_num(fabs(b), o, y, sizeof y));
    return buf;
}

static double sh(double v, const FmtOpt *o)
{
    return fmt_shown(v, o);
}

static const char *num(double v, const FmtOpt *o, char *buf, size_t len)
{
    return fmt_num(v, o, buf, len);
}

/* ---- RoPE ---------------------------------------------------------------------- */

int fmt_rope(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE])
{
    char s[32], t[48], c[48], sn[48], x[48], y[48], v[48];
    const char *m = attn_mat_base(e->mat) == M_Q ? "q" : "k";
    const char *minus = o->ascii ? "-" : "−";
    fmt_sub2(e->i + 1, e->j + 1, o, s, sizeof s);
    /* θ = p·B^(−2(m−1)/d_k) with the pair m counted from 1, as the columns
     * (2m−1, 2m) are (rope_m is 0-based), written with the numbers: exact
     * from whole numbers; the first pair's exponent is 0, written "^0",
     * never "−0". */
    double th = sh(e->rope_theta, o);
    char ex[48];
    if (e->rope_m == 0)
        snprintf(ex, sizeof ex, "^0");
    else
        snprintf(ex, sizeof ex, "^(%s%d/%d)", minus, 2 * e->rope_m, e->rope_dk);
    num(e->rope_theta, o, t, sizeof t);
    addf(lines[0], "%s = %d%s%s%s%s%s;  cos %s%s%s;  sin %s%s%s   ", o->ascii ? "theta" : "θ", e->rope_pos,
        o->ascii ? "*" : "·", fmt_exact(e->rope_base, v, sizeof v), ex,
        fmt_eq(e->rope_pos * pow(e->rope_base, -2.0 * e->rope_m / e->rope_dk), e->rope_theta, o), t, t,
        fmt_eq(cos(th), e->rope_cos, o), num(e->rope_cos, o, c, sizeof c), t, fmt_eq(sin(th), e->rope_sin, o),
        num(e->rope_sin, o, sn, sizeof sn));
    addf(lines[0], _("(pair m = %d at position p = %d)"), e->rope_m + 1, e->rope_pos);
    /* the turn: (x, y) -> (x cos θ − y sin θ, x sin θ + y cos θ) */
    double cx = sh(e->rope_cos, o), sx = sh(e->rope_sin, o), px = sh(e->rope_x, o), py = sh(e->rope_y, o);
    num(e->rope_x, o, x, sizeof x);
    num(e->rope_y, o, y, sizeof y);
    const char *th_ = o->ascii ? "theta" : "θ";
    if (!e->rope_second)
        addf(lines[1], "%s%s = x cos %s %s y sin %s = (%s)(%s) %s (%s)(%s)%s%s", m, s, th_, minus, th_, x, c, minus, y,
            sn, fmt_eq(px * cx - py * sx, e->result, o), num(e->result, o, v, sizeof v));
    else
        addf(lines[1], "%s%s = x sin %s + y cos %s = (%s)(%s) + (%s)(%s)%s%s", m, s, th_, th_, x, sn, y, c,
            fmt_eq(px * sx + py * cx, e->result, o), num(e->result, o, v, sizeof v));
    return 2;
}

/* ---- online softmax ---------------------------------------------------------------- */

/* "   (block 2, keys 3 to 4)" after a block's line. */
static void block_note(char *line, const AttnBlock *b, int x)
{
    addf(line, "   ");
    if (b->k1 - b->k0 == 1)
        addf(line, _("(block %d, key %d)"), x + 1, b->k0 + 1);
    else
        addf(line, _("(block %d, keys %d to %d)"), x + 1, b->k0 + 1, b->k1);
}

/* One block of stage 4: m = max(m_old, the block's z) and l rescaled. */
static void online_block(const Explain *e, const AttnBlock *b, int x, const FmtOpt *o, char *line)
{
    char v[48], d[112];
    bool first = isinf(b->m_old);
    double from = first ? -INFINITY : sh(b->m_old, o);
    addf(line, "m = max(");
    if (!first)
        addf(line, "%s, ", num(b->m_old, o, v, sizeof v));
    for (int k = b->v0; k < b->v1; k++) {
        addf(line, "%s%s", k > b->v0 ? ", " : "", num(e->z[k], o, v, sizeof v));
        from = sh(e->z[k], o) > from ? sh(e->z[k], o) : from;
    }
    addf(line, ")%s%s;  l = ", fmt_eq(from, b->m_new, o), num(b->m_new, o, v, sizeof v));
    double mn = sh(b->m_new, o), l = 0;
    if (!first) {
        addf(line, "(%s)(exp(%s)) + ", num(b->l_old, o, v, sizeof v), diff(b->m_old, b->m_new, o, d, sizeof d));
        l = sh(b->l_old, o) * exp(sh(b->m_old, o) - mn);
    }
    for (int k = b->v0; k < b->v1; k++) {
        addf(line, "%sexp(%s)", k > b->v0 ? " + " : "", diff(e->z[k], b->m_new, o, d, sizeof d));
        l += exp(sh(e->z[k], o) - mn);
    }
    addf(line, "%s%s", fmt_eq(l, b->l_new, o), num(b->l_new, o, v, sizeof v));
    block_note(line, b, x);
}

/* Blocks that fit: one line each, or two to a line when there are many. */
static int online_lines(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int n, int room, bool out);

static void online_out_block(const Explain *e, const AttnBlock *b, int x, const FmtOpt *o, char *line)
{
    char v[48], w[48], d[112];
    double sum = 0;
    addf(line, "o = ");
    if (!isinf(b->m_old)) {
        addf(line, "(%s)(exp(%s)) + ", num(b->o_old, o, v, sizeof v), diff(b->m_old, b->m_new, o, d, sizeof d));
        sum = sh(b->o_old, o) * exp(sh(b->m_old, o) - sh(b->m_new, o));
    }
    for (int k = b->v0; k < b->v1; k++) {
        int t = k - e->lo;
        addf(line, "%s(%s)(%s)", k > b->v0 ? " + " : "", num(e->a[t], o, v, sizeof v), num(e->b[t], o, w, sizeof w));
        sum += sh(e->a[t], o) * sh(e->b[t], o);
    }
    addf(line, "%s%s", fmt_eq(sum, b->o_new, o), num(b->o_new, o, v, sizeof v));
    block_note(line, b, x);
}

static int online_lines(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int n, int room, bool out)
{
    int shown = 0;
    for (int x = 0; x < e->nblocks; x++)
        shown += e->blocks[x].v0 < e->blocks[x].v1;
    int per = shown <= room ? 1 : (shown + room - 1) / room;
    int on = 0;
    for (int x = 0; x < e->nblocks; x++) {
        const AttnBlock *b = &e->blocks[x];
        if (b->v0 == b->v1) /* masked whole: skipped, nothing changes */
            continue;
        if (on > 0 && on % per != 0)
            addf(lines[n], ";  ");
        if (out)
            online_out_block(e, b, x, o, lines[n]);
        else
            online_block(e, b, x, o, lines[n]);
        on++;
        if (on % per == 0)
            n++;
    }
    return on % per != 0 ? n + 1 : n;
}

int fmt_online_softmax(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int n, int max)
{
    char i[16], v[48];
    double from[MAT_MAX];
    n = online_lines(e, o, lines, n, max - n - 1, false);
    fmt_sub(e->i + 1, o, i, sizeof i);
    double m = sh(e->max, o), l = sh(e->sum, o);
    for (int k = 0; k < e->n; k++)
        from[k] = k >= e->lo && k < e->vis ? exp(sh(e->z[k], o) - m) / l : 0;
    addf(lines[n], "%s%s = exp(%s %s m) %s l%s[", o->ascii ? "a" : "α", i, e->temp != 1.0 ? "z" : "s",
        o->ascii ? "-" : "−", o->ascii ? "/" : "÷", fmt_eq_vec(from, e->weight, e->n, o));
    for (int k = 0; k < e->n; k++)
        addf(lines[n], "%s%s", k ? ", " : "", num(e->weight[k], o, v, sizeof v));
    addf(lines[n], "]   ");
    addf(lines[n++], _("(the final m and l; the row of weights is never stored whole)"));
    return n;
}

int fmt_online_output(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int n, int max)
{
    char s[32], v[48], w[48], r[48];
    n = online_lines(e, o, lines, n, max - n - 1, true);
    const AttnBlock *last = &e->blocks[e->nblocks - 1];
    fmt_sub2(e->i + 1, e->jh + 1, o, s, sizeof s);
    addf(lines[n], "o%s = %s %s %s%s%s   ", s, num(last->o_new, o, v, sizeof v), o->ascii ? "/" : "÷",
        num(e->sum, o, w, sizeof w), fmt_eq(sh(last->o_new, o) / sh(e->sum, o), e->result, o),
        num(e->result, o, r, sizeof r));
    addf(lines[n++], _("(the last o over the last l: the weights were never stored)"));
    return n;
}
