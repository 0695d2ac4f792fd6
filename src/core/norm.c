/* norm.c - a block's arithmetic on one row: LayerNorm, RMSNorm, ReLU and
 * the exact GELU (see model.h for the formulas and their order). */
#include "model.h"

#include <math.h>

void model_norm_row(NormKind k, const double *x, int d, const double *g, const double *beta, double eps,
                    double *y, double *mean, double *var, double *sigma)
{
    double mu = 0.0, v = 0.0, s = 0.0;
    if (k == NORM_LAYER) {
        double sum = 0.0;
        for (int j = 0; j < d; j++)
            sum += x[j];
        mu = sum / d;
        for (int j = 0; j < d; j++)
            v += (x[j] - mu) * (x[j] - mu);
        v /= d;
    } else if (k == NORM_RMS) {
        for (int j = 0; j < d; j++)
            v += x[j] * x[j];
        v /= d;
    }
    if (k != NORM_NONE)
        s = sqrt(v + eps);
    for (int j = 0; j < d; j++) {
        if (k == NORM_NONE) {
            y[j] = x[j];
            continue;
        }
        double xhat = (x[j] - mu) / s;
        y[j] = xhat * (g ? g[j] : 1.0) + (beta ? beta[j] : 0.0);
    }
    *mean = mu;
    *var = v;
    *sigma = s;
}

double model_phi(double x)
{
    return 0.5 * (1.0 + erf(x / sqrt(2.0)));
}

double model_act(Act a, double x)
{
    if (a == ACT_RELU)
        return x > 0.0 ? x : 0.0;
    return x * model_phi(x);
}
