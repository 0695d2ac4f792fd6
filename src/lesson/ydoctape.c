/* ydoctape.c - libyaml's events on a tape: read back from a recording
 * (tape_event) and recorded as ydoc accepted them (tape_record); the
 * format is ydoctape.h's. */
#include "ydoctape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef QKV_NO_RECORDINGS
static bool tape_num(Source *s, uint64_t *v)
{
    uint64_t x = 0;
    for (int sh = 0; sh < 64 && s->at < s->end; sh += 7) {
        unsigned char b = *s->at++;
        x |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

/* base plus a zigzag delta from the tape, into *out (no wrap-around). */
static bool tape_delta(Source *s, size_t base, size_t *out)
{
    uint64_t z;
    if (!tape_num(s, &z))
        return false;
    uint64_t mag = z >> 1;
    if (z & 1) {
        mag += 1;
        if (mag > base)
            return false;
        *out = base - (size_t)mag;
    } else {
        if (mag > (uint64_t)(SIZE_MAX - base))
            return false;
        *out = base + (size_t)mag;
    }
    return true;
}

static bool tape_mark(Source *s, const yaml_mark_t *from, yaml_mark_t *m)
{
    return tape_delta(s, from->index, &m->index) && tape_delta(s, from->line, &m->line) &&
           tape_delta(s, from->column, &m->column);
}

/* A string of the table: it lies inside and ends with its NUL. */
static bool tape_text(Source *s, yaml_char_t **text, size_t *len)
{
    uint64_t off, n;
    if (!tape_num(s, &off) || !tape_num(s, &n) || off >= s->rec->strlen || n >= s->rec->strlen - off ||
        s->rec->str[off + n] != '\0')
        return false;
    *text = (yaml_char_t *)(s->rec->str + off);
    *len = (size_t)n;
    return true;
}

/* The next recorded event; false when the recording is malformed. */
bool tape_event(Source *s, yaml_event_t *e)
{
    memset(e, 0, sizeof *e);
    if (s->end - s->at < 2)
        return false;
    unsigned head = *s->at++, style = *s->at++;
    yaml_char_t *value = NULL, *tag = NULL;
    size_t len = 0, taglen;
    e->type = (yaml_event_type_t)(head & 15);
    if (e->type < YAML_STREAM_START_EVENT || e->type > YAML_MAPPING_END_EVENT || e->type == YAML_ALIAS_EVENT ||
        (e->type == YAML_SCALAR_EVENT && !tape_text(s, &value, &len)) ||
        ((head & TAPE_TAG) && !tape_text(s, &tag, &taglen)) || !tape_mark(s, &s->prev, &e->start_mark) ||
        !tape_mark(s, &e->start_mark, &e->end_mark))
        return false;
    s->prev = e->end_mark;
    int implicit = (head & TAPE_IMPLICIT) != 0;
    switch (e->type) {
    case YAML_STREAM_START_EVENT:
        e->data.stream_start.encoding = (yaml_encoding_t)style;
        break;
    case YAML_DOCUMENT_START_EVENT:
        e->data.document_start.implicit = implicit;
        break;
    case YAML_DOCUMENT_END_EVENT:
        e->data.document_end.implicit = implicit;
        break;
    case YAML_SCALAR_EVENT:
        e->data.scalar.tag = tag;
        e->data.scalar.value = value;
        e->data.scalar.length = len;
        e->data.scalar.plain_implicit = (head & TAPE_PLAIN) != 0;
        e->data.scalar.quoted_implicit = (head & TAPE_QUOTED) != 0;
        e->data.scalar.style = (yaml_scalar_style_t)style;
        break;
    case YAML_SEQUENCE_START_EVENT:
        e->data.sequence_start.tag = tag;
        e->data.sequence_start.implicit = implicit;
        e->data.sequence_start.style = (yaml_sequence_style_t)style;
        break;
    case YAML_MAPPING_START_EVENT:
        e->data.mapping_start.tag = tag;
        e->data.mapping_start.implicit = implicit;
        e->data.mapping_start.style = (yaml_mapping_style_t)style;
        break;
    default:
        break;
    }
    return true;
}

/* ---- recording: the events as ydoc accepted them, onto a tape ------------- */

bool tape_put(YdocTape *t, const unsigned char *b, size_t n)
{
    if (t->cap - t->len < n) {
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap - t->len < n)
            cap *= 2;
        unsigned char *ev = realloc(t->ev, cap);
        if (!ev)
            return false;
        t->ev = ev;
        t->cap = cap;
    }
    memcpy(t->ev + t->len, b, n);
    t->len += n;
    return true;
}

static bool tape_put_num(YdocTape *t, uint64_t v)
{
    unsigned char b[10];
    size_t n = 0;
    do {
        b[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        b[n++] |= v ? 0x80 : 0;
    } while (v);
    return tape_put(t, b, n);
}

static bool tape_put_delta(YdocTape *t, size_t from, size_t to)
{
    return tape_put_num(t, to >= from ? (uint64_t)(to - from) << 1 : ((uint64_t)(from - to - 1) << 1) | 1);
}

static bool tape_put_mark(YdocTape *t, const yaml_mark_t *from, const yaml_mark_t *m)
{
    return tape_put_delta(t, from->index, m->index) && tape_put_delta(t, from->line, m->line) &&
           tape_put_delta(t, from->column, m->column);
}

/* A string into the table (once: a string already there, or the tail of
 * one, is shared), then its offset and length onto the tape. */
static bool tape_put_text(YdocTape *t, const yaml_char_t *s, size_t len)
{
    size_t off = 0;
    for (; off + len < t->strlen; off++)
        if (memcmp(t->str + off, s, len) == 0 && t->str[off + len] == '\0')
            break;
    if (off + len >= t->strlen) {
        char *str = realloc(t->str, t->strlen + len + 1);
        if (!str)
            return false;
        t->str = str;
        off = t->strlen;
        memcpy(str + off, s, len);
        str[off + len] = '\0';
        t->strlen += len + 1;
    }
    return tape_put_num(t, off) && tape_put_num(t, len);
}

/* One accepted event onto the tape (a version or tag directive is not
 * recorded: the lesson is refused). */
bool tape_record(YdocTape *t, yaml_mark_t *prev, const yaml_event_t *e)
{
    const yaml_char_t *tag = NULL;
    unsigned head = (unsigned)e->type, style = 0;
    switch (e->type) {
    case YAML_STREAM_START_EVENT:
        style = (unsigned)e->data.stream_start.encoding;
        break;
    case YAML_DOCUMENT_START_EVENT:
        if (e->data.document_start.version_directive || e->data.document_start.tag_directives.start)
            return false;
        head |= e->data.document_start.implicit ? TAPE_IMPLICIT : 0;
        break;
    case YAML_DOCUMENT_END_EVENT:
        head |= e->data.document_end.implicit ? TAPE_IMPLICIT : 0;
        break;
    case YAML_SCALAR_EVENT:
        tag = e->data.scalar.tag;
        style = (unsigned)e->data.scalar.style;
        head |= (e->data.scalar.plain_implicit ? TAPE_PLAIN : 0) | (e->data.scalar.quoted_implicit ? TAPE_QUOTED : 0);
        break;
    case YAML_SEQUENCE_START_EVENT:
        tag = e->data.sequence_start.tag;
        style = (unsigned)e->data.sequence_start.style;
        head |= e->data.sequence_start.implicit ? TAPE_IMPLICIT : 0;
        break;
    case YAML_MAPPING_START_EVENT:
        tag = e->data.mapping_start.tag;
        style = (unsigned)e->data.mapping_start.style;
        head |= e->data.mapping_start.implicit ? TAPE_IMPLICIT : 0;
        break;
    default:
        break;
    }
    unsigned char b[2] = {(unsigned char)(head | (tag ? TAPE_TAG : 0)), (unsigned char)style};
    bool ok = tape_put(t, b, 2) &&
              (e->type != YAML_SCALAR_EVENT || tape_put_text(t, e->data.scalar.value, e->data.scalar.length)) &&
              (!tag || tape_put_text(t, tag, strlen((const char *)tag))) && tape_put_mark(t, prev, &e->start_mark) &&
              tape_put_mark(t, &e->start_mark, &e->end_mark);
    *prev = e->end_mark;
    return ok;
}

#else
/* The web build reads no recording and writes none (src/web/web.mk). */
bool tape_event(Source *s, yaml_event_t *e)
{
    return false;
}

bool tape_record(YdocTape *t, yaml_mark_t *prev, const yaml_event_t *e)
{
    return false;
}
#endif
