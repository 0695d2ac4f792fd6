/* ydoctape.h - a recording of libyaml's events, as bytes with no pointer
 * in them: the types of a recording (YdocRec) and of one being written
 * (YdocTape), its format, and the reader and writer ydoc.c drives
 * (ydoctape.c). It builds no document and checks no event: ydoc.c does. */
#ifndef QKV_YDOCTAPE_H
#define QKV_YDOCTAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* A recorded event stream: pointer-free bytes (ydoc.c describes them) and
 * the table of the scalars' text they point into by offset. */
typedef struct YdocRec {
    const unsigned char *ev;
    size_t len;
    const char *str;
    size_t strlen;
} YdocRec;

/* A recording being written: the streams one after the other in ev, the
 * text of all in one table str (malloc'd; free both). */
typedef struct {
    unsigned char *ev;
    size_t len, cap;
    char *str;
    size_t strlen;
} YdocTape;

/* A recording (YdocRec) is a byte string: the number of nodes the events
 * build (4 bytes, little-endian), then per event
 *   a head byte: the type (bits 0-3), a tag (0x10), plain_implicit (0x20),
 *     quoted_implicit (0x40), implicit (0x80);
 *   a style byte (a scalar's, a sequence's or a mapping's style; the
 *     encoding of STREAM-START);
 *   for a scalar, its text: offset and length in the string table;
 *   with a tag, the tag's text the same way;
 *   the marks: start minus the previous event's end, then end minus start,
 *     each as index, line, column (zigzag).
 * Numbers are LEB128 varints; the strings in the table end with a NUL. So
 * nothing in it is a pointer or depends on the word size. */
#define TAPE_NODES_MAX (1 << 20)  /* more than a 1 MB lesson can have: a header above is malformed */

enum { TAPE_TAG = 0x10, TAPE_PLAIN = 0x20, TAPE_QUOTED = 0x40, TAPE_IMPLICIT = 0x80 };

typedef struct {
    yaml_parser_t *p;             /* libyaml's parser, or NULL and: */
    const unsigned char *at, *end;
    const YdocRec *rec;
    size_t nodes;                 /* how many nodes the recording builds */
    yaml_mark_t prev;             /* the end of the previous event */
} Source;

/* The next event of the recording s into e; false at its end or when it is
 * malformed. */
bool tape_event(Source *s, yaml_event_t *e);
/* Append event e to tape t (prev: the end of the event before it, moved
 * on); false when out of memory. */
bool tape_record(YdocTape *t, yaml_mark_t *prev, const yaml_event_t *e);
/* Append n bytes to t's events; false when out of memory. */
bool tape_put(YdocTape *t, const unsigned char *b, size_t n);

#endif
