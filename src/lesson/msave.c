/* msave.c - a model lesson saved: its own YAML document with the student's
 * actions added (see msave.h). */
#include "msave.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "departures.h"
#include "embedded.h"
#include "lmodel.h"
#include "text/i18n.h"

/* The lesson's text as it was loaded: the built-in copy, else the file. */
static char *source(const Lesson *l, size_t *len)
{
    for (int k = 0; k < embedded_count; k++)
        if (strcmp(embedded_lessons[k].name, l->file) == 0) {
            char *b = malloc(embedded_lessons[k].len + 1);
            if (b)
                memcpy(b, embedded_lessons[k].data, *len = embedded_lessons[k].len);
            return b;
        }
    FILE *f = fopen(l->file, "rb");
    char *b = f ? malloc(LESSON_MAX_BYTES + 1) : NULL;
    *len = b ? fread(b, 1, LESSON_MAX_BYTES, f) : 0;
    if (f)
        fclose(f);
    return b;
}

/* The value node of key in mapping node id, 0 if none; *pair its index. */
static int map_get(yaml_document_t *d, int id, const char *key, int *pair)
{
    yaml_node_t *n = yaml_document_get_node(d, id);
    if (!n || n->type != YAML_MAPPING_NODE)
        return 0;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((const char *)k->data.scalar.value, key) == 0) {
            if (pair)
                *pair = (int)(p - n->data.mapping.pairs.start);
            return p->value;
        }
    }
    return 0;
}

static int add_scalar(yaml_document_t *d, const char *s, bool quoted)
{
    return yaml_document_add_scalar(d, NULL, (yaml_char_t *)s, (int)strlen(s),
                                    quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE);
}

/* key: value in mapping id, replacing the value when the key is there. */
static bool map_set(yaml_document_t *d, int id, const char *key, int value)
{
    int at = -1;
    if (map_get(d, id, key, &at)) {
        yaml_document_get_node(d, id)->data.mapping.pairs.start[at].value = value;
        return true;
    }
    int k = add_scalar(d, key, false);
    return k && value && yaml_document_append_mapping_pair(d, id, k, value);
}

/* Leave key out of mapping id. */
static void map_drop(yaml_document_t *d, int id, const char *key)
{
    int at = -1;
    if (!map_get(d, id, key, &at))
        return;
    yaml_node_t *n = yaml_document_get_node(d, id);
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    memmove(p + at, p + at + 1, sizeof *p * (size_t)(n->data.mapping.pairs.top - p - at - 1));
    n->data.mapping.pairs.top--;
}

/* The step's edited: with the student's actions appended. */
static bool add_edits(const Session *s, yaml_document_t *d, int step)
{
    int from = 0, old = map_get(d, step, "edited", NULL);
    int seq = yaml_document_add_sequence(d, NULL, YAML_BLOCK_SEQUENCE_STYLE);
    yaml_node_t *o = old ? yaml_document_get_node(d, old) : NULL;
    if (!seq)
        return false;
    if (o && o->type == YAML_SCALAR_NODE && !yaml_document_append_sequence_item(d, seq, old))
        return false;
    for (int k = 0; o && o->type == YAML_SEQUENCE_NODE && k < o->data.sequence.items.top - o->data.sequence.items.start;
         k++) /* the node array may move as it grows: find the items again */
        if (!yaml_document_append_sequence_item(d, seq, yaml_document_get_node(d, old)->data.sequence.items.start[k]))
            return false;
    for (int n = 0; n < s->nedits; n++)
        from = s->edits[n].kind == ACT_RESET ? n + 1 : from;
    for (int n = from; n < s->nedits; n++) {
        char text[64 * 28];
        action_text(&s->edits[n], text, sizeof text);
        int v = add_scalar(d, text, true);
        if (!v || !yaml_document_append_sequence_item(d, seq, v))
            return false;
    }
    return map_set(d, step, "edited", seq);
}

/* A weights file by its full path. */
static bool weights_path(const Session *s, yaml_document_t *d, int root)
{
    const LessonModel *lm = s->lesson->model;
    char full[PATH_MAX];
    int w = map_get(d, root, "weights", NULL);
    if (lm->wsrc != WSRC_FILE || !w || !map_get(d, w, "file", NULL) || !lm->wpath || !realpath(lm->wpath, full))
        return true;
    return map_set(d, w, "file", add_scalar(d, full, true));
}

/* The document changed as msave.h says. */
static bool edit_document(const Session *s, yaml_document_t *d)
{
    int root = 1, steps = map_get(d, root, "steps", NULL);
    char start[16];
    yaml_node_t *sn = steps ? yaml_document_get_node(d, steps) : NULL;
    if (!sn || sn->type != YAML_SEQUENCE_NODE ||
        sn->data.sequence.items.top - sn->data.sequence.items.start != s->lesson->nsteps)
        return false;
    bool edits = s->nedits > 0;
    for (int k = s->step; edits && k < s->lesson->nsteps; k++)
        map_drop(d, yaml_document_get_node(d, steps)->data.sequence.items.start[k], "expect");
    snprintf(start, sizeof start, "%d", s->step + 1);
    return (!edits || add_edits(s, d, yaml_document_get_node(d, steps)->data.sequence.items.start[s->step])) &&
           map_set(d, root, "start", add_scalar(d, start, false)) && weights_path(s, d, root);
}

static int write_out(void *data, unsigned char *buf, size_t size)
{
    return fwrite(buf, 1, size, (FILE *)data) == size;
}

/* Emit d (which yaml_emitter_dump releases) to a malloc'd buffer. */
static char *emit_document(yaml_document_t *d, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    yaml_emitter_t em;
    bool ok = f && yaml_emitter_initialize(&em);
    if (ok) {
        yaml_emitter_set_output(&em, write_out, f);
        yaml_emitter_set_unicode(&em, 1);
        yaml_emitter_set_width(&em, 100);
        ok = yaml_emitter_open(&em) && yaml_emitter_dump(&em, d) && yaml_emitter_close(&em) &&
             yaml_emitter_flush(&em);
        yaml_emitter_delete(&em);
    } else {
        yaml_document_delete(d);
    }
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

char *msave_text(const Session *s, size_t *len, char *err, size_t errlen)
{
    size_t n = 0;
    char *src = source(s->lesson, &n);
    yaml_parser_t p;
    yaml_document_t d;
    bool parsed = false;
    if (src && yaml_parser_initialize(&p)) {
        yaml_parser_set_input_string(&p, (const unsigned char *)src, n);
        bool loaded = yaml_parser_load(&p, &d);
        parsed = loaded && yaml_document_get_root_node(&d);
        if (loaded && !parsed)
            yaml_document_delete(&d);
        yaml_parser_delete(&p);
    }
    free(src);
    if (!parsed || !edit_document(s, &d)) {
        if (parsed)
            yaml_document_delete(&d);
        snprintf(err, errlen, _("cannot save: the lesson %s cannot be read again as it was loaded (a model lesson "
                                "is saved from its own file, with steps:)"), s->lesson->file);
        return NULL;
    }
    char *out = emit_document(&d, len);
    if (!out)
        snprintf(err, errlen, "%s", _("cannot save: out of memory; nothing was changed"));
    return out;
}
