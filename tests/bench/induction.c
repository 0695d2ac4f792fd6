/* induction.c - lesson 17's recipe search: train the copy task's 2-layer
 * attention-only model (vocab 27 = <s> + 26 letters, ctx 14, learned
 * positions, causal, no feed-forward) with the core's trainer and print,
 * every `every` steps, the held-out scores the targets name.
 *
 *   induction [key=value ...]   keys (defaults: the recipe proposed for
 *     lesson 17): d=16 heads=2 layers=2 norm=none|layer|rms (none)
 *     lr=0.01 (Adam) steps=2250 batch=64 seed=3 (the weights' stream)
 *     scale=0.144 (every W) embed=1 (E and P: model_draw_weights_split)
 *     data=1 (the copy task's seed) lmin=3 lmax=6 (its lengths) every=250
 *
 * Each report line: the step, the mean training loss since the last line,
 * the held-out loss over all positions and over the predictable copy
 * positions (the copy's 2nd..Lth symbol), each layer-1 head's previous-token
 * score and each layer-2 head's induction score (model.h), means over 100
 * sequences drawn from seed 999, and the seconds so far. The last line,
 * "best prev P induction I": the best layer-1 head's previous-token and the
 * best layer-2 head's induction score at the end. make induction runs the
 * recipe (held-out at step 2250: previous-token 0.770, induction 0.809);
 * the same bits as the build before the fast kernels, step for step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/copytask.h"
#include "core/model.h"
#include "core/model_back.h"
#include "core/optim.h"

#define CTX 14
#define VOCAB 27
#define HELD 100
#define BATCH_MAX 256

typedef struct {
    int d, heads, layers, steps, batch, every, lmin, lmax;
    unsigned long seed, data;
    double lr, scale, embed;
    NormKind norm;
} Run;

static bool arg(Run *r, const char *s)
{
    const char *v = strchr(s, '=');
    if (!v)
        return false;
    size_t k = (size_t)(v++ - s);
    if (k == 4 && !strncmp(s, "norm", k))
        r->norm = !strcmp(v, "layer") ? NORM_LAYER : !strcmp(v, "rms") ? NORM_RMS : NORM_NONE;
    else if (k == 1 && *s == 'd') r->d = atoi(v);
    else if (k == 5 && !strncmp(s, "heads", k)) r->heads = atoi(v);
    else if (k == 6 && !strncmp(s, "layers", k)) r->layers = atoi(v);
    else if (k == 5 && !strncmp(s, "steps", k)) r->steps = atoi(v);
    else if (k == 5 && !strncmp(s, "batch", k)) r->batch = atoi(v);
    else if (k == 5 && !strncmp(s, "every", k)) r->every = atoi(v);
    else if (k == 4 && !strncmp(s, "lmin", k)) r->lmin = atoi(v);
    else if (k == 4 && !strncmp(s, "lmax", k)) r->lmax = atoi(v);
    else if (k == 4 && !strncmp(s, "seed", k)) r->seed = strtoul(v, NULL, 10);
    else if (k == 4 && !strncmp(s, "data", k)) r->data = strtoul(v, NULL, 10);
    else if (k == 2 && !strncmp(s, "lr", k)) r->lr = atof(v);
    else if (k == 5 && !strncmp(s, "scale", k)) r->scale = atof(v);
    else if (k == 5 && !strncmp(s, "embed", k)) r->embed = atof(v);
    else return false;
    return true;
}

/* The held-out set: HELD sequences from seed 999, with their copies. */
typedef struct {
    int tok[HELD][CTX];
    CopySpan sp[HELD];
} Held;

static void held_draw(Held *h, const Run *run)
{
    Rng r;
    rng_seed(&r, 999);
    for (int s = 0; s < HELD; s++)
        (void)copy_task_draw(&r, CTX, VOCAB, run->lmin, run->lmax, h->tok[s], &h->sp[s]);
}

/* Scores of one run over the held-out set: out[0] loss, out[1] copy loss,
 * then layer-1 previous-token per head, layer-2 induction per head. */
static void evaluate(Model *m, const Held *h, double *out)
{
    int heads = m->cfg.heads, ncopy = 0;
    for (int k = 0; k < 2 + 2 * heads; k++)
        out[k] = 0.0;
    for (int s = 0; s < HELD; s++) {
        (void)model_set_tokens(m, h->tok[s], CTX);
        model_run_all(m);
        for (int i = 0; i + 1 < CTX; i++) {
            double nl = -log(MAT_AT(&m->p, i, h->tok[s][i + 1]));
            int j = i + 1 - 1 - h->sp[s].b; /* the place in the copy of token i+1 */
            out[0] += nl / (HELD * (CTX - 1));
            if (j >= 1 && j < h->sp[s].len) {
                out[1] += nl;
                ncopy++;
            }
        }
        for (int k = 1; k <= heads; k++) {
            double p = 0.0, q = 0.0;
            (void)model_prev_score(m, 1, k, &p);
            (void)model_induction_score(m, m->cfg.layers, k, &q);
            out[1 + k] += p / HELD;
            out[1 + heads + k] += q / HELD;
        }
    }
    out[1] /= ncopy > 0 ? ncopy : 1;
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void report(Model *m, const Held *h, int step, double train, const struct timespec *t0, double *best)
{
    double sc[2 + 2 * ATTN_HEADS_MAX];
    int heads = m->cfg.heads;
    evaluate(m, h, sc);
    printf("step %5d loss %.4f held %.4f copy %.4f prev", step, train, sc[0], sc[1]);
    best[0] = best[1] = 0.0;
    for (int k = 1; k <= heads; k++) {
        printf(" %.3f", sc[1 + k]);
        best[0] = sc[1 + k] > best[0] ? sc[1 + k] : best[0];
    }
    printf(" induction");
    for (int k = 1; k <= heads; k++) {
        printf(" %.3f", sc[1 + heads + k]);
        best[1] = sc[1 + heads + k] > best[1] ? sc[1 + heads + k] : best[1];
    }
    printf(" s %.1f\n", since(t0));
    fflush(stdout);
}

static ModelCfg config(const Run *r)
{
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = r->layers;
    c.d_model = r->d;
    c.heads = r->heads;
    c.d_ff = 0;
    c.norm = r->norm;
    c.positions = MPOS_LEARNED;
    c.ctx = CTX;
    c.vocab = VOCAB;
    return c;
}

static int train(const Run *r)
{
    static int tok[BATCH_MAX * CTX], len[BATCH_MAX];
    static Held held;
    ModelCfg c = config(r);
    Model m, g;
    held_draw(&held, r);
    if (r->batch < 1 || r->batch > BATCH_MAX || !model_init(&m, &c, held.tok[0], CTX) || !model_grad_init(&g, &m))
        return 2;
    model_draw_weights_split(&m, r->seed, r->scale, r->embed);
    Optim o;
    optim_init(&o, OPT_ADAM, r->lr);
    Rng data;
    rng_seed(&data, (uint32_t)r->data);
    CopySpan sp;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double sum = 0.0, loss = 0.0, best[2] = {0.0, 0.0};
    ModelRef bad;
    for (int s = 1; s <= r->steps; s++) {
        for (int q = 0; q < r->batch; q++) {
            len[q] = CTX;
            (void)copy_task_draw(&data, CTX, VOCAB, r->lmin, r->lmax, tok + q * CTX, &sp);
        }
        if (model_train_step(&m, &g, &o, tok, len, r->batch, &loss, &bad) != TRAIN_OK)
            return 1;
        sum += loss;
        if (s % r->every == 0 || s == r->steps) {
            report(&m, &held, s, sum / (s % r->every ? s % r->every : r->every), &t0, best);
            sum = 0.0;
        }
    }
    printf("best prev %.3f induction %.3f\n", best[0], best[1]);
    optim_free(&o);
    model_free(&m);
    model_free(&g);
    return 0;
}

int main(int argc, char **argv)
{
    Run r = {.d = 16, .heads = 2, .layers = 2, .steps = 2250, .batch = 64, .every = 250, .seed = 3, .data = 1, .lmin = 3, .lmax = 6,
             .lr = 0.01, .scale = 0.144, .embed = 1.0, .norm = NORM_NONE};
    for (int k = 1; k < argc; k++)
        if (!arg(&r, argv[k])) {
            fprintf(stderr, "induction: %s: write key=value (d, heads, layers, norm, lr, steps, batch, seed, "
                            "scale, embed, data, lmin, lmax, every)\n", argv[k]);
            return 2;
        }
    return train(&r);
}
