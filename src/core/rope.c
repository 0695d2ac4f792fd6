/* rope.c - rotary positions (RoPE) on rows of Q and K (see attn.h).
 *
 * In each head of d_k columns, the pair (2m, 2m+1) (0-based inside the head;
 * DESIGN.md's 1-based (2m-1, 2m)) of row i turns by theta = p * B^(-2m/d_k),
 * p = i + offset: adjacent pairs, as in RoFormer and Meta's LLaMA code. */
#include "attn.h"

#include <math.h>

double attn_rope_theta(int p, int m, int d_k, double base)
{
    return (double)p * pow(base, -2.0 * m / d_k);
}

void attn_rope_row(Attn *a, int p, int i)
{
    Mat *q = &a->m[M_Q + p];
    int dk = attn_d_k(a), pos = attn_position(a, i);
    for (int c = 0; c + 1 < q->cols; c += 2) {
        if (attn_cell_overridden(a, p, i, c))
            continue;
        double t = attn_rope_theta(pos, (c % dk) / 2, dk, a->rope_base), co = cos(t), si = sin(t);
        double x = MAT_AT(q, i, c), y = MAT_AT(q, i, c + 1);
        MAT_AT(q, i, c) = x * co - y * si;
        MAT_AT(q, i, c + 1) = x * si + y * co;
    }
}

void attn_rope_unrow(const Attn *a, double *row, int cols, int i)
{
    int dk = attn_d_k(a), pos = attn_position(a, i);
    for (int c = 0; c + 1 < cols; c += 2) {
        double t = attn_rope_theta(pos, (c % dk) / 2, dk, a->rope_base), co = cos(t), si = sin(t);
        double x = row[c], y = row[c + 1];
        row[c] = x * co + y * si;
        row[c + 1] = -x * si + y * co;
    }
}
