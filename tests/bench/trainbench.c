/* trainbench.c - one training step of the induction model DESIGN.md names
 * for lesson 17 (vocab 27 = <s> + 26 letters, d_model 16, 2 heads, 2
 * layers, no feed-forward, learned positions, ctx 14, layernorm, causal),
 * batch 64 of the copy task (lengths 3..6, seed 1), Adam lr 0.003 from
 * random weights (seed 3, scale 0.1): core/model_back.h and core/optim.h.
 *
 *   trainbench STEPS      runs STEPS steps, prints "ms_per_step X" and the
 *                         last loss; tests/bench/train_torch.py runs the
 *                         same model in torch float32 on one thread, and
 *                         make bench-train runs both alternately. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/copytask.h"
#include "core/model.h"
#include "core/model_back.h"
#include "core/optim.h"

#define BATCH 64
#define CTX 14

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 20;
    ModelCfg c;
    model_cfg_default(&c);
    c.layers = 2;
    c.d_model = 16;
    c.heads = 2;
    c.d_ff = 0;
    c.norm = NORM_LAYER;
    c.positions = MPOS_LEARNED;
    c.ctx = CTX;
    c.vocab = 27;
    static int tok[BATCH * CTX];
    int len[BATCH];
    Rng data;
    rng_seed(&data, 1);
    CopySpan sp;
    for (int s = 0; s < BATCH; s++) {
        len[s] = CTX;
        (void)copy_task_draw(&data, CTX, c.vocab, 3, 6, tok + s * CTX, &sp);
    }
    Model m, g;
    if (!model_init(&m, &c, tok, CTX) || !model_grad_init(&g, &m))
        return 1;
    model_draw_weights(&m, 3, 0.1);
    Optim o;
    optim_init(&o, OPT_ADAM, 0.003);
    double loss = 0.0;
    ModelRef bad;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int s = 0; s < steps; s++) {
        for (int q = 0; q < BATCH; q++)
            (void)copy_task_draw(&data, CTX, c.vocab, 3, 6, tok + q * CTX, &sp);
        if (model_train_step(&m, &g, &o, tok, len, BATCH, &loss, &bad) != TRAIN_OK)
            return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = ((double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6) / steps;
    printf("ms_per_step %.4f loss %.6f\n", ms, loss);
    return 0;
}
