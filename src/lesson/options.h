/* options.h - the one option table: every setting a lesson's options: (or
 * its top level, for a shape) may give, written once (DESIGN.md
 * "Architecture", tmux's options-table.c style).
 *
 * A row holds an option's name (the lesson key, the action word, the JSON
 * and saved name are all this one spelling), its type and values, its range
 * and default, where its value lives in a Lesson and in a state, which
 * stage it makes stale, and its messages, which take the range as
 * arguments (no translated text repeats a bound). Every layer reads the
 * table: the loader (optload.c: keys, range checks), the action parser
 * (action.c: words, range checks; the action kind of a row is read there,
 * action_option()), apply.c and actiontext.c, saving,
 * --json's "options", the worksheets' option rows and the view's bounds.
 *
 * Adding an option is adding a row to OPTION_ROWS (and its value's field in
 * Lesson and Attn); the layers pick it up by its flags. No I/O, no
 * allocation; the table is const. */
#ifndef QKV_OPTIONS_H
#define QKV_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "core/attn.h"
#include "text/i18n.h"

/* What an option's value is. */
typedef enum {
    OT_WORDS,   /* one of up to three words (an enum in the state) */
    OT_NUMBER,  /* a finite number (a double) */
    OT_WHOLE    /* a whole number (an int) */
} OptType;

/* Where a row may be written and who reads it. */
enum {
    OF_OPTIONS = 1u,  /* a key of options: */
    OF_TOP = 2u,      /* a top-level key (a shape, set when the lesson loads) */
    OF_ACTION = 4u,   /* an action: "key = value" */
    OF_JSON = 8u,     /* in --json's "options" */
    OF_ALWAYS = 16u,  /* saved even at its default */
    OF_ABOVE = 32u,   /* OT_NUMBER: above lo, no upper bound (else lo..hi, both allowed) */
    OF_FINITE = 64u,  /* OT_NUMBER: inf and nan get the row's range message */
    OF_WIDTH = 128u   /* OT_WORDS: the third word takes a whole number (mask: window 2) */
};

/* X(id, key, type, words, lo, hi, default, flags, action kind, Lesson field,
 *   Attn field, stage made stale, loader message, what)
 * The loader message takes (key, lo, hi, found) for a range lo..hi and
 * (key, lo, found) for OF_ABOVE, each as text; NULL: the type's own
 * (OT_WHOLE: "KEY must be a whole number from LO to HI (WHAT), found X").
 * WHAT is a short phrase: what the option is (NULL: none needed). Rows are in the order
 * options: keys are listed, saved and written to --json. */
#define OPTION_ROWS(X)                                                                                                \
    X(OPT_SCALE, "scale", OT_WORDS, W3("none", "sqrt_dk", NULL), 0, 1, SCALE_SQRT_DK,                              \
      OF_OPTIONS | OF_ACTION | OF_JSON | OF_ALWAYS, ACT_SCALE, scale, scale, STAGE_QKV, NULL,                          \
      NULL)                                                                          \
    X(OPT_SOFTMAX, "softmax", OT_WORDS, W3("naive", "stable", "online"), 0, 2, SOFTMAX_STABLE,                      \
      OF_OPTIONS | OF_ACTION | OF_JSON | OF_ALWAYS, ACT_SOFTMAX, softmax, softmax, STAGE_SCORES, NULL,                \
      NULL)                                                                             \
    X(OPT_DIGITS, "digits", OT_WHOLE, W3(NULL, NULL, NULL), 1, 6, 3, OF_OPTIONS | OF_ALWAYS, ACT_RESET, digits, 0,    \
      0, N_("%s must be a whole number from %s to %s, found %s"), NULL)                              \
    X(OPT_MASK, "mask", OT_WORDS, W3("none", "causal", "window"), 0, 2, MASK_NONE,                                  \
      OF_OPTIONS | OF_ACTION | OF_JSON | OF_WIDTH, ACT_MASK, mask, mask, STAGE_QKV, NULL,                            \
      NULL)                                                                              \
    X(OPT_TEMP, "temperature", OT_NUMBER, W3(NULL, NULL, NULL), ATTN_TEMP_MIN, ATTN_TEMP_MAX, 1,                     \
      OF_OPTIONS | OF_ACTION | OF_JSON, ACT_TEMP, temp, temp, STAGE_SCORES,                                            \
      N_("%s must be from %s to %s (1 is the plain softmax), found %s"), NULL)                  \
    X(OPT_POS, "positions", OT_WORDS, W3("none", "sinusoidal", "rope"), 0, 2, POS_NONE,                             \
      OF_OPTIONS | OF_ACTION | OF_JSON, ACT_POS, positions, positions, STAGE_NONE, NULL,                             \
      NULL)                                                                           \
    X(OPT_KV_HEADS, "kv_heads", OT_WHOLE, W3(NULL, NULL, NULL), 1, ATTN_HEADS_MAX, 0, OF_TOP | OF_JSON, ACT_RESET,    \
      kv_heads, kv_heads, 0, NULL, NULL)                                        \
    X(OPT_LR, "lr", OT_NUMBER, W3(NULL, NULL, NULL), 0, 0, ATTN_LR_DEFAULT, OF_OPTIONS | OF_ACTION | OF_ABOVE |       \
      OF_FINITE, ACT_LR, lr, lr, 0, N_("%s must be a number above %s (the learning rate), found %s"),                 \
      NULL)                                                                                       \
    X(OPT_ROPE_BASE, "rope_base", OT_NUMBER, W3(NULL, NULL, NULL), 1, 0, ATTN_ROPE_BASE_DEFAULT,                     \
      OF_OPTIONS | OF_ACTION | OF_JSON | OF_ABOVE, ACT_ROPE_BASE, rope_base, rope_base, STAGE_NONE,                   \
      N_("%s must be a number above %s (10000 in most models), found %s"), NULL)                       \
    X(OPT_OFFSET, "offset", OT_WHOLE, W3(NULL, NULL, NULL), 0, ATTN_OFFSET_MAX, 0,                                  \
      OF_OPTIONS | OF_ACTION | OF_JSON, ACT_OFFSET, offset, offset, STAGE_NONE, NULL,                                \
      N_("the first token's position"))                                                                              \
    X(OPT_BLOCK, "block", OT_WHOLE, W3(NULL, NULL, NULL), 1, MAT_MAX, ATTN_BLOCK_DEFAULT,                           \
      OF_OPTIONS | OF_ACTION | OF_JSON, ACT_BLOCK, block, block, STAGE_SCORES, NULL,                                  \
      N_("keys per block of the online softmax"))                                                                   \
    X(OPT_ATTENTION, "attention", OT_WORDS, W3("self", "cross", NULL), 0, 1, ATTENTION_SELF, OF_TOP,                  \
      ACT_RESET, attention, attention, 0, NULL, NULL)

#define OPTION_ID(id, ...) id,
typedef enum { OPTION_ROWS(OPTION_ID) OPT_COUNT } OptId;
#undef OPTION_ID

typedef struct {
    OptId id;
    const char *key;          /* the one spelling: lesson key, action word, JSON and saved name */
    OptType type;
    const char *words[3];     /* OT_WORDS: value k's word (NULL past the last) */
    double lo, hi;            /* the range (OF_ABOVE: above lo) */
    double def;               /* the default */
    unsigned flags;           /* OF_* */
    size_t in_attn;           /* offsetof(Attn, ...); 0: not in the state */
    int stale;                /* setting it makes this stage and those after it stale */
    const char *load_msg;     /* untranslated (N_), NULL: the type's own; see OPTION_ROWS */
    const char *what;         /* untranslated (N_), or NULL */
} OptRow;

extern const OptRow option_table[OPT_COUNT];

/* The row of an option. */
static inline const OptRow *option_row(OptId id)
{
    return &option_table[id];
}
/* The row with this key or action word ("T" is temperature's, as the
 * header shows it), n bytes of w; NULL when none. */
const OptRow *option_by_word(const char *w, int n);
/* Is v within the row's range? */
bool option_in_range(const OptRow *r, double v);
/* The range's ends as text ("0.05", "20"), shortest round-trip. */
void option_bounds(const OptRow *r, char *lo, char *hi, size_t len);
/* The keys of options: in table order into names (room for OPT_COUNT);
 * returns how many. */
int option_keys(const char **names);

/* The value of row r in a state (a word's index, a number or a whole
 * number, as a double; kv_heads as attn_kv_heads gives it). */
double option_get(const Attn *a, const OptRow *r);
/* The int or double at offset `at` of base, as row r stores it. */
double option_value_at(const void *base, const OptRow *r, size_t at);
/* The value as a lesson file, an action and --json write it: the word
 * ("window 2" for mask's window), or the number shortest round-trip
 * (fmt_exact). */
const char *option_text(const OptRow *r, double v, int width, char *buf, size_t len);
/* The row's value of a state as text (option_text of option_get). */
const char *option_state_text(const Attn *a, const OptRow *r, char *buf, size_t len);
#endif
