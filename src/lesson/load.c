/* load.c - the lesson schema: from a YAML document to a Lesson (see
 * lesson.h for the contract of lesson_load_buffer() and lesson_load_file()).
 *
 * Loading reads the bytes once, in two passes:
 *   1. ydoc_read() builds the document from libyaml's checked event stream
 *      (ydoc.h: aliases, anchors, extra documents, deep nesting and libyaml's
 *      own errors become "FILE:LINE:COL: ..." messages);
 *   2. the walker here, which only descends into the shapes a lesson has
 *      (so it never recurses on its own), fills a Lesson, checking every key,
 *      size, index and number against the lesson's shapes, in dependency
 *      order: tokens before X, X before the weights, shapes before the steps.
 * Messages go through diag.h; references ("Q[1]", "S[1][2]") through ref.h;
 * numbers through num.h. Any error frees everything: the caller gets a
 * complete lesson or one line. The run-time operations on a loaded lesson
 * (free, base state, expect check) are in lesson.c. */
#include "lesson.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "../core/rng.h"
#include "diag.h"
#include "i18n.h"
#include "num.h"
#include "ref.h"
#include "ydoc.h"

#define MAX_TOKEN_BYTES 32
#define FORMAT_ID "qkvtutor/1"

/* One load: its messages and the document being walked. */
typedef struct {
    Diag d;
    yaml_document_t *doc;
} Ctx;

/* The keys valid in one mapping, for lookup and for "did you mean". */
typedef struct {
    const char *const *names;
    int n;
    const char *noun;        /* "key" or "language" */
    const char *where;       /* "" at the top, " in options" deeper */
} Keys;

/* ---- scalars ------------------------------------------------------------- */

/* Require a scalar that is valid UTF-8 without NUL; `what` says what it is. */
static bool want_text(Ctx *c, const yaml_node_t *n, const char *what)
{
    if (!diag_want(&c->d, n, YAML_SCALAR_NODE, _("%s must be text"), what))
        return false;
    size_t len = n->data.scalar.length;
    if (!text_utf8_valid(ydoc_str(n), len))
        return diag_fail(&c->d, n, _("invalid UTF-8 in %s, lessons must be UTF-8 text"), what);
    if (strlen(ydoc_str(n)) != len)
        return diag_fail(&c->d, n, _("%s contains a NUL character (\\0), which a lesson cannot hold"), what);
    return true;
}

/* Copy a text scalar into *out (malloc'd). */
static bool dup_text(Ctx *c, const yaml_node_t *n, const char *what, char **out)
{
    if (!want_text(c, n, what))
        return false;
    *out = strdup(ydoc_str(n));
    return *out ? true : diag_oom(&c->d, n);
}

/* Characters a Chinese (or other full-width) input method types in place
 * of ASCII number punctuation. */
static const struct {
    const char *utf8, *name, *ascii;
} lookalikes[] = {
    {"\xef\xbc\x8c", "U+FF0C FULLWIDTH COMMA", ","},
    {"\xe3\x80\x81", "U+3001 IDEOGRAPHIC COMMA", ","},
    {"\xef\xbc\x8e", "U+FF0E FULLWIDTH FULL STOP", "."},
    {"\xe3\x80\x82", "U+3002 IDEOGRAPHIC FULL STOP", "."},
    {"\xef\xbc\x8d", "U+FF0D FULLWIDTH HYPHEN-MINUS", "-"},
};

/* The 0-based file column of byte `off` of a one-line scalar's value
 * (columns count characters); the scalar's start when that is unknown. */
static size_t scalar_col(const yaml_node_t *n, size_t off)
{
    size_t col = n->start_mark.column, chars = 0;
    if (n->end_mark.line != n->start_mark.line)
        return col;
    for (size_t k = 0; k < off && k < n->data.scalar.length; k++)
        chars += (n->data.scalar.value[k] & 0xC0) != 0x80;
    switch (n->data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE:
        return col + chars;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        return col + 1 + chars;
    default:
        return col;
    }
}

/* Refuse a scalar holding a full-width lookalike of ",", "." or "-",
 * naming the character, at its place. */
static bool check_lookalike(Ctx *c, const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE)
        return true;
    const char *s = ydoc_str(n);
    for (size_t k = 0; k < sizeof lookalikes / sizeof *lookalikes; k++) {
        const char *at = strstr(s, lookalikes[k].utf8);
        if (at)
            return diag_fail_at(&c->d, n->start_mark.line, scalar_col(n, (size_t)(at - s)),
                                _("\"%s\" in %s is %s, write \"%s\" instead"), lookalikes[k].utf8,
                                diag_quote(&c->d, s), lookalikes[k].name, lookalikes[k].ascii);
    }
    return true;
}

/* Is s an integer written as plain digits, with an optional '-'? */
static bool plain_int(const yaml_node_t *n, bool sign)
{
    const char *s = ydoc_str(n);
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    if (sign && *s == '-')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    while (isdigit((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* When a list of numbers holds "0,5" (two whole numbers with only a comma
 * between them), write a hint about the decimal comma into buf and return
 * the node of the "0"; else buf is "" and NULL is returned. */
static const yaml_node_t *decimal_comma(Ctx *c, const yaml_node_t *row, char *buf, size_t len)
{
    buf[0] = '\0';
    if (row->type != YAML_SEQUENCE_NODE)
        return NULL;
    for (int k = 0; k + 1 < ydoc_seq_len(row); k++) {
        const yaml_node_t *a = ydoc_seq_item(c->doc, row, k), *b = ydoc_seq_item(c->doc, row, k + 1);
        if (plain_int(a, true) && plain_int(b, false) && b->start_mark.index == a->end_mark.index + 1) {
            snprintf(buf, len, _("; \"%s,%s\" looks like a decimal comma, write %s.%s"), ydoc_str(a), ydoc_str(b),
                     ydoc_str(a), ydoc_str(b));
            return a;
        }
    }
    return NULL;
}

/* Fail at a row of the wrong length, or at the decimal comma in it. */
static bool row_length_fail(Ctx *c, const yaml_node_t *row, const char *fmt, ...) DIAG_PRINTF(3, 4);
static bool row_length_fail(Ctx *c, const yaml_node_t *row, const char *fmt, ...)
{
    char hint[128], what[384];
    const yaml_node_t *at = decimal_comma(c, row, hint, sizeof hint);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_fail(&c->d, at ? at : row, "%s%s", what, hint);
}

/* Refuse the first lookalike character in a list of numbers. */
static bool check_lookalikes(Ctx *c, const yaml_node_t *row)
{
    for (int j = 0; row->type == YAML_SEQUENCE_NODE && j < ydoc_seq_len(row); j++)
        if (!check_lookalike(c, ydoc_seq_item(c->doc, row, j)))
            return false;
    return true;
}

/* Parse a finite number from a scalar; *decimals (may be NULL) receives
 * the decimals written, for expect tolerances. */
static bool parse_num(Ctx *c, const yaml_node_t *n, double *v, int *decimals)
{
    if (!diag_want(&c->d, n, YAML_SCALAR_NODE, _("expected a number")) || !check_lookalike(c, n))
        return false;
    const char *s = ydoc_str(n), *comma = strchr(s, ',');
    switch (num_parse(s, v, decimals)) {
    case NUM_OK:
        return true;
    case NUM_NONFINITE:
        return diag_fail(&c->d, n, _("%s is not allowed, numbers must be finite"), diag_quote(&c->d, s));
    case NUM_RANGE:
        return diag_fail(&c->d, n, _("%s is too large, numbers must be finite"), diag_quote(&c->d, s));
    case NUM_SYNTAX:
        break;
    }
    if (comma && comma > s && isdigit((unsigned char)comma[-1]) && isdigit((unsigned char)comma[1]) &&
        !strchr(comma + 1, ',')) {
        char fixed[64];
        snprintf(fixed, sizeof fixed, "%.*s.%s", (int)(comma - s), s, comma + 1);
        return diag_fail(&c->d, n, _("%s is not a number: it looks like a decimal comma, write %s"),
                         diag_quote(&c->d, s), diag_quote(&c->d, fixed));
    }
    return diag_fail(&c->d, n, _("%s is not a number, expected a decimal like 0.5 or -1.2e-3"),
                     diag_quote(&c->d, s));
}

/* Parse a whole number 0..max written as plain digits. No message. */
static bool parse_uint(const yaml_node_t *n, unsigned long long max, unsigned long long *out)
{
    if (n->type != YAML_SCALAR_NODE)
        return false;
    const char *s = ydoc_str(n);
    unsigned long long v = 0;
    if (!isdigit((unsigned char)*s))
        return false;
    for (; isdigit((unsigned char)*s); s++) {
        v = v * 10 + (unsigned long long)(*s - '0');
        if (v > max)
            return false;
    }
    *out = v;
    return *s == '\0';
}

/* Parse a size such as d_k: a whole number from 1 to MAT_MAX. */
static bool parse_size(Ctx *c, const yaml_node_t *n, const char *name, int *out)
{
    unsigned long long v;
    if (parse_uint(n, 1000000, &v) && v > MAT_MAX)
        return diag_fail(&c->d, n, _("%s is %llu, at most %d are allowed"), name, v, MAT_MAX);
    if (!parse_uint(n, MAT_MAX, &v) || v < 1)
        return diag_fail(&c->d, n, _("%s must be a whole number from 1 to %d, found %s"), name, MAT_MAX,
                         diag_found(&c->d, n));
    *out = (int)v;
    return true;
}

/* ---- nodes and keys ------------------------------------------------------ */

/* Refuse a key that is not among ks, suggesting the closest valid one. */
static bool unknown_key(Ctx *c, const yaml_node_t *k, const Keys *ks)
{
    const char *name = ydoc_str(k), *s = diag_suggest(name, ks->names, ks->n);
    if (s)
        return diag_fail(&c->d, k, _("unknown %s %s%s (did you mean \"%s\"?)"), ks->noun,
                         diag_quote(&c->d, name), ks->where, s);
    char list[256];
    return diag_fail(&c->d, k, _("unknown %s %s%s, expected %s"), ks->noun, diag_quote(&c->d, name), ks->where,
                     diag_join_or(ks->names, ks->n, list, sizeof list));
}

/* Read a mapping's pairs into val[] and key[] (indexed like ks->names),
 * refusing keys that are not text, unknown keys and duplicates. */
static bool read_keys(Ctx *c, const yaml_node_t *map, const Keys *ks, yaml_node_t **val, yaml_node_t **key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = ydoc_node(c->doc, p->key);
        if (!diag_want(&c->d, k, YAML_SCALAR_NODE, _("keys must be names like %s"), ks->names[0]))
            return false;
        int id = 0;
        while (id < ks->n && strcmp(ydoc_str(k), ks->names[id]) != 0)
            id++;
        if (id == ks->n)
            return unknown_key(c, k, ks);
        if (key[id])
            return diag_fail(&c->d, k, _("%s is given twice, the first is at line %zu"),
                             diag_quote(&c->d, ydoc_str(k)), key[id]->start_mark.line + 1);
        key[id] = k;
        val[id] = ydoc_node(c->doc, p->value);
    }
    return true;
}

/* An index's digits as written (cut after 24), for a message. */
static const char *index_text(const RefIndex *x, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s%s", x->len > 24 ? 24 : x->len, x->at, x->len > 24 ? "..." : "");
    return buf;
}

/* Check a resolved reference against the shapes, naming the index as
 * written. */
static bool check_ref(Ctx *c, const yaml_node_t *n, const Attn *shape, const Ref *r)
{
    RefStatus st = ref_check(r, shape);
    const Mat *x = &shape->m[r->mat];
    const char *name = attn_mat_name(r->mat);
    char num[32];
    if (st == REF_ROW_RANGE)
        return diag_fail(&c->d, n, _("row %s is out of range in %s, %s has %d row%s"),
                         index_text(&r->idx[0], num, sizeof num), diag_quote(&c->d, ydoc_str(n)), name, x->rows,
                         x->rows == 1 ? "" : "s");
    if (st == REF_COL_RANGE)
        return diag_fail(&c->d, n, _("column %s is out of range in %s, %s has %d column%s"),
                         index_text(&r->idx[1], num, sizeof num), diag_quote(&c->d, ydoc_str(n)), name, x->cols,
                         x->cols == 1 ? "" : "s");
    return true;
}

/* Parse a reference scalar ("M[i]" or "M[i][j]") and check it against the
 * shapes; fills *r. `what` names the field, `form` shows the expected
 * spelling. */
static bool load_ref(Ctx *c, const yaml_node_t *n, const Attn *shape, const char *what, const char *form,
                     Ref *r)
{
    if (!want_text(c, n, what))
        return false;
    const char *s = ydoc_str(n);
    RefStatus st = ref_parse(s, r);
    if (ref_syntax_error(st) || r->n == 0)
        return diag_fail(&c->d, n, _("%s must be %s, found %s"), what, form, diag_quote(&c->d, s));
    if (ref_matrix(r) == REF_UNKNOWN)
        return diag_fail(&c->d, n, _("unknown matrix in %s, expected X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O"),
                         diag_quote(&c->d, s));
    if (st == REF_ZERO)
        return diag_fail(&c->d, n, _("indices start at 1, found %s"), diag_quote(&c->d, s));
    return check_ref(c, n, shape, r);
}

/* ---- text fields ---------------------------------------------------------- */

static const char *const lang_keys[] = {"zh", "en"};
static const Lang lang_ids[] = {LANG_ZH, LANG_EN};

/* Read a text field: a plain string (kept as the English slot, which
 * text_get() falls back on), or a mapping {zh: ..., en: ...}. */
static bool load_text(Ctx *c, const yaml_node_t *n, const char *what, Text *t)
{
    if (!n)
        return true;
    if (n->type == YAML_SCALAR_NODE)
        return dup_text(c, n, what, &t->s[LANG_EN]);
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("%s must be text, or a mapping like {zh: ..., en: ...}"), what))
        return false;
    char where[40];
    snprintf(where, sizeof where, _(" in %s"), what);
    Keys ks = {lang_keys, 2, _("language"), where};
    yaml_node_t *val[2] = {0}, *key[2] = {0};
    if (!read_keys(c, n, &ks, val, key))
        return false;
    if (!val[0] && !val[1])
        return diag_fail(&c->d, n, _("%s is empty, write it as text or as {zh: ..., en: ...}"), what);
    for (int k = 0; k < 2; k++)
        if (val[k] && !dup_text(c, val[k], what, &t->s[lang_ids[k]]))
            return false;
    return true;
}

/* ---- tokens and matrices -------------------------------------------------- */

/* One token: non-empty text of at most MAX_TOKEN_BYTES bytes. */
static bool load_token(Ctx *c, const yaml_node_t *n, int k, char **out)
{
    char what[32];
    snprintf(what, sizeof what, _("token %d"), k + 1);
    if (!want_text(c, n, what))
        return false;
    size_t len = n->data.scalar.length;
    if (len == 0)
        return diag_fail(&c->d, n, _("token %d is empty, every token needs some text"), k + 1);
    if (len > MAX_TOKEN_BYTES)
        return diag_fail(&c->d, n, _("token %d is longer than %d bytes (it has %zu), shorten it"), k + 1,
                         MAX_TOKEN_BYTES, len);
    return dup_text(c, n, what, out);
}

/* tokens: a list of 1..MAT_MAX tokens; numbers count as their text. */
static bool load_tokens(Ctx *c, const yaml_node_t *n, Lesson *l)
{
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("tokens must be a list like [I, love, cats]")))
        return false;
    int cnt = ydoc_seq_len(n);
    if (cnt == 0)
        return diag_fail(&c->d, n, _("tokens is empty, a lesson needs 1 to %d tokens"), MAT_MAX);
    if (cnt > MAT_MAX)
        return diag_fail(&c->d, n, _("%d tokens, at most %d are allowed"), cnt, MAT_MAX);
    l->tokens = calloc((size_t)cnt, sizeof *l->tokens);
    if (!l->tokens)
        return diag_oom(&c->d, n);
    l->ntok = cnt;
    for (int k = 0; k < cnt; k++)
        if (!load_token(c, ydoc_seq_item(c->doc, n, k), k, &l->tokens[k]))
            return false;
    return true;
}

/* How the width of a matrix's rows is decided, for messages. */
typedef struct {
    const char *name;    /* "X", "Wq" */
    const char *width;   /* "d_model", "d_k", "d_v" */
    int cols;            /* required width, or 0: row 1 decides */
    const char *why;     /* why cols is required, e.g. ", the width of Wq" */
} RowRule;

/* Check that row k is a list whose length follows the rule; *cols is set
 * from row 1 when the rule leaves it open. */
static bool check_row(Ctx *c, const yaml_node_t *rows, int k, const RowRule *r, int *cols)
{
    const yaml_node_t *row = ydoc_seq_item(c->doc, rows, k), *first = ydoc_seq_item(c->doc, rows, 0);
    char hint[128];
    if (!diag_want(&c->d, row, YAML_SEQUENCE_NODE, _("%s row %d must be a list of numbers like [0.5, -1]"),
                   r->name, k + 1) || !check_lookalikes(c, row))
        return false;
    int len = ydoc_seq_len(row);
    if (r->cols > 0 && len != r->cols)
        return row_length_fail(c, row, _("%s row %d has %d number%s; every row needs %s = %d%s"), r->name, k + 1,
                               len, len == 1 ? "" : "s", r->width, r->cols, r->why);
    if (k == 0 && len == 0)
        return diag_fail(&c->d, row, _("%s row 1 is empty, %s must be 1 to %d"), r->name, r->width, MAT_MAX);
    if (k == 0 && len > MAT_MAX)
        return diag_fail(&c->d, row, _("%s row 1 has %d numbers, at most %d are allowed (%s <= %d)"), r->name,
                         len, MAT_MAX, r->width, MAT_MAX);
    if (k == 0)
        *cols = len;
    else if (len != *cols && !decimal_comma(c, row, hint, sizeof hint) && decimal_comma(c, first, hint, sizeof hint))
        /* row 1 decided the width, and its decimal comma is the mistake */
        return diag_fail(&c->d, decimal_comma(c, first, hint, sizeof hint),
                         _("%s row 1 has %d numbers and row %d has %d%s"), r->name, *cols, k + 1, len, hint);
    else if (len != *cols)
        return row_length_fail(c, row, _("%s row %d has %d number%s, row 1 has %d; every row needs %s = %d"),
                               r->name, k + 1, len, len == 1 ? "" : "s", *cols, r->width, *cols);
    return true;
}

/* Read a list of rows of numbers (its row count already checked) into m. */
static bool read_rows(Ctx *c, const yaml_node_t *n, const RowRule *r, Mat *m)
{
    int rows = ydoc_seq_len(n), cols = r->cols;
    for (int k = 0; k < rows; k++)
        if (!check_row(c, n, k, r, &cols))
            return false;
    if (!mat_new(m, rows, cols))
        return diag_oom(&c->d, n);
    for (int k = 0; k < rows; k++) {
        const yaml_node_t *row = ydoc_seq_item(c->doc, n, k);
        for (int j = 0; j < cols; j++)
            if (!parse_num(c, ydoc_seq_item(c->doc, row, j), &MAT_AT(m, k, j), NULL))
                return false;
    }
    return true;
}

/* X: one row per token, each d_model numbers; row 1 decides d_model. */
static bool load_x(Ctx *c, const yaml_node_t *n, Lesson *l)
{
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE,
                   _("X must be a list of rows, one per token, like [[1, 0], [0, 1]]")))
        return false;
    int rows = ydoc_seq_len(n);
    if (rows != l->ntok)
        return diag_fail(&c->d, n, _("X has %d row%s but there %s %d token%s; X needs one row per token"), rows,
                         rows == 1 ? "" : "s", l->ntok == 1 ? "is" : "are", l->ntok, l->ntok == 1 ? "" : "s");
    RowRule r = {"X", "d_model", 0, ""};
    if (!read_rows(c, n, &r, &l->X))
        return false;
    l->d_model = l->X.cols;
    return true;
}

/* ---- weights ---------------------------------------------------------------- */

enum { W_RANDOM, W_Q, W_K, W_V, W_N };
static const char *const weight_keys[W_N] = {"random", "Wq", "Wk", "Wv"};
enum { R_SEED, R_SCALE, R_DK, R_DV, R_N };
static const char *const random_keys[R_N] = {"seed", "scale", "d_k", "d_v"};

/* Draw the weights like numpy's legacy seed(s); randn(...) * scale, in
 * the order Wq, Wk, Wv. */
static bool draw_weights(Ctx *c, const yaml_node_t *n, Lesson *l)
{
    if (!mat_new(&l->Wq, l->d_model, l->d_k) || !mat_new(&l->Wk, l->d_model, l->d_k) ||
        !mat_new(&l->Wv, l->d_model, l->d_v))
        return diag_oom(&c->d, n);
    Rng rng;
    rng_seed(&rng, (uint32_t)l->seed);
    rng_randn(&rng, &l->Wq, l->rscale);
    rng_randn(&rng, &l->Wk, l->rscale);
    rng_randn(&rng, &l->Wv, l->rscale);
    l->random = true;
    return true;
}

/* weights: random: {seed, scale, d_k, d_v}; seed and d_k are required,
 * scale defaults to 1 and d_v to d_k. */
static bool load_random(Ctx *c, const yaml_node_t *key_node, const yaml_node_t *n, Lesson *l)
{
    const char *ex = "random: {seed: 42, scale: 0.3, d_k: 3}";
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("random must be a mapping like {seed: 42, scale: 0.3, d_k: 3}")))
        return false;
    Keys ks = {random_keys, R_N, _("key"), _(" in random")};
    yaml_node_t *val[R_N] = {0}, *key[R_N] = {0};
    unsigned long long seed;
    if (!read_keys(c, n, &ks, val, key))
        return false;
    if (!val[R_SEED] || !val[R_DK])
        return diag_fail(&c->d, key_node, _("random is missing %s, write e.g. %s"), val[R_SEED] ? "d_k" : "seed",
                         ex);
    if (!parse_uint(val[R_SEED], 4294967295ULL, &seed))
        return diag_fail(&c->d, val[R_SEED], _("seed must be a whole number from 0 to 4294967295, found %s"),
                         diag_found(&c->d, val[R_SEED]));
    l->seed = (unsigned long)seed;
    l->rscale = 1.0;
    if (val[R_SCALE] && !parse_num(c, val[R_SCALE], &l->rscale, NULL))
        return false;
    if (!parse_size(c, val[R_DK], "d_k", &l->d_k))
        return false;
    l->d_v = l->d_k;
    if (val[R_DV] && !parse_size(c, val[R_DV], "d_v", &l->d_v))
        return false;
    return draw_weights(c, n, l);
}

/* Read one written-out weight matrix: d_model rows; Wk must match Wq. */
static bool load_w(Ctx *c, const yaml_node_t *n, int id, const Lesson *l, Mat *m)
{
    const char *name = weight_keys[id];
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("%s must be a list of d_model = %d rows"), name, l->d_model))
        return false;
    int rows = ydoc_seq_len(n);
    if (rows != l->d_model)
        return diag_fail(&c->d, n, _("%s must have d_model = %d rows, one per X column; it has %d"), name,
                         l->d_model,
                         rows);
    RowRule r = {name, id == W_V ? "d_v" : "d_k", id == W_K ? l->Wq.cols : 0,
                 id == W_K ? _(", the width of Wq") : ""};
    return read_rows(c, n, &r, m);
}

/* weights: either random: or all of Wq, Wk, Wv written out, never both. */
static bool load_weights(Ctx *c, const yaml_node_t *key_node, const yaml_node_t *n, Lesson *l)
{
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("weights must be a mapping: random: {seed, scale, d_k}, "
                                                  "or Wq, Wk and Wv written out")))
        return false;
    Keys ks = {weight_keys, W_N, _("key"), _(" in weights")};
    yaml_node_t *val[W_N] = {0}, *key[W_N] = {0};
    if (!read_keys(c, n, &ks, val, key))
        return false;
    if (val[W_RANDOM]) {
        if (val[W_Q] || val[W_K] || val[W_V])
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
    l->d_k = l->Wq.cols;
    l->d_v = l->Wv.cols;
    return true;
}

/* ---- overrides and options ------------------------------------------------------ */

/* One override "Q[i]": [..]: a row of Q, K or V set by hand. */
static bool load_override(Ctx *c, const yaml_node_t *k, const yaml_node_t *v, Lesson *l)
{
    Ref r;
    char num[32];
    if (!want_text(c, k, _("an overrides key")))
        return false;
    const char *s = ydoc_str(k);
    if (ref_parse(s, &r) != REF_OK || ref_matrix(&r) != REF_OK || r.mat < M_Q || r.mat > M_V || r.n != 1)
        return diag_fail(&c->d, k, _("overrides set rows of Q, K or V like \"Q[1]\", found %s"),
                         diag_quote(&c->d, s));
    MatId m = r.mat;
    int i = ref_row(&r);
    if (i >= l->ntok)
        return diag_fail(&c->d, k, _("row %s is out of range in %s, %s has %d row%s (one per token)"),
                         index_text(&r.idx[0], num, sizeof num), diag_quote(&c->d, s), attn_mat_name(m), l->ntok,
                         l->ntok == 1 ? "" : "s");
    if (l->override[m - M_Q][i])
        return diag_fail(&c->d, k, _("%s is given twice in overrides"), diag_quote(&c->d, s));
    Mat *o = &l->over[m - M_Q];
    const char *width = m == M_V ? "d_v" : "d_k";
    if (!diag_want(&c->d, v, YAML_SEQUENCE_NODE, _("%s must be a row of %d numbers"), ydoc_str(k), o->cols) ||
        !check_lookalikes(c, v))
        return false;
    if (ydoc_seq_len(v) != o->cols)
        return row_length_fail(c, v, _("%s needs %s = %d numbers, it has %d"), ydoc_str(k), width, o->cols,
                               ydoc_seq_len(v));
    for (int col = 0; col < o->cols; col++)
        if (!parse_num(c, ydoc_seq_item(c->doc, v, col), &MAT_AT(o, i, col), NULL))
            return false;
    l->override[m - M_Q][i] = true;
    return true;
}

/* overrides: (optional) hand-set rows. The override matrices are always
 * allocated, ntok x d_k / d_k / d_v, so lesson_base() can rely on them. */
static bool load_overrides(Ctx *c, const yaml_node_t *root, const yaml_node_t *n, Lesson *l)
{
    if (!mat_new(&l->over[0], l->ntok, l->d_k) || !mat_new(&l->over[1], l->ntok, l->d_k) ||
        !mat_new(&l->over[2], l->ntok, l->d_v))
        return diag_oom(&c->d, root);
    if (!n)
        return true;
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE,
                   _("overrides must be a mapping like {\"Q[1]\": [0.3, -2.8, -2.5]}")))
        return false;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
        if (!load_override(c, ydoc_node(c->doc, p->key), ydoc_node(c->doc, p->value), l))
            return false;
    return true;
}

/* Match a scalar against two words; *out = 0 or 1. */
static bool load_choice(Ctx *c, const yaml_node_t *n, const char *name, const char *a, const char *b,
                        int *out)
{
    if (n->type == YAML_SCALAR_NODE && strcmp(ydoc_str(n), a) == 0)
        *out = 0;
    else if (n->type == YAML_SCALAR_NODE && strcmp(ydoc_str(n), b) == 0)
        *out = 1;
    else
        return diag_fail(&c->d, n, _("%s must be %s or %s, found %s"), name, a, b, diag_found(&c->d, n));
    return true;
}

enum { O_SCALE, O_SOFTMAX, O_DIGITS, O_N };
static const char *const option_keys[O_N] = {"scale", "softmax", "digits"};

/* options: scale, softmax and digits, with their defaults when absent. */
static bool load_options(Ctx *c, const yaml_node_t *n, Lesson *l)
{
    int scale = SCALE_SQRT_DK, softmax = SOFTMAX_STABLE;
    unsigned long long digits = 3;
    yaml_node_t *val[O_N] = {0}, *key[O_N] = {0};
    Keys ks = {option_keys, O_N, _("key"), _(" in options")};
    if (n && (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("options must be a mapping like {scale: none, softmax: "
                                                        "naive, digits: 3}")) || !read_keys(c, n, &ks, val, key)))
        return false;
    if (val[O_SCALE] && !load_choice(c, val[O_SCALE], "scale", "none", "sqrt_dk", &scale))
        return false;
    if (val[O_SOFTMAX] && !load_choice(c, val[O_SOFTMAX], "softmax", "naive", "stable", &softmax))
        return false;
    if (val[O_DIGITS] && (!parse_uint(val[O_DIGITS], 6, &digits) || digits < 1))
        return diag_fail(&c->d, val[O_DIGITS], _("digits must be a whole number from 1 to 6, found %s"),
                         diag_found(&c->d, val[O_DIGITS]));
    l->scale = (Scale)scale;
    l->softmax = (Softmax)softmax;
    l->digits = (int)digits;
    return true;
}

/* ---- steps ------------------------------------------------------------------- */

static const char *const stage_names[] = {"input", "qkv", "scores", "softmax", "output"};

/* stage: a name (input..output) or a number 1..5. */
static bool load_stage(Ctx *c, const yaml_node_t *n, Step *st)
{
    unsigned long long v;
    if (!want_text(c, n, "stage"))
        return false;
    if (parse_uint(n, 1000000, &v)) {
        if (v < 1 || v > 5)
            return diag_fail(&c->d, n, _("stage %llu is out of range, expected 1 to 5 or "
                                         "input, qkv, scores, softmax or output"), v);
        st->stage = (int)v;
        return true;
    }
    for (int k = 0; k < 5; k++)
        if (strcmp(ydoc_str(n), stage_names[k]) == 0) {
            st->stage = k + 1;
            return true;
        }
    const char *s = diag_suggest(ydoc_str(n), stage_names, 5);
    if (s)
        return diag_fail(&c->d, n, _("unknown stage %s (did you mean \"%s\"?), expected "
                                     "input, qkv, scores, softmax or output"), diag_quote(&c->d, ydoc_str(n)), s);
    return diag_fail(&c->d, n, _("unknown stage %s, expected input, qkv, scores, softmax or output"),
                     diag_quote(&c->d, ydoc_str(n)));
}

/* focus: a row "Q[1]" or a cell "S[1][2]" inside the lesson's shapes. */
static bool load_focus(Ctx *c, const yaml_node_t *n, const Attn *shape, Step *st)
{
    Focus *f = &st->focus;
    Ref r;
    if (!load_ref(c, n, shape, "focus", _("a row like \"Q[1]\" or a cell like \"S[1][2]\""), &r))
        return false;
    int need = attn_mat_stage(r.mat);
    if (need > st->stage)
        return diag_fail(&c->d, n, _("%s is computed at stage %s, this step shows stage %s; focus on it at a "
                                     "later step"), attn_mat_name(r.mat), stage_names[need - 1],
                         stage_names[st->stage - 1]);
    f->mat = r.mat;
    f->i = ref_row(&r);
    f->j = ref_col(&r);
    f->kind = f->j < 0 ? FOCUS_ROW : FOCUS_CELL;
    if (f->j < 0)
        f->j = 0;
    return true;
}

/* Parse one `do:` action and check its indices on a scratch state; st->act
 * has room for it (load_do sized it to what was written). */
static bool load_action(Ctx *c, const yaml_node_t *n, Attn *scratch, Step *st)
{
    char e[LESSON_ERR_MAX];
    int errcol = 0;
    if (!want_text(c, n, _("an action")))
        return false;
    Action *a = &st->act[st->nact];
    if (!action_parse(ydoc_str(n), a, e, sizeof e, &errcol))
        return diag_fail_at(&c->d, n->start_mark.line, scalar_col(n, errcol > 0 ? (size_t)errcol - 1 : 0),
                            "%s", e);
    if (a->kind != ACT_RESET && !action_apply(scratch, a, e, sizeof e))
        return diag_fail(&c->d, n, "%s", e);
    st->act_text[st->nact] = strdup(ydoc_str(n));
    if (!st->act_text[st->nact])
        return diag_oom(&c->d, n);
    st->nact++;
    return true;
}

/* do: one action or a list of them, at most LESSON_MAX_ACTIONS. */
static bool load_do(Ctx *c, const yaml_node_t *n, Attn *scratch, Step *st)
{
    if (n->type != YAML_SCALAR_NODE &&
        !diag_want(&c->d, n, YAML_SEQUENCE_NODE,
                   _("do must be an action like \"Q[1] = K[1] * 5\", or a list of them")))
        return false;
    int cnt = n->type == YAML_SCALAR_NODE ? 1 : ydoc_seq_len(n);
    if (cnt > LESSON_MAX_ACTIONS)
        return diag_fail(&c->d, n, _("%d actions, at most %d are allowed in one step"), cnt, LESSON_MAX_ACTIONS);
    /* Sized to what was written: an Action holds a whole row of values. */
    st->act = calloc((size_t)(cnt ? cnt : 1), sizeof *st->act);
    st->act_text = calloc((size_t)(cnt ? cnt : 1), sizeof *st->act_text);
    if (!st->act || !st->act_text)
        return diag_oom(&c->d, n);
    if (n->type == YAML_SCALAR_NODE)
        return load_action(c, n, scratch, st);
    for (int k = 0; k < ydoc_seq_len(n); k++)
        if (!load_action(c, ydoc_seq_item(c->doc, n, k), scratch, st))
            return false;
    return true;
}

/* Half a unit of the last written decimal: 0.873 -> 0.0005, 2 -> 0.5. */
static double tol_of(int decimals)
{
    return 0.5 * pow(10.0, -decimals);
}

/* The value of a row expectation: one number per column of the matrix. */
static bool load_expect_row(Ctx *c, const yaml_node_t *v, const Mat *x, Expect *e)
{
    const char *name = attn_mat_name(e->mat);
    if (!diag_want(&c->d, v, YAML_SEQUENCE_NODE, _("%s[%d] expects a list of %d numbers"), name, e->i + 1,
                   x->cols) || !check_lookalikes(c, v))
        return false;
    if (ydoc_seq_len(v) != x->cols)
        return row_length_fail(c, v, _("%s[%d] expects %d number%s, one per column of %s; this list has %d"),
                               name, e->i + 1, x->cols, x->cols == 1 ? "" : "s", name, ydoc_seq_len(v));
    e->n = x->cols;
    for (int k = 0; k < e->n; k++) {
        int dec;
        if (!parse_num(c, ydoc_seq_item(c->doc, v, k), &e->val[k], &dec))
            return false;
        e->tol[k] = tol_of(dec);
    }
    return true;
}

/* One expectation "M[i]": [..] or "M[i][j]": x, valid at the step's stage. */
static bool load_expect(Ctx *c, const yaml_node_t *k, const yaml_node_t *v, const Attn *shape,
                        const Step *st, Expect *e)
{
    Ref r;
    if (!load_ref(c, k, shape, _("an expect key"), _("a row like \"A[1]\" or a cell like \"A[1][2]\""), &r))
        return false;
    e->mat = r.mat;
    e->i = ref_row(&r);
    e->j = ref_col(&r);
    e->line = (int)k->start_mark.line + 1;
    e->col = (int)k->start_mark.column + 1;
    int need = attn_mat_stage(e->mat);
    if (need > st->stage)
        return diag_fail(&c->d, k,
                         _("%s is computed at stage %s, this step shows stage %s; expect it at a later step"),
                         attn_mat_name(e->mat), stage_names[need - 1], stage_names[st->stage - 1]);
    if (e->j < 0)
        return load_expect_row(c, v, &shape->m[e->mat], e);
    int dec;
    e->n = 1;
    if (!parse_num(c, v, &e->val[0], &dec))
        return false;
    e->tol[0] = tol_of(dec);
    return true;
}

/* expect: a mapping of references to values, at most LESSON_MAX_EXPECT. */
static bool load_expects(Ctx *c, const yaml_node_t *n, const Attn *shape, Step *st)
{
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE,
                   _("expect must be a mapping like {\"A[1]\": [0.873, 0.076, 0.052]}")))
        return false;
    int cnt = ydoc_map_len(n);
    if (cnt > LESSON_MAX_EXPECT)
        return diag_fail(&c->d, n, _("%d expectations, at most %d are allowed in one step"), cnt,
                         LESSON_MAX_EXPECT);
    st->expect = calloc((size_t)(cnt ? cnt : 1), sizeof *st->expect);
    if (!st->expect)
        return diag_oom(&c->d, n);
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    for (; st->nexpect < cnt; st->nexpect++, p++)
        if (!load_expect(c, ydoc_node(c->doc, p->key), ydoc_node(c->doc, p->value), shape, st,
                         &st->expect[st->nexpect]))
            return false;
    return true;
}

enum { S_STAGE, S_FOCUS, S_DO, S_SAY, S_EXPECT, S_N };
static const char *const step_keys[S_N] = {"stage", "focus", "do", "say", "expect"};

/* One step of the script; `scratch` is the base state used to check
 * indices (and accumulates the do: actions). */
static bool load_step(Ctx *c, const yaml_node_t *n, int no, Attn *scratch, Step *st)
{
    char where[32];
    snprintf(where, sizeof where, _(" in step %d"), no);
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("step %d must be a mapping like {stage: scores, say: ...}"), no))
        return false;
    Keys ks = {step_keys, S_N, _("key"), where};
    yaml_node_t *val[S_N] = {0}, *key[S_N] = {0};
    st->line = (int)n->start_mark.line + 1;
    if (!read_keys(c, n, &ks, val, key))
        return false;
    if (!val[S_STAGE])
        return diag_fail(&c->d, n, _("step %d has no stage, expected stage: "
                                     "input, qkv, scores, softmax or output"), no);
    return load_stage(c, val[S_STAGE], st)
        && (!val[S_FOCUS] || load_focus(c, val[S_FOCUS], scratch, st))
        && (!val[S_DO] || load_do(c, val[S_DO], scratch, st))
        && load_text(c, val[S_SAY], "say", &st->say)
        && (!val[S_EXPECT] || load_expects(c, val[S_EXPECT], scratch, st));
}

/* Without a script, one silent step per stage. */
static bool default_steps(Ctx *c, const yaml_node_t *root, Lesson *l)
{
    l->steps = calloc(STAGE_COUNT, sizeof *l->steps);
    if (!l->steps)
        return diag_oom(&c->d, root);
    l->nsteps = STAGE_COUNT;
    for (int k = 0; k < STAGE_COUNT; k++) {
        l->steps[k].stage = k + 1;
        l->steps[k].line = (int)root->start_mark.line + 1;
    }
    l->steps_given = false;
    return true;
}

/* steps: the script, or one step per stage when it is absent. */
static bool load_steps(Ctx *c, const yaml_node_t *root, const yaml_node_t *n, Lesson *l)
{
    if (!n)
        return default_steps(c, root, l);
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE,
                   _("steps must be a list of steps like - {stage: scores, say: ...}")))
        return false;
    int cnt = ydoc_seq_len(n);
    if (cnt == 0)
        return diag_fail(&c->d, n,
                         _("steps is empty; write at least one step, or leave steps out for one per stage"));
    if (cnt > LESSON_MAX_STEPS)
        return diag_fail(&c->d, n, _("%d steps, at most %d are allowed"), cnt, LESSON_MAX_STEPS);
    Attn scratch;
    if (!lesson_base(l, &scratch))
        return diag_oom(&c->d, n);
    l->steps = calloc((size_t)cnt, sizeof *l->steps);
    bool ok = l->steps != NULL || diag_oom(&c->d, n);
    if (ok)
        l->nsteps = cnt;
    for (int k = 0; ok && k < cnt; k++)
        ok = load_step(c, ydoc_seq_item(c->doc, n, k), k + 1, &scratch, &l->steps[k]);
    attn_free(&scratch);
    l->steps_given = true;
    return ok;
}

/* start: the 1-based step the view opens at. */
static bool load_start(Ctx *c, const yaml_node_t *n, Lesson *l)
{
    unsigned long long v;
    if (!n)
        return true;
    if (!parse_uint(n, 1000000, &v) || v < 1 || v > (unsigned long long)l->nsteps)
        return diag_fail(&c->d, n, _("start must be a step number from 1 to %d, found %s"), l->nsteps,
                         diag_found(&c->d, n));
    l->start = (int)v;
    return true;
}

/* ---- the top level --------------------------------------------------------------- */

enum { T_FORMAT, T_TITLE, T_ABOUT, T_TOKENS, T_X, T_WEIGHTS, T_OVERRIDES, T_OPTIONS, T_START, T_STEPS, T_N };
static const char *const top_keys[T_N] = {"format", "title", "about", "tokens", "X", "weights",
                                          "overrides", "options", "start", "steps"};

static bool load_format(Ctx *c, const yaml_node_t *n)
{
    if (n->type == YAML_SCALAR_NODE && strcmp(ydoc_str(n), FORMAT_ID) == 0)
        return true;
    return diag_fail(&c->d, n, _("format must be \"%s\", found %s"), FORMAT_ID, diag_found(&c->d, n));
}

/* Refuse a lesson without format, tokens, X or weights. */
static bool check_required(Ctx *c, const yaml_node_t *root, yaml_node_t **val)
{
    static const int req[] = {T_FORMAT, T_TOKENS, T_X, T_WEIGHTS};
    for (size_t k = 0; k < sizeof req / sizeof *req; k++)
        if (!val[req[k]])
            return diag_fail(&c->d, root,
                             _("missing key \"%s\", a lesson needs at least format, tokens, X and weights"),
                             top_keys[req[k]]);
    return true;
}

/* The top-level mapping: keys first, then each value in dependency order
 * (tokens before X, X before the weights, shapes before the steps). */
static bool load_root(Ctx *c, const yaml_node_t *root, Lesson *l)
{
    if (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0)
        return diag_fail_at(&c->d, 0, 0, _("the file is empty, "
                                           "a lesson needs at least format, tokens, X and weights"));
    if (!diag_want(&c->d, root, YAML_MAPPING_NODE,
                   _("the top level must be a mapping of keys like format:, tokens:, X:")))
        return false;
    Keys ks = {top_keys, T_N, _("key"), ""};
    yaml_node_t *v[T_N] = {0}, *k[T_N] = {0};
    if (!read_keys(c, root, &ks, v, k) || !check_required(c, root, v))
        return false;
    return load_format(c, v[T_FORMAT])
        && load_text(c, v[T_TITLE], "title", &l->title)
        && load_text(c, v[T_ABOUT], "about", &l->about)
        && load_tokens(c, v[T_TOKENS], l)
        && load_x(c, v[T_X], l)
        && load_weights(c, k[T_WEIGHTS], v[T_WEIGHTS], l)
        && load_overrides(c, root, v[T_OVERRIDES], l)
        && load_options(c, v[T_OPTIONS], l)
        && load_steps(c, root, v[T_STEPS], l)
        && load_start(c, v[T_START], l);
}

/* Build the lesson from a parsed document into *l. */
static bool walk(Ctx *c, Lesson *l)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (!root)
        return diag_fail_at(&c->d, 0, 0, _("the file is empty, "
                                           "a lesson needs at least format, tokens, X and weights"));
    l->file = strdup(c->d.file);
    if (!l->file)
        return diag_oom(&c->d, root);
    return load_root(c, root, l);
}

bool lesson_load_buffer(const char *file, const char *buf, size_t len,
                        Lesson *out, char *err, size_t errlen)
{
    Ctx c = {.d = {.file = file ? file : _("(lesson)"), .err = err, .errlen = errlen}};
    yaml_document_t doc;
    memset(out, 0, sizeof *out);
    if (errlen)
        err[0] = '\0';
    if (len > LESSON_MAX_BYTES) {
        snprintf(err, errlen, _("%s: cannot read: too big (%zu bytes), a lesson has at most %d bytes"),
                 c.d.file, len, LESSON_MAX_BYTES);
        return false;
    }
    if (!ydoc_read(&c.d, buf, len, &doc))
        return false;
    c.doc = &doc;
    Lesson l = {0};
    bool ok = walk(&c, &l);
    yaml_document_delete(&doc);
    if (!ok) {
        lesson_free(&l);
        return false;
    }
    *out = l;
    return true;
}

/* Read up to LESSON_MAX_BYTES + 1 bytes of f into a malloc'd buffer. */
static char *read_all(FILE *f, size_t *len)
{
    char *buf = malloc(LESSON_MAX_BYTES + 1);
    if (!buf)
        return NULL;
    *len = fread(buf, 1, LESSON_MAX_BYTES + 1, f);
    if (ferror(f)) {
        int e = errno;
        free(buf);
        errno = e ? e : EIO;
        return NULL;
    }
    return buf;
}

bool lesson_load_file(const char *path, Lesson *out, char *err, size_t errlen)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, _("%s: cannot read: %s"), path, strerror(errno));
        return false;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > LESSON_MAX_BYTES) {
        snprintf(err, errlen, _("%s: cannot read: too big (%lld bytes), a lesson has at most %d bytes"), path,
                 (long long)st.st_size, LESSON_MAX_BYTES);
        fclose(f);
        return false;
    }
    size_t len = 0;
    errno = 0;
    char *buf = read_all(f, &len);
    int e = errno;
    fclose(f);
    if (!buf) {
        snprintf(err, errlen, _("%s: cannot read: %s"), path, strerror(e ? e : ENOMEM));
        return false;
    }
    bool ok = lesson_load_buffer(path, buf, len, out, err, errlen);
    free(buf);
    return ok;
}
