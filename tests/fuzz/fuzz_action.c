/* fuzz_action.c - libFuzzer target for the action language.
 *
 * Each input is one line of action text, as typed at the view's ':' prompt.
 * action_parse() must accept it or explain why (with a column inside the
 * text), never crash. An accepted action is applied to a small 3-token
 * state and the pipeline is run to the end. Properties checked (a failure
 * aborts):
 *   - the error column lies within the text (1 .. length + 1);
 *   - action_format() writes an action that parses back to the same action
 *     (the canonical form round-trips);
 *   - a refused action_apply() leaves the state unchanged. */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attn.h"
#include "core/explain.h"
#include "lesson/action.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setlocale(LC_ALL, "C.UTF-8");
    return 0;
}

static void die(const char *why, const char *text)
{
    fprintf(stderr, "fuzz_action: %s: \"%s\"\n", why, text);
    abort();
}

/* 3 tokens, d_model 4, d_k 3, d_v 2: the widths differ so width checks matter. */
static bool small_state(Attn *a)
{
    if (!attn_init(a, 3, 4, 3, 2))
        return false;
    for (int m = M_X; m <= M_WV; m++)
        for (int k = 0; k < a->m[m].rows * a->m[m].cols; k++)
            a->m[m].v[k] = (double)((k * 7 + m * 3) % 11 - 5) / 10.0;
    attn_run_to(a, STAGE_OUTPUT);
    return true;
}

static bool same_mats(const Attn *x, const Attn *y)
{
    for (int m = 0; m < M_COUNT; m++)
        if (!mat_same_shape(&x->m[m], &y->m[m]) ||
            (x->m[m].v && memcmp(x->m[m].v, y->m[m].v, sizeof(double) * (size_t)(x->m[m].rows * x->m[m].cols)) != 0))
            return false; /* matrices a state does not have (W_O, heads) are NULL in both */
    return memcmp(x->override, y->override, sizeof x->override) == 0 && x->scale == y->scale &&
           x->softmax == y->softmax;
}

/* The formatted action must parse back to the same action. */
static void check_round_trip(const Action *act, const char *text)
{
    char buf[4096], err[256];
    Action back;
    int col = 0;
    action_format(act, buf, sizeof buf);
    if (!action_parse(buf, &back, err, sizeof err, &col)) {
        fprintf(stderr, "fuzz_action: formatted as \"%s\": %s\n", buf, err);
        die("the canonical form does not parse back", text);
    }
    if (memcmp(&back, act, sizeof back) != 0) {
        fprintf(stderr, "fuzz_action: formatted as \"%s\"\n", buf);
        die("the canonical form parses to another action", text);
    }
}

static void apply(const Action *act, const char *text)
{
    Attn a = {0}, copy = {0};
    char err[256];
    if (!small_state(&a) || !attn_copy(&copy, &a))
        goto out;
    if (!action_apply(&a, act, err, sizeof err)) {
        if (!same_mats(&a, &copy))
            die("a refused action changed the state", text);
        goto out;
    }
    attn_run_to(&a, STAGE_OUTPUT);
    for (int m = 0; m < M_COUNT; m++) {
        Explain e;
        explain_cell(&a, (MatId)m, act->i, act->j < 0 ? 0 : act->j, &e);
    }
out:
    attn_free(&a);
    attn_free(&copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    Action act;
    char err[256];
    int col = 0;
    if (action_parse(text, &act, err, sizeof err, &col)) {
        check_round_trip(&act, text);
        apply(&act, text);
    } else if (col < 1 || (size_t)col > strlen(text) + 1) {
        die("the error column is outside the text", text);
    }
    free(text);
    return 0;
}
