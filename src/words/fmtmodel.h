/* fmtmodel.h - a model cell's arithmetic written out (model_explain.h's
 * terms as lines), for the model lessons' view and --dump.
 *
 * fmt_model_explain() writes the lines a ModelExplain stands for, with
 * the lesson's digits and the screen's minus, e.g.
 *   L1.a[2][3] = (x − μ) ÷ σ · g + β = (0.410 − 0.077) ÷ 0.548 · 1.000 + 0.000 = 0.608
 *   L1.f[2][5] = gelu(u) = u · Φ(u) = 0.500 · 0.691 = 0.346
 *   logits[5][B] = h·w_U = (0.1)(0.2) + ... = 0.9
 *   p[5][B] = exp(z − max) ÷ Σ = exp(1.234 − 2.345) ÷ 3.456 = 0.095
 * Each "=" is judged as fmt.h's are: a result its printed operands do not
 * give reads " ≈ ". Token and vocab names are lesson text: sanitised. No
 * curses, no state. */
#ifndef QKV_FMTMODEL_H
#define QKV_FMTMODEL_H

#include "core/model_explain.h"
#include "text/num.h"

/* The lines for e (at most max, each FMT_LINE); vocab names the model's
 * vocab entries (NULL: indices). Returns the line count, 0 for MX_NONE
 * and MX_PARAM. */
int fmt_model_explain(const Model *m, const ModelExplain *e, const char *const *vocab, const FmtOpt *o,
                      char lines[][FMT_LINE], int max);
/* "L1.a[2][3]" (1-based; a logit's or p's column by its vocab name,
 * "p[5][B]"), the cell's name as the lines start it. */
void fmt_model_cell(const Model *m, ModelRef r, int i, int j, const char *const *vocab, bool ascii, char *buf,
                    size_t len);

#endif
