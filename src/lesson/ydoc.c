/* ydoc.c - a lesson's YAML document from libyaml's checked event stream
 * (see ydoc.h). */
#include "ydoc.h"

#include <string.h>

#include "text/i18n.h"

/* The 0-based line and column (in characters) of a byte offset. */
static void offset_mark(const char *buf, size_t len, size_t off, size_t *line, size_t *col)
{
    *line = *col = 0;
    for (size_t k = 0; k < off && k < len; k++) {
        unsigned char b = (unsigned char)buf[k];
        if (b == '\n') {
            ++*line;
            *col = 0;
        } else if ((b & 0xC0) != 0x80) {
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
        for (k++; k < len && ((unsigned char)buf[k] & 0xC0) == 0x80; k++)
            ;
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

/* libyaml's syntax errors, with a hint for the two a teacher meets most:
 * a tab in the indentation, and ": " inside unquoted text. */
static bool syntax_error(Diag *c, const yaml_parser_t *p, const char *buf, size_t len)
{
    size_t line = p->problem_mark.line, col = p->problem_mark.column;
    const char *what = p->problem ? yaml_problem(p->problem) : _("unknown error");
    c->syntax = true;
    const char *ctx = p->context ? p->context : "";
    if ((p->problem && strstr(p->problem, "tab character")) || char_at(buf, len, line, col) == '\t')
        return diag_fail_at(c, line, col, _("a tab in the indentation: YAML indents with spaces, not tabs "
                                            "(YAML syntax error, %s)"), what);
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

/* The collections open while building the document from events. */
typedef struct {
    int id[YDOC_MAX_DEPTH + 2];
    int key[YDOC_MAX_DEPTH + 2];  /* a mapping's key waiting for its value, or 0 */
    int n;
} Open;

/* Add a finished node (id) to the collection it belongs to. */
static bool attach(yaml_document_t *d, Open *o, int id)
{
    if (o->n == 0)
        return true; /* the root */
    int top = o->id[o->n - 1];
    if (d->nodes.start[top - 1].type == YAML_SEQUENCE_NODE)
        return yaml_document_append_sequence_item(d, top, id);
    if (!o->key[o->n - 1]) {
        o->key[o->n - 1] = id;
        return true;
    }
    int key = o->key[o->n - 1];
    o->key[o->n - 1] = 0;
    return yaml_document_append_mapping_pair(d, top, key, id);
}

/* Turn one (already checked) event into the document's nodes. */
static bool build(yaml_document_t *d, Open *o, const yaml_event_t *e)
{
    int id = 0;
    switch (e->type) {
    case YAML_SCALAR_EVENT:
        /* a plain scalar with a tag (even !!str) is not a plain one: "!" */
        id = yaml_document_add_scalar(d, e->data.scalar.plain_implicit || e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE
                                             ? NULL : (yaml_char_t *)"!",
                                      e->data.scalar.value, (int)e->data.scalar.length, e->data.scalar.style);
        break;
    case YAML_SEQUENCE_START_EVENT:
        id = yaml_document_add_sequence(d, NULL, e->data.sequence_start.style);
        break;
    case YAML_MAPPING_START_EVENT:
        id = yaml_document_add_mapping(d, NULL, e->data.mapping_start.style);
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        d->nodes.start[o->id[o->n - 1] - 1].end_mark = e->end_mark;
        return attach(d, o, o->id[--o->n]);
    default:
        return true;
    }
    if (!id)
        return false;
    d->nodes.start[id - 1].start_mark = e->start_mark;
    d->nodes.start[id - 1].end_mark = e->end_mark;
    if (e->type == YAML_SCALAR_EVENT)
        return attach(d, o, id);
    o->id[o->n] = id;
    o->key[o->n++] = 0;
    return true;
}

bool ydoc_read(Diag *c, const char *buf, size_t len, yaml_document_t *doc)
{
    yaml_parser_t p;
    Open open = {.n = 0};
    int depth = 0, docs = 0;
    bool ok = true, done = false;
    if (!yaml_parser_initialize(&p))
        return diag_fail_at(c, 0, 0, _("out of memory while reading the lesson"));
    if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
        yaml_parser_delete(&p);
        return diag_fail_at(c, 0, 0, _("out of memory while reading the lesson"));
    }
    parser_open(&p, buf, len);
    while (ok && !done) {
        yaml_event_t e;
        if (!yaml_parser_parse(&p, &e)) {
            ok = parser_error(c, &p, buf, len);
            break;
        }
        ok = check_event(c, &e, &depth, &docs);
        if (ok && !build(doc, &open, &e))
            ok = diag_fail_at(c, 0, 0, _("out of memory while reading the lesson"));
        done = e.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&e);
    }
    yaml_parser_delete(&p);
    if (ok && docs == 0)
        ok = diag_fail_at(c, 0, 0, _("the file is empty, "
                                     "a lesson needs at least format, tokens, X and weights"));
    if (!ok)
        yaml_document_delete(doc);
    return ok;
}
