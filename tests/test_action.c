/* test_action.c - the action language: every form parsed, formatted and
 * applied, every error message with its column, and failed applies that
 * leave the state untouched. The state is tutorial A (REFERENCE.md). */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/action.h"
#include "lesson/lesson.h"
#include "text/num.h"
#include "lesson/ref.h"

#define TUTORIAL_A "format: qkvtutor/1\n" \
                   "tokens: [我, love, 猫]\n" \
                   "X:\n" \
                   "  - [1, 0, 0, 0]\n" \
                   "  - [0, 1, 0, 0]\n" \
                   "  - [0, 0, 1, 0.2]\n" \
                   "weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\n" \
                   "options: {scale: none, softmax: naive}\n"

/* One token, one feature, d_k = d_v = 1: for the singular messages. */
#define TINY "format: qkvtutor/1\n" \
             "tokens: [a]\n" \
             "X: [[2]]\n" \
             "weights: {Wq: [[1]], Wk: [[1]], Wv: [[1]]}\n"

/* numpy, tutorial A: Q, K = X @ Wq, X @ Wk (%.17g). */
static const double q_ref[] = {0.14901424590336979, -0.041479290351355398, 0.19430656143020775,
                               0.45690895692240757, -0.070246012417000792, -0.070241087084754156,
                               0.50631744726737526, 0.2024253571771249, -0.16878610099470104};
static const double k_ref[] = {0.072588681469810235, -0.57398407339733937, -0.51747534975390985,
                               -0.16868625877229179, -0.30384933610032711, 0.09427419977858216,
                               -0.28595380068555537, -0.41963941811931199, 0.35420973950365875};

typedef struct {
    Lesson l;
    Attn a;
} Fix;

static char err[256];

static int load_into(Fix *f, const char *yaml)
{
    char e[LESSON_ERR_MAX];
    if (!lesson_load_buffer("t.yaml", yaml, strlen(yaml), &f->l, e, sizeof e)) {
        print_error("%s\n", e);
        return -1;
    }
    return lesson_base(&f->l, &f->a) ? 0 : -1;
}

/* Load tutorial A and build its starting state (nothing reached). */
static int setup(void **state)
{
    Fix *f = calloc(1, sizeof *f);
    *state = f;
    return f ? load_into(f, TUTORIAL_A) : -1;
}

static int setup_tiny(void **state)
{
    Fix *f = calloc(1, sizeof *f);
    *state = f;
    return f ? load_into(f, TINY) : -1;
}

static int teardown(void **state)
{
    Fix *f = *state;
    if (f) {
        attn_free(&f->a);
        lesson_free(&f->l);
    }
    free(f);
    return 0;
}

/* Parse text, failing the test with the parser's message when it is refused. */
#define parse_ok(text, act) parse_ok_at((text), (act), __FILE__, __LINE__)
static void parse_ok_at(const char *text, Action *act, const char *file, int line)
{
    int col = -7;
    err[0] = '\0';
    if (!action_parse(text, act, err, sizeof err, &col)) {
        print_error("action_parse(\"%s\") failed at column %d: %s\n", text, col, err);
        _fail(file, line);
    }
}

/* Parsing text must fail with exactly `want` at 1-based column `wantcol`. */
#define assert_parse_error(text, want, wantcol) \
    assert_parse_error_at((text), (want), (wantcol), __FILE__, __LINE__)
static void assert_parse_error_at(const char *text, const char *want, int wantcol, const char *file, int line)
{
    Action act;
    int col = -7;
    err[0] = '\0';
    if (action_parse(text, &act, err, sizeof err, &col)) {
        print_error("action_parse(\"%s\") succeeded, expected: %s\n", text, want);
        _fail(file, line);
    }
    if (strcmp(err, want) != 0 || col != wantcol) {
        print_error("action_parse(\"%s\"):\n  got      %d: %s\n  expected %d: %s\n", text, col, err, wantcol, want);
        _fail(file, line);
    }
}

/* Two actions say the same thing (the fields that matter for their kind). */
#define assert_action_equal(x, y) assert_action_equal_at((x), (y), __FILE__, __LINE__)
static void assert_action_equal_at(const Action *x, const Action *y, const char *file, int line)
{
    bool same = x->kind == y->kind;
    switch (same ? x->kind : ACT_RESET) {
    case ACT_ROW_COPY:
        same = x->mat == y->mat && x->i == y->i && x->src == y->src && x->src_i == y->src_i && x->c == y->c;
        break;
    case ACT_ROW_SET:
        same = x->mat == y->mat && x->i == y->i && x->n == y->n &&
               memcmp(x->vals, y->vals, sizeof(double) * (size_t)x->n) == 0;
        break;
    case ACT_CELL_SET:
        same = x->mat == y->mat && x->i == y->i && x->j == y->j && x->c == y->c;
        break;
    case ACT_SCALE:
    case ACT_SOFTMAX:
    case ACT_MASK:
    case ACT_POS:
        same = x->opt == y->opt;
        break;
    case ACT_TEMP:
        same = x->c == y->c;
        break;
    case ACT_SWAP:
        same = x->i == y->i && x->src_i == y->src_i;
        break;
    case ACT_RESET:
        break;
    default: /* the training actions (test_train.c): their text says it all */
        if (same) {
            char a[512], b[512];
            action_format(x, a, sizeof a);
            action_format(y, b, sizeof b);
            same = strcmp(a, b) == 0;
        }
        break;
    }
    if (!same) {
        char a[512], b[512];
        action_format(x, a, sizeof a);
        action_format(y, b, sizeof b);
        print_error("actions differ: \"%s\" (kind %d) vs \"%s\" (kind %d)\n", a, x->kind, b, y->kind);
        _fail(file, line);
    }
}


/* Apply text to a, failing the test with the message when refused. */
#define apply_ok(a, text) apply_ok_at((a), (text), __FILE__, __LINE__)
static void apply_ok_at(Attn *a, const char *text, const char *file, int line)
{
    Action act;
    parse_ok_at(text, &act, file, line);
    err[0] = '\0';
    if (!action_apply(a, &act, err, sizeof err)) {
        print_error("action_apply(\"%s\"): %s\n", text, err);
        _fail(file, line);
    }
}

/* Applying text must fail with exactly `want` and leave the state as it was. */
#define assert_apply_error(a, text, want) assert_apply_error_at((a), (text), (want), __FILE__, __LINE__)
static void assert_apply_error_at(Attn *a, const char *text, const char *want, const char *file, int line)
{
    Action act;
    Attn copy = {0};
    parse_ok_at(text, &act, file, line);
    if (!attn_copy(&copy, a)) {
        print_error("out of memory\n");
        _fail(file, line);
    }
    err[0] = '\0';
    bool ok = action_apply(a, &act, err, sizeof err);
    if (ok || strcmp(err, want) != 0) {
        print_error("action_apply(\"%s\") %s: %s\n  expected the error: %s\n", text,
                    ok ? "succeeded" : "failed", err, want);
        attn_free(&copy);
        _fail(file, line);
    }
    assert_attn_same_at(a, &copy, file, line);
    attn_free(&copy);
}

/* Cross-attention (lesson 16's shape): 2 target tokens over a source of 3,
 * the last a padding key. */
#define CROSS "format: qkvtutor/1\n" \
              "tokens: [cat, sleeps]\n" \
              "X: [[1, 0, 0, 0], [0, 1, 0, 0]]\n" \
              "source: [猫, 睡, <pad>]\n" \
              "Xs: [[0, 0, 1, 0], [0, 0, 0, 1], [0.5, 0.5, 0.5, 0.5]]\n" \
              "attention: cross\n" \
              "pad: [0, 0, 1]\n" \
              "weights:\n  Wq: [[2, 0], [0.5, 1], [0, 0], [0, 0]]\n  Wk: [[0, 0], [0, 0], [1, 0], [0, 1]]\n" \
              "  Wv: [[0, 0], [0, 0], [1, 0.5], [0, 1]]\n"

static int setup_cross(void **state)
{
    Fix *f = calloc(1, sizeof *f);
    *state = f;
    return f ? load_into(f, CROSS) : -1;
}

/* ---- parsing: every form ------------------------------------------------ */

/* Row copies, with and without a factor (negative, Unicode minus). */
static void parse_row_copy(void **state)
{
    (void)state;
    Action a;
    parse_ok("Q[1] = K[1]", &a);
    assert_int_equal(a.kind, ACT_ROW_COPY);
    assert_int_equal(a.mat, M_Q);
    assert_int_equal(a.i, 0);
    assert_int_equal(a.j, -1);
    assert_int_equal(a.src, M_K);
    assert_int_equal(a.src_i, 0);
    assert_near(a.c, 1.0, 0);

    parse_ok("Q[1] = K[1] * 5", &a);
    assert_int_equal(a.kind, ACT_ROW_COPY);
    assert_int_equal(a.src, M_K);
    assert_near(a.c, 5.0, 0);

    parse_ok("Q[1] = K[1] * -0.5", &a);
    assert_near(a.c, -0.5, 0);

    parse_ok("V[3] = Q[2] * \xe2\x88\x92" "2.5e-1", &a);   /* U+2212 minus */
    assert_int_equal(a.mat, M_V);
    assert_int_equal(a.i, 2);
    assert_int_equal(a.src, M_Q);
    assert_int_equal(a.src_i, 1);
    assert_near(a.c, -0.25, 0);

    parse_ok("K[2] = A[3]", &a);   /* computed matrices may be read */
    assert_int_equal(a.src, M_A);
    assert_int_equal(a.src_i, 2);
}

/* A row written out: X[2] = [1, 2, 3, 4]. */
static void parse_row_set(void **state)
{
    (void)state;
    Action a;
    parse_ok("X[2] = [1, 2, 3, 4]", &a);
    assert_int_equal(a.kind, ACT_ROW_SET);
    assert_int_equal(a.mat, M_X);
    assert_int_equal(a.i, 1);
    assert_int_equal(a.n, 4);
    const double want[] = {1, 2, 3, 4};
    for (int k = 0; k < 4; k++)
        assert_near(a.vals[k], want[k], 0);

    parse_ok("Q[3] = [\xe2\x88\x92" "1, +.5, 2e3]", &a);
    assert_int_equal(a.n, 3);
    assert_near(a.vals[0], -1, 0);
    assert_near(a.vals[1], 0.5, 0);
    assert_near(a.vals[2], 2000, 0);

    parse_ok("X[1] = [7]", &a);
    assert_int_equal(a.n, 1);

    /* 64 numbers fit, the row limit */
    char text[512] = "X[1] = [";
    for (int k = 0; k < MAT_MAX; k++)
        strcat(text, k ? ", 1" : "1");
    strcat(text, "]");
    parse_ok(text, &a);
    assert_int_equal(a.n, MAT_MAX);
}

/* One cell: Wq[1][2] = 0.25, Q[1][3] = −2 with U+2212. */
static void parse_cell_set(void **state)
{
    (void)state;
    Action a;
    parse_ok("Wq[1][2] = 0.25", &a);
    assert_int_equal(a.kind, ACT_CELL_SET);
    assert_int_equal(a.mat, M_WQ);
    assert_int_equal(a.i, 0);
    assert_int_equal(a.j, 1);
    assert_near(a.c, 0.25, 0);

    parse_ok("Q[1][3] = \xe2\x88\x92" "2", &a);
    assert_int_equal(a.kind, ACT_CELL_SET);
    assert_int_equal(a.mat, M_Q);
    assert_int_equal(a.i, 0);
    assert_int_equal(a.j, 2);
    assert_near(a.c, -2, 0);

    parse_ok("Wv[4][3] = -1e-3", &a);
    assert_int_equal(a.mat, M_WV);
    assert_int_equal(a.i, 3);
    assert_int_equal(a.j, 2);
    assert_near(a.c, -0.001, 0);

    parse_ok("Wk[12][34] = 5.", &a);   /* indices are checked when applied */
    assert_int_equal(a.i, 11);
    assert_int_equal(a.j, 33);
    assert_near(a.c, 5, 0);
}

/* scale, softmax and reset. */
static void parse_options_and_reset(void **state)
{
    (void)state;
    Action a;
    parse_ok("scale = none", &a);
    assert_int_equal(a.kind, ACT_SCALE);
    assert_int_equal(a.opt, SCALE_NONE);
    parse_ok("scale = sqrt_dk", &a);
    assert_int_equal(a.kind, ACT_SCALE);
    assert_int_equal(a.opt, SCALE_SQRT_DK);
    parse_ok("softmax = naive", &a);
    assert_int_equal(a.kind, ACT_SOFTMAX);
    assert_int_equal(a.opt, SOFTMAX_NAIVE);
    parse_ok("softmax = stable", &a);
    assert_int_equal(a.kind, ACT_SOFTMAX);
    assert_int_equal(a.opt, SOFTMAX_STABLE);
    parse_ok("reset", &a);
    assert_int_equal(a.kind, ACT_RESET);
}

/* Spaces and tabs may appear anywhere between tokens, or not at all. */
static void parse_whitespace(void **state)
{
    (void)state;
    Action want, a;
    parse_ok("Q[1] = K[1] * 5", &want);
    parse_ok("Q[1]=K[1]*5", &a);
    assert_action_equal(&a, &want);
    parse_ok("  Q [ 1 ]  =  K [ 1 ]  *  5  ", &a);
    assert_action_equal(&a, &want);
    parse_ok("\tQ[1]\t=\tK[1]\t*\t5\t", &a);
    assert_action_equal(&a, &want);

    parse_ok("Wq[1][2] = 0.25", &want);
    parse_ok("Wq [1] [2]=0.25 ", &a);
    assert_action_equal(&a, &want);

    parse_ok("X[2] = [1, 2, 3, 4]", &want);
    parse_ok("X[2]=[1,2,3,4]", &a);
    assert_action_equal(&a, &want);
    parse_ok(" X[2] = [ 1 ,2 , 3,4 ] ", &a);
    assert_action_equal(&a, &want);

    parse_ok("scale = sqrt_dk", &want);
    parse_ok("scale=sqrt_dk", &a);
    assert_action_equal(&a, &want);
    parse_ok("\tscale\t=  sqrt_dk  ", &a);
    assert_action_equal(&a, &want);

    parse_ok("  reset\t", &a);
    assert_int_equal(a.kind, ACT_RESET);
}

/* action_format writes the canonical text, and parsing it gives the action back. */
static void format_round_trip(void **state)
{
    (void)state;
    static const struct { const char *in, *canon; } cases[] = {
        {"Q[1] = K[1]", "Q[1] = K[1]"},
        {"Q[1]=K[1]*1", "Q[1] = K[1]"},
        {"Q[1] = K[1] * 5", "Q[1] = K[1] * 5"},
        {"Q[1] = K[1] * -0.5", "Q[1] = K[1] * -0.5"},
        {"V[2] = O[3] * \xe2\x88\x92" "3", "V[2] = O[3] * -3"},
        {"X[2] = [1, 2, 3, 4]", "X[2] = [1, 2, 3, 4]"},
        {"X[2]=[1,2,3,4]", "X[2] = [1, 2, 3, 4]"},
        {"Wq[1][2] = 0.25", "Wq[1][2] = 0.25"},
        {"Q[1][3] = \xe2\x88\x92" "2", "Q[1][3] = -2"},
        {"K[3][1] = 0.1", "K[3][1] = 0.1"},
        {"Wv[2][3] = 1e-300", "Wv[2][3] = 1e-300"},
        {"Wv[2][3] = 7e-8", "Wv[2][3] = 7e-08"},
        {"Wq[1][1] = 0.3", "Wq[1][1] = 0.3"},
        {"X[1] = [0.1, -1e10, 3]", "X[1] = [0.1, -10000000000, 3]"},
        {"scale = none", "scale = none"},
        {"scale = sqrt_dk", "scale = sqrt_dk"},
        {"softmax = naive", "softmax = naive"},
        {"softmax=stable", "softmax = stable"},
        {" reset ", "reset"},
        {"mask = causal", "mask = causal"},
        {"mask=none", "mask = none"},
        {"temperature = 0.5", "temperature = 0.5"},
        {"temperature=0.1", "temperature = 0.1"},
        {"temperature = 20", "temperature = 20"},
        {"temperature = 5e-2", "temperature = 0.05"},
        {"T = 0.5", "temperature = 0.5"}, /* T, as the header writes it */
        {"positions = sinusoidal", "positions = sinusoidal"},
        {"positions = none", "positions = none"},
        {"swap 1 3", "swap 1 3"},
        {"  swap   2  2 ", "swap 2 2"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Action a, b;
        char buf[512];
        parse_ok(cases[k].in, &a);
        action_format(&a, buf, sizeof buf);
        assert_string_equal(buf, cases[k].canon);
        parse_ok(buf, &b);
        assert_action_equal(&b, &a);
    }
}

/* A long row formatted into a small buffer is cut, terminated, never overrun. */
static void format_truncates(void **state)
{
    (void)state;
    Action a;
    char text[1024] = "X[1] = [";
    for (int k = 0; k < MAT_MAX; k++)
        strcat(text, k ? ", 0.123456789" : "0.123456789");
    strcat(text, "]");
    parse_ok(text, &a);
    char buf[16];
    memset(buf, 'x', sizeof buf);
    action_format(&a, buf, sizeof buf);
    assert_true(memchr(buf, '\0', sizeof buf) != NULL);
    assert_int_equal(strncmp(buf, "X[1] = [0.12345", 15), 0);

    char big[4096];
    action_format(&a, big, sizeof big);
    Action b;
    parse_ok(big, &b);
    assert_action_equal(&b, &a);
}

/* ---- parsing: every error, with its column ------------------------------- */

/* Empty or blank text. */
static void error_empty(void **state)
{
    (void)state;
    assert_parse_error("", "empty action, expected e.g. Q[1] = K[1] * 5, scale = sqrt_dk or reset", 1);
    assert_parse_error("   ", "empty action, expected e.g. Q[1] = K[1] * 5, scale = sqrt_dk or reset", 4);
}

/* Unknown matrix names, on either side. */
static void error_unknown_matrix(void **state)
{
    (void)state;
    /* a target lists only what can be changed; a source everything that can be read */
    assert_parse_error("Z[1] = 1", "unknown matrix \"Z\", expected X, Wq, Wk, Wv, Q, K or V", 1);
    assert_parse_error("  q[1] = K[1]", "unknown matrix \"q\" (did you mean \"Q\"?), expected X, Wq, Wk, Wv, Q, K or V", 3);
    assert_parse_error("Q[1] = W[1]", "unknown matrix \"W\", expected X, Wq, Wk, Wv, Q, K, V, QKt, S, A or O", 8);
    assert_parse_error("resets", "unknown action \"resets\" (did you mean \"reset\"?); the actions are M[i] = [a, b], "
                       "M[i] = N[j] * c, M[i][j] = c, scale =, softmax =, mask =, temperature =, positions =, swap i j, "
                       "target A[i] = j, lr =, step N, reset, append, offset =, block =", 1);
    /* a long name is cut to 30 characters in the message */
    assert_parse_error("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ[1] = 1",
                       "unknown matrix \"abcdefghijklmnopqrstuvwxyzABCD\", expected X, Wq, Wk, Wv, Q, K or V", 1);
    /* no name at all: say what was found instead of quoting "" */
    assert_parse_error("[1] = 2", "expected a matrix to change, like Q[1] or Wq[2][1], found \"[1] = 2\"", 1);
    assert_parse_error("Q[1] = (K[1])", "expected a row like K[1] or a list like [0.5, -1], found \"(K[1])\"", 8);
}

/* The computed matrices QKt, S, A and O cannot be targets: the message says so. */
static void error_computed_target(void **state)
{
    (void)state;
    assert_parse_error("A[1] = [1,2,3]", "A is computed by the pipeline; change X, Wq, Wk, Wv, Q, K or V instead", 1);
    assert_parse_error("S[1][1] = 2", "S is computed by the pipeline; change X, Wq, Wk, Wv, Q, K or V instead", 1);
    assert_parse_error(" O[2] = V[1]", "O is computed by the pipeline; change X, Wq, Wk, Wv, Q, K or V instead", 2);
    assert_parse_error("QKt[1][2] = 0", "QKt is computed by the pipeline; change X, Wq, Wk, Wv, Q, K or V instead", 1);
}

/* A missing "=", "[" or "]" is named at the place it was expected. */
static void error_missing_punctuation(void **state)
{
    (void)state;
    assert_parse_error("Q[1] K[1]", "expected \"=\" after Q[1], found \"K[1]\"", 6);
    assert_parse_error("Q[1][2]", "expected \"=\" after Q[1][2], found nothing", 8);
    assert_parse_error("K[2] * 0.5 + K[3]", "expected \"=\" after K[2], found \"* 0.5 + K[3]\"", 6);
    assert_parse_error("Q[1 = K[1]", "expected \"]\" after the number", 5);
    assert_parse_error("Q[1] = K[1", "expected \"]\" after the number", 11);
    /* a whole matrix cannot be set: say which rows and cells can */
    assert_parse_error("Q = 1", "expected \"[\" after Q: change one row, Q[i] = [a, b, ...], or one cell, Q[i][j] = c",
                       3);
    assert_parse_error("Wk = 0",
                       "expected \"[\" after Wk: change one row, Wk[i] = [a, b, ...], or one cell, Wk[i][j] = c", 4);
    assert_parse_error("Q[1] = K", "expected \"[\" and a row number after K, like K[1]", 9);
    /* "==" is a comparison, not an action */
    assert_parse_error("K[1] == Q[2]", "\"==\" compares; an action sets a value with one \"=\", like Q[1] = K[2]", 6);
    assert_parse_error("K[1][1] == 2", "\"==\" compares; an action sets a value with one \"=\", like Q[1][2] = K[2]",
                       9);
    assert_parse_error("X[1] = [1, 2", "expected \",\" and a number, or \"]\" to close the row", 13);
    assert_parse_error("X[1] = [1 2]", "expected \",\" and a number, or \"]\" to close the row", 11);
    assert_parse_error("scale none", "expected \"=\" then none or sqrt_dk", 7);
    assert_parse_error("softmax", "expected \"=\" then naive, stable or online", 8);
}

/* Indices start at 1 and must be numbers. */
static void error_index(void **state)
{
    (void)state;
    assert_parse_error("Q[0] = K[1]", "indices start at 1", 3);
    assert_parse_error("Q[1] = K[0]", "indices start at 1", 10);
    assert_parse_error("Q[1][ 0] = 1", "indices start at 1", 7);
    assert_parse_error("Q[x] = 1", "expected a row or column number from 1", 3);
    assert_parse_error("Q[-1] = K[1]", "expected a row or column number from 1", 3);
    assert_parse_error("Q[] = K[1]", "expected a row or column number from 1", 3);
}

/* Numbers must be decimals and finite: abc, nan, inf, 1e999 are refused. */
static void error_number(void **state)
{
    (void)state;
    const char *nan_msg = "expected a number, like 0.5 or -2";
    assert_parse_error("Q[1][1] = abc", nan_msg, 11);
    assert_parse_error("Q[1][1] = nan", nan_msg, 11);
    assert_parse_error("Q[1][1] = inf", nan_msg, 11);
    assert_parse_error("Q[1][1] = -inf", nan_msg, 11);
    assert_parse_error("Q[1][1] = NaN", nan_msg, 11);
    assert_parse_error("Q[1][1] =", nan_msg, 10);
    assert_parse_error("Q[1][1] = -", nan_msg, 11);
    assert_parse_error("Q[1][1] = \xe2\x88\x92", nan_msg, 11);
    assert_parse_error("Q[1][1] = 1e", nan_msg, 11);
    assert_parse_error("Q[1][1] = 1-2", "unexpected \"-2\", expected the end of the action", 12);
    assert_parse_error("Q[1][1] = .", nan_msg, 11);
    assert_parse_error("Q[1][1] = K[1][1]", nan_msg, 11);
    assert_parse_error("Q[1] = K[1] *", nan_msg, 14);
    assert_parse_error("Q[1] = K[1] * x", nan_msg, 15);
    assert_parse_error("X[1] = []", nan_msg, 9);
    assert_parse_error("X[1] = [1, , 2]", nan_msg, 12);
    assert_parse_error("X[1] = [1, nan, 2]", nan_msg, 12);
    assert_parse_error("Q[1][1] = 1e999", "numbers must be finite", 11);
    assert_parse_error("Q[1][1] = -1e999", "numbers must be finite", 11);
    assert_parse_error("Q[1] = K[1] * 1e400", "numbers must be finite", 15);
    assert_parse_error("X[1] = [1, 2e308, 3]", "numbers must be finite", 12);
}

/* Anything after a complete action is refused where it starts. */
static void error_trailing(void **state)
{
    (void)state;
    assert_parse_error("Q[1] = K[1] * 5 x", "unexpected \"x\", expected the end of the action", 17);
    assert_parse_error("Q[1][1] = 1.5abc", "unexpected \"abc\", expected the end of the action", 14);
    assert_parse_error("Q[1][1] = 0x10", "unexpected \"x10\", expected the end of the action", 12);
    assert_parse_error("X[1] = [1, 2, 3, 4] ]", "unexpected \"]\", expected the end of the action", 21);
    assert_parse_error("reset now", "unexpected \"now\", expected the end of the action", 7);
    assert_parse_error("scale = none x", "unexpected \"x\", expected the end of the action", 14);
    assert_parse_error("Q[1][2][3] = 1", "expected \"=\" after Q[1][2], found \"[3] = 1\"", 8);
    /* after a copied row: what may come there */
    const char *after_row = "after the row comes \"* c\" to scale it, or the end of the action";
    char want[160];
    snprintf(want, sizeof want, "unexpected \"5\": %s", after_row);
    assert_parse_error("Q[1] = K[1] 5", want, 13);
    snprintf(want, sizeof want, "unexpected \"x 5\": %s", after_row);
    assert_parse_error("Q[1] = K[1] x 5", want, 13);
    /* after the factor: one number, and rows are not added */
    assert_parse_error("Q[1] = K[1] * 1/6", "unexpected \"/6\": the factor is one number; write 1/6 as 0.1667", 16);
    assert_parse_error("Q[1] = K[2] * 0.5 + K[3]", "unexpected \"+ K[3]\": an action copies one row times one "
                       "number; rows cannot be added, and there is one factor", 19);
    assert_parse_error("Q[1] = K[2] * 2 * 3", "unexpected \"* 3\": an action copies one row times one "
                       "number; rows cannot be added, and there is one factor", 17);
    /* two actions on one line: a do: takes a YAML list */
    const char *list = "write one action at a time; several actions in a do: are a YAML list, like "
                       "[\"Q[1] = K[1]\", \"scale = none\"]";
    snprintf(want, sizeof want, "unexpected \";\": %s", list);
    assert_parse_error("softmax = stable;", want, 17);
    snprintf(want, sizeof want, "unexpected \"; scale = none\": %s", list);
    assert_parse_error("Q[1] = K[1]; scale = none", want, 12);
    snprintf(want, sizeof want, "unexpected \", Q[1][2] = 2\": %s", list);
    assert_parse_error("Q[1][1] = 1, Q[1][2] = 2", want, 12);
    snprintf(want, sizeof want, "unexpected \"Q[2] = K[2]\": %s", list);
    assert_parse_error("Q[1] = K[1] Q[2] = K[2]", want, 13);
    /* the quoted rest is cut after 16 bytes */
    assert_parse_error("reset 0123456789abcdefXYZ", "unexpected \"0123456789abcdef...\", expected the end of "
                       "the action", 7);
}

/* Option values must be one of the two words, spelt exactly. */
static void error_option_value(void **state)
{
    (void)state;
    assert_parse_error("scale = big", "expected none or sqrt_dk, found \"big\"", 9);
    assert_parse_error("scale = ", "expected none or sqrt_dk, found nothing", 9);
    assert_parse_error("scale = None", "expected none or sqrt_dk, found \"None\"", 9);
    assert_parse_error("scale = sqrt", "expected none or sqrt_dk, found \"sqrt\"", 9);
    assert_parse_error("scale = -1", "expected none or sqrt_dk, found \"-1\"", 9);
    assert_parse_error("softmax = x", "expected naive, stable or online, found \"x\"", 11);
    assert_parse_error("softmax = stable2", "expected naive, stable or online, found \"stable2\"", 11);
    assert_parse_error("softmax = none", "expected naive, stable or online, found \"none\"", 11);
}

/* A row can be copied only from a row, not from a cell; rows hold at most 64 numbers. */
static void error_row_rhs(void **state)
{
    (void)state;
    assert_parse_error("Q[1] = K[1][2]", "a row can only be copied from a row, like K[1], not a cell", 8);
    assert_parse_error("Q[1] =  X[2] [1] * 2", "a row can only be copied from a row, like K[1], not a cell", 9);
    char text[600] = "X[1] = [";
    for (int k = 0; k <= MAT_MAX; k++)
        strcat(text, k ? ",1" : "1");
    strcat(text, "]");
    /* "X[1] = [" is 8 bytes, the first number is at column 9, each next one 2 further */
    assert_parse_error(text, "a row has at most 64 numbers", 9 + 2 * MAT_MAX);
}

/* With a lesson's shapes the lists name what it has: Wo with W_O, and with
 * two heads the heads' names from 1, never a bare A it would refuse (M5, L3). */
static void error_lists_fit_the_lesson(void **state)
{
    (void)state;
    Attn one, two;
    Action a;
    int col = 0;
    assert_true(attn_init_heads(&one, 3, 4, 1, 3, 3, 2));
    assert_true(attn_init_heads(&two, 3, 4, 2, 2, 2, 4));
    assert_false(action_parse_in("Wqq[1] = [0, 0, 0]", &one, &a, err, sizeof err, &col));
    assert_string_equal(err, "unknown matrix \"Wqq\" (did you mean \"Wq\"?), expected X, Wq, Wk, Wv, Wo, Q, K or V");
    assert_false(action_parse_in("A1[1] = [0, 1, 0]", &two, &a, err, sizeof err, &col));
    assert_string_equal(err, "A1 is computed by the pipeline; change X, Wq, Wk, Wv, Wo, Q, K or V, or one head's part "
                             "(heads count from 1): Q1 to Q2, K1 to K2 or V1 to V2 instead");
    assert_false(action_parse_in("Q[1] = Z[1]", &two, &a, err, sizeof err, &col));
    assert_string_equal(err, "unknown matrix \"Z\", expected X, Wq, Wk, Wv, Wo, Q, K, V, O or Y, or one head's (heads "
                             "count from 1): QKt1 to QKt2, S1 to S2 or A1 to A2");
    assert_int_equal(col, 8);
    /* an action word misspelt: the closest one and every action */
    assert_false(action_parse_in("tempreature = 0.5", &one, &a, err, sizeof err, &col));
    const char *want = "unknown action \"tempreature\" (did you mean \"temperature\"?); the actions are M[i] = ";
    assert_true(strncmp(err, want, strlen(want)) == 0);
    assert_false(action_parse_in("lrate = 0.5", &one, &a, err, sizeof err, &col));
    want = "unknown action \"lrate\"; the actions are";
    assert_true(strncmp(err, want, strlen(want)) == 0);
    /* a decimal comma is named, as in the file's numbers (L4) */
    assert_false(action_parse_in("X[1][1] = 0,5", &one, &a, err, sizeof err, &col));
    assert_string_equal(err, "unexpected \",5\": it looks like a decimal comma, write 0.5");
    assert_int_equal(col, 12);
    /* still parsed as before when it is right */
    assert_true(action_parse_in("Wo[1] = [1, 0]", &one, &a, err, sizeof err, &col));
    attn_free(&one);
    attn_free(&two);
}

/* A bare A in a target names no head: in a two-head lesson it is refused at
 * the place when the shapes are known, and when applied (the : prompt); with
 * one head it is A1, written back as it was written (M8). */
static void target_bare_a_needs_a_head(void **state)
{
    (void)state;
    Attn one, two;
    Action a;
    char text[64];
    int col = 0;
    assert_true(attn_init_heads(&one, 3, 4, 1, 3, 3, 0));
    assert_true(attn_init_heads(&two, 3, 4, 2, 2, 2, 4));
    assert_false(action_parse_in("target A[2] = 1", &two, &a, err, sizeof err, &col));
    assert_string_equal(err, "A is one per head in a lesson with 2 heads: write A1 to A2");
    assert_int_equal(col, 8);
    assert_true(action_parse("target A[2] = 1", &a, err, sizeof err, &col));
    assert_false(action_apply(&two, &a, err, sizeof err));
    assert_string_equal(err, "A is one per head in a lesson with 2 heads: write A1 to A2");
    assert_true(action_parse_in("target A1[2] = 1", &two, &a, err, sizeof err, &col));
    assert_int_equal(a.head, 0);
    action_format(&a, text, sizeof text);
    assert_string_equal(text, "target A1[2] = 1");
    assert_true(action_parse_in("target A[2] = 1", &one, &a, err, sizeof err, &col));
    action_format(&a, text, sizeof text);
    assert_string_equal(text, "target A[2] = 1");
    attn_free(&one);
    attn_free(&two);
}

/* A NULL errcol is allowed; a parse failure still writes the message. */
static void error_without_column(void **state)
{
    (void)state;
    Action a;
    err[0] = '\0';
    assert_false(action_parse("Z[1] = 1", &a, err, sizeof err, NULL));
    assert_string_equal(err, "unknown matrix \"Z\", expected X, Wq, Wk, Wv, Q, K or V");
    char small[8];
    assert_false(action_parse("scale = big", &a, small, sizeof small, NULL));
    assert_string_equal(small, "expecte");
}

/* ---- applying ------------------------------------------------------------ */

/* Q[1] = K[1] * 5 sets Q's row 1 to five times K's, marks it overridden,
 * and the pipeline then gives the experiment's 0.873 0.076 0.052. */
static void apply_row_copy(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    attn_run_to(a, STAGE_OUTPUT);
    apply_ok(a, "Q[1] = K[1] * 5");
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_Q], 0, j), 5 * k_ref[j], 1e-15);
    assert_true(a->override[0][0]);
    assert_false(a->override[0][1]);
    assert_false(a->override[0][2]);
    assert_false(a->override[1][0]);
    assert_true(a->reached <= STAGE_INPUT);   /* the inputs changed: results are stale */
    /* the other rows are untouched */
    for (int i = 1; i < 3; i++)
        for (int j = 0; j < 3; j++)
            assert_near(MAT_AT(&a->m[M_Q], i, j), q_ref[i * 3 + j], 1e-15);

    attn_run_to(a, STAGE_OUTPUT);
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_Q], 0, j), 5 * k_ref[j], 1e-15);   /* kept, not X·Wq */
    const double a1[] = {0.873, 0.076, 0.052};
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_A], 0, j), a1[j], 5e-4);

    /* without a factor it is a plain copy, and any row of a computed matrix can be read */
    apply_ok(a, "V[2] = K[3]");
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_V], 1, j), k_ref[6 + j], 1e-15);
    assert_true(a->override[2][1]);
}

/* X[2] = [1, 2, 3, 4] changes X, and after the pipeline runs, Q's row 2 is that row times Wq. */
static void apply_x_row(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    attn_run_to(a, STAGE_OUTPUT);
    double q1[3], q3[3];
    for (int j = 0; j < 3; j++) {
        q1[j] = MAT_AT(&a->m[M_Q], 0, j);
        q3[j] = MAT_AT(&a->m[M_Q], 2, j);
    }
    apply_ok(a, "X[2] = [1, 2, 3, 4]");
    const double x2[] = {1, 2, 3, 4};
    for (int k = 0; k < 4; k++)
        assert_near(MAT_AT(&a->m[M_X], 1, k), x2[k], 0);
    assert_true(a->reached <= STAGE_INPUT);
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < 3; i++)
            assert_false(a->override[m][i]);   /* X edits never override */

    attn_run_to(a, STAGE_OUTPUT);
    for (int j = 0; j < 3; j++) {
        double want = 0;
        for (int k = 0; k < 4; k++)
            want += x2[k] * MAT_AT(&a->m[M_WQ], k, j);
        assert_near(MAT_AT(&a->m[M_Q], 1, j), want, 1e-15);
        assert_near(MAT_AT(&a->m[M_Q], 0, j), q1[j], 0);
        assert_near(MAT_AT(&a->m[M_Q], 2, j), q3[j], 0);
    }
}

/* Wq[1][2] = 0.25 changes one weight; Q's row 1 (X row 1 is e1) follows it. */
static void apply_w_cell(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    attn_run_to(a, STAGE_SCORES);
    apply_ok(a, "Wq[1][2] = 0.25");
    assert_near(MAT_AT(&a->m[M_WQ], 0, 1), 0.25, 0);
    assert_near(MAT_AT(&a->m[M_WQ], 0, 0), 0.1490142459, 1e-10);   /* neighbours untouched */
    assert_near(MAT_AT(&a->m[M_WQ], 1, 1), -0.0702460124, 1e-10);
    assert_false(a->override[0][0]);
    assert_true(a->reached <= STAGE_INPUT);
    attn_run_to(a, STAGE_QKV);
    const double q1[] = {q_ref[0], 0.25, q_ref[2]};
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_Q], 0, j), q1[j], 1e-15);

    apply_ok(a, "X[3][4] = 0.5");
    assert_near(MAT_AT(&a->m[M_X], 2, 3), 0.5, 0);
    assert_near(MAT_AT(&a->m[M_X], 2, 2), 1, 0);
}

/* Q[1][3] = −2 on a state never computed: Q's row is computed first, one cell
 * replaced, and the row becomes an override. */
static void apply_q_cell_unreached(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    assert_int_equal(a->reached, STAGE_NONE);
    apply_ok(a, "Q[1][3] = \xe2\x88\x92" "2");
    assert_true(a->override[0][0]);
    assert_near(MAT_AT(&a->m[M_Q], 0, 0), q_ref[0], 1e-15);
    assert_near(MAT_AT(&a->m[M_Q], 0, 1), q_ref[1], 1e-15);
    assert_near(MAT_AT(&a->m[M_Q], 0, 2), -2, 0);
    attn_run_to(a, STAGE_QKV);
    assert_near(MAT_AT(&a->m[M_Q], 0, 0), q_ref[0], 1e-15);
    assert_near(MAT_AT(&a->m[M_Q], 0, 2), -2, 0);
}

/* A row copy on a state whose stage was not reached computes the source on demand. */
static void apply_row_copy_unreached(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    assert_int_equal(a->reached, STAGE_NONE);
    apply_ok(a, "Q[1] = K[1] * 5");
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_Q], 0, j), 5 * k_ref[j], 1e-15);
    assert_true(a->override[0][0]);
    attn_run_to(a, STAGE_SOFTMAX);
    const double a1[] = {0.873, 0.076, 0.052};
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_A], 0, j), a1[j], 5e-4);

    /* also after the inputs changed: the source reflects the new X */
    apply_ok(a, "X[3] = [0, 0, 0, 1]");
    apply_ok(a, "K[1] = Q[3] * 2");
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_K], 0, j), 2 * MAT_AT(&a->m[M_WQ], 3, j), 1e-15);
}

/* Copying from a computed matrix after an option change reads values computed
 * with the new option: S[1] after scale = sqrt_dk is QKt[1] / sqrt(3). */
static void apply_copy_after_option_change(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    attn_run_to(a, STAGE_OUTPUT);                     /* S computed unscaled */
    apply_ok(a, "scale = sqrt_dk");
    apply_ok(a, "Q[2] = S[1]");
    /* numpy: (Q K^T)[0] / sqrt(3) */
    const double s1[] = {-0.038061040634403666, 0.0033399105587663264, 0.025184268043473755};
    for (int j = 0; j < 3; j++)
        assert_near(MAT_AT(&a->m[M_Q], 1, j), s1[j], 1e-15);
}

/* scale and softmax set the options and change no number. */
static void apply_options(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    Attn copy = {0};
    assert_true(attn_copy(&copy, a));
    apply_ok(a, "scale = sqrt_dk");
    assert_int_equal(a->scale, SCALE_SQRT_DK);
    apply_ok(a, "softmax = stable");
    assert_int_equal(a->softmax, SOFTMAX_STABLE);
    apply_ok(a, "scale = none");
    apply_ok(a, "softmax = naive");
    assert_attn_same(a, &copy);
    attn_free(&copy);
}


/* The options mask, temperature and positions apply, mark the stages after
 * them stale, and undo back to the same state. */
static void apply_new_options(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    Attn copy = {0};
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(attn_copy(&copy, a));
    apply_ok(a, "mask = causal");
    assert_int_equal(a->mask, MASK_CAUSAL);
    assert_int_equal(a->reached, STAGE_QKV);
    attn_run_to(a, STAGE_OUTPUT);
    apply_ok(a, "temperature = 0.5");
    assert_true(a->temp == 0.5);
    assert_int_equal(a->reached, STAGE_SCORES);
    attn_run_to(a, STAGE_OUTPUT);
    apply_ok(a, "positions = sinusoidal");
    assert_int_equal(a->positions, POS_SINUSOIDAL);
    assert_int_equal(a->reached, STAGE_NONE);
    apply_ok(a, "mask = none");
    apply_ok(a, "temperature = 1");
    apply_ok(a, "positions = none");
    attn_run_to(a, STAGE_OUTPUT);
    assert_attn_same(a, &copy);
    attn_free(&copy);
}

/* An appended token's name lives in the state it was appended to: kept
 * once, copied and freed with the state; each state numbers its own. */
static void append_names_in_state(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a, other = {0}, copy = {0};
    assert_true(lesson_base(&f->l, &other));
    apply_ok(a, "append 狗 [1, 0, 0, 0]");
    apply_ok(a, "append cat [0, 1, 0, 0]");
    apply_ok(a, "append 狗 [0, 0, 1, 0]");
    assert_int_equal(a->ntok_name, 2); /* 狗 once */
    assert_string_equal(lesson_token(&f->l, a, 3), "狗");
    assert_string_equal(lesson_token(&f->l, a, 4), "cat");
    assert_string_equal(lesson_token(&f->l, a, 5), "狗");
    apply_ok(&other, "append mouse [0, 0, 0, 1]");
    assert_int_equal(other.tok[3], a->tok[3]); /* the same id, each state's own name */
    assert_string_equal(lesson_token(&f->l, &other, 3), "mouse");
    assert_string_equal(lesson_token(&f->l, a, 3), "狗");
    assert_string_equal(lesson_token(&f->l, &other, 4), "?"); /* no fourth token there */
    assert_true(attn_copy(&copy, a));
    attn_free(a);
    assert_string_equal(lesson_token(&f->l, &copy, 4), "cat");
    apply_ok(&copy, "swap 4 5");
    assert_string_equal(lesson_token(&f->l, &copy, 3), "cat");
    assert_true(attn_copy(&copy, &other)); /* reusing the copy's room */
    assert_int_equal(copy.ntok_name, 1);
    assert_string_equal(lesson_token(&f->l, &copy, 3), "mouse");
    attn_free(&copy);
    attn_free(&other);
}

/* swap trades names and X rows; an out-of-range token is refused whole. */
static void apply_swap(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    apply_ok(a, "Q[1] = K[1] * 5");
    apply_ok(a, "swap 1 3");
    assert_string_equal(lesson_token(&f->l, a, 0), "猫");
    assert_string_equal(lesson_token(&f->l, a, 2), "我");
    assert_true(MAT_AT(&a->m[M_X], 0, 3) == 0.2);
    assert_true(a->override[0][2] && !a->override[0][0]); /* the override moved with 我 */
    attn_run_to(a, STAGE_OUTPUT);
    assert_apply_error(a, "swap 1 4", "token 4 is out of range: there are 3 tokens, swap takes two of 1 to 3");
    apply_ok(a, "swap 3 1");
    assert_string_equal(lesson_token(&f->l, a, 0), "我");
}

/* Bad option values and swaps: exact messages and columns. */
static void parse_new_errors(void **state)
{
    (void)state;
    assert_parse_error("mask = diagonal", "expected none, causal or window W, found \"diagonal\"", 8);
    assert_parse_error("mask causal", "expected \"=\" then none, causal or window W", 6);
    assert_parse_error("positions = learned", "expected none, sinusoidal or rope, found \"learned\"", 13);
    assert_parse_error("temperature = 0", "the temperature must be from 0.05 to 20, found 0", 15);
    assert_parse_error("temperature = -1", "the temperature must be from 0.05 to 20, found -1", 15);
    assert_parse_error("temperature = 1e9", "the temperature must be from 0.05 to 20, found 1e9", 15);
    assert_parse_error("temperature = 20.5", "the temperature must be from 0.05 to 20, found 20.5", 15);
    assert_parse_error("temperature = nan", "expected a number, like 0.5 or -2", 15);
    assert_parse_error("temperature = 1e999", "numbers must be finite", 15);
    assert_parse_error("temperature", "expected \"=\" then a temperature from 0.05 to 20, like temperature = 0.5", 12);
    assert_parse_error("swap", "swap takes two token numbers from 1, like swap 1 3; found nothing", 5);
    assert_parse_error("swap 1", "swap takes two token numbers from 1, like swap 1 3; found nothing", 7);
    assert_parse_error("swap 0 1", "tokens are numbered from 1", 6);
    assert_parse_error("swap 1 x", "swap takes two token numbers from 1, like swap 1 3; found \"x\"", 8);
    assert_parse_error("swap 99999999999 1", "token 99999999999 is out of range: a lesson has at most 64 tokens", 6);
    assert_parse_error("swap 1 2 3", "unexpected \"3\", expected the end of the action", 10);
}

/* Rows and columns beyond the matrix are refused with the exact message. */
static void apply_out_of_range(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    attn_run_to(a, STAGE_SOFTMAX);
    assert_apply_error(a, "Q[4] = K[1]", "row 4 is out of range: Q has rows 1 to 3");
    assert_apply_error(a, "Q[1] = K[4]", "row 4 is out of range: K has rows 1 to 3");
    assert_apply_error(a, "Q[1] = K[4] * 5", "row 4 is out of range: K has rows 1 to 3");
    assert_apply_error(a, "Q[1][4] = 1", "column 4 is out of range: Q has columns 1 to 3");
    assert_apply_error(a, "Q[9][9] = 1", "row 9 is out of range: Q has rows 1 to 3");
    assert_apply_error(a, "X[1][5] = 1", "column 5 is out of range: X has columns 1 to 4");
    assert_apply_error(a, "X[4] = [1, 2, 3, 4]", "row 4 is out of range: X has rows 1 to 3");
    assert_apply_error(a, "Wq[5][1] = 1", "row 5 is out of range: Wq has rows 1 to 4");
    assert_apply_error(a, "Wv[1][4] = 1", "column 4 is out of range: Wv has columns 1 to 3");
    assert_apply_error(a, "V[3] = A[4]", "row 4 is out of range: A has rows 1 to 3");
    assert_apply_error(a, "Wk[100000][1] = 1", "row 100000 is out of range: Wk has rows 1 to 4");
}

/* A row of the wrong width is refused with both widths in the message. */
static void apply_width_mismatch(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    attn_run_to(a, STAGE_OUTPUT);
    assert_apply_error(a, "X[1] = [1,2]", "a row of X takes 4 numbers; this one has 2");
    assert_apply_error(a, "Q[1] = [1, 2, 3, 4]", "a row of Q takes 3 numbers; this one has 4");
    assert_apply_error(a, "Wq[2] = [1]", "a row of Wq takes 3 numbers; this one has 1");
    assert_apply_error(a, "X[1] = K[1]", "X rows have 4 numbers but K rows have 3; widths must match");
    assert_apply_error(a, "Q[1] = X[1] * 2", "Q rows have 3 numbers but X rows have 4; widths must match");
    assert_apply_error(a, "Wq[2] = X[1]", "Wq rows have 3 numbers but X rows have 4; widths must match");
}

/* reset belongs to the session; action_apply refuses it and changes nothing. */
static void apply_reset_refused(void **state)
{
    Fix *f = *state;
    assert_apply_error(&f->a, "reset", "reset is handled by the session");
}

/* A refused apply leaves every matrix, flag, option and the stage as they were,
 * also on a state that was never computed (no on-demand computing first). */
static void apply_failure_changes_nothing(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    static const char *const bad[] = {
        "Q[4] = K[1]", "Q[1] = K[4] * 5", "Q[1][4] = 1", "X[1] = [1,2]", "X[1] = K[1]", "K[1] = O[5]",
        "V[1] = A[4]", "Wq[1][9] = 3", "reset",
    };
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
            Action act;
            Attn copy = {0};
            parse_ok(bad[k], &act);
            assert_true(attn_copy(&copy, a));
            assert_false(action_apply(a, &act, err, sizeof err));
            assert_attn_same(a, &copy);
            attn_free(&copy);
        }
        apply_ok(a, "Q[2] = K[2] * 3");   /* second round: with an override and stale results */
        attn_run_to(a, STAGE_SCORES);
    }
}

/* Singular words in messages for a matrix of one row or one column. */
static void apply_messages_singular(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    assert_apply_error(a, "X[2] = [1]", "row 2 is out of range: X has rows 1 to 1");
    assert_apply_error(a, "X[1][2] = 1", "column 2 is out of range: X has columns 1 to 1");
    assert_apply_error(a, "X[1] = [1, 2]", "a row of X takes 1 numbers; this one has 2");
    apply_ok(a, "Q[1] = K[1] * 3");
    attn_run_to(a, STAGE_OUTPUT);
    assert_near(MAT_AT(&a->m[M_Q], 0, 0), 6, 0);
    assert_near(MAT_AT(&a->m[M_A], 0, 0), 1, 0);
}


/* An index too long for any matrix is refused as typed, not as a
 * saturated number ("row 9999999"), at its column. */
static void error_huge_index(void **state)
{
    (void)state;
    assert_parse_error("Q[99999999999999999999][1] = 1", /* as typed at the ":" prompt */
                       "row 99999999999999999999 is out of range: Q has at most 64 rows", 3);
    assert_parse_error("Wk[1][12345678901] = 1", "column 12345678901 is out of range: Wk has at most 64 columns", 7);
    assert_parse_error("Q[1] = K[0099999999999999999999999999]",
                       "row 009999999999999999999999... is out of range: K has at most 64 rows", 10);
    /* a long run of leading zeros is still a small index, checked when applied */
    Action a;
    parse_ok("Q[0000000000000000000002] = K[1]", &a);
    assert_int_equal(a.i, 1);
}

/* The Unicode minus U+2212 that the screen prints is read as '-' wherever
 * an action holds a number: a cell, a row, a factor, an exponent. */
static void parse_unicode_minus_everywhere(void **state)
{
    (void)state;
    Action a;
    parse_ok("X[1] = [\xe2\x88\x92" "0.5, 2e\xe2\x88\x92" "3, \xe2\x88\x92.25]", &a);
    assert_int_equal(a.n, 3);
    assert_true(a.vals[0] == -0.5 && a.vals[1] == 0.002 && a.vals[2] == -0.25);
    parse_ok("Wq[1][1] = \xe2\x88\x92" "1.5E\xe2\x88\x92" "1", &a);
    assert_true(a.c == -0.15);
}

/* ref.h: one scanner for lesson keys, actions, templates and asks. */
static void ref_scanner(void **state)
{
    (void)state;
    Ref r;
    assert_int_equal(ref_parse(" S [1] [ 2 ] ", &r), REF_OK);
    assert_int_equal(ref_matrix(&r), REF_OK);
    assert_int_equal(r.mat, M_S);
    assert_int_equal(ref_row(&r), 0);
    assert_int_equal(ref_col(&r), 1);
    /* a template's token[2] and d_k: a name the caller resolves itself */
    assert_int_equal(ref_scan("token[2]} rest", &r), REF_OK);
    assert_true(r.name_len == 5 && strncmp(r.name, "token", 5) == 0 && r.n == 1 && r.idx[0].v == 2);
    assert_string_equal(r.end, "} rest");
    assert_int_equal(ref_matrix(&r), REF_UNKNOWN);
    assert_int_equal(ref_parse("d_k", &r), REF_OK);
    assert_int_equal(r.n, 0);
    /* a row ask "A[1]" against the shapes */
    Attn a = {0};
    assert_true(attn_init(&a, 3, 4, 3, 3));
    assert_int_equal(ref_parse("A[1]", &r), REF_OK);
    assert_int_equal(ref_matrix(&r), REF_OK);
    assert_int_equal(ref_check(&r, &a), REF_OK);
    assert_int_equal(ref_col(&r), -1);
    assert_int_equal(ref_parse("A[4]", &r), REF_OK);
    assert_int_equal(ref_matrix(&r), REF_OK);
    assert_int_equal(ref_check(&r, &a), REF_ROW_RANGE);
    assert_int_equal(ref_parse("X[1][5]", &r), REF_OK);
    assert_int_equal(ref_matrix(&r), REF_OK);
    assert_int_equal(ref_check(&r, &a), REF_COL_RANGE);
    attn_free(&a);
    /* syntax errors say where; a 0 index comes after syntax */
    const char *s = "Q[1 x";
    assert_int_equal(ref_parse(s, &r), REF_NO_CLOSE);
    assert_ptr_equal(r.err_at, s + 4);
    s = "Q[]";
    assert_int_equal(ref_parse(s, &r), REF_NO_NUMBER);
    assert_ptr_equal(r.err_at, s + 2);
    assert_int_equal(ref_parse("[1]", &r), REF_NO_NAME);
    assert_int_equal(ref_parse("Q[1] x", &r), REF_TRAILING);
    assert_int_equal(ref_parse("Q[0] x", &r), REF_TRAILING);
    s = "Q[1][0]";
    assert_int_equal(ref_parse(s, &r), REF_ZERO);
    assert_ptr_equal(r.err_at, s + 5);
    /* the digits are kept as typed; the value saturates */
    assert_int_equal(ref_parse("Q[1234567890123]", &r), REF_OK);
    assert_int_equal(r.idx[0].len, 13);
    assert_true(r.idx[0].v == REF_INDEX_MAX);
}

/* Switch LC_NUMERIC to a locale whose decimal point is ',' (building
 * de_DE with localedef into a scratch LOCPATH when none is installed).
 * Returns false when the machine has no way to get one. */
static bool comma_locale(char *dir, size_t len)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "ru_RU.UTF-8", "nl_NL.UTF-8"};
    dir[0] = '\0';
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (setlocale(LC_NUMERIC, names[k]))
            return true;
    snprintf(dir, len, "/tmp/qkv-locale.XXXXXX");
    if (!mkdtemp(dir) || system("command -v localedef >/dev/null 2>&1") != 0) {
        dir[0] = '\0';
        return false;
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
    if (system(cmd) != 0 && access(dir, F_OK) != 0)
        return false;
    setenv("LOCPATH", dir, 1);
    return setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL;
}

/* Numbers read the same whatever LC_NUMERIC says: under a comma-decimal
 * locale (where strtod("0.25") stops at the '.'), actions, lesson numbers
 * and expect messages still use '.'. */
static void numbers_ignore_locale(void **state)
{
    (void)state;
    char dir[64], cmd[128];
    bool have = comma_locale(dir, sizeof dir);
    if (have) {
        /* the trap is real: the C library's own strtod reads 0.25 as 0 here */
        assert_true(strtod("0.25", NULL) == 0.0);
        Action a;
        parse_ok("Wq[1][2] = 0.25", &a);
        assert_true(a.c == 0.25);
        parse_ok("X[1] = [0.5, -1.5e-1]", &a);
        assert_true(a.vals[0] == 0.5 && a.vals[1] == -0.15);
        /* and what is written back (history, saved actions) reads back */
        char text[128];
        action_format(&a, text, sizeof text);
        assert_string_equal(text, "X[1] = [0.5, -0.15]"); /* shortest round-trip (fmt_exact) */
        parse_ok("Q[1] = K[2] * 2.5", &a);
        action_format(&a, text, sizeof text);
        assert_string_equal(text, "Q[1] = K[2] * 2.5");
        double v;
        assert_int_equal(num_parse("\xe2\x88\x92" "0.125", &v, NULL), NUM_OK);
        assert_true(v == -0.125);
        char buf[32];
        num_format(buf, sizeof buf, 0.5, 3);
        assert_string_equal(buf, "0.500");
        Lesson l;
        char e[LESSON_ERR_MAX];
        const char *y = "format: qkvtutor/1\ntokens: [a]\nX: [[0.75]]\nweights: {Wq: [[0.5]], Wk: [[1]], Wv: [[1]]}\n";
        assert_true(lesson_load_buffer("t.yaml", y, strlen(y), &l, e, sizeof e));
        assert_true(MAT_AT(&l.X, 0, 0) == 0.75 && MAT_AT(&l.Wq, 0, 0) == 0.5);
        lesson_free(&l);
    }
    setlocale(LC_NUMERIC, "C");
    unsetenv("LOCPATH");
    if (dir[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
    }
    if (!have)
        skip();
}

/* Cross-attention: S is 2x3, the padding key exactly 0 whatever its row
 * of Xs holds (an edit of Xs is an action like any); a mask, positions, an
 * append and training are refused, saying why, and change nothing. */
static void apply_cross(void **state)
{
    Fix *f = *state;
    Attn *a = &f->a;
    attn_run_to(a, STAGE_OUTPUT);
    assert_int_equal(a->m[M_S].rows, 2);
    assert_int_equal(a->m[M_S].cols, 3);
    assert_int_equal(a->m[M_K].rows, 3);
    assert_true(isinf(MAT_AT(&a->m[M_S], 0, 2)) && MAT_AT(&a->m[M_S], 0, 2) < 0);
    assert_true(MAT_AT(&a->m[M_A], 1, 2) == 0.0);
    /* cat: s = (2/sqrt 2, 0): numpy e = exp(sqrt(2)); e / (e + 1) */
    assert_true(fabs(MAT_AT(&a->m[M_A], 0, 0) - 0.8044296825069569) < 1e-15);
    double a00 = MAT_AT(&a->m[M_A], 0, 0);
    apply_ok(a, "Xs[3] = [4, 4, 4, 4]");
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(MAT_AT(&a->m[M_K], 2, 0) == 4.0 && MAT_AT(&a->m[M_QKT], 0, 2) == 8.0);
    assert_true(MAT_AT(&a->m[M_A], 0, 0) == a00 && MAT_AT(&a->m[M_A], 0, 2) == 0.0);
    assert_apply_error(a, "mask = causal", "cross-attention has no mask: the source has no future to hide and every "
                                           "target token sees the whole source; write mask = none");
    assert_apply_error(a, "mask = window 2", "cross-attention has no mask: the source has no future to hide and "
                                             "every target token sees the whole source; write mask = none");
    assert_apply_error(a, "positions = sinusoidal", "positions are not taught with cross-attention here: the target "
                                                    "and the source would each need their own; write positions = none");
    assert_apply_error(a, "append dog [1, 1, 1, 1]", "append adds a token whose own key is cached; with "
                                                     "cross-attention the keys are the source's, so there is nothing "
                                                     "to append to");
    assert_apply_error(a, "target A[1] = 2", "training steps are taught with self-attention (lesson 9); this "
                                             "lesson's attention is cross");
    assert_apply_error(a, "Xs[4][1] = 1", "row 4 is out of range: Xs has rows 1 to 3");
    apply_ok(a, "temperature = 0.5"); /* what works with cross works as it does with self */
    apply_ok(a, "softmax = online");
    attn_run_to(a, STAGE_OUTPUT);
    assert_true(MAT_AT(&a->m[M_A], 0, 2) == 0.0);
}

/* Xs in a self-attention lesson names no matrix of it; padding in
 * self-attention refuses a window that leaves a row only padding. */
static void apply_xs_in_self(void **state)
{
    Fix *f = *state;
    assert_apply_error(&f->a, "Xs[1][1] = 1", "Xs is the source of cross-attention; this lesson's attention is "
                                              "self, edit X instead");
    f->a.pad[2] = 1; /* 猫 as a padding key */
    assert_apply_error(&f->a, "mask = window 1", "that mask would leave a query row with only padding keys, nothing "
                                                 "to attend to; choose a wider window or mask = none");
    apply_ok(&f->a, "mask = causal");
    attn_run_to(&f->a, STAGE_SOFTMAX);
    assert_true(MAT_AT(&f->a.m[M_A], 2, 2) == 0.0);
    assert_true(fabs(MAT_AT(&f->a.m[M_A], 2, 0) + MAT_AT(&f->a.m[M_A], 2, 1) - 1.0) < 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_row_copy),
        cmocka_unit_test(parse_row_set),
        cmocka_unit_test(parse_cell_set),
        cmocka_unit_test(parse_options_and_reset),
        cmocka_unit_test(parse_whitespace),
        cmocka_unit_test(format_round_trip),
        cmocka_unit_test(format_truncates),
        cmocka_unit_test(error_empty),
        cmocka_unit_test(error_unknown_matrix),
        cmocka_unit_test(error_lists_fit_the_lesson),
        cmocka_unit_test(target_bare_a_needs_a_head),
        cmocka_unit_test(error_computed_target),
        cmocka_unit_test(error_missing_punctuation),
        cmocka_unit_test(error_index),
        cmocka_unit_test(error_number),
        cmocka_unit_test(error_trailing),
        cmocka_unit_test(error_option_value),
        cmocka_unit_test(error_row_rhs),
        cmocka_unit_test(error_without_column),
        cmocka_unit_test(error_huge_index),
        cmocka_unit_test(parse_unicode_minus_everywhere),
        cmocka_unit_test(ref_scanner),
        cmocka_unit_test(numbers_ignore_locale),
        cmocka_unit_test_setup_teardown(apply_row_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_x_row, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_w_cell, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_q_cell_unreached, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_row_copy_unreached, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_copy_after_option_change, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_options, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_new_options, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_swap, setup, teardown),
        cmocka_unit_test_setup_teardown(append_names_in_state, setup, teardown),
        cmocka_unit_test(parse_new_errors),
        cmocka_unit_test_setup_teardown(apply_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_width_mismatch, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_reset_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_failure_changes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(apply_messages_singular, setup_tiny, teardown),
        cmocka_unit_test_setup_teardown(apply_cross, setup_cross, teardown),
        cmocka_unit_test_setup_teardown(apply_xs_in_self, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
