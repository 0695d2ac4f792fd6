/* test_layout.c - the frame plan's rules, checked without a terminal.
 *
 * The grid: every built-in lesson and a generated 64x64 one, every step,
 * modes normal, edit and presentation, zh and en, at 60x18, 80x24,
 * 100x30, 120x40 and 200x60. In every case the focused result and every
 * operand its arithmetic quotes (worked out here from the core's explain
 * terms, not from the plan) are laid out on screen; the narration and the
 * arithmetic are whole or end in "…"; no two runs overlap; nothing is
 * laid out past the screen. Then one test per defect the layout fixed. */
#include <stdlib.h>
#include <string.h>
#include <locale.h>

#include "core/explain.h"
#include "layout/layout.h"
#include "lesson/embedded.h"
#include "words/fmt.h"
#include "text/i18n.h"
#include "words/live.h"
#include "lesson/session.h"
#include "testutil.h" /* after lesson.h: cmocka defines a macro expect_check */

typedef enum { MODE_NORMAL, MODE_EDIT, MODE_PRESENT, MODE_COUNT } GridMode;

static const char *mode_name[] = {"normal", "edit", "present"};
static const char normal_bar[] = " Space next  PgUp back  ←↑↓→ focus  e edit  : action  s scale  ? help  q quit";
static const char edit_bar[] = " ←↑↓→ cell  0-9 or - number  Enter edit  + _ nudge 0.1  Tab matrix  Esc leave";

/* A lesson and a session on it, with the View's focus. */
typedef struct {
    Lesson l;
    Session s;
    LayoutIn in;
    Plan p;
    char where[160];
} Case;

static char *lesson64;
static size_t lesson64_len;

static int setup(void **state)
{
    setlocale(LC_ALL, "C.UTF-8");
    i18n_set(LANG_EN, "build/locale");
    FILE *f = popen("sh tests/bench/gen_lesson.sh 64 64", "r");
    if (!f)
        return -1;
    size_t cap = 1 << 20;
    lesson64 = malloc(cap);
    lesson64_len = fread(lesson64, 1, cap, f);
    return pclose(f) == 0 && lesson64_len > 0 && lesson64_len < cap ? 0 : -1;
}

static int teardown(void **state)
{
    free(lesson64);
    return 0;
}

static void load(Case *c, const char *name, const char *yaml, size_t len)
{
    char err[512];
    memset(c, 0, sizeof *c);
    if (!lesson_load_buffer(name, yaml, len, &c->l, err, sizeof err))
        fail_msg("%s", err);
    assert_true(session_init(&c->s, &c->l));
    plan_init(&c->p);
}

/* Is built-in lesson k a model lesson (a top-level model: key)? Its frames
 * are layout_model's, tested by test_mlayout and test_mview; the one-layer
 * edits these tests make (Q[1] = ..., swap) are not its actions. */
static bool model_lesson(int k)
{
    const char *d = (const char *)embedded_lessons[k].data;
    for (size_t i = 0; i + 7 <= (size_t)embedded_lessons[k].len; i++)
        if (memcmp(d + i, "\nmodel:", 7) == 0)
            return true;
    return false;
}

static void load_builtin(Case *c, const char *prefix)
{
    for (int k = 0; k < embedded_count; k++)
        if (strncmp(embedded_lessons[k].name, prefix, strlen(prefix)) == 0) {
            load(c, embedded_lessons[k].name, embedded_lessons[k].data, embedded_lessons[k].len);
            return;
        }
    fail_msg("no lesson %s", prefix);
}

static void unload(Case *c)
{
    plan_free(&c->p);
    session_free(&c->s);
    lesson_free(&c->l);
}

/* The View's state at the current step, as the view sets it. */
static void view_state(Case *c, GridMode m, Lang lang, int cols, int rows)
{
    const Focus *f = &session_step(&c->s)->focus;
    LayoutIn *in = &c->in;
    *in = (LayoutIn){.s = &c->s, .lang = lang, .mode = LAYOUT_NORMAL, .fmat = M_Q, .emat = M_Q, .msg = "",
                     .msg_role = ROLE_HINT, .keybar = normal_bar, .cols = cols, .rows = rows};
    int st = session_stage(&c->s);
    if (f->kind != FOCUS_NONE) {
        in->fi = f->i;
        in->fj = f->kind == FOCUS_CELL ? f->j : 0;
        in->frow = f->kind == FOCUS_ROW;
        if (f->mat >= M_Q && f->mat <= M_V)
            in->fmat = f->mat;
        /* as view_focus_from_step: a joined O cell is its head's */
        MatId b = f->mat;
        if (attn_heads(&c->s.cur) > 1 && st >= STAGE_SCORES && st <= STAGE_OUTPUT &&
            (b == M_O || (b >= M_Q && b <= M_V))) {
            int w = b == M_V || b == M_O ? attn_d_v(&c->s.cur) : attn_d_k(&c->s.cur);
            session_set_head(&c->s, in->fj / w + 1);
            in->fj %= w;
        }
    }
    MatId fm = st == STAGE_QKV ? in->fmat : attn_shown(&c->s.cur, attn_stage_mat(st), c->s.head);
    const Mat *fmx = &c->s.cur.m[fm];
    in->fi = in->fi >= fmx->rows ? fmx->rows - 1 : in->fi;
    in->fj = in->fj >= fmx->cols ? fmx->cols - 1 : in->fj;
    in->present = m == MODE_PRESENT;
    if (m == MODE_EDIT) { /* as the e key does */
        in->mode = LAYOUT_EDIT;
        in->ei = in->fi < c->s.cur.m[M_Q].rows ? in->fi : 0;
        in->ej = 0;
        in->keybar = edit_bar;
    }
}

/* The cell the arithmetic explains, worked out here: edit mode's cursor up
 * to stage 2, else the stage's focused cell. */
static bool explained(const Case *c, Explain *e)
{
    const LayoutIn *in = &c->in;
    int st = session_stage(&c->s);
    MatId m = st == STAGE_QKV ? in->fmat : attn_shown(&c->s.cur, attn_stage_mat(st), c->s.head);
    int i = in->fi, j = in->fj;
    if (in->mode == LAYOUT_EDIT && st <= STAGE_QKV) {
        m = in->emat;
        i = in->ei;
        j = in->ej;
    }
    return explain_cell(&c->s.cur, m, i, j, e);
}

/* Is cell (id, i, j) laid out on screen in a box that is not dots? */
static bool visible(const Case *c, MatId id, int i, int j)
{
    const PlanCell *x = plan_cell(&c->p, id, i, j);
    if (!x || x->y < 0 || x->y >= c->in.rows || x->x < 0 || x->x + x->w > c->in.cols)
        return false;
    return !c->p.box[x->box].placeholder;
}

static void need(const Case *c, MatId id, int i, int j, const char *what)
{
    if (!visible(c, id, i, j))
        fail_msg("%s: %s %s[%d][%d] is not on screen", c->where, what, attn_mat_name(id), i + 1, j + 1);
}

/* The text of the runs in role r on rows [y, y + h), in reading order,
 * with every blank left out (lines break at blanks or inside CJK text). */
static void block_text(const Case *c, const PlanBlock *b, Role r, char *out, size_t len)
{
    size_t n = 0;
    for (int y = b->y; y < b->y + b->h; y++)
        for (int k = 0; k < c->p.nrun; k++) {
            const PlanRun *run = &c->p.run[k];
            if (run->y != y || run->role != r)
                continue;
            const char *t = plan_text(&c->p, run->off);
            for (int m = 0; m < run->len && n + 1 < len; m++)
                if (t[m] != ' ')
                    out[n++] = t[m];
        }
    out[n] = '\0';
}

static void squeeze_blanks(const char *in, char *out, size_t len)
{
    size_t n = 0;
    for (; *in && n + 1 < len; in++)
        if (*in != ' ')
            out[n++] = *in;
    out[n] = '\0';
}

/* A block is whole (its text is all of `full`) or cut: a prefix ending in "…". */
static void whole_or_cut(const Case *c, BlockKind k, Role r, const char *full, const char *what)
{
    static char want[1 << 16], got[1 << 16];
    squeeze_blanks(full, want, sizeof want);
    const PlanBlock *b = plan_block(&c->p, k);
    if (!want[0])
        return;
    if (!b)
        fail_msg("%s: no %s block", c->where, what);
    block_text(c, b, r, got, sizeof got);
    if (strcmp(got, want) == 0 && !b->cut)
        return;
    size_t n = strlen(got);
    const char *dots = "…";
    if (!b->cut || n < strlen(dots) || strcmp(got + n - strlen(dots), dots) != 0)
        fail_msg("%s: the %s is neither whole nor ends in …: %s", c->where, what, got);
    got[n - strlen(dots)] = '\0';
    if (strncmp(want, got, strlen(got)) != 0)
        fail_msg("%s: the %s shown is not the start of its text: %s", c->where, what, got);
}

/* Nothing past the screen, no two runs on the same column, widths true. */
static void runs_fit(const Case *c)
{
    int cols = c->in.cols, rows = c->in.rows;
    unsigned char *used = calloc((size_t)cols * (size_t)rows, 1);
    assert_non_null(used);
    for (int k = 0; k < c->p.nrun; k++) {
        const PlanRun *r = &c->p.run[k];
        char t[FMT_LINE];
        snprintf(t, sizeof t, "%.*s", r->len, plan_text(&c->p, r->off));
        if (r->y < 0 || r->y >= rows || r->x < 0 || r->x + r->w > cols)
            fail_msg("%s: run \"%s\" at (%d, %d) w %d is past the screen", c->where, t, r->y, r->x, r->w);
        if (text_width(t) != r->w)
            fail_msg("%s: run \"%s\" says width %d, is %d", c->where, t, r->w, text_width(t));
        for (int x = r->x; x < r->x + r->w; x++) {
            if (used[r->y * cols + x])
                fail_msg("%s: run \"%s\" at (%d, %d) overlaps another", c->where, t, r->y, x);
            used[r->y * cols + x] = 1;
        }
    }
    free(used);
}

/* Is the row focus in effect (normal and presentation mode)? */
static bool row_focus(const Case *c)
{
    return c->in.frow && c->in.mode != LAYOUT_EDIT;
}

/* The operands an explanation quotes. When the arithmetic is cut (a
 * 64-term dot product), the matrix scrolls to the focus: its first quoted
 * cell must show. */
static void operands(const Case *c, const Explain *e, bool cut)
{
    int n = cut && e->n > 1 ? 1 : e->n;
    const Attn *a = &c->s.cur;
    for (int k = 0; k < n; k++)
        switch (e->kind) {
        case EX_PROJ:
            if (e->overridden)
                return;
            need(c, e->from_source ? M_XS : e->from_h ? M_H : M_X, e->i, k, "operand");
            need(c, (MatId)(M_WQ + (attn_mat_base(e->mat) - M_Q)), k, e->wcol, "operand");
            break;
        case EX_SCORE: /* with heads: the head's own q_i and k_j */
            need(c, attn_shown(a, M_Q, e->head), e->i, k, "operand");
            need(c, attn_shown(a, M_K, e->head), e->j, k, "operand");
            break;
        case EX_SOFTMAX:
            need(c, attn_shown(a, M_S, e->head), e->i, k, "operand");
            break;
        case EX_OUTPUT:
            need(c, attn_shown(a, M_A, e->head), e->i, k, "operand");
            need(c, attn_shown(a, M_V, e->head), k, e->jh, "operand");
            break;
        case EX_PROJECT: /* y_ij = o_i . Wo[:, j], every head's columns of o_i */
            need(c, M_O, e->i, k, "operand");
            need(c, M_WO, k, e->j, "operand");
            break;
        case EX_POS: /* h_ij = x_ij + p_ij */
            need(c, M_X, e->i, e->j, "operand");
            need(c, M_P, e->i, e->j, "operand");
            need(c, M_H, e->i, e->j, "result");
            return;
        default:
            return;
        }
}

/* The arithmetic lines, as the session writes them (open asks as "?"; a
 * row focus: every cell of the row), for the whole-or-cut check. */
static void arith_text(const Case *c, const Explain *e, char *out, size_t len)
{
    static char lines[FMT_MAX_LINES][FMT_LINE];
    FmtOpt fo = {c->l.digits, c->in.ascii, false};
    int n = layout_arith(&c->s, e->kind == EX_SOFTMAX ? attn_shown(&c->s.cur, M_A, e->head) : e->mat, e->i, e->j, row_focus(c), &fo,
                         lines, FMT_MAX_LINES);
    out[0] = '\0';
    for (int k = 0; k < n; k++)
        snprintf(out + strlen(out), len - strlen(out), "%s ", lines[k]);
}

/* At the softmax stage every weight of the quoted row is on screen: in A,
 * or as a bar (the bars are row fi's, one line per key). */
static void weights_shown(const Case *c, int i)
{
    MatId a = attn_shown(&c->s.cur, M_A, c->s.head); /* the head shown: A2 ... */
    int n = c->s.cur.m[a].cols, in_a = 0;
    for (int k = 0; k < n; k++)
        in_a += visible(c, a, i, k);
    if (in_a == n)
        return;
    const PlanBlock *b = plan_block(&c->p, BLOCK_BARS);
    int keys = 0;
    for (int k = 0; b && i == c->in.fi && k < c->p.nrun; k++) {
        const PlanRun *r = &c->p.run[k];
        keys += r->x == b->x && r->y > b->y && r->y < b->y + b->h && (r->role == ROLE_LABEL || r->role == ROLE_COL);
    }
    if (keys < n)
        fail_msg("%s: of row %d's %d weights, A shows %d and the bars %d", c->where, i + 1, n, in_a, keys);
}

/* Every rule, on the case laid out in c->p. */
static void row_text(const Plan *p, int y, int x0, int x1, char *out, size_t len);

/* Box titles (newcomer review 17): two blanks or more between the titles
 * of boxes side by side, and every result box says "result" (结果), at
 * every size, in every mode and language. */
static void titles_apart(const Case *c)
{
    const Plan *p = &c->p;
    for (int k = 0; k < p->nbox; k++) {
        const PlanBox *b = &p->box[k];
        int end = c->in.cols;
        for (int m = 0; m < p->nbox; m++)
            if (m != k && p->box[m].y == b->y && p->box[m].x > b->x && p->box[m].x < end)
                end = p->box[m].x;
        char t[512], gap[64];
        row_text(p, b->y, b->x, end, t, sizeof t);
        if (end < c->in.cols) {
            row_text(p, b->y, end - 2, end, gap, sizeof gap);
            if (strcmp(gap, "  ") != 0)
                fail_msg("%s: the title \"%s\" runs into the next box's", c->where, t);
        }
        const char *role = _("result"); /* (a narrow W may lose "parameter", dots "not yet") */
        if (!b->placeholder && !attn_mat_is_param(b->id) && b->id != M_X && b->id != M_XS && !strstr(t, role))
            fail_msg("%s: the title \"%s\" does not say \"%s\"", c->where, t, role);
    }
}

static void check_case(Case *c)
{
    static char buf[1 << 16];
    layout_plan(&c->in, &c->p);
    if (c->p.too_small || c->p.oom)
        fail_msg("%s: too small or out of memory", c->where);
    runs_fit(c);
    titles_apart(c);
    Explain e;
    if (explained(c, &e)) {
        MatId rm = e.kind == EX_SOFTMAX ? attn_shown(&c->s.cur, M_A, e.head) : e.mat;
        if (attn_mat_base(rm) == M_A && !visible(c, rm, e.i, e.j))
            weights_shown(c, e.i); /* narrow: the bars stand in for A's row */
        else
            need(c, rm, e.i, e.j, "focused result");
        arith_text(c, &e, buf, sizeof buf);
        whole_or_cut(c, BLOCK_ARITH, ROLE_ARITH, buf, "arithmetic");
        const PlanBlock *ab = plan_block(&c->p, BLOCK_ARITH);
        operands(c, &e, ab && ab->cut);
        /* A row focus: every cell of the row, and what each one quotes,
         * unless the arithmetic is cut; a row wider than 16 columns (the
         * 64x64 lesson) scrolls to its focus, like a long dot product. */
        int wide = c->s.cur.m[rm].cols;
        for (int j = 1; row_focus(c) && rm != M_A && !(ab && ab->cut) && wide <= 16 && j < wide; j++) {
            Explain ej;
            assert_true(explain_cell(&c->s.cur, rm, e.i, j, &ej));
            need(c, rm, e.i, j, "focused row");
            operands(c, &ej, false);
        }
        if (e.kind == EX_SOFTMAX && !(ab && ab->cut))
            weights_shown(c, e.i);
    }
    char *say = session_say(&c->s, c->in.lang, false);
    char *prose = say ? fmt_prose(say, false) : NULL;
    assert_non_null(prose);
    /* dimmed, under the notice, when the numbers are the student's */
    whole_or_cut(c, BLOCK_SAY, session_diverged(&c->s) ? ROLE_DIM : ROLE_SAY, prose, "narration");
    free(prose);
    free(say);
}

static const int sizes[][2] = {{60, 18}, {80, 24}, {100, 30}, {120, 40}, {200, 60}};

/* Every step of one lesson over modes, languages and sizes; returns cases. */
static int grid_lesson(Case *c)
{
    int cases = 0;
    for (int step = 0; step < session_steps(&c->s); step++) {
        session_goto(&c->s, step);
        for (int m = 0; m < MODE_COUNT; m++) {
            if (m == MODE_EDIT && session_stage(&c->s) < STAGE_QKV)
                continue; /* e moves to stage 2 first: that step's case is covered there */
            for (int lg = 0; lg < 2; lg++) {
                Lang lang = lg ? LANG_ZH : LANG_EN;
                i18n_set(lang, "build/locale");
                /* Stages 3-5 show one head at a time: every head of the lesson. */
                int st = session_stage(&c->s), heads = st >= STAGE_SCORES && st <= STAGE_OUTPUT
                                                             ? attn_heads(&c->s.cur) : 1;
                for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
                    for (int h = 1; h <= heads; h++) {
                        view_state(c, (GridMode)m, lang, sizes[z][0], sizes[z][1]);
                        if (heads > 1) {
                            session_set_head(&c->s, h);
                            MatId fm = attn_shown(&c->s.cur, attn_stage_mat(st), h);
                            if (c->in.fj >= c->s.cur.m[fm].cols)
                                c->in.fj = c->s.cur.m[fm].cols - 1;
                        }
                        snprintf(c->where, sizeof c->where, "%s step %d %s %s %dx%d head %d",
                                 c->l.file ? c->l.file : "?", step + 1, mode_name[m], lg ? "zh" : "en",
                                 sizes[z][0], sizes[z][1], c->s.head);
                        check_case(c);
                        cases++;
                    }
            }
        }
    }
    i18n_set(LANG_EN, "build/locale");
    return cases;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 16);
    assert_non_null(buf);
    fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    return buf;
}

/* Every step from stage 2 on after the student's Q[1] = K[1] * 5: normal and
 * presentation mode, en and zh, every size; the notice is there (from
 * 80x24 up), the narration dimmed, the trace laid out with its rank. */
static int grid_edited(Case *c)
{
    int cases = 0;
    char err[256];
    for (int step = 0; step < session_steps(&c->s); step++) {
        session_goto(&c->s, step);
        if (session_stage(&c->s) < STAGE_QKV)
            continue;
        /* with shared K/V heads Q and K differ in width: head 1's parts */
        const char *edit = attn_kv_heads(&c->s.cur) != attn_heads(&c->s.cur) ? "Q1[1] = K1[1] * 5" : "Q[1] = K[1] * 5";
        assert_true(session_act_text(&c->s, edit, err, sizeof err));
        bool diverged = session_diverged(&c->s);
        for (int m = 0; m < MODE_COUNT; m += 2)
            for (int lg = 0; lg < 2; lg++) {
                Lang lang = lg ? LANG_ZH : LANG_EN;
                i18n_set(lang, "build/locale");
                for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
                    view_state(c, (GridMode)m, lang, sizes[z][0], sizes[z][1]);
                    snprintf(c->where, sizeof c->where, "%s step %d edited %s %s %dx%d", c->l.file ? c->l.file : "?",
                             step + 1, mode_name[m], lg ? "zh" : "en", sizes[z][0], sizes[z][1]);
                    check_case(c);
                    if (diverged && z > 0 && !plan_block(&c->p, BLOCK_NOTICE))
                        fail_msg("%s: no edited-state notice", c->where);
                    cases++;
                }
            }
        assert_true(session_undo(&c->s));
    }
    i18n_set(LANG_EN, "build/locale");
    return cases;
}

/* The property over the whole grid (DESIGN.md, "What the arithmetic quotes is on screen"). */
static void test_grid(void **state)
{
    int cases = 0;
    Case *c = malloc(sizeof *c);
    assert_non_null(c);
    for (int k = 0; k < embedded_count; k++) {
        if (model_lesson(k))
            continue;
        load(c, embedded_lessons[k].name, embedded_lessons[k].data, embedded_lessons[k].len);
        cases += grid_lesson(c);
        unload(c);
    }
    load(c, "64x64.yaml", lesson64, lesson64_len);
    cases += grid_lesson(c);
    unload(c);
    /* templates and open asks ("?" in the matrices, the arithmetic and the narration) */
    char *yaml = read_file("tests/live/templates-asks.yaml");
    load(c, "tests/live/templates-asks.yaml", yaml, strlen(yaml));
    cases += grid_lesson(c);
    unload(c);
    free(yaml);
    /* edited: the notice, the dimmed narration and the effect trace take rows too */
    for (int k = 0; k < embedded_count; k++) {
        if (model_lesson(k))
            continue;
        load(c, embedded_lessons[k].name, embedded_lessons[k].data, embedded_lessons[k].len);
        cases += grid_edited(c);
        unload(c);
    }
    free(c);
    printf("layout grid: %d cases\n", cases);
    assert_true(cases > 2500);
}


/* The same property with the causal mask, a temperature, positions and a
 * swap switched on by the student (every step of lessons 01, 03 and 04,
 * every mode, both languages, every size), and edit mode's cursor on X and
 * on Wq at stage 2, where the operand is H. */
static void test_grid_options(void **state)
{
    static const char *const lessons[] = {"lessons/01", "lessons/03", "lessons/04"};
    static const char *const acts[] = {"mask = causal", "temperature = 0.5", "positions = sinusoidal", "swap 1 2"};
    int cases = 0;
    Case *c = malloc(sizeof *c);
    assert_non_null(c);
    for (size_t k = 0; k < sizeof lessons / sizeof *lessons; k++) {
        char err[256];
        load_builtin(c, lessons[k]);
        for (size_t a = 0; a < sizeof acts / sizeof *acts; a++)
            assert_true(session_act_text(&c->s, acts[a], err, sizeof err));
        cases += grid_lesson(c);
        assert_true(session_goto_stage(&c->s, STAGE_QKV) || session_stage(&c->s) == STAGE_QKV);
        for (int e = 0; e < 2; e++)
            for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
                view_state(c, MODE_EDIT, LANG_EN, sizes[z][0], sizes[z][1]);
                c->in.emat = e ? M_WQ : M_X;
                snprintf(c->where, sizeof c->where, "%s edit %s %dx%d", lessons[k], e ? "Wq" : "X", sizes[z][0],
                         sizes[z][1]);
                check_case(c);
                cases++;
            }
        /* the masked cells are marked, muted and never heat */
        session_goto_stage(&c->s, STAGE_SOFTMAX);
        view_state(c, MODE_NORMAL, LANG_EN, 120, 40);
        layout_plan(&c->in, &c->p);
        int masked = 0;
        for (int n = 0; n < c->p.ncell; n++) {
            const PlanCell *x = &c->p.cell[n];
            bool want = (x->id == M_S || x->id == M_A) && x->j > x->i && !c->p.box[x->box].placeholder;
            if (want != ((x->flags & CELL_MASKED) != 0))
                fail_msg("%s[%d][%d]: masked flag %d", attn_mat_name(x->id), x->i + 1, x->j + 1, !want);
            if (want && (x->flags & CELL_HEAT))
                fail_msg("%s[%d][%d] is masked but heat-coloured", attn_mat_name(x->id), x->i + 1, x->j + 1);
            if (want && x->id == M_S && strncmp(plan_text(&c->p, x->off), "−∞", (size_t)x->len) != 0)
                fail_msg("S[%d][%d] shows %.*s, not −∞", x->i + 1, x->j + 1, x->len, plan_text(&c->p, x->off));
            if (want && x->role != ROLE_DIM && !(x->flags & (CELL_FOCUS | CELL_ROW | CELL_COL)))
                fail_msg("%s[%d][%d] is masked but not muted", attn_mat_name(x->id), x->i + 1, x->j + 1);
            masked += want;
        }
        assert_true(masked >= 6);
        unload(c);
    }
    free(c);
    printf("layout grid with mask, temperature, positions, swap: %d cases\n", cases);
    assert_true(cases > 300);
}

/* Lesson 08 (two heads) fits 80x24: at every step, in both languages, the
 * narration is whole and at most 4 lines (78 columns). */
static void test_lesson08_fits(void **state)
{
    Case *c = malloc(sizeof *c);
    assert_non_null(c);
    load_builtin(c, "lessons/08-");
    assert_int_equal(attn_heads(&c->s.cur), 2);
    for (int step = 0; step < session_steps(&c->s); step++)
        for (int lg = 0; lg < 2; lg++) {
            Lang lang = lg ? LANG_ZH : LANG_EN;
            i18n_set(lang, "build/locale");
            session_goto(&c->s, step);
            view_state(c, MODE_NORMAL, lang, 80, 24);
            layout_plan(&c->in, &c->p);
            const PlanBlock *b = plan_block(&c->p, BLOCK_SAY);
            assert_non_null(b);
            if (b->cut || b->want > 4)
                fail_msg("lesson 08 step %d %s: the narration wants %d lines%s", step + 1, lg ? "zh" : "en",
                         b->want, b->cut ? " and is cut" : "");
            assert_true(layout_narration_fits(&c->s, step, lang, 80, 24));
        }
    i18n_set(LANG_EN, "build/locale");
    unload(c);
    free(c);
}

static bool has_box(const Plan *p, MatId id)
{
    for (int k = 0; k < p->nbox; k++)
        if (p->box[k].id == id && !p->box[k].placeholder)
            return true;
    return false;
}

/* Presentation mode shows what each stage's arithmetic quotes, at 120x40
 * and at 60x18: X and Wq with Q; Q and K with S; S with A; A and V with O. */
static void test_presentation_operands(void **state)
{
    static const MatId want[6][3] = {{0}, {M_X}, {M_X, M_WQ, M_Q}, {M_Q, M_K, M_S}, {M_S, M_A}, {M_A, M_V, M_O}};
    static const int n[6] = {0, 1, 3, 3, 2, 3};
    Case c;
    load_builtin(&c, "lessons/01");
    for (int z = 0; z < 2; z++)
        for (int st = STAGE_INPUT; st <= STAGE_OUTPUT; st++) {
            session_goto_stage(&c.s, st);
            view_state(&c, MODE_PRESENT, LANG_EN, z ? 60 : 120, z ? 18 : 40);
            layout_plan(&c.in, &c.p);
            for (int k = 0; k < n[st]; k++)
                if (!has_box(&c.p, want[st][k]))
                    fail_msg("stage %d at %dx%d: %s is not shown", st, c.in.cols, c.in.rows,
                             attn_mat_name(want[st][k]));
        }
    unload(&c);
}

/* Lesson 4 at the softmax stage, 80x24: all of S's row is shown (its four
 * columns, quoted by the arithmetic), not two of them. */
static void test_lesson4_softmax_shows_s(void **state)
{
    Case c;
    load_builtin(&c, "lessons/04");
    session_goto_stage(&c.s, STAGE_SOFTMAX);
    session_ask_reveal(&c.s); /* the weights are asked at this step: show them */
    for (int j = 0; j < 4; j++) {
        view_state(&c, MODE_NORMAL, LANG_EN, 80, 24);
        c.in.fj = j; /* l moves the focus along the row */
        layout_plan(&c.in, &c.p);
        for (int k = 0; k < 4; k++)
            assert_true(visible(&c, M_S, c.in.fi, k));
    }
    unload(&c);
}

/* The text laid out on row y from column x0 to x1 (exclusive); blanks where nothing is. */
static void row_text(const Plan *p, int y, int x0, int x1, char *out, size_t len)
{
    size_t n = 0;
    for (int x = x0; x < x1 && n + 8 < len;) {
        int hit = -1;
        for (int k = 0; k < p->nrun; k++)
            if (p->run[k].y == y && p->run[k].x <= x && x < p->run[k].x + p->run[k].w)
                hit = k;
        if (hit < 0) {
            out[n++] = ' ';
            x++;
            continue;
        }
        /* the run from column x on: whole characters, one column each here */
        const PlanRun *r = &p->run[hit];
        const char *t = plan_text(p, r->off);
        int col = r->x;
        size_t b = 0;
        while (col < x && b < (size_t)r->len) {
            size_t cl = 1;
            while (b + cl < (size_t)r->len && (t[b + cl] & 0xC0) == 0x80)
                cl++;
            char ch[8];
            snprintf(ch, sizeof ch, "%.*s", (int)cl, t + b);
            col += text_width(ch);
            b += cl;
        }
        size_t cl = 1;
        while (b + cl < (size_t)r->len && (t[b + cl] & 0xC0) == 0x80)
            cl++;
        memcpy(out + n, t + b, cl);
        n += cl;
        char ch[8];
        snprintf(ch, sizeof ch, "%.*s", (int)cl, t + b);
        x += text_width(ch) > 0 ? text_width(ch) : 1;
    }
    out[n] = '\0';
}

/* Has a cell w columns wide a column free for a change mark left of its
 * number now (after the blank that starts it, and a mono shade)? Marks
 * never cost a column of numbers: where the band has no room for them,
 * the widest numbers go unmarked. */
static bool mark_room(int w, const char *now, bool shade)
{
    return w - 1 - text_width(now) - (shade ? 1 : 0) >= 1;
}

/* After an edit and a toggle every changed cell of S and A shows ▲ or ▼,
 * negatives included, with a blank before it (never glued to the number
 * to its left); in mono every cell of S and A has its shade character.
 * At 100x30 the marks have their column; at 80x24 the band has no room
 * for it: S shows all its columns, its widest numbers unmarked. */
static void test_change_marks(void **state)
{
    for (int run = 0; run < 4; run++) {
        int mono = run % 2, cols = run < 2 ? 100 : 80;
        Case c;
        char err[256], cell[256];
        load_builtin(&c, "lessons/01");
        session_goto_stage(&c.s, STAGE_SOFTMAX);
        session_ask_reveal(&c.s); /* the weights are asked at this step: show them */
        assert_true(session_act_text(&c.s, "Q[1] = K[1] * 5", err, sizeof err));
        assert_true(session_act_text(&c.s, "scale = sqrt_dk", err, sizeof err));
        view_state(&c, MODE_NORMAL, LANG_EN, cols, cols == 100 ? 30 : 24);
        c.in.mono = mono;
        layout_plan(&c.in, &c.p);
        for (int j = 0; j < 3; j++)
            assert_true(visible(&c, M_S, 0, j) && visible(&c, M_A, 0, j) && visible(&c, M_Q, 0, j));
        int marked = 0, negative = 0;
        FmtOpt fo = {c.l.digits, false, false};
        for (int k = 0; k < c.p.ncell; k++) {
            const PlanCell *x = &c.p.cell[k];
            if (x->id != M_S && x->id != M_A && x->id != M_Q)
                continue;
            char now[64], was[64];
            fmt_num(MAT_AT(&c.s.cur.m[x->id], x->i, x->j), &fo, now, sizeof now);
            fmt_num(MAT_AT(&c.s.before.m[x->id], x->i, x->j), &fo, was, sizeof was);
            row_text(&c.p, x->y, x->x, x->x + x->w, cell, sizeof cell);
            bool moved = strcmp(now, was) != 0;
            if (cell[0] != ' ')
                fail_msg("%s[%d][%d] \"%s\" touches its left neighbour", attn_mat_name(x->id), x->i + 1, x->j + 1, cell);
            if (cols == 100 && !mark_room(x->w, now, mono && x->id != M_Q))
                fail_msg("%s[%d][%d] \"%s\" has no room for its mark", attn_mat_name(x->id), x->i + 1, x->j + 1, cell);
            if (moved && mark_room(x->w, now, mono && x->id != M_Q)) {
                const char *mark = strstr(cell, strcmp(now, was) && MAT_AT(&c.s.cur.m[x->id], x->i, x->j) >
                                                   MAT_AT(&c.s.before.m[x->id], x->i, x->j) ? "▲" : "▼");
                if (!mark || strcmp(mark + strlen("▲"), now) != 0)
                    fail_msg("%s[%d][%d] changed %s -> %s but shows \"%s\"", attn_mat_name(x->id), x->i + 1,
                             x->j + 1, was, now, cell);
                marked++;
                negative += now[0] != '0' && strncmp(now, "−", strlen("−")) == 0;
            }
            if (mono && x->id != M_Q && !strstr(cell, "░") && !strstr(cell, "▒") && !strstr(cell, "▓") &&
                !strstr(cell, "█"))
                fail_msg("mono: %s[%d][%d] \"%s\" has no shade", attn_mat_name(x->id), x->i + 1, x->j + 1, cell);
        }
        if (marked < (cols == 100 || !mono ? 9 : 3)) /* mono at 80x24: the shade takes A's free column */
            fail_msg("%dx%d %s: %d cells marked", cols, cols == 100 ? 30 : 24, mono ? "mono" : "colour", marked);
        assert_true(negative >= 2 || cols < 100); /* S's −0.036 and −0.073 went up: ▲ before a minus */
        unload(&c);
    }
}

/* Training (lesson 09 after its target): a step marks every W_Q, W_K, S
 * and A cell that moved with ▲/▼ (and X is not on the board to be marked), the
 * training panel is laid out with the loss and the chain rule, the bars
 * show before -> after, and at 60x18 the panel keeps at least its loss line. */
static void test_training_panel(void **state)
{
    static const int at[][2] = {{100, 32}, {80, 24}, {60, 18}};
    for (size_t z = 0; z < sizeof at / sizeof *at; z++) {
        Case c;
        char err[256], cell[256], text[FMT_LINE];
        load_builtin(&c, "lessons/09");
        assert_true(session_goto(&c.s, 1)); /* target A[1] = 3 */
        assert_int_equal(c.s.cur.ntarget, 1);
        assert_true(session_act_text(&c.s, "step", err, sizeof err));
        view_state(&c, MODE_NORMAL, LANG_EN, at[z][0], at[z][1]);
        layout_plan(&c.in, &c.p);
        const PlanBlock *b = plan_block(&c.p, BLOCK_TRAIN);
        assert_non_null(b);
        assert_true(b->h >= 1);
        block_text(&c, b, ROLE_ARITH, text, sizeof text);
        if (!strstr(text, "lossL=−lnα₁₃≈0.950")) /* −ln 0.387 = 0.949: ≈ */
            fail_msg("%dx%d: the panel reads \"%s\"", at[z][0], at[z][1], text);
        if (at[z][1] >= 24 && !strstr(text, "∂L/∂s₁=α₁−t=[0.276,0.337,−0.613]"))
            fail_msg("%dx%d: no dL/ds in \"%s\"", at[z][0], at[z][1], text);
        int marked = 0, marked_sa = 0;
        FmtOpt fo = {c.l.digits, false, false};
        for (int k = 0; k < c.p.ncell; k++) {
            const PlanCell *x = &c.p.cell[k];
            assert_true(x->id != M_X || !(x->flags & (CELL_UP | CELL_DOWN)));
            if (x->id != M_WQ && x->id != M_WK && x->id != M_S && x->id != M_A)
                continue;
            char now[64], was[64];
            fmt_num(MAT_AT(&c.s.cur.m[x->id], x->i, x->j), &fo, now, sizeof now);
            fmt_num(MAT_AT(&c.s.before.m[x->id], x->i, x->j), &fo, was, sizeof was);
            row_text(&c.p, x->y, x->x, x->x + x->w, cell, sizeof cell);
            if (strcmp(now, was) != 0) {
                if (!strstr(cell, "▲") && !strstr(cell, "▼") && mark_room(x->w, now, false))
                    fail_msg("%s[%d][%d] moved %s -> %s but shows \"%s\"", attn_mat_name(x->id), x->i + 1, x->j + 1,
                             was, now, cell);
                marked += x->id == M_WQ || x->id == M_WK;
                marked_sa += x->id == M_S || x->id == M_A;
            } else if (strstr(cell, "▲") || strstr(cell, "▼")) {
                fail_msg("%s[%d][%d] did not move but shows \"%s\"", attn_mat_name(x->id), x->i + 1, x->j + 1, cell);
            }
        }
        /* W_Q's row 1 and all of W_K at 100x32; at 80x24 the panel comes
         * before W_Q and W_K (newcomer review 14): S and A show what moved */
        if (at[z][1] >= 32)
            assert_true(marked >= 3 + 12);
        else if (at[z][1] >= 24)
            assert_true(marked + marked_sa >= 3);
        unload(&c);
    }
}

/* Newcomer review 14: at 80x24 lesson 9's chain-rule panel, which the
 * narration points to, is whole at every step of the softmax stage (W_Q and
 * W_K give way to it), in both languages, walking as a class does. */
static void test_training_panel_whole(void **state)
{
    Case c;
    int seen = 0;
    load_builtin(&c, "lessons/09");
    for (int n = 0; n < session_steps(&c.s); n++) {
        if (n > 0) {
            session_ask_reveal(&c.s);
            assert_true(session_next(&c.s));
        }
        if (session_stage(&c.s) != STAGE_SOFTMAX || c.s.cur.ntarget == 0)
            continue;
        for (int lang = 0; lang < LANG_COUNT; lang++) {
            i18n_set((Lang)lang, "build/locale");
            view_state(&c, MODE_NORMAL, (Lang)lang, 80, 24);
            layout_plan(&c.in, &c.p);
            const PlanBlock *b = plan_block(&c.p, BLOCK_TRAIN);
            assert_non_null(b);
            if (b->cut || b->h != b->want || b->h < 7)
                fail_msg("step %d (%s): the panel shows %d of its %d lines", n + 1, lang == LANG_ZH ? "zh" : "en",
                         b->h, b->want);
            seen++;
        }
    }
    i18n_set(LANG_EN, "build/locale");
    assert_int_equal(seen, 2 * 6); /* steps 2 to 6 and 8 */
    unload(&c);
}

/* Newcomer review 27: a custom 8-token lesson at 80x24 (and 100x30), digits
 * 3 and 4: at every step and every focused cell, every operand the
 * arithmetic quotes is in a visible cell (check_case); at the output stage
 * the arithmetic is whole and all eight weights α_i1 .. α_i8 of A's row are
 * on screen, not A cut to five columns. */
static void test_eight_tokens(void **state)
{
    static const int at[][2] = {{80, 24}, {100, 30}};
    FILE *f = popen("sh tests/bench/gen_lesson.sh 8 4", "r");
    assert_non_null(f);
    static char yaml[1 << 16];
    size_t len = fread(yaml, 1, sizeof yaml - 1, f);
    assert_int_equal(pclose(f), 0);
    yaml[len] = '\0';
    int cases = 0, output = 0;
    for (int digits = 3; digits <= 4; digits++) {
        char *d = strstr(yaml, "digits: ");
        assert_non_null(d);
        d[strlen("digits: ")] = (char)('0' + digits);
        Case c;
        load(&c, "eight.yaml", yaml, len);
        for (int step = 0; step < session_steps(&c.s); step++) {
            session_goto(&c.s, step);
            assert_int_equal(c.s.step, step);
            int st = session_stage(&c.s);
            if (st < STAGE_SCORES)
                continue;
            MatId rm = attn_stage_mat(st);
            for (size_t z = 0; z < sizeof at / sizeof *at; z++)
                for (int i = 0; i < c.s.cur.m[rm].rows; i++)
                    for (int j = 0; j < c.s.cur.m[rm].cols; j++) {
                        view_state(&c, MODE_NORMAL, LANG_EN, at[z][0], at[z][1]);
                        c.in.fi = i;
                        c.in.fj = j;
                        c.in.frow = false;
                        snprintf(c.where, sizeof c.where, "8 tokens, digits %d, step %d, %dx%d, %s[%d][%d]", digits,
                                 step + 1, at[z][0], at[z][1], attn_mat_name(rm), i + 1, j + 1);
                        check_case(&c); /* every operand, when the arithmetic is whole */
                        const PlanBlock *ab = plan_block(&c.p, BLOCK_ARITH);
                        if (st == STAGE_OUTPUT && (!ab || ab->cut))
                            fail_msg("%s: the arithmetic is cut", c.where);
                        for (int k = 0; st == STAGE_OUTPUT && k < 8; k++) /* the property, said once more */
                            if (!visible(&c, M_A, i, k))
                                fail_msg("%s: the arithmetic quotes α%d%d, which is not on screen", c.where, i + 1,
                                         k + 1);
                        output += st == STAGE_OUTPUT;
                        cases++;
                    }
        }
        unload(&c);
    }
    assert_int_equal(output, 2 * 2 * 8 * 4);
    assert_true(cases > output);
}

/* Newcomer review 26: presentation at 200x50 puts the bars beside A (within
 * 10 columns of its right edge), not 120 columns away at the screen's edge;
 * every softmax step of lesson 1, both languages. */
static void test_present_bars_beside_a(void **state)
{
    Case c;
    int seen = 0;
    load_builtin(&c, "lessons/01");
    for (int step = 0; step < session_steps(&c.s); step++) {
        session_goto(&c.s, step);
        session_ask_reveal(&c.s);
        if (session_stage(&c.s) != STAGE_SOFTMAX)
            continue;
        for (int lang = 0; lang < LANG_COUNT; lang++) {
            i18n_set((Lang)lang, "build/locale");
            view_state(&c, MODE_PRESENT, (Lang)lang, 200, 50);
            layout_plan(&c.in, &c.p);
            const PlanBlock *bars = plan_block(&c.p, BLOCK_BARS);
            const PlanBox *a = NULL;
            for (int k = 0; k < c.p.nbox; k++)
                if (c.p.box[k].id == M_A)
                    a = &c.p.box[k];
            assert_non_null(bars);
            assert_non_null(a);
            int right = a->x + a->w;
            if (bars->x < right || bars->x - right > 10)
                fail_msg("step %d: A ends at column %d, the bars start at %d", step + 1, right, bars->x);
            assert_true(bars->x + bars->w <= 200);
            seen++;
        }
    }
    i18n_set(LANG_EN, "build/locale");
    assert_true(seen >= 2);
    unload(&c);
}

/* The bars have one scale at a size: 0.313 is as long in edit mode as in
 * normal mode. */
static void test_bars_one_scale(void **state)
{
    Case c;
    char bar[2][64] = {"", ""};
    load_builtin(&c, "lessons/01");
    session_goto_stage(&c.s, STAGE_SOFTMAX);
    session_ask_reveal(&c.s); /* the weights are asked at this step: show them */
    for (int m = 0; m < 2; m++) {
        view_state(&c, m ? MODE_EDIT : MODE_NORMAL, LANG_EN, 80, 24);
        layout_plan(&c.in, &c.p);
        for (int k = 0; k < c.p.nrun && !bar[m][0]; k++)
            if (c.p.run[k].role == ROLE_BAR)
                snprintf(bar[m], sizeof bar[m], "%.*s", c.p.run[k].len, plan_text(&c.p, c.p.run[k].off));
    }
    assert_string_not_equal(bar[0], "");
    assert_string_equal(bar[0], bar[1]);
    unload(&c);
}

/* With q₁ set by hand in lesson 3, the ✎ mark stands a blank apart from 猫. */
static void test_override_mark_apart(void **state)
{
    Case c;
    char row[256], err[256];
    load_builtin(&c, "lessons/03");
    session_goto_stage(&c.s, STAGE_SCORES);
    assert_true(session_act_text(&c.s, "Q[1] = K[1] * 5", err, sizeof err));
    view_state(&c, MODE_NORMAL, LANG_EN, 80, 24);
    layout_plan(&c.in, &c.p);
    int found = 0;
    for (int k = 0; k < c.p.nrun; k++)
        if (c.p.run[k].role == ROLE_HAND) {
            row_text(&c.p, c.p.run[k].y, 0, c.p.run[k].x + 1, row, sizeof row);
            assert_non_null(strstr(row, "猫 ✎"));
            found++;
        }
    assert_true(found > 0);
    unload(&c);
}

/* No screen width overflows anything: lesson 1's overflowing softmax at
 * 3,000 columns (the bars were appended into a 4,096-byte stack buffer). */
static void test_very_wide(void **state)
{
    Case c;
    char err[256];
    load_builtin(&c, "lessons/01");
    session_goto_stage(&c.s, STAGE_SOFTMAX);
    session_ask_reveal(&c.s); /* the weights are asked at this step: show them */
    assert_true(session_act_text(&c.s, "Q[1] = K[1] * 10000", err, sizeof err));
    assert_true(session_act_text(&c.s, "softmax = stable", err, sizeof err));
    for (int w = 2780; w <= 3000; w += 220) {
        view_state(&c, MODE_NORMAL, LANG_EN, w, 60);
        snprintf(c.where, sizeof c.where, "lesson 1 at %dx60", w);
        layout_plan(&c.in, &c.p);
        runs_fit(&c);
        view_state(&c, MODE_EDIT, LANG_EN, w, 60);
        layout_plan(&c.in, &c.p);
        runs_fit(&c);
    }
    unload(&c);
}

/* A long status message is shown whole, on as many lines as it needs. */
static void test_status_whole(void **state)
{
    static const char msg[] =
        "Q[1] = 1e308: the value 1e308 overflows when multiplied; numbers must stay below 1e154 "
        "in Q, K and V, for one cell write M[i][j] = value, for a row M[i] = [a, b, c].";
    Case c;
    char got[1024], want[1024];
    load_builtin(&c, "lessons/01");
    session_goto_stage(&c.s, STAGE_SOFTMAX);
    session_ask_reveal(&c.s); /* the weights are asked at this step: show them */
    for (int z = 0; z < 2; z++) {
        view_state(&c, MODE_NORMAL, LANG_EN, z ? 60 : 80, z ? 18 : 24);
        c.in.msg = msg;
        c.in.msg_role = ROLE_ERROR;
        layout_plan(&c.in, &c.p);
        const PlanBlock *b = plan_block(&c.p, BLOCK_STATUS);
        assert_non_null(b);
        assert_false(b->cut);
        assert_true(b->h >= 2);
        block_text(&c, b, ROLE_ERROR, got, sizeof got);
        squeeze_blanks(msg, want, sizeof want);
        assert_string_equal(got, want);
    }
    unload(&c);
}

static bool ribbon_has(Case *c, const char *s)
{
    char row[512];
    const PlanBlock *b = plan_block(&c->p, BLOCK_RIBBON);
    assert_non_null(b);
    row_text(&c->p, b->y, 0, c->in.cols, row, sizeof row);
    return strstr(row, s) != NULL;
}

/* The ribbon reads QKᵀ when the lesson does not scale, QKᵀ/√d once it does. */
static void test_ribbon_scale(void **state)
{
    Case c;
    char err[256];
    load_builtin(&c, "lessons/01");
    view_state(&c, MODE_NORMAL, LANG_EN, 80, 24);
    layout_plan(&c.in, &c.p);
    assert_true(ribbon_has(&c, " 3 QKᵀ "));
    assert_false(ribbon_has(&c, "√d"));
    session_goto_stage(&c.s, STAGE_SCORES);
    assert_true(session_act_text(&c.s, "scale = sqrt_dk", err, sizeof err));
    view_state(&c, MODE_NORMAL, LANG_EN, 80, 24);
    layout_plan(&c.in, &c.p);
    assert_true(ribbon_has(&c, "[3 QKᵀ/√d]"));
    unload(&c);
}

/* Edit mode keeps the row labels of the box that leads its band: at
 * stages 3-5 S, A and O sit below Q K V, and S came without its token
 * labels (newcomer review 18). Every step of lessons 01, 03 and 07 at
 * stage 3 and later, edit mode, every size, en and zh. */
static void test_edit_labels(void **state)
{
    static const char *const lessons[] = {"lessons/01", "lessons/03", "lessons/07"};
    int checked = 0;
    for (size_t k = 0; k < sizeof lessons / sizeof *lessons; k++) {
        Case c;
        load_builtin(&c, lessons[k]);
        for (int step = 0; step < session_steps(&c.s); step++) {
            session_goto(&c.s, step);
            if (session_stage(&c.s) < STAGE_SCORES)
                continue;
            for (int lg = 0; lg < 2; lg++)
                for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
                    i18n_set(lg ? LANG_ZH : LANG_EN, "build/locale");
                    view_state(&c, MODE_EDIT, lg ? LANG_ZH : LANG_EN, sizes[z][0], sizes[z][1]);
                    layout_plan(&c.in, &c.p);
                    for (int b = 0; b < c.p.nbox; b++) {
                        const PlanBox *x = &c.p.box[b];
                        bool first = true;
                        for (int m = 0; m < c.p.nbox; m++)
                            first = first && !(c.p.box[m].y == x->y && c.p.box[m].x < x->x);
                        if (!first || attn_mat_is_param(x->id) || x->placeholder)
                            continue;
                        for (int i = x->r0; i < x->r0 + x->nr; i++) {
                            char lab[256], want[256];
                            row_text(&c.p, x->cy + (i - x->r0) * x->step, x->x, x->cx, lab, sizeof lab);
                            snprintf(want, sizeof want, "%s", lesson_token(&c.l, &c.s.cur, i));
                            if (!strstr(lab, want))
                                fail_msg("%s step %d edit %s %dx%d: %s's row %d has no label %s (\"%s\")", lessons[k],
                                         step + 1, lg ? "zh" : "en", sizes[z][0], sizes[z][1],
                                         attn_mat_name(x->id), i + 1, want, lab);
                            checked++;
                        }
                    }
                }
        }
        unload(&c);
    }
    i18n_set(LANG_EN, "build/locale");
    assert_true(checked > 500);
}

/* The lesson's title in the header is whole, or cut ending in "…" (it was
 * cut mid-word, "what a swap d"), at every size, en and zh; at 60x18
 * "qkvtutor · " gives way first. (Newcomer review 20.) */
static void test_header_title(void **state)
{
    int cut = 0;
    for (int k = 0; k < embedded_count; k++) {
        Case c;
        load(&c, embedded_lessons[k].name, embedded_lessons[k].data, embedded_lessons[k].len);
        for (int lg = 0; lg < 2; lg++)
            for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
                Lang lang = lg ? LANG_ZH : LANG_EN;
                char row[1024], safe[512];
                i18n_set(lang, "build/locale");
                view_state(&c, MODE_NORMAL, lang, sizes[z][0], sizes[z][1]);
                layout_plan(&c.in, &c.p);
                row_text(&c.p, 0, 0, sizes[z][0], row, sizeof row);
                text_sanitize(text_get(&c.l.title, lang), safe, sizeof safe, false);
                if (strstr(row, safe))
                    continue;
                char *dots = strstr(row, "…");
                if (!dots)
                    fail_msg("%s %s %dx%d: the title is cut without \"…\": %s", embedded_lessons[k].name,
                             lg ? "zh" : "en", sizes[z][0], sizes[z][1], row);
                size_t n = (size_t)(dots - row) - 1; /* after the leading blank */
                assert_true(n > 0 && strncmp(row + 1, safe, n) == 0);
                cut++;
            }
        if (k == 0) {
            char row[1024];
            i18n_set(LANG_EN, "build/locale");
            view_state(&c, MODE_PRESENT, LANG_EN, 60, 18);
            layout_plan(&c.in, &c.p);
            row_text(&c.p, 0, 0, 60, row, sizeof row);
            assert_string_equal(row, " Three tokens through self-atte…  1/14 · scale none · naive ");
        }
        unload(&c);
    }
    i18n_set(LANG_EN, "build/locale");
    assert_true(cut > 3);
}

/* The note after an x-line shows in Chinese as in English (it looked for
 * "   (" and the Chinese note opens with "（"): written in the lesson, and
 * set by the lesson at step 4 (lesson 05). (Newcomer review 21.) */
static void test_x_note_zh(void **state)
{
    static const struct {
        Lang lang;
        int step;
        const char *want;
    } cases[] = {
        {LANG_EN, 0, "x₁ = [1.000, 0.000, 0.000, 0.000]   (the input: written in the lesson, one row per token)"},
        {LANG_ZH, 0, "x₁ = [1.000, 0.000, 0.000, 0.000]   （输入：写在课程里，每个词一行）"},
        {LANG_EN, 3, "x₃ = [0.000, 0.000, 0.800, −0.600]   (the input: set by the lesson at step 4)"},
        {LANG_ZH, 3, "x₃ = [0.000, 0.000, 0.800, −0.600]   （输入：由课程在第 4 步设定）"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Case c;
        char lines[4][FMT_LINE];
        FmtOpt fo = {3, false, false};
        i18n_set(cases[k].lang, "build/locale");
        load_builtin(&c, cases[k].step ? "lessons/05" : "lessons/01");
        session_goto(&c.s, cases[k].step);
        int i = cases[k].step ? 2 : 0;
        assert_int_equal(layout_arith(&c.s, M_X, i, 0, true, &fo, lines, 4), 1);
        assert_string_equal(lines[0], cases[k].want);
        unload(&c);
    }
    i18n_set(LANG_EN, "build/locale");
}

/* Lesson 8's ribbon and head indicator never overlap: at 60x18 in
 * presentation (en and zh) only the current stage keeps its name, the
 * indicator stands whole at the right; at 100x30 every stage is named.
 * Stage 6 reads "6 O·Wo" (it read "6 ·Wo"). (Newcomer review 16.) */
static void test_ribbon_heads(void **state)
{
    static const struct {
        Lang lang;
        int cols, rows, stage;
        const char *want;
    } cases[] = {
        {LANG_EN, 60, 18, STAGE_SOFTMAX, "  1 ▸ 2 ▸ 3 ▸[4 softmax]▸ 5 ▸ 6                    head 2/2"},
        {LANG_EN, 60, 18, STAGE_PROJECT, "  1 ▸ 2 ▸ 3 ▸ 4 ▸ 5 ▸[6 O·Wo]                      head 2/2"},
        {LANG_ZH, 60, 18, STAGE_SOFTMAX, "  1 ▸ 2 ▸ 3 ▸[4 softmax]▸ 5 ▸ 6                      头 2/2"},
        {LANG_ZH, 60, 18, STAGE_PROJECT, "  1 ▸ 2 ▸ 3 ▸ 4 ▸ 5 ▸[6 O·Wo]                        头 2/2"},
        {LANG_EN, 100, 30, STAGE_PROJECT,
         "  1 X ▸ 2 Q K V ▸ 3 QKᵀ/√d ▸ 4 softmax ▸ 5 A·V ▸[6 O·Wo]                                   head 2/2"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Case c;
        char row[1024];
        i18n_set(cases[k].lang, "build/locale");
        load_builtin(&c, "lessons/08");
        assert_true(session_goto_stage(&c.s, cases[k].stage));
        session_set_head(&c.s, 2);
        view_state(&c, cases[k].cols == 60 ? MODE_PRESENT : MODE_NORMAL, cases[k].lang, cases[k].cols, cases[k].rows);
        session_set_head(&c.s, 2);
        layout_plan(&c.in, &c.p);
        row_text(&c.p, 1, 0, cases[k].cols, row, sizeof row);
        for (size_t n = strlen(row); n > 0 && row[n - 1] == ' ';)
            row[--n] = '\0';
        if (strcmp(row, cases[k].want) != 0)
            fail_msg("case %zu: the ribbon reads\n\"%s\", want\n\"%s\"", k, row, cases[k].want);
        unload(&c);
    }
    i18n_set(LANG_EN, "build/locale");
}

/* Below 60x18 the plan is one message saying so; at 60x18 it is a frame. */
static void test_too_small(void **state)
{
    Case c;
    char row[512];
    load_builtin(&c, "lessons/01");
    view_state(&c, MODE_PRESENT, LANG_EN, 59, 18);
    layout_plan(&c.in, &c.p);
    assert_true(c.p.too_small);
    row_text(&c.p, 0, 0, 59, row, sizeof row);
    assert_non_null(strstr(row, "The terminal is 59x18; qkvtutor needs"));
    view_state(&c, MODE_PRESENT, LANG_EN, 60, 17);
    layout_plan(&c.in, &c.p);
    assert_true(c.p.too_small);
    view_state(&c, MODE_PRESENT, LANG_EN, 60, 18);
    layout_plan(&c.in, &c.p);
    assert_false(c.p.too_small);
    unload(&c);
}

/* layout_narration_fits: lesson 1's narration fits at 80x24; a step with
 * 1,500 characters of narration does not, and fits at 200x60. */
static void test_narration_fits(void **state)
{
    static char yaml[4096];
    Case c;
    load_builtin(&c, "lessons/01");
    for (int k = 0; k < session_steps(&c.s); k++)
        assert_true(layout_narration_fits(&c.s, k, LANG_EN, 80, 24));
    unload(&c);
    int o = snprintf(yaml, sizeof yaml, "format: qkvtutor/1\ntitle: Long\ntokens: [a, b]\nX: [[1, 0], [0, 1]]\n"
                                        "weights:\n  random: {seed: 1, scale: 1, d_k: 2}\nsteps:\n"
                                        "  - stage: input\n    say: \"");
    for (int k = 0; k < 30; k++)
        o += snprintf(yaml + o, sizeof yaml - (size_t)o, "This sentence is fifty characters long, or so. ");
    snprintf(yaml + o, sizeof yaml - (size_t)o, "\"\n");
    load(&c, "long.yaml", yaml, strlen(yaml));
    assert_false(layout_narration_fits(&c.s, 0, LANG_EN, 80, 24));
    assert_true(layout_narration_fits(&c.s, 0, LANG_EN, 200, 60));
    unload(&c);
}

/* A click reads the plan: the cell laid out at a point is the one hit. */
static void test_hit(void **state)
{
    Case c;
    load_builtin(&c, "lessons/01");
    session_goto_stage(&c.s, STAGE_SCORES);
    view_state(&c, MODE_NORMAL, LANG_EN, 80, 24);
    layout_plan(&c.in, &c.p);
    const PlanCell *x = plan_cell(&c.p, M_S, 2, 2);
    assert_non_null(x);
    MatId id;
    int i, j, click;
    assert_true(plan_hit(&c.p, x->y, x->x + x->w - 1, &id, &i, &j, &click));
    assert_int_equal(id, M_S);
    assert_int_equal(i, 2);
    assert_int_equal(j, 2);
    assert_int_equal(click, 0);
    assert_false(plan_hit(&c.p, 0, 0, &id, &i, &j, &click));
    unload(&c);
}

static bool omitted(const Plan *p, MatId id)
{
    for (int k = 0; k < p->nomitted; k++)
        if (p->omitted[k] == id)
            return true;
    return false;
}

/* Lesson 1 at the softmax stage, 60x18, normal mode: Q K V (nothing the
 * arithmetic quotes) leave whole and are recorded as left out, so the
 * narration stays whole (it was cut to two lines); O's dots leave before A's
 * last column scrolls away (α₁ = [...] quotes the whole row). */
static void test_small_softmax(void **state)
{
    Case c;
    load_builtin(&c, "lessons/01");
    session_goto_stage(&c.s, STAGE_SOFTMAX);
    session_ask_reveal(&c.s); /* the weights are asked at this step: show them */
    view_state(&c, MODE_NORMAL, LANG_EN, 60, 18);
    layout_plan(&c.in, &c.p);
    assert_true(omitted(&c.p, M_Q) && omitted(&c.p, M_K) && omitted(&c.p, M_V));
    assert_false(omitted(&c.p, M_S) || omitted(&c.p, M_A));
    const PlanBlock *say = plan_block(&c.p, BLOCK_SAY);
    assert_non_null(say);
    assert_false(say->cut);
    for (int k = 0; k < 3; k++)
        assert_true(visible(&c, M_A, 0, k));
    assert_false(has_box(&c.p, M_O));
    unload(&c);
}

/* An arithmetic line shortened to fit (its block cut) ends in " …" at a
 * term boundary, never inside a number (classroom review 9: "= 1.69 …" for
 * 1.697): what it shows, without the " …", is followed by a blank or the
 * end in the arithmetic the session writes. Every built-in lesson and
 * step, normal and presentation mode, en and zh, at 60x18 and 80x24. */
static void test_arith_cut_at_terms(void **state)
{
    static const int small[][2] = {{60, 18}, {80, 24}};
    int cut = 0;
    for (int e = 0; e < embedded_count; e++) {
        Case c;
        load(&c, embedded_lessons[e].name, embedded_lessons[e].data, embedded_lessons[e].len);
        for (int step = 0; step < session_steps(&c.s); step++) {
            session_goto(&c.s, step);
            for (int m = 0; m < MODE_COUNT; m++)
                for (int lg = 0; lg < 2 && m != MODE_EDIT; lg++)
                    for (int z = 0; z < 2; z++) {
                        Lang lang = lg ? LANG_ZH : LANG_EN;
                        i18n_set(lang, "build/locale");
                        view_state(&c, (GridMode)m, lang, small[z][0], small[z][1]);
                        layout_plan(&c.in, &c.p);
                        const PlanBlock *b = plan_block(&c.p, BLOCK_ARITH);
                        if (!b || !b->cut || b->h < 1)
                            continue;
                        char shown[FMT_LINE * 2], raw[FMT_MAX_LINES][FMT_LINE];
                        row_text(&c.p, b->y + b->h - 1, b->x, b->x + b->w, shown, sizeof shown);
                        size_t n = strlen(shown);
                        while (n > 0 && shown[n - 1] == ' ')
                            n--;
                        if (n < strlen(" …") || strncmp(shown + n - strlen(" …"), " …", strlen(" …")) != 0)
                            fail_msg("%s step %d %s %s %dx%d: a cut arithmetic line does not end in \" …\": %s",
                                     c.l.file, step + 1, mode_name[m], lg ? "zh" : "en", small[z][0], small[z][1],
                                     shown);
                        n -= strlen(" …");
                        shown[n] = '\0';
                        const char *from = shown;
                        while (*from == ' ')
                            from++;
                        FmtOpt fo = {c.l.digits, false, false};
                        int nraw = layout_arith(&c.s, c.p.xmat, c.p.xi, c.p.xj, c.in.frow, &fo, raw, FMT_MAX_LINES);
                        bool ok = false;
                        for (int k = 0; k < nraw && !ok; k++)
                            for (const char *at = strstr(raw[k], from); at && !ok; at = strstr(at + 1, from))
                                ok = at[strlen(from)] == ' ' || at[strlen(from)] == '\0';
                        if (!ok)
                            fail_msg("%s step %d %s %s %dx%d: the arithmetic is cut inside a term: \"%s …\" (%s)",
                                     c.l.file, step + 1, mode_name[m], lg ? "zh" : "en", small[z][0], small[z][1],
                                     from, nraw ? raw[0] : "");
                        cut++;
                    }
        }
        unload(&c);
    }
    i18n_set(LANG_EN, "build/locale");
    assert_true(cut > 10); /* the small screens do cut arithmetic: the test saw some */
}

/* The columns each matrix shows in the plan, by id (0: not on screen). */
static void shown_cols(const Plan *p, int *nc)
{
    memset(nc, 0, sizeof(int) * M_COUNT);
    for (int k = 0; k < p->nbox; k++)
        if (!p->box[k].placeholder && p->box[k].nc > nc[p->box[k].id])
            nc[p->box[k].id] = p->box[k].nc;
}

/* Built-in lesson e at its step `step` (0-based) in c; false (nothing
 * loaded) past its last step. */
static bool load_step(Case *c, int e, int step)
{
    load(c, embedded_lessons[e].name, embedded_lessons[e].data, embedded_lessons[e].len);
    if (step >= session_steps(&c->s)) {
        unload(c);
        return false;
    }
    session_goto(&c->s, step);
    return true;
}

/* The experiment Q[1] = K[1] * 5 (Q and K as wide), or Q[1] = Q[1] * 5
 * where they are not (lesson 11). */
static void experiment(Case *c, int step)
{
    char err[256];
    if (!session_act_text(&c->s, "Q[1] = K[1] * 5", err, sizeof err) &&
        !session_act_text(&c->s, "Q[1] = Q[1] * 5", err, sizeof err))
        fail_msg("%s step %d: %s", c->l.file, step + 1, err);
}

/* Counts (and tells) each matrix that shows fewer columns in now[] than in was[]. */
static int same_or_more_cols(const Case *c, const int *was, const int *now, const char *what)
{
    int bad = 0;
    for (int id = 0; id < M_COUNT; id++)
        if (was[id] > now[id] && now[id] > 0 && ++bad) /* a band that gave way for rows is another rule */
            print_message("%s: %s shows %d of its columns %s, %d without\n", c->where, attn_mat_name((MatId)id),
                          now[id], what, was[id]);
    return bad;
}

/* Change marks are a decoration: they never hide a column (the trial found
 * Q cut to 2 columns and S's column 3 scrolled away behind "▸" after
 * Q[1] = K[1] * 5, blank columns beside it). Every built-in lesson, every
 * step, 80x24 and 60x18, en and zh: after the experiment no matrix shows
 * fewer columns than at the same step without it; nor does the step's own
 * change (lesson 5's swap) show fewer than with its marks left out. */
static void test_marks_keep_columns(void **state)
{
    static const int small[][2] = {{80, 24}, {60, 18}};
    int compared = 0, bad = 0;
    for (int e = 0; e < embedded_count; e++)
        for (int step = 0; !model_lesson(e); step++) {
            Case c;
            int was[4][M_COUNT], now[M_COUNT], plain[M_COUNT];
            if (!load_step(&c, e, step))
                break;
            for (int v = 0; v < 4; v++) {
                bool marks = c.s.has_before;
                i18n_set(v % 2 ? LANG_ZH : LANG_EN, "build/locale");
                view_state(&c, MODE_NORMAL, v % 2 ? LANG_ZH : LANG_EN, small[v / 2][0], small[v / 2][1]);
                snprintf(c.where, sizeof c.where, "%s step %d %s %dx%d", c.l.file, step + 1, v % 2 ? "zh" : "en",
                         small[v / 2][0], small[v / 2][1]);
                layout_plan(&c.in, &c.p);
                shown_cols(&c.p, was[v]);
                c.s.has_before = false; /* the same state, no marks */
                layout_plan(&c.in, &c.p);
                shown_cols(&c.p, plain);
                c.s.has_before = marks;
                bad += same_or_more_cols(&c, plain, was[v], "with the step's change marks");
            }
            experiment(&c, step);
            for (int v = 0; v < 4; v++) {
                i18n_set(v % 2 ? LANG_ZH : LANG_EN, "build/locale");
                view_state(&c, MODE_NORMAL, v % 2 ? LANG_ZH : LANG_EN, small[v / 2][0], small[v / 2][1]);
                snprintf(c.where, sizeof c.where, "%s step %d %s %dx%d", c.l.file, step + 1, v % 2 ? "zh" : "en",
                         small[v / 2][0], small[v / 2][1]);
                layout_plan(&c.in, &c.p);
                shown_cols(&c.p, now);
                bad += same_or_more_cols(&c, was[v], now, "after Q[1] = K[1] * 5");
                for (int id = 0; id < M_COUNT; id++)
                    compared += was[v][id] > 0;
            }
            unload(&c);
        }
    i18n_set(LANG_EN, "build/locale");
    assert_int_equal(bad, 0);
    assert_true(compared > 500);
}

/* How a changed cell shows its change: 1 its ▲ (▼) right before its
 * number, 2 its number underlined, 0 neither (it would read as unchanged). */
static int change_shown(const Plan *p, const PlanCell *x)
{
    const PlanRun *num = NULL, *mark = NULL;
    for (int k = 0; k < p->nrun; k++) {
        const PlanRun *r = &p->run[k];
        if (r->y != x->y || r->x < x->x || r->x >= x->x + x->w)
            continue;
        if (r->len == x->len && memcmp(plan_text(p, r->off), plan_text(p, x->off), (size_t)r->len) == 0)
            num = r;
        else if (r->role == ((x->flags & CELL_UP) ? ROLE_UP : ROLE_DOWN))
            mark = r;
    }
    if (!num)
        return 0;
    if (mark && mark->x + mark->w == num->x &&
        strncmp(plan_text(p, mark->off), (x->flags & CELL_UP) ? "▲" : "▼", (size_t)mark->len) == 0)
        return 1;
    return num->under ? 2 : 0;
}

/* DESIGN.md: "Every changed cell shows ▲ or ▼, negatives and mono
 * included". Marks never cost a column of numbers (test_marks_keep_columns),
 * so where a band has no room for them the widest changed numbers (the
 * negatives) get none: their numbers are underlined instead. Every
 * built-in lesson, every step, after Q[1] = K[1] * 5, 80x24 and 60x18, en
 * and zh, colour and mono: every cell shown flagged changed has its mark
 * right before its number or its number underlined. */
static void test_changed_shown(void **state)
{
    static const int small[][2] = {{80, 24}, {60, 18}};
    int shown[3] = {0, 0, 0};
    for (int e = 0; e < embedded_count; e++)
        for (int step = 0; !model_lesson(e); step++) {
            Case c;
            if (!load_step(&c, e, step))
                break;
            experiment(&c, step);
            for (int v = 0; v < 8; v++) {
                Lang lang = v % 2 ? LANG_ZH : LANG_EN;
                i18n_set(lang, "build/locale");
                view_state(&c, MODE_NORMAL, lang, small[v / 2 % 2][0], small[v / 2 % 2][1]);
                c.in.mono = v >= 4;
                layout_plan(&c.in, &c.p);
                for (int k = 0; k < c.p.ncell; k++) {
                    const PlanCell *x = &c.p.cell[k];
                    if (!(x->flags & (CELL_UP | CELL_DOWN)))
                        continue;
                    int how = change_shown(&c.p, x);
                    shown[how]++;
                    if (how == 0) {
                        char row[512];
                        row_text(&c.p, x->y, x->x, x->x + x->w, row, sizeof row);
                        fail_msg("%s step %d %s %dx%d%s: %s[%d][%d] changed but shows \"%s\", no mark, not underlined",
                                 c.l.file, step + 1, lang == LANG_ZH ? "zh" : "en", small[v / 2 % 2][0],
                                 small[v / 2 % 2][1], c.in.mono ? " mono" : "", attn_mat_name(x->id), x->i + 1,
                                 x->j + 1, row);
                    }
                }
            }
            unload(&c);
        }
    i18n_set(LANG_EN, "build/locale");
    print_message("changed cells: %d marked, %d underlined, %d neither\n", shown[1], shown[2], shown[0]);
    assert_int_equal(shown[0], 0);
    assert_true(shown[1] > 1000); /* marks where they fit */
    assert_true(shown[2] > 10);   /* and the fallback is used */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_lesson08_fits),
        cmocka_unit_test(test_grid_options),
        cmocka_unit_test(test_presentation_operands),
        cmocka_unit_test(test_lesson4_softmax_shows_s),
        cmocka_unit_test(test_change_marks),
        cmocka_unit_test(test_training_panel),
        cmocka_unit_test(test_training_panel_whole),
        cmocka_unit_test(test_eight_tokens),
        cmocka_unit_test(test_present_bars_beside_a),
        cmocka_unit_test(test_bars_one_scale),
        cmocka_unit_test(test_override_mark_apart),
        cmocka_unit_test(test_very_wide),
        cmocka_unit_test(test_status_whole),
        cmocka_unit_test(test_ribbon_scale),
        cmocka_unit_test(test_ribbon_heads),
        cmocka_unit_test(test_x_note_zh),
        cmocka_unit_test(test_header_title),
        cmocka_unit_test(test_edit_labels),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_narration_fits),
        cmocka_unit_test(test_hit),
        cmocka_unit_test(test_small_softmax),
        cmocka_unit_test(test_arith_cut_at_terms),
        cmocka_unit_test(test_marks_keep_columns),
        cmocka_unit_test(test_changed_shown),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
