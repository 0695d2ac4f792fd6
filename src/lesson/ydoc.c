/* ydoc.c - a lesson's YAML document from libyaml's checked event stream
 * (see ydoc.h); the events come from libyaml's parser or, replayed, from a
 * recording (ydoctape.c). */
#include "ydoc.h"
#include "fullwidth.h"
#include "ydoctape.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/i18n.h"
#include "text/text.h"

/* The 0-based line and column (in characters) of a byte offset. */
static void offset_mark(const char *buf, size_t len, size_t off, size_t *line, size_t *col)
{
    *line = *col = 0;
    for (size_t k = 0; k < off && k < len; k++) {
        unsigned char b = (unsigned char)buf[k];
        if (b == '\n') {
            ++*line;
            *col = 0;
        } else if (!text_is_cont(b)) {
            ++*col;
        }
    }
}

/* The byte at 0-based line and column (in characters) of buf, or NUL. */
static char char_at(const char *buf, size_t len, size_t line, size_t col)
{
    size_t k = 0;
    for (; k < len && line > 0; k++)
        if (buf[k] == '\n')
            line--;
    for (; k < len && col > 0 && buf[k] != '\n'; col--)
        k = text_char_next(buf, len, k);
    return k < len ? buf[k] : '\0';
}

/* libyaml's problems a teacher meets most, so that they are translated. */
static const char *const yaml_problems[] = {
    N_("found character that cannot start any token"),
    N_("mapping values are not allowed in this context"),
    N_("did not find expected key"),
    N_("did not find expected ',' or ']'"),
    N_("did not find expected ',' or '}'"),
    N_("found unexpected end of stream"),
    N_("could not find expected ':'"),
    N_("did not find expected '-' indicator"),
    N_("found a tab character that violates indentation"),
};

/* libyaml's problem text, translated when we know it. */
static const char *yaml_problem(const char *what)
{
    for (size_t k = 0; k < sizeof yaml_problems / sizeof *yaml_problems; k++)
        if (strcmp(what, yaml_problems[k]) == 0)
            return _(yaml_problems[k]);
    return what;
}

/* libyaml's syntax errors; hints for a tab, full-width punctuation and ": " in plain text. */
static bool syntax_error(Diag *c, const yaml_parser_t *p, const char *buf, size_t len)
{
    size_t line = p->problem_mark.line, col = p->problem_mark.column;
    const char *what = p->problem ? yaml_problem(p->problem) : _("unknown error");
    c->syntax = true;
    const char *ctx = p->context ? p->context : "";
    if ((p->problem && strstr(p->problem, "tab character")) || char_at(buf, len, line, col) == '\t')
        return diag_fail_at(c, line, col, _("a tab in the indentation: YAML indents with spaces, not tabs "
                                            "(YAML syntax error, %s)"), what);
    FullwidthHit fw;
    if (fullwidth_syntax(p, buf, len, &fw))
        return diag_fail_at(c, fw.line, fw.col, "%s", fw.msg);
    if (p->problem && strstr(p->problem, "mapping values are not allowed"))
        return diag_fail_at(c, line, col, _("\": \" inside unquoted text starts a new key: put the text in "
                                            "double quotes, like say: \"Guess: what is q1?\" "
                                            "(YAML syntax error, %s)"), what);
    return diag_fail_at(c, line, col, _("YAML syntax error, %s%s%s"), what, *ctx ? " " : "", ctx);
}

/* Turn a libyaml error into our one-line message. Always returns false. */
static bool parser_error(Diag *c, const yaml_parser_t *p, const char *buf, size_t len)
{
    size_t line = p->problem_mark.line, col = p->problem_mark.column;
    const char *what = p->problem ? p->problem : _("unknown error");
    if (p->error == YAML_MEMORY_ERROR)
        return diag_fail_at(c, 0, 0, _("out of memory while reading the lesson"));
    if (p->error != YAML_READER_ERROR && strstr(what, "escape code"))
        return diag_fail_at(c, line, col, _("this escape is not a Unicode character (a surrogate or above "
                                            "\\U0010FFFF), write the character itself"));
    if (p->error != YAML_READER_ERROR)
        return syntax_error(c, p, buf, len);
    offset_mark(buf, len, p->problem_offset, &line, &col);
    if (strstr(what, "UTF-8") || strstr(what, "Unicode"))
        return diag_fail_at(c, line, col, _("invalid UTF-8 in the file, lessons must be UTF-8 text"));
    if (strstr(what, "control characters"))
        return diag_fail_at(c, line, col, _("control character U+%04X in the file, lessons must be plain text "
                                            "(inside double quotes, write it as an escape like \\x1b)"),
                            (unsigned)p->problem_value);
    return diag_fail_at(c, line, col, _("cannot read the file as YAML text, %s"), what);
}

/* Check one event of the pre-scan: no aliases or anchors, one document,
 * bounded depth. */
static bool check_event(Diag *c, const yaml_event_t *e, int *depth, int *docs)
{
    const yaml_char_t *anchor = NULL;
    size_t line = e->start_mark.line, col = e->start_mark.column;
    switch (e->type) {
    case YAML_ALIAS_EVENT:
        return diag_fail_at(c, line, col, _("YAML aliases and anchors are not allowed, write the values out"));
    case YAML_DOCUMENT_START_EVENT:
        if (++*docs > 1)
            return diag_fail_at(c, line, col, _("a second YAML document, a lesson file holds only one; "
                                                "remove the \"---\" or split the file"));
        break;
    case YAML_SCALAR_EVENT:
        anchor = e->data.scalar.anchor;
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = e->data.sequence_start.anchor;
        ++*depth;
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = e->data.mapping_start.anchor;
        ++*depth;
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        --*depth;
        break;
    default:
        break;
    }
    if (anchor)
        return diag_fail_at(c, line, col, _("YAML aliases and anchors are not allowed, write the values out"));
    if (*depth > YDOC_MAX_DEPTH)
        return diag_fail_at(c, line, col,
                            _("lists and mappings nested more than %d deep, a lesson needs at most 5"),
                            YDOC_MAX_DEPTH);
    return true;
}

static void parser_open(yaml_parser_t *p, const char *buf, size_t len)
{
    yaml_parser_set_input_string(p, (const unsigned char *)buf, len);
    yaml_parser_set_encoding(p, YAML_UTF8_ENCODING);
}

/* The document is built in memory of our own: the nodes in one array
 * (with a slot before the first that holds the arena's newest chunk),
 * the scalars' text and the collections' items in chunks of an arena,
 * freed all at once by ydoc_free(). No node is allocated on its own. */
#define CHUNK_MIN 8192

typedef struct Chunk {
    struct Chunk *prev;
    size_t used, size;
    max_align_t data[];
} Chunk;

/* The document being built: its nodes, its arena, and the ids of the
 * items (and keys and values) of the collections still open, in order. */
typedef struct {
    yaml_node_t *slot;   /* slot[0] holds the arena's chunk; the nodes from slot + 1 */
    int nodes, cap;
    Chunk *arena;
    int *ids;
    int nids, idcap;
    int open[YDOC_MAX_DEPTH + 2];  /* each open collection's node and its first id in ids */
    int first[YDOC_MAX_DEPTH + 2];
    int n;
} Build;

static void *arena_alloc(Build *b, size_t len)
{
    len = (len + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!b->arena || b->arena->size - b->arena->used < len) {
        size_t size = len > CHUNK_MIN ? len : CHUNK_MIN;
        Chunk *k = malloc(sizeof *k + size);
        if (!k)
            return NULL;
        *k = (Chunk){b->arena, 0, size};
        b->arena = k;
    }
    void *p = (char *)b->arena->data + b->arena->used;
    b->arena->used += len;
    return p;
}

static void arena_free(Chunk *k)
{
    while (k) {
        Chunk *prev = k->prev;
        free(k);
        k = prev;
    }
}

/* A new node (zeroed but for type, tag and marks); its id, or 0. */
static int add_node(Build *b, yaml_node_type_t type, const char *tag, const yaml_event_t *e)
{
    if (b->nodes == b->cap) {
        int cap = b->cap ? b->cap * 2 : 64;
        yaml_node_t *s = realloc(b->slot, (size_t)(cap + 1) * sizeof *s);
        if (!s)
            return 0;
        b->slot = s;
        b->cap = cap;
    }
    yaml_node_t *n = &b->slot[1 + b->nodes];
    memset(n, 0, sizeof *n);
    n->type = type;
    n->tag = (yaml_char_t *)tag;
    n->start_mark = e->start_mark;
    n->end_mark = e->end_mark;
    return ++b->nodes;
}

/* Note a finished node as an item (or key, or value) of the open collection. */
static bool push_id(Build *b, int id)
{
    if (b->n == 0)
        return true; /* the root */
    if (b->nids == b->idcap) {
        int cap = b->idcap ? b->idcap * 2 : 256;
        int *ids = realloc(b->ids, (size_t)cap * sizeof *ids);
        if (!ids)
            return false;
        b->ids = ids;
        b->idcap = cap;
    }
    b->ids[b->nids++] = id;
    return true;
}

static bool add_scalar(Build *b, const yaml_event_t *e)
{
    size_t len = e->data.scalar.length;
    yaml_char_t *text = arena_alloc(b, len + 1);
    /* a plain scalar with a tag (even !!str) is not a plain one: "!" */
    bool tagged = !e->data.scalar.plain_implicit && e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    int id = text ? add_node(b, YAML_SCALAR_NODE, tagged ? "!" : YAML_DEFAULT_SCALAR_TAG, e) : 0;
    if (!id)
        return false;
    memcpy(text, e->data.scalar.value, len);
    text[len] = '\0';
    yaml_node_t *n = &b->slot[id];
    n->data.scalar.value = text;
    n->data.scalar.length = len;
    n->data.scalar.style = e->data.scalar.style;
    return push_id(b, id);
}

/* A collection ends: its items (or keys and values, in pairs) move from
 * the open ids to the arena. */
static bool close_collection(Build *b, const yaml_event_t *e)
{
    int id = b->open[--b->n], first = b->first[b->n], count = b->nids - first;
    yaml_node_t *n = &b->slot[id];
    n->end_mark = e->end_mark;
    yaml_node_item_t *items = arena_alloc(b, (size_t)(count ? count : 1) * sizeof *items);
    if (!items)
        return false;
    if (count) /* an empty collection: no ids were ever kept (b->ids may be NULL) */
        memcpy(items, b->ids + first, (size_t)count * sizeof *items);
    b->nids = first;
    if (n->type == YAML_SEQUENCE_NODE) {
        n->data.sequence.items.start = items;
        n->data.sequence.items.top = n->data.sequence.items.end = items + count;
    } else {
        yaml_node_pair_t *pairs = (yaml_node_pair_t *)items;
        n->data.mapping.pairs.start = pairs;
        n->data.mapping.pairs.top = n->data.mapping.pairs.end = pairs + count / 2;
    }
    return push_id(b, id);
}

/* Turn one (already checked) event into the document's nodes. */
static bool build(Build *b, const yaml_event_t *e)
{
    int id;
    switch (e->type) {
    case YAML_SCALAR_EVENT:
        return add_scalar(b, e);
    case YAML_SEQUENCE_START_EVENT:
        if (!(id = add_node(b, YAML_SEQUENCE_NODE, YAML_DEFAULT_SEQUENCE_TAG, e)))
            return false;
        b->slot[id].data.sequence.style = e->data.sequence_start.style;
        break;
    case YAML_MAPPING_START_EVENT:
        if (!(id = add_node(b, YAML_MAPPING_NODE, YAML_DEFAULT_MAPPING_TAG, e)))
            return false;
        b->slot[id].data.mapping.style = e->data.mapping_start.style;
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return close_collection(b, e);
    default:
        return true;
    }
    b->open[b->n] = id;
    b->first[b->n++] = b->nids;
    return true;
}

/* Hand the built nodes to doc (the arena in the slot before them). */
static void finish(Build *b, yaml_document_t *doc)
{
    memset(doc, 0, sizeof *doc);
    free(b->ids);
    if (!b->slot)
        b->slot = malloc(sizeof *b->slot); /* no node: an empty document; NULL: one without nodes */
    if (b->slot) {
        memcpy(&b->slot[0], &b->arena, sizeof b->arena);
        doc->nodes.start = b->slot + 1;
        doc->nodes.top = doc->nodes.start + b->nodes;
        doc->nodes.end = doc->nodes.start + b->cap;
    }
    doc->start_implicit = doc->end_implicit = 1;
}

void ydoc_free(yaml_document_t *doc)
{
    if (!doc->nodes.start)
        return;
    yaml_node_t *slot = doc->nodes.start - 1;
    Chunk *arena;
    memcpy(&arena, slot, sizeof arena);
    arena_free(arena);
    free(slot);
    memset(doc, 0, sizeof *doc);
}

/* ---- where the events come from: libyaml's parser or a recording (ydoctape.c) */

/* ---- what is done with them: checked, then built -------------------------- */

/* The next event from either source; false (with the message in c, or
 * *bad for a malformed recording) when there is none. */
static bool next_event(Diag *c, Source *s, const char *buf, size_t len, yaml_event_t *e, bool *bad)
{
    if (!s->p)
        return (*bad = !tape_event(s, e)) == false;
    if (yaml_parser_parse(s->p, e))
        return true;
    return parser_error(c, s->p, buf, len);
}

/* Read the events of s into doc, each checked, built and (with a tape)
 * recorded. *bad: the recording was malformed (doc is then freed and no
 * message written). */
static bool run(Diag *c, Source *s, const char *buf, size_t len, yaml_document_t *doc, YdocTape *tape,
                const YdocEdit *edit, bool *bad)
{
    Build b = {0};
    /* room for the nodes at once: a recording knows how many; a skimmed
     * lesson has one per 7 bytes (lesson 1: 287 in 2,116) */
    size_t guess = len / 6 < 64 ? 64 : len / 6 > 4096 ? 4096 : len / 6;
    if (!s->p)
        guess = s->nodes;
    b.slot = malloc(((guess ? guess : 1) + 1) * sizeof *b.slot);
    b.cap = b.slot ? (int)(guess ? guess : 1) : 0;
    int depth = 0, docs = 0, k = 0;
    bool ok = true, done = false;
    yaml_mark_t prev = {0, 0, 0};
    *bad = false;
    while (ok && !done) {
        yaml_event_t e;
        if (!next_event(c, s, buf, len, &e, bad)) {
            ok = false;
            break;
        }
        if (edit)
            edit->fn(&e, k++, edit->arg);
        ok = check_event(c, &e, &depth, &docs);
        if (ok && tape && !tape_record(tape, &prev, &e))
            ok = diag_fail_at(c, 0, 0, _("out of memory while reading the lesson"));
        if (ok && !build(&b, &e))
            ok = diag_fail_at(c, 0, 0, _("out of memory while reading the lesson"));
        done = e.type == YAML_STREAM_END_EVENT;
        if (s->p)
            yaml_event_delete(&e);
    }
    if (ok && docs == 0)
        ok = diag_fail_at(c, 0, 0, _("the file is empty, "
                                     "a lesson needs at least format, tokens, X and weights"));
    finish(&b, doc);
    if (!ok)
        ydoc_free(doc);
    return ok;
}

/* Parse buf with libyaml: the events into doc (and onto tape). */
static bool parse(Diag *c, const char *buf, size_t len, yaml_document_t *doc, YdocTape *tape, const YdocEdit *edit)
{
    yaml_parser_t p;
    bool bad;
    memset(doc, 0, sizeof *doc);
    if (!yaml_parser_initialize(&p))
        return diag_fail_at(c, 0, 0, _("out of memory while reading the lesson"));
    parser_open(&p, buf, len);
    Source s = {.p = &p};
    bool ok = run(c, &s, buf, len, doc, tape, edit, &bad);
    yaml_parser_delete(&p);
    return ok;
}

bool ydoc_read(Diag *c, const char *buf, size_t len, yaml_document_t *doc)
{
    return parse(c, buf, len, doc, NULL, NULL);
}

bool ydoc_replay(Diag *c, const YdocRec *rec, const char *buf, size_t len, yaml_document_t *doc)
{
#ifdef QKV_NO_RECORDINGS
    return ydoc_read(c, buf, len, doc);
#endif
    bool bad = true;
    if (rec->len >= 4 && rec->strlen > 0 && rec->str[rec->strlen - 1] == '\0') {
        const unsigned char *h = rec->ev;
        Source s = {.rec = rec, .at = h + 4, .end = h + rec->len,
                    .nodes = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 | (size_t)h[3] << 24};
        if (s.nodes <= TAPE_NODES_MAX && run(c, &s, buf, len, doc, NULL, NULL, &bad))
            return true;
    }
    /* a malformed recording: libyaml reads the bytes themselves */
    return bad ? ydoc_read(c, buf, len, doc) : false;
}

#ifndef QKV_NO_RECORDINGS
bool ydoc_record(Diag *c, const char *buf, size_t len, YdocTape *tape, const YdocEdit *edit)
{
    yaml_document_t doc;
    size_t start = tape->len;
    unsigned char count[4] = {0};
    if (!tape_put(tape, count, 4))
        return diag_fail_at(c, 0, 0, _("out of memory while reading the lesson"));
    if (!parse(c, buf, len, &doc, tape, edit)) {
        tape->len = start;
        return false;
    }
    size_t n = (size_t)(doc.nodes.top - doc.nodes.start);
    for (int k = 0; k < 4; k++)
        tape->ev[start + (size_t)k] = (unsigned char)(n >> (8 * k));
    ydoc_free(&doc);
    return true;
}
#endif
