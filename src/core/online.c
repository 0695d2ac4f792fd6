/* online.c - FlashAttention's online softmax, one query row at a time (see attn.h).
 *
 * Keys come in blocks of B. After each block the running max m and sum l
 * hold for the keys seen so far: m_new = max(m_old, the block's max z),
 * l_new = l_old * e^(m_old - m_new) + sum of e^(z_k - m_new), and the
 * running output o likewise. A and O come out of the final m, l and o; the
 * whole row of weights is never needed at once. */
#include "attn.h"

#include <math.h>

int attn_online_row(const double *s, int n, int lo, int hi, double temp, int block, AttnBlock *b, double *p,
                    double *m, double *l, double *w)
{
    double mm = -INFINITY, ll = 0.0;
    int nb = 0;
    for (int k0 = 0; k0 < n; k0 += block, nb++) {
        AttnBlock *x = &b[nb];
        x->k0 = k0;
        x->k1 = k0 + block < n ? k0 + block : n;
        x->v0 = k0 > lo ? k0 : lo;
        x->v1 = x->k1 < hi ? x->k1 : hi;
        if (x->v1 < x->v0)
            x->v1 = x->v0;
        x->m_old = mm;
        x->l_old = ll;
        x->o_old = x->o_new = 0.0;
        for (int k = x->k0; k < x->k1; k++)
            p[k] = 0.0;
        if (x->v0 == x->v1) { /* masked whole: nothing computed, nothing changes */
            x->bmax = -INFINITY;
            x->m_new = mm;
            x->rescale = 1.0;
            x->l_new = ll;
            continue;
        }
        x->bmax = s[x->v0] / temp;
        for (int k = x->v0 + 1; k < x->v1; k++)
            if (s[k] / temp > x->bmax)
                x->bmax = s[k] / temp;
        x->m_new = x->bmax > mm ? x->bmax : mm;
        x->rescale = exp(mm - x->m_new);
        double sum = 0.0;
        for (int k = x->v0; k < x->v1; k++) {
            p[k] = exp(s[k] / temp - x->m_new);
            sum += p[k];
        }
        x->l_new = ll * x->rescale + sum;
        mm = x->m_new;
        ll = x->l_new;
    }
    *m = mm;
    *l = ll;
    for (int k = 0; w && k < n; k++)
        w[k] = k >= lo && k < hi ? exp(s[k] / temp - mm) / ll : 0.0;
    return nb;
}

double attn_online_out(AttnBlock *b, int nb, const double *p, const Mat *v, int col)
{
    double o = 0.0;
    for (int x = 0; x < nb; x++) {
        b[x].o_old = o;
        if (b[x].v0 < b[x].v1) {
            double sum = 0.0;
            for (int k = b[x].v0; k < b[x].v1; k++)
                sum += p[k] * MAT_AT(v, k, col);
            o = o * b[x].rescale + sum;
        }
        b[x].o_new = o;
    }
    return o / b[nb - 1].l_new;
}
