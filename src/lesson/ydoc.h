/* ydoc.h - a lesson's YAML document, read once from libyaml's event stream.
 *
 * ydoc_read() parses the bytes with libyaml's event API, checking each event
 * as it comes: aliases, anchors, a second document and nesting deeper than
 * YDOC_MAX_DEPTH are refused, and libyaml's own errors (syntax, invalid
 * UTF-8, control characters) become one "FILE:LINE:COL: ..." message in the
 * Diag. The accepted events are built into a yaml_document_t, marks
 * included, so the schema (load.c) can name the place of every later error.
 * The nodes, their text and their items live in memory of ydoc's own (one
 * array and an arena, not a malloc per node): read the document with
 * libyaml's getters and the accessors below, never change it, and free it
 * with ydoc_free() (not yaml_document_delete()); on failure there is
 * nothing to free. A plain scalar written with a tag has the tag "!". 
 *
 * A built-in lesson's events are recorded at build time (ydoc_record(), by
 * tools/lessonrec.c) and replayed at run time (ydoc_replay()) through the
 * same checks and the same builder: the document, marks included, is the
 * one libyaml's events build (tests/test_replay.c compares them node by
 * node for every built-in lesson).
 *
 * The ydoc_* accessors below read nodes of such a document. */
#ifndef QKV_YDOC_H
#define QKV_YDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "diag.h"
#include "ydoctape.h"

#define YDOC_MAX_DEPTH 8     /* a lesson needs 5: top, steps, step, expect, row */

/* Read len bytes into *doc. False (with the message in d) when the text is
 * not one plain YAML document, or when it is empty. */
bool ydoc_read(Diag *d, const char *buf, size_t len, yaml_document_t *doc);
void ydoc_free(yaml_document_t *doc);

/* The document rec's events build, as ydoc_read() builds it from the bytes
 * buf that were recorded. A malformed recording is not trusted: buf is then
 * parsed with libyaml. False with the message in d (out of memory). */
bool ydoc_replay(Diag *d, const YdocRec *rec, const char *buf, size_t len, yaml_document_t *doc);

/* Called on each event before it is checked and recorded (a test changes
 * one on purpose: k counts from 0). */
typedef struct {
    void (*fn)(yaml_event_t *e, int k, void *arg);
    void *arg;
} YdocEdit;

/* Parse len bytes as ydoc_read() does and append their events to tape as
 * one stream (edit may be NULL). False, with the message in d and the tape
 * as it was, when ydoc_read() would refuse the bytes. */
bool ydoc_record(Diag *d, const char *buf, size_t len, YdocTape *tape, const YdocEdit *edit);

static inline yaml_node_t *ydoc_node(yaml_document_t *doc, int idx)
{
    return yaml_document_get_node(doc, idx);
}

static inline int ydoc_seq_len(const yaml_node_t *n)
{
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static inline yaml_node_t *ydoc_seq_item(yaml_document_t *doc, const yaml_node_t *n, int k)
{
    return ydoc_node(doc, n->data.sequence.items.start[k]);
}

static inline int ydoc_map_len(const yaml_node_t *n)
{
    return (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
}

/* A scalar's text (NUL-terminated by libyaml). */
static inline const char *ydoc_str(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

#endif
