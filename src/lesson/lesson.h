/* lesson.h - the lesson model and its loader (YAML, libyaml's document API).
 *
 * A Lesson is what a lesson file says: tokens, X, the weights (drawn or
 * written out), overrides of Q/K/V rows, options and the step script.
 * lesson_load_buffer() returns a complete lesson or one error of the form
 * "FILE:LINE:COL: what is wrong, what is expected" (1-based, from libyaml's
 * marks), the first in file order; it never half-succeeds and never exits.
 * The *_all forms also list every error found (up to 20, in file order) for
 * --check. The caller owns the Lesson
 * and releases it with lesson_free(). lesson_base() builds the pipeline
 * state the lesson starts from (nothing reached).
 *
 * Where it lives: load.c holds the two lesson_load_* entry points and the
 * file's top level, steps.c the step script, schema.c the readers both use
 * (document -> values, with messages); ydoc.c builds the document from
 * libyaml's checked events; diag.c writes the messages; ref.c reads
 * "M[i][j]" references; num.c reads numbers; lesson.c holds the run-time
 * operations below (free, base state, expect check). */
#ifndef QKV_LESSON_H
#define QKV_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include "core/attn.h"
#include "core/model.h"
#include "action.h"
#include "ask.h"
#include "text/text.h"

#define LESSON_MAX_BYTES (1024 * 1024)  /* larger files are refused unread */
#define LESSON_MAX_STEPS 256
#define LESSON_MAX_ACTIONS 16           /* per step */
#define LESSON_MAX_EXPECT 32            /* per step */
/* Gradient steps a lesson's script (its do: actions and its edited: log)
 * may take in all: every move between steps replays them, so more would
 * hang --check and the view (DESIGN.md "Speed and limits"). */
#define LESSON_MAX_GRAD_STEPS 100000
#define LESSON_ERR_MAX 512

typedef enum { FOCUS_NONE, FOCUS_ROW, FOCUS_CELL } FocusKind;

typedef struct {
    FocusKind kind;
    MatId mat;
    int i, j;           /* 0-based; j unused for FOCUS_ROW */
    ModelRef mref;      /* a model lesson's focus ("L2.A1[3][1]"): mref.kind != MM_NONE, mat unused */
} Focus;

/* One expected value, or a row of them: "A[1]": [0.873, 0.076, 0.052]
 * or "S[1][2]": 0.006. tol is half a unit of the last written decimal.
 * val and tol (n each) live in the step's one block with its expects
 * (Step.expect), not in arrays of MAT_MAX: 1 KB an expect was 32 KB to
 * clear for lesson 1. */
typedef struct {
    MatId mat;
    int i, j;           /* j = -1 for a whole row */
    ModelRef mref;      /* a model lesson's "L1.p[3][2]": mref.kind != MM_NONE, mat unused */
    int n;
    double *val;
    double *tol;
    int line, col;      /* where it was written, for --check messages */
} Expect;

/* Where a text field's scalar is in the file, for messages about a place
 * inside it: line (1-based; 0: not recorded), col (0-based, of the
 * scalar's first character), quote (1 quoted, 0 plain: byte k of the text
 * is at col + quote + its characters before k; -1 over several lines or a
 * block: the scalar's start is all that is known); alone: a {zh, en}
 * mapping left this language out (or empty), so the other language's
 * text, at line and col, shows in its place (--check names it). */
typedef struct {
    int line, col, quote;
    bool alone;
} TextAt;

typedef struct {
    int stage;                      /* 1..5 (6 with W_O); a model lesson's 1..8 (MSTAGE_*) */
    int layer;                      /* a model lesson's layer shown, 1..layers (stage 8: the last) */
    Focus focus;
    int nact;
    Action *act;                    /* nact of them, allocated as written */
    char **act_text;                /* as written, for --dump */
    /* edited: a saved lesson's record of the student's actions made at
     * this step (save.h), applied after do:; from this step on the lesson
     * departs from its own script (departures.h) */
    int nedit;
    Action *edit;
    char **edit_text;               /* as written */
    Text say;                       /* may hold {REF} templates (template.h) */
    int nask;
    Ask *ask;                       /* exercises (ask.h), nask of them */
    Text question;                  /* the asks' words (question:), may hold {REF}; empty: none */
    TextAt say_at[LANG_COUNT], question_at[LANG_COUNT]; /* where they are written */
    int nexpect;
    Expect *expect;                 /* one allocation: the expects, then their values */
    int line;                       /* where the step starts */
} Step;

struct LessonModel;

typedef struct {
    char *file;                     /* the name used in messages */
    /* a model lesson's vocab, model, weights and train: (lmodel.h); NULL:
     * a one-layer lesson, every field below as it always was */
    struct LessonModel *model;
    Text title, about;
    TextAt title_at[LANG_COUNT], about_at[LANG_COUNT];
    int ntok;
    char **tokens;                  /* UTF-8, as written (sanitise to show) */
    int d_model, d_k, d_v;          /* d_k, d_v: per head */
    int heads;                      /* 1..ATTN_HEADS_MAX */
    int d_out;                      /* W_O's columns, 0 without W_O */
    Mat X, Wq, Wk, Wv, Wo;          /* Wq, Wk: d_model x heads*d_k; Wo: heads*d_v x d_out */
    bool random;                    /* weights were drawn */
    bool reseeded;                  /* drawn again with another seed (lesson_reseed) */
    unsigned long seed;
    unsigned long own_seed;         /* the seed the file wrote (seed before lesson_reseed) */
    double rscale;
    /* variants: (variants.h): what --variant K adds a draw to, when the
     * weights are written out; nvary = 0: the lesson cannot vary */
#define VARY_MAX 4
    int nvary;
    MatId vary[VARY_MAX];           /* in the order add: names them */
    double vscale;
    int vdecimals;
    Mat vown[VARY_MAX];             /* the written weights, kept at the first draw */
    /* overrides: rows of Q, K, V set by hand */
    bool override[3][MAT_MAX];
    unsigned short ovh[3][MAT_MAX]; /* which heads' parts ("Q2[1]"), 0: the whole row */
    Mat over[3];                    /* ntok x d_k / d_k / d_v; only flagged rows used */
    Scale scale;
    Softmax softmax;
    Mask mask;                      /* options: mask (none) */
    double temp;                    /* options: temperature (1; 0.05..20) */
    Positions positions;            /* options: positions (none) */
    double lr;                      /* options: lr, the learning rate (0.5; > 0) */
    /* today's models (DESIGN.md "Attention in today's models"), read by optload.c (the option table, options.h) */
    int kv_heads;                   /* kv_heads: K/V heads, divides heads (0: = heads) */
    int window;                     /* options: mask: window W */
    double rope_base;               /* options: rope_base (10000) */
    int offset;                     /* options: offset (0) */
    int block;                      /* options: block (2) */
    /* cross-attention and padding keys (DESIGN.md "From a head to a model";
     * loadmats.c): attention: cross (the option table's OF_TOP row) with
     * source: tokens and their rows Xs (nsrc x d_model, written or drawn
     * after the weights: xs_drawn); pad: one 0/1 per key (npad of them, 0:
     * not given) */
    int attention;                  /* ATTENTION_SELF or ATTENTION_CROSS */
    int nsrc;
    char **source;                  /* UTF-8, as written (sanitise to show) */
    Mat Xs;
    bool xs_drawn;
    int npad;
    unsigned char pad[MAT_MAX];
    int digits;                     /* 1..6 */
    int start;                      /* 1-based step the view opens at (0: first) */
    int nsteps;
    Step *steps;
    bool steps_given;               /* false: one step per stage was made up */
    /* edited: a saved lesson's record of the student's edits that made its
     * numbers, in the action language ("Q[2][1] = 5", "mask = causal"): the
     * lesson departs from its own script at every step (live.h). */
    int nedited;
    char **edited;
} Lesson;

/* Parse `len` bytes of YAML named `file`. On success fills *out and returns
 * true. On failure returns false and writes one line (no newline) to err. */
bool lesson_load_buffer(const char *file, const char *buf, size_t len,
                        Lesson *out, char *err, size_t errlen);
/* Read and parse a file. Errors as above, including unreadable or too-big
 * files ("FILE: cannot read: reason"). */
bool lesson_load_file(const char *path, Lesson *out, char *err, size_t errlen);
/* The same with every message (the first 20 in file order, and how many in
 * all) in *list (diag.h; NULL: none), including those the loader found past
 * the first: another step, another row, the lines above a YAML syntax
 * error. flags: LESSON_LOAD_NO_NARRATION: about:, say: and question: are
 * neither read nor checked (they stay empty), for --json, which prints none
 * of them. */
#define LESSON_LOAD_NO_NARRATION 1u
/* With LESSON_LOAD_NO_NARRATION the loader first empties the narration's
 * one-line quoted text (skim.h), which gives the same lesson and the same
 * messages; LESSON_LOAD_FULL_PARSE parses the bytes as they are, for the
 * test that checks the two agree (tests/test_load.c). */
#define LESSON_LOAD_FULL_PARSE 2u
struct DiagList;
bool lesson_load_buffer_all(const char *file, const char *buf, size_t len, Lesson *out, char *err, size_t errlen,
                            struct DiagList *list, unsigned flags);
bool lesson_load_file_all(const char *path, Lesson *out, char *err, size_t errlen, struct DiagList *list,
                          unsigned flags);
void lesson_free(Lesson *l);

/* --variant K: draw the lesson's random weights again with seed K, in the
 * order its random: block describes (numpy's legacy RandomState(K).randn,
 * Wq then Wk then Wv, then Wo when there is one, times the lesson's scale);
 * or, for written-out weights, draw what its variants: declares
 * (variants.h). Sets seed and reseeded; the lesson's expect: values no
 * longer hold for the new numbers. Returns false, changing nothing, when the
 * lesson writes its weights out and declares no variants: (or out of
 * memory). May be called again on the same lesson. */
bool lesson_reseed(Lesson *l, unsigned long seed);

/* Fill a (freshly zeroed) Attn with the lesson's starting state: shapes,
 * X, the Ws, the overridden rows, the options. Nothing is reached. */
bool lesson_base(const Lesson *l, Attn *a);
/* Does the lesson have an about: text (in any language)? The view and
 * --svg then show a title card before step 1. */
static inline bool lesson_has_about(const Lesson *l)
{
    return (l->about.s[LANG_EN] && *l->about.s[LANG_EN]) || (l->about.s[LANG_ZH] && *l->about.s[LANG_ZH]);
}

/* The name of the token in row i of state a (a swap moves names with their
 * rows): the lesson's token a->tok[i], as written (sanitise to show). */
const char *lesson_token(const Lesson *l, const Attn *a, int i);
/* Key j's name: a source token with cross-attention, else lesson_token. */
const char *lesson_key_token(const Lesson *l, const Attn *a, int j);
/* Are matrix id's rows the source's (Xs, K, V and their heads' with
 * cross-attention)? Row i's name, a source token or a token. */
bool lesson_rows_are_source(const Attn *a, MatId id);
const char *lesson_row_token(const Lesson *l, const Attn *a, MatId id, int i);

/* Check one expectation against a state. Returns true when it holds; on
 * failure writes "A[1][2] is 0.337, expected 0.873 (within 0.0005)" to msg,
 * one such part per wrong cell of a row joined by "; " (ending "; and N
 * more" when msg is full). */
bool expect_check(const Expect *e, const Attn *a, int digits, char *msg, size_t len);
/* The same for a model lesson's expectation (e->mref) against a model's
 * state: "L2.A1[3][1] is 0.337, expected 0.873 (within 0.0005)". */
bool expect_check_model(const Expect *e, const Model *m, int digits, char *msg, size_t len);
/* Write what an expectation asks for, with the decimals it was written
 * with: "A[1] = [0.873, 0.076, 0.052]" or "S[1][2] = 0.006" (for --dump's
 * "expect: ... holds"). */
void expect_describe(const Expect *e, char *buf, size_t len);

#endif
