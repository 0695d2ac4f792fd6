/* test_skim.c - --json's narration skimmer (src/lesson/skim.h): loading
 * without narration gives the same lesson and the same messages whether
 * the narration's text is skimmed out first or parsed (LESSON_LOAD_FULL_PARSE),
 * for every shipped lesson, every bad lesson (tests/bad), the fuzz
 * regressions and hand-made files at the skimmer's edges. */
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#undef expect_check
#include "lesson/diag.h"
#include "lesson/lesson.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "lesson/skim.h"
#include "samelesson.h"

static DiagList list_a, list_b;

/* buf loads the same (status, every message, the lesson) both ways. */
static void assert_same_load(const char *name, const char *buf, size_t len)
{
    Lesson a, b;
    char ea[LESSON_ERR_MAX], eb[LESSON_ERR_MAX];
    bool oka = lesson_load_buffer_all(name, buf, len, &a, ea, sizeof ea, &list_a, LESSON_LOAD_NO_NARRATION);
    bool okb = lesson_load_buffer_all(name, buf, len, &b, eb, sizeof eb, &list_b,
                                      LESSON_LOAD_NO_NARRATION | LESSON_LOAD_FULL_PARSE);
    if (oka != okb)
        fail_msg("%s: loads %s skimmed, %s parsed (%s)", name, oka ? "ok" : "not", okb ? "ok" : "not", oka ? eb : ea);
    if (!oka) {
        if (strcmp(ea, eb) != 0)
            fail_msg("%s: skimmed says\n  %s\nparsed says\n  %s", name, ea, eb);
        assert_int_equal(list_a.n, list_b.n);
        assert_int_equal(list_a.total, list_b.total);
        for (int k = 0; k < list_a.n; k++)
            assert_string_equal(list_a.m[k].text, list_b.m[k].text);
        return;
    }
    assert_same_lesson(&a, &b, name, "skimmed");
    lesson_free(&a);
    lesson_free(&b);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(LESSON_MAX_BYTES + 1);
    assert_non_null(buf);
    *len = fread(buf, 1, LESSON_MAX_BYTES + 1, f);
    fclose(f);
    return buf;
}

/* Every file of pattern loads the same both ways; how many were skimmed
 * (made shorter) out of how many. */
static int same_for_files(const char *pattern, int *count)
{
    glob_t g;
    int skimmed = 0;
    *count = 0;
    if (glob(pattern, 0, NULL, &g) != 0)
        return 0;
    for (size_t k = 0; k < g.gl_pathc; k++) {
        size_t len;
        char *buf = read_file(g.gl_pathv[k], &len), *out = malloc(len + 1);
        assert_non_null(out);
        size_t n = skim_narration(out, buf, len);
        skimmed += n != (size_t)-1 && n < len;
        assert_same_load(g.gl_pathv[k], buf, len);
        free(out);
        free(buf);
        ++*count;
    }
    globfree(&g);
    return skimmed;
}

static void shipped_lessons(void **state)
{
    (void)state;
    int n;
    int skimmed = same_for_files("lessons/*.yaml", &n);
    assert_true(n >= 13);
    assert_int_equal(skimmed, n); /* every shipped lesson is in the subset */
}

static void bad_lessons(void **state)
{
    (void)state;
    int n;
    int skimmed = same_for_files("tests/bad/*.yaml", &n);
    assert_true(n >= 100);
    assert_true(skimmed >= 15); /* those with narration */
    same_for_files("tests/fuzz/regress/*", &n);
}

#define HEAD "format: qkvtutor/1\ntokens: [a, b]\nX: [[1, 0], [0, 1]]\nweights: {random: {seed: 1, d_k: 2}}\n"

/* What the skimmer leaves, or NULL when it parses the file as it is. */
static char *skim(const char *yaml)
{
    static char out[4096];
    size_t n = skim_narration(out, yaml, strlen(yaml));
    if (n == (size_t)-1)
        return NULL;
    out[n] = '\0';
    return out;
}

static void edges(void **state)
{
    (void)state;
    /* what it empties, and what it leaves */
    assert_string_equal(skim("about: \"x\"\nsteps:\n  - stage: input\n    say:\n      zh: \"甲\" # c\n"
                             "      en: 'y'\n    question: \"q\"\n  - {stage: qkv, say: \"z\"}\n"),
                        "about: \"\"\nsteps:\n  - stage: input\n    say:\n\n"
                        "      en: 'y'\n    question: \"\"\n  - {stage: qkv, say: \"z\"}\n");
    /* a key below a narration key goes with its line, the line stays */
    assert_string_equal(skim("about:\n  zh: \"x\"\n  en: \"y\"  # c\ntitle: \"t\"\n"),
                        "about:\n\n\ntitle: \"t\"\n");
    assert_string_equal(skim("about:\n  zh:\n    a: \"x\"\n  \"en\": \"y\"\n"), "about:\n  zh:\n\n  \"en\": \"\"\n");
    /* below a narration key, keys at another column or items: as they are */
    assert_null(skim("about:\n    zh: \"x\"\n  en: \"y\"\n"));
    assert_null(skim("about:\n  zh: \"x\"\n  - y\n"));
    assert_null(skim("about:\n  - y\n"));
    assert_null(skim("steps:\n  - say:\n      zh: \"x\"\n     en: \"y\"\n"));
    assert_string_equal(skim("title: |\n  say: \"x\"\nsteps:\n- say: \"a\\\"b\"\n  x:\n    say: \"k\"\n"),
                        "title: |\n  say: \"x\"\nsteps:\n- say: \"\"\n  x:\n    say: \"k\"\n");
    assert_string_equal(skim("say: \"x\"\nsteps: [1]\nabout: \"a\\qb\"\n"), "say: \"x\"\nsteps: [1]\nabout: \"a\\qb\"\n");
    assert_string_equal(skim("about: \"\\uD800\"\n"), "about: \"\\uD800\"\n");
    assert_string_equal(skim("about: \"last line\""), "about: \"last line\"");
    assert_null(skim("about: \"two\n  lines\"\n"));
    assert_null(skim("about: x\n  y: \"z\"\n"));
    assert_null(skim("about:\t\"x\"\n"));
    assert_null(skim("about: \"x\"\r\n"));
    assert_null(skim("about: \"\x01\"\n"));
    assert_null(skim("about: \"\xff\"\n"));
    /* three-byte characters (read inline): the reader's own, and not */
    assert_string_equal(skim("about: \"\xe4\xb8\x80\xef\xbc\x8c\xee\x80\x80\"\n"), "about: \"\"\n");
    assert_null(skim("about: \"\xe2\x80\xa8\"\n"));     /* U+2028, a line break */
    assert_null(skim("about: \"\xe2\x80\xa9\"\n"));     /* U+2029 */
    assert_null(skim("about: \"a\xef\xbb\xbf\"\n"));    /* U+FEFF inside */
    assert_null(skim("about: \"\xef\xbf\xbe\"\n"));     /* U+FFFE */
    assert_null(skim("about: \"\xed\xa0\x80\"\n"));     /* a surrogate */
    assert_null(skim("about: \"\xe0\x81\x80\"\n"));     /* overlong */
    assert_null(skim("about: \"\xe4\xb8\"\n"));         /* cut short */
    /* the same after a run of Chinese (which is read three bytes at a time) */
    assert_string_equal(skim("about: \"\xe4\xb8\x80\xe9\xbe\xa5\xe3\x80\x82\xec\x80\x80\"\n"), "about: \"\"\n");
    assert_null(skim("about: \"\xe4\xb8\x80\xe4\xb8\x80\xe2\x80\xa8\"\n")); /* U+2028 */
    assert_null(skim("about: \"\xe4\xb8\x80\xed\xa0\x80\"\n"));         /* a surrogate */
    assert_null(skim("about: \"\xe4\xb8\x80\xe4\xb8\"\n"));             /* cut short */
    assert_null(skim("about: \"\xe4\xb8\x80\xe4\x41\x80\"\n"));         /* no continuation byte */
    assert_null(skim("about: \"\xe4\xb8\x80\xef\xbf\xbf\"\n"));         /* U+FFFF */
    assert_null(skim("---\nabout: \"x\"\n"));
    assert_null(skim("tokens: [a,\n  b]\n"));
    assert_null(skim("about: &a \"x\"\n"));
    assert_null(skim("about: \"x\" junk\n"));
    /* and each loads the same both ways */
    static const char *const files[] = {
        HEAD "about: \"a\\qb\"\n",
        HEAD "about: \"\\uD800\"\n",
        HEAD "about: \"\x01\"\n",
        HEAD "about: \"bad \xff\"\n",
        HEAD "about: \"x\" junk\n",
        HEAD "about: \"x\"\nsteps:\n  - stage: input\n    say: \"\xe2\x80\xae\"\n  - stage: qkv\n    say: \"{nope}\"\n",
        HEAD "about: \"x\"\nsteps:\n  - stage: input\n    say: \"x\"\n    question: \"q\"\n",
        HEAD "about: \"x\"\nsteps:\n  - stage: input\n    say: \"x\"\n  stage: 2\n",
        HEAD "about: \"x\"\nsteps:\n  - stage: input\n    say: {zh: \"x\"}\n    expect: {\"X[1][1]\": !!str 1}\n",
        HEAD "about: \"一二三\"\nsteps:\n  - stage: input\n    say: \"!!!!\"\n    expect: {\"X[1][1]\": 1}\n",
        HEAD "about: \"x\"\nsteps:\n  - stage: input\n    say: \"x\"\n    expect: {\"X[1][1]\": ! 1}\n",
        HEAD "about: \"x\"\nsteps:\n  - stage: input\n    say: \"xyz\"\n  - stage: qkv\n    focus: [1,\n",
        HEAD "about: \"x\"\nsteps:\n  - stage: input\n    say:\n      zh: \"x\"\n      en: \"y\"\n    - z\n",
        HEAD "about:\n    zh: \"x\"\n  en: \"y\"\n",
        HEAD "about:\n  zh: \"x\"\n  - y\n",
        HEAD "steps:\n  - stage: input\n    say:\n      zh: \"x\"\n     en: \"y\"\n",
        HEAD "steps:\n  - stage: input\n    question:\n      zh: \"x\"\n      en: \"y\"\n",
        HEAD "steps:\n  - stage: input\n    say:\n      zh: \"x\"\n      zh: \"y\"\n    say: \"z\"\n",
    };
    for (size_t k = 0; k < sizeof files / sizeof *files; k++)
        assert_same_load("t.yaml", files[k], strlen(files[k]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shipped_lessons),
        cmocka_unit_test(bad_lessons),
        cmocka_unit_test(edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
