/* traindata.c - the batches of a train: section (see traindata.h).
 *
 * sequences: the list's sequences that fit the model (2 .. ctx tokens,
 * every token in the vocab) are the ones used, taken round: the j-th
 * sequence handed out (j = 0, 1, ... over every batch) is fitting
 * sequence j mod F. text: the tokens of every stored sequence, one after
 * another, cut into pieces of ctx (the last may be shorter; one shorter
 * than 2 is left out), then taken round as sequences are. A loader that
 * already cut the text into pieces of ctx gives the same pieces. */
#include "traindata.h"

#include "core/copytask.h"

void train_feed_init(TrainFeed *f, const TrainSpec *spec, int ctx, int vocab)
{
    f->spec = spec;
    f->ctx = ctx;
    f->vocab = vocab;
    f->batches = 0;
    rng_seed(&f->rng, (uint32_t)(spec ? spec->data_seed : 0));
}

static bool copy_next(TrainFeed *f, int *tok, int *len, int *nseq)
{
    const TrainSpec *s = f->spec;
    CopySpan sp;
    for (int q = 0; q < s->batch; q++) {
        if (!copy_task_draw(&f->rng, f->ctx, f->vocab, s->lmin, s->lmax, tok + (long)q * f->ctx, &sp))
            return false;
        len[q] = f->ctx;
    }
    *nseq = s->batch;
    return true;
}

/* Does stored sequence k fit the model (sequences: as a whole)? */
static bool seq_fits(const TrainFeed *f, const int *t, int n)
{
    if (n < 2 || n > f->ctx)
        return false;
    for (int i = 0; i < n; i++)
        if (t[i] < 0 || t[i] >= f->vocab)
            return false;
    return true;
}

/* The pieces a feed takes round: piece k is tokens [off, off + n) of
 * seq_tok. sequences: the fitting stored sequences; text: the stream's
 * pieces of ctx. Calls each(piece, off, n, arg) for every piece in order
 * until it returns false; returns how many pieces were visited. */
typedef bool (*PieceFn)(long k, long off, int n, void *arg);

static long pieces(const TrainFeed *f, PieceFn each, void *arg)
{
    const TrainSpec *s = f->spec;
    long k = 0, off = 0, total = 0;
    if (s->data == TDATA_TEXT) {
        for (int q = 0; q < s->nseq; q++)
            total += s->seq_len[q];
        for (long at = 0; at < total; at += f->ctx) {
            int n = (int)(total - at < f->ctx ? total - at : f->ctx);
            if (n < 2 || !seq_fits(f, s->seq_tok + at, n))
                continue;
            if (each && !each(k, at, n, arg))
                return k + 1;
            k++;
        }
        return k;
    }
    for (int q = 0; q < s->nseq; off += s->seq_len[q], q++) {
        if (!seq_fits(f, s->seq_tok + off, s->seq_len[q]))
            continue;
        if (each && !each(k, off, s->seq_len[q], arg))
            return k + 1;
        k++;
    }
    return k;
}

typedef struct {
    const TrainFeed *f;
    long first, count, want; /* pieces first .. first + want - 1 (mod count) */
    long taken;
    int *len;
    int slot[TRAIN_BATCH_MAX]; /* which batch place piece first + j fills: j */
} Gather;

static bool gather_one(long k, long off, int n, void *arg)
{
    Gather *g = arg;
    /* piece k fills every batch place j with (first + j) mod count == k */
    for (long j = (k - g->first % g->count + g->count) % g->count; j < g->want; j += g->count) {
        g->len[j] = n;
        g->slot[j] = (int)off;
        g->taken++;
    }
    return g->taken < g->want;
}

static bool list_next(TrainFeed *f, int *tok, int *len, int *nseq)
{
    const TrainSpec *s = f->spec;
    long count = pieces(f, NULL, NULL);
    if (count == 0 || s->batch < 1 || s->batch > TRAIN_BATCH_MAX)
        return false;
    Gather g = {.f = f, .count = count, .want = s->batch, .len = len};
    g.first = (long)((f->batches * (long)s->batch) % count);
    (void)pieces(f, gather_one, &g);
    long at = 0;
    for (int j = 0; j < s->batch; j++) {
        for (int i = 0; i < len[j]; i++)
            tok[at + i] = s->seq_tok[g.slot[j] + i];
        at += len[j];
    }
    *nseq = s->batch;
    return true;
}

long train_feed_count(const TrainFeed *f)
{
    if (!f->spec || f->spec->data == TDATA_COPY)
        return -1;
    return pieces(f, NULL, NULL);
}

bool train_feed_next(TrainFeed *f, int *tok, int *len, int *nseq)
{
    *nseq = 0;
    const TrainSpec *s = f->spec;
    if (!s || s->batch < 1 || s->batch > TRAIN_BATCH_MAX || f->ctx < 2 || f->vocab < 2)
        return false;
    bool ok = s->data == TDATA_COPY ? copy_next(f, tok, len, nseq) : list_next(f, tok, len, nseq);
    if (ok)
        f->batches++;
    else
        *nseq = 0;
    return ok;
}
