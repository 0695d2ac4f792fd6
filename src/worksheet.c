/* worksheet.c - --worksheet and --answers (see worksheet.h). */
#include "worksheet.h"

#include <stdlib.h>
#include <string.h>

#include "core/explain.h"
#include "lesson/fmt.h"
#include "lesson/i18n.h"
#include "lesson/live.h"
#include "lesson/session.h"
#include "lesson/template.h"
#include "render.h"

#define BLANK "______"

/* ---- Markdown text ------------------------------------------------------------ */

/* Lesson text made safe (text_sanitize: no control characters; line breaks
 * become spaces) and escaped for Markdown: the characters that CommonMark,
 * GitHub and pandoc read as markup (emphasis, code, HTML, table cells, math,
 * sub/superscripts) get a backslash. malloc'd; NULL when out of memory. */
static char *md_escape(const char *s, bool ascii)
{
    char *safe = fmt_prose(s ? s : "", ascii);
    if (!safe)
        return NULL;
    char *out = malloc(strlen(safe) * 2 + 1), *o = out;
    for (const char *p = safe; out && *p; p++) {
        if (strchr("\\`*_<>|$~^[]#", *p))
            *o++ = '\\';
        *o++ = *p;
    }
    if (out)
        *o = '\0';
    free(safe);
    return out;
}

static bool put_md(FILE *out, const char *s, bool ascii)
{
    char *e = md_escape(s, ascii);
    if (e)
        fputs(e, out);
    free(e);
    return e != NULL;
}

/* ---- tables ------------------------------------------------------------------- */

/* A Markdown table: row 0 is the header; columns padded to their widest cell
 * so the source reads as a table too. Cells hold escaped text. */
typedef struct {
    int rows, cols;
    char **cell;
    bool *right;        /* numbers: right-aligned */
    bool oom;
} Table;

static bool tab_new(Table *t, int rows, int cols)
{
    t->rows = rows;
    t->cols = cols;
    t->oom = false;
    t->cell = calloc((size_t)rows * (size_t)cols, sizeof *t->cell);
    t->right = calloc((size_t)cols, sizeof *t->right);
    return t->cell && t->right;
}

static void tab_free(Table *t)
{
    for (int k = 0; t->cell && k < t->rows * t->cols; k++)
        free(t->cell[k]);
    free(t->cell);
    free(t->right);
    memset(t, 0, sizeof *t);
}

/* Set a cell to lesson text (escaped) or to our own text (raw: numbers,
 * BLANK, names without markup characters). */
static void tab_set(Table *t, int r, int c, const char *s, bool lesson_text, bool ascii)
{
    char *v = lesson_text ? md_escape(s, ascii) : strdup(s);
    if (!v)
        t->oom = true;
    free(t->cell[r * t->cols + c]);
    t->cell[r * t->cols + c] = v;
}

static void tab_print(FILE *out, const Table *t)
{
    int w[MAT_MAX + 2] = {0};
    for (int c = 0; c < t->cols && c < MAT_MAX + 2; c++) {
        w[c] = 3;
        for (int r = 0; r < t->rows; r++) {
            const char *s = t->cell[r * t->cols + c];
            int n = s ? text_width(s) : 0;
            w[c] = n > w[c] ? n : w[c];
        }
    }
    for (int r = 0; r < t->rows; r++) {
        for (int c = 0; c < t->cols; c++) {
            const char *s = t->cell[r * t->cols + c];
            s = s ? s : "";
            int pad = w[c] - text_width(s);
            fprintf(out, "| %s%*s%s ", t->right[c] ? "" : s, pad, "", t->right[c] ? s : "");
        }
        fputs("|\n", out);
        if (r == 0) {
            for (int c = 0; c < t->cols; c++) {
                fputs("|", out);
                for (int k = 0; k < w[c] + (t->right[c] ? 1 : 2); k++)
                    fputc('-', out);
                fputs(t->right[c] ? ":" : "", out);
            }
            fputs("|\n", out);
        }
    }
    fputc('\n', out);
}

/* ---- matrices as tables ---------------------------------------------------------- */

/* Rows labelled by token for results with one row per token, else 1..n;
 * columns by token for S, QKt and A, else 1..n. */
static bool rows_by_token(const Lesson *l, MatId id, const Attn *a)
{
    return a->m[id].rows == l->ntok && !attn_mat_is_param(id);
}

static bool cols_by_token(const Lesson *l, MatId id)
{
    return id == M_S || id == M_QKT || id == M_A;
}

static void label_row(Table *t, int r, const Lesson *l, MatId id, const Attn *a, int i, bool ascii)
{
    char num[16];
    if (rows_by_token(l, id, a)) {
        tab_set(t, r, 0, l->tokens[i], true, ascii);
    } else {
        snprintf(num, sizeof num, "%d", i + 1);
        tab_set(t, r, 0, num, false, ascii);
    }
}

/* The header: the matrix's name, then the labels of columns first..first+n-1. */
static void label_cols(Table *t, const Lesson *l, MatId id, int first, int n, bool ascii)
{
    char num[16];
    tab_set(t, 0, 0, attn_mat_name(id), false, ascii);
    for (int c = 0; c < n; c++) {
        t->right[c + 1] = true;
        if (cols_by_token(l, id) && first + c < l->ntok) {
            tab_set(t, 0, c + 1, l->tokens[first + c], true, ascii);
        } else {
            snprintf(num, sizeof num, "%d", first + c + 1);
            tab_set(t, 0, c + 1, num, false, ascii);
        }
    }
}

/* Print matrix id of state a; only the rows flagged in `only` when given. */
static bool put_matrix(FILE *out, const Lesson *l, const Attn *a, MatId id, const bool *only, const FmtOpt *fo)
{
    const Mat *m = &a->m[id];
    int n = 0;
    for (int i = 0; i < m->rows; i++)
        n += !only || only[i];
    Table t;
    bool ok = tab_new(&t, n + 1, m->cols + 1);
    if (ok) {
        label_cols(&t, l, id, 0, m->cols, fo->ascii);
        for (int i = 0, r = 1; i < m->rows; i++) {
            if (only && !only[i])
                continue;
            label_row(&t, r, l, id, a, i, fo->ascii);
            for (int j = 0; j < m->cols; j++) {
                char v[64];
                tab_set(&t, r, j + 1, fmt_num(MAT_AT(m, i, j), fo, v, sizeof v), false, fo->ascii);
            }
            r++;
        }
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    return ok;
}

/* The room to write an answer: the asked row (or cell) with blank cells. */
static bool put_blank(FILE *out, const Lesson *l, const Attn *a, const Ask *q, bool ascii)
{
    int first = q->j >= 0 ? q->j : 0, n = ask_cells(q, a);
    Table t;
    bool ok = tab_new(&t, 2, n + 1);
    if (ok) {
        label_cols(&t, l, q->mat, first, n, ascii);
        label_row(&t, 1, l, q->mat, a, q->i, ascii);
        for (int c = 0; c < n; c++)
            tab_set(&t, 1, c + 1, BLANK, false, ascii);
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    return ok;
}

/* ---- the questions ----------------------------------------------------------------- */

typedef struct {
    int step;           /* 0-based */
    Ask ask;
} Question;

static int lesson_asks(const Lesson *l)
{
    int n = 0;
    for (int k = 0; k < l->nsteps; k++)
        n += l->steps[k].nask;
    return n;
}

/* Every ask in script order; or, for a lesson without asks, one question
 * per stage 2..5 (see worksheet.h). Returns the count; q holds at least
 * max(asks, 4). */
static int collect(const Lesson *l, Question *q)
{
    int n = 0;
    for (int k = 0; k < l->nsteps; k++)
        for (int a = 0; a < l->steps[k].nask; a++)
            q[n++] = (Question){k, l->steps[k].ask[a]};
    if (n)
        return n;
    for (int stage = STAGE_QKV; stage <= STAGE_OUTPUT; stage++) {
        int at = -1;
        for (int k = 0; k < l->nsteps && at < 0; k++) {
            const Step *st = &l->steps[k];
            const Focus *f = &st->focus;
            if (st->stage == stage && f->kind != FOCUS_NONE && f->mat != M_X && !attn_mat_is_param(f->mat)) {
                at = k;
                q[n] = (Question){k, {f->mat, f->i, f->kind == FOCUS_CELL ? f->j : -1, st->line, 0}};
            }
        }
        for (int k = 0; k < l->nsteps && at < 0; k++)
            if (l->steps[k].stage == stage) {
                at = k;
                q[n] = (Question){k, {attn_stage_mat(stage), 0, 0, l->steps[k].line, 0}};
            }
        n += at >= 0;
    }
    return n;
}

/* In the sheet's narration every value any question asks is "?": a later
 * step's narration must not give away an earlier answer. */
static bool asked_anywhere(const void *ctx, MatId m, int i, int j)
{
    const Lesson *l = ctx;
    for (int k = 0; k < l->nsteps; k++)
        for (int a = 0; a < l->steps[k].nask; a++) {
            const Ask *q = &l->steps[k].ask[a];
            if (ask_covers(q, m, i, j) || (m == M_QKT && ask_covers(q, M_S, i, j)) ||
                (m == M_S && ask_covers(q, M_QKT, i, j)))
                return true;
        }
    return false;
}

/* The script's actions of steps from..to, as written, one list item each
 * in a code span: "- `Q[1] = K[1] * 5`". */
static void put_actions(FILE *out, const Lesson *l, int from, int to, bool ascii)
{
    for (int k = from; k <= to; k++)
        for (int a = 0; a < l->steps[k].nact; a++) {
            char safe[1024];
            text_sanitize(l->steps[k].act_text[a], safe, sizeof safe, ascii);
            for (char *p = safe; *p; p++)
                if (*p == '`')
                    *p = '\'';
            fprintf(out, "- `%s`\n", safe);
        }
    fputc('\n', out);
}

/* Print one question; false when out of memory. */
static bool put_question(FILE *out, const Lesson *l, const Session *s, const Question *q, int num, int prev_step,
                         bool narrate, const WorksheetOpt *o)
{
    bool ok = true;
    const Step *st = &l->steps[q->step];
    char name[48];
    fputs("### ", out);
    fprintf(out, _("%d · stage %d: %s"), num, st->stage, render_stage_title(st->stage));
    fputs("\n\n", out);
    int acts = 0;
    for (int k = prev_step + 1; k <= q->step; k++)
        acts += l->steps[k].nact;
    if (acts) {
        fprintf(out, "%s\n\n", _("Before this question the lesson does:"));
        put_actions(out, l, prev_step + 1, q->step, o->ascii);
    }
    const char *say = text_get(&st->say, o->lang);
    if (narrate && *say) {
        TplOpt to = {l->digits, o->ascii, asked_anywhere, l, o->lang};
        char *text = template_has_refs(say) ? template_expand_dup(say, &s->cur, l, &to) : strdup(say);
        ok = text && put_md(out, text, o->ascii);
        if (ok)
            fputs("\n\n", out);
        free(text);
    }
    ask_name(&q->ask, name, sizeof name);
    const char *words = text_get(&st->question, o->lang);
    if (*words) { /* the step's question: words, then what to fill in */
        TplOpt to = {l->digits, o->ascii, asked_anywhere, l, o->lang};
        char *text = template_expand_dup(words, &s->cur, l, &to);
        ok = ok && text && put_md(out, text, o->ascii);
        free(text);
        fputs("\n\n", out);
    }
    fprintf(out, "**%s = ?**\n\n", name);
    return ok && put_blank(out, l, &s->cur, &q->ask, o->ascii);
}

/* Move the session to a question's step; false when the state could not be
 * rebuilt (out of memory). */
static bool go(Session *s, int step)
{
    session_goto(s, step);
    return s->step == step;
}

/* ---- the key --------------------------------------------------------------------------- */

/* Each cell's arithmetic as --dump writes it, lines the previous cell
 * already gave (a row's shared first line) left out. */
static void put_arithmetic(FILE *out, const Session *s, const Ask *q, const FmtOpt *fo)
{
    static char lines[FMT_MAX_LINES][FMT_LINE], prev[FMT_MAX_LINES][FMT_LINE];
    int first = q->j >= 0 ? q->j : 0, cells = ask_cells(q, &s->cur), nprev = 0;
    fputs("```text\n", out);
    for (int c = 0; c < cells; c++) {
        Explain e;
        if (!explain_cell(&s->cur, q->mat, q->i, first + c, &e))
            continue;
        int n = fmt_explain_in(s, &e, fo, lines, FMT_MAX_LINES);
        for (int k = 0; k < n; k++) {
            bool seen = false;
            for (int p = 0; p < nprev && !seen; p++)
                seen = strcmp(lines[k], prev[p]) == 0;
            if (!seen)
                fprintf(out, "%s\n", lines[k]);
        }
        memcpy(prev, lines, sizeof lines);
        nprev = n;
    }
    fputs("```\n\n", out);
}

static bool put_key(FILE *out, const Lesson *l, Session *s, const Question *q, int nq, const WorksheetOpt *o,
                    const FmtOpt *fo)
{
    char name[48], vals[FMT_LINE], num[16];
    fprintf(out, "## %s", _("Answer key"));
    if (l->reseeded)
        fprintf(out, " · %s %lu", _("variant"), l->seed);
    fputs("\n\n", out);
    Table t;
    bool ok = tab_new(&t, nq + 1, 4);
    if (ok) {
        tab_set(&t, 0, 0, "#", false, o->ascii);
        tab_set(&t, 0, 1, _("step"), false, o->ascii);
        tab_set(&t, 0, 2, _("asked"), false, o->ascii);
        tab_set(&t, 0, 3, _("answer"), false, o->ascii);
        t.right[0] = t.right[1] = true;
        for (int k = 0; ok && k < nq; k++) {
            ok = go(s, q[k].step);
            snprintf(num, sizeof num, "%d", k + 1);
            tab_set(&t, k + 1, 0, num, false, o->ascii);
            snprintf(num, sizeof num, "%d", q[k].step + 1);
            tab_set(&t, k + 1, 1, num, false, o->ascii);
            ask_name(&q[k].ask, name, sizeof name);
            tab_set(&t, k + 1, 2, name, false, o->ascii);
            ask_values(&q[k].ask, &s->cur, fo, vals, sizeof vals);
            tab_set(&t, k + 1, 3, vals, false, o->ascii);
        }
        ok = ok && !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    for (int k = 0; ok && k < nq; k++) {
        if (!(ok = go(s, q[k].step)))
            break;
        ask_name(&q[k].ask, name, sizeof name);
        ask_values(&q[k].ask, &s->cur, fo, vals, sizeof vals);
        fprintf(out, "### %d · %s = %s\n\n", k + 1, name, vals);
        put_arithmetic(out, s, &q[k].ask, fo);
    }
    return ok;
}

/* ---- the sheet --------------------------------------------------------------------------- */

static bool put_givens(FILE *out, const Lesson *l, const Attn *base, const WorksheetOpt *o, const FmtOpt *fo)
{
    char buf[256], v[64];
    bool ok = true;
    fprintf(out, "## %s\n\n", _("Given"));
    /* tokens */
    fprintf(out, "**%s**\n\n", _("Tokens"));
    Table t = {0};
    if ((ok = tab_new(&t, l->ntok + 1, 2))) {
        tab_set(&t, 0, 0, "#", false, o->ascii);
        tab_set(&t, 0, 1, _("token"), false, o->ascii);
        t.right[0] = true;
        for (int i = 0; i < l->ntok; i++) {
            snprintf(buf, sizeof buf, "%d", i + 1);
            tab_set(&t, i + 1, 0, buf, false, o->ascii);
            tab_set(&t, i + 1, 1, l->tokens[i], true, o->ascii);
        }
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    /* X */
    fprintf(out, "**X** %d%s%d · %s\n\n", l->ntok, o->ascii ? "x" : "×", l->d_model, _("input: this sentence"));
    ok = ok && put_matrix(out, l, base, M_X, NULL, fo);
    /* the weights */
    if (l->random) {
        fmt_exact(l->rscale, v, sizeof v);
        fprintf(out, _("The weights are parameters (learned in training, fixed at inference), drawn like numpy: np.random.seed(%lu), "
                       "then randn(d_model, d_k) × %s for Wq and for Wk, and randn(d_model, d_v) × %s for Wv, "
                       "in that order."), l->seed, v, v);
        fputs("\n\n", out);
    }
    static const MatId ws[] = {M_WQ, M_WK, M_WV};
    for (int k = 0; ok && k < 3; k++) {
        const Mat *m = &base->m[ws[k]];
        fprintf(out, "**%s** %d%s%d · %s\n\n", attn_mat_name(ws[k]), m->rows, o->ascii ? "x" : "×", m->cols,
                _("parameter (learned in training, fixed at inference)"));
        ok = put_matrix(out, l, base, ws[k], NULL, fo);
    }
    /* rows of Q, K, V the lesson sets */
    for (int m = 0; ok && m < 3; m++) {
        bool any = false;
        for (int i = 0; i < l->ntok; i++)
            any = any || l->override[m][i];
        if (!any)
            continue;
        fprintf(out, "**%s** · %s\n\n", attn_mat_name((MatId)(M_Q + m)),
                _("rows set by the lesson, not computed as X·W"));
        ok = put_matrix(out, l, base, (MatId)(M_Q + m), l->override[m], fo);
    }
    /* sizes and options */
    fprintf(out, "**%s**\n\n", _("Options"));
    if (ok && (ok = tab_new(&t, 8, 2))) {
        tab_set(&t, 0, 0, _("option"), false, o->ascii);
        tab_set(&t, 0, 1, _("value"), false, o->ascii);
        const char *names[] = {"n", "d_model", "d_k", "d_v"};
        int sizes[] = {l->ntok, l->d_model, l->d_k, l->d_v};
        for (int k = 0; k < 4; k++) {
            tab_set(&t, k + 1, 0, names[k], true, o->ascii);
            snprintf(buf, sizeof buf, "%d", sizes[k]);
            tab_set(&t, k + 1, 1, buf, false, o->ascii);
        }
        tab_set(&t, 5, 0, "scale", false, o->ascii);
        tab_set(&t, 5, 1, l->scale == SCALE_SQRT_DK ? _("sqrt_dk: S = Q·Kᵀ ÷ √d_k") : _("none: S = Q·Kᵀ"), true,
                o->ascii);
        tab_set(&t, 6, 0, "softmax", false, o->ascii);
        tab_set(&t, 6, 1,
                l->softmax == SOFTMAX_STABLE ? _("stable: exp(s − max of the row) ÷ their sum")
                                             : _("naive: exp(s) ÷ the row's sum of exp"),
                true, o->ascii);
        tab_set(&t, 7, 0, "digits", false, o->ascii);
        snprintf(buf, sizeof buf, _("%d decimals"), l->digits);
        tab_set(&t, 7, 1, buf, false, o->ascii);
        ok = !t.oom;
        if (ok)
            tab_print(out, &t);
    }
    tab_free(&t);
    return ok;
}

int render_worksheet(FILE *out, const Lesson *l, const WorksheetOpt *o)
{
    FmtOpt fo = {l->digits, o->ascii, false};
    int total = lesson_asks(l);
    Question *q = malloc(sizeof *q * (size_t)(total > 4 ? total : 4));
    Session s;
    Attn base = {0};
    if (!q || !lesson_base(l, &base) || !session_init(&s, l)) {
        free(q);
        attn_free(&base);
        fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
        return 2;
    }
    int nq = collect(l, q);
    fputs("# ", out);
    bool ok = put_md(out, text_get(&l->title, o->lang), o->ascii);
    fprintf(out, "\n\n%s", _("Worksheet"));
    if (l->reseeded)
        fprintf(out, " · %s %lu", _("variant"), l->seed);
    fprintf(out, " · %s ____________________\n\n", _("Name:"));
    char *about = lesson_about_text(l, o->lang, o->ascii);
    ok = ok && about && put_md(out, about, o->ascii);
    if (ok && *about)
        fputs("\n\n", out);
    free(about);
    ok = ok && put_givens(out, l, &base, o, &fo);
    if (ok) {
        fprintf(out, "## %s\n\n", _("Questions"));
        fprintf(out, _("Write each answer with %d decimals: it counts as right within 1%% of the value or one "
                       "unit of the last decimal."), l->digits);
        fputs("\n\n", out);
    }
    int prev = -1;
    for (int k = 0; ok && k < nq; k++) {
        ok = go(&s, q[k].step) && put_question(out, l, &s, &q[k], k + 1, prev, total > 0, o);
        prev = q[k].step;
    }
    if (ok && o->answers)
        ok = put_key(out, l, &s, q, nq, o, &fo);
    session_free(&s);
    attn_free(&base);
    free(q);
    if (!ok)
        fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
    return ok ? 0 : 2;
}
