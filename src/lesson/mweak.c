/* mweak.c - TEMPORARY weak stand-ins for lmodel.c's look-ups (the loader's
 * branch) until it is merged; the real ones override these. To be deleted
 * at that merge. */
#include "lmodel.h"

#include <string.h>

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
