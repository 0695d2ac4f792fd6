/* skim.c - --json's narration skimmer (see skim.h). */
#include "skim.h"

#include "text/text.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SKIM_DEPTH 32
#define SKIM_BAIL ((size_t)-1)

/* What an open block node is: a step item, the top-level steps:, a
 * narration key (about:, say:, question:) or a key below one. */
enum { W_OTHER, W_STEPS, W_STEP, W_NARR, W_BELOW };

typedef struct {
    int col;
    bool item;  /* "- " rather than "key:" */
    int what;
    int child;  /* W_NARR, W_BELOW: the column of its keys (-1: none yet) */
} Open;

typedef struct {
    const char *buf;
    size_t len;
    Open st[SKIM_DEPTH];
    int n;
    int block;  /* a block scalar's lines are those indented more; -1: none */
    int leaf;   /* after a scalar value: the next line's most indentation; -1: any */
    size_t cut_from, cut_to; /* the bytes of this line to leave out (equal: none) */
} Skim;

/* A code point libyaml's reader accepts and that is no line break; at
 * most 4 bytes at p (before end); its length, or 0. */
static size_t utf8_ok(const unsigned char *p, const unsigned char *end)
{
    uint32_t cp;
    size_t n = text_utf8_next((const char *)p, (size_t)(end - p), &cp);
    if (cp == TEXT_BAD_CP || cp < 0xA0 || cp == 0xFEFF || cp == 0xFFFE || cp == 0xFFFF || cp == 0x2028 ||
        cp == 0x2029)
        return 0;
    return n;
}

/* The whole file is text the reader accepts, in lines ending with \n only. */
static bool text_ok(const char *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)buf, *end = p + len;
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    while (p < end) {
        uint64_t w, bad;
        if (end - p >= 8) {
            memcpy(&w, p, 8);
            bad = (((w - ones * 0x20) & ~w) | ((w + ones * 1) | w)) & highs;
            if (bad == 0) {
                p += 8; /* eight bytes 0x20..0x7E */
                continue;
            }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* borrows and carries go up only: the lowest flagged byte is
             * the first outside 0x20..0x7E, the ones before it are fine */
            p += __builtin_ctzll(bad) / 8;
#endif
        }
        if ((*p >= 0x20 && *p < 0x7F) || *p == '\n') {
            p++;
            continue;
        }
        size_t run = text_cjk_run((const char *)p, (size_t)(end - p));
        if (run) {
            p += run;
            continue;
        }
        size_t n = utf8_ok(p, end);
        if (!n)
            return false;
        p += n;
    }
    return true;
}

static bool hex(const char *p, const char *e, int n, unsigned long *v)
{
    *v = 0;
    if (e - p < n)
        return false;
    for (int k = 0; k < n; k++) {
        char ch = p[k];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0)
            return false;
        *v = *v << 4 | (unsigned long)d;
    }
    return true;
}

/* The escape after the backslash at p is one libyaml reads without error;
 * its length after the backslash, or 0. */
static int escape_ok(const char *p, const char *e)
{
    static const char simple[] = "0abt\tnvfre \"/\\N_LP";
    unsigned long v;
    if (p + 1 >= e)
        return 0;
    char ch = p[1];
    int n = ch == 'x' ? 2 : ch == 'u' ? 4 : ch == 'U' ? 8 : 0;
    if (!n)
        return strchr(simple, ch) && ch ? 1 : 0;
    if (!hex(p + 2, e, n, &v) || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF)
        return 0;
    return 1 + n;
}

/* The end of a double-quoted scalar opening at p (after its closing quote),
 * or NULL when it does not close on the line; *clean: every escape valid. */
static const char *dquoted(const char *p, const char *e, bool *clean)
{
    *clean = true;
    const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));
    if (q && !memchr(p + 1, '\\', (size_t)(q - p - 1)))
        return q + 1; /* no escapes: the first quote closes it */
    for (p++; p < e; p++) {
        if (*p == '"')
            return p + 1;
        if (*p == '\\') {
            int n = escape_ok(p, e);
            if (!n) {
                *clean = false;
                n = 1;
            }
            p += n;
        }
    }
    return NULL;
}

static const char *squoted(const char *p, const char *e)
{
    for (p++; p < e; p++)
        if (*p == '\'') {
            if (p + 1 < e && p[1] == '\'')
                p++;
            else
                return p + 1;
        }
    return NULL;
}

/* A flow collection closing on its line: its end, or NULL. No comments,
 * brackets matched by kind. */
static const char *flow(const char *p, const char *e)
{
    char open[SKIM_DEPTH];
    int n = 0;
    bool clean;
    while (p < e) {
        if (*p == '[' || *p == '{') {
            if (n == SKIM_DEPTH)
                return NULL;
            open[n++] = *p == '[' ? ']' : '}';
            p++;
        } else if (*p == ']' || *p == '}') {
            if (n == 0 || open[--n] != *p)
                return NULL;
            p++;
            if (n == 0)
                return p;
        } else if (*p == '"' || *p == '\'') {
            p = *p == '"' ? dquoted(p, e, &clean) : squoted(p, e);
            if (!p)
                return NULL;
        } else if (*p == '#') {
            return NULL;
        } else {
            p++;
        }
    }
    return NULL;
}

/* Only spaces, then perhaps a comment after a space, from p to e. */
static bool rest_blank(const char *p, const char *e)
{
    const char *s = p;
    while (p < e && *p == ' ')
        p++;
    return p == e || (*p == '#' && p > s);
}

/* A plain scalar from p: it stays on its line and holds no ": " (a second
 * key); it ends at " #" or the line's end. */
static bool plain_ok(const char *p, const char *e)
{
    if (strchr("-?:,[]{}#&*!|>'\"%@`", *p) && !(*p == '-' && p + 1 < e && p[1] != ' '))
        return false;
    for (; p < e; p++) {
        if (*p == ':' && (p + 1 == e || p[1] == ' '))
            return false;
        if (*p == '#' && p[-1] == ' ')
            return true;
    }
    return true;
}

/* The value at p (a key's after ": ", or an item's after "- ") of a node
 * whose block indentation is col; narr: a narration value; line: where
 * the line starts, when the whole line may go (a short plain key below a
 * narration key, its value a double-quoted scalar), else NULL. */
static bool value(Skim *s, const char *p, const char *e, int col, bool narr, bool newline, const char *line)
{
    bool clean;
    const char *q;
    while (p < e && *p == ' ')
        p++;
    if (p == e || *p == '#')
        return true; /* a block follows, or nothing */
    s->leaf = col;
    if (*p == '|' || *p == '>') {
        for (p++; p < e && (strchr("+-", *p) || (*p >= '1' && *p <= '9')); p++)
            ;
        s->leaf = -1;
        s->block = col;
        return rest_blank(p, e);
    }
    if (*p == '"') {
        q = dquoted(p, e, &clean);
        if (!q || !rest_blank(q, e))
            return false;
        if (narr && clean && newline && line) { /* `  zh: "..."` goes whole: one node less */
            s->cut_from = (size_t)(line - s->buf);
            s->cut_to = (size_t)(e - s->buf);
        } else if (narr && clean && newline && q - p > 2) {
            s->cut_from = (size_t)(p + 1 - s->buf);
            s->cut_to = (size_t)(q - 1 - s->buf);
        }
        return true;
    }
    if (*p == '\'')
        return (q = squoted(p, e)) && rest_blank(q, e);
    if (*p == '[' || *p == '{')
        return (q = flow(p, e)) && rest_blank(q, e);
    return plain_ok(p, e);
}

/* A key at p (plain or quoted, followed by ':' and a space or the line's
 * end): the byte after its ':', or NULL; *plain_len: a plain key's length. */
static const char *key_end(const char *p, const char *e, size_t *plain_len)
{
    bool clean;
    *plain_len = 0;
    if (*p == '"' || *p == '\'') {
        const char *q = *p == '"' ? dquoted(p, e, &clean) : squoted(p, e);
        return q && q < e && *q == ':' && (q + 1 == e || q[1] == ' ') ? q + 1 : NULL;
    }
    if (strchr("-?:,[]{}#&*!|>'\"%@`", *p))
        return NULL;
    for (const char *q = p; q < e; q++) {
        if (*q == '#' && q[-1] == ' ')
            return NULL;
        if (*q == ':' && (q + 1 == e || q[1] == ' ')) {
            *plain_len = (size_t)(q - p);
            return q + 1;
        }
    }
    return NULL;
}

static bool is_key(const char *p, size_t n, const char *name)
{
    return n == strlen(name) && memcmp(p, name, n) == 0;
}

/* What a key named p[0..n) at the top of the stack is. */
static int key_what(const Skim *s, const char *p, size_t n)
{
    const Open *top = s->n ? &s->st[s->n - 1] : NULL;
    if (!top)
        return is_key(p, n, "steps") ? W_STEPS : is_key(p, n, "about") ? W_NARR : W_OTHER;
    if (top->what == W_STEP && (is_key(p, n, "say") || is_key(p, n, "question")))
        return W_NARR;
    return top->what == W_NARR || top->what == W_BELOW ? W_BELOW : W_OTHER;
}

static bool push(Skim *s, int col, bool item, int what)
{
    if (s->n == SKIM_DEPTH)
        return false;
    s->st[s->n++] = (Open){col, item, what, -1};
    return true;
}

/* A line at column col, with the stack popped to its parent: below a
 * narration key, only keys, all at one column. The lines that go whole
 * (value()) would otherwise hide a misplaced line from libyaml: with
 * `zh:` gone, an `en:` indented less, or a `- item`, would read as the
 * narration key's own value. */
static bool narr_child_ok(Skim *s, int col, bool item)
{
    Open *top = s->n ? &s->st[s->n - 1] : NULL;
    if (!top || (top->what != W_NARR && top->what != W_BELOW))
        return true;
    if (item)
        return false;
    if (top->child < 0)
        top->child = col;
    return top->child == col;
}

/* One line's tokens from column col at p: "- " items, then a key and its
 * value or an item's value. */
static bool content(Skim *s, const char *line, const char *e, int col, bool newline)
{
    const char *p = line + col;
    bool item = false;
    while (*p == '-' && (p + 1 == e || p[1] == ' ')) {
        while (s->n && (s->st[s->n - 1].col > col || (s->st[s->n - 1].col == col && s->st[s->n - 1].item)))
            s->n--;
        int what = s->n && s->st[s->n - 1].what == W_STEPS && s->n == 1 ? W_STEP : W_OTHER;
        if (!narr_child_ok(s, col, true) || !push(s, col, true, what))
            return false;
        item = true;
        for (p++; p < e && *p == ' '; p++)
            ;
        col = (int)(p - line);
        if (p == e)
            return true;
    }
    size_t n;
    const char *after = key_end(p, e, &n);
    if (!after)
        return item && value(s, p, e, s->st[s->n - 1].col, false, newline, NULL);
    while (s->n && s->st[s->n - 1].col >= col)
        s->n--;
    int what = key_what(s, p, n);
    if (!narr_child_ok(s, col, item) || !push(s, col, false, what))
        return false;
    bool whole = what == W_BELOW && !item && n > 0 && n <= 32;
    return value(s, after, e, col, what == W_NARR || what == W_BELOW, newline, whole ? line : NULL);
}

/* One line [line, e): true when it is understood (a cut perhaps set). */
static bool skim_line(Skim *s, const char *line, const char *e, bool newline)
{
    int col = 0;
    while (line + col < e && line[col] == ' ')
        col++;
    if (line + col == e)
        return true;
    if (s->block >= 0 && col > s->block)
        return true;
    s->block = -1;
    if (line[col] == '#') { /* a comment line: its text goes too, the '#' and the line stay */
        s->cut_from = (size_t)(line + col + 1 - s->buf);
        s->cut_to = (size_t)(e - s->buf);
        return true;
    }
    if (s->leaf >= 0 && col > s->leaf)
        return false;
    s->leaf = -1;
    if (col == 0 && (line[0] == '%' || (e - line >= 3 && (memcmp(line, "---", 3) == 0 ||
                                                           memcmp(line, "...", 3) == 0))))
        return false;
    return content(s, line, e, col, newline);
}

size_t skim_narration(char *out, const char *buf, size_t len)
{
    Skim s = {.buf = buf, .len = len, .block = -1, .leaf = -1};
    size_t o = 0, at = 0;
    if (!text_ok(buf, len))
        return SKIM_BAIL;
    while (at < len) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - buf) : len;
        s.cut_from = s.cut_to = 0;
        if (!skim_line(&s, buf + at, buf + end, nl != NULL))
            return SKIM_BAIL;
        size_t stop = nl ? end + 1 : end;
        if (s.cut_to > s.cut_from) {
            memcpy(out + o, buf + at, s.cut_from - at);
            o += s.cut_from - at;
            at = s.cut_to;
        }
        memcpy(out + o, buf + at, stop - at);
        o += stop - at;
        at = stop;
    }
    return o;
}
