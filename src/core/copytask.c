/* copytask.c - the copy task's sequences (see copytask.h). */
#include "copytask.h"

bool copy_task_draw(Rng *r, int n, int vocab, int lmin, int lmax, int *tok, CopySpan *span)
{
    int body = n - 1;
    if (n < 3 || vocab < 2 || lmin < 1 || lmax < lmin || body < 2 * lmin)
        return false;
    int len = (int)rng_randint(r, lmin, lmax + 1);
    if (2 * len > body)
        len = body / 2;
    tok[0] = 0;
    for (int j = 0; j < body; j++)
        tok[1 + j] = (int)rng_randint(r, 1, vocab);
    int a = (int)rng_randint(r, 0, body - 2 * len + 1);
    int b = (int)rng_randint(r, a + len, body - len + 1);
    for (int k = 0; k < len; k++)
        tok[1 + b + k] = tok[1 + a + k];
    *span = (CopySpan){a, b, len};
    return true;
}
