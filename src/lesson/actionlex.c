/* actionlex.c - the action language's lexer (see actionlex.h). */
#include "actionlex.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "text/i18n.h"
#include "text/num.h"
#include "text/text.h"
#include "core/grad.h"

#ifdef __GNUC__
__attribute__((format(printf, 3, 4)))
#endif
/* Record an error at `at`. fmt is an untranslated message (N_) and is
 * translated here. Always returns false. */
bool lex_fail(Lex *lx, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->err, lx->errlen, _(fmt), ap);
    va_end(ap);
    if (lx->errcol)
        *lx->errcol = (int)(at - lx->s) + 1;
    return false;
}

/* Quote up to 16 bytes of s (whole characters, text_quote_n) as "s", or
 * "nothing" at the end of the text. */
const char *lex_quote_word(const char *s, char *buf, size_t len)
{
    char cut[24];
    size_t n = strlen(s);
    if (n == 0)
        return _("nothing");
    bool more = n > 16;
    if (more)
        n = text_char_start(s, 16);
    memcpy(cut, s, n);
    while (n > 0 && (cut[n - 1] == ' ' || cut[n - 1] == '\t'))
        n--;
    cut[n] = '\0';
    return text_quote_n(cut, 0, "\"", more ? "...\"" : "\"", buf, len);
}

void lex_skip_ws(Lex *lx)
{
    while (*lx->p == ' ' || *lx->p == '\t')
        lx->p++;
}

bool lex_accept(Lex *lx, char c)
{
    lex_skip_ws(lx);
    if (*lx->p != c)
        return false;
    lx->p++;
    return true;
}

/* Accept a word (letters, digits, '_') and return its length, 0 if none. */
int lex_word(Lex *lx, const char **start)
{
    lex_skip_ws(lx);
    *start = lx->p;
    while (isalnum((unsigned char)*lx->p) || *lx->p == '_')
        lx->p++;
    return (int)(lx->p - *start);
}

/* The length of a sign at s: '+', '-' or U+2212; 0 when there is none. */
int lex_sign_len(const char *s)
{
    return *s == '+' || *s == '-' ? 1 : strncmp(s, NUM_MINUS, 3) == 0 ? 3 : 0;
}

/* Parse a finite decimal number with num.h (so the Unicode minus that the
 * screen shows is accepted, and the locale never matters). The number is
 * the run of digits, '.', 'e' and signs (at the start or after 'e'). */
bool lex_parse_number(Lex *lx, double *out)
{
    char buf[80];
    lex_skip_ws(lx);
    const char *at = lx->p, *q = lx->p;
    q += lex_sign_len(q);
    while (isdigit((unsigned char)*q) || *q == '.' || *q == 'e' || *q == 'E')
        q += (*q == 'e' || *q == 'E') ? 1 + lex_sign_len(q + 1) : 1;
    size_t n = (size_t)(q - at);
    char *num = n < sizeof buf ? buf : malloc(n + 1);
    if (n == 0 || !num)
        return lex_fail(lx, at, N_("expected a number, like 0.5 or -2"));
    memcpy(num, at, n);
    num[n] = '\0';
    NumStatus st = num_parse(num, out, NULL);
    if (num != buf)
        free(num);
    if (st == NUM_RANGE)
        return lex_fail(lx, at, N_("numbers must be finite"));
    if (st != NUM_OK)
        return lex_fail(lx, at, N_("expected a number, like 0.5 or -2"));
    lx->p = q;
    return true;
}

bool lex_is_target(MatId m)
{
    MatId b = attn_mat_base(m);
    return m <= M_V || m == M_WO || m == M_XS || (attn_mat_head(m) && b >= M_Q && b <= M_V);
}

/* Refuse an index too large for an int (any matrix refuses it anyway),
 * quoting its digits as typed. */
bool lex_huge_index(Lex *lx, const Ref *r)
{
    for (int k = 0; k < r->n; k++)
        if (r->idx[k].v > INT_MAX) {
            char digits[32];
            num_whole_text(r->idx[k].at, (size_t)r->idx[k].len, digits, sizeof digits);
            return lex_fail(lx, r->idx[k].at, k == 0 ? N_("row %s is out of range: %.*s has at most %d rows")
                                                  : N_("column %s is out of range: %.*s has at most %d columns"),
                        digits, r->name_len, r->name, MAT_MAX);
        }
    return true;
}

/* Parse a matrix reference "M[i]" or "M[i][j]" with ref.h; *j = -1 when
 * absent. *at is where the name starts. `target` says which side of the
 * "=" it is on (a target must be a matrix that can be changed). An unknown
 * name is reported before a problem in the indices, and every message
 * points at its place. */
bool lex_ref(Lex *lx, bool target, MatId *m, int *i, int *j, const char **at)
{
    Ref r;
    char q[80];
    RefStatus st = ref_scan(lx->p, &r);
    *at = r.name;
    if (r.name_len == 0)
        return target ? lex_fail(lx, r.name, N_("expected a matrix to change, like Q[1] or Wq[2][1], found %s"),
                             lex_quote_word(r.name, q, sizeof q))
                      : lex_fail(lx, r.name, N_("expected a row like K[1] or a list like [0.5, -1], found %s"),
                             lex_quote_word(r.name, q, sizeof q));
    char list[256];
    if (ref_matrix(&r) == REF_UNKNOWN) {
        char name[40];
        snprintf(name, sizeof name, "%.*s", r.name_len > 30 ? 30 : r.name_len, r.name);
        static const char *const mats[] = {"X", "Xs", "Wq", "Wk", "Wv", "Wo", "Q", "K", "V", "QKt", "S", "A", "O", "Y"};
        const char *near = diag_suggest(name, mats, (int)(sizeof mats / sizeof *mats));
        if (near && strcmp(near, name) != 0 && (strcasecmp(near, name) == 0 || strlen(name) > 2))
            return lex_fail(lx, r.name, N_("unknown matrix \"%s\" (did you mean \"%s\"?), expected %s"), name, near,
                        ref_matrix_list(lx->shape, target, list, sizeof list));
        return lex_fail(lx, r.name, N_("unknown matrix \"%s\", expected %s"), name,
                    ref_matrix_list(lx->shape, target, list, sizeof list));
    }
    if (target && !lex_is_target(r.mat))
        return lex_fail(lx, r.name, N_("%s is computed by the pipeline; change %s instead"), attn_mat_name(r.mat),
                    ref_matrix_list(lx->shape, true, list, sizeof list));
    if (st == REF_NO_NUMBER)
        return lex_fail(lx, r.err_at, N_("expected a row or column number from 1"));
    if (st == REF_NO_CLOSE)
        return lex_fail(lx, r.err_at, N_("expected \"]\" after the number"));
    if (st == REF_ZERO)
        return lex_fail(lx, r.err_at, N_("indices start at 1"));
    if (r.n == 0 && target && lex_is_target(r.mat))
        return lex_fail(lx, r.err_at, N_("expected \"[\" after %s: change one row, %s[i] = [a, b, ...], or one cell, "
                                     "%s[i][j] = c"), attn_mat_name(r.mat), attn_mat_name(r.mat),
                    attn_mat_name(r.mat));
    if (r.n == 0)
        return lex_fail(lx, r.err_at, N_("expected \"[\" and a row number after %s, like %s[1]"), attn_mat_name(r.mat),
                    attn_mat_name(r.mat));
    if (!lex_huge_index(lx, &r))
        return false;
    *m = r.mat;
    *i = ref_row(&r);
    *j = ref_col(&r);
    lx->p = r.end;
    return true;
}

/* Require the end of the text; otherwise say what was found and what could
 * have come there (ctx: what was just parsed). */
bool lex_expect_end(Lex *lx, EndAfter ctx)
{
    char q[80];
    lex_skip_ws(lx);
    const char *r = lx->p;
    if (*r == '\0')
        return true;
    if (*r == ';' || strchr(r, '='))  /* another action follows */
        return lex_fail(lx, r, N_("unexpected %s: write one action at a time; several actions in a do: are a YAML "
                              "list, like [\"Q[1] = K[1]\", \"scale = none\"]"), lex_quote_word(r, q, sizeof q));
    if (*r == ',' && isdigit((unsigned char)r[1]) && r > lx->s && isdigit((unsigned char)r[-1])) {
        const char *d = r - 1;
        while (d > lx->s && (isdigit((unsigned char)d[-1]) || d[-1] == '-'))
            d--;
        int n = (int)strspn(r + 1, "0123456789");
        return lex_fail(lx, r, N_("unexpected %s: it looks like a decimal comma, write %.*s.%.*s"),
                    lex_quote_word(r, q, sizeof q), (int)(r - d), d, n, r + 1);
    }
    if (ctx == END_ROW_COPY)
        return lex_fail(lx, r, N_("unexpected %s: after the row comes \"* c\" to scale it, or the end of the action"),
                    lex_quote_word(r, q, sizeof q));
    if (ctx == END_FACTOR && *r == '/')
        return lex_fail(lx, r, N_("unexpected %s: the factor is one number; write 1/6 as 0.1667"),
                    lex_quote_word(r, q, sizeof q));
    if (ctx == END_FACTOR && (*r == '+' || *r == '-' || *r == '*' || lex_sign_len(r)))
        return lex_fail(lx, r, N_("unexpected %s: an action copies one row times one number; rows cannot be added, "
                              "and there is one factor"), lex_quote_word(r, q, sizeof q));
    return lex_fail(lx, r, N_("unexpected %s, expected the end of the action"), lex_quote_word(r, q, sizeof q));
}

/* A whole number written at lx->p into *out (num_whole: saturated at
 * NUM_WHOLE_MAX, so a message quotes lx->p's digits, not *out); false with
 * msg (one %s: what was found) when there is none. */
bool lex_count(Lex *lx, long long *out, const char *msg)
{
    char q[80];
    lex_skip_ws(lx);
    const char *at = lx->p;
    long long v = 0;
    if (!isdigit((unsigned char)*lx->p))
        return lex_fail(lx, at, msg, lex_quote_word(at, q, sizeof q));
    lx->p += num_whole(lx->p, &v);
    if (*lx->p == '.' || *lx->p == 'e' || *lx->p == 'E')
        return lex_fail(lx, at, msg, lex_quote_word(at, q, sizeof q));
    *out = v;
    return true;
}

/* A token number from 1 for swap, as plain digits; *out is 0-based. */
bool lex_token_number(Lex *lx, int *out)
{
    lex_skip_ws(lx);
    const char *at = lx->p;
    long long v = 0;
    if (!isdigit((unsigned char)*lx->p)) {
        char q[80];
        return lex_fail(lx, at, N_("swap takes two token numbers from 1, like swap 1 3; found %s"),
                    lex_quote_word(at, q, sizeof q));
    }
    lx->p += num_whole(lx->p, &v);
    if (v == 0)
        return lex_fail(lx, at, N_("tokens are numbered from 1"));
    if (v > MAT_MAX)
        return lex_fail(lx, at, N_("token %.*s is out of range: a lesson has at most %d tokens"), (int)(lx->p - at),
                    at, MAT_MAX);
    *out = (int)v - 1;
    return true;
}

