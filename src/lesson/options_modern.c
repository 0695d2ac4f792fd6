/* options_modern.c - reading the options of today's models (see
 * options_modern.h). */
#include "options_modern.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"

bool options_kv_heads(Loader *c, const yaml_node_t *n, Lesson *l)
{
    unsigned long long g;
    l->kv_heads = l->heads;
    if (!n)
        return true;
    if (!schema_uint(c, n, 1000000, &g) || g < 1 || g > (unsigned long long)l->heads)
        return diag_fail(&c->d, n, _("kv_heads must be a whole number from 1 to heads = %d (K/V heads shared by "
                                     "the query heads), found %s"), l->heads, diag_found(&c->d, n));
    if (l->heads % (int)g != 0) {
        char list[128];
        size_t o = 0;
        for (int d = 1; d <= l->heads && o < sizeof list; d++)
            if (l->heads % d == 0)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s%d", o ? ", " : "", d);
        return diag_fail(&c->d, n, _("kv_heads = %llu does not divide heads = %d: each K/V head serves the same "
                                     "number of query heads; write one of %s"), g, l->heads, list);
    }
    l->kv_heads = (int)g;
    return true;
}

bool options_choice(Loader *c, const yaml_node_t *n, const char *name, const char *a, const char *b, const char *x,
                    int *out)
{
    const char *w[3] = {a, b, x};
    for (int k = 0; k < 3 && n->type == YAML_SCALAR_NODE; k++)
        if (strcmp(ydoc_str(n), w[k]) == 0) {
            *out = k;
            return true;
        }
    return diag_fail(&c->d, n, _("%s must be %s, %s or %s, found %s"), name, a, b, x, diag_found(&c->d, n));
}

bool options_mask(Loader *c, const yaml_node_t *n, Lesson *l, int *mask)
{
    const char *s = n->type == YAML_SCALAR_NODE ? ydoc_str(n) : "";
    if (strcmp(s, "none") == 0 || strcmp(s, "causal") == 0) {
        *mask = strcmp(s, "causal") == 0 ? MASK_CAUSAL : MASK_NONE;
        return true;
    }
    if (strncmp(s, "window", 6) != 0)
        return diag_fail(&c->d, n, _("mask must be none, causal or window W (like window 2), found %s"),
                         diag_found(&c->d, n));
    const char *p = s + 6;
    while (*p == ' ')
        p++;
    char *end = NULL;
    long w = *p >= '0' && *p <= '9' && p > s + 6 ? strtol(p, &end, 10) : -1;
    if (w < 0 || !end || *end || (end - p) > 6)
        return diag_fail(&c->d, n, _("a window takes its width, the keys each query sees: write mask: window 2, "
                                     "found %s"), diag_found(&c->d, n));
    if (w < 1 || w > MAT_MAX)
        return diag_fail(&c->d, n, _("mask: window %ld %s; write window 1 to %d (each query sees itself and "
                                     "the W - 1 keys before it)"), w,
                         w < 1 ? _("hides every key") : _("is wider than any lesson"), MAT_MAX);
    *mask = MASK_WINDOW;
    l->window = (int)w;
    return true;
}

/* A whole number lo..hi, or a message naming the option and what it is. */
static bool whole(Loader *c, const yaml_node_t *n, const char *name, long lo, long hi, const char *what, int *out)
{
    unsigned long long v;
    if (!n)
        return true;
    if (!schema_uint(c, n, (unsigned long long)hi, &v) || v < (unsigned long long)lo)
        return diag_fail(&c->d, n, _("%s must be a whole number from %ld to %ld (%s), found %s"), name, lo, hi,
                         what, diag_found(&c->d, n));
    *out = (int)v;
    return true;
}

bool options_modern(Loader *c, const yaml_node_t *pos_node, int pos, const yaml_node_t *base, const yaml_node_t *offset,
                    const yaml_node_t *block, Lesson *l)
{
    l->rope_base = ATTN_ROPE_BASE_DEFAULT;
    l->block = ATTN_BLOCK_DEFAULT;
    l->offset = 0;
    if (pos == POS_ROPE && l->d_k > 0 && l->d_k % 2 != 0)
        return diag_fail(&c->d, pos_node, _("positions: rope turns the columns of q and k in pairs, so d_k must "
                                            "be even; this lesson has d_k = %d (write an even d_k, or positions: "
                                            "sinusoidal)"), l->d_k);
    if (base && !schema_num(c, base, &l->rope_base, NULL))
        return false;
    if (base && !(l->rope_base > 1))
        return diag_fail(&c->d, base, _("rope_base must be a number above 1 (10000 in most models), found %s"),
                         diag_found(&c->d, base));
    return whole(c, offset, "offset", 0, ATTN_OFFSET_MAX, _("the first token's position"), &l->offset) &&
           whole(c, block, "block", 1, MAT_MAX, _("keys per block of the online softmax"), &l->block);
}
