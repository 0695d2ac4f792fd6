/* plan.c - the plan's storage (runs, cells, blocks and their text) and
 * reading it back (plan_block, plan_cell, plan_hit). */
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

Role role_heat(double w)
{
    if (!(w >= 0.25)) /* also NaN */
        return ROLE_HEAT1;
    if (w < 0.5)
        return ROLE_HEAT2;
    return w < 0.75 ? ROLE_HEAT3 : ROLE_HEAT4;
}

/* ---- the plan's storage ----------------------------------------------------- */

void plan_init(Plan *p)
{
    memset(p, 0, sizeof *p);
}

void plan_free(Plan *p)
{
    free(p->run);
    free(p->text);
    free(p->cell);
    free(p->scratch);
    plan_init(p);
}

const char *plan_text(const Plan *p, int off)
{
    return p->text + off;
}

void plan_reset(Plan *p)
{
    p->too_small = false;
    p->nrun = p->ntext = p->ncell = p->nbox = p->nblock = p->nomitted = 0;
    p->xmat = M_COUNT;
    p->xi = p->xj = -1;
    p->oom = false;
}

/* Keep n bytes of s in the plan's text; returns the offset, -1 when out of memory. */
int plan_keep_text(Plan *p, const char *s, size_t n)
{
    if (!grow_buf((void **)&p->text, &p->captext, p->ntext + (int)n + 1, 1)) {
        p->oom = true;
        return -1;
    }
    int off = p->ntext;
    memcpy(p->text + off, s, n);
    p->text[off + (int)n] = '\0';
    p->ntext += (int)n + 1;
    return off;
}

/* Put s (already safe) at (y, x), clipped to w columns and the screen.
 * Returns the columns used. */
int plan_put_styled(Frame *c, int y, int x, int w, const char *s, Role r, bool bold)
{
    if (w <= 0 || y < 0 || y >= c->rows || x < 0 || x >= c->cols)
        return 0;
    if (x + w > c->cols)
        w = c->cols - x;
    int used;
    size_t n = text_fit_width(s, w, &used);
    if (n == 0)
        return 0;
    Plan *p = c->p;
    int off = plan_keep_text(p, s, n);
    if (off < 0 || !grow_buf((void **)&p->run, &p->caprun, p->nrun + 1, sizeof *p->run)) {
        p->oom = true;
        return 0;
    }
    p->run[p->nrun++] = (PlanRun){y, x, used, r, bold, off, (int)n, false};
    return used;
}

/* plan_put_styled of s, n bytes the caller measured at sw columns: the
 * text is not walked again when it fits. */
int plan_put_measured(Frame *c, int y, int x, int w, const char *s, size_t n, int sw, Role r, bool bold)
{
    if (w <= 0 || y < 0 || y >= c->rows || x < 0 || x >= c->cols)
        return 0;
    if (x + w > c->cols)
        w = c->cols - x;
    if (sw > w || n == 0 || sw <= 0)
        return plan_put_styled(c, y, x, w, s, r, bold);
    Plan *p = c->p;
    int off = plan_keep_text(p, s, n);
    if (off < 0 || !grow_buf((void **)&p->run, &p->caprun, p->nrun + 1, sizeof *p->run)) {
        p->oom = true;
        return 0;
    }
    p->run[p->nrun++] = (PlanRun){y, x, sw, r, bold, off, (int)n, false};
    return sw;
}

int plan_put(Frame *c, int y, int x, int w, const char *s, Role r)
{
    return plan_put_styled(c, y, x, w, s, r, false);
}

/* w blank columns in role r (a highlighted label, a cell, the key bar). */
void plan_fill_styled(Frame *c, int y, int x, int w, Role r, bool bold)
{
    static const char sp[] = "                                                                ";
    if (w > 0 && w < (int)sizeof sp && y >= 0 && y < c->rows && x >= 0 && x < c->cols) {
        /* one run of blanks, a column each: plan_put_styled without measuring */
        Plan *p = c->p;
        int n = x + w > c->cols ? c->cols - x : w;
        int off = plan_keep_text(p, sp, (size_t)n);
        if (off < 0 || !grow_buf((void **)&p->run, &p->caprun, p->nrun + 1, sizeof *p->run)) {
            p->oom = true;
            return;
        }
        p->run[p->nrun++] = (PlanRun){y, x, n, r, bold, off, n, false};
        return;
    }
    while (w > 0) {
        int k = w < (int)sizeof sp - 1 ? w : (int)sizeof sp - 1;
        plan_put_styled(c, y, x, k, sp, r, bold);
        x += k;
        w -= k;
    }
}

void plan_fill(Frame *c, int y, int x, int w, Role r)
{
    plan_fill_styled(c, y, x, w, r, false);
}

/* Lesson text: sanitised first, so it can never reach the terminal raw. */
int plan_put_lesson(Frame *c, int y, int x, int w, const char *s, Role r)
{
    char safe[FMT_LINE];
    text_sanitize(s, safe, sizeof safe, c->in->ascii);
    return plan_put(c, y, x, w, safe, r);
}

const char *frame_sym(const Frame *c, const char *utf8, const char *ascii)
{
    return c->in->ascii ? ascii : utf8;
}

int frame_key_width(const Frame *c, int j)
{
    if (!attn_is_cross(c->a))
        return frame_tok_width(c, j);
    char safe[256];
    text_sanitize(lesson_key_token(c->l, c->a, j), safe, sizeof safe, c->in->ascii);
    int w = text_width(safe);
    return w > 8 ? 8 : w;
}

int frame_tok_width(const Frame *c, int i)
{
    if (c->tokw && i >= 0 && i < MAT_MAX && c->tokw[i] > 0) /* measured once a frame */
        return c->tokw[i] - 1;
    char safe[256];
    text_sanitize(lesson_token(c->l, c->a, i), safe, sizeof safe, c->in->ascii);
    int w = text_width(safe);
    w = w > 8 ? 8 : w;
    if (c->tokw && i >= 0 && i < MAT_MAX)
        c->tokw[i] = w + 1;
    return w;
}

PlanBlock *plan_add_block(Frame *c, BlockKind k, int y, int x, int w, int h, int want, bool cut)
{
    Plan *p = c->p;
    if (p->nblock >= PLAN_MAX_BLOCKS)
        return NULL;
    p->block[p->nblock] = (PlanBlock){k, y, x, w, h, want, cut};
    return &p->block[p->nblock++];
}

/* ---- reading a plan back ------------------------------------------------------ */

const PlanBlock *plan_block(const Plan *p, BlockKind k)
{
    for (int b = 0; b < p->nblock; b++)
        if (p->block[b].kind == k)
            return &p->block[b];
    return NULL;
}

const PlanCell *plan_cell(const Plan *p, MatId id, int i, int j)
{
    for (int k = 0; k < p->ncell; k++)
        if (p->cell[k].id == id && p->cell[k].i == i && p->cell[k].j == j)
            return &p->cell[k];
    return NULL;
}

bool plan_hit(const Plan *p, int y, int x, MatId *id, int *i, int *j, int *click)
{
    for (int k = 0; k < p->nbox; k++) {
        const PlanBox *b = &p->box[k];
        if (b->placeholder || x < b->cx || y < b->cy)
            continue;
        int cc = (x - b->cx) / b->cw, r = (y - b->cy) / b->step;
        if (r >= b->nr || cc >= b->nc)
            continue;
        *id = b->id;
        *i = b->r0 + r;
        *j = b->c0 + cc;
        *click = b->click;
        return true;
    }
    return false;
}
