/* header.c - the header line, the stage ribbon, and the screen that is too
 * small to lay out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "lesson/train.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "layout.h"
#include "layout_int.h"

/* ---- header, ribbon ----------------------------------------------------------- */

/* Today's models in the header: the window, RoPE, the online softmax's
 * blocks and, with shared K/V heads, the numbers the KV cache keeps per
 * token, each whole and leaving the title a third of the row; then the
 * offset. Returns the new length. */
static int header_modern(const Frame *c, char *right, size_t len, int n, const char *dot)
{
    const Attn *a = c->a;
    char item[4][64];
    int k = 0;
    if (a->mask == MASK_WINDOW)
        snprintf(item[k++], sizeof item[0], "%s%s %d", dot, _("window"), a->window);
    if (a->positions == POS_ROPE)
        snprintf(item[k++], sizeof item[0], "%sRoPE", dot);
    if (a->softmax == SOFTMAX_ONLINE)
        snprintf(item[k++], sizeof item[0], "%s%s %d", dot, _("block"), a->block);
    if (attn_kv_heads(a) != attn_heads(a))
        snprintf(item[k++], sizeof item[0], _("%skv %d/%d, cache %d/token"), dot, attn_kv_heads(a), attn_heads(a),
                 attn_cache_per_token(a));
    for (int x = 0; x < k && n > 0 && n < (int)len; x++)
        if (text_width(right) + text_width(item[x]) <= c->cols * 2 / 3)
            n += snprintf(right + n, len - (size_t)n, "%s", item[x]);
    if (a->offset != 0 && n > 0 && n < (int)len)
        n += snprintf(right + n, len - (size_t)n, "%s%s %d", dot, _("offset"), a->offset);
    return n;
}

void header_lay(Frame *c)
{
    char right[256], t[40];
    const Session *s = c->s;
    const char *dot = " · ";
    int n = snprintf(right, sizeof right, "%d/%d%s%s %s%s%s", s->step + 1, session_steps(s), dot, _("scale"),
                     c->a->scale == SCALE_SQRT_DK ? frame_sym(c, "÷√d", "/sqrt(d)") : _("none"), dot,
                     c->a->softmax == SOFTMAX_ONLINE   ? _("online")
                     : c->a->softmax == SOFTMAX_STABLE ? _("stable")
                                                       : _("naive"));
    /* The newer options, only when they differ from the defaults. */
    if (c->a->mask == MASK_CAUSAL && n > 0 && n < (int)sizeof right)
        n += snprintf(right + n, sizeof right - (size_t)n, "%s%s", dot, _("causal"));
    n = header_modern(c, right, sizeof right, n, dot);
    if (c->a->temp != 1.0 && n > 0 && n < (int)sizeof right)
        n += snprintf(right + n, sizeof right - (size_t)n, "%sT=%s", dot, fmt_exact(c->a->temp, t, sizeof t));
    if (c->a->positions == POS_SINUSOIDAL && n > 0 && n < (int)sizeof right)
        snprintf(right + n, sizeof right - (size_t)n, "%s%s", dot, _("+pos"));
    int rw = text_width(right), room = c->cols - rw - 4;
    /* The lesson's title whole when it fits; else without "qkvtutor · ";
     * else cut, ending in "…". */
    char title[FMT_LINE];
    const char *brand = "qkvtutor · ";
    text_sanitize(text_get(&c->l->title, c->in->lang), title, sizeof title, c->in->ascii);
    int used = 0;
    if (text_width(brand) + text_width(title) <= room)
        used = plan_put(c, 0, 1, room, brand, ROLE_TITLE);
    if (text_width(title) > room - used) {
        const char *more = frame_sym(c, "…", "...");
        int keep = room - used - text_width(more);
        snprintf(title + text_fit(title, keep > 0 ? keep : 0), 8, "%s", more);
    }
    plan_put(c, 0, 1 + used, room - used, title, ROLE_TITLE);
    plan_put(c, 0, c->cols - rw - 1, rw, right, ROLE_HINT);
    plan_add_block(c, BLOCK_HEADER, 0, 0, c->cols, 1, 1, false);
}

/* One ribbon item: "[3 QKᵀ/√d]" for the current stage, " 2 Q K V " for
 * another, or only " 2 " when `bare` (a ribbon too wide for its room). */
static void ribbon_item(const Frame *c, int k, int st, bool bare, char *item, size_t len)
{
    static const char *utf[] = {"", "1 X", "2 Q K V", "3 QKᵀ", "4 softmax", "5 A·V", "6 O·Wo"};
    static const char *asc[] = {"", "1 X", "2 Q K V", "3 QK^T", "4 softmax", "5 A*V", "6 O*Wo"};
    const char *name = c->in->ascii ? asc[k] : utf[k];
    const char *div = k == STAGE_SCORES && c->a->scale == SCALE_SQRT_DK ? frame_sym(c, "/√d", "/sqrt(d)") : "";
    if (k == st)
        snprintf(item, len, "[%s%s]", name, div);
    else if (bare)
        snprintf(item, len, " %d ", k);
    else
        snprintf(item, len, " %s%s ", name, div);
}

/* The stage ribbon; stage 3 reads QKᵀ/√d only when the scores are scaled.
 * With 2+ heads "head 2/3" stands at the right end, and the stages never
 * run into it: where the names do not all fit, only the current stage
 * keeps its name (" 1 ▸ 2 ▸ [3 QKᵀ] ▸ 4 ▸ 5 ▸ 6 "). */
void ribbon_lay(Frame *c, int y)
{
    if (c->model) { /* a model lesson: the layer and its eight stages */
        model_ribbon_lay(c, y);
        return;
    }
    int st = session_stage(c->s), x = 1, last = attn_last_stage(c->a), end = c->cols;
    const char *sep = frame_sym(c, last > STAGE_COUNT ? "▸" : " ▸ ", last > STAGE_COUNT ? ">" : " > ");
    if (attn_heads(c->a) > 1) { /* "head 2/3" at the right end; the stages show it at 3-5 */
        char hd[64];
        snprintf(hd, sizeof hd, _("head %d/%d"), c->s->head, attn_heads(c->a));
        int hw = text_width(hd);
        end = c->cols - hw - 2;
        plan_put(c, y, end + 1, hw, hd, st >= STAGE_SCORES && st <= STAGE_OUTPUT ? ROLE_RIBBON_CUR : ROLE_DIM);
    }
    int w = 0; /* does the whole ribbon fit? */
    for (int k = 1; k <= last; k++) {
        char item[64];
        ribbon_item(c, k, st, false, item, sizeof item);
        w += text_width(item) + (k < last ? text_width(sep) : 0);
    }
    bool bare = x + w > end;
    for (int k = 1; k <= last; k++) {
        char item[64];
        ribbon_item(c, k, st, bare, item, sizeof item);
        Role r = k == st ? ROLE_RIBBON_CUR : k < st ? ROLE_RIBBON : ROLE_DIM;
        x += plan_put(c, y, x, end - x, item, r);
        if (k < last)
            x += plan_put(c, y, x, end - x, sep, ROLE_DIM);
    }
    plan_add_block(c, BLOCK_RIBBON, y, 0, c->cols, 1, 1, false);
}

/* ---- a model lesson's ribbon --------------------------------------------------- */

static void mribbon_item(const Frame *c, int k, bool bare, char *item, size_t len)
{
    static const char *utf[] = {"", "1 embed", "2 QKV", "3 QKᵀ", "4 softmax", "5 A·V", "6 +O·Wo", "7 FFN", "8 next"};
    static const char *asc[] = {"", "1 embed", "2 QKV", "3 QK^T", "4 softmax", "5 A*V", "6 +O*Wo", "7 FFN", "8 next"};
    const char *name = c->in->ascii ? asc[k] : utf[k];
    if (k == c->mstage)
        snprintf(item, len, "[%s]", name);
    else if (bare)
        snprintf(item, len, " %d ", k);
    else
        snprintf(item, len, " %s ", name);
}

/* "L2/2 · 1 embed ▸ 2 QKV ▸ [3 QKᵀ] ▸ ... ▸ 8 next", 7 only with d_ff > 0;
 * "head 1/2" at the right end with 2+ heads; where the names do not all
 * fit, only the current stage keeps its name. */
/* The ribbon's columns: the layer, the stages (bare: numbers only but the current one). */
static int mribbon_width(const Frame *c, const char *lay, bool bare)
{
    int w = 1 + text_width(lay);
    for (int k = 1; k <= 8; k++) {
        char item[64];
        if (k == 7 && c->model->cfg.d_ff == 0)
            continue;
        mribbon_item(c, k, bare, item, sizeof item);
        w += text_width(item) + (k < 8 ? text_width(frame_sym(c, "▸", ">")) : 0);
    }
    return w;
}

void model_ribbon_lay(Frame *c, int y)
{
    const Model *m = c->model;
    char lay[32], hd[64];
    const char *sep = frame_sym(c, "▸", ">");
    int x = 1, end = c->cols;
    snprintf(lay, sizeof lay, "L%d/%d %s ", c->mlayer, m->cfg.layers, frame_sym(c, "·", "-"));
    bool heads = c->mstage >= 3 && c->mstage <= 5; /* the head matters: it is always named */
    if (m->cfg.heads > 1) {
        snprintf(hd, sizeof hd, _("head %d/%d"), c->s->head, m->cfg.heads);
        int hw = text_width(hd);
        if (heads || mribbon_width(c, lay, false) + hw + 2 <= c->cols) {
            end = c->cols - hw - 2;
            plan_put(c, y, end + 1, hw, hd, heads ? ROLE_RIBBON_CUR : ROLE_DIM);
        }
    }
    x += plan_put(c, y, x, end - x, lay, c->mstage == 8 ? ROLE_DIM : ROLE_RIBBON_CUR);
    bool bare = mribbon_width(c, lay, false) > end;
    for (int k = 1; k <= 8; k++) {
        if (k == 7 && m->cfg.d_ff == 0)
            continue;
        char item[64];
        mribbon_item(c, k, bare, item, sizeof item);
        Role r = k == c->mstage ? ROLE_RIBBON_CUR : k < c->mstage ? ROLE_RIBBON : ROLE_DIM;
        x += plan_put(c, y, x, end - x, item, r);
        if (k < 8)
            x += plan_put(c, y, x, end - x, sep, ROLE_DIM);
    }
    plan_add_block(c, BLOCK_RIBBON, y, 0, c->cols, 1, 1, false);
}

void too_small_lay(Frame *c)
{
    char msg[256], lines[8][FMT_LINE];
    c->p->too_small = true;
    if (session_dirty(c->s) && c->in->ask_quit)
        snprintf(msg, sizeof msg, _("Quit and lose your unsaved edits? y quits, any other key stays."));
    else if (session_dirty(c->s))
        snprintf(msg, sizeof msg, _("The terminal is %dx%d; qkvtutor needs at least %dx%d. Enlarge it to "
                                    "save your edits, or press q."), c->cols, c->rows, LAYOUT_MIN_COLS,
                 LAYOUT_MIN_ROWS);
    else
        snprintf(msg, sizeof msg, _("The terminal is %dx%d; qkvtutor needs at least %dx%d. Enlarge it, or press q."),
                 c->cols, c->rows, LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
    int n = lines_wrap(msg, c->cols > 2 ? c->cols - 2 : 1, lines, 8, false, NULL);
    for (int k = 0; k < n && k < c->rows; k++)
        plan_put(c, k, 1, c->cols - 1, lines[k], ROLE_ERROR);
    plan_add_block(c, BLOCK_TOO_SMALL, 0, 0, c->cols, n < c->rows ? n : c->rows, n, n > c->rows);
}
