/* gettext.c - the translations in the browser, without glibc's gettext.
 *
 * text/i18n.c calls gettext() only when the language is Chinese. The
 * browser build has no catalogue files and emscripten's libc no gettext
 * that reads them: make web compiles src/po/zh_CN.po with msgfmt and
 * embeds the .mo as bytes (web_mo, web_mo_len: build/wasm/mo.c), and this
 * file looks a message up in it by binary search (a .mo's originals are
 * sorted). The catalogue is the same one the terminal uses. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern const unsigned char web_mo[];
extern const size_t web_mo_len;

static uint32_t mo_word(size_t at, int swap)
{
    if (at + 4 > web_mo_len)
        return 0;
    uint32_t w;
    memcpy(&w, web_mo + at, 4);
    return swap ? __builtin_bswap32(w) : w;
}

/* The string at table entry k (length, offset), or NULL when out of range. */
static const char *mo_string(uint32_t table, uint32_t k, int swap)
{
    uint32_t len = mo_word(table + 8u * k, swap), off = mo_word(table + 8u * k + 4, swap);
    if ((size_t)off + len >= web_mo_len)
        return NULL;
    return (const char *)web_mo + off;
}

char *gettext(const char *msgid);
char *gettext(const char *msgid)
{
    uint32_t magic = mo_word(0, 0);
    int swap = magic == 0xde120495u;
    if (!swap && magic != 0x950412deu)
        return (char *)msgid;
    uint32_t n = mo_word(8, swap), orig = mo_word(12, swap), trans = mo_word(16, swap);
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const char *s = mo_string(orig, mid, swap);
        if (!s)
            return (char *)msgid;
        int c = strcmp(msgid, s);
        if (c == 0) {
            const char *t = mo_string(trans, mid, swap);
            return (char *)(t && *t ? t : msgid);
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (char *)msgid;
}

char *textdomain(const char *domain);
char *textdomain(const char *domain)
{
    return (char *)"qkvtutor";
}

char *bindtextdomain(const char *domain, const char *dir);
char *bindtextdomain(const char *domain, const char *dir)
{
    return (char *)"/";
}

char *bind_textdomain_codeset(const char *domain, const char *codeset);
char *bind_textdomain_codeset(const char *domain, const char *codeset)
{
    return (char *)"UTF-8";
}
