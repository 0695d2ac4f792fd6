/* fullwidth.h - full-width punctuation where YAML needs its ASCII form.
 *
 * A Chinese input method types "：" after a key and "［ ］" or "｛ ｝" around
 * a list or a mapping. YAML reads none of them as structure, so libyaml
 * reports a raw syntax error elsewhere (often on the next line), or the
 * value becomes one string. These functions find such a character in the
 * structural part of a line or a plain scalar (outside quotes and
 * comments; a "：" only before the key's own ":", an opening bracket only
 * where a value starts, a closing one inside an ASCII flow collection)
 * and say where it is and what to write, for the caller's message there:
 * "\"：\" is U+FF1A FULLWIDTH COLON, which YAML does not read as the colon
 * after a key; write an ASCII \":\" instead". Narration text, quoted or
 * after the key's ASCII colon, is never looked at. Nothing here reports. */
#ifndef QKV_FULLWIDTH_H
#define QKV_FULLWIDTH_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* Where the character is (0-based line, column in characters) and the
 * message to give there, without the FILE:LINE:COL. */
typedef struct {
    size_t line, col;
    char msg[256];
} FullwidthHit;

/* After a libyaml syntax error: does a line from the error's context (or
 * the line before the problem) to the problem's line hold structural
 * full-width punctuation? */
bool fullwidth_syntax(const yaml_parser_t *p, const char *buf, size_t len, FullwidthHit *hit);
/* A plain scalar where a mapping or a list was wanted ("digits：3",
 * "［我, 爱］"): does it hold such punctuation? */
bool fullwidth_scalar(const yaml_node_t *n, FullwidthHit *hit);

#endif
