/* mweak.c - TEMPORARY weak stand-ins for lmodel.c (loader) and traindata.c
 * (trainer) until those branches are merged; the real ones override these.
 * To be deleted at the merge. */
#include "lmodel.h"
#include "traindata.h"

#include <string.h>

#include "core/copytask.h"
#include "diag.h"

__attribute__((weak)) int lmodel_vocab_index(const LessonModel *lm, const char *name, int len)
{
    size_t n = len < 0 ? strlen(name) : (size_t)len;
    for (int k = 0; lm && k < lm->nvocab; k++)
        if (strlen(lm->vocab[k]) == n && memcmp(lm->vocab[k], name, n) == 0)
            return k;
    return -1;
}

__attribute__((weak)) int lmodel_vocab_near(const LessonModel *lm, const char *name, int len, const char **out,
                                            int max)
{
    char word[VOCAB_NAME_BYTES + 1];
    size_t n = len < 0 ? strlen(name) : (size_t)len;
    n = n > VOCAB_NAME_BYTES ? VOCAB_NAME_BYTES : n;
    memcpy(word, name, n);
    word[n] = '\0';
    int got = 0, dist[MODEL_VOCAB_MAX];
    for (int k = 0; lm && k < lm->nvocab; k++) {
        int d = diag_edit_distance(word, lm->vocab[k]), at = got < max ? got : max;
        while (at > 0 && dist[at - 1] > d)
            at--;
        if (at >= max)
            continue;
        for (int j = (got < max ? got : max - 1); j > at; j--)
            out[j] = out[j - 1], dist[j] = dist[j - 1];
        out[at] = lm->vocab[k];
        dist[at] = d;
        got += got < max;
    }
    return got;
}

__attribute__((weak)) void train_feed_init(TrainFeed *f, const TrainSpec *spec, int ctx, int vocab)
{
    f->spec = spec;
    f->ctx = ctx;
    f->vocab = vocab;
    f->batches = 0;
    rng_seed(&f->rng, (uint32_t)(spec ? spec->data_seed : 0));
}

__attribute__((weak)) bool train_feed_next(TrainFeed *f, int *tok, int *len, int *nseq)
{
    const TrainSpec *s = f->spec;
    CopySpan sp;
    long at = 0;
    for (int q = 0; q < s->batch; q++) {
        if (s->data == TDATA_COPY) {
            if (!copy_task_draw(&f->rng, f->ctx, f->vocab, s->lmin, s->lmax, tok + at, &sp))
                return false;
            len[q] = f->ctx;
        } else {
            long k = (f->batches * s->batch + q) % s->nseq, off = 0;
            for (long j = 0; j < k; j++)
                off += s->seq_len[j];
            len[q] = s->seq_len[k];
            memcpy(tok + at, s->seq_tok + off, sizeof(int) * (size_t)len[q]);
        }
        at += len[q];
    }
    *nseq = s->batch;
    f->batches++;
    return true;
}
