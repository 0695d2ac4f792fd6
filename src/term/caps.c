/* caps.c - the terminal's escape strings from terminfo (see caps.h). */
#include "caps.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>

int caps_len(const char *s)
{
    return s ? (int)strlen(s) : 0;
}

/* A copy of s without terminfo's padding ($<5>, $<2/>): the writer sends
 * at once, as terminals have not needed delays for decades. */
static char *unpadded(const char *s)
{
    if (!s || s == (const char *)-1 || !*s)
        return NULL;
    char *d = malloc(strlen(s) + 1), *o = d;
    if (!d)
        return NULL;
    for (const char *p = s; *p;) {
        const char *end = p[0] == '$' && p[1] == '<' ? strchr(p, '>') : NULL;
        if (end) {
            p = end + 1;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    if (!*d) {
        free(d);
        return NULL;
    }
    return d;
}

/* An expanded string (unpadded's copy, or NULL) into out (32 bytes of
 * room), freed; its length, 0 when it was missing or too long. */
static int put_expanded(char *s, char *out)
{
    int len = caps_len(s);
    if (len > 31)
        len = 0;
    memcpy(out, s ? s : "", (size_t)len);
    free(s);
    return len;
}

static char *cap(const char *name)
{
    return unpadded(tigetstr(name));
}

/* Does s hold no % (plain bytes)? */
static bool plain(const char *s, int n)
{
    return memchr(s, '%', (size_t)n) == NULL;
}

static char *dup_n(const char *s, int n)
{
    char *d = malloc((size_t)n + 1);
    if (d) {
        memcpy(d, s, (size_t)n);
        d[n] = '\0';
    }
    return d;
}

/* A one-number string: the ANSI form PRE%p1%dSUF when it is one. */
static void parm_init(CapParm *p, const char *name)
{
    memset(p, 0, sizeof *p);
    p->tmpl = cap(name);
    if (!p->tmpl)
        return;
    const char *at = strstr(p->tmpl, "%p1%d");
    if (!at)
        return;
    int npre = (int)(at - p->tmpl), nsuf = (int)strlen(at + 5);
    if (npre >= 2 && memcmp(at - 2, "%i", 2) == 0) { /* 1-based, as hpa's \E[%i%p1%dG */
        npre -= 2;
        p->add = 1;
    }
    if (plain(p->tmpl, npre) && plain(at + 5, nsuf) && npre + nsuf < 12) {
        p->pre = dup_n(p->tmpl, npre);
        p->suf = dup_n(at + 5, nsuf);
        p->npre = npre;
        p->nsuf = nsuf;
        if (!p->pre || !p->suf) {
            free(p->pre);
            free(p->suf);
            p->pre = p->suf = NULL;
        }
    }
}

static int put_int(char *out, int n)
{
    char d[12];
    int k = 0, len = 0;
    if (n < 0)
        n = 0;
    do
        d[k++] = (char)('0' + n % 10);
    while ((n /= 10) > 0);
    while (k > 0)
        out[len++] = d[--k];
    return len;
}

int caps_parm(CapParm *p, int n, char *out)
{
    if (!p->tmpl)
        return 0;
    if (p->pre) {
        memcpy(out, p->pre, (size_t)p->npre);
        int len = p->npre + put_int(out + p->npre, n + p->add);
        memcpy(out + len, p->suf, (size_t)p->nsuf);
        return len + p->nsuf;
    }
    if (n >= 0 && n < 1024) {
        if (!p->memo && (p->memo = calloc(1024, sizeof *p->memo)) != NULL)
            p->nmemo = 1024;
        if (p->memo && p->memo[n][15]) {
            memcpy(out, p->memo[n], (size_t)p->memo[n][15]);
            return p->memo[n][15];
        }
    }
    int len = put_expanded(unpadded(tiparm(p->tmpl, n)), out);
    if (p->memo && n >= 0 && n < p->nmemo && len > 0 && len < 15) {
        memcpy(p->memo[n], out, (size_t)len);
        p->memo[n][15] = (char)len;
    }
    return len;
}

int caps_cup(Caps *c, int y, int x, int rows, int cols, char *out)
{
    if (c->cup_ansi) { /* \E[ row+1 ; col+1 H */
        int len = 2;
        out[0] = '\033';
        out[1] = '[';
        len += put_int(out + len, y + 1);
        out[len++] = ';';
        len += put_int(out + len, x + 1);
        out[len++] = 'H';
        return len;
    }
    if (!c->cup)
        return 0;
    if (c->cup_rows != rows || c->cup_cols != cols) {
        free(c->cup_memo);
        c->cup_memo = calloc((size_t)rows * (size_t)cols, sizeof *c->cup_memo);
        c->cup_rows = c->cup_memo ? rows : 0;
        c->cup_cols = c->cup_memo ? cols : 0;
    }
    char *m = c->cup_memo && y < rows && x < cols ? c->cup_memo[y * cols + x] : NULL;
    if (m && m[23]) {
        memcpy(out, m, (size_t)m[23]);
        return m[23];
    }
    int len = put_expanded(unpadded(tiparm(c->cup, y, x)), out);
    if (m && len > 0 && len < 23) {
        memcpy(m, out, (size_t)len);
        m[23] = (char)len;
    }
    return len;
}

/* Where sgr0 ends in the plain reset \E[m or \E[0m: the bytes before it
 * (xterm's \E(B), or -1. */
static int sgr0_prefix(const char *s)
{
    int n = caps_len(s);
    if (n >= 3 && memcmp(s + n - 3, "\033[m", 3) == 0)
        return n - 3;
    if (n >= 4 && memcmp(s + n - 4, "\033[0m", 4) == 0)
        return n - 4;
    return -1;
}

Caps *caps_terminfo(void)
{
    Caps *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->sgr0 = cap("sgr0");
    c->bold = cap("bold");
    c->dim = cap("dim");
    c->smul = cap("smul");
    c->rev = cap("rev");
    c->op = cap("op");
    c->el = cap("el");
    c->clear = cap("clear");
    c->cr = cap("cr");
    c->cub1 = cap("cub1");
    c->cuf1 = cap("cuf1");
    c->cud1 = cap("cud1");
    c->nsgr0_pre = sgr0_prefix(c->sgr0);
    parm_init(&c->cuf, "cuf");
    parm_init(&c->cub, "cub");
    parm_init(&c->ech, "ech");
    parm_init(&c->setaf, "setaf");
    parm_init(&c->setab, "setab");
    parm_init(&c->hpa, "hpa");
    parm_init(&c->indn, "indn");
    parm_init(&c->rin, "rin");
    c->csr = cap("csr");
    c->ind = cap("ind");
    c->ri = cap("ri");
    c->cup = cap("cup");
    c->cup_ansi = c->cup && strcmp(c->cup, "\033[%i%p1%d;%p2%dH") == 0;
    c->bce = tigetflag("bce") > 0;
    c->am = tigetflag("am") > 0;
    c->xenl = tigetflag("xenl") > 0;
    c->colors = tigetnum("colors");
    if (c->colors < 0)
        c->colors = 0;
    return c;
}

static void parm_free(CapParm *p)
{
    free(p->tmpl);
    free(p->pre);
    free(p->suf);
    free(p->memo);
}

void caps_free(Caps *c)
{
    if (!c)
        return;
    char *s[] = {c->sgr0, c->bold, c->dim, c->smul, c->rev, c->op, c->el, c->clear, c->cr, c->cub1, c->cuf1, c->cud1, c->cup, c->csr, c->ind, c->ri};
    for (size_t k = 0; k < sizeof s / sizeof *s; k++)
        free(s[k]);
    parm_free(&c->cuf);
    parm_free(&c->cub);
    parm_free(&c->ech);
    parm_free(&c->setaf);
    parm_free(&c->setab);
    parm_free(&c->hpa);
    parm_free(&c->indn);
    parm_free(&c->rin);
    free(c->cup_memo);
    free(c);
}

int caps_csr(const Caps *c, int top, int bot, char *out)
{
    if (!c->csr)
        return 0;
    return put_expanded(unpadded(tiparm(c->csr, top, bot)), out);
}
