/* i18n.c - the UI language (see i18n.h). */
#include "i18n.h"

#include <stdlib.h>
#include <string.h>

#define DOMAIN "qkvtutor"

static Lang current = LANG_EN;
static unsigned generation; /* i18n_set calls so far: what was translated before may differ now */

Lang i18n_detect(void)
{
    static const char *vars[] = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
        const char *v = getenv(vars[k]);
        if (v && *v)
            return strncmp(v, "zh", 2) == 0 ? LANG_ZH : LANG_EN;
    }
    return LANG_EN;
}

void i18n_set(Lang lang, const char *localedir)
{
    if (localedir)
        bindtextdomain(DOMAIN, localedir);
    bind_textdomain_codeset(DOMAIN, "UTF-8");
    setenv("LANGUAGE", lang == LANG_ZH ? "zh_CN" : "en", 1);
    /* Set the domain after LANGUAGE: textdomain() is gettext's public way to
     * say an environment variable changed (glibc then drops the translations
     * it cached), so no private counter is needed to switch live. */
    textdomain(DOMAIN);
    current = lang;
    generation++;
}

unsigned i18n_generation(void)
{
    return generation;
}

const char *i18n_tr(const char *msgid)
{
    return current == LANG_EN ? msgid : gettext(msgid);
}
