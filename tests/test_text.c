/* test_text.c - bilingual text, UTF-8 checks, sanitising and display widths. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "lesson/fmt.h"
#include "lesson/text.h"

static char out[256];

static const char *san(const char *s)
{
    text_sanitize(s, out, sizeof out, false);
    return out;
}

/* An OSC "set title" sequence becomes visible control pictures, so a lesson
 * cannot retitle the terminal. */
static void sanitize_osc_title(void **state)
{
    (void)state;
    assert_string_equal(san("\x1b]0;pwned\x07!"), "\xe2\x90\x9b]0;pwned\xe2\x90\x87!");
}

/* Every C0 character, tab and newline included, becomes U+2400 + c. */
static void sanitize_c0(void **state)
{
    (void)state;
    assert_string_equal(san("a\tb\nc\rd"), "a\xe2\x90\x89" "b\xe2\x90\x8a" "c\xe2\x90\x8d" "d");
    assert_string_equal(san("\x01"), "\xe2\x90\x81");
}

/* DEL shows as U+2421 and C1 controls (U+0080..U+009F) as U+FFFD. */
static void sanitize_del_c1(void **state)
{
    (void)state;
    assert_string_equal(san("x\x7fy"), "x\xe2\x90\xa1y");
    assert_string_equal(san("a\xc2\x9b" "b\xc2\x85"), "a\xef\xbf\xbd" "b\xef\xbf\xbd");
    assert_string_equal(san("\xc2\xa0"), "\xc2\xa0");  /* U+00A0 is not a control */
}

/* Invalid bytes, overlong forms and surrogates become U+FFFD, one per byte. */
static void sanitize_invalid(void **state)
{
    (void)state;
    assert_string_equal(san("\xff"), "\xef\xbf\xbd");
    assert_string_equal(san("a\xc0\xafz"), "a\xef\xbf\xbd\xef\xbf\xbdz");
    assert_string_equal(san("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    assert_string_equal(san("\xe6\x88"), "\xef\xbf\xbd\xef\xbf\xbd");  /* cut short */
}

/* Valid text, CJK included, passes through unchanged. */
static void sanitize_keeps_text(void **state)
{
    (void)state;
    assert_string_equal(san("我 love 猫 — ok"), "我 love 猫 — ok");
    assert_string_equal(san(""), "");
}

/* A small buffer cuts at a character boundary and stays terminated. */
static void sanitize_truncates_whole_chars(void **state)
{
    (void)state;
    char small[6];
    text_sanitize("a我猫", small, sizeof small, false);
    assert_string_equal(small, "a我");
    text_sanitize("\x1b\x1b", small, 4, false);
    assert_string_equal(small, "\xe2\x90\x9b");
    text_sanitize("\x1b", small, 3, false);
    assert_string_equal(small, "");
}

/* ASCII mode turns controls, invalid bytes and non-ASCII into '?'. */
static void sanitize_ascii(void **state)
{
    (void)state;
    text_sanitize("我 love\x1b\xff~", out, sizeof out, true);
    assert_string_equal(out, "? love??~");
}

/* 我 and 猫 take two columns, love four; control characters one. */
static void widths(void **state)
{
    (void)state;
    assert_int_equal(text_width("我"), 2);
    assert_int_equal(text_width("love"), 4);
    assert_int_equal(text_width("猫"), 2);
    assert_int_equal(text_width("我 love 猫"), 10);
    assert_int_equal(text_width("\x1b"), 1);
    assert_int_equal(text_width("\xff"), 1);
    assert_int_equal(text_width(""), 0);
}

/* text_fit never splits a wide character and never exceeds the columns. */
static void fit_cjk(void **state)
{
    (void)state;
    const char *s = "我love猫";
    assert_int_equal(text_fit(s, 0), 0);
    assert_int_equal(text_fit(s, 1), 0);
    assert_int_equal(text_fit(s, 2), 3);
    assert_int_equal(text_fit(s, 3), 4);
    assert_int_equal(text_fit(s, 7), 7);
    assert_int_equal(text_fit(s, 8), strlen(s));
    assert_int_equal(text_fit(s, 100), strlen(s));
}

/* Strict UTF-8: no stray bytes, overlongs, surrogates or values past U+10FFFF. */
static void utf8_valid(void **state)
{
    (void)state;
    assert_true(text_utf8_valid("我 love 猫", strlen("我 love 猫")));
    assert_true(text_utf8_valid("\xf0\x9f\x98\x80", 4));
    assert_false(text_utf8_valid("\xff", 1));
    assert_false(text_utf8_valid("\xc0\x80", 2));
    assert_false(text_utf8_valid("\xed\xa0\x80", 3));
    assert_false(text_utf8_valid("\xf4\x90\x80\x80", 4));
    assert_false(text_utf8_valid("\xe6\x88", 2));
    assert_true(text_utf8_valid("", 0));
}

/* zh* means Chinese; en*, C and POSIX mean English; others are unknown. */
static void lang_parse(void **state)
{
    (void)state;
    assert_int_equal(text_lang_parse("zh"), LANG_ZH);
    assert_int_equal(text_lang_parse("zh_CN.UTF-8"), LANG_ZH);
    assert_int_equal(text_lang_parse("zh_TW"), LANG_ZH);
    assert_int_equal(text_lang_parse("en"), LANG_EN);
    assert_int_equal(text_lang_parse("en_GB.UTF-8"), LANG_EN);
    assert_int_equal(text_lang_parse("C"), LANG_EN);
    assert_int_equal(text_lang_parse("C.UTF-8"), LANG_EN);
    assert_int_equal(text_lang_parse("POSIX"), LANG_EN);
    assert_int_equal(text_lang_parse("fr_FR.UTF-8"), -1);
    assert_int_equal(text_lang_parse("Cx"), -1);
    assert_int_equal(text_lang_parse(""), -1);
    assert_int_equal(text_lang_parse(NULL), -1);
}

/* text_get returns the asked language, else the other one, else "". */
static void get_fallback(void **state)
{
    (void)state;
    Text t = {{0}};
    assert_string_equal(text_get(&t, LANG_ZH), "");
    t.s[LANG_EN] = strdup("cat");
    assert_string_equal(text_get(&t, LANG_ZH), "cat");
    assert_string_equal(text_get(&t, LANG_EN), "cat");
    t.s[LANG_ZH] = strdup("猫");
    assert_string_equal(text_get(&t, LANG_ZH), "猫");
    assert_string_equal(text_get(&t, LANG_EN), "cat");
    t.s[LANG_ZH][0] = '\0';
    assert_string_equal(text_get(&t, LANG_ZH), "cat");
    text_free(&t);
    assert_null(t.s[LANG_EN]);
    assert_null(t.s[LANG_ZH]);
    text_free(&t);
}

/* Wrapping at 60 columns: prose breaks at its last space, even with an "="
 * in the line; arithmetic after its last " +" that fits. */
static void wrap_prose_and_arithmetic(void **state)
{
    const char *prose = "The next step sets the query Q[1] = K[1] times five and then looks again at A.";
    assert_int_equal(fmt_wrap(prose, 60, false), strlen("The next step sets the query Q[1] = K[1] times five and then"));
    assert_int_equal(fmt_wrap(prose, 60, true), strlen("The next step sets the query Q[1]"));
    const char *sum = "o = (0.313)(0.163) + (0.337)(0.113) + (0.350)(0.244) + (0.111)(0.222) = 0.099";
    assert_int_equal(fmt_wrap(sum, 60, true), strlen("o = (0.313)(0.163) + (0.337)(0.113) + (0.350)(0.244) +"));
    assert_int_equal(fmt_wrap("short", 60, false), 5);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sanitize_osc_title),
        cmocka_unit_test(sanitize_c0),
        cmocka_unit_test(sanitize_del_c1),
        cmocka_unit_test(sanitize_invalid),
        cmocka_unit_test(sanitize_keeps_text),
        cmocka_unit_test(sanitize_truncates_whole_chars),
        cmocka_unit_test(sanitize_ascii),
        cmocka_unit_test(widths),
        cmocka_unit_test(fit_cjk),
        cmocka_unit_test(wrap_prose_and_arithmetic),
        cmocka_unit_test(utf8_valid),
        cmocka_unit_test(lang_parse),
        cmocka_unit_test(get_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
