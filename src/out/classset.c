/* classset.c - --class: sheets for every student, a key, HTML and PDF (see
 * classset.h). */
#include "classset.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "text/i18n.h"
#include "worksheet.h"
#include "outdir.h"

/* ---- Markdown to HTML ------------------------------------------------------------ */

static void html_text(FILE *out, const char *s, size_t n)
{
    for (size_t k = 0; k < n && s[k]; k++) {
        switch (s[k]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(s[k], out);
        }
    }
}

/* Inline Markdown: backslash escapes, `code`, **bold**. */
static void html_inline(FILE *out, const char *s, size_t n)
{
    bool bold = false;
    for (size_t k = 0; k < n; k++) {
        if (s[k] == '\\' && k + 1 < n && strchr("\\`*_<>|$~^[]#{}()-.!+", s[k + 1])) {
            html_text(out, s + k + 1, 1);
            k++;
        } else if (s[k] == '`') {
            const char *end = memchr(s + k + 1, '`', n - k - 1);
            size_t len = end ? (size_t)(end - s - k - 1) : n - k - 1;
            fputs("<code>", out);
            html_text(out, s + k + 1, len);
            fputs("</code>", out);
            k += len + 1;
        } else if (s[k] == '*' && k + 1 < n && s[k + 1] == '*') {
            fputs(bold ? "</strong>" : "<strong>", out);
            bold = !bold;
            k++;
        } else {
            html_text(out, s + k, 1);
        }
    }
    if (bold)
        fputs("</strong>", out);
}

/* Split a table line "| a | b |" into cells (pointers into a copy). */
static int table_cells(char *line, char **cell, int max)
{
    int n = 0;
    char *p = line + 1;
    while (*p && n < max) {
        char *start = p;
        while (*p && !(*p == '|' && (p == start || p[-1] != '\\')))
            p++;
        if (!*p)
            break;
        *p++ = '\0';
        while (*start == ' ')
            start++;
        char *e = start + strlen(start);
        while (e > start && e[-1] == ' ')
            *--e = '\0';
        cell[n++] = start;
    }
    return n;
}

#define TAB_MAX_ROWS 80
#define TAB_MAX_COLS (MAT_MAX + 2)

/* A table's lines (the separator included) as one or more <table>s of at
 * most max_cols columns after the first (its labels). */
static void html_table(FILE *out, char **lines, int nlines, int max_cols)
{
    static char *cells[TAB_MAX_ROWS][TAB_MAX_COLS];
    int ncols[TAB_MAX_ROWS], nrows = 0;
    bool right[TAB_MAX_COLS] = {false};
    for (int k = 0; k < nlines && nrows < TAB_MAX_ROWS; k++) {
        if (k == 1) { /* the separator: alignment */
            char *sep[TAB_MAX_COLS];
            int n = table_cells(lines[k], sep, TAB_MAX_COLS);
            for (int c = 0; c < n; c++)
                right[c] = sep[c][0] && sep[c][strlen(sep[c]) - 1] == ':';
            continue;
        }
        ncols[nrows] = table_cells(lines[k], cells[nrows], TAB_MAX_COLS);
        nrows++;
    }
    int width = nrows ? ncols[0] : 0;
    for (int from = 1; from < width || from == 1; from += max_cols) {
        int to = from + max_cols < width ? from + max_cols : width;
        fputs("<table>\n", out);
        for (int r = 0; r < nrows; r++) {
            const char *tag = r == 0 ? "th" : "td";
            fputs("<tr>", out);
            for (int c = 0; c < ncols[r]; c++) {
                if (c != 0 && (c < from || c >= to))
                    continue;
                fprintf(out, "<%s%s>", tag, right[c] ? " class=\"r\"" : "");
                html_inline(out, cells[r][c], strlen(cells[r][c]));
                fprintf(out, "</%s>", tag);
            }
            fputs("</tr>\n", out);
        }
        fputs("</table>\n", out);
        if (to >= width)
            break;
    }
}

/* Skip the front matter of lines[0..n), its pagetitle into title (when not
 * NULL); returns the first line after it. */
static int front_matter(char **line, int n, char *title, size_t tlen)
{
    int k = 0;
    if (n > 0 && strcmp(line[0], "---") == 0) {
        for (k = 1; k < n && strcmp(line[k], "---") != 0; k++)
            if (title && strncmp(line[k], "pagetitle: \"", 12) == 0) {
                size_t len = strlen(line[k] + 12);
                len = len > 0 ? len - 1 : 0;
                snprintf(title, tlen, "%.*s", (int)len, line[k] + 12);
            }
        k++;
    }
    return k;
}

/* A fenced block from line k as <pre>; returns its closing line. */
static int html_pre(FILE *out, char **line, int n, int k)
{
    fputs("<pre>", out);
    for (k++; k < n && strncmp(line[k], "```", 3) != 0; k++) {
        html_text(out, line[k], strlen(line[k]));
        fputc('\n', out);
    }
    fputs("</pre>\n", out);
    return k;
}

/* A list from line k as <ul>; returns its last line. */
static int html_list(FILE *out, char **line, int n, int k)
{
    fputs("<ul>\n", out);
    for (; k < n && strncmp(line[k], "- ", 2) == 0; k++) {
        fputs("<li>", out);
        html_inline(out, line[k] + 2, strlen(line[k] + 2));
        fputs("</li>\n", out);
    }
    fputs("</ul>\n", out);
    return k - 1;
}

void md_to_html(FILE *out, const char *md, char *title, size_t tlen, int max_cols)
{
    char *text = strdup(md);
    if (!text)
        return;
    enum { MAXL = 4096 };
    char **line = malloc(sizeof *line * MAXL);
    int n = 0;
    for (char *p = text; line && p && n < MAXL; n++) {
        line[n] = p;
        p = strchr(p, '\n');
        if (p)
            *p++ = '\0';
    }
    int k = line ? front_matter(line, n, title, tlen) : 0;
    bool para = false;
    for (; line && k < n; k++) {
        const char *s = line[k];
        bool starts_block = !*s || s[0] == '#' || s[0] == '|' || strncmp(s, "- ", 2) == 0 ||
                            strncmp(s, "```", 3) == 0 || strncmp(s, "<div", 4) == 0;
        if (para && starts_block) {
            fputs("</p>\n", out);
            para = false;
        }
        if (!*s)
            continue;
        if (strncmp(s, "<div", 4) == 0) {
            fprintf(out, "%s\n", s);
        } else if (s[0] == '#') {
            int h = (int)strspn(s, "#");
            fprintf(out, "<h%d>", h);
            html_inline(out, s + h + 1, strlen(s + h + 1));
            fprintf(out, "</h%d>\n", h);
        } else if (strncmp(s, "```", 3) == 0) {
            k = html_pre(out, line, n, k);
        } else if (s[0] == '|') {
            int first = k;
            while (k + 1 < n && line[k + 1][0] == '|')
                k++;
            html_table(out, line + first, k - first + 1, max_cols);
        } else if (strncmp(s, "- ", 2) == 0) {
            k = html_list(out, line, n, k);
        } else {
            /* a caption (a bold name right before a table) stays with it */
            bool caption = s[0] == '*' && k + 2 < n && line[k + 2][0] == '|';
            if (!para)
                fputs(caption ? "<p class=\"caption\">" : "<p>", out);
            else
                fputc(' ', out);
            html_inline(out, s, strlen(s));
            para = true;
        }
    }
    if (para)
        fputs("</p>\n", out);
    free(line);
    free(text);
}

void html_head(FILE *out, const char *title, Lang lang, bool letter)
{
    /* Latin first in English, the CJK face first in Chinese; each list ends
     * in faces the common systems have. Widths fit A4 (210 mm) and Letter
     * (216 mm) alike; only @page's size differs. */
    const char *latin = "\"Noto Sans\", \"DejaVu Sans\", \"Liberation Sans\", Arial";
    const char *cjk = "\"Noto Sans CJK SC\", \"Source Han Sans SC\", \"WenQuanYi Micro Hei\", \"Microsoft YaHei\", "
                      "\"PingFang SC\"";
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
            lang == LANG_ZH ? "zh-CN" : "en");
    html_text(out, title, strlen(title));
    fprintf(out, "</title>\n<style>\n"
            "@page { size: %s; margin: 14mm 15mm 16mm 15mm; }\n"
            "html { font-family: %s, %s, sans-serif; font-size: 10.5pt; line-height: 1.35; color: #000; }\n"
            "body { margin: 0; }\n"
            "@media screen { body { max-width: 180mm; margin: 2em auto; } }\n"
            "h1 { font-size: 16pt; margin: 0 0 .4em; }\n"
            "h2 { font-size: 13pt; margin: 1em 0 .4em; border-bottom: 1px solid #888; }\n"
            "h3 { font-size: 11pt; margin: 1em 0 .3em; }\n"
            "h1, h2, h3, p.caption { break-after: avoid; page-break-after: avoid; }\n"
            "table { border-collapse: collapse; margin: .2em 0 .8em; break-inside: avoid; page-break-inside: avoid; "
            "font-variant-numeric: tabular-nums; }\n"
            "th, td { border: 1px solid #999; padding: 1px 6px; white-space: nowrap; }\n"
            "th { background: #eee; }\n"
            ".r { text-align: right; }\n"
            "td:has(> :empty), td { min-width: 3em; }\n"
            "code, pre { font-family: \"DejaVu Sans Mono\", \"Noto Sans Mono CJK SC\", \"Liberation Mono\", "
            "monospace; }\n"
            "pre { font-size: 8.5pt; white-space: pre-wrap; overflow-wrap: anywhere; break-inside: avoid; "
            "border-left: 3px solid #ccc; padding-left: 6px; }\n"
            ".page-break, .student { break-before: page; page-break-before: always; }\n"
            ".student:first-of-type { break-before: auto; page-break-before: auto; }\n"
            "</style>\n</head>\n<body>\n",
            letter ? "Letter" : "A4", lang == LANG_ZH ? cjk : latin, lang == LANG_ZH ? latin : cjk);
}

/* ---- the class set ----------------------------------------------------------------- */

/* Run fn into a memory buffer; NULL when it fails. */
typedef int (*Writer)(FILE *out, const Lesson *l, const WorksheetOpt *o);

static char *capture(Writer fn, const Lesson *l, const WorksheetOpt *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    int rc = fn(m, l, o);
    fclose(m);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Is an executable named `name` on PATH? Fills path. */
static bool on_path(const char *name, char *path, size_t len)
{
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", env ? env : "/usr/bin:/bin");
    for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
        snprintf(path, len, "%s/%s", d, name);
        if (access(path, X_OK) == 0)
            return true;
    }
    return false;
}

/* Print html to pdf with headless chromium (the set's temporaries of
 * the files named html_name and pdf_name); false with a message. */
static bool print_pdf(const char *chromium, const char *html, const char *pdf, const char *html_name,
                      const char *pdf_name)
{
    if (!html || !pdf)
        return false;
    char abs[4096], url[4200], to[4200], profile[] = "/tmp/qkvtutor-chromium-XXXXXX", user[4200];
    if (!realpath(html, abs) || !mkdtemp(profile))
        return false;
    snprintf(url, sizeof url, "file://%s", abs);
    snprintf(to, sizeof to, "--print-to-pdf=%s", pdf);
    snprintf(user, sizeof user, "--user-data-dir=%s", profile);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execl(chromium, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--no-pdf-header-footer", "--print-to-pdf-no-header", user, to, url, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    char rm[4300];
    snprintf(rm, sizeof rm, "rm -rf '%s'", profile); /* our own mkdtemp name: no quote in it */
    if (system(rm) != 0) {
        /* a temporary profile left behind is harmless */
    }
    struct stat st;
    if (!ok || stat(pdf, &st) != 0 || st.st_size == 0) {
        fprintf(stderr, _("qkvtutor: chromium could not print %s to %s\n"), html_name, pdf_name);
        return false;
    }
    return true;
}

/* Write one HTML file from the Markdown of each part; parts after the first
 * start a new page. */
static bool write_html(OutSet *dir, const char *name, char **md, int n, const ClassOpt *o, char *path,
                       size_t plen)
{
    char title[512] = "qkvtutor";
    FILE *f = out_open(dir, name, path, plen);
    if (!f)
        return false;
    char *body = NULL;
    size_t blen = 0;
    FILE *b = open_memstream(&body, &blen);
    for (int k = 0; b && k < n; k++) {
        fputs("<section class=\"student\">\n", b);
        md_to_html(b, md[k], k == 0 ? title : NULL, sizeof title, 10);
        fputs("</section>\n", b);
    }
    if (b)
        fclose(b);
    html_head(f, title, o->lang, o->letter);
    if (body)
        fputs(body, f);
    fputs("</body>\n</html>\n", f);
    free(body);
    return out_close(dir, f);
}

/* key.md into k: the title, the marking table, then each variant's key;
 * each student's sheet into sheet[] on the way. */
static bool write_keys(FILE *k, Lesson *l, const ClassOpt *o, char **sheet, WorksheetOpt *wo0)
{
    WorksheetOpt wo = *wo0;
    int n = o->students;
    char title[512];
    text_sanitize(text_get(&l->title, o->lang), title, sizeof title, o->ascii);
    fprintf(k, "---\npagetitle: \"%s · %s\"\nlang: %s\n---\n\n# ", title, _("answer key"),
            o->lang == LANG_ZH ? "zh-CN" : "en");
    fprintf(k, "%s · %s\n\n", title, _("answer key"));
    fprintf(k, _("Students 01 to %02d; student k has variant k (qkvtutor --worksheet --variant k)."), n);
    fputs("\n\n", k);
    bool ok = lesson_reseed(l, 1) && worksheet_key_header(k, l, &wo) == 0;
    for (int s = 1; ok && s <= n; s++) {
        wo.student = s;
        ok = lesson_reseed(l, (unsigned long)s) && worksheet_key_row(k, l, &wo) == 0;
    }
    if (ok)
        fputc('\n', k);
    for (int s = 1; ok && s <= n; s++) {
        char *part;
        wo.student = s;
        ok = lesson_reseed(l, (unsigned long)s);
        wo.answers = false;
        wo.key_only = false;
        ok = ok && (sheet[s - 1] = capture(render_worksheet, l, &wo)) != NULL;
        wo.key_only = true;
        ok = ok && (part = capture(render_worksheet, l, &wo)) != NULL;
        if (ok) {
            fprintf(k, "%s%s", s > 1 ? "<div class=\"page-break\" style=\"break-before: page\"></div>\n\n" : "",
                    part);
            free(part);
        }
    }
    return ok;
}

int class_write(Lesson *l, const ClassOpt *o)
{
    char path[4096], name[64], chromium[4096];
    int n = o->students;
    if (o->format == CLASS_PDF && !on_path("chromium", chromium, sizeof chromium) &&
        !on_path("chromium-browser", chromium, sizeof chromium) && !on_path("google-chrome", chromium, sizeof chromium)) {
        fprintf(stderr, "%s\n", _("qkvtutor: --format pdf prints with chromium, which is not installed "
                                  "(Debian: apt-get install chromium fonts-noto-cjk); --format html writes the "
                                  "pages to print from a browser"));
        return 2;
    }
    OutSet set; /* every file of the set, or none (outdir.h) */
    if (!out_begin(&set, o->dir))
        return 2;
    char **sheet = calloc((size_t)n, sizeof *sheet);
    char *key = NULL;
    size_t klen = 0;
    FILE *k = open_memstream(&key, &klen);
    bool ok = sheet && k;
    WorksheetOpt wo = {o->lang, o->ascii, false, 0, false};
    ok = ok && write_keys(k, l, o, sheet, &wo);
    if (k)
        fclose(k);
    for (int s = 1; ok && s <= n; s++) {
        FILE *f = (snprintf(name, sizeof name, "sheet-%02d.md", s), out_open(&set, name, path, sizeof path));
        ok = f && (fputs(sheet[s - 1], f), out_close(&set, f));
    }
    if (ok) {
        FILE *f = out_open(&set, "key.md", path, sizeof path);
        ok = f && (fputs(key, f), out_close(&set, f));
    }
    char sheets_html[4096], key_html[4096];
    if (ok && o->format != CLASS_MD)
        ok = write_html(&set, "sheets.html", sheet, n, o, sheets_html, sizeof sheets_html) &&
             write_html(&set, "key.html", &key, 1, o, key_html, sizeof key_html);
    for (int p = 0; ok && o->format == CLASS_PDF && p < 2; p++) { /* chromium prints into the set's temporaries */
        const char *html = p ? key_html : sheets_html;
        FILE *f = out_open(&set, p ? "key.pdf" : "sheets.pdf", path, sizeof path);
        ok = f && out_close(&set, f) && print_pdf(chromium, out_temp(&set, html), out_temp(&set, path), html, path);
    }
    ok = out_end(&set, ok);
    for (int s = 0; sheet && s < n; s++)
        free(sheet[s]);
    free(sheet);
    free(key);
    return ok ? 0 : 2;
}
