/* fuzz_lesson.c - libFuzzer target for the lesson loader and what runs on a
 * loaded lesson.
 *
 * Each input is a lesson file. Loading must return a complete lesson or one
 * error line, never crash or leak (ASan/UBSan/LeakSanitizer watch). When it
 * loads, the target drives a session the way a student would: every step
 * forwards and back, a handful of edits (including extreme numbers), undo
 * and redo, every cell's arithmetic written out; then --dump and --json
 * render it. Two properties are checked, and a failure aborts (a crash for
 * libFuzzer):
 *   - the --dump, --json and --check text holds no raw control character
 *     (C0 other than '\n', DEL, C1 as UTF-8 0xC2 0x80..0x9F): lesson text
 *     never reaches a terminal raw;
 *   - the error message is one line of at most LESSON_ERR_MAX-1 bytes;
 *   - saving the edited session and loading the saved file gives back the
 *     same state (design: "Loading it shows exactly what was saved"): the
 *     file loads, its text is the same and every matrix is bit for bit the
 *     one that was saved. The file goes to a private directory under
 *     /dev/shm (or $TMPDIR), so the fsync costs nothing. */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/explain.h"
#include "words/fmt.h"
#include "lesson/lesson.h"
#include "lesson/lmodel.h"
#include "words/live.h"
#include "lesson/save.h"
#include "lesson/session.h"
#include "out/render.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char save_dir[512], save_path[600];

static void cleanup(void)
{
    unlink(save_path);
    rmdir(save_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setlocale(LC_ALL, "C.UTF-8");
    const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(save_dir, sizeof save_dir, "%s/qkv-fuzz-XXXXXX", tmp);
    if (!mkdtemp(save_dir)) {
        perror("fuzz_lesson: mkdtemp");
        abort();
    }
    snprintf(save_path, sizeof save_path, "%s/saved.yaml", save_dir);
    atexit(cleanup);
    return 0;
}

/* Edits a student might type; some fail (bad index or width), which must
 * leave the session unchanged. */
static const char *const edits[] = {
    "Q[1] = K[1] * 5",
    "X[1][1] = 2.5",
    "K[2] = Q[1]",
    "V[1][1] = -1e300",
    "Q[1][1] = 1e300",
    "Wq[1] = Wq[1] * 1e10",
    "scale = none",
    "softmax = naive",
    "Q[1] = [0.1, 0.2, 0.3]",
    "S[1][1] = 1",
    "Q[64][64] = 1",
    "reset",
    "softmax = stable",
    "scale = sqrt_dk",
    "mask = causal",
    "temperature = 0.05",
    "positions = sinusoidal",
    "swap 1 2",
    "swap 1 64",
};

/* Fail loudly when lesson text reached the output raw. */
static void check_clean(const char *what, const char *buf, size_t len)
{
    for (size_t k = 0; k < len; k++) {
        unsigned char b = (unsigned char)buf[k];
        bool bad = (b < 0x20 && b != '\n') || b == 0x7F ||
                   (b == 0xC2 && k + 1 < len && (unsigned char)buf[k + 1] >= 0x80 &&
                    (unsigned char)buf[k + 1] <= 0x9F);
        if (bad) {
            fprintf(stderr, "fuzz_lesson: raw control byte 0x%02x at offset %zu of %s\n", b, k, what);
            abort();
        }
    }
}

/* Write out the arithmetic of every cell of every reached matrix. */
static void explain_all(const Session *s, const Lesson *l)
{
    static char lines[FMT_MAX_LINES][FMT_LINE];
    FmtOpt fo = {l->digits, false};
    for (int m = 0; m < M_COUNT; m++) {
        const Mat *x = &s->cur.m[m];
        for (int i = 0; i < x->rows && i < 4; i++)
            for (int j = 0; j < x->cols && j < 4; j++) {
                Explain e;
                if (explain_cell(&s->cur, (MatId)m, i, j, &e)) {
                    fo.ascii = (i + j) % 2;
                    fmt_explain(&e, &fo, lines, FMT_MAX_LINES);
                }
            }
    }
}

static bool same_text(const Text *a, const Text *b)
{
    for (int k = 0; k < LANG_COUNT; k++)
        if (strcmp(a->s[k] ? a->s[k] : "", b->s[k] ? b->s[k] : "") != 0)
            return false;
    return true;
}

static void round_trip_fail(const char *why, const char *detail)
{
    fprintf(stderr, "fuzz_lesson: save, then load: %s%s%s (the saved file is %s)\n", why,
            detail ? ": " : "", detail ? detail : "", save_path);
    abort();
}

/* Save the session, load the file back, and compare. */
static void check_round_trip(const Session *s)
{
    char err[LESSON_ERR_MAX];
    Lesson r;
    Session rs;
    if (!lesson_save(s, save_path, err, sizeof err))
        return; /* out of space, say; not a lesson bug */
    if (!lesson_load_file(save_path, &r, err, sizeof err))
        round_trip_fail("the saved file does not load", err);
    const Lesson *l = s->lesson;
    /* about: is the lesson's own (the edits are named at their steps) */
    Text about = {{l->about.s[LANG_EN] ? strdup(l->about.s[LANG_EN]) : NULL,
                   l->about.s[LANG_ZH] ? strdup(l->about.s[LANG_ZH]) : NULL}};
    /* tokens: the lesson's own (a swap or an append is an edit, replayed at its step) */
    bool same = r.ntok == l->ntok && same_text(&r.title, &l->title) && same_text(&r.about, &about);
    text_free(&about);
    for (int k = 0; same && k < r.ntok; k++)
        same = strcmp(r.tokens[k], l->tokens[k]) == 0;
    if (!same)
        round_trip_fail("the title, about or tokens changed", NULL);
    if (!session_init(&rs, &r))
        round_trip_fail("session_init failed on the saved lesson", NULL);
    same = attn_tokens(&rs.cur) == attn_tokens(&s->cur);
    for (int k = 0; same && k < attn_tokens(&s->cur); k++) /* in the order a swap left them, appended ones after */
        same = strcmp(lesson_token(&r, &rs.cur, k), lesson_token(l, &s->cur, k)) == 0;
    if (!same)
        round_trip_fail("the state's tokens changed", NULL);
    if (rs.step != s->step || rs.cur.reached != s->cur.reached || rs.cur.scale != s->cur.scale ||
        rs.cur.softmax != s->cur.softmax || memcmp(rs.cur.override, s->cur.override, sizeof rs.cur.override) ||
        memcmp(rs.cur.ovh, s->cur.ovh, sizeof rs.cur.ovh) ||
        rs.cur.mask != s->cur.mask || rs.cur.temp != s->cur.temp || rs.cur.positions != s->cur.positions)
        round_trip_fail("the step, options or override marks changed", NULL);
    for (int m = 0; m < M_COUNT; m++) {
        const Mat *a = &s->cur.m[m], *b = &rs.cur.m[m];
        if (attn_mat_stage((MatId)m) > s->cur.reached)
            continue;
        if ((m == M_Q0 || m == M_K0) && s->cur.positions != POS_ROPE)
            continue; /* kept from an earlier RoPE, meaning nothing without it (attn.h) */
        if (!mat_same_shape(a, b) || (a->v && memcmp(a->v, b->v, sizeof(double) * (size_t)(a->rows * a->cols)) != 0))
            round_trip_fail("a matrix changed", attn_mat_name((MatId)m));
    }
    session_free(&rs);
    lesson_free(&r);
}

/* `pick` chooses the step the save happens at. */
static void drive_session(const Lesson *l, size_t pick)
{
    Session s;
    char err[LESSON_ERR_MAX];
    if (!session_init(&s, l))
        return;
    while (session_next(&s))
        explain_all(&s, l);
    for (size_t k = 0; k < sizeof edits / sizeof *edits; k++)
        session_act_text(&s, edits[k], err, sizeof err);
    explain_all(&s, l);
    while (session_undo(&s)) {}
    while (session_redo(&s)) {}
    while (session_prev(&s)) {}
    session_goto_stage(&s, 5);
    session_goto_stage(&s, 1);
    session_goto(&s, 1 << 20);
    explain_all(&s, l);
    session_goto(&s, (int)(pick % (size_t)l->nsteps));
    for (size_t k = 0; k < 3; k++)
        session_act_text(&s, edits[k], err, sizeof err);
    check_round_trip(&s);
    session_free(&s);
}

/* Render into memory with `fn` and check that the text is clean. */
static void render_clean(const char *what, int (*fn)(FILE *, const Lesson *, const RenderOpt *), const Lesson *l,
                         const RenderOpt *ro)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    fn(f, l, ro);
    fclose(f);
    check_clean(what, buf, len);
    free(buf);
}

/* --dump in both languages (zh in ASCII mode), --json, --check. */
static void render_all(const Lesson *l)
{
    RenderOpt en = {LANG_EN, false, 0}, zh = {LANG_ZH, true, 0};
    render_clean("--dump", render_dump, l, &en);
    render_clean("--dump (zh, ASCII)", render_dump, l, &zh);
    render_clean("--json", render_json, l, &en);
    render_clean("--check", render_check, l, &en);
}

/* The training steps one `step N` text asks for (0: not a step). */
static long step_count(const char *t)
{
    while (*t == ' ' || *t == '\t')
        t++;
    if (strncmp(t, "step", 4) != 0 || (t[4] != '\0' && t[4] != ' ' && t[4] != '\t'))
        return 0;
    long n = strtol(t + 4, NULL, 10);
    return n > 0 ? n : 1;
}

/* The training a lesson's script makes every replay of it take: its `step N`
 * actions (do: and edited:) added up, a model's weighted by its batch. The
 * loader caps a script at 100,000 steps, which natively take well under a
 * second for one head, but a session driven here replays them at every move,
 * undo, save and render under ASan and UBSan at -O1, ~50x slower: a script
 * past FUZZ_TRAIN_MAX is loaded (every check of the loader fuzzed) but not
 * driven. The training paths are driven at the smaller counts below it, which
 * is where the fuzzer's mutations mostly land. */
#define FUZZ_TRAIN_MAX 4000L
static long script_training(const Lesson *l)
{
    long n = 0;
    for (int k = 0; k < l->nsteps; k++) {
        for (int a = 0; a < l->steps[k].nact; a++)
            n += l->steps[k].act_text ? step_count(l->steps[k].act_text[a]) : 0;
        for (int a = 0; a < l->steps[k].nedit; a++)
            n += l->steps[k].edit_text ? step_count(l->steps[k].edit_text[a]) : 0;
    }
    for (int a = 0; a < l->nedited; a++)
        n += step_count(l->edited[a]);
    if (l->model && l->model->train.given)
        n *= 16L * l->model->train.batch; /* a model's step: ~16 one-head steps per sequence */
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Lesson l;
    char err[LESSON_ERR_MAX];
    if (!lesson_load_buffer("fuzz.yaml", (const char *)data, size, &l, err, sizeof err)) {
        size_t n = strnlen(err, sizeof err);
        if (n == sizeof err || n == 0 || memchr(err, '\n', n)) {
            fprintf(stderr, "fuzz_lesson: the error is not one line\n");
            abort();
        }
        check_clean("the error message", err, n);
        return 0;
    }
    if (script_training(&l) <= FUZZ_TRAIN_MAX) {
        drive_session(&l, size);
        render_all(&l);
    }
    lesson_free(&l);
    return 0;
}
