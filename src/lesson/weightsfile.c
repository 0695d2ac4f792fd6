/* weightsfile.c - reading and writing weights files (see weightsfile.h). */
#include "weightsfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "modelkeys.h"
#include "text/afile.h"
#include "text/i18n.h"
#include "text/shortest.h"

/* ---- writing ----------------------------------------------------------------- */

typedef struct {
    char *s;
    size_t len, cap;
    bool oom;
} Buf;

static void put(Buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(Buf *b, const char *s)
{
    put(b, s, strlen(s));
}

/* One parameter: "  NAME:\n" then a row per line, "    - [a, b, ...]". */
static void put_param(Buf *b, const Model *m, ModelRef r)
{
    char name[48], num[SHORTEST_MAX];
    const Mat *x = model_mat(m, r);
    model_ref_name(m, r, name, sizeof name);
    puts_(b, "  ");
    puts_(b, name);
    puts_(b, ":\n");
    for (int i = 0; i < x->rows; i++) {
        puts_(b, "    - [");
        for (int j = 0; j < x->cols; j++) {
            if (j)
                puts_(b, ", ");
            put(b, num, shortest_print(MAT_AT(x, i, j), num));
        }
        puts_(b, "]\n");
    }
}

char *weights_format(const LessonModel *lm, const Model *m, size_t *len)
{
    (void)lm;
    Buf b = {0};
    char v[64];
    puts_(&b, "format: " WEIGHTS_FORMAT_ID "\nmodel:\n");
    for (int k = 0; k < MODEL_KEYS; k++) {
        modelload_cfg_text(&m->cfg, k, v, sizeof v);
        puts_(&b, "  ");
        puts_(&b, modelload_cfg_key(k));
        puts_(&b, ": ");
        puts_(&b, v);
        puts_(&b, "\n");
    }
    puts_(&b, "params:\n");
    ModelRef refs[MODEL_PARAMS_MAX];
    int n = model_params(m, refs, MODEL_PARAMS_MAX);
    for (int k = 0; k < n; k++)
        put_param(&b, m, refs[k]);
    if (b.oom || !b.s) {
        free(b.s);
        return NULL;
    }
    if (len)
        *len = b.len;
    return b.s;
}

bool weights_write(const char *path, const LessonModel *lm, const Model *m, char *err, size_t errlen)
{
    size_t len;
    char *text = weights_format(lm, m, &len);
    if (!text) {
        snprintf(err, errlen, "%s", _("qkvtutor: out of memory"));
        return false;
    }
    bool ok = afile_write(path, text, len, err, errlen);
    free(text);
    return ok;
}

/* ---- reading ----------------------------------------------------------------- */

enum { WF_FORMAT, WF_MODEL, WF_PARAMS, WF_N };
static const char *const wf_keys[WF_N] = {"format", "model", "params"};

/* The weights file's model: against the lesson's, key by key. */
static bool same_model(Loader *c, const yaml_node_t *key, const yaml_node_t *n, const LessonModel *lm)
{
    ModelCfg w;
    CfgAt at;
    char mine[64], theirs[64];
    model_cfg_default(&w);
    memset(&at, 0, sizeof at);
    w.vocab = lm->cfg.vocab;
    if (!modelload_cfg(c, n, &w, &at))
        return false;
    bool ok = true;
    for (int k = 0; k < MODEL_KEYS; k++) {
        modelload_cfg_text(&lm->cfg, k, mine, sizeof mine);
        modelload_cfg_text(&w, k, theirs, sizeof theirs);
        if (strcmp(mine, theirs) != 0)
            ok = diag_fail(&c->d, at.val[k] ? at.val[k] : key, _("the weights file's model: has %s = %s, the "
                                                                "lesson's has %s = %s; these weights are for another "
                                                                "model"),
                           modelload_cfg_key(k), theirs, modelload_cfg_key(k), mine);
    }
    return ok;
}

/* The shape of a list of rows as written: rows, and the length of the
 * first row that differs from the expected width (else the width). */
static void shape_found(Loader *c, const yaml_node_t *n, int want_cols, int *rows, int *cols)
{
    *rows = ydoc_seq_len(n);
    *cols = want_cols;
    for (int i = 0; i < *rows; i++) {
        const yaml_node_t *row = ydoc_seq_item(c->doc, n, i);
        int len = row->type == YAML_SEQUENCE_NODE ? ydoc_seq_len(row) : -1;
        if (len != want_cols) {
            *cols = len;
            return;
        }
    }
}

/* One parameter's rows into x, its shape checked. */
static bool read_param(Loader *c, const yaml_node_t *n, const char *name, Mat *x)
{
    int rows, cols;
    if (!diag_want(&c->d, n, YAML_SEQUENCE_NODE, _("%s must be a list of %d rows of %d numbers"), name, x->rows,
                   x->cols))
        return false;
    shape_found(c, n, x->cols, &rows, &cols);
    if (rows != x->rows || cols != x->cols) {
        char found[32];
        if (cols < 0)
            snprintf(found, sizeof found, _("%d rows, not all lists"), rows);
        else
            snprintf(found, sizeof found, "%dx%d", rows, cols);
        return diag_fail(&c->d, n, _("%s must be %dx%d (rows x columns) for this model, the weights file has %s"),
                         name, x->rows, x->cols, found);
    }
    bool ok = true;
    for (int i = 0; i < rows; i++) {
        const yaml_node_t *row = ydoc_seq_item(c->doc, n, i);
        for (int j = 0; j < cols; j++)
            ok = schema_num(c, ydoc_seq_item(c->doc, row, j), &MAT_AT(x, i, j), NULL) && ok;
    }
    return ok;
}

/* An unknown parameter name: the closest of this model's, or all of them. */
static bool unknown_param(Loader *c, const yaml_node_t *k, const char *const *names, int n)
{
    const char *s = diag_suggest(ydoc_str(k), names, n);
    char list[1024];
    if (s)
        return diag_fail(&c->d, k, _("unknown parameter %s in params (did you mean \"%s\"?)"),
                         diag_quote(&c->d, ydoc_str(k)), s);
    return diag_fail(&c->d, k, _("unknown parameter %s in params, this model has %s"), diag_quote(&c->d, ydoc_str(k)),
                     diag_join_or(names, n, list, sizeof list));
}

/* params: every parameter of m by name, once each, of its shape. */
static bool read_params(Loader *c, const yaml_node_t *key, const yaml_node_t *n, Model *m)
{
    ModelRef refs[MODEL_PARAMS_MAX];
    char names[MODEL_PARAMS_MAX][48];
    const char *np[MODEL_PARAMS_MAX];
    const yaml_node_t *seen[MODEL_PARAMS_MAX] = {0};
    int cnt = model_params(m, refs, MODEL_PARAMS_MAX);
    for (int k = 0; k < cnt; k++) {
        model_ref_name(m, refs[k], names[k], sizeof names[k]);
        np[k] = names[k];
    }
    if (!diag_want(&c->d, n, YAML_MAPPING_NODE, _("params must be a mapping of parameter names to rows, like "
                                                  "{E: [[0.1, 0.2], ...], ...}")))
        return false;
    bool ok = true;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const yaml_node_t *k = ydoc_node(c->doc, p->key), *v = ydoc_node(c->doc, p->value);
        ModelRef r;
        int id = -1;
        if (!schema_want_text(c, k, _("a parameter name"))) {
            ok = false;
            continue;
        }
        bool named = model_lookup(m, ydoc_str(k), -1, &r);
        for (int j = 0; named && id < 0 && j < cnt; j++)
            if (refs[j].kind == r.kind && refs[j].layer == r.layer && refs[j].attn == r.attn)
                id = j;
        if (id < 0)
            ok = unknown_param(c, k, np, cnt);
        else if (seen[id])
            ok = diag_fail(&c->d, k, _("%s is given twice, the first is at line %zu"), diag_quote(&c->d, ydoc_str(k)),
                           seen[id]->start_mark.line + 1);
        else {
            seen[id] = k;
            ok = read_param(c, v, names[id], model_mat_mut(m, refs[id])) && ok;
        }
    }
    for (int k = 0; k < cnt; k++)
        if (!seen[k]) {
            const Mat *x = model_mat(m, refs[k]);
            ok = diag_fail(&c->d, key, _("params is missing %s, %dx%d (rows x columns) for this model"), names[k],
                           x->rows, x->cols);
        }
    return ok;
}

/* The document's top level: format, model, params. */
static bool read_doc(Loader *c, const LessonModel *lm, Model *m)
{
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (!root || (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0))
        return diag_fail_at(&c->d, 0, 0, _("the weights file is empty, it needs format, model and params"));
    if (!diag_want(&c->d, root, YAML_MAPPING_NODE, _("a weights file is a mapping of format:, model: and params:")))
        return false;
    Keys ks = {wf_keys, WF_N, _("key"), _(" in a weights file")};
    yaml_node_t *v[WF_N] = {0}, *k[WF_N] = {0};
    bool ok = schema_keys(c, root, &ks, v, k);
    for (int j = 0; j < WF_N; j++)
        if (!v[j] && !ok)
            return false; /* "parms" (did you mean "params"?) says it */
        else if (!v[j])
            return diag_fail(&c->d, root, _("missing key \"%s\", a weights file needs format, model and params"),
                             wf_keys[j]);
    if (v[WF_FORMAT]->type != YAML_SCALAR_NODE || strcmp(ydoc_str(v[WF_FORMAT]), WEIGHTS_FORMAT_ID) != 0)
        return diag_fail(&c->d, v[WF_FORMAT], _("format must be \"%s\", found %s"), WEIGHTS_FORMAT_ID,
                         diag_found(&c->d, v[WF_FORMAT]));
    if (!same_model(c, k[WF_MODEL], v[WF_MODEL], lm))
        return false;
    return read_params(c, k[WF_PARAMS], v[WF_PARAMS], m) && ok;
}

/* A built-in lesson's weights file, built in beside it (embedded.h): a
 * copy, NUL-terminated; NULL when there is none. */
static char *builtin(const char *lesson, const char *name, size_t *len)
{
    const EmbeddedFile *e = embedded_file_near(lesson, name);
    char *buf = e ? malloc(e->len + 1) : NULL;
    if (buf) {
        memcpy(buf, e->data, e->len);
        buf[e->len] = '\0';
        *len = e->len;
    }
    return buf;
}

bool weights_read_into(Loader *c, const yaml_node_t *at, const LessonModel *lm, Model *m)
{
    size_t len = 0;
    errno = 0;
    char *buf = afile_read(lm->wpath, WEIGHTS_MAX_BYTES, &len);
    int e = errno;
    if (!buf && (buf = builtin(c->d.file, lm->wfile, &len)) == NULL)
        errno = e;
    if (!buf)
        return diag_fail(&c->d, at, _("cannot read the weights file %s: %s"), diag_quote(&c->d, lm->wpath),
                         strerror(errno ? errno : EIO));
    if (len > WEIGHTS_MAX_BYTES) {
        free(buf);
        return diag_fail(&c->d, at, _("the weights file %s is too big, at most %d bytes"),
                         diag_quote(&c->d, lm->wpath), WEIGHTS_MAX_BYTES);
    }
    /* the weights file's messages name it and its places */
    const char *file = c->d.file;
    yaml_document_t *doc = c->doc, wdoc;
    const char *src = c->src;
    size_t srclen = c->srclen;
    c->d.file = lm->wpath;
    bool ok = ydoc_read(&c->d, buf, len, &wdoc);
    if (ok) {
        c->doc = &wdoc;
        c->src = buf;
        c->srclen = len;
        ok = read_doc(c, lm, m);
        ydoc_free(&wdoc);
    }
    c->d.file = file;
    c->doc = doc;
    c->src = src;
    c->srclen = srclen;
    c->d.syntax = false; /* a syntax error of the weights file does not cut the lesson short */
    free(buf);
    return ok;
}
