/* schema.c - reading a lesson's values from its YAML document, with
 * messages (see schema.h). */
#include "schema.h"
#include "options.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text/i18n.h"
#include "text/num.h"
#include "text/text.h"

/* Require a scalar that is valid UTF-8 without NUL; `what` says what it is. */
bool schema_want_text(Loader *c, const yaml_node_t *n, const char *what)
{
    if (!diag_want(&c->d, n, YAML_SCALAR_NODE, _("%s must be text"), what))
        return false;
    size_t len = n->data.scalar.length;
    if (!text_utf8_valid(ydoc_str(n), len))
        return diag_fail(&c->d, n, _("invalid UTF-8 in %s, lessons must be UTF-8 text"), what);
    if (strlen(ydoc_str(n)) != len)
        return diag_fail(&c->d, n, _("%s contains a NUL character (\\0), which a lesson cannot hold"), what);
    unsigned cp;
    const char *name;
    bool bidi;
    size_t at = text_find_format(ydoc_str(n), len, &cp, &name, &bidi);
    if (at < len)
        return diag_fail_at(&c->d, n->start_mark.line, schema_col(n, at),
                            bidi ? _("U+%04X %s is not allowed in %s: it can reorder what the student reads; remove it")
                                 : _("U+%04X %s is not allowed in %s: it cannot be seen, so the student cannot tell "
                                     "it is there; remove it"),
                            cp, name, what);
    return true;
}

/* Copy a text scalar into *out (malloc'd). */
bool schema_dup_text(Loader *c, const yaml_node_t *n, const char *what, char **out)
{
    if (!schema_want_text(c, n, what))
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
    {"\xef\xbc\xbb", "U+FF3B FULLWIDTH LEFT SQUARE BRACKET", "["},
    {"\xef\xbc\xbd", "U+FF3D FULLWIDTH RIGHT SQUARE BRACKET", "]"},
    {"\xe3\x80\x90", "U+3010 LEFT BLACK LENTICULAR BRACKET", "["},
    {"\xe3\x80\x91", "U+3011 RIGHT BLACK LENTICULAR BRACKET", "]"},
    {"\xef\xbc\x9d", "U+FF1D FULLWIDTH EQUALS SIGN", "="},
    {"\xef\xbc\x8b", "U+FF0B FULLWIDTH PLUS SIGN", "+"},
    {"\xef\xbc\x8a", "U+FF0A FULLWIDTH ASTERISK", "*"},
};

/* A full-width digit ０..９ (U+FF10..U+FF19) at s, or -1. */
static int fullwidth_digit(const char *s)
{
    uint32_t cp;
    (void)text_utf8_next(s, strnlen(s, 4), &cp);
    return cp >= 0xFF10 && cp <= 0xFF19 ? (int)(cp - 0xFF10) : -1;
}

/* The 0-based file column of byte `off` of a one-line scalar's value
 * (columns count characters); the scalar's start when that is unknown. */
size_t schema_col(const yaml_node_t *n, size_t off)
{
    size_t col = n->start_mark.column, chars = 0;
    if (n->end_mark.line != n->start_mark.line)
        return col;
    chars = text_chars((const char *)n->data.scalar.value, off < n->data.scalar.length ? off : n->data.scalar.length);
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

/* Refuse a scalar holding full-width lookalikes of ASCII number or action
 * punctuation or digits, naming each kind (at its first place). */
bool schema_check_lookalike(Loader *c, const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE)
        return true;
    const char *s = ydoc_str(n);
    bool ok = true;
    const unsigned char *b = (const unsigned char *)s;
    while (*b && *b < 0x80)
        b++;
    if (!*b) /* plain ASCII (every number written right): no look-alike, all of them UTF-8 */
        return true;
    for (size_t k = 0; k < sizeof lookalikes / sizeof *lookalikes; k++) {
        const char *at = strstr(s, lookalikes[k].utf8);
        if (at)
            ok = diag_fail_at(&c->d, n->start_mark.line, schema_col(n, (size_t)(at - s)),
                              _("\"%s\" in %s is %s, write \"%s\" instead"), lookalikes[k].utf8,
                              diag_quote(&c->d, s), lookalikes[k].name, lookalikes[k].ascii);
    }
    for (const char *at = s; *at; at++)
        if (fullwidth_digit(at) >= 0) {
            char name[40], ascii[2] = {(char)('0' + fullwidth_digit(at)), 0};
            static const char *const words[] = {"ZERO", "ONE", "TWO", "THREE", "FOUR",
                                                "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"};
            snprintf(name, sizeof name, "U+FF1%d FULLWIDTH DIGIT %s", ascii[0] - '0', words[ascii[0] - '0']);
            return diag_fail_at(&c->d, n->start_mark.line, schema_col(n, (size_t)(at - s)),
                                _("\"%.3s\" in %s is %s, write \"%s\" instead"), at, diag_quote(&c->d, s), name,
                                ascii);
        }
    return ok;
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
const yaml_node_t *schema_decimal_comma(Loader *c, const yaml_node_t *row, char *buf, size_t len)
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
bool schema_row_length_fail(Loader *c, const yaml_node_t *row, const char *fmt, ...)
{
    char hint[128], what[384];
    const yaml_node_t *at = schema_decimal_comma(c, row, hint, sizeof hint);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_fail(&c->d, at ? at : row, "%s%s", what, hint);
}

/* Refuse the lookalike characters in a list of numbers (or in the one
 * scalar YAML reads from [0.5， 1] or ［0.5, 1］). */
bool schema_lookalikes(Loader *c, const yaml_node_t *row)
{
    if (row->type == YAML_SCALAR_NODE)
        return schema_check_lookalike(c, row);
    bool ok = true;
    for (int j = 0; row->type == YAML_SEQUENCE_NODE && j < ydoc_seq_len(row); j++)
        ok = schema_check_lookalike(c, ydoc_seq_item(c->doc, row, j)) && ok;
    return ok;
}

/* Parse a finite number from a scalar; *decimals (may be NULL) receives
 * the decimals written, for expect tolerances. */
bool schema_num(Loader *c, const yaml_node_t *n, double *v, int *decimals)
{
    if (!diag_want(&c->d, n, YAML_SCALAR_NODE, _("expected a number")) || !schema_check_lookalike(c, n))
        return false;
    const char *s = ydoc_str(n), *comma = strchr(s, ',');
    if (schema_not_plain(c, n) && num_parse(s, v, NULL) == NUM_OK)
        return diag_fail(&c->d, n, _("%s is written as text (quoted or tagged), not as a number; write the number "
                                     "alone, without quotes or a tag: %s"), diag_quote(&c->d, s), s);
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

bool schema_not_plain(const Loader *c, const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE)
        return false;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return true;
    /* libyaml resolves !!str and no tag alike; ydoc gives a plain scalar
     * written with any tag the tag "!" (its event is not plain_implicit) */
    return n->tag && strcmp((const char *)n->tag, YAML_DEFAULT_SCALAR_TAG) != 0;
}

/* Parse a whole number 0..max written as plain digits (num_whole: the one
 * whole-number parser). No message. */
bool schema_uint(const Loader *c, const yaml_node_t *n, unsigned long long max, unsigned long long *out)
{
    long long v;
    if (n->type != YAML_SCALAR_NODE || schema_not_plain(c, n) || !num_whole_all(ydoc_str(n), &v) ||
        (unsigned long long)v > max)
        return false;
    *out = (unsigned long long)v;
    return true;
}

/* Parse a size such as d_k: a whole number from 1 to MAT_MAX. */
bool schema_size(Loader *c, const yaml_node_t *n, const char *name, int *out)
{
    unsigned long long v;
    if (schema_uint(c, n, 1000000, &v) && v > MAT_MAX)
        return diag_fail(&c->d, n, _("%s is %llu, at most %d are allowed"), name, v, MAT_MAX);
    if (!schema_uint(c, n, MAT_MAX, &v) || v < 1)
        return diag_fail(&c->d, n, _("%s must be a whole number from 1 to %d, found %s"), name, MAT_MAX,
                         diag_found(&c->d, n));
    *out = (int)v;
    return true;
}

/* ---- nodes and keys ------------------------------------------------------ */

/* Refuse a key that is not among ks, suggesting the closest valid one. */
static bool unknown_key(Loader *c, const yaml_node_t *k, const Keys *ks)
{
    static const char *const in_random[] = {"seed", "d_k", "d_v", "d_out"};
    const char *name = ydoc_str(k), *s = diag_suggest(name, ks->names, ks->n);
    for (int j = 0; !*ks->where && j < 4; j++)
        if (strcmp(name, in_random[j]) == 0)
            return diag_fail(&c->d, k, _("%s goes inside weights, in random: {seed: 42, d_k: 2, %s: ...}; with "
                                         "Wq, Wk, Wv written out the sizes are their widths (d_out: the width "
                                         "of Wo)"), diag_quote(&c->d, name), name);
    for (int j = 0; !*ks->where && j < OPT_COUNT; j++) /* an option written at the top level */
        if ((option_table[j].flags & OF_OPTIONS) && strcmp(name, option_table[j].key) == 0)
            return diag_fail(&c->d, k, _("%s goes inside options, like options: {%s: ...}"), diag_quote(&c->d, name),
                             name);
    if (s)
        return diag_fail(&c->d, k, _("unknown %s %s%s (did you mean \"%s\"?)"), ks->noun,
                         diag_quote(&c->d, name), ks->where, s);
    char list[256];
    return diag_fail(&c->d, k, _("unknown %s %s%s, expected %s"), ks->noun, diag_quote(&c->d, name), ks->where,
                     diag_join_or(ks->names, ks->n, list, sizeof list));
}

/* Read a mapping's pairs into val[] and key[] (indexed like ks->names),
 * refusing keys that are not text, unknown keys and duplicates (each one;
 * the known keys are read all the same). */
bool schema_keys(Loader *c, const yaml_node_t *map, const Keys *ks, yaml_node_t **val, yaml_node_t **key)
{
    bool ok = true;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = ydoc_node(c->doc, p->key);
        if (!diag_want(&c->d, k, YAML_SCALAR_NODE, _("keys must be names like %s"), ks->names[0])) {
            ok = false;
            continue;
        }
        int id = 0;
        while (id < ks->n && strcmp(ydoc_str(k), ks->names[id]) != 0)
            id++;
        if (id == ks->n)
            ok = unknown_key(c, k, ks);
        else if (key[id])
            ok = diag_fail(&c->d, k, _("%s is given twice, the first is at line %zu"),
                           diag_quote(&c->d, ydoc_str(k)), key[id]->start_mark.line + 1);
        else {
            key[id] = k;
            val[id] = ydoc_node(c->doc, p->value);
        }
    }
    return ok;
}

/* An index's digits as written (cut after 24), for a message. */
const char *schema_index_text(const RefIndex *x, char *buf, size_t len)
{
    return num_whole_text(x->at, (size_t)x->len, buf, len);
}

/* Check a resolved reference against the shapes, naming the index as
 * written. */
static bool check_ref(Loader *c, const yaml_node_t *n, const Attn *shape, Ref *r)
{
    char hm[256];
    if (ref_head(shape, &r->mat, hm, sizeof hm) != REF_OK)
        return diag_fail(&c->d, n, "%s", hm);
    RefStatus st = ref_check(r, shape);
    const Mat *x = &shape->m[r->mat];
    const char *name = attn_mat_name(r->mat);
    char num[32];
    if (st == REF_ROW_RANGE)
        return diag_fail(&c->d, n, _("row %s is out of range in %s, %s has %d row%s"),
                         schema_index_text(&r->idx[0], num, sizeof num), diag_quote(&c->d, ydoc_str(n)), name,
                         x->rows, x->rows == 1 ? "" : "s");
    if (st == REF_COL_RANGE)
        return diag_fail(&c->d, n, _("column %s is out of range in %s, %s has %d column%s"),
                         schema_index_text(&r->idx[1], num, sizeof num), diag_quote(&c->d, ydoc_str(n)), name,
                         x->cols, x->cols == 1 ? "" : "s");
    return true;
}

/* Parse a reference scalar ("M[i]" or "M[i][j]") and check it against the
 * shapes; fills *r. `what` names the field, `form` shows the expected
 * spelling. */
bool schema_ref(Loader *c, const yaml_node_t *n, const Attn *shape, const char *what, const char *form,
                Ref *r)
{
    if (!schema_want_text(c, n, what))
        return false;
    const char *s = ydoc_str(n);
    RefStatus st = ref_parse(s, r);
    if (ref_syntax_error(st) || r->n == 0)
        return diag_fail(&c->d, n, _("%s must be %s, found %s"), what, form, diag_quote(&c->d, s));
    char list[256];
    if (ref_matrix(r) == REF_UNKNOWN)
        return diag_fail(&c->d, n, _("unknown matrix in %s, expected %s"), diag_quote(&c->d, s),
                         ref_matrix_list(shape, false, list, sizeof list));
    if (st == REF_ZERO)
        return diag_fail(&c->d, n, _("indices start at 1, found %s"), diag_quote(&c->d, s));
    return check_ref(c, n, shape, r);
}

/* ---- text fields ---------------------------------------------------------- */

static const char *const lang_keys[] = {"zh", "en"};
static const Lang lang_ids[] = {LANG_ZH, LANG_EN};

void schema_fill(char *buf, size_t len, const char *fmt, const char *s, int n)
{
    const char *pc = strchr(fmt, '%');
    if (!pc || pc[1] != (s ? 's' : 'd') || strchr(pc + 2, '%') || len == 0) {
        if (s)
            snprintf(buf, len, fmt, s);
        else
            snprintf(buf, len, fmt, n);
        return;
    }
    char num[16], *d = num + sizeof num;
    if (!s) { /* n in decimal */
        unsigned u = n < 0 ? 0u - (unsigned)n : (unsigned)n;
        *--d = '\0';
        do
            *--d = (char)('0' + u % 10);
        while (u /= 10);
        if (n < 0)
            *--d = '-';
        s = d;
    }
    size_t o = 0;
    const char *parts[3] = {fmt, s, pc + 2};
    size_t lens[3] = {(size_t)(pc - fmt), strlen(s), strlen(pc + 2)};
    for (int k = 0; k < 3; k++) {
        size_t m = lens[k] < len - 1 - o ? lens[k] : len - 1 - o;
        memcpy(buf + o, parts[k], m);
        o += m;
    }
    buf[o] = '\0';
}

/* Read a text field: a plain string (kept as the English slot, which
 * text_get() falls back on), or a mapping {zh: ..., en: ...}. */
bool schema_text(Loader *c, const yaml_node_t *n, const char *what, Text *t)
{
    if (!n)
        return true;
    if (n->type == YAML_SCALAR_NODE)
        return schema_dup_text(c, n, what, &t->s[LANG_EN]);
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("%s must be text, or a mapping like {zh: ..., en: ...}"), what))
        return false;
    char where[40];
    schema_fill(where, sizeof where, _(" in %s"), what, 0);
    Keys ks = {lang_keys, 2, _("language"), where};
    yaml_node_t *val[2] = {0}, *key[2] = {0};
    if (!schema_keys(c, n, &ks, val, key))
        return false;
    if (!val[0] && !val[1])
        return diag_fail(&c->d, n, _("%s is empty, write it as text or as {zh: ..., en: ...}"), what);
    for (int k = 0; k < 2; k++)
        if (val[k] && !schema_dup_text(c, val[k], what, &t->s[lang_ids[k]]))
            return false;
    return true;
}
