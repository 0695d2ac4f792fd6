/* i18n.h - UI strings through gettext, and choosing the language.
 *
 * Every string the user reads from our code goes through _(). The language
 * is decided from --lang or the environment (LANGUAGE, LC_ALL, LC_MESSAGES,
 * LANG: zh* means Chinese) by i18n_detect(), not by setlocale: machines
 * often lack a zh_CN locale and only have C.UTF-8, so i18n_set() sets
 * LANGUAGE itself, which glibc's gettext honours under C.UTF-8. Calling
 * i18n_set() again switches the language live. */
#ifndef QKV_I18N_H
#define QKV_I18N_H

#include <libintl.h>
#include "text.h"

/* English is the source language: it needs no catalogue lookup, which
 * keeps the success paths (loading, --json) free of gettext's cost. */
#define _(s) i18n_tr(s)
#define N_(s) (s)

/* format_arg: a translated format is checked against its English msgid. */
const char *i18n_tr(const char *msgid) __attribute__((format_arg(1)));

Lang i18n_detect(void);
/* Bind the message catalogue (from `localedir`, or NULL for the default)
 * and switch gettext to `lang`. */
void i18n_set(Lang lang, const char *localedir);
/* How many times i18n_set() was called: a text translated and kept is
 * still good while this stays the same. */
unsigned i18n_generation(void);

#endif
