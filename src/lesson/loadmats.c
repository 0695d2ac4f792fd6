/* loadmats.c - a lesson's tokens, X, weights (written out or drawn at
 * random) and heads, read and checked against each other (see loadmats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/rng.h"
#include "loadmats.h"
#include "text/i18n.h"
#include "text/num.h"
#include "variants.h"

#define MAX_TOKEN_BYTES 32

/* ---- tokens and matrices -------------------------------------------------- */

/* One token: non-empty text of at most MAX_TOKEN_BYTES bytes. */
static bool load_token(Loader *c, const yaml_node_t *n, int k, char **out)
{
    char what[32];
    schema_fill(what, sizeof what, _("token %d"), NULL, k + 1);
    if (!schema_want_text(c, n, what))
        return false;
    size_t len = n->data.scalar.length;
    if (len == 0)
        return diag_fail(&c->d, n, _("token %d is empty, every token needs some text"), k + 1);
    if (len > MAX_TOKEN_BYTES)
        return diag_fail(&c->d, n, _("token %d is longer than %d bytes (it has %zu), shorten it"), k + 1,
                         MAX_TOKEN_BYTES, len);
    return schema_dup_text(c, n, what, out);
}

/* [我， 爱， 猫]: a Chinese comma between tokens makes YAML read one token.
 * A plain token that holds "，" or "、" next to other text is that mistake
 * (a quoted one, or a token that is only the comma, is meant). */
static bool tokens_comma(Loader *c, const yaml_node_t *n)
{
    static const char *const commas[][2] = {{"\xef\xbc\x8c", "U+FF0C FULLWIDTH COMMA"},
                                            {"\xe3\x80\x81", "U+3001 IDEOGRAPHIC COMMA"}};
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return true;
    const char *s = ydoc_str(n);
    for (int k = 0; k < 2; k++) {
        const char *at = strstr(s, commas[k][0]);
        if (at && strlen(s) > strlen(commas[k][0]))
            return diag_fail_at(&c->d, n->start_mark.line, schema_col(n, (size_t)(at - s)),
                                _("\"%s\" in tokens is %s, so YAML reads %s as one token; separate tokens "
                                  "with \",\" like [我, 爱, 猫]"), commas[k][0], commas[k][1], diag_quote(&c->d, s));
    }
    return true;
}

/* A list of 1..MAT_MAX tokens into *out (*count set once the list is
 * allocated, for lesson_free); want, empty (with MAT_MAX) and many (with
 * the count and MAT_MAX) are the messages of a node that is not a list,
 * an empty one and a long one. */
static bool token_list(Loader *c, const yaml_node_t *n, const char *want, const char *empty, const char *many,
                       char ***out, int *count)
{
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, "%s", want))
        return false;
    int cnt = ydoc_seq_len(n);
    if (cnt == 0)
        return diag_fail(&c->d, n, empty, MAT_MAX);
    if (cnt > MAT_MAX)
        return diag_fail(&c->d, n, many, cnt, MAT_MAX);
    *out = calloc((size_t)cnt, sizeof **out);
    if (!*out)
        return diag_oom(&c->d, n);
    bool ok = true;
    for (int k = 0; k < cnt; k++)
        ok = tokens_comma(c, ydoc_seq_item(c->doc, n, k)) && ok;
    if (!ok)
        return false;
    *count = cnt;
    for (int k = 0; k < cnt; k++)
        ok = load_token(c, ydoc_seq_item(c->doc, n, k), k, &(*out)[k]) && ok;
    return ok;
}

/* tokens: a list of 1..MAT_MAX tokens; numbers count as their text. */
bool load_tokens(Loader *c, const yaml_node_t *n, Lesson *l)
{
    return token_list(c, n, _("tokens must be a list like [I, love, cats]"),
                      _("tokens is empty, a lesson needs 1 to %d tokens"), _("%d tokens, at most %d are allowed"),
                      &l->tokens, &l->ntok);
}

/* How the width of a matrix's rows is decided, for messages. */
typedef struct {
    const char *name;    /* "X", "Wq" */
    const char *width;   /* "d_model", "d_k", "d_v" */
    int cols;            /* required width, or 0: row 1 decides */
    const char *why;     /* why cols is required, e.g. ", the width of Wq" */
} RowRule;

/* A row written with decimal commas: "0,5" (two whole numbers with only a
 * comma between them) in a row whose other numbers are parted by ", ".
 * [2,5] alone is two numbers; [0.0, 0,5] is a decimal comma. Returns the
 * index of the number before the comma, or -1. */
static int row_comma(Loader *c, const yaml_node_t *row)
{
    char hint[128];
    const yaml_node_t *at = schema_decimal_comma(c, row, hint, sizeof hint);
    int n = row->type == YAML_SEQUENCE_NODE ? ydoc_seq_len(row) : 0, first = -1;
    for (int k = 0; at && k < n; k++)
        if (ydoc_seq_item(c->doc, row, k) == at)
            first = k;
    for (int k = 0; first >= 0 && k + 1 < n; k++)
        if (ydoc_seq_item(c->doc, row, k + 1)->start_mark.index > ydoc_seq_item(c->doc, row, k)->end_mark.index + 1)
            return first;
    return -1;
}

/* One error, at the comma of "0,5": a decimal point is written ".". */
static bool comma_fail(Loader *c, const yaml_node_t *row, int at, const RowRule *r, int k)
{
    const yaml_node_t *a = ydoc_seq_item(c->doc, row, at), *b = ydoc_seq_item(c->doc, row, at + 1);
    return diag_fail_at(&c->d, a->end_mark.line, a->end_mark.column,
                        _("%s row %d: \"%s,%s\" is written with a decimal comma; a decimal point is written "
                          "\".\": write %s.%s"),
                        r->name, k + 1, ydoc_str(a), ydoc_str(b), ydoc_str(a), ydoc_str(b));
}

/* Check that row k is a list whose length follows the rule; *cols is the
 * width of row `ref` when the rule leaves it open. A row with a decimal
 * comma is that one error, whatever its length. */
static bool check_row(Loader *c, const yaml_node_t *rows, int k, const RowRule *r, int ref, int *cols)
{
    const yaml_node_t *row = ydoc_seq_item(c->doc, rows, k);
    if (!schema_lookalikes(c, row) ||
        !diag_want(&c->d, row, YAML_SEQUENCE_NODE, _("%s row %d must be a list of numbers like [0.5, -1]"),
                   r->name, k + 1))
        return false;
    int len = ydoc_seq_len(row), comma = row_comma(c, row);
    if (comma >= 0)
        return comma_fail(c, row, comma, r, k);
    if (r->cols > 0 && len != r->cols)
        return schema_row_length_fail(c, row, _("%s row %d has %d number%s; every row needs %s = %d%s"),
                                      r->name, k + 1, len, len == 1 ? "" : "s", r->width, r->cols, r->why);
    if (k == ref && len == 0)
        return diag_fail(&c->d, row, _("%s row %d is empty, %s must be 1 to %d"), r->name, k + 1, r->width,
                         MAT_MAX);
    if (k == ref && len > MAT_MAX)
        return diag_fail(&c->d, row, _("%s row %d has %d numbers, at most %d are allowed (%s <= %d)"), r->name,
                         k + 1, len, MAT_MAX, r->width, MAT_MAX);
    if (r->cols == 0 && len != *cols)
        return schema_row_length_fail(c, row,
                                      _("%s row %d has %d number%s, row %d has %d; every row needs %s = %d"),
                                      r->name, k + 1, len, len == 1 ? "" : "s", ref + 1, *cols, r->width, *cols);
    return true;
}

/* The row that decides the width when the rule leaves it open: the first
 * one without a decimal comma (-1: every row has one). */
static int width_row(Loader *c, const yaml_node_t *n, int rows, int *cols)
{
    for (int k = 0; k < rows && k < MAT_MAX; k++) {
        const yaml_node_t *row = ydoc_seq_item(c->doc, n, k);
        if (row->type == YAML_SEQUENCE_NODE && row_comma(c, row) < 0) {
            *cols = ydoc_seq_len(row);
            return k;
        }
    }
    return -1;
}

/* Read a list of rows of numbers (its row count already checked) into m.
 * Every row's shape is checked, then every number (all their messages).
 * When it fails with the shape known (a row without a decimal comma
 * decided it), m is still allocated, a bad number or row read as 0, so the
 * loader can check the rest of the lesson against the shapes. */
static bool read_rows(Loader *c, const yaml_node_t *n, const RowRule *r, Mat *m)
{
    int rows = ydoc_seq_len(n), cols = r->cols, ref = 0;
    bool ok = true, ref_ok = true, good[MAT_MAX];
    if (r->cols == 0)
        ref = width_row(c, n, rows, &cols);
    /* ragged rows are each reported, once the row deciding the width is
     * good; a width set elsewhere (Wk by Wq) once */
    for (int k = 0; k < rows && k < MAT_MAX; k++) {
        good[k] = (ok || k == ref || (r->cols == 0 && ref_ok)) && check_row(c, n, k, r, ref, &cols);
        ref_ok = k == ref ? good[k] : ref_ok;
        ok = good[k] && ok;
    }
    if (ref < 0 || cols == 0 || cols > MAT_MAX || rows > MAT_MAX || (r->cols > 0 && !ok))
        return false;
    if (!mat_new(m, rows, cols))
        return diag_oom(&c->d, n);
    for (int k = 0; k < rows; k++) {
        const yaml_node_t *row = ydoc_seq_item(c->doc, n, k);
        for (int j = 0; good[k] && j < cols; j++)
            ok = schema_num(c, ydoc_seq_item(c->doc, row, j), &MAT_AT(m, k, j), NULL) && ok;
    }
    return ok;
}

/* X: one row per token, each d_model numbers; row 1 decides d_model. */
bool load_x(Loader *c, const yaml_node_t *n, Lesson *l)
{
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE,
                   _("X must be a list of rows, one per token, like [[1, 0], [0, 1]]")))
        return false;
    int rows = ydoc_seq_len(n);
    if (rows != l->ntok)
        return diag_fail(&c->d, n, _("X has %d row%s but there %s %d token%s; X needs one row per token"), rows,
                         rows == 1 ? "" : "s", l->ntok == 1 ? "is" : "are", l->ntok, l->ntok == 1 ? "" : "s");
    RowRule r = {"X", "d_model", 0, ""};
    bool ok = read_rows(c, n, &r, &l->X);
    l->d_model = l->X.cols; /* known even when a number is bad: see read_rows */
    return ok;
}

/* ---- weights ---------------------------------------------------------------- */

enum { W_RANDOM, W_Q, W_K, W_V, W_O, W_N };
static const char *const weight_keys[W_N] = {"random", "Wq", "Wk", "Wv", "Wo"};
enum { R_SEED, R_SCALE, R_DK, R_DV, R_DOUT, R_N };
static const char *const random_keys[R_N] = {"seed", "scale", "d_k", "d_v", "d_out"};

/* Draw the weights like numpy's legacy seed(s); randn(...) * scale, in
 * the order Wq, Wk, Wv, then Wo (only with heads >= 2 or d_out). */
static bool draw_weights(Loader *c, const yaml_node_t *n, Lesson *l)
{
    int h = l->heads;
    int g = l->kv_heads > 0 ? l->kv_heads : h; /* grouped-query attention: g K/V heads */
    if (!mat_new(&l->Wq, l->d_model, h * l->d_k) || !mat_new(&l->Wk, l->d_model, g * l->d_k) ||
        !mat_new(&l->Wv, l->d_model, g * l->d_v) || (l->d_out > 0 && !mat_new(&l->Wo, h * l->d_v, l->d_out)))
        return diag_oom(&c->d, n);
    Rng rng;
    rng_seed(&rng, (uint32_t)l->seed);
    rng_randn(&rng, &l->Wq, l->rscale);
    rng_randn(&rng, &l->Wk, l->rscale);
    rng_randn(&rng, &l->Wv, l->rscale);
    if (l->d_out > 0)
        rng_randn(&rng, &l->Wo, l->rscale);
    if (l->xs_drawn) /* cross-attention's source rows, after the weights */
        rng_randn(&rng, &l->Xs, l->rscale);
    l->random = true;
    return true;
}

/* heads x width must fit in one matrix (MAT_MAX columns). */
static bool heads_fit(Loader *c, const yaml_node_t *n, const Lesson *l, const char *w, int width, const char *mat)
{
    if (l->heads * width <= MAT_MAX)
        return true;
    return diag_fail(&c->d, n, _("heads x %s = %d x %d = %d columns of %s, at most %d are allowed; "
                                 "use fewer heads or a smaller %s"),
                     w, l->heads, width, l->heads * width, mat, MAT_MAX, w);
}

/* weights: random: {seed, scale, d_k, d_v}; seed and d_k are required,
 * scale defaults to 1 and d_v to d_k. */
static bool load_random(Loader *c, const yaml_node_t *key_node, const yaml_node_t *n, Lesson *l)
{
    const char *ex = "random: {seed: 42, scale: 0.3, d_k: 3}";
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("random must be a mapping like {seed: 42, scale: 0.3, d_k: 3}")))
        return false;
    Keys ks = {random_keys, R_N, _("key"), _(" in random")};
    yaml_node_t *val[R_N] = {0}, *key[R_N] = {0};
    unsigned long long seed;
    if (!schema_keys(c, n, &ks, val, key))
        return false;
    if (!val[R_SEED] || !val[R_DK])
        return diag_fail(&c->d, key_node, _("random is missing %s, write e.g. %s"), val[R_SEED] ? "d_k" : "seed",
                         ex);
    if (!schema_uint(c, val[R_SEED], 4294967295ULL, &seed))
        return diag_fail(&c->d, val[R_SEED], _("seed must be a whole number from 0 to 4294967295, found %s"),
                         diag_found(&c->d, val[R_SEED]));
    l->seed = (unsigned long)seed;
    l->rscale = 1.0;
    if (val[R_SCALE] && !schema_num(c, val[R_SCALE], &l->rscale, NULL))
        return false;
    if (!schema_size(c, val[R_DK], "d_k", &l->d_k) || !heads_fit(c, val[R_DK], l, "d_k", l->d_k, "Wq"))
        return false;
    l->d_v = l->d_k;
    if (val[R_DV] && !schema_size(c, val[R_DV], "d_v", &l->d_v))
        return false;
    if (!heads_fit(c, val[R_DV] ? val[R_DV] : val[R_DK], l, "d_v", l->d_v, "Wv"))
        return false;
    l->d_out = l->heads >= 2 ? l->d_model : 0;
    if (val[R_DOUT] && !schema_size(c, val[R_DOUT], "d_out", &l->d_out))
        return false;
    return draw_weights(c, n, l);
}

/* Read one written-out weight matrix: d_model rows; Wk must match Wq. */
static bool load_w(Loader *c, const yaml_node_t *n, int id, const Lesson *l, Mat *m)
{
    const char *name = weight_keys[id];
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("%s must be a list of d_model = %d rows"), name, l->d_model))
        return false;
    int rows = ydoc_seq_len(n);
    if (rows != l->d_model)
        return diag_fail(&c->d, n, _("%s must have d_model = %d rows, one per X column; it has %d"), name,
                         l->d_model,
                         rows);
    int g = l->kv_heads > 0 ? l->kv_heads : l->heads, parts = id == W_Q ? l->heads : g;
    RowRule r = {name, id == W_V ? "d_v" : "d_k", id == W_K ? l->Wq.cols / l->heads * g : 0,
                 id == W_K ? g == l->heads ? _(", the width of Wq") : _(", kv_heads x d_k of Wq") : ""};
    if (parts > 1)
        r.width = id == W_V ? g < l->heads ? "kv_heads x d_v" : "heads x d_v"
                            : id == W_K && g < l->heads ? "kv_heads x d_k" : "heads x d_k";
    if (!read_rows(c, n, &r, m))
        return false;
    if (m->cols % parts != 0)
        return diag_fail(&c->d, ydoc_seq_item(c->doc, n, 0),
                         _("%s has %d columns, which do not split into %d heads; it needs %s x %s columns, "
                           "a multiple of %d"),
                         name, m->cols, parts, parts == l->heads ? "heads" : "kv_heads", id == W_V ? "d_v" : "d_k",
                         parts);
    return true;
}

/* Wo: heads x d_v rows (one per column of O), d_out columns. */
static bool load_wo(Loader *c, const yaml_node_t *n, Lesson *l)
{
    int rows = l->heads * l->d_v;
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("Wo must be a list of heads x d_v = %d rows"), rows))
        return false;
    if (ydoc_seq_len(n) != rows)
        return diag_fail(&c->d, n, _("Wo must have heads x d_v = %d x %d = %d rows, one per column of O; it has %d"),
                         l->heads, l->d_v, rows, ydoc_seq_len(n));
    RowRule r = {"Wo", "d_out", 0, ""};
    if (!read_rows(c, n, &r, &l->Wo))
        return false;
    l->d_out = l->Wo.cols;
    return true;
}

/* weights: either random: or all of Wq, Wk, Wv written out, never both. */
bool load_weights(Loader *c, const yaml_node_t *key_node, const yaml_node_t *n, Lesson *l)
{
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("weights must be a mapping: random: {seed, scale, d_k}, "
                                                  "or Wq, Wk and Wv written out")))
        return false;
    Keys ks = {weight_keys, W_N, _("key"), _(" in weights")};
    yaml_node_t *val[W_N] = {0}, *key[W_N] = {0};
    if (!schema_keys(c, n, &ks, val, key))
        return false;
    if (val[W_RANDOM]) {
        if (val[W_Q] || val[W_K] || val[W_V] || val[W_O])
            return diag_fail(&c->d, key[W_RANDOM], _("weights cannot mix random with written-out Wq, Wk, Wv; "
                                                     "use one or the other"));
        return load_random(c, key[W_RANDOM], val[W_RANDOM], l);
    }
    for (int w = W_Q; w <= W_V; w++)
        if (!val[w])
            return diag_fail(&c->d, key_node, _("weights is missing %s; write Wq, Wk and Wv out, or use random: "
                                                "{seed, scale, d_k}"), weight_keys[w]);
    if (!load_w(c, val[W_Q], W_Q, l, &l->Wq) || !load_w(c, val[W_K], W_K, l, &l->Wk) ||
        !load_w(c, val[W_V], W_V, l, &l->Wv))
        return false;
    if (l->xs_drawn)
        return diag_fail(&c->d, key_node, _("the source's rows Xs are drawn only with random weights; write Xs: "
                                            "out, one row of d_model = %d numbers per source token"), l->d_model);
    l->d_k = l->Wq.cols / l->heads;
    l->d_v = l->Wv.cols / (l->kv_heads > 0 ? l->kv_heads : l->heads);
    if (!val[W_O] && l->heads >= 2)
        return diag_fail(&c->d, key_node, _("weights is missing Wo; a lesson with %d heads joins them with Wo, "
                                            "heads x d_v = %d rows of d_out numbers"), l->heads, l->heads * l->d_v);
    return !val[W_O] || load_wo(c, val[W_O], l);
}

/* heads: 1 to ATTN_HEADS_MAX (default 1). */
bool load_heads(Loader *c, const yaml_node_t *n, Lesson *l)
{
    unsigned long long v = 1;
    if (n && (!schema_uint(c, n, 1000000, &v) || v < 1 || v > ATTN_HEADS_MAX))
        return diag_fail(&c->d, n, _("heads must be a whole number from 1 to %d, found %s"), ATTN_HEADS_MAX,
                         diag_found(&c->d, n));
    l->heads = (int)v;
    return true;
}

/* ---- cross-attention and padding keys ------------------------------------------ */

/* source: the tokens cross-attention reads (1..MAT_MAX), then Xs: one row
 * per source token of d_model numbers (absent: drawn after the weights,
 * which then must be random). Needs X read (d_model). */
bool load_source(Loader *c, const yaml_node_t *key, const yaml_node_t *n, const yaml_node_t *xs_key,
                 const yaml_node_t *xs, Lesson *l)
{
    if (!n && xs)
        return diag_fail(&c->d, xs_key, _("Xs holds the rows of the source of cross-attention; write source: "
                                          "[猫, 追, 狗] and attention: cross with it, or remove Xs"));
    if (!n)
        return true;
    (void)key;
    bool ok = token_list(c, n, _("source must be a list of tokens like [猫, 追, 狗]"),
                         _("source is empty, cross-attention needs 1 to %d source tokens"),
                         _("%d source tokens, at most %d are allowed"), &l->source, &l->nsrc);
    if (!ok || l->d_model < 1)
        return false;
    int cnt = l->nsrc;
    if (!xs) { /* drawn with the weights (draw_weights) */
        l->xs_drawn = true;
        return mat_new(&l->Xs, cnt, l->d_model) || diag_oom(&c->d, n);
    }
    if (!diag_want(&c->d, xs, YAML_SEQUENCE_NODE,
                   _("Xs must be a list of rows, one per source token, like [[1, 0], [0, 1]]")))
        return false;
    int rows = ydoc_seq_len(xs);
    if (rows != cnt)
        return diag_fail(&c->d, xs, _("Xs has %d row%s but there %s %d source token%s; Xs needs one row per source "
                                      "token"), rows, rows == 1 ? "" : "s", cnt == 1 ? "is" : "are", cnt,
                         cnt == 1 ? "" : "s");
    RowRule r = {"Xs", "d_model", l->d_model, _(", the width of X")};
    return read_rows(c, xs, &r, &l->Xs);
}

/* attention: self | cross (after source:, read by the option table's row);
 * cross needs source:, source: needs cross. */
bool load_attention(Loader *c, const yaml_node_t *key, const yaml_node_t *n, const yaml_node_t *src_key,
                    Lesson *l)
{
    l->attention = ATTENTION_SELF;
    if (n && !options_top_word(c, n, OPT_ATTENTION, l))
        return false;
    if (l->attention == ATTENTION_CROSS && !l->source && !src_key)
        return diag_fail(&c->d, n, _("attention: cross reads its keys and values from a source; write source: "
                                     "[猫, 追, 狗] (and its rows Xs:) beside it"));
    if (l->attention != ATTENTION_CROSS && src_key)
        return diag_fail(&c->d, src_key, _("source is read by cross-attention only; add attention: cross, or "
                                           "remove source (and Xs)"));
    (void)key;
    return true;
}

/* pad: one 0 or 1 per key (a source token with cross, else a token); the
 * padding keys come last and at least one key is real. */
bool load_pad(Loader *c, const yaml_node_t *n, Lesson *l)
{
    if (!n)
        return true;
    bool cross = l->attention == ATTENTION_CROSS;
    int keys = cross ? l->nsrc : l->ntok;
    const char *what = cross ? _("source token") : _("token");
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("pad must be a list of 0 and 1, one per key, like [0, 0, 1]")))
        return false;
    int cnt = ydoc_seq_len(n);
    if (cnt != keys)
        return diag_fail(&c->d, n, _("pad has %d entr%s but there %s %d key%s (one per %s); write one 0 (a real "
                                     "key) or 1 (padding) per key"), cnt, cnt == 1 ? "y" : "ies",
                         keys == 1 ? "is" : "are", keys, keys == 1 ? "" : "s", what);
    for (int k = 0; k < cnt; k++) {
        const yaml_node_t *e = ydoc_seq_item(c->doc, n, k);
        unsigned long long v;
        if (!schema_uint(c, e, 1, &v))
            return diag_fail(&c->d, e, _("pad entry %d must be 0 (a real key) or 1 (padding), found %s"), k + 1,
                             diag_found(&c->d, e));
        l->pad[k] = (unsigned char)v;
    }
    for (int k = 0; k + 1 < cnt; k++)
        if (l->pad[k] && !l->pad[k + 1])
            return diag_fail(&c->d, ydoc_seq_item(c->doc, n, k), _("pad marks key %d as padding before the real "
                                                                   "key %d; padding keys come last, like pad: "
                                                                   "[0, 0, 1]"), k + 1, k + 2);
    if (l->pad[0])
        return diag_fail(&c->d, n, _("pad marks every key as padding, so no query has anything to attend to; "
                                     "write 0 for the real keys, like [0, 0, 1]"));
    l->npad = cnt;
    return true;
}

/* A key's value node in a mapping (NULL when absent or not a mapping). */
static const yaml_node_t *map_get(Loader *c, const yaml_node_t *map, const char *name)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = ydoc_node(c->doc, p->key);
        if (k->type == YAML_SCALAR_NODE && strcmp(ydoc_str(k), name) == 0)
            return ydoc_node(c->doc, p->value);
    }
    return NULL;
}

/* After options: what cross-attention and padding refuse of them. */
bool load_cross_options(Loader *c, const yaml_node_t *options, const yaml_node_t *pad, Lesson *l)
{
    const yaml_node_t *mask = map_get(c, options, "mask"), *pos = map_get(c, options, "positions");
    if (l->attention == ATTENTION_CROSS && l->mask != MASK_NONE)
        return diag_fail(&c->d, mask, _("mask: %s does not apply to cross-attention: the source has no future to "
                                        "hide, every target token sees the whole source; remove mask (or write "
                                        "mask: none)"), l->mask == MASK_CAUSAL ? "causal" : "window");
    if (l->attention == ATTENTION_CROSS && l->positions != POS_NONE)
        return diag_fail(&c->d, pos, _("positions are not taught with cross-attention here: the target and the "
                                       "source would each need their own; remove positions"));
    if (l->npad > 0 && l->mask == MASK_WINDOW) {
        int real = 0;
        while (real < l->npad && !l->pad[real])
            real++;
        if (l->ntok - l->window >= real) /* the last row sees keys ntok - window .. ntok - 1 */
            return diag_fail(&c->d, mask, _("mask: window %d leaves token %d with only padding keys (the real keys "
                                            "are 1 to %d); write a window of at least %d, or mask: causal"),
                             l->window, l->ntok, real, l->ntok - real + 1);
    }
    (void)pad;
    return true;
}
