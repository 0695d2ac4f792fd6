/* fuzz_view.c - libFuzzer target for the interactive view: keys mashed at
 * any screen size.
 *
 * Byte 0 picks the built-in lesson, bytes 1-2 the screen size (1..80 lines,
 * 1..240 columns); every further byte is one key: printable ASCII as
 * itself, the rest mapped onto the keys a terminal sends (arrows, PgUp/PgDn,
 * Home/End, Backspace, Enter, Esc, Tab, Ctrl-R, F1, a CJK character, a
 * resize to a size given by the next two bytes). After each key the frame
 * is drawn and refreshed into /dev/null (tests/screen.c), as the main loop
 * does. Saving ('w') writes into the current directory, so each input runs
 * in a private temporary directory, emptied afterwards (and the fuzzer's
 * own directory is restored before libFuzzer reads or writes files). */
#include <curses.h>
#include <dirent.h>
#include <fcntl.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lesson/embedded.h"
#include "text/i18n.h"
#include "lesson/lesson.h"
#include "lesson/lmodel.h"
#include "screen.h"
#include "term/view.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[512];
static int home = -1;   /* the directory libFuzzer started in */

/* Remove what a save left in the private directory. */
static void empty_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
}

static void cleanup(void)
{
    empty_dir();
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("TERM", "xterm-256color", 1);
    i18n_set(LANG_EN, NULL);
    snprintf(dir, sizeof dir, "%s/qkv-fuzz-view-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    home = open(".", O_RDONLY | O_DIRECTORY);
    if (home < 0 || !mkdtemp(dir) || !screen_open(24, 80)) {
        perror("fuzz_view: set-up");
        abort();
    }
    atexit(cleanup);
    return 0;
}

typedef struct {
    wint_t ch;
    bool code;
} Key;

static const Key special[] = {
    {KEY_UP, true}, {KEY_DOWN, true}, {KEY_LEFT, true}, {KEY_RIGHT, true}, {KEY_NPAGE, true},
    {KEY_PPAGE, true}, {KEY_HOME, true}, {KEY_END, true}, {KEY_BACKSPACE, true}, {KEY_ENTER, true},
    {KEY_DC, true}, {KEY_F(1), true}, {27, false}, {'\t', false}, {'\r', false}, {'\n', false},
    {127, false}, {8, false}, {18, false} /* Ctrl-R */, {21, false} /* Ctrl-U */, {L'我', false},
    {0x2212, false} /* U+2212 minus */, {0x1B, false}, {0x9B, false} /* C1 CSI */,
};

static int size_of(uint8_t b, int max)
{
    return 1 + b % max;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || size > 4096 || embedded_count == 0)
        return 0;
    /* each built-in lesson is loaded once: the view never changes it */
    static Lesson loaded[64];
    static bool have[64];
    int which = data[0] % embedded_count % 64;
    const EmbeddedLesson *e = &embedded_lessons[which];
    char err[LESSON_ERR_MAX];
    if (!have[which] && !lesson_load_buffer(e->name, e->data, e->len, &loaded[which], err, sizeof err))
        abort(); /* a built-in lesson always loads */
    /* A model lesson's training keys (g, G, W) and its script's `step N`
     * run every path of training at any batch; at the lesson's own batch
     * (64 sequences) one G is 100 steps of ~13 s under ASan and UBSan at
     * -O1, three keys past libFuzzer's 10 s timeout (natively 0.3 s). The
     * fuzzer trains on 2 sequences a step: the same code, ~30x cheaper. */
    if (!have[which] && loaded[which].model && loaded[which].model->train.given &&
        loaded[which].model->train.batch > 2)
        loaded[which].model->train.batch = 2;
    have[which] = true;
    Lesson l = loaded[which];
    screen_resize(size_of(data[1], 80), size_of(data[2], 240));
    ViewOpt o = {data[0] & 0x80 ? LANG_ZH : LANG_EN, (data[0] & 0x40) != 0, NULL, (data[0] & 0x20) != 0, 0, false, NULL};
    View *v = view_new(&l, &o);
    if (!v || chdir(dir) != 0)
        abort();
    view_draw(v);
    for (size_t k = 3; k < size; k++) {
        uint8_t b = data[k];
        Key key = {b, false};
        if (b >= 0x80 && b - 0x80 < (int)(sizeof special / sizeof *special))
            key = special[b - 0x80];
        else if (b == 0xFF && k + 2 < size) {
            screen_resize(size_of(data[k + 1], 80), size_of(data[k + 2], 240));
            key = (Key){KEY_RESIZE, true};
            k += 2;
        } else if (b >= 0x80)
            continue;
        if (!view_key(v, key.ch, key.code))
            break;
        view_draw(v);
        wnoutrefresh(stdscr);
        doupdate();
    }
    view_free(v);
    if (fchdir(home) != 0)
        abort();
    empty_dir();
    return 0;
}
