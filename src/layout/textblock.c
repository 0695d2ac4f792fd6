/* textblock.c - text blocks: the focused cell's arithmetic, the narration,
 * the status line's wording; wrapping and cutting lines to a width. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "lesson/train.h"
#include "core/model_explain.h"
#include "words/fmt.h"
#include "words/fmtmodel.h"
#include "lesson/asking.h"
#include "text/i18n.h"
#include "words/live.h"
#include "layout.h"
#include "layout_int.h"

/* ---- text ------------------------------------------------------------------ */

/* Is byte b part of a number or a word (digits, letters, the point)? */
static bool wordish(unsigned char b)
{
    return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '.' || b == '_';
}

/* Where to cut line, at most `cut` bytes in: arithmetic (terms) at a space
 * between its terms; other text not inside a number or a word, a sign
 * with its number. */
static size_t cut_point(const char *line, size_t cut, bool terms)
{
    size_t k = cut;
    if (terms)
        while (k > 0 && line[k] != ' ')
            k--;
    else {
        while (k > 0 && wordish((unsigned char)line[k]) && wordish((unsigned char)line[k - 1]))
            k--;
        if (line[k] >= '0' && line[k] <= '9') /* a sign belongs to its number */
            k = k >= 3 && strncmp(line + k - 3, "−", 3) == 0 ? k - 3 : k >= 1 && line[k - 1] == '-' ? k - 1 : k;
    }
    return k > 0 ? k : cut;
}

/* Cut line (safe text, FMT_LINE bytes) to w columns, ending in " …",
 * never inside a number or a word. Arithmetic (terms) is cut at a space
 * between its terms, and an operator left dangling at the end (+ − × ÷ · =
 * , ;) goes with what was cut: "= (1.210)(0.510) + (0.900)(1.200) …", not
 * "= 1.69 …". Text without a space to cut at in reach (Chinese) is cut
 * between characters, but still not inside a number. */
void line_ellipsize(const Frame *c, char *line, int w, bool terms)
{
    const char *more = frame_sym(c, " …", " ...");
    int room = w - text_width(more);
    size_t cut = text_fit(line, room > 0 ? room : 0);
    if (cut < strlen(line))
        cut = cut_point(line, cut, terms);
    static const char *const dangling[] = {"+", "−", "-", "×", "÷", "·", "=", "*", "/", ",", ";", "→", "⇒"};
    for (bool again = true; again && cut > 0;) {
        while (cut > 0 && line[cut - 1] == ' ')
            cut--;
        again = false;
        for (size_t d = 0; terms && d < sizeof dangling / sizeof *dangling; d++) {
            size_t n = strlen(dangling[d]);
            if (cut > n && strncmp(line + cut - n, dangling[d], n) == 0 && line[cut - n - 1] == ' ') {
                cut -= n;
                again = true;
                break;
            }
        }
    }
    snprintf(line + cut, 8, "%s", more);
}

/* Wrap `text` (safe) at w columns into up to max lines, arithmetic between
 * its terms (fmt_wrap); returns the count, *more when text was left over. */
int lines_wrap(const char *text, int w, char lines[][FMT_LINE], int max, bool terms, bool *more)
{
    int n = 0;
    const char *p = text;
    while (*p && n < max) {
        size_t len = fmt_wrap(p, w, terms), k = strnlen(p, len); /* as "%.*s" would, cut to the line */
        k = k < FMT_LINE - 1 ? k : FMT_LINE - 1;
        memcpy(lines[n], p, k);
        lines[n++][k] = '\0';
        for (p += len; *p == ' '; p++) {}
    }
    if (more)
        *more = *p != '\0';
    return n;
}

/* The cell the arithmetic explains: edit mode's cursor, else the focus. */
static void explained(const Frame *c, MatId *m, int *i, int *j)
{
    const LayoutIn *in = c->in;
    int st = session_stage(c->s);
    if (in->mode == LAYOUT_EDIT && st <= STAGE_QKV) {
        *m = in->emat;
        *i = in->ei;
        *j = in->ej;
        return;
    }
    *m = st == STAGE_QKV || st == STAGE_INPUT ? layout_focus_mat(st, in->fmat) : HEAD_MAT(c, attn_stage_mat(st));
    *i = in->fi;
    *j = in->fj;
}

/* layout_arith; *first (when not NULL) gets the lines the row's first
 * cell explains alone (session_explain's count for it at FMT_MAX_LINES),
 * or -1 when that was not worked out on the way. */
static int arith_first(const Session *s, MatId m, int i, int j, bool row, const FmtOpt *fo, char lines[][FMT_LINE],
                       int max, int *first)
{
    int unknown;
    first = first ? first : &unknown;
    *first = -1;
    if (!row || attn_mat_base(m) == M_A) /* A's arithmetic is the row's walk already */
        return session_explain(s, m, i, j, fo, lines, max);
    bool given = (m == M_X && s->cur.positions == POS_NONE) || m == M_XS || attn_mat_is_param(m); /* with positions: h = x + p */
    if (given && max > 0) { /* given numbers: "x₁ = [1.000, 0.000]   (note)" */
        char name[48], num[64];
        int n = session_explain(s, m, i, 0, fo, lines, max);
        *first = max == FMT_MAX_LINES ? n : -1;
        /* the note after the value, "   (…)" in English, "   （…）" in Chinese */
        const char *note = n > 0 ? strstr(lines[0], "   ") : NULL;
        char tail[FMT_LINE];
        snprintf(tail, sizeof tail, "%s", note ? note : "");
        effect_cell_name(m, i, -1, fo, name, sizeof name);
        snprintf(lines[0], FMT_LINE, "%s = [", name);
        for (int k = 0; k < s->cur.m[m].cols; k++)
            snprintf(lines[0] + strlen(lines[0]), FMT_LINE - strlen(lines[0]), "%s%s", k ? ", " : "",
                     session_ask_hidden(s, m, i, k) ? "?" : fmt_num(MAT_AT(&s->cur.m[m], i, k), fo, num, sizeof num));
        snprintf(lines[0] + strlen(lines[0]), FMT_LINE - strlen(lines[0]), "]%s", tail);
        return 1;
    }
    int n = 0;
    char one[FMT_MAX_LINES][FMT_LINE];
    for (int k = 0; k < s->cur.m[m].cols && n < max; k++) {
        int got = session_explain(s, m, i, k, fo, one, FMT_MAX_LINES);
        if (k == 0)
            *first = got;
        for (int g = 0; g < got && n < max; g++) {
            bool seen = false;
            for (int h = 0; h < n && !seen; h++)
                seen = strcmp(lines[h], one[g]) == 0;
            if (!seen)
                snprintf(lines[n++], FMT_LINE, "%s", one[g]);
        }
    }
    return n;
}

int layout_arith(const Session *s, MatId m, int i, int j, bool row, const FmtOpt *fo, char lines[][FMT_LINE],
                 int max)
{
    return arith_first(s, m, i, j, row, fo, lines, max, NULL);
}

/* The note a line with " ≈ " carries, once per screen (fmt_note_approx). */
const char *arith_approx_note(const Frame *c)
{
    return c->in->ascii ? _("(~: computed before rounding)") : _("(≈: computed before rounding)");
}

/* The arithmetic's lines wrapped at w; *first gets how many of them the
 * first cell takes (a row focus: the rest may give way before the
 * narration does). */
int arith_lines(Frame *c, int w, char lines[][FMT_LINE], int max, bool *more, int *first)
{
    if (c->model && model_own_stage(c)) /* a model's embed, residual, FFN, next: its own cells */
        return model_arith_lines(c, w, lines, max, more, first);
    char raw[FMT_MAX_LINES][FMT_LINE];
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    bool row = c->in->frow && c->in->mode != LAYOUT_EDIT;
    explained(c, &c->p->xmat, &c->p->xi, &c->p->xj);
    *more = false;
    /* the session's: what an open ask hides reads "?"; a row focus, every
     * cell of the row (lines the cells share, once) */
    int known;
    int n = arith_first(c->s, c->p->xmat, c->p->xi, c->p->xj, row, &fo, raw, FMT_MAX_LINES, &known), out = 0;
    int one = n;
    if (row && attn_mat_base(c->p->xmat) != M_A && known >= 0) /* the first cell's own lines, counted already */
        one = known;
    else if (row && attn_mat_base(c->p->xmat) != M_A) {
        char tmp[FMT_MAX_LINES][FMT_LINE];
        one = session_explain(c->s, c->p->xmat, c->p->xi, 0, &fo, tmp, FMT_MAX_LINES);
    }
    *more = row && n == FMT_MAX_LINES && c->a->m[c->p->xmat].cols > 1;
    *first = 0;
    for (int k = 0; k < n; k++)
        c->noted = c->noted || strstr(raw[k], arith_approx_note(c));
    for (int k = 0; k < n; k++) {
        if (out >= max) {
            *more = true;
            break;
        }
        bool left;
        out += lines_wrap(raw[k], w, lines + out, max - out, true, &left);
        *more = *more || left;
        if (k + 1 == one)
            *first = out;
    }
    if (*first == 0)
        *first = out;
    return out;
}

/* The title card before step 1: the lesson's title and its about: (filled
 * in from the starting state), in the narration's place. */
static int card_lines(Frame *c, int w, char lines[][FMT_LINE], int max, bool *more)
{
    char title[FMT_LINE];
    char *about = lesson_about_text(c->l, c->in->lang, c->in->ascii);
    char *safe = about ? fmt_prose(about, c->in->ascii) : NULL;
    text_sanitize(text_get(&c->l->title, c->in->lang), title, sizeof title, c->in->ascii);
    bool cut = false;
    int n = title[0] ? lines_wrap(title, w, lines, max, false, &cut) : 0;
    if (safe && *safe && n > 0 && n < max)
        lines[n++][0] = '\0';
    n += safe && n < max ? lines_wrap(safe, w, lines + n, max - n, false, more) : 0;
    *more = *more || cut;
    free(safe);
    free(about);
    return n;
}

/* The narration, its templates filled in from the live state (open asks
 * as "?"): session_say. */
int narration_lines(Frame *c, int w, char lines[][FMT_LINE], int max, bool *more)
{
    *more = false;
    if (c->in->title_card)
        return card_lines(c, w, lines, max, more);
    char *say = session_say(c->s, c->in->lang, c->in->ascii);
    char *safe = say ? fmt_prose(say, c->in->ascii) : NULL;
    *more = false;
    int n = safe ? lines_wrap(safe, w, lines, max, false, more) : 0;
    free(safe);
    free(say);
    return n;
}

/* Short lines of text (the notice, the trace, the tally): wrapped whole. */
int block_lines(const Frame *c, const char *text, int w, char lines[][FMT_LINE], int max, bool terms,
                      bool *more)
{
    char safe[FMT_LINE];
    text_sanitize(text, safe, sizeof safe, c->in->ascii);
    *more = false;
    return safe[0] ? lines_wrap(safe, w, lines, max, terms, more) : 0;
}

/* What to say about a row of A that is not finite (see attn_row_trouble). */
static const char *trouble_text(AttnTrouble t)
{
    switch (t) {
    case ATTN_SCORES_NOT_FINITE:
        return _("S has values that are not finite, so A cannot be computed.");
    case ATTN_EXP_OVERFLOW:
        return _("exp overflowed: inf/NaN. Press m: the stable softmax subtracts the row max.");
    case ATTN_EXP_UNDERFLOW:
        return _("every exp underflowed to 0, so 0/0 = NaN. Press m: the stable softmax subtracts the row max.");
    default:
        return _("A has values that are not finite.");
    }
}

/* A hint for what is on screen when there is no message: overflow first. */
static void status_hint(const Frame *c, char *buf, size_t len, Role *role)
{
    const Attn *a = c->a;
    *role = ROLE_HINT;
    buf[0] = '\0';
    for (int i = 0; i < a->m[M_A].rows; i++) {
        AttnTrouble t = attn_row_trouble_head(a, c->s->head, i);
        if (t != ATTN_FINE) {
            snprintf(buf, len, "%s", trouble_text(t));
            *role = ROLE_ERROR;
            return;
        }
    }
    fmt_override_status(c->s, c->in->ascii, buf, len);
}

/* The status text: a message wins over the standing hint, unless the hint
 * is a warning (an overflow) and the message is not. Empty when neither. */
Role status_line_text(const Frame *c, char *line, size_t len)
{
    Role role;
    const LayoutIn *in = c->in;
    status_hint(c, line, len, &role);
    if (in->msg && in->msg[0] && (role != ROLE_ERROR || in->msg_role == ROLE_ERROR)) {
        text_sanitize(in->msg, line, len, in->ascii);
        role = in->msg_role;
    }
    return role;
}

/* ---- a model lesson's arithmetic at its own stages (1, 6, 7, 8) ------------------ */

bool model_own_stage(const Frame *c)
{
    return c->model && (c->mstage == 1 || c->mstage >= 6);
}

static ModelRef mref(ModelMatKind k, int layer)
{
    return (ModelRef){k, layer, M_COUNT};
}

/* The matrix each own stage explains and the ones its arithmetic quotes,
 * in screen order: refs[0 .. n); *ex the explained one's index. */
int model_stage_refs(const Frame *c, ModelRef *refs, int *ex)
{
    int l = c->mlayer, n = 0;
    switch (c->mstage) {
    case 1: refs[n++] = mref(MM_H_IN, l); refs[n++] = mref(MM_A, l); *ex = 1; break;
    case 6:
        refs[n++] = mref(MM_H_IN, l);
        refs[n++] = (ModelRef){MM_ATTN, l, M_Y};
        refs[n++] = mref(MM_H_MID, l);
        *ex = 2;
        break;
    case 7: refs[n++] = mref(MM_F, l); refs[n++] = mref(MM_H_MID, l); refs[n++] = mref(MM_H, l); *ex = 2; break;
    default: refs[n++] = mref(MM_LOGITS, 0); refs[n++] = mref(MM_PROBS, 0); *ex = 1; break;
    }
    return n;
}

/* ---- the arithmetic ------------------------------------------------------------ */

/* An asked cell's lines (an open question): its own line ends "= ?" after
 * its formula and operands, nothing after it; a p also leaves out the
 * exps and their sum (p is one division away from them). */
static int hide_result(const Frame *c, ModelRef r, int i, int j, char raw[][FMT_LINE], int n)
{
    char name[64];
    fmt_model_cell(c->model, r, i, j, c->vocab, c->in->ascii, name, sizeof name);
    int out = 0;
    for (int k = 0; k < n; k++) {
        if (r.kind == MM_PROBS && strncmp(raw[k], name, strlen(name)) != 0)
            continue;
        if (strncmp(raw[k], name, strlen(name)) != 0) {
            memmove(raw[out++], raw[k], FMT_LINE);
            continue;
        }
        char *eq = strrchr(raw[k], '='), *ap = strstr(raw[k], "≈"), *cut = ap && (!eq || ap > eq) ? ap : eq;
        if (r.kind == MM_PROBS && (eq = strchr(raw[k], '=')) != NULL && (eq = strchr(eq + 1, '=')) != NULL)
            cut = eq; /* p[4][B] = exp(z − max) ÷ Σ = ?: its exp ÷ Σ is one division from the answer */
        if (cut)
            snprintf(cut, FMT_LINE - (size_t)(cut - raw[k]), "= ?");
        memmove(raw[out++], raw[k], FMT_LINE);
        break;
    }
    return out;
}

/* The lines of one model cell, or an attention cell's (Y) via explain_cell. */
static int cell_lines(const Frame *c, ModelRef r, int i, int j, char raw[][FMT_LINE], int max)
{
    FmtOpt fo = {c->l->digits, c->in->ascii, false};
    if (r.kind == MM_ATTN) {
        Explain e;
        if (!explain_cell(&c->model->layer[r.layer - 1].att, r.attn, i, j, &e))
            return 0;
        return fmt_explain(&e, &fo, raw, max);
    }
    ModelExplain *e = malloc(sizeof *e); /* 8 KB of terms */
    int n = e && model_explain(c->model, r, i, j, e) ? fmt_model_explain(c->model, e, c->vocab, &fo, raw, max) : 0;
    free(e);
    if (c->in->s && session_ask_mhidden(c->in->s, r, i, j))
        n = hide_result(c, r, i, j, raw, n);
    return n;
}

/* The cells a stage explains: its result's (first), then what it is made
 * of when that has its own line (h_in's embed at stage 1, y at 6, f at 7). */
int model_arith_lines(Frame *c, int w, char lines[][FMT_LINE], int max, bool *more, int *first)
{
    char raw[FMT_MAX_LINES][FMT_LINE];
    ModelRef refs[4];
    int ex, n = 0, out = 0, i = c->in->fi, j = c->in->fj;
    model_stage_refs(c, refs, &ex);
    n = cell_lines(c, refs[ex], i, j, raw, FMT_MAX_LINES);
    *first = 0;
    if (c->mstage == 1 || c->mstage == 6) /* h_in's own line; y's products */
        n += cell_lines(c, refs[c->mstage == 1 ? 0 : 1], i, j, raw + n, FMT_MAX_LINES - n);
    else if (c->mstage == 7)
        n += cell_lines(c, refs[0], i, j < c->model->cfg.d_ff ? j : 0, raw + n, FMT_MAX_LINES - n);
    fmt_note_approx(raw, n, c->in->ascii, &c->noted);
    *more = false;
    for (int k = 0; k < n; k++) {
        if (out >= max) {
            *more = true;
            break;
        }
        bool left;
        out += lines_wrap(raw[k], w, lines + out, max - out, true, &left);
        *more = *more || left;
    }
    *first = out; /* the lines are one cell's: they give way together */
    return out;
}

