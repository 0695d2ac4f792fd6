/* screen.c - headless curses for tests (see screen.h). */
#include "screen.h"

#include <curses.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "term/view.h"

static SCREEN *scr;
static FILE *out, *in;

bool screen_open(int lines, int cols)
{
    setlocale(LC_ALL, "C.UTF-8");
    out = fopen("/dev/null", "w");
    in = fopen("/dev/null", "r");
    if (!out || !in)
        return false;
    scr = newterm("xterm-256color", out, in);
    if (!scr)
        return false;
    set_term(scr);
    resizeterm(lines, cols);
    view_screen_ready(); /* as view_run: a frame is one write */
    return true;
}

void screen_resize(int lines, int cols)
{
    resizeterm(lines, cols);
}

void screen_close(void)
{
    if (scr) {
        endwin();
        delscreen(scr);
        scr = NULL;
    }
    if (out)
        fclose(out);
    if (in)
        fclose(in);
    out = in = NULL;
}

/* Append the text of row y to buf at *n, trimming trailing blanks. */
static void row_text(int y, char *buf, size_t *n)
{
    size_t start = *n, keep = *n;
    for (int x = 0; x < COLS; x++) {
        cchar_t cc;
        wchar_t wch[CCHARW_MAX + 1];
        attr_t attrs;
        short pair;
        if (mvin_wch(y, x, &cc) == ERR || getcchar(&cc, wch, &attrs, &pair, NULL) == ERR)
            continue;
        char mb[MB_LEN_MAX * (CCHARW_MAX + 1)];
        size_t len = wcstombs(mb, wch[0] ? wch : L" ", sizeof mb);
        if (len == (size_t)-1)
            continue;
        memcpy(buf + *n, mb, len);
        *n += len;
        if (wch[0] != L' ' && wch[0])
            keep = *n;
        int w = wch[0] ? wcwidth(wch[0]) : 1;
        if (w > 1)
            x += w - 1;
    }
    *n = keep > start ? keep : start;
    buf[(*n)++] = '\n';
}

char *screen_text(void)
{
    size_t cap = (size_t)LINES * ((size_t)COLS * 8 + 2) + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (int y = 0; y < LINES; y++)
        row_text(y, buf, &n);
    buf[n] = '\0';
    return buf;
}

unsigned long screen_attr(int y, int x)
{
    cchar_t cc;
    wchar_t wch[CCHARW_MAX + 1];
    attr_t attrs = 0;
    short pair;
    if (mvin_wch(y, x, &cc) == ERR || getcchar(&cc, wch, &attrs, &pair, NULL) == ERR)
        return 0;
    return (unsigned long)(attrs & ~A_COLOR);
}

int screen_find(const char *s, int *x)
{
    char *text = screen_text();
    if (!text)
        return -1;
    int row = -1;
    char *hit = strstr(text, s);
    if (hit) {
        row = 0;
        char *line = text;
        for (char *p = text; p < hit; p++)
            if (*p == '\n') {
                row++;
                line = p + 1;
            }
        *hit = '\0';
        size_t wl = mbstowcs(NULL, line, 0);
        wchar_t *w = malloc((wl + 1) * sizeof *w);
        mbstowcs(w, line, wl + 1);
        *x = wcswidth(w, wl);
        free(w);
    }
    free(text);
    return row;
}
