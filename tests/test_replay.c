/* test_replay.c - the built-in lessons' recorded YAML events (tools/lessonrec,
 * src/lesson/ydoc.h) replay into the same document libyaml's events build,
 * and the same lesson. The checker does not use the replay: it compares
 * the two yaml_document_t node by node (type, style, tag, text, items and
 * pairs, every mark) for every built-in lesson, whole and skimmed as
 * --json reads it; then loads each lesson from its built-in array (the
 * replay) and from a copy of the bytes (libyaml) with each load flag and
 * compares status, messages and lesson. A recording with one mark changed
 * on purpose must fail the comparison, and a malformed one must fall back
 * to libyaml. */
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#undef expect_check
#include "lesson/diag.h"
#include "lesson/embedded.h"
#include "lesson/lesson.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "lesson/skim.h"
#include "samelesson.h"
#include "lesson/ydoc.h"

static bool same_mark(const yaml_mark_t *a, const yaml_mark_t *b)
{
    return a->index == b->index && a->line == b->line && a->column == b->column;
}

static bool same_ids(const void *a, const void *b, size_t n, size_t m, size_t size)
{
    return n == m && (n == 0 || memcmp(a, b, n * size) == 0);
}

/* The first difference of two documents, written to why; false if none. */
static bool doc_differs(yaml_document_t *a, yaml_document_t *b, char *why, size_t len)
{
    long na = a->nodes.top - a->nodes.start, nb = b->nodes.top - b->nodes.start;
    if (na != nb)
        return snprintf(why, len, "%ld nodes, %ld", na, nb) > 0;
    if (a->start_implicit != b->start_implicit || a->end_implicit != b->end_implicit ||
        a->version_directive || b->version_directive)
        return snprintf(why, len, "the document's flags") > 0;
    for (long k = 0; k < na; k++) {
        const yaml_node_t *x = &a->nodes.start[k], *y = &b->nodes.start[k];
        const char *what = NULL;
        if (x->type != y->type)
            what = "type";
        else if (strcmp((const char *)x->tag, (const char *)y->tag) != 0)
            what = "tag";
        else if (!same_mark(&x->start_mark, &y->start_mark))
            what = "start mark";
        else if (!same_mark(&x->end_mark, &y->end_mark))
            what = "end mark";
        else if (x->type == YAML_SCALAR_NODE)
            what = x->data.scalar.style != y->data.scalar.style                                   ? "style"
                   : x->data.scalar.length != y->data.scalar.length                               ? "length"
                   : memcmp(x->data.scalar.value, y->data.scalar.value, x->data.scalar.length + 1) ? "text"
                                                                                                   : NULL;
        else if (x->type == YAML_SEQUENCE_NODE)
            what = x->data.sequence.style != y->data.sequence.style ? "style"
                   : !same_ids(x->data.sequence.items.start, y->data.sequence.items.start,
                               (size_t)(x->data.sequence.items.top - x->data.sequence.items.start),
                               (size_t)(y->data.sequence.items.top - y->data.sequence.items.start), sizeof(int))
                       ? "items"
                       : NULL;
        else if (x->type == YAML_MAPPING_NODE)
            what = x->data.mapping.style != y->data.mapping.style ? "style"
                   : !same_ids(x->data.mapping.pairs.start, y->data.mapping.pairs.start,
                               (size_t)(x->data.mapping.pairs.top - x->data.mapping.pairs.start),
                               (size_t)(y->data.mapping.pairs.top - y->data.mapping.pairs.start),
                               sizeof(yaml_node_pair_t))
                       ? "pairs"
                       : NULL;
        if (what)
            return snprintf(why, len, "node %ld (line %zu col %zu): its %s", k + 1, x->start_mark.line + 1,
                            x->start_mark.column + 1, what) > 0;
    }
    return false;
}

/* The bytes as the loader reads them: a byte-order mark dropped, and
 * skimmed (when skim says so) into *own, or the bytes themselves. */
static const char *prepared(const EmbeddedLesson *e, bool skimmed, size_t *len, char **own)
{
    const char *buf = e->data;
    *len = e->len;
    *own = NULL;
    if (*len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
        buf += 3;
        *len -= 3;
    }
    if (!skimmed)
        return buf;
    *own = malloc(*len ? *len : 1);
    assert_non_null(*own);
    size_t n = skim_narration(*own, buf, *len);
    if (n == (size_t)-1)
        return buf;
    *len = n;
    return *own;
}

/* rec replays into the document libyaml builds from the bytes; with an
 * empty buffer, so that a fallback to libyaml could not pass. */
static void assert_replays(const char *name, const YdocRec *rec, const char *buf, size_t len)
{
    yaml_document_t parsed, replayed;
    char err[DIAG_MSG_MAX], why[200];
    Diag d = {.file = name, .err = err, .errlen = sizeof err};
    if (!ydoc_read(&d, buf, len, &parsed))
        fail_msg("%s: libyaml refuses it: %s", name, err);
    if (!ydoc_replay(&d, rec, "", 0, &replayed))
        fail_msg("%s: the recording does not replay: %s", name, err);
    if (doc_differs(&parsed, &replayed, why, sizeof why))
        fail_msg("%s: the replay differs from libyaml at %s", name, why);
    assert_true(parsed.nodes.top - parsed.nodes.start > 50);
    ydoc_free(&parsed);
    ydoc_free(&replayed);
}

static void documents(void **state)
{
    (void)state;
    assert_true(embedded_count >= 13);
    for (int k = 0; k < embedded_count; k++) {
        const EmbeddedLesson *e = &embedded_lessons[k];
        assert_non_null(e->full);
        assert_non_null(e->skim);
        for (int skimmed = 0; skimmed < 2; skimmed++) {
            size_t len;
            char *own;
            const char *buf = prepared(e, skimmed, &len, &own);
            assert_replays(e->name, skimmed ? e->skim : e->full, buf, len);
            if (skimmed)
                assert_true(own && buf == own && len < e->len); /* every built-in lesson is skimmed */
            free(own);
        }
    }
}

static DiagList list_a, list_b;

static void lessons(void **state)
{
    (void)state;
    static const unsigned flags[] = {0, LESSON_LOAD_NO_NARRATION, LESSON_LOAD_NO_NARRATION | LESSON_LOAD_FULL_PARSE};
    for (int k = 0; k < embedded_count; k++) {
        const EmbeddedLesson *e = &embedded_lessons[k];
        char *copy = malloc(e->len);
        assert_non_null(copy);
        memcpy(copy, e->data, e->len);
        for (size_t f = 0; f < sizeof flags / sizeof *flags; f++) {
            Lesson a, b;
            char ea[LESSON_ERR_MAX], eb[LESSON_ERR_MAX];
            bool oka = lesson_load_buffer_all(e->name, e->data, e->len, &a, ea, sizeof ea, &list_a, flags[f]);
            bool okb = lesson_load_buffer_all(e->name, copy, e->len, &b, eb, sizeof eb, &list_b, flags[f]);
            if (!oka || !okb)
                fail_msg("%s: replayed: %s; parsed: %s", e->name, oka ? "ok" : ea, okb ? "ok" : eb);
            assert_int_equal(list_a.n, list_b.n);
            assert_string_equal(a.file, b.file);
            if (flags[f] == 0) {
                assert_string_equal(a.title.s[LANG_EN], b.title.s[LANG_EN]);
                assert_memory_equal(a.about_at, b.about_at, sizeof a.about_at);
            }
            assert_same_lesson(&a, &b, e->name, "replayed");
            lesson_free(&a);
            lesson_free(&b);
        }
        free(copy);
    }
}

/* One mark changed on purpose: the end of the k-th event's node moves a
 * column. */
static void move_end(yaml_event_t *e, int k, void *arg)
{
    if (k == *(int *)arg)
        e->end_mark.column++;
}

static void record(const char *buf, size_t len, YdocTape *t, int at)
{
    char err[DIAG_MSG_MAX];
    Diag d = {.file = "mutant", .err = err, .errlen = sizeof err};
    YdocEdit edit = {move_end, &at};
    memset(t, 0, sizeof *t);
    if (!ydoc_record(&d, buf, len, t, at >= 0 ? &edit : NULL))
        fail_msg("cannot record: %s", err);
}

/* The comparison can fail: a recording with one end mark moved differs,
 * at that node; the same recording unchanged does not. */
static void mutation(void **state)
{
    (void)state;
    const EmbeddedLesson *e = &embedded_lessons[0];
    char err[DIAG_MSG_MAX], why[200];
    Diag d = {.file = e->name, .err = err, .errlen = sizeof err};
    yaml_document_t parsed, replayed;
    assert_true(ydoc_read(&d, e->data, e->len, &parsed));
    for (int at = -1; at <= 40; at += 41) { /* unchanged, then the 40th event */
        YdocTape t;
        record(e->data, e->len, &t, at);
        YdocRec rec = {t.ev, t.len, t.str, t.strlen};
        assert_true(ydoc_replay(&d, &rec, "", 0, &replayed));
        bool differs = doc_differs(&parsed, &replayed, why, sizeof why);
        if (at < 0)
            assert_false(differs);
        else if (!differs || !strstr(why, "end mark"))
            fail_msg("a recording with one end mark moved is not caught (%s)", differs ? why : "no difference");
        ydoc_free(&replayed);
        free(t.ev);
        free(t.str);
    }
    ydoc_free(&parsed);
}

/* A malformed recording is not trusted: the bytes are parsed instead. */
static void malformed(void **state)
{
    (void)state;
    const EmbeddedLesson *e = &embedded_lessons[0];
    const YdocRec *r = e->full;
    char err[DIAG_MSG_MAX], why[200];
    Diag d = {.file = e->name, .err = err, .errlen = sizeof err};
    yaml_document_t parsed, replayed;
    assert_true(ydoc_read(&d, e->data, e->len, &parsed));
    YdocRec cut[] = {{r->ev, r->len / 2, r->str, r->strlen},  /* stops mid-way */
                     {r->ev, r->len, r->str, r->strlen / 2}}; /* its text cut short */
    for (size_t k = 0; k < sizeof cut / sizeof *cut; k++) {
        assert_true(ydoc_replay(&d, &cut[k], e->data, e->len, &replayed));
        assert_false(doc_differs(&parsed, &replayed, why, sizeof why));
        ydoc_free(&replayed);
        /* and with no bytes to fall back on, the empty file is what libyaml says */
        assert_false(ydoc_replay(&d, &cut[k], "", 0, &replayed));
        assert_non_null(strstr(err, "the file is empty"));
    }
    ydoc_free(&parsed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(documents),
        cmocka_unit_test(lessons),
        cmocka_unit_test(mutation),
        cmocka_unit_test(malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
