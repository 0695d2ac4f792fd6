/* json.c - the streaming JSON writer behind --json (json.h). */
#include "json.h"

#include <string.h>

#include "text/shortest.h"

void json_init(Json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    j->first[0] = true;
    j->n = 0;
}

static void flush(Json *j)
{
    fwrite(j->buf, 1, j->n, j->out);
    j->n = 0;
}

/* Room for `len` more bytes (len <= sizeof buf). */
static char *room(Json *j, size_t len)
{
    if (j->n + len > sizeof j->buf)
        flush(j);
    return j->buf + j->n;
}

static void put(Json *j, const char *s, size_t len)
{
    if (len > sizeof j->buf) {
        flush(j);
        fwrite(s, 1, len, j->out);
        return;
    }
    memcpy(room(j, len), s, len);
    j->n += len;
}

static void put_char(Json *j, char c)
{
    *room(j, 1) = c;
    j->n++;
}

/* A string's body, escaped: '"', '\\', the C0 controls (\n, \t ... or
 * \u00XX), DEL and the C1 controls (UTF-8 0xC2 0x80..0x9F) as \u escapes. */
static void put_escaped(Json *j, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t run = 0; /* bytes that need no escape */
        while (p[run] >= 0x20 && p[run] != '"' && p[run] != '\\' && p[run] != 0x7F &&
               !(p[run] == 0xC2 && p[run + 1] >= 0x80 && p[run + 1] <= 0x9F))
            run++;
        put(j, (const char *)p, run);
        p += run;
        if (!*p)
            break;
        unsigned c = *p++;
        if (c == 0xC2)
            c = *p++; /* a C1 control: U+0080..U+009F */
        char e[7] = {'\\', 0};
        size_t len = 2;
        switch (c) {
        case '"': e[1] = '"'; break;
        case '\\': e[1] = '\\'; break;
        case '\b': e[1] = 'b'; break;
        case '\f': e[1] = 'f'; break;
        case '\n': e[1] = 'n'; break;
        case '\r': e[1] = 'r'; break;
        case '\t': e[1] = 't'; break;
        default:
            memcpy(e + 1, "u00", 3);
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
            len = 6;
        }
        put(j, e, len);
    }
}

/* The comma before an item and its key. */
static void item(Json *j, const char *key)
{
    if (!j->first[j->depth])
        put_char(j, ',');
    j->first[j->depth] = false;
    if (key) {
        put_char(j, '"');
        put_escaped(j, key);
        put(j, "\":", 2);
    }
}

static void open_(Json *j, const char *key, char c)
{
    item(j, key);
    put_char(j, c);
    if (j->depth + 1 < JSON_DEPTH)
        j->depth++;
    j->first[j->depth] = true;
    j->close[j->depth] = c == '{' ? '}' : ']';
}

void json_object(Json *j, const char *key)
{
    open_(j, key, '{');
}

void json_array(Json *j, const char *key)
{
    open_(j, key, '[');
}

void json_end(Json *j)
{
    if (j->depth > 0)
        put_char(j, j->close[j->depth--]);
}

void json_number(Json *j, const char *key, double v)
{
    char num[SHORTEST_MAX + 2];
    item(j, key);
    if (v == v && v - v == 0) { /* finite */
        put(j, num, shortest_print(v, num));
        return;
    }
    size_t n = shortest_print(v, num + 1); /* "nan", "inf", "-inf" as strings */
    num[0] = num[n + 1] = '"';
    put(j, num, n + 2);
}

void json_string(Json *j, const char *key, const char *s)
{
    item(j, key);
    put_char(j, '"');
    put_escaped(j, s);
    put_char(j, '"');
}

void json_null(Json *j, const char *key)
{
    item(j, key);
    put(j, "null", 4);
}

bool json_finish(Json *j)
{
    put_char(j, '\n');
    flush(j);
    return !ferror(j->out);
}
