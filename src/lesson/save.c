/* save.c - the current state as a lesson file, atomically (see save.h). */
#include "save.h"
#include "text/num.h"
#include "text/i18n.h"
#include "departures.h"
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

/* The training targets of the saved state, as actions on the step it opens
 * at: the weights are baked in, the targets are not (the format has no key
 * for them), and the script's own target actions were baked away. A
 * target on a key the mask now hides is dropped from a (the scratch state). */
static void target_actions(YamlOut *o, Attn *a)
{
    char buf[2048];
    int bad;
    for (int k = 0; k < a->ntarget; k++) /* one the mask now hides cannot be written: left out, as a step refuses it */
        if (grad_check_dist(a, a->target[k].row, a->target[k].t, attn_tokens(a), &bad) != GRAD_DIST_OK &&
            grad_set_target(a, a->target[k].head, a->target[k].row, NULL))
            k--;
    if (a->ntarget == 0)
        return;
    scalar(o, "do", false);
    seq(o, true, false);
    for (int k = 0; k < a->ntarget; k++) {
        Action act = {.kind = ACT_TARGET, .mat = M_A, .i = a->target[k].row, .head = attn_heads(a) > 1 ? a->target[k].head : -1,
                      .opt = TARGET_DIST, .n = attn_tokens(a)};
        memcpy(act.vals, a->target[k].t, sizeof(double) * (size_t)act.n);
        action_format(&act, buf, sizeof buf);
        scalar(o, buf, true);
    }
    seq(o, false, false);
}

/* The actions of a step not yet baked in that apply to the saved state
 * (scratch, updated as the file's later steps will update it): one that
 * cannot (a student's edit made it so, e.g. the mask now hides a target's
 * key) is left out, as the session itself skips it. */
static void later_actions(YamlOut *o, const Step *st, Attn *scratch, const Attn *base)
{
    char err[256];
    int kept = 0;
    bool keep[LESSON_MAX_ACTIONS];
    for (int k = 0; k < st->nact && k < LESSON_MAX_ACTIONS; k++) {
        if (st->act[k].kind == ACT_RESET) /* back to the saved lesson as written: no targets */
            keep[k] = attn_copy(scratch, base);
        else
            keep[k] = action_apply(scratch, &st->act[k], err, sizeof err);
        kept += keep[k];
    }
    if (kept == 0)
        return;
    scalar(o, "do", false);
    seq(o, true, false);
    for (int k = 0; k < st->nact && k < LESSON_MAX_ACTIONS; k++)
        if (keep[k])
            scalar(o, st->act_text[k], true);
    seq(o, false, false);
}

/* One step: stage, focus, the actions not yet baked in, the narration. */
static void emit_step(YamlOut *o, const Step *st, bool baked, bool start, Attn *scratch, const Attn *base)
{
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
    if (start && scratch)
        target_actions(o, scratch);
    else if (!baked && st->nact > 0 && scratch)
        later_actions(o, st, scratch, base);
    else if (!baked && st->nact > 0) { /* out of memory for the scratch state: as written */
        scalar(o, "do", false);
        seq(o, true, false);
        for (int k = 0; k < st->nact; k++)
            scalar(o, st->act_text[k], true);
        seq(o, false, false);
    }
    text(o, "say", &st->say);
    if (st->nask > 0) { /* the exercises stay */
        scalar(o, "ask", false);
        seq(o, true, true);
        for (int k = 0; k < st->nask; k++) {
            ask_name(&st->ask[k], buf, sizeof buf);
            scalar(o, buf, true);
        }
        seq(o, false, true);
        if (st->question.s[LANG_EN] || st->question.s[LANG_ZH])
            text(o, "question", &st->question);
    }
    map(o, false, false);
}

/* about:, with a note of the edits that made this state (live.h). */
static void about(YamlOut *o, const Session *s)
{
    Text t = {{session_saved_about(s, LANG_EN), session_saved_about(s, LANG_ZH)}};
    text(o, "about", &t);
    text_free(&t);
}

/* edited: the edits that made this state, one action each (live.h), so
 * the reopened lesson says from its first step that it departs. */
static void edited(YamlOut *o, const Session *s)
{
    char **items = NULL;
    int n = session_edited(s, &items);
    if (n < 0)
        o->ok = false;
    if (n > 0) {
        scalar(o, "edited", false);
        seq(o, true, false);
        for (int k = 0; k < n; k++)
            scalar(o, items[k], true);
        seq(o, false, false);
    }
    for (int k = 0; k < n; k++)
        free(items[k]);
    free(items);
}

static void body(YamlOut *o, const Session *s)
{
    const Lesson *l = s->lesson;
    const Attn *a = &s->cur;
    char buf[16];
    scalar(o, "format", false);
    scalar(o, "qkvtutor/1", false);
    text(o, "title", &l->title);
    about(o, s);
    edited(o, s);
    scalar(o, "tokens", false);
    seq(o, true, true);
    for (int i = 0; i < attn_tokens(a); i++)
        scalar(o, lesson_token(l, a, i), true); /* in the order a swap left them, appended ones after */
    seq(o, false, true);
    matrix(o, "X", &a->m[M_X]);
    if (attn_heads(a) > 1) {
        snprintf(buf, sizeof buf, "%d", attn_heads(a));
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
    matrix(o, "Wq", &a->m[M_WQ]);
    matrix(o, "Wk", &a->m[M_WK]);
    matrix(o, "Wv", &a->m[M_WV]);
    if (a->has_wo)
        matrix(o, "Wo", &a->m[M_WO]);
    map(o, false, false);
    overrides(o, a);
    options(o, a, l);
    scalar(o, "start", false);
    snprintf(buf, sizeof buf, "%d", s->step + 1);
    scalar(o, buf, false);
    if (!l->steps_given)
        return;
    scalar(o, "steps", false);
    seq(o, true, false);
    Attn scratch = {0}, base = {0};
    bool have = attn_copy(&scratch, a) && attn_copy(&base, a);
    while (have && base.ntarget > 0)
        have = grad_set_target(&base, base.target[0].head, base.target[0].row, NULL);
    for (int k = 0; k < l->nsteps; k++)
        emit_step(o, &l->steps[k], k <= s->step, k == s->step, have ? &scratch : NULL, &base);
    attn_free(&scratch);
    attn_free(&base);
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
    map(&o, true, false);
    body(&o, s);
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

/* Make the rename durable: fsync the directory that holds path. */
static void sync_dir(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    int fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
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
    char *text = lesson_save_text(s, &len);
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
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, _("cannot save %s: %s"), shown, strerror(errno));
        free(text);
        return false;
    }
    mode_t um = umask(0);
    umask(um);
    FILE *f = fdopen(fd, "w");
    bool ok = f && fchmod(fd, 0666 & ~um) == 0 && fwrite(text, 1, len, f) == len && fflush(f) == 0 &&
              fsync(fd) == 0;
    int e = ok ? 0 : errno;
    free(text);
    if ((f ? fclose(f) : close(fd)) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (ok && rename(tmp, path) == 0) {
        sync_dir(path);
        return true;
    }
    if (ok)
        e = errno;
    unlink(tmp);
    snprintf(err, errlen, _("cannot save %s: %s; nothing was changed"), shown, strerror(e ? e : EIO));
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
