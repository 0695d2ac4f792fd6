/* text.c - bilingual strings, UTF-8 checks and safe display (see text.h). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700  /* wcwidth */
#endif
#include "text.h"

#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define BAD_CP TEXT_BAD_CP  /* an invalid byte: shown as U+FFFD */

const char *text_get(const Text *t, Lang lang)
{
    if (!t)
        return "";
    if (lang >= 0 && lang < LANG_COUNT && t->s[lang] && t->s[lang][0])
        return t->s[lang];
    for (int k = 0; k < LANG_COUNT; k++)
        if (t->s[k] && t->s[k][0])
            return t->s[k];
    return "";
}

void text_free(Text *t)
{
    for (int k = 0; k < LANG_COUNT; k++) {
        free(t->s[k]);
        t->s[k] = NULL;
    }
}

/* ---- the one UTF-8 decoder ---------------------------------------------------------- */

bool text_is_cont(unsigned char b)
{
    return (b & 0xC0) == 0x80;
}

size_t text_utf8_decode(const char *str, size_t n, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned char b = s[0];
    size_t len = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3
               : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    *cp = BAD_CP;
    if (len == 0 || len > n)
        return 1;
    if (len == 1) {
        *cp = b;
        return 1;
    }
    unsigned char lo = 0x80, hi = 0xBF;  /* bounds for the second byte */
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
    if (s[1] < lo || s[1] > hi)
        return 1;
    uint32_t v = b & (0xFF >> (len + 1));
    for (size_t k = 1; k < len; k++) {
        if (!text_is_cont(s[k]))
            return 1;
        v = (v << 6) | (s[k] & 0x3F);
    }
    *cp = v;
    return len;
}

size_t text_char_prev(const char *s, size_t pos)
{
    if (pos == 0)
        return 0;
    for (pos--; pos > 0 && text_is_cont((unsigned char)s[pos]); pos--) {}
    return pos;
}

size_t text_char_next(const char *s, size_t n, size_t pos)
{
    if (pos >= n)
        return pos;
    for (pos++; pos < n && text_is_cont((unsigned char)s[pos]); pos++) {}
    return pos;
}

size_t text_char_start(const char *s, size_t pos)
{
    while (pos > 0 && text_is_cont((unsigned char)s[pos]))
        pos--;
    return pos;
}

size_t text_chars(const char *s, size_t n)
{
    size_t chars = 0;
    for (size_t k = 0; k < n; k++)
        chars += !text_is_cont((unsigned char)s[k]);
    return chars;
}

size_t text_char_offset(const char *s, size_t nth)
{
    size_t off = 0;
    for (size_t chars = 0; s[off] && chars < nth; chars += !text_is_cont((unsigned char)s[off]))
        off++;
    while (s[off] && text_is_cont((unsigned char)s[off]))
        off++;
    return off;
}

bool text_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    while (k < len) {
        uint32_t cp;
        k += text_utf8_next((const char *)p + k, len - k, &cp);
        if (cp == BAD_CP)
            return false;
    }
    return true;
}

/* The visible stand-in for a character, or cp itself when it is safe. */
static uint32_t safe_cp(uint32_t cp)
{
    if (cp < 0x20)
        return 0x2400 + cp;
    if (cp == 0x7F)
        return 0x2421;
    if (cp == BAD_CP || (cp >= 0x80 && cp <= 0x9F))
        return 0xFFFD;
    return cp;
}

size_t text_utf8_put(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

void text_sanitize(const char *src, char *dst, size_t len, bool ascii)
{
    if (len == 0)
        return;
    const unsigned char *p = (const unsigned char *)(src ? src : "");
    size_t n = strlen((const char *)p), k = 0, o = 0;
    while (k < n) {
        if (p[k] >= 0x20 && p[k] < 0x7F) { /* printable ASCII stays as it is */
            if (o + 1 >= len)
                break;
            dst[o++] = (char)p[k++];
            continue;
        }
        uint32_t cp;
        k += text_utf8_next((const char *)p + k, n - k, &cp);
        char enc[4];
        size_t m;
        if (ascii) {
            enc[0] = cp >= 0x20 && cp < 0x7F ? (char)cp : '?';
            m = 1;
        } else {
            m = text_utf8_put(safe_cp(cp), enc);
        }
        if (o + m >= len)
            break;
        memcpy(dst + o, enc, m);
        o += m;
    }
    dst[o] = '\0';
}

/* Columns taken by one decoded character, as it shows after sanitising.
 * Printable ASCII is one column in every locale: no wcwidth() for it. */
static int cp_width(uint32_t cp)
{
    if (cp >= 0x20 && cp < 0x7F)
        return 1;
    cp = safe_cp(cp);
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : w;
}

size_t text_utf8_put_valid(uint32_t cp, char *out)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return text_utf8_put(cp, out);
}

uint32_t text_cp_of(const char *s, size_t n)
{
    uint32_t cp;
    return n > 0 && text_utf8_next(s, n, &cp) == n ? cp : TEXT_BAD_CP;
}

int text_cp_columns(uint32_t cp)
{
    return wcwidth((wchar_t)cp);
}

int text_width(const char *s)
{
    return text_width_n(s, strlen(s));
}

int text_width_n(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    int w = 0;
    while (k < n) {
        if (p[k] >= 0x20 && p[k] < 0x7F) { /* printable ASCII: one column each */
            k++;
            w++;
            continue;
        }
        uint32_t cp;
        k += text_utf8_next((const char *)p + k, n - k, &cp);
        w += cp_width(cp);
    }
    return w;
}

size_t text_fit(const char *s, int cols)
{
    return text_fit_width(s, cols, NULL);
}

size_t text_fit_width(const char *s, int cols, int *width)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    int w = 0;
    while (p[k]) { /* never past the line: linear in what fits, not in s */
        if (p[k] >= 0x20 && p[k] < 0x7F) { /* printable ASCII: one column */
            if (w + 1 > cols)
                break;
            w++;
            k++;
            continue;
        }
        uint32_t cp;
        size_t m = text_utf8_next((const char *)p + k, strnlen(s + k, 4), &cp);
        int cw = cp_width(cp);
        if (w + cw > cols)
            break;
        w += cw;
        k += m;
    }
    if (width)
        *width = w;
    return k;
}

/* Does s begin with `word` followed by the end or a locale separator? */
static bool lang_word(const char *s, const char *word)
{
    size_t n = strlen(word);
    return strncmp(s, word, n) == 0 && (s[n] == '\0' || strchr("_.@-:", s[n]) != NULL);
}

int text_lang_parse(const char *s)
{
    if (!s || !s[0])
        return -1;
    if (strncmp(s, "zh", 2) == 0)
        return LANG_ZH;
    if (strncmp(s, "en", 2) == 0 || lang_word(s, "C") || lang_word(s, "POSIX"))
        return LANG_EN;
    return -1;
}

/* The bidi controls and zero-width characters a lesson may not hold, by
 * name (the loader refuses them; messages show them as \uXXXX). */
static const struct {
    uint32_t cp;
    bool bidi;  /* reorders text; otherwise it is invisible */
    const char *name;
} format_chars[] = {
    {0x061C, true, "ARABIC LETTER MARK"},
    {0x200B, false, "ZERO WIDTH SPACE"},
    {0x200C, false, "ZERO WIDTH NON-JOINER"},
    {0x200D, false, "ZERO WIDTH JOINER"},
    {0x200E, true, "LEFT-TO-RIGHT MARK"},
    {0x200F, true, "RIGHT-TO-LEFT MARK"},
    {0x202A, true, "LEFT-TO-RIGHT EMBEDDING"},
    {0x202B, true, "RIGHT-TO-LEFT EMBEDDING"},
    {0x202C, true, "POP DIRECTIONAL FORMATTING"},
    {0x202D, true, "LEFT-TO-RIGHT OVERRIDE"},
    {0x202E, true, "RIGHT-TO-LEFT OVERRIDE"},
    {0x2060, false, "WORD JOINER"},
    {0x2066, true, "LEFT-TO-RIGHT ISOLATE"},
    {0x2067, true, "RIGHT-TO-LEFT ISOLATE"},
    {0x2068, true, "FIRST STRONG ISOLATE"},
    {0x2069, true, "POP DIRECTIONAL ISOLATE"},
    {0xFEFF, false, "ZERO WIDTH NO-BREAK SPACE"},
};

static int format_index(uint32_t cp)
{
    if (cp < 0x061C)
        return -1; /* the table's first: ASCII and most text need no search */
    for (size_t k = 0; k < sizeof format_chars / sizeof *format_chars; k++)
        if (format_chars[k].cp == cp)
            return (int)k;
    return -1;
}

size_t text_find_format(const char *s, size_t len, unsigned *cp, const char **name, bool *bidi)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    while (k < len) {
        uint32_t c;
        size_t m = text_utf8_next((const char *)p + k, len - k, &c);
        int f = format_index(c);
        if (f >= 0) {
            *cp = c;
            *name = format_chars[f].name;
            *bidi = format_chars[f].bidi;
            return k;
        }
        k += m;
    }
    return len;
}

/* Append the message form of s[0..n) to out (room for 4n + 1 bytes):
 * printable characters as they are; C0, DEL and invalid bytes as \xNN
 * (ESC is \x1b); C1 characters, bidi controls and zero-width characters
 * as \uXXXX. */
static size_t escape_into(const unsigned char *s, size_t n, char *out)
{
    size_t k = 0, o = 0;
    while (k < n) {
        uint32_t cp;
        size_t m = text_utf8_next((const char *)s + k, n - k, &cp);
        if (cp == BAD_CP || cp < 0x20 || cp == 0x7F)
            o += (size_t)sprintf(out + o, "\\x%02x", s[k]);
        else if ((cp >= 0x80 && cp <= 0x9F) || format_index(cp) >= 0)
            o += (size_t)sprintf(out + o, "\\u%04x", (unsigned)cp);
        else {
            memcpy(out + o, s + k, m);
            o += m;
        }
        k += m;
    }
    out[o] = '\0';
    return o;
}

char *text_quote_n(const char *s, size_t cut, const char *open, const char *close, char *buf, size_t len)
{
    size_t n = strlen(s);
    bool longer = cut > 0 && n > cut;
    if (longer) {
        n = text_char_start(s, cut);
    }
    char small[4 * 48 + 1];
    char *esc = 4 * n + 1 <= sizeof small ? small : malloc(4 * n + 1);
    if (!esc) {  /* out of memory: the bytes as ? */
        snprintf(buf, len, "%s?%s", open, close);
        return buf;
    }
    escape_into((const unsigned char *)s, n, esc);
    snprintf(buf, len, "%s%s%s%s", open, esc, longer ? "..." : "", close);
    if (esc != small)
        free(esc);
    return buf;
}

char *text_quote(const char *s, const char *open, const char *close, char *buf, size_t len)
{
    return text_quote_n(s, 40, open, close, buf, len);
}

char *text_shown(const char *s, char *buf, size_t len)
{
    return text_quote_n(s ? s : "", 0, "", "", buf, len);
}

void text_append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}
