/* fullwidth.h - full-width punctuation where YAML needs its ASCII form.
 *
 * A Chinese input method types "：" after a key, "［ ］" and "｛ ｝" around a
 * list or a mapping, and "，" between a flow list's items. YAML reads none
 * of them as structure, so libyaml reports a raw syntax error elsewhere
 * (often on the next line), or the value becomes one string. These
 * functions find such a character in the structural part of a line or a
 * plain scalar (outside quotes and comments; a "：" only before the key's
 * own ":", a bracket only where a value starts) and report it at its
 * place: "FILE:LINE:COL: "：" is U+FF1A FULLWIDTH COLON, which YAML does
 * not read as the colon after a key; write an ASCII colon ":"". Narration
 * text, quoted or after the key's ASCII colon, is never touched. */
#ifndef QKV_FULLWIDTH_H
#define QKV_FULLWIDTH_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "diag.h"

/* After a libyaml syntax error: when a line from the error's context (or
 * the line before the problem) to the problem's line holds structural
 * full-width punctuation, report it there and return true. */
bool fullwidth_syntax(Diag *d, const yaml_parser_t *p, const char *buf, size_t len);
/* A plain scalar where a mapping or a list was wanted ("digits：3",
 * "［我, 爱］"): report its full-width punctuation and return true. */
bool fullwidth_scalar(Diag *d, const yaml_node_t *n);

#endif
