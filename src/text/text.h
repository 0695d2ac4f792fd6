/* text.h - bilingual strings and safe display of lesson text.
 *
 * A Text holds the same sentence in each language; text_get() returns the
 * asked one, or the other when it is missing, or "". Lesson text is never
 * shown raw: text_sanitize() replaces control characters (C0, DEL, C1,
 * escape sequences start with ESC) and invalid UTF-8 with visible stand-ins,
 * so a lesson cannot move the cursor or retitle the terminal. Widths are
 * display columns measured with wcwidth(), never bytes or characters. */
#ifndef QKV_TEXT_H
#define QKV_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { LANG_EN, LANG_ZH, LANG_COUNT } Lang;

typedef struct {
    char *s[LANG_COUNT];
} Text;

const char *text_get(const Text *t, Lang lang);
void text_free(Text *t);

/* Copy src into dst (size len, always terminated) with every control
 * character replaced: C0 by its Control Pictures symbol (U+2400 + c, ESC
 * shows as U+241B), DEL by U+2421, C1 by U+FFFD, invalid bytes by U+FFFD.
 * Every C0 character is replaced, tab and newline included (they show as
 * U+2409 and U+240A): callers that wrap narration turn '\n' and '\t' into
 * spaces (or split on them) before sanitising. The output is cut at a
 * character boundary when dst is too small. When ascii is true (callers
 * pass it for a non-UTF-8 terminal), every control character, invalid byte
 * and non-ASCII character becomes '?'. */
void text_sanitize(const char *src, char *dst, size_t len, bool ascii);
/* ---- the one quoter ---- */
/* The one quoter for user text in messages (lesson text, file names,
 * command-line arguments, what a student typed): printable characters as
 * they are; C0 controls, DEL and invalid bytes as \xNN (ESC shows as
 * \x1b); C1 controls, bidi controls and zero-width characters as \uXXXX,
 * so nothing quoted can act on a terminal or reorder the line. Cut after
 * `cut` bytes (0: never) at a character boundary, then "..."; between
 * `open` and `close` ("\"", "\"" or "{", "}" or "", ""). Returns buf. */
char *text_quote_n(const char *s, size_t cut, const char *open, const char *close, char *buf, size_t len);
/* text_quote_n() cut after 40 bytes. */
char *text_quote(const char *s, const char *open, const char *close, char *buf, size_t len);
/* A file name or argument as a message shows it: text_quote_n(), whole, no
 * quotes. */
char *text_shown(const char *s, char *buf, size_t len);
/* The first bidi control (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F,
 * U+061C) or zero-width character (U+200B-U+200D, U+2060, U+FEFF) in
 * s[0..len): its byte offset, code point, Unicode name and whether it is a
 * bidi control. Returns len when there is none. */
size_t text_find_format(const char *s, size_t len, unsigned *cp, const char **name, bool *bidi);
/* ---- the one column counter ---- */
/* Display width of a UTF-8 string (control characters and invalid bytes
 * count as 1, as after sanitising). Uses wcwidth(), so the caller's
 * LC_CTYPE must be a UTF-8 locale for wide characters to count 2. */
int text_width(const char *s);
/* The columns code point cp takes as the terminal's curses counts them
 * (wcwidth: -1 for a control, 0 for a combining mark). */
int text_cp_columns(uint32_t cp);
/* Display width of the first n bytes of s. */
int text_width_n(const char *s, size_t n);
/* Byte length of the longest prefix of s that fits in `cols` columns. */
size_t text_fit(const char *s, int cols);
/* text_fit, and the columns those bytes take (text_width_n of them) in
 * *width when width is not NULL: one walk for both. */
size_t text_fit_width(const char *s, int cols, int *width);
/* True when s is valid UTF-8. */
bool text_utf8_valid(const char *s, size_t len);

/* ---- the one UTF-8 decoder (every other file steps through UTF-8 with these;
 * tests/arch.py refuses byte masks, lead bytes, mbrtowc/wcwidth elsewhere) ---- */

/* What text_utf8_next() gives for an invalid byte (shown as U+FFFD). */
#define TEXT_BAD_CP 0xFFFFFFFFu
/* Decode one strict UTF-8 character from s (n >= 1 bytes left) into *cp.
 * Returns the bytes used; an invalid sequence (overlong, surrogate, above
 * U+10FFFF, cut short) uses one byte and gives TEXT_BAD_CP. */
size_t text_utf8_decode(const char *s, size_t n, uint32_t *cp);
/* The same, with ASCII and the three-byte characters of Chinese text decoded
 * inline (lesson files are mostly those); anything else goes to the full
 * decoder above. */
static inline size_t text_utf8_next(const char *str, size_t n, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xF0) == 0xE0 && n >= 3 && (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80) {
        uint32_t v = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (uint32_t)(s[2] & 0x3F);
        if (v >= 0x800 && (v < 0xD800 || v > 0xDFFF)) { /* not overlong, no surrogate */
            *cp = v;
            return 3;
        }
    }
    return text_utf8_decode(str, n, cp);
}
/* The bytes of the run of characters U+3000..U+CFFF (CJK text: three
 * bytes each, lead byte E3..EC) at the start of s (n bytes): such a
 * character is never overlong, a surrogate, a line break or a
 * noncharacter, so a validator may pass the run without decoding it. */
static inline size_t text_cjk_run(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t k = 0;
    while (n - k >= 3 && (unsigned)(s[k] - 0xE3) < 10 && (s[k + 1] & 0xC0) == 0x80 && (s[k + 2] & 0xC0) == 0x80)
        k += 3;
    return k;
}
/* Encode cp as UTF-8 into out (room for 4 bytes). Returns the length. */
size_t text_utf8_put(uint32_t cp, char *out);
/* The same for a key or a code point from outside: 0 (nothing written)
 * when cp is no Unicode scalar value (a surrogate, above U+10FFFF). */
size_t text_utf8_put_valid(uint32_t cp, char *out);
/* The code point of s when s (n bytes) is exactly one character, else
 * TEXT_BAD_CP: a cell's character tested by its code point, not its bytes. */
uint32_t text_cp_of(const char *s, size_t n);
/* The bytes of a C1 control (U+0080..U+009F, UTF-8 C2 80..C2 9F) at s,
 * with its code point in *cp (when cp is not NULL); 0 when s starts with
 * anything else. Inline: --json's string writer asks it of every byte. */
static inline size_t text_c1(const char *s, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] != 0xC2 || u[1] < 0x80 || u[1] > 0x9F)
        return 0;
    if (cp)
        *cp = u[1];
    return 2;
}
/* True when byte b continues a UTF-8 character (10xxxxxx). */
bool text_is_cont(unsigned char b);
/* The character boundaries around byte pos, by continuation bytes only (a
 * stray continuation byte belongs to the character before it):
 *   text_char_prev   where the character before pos starts (0 at 0);
 *   text_char_next   where the character after the one at pos starts, at
 *                    most n (n may be SIZE_MAX: a NUL ends the walk too);
 *   text_char_start  pos moved back to the start of its character (where to
 *                    cut a string so no character is split). */
size_t text_char_prev(const char *s, size_t pos);
size_t text_char_next(const char *s, size_t n, size_t pos);
size_t text_char_start(const char *s, size_t pos);
/* Characters (not continuation bytes) in s[0..n): a message's column. */
size_t text_chars(const char *s, size_t n);
/* The byte offset of character nth (0-based) of s, or its end. */
size_t text_char_offset(const char *s, size_t nth);
/* Parse a language name: "zh*" (zh, zh_CN.UTF-8) gives LANG_ZH; "en*", "C",
 * "C.UTF-8" and "POSIX" give LANG_EN. Returns -1 if unknown. */
int text_lang_parse(const char *s);

/* Append printf-formatted text to the string in buf (cap bytes in all),
 * never overflowing it: what does not fit is cut. */
#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
void text_append(char *buf, size_t cap, const char *fmt, ...);

#endif
