/* golden.h - the view tests' golden screens: golden(NAME) compares the
 * screen (screen.h's screen_text) with tests/golden/NAME.txt, or writes it
 * there when QKV_GOLDEN is set (make golden), for review. Include after
 * testutil.h (cmocka) and screen.h; one copy for test_view and test_mview. */
#ifndef QKV_TESTS_GOLDEN_H
#define QKV_TESTS_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void golden(const char *name)
{
    char path[256], *text = screen_text();
    snprintf(path, sizeof path, "tests/golden/%s.txt", name);
    if (getenv("QKV_GOLDEN")) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
        free(text);
        return;
    }
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s is missing; run make golden and review it", path);
    static char want[1 << 16];
    size_t n = fread(want, 1, sizeof want - 1, f);
    want[n] = '\0';
    fclose(f);
    if (strcmp(want, text) != 0) {
        print_error("screen differs from %s; got:\n%s", path, text);
        free(text);
        fail();
    }
    free(text);
}

#endif
