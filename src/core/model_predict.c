/* model_predict.c - the next token from the last row of p: greedy, or
 * sampled as numpy's RandomState(seed).choice(V, p=row) draws it (see
 * model.h). */
#include "model.h"

int model_greedy(const Model *m)
{
    const double *row = &MAT_AT(&m->p, m->n - 1, 0);
    int best = 0;
    for (int k = 1; k < m->cfg.vocab; k++)
        if (row[k] > row[best])
            best = k;
    return best;
}

/* numpy (mtrand.pyx, choice with replace and p): cdf = p.cumsum();
 * cdf /= cdf[-1]; u = random_sample(); searchsorted(cdf, u, side='right'). */
int model_sample(const double *row, int len, Rng *r, double *u)
{
    double cdf[MODEL_VOCAB_MAX], acc = 0.0;
    for (int k = 0; k < len; k++)
        cdf[k] = acc += row[k];
    double last = cdf[len - 1];
    for (int k = 0; k < len; k++)
        cdf[k] /= last;
    double x = rng_double(r);
    if (u)
        *u = x;
    int idx = 0; /* side='right': the count of entries <= x */
    while (idx < len && cdf[idx] <= x)
        idx++;
    return idx < len ? idx : len - 1;
}

int model_predict(const Model *m)
{
    if (!m->cfg.sample)
        return model_greedy(m);
    Rng r;
    rng_seed(&r, (uint32_t)m->cfg.sample_seed);
    return model_sample(&MAT_AT(&m->p, m->n - 1, 0), m->cfg.vocab, &r, NULL);
}
