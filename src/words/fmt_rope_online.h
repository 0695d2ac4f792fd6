/* fmt_rope_online.h - the arithmetic of today's models as text (fmt_rope_online.c),
 * called by fmt.c's explain writers:
 *   RoPE (EX_PROJ of Q or K with e->rope): the angle θ = p·B^(−2(m−1)/d_k)
 *   with cos and sin, then the turn x cos θ − y sin θ (or x sin θ + y cos θ);
 *   online softmax (EX_SOFTMAX / EX_OUTPUT with e->online): block by block
 *   the running max m, the sum l rescaled by exp(m_old − m_new), the
 *   running o, then the weights or o ÷ l.
 * Each line obeys the ≈ rule (fmt_eq). No curses, no session; it needs
 * only the explanation (core/explain.h) and the number printer (text/num.h). */
#ifndef QKV_FMT_ROPE_ONLINE_H
#define QKV_FMT_ROPE_ONLINE_H

#include "core/explain.h"
#include "text/num.h"

/* The θ line and the turn line into lines[0..1]; returns 2. */
int fmt_rope(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE]);
/* From lines[n] on, at most max lines in all: the blocks, then the weights.
 * Returns the number of lines now used. */
int fmt_online_softmax(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int n, int max);
/* The same for stage 5: the running o of the blocks, then o ÷ l. */
int fmt_online_output(const Explain *e, const FmtOpt *o, char lines[][FMT_LINE], int n, int max);

#endif
