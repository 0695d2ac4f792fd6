/* optload.c - reading a lesson's options: (and its kv_heads) from the
 * YAML document, row by row of the option table (see optload.h). */
#include "optload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
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

static bool options_choice(Loader *c, const yaml_node_t *n, const char *name, const char *a, const char *b, const char *x,
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

static bool options_mask(Loader *c, const yaml_node_t *n, Lesson *l, int *mask)
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
    long long ww = -1;
    size_t digits = *p >= '0' && *p <= '9' && p > s + 6 ? num_whole(p, &ww) : 0;
    long w = (long)ww;
    if (digits == 0 || p[digits] || digits > 6)
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

/* Where each row's value lives in a Lesson (the table knows the state's). */
#define OPTION_LF(id_, key_, type_, words_, lo_, hi_, def_, flags_, act_, lf_, ...) [id_] = offsetof(Lesson, lf_),
static const size_t in_lesson[OPT_COUNT] = {OPTION_ROWS(OPTION_LF)};

double option_get_lesson(const Lesson *l, const OptRow *r)
{
    return option_value_at(l, r, in_lesson[r->id]);
}

/* Store v as row r's value in the lesson (an int, or a double). */
static void set_value(Lesson *l, const OptRow *r, double v)
{
    char *p = (char *)l + in_lesson[r->id];
    int i = (int)v;
    if (r->type == OT_NUMBER)
        memcpy(p, &v, sizeof v);
    else
        memcpy(p, &i, sizeof i);
}

/* One of two or three words; mask's third takes its width. */
static bool read_words(Loader *c, const yaml_node_t *n, const OptRow *r, Lesson *l, int *out)
{
    if (r->flags & OF_WIDTH)
        return options_mask(c, n, l, out);
    if (r->words[2])
        return options_choice(c, n, r->key, r->words[0], r->words[1], r->words[2], out);
    for (int k = 0; k < 2 && n->type == YAML_SCALAR_NODE; k++)
        if (strcmp(ydoc_str(n), r->words[k]) == 0) {
            *out = k;
            return true;
        }
    return diag_fail(&c->d, n, _("%s must be %s or %s, found %s"), r->key, r->words[0], r->words[1],
                     diag_found(&c->d, n));
}

/* A number in the row's range; the row's message says the range. */
static bool read_number(Loader *c, const yaml_node_t *n, const OptRow *r, double *v)
{
    char lo[SHORTEST_MAX], hi[SHORTEST_MAX];
    if (r->flags & OF_FINITE) { /* inf and nan are out of range, not a syntax error */
        int st = n->type == YAML_SCALAR_NODE ? (int)num_parse(ydoc_str(n), v, NULL) : NUM_SYNTAX;
        if (st == NUM_SYNTAX)
            return schema_num(c, n, v, NULL);
        if (st != NUM_OK)
            *v = NAN;
    } else if (!schema_num(c, n, v, NULL)) {
        return false;
    }
    if (option_in_range(r, *v))
        return true;
    option_bounds(r, lo, hi, sizeof lo);
    if (r->flags & OF_ABOVE)
        return diag_fail(&c->d, n, _(r->load_msg), r->key, lo, diag_found(&c->d, n));
    return diag_fail(&c->d, n, _(r->load_msg), r->key, lo, hi, diag_found(&c->d, n));
}

/* A whole number in the row's range. */
static bool read_whole(Loader *c, const yaml_node_t *n, const OptRow *r, int *out)
{
    unsigned long long v;
    char lo[SHORTEST_MAX], hi[SHORTEST_MAX];
    if (schema_uint(c, n, (unsigned long long)r->hi, &v) && v >= (unsigned long long)r->lo) {
        *out = (int)v;
        return true;
    }
    option_bounds(r, lo, hi, sizeof lo);
    if (r->load_msg)
        return diag_fail(&c->d, n, _(r->load_msg), r->key, lo, hi, diag_found(&c->d, n));
    return diag_fail(&c->d, n, _("%s must be a whole number from %ld to %ld (%s), found %s"), r->key, (long)r->lo,
                     (long)r->hi, _(r->what), diag_found(&c->d, n));
}

/* One row's value node into the lesson (its default stays on a failure). */
static bool read_row(Loader *c, const yaml_node_t *n, const OptRow *r, Lesson *l)
{
    double d = 0;
    int i = 0;
    bool ok = r->type == OT_NUMBER ? read_number(c, n, r, &d)
              : r->type == OT_WHOLE ? read_whole(c, n, r, &i)
                                    : read_words(c, n, r, l, &i);
    if (ok)
        set_value(l, r, r->type == OT_NUMBER ? d : i);
    return ok;
}

bool options_load(Loader *c, const yaml_node_t *n, Lesson *l)
{
    const char *names[OPT_COUNT];
    const OptRow *rows[OPT_COUNT];
    int nk = 0;
    for (int k = 0; k < OPT_COUNT; k++)
        if (option_table[k].flags & OF_OPTIONS) {
            rows[nk] = &option_table[k];
            names[nk++] = option_table[k].key;
            set_value(l, &option_table[k], option_table[k].def);
        }
    yaml_node_t *val[OPT_COUNT] = {0}, *key[OPT_COUNT] = {0};
    Keys ks = {names, nk, _("key"), _(" in options")};
    if (n && !diag_want(&c->d, n, YAML_MAPPING_NODE, _("options must be a mapping like {scale: none, softmax: "
                                                       "naive, digits: 3}")))
        return false;
    bool ok = !n || schema_keys(c, n, &ks, val, key); /* the known keys are read all the same */
    const yaml_node_t *pos = NULL;
    for (int k = 0; k < nk; k++) {
        if (rows[k]->id == OPT_POS)
            pos = val[k];
        if (val[k])
            ok = read_row(c, val[k], rows[k], l) && ok;
    }
    if (l->positions == POS_ROPE && l->d_k > 0 && l->d_k % 2 != 0)
        return diag_fail(&c->d, pos, _("positions: rope turns the columns of q and k in pairs, so d_k must "
                                       "be even; this lesson has d_k = %d (write an even d_k, or positions: "
                                       "sinusoidal)"), l->d_k);
    return ok;
}

bool options_top_word(Loader *c, const yaml_node_t *n, OptId id, Lesson *l)
{
    return read_row(c, n, option_row(id), l);
}
