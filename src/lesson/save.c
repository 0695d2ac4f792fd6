/* save.c - the current state as a lesson file, atomically (see save.h). */
#include "save.h"
#include "text/num.h"
#include "text/afile.h"
#include "text/i18n.h"
#include "departures.h"
#include "msave.h"
#include "optload.h"
#include "saveplan.h"
#include "options.h"
#include "train.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define EDITED_KEEP_MAX 1024 /* load.c reads at most as many */

typedef struct {
    yaml_emitter_t em;
    bool ok;
} YamlOut;

static void emit(YamlOut *o, yaml_event_t *ev, int made)
{
    if (!made || !yaml_emitter_emit(&o->em, ev))
        o->ok = false;
}

static void scalar(YamlOut *o, const char *s, bool quoted)
{
    yaml_event_t ev;
    if (!o->ok)
        return;
    emit(o, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
                                              quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE));
}

/* A number as the shortest text that reads back exactly, with a '.'
 * whatever LC_NUMERIC is (fmt_exact), as the loader reads it. */
static void emit_number(YamlOut *o, double v)
{
    char buf[40];
    scalar(o, fmt_exact(v, buf, sizeof buf), false);
}

static void seq(YamlOut *o, bool start, bool flow)
{
    yaml_event_t ev;
    if (!o->ok)
        return;
    if (start)
        emit(o, &ev, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                                          flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
    else
        emit(o, &ev, yaml_sequence_end_event_initialize(&ev));
}

static void map(YamlOut *o, bool start, bool flow)
{
    yaml_event_t ev;
    if (!o->ok)
        return;
    if (start)
        emit(o, &ev, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                                         flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
    else
        emit(o, &ev, yaml_mapping_end_event_initialize(&ev));
}

/* Columns c0 .. c0 + w - 1 of row i (a head's part of a row). */
static void row_part(YamlOut *o, const Mat *m, int i, int c0, int w)
{
    seq(o, true, true);
    for (int j = c0; j < c0 + w; j++)
        emit_number(o, MAT_AT(m, i, j));
    seq(o, false, true);
}

static void row(YamlOut *o, const Mat *m, int i)
{
    row_part(o, m, i, 0, m->cols);
}

static void matrix(YamlOut *o, const char *key, const Mat *m)
{
    scalar(o, key, false);
    seq(o, true, false);
    for (int i = 0; i < m->rows; i++)
        row(o, m, i);
    seq(o, false, false);
}

static void text(YamlOut *o, const char *key, const Text *t)
{
    if (!t->s[LANG_ZH] && !t->s[LANG_EN])
        return;
    scalar(o, key, false);
    map(o, true, false);
    if (t->s[LANG_ZH]) {
        scalar(o, "zh", false);
        scalar(o, t->s[LANG_ZH], true);
    }
    if (t->s[LANG_EN]) {
        scalar(o, "en", false);
        scalar(o, t->s[LANG_EN], true);
    }
    map(o, false, false);
}

static void overrides(YamlOut *o, const Attn *a)
{
    char key[32];
    bool any = false;
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < a->m[M_Q + m].rows; i++)
            any = any || a->override[m][i];
    if (!any)
        return;
    scalar(o, "overrides", false);
    map(o, true, false);
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < a->m[M_Q + m].rows; i++)
            if (a->override[m][i] && a->ovh[m][i] == 0) {
                snprintf(key, sizeof key, "%s[%d]", attn_mat_name((MatId)(M_Q + m)), i + 1);
                scalar(o, key, true);
                row(o, &a->m[M_Q + m], i);
            } else if (a->override[m][i]) { /* some heads' parts: "Q2[1]" */
                int w = m == 2 ? attn_d_v(a) : attn_d_k(a);
                for (int h = 1; h <= attn_heads(a); h++)
                    if (a->ovh[m][i] >> (h - 1) & 1u) {
                        snprintf(key, sizeof key, "%s[%d]", attn_mat_name(attn_head_id((MatId)(M_Q + m), h)), i + 1);
                        scalar(o, key, true);
                        row_part(o, &a->m[M_Q + m], i, (h - 1) * w, w);
                    }
            }
    map(o, false, false);
}

/* options:, row by row of the option table: those it always saves, and the
 * others when they are not at their default (older saves stay as they were). */
static void options(YamlOut *o, const Attn *a, const Lesson *l)
{
    char buf[SHORTEST_MAX + 16];
    scalar(o, "options", false);
    map(o, true, false);
    for (int k = 0; k < OPT_COUNT; k++) {
        const OptRow *r = &option_table[k];
        double v = r->in_attn ? option_get(a, r) : option_get_lesson(l, r);
        if (!(r->flags & OF_OPTIONS) || (!(r->flags & OF_ALWAYS) && v == r->def))
            continue;
        scalar(o, r->key, false);
        scalar(o, option_text(r, v, a->window, buf, sizeof buf), false);
    }
    map(o, false, false);
}

/* A list of actions under key (as written, or shortest round-trip). */
static void actions(YamlOut *o, const char *key, char **text, const bool *keep, int n)
{
    int kept = 0;
    for (int k = 0; k < n; k++)
        kept += keep[k];
    if (kept == 0)
        return;
    scalar(o, key, false);
    seq(o, true, false);
    for (int k = 0; k < n; k++)
        if (keep[k])
            scalar(o, text[k], true);
    seq(o, false, false);
}

/* edited: the student's edits placed at step k, after the step's own. */
static void step_edits(YamlOut *o, const Session *s, const SavePlan *p, int k)
{
    const Step *st = &s->lesson->steps[k];
    int n = st->nedit;
    for (int e = p->from; e < p->nedit; e++)
        n += p->at[e - p->from] == k && p->keep[e - p->from];
    if (n == 0)
        return;
    char **text = calloc((size_t)n, sizeof *text);
    bool *keep = calloc((size_t)n, sizeof *keep);
    int m = 0;
    for (int e = 0; text && keep && e < st->nedit; e++, m++) {
        text[m] = strdup(st->edit_text[e]);
        keep[m] = p->keep_old[k][e];
    }
    for (int e = p->from; text && keep && e < p->nedit; e++)
        if (p->at[e - p->from] == k && p->keep[e - p->from]) {
            char buf[64 * 28];
            action_text(&s->edits[e], buf, sizeof buf);
            text[m] = strdup(buf);
            keep[m++] = true;
        }
    for (int e = 0; e < m; e++)
        o->ok = o->ok && text[e];
    if (!text || !keep)
        o->ok = false;
    else if (o->ok)
        actions(o, "edited", text, keep, m);
    for (int e = 0; text && e < m; e++)
        free(text[e]);
    free(text);
    free(keep);
}

/* expect:, as written: each value with its written decimals. */
static void expects(YamlOut *o, const Step *st)
{
    char buf[64 * 48];
    if (st->nexpect == 0)
        return;
    scalar(o, "expect", false);
    map(o, true, false);
    for (int k = 0; k < st->nexpect; k++) {
        expect_describe(&st->expect[k], buf, sizeof buf);
        char *eq = strstr(buf, " = ");
        if (!eq) {
            o->ok = false;
            break;
        }
        *eq = '\0';
        scalar(o, buf, true);
        char *v = eq + 3;
        if (*v != '[') {
            scalar(o, v, false);
            continue;
        }
        v[strlen(v) - 1] = '\0';
        seq(o, true, true);
        for (char *item = strtok(v + 1, ","); item; item = strtok(NULL, ","))
            scalar(o, item + (*item == ' '), false);
        seq(o, false, true);
    }
    map(o, false, false);
}

/* One step as the lesson writes it: stage, focus, do:, the edits made at
 * it, the narration, the asks; its expect: while the lesson is its own. */
static void emit_step(YamlOut *o, const Session *s, const SavePlan *p, int k)
{
    const Step *st = &s->lesson->steps[k];
    char buf[64];
    map(o, true, false);
    scalar(o, "stage", false);
    scalar(o, attn_stage_key(st->stage), false);
    if (st->focus.kind != FOCUS_NONE) {
        if (st->focus.kind == FOCUS_ROW)
            snprintf(buf, sizeof buf, "%s[%d]", attn_mat_name(st->focus.mat), st->focus.i + 1);
        else
            snprintf(buf, sizeof buf, "%s[%d][%d]", attn_mat_name(st->focus.mat), st->focus.i + 1, st->focus.j + 1);
        scalar(o, "focus", false);
        scalar(o, buf, true);
    }
    actions(o, "do", st->act_text, p->keep_do[k], st->nact);
    step_edits(o, s, p, k);
    text(o, "say", &st->say);
    if (st->nask > 0) { /* the exercises stay */
        scalar(o, "ask", false);
        seq(o, true, true);
        for (int a = 0; a < st->nask; a++) {
            ask_name(&st->ask[a], buf, sizeof buf);
            scalar(o, buf, true);
        }
        seq(o, false, true);
        if (st->question.s[LANG_EN] || st->question.s[LANG_ZH])
            text(o, "question", &st->question);
    }
    if (k < p->first) /* after an edit the numbers are the student's: the checks described the lesson's */
        expects(o, st);
    map(o, false, false);
}

/* The lesson's own top level: tokens, X, shapes, weights, overrides and
 * options as the lesson gives them (its base state, a). */
static void lesson_top(YamlOut *o, const Lesson *l, const Attn *a)
{
    char buf[16];
    scalar(o, "tokens", false);
    seq(o, true, true);
    for (int i = 0; i < l->ntok; i++)
        scalar(o, l->tokens[i], true);
    seq(o, false, true);
    matrix(o, "X", &l->X);
    if (l->attention == ATTENTION_CROSS) { /* the source, written out (drawn ones too: the weights are) */
        scalar(o, "source", false);
        seq(o, true, true);
        for (int i = 0; i < l->nsrc; i++)
            scalar(o, l->source[i], true);
        seq(o, false, true);
        matrix(o, "Xs", &l->Xs);
        scalar(o, "attention", false);
        scalar(o, "cross", false);
    }
    if (l->npad > 0) {
        scalar(o, "pad", false);
        seq(o, true, true);
        for (int i = 0; i < l->npad; i++)
            scalar(o, l->pad[i] ? "1" : "0", false);
        seq(o, false, true);
    }
    if (l->heads > 1) {
        snprintf(buf, sizeof buf, "%d", l->heads);
        scalar(o, "heads", false);
        scalar(o, buf, false);
    }
    if (attn_kv_heads(a) != attn_heads(a)) {
        snprintf(buf, sizeof buf, "%d", attn_kv_heads(a));
        scalar(o, "kv_heads", false);
        scalar(o, buf, false);
    }
    scalar(o, "weights", false);
    map(o, true, false);
    matrix(o, "Wq", &l->Wq);
    matrix(o, "Wk", &l->Wk);
    matrix(o, "Wv", &l->Wv);
    if (a->has_wo)
        matrix(o, "Wo", &l->Wo);
    map(o, false, false);
    overrides(o, a);
    options(o, a, l);
}

static void body(YamlOut *o, const Session *s, const SavePlan *p)
{
    const Lesson *l = s->lesson;
    char buf[16];
    Attn base = {0};
    if (!lesson_base(l, &base)) {
        o->ok = false;
        return;
    }
    scalar(o, "format", false);
    scalar(o, "qkvtutor/1", false);
    text(o, "title", &l->title);
    text(o, "about", &l->about); /* the lesson's own: the edits are named at their steps (edited:) */
    if (l->nedited > 0) { /* an older save's baked edits: they stay the lesson's */
        bool keep[EDITED_KEEP_MAX];
        for (int k = 0; k < l->nedited && k < EDITED_KEEP_MAX; k++)
            keep[k] = true;
        actions(o, "edited", l->edited, keep, l->nedited < EDITED_KEEP_MAX ? l->nedited : EDITED_KEEP_MAX);
    }
    lesson_top(o, l, &base);
    attn_free(&base);
    scalar(o, "start", false);
    snprintf(buf, sizeof buf, "%d", s->step + 1);
    scalar(o, buf, false);
    if (!l->steps_given && p->first >= l->nsteps)
        return;
    scalar(o, "steps", false);
    seq(o, true, false);
    for (int k = 0; k < l->nsteps; k++)
        emit_step(o, s, p, k);
    seq(o, false, false);
}

static int write_handler(void *data, unsigned char *buf, size_t size)
{
    return fwrite(buf, 1, size, (FILE *)data) == size;
}

/* Emit the whole document to f. */
static bool emit_lesson(const Session *s, FILE *f)
{
    YamlOut o = {.ok = true};
    yaml_event_t ev;
    if (!yaml_emitter_initialize(&o.em))
        return false;
    yaml_emitter_set_output(&o.em, write_handler, f);
    yaml_emitter_set_unicode(&o.em, 1);
    yaml_emitter_set_width(&o.em, 100);
    emit(&o, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
    emit(&o, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
    SavePlan p;
    if (!save_plan(s, &p)) {
        yaml_emitter_delete(&o.em);
        return false;
    }
    map(&o, true, false);
    body(&o, s, &p);
    save_plan_free(&p);
    map(&o, false, false);
    if (o.ok)
        emit(&o, &ev, yaml_document_end_event_initialize(&ev, 1));
    if (o.ok)
        emit(&o, &ev, yaml_stream_end_event_initialize(&ev));
    if (o.ok && !yaml_emitter_flush(&o.em))
        o.ok = false;
    yaml_emitter_delete(&o.em);
    return o.ok;
}

char *lesson_save_text(const Session *s, size_t *len)
{
    char err[512];
    if (session_is_model(s)) /* a model lesson: its own document with the actions (msave.h) */
        return msave_text(s, len, err, sizeof err);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    bool ok = emit_lesson(s, f);
    if (fclose(f) != 0 || !ok) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

bool lesson_save_target(const char *path, char *err, size_t errlen)
{
    struct stat st;
    char shown[1024];
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return true;
    text_shown(path, shown, sizeof shown);
    if (S_ISDIR(st.st_mode))
        snprintf(err, errlen, _("cannot save %s: it is a folder; type a file name, such as %s/lesson.yaml"), shown,
                 shown);
    else
        snprintf(err, errlen, _("cannot save %s: it is not a regular file; type another name"), shown);
    return false;
}

bool lesson_save(const Session *s, const char *path, char *err, size_t errlen)
{
    char tmp[4096], shown[1024];
    if (!lesson_save_target(path, err, errlen))
        return false;
    text_shown(path, shown, sizeof shown);
    if (snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", path) >= (int)sizeof tmp) {
        snprintf(err, errlen, _("%s: the name is too long"), shown);
        return false;
    }
    /* the whole text first: a file the loader would refuse is not written */
    size_t len = 0;
    char *text = session_is_model(s) ? msave_text(s, &len, err, errlen) : lesson_save_text(s, &len);
    if (!text && session_is_model(s))
        return false;
    if (!text) {
        snprintf(err, errlen, _("cannot save %s: %s; nothing was changed"), shown, strerror(ENOMEM));
        return false;
    }
    if (len > LESSON_MAX_BYTES) {
        snprintf(err, errlen, _("cannot save %s: with its edits the lesson is %zu bytes, and a lesson file holds at "
                                "most %d, so it could not be opened again; nothing was written and the edits are "
                                "kept. Shorten the lesson's narration, then save"),
                 shown, len, LESSON_MAX_BYTES);
        free(text);
        return false;
    }
    AFile af; /* text/afile: a temporary beside path, fsynced, renamed over it */
    FILE *f = afile_open(&af, path);
    bool ok = f && fwrite(text, 1, len, f) == len && afile_commit(&af);
    free(text);
    if (ok)
        return true;
    if (f && !af.err)
        af.err = errno ? errno : EIO;
    afile_abort(&af);
    snprintf(err, errlen, f ? _("cannot save %s: %s; nothing was changed") : _("cannot save %s: %s"), shown,
             strerror(af.err ? af.err : EIO));
    return false;
}

void lesson_save_name(const Lesson *l, char *buf, size_t len)
{
    const char *base = strrchr(l->file, '/');
    base = base ? base + 1 : l->file;
    const char *dot = strrchr(base, '.');
    int n = dot && dot > base ? (int)(dot - base) : (int)strlen(base);
    if (n >= 7 && strncmp(base + n - 7, "-edited", 7) == 0)
        snprintf(buf, len, "%.*s.yaml", n, base);
    else
        snprintf(buf, len, "%.*s-edited.yaml", n, base);
}
