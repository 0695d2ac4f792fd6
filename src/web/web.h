/* web.h - the browser back end: the wasm entry that web.js calls.
 *
 * The page holds one View (ui.h), the same state machine the terminal
 * drives: keys go through the UI's one key table (keys_handle), clicks
 * through its mouse hits (keys_mouse), and a frame is laid out with
 * ui_layout_input() + layout_plan() as src/term/draw.c does. What the page
 * paints comes back as compact JSON (frame.c): the plan's runs
 * [y, x, w, role, bold, text], the text field's cursor, the state the
 * URL carries, and the narration and status line for a screen reader. Nothing here touches the browser: web.js owns the DOM, the
 * keyboard, the URL and downloads. Strings returned are owned here and
 * valid until the next call. */
#ifndef QKV_WEB_H
#define QKV_WEB_H

#include <stddef.h>
#include <stdint.h>

#include "ui/ui.h"

/* A growing text buffer for the JSON handed to the page. */
typedef struct {
    char *s;
    size_t n, cap;
    int oom;
} WebBuf;

void wb_reset(WebBuf *b);
void wb_add(WebBuf *b, const char *s, size_t n);
void wb_printf(WebBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string (quoted, escaped). */
void wb_str(WebBuf *b, const char *s, size_t n);

/* frame.c: the frame (or the help screen) laid out for v as JSON. */
void web_frame_json(View *v, WebBuf *b);
/* frame.c: the palette as CSS rules, one per theme and role:
 * .t-dark .r3{color:var(--c6);font-weight:bold} */
void web_palette_css(WebBuf *b);

#endif
