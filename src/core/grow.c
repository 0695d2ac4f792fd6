/* grow.c - the one growable-buffer helper (see grow.h). */
#include "grow.h"

#include <stdlib.h>

bool grow_buf(void **buf, int *cap, int need, size_t sz)
{
    if (need <= *cap)
        return true;
    int n = *cap > 64 ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*buf, (size_t)n * sz);
    if (!q)
        return false;
    *buf = q;
    *cap = n;
    return true;
}
