/* diag.c - the loader's messages, quoting and suggestions (see diag.h). */
#include "diag.h"
#include "fullwidth.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "text/i18n.h"
#include "text/text.h"

/* Keep one message in the list: the first DIAG_LIST_MAX in file order. */
static void list_add(DiagList *list, size_t line, size_t col, const char *text)
{
    if (list->before > 0 && line >= list->before)
        return;
    list->total++;
    int at = list->n;
    if (list->n == DIAG_LIST_MAX) {
        /* full: the new one replaces the last in file order, when earlier */
        at = 0;
        for (int k = 1; k < list->n; k++)
            if (list->m[k].line > list->m[at].line ||
                (list->m[k].line == list->m[at].line && list->m[k].col >= list->m[at].col))
                at = k;
        if (line > list->m[at].line || (line == list->m[at].line && col >= list->m[at].col))
            return;
    } else {
        list->n++;
    }
    list->m[at].line = line;
    list->m[at].col = col;
    snprintf(list->m[at].text, sizeof list->m[at].text, "%s", text);
}

bool diag_vfail_at(Diag *d, size_t line, size_t col, const char *fmt, va_list ap)
{
    char msg[DIAG_MSG_MAX], file[DIAG_MSG_MAX / 2];
    int n = snprintf(msg, sizeof msg, "%s:%zu:%zu: ", text_shown(d->file, file, sizeof file), line + 1, col + 1);
    if (n >= 0 && (size_t)n < sizeof msg)
        vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    if (d->failures++ == 0 && d->errlen > 0)
        snprintf(d->err, d->errlen, "%s", msg);
    if (d->list)
        list_add(d->list, line, col, msg);
    return false;
}

void diag_list_sort(DiagList *list)
{
    for (int k = 1; k < list->n; k++)
        for (int j = k; j > 0; j--) {
            size_t la = list->m[j - 1].line, lb = list->m[j].line;
            if (la < lb || (la == lb && list->m[j - 1].col <= list->m[j].col))
                break;
            char tmp[sizeof *list->m];
            memcpy(tmp, &list->m[j], sizeof tmp);
            memcpy(&list->m[j], &list->m[j - 1], sizeof tmp);
            memcpy(&list->m[j - 1], tmp, sizeof tmp);
        }
}

bool diag_fail_at(Diag *d, size_t line, size_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vfail_at(d, line, col, fmt, ap);
    va_end(ap);
    return false;
}

bool diag_fail(Diag *d, const yaml_node_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vfail_at(d, n->start_mark.line, n->start_mark.column, fmt, ap);
    va_end(ap);
    return false;
}

bool diag_oom(Diag *d, const yaml_node_t *n)
{
    return diag_fail(d, n, _("out of memory while loading the lesson"));
}

const char *diag_quote(Diag *d, const char *s)
{
    char *out = d->quoted[d->qi];
    d->qi ^= 1;
    return text_quote(s, "\"", "\"", out, sizeof d->quoted[0]);
}

const char *diag_found(Diag *d, const yaml_node_t *n)
{
    if (n->type == YAML_MAPPING_NODE)
        return _("a mapping");
    if (n->type == YAML_SEQUENCE_NODE)
        return _("a list");
    if (n->data.scalar.length == 0)
        return _("nothing");
    return diag_quote(d, (const char *)n->data.scalar.value);
}

bool diag_want(Diag *d, const yaml_node_t *n, yaml_node_type_t t, const char *fmt, ...)
{
    if (n->type == t)
        return true;
    FullwidthHit fw;
    if (fullwidth_scalar(n, &fw)) /* digits：3, ［我, 爱］ */
        return diag_fail_at(d, fw.line, fw.col, "%s", fw.msg);
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return diag_fail(d, n, _("%s, found %s"), what, diag_found(d, n));
}

const char *diag_join_or(const char *const *names, int n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && o < len; k++) {
        const char *sep = k == 0 ? "" : k == n - 1 ? _(" or ") : _(", ");
        o += (size_t)snprintf(buf + o, len - o, "%s%s", sep, names[k]);
    }
    return buf;
}

int diag_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32)
        return 99;
    int row[33];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *diag_suggest(const char *word, const char *const *names, int n)
{
    const char *best = NULL;
    int bd = 3;
    for (int k = 0; k < n; k++) {
        if (strcasecmp(word, names[k]) == 0)
            return names[k];
        int d = diag_edit_distance(word, names[k]);
        if (d < bd && d < (int)strlen(names[k])) {
            bd = d;
            best = names[k];
        }
    }
    return best;
}
