/* traincli.c - qkvtutor --train (see traincli.h). */
#include "traincli.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lesson/lmodel.h"
#include "lesson/traindata.h"
#include "lesson/trainrun.h"
#include "lesson/weightsfile.h"
#include "text/afile.h"
#include "text/i18n.h"
#include "text/num.h"
#include "text/shortest.h"
#include "text/text.h"

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

typedef struct {
    bool tty;
    long steps;             /* the run's */
    struct timespec t0;
    double last_draw;       /* seconds since t0 of the last redraw */
    long next_line;         /* no terminal: the step of the next plain line */
    double loss;
} Progress;

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* "step 1200/3000  140 steps/s  13 s left  loss 2.6543" */
static void progress_text(const Progress *p, long step, double t, char *buf, size_t len)
{
    char loss[32];
    long rate = t > 0 ? (long)(step / t + 0.5) : 0;
    long left = t > 0 ? (long)((double)(p->steps - step) * t / step + 0.5) : 0;
    num_format(loss, sizeof loss, p->loss, 4);
    snprintf(buf, len, _("step %ld/%ld  %ld steps/s  %ld s left  loss %s"), step, p->steps, rate, left, loss);
}

static bool progress_step(long step, double loss, void *arg)
{
    Progress *p = arg;
    p->loss = loss;
    double t = seconds_since(&p->t0);
    char line[256];
    if (p->tty && (t - p->last_draw >= 0.1 || step == p->steps)) {
        char bar[24];
        int full = (int)(20 * step / p->steps);
        for (int k = 0; k < 20; k++)
            bar[k] = k < full ? '#' : '-';
        bar[20] = '\0';
        progress_text(p, step, t, line, sizeof line);
        fprintf(stderr, "\r[%s] %s\033[K", bar, line);
        fflush(stderr);
        p->last_draw = t;
    } else if (!p->tty && step >= p->next_line) {
        progress_text(p, step, t, line, sizeof line);
        fprintf(stderr, "%s\n", line);
        p->next_line += p->steps / 10 > 0 ? p->steps / 10 : 1;
    }
    return !interrupted;
}

/* The model to train: the lesson's weights, or train.from's random ones. */
static Model *start_model(const LessonModel *lm)
{
    Model *m = calloc(1, sizeof *m);
    if (!m || !model_copy(m, lm->base)) {
        free(m);
        return NULL;
    }
    if (lm->train.from_given)
        model_draw_weights_split(m, lm->train.from_seed, lm->train.from_scale, lm->train.from_embed_scale);
    return m;
}

static void print_start(const LessonModel *lm, long took, long steps)
{
    const TrainSpec *t = &lm->train;
    char lr[SHORTEST_MAX], sc[SHORTEST_MAX], es[SHORTEST_MAX];
    (void)shortest_print(t->lr, lr);
    printf(_("trained: %ld of %ld steps, %s lr %s, batch %d, "), took, steps, t->opt == OPT_ADAM ? "adam" : "sgd",
           lr, t->batch);
    if (t->from_given) {
        (void)shortest_print(t->from_scale, sc);
        (void)shortest_print(t->from_embed_scale, es);
        printf(_("from random weights (seed %lu, scale %s, embed_scale %s)\n"), t->from_seed, sc, es);
    } else if (lm->wsrc == WSRC_FILE) {
        printf(_("from the lesson's weights (%s)\n"), lm->wfile);
    } else {
        (void)shortest_print(lm->wscale, sc);
        (void)shortest_print(lm->wembed_scale, es);
        printf(_("from the lesson's random weights (seed %lu, scale %s, embed_scale %s)\n"), lm->wseed, sc, es);
    }
}

static void print_losses(const TrainResult *r, const TrainEval *e)
{
    char a[32], b[32];
    num_format(a, sizeof a, r->first_loss, 4);
    num_format(b, sizeof b, r->loss, 4);
    if (r->steps > 0)
        printf(_("loss: %s at step 1, %s at step %ld\n"), a, b, r->steps);
    num_format(a, sizeof a, e->loss_rest, 4);
    num_format(b, sizeof b, e->loss_copy, 4);
    if (e->copy)
        printf(_("held-out: %d copy sequences from seed %lu: loss %s on the other positions, %s on the copy's "
                 "repeated symbols (its 2nd to last)\n"), e->nseq, e->seed, a, b);
    else
        printf(_("held-out: none (the data's own %d sequences): mean loss %s\n"), e->nseq, a);
}

static void print_scores(const Model *m, const TrainEval *e)
{
    printf("%-8s %-15s %s\n", _("head"), _("previous-token"), _("induction"));
    for (int l = 1; l <= m->cfg.layers; l++)
        for (int h = 1; h <= m->cfg.heads; h++) {
            char name[16], p[32], q[32] = "-";
            snprintf(name, sizeof name, "L%d.H%d", l, h);
            num_format(p, sizeof p, e->prev[l - 1][h - 1], 3);
            if (e->has_ind[l - 1][h - 1])
                num_format(q, sizeof q, e->ind[l - 1][h - 1], 3);
            printf("%-8s %-15s %s\n", name, p, q);
        }
}

/* The last progress line: how long it took, or where Ctrl-C stopped it. */
static void print_time(const Progress *p, const TrainResult *r)
{
    double t = seconds_since(&p->t0);
    char s[32];
    num_format(s, sizeof s, t, 1);
    long rate = t > 0 ? (long)(r->steps / t + 0.5) : 0;
    if (p->tty)
        fputc('\n', stderr);
    if (r->stopped && interrupted)
        fprintf(stderr, _("stopped by Ctrl-C after step %ld of %ld (%s s); writing that step's weights\n"), r->steps,
                p->steps, s);
    else
        fprintf(stderr, _("%ld steps in %s s (%ld steps/s)\n"), r->steps, s, rate);
}

/* Can the lesson be trained? Prints why not (exit 2). */
static bool trainable(const Lesson *l)
{
    char shown[1024];
    text_shown(l->file, shown, sizeof shown);
    if (!l->model) {
        fprintf(stderr, _("qkvtutor: --train: %s is not a model lesson: it needs model: and train: "
                          "(lessons/README.md)\n"), shown);
        return false;
    }
    if (!l->model->train.given) {
        fprintf(stderr, _("qkvtutor: --train: %s has no train: section; add e.g. train: {data: {task: copy, "
                          "length: [3, 6], seed: 1}, optimizer: {adam: {lr: 0.003}}, batch: 64, steps: 3000}\n"),
                shown);
        return false;
    }
    return true;
}

/* Is out writable at all? A file made and removed again: nothing is left. */
static bool can_write(const char *out)
{
    AFile a;
    char err[AFILE_PATH + 256];
    if (afile_open(&a, out)) {
        afile_abort(&a);
        return true;
    }
    afile_error(&a, err, sizeof err);
    fprintf(stderr, "qkvtutor: %s\n", err);
    return false;
}

static int train_and_write(Lesson *l, Model *m, const char *out, long steps)
{
    LessonModel *lm = l->model;
    Optim o;
    TrainFeed f;
    TrainResult r;
    optim_init(&o, lm->train.opt, lm->train.lr);
    train_feed_init(&f, &lm->train, m->cfg.ctx, m->cfg.vocab);
    Progress p = {.tty = isatty(STDERR_FILENO), .steps = steps, .next_line = steps / 10 > 0 ? steps / 10 : 1};
    struct sigaction sa = {0}, was;
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &was);
    clock_gettime(CLOCK_MONOTONIC, &p.t0);
    train_run(m, &o, &f, steps, progress_step, &p, &r);
    print_time(&p, &r);
    sigaction(SIGINT, &was, NULL);
    optim_free(&o);
    char msg[1024], shown[1024];
    if (r.status != TRAIN_OK) {
        train_result_message(m, &r, lm->train.lr, msg, sizeof msg);
        fprintf(stderr, "%s:%d:1: %s\n", text_shown(l->file, shown, sizeof shown), lm->train.line, msg);
        return 2;
    }
    if (!weights_write(out, lm, m, msg, sizeof msg)) {
        fprintf(stderr, "qkvtutor: %s\n", msg);
        return 1;
    }
    TrainEval e;
    print_start(lm, r.steps, steps);
    if (train_eval(m, &lm->train, &e)) {
        print_losses(&r, &e);
        print_scores(m, &e);
    }
    printf(_("wrote: %s\n"), text_shown(out, shown, sizeof shown));
    return 0;
}

int train_cli(Lesson *l, const char *out, long steps)
{
    if (!trainable(l))
        return 2;
    if (!can_write(out))
        return 1;
    Model *m = start_model(l->model);
    if (!m) {
        fprintf(stderr, "qkvtutor: %s\n", _("out of memory"));
        return 1;
    }
    int rc = train_and_write(l, m, out, steps > 0 ? steps : l->model->train.steps);
    model_free(m);
    free(m);
    return rc;
}
