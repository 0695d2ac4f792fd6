/* ref.c - scan and resolve "M[i][j]" references (see ref.h). */
#include "ref.h"

#include <ctype.h>
#include <string.h>

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
    for (x->v = 0; isdigit((unsigned char)*s); s++)
        x->v = x->v * 10 + (*s - '0') > REF_INDEX_MAX ? REF_INDEX_MAX : x->v * 10 + (*s - '0');
    x->len = (int)(s - x->at);
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
