/* model_scores.c - a head's previous-token and induction scores (the model
 * view's, Olsson et al. 2022; precise definitions in model.h). */
#include "model.h"

/* Layer l's head k weights, when stage 4 of the layer is reached. */
static const Mat *head_A(const Model *m, int layer, int head)
{
    if (layer < 1 || layer > m->cfg.layers || head < 1 || head > m->cfg.heads ||
        !model_reached(m, layer, MSTAGE_SOFTMAX))
        return NULL;
    const Attn *a = &m->layer[layer - 1].att;
    return &a->m[attn_shown(a, M_A, head)];
}

bool model_prev_score(const Model *m, int layer, int head, double *out)
{
    const Mat *A = head_A(m, layer, head);
    if (!A || m->n < 2)
        return false;
    double sum = 0.0;
    for (int i = 1; i < m->n; i++)
        sum += MAT_AT(A, i, i - 1);
    *out = sum / (m->n - 1);
    return true;
}

bool model_induction_score(const Model *m, int layer, int head, double *out)
{
    const Mat *A = head_A(m, layer, head);
    if (!A)
        return false;
    double sum = 0.0;
    int rows = 0;
    for (int i = 1; i < m->n; i++) {
        double s = 0.0;
        bool seen = false;
        /* T_i = {j + 1 : j < i, tok_j = tok_i}: each t once, as j runs up */
        for (int j = 0; j < i; j++)
            if (m->tok[j] == m->tok[i]) {
                s += MAT_AT(A, i, j + 1);
                seen = true;
            }
        if (seen) {
            sum += s;
            rows++;
        }
    }
    if (rows == 0)
        return false;
    *out = sum / rows;
    return true;
}
