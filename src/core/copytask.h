/* copytask.h - the copy task's sequences (DESIGN.md "Trained here"), the
 * data an induction head forms on.
 *
 * A sequence of n tokens: tok[0] = 0 (the vocab's first entry, <s>), then
 * a body of n - 1 random symbols in which one segment of L symbols appears
 * again at a random later place. Drawn from one numpy-legacy stream r, in
 * this order (numpy: r = RandomState(seed); each line one call):
 *   L    = r.randint(lmin, lmax + 1)         (clamped so that 2L <= n - 1)
 *   body = r.randint(1, vocab, size=n - 1)   (symbols 1 .. vocab-1, never <s>)
 *   a    = r.randint(0, n - 1 - 2L + 1)      (the segment's first place)
 *   b    = r.randint(a + L, n - 1 - L + 1)   (its copy: after the segment ends)
 *   body[b + k] = body[a + k] for k = 0 .. L-1
 * tok[1 + j] = body[j]. So the copy starts at any offset its length allows,
 * and the previous-token head forms at every position. No I/O, no globals. */
#ifndef QKV_COPYTASK_H
#define QKV_COPYTASK_H

#include <stdbool.h>
#include "rng.h"

typedef struct {
    int a, b, len;      /* the segment at body[a..a+len), its copy at body[b..b+len) */
} CopySpan;

/* Draw one sequence of n tokens (n >= 3, vocab >= 2, 1 <= lmin <= lmax)
 * into tok. false when no segment fits (n - 1 < 2 lmin). */
bool copy_task_draw(Rng *r, int n, int vocab, int lmin, int lmax, int *tok, CopySpan *span);

#endif
