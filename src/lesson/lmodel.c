/* lmodel.c - a model lesson's vocab look-ups and its release (see
 * lmodel.h); reading it is modelload.c's. */
#include "lmodel.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "diag.h"

int lmodel_vocab_index(const LessonModel *lm, const char *name, int len)
{
    size_t n = len < 0 ? strlen(name) : (size_t)len;
    for (int k = 0; lm && k < lm->nvocab; k++)
        if (strlen(lm->vocab[k]) == n && memcmp(lm->vocab[k], name, n) == 0)
            return k;
    return -1;
}

/* How far name is from entry: 0 when they differ only in case, else the
 * edit distance (diag.h). */
static int distance(const char *name, const char *entry)
{
    if (strcasecmp(name, entry) == 0)
        return 0;
    return diag_edit_distance(name, entry);
}

int lmodel_vocab_near(const LessonModel *lm, const char *name, int len, const char **out, int max)
{
    char word[VOCAB_NAME_BYTES + 1];
    size_t n = len < 0 ? strlen(name) : (size_t)len;
    if (!lm || max <= 0)
        return 0;
    if (n > VOCAB_NAME_BYTES)
        n = VOCAB_NAME_BYTES;
    memcpy(word, name, n);
    word[n] = '\0';
    int best = 1 << 30, got = 0;
    for (int k = 0; k < lm->nvocab; k++) {
        int d = distance(word, lm->vocab[k]);
        if (d < best) {
            best = d;
            got = 0;
        }
        if (d == best && got < max)
            out[got++] = lm->vocab[k];
    }
    return got;
}

static void train_free(TrainSpec *t)
{
    free(t->seq_len);
    free(t->seq_tok);
    free(t->text_file);
}

void lmodel_free(LessonModel *lm)
{
    if (!lm)
        return;
    for (int k = 0; lm->vocab && k < lm->nvocab; k++)
        free(lm->vocab[k]);
    free(lm->vocab);
    free(lm->wfile);
    free(lm->wpath);
    if (lm->base) {
        model_free(lm->base);
        free(lm->base);
    }
    train_free(&lm->train);
    memset(lm, 0, sizeof *lm);
}
