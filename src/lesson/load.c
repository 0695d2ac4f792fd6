/* load.c - read a lesson file into a Lesson (see lesson.h).
 *
 * Loading reads the bytes once:
 *   1. libyaml's event stream is checked as it comes (aliases, anchors, more
 *      than one document and nesting deeper than MAX_DEPTH are refused, and
 *      libyaml's syntax errors become "FILE:LINE:COL: ..." messages) while
 *      the node tree is built with libyaml's document API, marks included;
 *   2. a walker that only descends into the shapes a lesson has (so it
 *      never recurses on its own) fills a Lesson, checking every size,
 *      index and number against the lesson's shapes.
 * Any error frees everything: the caller gets a complete lesson or one line. */
#include "lesson.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <yaml.h>

#include "../core/rng.h"
#include "i18n.h"
#include "template.h"

#define MAX_DEPTH 8          /* a lesson needs 5: top, steps, step, expect, row */
#define MAX_TOKEN_BYTES 32
#define FORMAT_ID "qkvtutor/1"

#ifdef __GNUC__
#define PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF(f, a)
#endif

typedef struct {
    const char *file;
    yaml_document_t *doc;
    char *err;
    size_t errlen;
    char quoted[2][200];     /* user text made safe for messages */
    int qi;
} Ctx;

/* The keys valid in one mapping, for lookup and for "did you mean". */
typedef struct {
    const char *const *names;
    int n;
    const char *noun;        /* "key" or "language" */
    const char *where;       /* "" at the top, " in options" deeper */
} Keys;

/* ---- messages ------------------------------------------------------------ */

/* Write "FILE:LINE:COL: message" (line and col 0-based, printed 1-based). */
static bool vfail_at(Ctx *c, size_t line, size_t col, const char *fmt, va_list ap)
{
    if (c->errlen == 0)
        return false;
    int n = snprintf(c->err, c->errlen, "%s:%zu:%zu: ", c->file, line + 1, col + 1);
    if (n >= 0 && (size_t)n < c->errlen)
        vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    return false;
}

PRINTF(4, 5)
static bool fail_at(Ctx *c, size_t line, size_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(c, line, col, fmt, ap);
    va_end(ap);
    return false;
}

PRINTF(3, 4)
static bool fail(Ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail_at(c, n->start_mark.line, n->start_mark.column, fmt, ap);
    va_end(ap);
    return false;
}

static bool oom(Ctx *c, const yaml_node_t *n)
{
    return fail(c, n, _("out of memory while loading the lesson"));
}

/* Quote user text for a message: sanitised (no control characters reach
 * the terminal), cut after 40 bytes. Two buffers rotate, so one message
 * may quote twice. */
static const char *q(Ctx *c, const char *s)
{
    char cut[48];
    size_t n = strlen(s);
    bool longer = n > 40;
    if (longer) {
        n = 40;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(cut, s, n);
    cut[n] = '\0';
    char *out = c->quoted[c->qi];
    c->qi ^= 1;
    out[0] = '"';
    text_sanitize(cut, out + 1, sizeof c->quoted[0] - 8, false);
    strcat(out, longer ? "...\"" : "\"");
    return out;
}

/* Describe a node for "found ..." in a message. */
static const char *found(Ctx *c, const yaml_node_t *n)
{
    if (n->type == YAML_MAPPING_NODE)
        return _("a mapping");
    if (n->type == YAML_SEQUENCE_NODE)
        return _("a list");
    if (n->data.scalar.length == 0)
        return _("nothing");
    return q(c, (const char *)n->data.scalar.value);
}

/* Require node type t; otherwise fail with "<fmt...>, found <what it is>". */
PRINTF(4, 5)
static bool want(Ctx *c, const yaml_node_t *n, yaml_node_type_t t, const char *fmt, ...)
{
    if (n->type == t)
        return true;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(c, n, _("%s, found %s"), what, found(c, n));
}

/* Write names as "a, b, c or d" into buf. */
static const char *join_or(const char *const *names, int n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && o < len; k++) {
        const char *sep = k == 0 ? "" : k == n - 1 ? _(" or ") : _(", ");
        o += (size_t)snprintf(buf + o, len - o, "%s%s", sep, names[k]);
    }
    return buf;
}

/* Levenshtein distance of two short strings (longer ones count as far). */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32)
        return 99;
    int row[33];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The closest name within two edits (and closer than its own length);
 * a name differing only in case ("x" for "X") always matches. */
static const char *suggest(const char *word, const char *const *names, int n)
{
    const char *best = NULL;
    int bd = 3;
    for (int k = 0; k < n; k++) {
        if (strcasecmp(word, names[k]) == 0)
            return names[k];
        int d = edit_distance(word, names[k]);
        if (d < bd && d < (int)strlen(names[k])) {
            bd = d;
            best = names[k];
        }
    }
    return best;
}

/* ---- scalars ------------------------------------------------------------- */

static const char *sval(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* Require a scalar that is valid UTF-8 without NUL; `what` says what it is. */
static bool want_text(Ctx *c, const yaml_node_t *n, const char *what)
{
    if (!want(c, n, YAML_SCALAR_NODE, _("%s must be text"), what))
        return false;
    size_t len = n->data.scalar.length;
    if (!text_utf8_valid(sval(n), len))
        return fail(c, n, _("invalid UTF-8 in %s, lessons must be UTF-8 text"), what);
    if (strlen(sval(n)) != len)
        return fail(c, n, _("%s contains a NUL character (\\0), which a lesson cannot hold"), what);
    return true;
}

/* Copy a text scalar into *out (malloc'd). */
static bool dup_text(Ctx *c, const yaml_node_t *n, const char *what, char **out)
{
    if (!want_text(c, n, what))
        return false;
    *out = strdup(sval(n));
    return *out ? true : oom(c, n);
}

/* Check the syntax of a decimal number ([+-]digits[.digits][e[+-]digits])
 * and count the decimals it was written with, minus its exponent. */
static bool num_syntax(const char *s, int *decimals)
{
    int digits = 0, dec = 0;
    if (*s == '+' || *s == '-')
        s++;
    for (; isdigit((unsigned char)*s); s++)
        digits++;
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++, dec++)
            digits++;
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        int sign = 1, e = 0;
        s++;
        if (*s == '+' || *s == '-')
            sign = *s++ == '-' ? -1 : 1;
        if (!isdigit((unsigned char)*s))
            return false;
        for (; isdigit((unsigned char)*s); s++)
            e = e < 10000 ? e * 10 + (*s - '0') : e;
        dec -= sign * e;
    }
    *decimals = dec < -400 ? -400 : dec > 400 ? 400 : dec;
    return *s == '\0';
}

/* Is s a YAML or C spelling of infinity or NaN? */
static bool nonfinite_word(const char *s)
{
    static const char *const words[] = {".inf", "inf", "infinity", ".nan", "nan"};
    if (*s == '+' || *s == '-')
        s++;
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (strcasecmp(s, words[k]) == 0)
            return true;
    return false;
}

/* Parse a finite number from a scalar; *decimals (may be NULL) receives
 * the decimals written, for expect tolerances. */
static bool parse_num(Ctx *c, const yaml_node_t *n, double *v, int *decimals)
{
    int dec;
    if (!want(c, n, YAML_SCALAR_NODE, _("expected a number")))
        return false;
    const char *s = sval(n);
    if (nonfinite_word(s))
        return fail(c, n, _("%s is not allowed, numbers must be finite"), q(c, s));
    if (!num_syntax(s, &dec))
        return fail(c, n, _("%s is not a number, expected a decimal like 0.5 or -1.2e-3"), q(c, s));
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (*end != '\0')
        return fail(c, n, _("%s is not a number, expected a decimal like 0.5 or -1.2e-3"), q(c, s));
    if (!isfinite(*v))
        return fail(c, n, _("%s is too large, numbers must be finite"), q(c, s));
    if (decimals)
        *decimals = dec;
    return true;
}

/* Parse a whole number 0..max written as plain digits. No message. */
static bool parse_uint(const yaml_node_t *n, unsigned long long max, unsigned long long *out)
{
    if (n->type != YAML_SCALAR_NODE)
        return false;
    const char *s = sval(n);
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
        return fail(c, n, _("%s is %llu, at most %d are allowed"), name, v, MAT_MAX);
    if (!parse_uint(n, MAT_MAX, &v) || v < 1)
        return fail(c, n, _("%s must be a whole number from 1 to %d, found %s"), name, MAT_MAX, found(c, n));
    *out = (int)v;
    return true;
}

/* ---- nodes and keys ------------------------------------------------------ */

static yaml_node_t *node_at(Ctx *c, int idx)
{
    return yaml_document_get_node(c->doc, idx);
}

static int seq_len(const yaml_node_t *n)
{
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_item(Ctx *c, const yaml_node_t *n, int k)
{
    return node_at(c, n->data.sequence.items.start[k]);
}

static int map_len(const yaml_node_t *n)
{
    return (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

/* Refuse a key that is not among ks, suggesting the closest valid one. */
static bool unknown_key(Ctx *c, const yaml_node_t *k, const Keys *ks)
{
    const char *name = sval(k), *s = suggest(name, ks->names, ks->n);
    if (s)
        return fail(c, k, _("unknown %s %s%s (did you mean \"%s\"?)"), ks->noun, q(c, name), ks->where, s);
    char list[256];
    return fail(c, k, _("unknown %s %s%s, expected %s"), ks->noun, q(c, name), ks->where,
                join_or(ks->names, ks->n, list, sizeof list));
}

/* Read a mapping's pairs into val[] and key[] (indexed like ks->names),
 * refusing keys that are not text, unknown keys and duplicates. */
static bool read_keys(Ctx *c, const yaml_node_t *map, const Keys *ks, yaml_node_t **val, yaml_node_t **key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(c, p->key);
        if (!want(c, k, YAML_SCALAR_NODE, _("keys must be names like %s"), ks->names[0]))
            return false;
        int id = 0;
        while (id < ks->n && strcmp(sval(k), ks->names[id]) != 0)
            id++;
        if (id == ks->n)
            return unknown_key(c, k, ks);
        if (key[id])
            return fail(c, k, _("%s is given twice, the first is at line %zu"), q(c, sval(k)),
                        key[id]->start_mark.line + 1);
        key[id] = k;
        val[id] = node_at(c, p->value);
    }
    return true;
}

typedef enum { REF_OK, REF_SYNTAX, REF_NAME, REF_ZERO } RefStatus;

/* Parse one "[n]" with optional spaces; *v is the number as written. */
static bool parse_index(const char **sp, long *v)
{
    const char *s = *sp;
    while (*s == ' ')
        s++;
    if (*s++ != '[')
        return false;
    while (*s == ' ')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    for (*v = 0; isdigit((unsigned char)*s); s++)
        *v = *v < 100000 ? *v * 10 + (*s - '0') : *v;
    while (*s == ' ')
        s++;
    if (*s++ != ']')
        return false;
    *sp = s;
    return true;
}

/* Parse "M[i]" or "M[i][j]" (1-based in the text) into 0-based indices;
 * *j = -1 for a row. */
static RefStatus parse_ref(const char *s, MatId *m, int *i, int *j)
{
    long i1, j1 = 0;
    bool cell = false;
    while (*s == ' ')
        s++;
    const char *name = s;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    int id = attn_mat_lookup(name, (int)(s - name));
    if (s == name || !parse_index(&s, &i1))
        return REF_SYNTAX;
    while (*s == ' ')
        s++;
    if (*s == '[') {
        cell = true;
        if (!parse_index(&s, &j1))
            return REF_SYNTAX;
    }
    while (*s == ' ')
        s++;
    if (*s != '\0')
        return REF_SYNTAX;
    if (id < 0)
        return REF_NAME;
    if (i1 == 0 || (cell && j1 == 0))
        return REF_ZERO;
    *m = (MatId)id;
    *i = (int)i1 - 1;
    *j = cell ? (int)j1 - 1 : -1;
    return REF_OK;
}

/* Check that row i (and column j when >= 0) exist in matrix m of `shape`. */
static bool check_ref(Ctx *c, const yaml_node_t *n, const Attn *shape, MatId m, int i, int j)
{
    const Mat *x = &shape->m[m];
    const char *name = attn_mat_name(m);
    if (i >= x->rows)
        return fail(c, n, _("row %d is out of range in %s, %s has %d row%s"), i + 1, q(c, sval(n)),
                    name, x->rows, x->rows == 1 ? "" : "s");
    if (j >= x->cols)
        return fail(c, n, _("column %d is out of range in %s, %s has %d column%s"), j + 1, q(c, sval(n)),
                    name, x->cols, x->cols == 1 ? "" : "s");
    return true;
}

/* Parse a reference scalar and check it against the shapes. `what` names
 * the field, `form` shows the expected spelling. */
static bool load_ref(Ctx *c, const yaml_node_t *n, const Attn *shape, const char *what, const char *form,
                     MatId *m, int *i, int *j)
{
    if (!want_text(c, n, what))
        return false;
    RefStatus r = parse_ref(sval(n), m, i, j);
    if (r == REF_NAME)
        return fail(c, n, _("unknown matrix in %s, expected X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O"),
                    q(c, sval(n)));
    if (r == REF_ZERO)
        return fail(c, n, _("indices start at 1, found %s"), q(c, sval(n)));
    if (r == REF_SYNTAX)
        return fail(c, n, _("%s must be %s, found %s"), what, form, q(c, sval(n)));
    return check_ref(c, n, shape, *m, *i, *j);
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
    if (!want(c, n, YAML_MAPPING_NODE, _("%s must be text, or a mapping like {zh: ..., en: ...}"), what))
        return false;
    char where[40];
    snprintf(where, sizeof where, _(" in %s"), what);
    Keys ks = {lang_keys, 2, _("language"), where};
    yaml_node_t *val[2] = {0}, *key[2] = {0};
    if (!read_keys(c, n, &ks, val, key))
        return false;
    if (!val[0] && !val[1])
        return fail(c, n, _("%s is empty, write it as text or as {zh: ..., en: ...}"), what);
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
        return fail(c, n, _("token %d is empty, every token needs some text"), k + 1);
    if (len > MAX_TOKEN_BYTES)
        return fail(c, n, _("token %d is longer than %d bytes (it has %zu), shorten it"), k + 1,
                    MAX_TOKEN_BYTES, len);
    return dup_text(c, n, what, out);
}

/* tokens: a list of 1..MAT_MAX tokens; numbers count as their text. */
static bool load_tokens(Ctx *c, const yaml_node_t *n, Lesson *l)
{
    if (!want(c, n, YAML_SEQUENCE_NODE, _("tokens must be a list like [I, love, cats]")))
        return false;
    int cnt = seq_len(n);
    if (cnt == 0)
        return fail(c, n, _("tokens is empty, a lesson needs 1 to %d tokens"), MAT_MAX);
    if (cnt > MAT_MAX)
        return fail(c, n, _("%d tokens, at most %d are allowed"), cnt, MAT_MAX);
    l->tokens = calloc((size_t)cnt, sizeof *l->tokens);
    if (!l->tokens)
        return oom(c, n);
    l->ntok = cnt;
    for (int k = 0; k < cnt; k++)
        if (!load_token(c, seq_item(c, n, k), k, &l->tokens[k]))
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
static bool check_row(Ctx *c, const yaml_node_t *row, int k, const RowRule *r, int *cols)
{
    if (!want(c, row, YAML_SEQUENCE_NODE, _("%s row %d must be a list of numbers like [0.5, -1]"), r->name,
              k + 1))
        return false;
    int len = seq_len(row);
    if (r->cols > 0 && len != r->cols)
        return fail(c, row, _("%s row %d has %d number%s; every row needs %s = %d%s"), r->name, k + 1, len,
                    len == 1 ? "" : "s", r->width, r->cols, r->why);
    if (k == 0 && len == 0)
        return fail(c, row, _("%s row 1 is empty, %s must be 1 to %d"), r->name, r->width, MAT_MAX);
    if (k == 0 && len > MAT_MAX)
        return fail(c, row, _("%s row 1 has %d numbers, at most %d are allowed (%s <= %d)"), r->name, len,
                    MAT_MAX, r->width, MAT_MAX);
    if (k == 0)
        *cols = len;
    else if (len != *cols)
        return fail(c, row, _("%s row %d has %d number%s, row 1 has %d; every row needs %s = %d"), r->name,
                    k + 1, len, len == 1 ? "" : "s", *cols, r->width, *cols);
    return true;
}

/* Read a list of rows of numbers (its row count already checked) into m. */
static bool read_rows(Ctx *c, const yaml_node_t *n, const RowRule *r, Mat *m)
{
    int rows = seq_len(n), cols = r->cols;
    for (int k = 0; k < rows; k++)
        if (!check_row(c, seq_item(c, n, k), k, r, &cols))
            return false;
    if (!mat_new(m, rows, cols))
        return oom(c, n);
    for (int k = 0; k < rows; k++) {
        const yaml_node_t *row = seq_item(c, n, k);
        for (int j = 0; j < cols; j++)
            if (!parse_num(c, seq_item(c, row, j), &MAT_AT(m, k, j), NULL))
                return false;
    }
    return true;
}

/* X: one row per token, each d_model numbers; row 1 decides d_model. */
static bool load_x(Ctx *c, const yaml_node_t *n, Lesson *l)
{
    if (!want(c, n, YAML_SEQUENCE_NODE, _("X must be a list of rows, one per token, like [[1, 0], [0, 1]]")))
        return false;
    int rows = seq_len(n);
    if (rows != l->ntok)
        return fail(c, n, _("X has %d row%s but there %s %d token%s; X needs one row per token"), rows,
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
        return oom(c, n);
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
static bool load_random(Ctx *c, const yaml_node_t *n, Lesson *l)
{
    const char *ex = "random: {seed: 42, scale: 0.3, d_k: 3}";
    if (!want(c, n, YAML_MAPPING_NODE, _("random must be a mapping like {seed: 42, scale: 0.3, d_k: 3}")))
        return false;
    Keys ks = {random_keys, R_N, _("key"), _(" in random")};
    yaml_node_t *val[R_N] = {0}, *key[R_N] = {0};
    unsigned long long seed;
    if (!read_keys(c, n, &ks, val, key))
        return false;
    if (!val[R_SEED] || !val[R_DK])
        return fail(c, n, _("random is missing %s, write e.g. %s"), val[R_SEED] ? "d_k" : "seed", ex);
    if (!parse_uint(val[R_SEED], 4294967295ULL, &seed))
        return fail(c, val[R_SEED], _("seed must be a whole number from 0 to 4294967295, found %s"),
                    found(c, val[R_SEED]));
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
    if (!want(c, n, YAML_SEQUENCE_NODE, _("%s must be a list of d_model = %d rows"), name, l->d_model))
        return false;
    int rows = seq_len(n);
    if (rows != l->d_model)
        return fail(c, n, _("%s must have d_model = %d rows, one per X column; it has %d"), name, l->d_model,
                    rows);
    RowRule r = {name, id == W_V ? "d_v" : "d_k", id == W_K ? l->Wq.cols : 0,
                 id == W_K ? _(", the width of Wq") : ""};
    return read_rows(c, n, &r, m);
}

/* weights: either random: or all of Wq, Wk, Wv written out, never both. */
static bool load_weights(Ctx *c, const yaml_node_t *n, Lesson *l)
{
    if (!want(c, n, YAML_MAPPING_NODE, _("weights must be a mapping: random: {seed, scale, d_k}, "
                                         "or Wq, Wk and Wv written out")))
        return false;
    Keys ks = {weight_keys, W_N, _("key"), _(" in weights")};
    yaml_node_t *val[W_N] = {0}, *key[W_N] = {0};
    if (!read_keys(c, n, &ks, val, key))
        return false;
    if (val[W_RANDOM]) {
        if (val[W_Q] || val[W_K] || val[W_V])
            return fail(c, key[W_RANDOM], _("weights cannot mix random with written-out Wq, Wk, Wv; "
                                            "use one or the other"));
        return load_random(c, val[W_RANDOM], l);
    }
    for (int w = W_Q; w <= W_V; w++)
        if (!val[w])
            return fail(c, n, _("weights is missing %s; write Wq, Wk and Wv out, or use random: "
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
    MatId m;
    int i, j;
    if (!want_text(c, k, _("an overrides key")))
        return false;
    if (parse_ref(sval(k), &m, &i, &j) != REF_OK || m < M_Q || m > M_V || j != -1)
        return fail(c, k, _("overrides set rows of Q, K or V like \"Q[1]\", found %s"), q(c, sval(k)));
    if (i < 0 || i >= l->ntok)
        return fail(c, k, _("row %d is out of range in %s, %s has %d row%s (one per token)"), i + 1,
                    q(c, sval(k)), attn_mat_name(m), l->ntok, l->ntok == 1 ? "" : "s");
    if (l->override[m - M_Q][i])
        return fail(c, k, _("%s is given twice in overrides"), q(c, sval(k)));
    Mat *o = &l->over[m - M_Q];
    const char *width = m == M_V ? "d_v" : "d_k";
    if (!want(c, v, YAML_SEQUENCE_NODE, _("%s must be a row of %d numbers"), sval(k), o->cols))
        return false;
    if (seq_len(v) != o->cols)
        return fail(c, v, _("%s needs %s = %d numbers, it has %d"), sval(k), width, o->cols, seq_len(v));
    for (int col = 0; col < o->cols; col++)
        if (!parse_num(c, seq_item(c, v, col), &MAT_AT(o, i, col), NULL))
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
        return oom(c, root);
    if (!n)
        return true;
    if (!want(c, n, YAML_MAPPING_NODE, _("overrides must be a mapping like {\"Q[1]\": [0.3, -2.8, -2.5]}")))
        return false;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
        if (!load_override(c, node_at(c, p->key), node_at(c, p->value), l))
            return false;
    return true;
}

/* Match a scalar against two words; *out = 0 or 1. */
static bool load_choice(Ctx *c, const yaml_node_t *n, const char *name, const char *a, const char *b,
                        int *out)
{
    if (n->type == YAML_SCALAR_NODE && strcmp(sval(n), a) == 0)
        *out = 0;
    else if (n->type == YAML_SCALAR_NODE && strcmp(sval(n), b) == 0)
        *out = 1;
    else
        return fail(c, n, _("%s must be %s or %s, found %s"), name, a, b, found(c, n));
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
    if (n && (!want(c, n, YAML_MAPPING_NODE, _("options must be a mapping like {scale: none, softmax: "
                                               "naive, digits: 3}")) || !read_keys(c, n, &ks, val, key)))
        return false;
    if (val[O_SCALE] && !load_choice(c, val[O_SCALE], "scale", "none", "sqrt_dk", &scale))
        return false;
    if (val[O_SOFTMAX] && !load_choice(c, val[O_SOFTMAX], "softmax", "naive", "stable", &softmax))
        return false;
    if (val[O_DIGITS] && (!parse_uint(val[O_DIGITS], 6, &digits) || digits < 1))
        return fail(c, val[O_DIGITS], _("digits must be a whole number from 1 to 6, found %s"),
                    found(c, val[O_DIGITS]));
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
            return fail(c, n, _("stage %llu is out of range, expected 1 to 5 or "
                                "input, qkv, scores, softmax or output"), v);
        st->stage = (int)v;
        return true;
    }
    for (int k = 0; k < 5; k++)
        if (strcmp(sval(n), stage_names[k]) == 0) {
            st->stage = k + 1;
            return true;
        }
    const char *s = suggest(sval(n), stage_names, 5);
    if (s)
        return fail(c, n, _("unknown stage %s (did you mean \"%s\"?), expected "
                            "input, qkv, scores, softmax or output"), q(c, sval(n)), s);
    return fail(c, n, _("unknown stage %s, expected input, qkv, scores, softmax or output"), q(c, sval(n)));
}

/* focus: a row "Q[1]" or a cell "S[1][2]" inside the lesson's shapes. */
static bool load_focus(Ctx *c, const yaml_node_t *n, const Attn *shape, Step *st)
{
    Focus *f = &st->focus;
    if (!load_ref(c, n, shape, "focus", _("a row like \"Q[1]\" or a cell like \"S[1][2]\""), &f->mat, &f->i,
                  &f->j))
        return false;
    f->kind = f->j < 0 ? FOCUS_ROW : FOCUS_CELL;
    if (f->j < 0)
        f->j = 0;
    return true;
}

/* The 0-based column of errcol (1-based within the text) in the file:
 * exact for one-line plain and quoted scalars, the scalar's start otherwise. */
static size_t action_col(const yaml_node_t *n, int errcol)
{
    size_t col = n->start_mark.column;
    if (n->end_mark.line != n->start_mark.line || errcol < 1)
        return col;
    switch (n->data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE:
        return col + (size_t)errcol - 1;
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        return col + (size_t)errcol;
    default:
        return col;
    }
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
    if (!action_parse(sval(n), a, e, sizeof e, &errcol))
        return fail_at(c, n->start_mark.line, action_col(n, errcol), "%s", e);
    if (a->kind != ACT_RESET && !action_apply(scratch, a, e, sizeof e))
        return fail(c, n, "%s", e);
    st->act_text[st->nact] = strdup(sval(n));
    if (!st->act_text[st->nact])
        return oom(c, n);
    st->nact++;
    return true;
}

/* do: one action or a list of them, at most LESSON_MAX_ACTIONS. */
static bool load_do(Ctx *c, const yaml_node_t *n, Attn *scratch, Step *st)
{
    if (n->type != YAML_SCALAR_NODE &&
        !want(c, n, YAML_SEQUENCE_NODE, _("do must be an action like \"Q[1] = K[1] * 5\", or a list of them")))
        return false;
    int cnt = n->type == YAML_SCALAR_NODE ? 1 : seq_len(n);
    if (cnt > LESSON_MAX_ACTIONS)
        return fail(c, n, _("%d actions, at most %d are allowed in one step"), cnt, LESSON_MAX_ACTIONS);
    /* Sized to what was written: an Action holds a whole row of values. */
    st->act = calloc((size_t)(cnt ? cnt : 1), sizeof *st->act);
    st->act_text = calloc((size_t)(cnt ? cnt : 1), sizeof *st->act_text);
    if (!st->act || !st->act_text)
        return oom(c, n);
    if (n->type == YAML_SCALAR_NODE)
        return load_action(c, n, scratch, st);
    for (int k = 0; k < seq_len(n); k++)
        if (!load_action(c, seq_item(c, n, k), scratch, st))
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
    if (!want(c, v, YAML_SEQUENCE_NODE, _("%s[%d] expects a list of %d numbers"), name, e->i + 1, x->cols))
        return false;
    if (seq_len(v) != x->cols)
        return fail(c, v, _("%s[%d] expects %d number%s, one per column of %s; this list has %d"), name,
                    e->i + 1, x->cols, x->cols == 1 ? "" : "s", name, seq_len(v));
    e->n = x->cols;
    for (int k = 0; k < e->n; k++) {
        int dec;
        if (!parse_num(c, seq_item(c, v, k), &e->val[k], &dec))
            return false;
        e->tol[k] = tol_of(dec);
    }
    return true;
}

/* One expectation "M[i]": [..] or "M[i][j]": x, valid at the step's stage. */
static bool load_expect(Ctx *c, const yaml_node_t *k, const yaml_node_t *v, const Attn *shape,
                        const Step *st, Expect *e)
{
    if (!load_ref(c, k, shape, _("an expect key"), _("a row like \"A[1]\" or a cell like \"A[1][2]\""), &e->mat,
                  &e->i, &e->j))
        return false;
    e->line = (int)k->start_mark.line + 1;
    e->col = (int)k->start_mark.column + 1;
    int need = attn_mat_stage(e->mat);
    if (need > st->stage)
        return fail(c, k, _("%s is computed at stage %s, this step shows stage %s; expect it at a later step"),
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
    if (!want(c, n, YAML_MAPPING_NODE, _("expect must be a mapping like {\"A[1]\": [0.873, 0.076, 0.052]}")))
        return false;
    int cnt = map_len(n);
    if (cnt > LESSON_MAX_EXPECT)
        return fail(c, n, _("%d expectations, at most %d are allowed in one step"), cnt, LESSON_MAX_EXPECT);
    st->expect = calloc((size_t)(cnt ? cnt : 1), sizeof *st->expect);
    if (!st->expect)
        return oom(c, n);
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    for (; st->nexpect < cnt; st->nexpect++, p++)
        if (!load_expect(c, node_at(c, p->key), node_at(c, p->value), shape, st, &st->expect[st->nexpect]))
            return false;
    return true;
}

/* Check the {REF} templates of a text field (a string or {zh:, en:}) for a
 * step showing `stage`, or for about: (TEMPLATE_ABOUT); see template.h. */
static bool load_templates(Ctx *c, const yaml_node_t *n, const Attn *shape, int stage, const char *what)
{
    int cnt = !n ? 0 : n->type == YAML_MAPPING_NODE ? map_len(n) : 1;
    for (int k = 0; k < cnt; k++) {
        const yaml_node_t *s = n->type == YAML_MAPPING_NODE ? node_at(c, n->data.mapping.pairs.start[k].value) : n;
        char e[LESSON_ERR_MAX];
        int errcol = 0;
        if (s->type == YAML_SCALAR_NODE && !template_check(sval(s), shape, stage, what, &errcol, e, sizeof e))
            return fail_at(c, s->start_mark.line, action_col(s, errcol), "%s", e);
    }
    return true;
}

/* ask: a cell or row reference, or a list of them (see ask.h). */
static bool load_asks(Ctx *c, const yaml_node_t *n, const Attn *shape, Step *st)
{
    if (n->type != YAML_SCALAR_NODE && !want(c, n, YAML_SEQUENCE_NODE, _("ask must be a cell like \"S[1][2]\", "
                                                                       "a row like \"A[1]\", or a list of them")))
        return false;
    int cnt = n->type == YAML_SCALAR_NODE ? 1 : seq_len(n);
    if (cnt > ASK_MAX)
        return fail(c, n, _("%d asks, at most %d are allowed in one step"), cnt, ASK_MAX);
    st->ask = calloc((size_t)(cnt ? cnt : 1), sizeof *st->ask);
    if (!st->ask)
        return oom(c, n);
    for (int k = 0; k < cnt; k++) {
        const yaml_node_t *item = n->type == YAML_SCALAR_NODE ? n : seq_item(c, n, k);
        char e[LESSON_ERR_MAX];
        if (!want_text(c, item, "ask"))
            return false;
        if (!ask_parse(sval(item), shape, st->stage, &st->ask[k], e, sizeof e))
            return fail(c, item, "%s", e);
        st->ask[k].line = (int)item->start_mark.line + 1;
        st->ask[k].col = (int)item->start_mark.column + 1;
        st->nask++;
    }
    return true;
}

enum { S_STAGE, S_FOCUS, S_DO, S_SAY, S_ASK, S_EXPECT, S_N };
static const char *const step_keys[S_N] = {"stage", "focus", "do", "say", "ask", "expect"};

/* One step of the script; `scratch` is the base state used to check
 * indices (and accumulates the do: actions). */
static bool load_step(Ctx *c, const yaml_node_t *n, int no, Attn *scratch, Step *st)
{
    char where[32];
    snprintf(where, sizeof where, _(" in step %d"), no);
    if (!want(c, n, YAML_MAPPING_NODE, _("step %d must be a mapping like {stage: scores, say: ...}"), no))
        return false;
    Keys ks = {step_keys, S_N, _("key"), where};
    yaml_node_t *val[S_N] = {0}, *key[S_N] = {0};
    st->line = (int)n->start_mark.line + 1;
    if (!read_keys(c, n, &ks, val, key))
        return false;
    if (!val[S_STAGE])
        return fail(c, n, _("step %d has no stage, expected stage: "
                            "input, qkv, scores, softmax or output"), no);
    return load_stage(c, val[S_STAGE], st)
        && (!val[S_FOCUS] || load_focus(c, val[S_FOCUS], scratch, st))
        && (!val[S_DO] || load_do(c, val[S_DO], scratch, st))
        && load_text(c, val[S_SAY], "say", &st->say)
        && load_templates(c, val[S_SAY], scratch, st->stage, "say")
        && (!val[S_ASK] || load_asks(c, val[S_ASK], scratch, st))
        && (!val[S_EXPECT] || load_expects(c, val[S_EXPECT], scratch, st));
}

/* Without a script, one silent step per stage. */
static bool default_steps(Ctx *c, const yaml_node_t *root, Lesson *l)
{
    l->steps = calloc(STAGE_COUNT, sizeof *l->steps);
    if (!l->steps)
        return oom(c, root);
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
    if (!want(c, n, YAML_SEQUENCE_NODE, _("steps must be a list of steps like - {stage: scores, say: ...}")))
        return false;
    int cnt = seq_len(n);
    if (cnt == 0)
        return fail(c, n, _("steps is empty; write at least one step, or leave steps out for one per stage"));
    if (cnt > LESSON_MAX_STEPS)
        return fail(c, n, _("%d steps, at most %d are allowed"), cnt, LESSON_MAX_STEPS);
    Attn scratch;
    if (!lesson_base(l, &scratch))
        return oom(c, n);
    l->steps = calloc((size_t)cnt, sizeof *l->steps);
    bool ok = l->steps != NULL || oom(c, n);
    if (ok)
        l->nsteps = cnt;
    for (int k = 0; ok && k < cnt; k++)
        ok = load_step(c, seq_item(c, n, k), k + 1, &scratch, &l->steps[k]);
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
        return fail(c, n, _("start must be a step number from 1 to %d, found %s"), l->nsteps, found(c, n));
    l->start = (int)v;
    return true;
}

/* ---- the top level --------------------------------------------------------------- */

enum { T_FORMAT, T_TITLE, T_ABOUT, T_TOKENS, T_X, T_WEIGHTS, T_OVERRIDES, T_OPTIONS, T_START, T_STEPS, T_N };
static const char *const top_keys[T_N] = {"format", "title", "about", "tokens", "X", "weights",
                                          "overrides", "options", "start", "steps"};

static bool load_format(Ctx *c, const yaml_node_t *n)
{
    if (n->type == YAML_SCALAR_NODE && strcmp(sval(n), FORMAT_ID) == 0)
        return true;
    return fail(c, n, _("format must be \"%s\", found %s"), FORMAT_ID, found(c, n));
}

/* Refuse a lesson without format, tokens, X or weights. */
static bool check_required(Ctx *c, const yaml_node_t *root, yaml_node_t **val)
{
    static const int req[] = {T_FORMAT, T_TOKENS, T_X, T_WEIGHTS};
    for (size_t k = 0; k < sizeof req / sizeof *req; k++)
        if (!val[req[k]])
            return fail(c, root, _("missing key \"%s\", a lesson needs at least format, tokens, X and weights"),
                        top_keys[req[k]]);
    return true;
}

/* about: may quote X, the Ws, tokens and sizes (see template.h). */
static bool load_about_templates(Ctx *c, const yaml_node_t *n, const Lesson *l)
{
    Attn shape = {0};
    if (!n || (!template_has_refs(l->about.s[LANG_EN]) && !template_has_refs(l->about.s[LANG_ZH])))
        return true;
    if (!lesson_base(l, &shape))
        return oom(c, n);
    bool ok = load_templates(c, n, &shape, TEMPLATE_ABOUT, "about");
    attn_free(&shape);
    return ok;
}

/* The top-level mapping: keys first, then each value in dependency order
 * (tokens before X, X before the weights, shapes before the steps). */
static bool load_root(Ctx *c, const yaml_node_t *root, Lesson *l)
{
    if (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0)
        return fail_at(c, 0, 0, _("the file is empty, "
                                  "a lesson needs at least format, tokens, X and weights"));
    if (!want(c, root, YAML_MAPPING_NODE,
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
        && load_weights(c, v[T_WEIGHTS], l)
        && load_overrides(c, root, v[T_OVERRIDES], l)
        && load_options(c, v[T_OPTIONS], l)
        && load_steps(c, root, v[T_STEPS], l)
        && load_start(c, v[T_START], l)
        && load_about_templates(c, v[T_ABOUT], l);
}

/* ---- libyaml passes ------------------------------------------------------------- */

/* The 0-based line and column (in characters) of a byte offset. */
static void offset_mark(const char *buf, size_t len, size_t off, size_t *line, size_t *col)
{
    *line = *col = 0;
    for (size_t k = 0; k < off && k < len; k++) {
        unsigned char b = (unsigned char)buf[k];
        if (b == '\n') {
            ++*line;
            *col = 0;
        } else if ((b & 0xC0) != 0x80) {
            ++*col;
        }
    }
}

/* Turn a libyaml error into our one-line message. Always returns false. */
static bool parser_error(Ctx *c, const yaml_parser_t *p, const char *buf, size_t len)
{
    size_t line = p->problem_mark.line, col = p->problem_mark.column;
    const char *what = p->problem ? p->problem : _("unknown error");
    if (p->error == YAML_MEMORY_ERROR)
        return fail_at(c, 0, 0, _("out of memory while reading the lesson"));
    if (p->error != YAML_READER_ERROR && strstr(what, "escape code"))
        return fail_at(c, line, col, _("this escape is not a Unicode character (a surrogate or above "
                                       "\\U0010FFFF), write the character itself"));
    if (p->error != YAML_READER_ERROR)
        return fail_at(c, line, col, _("YAML syntax error, %s%s%s"), what, p->context ? " " : "",
                       p->context ? p->context : "");
    offset_mark(buf, len, p->problem_offset, &line, &col);
    if (strstr(what, "UTF-8") || strstr(what, "Unicode"))
        return fail_at(c, line, col, _("invalid UTF-8 in the file, lessons must be UTF-8 text"));
    if (strstr(what, "control characters"))
        return fail_at(c, line, col, _("control character U+%04X in the file, lessons must be plain text "
                                       "(inside double quotes, write it as an escape like \\x1b)"),
                       (unsigned)p->problem_value);
    return fail_at(c, line, col, _("cannot read the file as YAML text, %s"), what);
}

/* Check one event of the pre-scan: no aliases or anchors, one document,
 * bounded depth. */
static bool check_event(Ctx *c, const yaml_event_t *e, int *depth, int *docs)
{
    const yaml_char_t *anchor = NULL;
    size_t line = e->start_mark.line, col = e->start_mark.column;
    switch (e->type) {
    case YAML_ALIAS_EVENT:
        return fail_at(c, line, col, _("YAML aliases and anchors are not allowed, write the values out"));
    case YAML_DOCUMENT_START_EVENT:
        if (++*docs > 1)
            return fail_at(c, line, col, _("a second YAML document, a lesson file holds only one; "
                                           "remove the \"---\" or split the file"));
        break;
    case YAML_SCALAR_EVENT:
        anchor = e->data.scalar.anchor;
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = e->data.sequence_start.anchor;
        ++*depth;
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = e->data.mapping_start.anchor;
        ++*depth;
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        --*depth;
        break;
    default:
        break;
    }
    if (anchor)
        return fail_at(c, line, col, _("YAML aliases and anchors are not allowed, write the values out"));
    if (*depth > MAX_DEPTH)
        return fail_at(c, line, col, _("lists and mappings nested more than %d deep, a lesson needs at most 5"),
                       MAX_DEPTH);
    return true;
}

static void parser_open(yaml_parser_t *p, const char *buf, size_t len)
{
    yaml_parser_set_input_string(p, (const unsigned char *)buf, len);
    yaml_parser_set_encoding(p, YAML_UTF8_ENCODING);
}

/* The collections open while building the document from events. */
typedef struct {
    int id[MAX_DEPTH + 2];
    int key[MAX_DEPTH + 2];  /* a mapping's key waiting for its value, or 0 */
    int n;
} Open;

/* Add a finished node (id) to the collection it belongs to. */
static bool attach(yaml_document_t *d, Open *o, int id)
{
    if (o->n == 0)
        return true; /* the root */
    int top = o->id[o->n - 1];
    if (d->nodes.start[top - 1].type == YAML_SEQUENCE_NODE)
        return yaml_document_append_sequence_item(d, top, id);
    if (!o->key[o->n - 1]) {
        o->key[o->n - 1] = id;
        return true;
    }
    int key = o->key[o->n - 1];
    o->key[o->n - 1] = 0;
    return yaml_document_append_mapping_pair(d, top, key, id);
}

/* Turn one (already checked) event into the document's nodes. */
static bool build(yaml_document_t *d, Open *o, const yaml_event_t *e)
{
    int id = 0;
    switch (e->type) {
    case YAML_SCALAR_EVENT:
        id = yaml_document_add_scalar(d, NULL, e->data.scalar.value, (int)e->data.scalar.length,
                                      e->data.scalar.style);
        break;
    case YAML_SEQUENCE_START_EVENT:
        id = yaml_document_add_sequence(d, NULL, e->data.sequence_start.style);
        break;
    case YAML_MAPPING_START_EVENT:
        id = yaml_document_add_mapping(d, NULL, e->data.mapping_start.style);
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        d->nodes.start[o->id[o->n - 1] - 1].end_mark = e->end_mark;
        return attach(d, o, o->id[--o->n]);
    default:
        return true;
    }
    if (!id)
        return false;
    d->nodes.start[id - 1].start_mark = e->start_mark;
    d->nodes.start[id - 1].end_mark = e->end_mark;
    if (e->type == YAML_SCALAR_EVENT)
        return attach(d, o, id);
    o->id[o->n] = id;
    o->key[o->n++] = 0;
    return true;
}

/* Read the whole stream once: check each event (see the top) and build the
 * document from it. On failure the document is deleted and err is set. */
static bool read_document(Ctx *c, const char *buf, size_t len, yaml_document_t *doc)
{
    yaml_parser_t p;
    Open open = {.n = 0};
    int depth = 0, docs = 0;
    bool ok = true, done = false;
    if (!yaml_parser_initialize(&p))
        return fail_at(c, 0, 0, _("out of memory while reading the lesson"));
    if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
        yaml_parser_delete(&p);
        return fail_at(c, 0, 0, _("out of memory while reading the lesson"));
    }
    parser_open(&p, buf, len);
    while (ok && !done) {
        yaml_event_t e;
        if (!yaml_parser_parse(&p, &e)) {
            ok = parser_error(c, &p, buf, len);
            break;
        }
        ok = check_event(c, &e, &depth, &docs);
        if (ok && !build(doc, &open, &e))
            ok = fail_at(c, 0, 0, _("out of memory while reading the lesson"));
        done = e.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&e);
    }
    yaml_parser_delete(&p);
    if (ok && docs == 0)
        ok = fail_at(c, 0, 0, _("the file is empty, "
                                "a lesson needs at least format, tokens, X and weights"));
    if (!ok)
        yaml_document_delete(doc);
    return ok;
}

/* Numbers in lessons always use '.', whatever LC_NUMERIC the program set:
 * switch this thread to the C numeric locale. Returns the locale to give
 * back to numeric_end(), or 0 when the switch failed (then nothing changes). */
static locale_t numeric_begin(locale_t *mine)
{
    locale_t base = duplocale(uselocale((locale_t)0));
    *mine = base ? newlocale(LC_NUMERIC_MASK, "C", base) : (locale_t)0;
    if (!*mine) {
        if (base)
            freelocale(base);
        return (locale_t)0;
    }
    return uselocale(*mine);
}

static void numeric_end(locale_t old, locale_t mine)
{
    if (!mine)
        return;
    uselocale(old);
    freelocale(mine);
}

/* Build the lesson from a parsed document into *l. */
static bool walk(Ctx *c, Lesson *l)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (!root)
        return fail_at(c, 0, 0, _("the file is empty, "
                                  "a lesson needs at least format, tokens, X and weights"));
    l->file = strdup(c->file);
    if (!l->file)
        return oom(c, root);
    locale_t mine, old = numeric_begin(&mine);
    bool ok = load_root(c, root, l);
    numeric_end(old, mine);
    return ok;
}

bool lesson_load_buffer(const char *file, const char *buf, size_t len,
                        Lesson *out, char *err, size_t errlen)
{
    Ctx c = {.file = file ? file : _("(lesson)"), .err = err, .errlen = errlen};
    yaml_document_t doc;
    memset(out, 0, sizeof *out);
    if (errlen)
        err[0] = '\0';
    if (len > LESSON_MAX_BYTES) {
        snprintf(err, errlen, _("%s: cannot read: too big (%zu bytes), a lesson has at most %d bytes"),
                 c.file, len, LESSON_MAX_BYTES);
        return false;
    }
    if (!read_document(&c, buf, len, &doc))
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

static void step_free(Step *st)
{
    for (int k = 0; k < st->nact; k++)
        free(st->act_text[k]);
    free(st->act);
    free(st->act_text);
    text_free(&st->say);
    free(st->ask);
    free(st->expect);
}

void lesson_free(Lesson *l)
{
    if (!l)
        return;
    free(l->file);
    text_free(&l->title);
    text_free(&l->about);
    for (int k = 0; l->tokens && k < l->ntok; k++)
        free(l->tokens[k]);
    free(l->tokens);
    Mat *mats[] = {&l->X, &l->Wq, &l->Wk, &l->Wv, &l->over[0], &l->over[1], &l->over[2]};
    for (size_t k = 0; k < sizeof mats / sizeof *mats; k++)
        mat_free(mats[k]);
    for (int k = 0; l->steps && k < l->nsteps; k++)
        step_free(&l->steps[k]);
    free(l->steps);
    memset(l, 0, sizeof *l);
}

/* ---- the starting state and expectations ------------------------------------------ */

bool lesson_base(const Lesson *l, Attn *a)
{
    if (!attn_init(a, l->ntok, l->d_model, l->d_k, l->d_v))
        return false;
    if (!mat_copy(&a->m[M_X], &l->X) || !mat_copy(&a->m[M_WQ], &l->Wq) ||
        !mat_copy(&a->m[M_WK], &l->Wk) || !mat_copy(&a->m[M_WV], &l->Wv)) {
        attn_free(a);
        return false;
    }
    for (int m = 0; m < 3; m++) {
        const Mat *o = &l->over[m];
        Mat *dst = &a->m[M_Q + m];
        for (int i = 0; i < l->ntok && o->rows == l->ntok && o->cols == dst->cols; i++) {
            a->override[m][i] = l->override[m][i];
            if (l->override[m][i])
                memcpy(&MAT_AT(dst, i, 0), &MAT_AT(o, i, 0), sizeof(double) * (size_t)o->cols);
        }
    }
    a->scale = l->scale;
    a->softmax = l->softmax;
    a->reached = STAGE_NONE;
    return true;
}

/* Write v with `dec` decimals, or NaN / inf as words. */
static void put_num(char *buf, size_t len, double v, int dec)
{
    if (isnan(v))
        snprintf(buf, len, "NaN");
    else if (isinf(v))
        snprintf(buf, len, "%sinf", v < 0 ? "-" : "");
    else
        snprintf(buf, len, "%.*f", dec < 0 ? 0 : dec, v);
}

/* Write a failed cell as "A[1][2] is 0.337, expected 0.873 (within 0.0005)". */
static void expect_msg(const Expect *e, int col, double got, int digits, char *msg, size_t len)
{
    int dec = (int)lround(-log10(e->tol[col] / 0.5));
    char is[48], want[48], tol[48];
    locale_t mine, old = numeric_begin(&mine);
    put_num(is, sizeof is, got, digits > dec ? digits : dec);
    put_num(want, sizeof want, e->val[col], dec);
    put_num(tol, sizeof tol, e->tol[col], dec + 1);
    numeric_end(old, mine);
    snprintf(msg, len, _("%s[%d][%d] is %s, expected %s (within %s)"), attn_mat_name(e->mat), e->i + 1,
             (e->j >= 0 ? e->j : col) + 1, is, want, tol);
}

bool expect_check(const Expect *e, const Attn *a, int digits, char *msg, size_t len)
{
    const Mat *m = &a->m[e->mat];
    const char *name = attn_mat_name(e->mat);
    int first = e->j >= 0 ? e->j : 0;
    if (a->reached < attn_mat_stage(e->mat)) {
        snprintf(msg, len, _("%s is not computed at this step, it needs stage %s"), name,
                 attn_stage_key(attn_mat_stage(e->mat)));
        return false;
    }
    if (e->i < 0 || e->i >= m->rows || first < 0 || first + e->n > m->cols) {
        snprintf(msg, len, _("%s[%d] is out of range, %s is %dx%d"), name, e->i + 1, name, m->rows, m->cols);
        return false;
    }
    for (int k = 0; k < e->n; k++) {
        double got = MAT_AT(m, e->i, first + k);
        if (!(fabs(got - e->val[k]) <= e->tol[k])) {
            expect_msg(e, k, got, digits, msg, len);
            return false;
        }
    }
    return true;
}
