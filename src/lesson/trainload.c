/* trainload.c - a model lesson's train: section (see trainload.h). */
#include "trainload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lmodel.h"
#include "modelkeys.h"
#include "text/afile.h"
#include "text/i18n.h"
#include "text/text.h"

/* A whole number lo..hi at n (absent: def), refused naming the range. */
static bool train_whole(Loader *c, const yaml_node_t *n, const char *key, long lo, long hi, long def, long *out)
{
    unsigned long long v;
    *out = def;
    if (!n)
        return true;
    char a[24], z[24];
    if (!schema_uint(c, n, 1000000000ULL, &v) || (long long)v < lo || (long long)v > hi) {
        snprintf(a, sizeof a, "%ld", lo);
        snprintf(z, sizeof z, "%ld", hi);
        return diag_fail(&c->d, n, _("%s must be a whole number from %s to %s, found %s"), key, a, z,
                         diag_found(&c->d, n));
    }
    *out = (long)v;
    return true;
}

static bool train_seed(Loader *c, const yaml_node_t *n, unsigned long def, unsigned long *out)
{
    unsigned long long v;
    *out = def;
    if (!n)
        return true;
    if (!schema_uint(c, n, 4294967295ULL, &v))
        return diag_fail(&c->d, n, _("seed must be a whole number from 0 to 4294967295, found %s"),
                         diag_found(&c->d, n));
    *out = (unsigned long)v;
    return true;
}

/* ---- data: copy ------------------------------------------------------------------ */

/* task: copy, length: [lo, hi] (1 <= lo <= hi, 2 hi <= ctx - 1), seed. */
static bool data_copy(Loader *c, const yaml_node_t *task, const yaml_node_t *len, const yaml_node_t *seed,
                      const LessonModel *lm, TrainSpec *t)
{
    int ctx = lm->cfg.ctx, most = (ctx - 1) / 2;
    long lo = 3, hi = 6;
    if (task->type != YAML_SCALAR_NODE || strcmp(ydoc_str(task), "copy") != 0)
        return diag_fail(&c->d, task, _("task must be copy (the only task), found %s"), diag_found(&c->d, task));
    if (most < 1)
        return diag_fail(&c->d, task, _("task: copy needs a segment and its copy after <s>, so ctx must be at least "
                                        "3; this model has ctx = %d"), ctx);
    t->data = TDATA_COPY;
    if (len && (len->type != YAML_SEQUENCE_NODE || ydoc_seq_len(len) != 2))
        return diag_fail(&c->d, len, _("length must be a range [lo, hi] like [3, 6], found %s"), diag_found(&c->d, len));
    if (len && (!train_whole(c, ydoc_seq_item(c->doc, len, 0), "length's lo", 1, most, 3, &lo) ||
                !train_whole(c, ydoc_seq_item(c->doc, len, 1), "length's hi", lo, most, 6, &hi)))
        return false;
    if (!len && hi > most) /* the default [3, 6] in a short context */
        return diag_fail(&c->d, task, _("task: copy's default length [3, 6] does not fit ctx = %d (a segment and "
                                        "its copy in ctx - 1); write length: [lo, hi] with hi at most %d"), ctx, most);
    t->lmin = (int)lo;
    t->lmax = (int)hi;
    return train_seed(c, seed, 1, &t->data_seed);
}

/* ---- data: sequences and text ------------------------------------------------------ */

/* Room for n sequences of up to ctx tokens. */
static bool seq_room(Loader *c, const yaml_node_t *at, TrainSpec *t, int n, int ctx)
{
    t->seq_len = calloc((size_t)(n > 0 ? n : 1), sizeof *t->seq_len);
    t->seq_tok = calloc((size_t)(n > 0 ? n : 1) * (size_t)ctx, sizeof *t->seq_tok);
    return (t->seq_len && t->seq_tok) || diag_oom(&c->d, at);
}

/* sequences: [[A, B, ...], ...]: each 2..ctx vocab entries. */
static bool data_sequences(Loader *c, const yaml_node_t *n, const LessonModel *lm, TrainSpec *t)
{
    int ctx = lm->cfg.ctx, cnt;
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("sequences must be a list of sequences like [[A, B, C], [B, C, A]]")))
        return false;
    cnt = ydoc_seq_len(n);
    if (cnt < 1 || cnt > TRAIN_SEQ_MAX)
        return diag_fail(&c->d, n, _("sequences has %d sequences, write 1 to %d"), cnt, TRAIN_SEQ_MAX);
    t->data = TDATA_SEQUENCES;
    if (!seq_room(c, n, t, cnt, ctx))
        return false;
    bool ok = true;
    for (int s = 0; s < cnt; s++) {
        const yaml_node_t *q = ydoc_seq_item(c->doc, n, s);
        int len = q->type == YAML_SEQUENCE_NODE ? ydoc_seq_len(q) : 0;
        if (!diag_want(&c->d, q, YAML_SEQUENCE_NODE, _("sequence %d must be a list of vocab entries like [A, B, C]"),
                       s + 1) ||
            len < 2 || len > ctx) {
            ok = q->type != YAML_SEQUENCE_NODE ? false
                                               : diag_fail(&c->d, q, _("sequence %d has %d token%s, write 2 to ctx = %d"),
                                                           s + 1, len, len == 1 ? "" : "s", ctx);
            continue;
        }
        for (int k = 0; k < len; k++) {
            const yaml_node_t *e = ydoc_seq_item(c->doc, q, k);
            char list[200];
            int id = e->type == YAML_SCALAR_NODE ? lmodel_vocab_index(lm, ydoc_str(e), -1) : -1;
            if (id < 0 && schema_want_text(c, e, _("a token")))
                ok = diag_fail(&c->d, e, _("sequence %d, token %d %s is not in vocab (did you mean %s?)"), s + 1, k + 1,
                               diag_quote(&c->d, ydoc_str(e)), modelkeys_near(lm, ydoc_str(e), -1, list, sizeof list));
            else if (id < 0)
                ok = false;
            t->seq_tok[(size_t)s * (size_t)ctx + (size_t)k] = id;
        }
        t->seq_len[s] = len;
    }
    t->nseq = cnt;
    return ok;
}

/* The longest vocab entry that s[0..n) starts with: its index, its length in *len; -1 if none. */
static int longest_entry(const LessonModel *lm, const char *s, size_t n, size_t *len)
{
    int best = -1;
    *len = 0;
    for (int k = 0; k < lm->nvocab; k++) {
        size_t e = strlen(lm->vocab[k]);
        if (e > *len && e <= n && memcmp(lm->vocab[k], s, e) == 0) {
            best = k;
            *len = e;
        }
    }
    return best;
}

/* Refuse the character at s[at] of the text file (line, col 0-based). */
static bool text_unknown(Loader *c, const char *path, const char *s, size_t n, size_t at, size_t line, size_t col,
                         const LessonModel *lm)
{
    uint32_t cp;
    size_t w = text_utf8_next(s + at, n - at, &cp);
    char ch[8], list[200];
    snprintf(ch, sizeof ch, "%.*s", (int)(w ? w : 1), s + at);
    const char *file = c->d.file;
    c->d.file = path;
    bool r = diag_fail_at(&c->d, line, col, _("%s is not in vocab, and no vocab entry starts here (did you mean %s?); "
                                            "the text is read as vocab entries"), diag_quote(&c->d, ch),
                          modelkeys_near(lm, ch, -1, list, sizeof list));
    c->d.file = file;
    return r;
}

/* The text's tokens by greedy longest match, whitespace skipped where no
 * entry matches, into tok (room for n); their count, or -1 (refused). */
static long tokenise(Loader *c, const char *path, const char *s, size_t n, const LessonModel *lm, int *tok)
{
    long cnt = 0;
    size_t line = 0, col = 0;
    for (size_t at = 0; at < n;) {
        size_t len;
        uint32_t cp;
        int id = longest_entry(lm, s + at, n - at, &len);
        if (id < 0 && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r'))
            len = 1;
        else if (id < 0)
        {
            text_unknown(c, path, s, n, at, line, col, lm);
            return -1;
        }
        else
            tok[cnt++] = id;
        for (size_t k = at; k < at + len;) { /* lines and columns (characters) move on */
            size_t w = text_utf8_next(s + k, at + len - k, &cp);
            line += s[k] == '\n';
            col = s[k] == '\n' ? 0 : col + 1;
            k += w ? w : 1;
        }
        at += len;
    }
    return cnt;
}

/* The tokens cut into sequences of ctx, the last kept with at least 2. */
static bool cut_text(Loader *c, const yaml_node_t *n, const int *tok, long cnt, int ctx, TrainSpec *t)
{
    long full = cnt / ctx, rest = cnt % ctx, nseq = full + (rest >= 2);
    if (cnt < 2)
        return diag_fail(&c->d, n, _("the text has %ld token%s, training needs at least 2"), cnt, cnt == 1 ? "" : "s");
    if (nseq > TRAIN_SEQ_MAX)
        return diag_fail(&c->d, n, _("the text makes %ld sequences of ctx = %d tokens, at most %d are allowed; "
                                     "shorten it"), nseq, ctx, TRAIN_SEQ_MAX);
    if (!seq_room(c, n, t, (int)nseq, ctx))
        return false;
    for (long s = 0; s < nseq; s++) {
        long len = s < full ? ctx : rest;
        memcpy(t->seq_tok + s * ctx, tok + s * ctx, sizeof *tok * (size_t)len);
        t->seq_len[s] = (int)len;
    }
    t->nseq = (int)nseq;
    return true;
}

/* text: FILE, relative to the lesson. */
static bool data_text(Loader *c, const yaml_node_t *n, const LessonModel *lm, TrainSpec *t)
{
    size_t len = 0;
    if (!schema_dup_text(c, n, "text", &t->text_file))
        return false;
    t->data = TDATA_TEXT;
    char *path = modelload_path(c->d.file, t->text_file);
    if (!path)
        return diag_oom(&c->d, n);
    errno = 0;
    char *buf = afile_read(path, TRAIN_TEXT_MAX_BYTES, &len);
    bool ok = buf != NULL;
    if (!buf)
        diag_fail(&c->d, n, _("cannot read the text file %s: %s"), diag_quote(&c->d, path), strerror(errno ? errno : EIO));
    else if (len > TRAIN_TEXT_MAX_BYTES)
        ok = diag_fail(&c->d, n, _("the text file %s is too big, at most %d bytes"), diag_quote(&c->d, path),
                       TRAIN_TEXT_MAX_BYTES);
    else if (!text_utf8_valid(buf, len))
        ok = diag_fail(&c->d, n, _("the text file %s is not UTF-8 text"), diag_quote(&c->d, path));
    int *tok = ok ? malloc(sizeof *tok * (len ? len : 1)) : NULL;
    ok = ok && (tok || diag_oom(&c->d, n));
    long cnt = ok ? tokenise(c, path, buf, len, lm, tok) : -1;
    ok = cnt >= 0 && cut_text(c, n, tok, cnt, lm->cfg.ctx, t);
    free(tok);
    free(buf);
    free(path);
    return ok;
}

enum { D_TASK, D_LENGTH, D_SEED, D_SEQUENCES, D_TEXT, D_N };
static const char *const data_keys[D_N] = {"task", "length", "seed", "sequences", "text"};

/* data: one of task: copy, sequences: or text:. */
static bool load_data(Loader *c, const yaml_node_t *key, const yaml_node_t *n, const LessonModel *lm, TrainSpec *t)
{
    if (!n)
        return diag_fail(&c->d, key, _("train: needs data: {task: copy, length: [3, 6], seed: 1}, {sequences: "
                                       "[[A, B], ...]} or {text: FILE}"));
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE,
                   _("data must be a mapping: {task: copy, length: [3, 6], seed: 1}, {sequences: [[A, B], ...]} or "
                     "{text: FILE}")))
        return false;
    Keys ks = {data_keys, D_N, _("key"), _(" in data")};
    yaml_node_t *v[D_N] = {0}, *k[D_N] = {0};
    if (!schema_keys(c, n, &ks, v, k))
        return false;
    int kinds = (v[D_TASK] != NULL) + (v[D_SEQUENCES] != NULL) + (v[D_TEXT] != NULL);
    if (kinds != 1)
        return diag_fail(&c->d, n, kinds ? _("data takes one of task:, sequences: or text:, not several")
                                         : _("data needs task: copy, sequences: [...] or text: FILE"));
    if ((v[D_LENGTH] || v[D_SEED]) && !v[D_TASK])
        return diag_fail(&c->d, k[D_LENGTH] ? k[D_LENGTH] : k[D_SEED], _("%s is the copy task's, with task: copy"),
                         v[D_LENGTH] ? "length" : "seed");
    if (v[D_TASK])
        return data_copy(c, v[D_TASK], v[D_LENGTH], v[D_SEED], lm, t);
    return v[D_SEQUENCES] ? data_sequences(c, v[D_SEQUENCES], lm, t) : data_text(c, v[D_TEXT], lm, t);
}

/* lr: > 0 and finite. */
static bool load_lr(Loader *c, const yaml_node_t *n, double *lr)
{
    if (!n)
        return true;
    if (!schema_num(c, n, lr, NULL))
        return false;
    if (*lr > 0 && isfinite(*lr))
        return true;
    return diag_fail(&c->d, n, _("%s must be a number above %s (the learning rate), found %s"), "lr", "0",
                     diag_found(&c->d, n));
}

/* optimizer: {adam: {lr}} or {sgd: {lr}} (adam 0.003, sgd 0.1). */
static bool load_optimizer(Loader *c, const yaml_node_t *n, TrainSpec *t)
{
    static const char *const kinds[] = {"sgd", "adam"}, *const lr_key[] = {"lr"};
    t->opt = OPT_ADAM;
    t->lr = 0.003;
    if (!n)
        return true;
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("optimizer must be {adam: {lr: 0.003}} or {sgd: {lr: 0.1}}")))
        return false;
    Keys ks = {kinds, 2, _("optimizer"), ""};
    yaml_node_t *v[2] = {0}, *k[2] = {0};
    if (!schema_keys(c, n, &ks, v, k))
        return false;
    if ((v[0] != NULL) == (v[1] != NULL))
        return diag_fail(&c->d, n, _("optimizer must be {adam: {lr: 0.003}} or {sgd: {lr: 0.1}}, one of them"));
    int which = v[0] ? 0 : 1;
    t->opt = which ? OPT_ADAM : OPT_SGD;
    t->lr = which ? 0.003 : 0.1;
    const yaml_node_t *o = v[which];
    if (o->type == YAML_SCALAR_NODE && o->data.scalar.length == 0)
        return true; /* adam: (nothing): its default lr */
    if (!diag_want(&c->d, o, YAML_MAPPING_NODE, _("%s must be a mapping like {lr: %s}"), kinds[which],
                   which ? "0.003" : "0.1"))
        return false;
    Keys lk = {lr_key, 1, _("key"), which ? _(" in adam") : _(" in sgd")};
    yaml_node_t *lv[1] = {0}, *lkey[1] = {0};
    return schema_keys(c, o, &lk, lv, lkey) && load_lr(c, lv[0], &t->lr);
}

enum { F_SEED, F_SCALE, F_EMBED, F_N };
static const char *const from_keys[F_N] = {"seed", "scale", "embed_scale"};

/* from: {random: {seed, scale, embed_scale}}. */
static bool load_from(Loader *c, const yaml_node_t *n, TrainSpec *t)
{
    static const char *const random_key[] = {"random"};
    if (!n)
        return true;
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("from must be {random: {seed: 3, scale: 0.1}}")))
        return false;
    Keys ks = {random_key, 1, _("key"), _(" in from")};
    yaml_node_t *v[1] = {0}, *k[1] = {0}, *fv[F_N] = {0}, *fk[F_N] = {0};
    if (!schema_keys(c, n, &ks, v, k))
        return false;
    if (!v[0])
        return diag_fail(&c->d, n, _("from must be {random: {seed: 3, scale: 0.1}}"));
    if (!diag_want(&c->d, v[0], YAML_MAPPING_NODE, _("random must be a mapping like {seed: 3, scale: 0.1}")))
        return false;
    Keys fks = {from_keys, F_N, _("key"), _(" in random")};
    if (!schema_keys(c, v[0], &fks, fv, fk))
        return false;
    if (!fv[F_SEED])
        return diag_fail(&c->d, k[0], _("random is missing seed, write e.g. random: {seed: 3, scale: 0.1}"));
    t->from_given = true;
    t->from_scale = 1.0;
    if (!train_seed(c, fv[F_SEED], 0, &t->from_seed) ||
        (fv[F_SCALE] && !schema_num(c, fv[F_SCALE], &t->from_scale, NULL)))
        return false;
    t->from_embed_scale = t->from_scale;
    return !fv[F_EMBED] || schema_num(c, fv[F_EMBED], &t->from_embed_scale, NULL);
}

enum { TR_DATA, TR_LOSS, TR_OPT, TR_BATCH, TR_STEPS, TR_FROM, TR_N };
static const char *const train_keys[TR_N] = {"data", "loss", "optimizer", "batch", "steps", "from"};

bool train_load(Loader *c, const yaml_node_t *key, const yaml_node_t *n, Lesson *l)
{
    TrainSpec *t = &l->model->train;
    long batch, steps;
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("train must be a mapping like {data: {task: copy}, batch: 64, "
                                                  "steps: 3000}")))
        return false;
    Keys ks = {train_keys, TR_N, _("key"), _(" in train")};
    yaml_node_t *v[TR_N] = {0}, *k[TR_N] = {0};
    bool ok = schema_keys(c, n, &ks, v, k);
    t->given = true;
    t->line = (int)key->start_mark.line + 1;
    if (v[TR_LOSS] && (v[TR_LOSS]->type != YAML_SCALAR_NODE || strcmp(ydoc_str(v[TR_LOSS]), "next_token") != 0))
        ok = diag_fail(&c->d, v[TR_LOSS], _("loss must be next_token (the only loss), found %s"),
                       diag_found(&c->d, v[TR_LOSS]));
    ok = load_data(c, key, v[TR_DATA], l->model, t) && ok;
    ok = load_optimizer(c, v[TR_OPT], t) && ok;
    ok = train_whole(c, v[TR_BATCH], "batch", 1, TRAIN_BATCH_MAX, 64, &batch) && ok;
    ok = train_whole(c, v[TR_STEPS], "steps", 1, TRAIN_STEPS_MAX, 3000, &steps) && ok;
    t->batch = (int)batch;
    t->steps = steps;
    return load_from(c, v[TR_FROM], t) && ok;
}
