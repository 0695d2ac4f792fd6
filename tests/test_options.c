/* test_options.c - the one option table (lesson/options.h): every layer
 * reads its rows. Each action row parses, applies and writes back as the
 * table spells it; each range is checked at both ends by the action parser
 * and the loader, and every message quotes the table's bounds; a lesson's
 * options come back from --json's fields and from a save. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#undef expect_check  /* cmocka's mock macro; lesson.h declares a function of that name */
#include "lesson/lesson.h"
#include "lesson/diag.h"
#include "lesson/optload.h"
#include "lesson/options.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "text/num.h"

#define BASE "format: qkvtutor/1\n" \
             "tokens: [a, b]\n" \
             "X: [[1, 0], [0, 1]]\n" \
             "weights: {random: {seed: 1, scale: 0.3, d_k: 2}}\n"

/* The table's rows are in the order of their ids, each named once. */
static void rows_are_unique(void **state)
{
    for (int k = 0; k < OPT_COUNT; k++) {
        assert_int_equal(option_table[k].id, k);
        assert_ptr_equal(option_by_word(option_table[k].key, (int)strlen(option_table[k].key)), &option_table[k]);
        for (int j = k + 1; j < OPT_COUNT; j++)
            assert_string_not_equal(option_table[k].key, option_table[j].key);
    }
    assert_ptr_equal(option_by_word("T", 1), option_row(OPT_TEMP));
    assert_null(option_by_word("temp", 4));
}

/* Every action row: "key = value" for its default (and each word) parses
 * to its kind, applies into the state's field and writes back the same. */
static void action_rows_round_trip(void **state)
{
    for (int k = 0; k < OPT_COUNT; k++) {
        const OptRow *r = &option_table[k];
        if (!(r->flags & OF_ACTION))
            continue;
        for (int w = 0; w < 3; w++) {
            char text[96], val[48], back[96], err[256];
            if (r->type == OT_WORDS && !r->words[w])
                break;
            double v = r->type == OT_WORDS ? w : r->def;
            snprintf(text, sizeof text, "%s = %s", r->key, option_text(r, v, 2, val, sizeof val));
            Action act;
            int col = 0;
            assert_true(action_parse(text, &act, err, sizeof err, &col));
            assert_int_equal(act.kind, option_act(r));
            assert_ptr_equal(option_of_action(act.kind), r);
            action_format(&act, back, sizeof back);
            assert_string_equal(back, text);
            assert_true(option_action_value(r, &act) == v);
            if (r->type != OT_WORDS)
                break;
        }
    }
}

/* A number outside the range, at each end, is refused by the action
 * parser with the table's bounds in the message; the bounds themselves are
 * taken (both ends allowed, or above lo only). */
static void action_ranges_from_the_table(void **state)
{
    static const OptId ids[] = {OPT_TEMP, OPT_LR, OPT_ROPE_BASE, OPT_OFFSET, OPT_BLOCK};
    for (size_t k = 0; k < sizeof ids / sizeof *ids; k++) {
        const OptRow *r = option_row(ids[k]);
        char lo[SHORTEST_MAX], hi[SHORTEST_MAX], text[96], err[256];
        Action act;
        int col = 0;
        option_bounds(r, lo, hi, sizeof lo);
        snprintf(text, sizeof text, "%s = %s", r->key, lo);
        assert_int_equal(action_parse(text, &act, err, sizeof err, &col), !(r->flags & OF_ABOVE));
        if (r->flags & OF_ABOVE) {
            assert_non_null(strstr(err, lo));
            continue;
        }
        snprintf(text, sizeof text, "%s = %s", r->key, hi);
        assert_true(action_parse(text, &act, err, sizeof err, &col));
        snprintf(text, sizeof text, "%s = %s0", r->key, hi); /* ten times the top */
        assert_false(action_parse(text, &act, err, sizeof err, &col));
        assert_non_null(strstr(err, lo));
        assert_non_null(strstr(err, hi));
    }
}

/* The loader reads each options: row with the table's range: a value
 * past the top is refused with the table's bounds, and every bad option
 * is listed, not only the first. */
static void loader_ranges_from_the_table(void **state)
{
    char yaml[1024], err[512];
    Lesson l;
    snprintf(yaml, sizeof yaml, "%soptions: {temperature: 21, digits: 7, block: 65}\n", BASE);
    static DiagList list;
    assert_false(lesson_load_buffer_all("t.yaml", yaml, strlen(yaml), &l, err, sizeof err, &list, 0));
    assert_int_equal(list.n, 3);
    assert_string_equal(list.m[0].text,
                        "t.yaml:5:24: temperature must be from 0.05 to 20 (1 is the plain softmax), found \"21\"");
    assert_string_equal(list.m[1].text, "t.yaml:5:36: digits must be a whole number from 1 to 6, found \"7\"");
    assert_string_equal(list.m[2].text, "t.yaml:5:46: block must be a whole number from 1 to 64 (keys per block of "
                                        "the online softmax), found \"65\"");
    /* the top of each range is taken */
    snprintf(yaml, sizeof yaml, "%soptions: {temperature: 20, digits: 6, block: 64, lr: 0.001}\n", BASE);
    assert_true(lesson_load_buffer("t.yaml", yaml, strlen(yaml), &l, err, sizeof err));
    assert_true(option_get_lesson(&l, option_row(OPT_TEMP)) == 20);
    assert_int_equal(l.digits, 6);
    assert_int_equal(l.block, 64);
    assert_true(l.lr == 0.001);
    lesson_free(&l);
}

/* Absent options take the table's defaults, in the lesson and the state. */
static void defaults_from_the_table(void **state)
{
    char err[512];
    Lesson l;
    Attn a = {0};
    assert_true(lesson_load_buffer("t.yaml", BASE, strlen(BASE), &l, err, sizeof err));
    assert_true(lesson_base(&l, &a));
    for (int k = 0; k < OPT_COUNT; k++) {
        const OptRow *r = &option_table[k];
        if (!(r->flags & OF_OPTIONS))
            continue;
        assert_true(option_get_lesson(&l, r) == r->def);
        if (r->in_attn)
            assert_true(option_get(&a, r) == r->def);
    }
    attn_free(&a);
    lesson_free(&l);
}

/* A save writes each option not at its default by the table's spelling,
 * and loading the save gives the same values. */
static void save_writes_the_rows(void **state)
{
    char err[512];
    Lesson l, back;
    Session s;
    assert_true(lesson_load_buffer("t.yaml", BASE, strlen(BASE), &l, err, sizeof err));
    assert_true(session_init(&s, &l));
    static const char *const acts[] = {"temperature = 0.5", "mask = window 1", "offset = 3", "block = 3",
                                       "rope_base = 500", "lr = 0.25", "softmax = online"};
    for (size_t k = 0; k < sizeof acts / sizeof *acts; k++)
        assert_true(session_act_text(&s, acts[k], err, sizeof err));
    size_t n = 0;
    char *text = lesson_save_text(&s, &n);
    assert_non_null(text);
    assert_true(lesson_load_buffer("saved.yaml", text, n, &back, err, sizeof err));
    Session s2;
    assert_true(session_init(&s2, &back));
    for (int k = 0; k < OPT_COUNT; k++)
        if (option_table[k].in_attn)
            assert_true(option_get(&s2.cur, &option_table[k]) == option_get(&s.cur, &option_table[k]));
    assert_int_equal(s2.cur.window, 1);
    session_free(&s2);
    lesson_free(&back);
    free(text);
    session_free(&s);
    lesson_free(&l);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_are_unique),
        cmocka_unit_test(action_rows_round_trip),
        cmocka_unit_test(action_ranges_from_the_table),
        cmocka_unit_test(loader_ranges_from_the_table),
        cmocka_unit_test(defaults_from_the_table),
        cmocka_unit_test(save_writes_the_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
