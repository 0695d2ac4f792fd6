/* json.c - the streaming JSON writer behind --json (json.h). */
#include "json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/shortest.h"
#include "text/text.h"

void json_init(Json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    j->first[0] = true;
    j->n = 0;
    j->numbers = 0;
    j->memo = NULL;
    j->no_memo = false;
}

void json_no_memo(Json *j)
{
    j->no_memo = true;
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

static void put_bytes(Json *j, const char *s, size_t len)
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
               !text_c1((const char *)p + run, NULL))
            run++;
        put_bytes(j, (const char *)p, run);
        p += run;
        if (!*p)
            break;
        unsigned c;
        size_t c1 = text_c1((const char *)p, &c); /* a C1 control: U+0080..U+009F */
        if (c1)
            p += c1;
        else
            c = *p++;
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
        put_bytes(j, e, len);
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
        put_bytes(j, "\":", 2);
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

/* The text of recently printed doubles, by a hash of their bits: one slot
 * each, a new double takes the slot over. 16384 slots (512 KiB, touched
 * only by a big lesson) catch 120,000 of the 155,654 numbers of a 64-token,
 * 8-head lesson's output. An empty slot holds the bits of a NaN, which is
 * never looked up (only finite numbers are), so one compare finds a hit. */
#define MEMO_SLOTS 16384
#define MEMO_EMPTY 0xFF /* each byte of an empty slot: bits = all ones, a NaN */
struct JsonMemo {
    struct {
        uint64_t bits;
        char text[23];
        unsigned char len;
    } slot[MEMO_SLOTS];
};

/* The memo, its slots empty; written once here (malloc, not calloc: a page
 * read before it is written would fault twice). */
static struct JsonMemo *memo_new(void)
{
    struct JsonMemo *m = malloc(sizeof *m);
    if (m)
        memset(m, MEMO_EMPTY, sizeof *m);
    return m;
}

/* A number not in the memo: printed (shortest_print), then remembered
 * in slot h once the memo exists. Kept out of line, so that the memo's
 * hits (number_text) cost no call. */
static __attribute__((noinline)) size_t number_print(Json *j, uint64_t bits, unsigned h, char *num)
{
    if (++j->numbers == JSON_MEMO_AFTER && !j->no_memo)
        j->memo = memo_new(); /* NULL: print every number */
    double v;
    memcpy(&v, &bits, sizeof v);
    size_t n = shortest_print(v, num);
    if (j->memo && n <= sizeof j->memo->slot[h].text) {
        j->memo->slot[h].bits = bits;
        j->memo->slot[h].len = (unsigned char)n;
        memcpy(j->memo->slot[h].text, num, sizeof j->memo->slot[h].text); /* num has SHORTEST_MAX bytes */
    }
    return n;
}

/* The text of the finite double with these bits into num (SHORTEST_MAX
 * bytes of room); its length. */
static inline size_t number_text(Json *j, uint64_t bits, char *num)
{
    unsigned h = (unsigned)((bits * UINT64_C(0x9E3779B97F4A7C15)) >> 50); /* 14 bits: MEMO_SLOTS */
    if (j->memo && j->memo->slot[h].bits == bits) {
        memcpy(num, j->memo->slot[h].text, sizeof j->memo->slot[h].text); /* a fixed size: two moves */
        return j->memo->slot[h].len;
    }
    return number_print(j, bits, h, num);
}

/* NaN or an infinity: all exponent bits set. */
static inline bool nonfinite(uint64_t bits)
{
    return (bits & UINT64_C(0x7FF0000000000000)) == UINT64_C(0x7FF0000000000000);
}

void json_number(Json *j, const char *key, double v)
{
    item(j, key);
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (!nonfinite(bits)) { /* printed straight into the buffer */
        char *out = room(j, SHORTEST_MAX);
        j->n += number_text(j, bits, out);
        return;
    }
    char num[SHORTEST_MAX + 2];
    size_t n = shortest_print(v, num + 1); /* "nan", "inf", "-inf" as strings */
    num[0] = num[n + 1] = '"';
    put_bytes(j, num, n + 2);
}

void json_numbers(Json *j, const char *key, const double *v, int n)
{
    json_array(j, key);
    /* In runs that surely fit the buffer (SHORTEST_MAX + 1 bytes each, the
     * comma and the most number_text writes): no room check per number. */
    for (int k = 0; k < n;) {
        size_t fit = (sizeof j->buf - j->n) / (SHORTEST_MAX + 1);
        if (fit == 0) {
            flush(j);
            continue;
        }
        int end = (size_t)(n - k) < fit ? n : k + (int)fit;
        char *p = j->buf + j->n;
        while (k < end) {
            uint64_t bits;
            memcpy(&bits, &v[k], sizeof bits);
            if (nonfinite(bits)) { /* NaN, inf: the strings */
                j->n = (size_t)(p - j->buf);
                j->first[j->depth] = k == 0;
                json_number(j, NULL, v[k]);
                p = j->buf + j->n;
                k++;
                break; /* the room left is counted again */
            }
            if (k > 0)
                *p++ = ',';
            p += number_text(j, bits, p);
            for (k++; k < end; k++) { /* the rest of the run, each after a comma */
                memcpy(&bits, &v[k], sizeof bits);
                if (nonfinite(bits))
                    break;
                *p++ = ',';
                p += number_text(j, bits, p);
            }
        }
        j->n = (size_t)(p - j->buf);
    }
    j->first[j->depth] = n == 0;
    json_end(j);
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
    put_bytes(j, "null", 4);
}

bool json_finish(Json *j)
{
    put_char(j, '\n');
    flush(j);
    free(j->memo);
    j->memo = NULL;
    return !ferror(j->out);
}
