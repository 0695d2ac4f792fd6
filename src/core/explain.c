/* explain.c - the arithmetic behind one cell of the pipeline, as data (see explain.h).
 * Every sum here runs in the same order as attn.c, so the explained sums equal
 * the matrix cells bit for bit. */
#include "explain.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

double explain_products(int n, const double *a, const double *b, double *prod, double *partial)
{
    double sum = 0.0;
    for (int k = 0; k < n; k++) {
        prod[k] = a[k] * b[k];
        sum += prod[k];
        partial[k] = sum;
    }
    return sum;
}

/* Fill prod, partial and sum from the n operand pairs already in a[] and b[]. */
static void products(Explain *e)
{
    e->sum = explain_products(e->n, e->a, e->b, e->prod, e->partial);
}

static void explain_input(const Attn *a, Explain *e)
{
    e->kind = EX_INPUT;
    e->result = MAT_AT(&a->m[e->mat], e->i, e->j);
}

/* x_i . column c of w, summed k = 0, 1, ... as attn.c's project(). */
static double dot_col(const Mat *x, int i, const Mat *w, int c)
{
    double sum = 0.0;
    for (int k = 0; k < x->cols; k++)
        sum += MAT_AT(x, i, k) * MAT_AT(w, k, c);
    return sum;
}

/* RoPE on the cell just explained (column col of Q or K, p = 0 or 1): the
 * pair's values before rotation, the angle and the rotated value. */
static void explain_rope(const Attn *a, Explain *e, const Mat *x, const Mat *w, int col)
{
    int dk = attn_d_k(a), c0 = col - col % 2;
    e->rope = true;
    e->rope_second = col % 2 == 1;
    e->rope_dk = dk;
    e->rope_m = (col % dk) / 2;
    e->rope_pos = attn_position(a, e->i);
    e->rope_base = a->rope_base;
    e->rope_theta = attn_rope_theta(e->rope_pos, e->rope_m, dk, a->rope_base);
    e->rope_cos = cos(e->rope_theta);
    e->rope_sin = sin(e->rope_theta);
    e->rope_x = col == c0 ? e->sum : dot_col(x, e->i, w, c0);
    e->rope_y = col == c0 ? dot_col(x, e->i, w, c0 + 1) : e->sum;
    e->unrotated = e->sum;
}

/* Q/K/V[i][j] = x_i . column j of W, unless the row was set by hand. A
 * head's cell is the full matrix's column (head - 1) * width + j (for K
 * and V, of the K/V head it reads). Q0 and K0 are the same sums unrotated. */
static void explain_proj(const Attn *a, Explain *e)
{
    MatId base = attn_mat_base(e->mat);
    int p = base == M_Q0 ? 0 : base == M_K0 ? 1 : base - M_Q;
    int width = p == 2 ? attn_d_v(a) : attn_d_k(a);
    int src = p > 0 && attn_mat_head(e->mat) ? attn_kv_head(a, e->head) : e->head;
    int col = e->head && attn_mat_head(e->mat) ? (src - 1) * width + e->j : e->j;
    e->kv_head = p > 0 && attn_heads(a) > 1 ? (attn_mat_head(e->mat) ? src : e->head) : 0;
    e->from_h = a->positions == POS_SINUSOIDAL;
    e->from_source = p > 0 && attn_is_cross(a); /* cross-attention: k and v from the source's xs */
    const Mat *x = &a->m[e->from_source ? M_XS : e->from_h ? M_H : M_X], *w = &a->m[M_WQ + p];
    e->kind = EX_PROJ;
    e->wcol = col;
    e->result = MAT_AT(&a->m[e->mat], e->i, e->j);
    if (attn_cell_overridden(a, p, e->i, col)) {
        e->overridden = true;
        return;
    }
    e->n = x->cols;
    for (int k = 0; k < e->n; k++) {
        e->a[k] = MAT_AT(x, e->i, k);
        e->b[k] = MAT_AT(w, k, col);
    }
    products(e);
    if (a->positions == POS_ROPE && p < 2 && base != M_Q0 && base != M_K0)
        explain_rope(a, e, x, w, col);
}

/* score_ij = q_i . k_j, then / sqrt(d_k) for S when the lesson scales. */
static void explain_score(const Attn *a, Explain *e)
{
    const Mat *q = &a->m[attn_shown(a, M_Q, e->head)], *k = &a->m[attn_shown(a, M_K, e->head)];
    e->kind = EX_SCORE;
    e->n = q->cols;
    e->d_k = q->cols;
    for (int t = 0; t < e->n; t++) {
        e->a[t] = MAT_AT(q, e->i, t);
        e->b[t] = MAT_AT(k, e->j, t);
    }
    products(e);
    bool s = attn_mat_base(e->mat) == M_S;
    e->scaled = s && a->scale == SCALE_SQRT_DK;
    e->divisor = e->scaled ? sqrt((double)e->d_k) : 1.0;
    e->masked = s && attn_masked(a, e->i, e->j);
    e->kv_head = attn_heads(a) > 1 && e->head ? attn_kv_head(a, e->head) : 0;
    e->result = MAT_AT(&a->m[e->mat], e->i, e->j);
}

/* The online softmax of the explained row (online.c): its blocks, p[k] in
 * prod, the final m and l in max and sum. */
static void explain_online(const Attn *a, Explain *e, const Mat *s)
{
    e->online = true;
    e->block = a->block;
    e->nblocks = attn_online_row(&MAT_AT(s, e->i, 0), s->cols, e->lo, e->vis, a->temp, a->block, e->blocks, e->prod,
                                 &e->max, &e->sum, NULL);
    for (int x = 0; x < e->nblocks; x++)
        for (int k = e->blocks[x].v0; k < e->blocks[x].v1; k++)
            e->shifted[k] = e->z[k] - e->blocks[x].m_new;
}

/* Row i of A from row i of S: s, s / T, max, z - max (or z), exp, running
 * sum, weights; masked entries (k >= vis) take no part and weigh 0. */
static void explain_softmax(const Attn *a, Explain *e)
{
    const Mat *s = &a->m[attn_shown(a, M_S, e->head)], *w = &a->m[attn_shown(a, M_A, e->head)];
    e->kind = EX_SOFTMAX;
    e->stable = a->softmax == SOFTMAX_STABLE;
    e->n = s->cols;
    attn_visible(a, e->i, &e->lo, &e->vis);
    e->temp = a->temp;
    e->masked = attn_masked(a, e->i, e->j);
    for (int k = 0; k < e->n; k++) {
        e->a[k] = MAT_AT(s, e->i, k);
        e->z[k] = e->a[k] / e->temp;
        e->weight[k] = MAT_AT(w, e->i, k);
    }
    e->result = MAT_AT(w, e->i, e->j);
    if (a->softmax == SOFTMAX_ONLINE) {
        explain_online(a, e, s);
        return;
    }
    e->max = e->z[e->lo];
    for (int k = e->lo + 1; k < e->vis; k++)
        if (e->z[k] > e->max)
            e->max = e->z[k];
    double sum = 0.0;
    for (int k = e->lo; k < e->vis; k++) {
        e->shifted[k] = e->stable ? e->z[k] - e->max : e->z[k];
        e->prod[k] = exp(e->shifted[k]);
        sum += e->prod[k];
        e->partial[k] = sum;
    }
    e->sum = sum;
    e->result = MAT_AT(w, e->i, e->j);
}

/* o_ij = sum_k a_ik v_kj (with heads: the head's A and V; a cell of the
 * full O is its head's column jh). */
static void explain_output(const Attn *a, Explain *e)
{
    const Mat *w = &a->m[attn_shown(a, M_A, e->head)], *v = &a->m[attn_shown(a, M_V, e->head)];
    int jv = e->head ? e->jh : e->j, hi;
    e->kind = EX_OUTPUT;
    e->kv_head = attn_heads(a) > 1 && e->head ? attn_kv_head(a, e->head) : 0;
    e->result = MAT_AT(&a->m[e->mat], e->i, e->j);
    /* Masked weights are exactly 0: leaving their terms out changes no bit. */
    attn_visible(a, e->i, &e->lo, &hi);
    e->n = hi - e->lo;
    e->nmasked = w->cols - e->n;
    if (a->softmax == SOFTMAX_ONLINE) { /* the blocks again, with column jv of V */
        const Mat *s = &a->m[attn_shown(a, M_S, e->head)];
        double p[MAT_MAX];
        e->online = true;
        e->block = a->block;
        e->nblocks = attn_online_row(&MAT_AT(s, e->i, 0), s->cols, e->lo, hi, a->temp, a->block, e->blocks, p,
                                     &e->max, &e->sum, NULL);
        (void)attn_online_out(e->blocks, e->nblocks, p, v, jv);
        for (int t = 0; t < e->n; t++) {
            e->a[t] = p[e->lo + t];
            e->b[t] = MAT_AT(v, e->lo + t, jv);
            e->prod[t] = e->a[t] * e->b[t];
        }
        return;
    }
    for (int k = 0; k < e->n; k++) {
        e->a[k] = MAT_AT(w, e->i, e->lo + k);
        e->b[k] = MAT_AT(v, e->lo + k, jv);
    }
    products(e);
}

/* y_ij = sum_k o_ik Wo_kj, the products in head groups of d_v. Each head's
 * share is summed on its own; the result is the matrix cell (one running sum). */
static void explain_project(const Attn *a, Explain *e)
{
    const Mat *o = &a->m[M_O], *wo = &a->m[M_WO];
    e->kind = EX_PROJECT;
    e->n = o->cols;
    e->heads = attn_heads(a);
    e->group = attn_d_v(a);
    for (int k = 0; k < e->n; k++) {
        e->a[k] = MAT_AT(o, e->i, k);
        e->b[k] = MAT_AT(wo, k, e->j);
    }
    products(e);
    for (int h = 0; h < e->heads; h++) {
        double sum = 0.0;
        for (int k = h * e->group; k < (h + 1) * e->group; k++)
            sum += e->prod[k];
        e->head_sum[h] = sum;
    }
    e->result = MAT_AT(&a->m[M_Y], e->i, e->j);
}

/* h_ij = x_ij + p_ij, p_ij = sin or cos of p / 10000^(2m/d_model). */
static void explain_pos(const Attn *a, Explain *e)
{
    e->kind = EX_POS;
    e->d_model = attn_d_model(a);
    e->pos = attn_position(a, e->i);
    e->pos_m = e->j / 2;
    e->cosine = e->j % 2 == 1;
    e->angle = attn_pos_angle(e->pos, e->j, e->d_model);
    e->x = MAT_AT(&a->m[M_X], e->i, e->j);
    e->p = MAT_AT(&a->m[M_P], e->i, e->j);
    e->result = MAT_AT(&a->m[e->mat], e->i, e->j);
}

/* Whether `mat` exists, its stage is reached and (i, j) lies inside it. */
static bool cell_ok(const Attn *a, MatId mat, int i, int j)
{
    if ((int)mat < 0 || mat >= M_COUNT || attn_mat_stage(mat) > a->reached)
        return false;
    const Mat *m = &a->m[mat];
    return m->v && i >= 0 && i < m->rows && j >= 0 && j < m->cols;
}

/* explain_cell clears everything before the blocks: they stay last. */
_Static_assert(offsetof(Explain, blocks) + sizeof ((Explain *)0)->blocks == sizeof(Explain),
               "Explain's blocks must be its last field");

/* Explain cell (i, j) of `mat`; false with kind EX_NONE when there is nothing to say. */
bool explain_cell(const Attn *a, MatId mat, int i, int j, Explain *out)
{
    /* every field but the online softmax's blocks, which attn_online_row
     * writes whole (those it counts in nblocks, the only ones read): 5 KB
     * of the 9 KB not cleared for nothing on every frame */
    memset(out, 0, offsetof(Explain, blocks));
    out->nblocks = 0;
    out->kind = EX_NONE;
    if (!cell_ok(a, mat, i, j))
        return false;
    out->mat = mat;
    out->i = i;
    out->j = j;
    out->jh = j;
    out->real_keys = attn_real_keys(a);
    MatId base = attn_mat_base(mat);
    if (attn_mat_head(mat))
        out->head = attn_mat_head(mat);
    else if (attn_heads(a) > 1 && (base == M_Q || base == M_K || base == M_V || base == M_O)) {
        int w = base == M_V || base == M_O ? attn_d_v(a) : attn_d_k(a);
        out->head = j / w + 1;
        out->jh = j % w;
    } else if (attn_heads(a) > 1 && (base == M_QKT || base == M_S || base == M_A))
        out->head = 1;
    switch (base) {
    case M_Q: case M_K: case M_V:
    case M_Q0: case M_K0:         explain_proj(a, out); break;
    case M_QKT: case M_S:         explain_score(a, out); break;
    case M_A:                     explain_softmax(a, out); break;
    case M_O:                     explain_output(a, out); break;
    case M_Y:                     explain_project(a, out); break;
    case M_X: case M_P: case M_H: /* X as H's operand only while stage 1 is shown */
        if (a->positions == POS_SINUSOIDAL && (mat != M_X || a->reached == STAGE_INPUT))
            explain_pos(a, out);
        else
            explain_input(a, out);
        break;
    default:                      explain_input(a, out); break;
    }
    return true;
}
