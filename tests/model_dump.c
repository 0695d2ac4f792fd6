/* model_dump.c - a whole model (core/model.h) built from a small config and
 * printed stage by stage as JSON, for tests/model_ref.py.
 *
 *   model_dump KEY=VALUE ...      one model, one JSON object on stdout
 *   model_dump < configs          one config a line, one JSON object a line
 *
 * Keys (model.h's ModelCfg; unset ones keep model_cfg_default's values):
 * layers d_model heads kv_heads d_k d_v d_ff act=relu|gelu
 * norm=none|layernorm|rmsnorm eps positions=learned|sinusoidal|rope|none
 * rope_base offset ctx vocab unembed=separate|tied, the attention options
 * scale=none|sqrt_dk softmax=naive|stable|online mask=none|causal|window
 * window temp block (every layer; "L2.mask=none" one layer), sample_temp
 * sample_seed sample=0|1, and seed, wscale (model_draw_weights), tokens=0,3,1 (vocab
 * indices), ablate=1.2,2.1 (layer.head), affine=SEED (a test's own
 * perturbation after the draw, so that the affine parts take part: from a
 * numpy-legacy stream seeded with SEED, every gain becomes 1 + 0.3 randn
 * and every bias and beta 0.3 randn, in model_params' order). Output: "cfg" (d_k, d_v, kv_heads
 * filled in), "tok", "params" (each parameter by its name), "layers" (h_in,
 * a, mean1, var1, sigma1, per_head [{Q, K, V, QKt, S, A, O}], Q0, K0 with
 * rope, O, Y, h_mid, and with d_ff > 0 mean2, var2, sigma2, b, u, f; h),
 * h_final, meanf, varf, sigmaf, logits, p, greedy, sample (the index drawn
 * with sample_seed, and u its uniform), predict, scores [{layer, head, prev,
 * induction}], and explain_bad / explain_cells (tests/model_check.h). Numbers
 * are shortest round-trip (text/shortest.h); -Infinity, Infinity and NaN as
 * Python's json reads them. A bad config: one line on stderr, exit 2. */
#include "core/model.h"
#include "core/model_back.h"
#include "core/optim.h"
#include "model_check.h"
#include "text/shortest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *arg)
{
    fprintf(stderr, "model_dump: %s: %s\n", what, arg);
    exit(2);
}

static void num(double v)
{
    char b[SHORTEST_MAX];
    if (isnan(v))
        fputs("NaN", stdout);
    else if (isinf(v))
        fputs(v > 0 ? "Infinity" : "-Infinity", stdout);
    else
        fwrite(b, 1, shortest_print(v, b), stdout);
}

static void mat(const char *key, const Mat *m)
{
    printf("\"%s\": [", key);
    for (int i = 0; i < m->rows; i++) {
        printf(i ? ", [" : "[");
        for (int j = 0; j < m->cols; j++) {
            if (j)
                fputs(", ", stdout);
            num(MAT_AT(m, i, j));
        }
        putchar(']');
    }
    fputs("], ", stdout);
}

static void row(const char *key, const double *v, int n)
{
    printf("\"%s\": [", key);
    for (int k = 0; k < n; k++) {
        if (k)
            fputs(", ", stdout);
        num(v[k]);
    }
    fputs("], ", stdout);
}

typedef struct {
    const char *name;
    int value;
} Word;

static int word(const char *v, const Word *w)
{
    for (; w->name; w++)
        if (strcmp(v, w->name) == 0)
            return w->value;
    die("unknown value", v);
    return 0;
}

static const Word acts[] = {{"relu", ACT_RELU}, {"gelu", ACT_GELU}, {0}};
static const Word norms[] = {{"none", NORM_NONE}, {"layernorm", NORM_LAYER}, {"rmsnorm", NORM_RMS}, {0}};
static const Word poss[] = {{"learned", MPOS_LEARNED}, {"sinusoidal", MPOS_SINUSOIDAL}, {"rope", MPOS_ROPE},
                            {"none", MPOS_NONE}, {0}};
static const Word unembeds[] = {{"separate", UNEMBED_SEPARATE}, {"tied", UNEMBED_TIED}, {0}};
static const Word scales[] = {{"none", SCALE_NONE}, {"sqrt_dk", SCALE_SQRT_DK}, {0}};
static const Word softmaxes[] = {{"naive", SOFTMAX_NAIVE}, {"stable", SOFTMAX_STABLE}, {"online", SOFTMAX_ONLINE}, {0}};
static const Word masks[] = {{"none", MASK_NONE}, {"causal", MASK_CAUSAL}, {"window", MASK_WINDOW}, {0}};

typedef struct {
    ModelCfg c;
    unsigned long seed;
    double wscale;
    int n, tok[MODEL_CTX_MAX];
    int nab, ab[64][2];
    long affine;          /* -1: none */
    int optimizer;        /* -1: no training; else OPT_SGD or OPT_ADAM */
    double lr;
    int batch, length;    /* the training batch: sequences of `length` tokens */
} Spec;

/* An attention option for layers lo..hi-1. */
static bool attn_key(Spec *s, const char *k, const char *v, int lo, int hi)
{
    for (int l = lo; l < hi; l++) {
        ModelAttnOpts *o = &s->c.attn[l];
        if (strcmp(k, "scale") == 0) o->scale = (Scale)word(v, scales);
        else if (strcmp(k, "softmax") == 0) o->softmax = (Softmax)word(v, softmaxes);
        else if (strcmp(k, "mask") == 0) o->mask = (Mask)word(v, masks);
        else if (strcmp(k, "window") == 0) o->window = atoi(v);
        else if (strcmp(k, "temp") == 0) o->temp = strtod(v, NULL);
        else if (strcmp(k, "block") == 0) o->block = atoi(v);
        else return false;
    }
    return true;
}

static void list(Spec *s, const char *k, const char *v)
{
    for (const char *p = v; *p;) {
        char *end;
        long a = strtol(p, &end, 10), b = 0;
        if (end == p)
            die("bad list", v);
        if (*end == '.')
            b = strtol(end + 1, &end, 10);
        if (k[0] == 't' && s->n < MODEL_CTX_MAX)
            s->tok[s->n++] = (int)a;
        else if (k[0] == 'a' && s->nab < 64)
            s->ab[s->nab][0] = (int)a, s->ab[s->nab++][1] = (int)b;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            die("bad list", v);
    }
}

static void key(Spec *s, const char *k, const char *v)
{
    ModelCfg *c = &s->c;
    int *ints[] = {&c->layers, &c->d_model, &c->heads, &c->kv_heads, &c->d_k, &c->d_v, &c->d_ff, &c->offset,
                   &c->ctx, &c->vocab};
    const char *inames[] = {"layers", "d_model", "heads", "kv_heads", "d_k", "d_v", "d_ff", "offset", "ctx", "vocab"};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (strcmp(k, inames[i]) == 0) {
            *ints[i] = atoi(v);
            return;
        }
    if (strcmp(k, "act") == 0) c->act = (Act)word(v, acts);
    else if (strcmp(k, "norm") == 0) c->norm = (NormKind)word(v, norms);
    else if (strcmp(k, "positions") == 0) c->positions = (ModelPos)word(v, poss);
    else if (strcmp(k, "unembed") == 0) c->unembed = (Unembed)word(v, unembeds);
    else if (strcmp(k, "eps") == 0) c->eps = strtod(v, NULL);
    else if (strcmp(k, "rope_base") == 0) c->rope_base = strtod(v, NULL);
    else if (strcmp(k, "sample_temp") == 0) c->sample_temp = strtod(v, NULL);
    else if (strcmp(k, "sample_seed") == 0) c->sample_seed = strtoul(v, NULL, 10);
    else if (strcmp(k, "sample") == 0) c->sample = atoi(v) != 0;
    else if (strcmp(k, "seed") == 0) s->seed = strtoul(v, NULL, 10);
    else if (strcmp(k, "wscale") == 0) s->wscale = strtod(v, NULL);
    else if (strcmp(k, "affine") == 0) s->affine = strtol(v, NULL, 10);
    else if (strcmp(k, "optimizer") == 0) s->optimizer = strcmp(v, "sgd") == 0 ? OPT_SGD : OPT_ADAM;
    else if (strcmp(k, "lr") == 0) s->lr = strtod(v, NULL);
    else if (strcmp(k, "batch") == 0) s->batch = atoi(v);
    else if (strcmp(k, "length") == 0) s->length = atoi(v);
    else if (strcmp(k, "tokens") == 0 || strcmp(k, "ablate") == 0) list(s, k, v);
    else if (k[0] == 'L' && k[1] >= '1' && k[1] <= '8' && k[2] == '.') {
        if (!attn_key(s, k + 3, v, k[1] - '1', k[1] - '0'))
            die("unknown key", k);
    } else if (!attn_key(s, k, v, 0, MODEL_LAYERS_MAX))
        die("unknown key", k);
}

static void dump_layer(const Model *m, int l)
{
    const ModelLayer *y = &m->layer[l - 1];
    const Attn *a = &y->att;
    int n = m->n;
    fputs("{", stdout);
    mat("h_in", &y->h_in);
    mat("a", &a->m[M_X]);
    row("mean1", y->n1.mean, n);
    row("var1", y->n1.var, n);
    row("sigma1", y->n1.sigma, n);
    fputs("\"per_head\": [", stdout);
    for (int h = 1; h <= attn_heads(a); h++) {
        fputs(h > 1 ? ", {" : "{", stdout);
        for (MatId b = M_Q; b <= M_O; b++)
            mat(attn_mat_name(b), &a->m[attn_shown(a, b, h)]);
        printf("\"head\": %d}", h);
    }
    fputs("], ", stdout);
    if (m->cfg.positions == MPOS_ROPE) {
        mat("Q0", &a->m[M_Q0]);
        mat("K0", &a->m[M_K0]);
    }
    mat("O", &a->m[M_O]);
    mat("Y", &a->m[M_Y]);
    mat("h_mid", &y->h_mid);
    if (m->cfg.d_ff > 0) {
        row("mean2", y->n2.mean, n);
        row("var2", y->n2.var, n);
        row("sigma2", y->n2.sigma, n);
        mat("b", &y->b);
        mat("u", &y->u);
        mat("f", &y->f);
    }
    mat("h", &y->h);
    printf("\"layer\": %d}", l);
}

static void dump_scores(const Model *m)
{
    fputs("\"scores\": [", stdout);
    for (int l = 1; l <= m->cfg.layers; l++)
        for (int h = 1; h <= m->cfg.heads; h++) {
            double prev = 0, ind = 0;
            bool hp = model_prev_score(m, l, h, &prev), hi = model_induction_score(m, l, h, &ind);
            printf("%s{\"layer\": %d, \"head\": %d, \"prev\": ", l + h > 2 ? ", " : "", l, h);
            hp ? num(prev) : (void)fputs("null", stdout);
            fputs(", \"induction\": ", stdout);
            hi ? num(ind) : (void)fputs("null", stdout);
            putchar('}');
        }
    fputs("], ", stdout);
}

/* Every parameter by its name, as "KEY": {NAME: rows, ..., "n": 0}. */
static void params(const char *key, const Model *m)
{
    printf("\"%s\": {", key);
    ModelRef ref[MODEL_PARAMS_MAX];
    int np = model_params(m, ref, MODEL_PARAMS_MAX);
    for (int k = 0; k < np; k++) {
        char name[32];
        model_ref_name(m, ref[k], name, sizeof name);
        mat(name, model_mat(m, ref[k]));
    }
    fputs("\"n\": 0}", stdout);
}

static void dump(const Model *m)
{
    const ModelCfg *c = &m->cfg;
    printf("{\"cfg\": {\"d_k\": %d, \"d_v\": %d, \"kv_heads\": %d}, ", c->d_k, c->d_v, c->kv_heads);
    params("params", m);
    fputs(", \"layers\": [", stdout);
    for (int l = 1; l <= c->layers; l++) {
        fputs(l > 1 ? ", " : "", stdout);
        dump_layer(m, l);
    }
    fputs("], ", stdout);
    mat("h_final", &m->h_final);
    row("meanf", m->nf.mean, m->n);
    row("varf", m->nf.var, m->n);
    row("sigmaf", m->nf.sigma, m->n);
    mat("logits", &m->logits);
    mat("p", &m->p);
    dump_scores(m);
    Rng r;
    double u;
    rng_seed(&r, (uint32_t)c->sample_seed);
    int drawn = model_sample(&MAT_AT(&m->p, m->n - 1, 0), c->vocab, &r, &u);
    int cells, bad = model_check_explain(m, &cells);
    printf("\"greedy\": %d, \"sample\": %d, \"u\": ", model_greedy(m), drawn);
    num(u);
    printf(", \"predict\": %d, \"explain_bad\": %d, \"explain_cells\": %d}\n", model_predict(m), bad, cells);
}

/* Gains 1 + 0.3 randn, biases and betas 0.3 randn (the affine= key). */
static void perturb(Model *m, unsigned long seed)
{
    Rng r;
    rng_seed(&r, (uint32_t)seed);
    ModelRef ref[MODEL_PARAMS_MAX];
    int np = model_params(m, ref, MODEL_PARAMS_MAX);
    for (int k = 0; k < np; k++) {
        ModelMatKind t = ref[k].kind;
        bool gain = t == MM_G1 || t == MM_G2 || t == MM_GF;
        if (!gain && t != MM_BETA1 && t != MM_BETA2 && t != MM_BETAF && t != MM_B1 && t != MM_B2)
            continue;
        Mat *x = model_mat_mut(m, ref[k]);
        rng_randn(&r, x, 0.3);
        for (int j = 0; gain && j < x->cols; j++)
            x->v[j] += 1.0;
    }
}


/* ---- training (optimizer= lr= batch= length=): tests/train_ref.py ---- */

static const char *name_of(int v, const Word *w)
{
    for (; w->name; w++)
        if (w->value == v)
            return w->name;
    return "?";
}

static void cfg_json(const Spec *s, const ModelCfg *c)
{
    printf("\"cfg\": {\"layers\": %d, \"d_model\": %d, \"heads\": %d, \"kv_heads\": %d, \"d_k\": %d, "
           "\"d_v\": %d, \"d_ff\": %d, \"act\": \"%s\", \"norm\": \"%s\", \"positions\": \"%s\", "
           "\"unembed\": \"%s\", \"offset\": %d, \"eps\": ", c->layers, c->d_model, c->heads, c->kv_heads,
           c->d_k, c->d_v, c->d_ff, name_of(c->act, acts), name_of(c->norm, norms), name_of(c->positions, poss),
           name_of(c->unembed, unembeds), c->offset);
    num(c->eps);
    fputs(", \"rope_base\": ", stdout);
    num(c->rope_base);
    fputs(", \"sample_temp\": ", stdout);
    num(c->sample_temp);
    fputs(", \"attn\": [", stdout);
    for (int l = 0; l < c->layers; l++) {
        const ModelAttnOpts *o = &c->attn[l];
        printf("%s{\"scale\": \"%s\", \"mask\": \"%s\", \"window\": %d, \"temp\": ", l ? ", " : "",
               name_of(o->scale, scales), name_of(o->mask, masks), o->window);
        num(o->temp);
        putchar('}');
    }
    fputs("], \"ablate\": [", stdout);
    for (int k = 0; k < s->nab; k++)
        printf("%s[%d, %d]", k ? ", " : "", s->ab[k][0], s->ab[k][1]);
    fputs("]}, ", stdout);
}

/* The batch (drawn from seed + 100: randint(0, vocab) per token), the first
 * step's loss, both steps' gradients, the parameters before and after each
 * of two steps. */
static void train_dump(Model *m, const Spec *s)
{
    static int tok[64 * MODEL_CTX_MAX];
    int len[64], nb = s->batch < 1 ? 1 : s->batch > 64 ? 64 : s->batch;
    Rng r;
    rng_seed(&r, (uint32_t)(s->seed + 100));
    for (int q = 0; q < nb; q++) {
        len[q] = s->length;
        for (int i = 0; i < s->length; i++)
            tok[q * s->length + i] = (int)rng_randint(&r, 0, m->cfg.vocab);
    }
    static Model g;
    Optim o;
    optim_init(&o, (OptKind)s->optimizer, s->lr);
    if (!model_grad_init(&g, m))
        die("cannot build the gradient", "out of memory");
    putchar('{');
    cfg_json(s, &m->cfg);
    fputs("\"seqs\": [", stdout);
    for (int q = 0; q < nb; q++) {
        fputs(q ? ", [" : "[", stdout);
        for (int i = 0; i < s->length; i++)
            printf("%s%d", i ? ", " : "", tok[q * s->length + i]);
        putchar(']');
    }
    printf("], \"optimizer\": \"%s\", \"lr\": ", s->optimizer == OPT_SGD ? "sgd" : "adam");
    num(s->lr);
    fputs(", ", stdout);
    params("params", m);
    static Model g0, g1, m1;
    double loss[2];
    for (int step = 0; step < 2; step++) {
        ModelRef bad;
        TrainStatus st = model_train_step(m, &g, &o, tok, len, nb, &loss[step], &bad);
        if (st != TRAIN_OK)
            die("a training step failed", st == TRAIN_BAD_BATCH ? "bad batch" : "not finite or out of memory");
        if (!model_copy(step == 0 ? &g0 : &g1, &g) || (step == 0 && !model_copy(&m1, m)))
            die("cannot copy the model", "out of memory");
    }
    fputs(", ", stdout);
    fputs("\"grads\": [{", stdout);
    params("g", &g0);
    fputs("}, {", stdout);
    params("g", &g1);
    fputs("}], \"after\": [{", stdout);
    params("p", &m1);
    fputs("}, {", stdout);
    params("p", m);
    fputs("}], \"loss\": ", stdout);
    num(loss[0]);
    puts("}");
    model_free(&g0);
    model_free(&g1);
    model_free(&m1);
    optim_free(&o);
    model_free(&g);
}

static void one(int argc, char **argv)
{
    static Spec s;
    memset(&s, 0, sizeof s);
    model_cfg_default(&s.c);
    s.wscale = 0.5;
    s.affine = -1;
    s.optimizer = -1;
    for (int k = 0; k < argc; k++) {
        char *eq = strchr(argv[k], '=');
        if (!eq)
            die("not KEY=VALUE", argv[k]);
        *eq = '\0';
        key(&s, argv[k], eq + 1);
    }
    if (s.optimizer >= 0 && s.n == 0) /* the batch's length: the shapes training needs */
        s.n = s.length;
    ModelBad b = model_cfg_check(&s.c);
    if (b != MODEL_OK)
        die("out of range", model_bad_key(b));
    static Model m;
    if (!model_init(&m, &s.c, s.tok, s.n))
        die("cannot build the model", "bad tokens or out of memory");
    model_draw_weights(&m, s.seed, s.wscale);
    if (s.affine >= 0)
        perturb(&m, (unsigned long)s.affine);
    for (int k = 0; k < s.nab; k++)
        model_set_ablate(&m, s.ab[k][0], s.ab[k][1], true);
    if (s.optimizer >= 0) {
        train_dump(&m, &s);
    } else {
        model_run_all(&m);
        dump(&m);
    }
    model_free(&m);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        one(argc - 1, argv + 1);
        return 0;
    }
    static char line[8192];
    while (fgets(line, sizeof line, stdin)) {
        char *words[128];
        int n = 0;
        for (char *t = strtok(line, " \t\n"); t && n < 128; t = strtok(NULL, " \t\n"))
            words[n++] = t;
        if (n > 0)
            one(n, words);
        fflush(stdout);
    }
    return 0;
}
