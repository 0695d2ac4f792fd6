/* web.c - the wasm entry: one View driven by the page (see web.h).
 *
 * web.js calls these (exported by make web):
 *   web_init()                      once: UTF-8, the language machinery
 *   web_info()                      JSON: the UI key codes, the built-in lessons, the palette's CSS
 *   web_open(n, at, lang, theme, present)   built-in lesson n (1-based), at step `at` (0: its start,
 *                                   with the title card), lang 0 en / 1 zh, theme by ThemeId
 *   web_open_yaml(name, text, at, lang, theme, present)   a lesson file the student opened (or
 *                                   the page kept over a reload); 0, or the error in web_error()
 *   web_resize(cols, rows)          the grid's size in cells
 *   web_key(key) / web_click(y, x)  one UI key (ui.h's UiKey) / a click on a cell: FLAG_* back
 *   web_frame()                     the frame as JSON (frame.c)
 *   web_saved(&len)                 after `w` saved: the file's bytes (its name in web_error()), once
 *   web_width(cp)                   a character's columns, as the layout counts them
 *   web_tick(n)                     the watch mode: n training steps (1 to 10), while non-zero
 *   web_losses()                    JSON: the loss of each training step taken (for the tests)
 * The saved lesson is written by the UI's own save (lesson_save, atomic)
 * into the page's in-memory file system; web_saved() hands it to the page
 * for download and removes it there, so a later save never asks to
 * overwrite a file the student cannot see. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include "lesson/embedded.h"
#include "text/i18n.h"
#include "text/num.h"
#include "text/text.h"
#include "web.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define WEB_API EMSCRIPTEN_KEEPALIVE
#else
#define WEB_API
#endif

static struct {
    Lesson lesson;
    bool loaded;
    View *v;
    int cols, rows;          /* the grid's size, kept for the next View too */
    char error[1024];
    char *saved;
    WebBuf out;
} web = {.cols = 80, .rows = 24};

static ThemeId web_apply_theme(ThemeId t)
{
    return t;
}

static void web_close(void)
{
    if (web.v) {
        session_free(&web.v->s);
        plan_free(&web.v->plan);
        free(web.v);
        web.v = NULL;
    }
    if (web.loaded)
        lesson_free(&web.lesson);
    web.loaded = false;
}

/* A View on the loaded lesson, as src/term/loop.c's view_new makes one. */
static bool web_view(int at, Lang lang, ThemeId theme, bool present, int cols, int rows)
{
    View *v = calloc(1, sizeof *v);
    if (!v || !session_init(&v->s, &web.lesson)) {
        free(v);
        snprintf(web.error, sizeof web.error, "%s", _("out of memory"));
        return false;
    }
    if (at > 0)
        session_open_at(&v->s, at - 1);
    i18n_set(lang, NULL);
    v->lesson = &web.lesson;
    v->lang = lang;
    v->present = present;
    v->fmat = M_Q;
    v->card = at == 0 && v->s.step == 0 && lesson_has_about(&web.lesson);
    if (v->card)
        snprintf(v->msg, sizeof v->msg, "%s", _("Press any key to begin with step 1."));
    plan_init(&v->plan);
    v->apply_theme = web_apply_theme;
    v->theme = theme < THEME_COUNT ? theme : THEME_DARK;
    v->cols = cols;
    v->rows = rows;
    view_focus_from_step(v);
    web.v = v;
    return true;
}

WEB_API void web_init(void);
void web_init(void)
{
    umask(022); /* emscripten starts with 0777: a saved lesson would be mode 0, unreadable */
    setlocale(LC_ALL, "C.UTF-8");
    i18n_set(LANG_EN, NULL);
}

WEB_API const char *web_error(void);
const char *web_error(void)
{
    return web.error;
}

static void web_size(int *cols, int *rows)
{
    *cols = web.cols;
    *rows = web.rows;
}

WEB_API int web_open(int n, int at, int lang, int theme, int present);
int web_open(int n, int at, int lang, int theme, int present)
{
    int cols, rows;
    web_size(&cols, &rows);
    if (n < 1 || n > embedded_count) {
        snprintf(web.error, sizeof web.error, _("no built-in lesson %d: there are lessons 1 to %d"), n, embedded_count);
        return 2;
    }
    web_close();
    const EmbeddedLesson *e = &embedded_lessons[n - 1];
    if (!lesson_load_buffer(e->name, e->data, e->len, &web.lesson, web.error, sizeof web.error))
        return 2;
    web.loaded = true;
    return web_view(at, lang ? LANG_ZH : LANG_EN, (ThemeId)theme, present, cols, rows) ? 0 : 2;
}

/* A lesson file the student opened (picker or drop): the text is copied. */
WEB_API int web_open_yaml(const char *name, const char *text, int at, int lang, int theme, int present);
int web_open_yaml(const char *name, const char *text, int at, int lang, int theme, int present)
{
    int cols, rows;
    web_size(&cols, &rows);
    Lesson l;
    size_t len = strlen(text);
    if (!lesson_load_buffer(name, text, len, &l, web.error, sizeof web.error))
        return 2;
    web_close();
    web.lesson = l;
    web.loaded = true;
    return web_view(at, lang ? LANG_ZH : LANG_EN, (ThemeId)theme, present, cols, rows) ? 0 : 2;
}

WEB_API void web_resize(int cols, int rows);
void web_resize(int cols, int rows)
{
    web.cols = cols;
    web.rows = rows;
    if (!web.v)
        return;
    web.v->cols = cols;
    web.v->rows = rows;
}

/* After a key: did the UI's save just write the lesson? Then keep its
 * bytes for web_saved() and take the file away again. */
static void web_take_saved(ViewMode before)
{
    View *v = web.v;
    if (!(before == MODE_SAVE || before == MODE_CONFIRM) || v->mode != MODE_NORMAL || !v->save_path[0])
        return;
    FILE *f = fopen(v->save_path, "rb");
    if (!f)
        return;
    free(web.saved);
    web.saved = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (web.saved = malloc((size_t)st.st_size + 1)) != NULL) {
        size_t n = fread(web.saved, 1, (size_t)st.st_size, f);
        web.saved[n] = '\0';
    }
    fclose(f);
    unlink(v->save_path);
    snprintf(web.error, sizeof web.error, "%s", v->save_path);
}

/* q: the page stays open; the lesson starts again, as a new run would. */
static void web_view_restart(void)
{
    View *old = web.v;
    Lang lang = old->lang;
    ThemeId theme = old->theme;
    bool present = old->present;
    int cols = old->cols, rows = old->rows;
    session_free(&old->s);
    plan_free(&old->plan);
    free(old);
    web.v = NULL;
    web_view(0, lang, theme, present, cols, rows);
}

WEB_API int web_key(unsigned key);
int web_key(unsigned key)
{
    if (!web.v)
        return 0;
    ViewMode before = web.v->mode;
    int flags = keys_handle(web.v, (UiKey)key);
    web_take_saved(before);
    if (flags & FLAG_QUIT)
        web_view_restart();
    return flags;
}

/* The watch mode's frame (ui_watch_tick_n: n training steps, 1 to 10): the
 * page calls it once an animation frame while it returns non-zero, n sized
 * to the frame; a key stops it. A run's slices add up in one edit
 * (session_train_more), so a run of any length stays within the session's
 * edits. */
WEB_API int web_tick(int n);
int web_tick(int n)
{
    if (!web.v || !ui_watching(web.v))
        return 0;
    return ui_watch_tick_n(web.v, n);
}

/* The loss of every training step the lesson's state has taken (g, G, the
 * watch mode; undo takes them back), as JSON numbers that parse back to
 * the same double: the tests set them against the native build's. */
WEB_API const char *web_losses(void);
const char *web_losses(void)
{
    const double *loss = NULL;
    int n = web.v ? session_loss_history(&web.v->s, &loss) : 0;
    wb_reset(&web.out);
    wb_add(&web.out, "[", 1);
    for (int k = 0; k < n; k++) {
        char num[40];
        wb_printf(&web.out, "%s%s", k ? "," : "", isfinite(loss[k]) ? fmt_exact(loss[k], num, sizeof num) : "null");
    }
    wb_add(&web.out, "]", 1);
    return web.out.oom ? "[]" : web.out.s;
}

WEB_API char *web_saved(void);
char *web_saved(void)
{
    char *s = web.saved;
    web.saved = NULL;
    return s; /* the page frees it (web_free) */
}

WEB_API void web_free(void *p);
void web_free(void *p)
{
    free(p);
}

WEB_API int web_click(int y, int x);
int web_click(int y, int x)
{
    return web.v ? keys_mouse(web.v, y, x, UI_MOUSE_CLICK) : 0;
}

WEB_API int web_wheel(int up);
int web_wheel(int up)
{
    return web.v ? keys_mouse(web.v, 0, 0, up ? UI_MOUSE_WHEEL_UP : UI_MOUSE_WHEEL_DOWN) : 0;
}

WEB_API const char *web_frame(void);
const char *web_frame(void)
{
    wb_reset(&web.out);
    if (!web.v)
        return "{\"runs\":[]}";
    web_frame_json(web.v, &web.out);
    return web.out.oom ? "{\"runs\":[],\"oom\":1}" : web.out.s;
}

WEB_API int web_width(unsigned cp);
int web_width(unsigned cp)
{
    char s[8];
    size_t n = text_utf8_put_valid(cp, s);
    return n == 0 ? 1 : text_width_n(s, n);
}

/* What the page needs to know once: the UI's key codes, the built-in
 * lessons, the themes and the palette as CSS. */
WEB_API const char *web_info(void);
const char *web_info(void)
{
    static const struct { const char *name; UiKey key; } keys[] = {
        {"ArrowUp", UI_KEY_UP}, {"ArrowDown", UI_KEY_DOWN}, {"ArrowLeft", UI_KEY_LEFT},
        {"ArrowRight", UI_KEY_RIGHT}, {"Home", UI_KEY_HOME}, {"End", UI_KEY_END},
        {"PageDown", UI_KEY_NPAGE}, {"PageUp", UI_KEY_PPAGE}, {"Backspace", UI_KEY_BACKSPACE},
        {"Enter", '\r'}, {"Escape", UI_ESC}, {"Tab", '\t'}, {"Delete", UI_KEY_OTHER},
    };
    wb_reset(&web.out);
    wb_add(&web.out, "{\"keys\":{", 9);
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        wb_printf(&web.out, "%s\"%s\":%u", k ? "," : "", keys[k].name, (unsigned)keys[k].key);
    wb_add(&web.out, "},\"lessons\":[", 13);
    for (int k = 0; k < embedded_count; k++) {
        if (k)
            wb_add(&web.out, ",", 1);
        wb_str(&web.out, embedded_lessons[k].name, strlen(embedded_lessons[k].name));
    }
    wb_add(&web.out, "],\"themes\":[", 12);
    for (int t = 0; t < THEME_COUNT; t++)
        wb_printf(&web.out, "%s\"%s\"", t ? "," : "", theme_name((ThemeId)t));
    wb_add(&web.out, "],\"css\":", 8);
    WebBuf css = {0};
    web_palette_css(&css);
    wb_str(&web.out, css.s ? css.s : "", css.n);
    free(css.s);
    wb_add(&web.out, "}", 1);
    return web.out.oom ? "{}" : web.out.s;
}

/* The page's own words (its bar and buttons), through the same catalogue. */
static const char *const web_words[] = {
    N_("Next"), N_("Back"), N_("Open a lesson file"), N_("Lesson"), N_("Theme"), N_("Presentation"), N_("Help"),
};

WEB_API const char *web_tr(const char *msgid);
const char *web_tr(const char *msgid)
{
    for (size_t k = 0; k < sizeof web_words / sizeof *web_words; k++)
        if (strcmp(msgid, web_words[k]) == 0)
            return _(web_words[k]);
    return msgid;
}
