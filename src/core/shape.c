/* shape.c - an Attn's sizes and the names of its per-head matrices (see
 * attn.h): tokens, d_model, heads, d_k, d_v, which head's matrix shows a
 * base, which cells a row's override covers, a token's position. Read
 * only; used by the pipeline (attn.c) and its variants (rope.c, ...). */
#include "attn.h"

int attn_tokens(const Attn *a)  { return a->m[M_X].rows; }
int attn_d_model(const Attn *a) { return a->m[M_X].cols; }
int attn_heads(const Attn *a)   { return a->heads > 0 ? a->heads : 1; }
int attn_d_k(const Attn *a)     { return a->m[M_WQ].cols / attn_heads(a); }
int attn_kv_heads(const Attn *a) { return a->kv_heads > 0 ? a->kv_heads : attn_heads(a); }
int attn_d_v(const Attn *a)     { return a->m[M_WV].cols / attn_kv_heads(a); }
int attn_kv_head(const Attn *a, int head) { return (head - 1) * attn_kv_heads(a) / attn_heads(a) + 1; }
int attn_cache_per_token(const Attn *a) { return a->m[M_WK].cols + a->m[M_WV].cols; }
int attn_d_out(const Attn *a)   { return a->has_wo ? a->m[M_WO].cols : 0; }
int attn_last_stage(const Attn *a) { return a->has_wo ? STAGE_PROJECT : STAGE_OUTPUT; }

MatId attn_mat_base(MatId id)
{
    return id >= M_HEAD0 && id < M_HEAD_END ? (MatId)(M_Q + (id - M_HEAD0) % ATTN_HM_N) : id;
}

int attn_mat_head(MatId id)
{
    return id >= M_HEAD0 && id < M_HEAD_END ? (id - M_HEAD0) / ATTN_HM_N + 1 : 0;
}

MatId attn_shown(const Attn *a, MatId base, int head)
{
    if (attn_heads(a) <= 1 || head < 1 || head > a->heads || base < M_Q || base > M_O)
        return base;
    return attn_head_id(base, head);
}

bool attn_cell_overridden(const Attn *a, int p, int i, int c)
{
    if (!a->override[p][i])
        return false;
    int w = p == 2 ? attn_d_v(a) : attn_d_k(a); /* K, V: bit g-1 for K/V head g */
    return a->ovh[p][i] == 0 || (w > 0 && (a->ovh[p][i] >> (c / w) & 1u));
}

int attn_position(const Attn *a, int i)
{
    return i + a->offset;
}

bool attn_is_cross(const Attn *a) { return a->attention == ATTENTION_CROSS; }
int attn_keys(const Attn *a)     { return a->m[M_K].rows; }
bool attn_is_pad(const Attn *a, int j) { return j >= 0 && j < MAT_MAX && a->pad[j]; }

int attn_real_keys(const Attn *a)
{
    int n = attn_keys(a), j = 0;
    while (j < n && !a->pad[j])
        j++;
    return j;
}
