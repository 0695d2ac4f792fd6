/* i18n.c - the UI language (see i18n.h). */
#include "i18n.h"

#include <stdlib.h>
#include <string.h>

#define DOMAIN "qkvtutor"

static Lang current = LANG_EN;

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
    extern int _nl_msg_cat_cntr; /* glibc: bump to drop cached translations */
    if (localedir)
        bindtextdomain(DOMAIN, localedir);
    bind_textdomain_codeset(DOMAIN, "UTF-8");
    textdomain(DOMAIN);
    setenv("LANGUAGE", lang == LANG_ZH ? "zh_CN" : "en", 1);
    ++_nl_msg_cat_cntr;
    current = lang;
}

const char *i18n_tr(const char *msgid)
{
    return current == LANG_EN ? msgid : gettext(msgid);
}
