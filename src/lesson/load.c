/* load.c - a lesson file's top level: from a YAML document to a Lesson
 * (see lesson.h for the contract of lesson_load_buffer() and
 * lesson_load_file()).
 *
 * Loading reads the bytes once, in two passes:
 *   1. ydoc_read() builds the document from libyaml's checked event stream
 *      (ydoc.h: aliases, anchors, extra documents, deep nesting and libyaml's
 *      own errors become "FILE:LINE:COL: ..." messages);
 *   2. the walker, which only descends into the shapes a lesson has (so it
 *      never recurses on its own), fills a Lesson, checking every key, size,
 *      index and number against the lesson's shapes, in dependency order:
 *      tokens before X, X before the weights, shapes before the steps. This
 *      file walks the top level (format, title, about, tokens, X, weights,
 *      overrides, options, start; loadmats.c the tokens, X and the weights,
 *      optload.c the options);
 *      steps.c walks the step script; all read
 *      values with schema.h, which writes the messages through diag.h.
 * Any error frees everything: the caller gets a complete lesson or one line.
 * The run-time operations on a loaded lesson (free, base state, expect
 * check) are in lesson.c. */
#include "lesson.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "core/rng.h"
#include "text/i18n.h"
#include "text/num.h"
#include "embedded.h"
#include "loadmats.h"
#include "schema.h"
#include "skim.h"
#include "template.h"
#include "steps.h"
#include "variants.h"
#include "optload.h"
#include "modelload.h"

#define FORMAT_ID "qkvtutor/1"

/* ---- overrides ------------------------------------------------------ */

/* One override "Q[i]": [..]: a row of Q, K or V set by hand. */
static bool load_override(Loader *c, const yaml_node_t *k, const yaml_node_t *v, Lesson *l)
{
    Ref r;
    char num[32];
    if (!schema_want_text(c, k, _("an overrides key")))
        return false;
    const char *s = ydoc_str(k);
    if (ref_parse(s, &r) != REF_OK || ref_matrix(&r) != REF_OK || attn_mat_base(r.mat) < M_Q ||
        attn_mat_base(r.mat) > M_V || r.n != 1)
        return diag_fail(&c->d, k, _("overrides set rows of Q, K or V like \"Q[1]\", found %s"),
                         diag_quote(&c->d, s));
    int head = attn_mat_head(r.mat);
    if (head > l->heads)
        return l->heads == 1 ? diag_fail(&c->d, k, _("%s names head %d, but this lesson has one head"),
                                         diag_quote(&c->d, s), head)
                             : diag_fail(&c->d, k, _("%s names head %d, but this lesson has %d heads"),
                                         diag_quote(&c->d, s), head, l->heads);
    MatId m = attn_mat_base(r.mat);
    if (l->heads == 1)
        head = 0; /* Q1 is Q */
    int i = ref_row(&r), rows = m != M_Q && l->attention == ATTENTION_CROSS ? l->nsrc : l->ntok;
    if (i >= rows)
        return diag_fail(&c->d, k, m != M_Q && l->attention == ATTENTION_CROSS
                                       ? _("row %s is out of range in %s, %s has %d row%s (one per source token)")
                                       : _("row %s is out of range in %s, %s has %d row%s (one per token)"),
                         schema_index_text(&r.idx[0], num, sizeof num), diag_quote(&c->d, s), attn_mat_name(m),
                         rows, rows == 1 ? "" : "s");
    unsigned short bit = head ? (unsigned short)(1u << (head - 1)) : 0;
    unsigned short had = l->ovh[m - M_Q][i];
    if (l->override[m - M_Q][i] && (had == 0 || bit == 0 || (had & bit)))
        return diag_fail(&c->d, k, _("%s is given twice in overrides"), diag_quote(&c->d, s));
    Mat *o = &l->over[m - M_Q];
    const char *width = m == M_V ? "d_v" : "d_k";
    int w = head ? (m == M_V ? l->d_v : l->d_k) : o->cols, c0 = head ? (head - 1) * w : 0;
    if (!diag_want(&c->d, v, YAML_SEQUENCE_NODE, _("%s must be a row of %d numbers"), ydoc_str(k), w) ||
        !schema_lookalikes(c, v))
        return false;
    if (ydoc_seq_len(v) != w)
        return schema_row_length_fail(c, v, _("%s needs %s = %d numbers, it has %d"), ydoc_str(k),
                                      head || l->heads == 1 ? width : m == M_V ? "heads x d_v" : "heads x d_k", w,
                                      ydoc_seq_len(v));
    for (int col = 0; col < w; col++)
        if (!schema_num(c, ydoc_seq_item(c->doc, v, col), &MAT_AT(o, i, c0 + col), NULL))
            return false;
    l->override[m - M_Q][i] = true;
    l->ovh[m - M_Q][i] = head ? (unsigned short)(had | bit) : 0;
    return true;
}

/* overrides: (optional) hand-set rows. The override matrices are always
 * allocated, ntok x d_k / d_k / d_v, so lesson_base() can rely on them. */
static bool load_overrides(Loader *c, const yaml_node_t *root, const yaml_node_t *n, Lesson *l)
{
    int nk = l->attention == ATTENTION_CROSS ? l->nsrc : l->ntok; /* K and V: a row per key */
    if (!mat_new(&l->over[0], l->ntok, l->Wq.cols) || !mat_new(&l->over[1], nk, l->Wk.cols) ||
        !mat_new(&l->over[2], nk, l->Wv.cols))
        return diag_oom(&c->d, root);
    if (!n)
        return true;
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE,
                   _("overrides must be a mapping like {\"Q[1]\": [0.3, -2.8, -2.5]}")))
        return false;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
        if (!load_override(c, ydoc_node(c->doc, p->key), ydoc_node(c->doc, p->value), l))
            return false;
    return true;
}

static bool load_start(Loader *c, const yaml_node_t *n, Lesson *l)
{
    unsigned long long v;
    if (!n)
        return true;
    if (!schema_uint(c, n, 1000000, &v) || v < 1 || v > (unsigned long long)l->nsteps)
        return diag_fail(&c->d, n, _("start must be a step number from 1 to %d, found %s"), l->nsteps,
                         diag_found(&c->d, n));
    l->start = (int)v;
    return true;
}

/* ---- the top level --------------------------------------------------------------- */

enum { T_FORMAT, T_TITLE, T_ABOUT, T_TOKENS, T_X, T_WEIGHTS, T_OVERRIDES, T_OPTIONS, T_START, T_STEPS, T_HEADS,
       T_EDITED, T_VARIANTS, T_KV_HEADS, T_VOCAB, T_MODEL, T_SAMPLING, T_TRAIN, T_SOURCE, T_XS, T_ATTENTION,
       T_PAD, T_N };
static const char *const top_keys[T_N] = {"format", "title", "about", "tokens", "X", "weights",
                                          "overrides", "options", "start", "steps", "heads", "edited",
                                          "variants", "kv_heads", "vocab", "model", "sampling", "train",
                                          "source", "Xs", "attention", "pad"};

#define EDITED_MAX 1024

/* edited: a saved lesson's edits, each an action as the ':' prompt takes
 * it ("Q[2][1] = 5", "mask = causal"); the lesson then departs from its
 * own script at every step (live.h). */
static bool load_edited(Loader *c, const yaml_node_t *n, Lesson *l)
{
    if (!n)
        return true;
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE,
                   _("edited must be a list of actions like [\"Q[2][1] = 5\", \"mask = causal\"]")))
        return false;
    int cnt = ydoc_seq_len(n);
    if (cnt > EDITED_MAX)
        return diag_fail(&c->d, n, _("edited lists %d actions, at most %d are allowed"), cnt, EDITED_MAX);
    l->edited = calloc((size_t)(cnt > 0 ? cnt : 1), sizeof *l->edited);
    if (!l->edited)
        return diag_oom(&c->d, n);
    for (int k = 0; k < cnt; k++) {
        const yaml_node_t *item = ydoc_seq_item(c->doc, n, k);
        char err[LESSON_ERR_MAX];
        Action act;
        int col = 1;
        if (!schema_dup_text(c, item, "an edited: entry", &l->edited[k]))
            return false;
        l->nedited = k + 1;
        if (l->model) { /* a model lesson's actions: msession's parser (steps.h) */
            if (!steps_model_action_check(c, item, l))
                return false;
            continue;
        }
        if (!action_parse(l->edited[k], &act, err, sizeof err, &col))
            return diag_fail_at(&c->d, item->start_mark.line, schema_col(item, col > 0 ? (size_t)col - 1 : 0),
                                _("edited: %s"), err);
        if (!steps_count_training(c, item))
            return false;
    }
    return true;
}

static bool load_format(Loader *c, const yaml_node_t *n)
{
    if (n->type == YAML_SCALAR_NODE && strcmp(ydoc_str(n), FORMAT_ID) == 0)
        return true;
    return diag_fail(&c->d, n, _("format must be \"%s\", found %s"), FORMAT_ID, diag_found(&c->d, n));
}

/* Refuse a lesson without format, tokens, X or weights (a part read before a
 * syntax error stops there quietly). */
static bool check_required(Loader *c, const yaml_node_t *root, yaml_node_t **val)
{
    static const int req[] = {T_FORMAT, T_TOKENS, T_X, T_WEIGHTS};
    for (size_t k = 0; k < sizeof req / sizeof *req; k++)
        if (!val[req[k]] && c->partial)
            return false;
        else if (!val[req[k]])
            return diag_fail(&c->d, root,
                             _("missing key \"%s\", a lesson needs at least format, tokens, X and weights"),
                             top_keys[req[k]]);
    return true;
}

/* about: may quote X, the Ws, tokens and sizes (see template.h). Not
 * inlined: its Attn (3 KB) would deepen load_doc's frame for --json too. */
static __attribute__((noinline)) bool load_about_templates(Loader *c, const yaml_node_t *n, const Lesson *l)
{
    Attn shape = {0};
    if (!n || (!template_has_refs(l->about.s[LANG_EN]) && !template_has_refs(l->about.s[LANG_ZH])))
        return true;
    if (!lesson_base(l, &shape))
        return diag_oom(&c->d, n);
    bool ok = steps_templates(c, n, &shape, TEMPLATE_ABOUT, "about");
    attn_free(&shape);
    return ok;
}

/* What a model lesson does not write: X and the one-layer shapes. */
static bool model_refused(Loader *c, yaml_node_t **k)
{
    bool ok = true;
    if (k[T_X])
        ok = diag_fail(&c->d, k[T_X], _("X is not written in a model lesson: E and P make the stream (h = "
                                        "E[token] + P[position]); remove X"));
    static const int shapes[] = {T_HEADS, T_KV_HEADS}, others[] = {T_OVERRIDES, T_VARIANTS};
    for (int j = 0; j < 2; j++) {
        int t = shapes[j], u = others[j];
        if (k[t])
            ok = diag_fail(&c->d, k[t], _("in a model lesson %s is the model's: write it in model:, like model: "
                                          "{%s: ...}"), top_keys[t], top_keys[t]);
        if (k[u])
            ok = diag_fail(&c->d, k[u], _("%s is not part of a model lesson; remove it"), top_keys[u]);
    }
    for (int t = T_SOURCE; t <= T_PAD; t++)
        if (k[t])
            ok = diag_fail(&c->d, k[t], _("%s belongs to a one-layer lesson (cross-attention and padding keys are "
                                          "taught without model:); remove it"), top_keys[t]);
    return ok;
}

/* vocab:, sampling: and train: belong to a model lesson. */
static bool no_model_keys(Loader *c, yaml_node_t **k)
{
    bool ok = true;
    for (int t = T_VOCAB; t <= T_TRAIN; t++)
        if (k[t] && t != T_MODEL)
            ok = diag_fail(&c->d, k[t], _("%s belongs to a model lesson, one with a model: key; add model: "
                                          "{layers: 1, d_model: 8, ...} or remove %s"), top_keys[t], top_keys[t]);
    return ok;
}

/* A model lesson's top level (a model: key; modelload.h). */
static bool load_model_root(Loader *c, const yaml_node_t *root, yaml_node_t **v, yaml_node_t **k, bool keys,
                            Lesson *l)
{
    static const int req[] = {T_FORMAT, T_VOCAB, T_TOKENS, T_MODEL, T_WEIGHTS};
    for (size_t r = 0; r < sizeof req / sizeof *req; r++)
        if (!v[req[r]])
            return !c->partial && diag_fail(&c->d, root, _("missing key \"%s\", a model lesson needs format, vocab, "
                                                           "tokens, model and weights"), top_keys[req[r]]);
    bool ok = model_refused(c, k) && keys;
    ok = load_format(c, v[T_FORMAT]) && ok;
    ok = schema_text(c, v[T_TITLE], "title", &l->title) && ok;
    steps_text_at(c, v[T_TITLE], l->title_at);
    ok = (c->no_narration || schema_text(c, v[T_ABOUT], "about", &l->about)) && ok;
    if (!c->no_narration)
        steps_text_at(c, v[T_ABOUT], l->about_at);
    ModelNodes mn = {v[T_VOCAB], v[T_TOKENS], v[T_MODEL], v[T_WEIGHTS], v[T_OPTIONS], v[T_SAMPLING], v[T_TRAIN],
                     k[T_MODEL], k[T_WEIGHTS], k[T_TRAIN]};
    if (!modelload_lesson(c, root, &mn, l))
        return false;
    ok = load_edited(c, v[T_EDITED], l) && ok;
    ok = (c->no_narration || !v[T_ABOUT] || steps_model_text_check(c, v[T_ABOUT], l, NULL, "about")) && ok;
    c->digits = l->digits;
    bool steps = steps_model_load(c, root, v[T_STEPS], l);
    if (steps && !c->partial)
        steps = load_start(c, v[T_START], l);
    return ok && steps;
}

/* The top-level mapping: keys first, then each value in dependency order
 * (tokens before X, X before the weights, shapes before the steps). A part
 * that fails stops only what depends on it, so --check sees the others. */
static bool load_root(Loader *c, const yaml_node_t *root, Lesson *l)
{
    if (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0)
        return diag_fail_at(&c->d, 0, 0, _("the file is empty, "
                                           "a lesson needs at least format, tokens, X and weights"));
    if (!diag_want(&c->d, root, YAML_MAPPING_NODE,
                   _("the top level must be a mapping of keys like format:, tokens:, X:")))
        return false;
    Keys ks = {top_keys, T_N, _("key"), ""};
    yaml_node_t *v[T_N] = {0}, *k[T_N] = {0};
    bool keys = schema_keys(c, root, &ks, v, k);
    if (v[T_MODEL])
        return load_model_root(c, root, v, k, keys, l);
    if (!keys && (!v[T_FORMAT] || !v[T_TOKENS] || !v[T_X] || !v[T_WEIGHTS]))
        return false; /* "tokenz" (did you mean "tokens"?) says it */
    if (!check_required(c, root, v))
        return false;
    bool ok = load_format(c, v[T_FORMAT]);
    ok = schema_text(c, v[T_TITLE], "title", &l->title) && ok;
    steps_text_at(c, v[T_TITLE], l->title_at);
    bool about = c->no_narration || schema_text(c, v[T_ABOUT], "about", &l->about);
    if (!c->no_narration)
        steps_text_at(c, v[T_ABOUT], l->about_at);
    ok = load_edited(c, v[T_EDITED], l) && ok;
    bool heads = load_heads(c, v[T_HEADS], l) && options_kv_heads(c, v[T_KV_HEADS], l);
    bool x = load_tokens(c, v[T_TOKENS], l) && (load_x(c, v[T_X], l) || l->d_model > 0);
    bool cross = x && load_source(c, k[T_SOURCE], v[T_SOURCE], k[T_XS], v[T_XS], l) &&
                 load_attention(c, k[T_ATTENTION], v[T_ATTENTION], k[T_SOURCE], l) && load_pad(c, v[T_PAD], l);
    bool shapes = x && cross && heads && load_weights(c, k[T_WEIGHTS], v[T_WEIGHTS], l) &&
                  variants_load(c, k[T_VARIANTS], v[T_VARIANTS], l) && load_overrides(c, root, v[T_OVERRIDES], l);
    /* a bad option keeps its default, and the steps are checked all the
     * same: every error is listed, in file order */
    bool options = options_load(c, v[T_OPTIONS], l) && no_model_keys(c, k);
    options = options && load_cross_options(c, v[T_OPTIONS], v[T_PAD], l);
    if (!shapes)
        return false;
    c->digits = l->digits;
    bool steps = steps_load(c, root, v[T_STEPS], l);
    if (steps && !c->partial)
        steps = load_start(c, v[T_START], l);
    return keys && ok && about && options && steps && (c->no_narration || load_about_templates(c, v[T_ABOUT], l));
}

/* Build the lesson from a parsed document into *l. */
static bool walk(Loader *c, Lesson *l)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (!root)
        return diag_fail_at(&c->d, 0, 0, _("the file is empty, "
                                           "a lesson needs at least format, tokens, X and weights"));
    l->file = strdup(c->d.file);
    if (!l->file)
        return diag_oom(&c->d, root);
    return load_root(c, root, l);
}

/* Parse (or with rec, replay) and walk buf into *out (emptied first, and
 * again on failure: no copy of the Lesson on the stack); partial: the part
 * of a file before its syntax error. */
static bool load_doc(Loader *c, const char *buf, size_t len, const YdocRec *rec, Lesson *out)
{
    yaml_document_t doc;
    memset(out, 0, sizeof *out);
    if (!(rec ? ydoc_replay(&c->d, rec, buf, len, &doc) : ydoc_read(&c->d, buf, len, &doc)))
        return false;
    c->doc = &doc;
    c->src = buf;
    c->srclen = len;
    bool ok = walk(c, out) && c->d.failures == 0;
    ydoc_free(&doc);
    if (!ok) {
        lesson_free(out);
        memset(out, 0, sizeof *out);
        return false;
    }
    return true;
}

/* After a YAML syntax error at `line`, the errors above it: the file up to
 * the last top-level key at or before that line is read on its own, and
 * its messages join the list. */
static void load_before(const char *file, const char *buf, size_t len, size_t line, DiagList *list)
{
    size_t off = 0, cut = 0, at = 0;
    for (; off < len && at <= line; at++) {
        unsigned char ch = (unsigned char)buf[off];
        if (ch != ' ' && ch != '\t' && ch != '#' && ch != '-' && ch != '\n' && ch != '\r')
            cut = off;
        const char *nl = memchr(buf + off, '\n', len - off);
        off = nl ? (size_t)(nl - buf) + 1 : len;
    }
    if (cut == 0)
        return;
    Loader c = {.d = {.file = file, .list = list}, .partial = true};
    size_t keep = list->before;
    list->before = line;
    Lesson l;
    if (load_doc(&c, buf, cut, NULL, &l))
        lesson_free(&l);
    list->before = keep;
}

/* An empty list: only its first n messages are ever read, so the 10 KB
 * of them are not cleared (nor their pages touched) at every load. */
static void list_clear(DiagList *list)
{
    list->n = list->total = 0;
    list->before = 0;
}

/* A built-in lesson read from its own array (not a file with the same
 * bytes): its events were recorded at build time (ydoc.h). */
static const EmbeddedLesson *built_in(const char *buf, size_t len)
{
#ifdef QKV_NO_RECORDINGS
    return NULL; /* the web build has none (src/web/web.mk) */
#endif
    for (int k = 0; k < embedded_count; k++)
        if (embedded_lessons[k].data == buf && embedded_lessons[k].len == len)
            return &embedded_lessons[k];
    return NULL;
}

/* Load buf; every message also goes to list (may be NULL). */
static bool load_listed(const char *file, const char *buf, size_t len, Lesson *out, char *err, size_t errlen,
                        DiagList *list, unsigned flags)
{
    static DiagList own;     /* loading is single-threaded; too big for the stack of every caller */
    if (!list)
        list = &own;
    list_clear(list);
    Loader c = {.d = {.file = file ? file : _("(lesson)"), .err = err, .errlen = errlen, .list = list},
             .no_narration = (flags & LESSON_LOAD_NO_NARRATION) != 0};
    memset(out, 0, sizeof *out);
    if (errlen)
        err[0] = '\0';
    if (len > LESSON_MAX_BYTES) {
        char shown[DIAG_MSG_MAX / 2];
        snprintf(err, errlen, _("%s: cannot read: too big (%zu bytes), a lesson has at most %d bytes"),
                 text_shown(c.d.file, shown, sizeof shown), len, LESSON_MAX_BYTES);
        if (snprintf(list->m[0].text, sizeof list->m[0].text, "%s", err) >= 0)
            list->n = list->total = 1;
        return false;
    }
    const EmbeddedLesson *e = built_in(buf, len);
    if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
        buf += 3; /* a UTF-8 byte-order mark, as some Windows editors save */
        len -= 3;
    }
    /* --json reads no narration: libyaml need not scan it either (skim.h);
     * a built-in lesson's events were recorded skimmed too */
    bool skim = c.no_narration && !(flags & LESSON_LOAD_FULL_PARSE);
    const YdocRec *rec = !e ? NULL : skim ? e->skim : e->full;
    char *skimmed = skim && !rec ? malloc(len ? len : 1) : NULL;
    size_t slen = skimmed ? skim_narration(skimmed, buf, len) : (size_t)-1;
    if (slen != (size_t)-1) {
        buf = skimmed;
        len = slen;
    }
    bool ok = load_doc(&c, buf, len, rec, out);
    if (!ok && c.d.syntax && list->n == 1 && list->m[0].line > 0)
        load_before(c.d.file, buf, len, list->m[0].line, list);
    if (!ok) {
        diag_list_sort(list);
        if (errlen && list->n > 0)
            snprintf(err, errlen, "%s", list->m[0].text);
    }
    free(skimmed);
    return ok;
}

bool lesson_load_buffer(const char *file, const char *buf, size_t len,
                        Lesson *out, char *err, size_t errlen)
{
    return load_listed(file, buf, len, out, err, errlen, NULL, 0);
}

bool lesson_load_buffer_all(const char *file, const char *buf, size_t len, Lesson *out, char *err, size_t errlen,
                            DiagList *list, unsigned flags)
{
    return load_listed(file, buf, len, out, err, errlen, list, flags);
}

/* Read up to LESSON_MAX_BYTES + 1 bytes of f into a malloc'd buffer. */
static char *read_all(FILE *f, size_t *len)
{
    char *buf = malloc(LESSON_MAX_BYTES + 1);
    if (!buf)
        return NULL;
    *len = fread(buf, 1, LESSON_MAX_BYTES + 1, f);
    if (ferror(f)) {
        int e = errno;
        free(buf);
        errno = e ? e : EIO;
        return NULL;
    }
    return buf;
}

bool lesson_load_file(const char *path, Lesson *out, char *err, size_t errlen)
{
    return lesson_load_file_all(path, out, err, errlen, NULL, 0);
}

bool lesson_load_file_all(const char *path, Lesson *out, char *err, size_t errlen, DiagList *list, unsigned flags)
{
    if (list)
        list_clear(list);
    struct stat st;
    char shown[DIAG_MSG_MAX / 2];  /* the name as messages show it */
    text_shown(path, shown, sizeof shown);
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, _("%s: cannot read: %s"), shown, strerror(errno));
        return false;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > LESSON_MAX_BYTES) {
        snprintf(err, errlen, _("%s: cannot read: too big (%lld bytes), a lesson has at most %d bytes"), shown,
                 (long long)st.st_size, LESSON_MAX_BYTES);
        fclose(f);
        return false;
    }
    size_t len = 0;
    errno = 0;
    char *buf = read_all(f, &len);
    int e = errno;
    fclose(f);
    if (!buf) {
        snprintf(err, errlen, _("%s: cannot read: %s"), shown, strerror(e ? e : ENOMEM));
        return false;
    }
    bool ok = load_listed(path, buf, len, out, err, errlen, list, flags);
    free(buf);
    return ok;
}
