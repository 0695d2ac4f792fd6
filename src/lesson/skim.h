/* skim.h - --json's narration skimmer: the lesson's bytes with the text of
 * its one-line narration scalars taken out, so that libyaml does not scan
 * what --json never reads (LESSON_LOAD_NO_NARRATION).
 *
 * skim_narration() empties the double-quoted value ("..." -> "") of the
 * top-level about:, of say: and question: in the items of the top-level
 * steps:, and of the keys below them (zh:, en:), when the value opens and
 * closes on one line. It does so only when it understands the whole file:
 * UTF-8 text libyaml's reader accepts, without tabs, CRs or Unicode line
 * breaks; lines that are blank, comments, `key:` / `key: one-line value` /
 * `- item` (one-line flow collections, quoted or plain scalars) or block
 * scalars (| and >, followed by indentation). A scalar is emptied only when
 * every escape in it is one libyaml accepts and nothing but spaces and a
 * comment follows it on a line that ends with a newline; so every line
 * keeps its number, no token after the scalar moves, and every error the
 * full parse reports is reported the same. On anything else it returns
 * (size_t)-1 and the caller parses the bytes as they are.
 *
 * out must hold len bytes; returns the length written to it. */
#ifndef QKV_SKIM_H
#define QKV_SKIM_H

#include <stddef.h>

size_t skim_narration(char *out, const char *buf, size_t len);

#endif
