/* action.c - parse the action language (see action.h); apply.c applies it, actiontext.c writes it back. */
#include "action.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "actionlex.h"
#include "diag.h"
#include "options.h"
#include "text/i18n.h"
#include "text/num.h"
#include "ref.h"
#include "text/text.h"
#include "core/grad.h"

/* Each row's action kind, from the option table's action column. */
#define OPTION_ACT(id_, key_, type_, words_, lo_, hi_, def_, flags_, act_, ...) [id_] = act_,
static const ActKind option_acts[OPT_COUNT] = {OPTION_ROWS(OPTION_ACT)};

ActKind option_act(const OptRow *r)
{
    return option_acts[r->id];
}

const OptRow *option_of_action(ActKind kind)
{
    for (int k = 0; k < OPT_COUNT; k++)
        if ((option_table[k].flags & OF_ACTION) && option_acts[k] == kind)
            return &option_table[k];
    return NULL;
}

double option_action_value(const OptRow *r, const Action *act)
{
    return r->type == OT_WORDS ? act->opt : r->type == OT_NUMBER ? act->c : act->n;
}


/* Is the reference name[0..len) (as written, with its index) a row of an
 * attention-weights matrix? Sets a->mat = M_A and a->head: 0-based for
 * "A1", "A2", ..., and -1 for a bare "A", which names no head: applying it
 * is refused in a lesson with 2 or more heads (as bare A is everywhere). */
static bool target_ref(const char *name, int len, Action *a)
{
    int n = 0;
    while (n < len && name[n] != '[' && name[n] != ' ' && name[n] != '\t')
        n++;
    if (n < 1 || name[0] != 'A')
        return false;
    int head = 0;
    for (int k = 1; k < n; k++) { /* "A2": head 2 */
        if (name[k] < '0' || name[k] > '9')
            return false;
        head = head < 100 ? head * 10 + (name[k] - '0') : head;
    }
    a->mat = M_A;
    a->head = n > 1 ? head - 1 : -1; /* bare A: no head named, which only a one-head lesson takes */
    return n == 1 || head >= 1;
}

/* A word option of the table (options.h): "scale = none|sqrt_dk",
 * "softmax = naive|stable|online", "mask = none|causal|window W",
 * "positions = none|sinusoidal|rope". */
static bool option(Lex *lx, Action *a, const OptRow *r)
{
    char q[80], list[64];
    const char *const *v = r->words;
    if (v[2])
        snprintf(list, sizeof list, "%s, %s or %s%s", v[0], v[1], v[2], (r->flags & OF_WIDTH) ? " W" : "");
    else
        snprintf(list, sizeof list, "%s or %s", v[0], v[1]);
    if (!lex_accept(lx, '='))
        return lex_fail(lx, lx->p, N_("expected \"=\" then %s"), list);
    const char *w;
    int n = lex_word(lx, &w);
    a->kind = option_act(r);
    a->opt = -1;
    for (int o = 0; o < 3; o++)
        if (v[o] && n == (int)strlen(v[o]) && strncmp(w, v[o], (size_t)n) == 0)
            a->opt = o;
    if (a->opt < 0) {
        char found[40];
        snprintf(found, sizeof found, "%.*s", n > 30 ? 30 : n, w);
        return lex_fail(lx, w, N_("expected %s, found %s"), list, lex_quote_word(n ? found : w, q, sizeof q));
    }
    if (a->kind == ACT_MASK && a->opt == MASK_WINDOW) {
        long long width;
        const char *at = (lex_skip_ws(lx), lx->p);
        if (!lex_count(lx, &width, N_("a window takes its width, the keys each query sees, like mask = window 2; "
                                  "found %s")))
            return false;
        if (width < 1 || width > MAT_MAX)
            return lex_fail(lx, at, N_("a window of %lld keys: write 1 to %d (each query sees itself and the keys "
                                   "just before it), like mask = window 2"), width, MAT_MAX);
        a->n = (int)width;
    }
    return lex_expect_end(lx, END_PLAIN);
}

/* "offset = k" or "block = B": a whole number in the row's range. */
static bool whole_option(Lex *lx, Action *a, const OptRow *r)
{
    ActKind kind = option_act(r);
    const char *name = r->key;
    long long lo = (long long)r->lo, hi = (long long)r->hi, v;
    a->kind = kind;
    if (!lex_accept(lx, '='))
        return lex_fail(lx, lx->p, N_("expected \"=\" then a whole number, like %s = %d"), name,
                    kind == ACT_OFFSET ? 3 : 2);
    const char *at = (lex_skip_ws(lx), lx->p);
    if (!lex_count(lx, &v, kind == ACT_OFFSET ? N_("offset takes the first token's position, a whole number from 0, "
                                               "like offset = 3; found %s")
                                          : N_("block takes the keys per block, a whole number from 1, like "
                                               "block = 2; found %s")))
        return false;
    if (v < lo || v > hi)
        return lex_fail(lx, at, N_("%s must be from %lld to %lld, found %lld"), name, lo, hi, v);
    a->n = (int)v;
    return lex_expect_end(lx, END_PLAIN);
}

/* "rope_base = B": RoPE's base, a finite number in its row's range. */
static bool rope_base(Lex *lx, Action *a)
{
    const OptRow *r = option_row(OPT_ROPE_BASE);
    char lo[SHORTEST_MAX];
    option_bounds(r, lo, NULL, sizeof lo);
    a->kind = ACT_ROPE_BASE;
    if (!lex_accept(lx, '='))
        return lex_fail(lx, lx->p, N_("expected \"=\" then a number above %s, like rope_base = 10000"), lo);
    const char *at = (lex_skip_ws(lx), lx->p);
    if (!lex_parse_number(lx, &a->c))
        return false;
    if (!option_in_range(r, a->c))
        return lex_fail(lx, at, N_("rope_base must be above %s (the angles are p / B^(2(m-1)/d_k)), found %.*s"), lo,
                    (int)(lx->p - at), at);
    return lex_expect_end(lx, END_PLAIN);
}

static bool row_list(Lex *lx, Action *a);

/* "append TOKEN [x1, ..., xd]": a token's name (no spaces, no "[", at most
 * ACTION_TOKEN_BYTES bytes) and its row of X. */
static bool append_token(Lex *lx, Action *a)
{
    char q[40];
    a->kind = ACT_APPEND;
    lex_skip_ws(lx);
    const char *at = lx->p;
    while (*lx->p && *lx->p != ' ' && *lx->p != '\t' && *lx->p != '[')
        lx->p++;
    size_t n = (size_t)(lx->p - at);
    if (n == 0)
        return lex_fail(lx, at, N_("append takes a token and its row of X, like append cat [1, 0, 0, 1]; found %s"),
                    lex_quote_word(at, q, sizeof q));
    if (n > ACTION_TOKEN_BYTES)
        return lex_fail(lx, at, N_("the token is longer than %d bytes, shorten it"), ACTION_TOKEN_BYTES);
    memcpy(a->word, at, n);
    a->word[n] = '\0';
    if (!lex_accept(lx, '['))
        return lex_fail(lx, lx->p, N_("expected the token's row of X after it, like append %s [1, 0, 0, 1]; found %s"),
                    a->word, lex_quote_word(lx->p, q, sizeof q));
    return row_list(lx, a);
}

/* "temperature = T", T in its row's range. */
static bool temperature(Lex *lx, Action *a)
{
    const OptRow *r = option_row(OPT_TEMP);
    char lo[SHORTEST_MAX], hi[SHORTEST_MAX];
    option_bounds(r, lo, hi, sizeof lo);
    if (!lex_accept(lx, '='))
        return lex_fail(lx, lx->p, N_("expected \"=\" then a temperature from %s to %s, like temperature = 0.5"), lo, hi);
    lex_skip_ws(lx);
    const char *at = lx->p;
    a->kind = ACT_TEMP;
    if (!lex_parse_number(lx, &a->c))
        return false;
    if (!option_in_range(r, a->c))
        return lex_fail(lx, at, N_("the temperature must be from %s to %s, found %.*s"), lo, hi, (int)(lx->p - at), at);
    return lex_expect_end(lx, END_PLAIN);
}

/* "swap i j": trade two tokens. */
static bool swap(Lex *lx, Action *a)
{
    a->kind = ACT_SWAP;
    if (!lex_token_number(lx, &a->i) || !lex_token_number(lx, &a->src_i))
        return false;
    return lex_expect_end(lx, END_PLAIN);
}


/* "step" or "step N": N gradient steps, 1..GRAD_STEP_MAX. */
static bool parse_step(Lex *lx, Action *a)
{
    a->kind = ACT_STEP;
    a->n = 1;
    lex_skip_ws(lx);
    if (*lx->p == '\0')
        return true;
    const char *at = lx->p;
    long long v;
    if (!lex_count(lx, &v, N_("step takes a whole number of steps from 1 to 10000, like step 10; found %s")))
        return false;
    if (v < 1 || v > GRAD_STEP_MAX) {
        char digits[32];
        return lex_fail(lx, at, N_("step takes 1 to %d steps, found %s"), GRAD_STEP_MAX,
                    num_whole_text(at, (size_t)(lx->p - at), digits, sizeof digits));
    }
    a->n = (int)v;
    return lex_expect_end(lx, END_PLAIN);
}

/* "lr = x": the learning rate, a finite number above 0. */
static bool learning_rate(Lex *lx, Action *a)
{
    a->kind = ACT_LR;
    if (!lex_accept(lx, '='))
        return lex_fail(lx, lx->p, N_("expected \"=\" then the learning rate, like lr = 0.5"));
    lex_skip_ws(lx);
    const char *at = lx->p;
    const char *w;
    const OptRow *r = option_row(OPT_LR);
    char lo[SHORTEST_MAX];
    option_bounds(r, lo, NULL, sizeof lo);
    int wn = lex_word(lx, &w);
    lx->p = at;
    if ((wn == 3 && (strncasecmp(w, "nan", 3) == 0 || strncasecmp(w, "inf", 3) == 0)) ||
        (wn == 8 && strncasecmp(w, "infinity", 8) == 0))
        return lex_fail(lx, at, N_("lr must be a finite number above %s, like lr = 0.5; found %.*s"), lo, wn, w);
    if (!lex_parse_number(lx, &a->c))
        return false;
    if (!option_in_range(r, a->c)) {
        char v[40];
        fmt_exact(a->c, v, sizeof v);
        return lex_fail(lx, at, N_("lr must be above %s (each step moves W by -lr times the gradient), found %s"), lo, v);
    }
    return lex_expect_end(lx, END_PLAIN);
}

/* A list of numbers after its "[": "a, b, c]" into a->vals, then the end. */
static bool row_list(Lex *lx, Action *a)
{
    a->n = 0;
    do {
        if (a->n == MAT_MAX)
            return lex_fail(lx, lx->p, N_("a row has at most 64 numbers"));
        if (!lex_parse_number(lx, &a->vals[a->n++]))
            return false;
    } while (lex_accept(lx, ','));
    if (!lex_accept(lx, ']'))
        return lex_fail(lx, lx->p, N_("expected \",\" and a number, or \"]\" to close the row"));
    return lex_expect_end(lx, END_PLAIN);
}

/* "target A[i] = j", "target A[i] = [t1, ..., tn]" or "target A[i] = none". */
static bool target(Lex *lx, Action *a)
{
    const char *at, *w;
    int j;
    a->kind = ACT_TARGET;
    lex_skip_ws(lx);
    if (!lex_ref(lx, false, &a->mat, &a->i, &j, &at))
        return false;
    if (!target_ref(at, (int)(lx->p - at), a))
        return lex_fail(lx, at, N_("a target is a row of the attention weights, like target A[1] = 3; found %.*s"),
                    (int)(lx->p - at), at);
    if (j >= 0)
        return lex_fail(lx, at, N_("a target is a whole row of A, like target A[1] = 3 (all of row 1's weight on key "
                               "3), not a cell"));
    if (a->head == -1 && lx->shape && attn_heads(lx->shape) > 1)
        return lex_fail(lx, at, N_("A is one per head in a lesson with %d heads: write A1 to A%d"),
                    attn_heads(lx->shape), attn_heads(lx->shape));
    if (!lex_accept(lx, '='))
        return lex_fail(lx, lx->p, N_("expected \"=\" then a key number, a list like [0, 0.5, 0.5], or none"));
    lex_skip_ws(lx);
    if (*lx->p == '[') {
        lx->p++;
        a->opt = TARGET_DIST;
        return row_list(lx, a);
    }
    int n = lex_word(lx, &w);
    if (n == 4 && strncmp(w, "none", 4) == 0) {
        a->opt = TARGET_NONE;
        return lex_expect_end(lx, END_PLAIN);
    }
    lx->p = w;
    long long v;
    if (!lex_count(lx, &v, N_("expected a key number from 1, a list like [0, 0.5, 0.5], or none; found %s")))
        return false;
    if (v == 0)
        return lex_fail(lx, w, N_("keys are numbered from 1"));
    if (v > MAT_MAX) {
        char digits[32];
        return lex_fail(lx, w, N_("key %s is out of range: a lesson has at most %d tokens"),
                    num_whole_text(w, (size_t)(lx->p - w), digits, sizeof digits), MAT_MAX);
    }
    a->opt = TARGET_KEY;
    a->j = (int)v - 1;
    return lex_expect_end(lx, END_PLAIN);
}

/* The right-hand side of a row target: "[a, b]" or "N[j]" or "N[j] * c". */
static bool row_rhs(Lex *lx, Action *a)
{
    lex_skip_ws(lx);
    if (*lx->p == '[') {
        lx->p++;
        a->kind = ACT_ROW_SET;
        return row_list(lx, a);
    }
    int j;
    const char *at;
    if (isdigit((unsigned char)*lx->p) || *lx->p == '-' || *lx->p == '.' || strncmp(lx->p, NUM_MINUS, 3) == 0)
        return lex_fail(lx, lx->p,
                    N_("a row takes a list [a, b, c] or another row like K[1]; for one cell write M[i][j] = c"));
    a->kind = ACT_ROW_COPY;
    a->c = 1;
    if (!lex_ref(lx, false, &a->src, &a->src_i, &j, &at))
        return false;
    if (j >= 0)
        return lex_fail(lx, at, N_("a row can only be copied from a row, like K[1], not a cell"));
    if (!lex_accept(lx, '*'))
        return lex_expect_end(lx, END_ROW_COPY);
    if (!lex_parse_number(lx, &a->c))
        return false;
    return lex_expect_end(lx, END_FACTOR);
}

/* The words of today's models: the parse's result (0 or 1), or -1 when w
 * is none of them. */
static int modern_word(Lex *lx, const char *w, int n, Action *out)
{
    if (n == 6 && strncmp(w, "append", 6) == 0)
        return append_token(lx, out);
    if (n == 8 && strncmp(w, "kv_heads", 8) == 0)
        return lex_fail(lx, w, N_("kv_heads is the shape of W_K and W_V, set when the lesson loads: write kv_heads: "
                              "in the lesson file, not as an action"));
    return -1;
}

/* An option of the table set by an action: its words, or a number with
 * its own checks (temperature, rope_base, lr), or a whole number. */
static bool option_action(Lex *lx, Action *a, const OptRow *r)
{
    if (r->type == OT_WORDS)
        return option(lx, a, r);
    if (r->type == OT_WHOLE)
        return whole_option(lx, a, r);
    return r->id == OPT_TEMP ? temperature(lx, a) : r->id == OPT_LR ? learning_rate(lx, a) : rope_base(lx, a);
}

/* The action words besides the options' (options.h), for "did you mean". */
static const char *const other_words[] = {"swap", "target", "step", "reset", "append"};

/* A word that is neither an action nor followed by "[" (so not meant as a
 * matrix): name it an unknown action, with the closest word and the list. */
static bool unknown_action(Lex *lx, const char *w, int n)
{
    char name[40];
    snprintf(name, sizeof name, "%.*s", n > 30 ? 30 : n, w);
    const char *words[OPT_COUNT + sizeof other_words / sizeof *other_words];
    int nw = 0;
    for (int k = 0; k < OPT_COUNT; k++)
        if (option_table[k].flags & OF_ACTION)
            words[nw++] = option_table[k].key;
    for (size_t k = 0; k < sizeof other_words / sizeof *other_words; k++)
        words[nw++] = other_words[k];
    const char *near = diag_suggest(name, words, nw);
    const char *list = "M[i] = [a, b], M[i] = N[j] * c, M[i][j] = c, scale =, softmax =, mask =, temperature =, "
                       "positions =, swap i j, target A[i] = j, lr =, step N, reset, append, offset =, block =";
    if (near)
        return lex_fail(lx, w, N_("unknown action \"%s\" (did you mean \"%s\"?); the actions are %s"), name, near, list);
    return lex_fail(lx, w, N_("unknown action \"%s\"; the actions are %s"), name, list);
}

bool action_parse(const char *text, Action *out, char *err, size_t errlen, int *errcol)
{
    return action_parse_in(text, NULL, out, err, errlen, errcol);
}

bool action_parse_in(const char *text, const Attn *shape, Action *out, char *err, size_t errlen, int *errcol)
{
    Lex lx = {text, text, err, errlen, errcol, shape};
    memset(out, 0, sizeof *out);
    const char *w;
    int n = lex_word(&lx, &w);
    if (n == 5 && strncmp(w, "reset", 5) == 0) {
        out->kind = ACT_RESET;
        return lex_expect_end(&lx, END_PLAIN);
    }
    const OptRow *opt = option_by_word(w, n);
    if (opt && (opt->flags & OF_ACTION))
        return option_action(&lx, out, opt);
    if (n == 4 && strncmp(w, "swap", 4) == 0)
        return swap(&lx, out);
    if (n == 6 && strncmp(w, "target", 6) == 0)
        return target(&lx, out);
    if (n == 4 && strncmp(w, "step", 4) == 0)
        return parse_step(&lx, out);
    int modern = modern_word(&lx, w, n, out);
    if (modern >= 0)
        return modern;
    if (n == 0 && *lx.p == '\0')
        return lex_fail(&lx, lx.p, N_("empty action, expected e.g. Q[1] = K[1] * 5, scale = sqrt_dk or reset"));
    if (n > 0 && !isdigit((unsigned char)*w)) {
        Ref r;
        ref_scan(w, &r);
        lex_skip_ws(&lx);
        if (ref_matrix(&r) == REF_UNKNOWN && *lx.p != '[')
            return unknown_action(&lx, w, n);
    }
    lx.p = text;
    const char *at;
    if (!lex_ref(&lx, true, &out->mat, &out->i, &out->j, &at))
        return false;
    if (!lex_is_target(out->mat)) {
        char list[256];
        return lex_fail(&lx, at, N_("%s is computed by the pipeline; change %s instead"), attn_mat_name(out->mat),
                    ref_matrix_list(shape, true, list, sizeof list));
    }
    const char *ref_end = lx.p;
    if (!lex_accept(&lx, '=')) {
        char q[80];
        return lex_fail(&lx, lx.p, N_("expected \"=\" after %.*s, found %s"), (int)(ref_end - at), at,
                    lex_quote_word(lx.p, q, sizeof q));
    }
    if (*lx.p == '=')
        return lex_fail(&lx, lx.p - 1, N_("\"==\" compares; an action sets a value with one \"=\", like %s = K[2]"),
                    out->j < 0 ? "Q[1]" : "Q[1][2]");
    if (out->j < 0)
        return row_rhs(&lx, out);
    out->kind = ACT_CELL_SET;
    if (!lex_parse_number(&lx, &out->c))
        return false;
    return lex_expect_end(&lx, END_PLAIN);
}
