/* modern_dump.c - the core's pipeline with today's options, for
 * tests/numpy/modern.py: reads cases on stdin, prints every matrix as %.17g.
 *
 * A case, one item a line (indices 0-based):
 *   case ID
 *   shape N D_MODEL HEADS KV_HEADS D_K D_V D_OUT
 *   weights SEED SCALE             drawn by attn_draw_weights (numpy's order)
 *   X v1 ... v(N*D_MODEL)
 *   scale none|sqrt_dk
 *   softmax naive|stable|online BLOCK
 *   mask none|causal|window W
 *   temp T
 *   positions none|sinusoidal|rope BASE OFFSET
 *   target HEAD ROW t1 ... tN      (any number)
 *   append x1 ... xD               (any number: after the first run)
 *   run
 * Output per case: "case ID", "M NAME ROWS COLS v...", per append
 * "WORK n heads rows_new scores_new rows_full scores_full exact nstale
 * stale-rows...", with targets "M gWq"/"M gWk" and "LOSS l", and the online
 * softmax's blocks of every head's rows: "BLK head row k0 k1 v0 v1 bmax m_old
 * m_new rescale l_old l_new o_old o_new" (o for column 0 of V). Errors: one
 * line on stderr, exit 2. Core only: no lesson loader, no JSON. */
#include "core/attn.h"
#include "core/explain.h"
#include "core/grad.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_ 65536

static void die(const char *what)
{
    fprintf(stderr, "modern_dump: %s\n", what);
    exit(2);
}

static void print_mat(const char *name, const Mat *m)
{
    if (!m->v)
        return;
    printf("M %s %d %d", name, m->rows, m->cols);
    for (int k = 0; k < m->rows * m->cols; k++)
        printf(" %.17g", m->v[k]);
    printf("\n");
}

/* Read up to max doubles from s into v; returns how many. */
static int numbers(char *s, double *v, int max)
{
    int n = 0;
    for (char *tok = strtok(s, " \t\n"); tok && n < max; tok = strtok(NULL, " \t\n"))
        v[n++] = strtod(tok, NULL);
    return n;
}

typedef struct {
    int id, n, d, h, g, dk, dv, dout;
    unsigned long seed;
    double wscale, temp, base;
    double x[MAT_MAX * MAT_MAX];
    Scale scale;
    Softmax softmax;
    int block, window, offset;
    Mask mask;
    Positions pos;
    int ntarget, nappend;
    int thead[64], trow[64], tn[64];
    double t[64][MAT_MAX];
    double app[MAT_MAX][MAT_MAX];
} Case;

static void print_blocks(const Attn *a)
{
    if (a->softmax != SOFTMAX_ONLINE)
        return;
    for (int h = 1; h <= attn_heads(a); h++)
        for (int i = 0; i < attn_tokens(a); i++) {
            Explain e;
            if (!explain_cell(a, attn_shown(a, M_O, h), i, 0, &e))
                die("explain failed");
            for (int b = 0; b < e.nblocks; b++) {
                const AttnBlock *x = &e.blocks[b];
                printf("BLK %d %d %d %d %d %d %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", h - 1, i, x->k0,
                       x->k1, x->v0, x->v1, x->bmax, x->m_old, x->m_new, x->rescale, x->l_old, x->l_new, x->o_old,
                       x->o_new);
            }
        }
}

static void print_all(const Attn *a)
{
    for (int id = 0; id < M_COUNT; id++) {
        if (id == M_P && a->positions != POS_SINUSOIDAL)
            continue;
        if (attn_mat_head((MatId)id) > 0 && attn_heads(a) == 1)
            continue;
        print_mat(attn_mat_name((MatId)id), &a->m[id]);
    }
}

static void run_case(const Case *c)
{
    Attn a;
    if (!attn_init_kv(&a, c->n, c->d, c->h, c->g, c->dk, c->dv, c->dout))
        die("bad shape");
    memcpy(a.m[M_X].v, c->x, sizeof(double) * (size_t)(c->n * c->d));
    attn_draw_weights(&a, c->seed, c->wscale);
    a.scale = c->scale;
    a.softmax = c->softmax;
    a.block = c->block;
    a.mask = c->mask;
    a.window = c->window;
    a.temp = c->temp;
    a.rope_base = c->base;
    a.offset = c->offset;
    if (!attn_set_positions(&a, c->pos))
        die("out of memory");
    if (attn_check_options(&a) != ATTN_OPT_OK)
        die("options out of range");
    printf("case %d\n", c->id);
    attn_run_to(&a, attn_last_stage(&a));
    for (int k = 0; k < c->nappend; k++) {
        Attn before = {0};
        AttnWork w;
        if (!attn_copy(&before, &a) || !attn_append(&a, c->app[k], c->d) || !attn_append_work(&before, &a, &w))
            die("append failed");
        printf("WORK %d %d %d %d %d %d %d %d", w.n, w.heads, w.rows_new, w.scores_new, w.rows_full, w.scores_full,
               w.exact, w.nstale);
        for (int i = 0; i < w.n - 1; i++)
            if (w.stale[i])
                printf(" %d", i);
        printf("\n");
        attn_free(&before);
    }
    print_all(&a);
    print_blocks(&a);
    for (int k = 0; k < c->ntarget; k++)
        if (c->tn[k] != attn_tokens(&a))
            die("a target needs one weight per token (after the appends)");
    for (int k = 0; k < c->ntarget; k++)
        if (!grad_set_target(&a, c->thead[k], c->trow[k], c->t[k]))
            die("out of memory");
    if (c->ntarget) {
        Mat gq = {0}, gk = {0};
        if (!grad_compute(&a, &gq, &gk))
            die("gradient failed");
        print_mat("gWq", &gq);
        print_mat("gWk", &gk);
        printf("LOSS %.17g\n", grad_loss(&a));
        mat_free(&gq);
        mat_free(&gk);
    }
    attn_free(&a);
}

static void option(Case *c, const char *key, char *rest)
{
    char w[32] = "";
    double v[3] = {0};
    if (sscanf(rest, "%31s", w) != 1)
        die("option without a value");
    int n = numbers(rest + strlen(w) + 1, v, 3);
    if (!strcmp(key, "scale"))
        c->scale = strcmp(w, "none") ? SCALE_SQRT_DK : SCALE_NONE;
    else if (!strcmp(key, "softmax")) {
        c->softmax = !strcmp(w, "naive") ? SOFTMAX_NAIVE : !strcmp(w, "online") ? SOFTMAX_ONLINE : SOFTMAX_STABLE;
        c->block = n > 0 ? (int)v[0] : ATTN_BLOCK_DEFAULT;
    } else if (!strcmp(key, "mask")) {
        c->mask = !strcmp(w, "none") ? MASK_NONE : !strcmp(w, "causal") ? MASK_CAUSAL : MASK_WINDOW;
        c->window = n > 0 ? (int)v[0] : 1;
    } else if (!strcmp(key, "positions")) {
        c->pos = !strcmp(w, "none") ? POS_NONE : !strcmp(w, "sinusoidal") ? POS_SINUSOIDAL : POS_ROPE;
        c->base = n > 0 ? v[0] : ATTN_ROPE_BASE_DEFAULT;
        c->offset = n > 1 ? (int)v[1] : 0;
    } else
        die("unknown line");
}

int main(void)
{
    static char line[LINE_MAX_];
    static Case c;
    double v[MAT_MAX * MAT_MAX + 2];
    while (fgets(line, sizeof line, stdin)) {
        char key[32] = "";
        if (sscanf(line, "%31s", key) != 1)
            continue;
        char *rest = line + strspn(line, " \t") + strlen(key);
        if (!strcmp(key, "case")) {
            memset(&c, 0, sizeof c);
            c.id = atoi(rest);
            c.temp = 1.0;
            c.block = ATTN_BLOCK_DEFAULT;
            c.window = 1;
            c.base = ATTN_ROPE_BASE_DEFAULT;
            c.scale = SCALE_SQRT_DK;
            c.softmax = SOFTMAX_STABLE;
        } else if (!strcmp(key, "shape")) {
            if (sscanf(rest, "%d %d %d %d %d %d %d", &c.n, &c.d, &c.h, &c.g, &c.dk, &c.dv, &c.dout) != 7)
                die("shape needs 7 numbers");
        } else if (!strcmp(key, "weights")) {
            if (sscanf(rest, "%lu %lf", &c.seed, &c.wscale) != 2)
                die("weights needs a seed and a scale");
        } else if (!strcmp(key, "X")) {
            if (numbers(rest, c.x, MAT_MAX * MAT_MAX) != c.n * c.d)
                die("X needs N*D_MODEL numbers");
        } else if (!strcmp(key, "temp")) {
            c.temp = strtod(rest, NULL);
        } else if (!strcmp(key, "target")) {
            int k = numbers(rest, v, MAT_MAX + 2);
            if (c.ntarget >= 64 || k < 3)
                die("target needs HEAD ROW and a weight per token");
            c.tn[c.ntarget] = k - 2;
            c.thead[c.ntarget] = (int)v[0];
            c.trow[c.ntarget] = (int)v[1];
            memcpy(c.t[c.ntarget++], v + 2, sizeof(double) * (size_t)(k - 2));
        } else if (!strcmp(key, "append")) {
            if (c.nappend >= MAT_MAX || numbers(rest, c.app[c.nappend++], MAT_MAX) != c.d)
                die("append needs D_MODEL numbers");
        } else if (!strcmp(key, "run")) {
            run_case(&c);
        } else
            option(&c, key, rest);
    }
    return 0;
}
