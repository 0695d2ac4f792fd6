/* authoring.c - narration room, the title card's fit and missing
 * translations, for --check and --dump (see authoring.h). */
#include "authoring.h"

#include <string.h>

#include "text/i18n.h"

static const Lang langs[LANG_COUNT] = {LANG_EN, LANG_ZH};
static const char *const code[LANG_COUNT] = {"en", "zh"};

/* The view shows a language's narration with its interface in that
 * language too (L switches both), and the interface's lines take room:
 * measure each language with its own. ui: the language of the messages. */
static bool fits_in(NarrationFits fits, const Session *s, int k, int n, int room[3], Lang ui)
{
    if (langs[n] != ui)
        i18n_set(langs[n], NULL);
    bool ok = fits(s, k, langs[n], CHECK_COLS, CHECK_ROWS, room);
    if (langs[n] != ui)
        i18n_set(ui, NULL);
    return ok;
}

static int space_in(NarrationSpace space, const Session *s, int k, int n, Lang ui)
{
    if (langs[n] != ui)
        i18n_set(langs[n], NULL);
    int lines = space(s, k, langs[n], CHECK_COLS, CHECK_ROWS);
    if (langs[n] != ui)
        i18n_set(ui, NULL);
    return lines;
}

/* One text's missing language, if any: a line at the language written. */
static int missing(FILE *out, const char *file, const char *where, const char *key, const Text *t,
                   const TextAt *at)
{
    int n = 0;
    for (int k = 0; k < LANG_COUNT; k++) {
        if (!at[langs[k]].alone || !*text_get(t, langs[1 - k]))
            continue;
        const TextAt *w = &at[langs[k]];
        fprintf(out, "%s:%d:%d: %s", file, w->line, w->col + 1, where);
        fprintf(out, _("%s: has %s text but no %s; add %s: \"...\" (until then the %s text shows in %s)"), key,
                code[1 - k], code[k], code[k], code[1 - k], code[k]);
        fputc('\n', out);
        n++;
    }
    return n;
}

int authoring_translations(FILE *out, const char *file, const Lesson *l, int k)
{
    if (k < 0)
        return missing(out, file, "", "title", &l->title, l->title_at) +
               missing(out, file, "", "about", &l->about, l->about_at);
    const Step *st = &l->steps[k];
    char where[48];
    snprintf(where, sizeof where, "%s %d: ", _("step"), k + 1);
    return missing(out, file, where, "say", &st->say, st->say_at) +
           missing(out, file, where, "question", &st->question, st->question_at);
}

int authoring_narration(FILE *out, const char *file, const Session *s, int k, NarrationFits fits, Lang ui)
{
    const Step *st = &s->lesson->steps[k];
    int bad = 0, room[3];
    for (int n = 0; n < LANG_COUNT; n++) {
        if (!*text_get(&st->say, langs[n]) || fits_in(fits, s, k, n, room, ui))
            continue;
        bad++;
        /* a language not written falls back on the other, which is then the place */
        const TextAt *at = &st->say_at[langs[n]];
        int line = at->line ? at->line : st->line, col = at->line ? at->col + 1 : 1;
        fprintf(out, "%s:%d:%d: %s %d (%s): ", file, line, col, _("step"), k + 1, code[n]);
        if (room[1] > 0)
            fprintf(out, _("the narration needs %d lines, at %dx%d this step has room for %d lines of %d columns; "
                           "shorten it"), room[2], CHECK_COLS, CHECK_ROWS, room[1], room[0]);
        else
            fprintf(out, _("the narration leaves no room for the matrices at %dx%d; shorten it"), CHECK_COLS,
                    CHECK_ROWS);
        fputc('\n', out);
    }
    return bad;
}

int authoring_card(FILE *out, const char *file, const Session *s, NarrationFits fits, Lang ui)
{
    const Lesson *l = s->lesson;
    int bad = 0, room[3];
    for (int n = 0; lesson_has_about(l) && n < LANG_COUNT; n++) {
        if (fits_in(fits, s, -1, n, room, ui))
            continue;
        bad++;
        const TextAt *at = &l->about_at[langs[n]];
        fprintf(out, "%s:%d:%d: about (%s): ", file, at->line ? at->line : 1, at->line ? at->col + 1 : 1, code[n]);
        fprintf(out, _("the title card needs %d lines, at %dx%d it has room for %d lines of %d columns "
                       "(the title, a blank line and about:); shorten about:"),
                room[2], CHECK_COLS, CHECK_ROWS, room[1], room[0]);
        fputc('\n', out);
    }
    return bad;
}

/* " en uses 2" or " en uses 4 (too long)". */
static void put_uses(FILE *out, int lang, int uses, int space)
{
    fprintf(out, uses > space ? _("%s uses %d (too long)") : _("%s uses %d"), code[lang], uses);
}

void authoring_room(FILE *out, const Session *s, int k, NarrationFits fits, NarrationSpace sp, Lang ui)
{
    const Lesson *l = s->lesson;
    const Text *t = k < 0 ? &l->about : &l->steps[k].say;
    int space[LANG_COUNT], uses[LANG_COUNT], room[3] = {0, 0, 0};
    if (!fits || !sp || !*text_get(t, LANG_EN))
        return;
    for (int n = 0; n < LANG_COUNT; n++) {
        space[n] = space_in(sp, s, k, n, ui);
        fits_in(fits, s, k, n, room, ui);
        uses[n] = room[2];
    }
    fputs("  ", out);
    fprintf(out, k < 0 ? _("title card room at %dx%d: ") : _("room at %dx%d: "), CHECK_COLS, CHECK_ROWS);
    if (space[0] == space[1])
        fprintf(out, _("%d lines of %d columns; "), space[0], room[0]);
    else
        fprintf(out, _("%d lines (zh %d) of %d columns; "), space[0], space[1], room[0]);
    put_uses(out, 0, uses[0], space[0]);
    fputs(_(", "), out);
    put_uses(out, 1, uses[1], space[1]);
    fputc('\n', out);
}
