/* fullwidth.c - full-width punctuation where YAML needs its ASCII form
 * (see fullwidth.h). */
#include "fullwidth.h"

#include <stdio.h>
#include <string.h>

#include "text/i18n.h"
#include "text/text.h"

enum { FW_COLON, FW_LBRACKET, FW_RBRACKET, FW_LBRACE, FW_RBRACE, FW_N };

static const struct {
    const char *utf8, *name, *ascii, *role;
} marks[FW_N] = {
    {"\xef\xbc\x9a", "U+FF1A FULLWIDTH COLON", ":", N_("the colon after a key")},
    {"\xef\xbc\xbb", "U+FF3B FULLWIDTH LEFT SQUARE BRACKET", "[", N_("the start of a list")},
    {"\xef\xbc\xbd", "U+FF3D FULLWIDTH RIGHT SQUARE BRACKET", "]", N_("the end of a list")},
    {"\xef\xbd\x9b", "U+FF5B FULLWIDTH LEFT CURLY BRACKET", "{", N_("the start of a mapping")},
    {"\xef\xbd\x9d", "U+FF5D FULLWIDTH RIGHT CURLY BRACKET", "}", N_("the end of a mapping")},
};

/* Which of marks[] starts s[pos..n), or -1. */
static int mark_at(const char *s, size_t n, size_t pos)
{
    for (int k = 0; k < FW_N; k++)
        if (pos + 3 <= n && memcmp(s + pos, marks[k].utf8, 3) == 0)
            return k;
    return -1;
}

static size_t skip_spaces(const char *s, size_t n, size_t pos)
{
    while (pos < n && s[pos] == ' ')
        pos++;
    return pos;
}

/* Past a quoted scalar that starts at pos (its closing quote, or n). */
static size_t skip_quoted(const char *s, size_t n, size_t pos)
{
    char q = s[pos];
    for (pos++; pos < n && s[pos] != q; pos++)
        if (q == '"' && s[pos] == '\\')
            pos++;
    return pos < n ? pos + 1 : n;
}

/* Inside an ASCII flow collection from pos: a full-width closing bracket
 * outside quotes. Returns its offset, or -1. */
static long in_flow(const char *s, size_t n, size_t pos, int *kind)
{
    while (pos < n) {
        int k = mark_at(s, n, pos);
        if (k == FW_RBRACKET || k == FW_RBRACE) {
            *kind = k;
            return (long)pos;
        }
        if (s[pos] == '"' || s[pos] == '\'')
            pos = skip_quoted(s, n, pos);
        else if (s[pos] == '#' && pos > 0 && s[pos - 1] == ' ')
            return -1;
        else
            pos++;
    }
    return -1;
}

/* Where a value starts: a full-width opening bracket, or an ASCII flow
 * collection to look into. */
static long at_value(const char *s, size_t n, size_t pos, int *kind)
{
    pos = skip_spaces(s, n, pos);
    int k = mark_at(s, n, pos);
    if (k == FW_LBRACKET || k == FW_LBRACE) {
        *kind = k;
        return (long)pos;
    }
    return pos < n && (s[pos] == '[' || s[pos] == '{') ? in_flow(s, n, pos + 1, kind) : -1;
}

/* The structural full-width punctuation in one line (or plain scalar)
 * s[0..n): its byte offset and kind, or -1. */
static long find_mark(const char *s, size_t n, int *kind)
{
    size_t pos = skip_spaces(s, n, 0);
    while (pos < n && s[pos] == '-' && (pos + 1 == n || s[pos + 1] == ' '))
        pos = skip_spaces(s, n, pos + 1); /* "- " items */
    long v = at_value(s, n, pos, kind);
    if (v >= 0 || (pos < n && (s[pos] == '[' || s[pos] == '{')))
        return v;
    if (pos < n && (s[pos] == '"' || s[pos] == '\'')) /* a quoted key, or a quoted value: no key after it */
        pos = skip_spaces(s, n, skip_quoted(s, n, pos));
    for (; pos < n; pos = text_char_next(s, n, pos)) { /* the key, up to its colon */
        if (mark_at(s, n, pos) == FW_COLON) {
            *kind = FW_COLON;
            return (long)pos;
        }
        if (s[pos] == ':' && (pos + 1 == n || s[pos + 1] == ' '))
            return at_value(s, n, pos + 1, kind);
        if (s[pos] == '"' || s[pos] == '\'' || (s[pos] == '#' && pos > 0 && s[pos - 1] == ' '))
            return -1;
    }
    return -1;
}

/* The message for marks[kind], into msg. */
static bool say(int kind, char *msg, size_t len)
{
    snprintf(msg, len, _("\"%s\" is %s, which YAML does not read as %s; write an ASCII \"%s\" instead"),
             marks[kind].utf8, marks[kind].name, _(marks[kind].role), marks[kind].ascii);
    return true;
}

bool fullwidth_syntax(const yaml_parser_t *p, const char *buf, size_t len, FullwidthHit *hit)
{
    size_t last = p->problem_mark.line;
    size_t first = p->context && p->context_mark.line < last ? p->context_mark.line : last > 0 ? last - 1 : 0;
    size_t line = 0, at = 0;
    for (; at < len && line < first; at++)
        line += buf[at] == '\n';
    for (; at < len && line <= last; line++) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - buf) : len;
        int kind;
        long off = find_mark(buf + at, end - at, &kind);
        if (off >= 0) {
            hit->line = line;
            hit->col = text_chars(buf + at, (size_t)off);
            return say(kind, hit->msg, sizeof hit->msg);
        }
        at = end + 1;
    }
    return false;
}

bool fullwidth_scalar(const yaml_node_t *n, FullwidthHit *hit)
{
    int kind;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        n->start_mark.line != n->end_mark.line)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    long off = find_mark(s, n->data.scalar.length, &kind);
    if (off < 0)
        return false;
    hit->line = n->start_mark.line;
    hit->col = n->start_mark.column + text_chars(s, (size_t)off);
    return say(kind, hit->msg, sizeof hit->msg);
}
