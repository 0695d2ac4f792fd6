/* ref.c - scan and resolve "M[i][j]" references (see ref.h). */
#include "ref.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "heads.h"
#include "text/i18n.h"
#include "text/num.h"

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Read "[n]" at *sp (spaces allowed inside); on success *sp is past "]". */
static RefStatus scan_index(const char **sp, RefIndex *x, const char **err_at)
{
    const char *s = skip_ws(*sp + 1);  /* past "[" */
    if (!isdigit((unsigned char)*s)) {
        *err_at = s;
        return REF_NO_NUMBER;
    }
    x->at = s;
    size_t n = num_whole(s, &x->v);
    s += n;
    x->len = n > 1000000 ? 1000000 : (int)n;
    s = skip_ws(s);
    if (*s != ']') {
        *err_at = s;
        return REF_NO_CLOSE;
    }
    *sp = s + 1;
    return REF_OK;
}

RefStatus ref_scan(const char *s, Ref *r)
{
    memset(r, 0, sizeof *r);
    s = skip_ws(s);
    r->name = s;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    r->name_len = (int)(s - r->name);
    r->end = s;
    if (r->name_len == 0) {
        r->err_at = s;
        return REF_NO_NAME;
    }
    while (r->n < 2 && *skip_ws(s) == '[') {
        s = skip_ws(s);
        RefStatus st = scan_index(&s, &r->idx[r->n], &r->err_at);
        if (st != REF_OK)
            return st;
        r->n++;
        r->end = s;
    }
    for (int k = 0; k < r->n; k++)
        if (r->idx[k].v == 0) {
            r->err_at = r->idx[k].at;
            return REF_ZERO;
        }
    return REF_OK;
}

RefStatus ref_parse(const char *s, Ref *r)
{
    RefStatus st = ref_scan(s, r);
    if (ref_syntax_error(st))
        return st;
    const char *rest = skip_ws(r->end);
    if (*rest != '\0') {
        r->err_at = rest;
        return REF_TRAILING;
    }
    return st;
}

RefStatus ref_matrix(Ref *r)
{
    int id = attn_mat_lookup(r->name, r->name_len);
    if (r->name_len == 0 || id < 0)
        return REF_UNKNOWN;
    r->mat = (MatId)id;
    if (r->n == 0) {
        if (!r->err_at)  /* keep the place of a scan error */
            r->err_at = skip_ws(r->end);
        return REF_NO_INDEX;
    }
    return REF_OK;
}

RefStatus ref_check(const Ref *r, const Attn *a)
{
    const Mat *x = &a->m[r->mat];
    if (r->idx[0].v < 1 || r->idx[0].v > x->rows)
        return REF_ROW_RANGE;
    if (r->n == 2 && (r->idx[1].v < 1 || r->idx[1].v > x->cols))
        return REF_COL_RANGE;
    return REF_OK;
}

RefStatus ref_head(const Attn *a, MatId *m, char *msg, size_t len)
{
    int h = attn_mat_head(*m), heads = attn_heads(a);
    MatId base = attn_mat_base(*m);
    const char *bn = attn_mat_name(base);
    if (msg && len)
        msg[0] = '\0';
    if (h > heads) {
        if (msg && heads == 1)
            snprintf(msg, len, _("%s names head %d, but this lesson has one head: write %s (or %s1)"),
                     attn_mat_name(*m), h, bn, bn);
        else if (msg)
            snprintf(msg, len, _("%s names head %d, but this lesson has %d heads: %s1 to %s%d"), attn_mat_name(*m), h,
                     heads, bn, bn, heads);
        return REF_NO_HEAD;
    }
    if (h && heads == 1) {
        *m = base;
        return REF_OK;
    }
    if (!h && heads > 1 && (*m == M_QKT || *m == M_S || *m == M_A)) {
        if (msg)
            snprintf(msg, len, _("%s is one per head in a lesson with %d heads: write %s1 to %s%d"), bn, heads, bn, bn,
                     heads);
        return REF_WHICH_HEAD;
    }
    if ((*m == M_WO || *m == M_Y) && !a->has_wo) {
        if (msg)
            snprintf(msg, len, _("%s exists only in lessons with W_O (heads: 2 or more, or d_out in random:)"), bn);
        return REF_NO_WO;
    }
    return REF_OK;
}

bool heads_resolve(const Attn *a, MatId *m, char *msg, size_t len)
{
    return ref_head(a, m, msg, len) == REF_OK;
}

const char *ref_index_written(const char *s, int k, char *buf, size_t len)
{
    Ref r;
    ref_scan(s, &r);
    if (k >= r.n) {
        snprintf(buf, len, "?");
        return buf;
    }
    return num_whole_text(r.idx[k].at, (size_t)r.idx[k].len, buf, len);
}

const char *ref_matrix_list(const Attn *shape, bool writable, char *buf, size_t len)
{
    int h = shape ? attn_heads(shape) : 1;
    bool wo = shape && shape->has_wo;
    if (h < 2 && writable)
        snprintf(buf, len, "%s", wo ? _("X, Wq, Wk, Wv, Wo, Q, K or V") : _("X, Wq, Wk, Wv, Q, K or V"));
    else if (h < 2)
        snprintf(buf, len, "%s", wo ? _("X, Wq, Wk, Wv, Wo, Q, K, V, QKt, S, A, O or Y")
                                    : _("X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O"));
    else if (writable)
        snprintf(buf, len, _("X, Wq, Wk, Wv, Wo, Q, K or V, or one head's part (heads count from 1): Q1 to Q%d, K1 "
                             "to K%d or V1 to V%d"), h, h, h);
    else
        snprintf(buf, len, _("X, Wq, Wk, Wv, Wo, Q, K, V, O or Y, or one head's (heads count from 1): QKt1 to QKt%d, "
                             "S1 to S%d or A1 to A%d"), h, h, h);
    return buf;
}
