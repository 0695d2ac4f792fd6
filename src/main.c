/* main.c - options, choosing the lesson, and dispatch to a renderer or the view. */
#include <getopt.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layout/layout.h"
#include "lesson/diag.h"
#include "lesson/embedded.h"
#include "text/i18n.h"
#include "text/num.h"
#include "text/text.h"
#include "lesson/lesson.h"
#include "out/checktext.h"
#include "out/render.h"
#include "out/svg.h"
#include "term/view.h"
#include "out/worksheet.h"
#include "out/classset.h"
#include "out/traincli.h"
#include "lesson/lmodel.h"

typedef enum { MODE_VIEW, MODE_LIST, MODE_DUMP, MODE_JSON, MODE_CHECK, MODE_SVG, MODE_WORKSHEET, MODE_CLASS, MODE_SLIDES, MODE_TRAIN } Mode;

/* Long options without a short letter (worksheets). */
enum { OPT_MODEL = 0x340 }; /* --svg --model: the model view */
enum { OPT_ANSWERS = 0x301, OPT_VARIANT, OPT_CLASS, OPT_OUT, OPT_FORMAT, OPT_PAPER, OPT_SLIDES, OPT_CHROME, OPT_TRAIN, OPT_STEPS };

typedef struct {
    Mode mode;
    long long at;       /* --at N, saturated (num_whole); 0: not given */
    const char *at_text;/* --at as typed */
    int lang;           /* -1: from the environment */
    const char *theme;
    bool present;
    const char *lesson;
    char **more;        /* --check's further lessons (argv's tail) */
    int nmore;
    int cols, rows;     /* --size; 0: not given */
    const char *size;   /* --size as typed */
    bool answers;       /* --answers */
    const char *variant;/* --variant K as given, or NULL */
    unsigned long seed; /* K */
    int students;       /* --class N */
    const char *out;    /* --out DIR */
    int format;         /* --format: ClassFormat, -1 when not given */
    bool letter;        /* --paper letter */
    bool paper;         /* --paper given */
    bool card;          /* --svg --at 0: the title card */
    bool chrome;        /* --chrome: slides keep the key bar and the tally */
    bool model;         /* --model: --svg draws the model view */
    long steps;         /* --train's --steps N; 0: the lesson's */
} Options;

static void usage(FILE *out)
{
    fprintf(out, "%s", _(
        "Usage: qkvtutor [OPTIONS] [LESSON]\n"
        "Step through transformer self-attention, one stage per keypress.\n"
        "LESSON is a .yaml file, or a built-in lesson's number or name (default: the first).\n"
        "\n"
        "  -l, --list           list the built-in lessons\n"
        "  -d, --dump           print the walkthrough as plain text and exit\n"
        "  -j, --json           print the lesson's matrices as JSON and exit\n"
        "  -c, --check          run the script and verify every expect (exit 0 ok, 1 failed);\n"
        "                       several lessons may follow, checked one after another\n"
        "      --at N           the state after step N (--dump, --json, --svg; --svg --at 0: the title card);\n"
        "                       the view opens there\n"
        "      --svg            write the screen of step --at N as an SVG picture to stdout\n"
        "      --size COLSxROWS with --svg or --slides: the screen size (default 100x30; slides 128x30, 16:9)\n"
        "      --model          with --svg, a model lesson's model view: every layer x head's pattern\n"
        "      --slides         write a slide deck into --out DIR: an SVG per step (a question, then its\n"
        "                       answer) and index.html, stepped with the arrow keys, PgDn/PgUp or a clicker\n"
        "      --chrome         with --slides: keep the key bar and the student's tally\n"
        "  -w, --worksheet      print a Markdown worksheet: the givens, then one question per ask\n"
        "      --answers        with --worksheet: add the answer key, each answer with its arithmetic\n"
        "      --variant K      with --worksheet, --dump or --json: draw the random weights with seed K\n"
        "      --class N        write a class set: sheets 01..N (variants 1..N) and one key, into --out DIR\n"
        "      --format F       with --class: md (default), html or pdf (pdf prints with chromium)\n"
        "      --paper P        with --format html or pdf: a4 (default) or letter\n"
        "      --out DIR        where --class or --slides writes\n"
        "      --train          train the model lesson on its train: section and write the weights file\n"
        "                       --out FILE; Ctrl-C stops and keeps the last whole step\n"
        "      --steps N        with --train: the number of steps (default: the lesson's train: steps)\n"
        "  -L, --lang zh|en     language of the interface and narration\n"
        "      --theme NAME     dark (default), light, mono, projector\n"
        "      --present        presentation mode\n"
        "  -h, --help           show this help\n"
        "  -V, --version        show the version\n"
        "\n"
        "Numbers are digits only (no sign or space): --at 1 to the lesson's steps, --variant 0 to 4294967295,\n"
        "--class 1 to 99, --size 60x18 to 1000x1000.\n"
        "Exit status: 0 ok, 1 a check failed, 2 usage error, lesson error or no terminal.\n"));
}

/* Arguments are quoted with text_quote_n: an escape or control byte in one
 * shows as \x1b, never reaches the terminal raw. */
static int usage_error(const char *msg, const char *arg)
{
    char shown[1024];
    fprintf(stderr, "qkvtutor: ");
    fprintf(stderr, msg, text_quote_n(arg, 200, "", "", shown, sizeof shown));
    fprintf(stderr, "%s\n", _("; see qkvtutor --help"));
    return 2;
}

/* Parse a whole positive number (num_whole_all: digits only, no sign or
 * space; saturated at NUM_WHOLE_MAX, above every limit); -1 when s is not
 * one. */
static long long parse_count(const char *s)
{
    long long v;
    return num_whole_all(s, &v) && v > 0 ? v : -1;
}

/* Parse --size's "COLSxROWS" into *o; false when it is not that. */
static bool parse_size(const char *s, Options *o)
{
    long long c, r = 0;
    size_t n = num_whole(s, &c);
    bool ok = n > 0 && s[n] == 'x' && num_whole_all(s + n + 1, &r) && c > 0 && r > 0;
    /* saturated (num_whole) values are above every bound; messages quote s */
    o->cols = ok ? (int)(c < INT_MAX ? c : INT_MAX) : 0;
    o->rows = ok ? (int)(r < INT_MAX ? r : INT_MAX) : 0;
    o->size = s;
    return ok;
}

/* --size's bounds, checked once the options are read: a one-line usage
 * error and exit 2, or -1 to go on. */
static int check_size(Options *o)
{
    char bound[24];
    if (o->cols == 0) {
        o->cols = o->mode == MODE_SLIDES ? SLIDES_COLS : SVG_COLS;
        o->rows = o->mode == MODE_SLIDES ? SLIDES_ROWS : SVG_ROWS;
        return -1;
    }
    if (o->mode != MODE_SVG && o->mode != MODE_SLIDES)
        return usage_error(_("%s goes with --svg or --slides"), "--size");
    char size[256];
    text_quote_n(o->size, 100, "", "", size, sizeof size);
    if (o->cols < LAYOUT_MIN_COLS || o->rows < LAYOUT_MIN_ROWS) {
        snprintf(bound, sizeof bound, "%dx%d", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS);
        fprintf(stderr, _("qkvtutor: --size %s is below the smallest screen, %s"), size, bound);
        fprintf(stderr, "%s\n", _("; see qkvtutor --help"));
        return 2;
    }
    if (o->cols > SVG_MAX_COLS || o->rows > SVG_MAX_ROWS) {
        snprintf(bound, sizeof bound, "%dx%d", SVG_MAX_COLS, SVG_MAX_ROWS);
        fprintf(stderr, _("qkvtutor: --size %s is above the largest picture, %s"), size, bound);
        fprintf(stderr, "%s\n", _("; see qkvtutor --help"));
        return 2;
    }
    return -1;
}

/* Parse a seed, a whole number from 0 to 2^32 - 1 (numpy's range). */
static bool parse_seed(const char *s, unsigned long *seed)
{
    long long v;
    if (!num_whole_all(s, &v) || v > 4294967295LL)
        return false;
    *seed = (unsigned long)v;
    return true;
}

/* A mode flag (--list, --dump, --json, --check, --svg, --worksheet): two
 * different ones are a usage error naming both, not "the last one wins".
 * Returns -1 to go on, or 2. */
static int set_mode(Options *o, Mode m)
{
    static const char *const flag[] = {[MODE_LIST] = "--list", [MODE_DUMP] = "--dump", [MODE_JSON] = "--json",
                                       [MODE_CHECK] = "--check", [MODE_SVG] = "--svg",
                                       [MODE_WORKSHEET] = "--worksheet", [MODE_CLASS] = "--class",
                                       [MODE_SLIDES] = "--slides", [MODE_TRAIN] = "--train"};
    if (o->mode != MODE_VIEW && o->mode != m) {
        fprintf(stderr, _("qkvtutor: %s and %s do not go together: each one chooses what qkvtutor does; give one of them"),
                flag[o->mode], flag[m]);
        fprintf(stderr, "%s\n", _("; see qkvtutor --help"));
        return 2;
    }
    o->mode = m;
    return -1;
}

/* An option's value (--size, --variant, --format, --paper, --theme, --at,
 * --lang) into *o. Returns -1 to go on, or an exit status. */
static int option_value(int c, const char *arg, Options *o)
{
    int rc;
    switch (c) {
        case 'z':
            if (!parse_size(arg, o))
                return usage_error(_("--size takes COLSxROWS, such as 100x30, not \"%s\""), arg);
            break;
        case OPT_VARIANT:
            if (!parse_seed(arg, &o->seed))
                return usage_error(_("--variant takes a seed from 0 to 4294967295, not \"%s\""), arg);
            o->variant = arg;
            break;
        case OPT_CLASS: {
            if ((rc = set_mode(o, MODE_CLASS)) >= 0)
                return rc;
            long long students = parse_count(arg);
            if (students < 1 || students > 99)
                return usage_error(_("--class takes a number of students from 1 to 99, not \"%s\""), arg);
            o->students = (int)students;
            break;
        }
        case OPT_FORMAT:
            if (strcmp(arg, "md") == 0) o->format = CLASS_MD;
            else if (strcmp(arg, "html") == 0) o->format = CLASS_HTML;
            else if (strcmp(arg, "pdf") == 0) o->format = CLASS_PDF;
            else return usage_error(_("--format takes md, html or pdf, not \"%s\""), arg);
            break;
        case OPT_PAPER:
            if (strcmp(arg, "a4") != 0 && strcmp(arg, "letter") != 0)
                return usage_error(_("--paper takes a4 or letter, not \"%s\""), arg);
            o->letter = strcmp(arg, "letter") == 0;
            o->paper = true;
            break;
        case 't':
            if (!view_theme_known(arg))
                return usage_error(_("--theme takes dark, light, mono or projector, not \"%s\""), arg);
            o->theme = arg;
            break;
        case 'a':
            if (strcmp(arg, "0") == 0) {
                o->card = true; /* --svg --at 0: the title card before step 1 (checked below) */
                break;
            }
            if ((o->at = parse_count(arg)) < 0)
                return usage_error(_("--at takes a step number from 1, not \"%s\""), arg);
            o->at_text = arg;
            break;
        case OPT_STEPS:
            if ((o->steps = (long)parse_count(arg)) < 1 || o->steps > TRAIN_STEPS_MAX)
                return usage_error(_("--steps takes a number of training steps from 1 to 100000, not \"%s\""), arg);
            break;
        case 'L':
            if ((o->lang = text_lang_parse(arg)) < 0)
                return usage_error(_("--lang takes zh or en, not \"%s\""), arg);
            break;
    }
    return -1;
}

/* The options that need or exclude each other. Returns -1 to go on, or an
 * exit status. */
static int check_together(Options *o)
{
    if (o->answers && o->mode != MODE_WORKSHEET)
        return usage_error(_("--answers goes with --worksheet"), "");
    if (o->mode == MODE_CLASS && !o->out)
        return usage_error(_("%s needs --out DIR, the folder to write into"), "--class");
    if (o->mode == MODE_SLIDES && !o->out)
        return usage_error(_("%s needs --out DIR, the folder to write into"), "--slides");
    if (o->mode == MODE_TRAIN && !o->out)
        return usage_error(_("%s needs --out FILE, the weights file to write"), "--train");
    if (o->steps && o->mode != MODE_TRAIN)
        return usage_error(_("%s goes with --train"), "--steps");
    if (o->out && o->mode != MODE_CLASS && o->mode != MODE_SLIDES && o->mode != MODE_TRAIN)
        return usage_error(_("%s goes with --class, --slides or --train"), "--out");
    if (o->chrome && o->mode != MODE_SLIDES)
        return usage_error(_("%s goes with --slides"), "--chrome");
    if (o->model && o->mode != MODE_SVG)
        return usage_error(_("%s goes with --svg"), "--model");
    if (o->at && o->mode == MODE_SLIDES)
        return usage_error(_("--at goes with --dump, --json, --svg or the view; a deck covers every step"), "");
    if (o->format >= 0 && o->mode != MODE_CLASS)
        return usage_error(_("%s goes with --class"), "--format");
    if (o->paper && !(o->mode == MODE_CLASS && o->format > CLASS_MD))
        return usage_error(_("%s goes with --class and --format html or pdf"), "--paper");
    if (o->variant && o->mode == MODE_CLASS)
        return usage_error(_("--variant goes with --worksheet, --dump or --json; --class gives student k variant k"), "");
    if (o->variant && o->mode != MODE_WORKSHEET && o->mode != MODE_DUMP && o->mode != MODE_JSON)
        return usage_error(_("--variant goes with --worksheet, --dump or --json"), "");
    if (o->card && o->mode != MODE_SVG)
        return usage_error(_("--at takes a step number from 1, not \"%s\""), "0");
    if (o->at && o->mode == MODE_WORKSHEET)
        return usage_error(_("--at goes with --dump, --json or the view; a worksheet covers every step"), "");
    return check_size(o);
}

/* Parse argv into *o. Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, Options *o)
{
    static const struct option longs[] = {
        {"list", no_argument, 0, 'l'},    {"dump", no_argument, 0, 'd'},
        {"json", no_argument, 0, 'j'},    {"check", no_argument, 0, 'c'},
        {"at", required_argument, 0, 'a'}, {"lang", required_argument, 0, 'L'},
        {"theme", required_argument, 0, 't'}, {"present", no_argument, 0, 'P'},
        {"svg", no_argument, 0, 'S'},     {"size", required_argument, 0, 'z'},
        {"help", no_argument, 0, 'h'},    {"version", no_argument, 0, 'V'},
        {"worksheet", no_argument, 0, 'w'}, {"answers", no_argument, 0, OPT_ANSWERS},
        {"variant", required_argument, 0, OPT_VARIANT},
        {"class", required_argument, 0, OPT_CLASS}, {"out", required_argument, 0, OPT_OUT},
        {"format", required_argument, 0, OPT_FORMAT}, {"paper", required_argument, 0, OPT_PAPER},
        {"slides", no_argument, 0, OPT_SLIDES},     {"chrome", no_argument, 0, OPT_CHROME},
        {"model", no_argument, 0, OPT_MODEL},
        {"train", no_argument, 0, OPT_TRAIN},       {"steps", required_argument, 0, OPT_STEPS},
        {0, 0, 0, 0}};
    int c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ldjcwL:hV", longs, NULL)) != -1) {
        switch (c) {
        case 'l': if ((rc = set_mode(o, MODE_LIST)) >= 0) return rc; break;
        case 'd': if ((rc = set_mode(o, MODE_DUMP)) >= 0) return rc; break;
        case 'j': if ((rc = set_mode(o, MODE_JSON)) >= 0) return rc; break;
        case 'c': if ((rc = set_mode(o, MODE_CHECK)) >= 0) return rc; break;
        case 'S': if ((rc = set_mode(o, MODE_SVG)) >= 0) return rc; break;
        case 'w': if ((rc = set_mode(o, MODE_WORKSHEET)) >= 0) return rc; break;
        case OPT_ANSWERS: o->answers = true; break;
        case OPT_OUT: o->out = optarg; break;
        case OPT_SLIDES: if ((rc = set_mode(o, MODE_SLIDES)) >= 0) return rc; break;
        case OPT_CHROME: o->chrome = true; break;
        case OPT_MODEL: o->model = true; break;
        case OPT_TRAIN: if ((rc = set_mode(o, MODE_TRAIN)) >= 0) return rc; break;
        case 'P': o->present = true; break;
        case 'z': case OPT_VARIANT: case OPT_CLASS: case OPT_STEPS: case OPT_FORMAT: case OPT_PAPER: case 't': case 'a': case 'L':
            if ((rc = option_value(c, optarg, o)) >= 0)
                return rc;
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("qkvtutor %s\n", QKV_VERSION); return 0;
        case ':': return usage_error(_("%s needs a value"), argv[optind - 1]);
        default:  return usage_error(_("unknown option \"%s\""), argv[optind - 1]);
        }
    }
    if (optind < argc)
        o->lesson = argv[optind++];
    if (optind < argc && o->mode == MODE_CHECK)
        o->more = argv + optind, o->nmore = argc - optind;
    else if (optind < argc)
        return usage_error(_("one lesson at a time (only --check takes several); unexpected \"%s\""), argv[optind]);
    return check_together(o);
}

/* The built-in lesson named by a number ("2") or a name ("02-attend-to-itself",
 * "attend-to-itself", or as --list prints it, "02-attend-to-itself.yaml");
 * -1 if none. */
static int find_embedded(const char *name)
{
    long long n = parse_count(name);
    if (n > 0)
        return n <= embedded_count ? (int)n - 1 : -1;
    size_t nl = strlen(name);
    if (nl > 5 && strcmp(name + nl - 5, ".yaml") == 0)
        nl -= 5;
    for (int k = 0; k < embedded_count; k++) {
        const char *base = strrchr(embedded_lessons[k].name, '/');
        base = base ? base + 1 : embedded_lessons[k].name;
        size_t len = strcspn(base, ".");
        const char *bare = strchr(base, '-');
        if ((nl == len && strncmp(base, name, len) == 0) ||
            (bare && nl == len - (size_t)(bare + 1 - base) && strncmp(bare + 1, name, nl) == 0))
            return k;
    }
    return -1;
}

/* The built-in lessons a mistyped name may have meant, "A" or "A or B"
 * (their file names): those whose name without its number holds the word
 * (3 letters or more), or is within two edits of it. "" when none. */
static void lessons_near(const char *name, char *buf, size_t len)
{
    char word[64];
    snprintf(word, sizeof word, "%s", name + (strspn(name, "0123456789") == 2 && name[2] == '-' ? 3 : 0));
    size_t wl = strlen(word);
    if (wl > 5 && strcmp(word + wl - 5, ".yaml") == 0)
        word[wl -= 5] = '\0';
    buf[0] = '\0';
    for (int k = 0, found = 0; k < embedded_count && found < 3 && wl > 0; k++) {
        const char *base = strrchr(embedded_lessons[k].name, '/');
        base = base ? base + 1 : embedded_lessons[k].name;
        const char *bare = strchr(base, '-');
        char plain[64];
        snprintf(plain, sizeof plain, "%.*s", (int)strcspn(bare ? bare + 1 : base, "."), bare ? bare + 1 : base);
        if ((wl >= 3 && strstr(plain, word)) || diag_edit_distance(plain, word) <= 2) {
            size_t n = strlen(buf);
            snprintf(buf + n, len - n, "%s%s", found++ ? _(" or ") : "", base);
        }
    }
}

/* Print a failed load's messages: every error found (up to 20, in file
 * order), one a line, and when there were several, how many. */
static void print_errors(const char *err, const DiagList *list)
{
    if (list->n == 0) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    for (int k = 0; k < list->n; k++)
        fprintf(stderr, "%s\n", list->m[k].text);
    if (list->total > list->n)
        fprintf(stderr, _("... and %d more errors, not shown\n"), list->total - list->n);
    if (list->total > 1)
        fprintf(stderr, _("%d errors; the lesson does not load until they are fixed\n"), list->total);
}

/* Load the lesson the user asked for. Prints the errors itself. */
static bool load(const char *arg, Lesson *l, unsigned flags)
{
    char err[LESSON_ERR_MAX];
    static DiagList list;
    struct stat st;
    bool ok;
    if (arg && stat(arg, &st) == 0) {
        ok = lesson_load_file_all(arg, l, err, sizeof err, &list, flags);
    } else {
        int k = arg ? find_embedded(arg) : 0;
        if (k < 0 || embedded_count == 0) {
            char shown[1024], near[256] = "";
            text_quote_n(arg ? arg : "", 200, "", "", shown, sizeof shown);
            if (arg)
                lessons_near(arg, near, sizeof near);
            if (near[0])
                fprintf(stderr, _("qkvtutor: no lesson \"%s\": not a file, nor a built-in lesson; did you mean %s? "
                                  "(see qkvtutor --list)\n"), shown, near);
            else
                fprintf(stderr, _("qkvtutor: no lesson \"%s\": not a file, nor a built-in lesson (see qkvtutor --list)\n"),
                        shown);
            return false;
        }
        ok = lesson_load_buffer_all(embedded_lessons[k].name, embedded_lessons[k].data, embedded_lessons[k].len, l,
                                    err, sizeof err, &list, flags);
    }
    if (!ok)
        print_errors(err, &list);
    return ok;
}

static int list(Lang lang)
{
    for (int k = 0; k < embedded_count; k++) {
        Lesson l;
        char err[LESSON_ERR_MAX], title[512];
        const EmbeddedLesson *e = &embedded_lessons[k];
        if (!lesson_load_buffer(e->name, e->data, e->len, &l, err, sizeof err)) {
            printf("%2d  %s: %s\n", k + 1, e->name, err);
            continue;
        }
        text_sanitize(text_get(&l.title, lang), title, sizeof title, false);
        printf("%2d  %-32s %s\n", k + 1, strrchr(e->name, '/') + 1, title);
        lesson_free(&l);
    }
    return 0;
}

/* Pick a UTF-8 locale: the user's, or C.UTF-8; false means ASCII only. */
static bool setup_locale(void)
{
    /* Only what qkvtutor uses: character types and messages. Numbers are
     * always written with a point, and loading the other categories would
     * cost a dozen files at every start. */
    setlocale(LC_CTYPE, "");
    setlocale(LC_MESSAGES, "");
    if (strcmp(nl_langinfo(CODESET), "UTF-8") == 0)
        return true;
    if (setlocale(LC_CTYPE, "C.UTF-8") && strcmp(nl_langinfo(CODESET), "UTF-8") == 0) {
        setlocale(LC_MESSAGES, "C.UTF-8");
        return true;
    }
    setlocale(LC_CTYPE, "");
    return false;
}

/* Where the translations are: next to the binary when run from build/,
 * ../share/locale beside an installed (or moved) binary, else the
 * configured locale directory. */
static const char *locale_dir(char *buf, size_t len)
{
    static const char *near[] = {"/locale", "/../share/locale"};
    ssize_t n = readlink("/proc/self/exe", buf, len - 32);
    char *slash = n > 0 ? strrchr((buf[n] = '\0', buf), '/') : NULL;
    for (size_t k = 0; slash && k < sizeof near / sizeof *near; k++) {
        struct stat st;
        strcpy(slash, near[k]);
        if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
            return buf;
    }
    return QKV_LOCALEDIR;
}

/* Is one of these options on the command line (short letters, or long
 * names)? A light look before parsing, to skip work the mode won't need. */
static bool has_flag(int argc, char **argv, const char *shorts, const char **longs)
{
    for (int k = 1; k < argc && strcmp(argv[k], "--") != 0; k++) {
        for (const char **l = longs; *l; l++)
            if (strcmp(argv[k], *l) == 0)
                return true;
        if (argv[k][0] == '-' && argv[k][1] != '-')
            for (const char *c = argv[k] + 1; *c; c++)
                if (strchr(shorts + 1, *c))
                    return true;
    }
    return false;
}

/* The language asked for with --lang/-L, looked up before the options are
 * parsed so that --help and usage errors already speak it; -1 if none. */
static int lang_arg(int argc, char **argv)
{
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        if ((strcmp(a, "--lang") == 0 || strcmp(a, "-L") == 0) && k + 1 < argc)
            return text_lang_parse(argv[k + 1]);
        if (strncmp(a, "--lang=", 7) == 0)
            return text_lang_parse(a + 7);
        if (strncmp(a, "-L", 2) == 0 && a[2])
            return text_lang_parse(a + 2);
        if (strcmp(a, "--") == 0)
            break;
    }
    return -1;
}

/* Run the mode the options chose on the loaded lesson; its exit status. */
static int run_mode(const Options *o, Lesson *l, Lang lang, bool utf8)
{
    RenderOpt ro = {lang, !utf8, (int)o->at, layout_narration_room, layout_narration_space};
    switch (o->mode) {
    case MODE_DUMP:  return render_dump(stdout, l, &ro);
    case MODE_JSON:  return render_json(stdout, l, &ro);
    case MODE_CHECK: return render_check_fits(stdout, l, &ro, layout_narration_room);
    case MODE_SVG: {
        SvgOpt so = {lang, !utf8, o->theme, o->present, (int)o->at, o->cols, o->rows, o->card, o->model};
        if (o->model && !l->model) {
            fprintf(stderr, _("qkvtutor: --model draws a model lesson's heads; %s has no model: section\n"), o->lesson);
            return 2;
        }
        return svg_step(stdout, l, &so);
    }
    case MODE_SLIDES: {
        SvgOpt so = {.lang = lang, .ascii = !utf8, .theme = o->theme, .present = o->present, .cols = o->cols, .rows = o->rows};
        return slides_write(l, &so, o->out, o->chrome);
    }
    case MODE_CLASS: {
        ClassOpt co = {lang, !utf8, o->students, o->out, o->format < 0 ? CLASS_MD : (ClassFormat)o->format, o->letter};
        return class_write(l, &co);
    }
    case MODE_TRAIN: return train_cli(l, o->out, o->steps);
    case MODE_WORKSHEET: {
        WorksheetOpt wo = {lang, !utf8, o->answers, 0, false};
        return render_worksheet(stdout, l, &wo);
    }
    default: {
        ViewOpt vo = {lang, !utf8, o->theme, o->present, (int)o->at, true, render_check_text};
        return view_run(l, &vo);
    }
    }
}

/* The lesson against --variant, --class and --at: false (the message
 * printed) when they cannot be done with it. File names and arguments are
 * quoted (text_shown): no escape byte reaches the terminal. */
static bool lesson_fits_options(const Options *o, Lesson *l)
{
    static char shown[4096]; /* only for a message: not 4 KB more stack on every load */
    /* a model lesson with trained weights (weights: {file: ...}) has nothing a variant could draw */
    if (l->model && l->model->wsrc == WSRC_FILE && (o->variant || o->mode == MODE_CLASS)) {
        char what[64];
        if (o->variant)
            snprintf(what, sizeof what, "--variant %s", o->variant);
        else
            snprintf(what, sizeof what, "--class %d", o->students);
        fprintf(stderr, _("qkvtutor: %s: %s reads trained weights from a file, and other weights or other tokens "
                          "would not be what the lesson shows; give every student the same sheet "
                          "(--worksheet without --variant)\n"), what, text_shown(l->file, shown, sizeof shown));
        return false;
    }
    if (o->variant && !lesson_reseed(l, o->seed)) {
        fprintf(stderr, _("qkvtutor: --variant %s: %s writes its weights out and declares no variants:, so every "
                          "student would get the same numbers; add e.g. variants: {add: [Wq, Wk], scale: 0.3} "
                          "(lessons/README.md)\n"), o->variant, text_shown(l->file, shown, sizeof shown));
        return false;
    }
    if (o->mode == MODE_CLASS && !lesson_reseed(l, 1)) {
        fprintf(stderr, _("qkvtutor: --class %d: %s writes its weights out and declares no variants:, so every "
                          "student would get the same numbers; add e.g. variants: {add: [Wq, Wk], scale: 0.3} "
                          "(lessons/README.md)\n"), o->students, text_shown(l->file, shown, sizeof shown));
        return false;
    }
    if (o->at > l->nsteps) {
        fprintf(stderr, _("qkvtutor: --at %s: the lesson has %d steps\n"), o->at_text, l->nsteps);
        return false;
    }
    return true;
}

/* --check with several lessons: each in turn, as if checked alone; the
 * worst exit status (2 a lesson error, 1 an expectation failed, 0 all hold). */
static int check_each(const Options *o, Lang lang, bool utf8)
{
    int worst = 0;
    for (int k = -1; k < o->nmore; k++) {
        Lesson l;
        int rc = 2;
        if (load(k < 0 ? o->lesson : o->more[k], &l, 0)) {
            rc = lesson_fits_options(o, &l) ? run_mode(o, &l, lang, utf8) : 2;
            lesson_free(&l);
        }
        worst = rc > worst ? rc : worst;
    }
    return worst;
}

/* glibc's heap, tuned for a short-lived process whose big blocks (the
 * matrices, 32 KB each for 64 tokens) come and go in phases: no padding on
 * top of what the heap grows by, so a calloc'd block from fresh pages is
 * not cleared (the kernel's pages are zero) and pages nobody uses are never
 * touched (loading a lesson checks its steps on a whole scratch state); and
 * no trimming, so what loading frees (that state, the YAML document) is
 * reused by the state --json prints instead of given back and faulted in
 * again. A 64-token, 8-head lesson's --json: 978 -> 695 page faults. */
static void tune_heap(void)
{
#ifdef __GLIBC__
    mallopt(M_TOP_PAD, 0);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int main(int argc, char **argv)
{
    tune_heap();
    static char dir[4096]; /* static: only the view and Chinese use it, and --json 1's stack stays short */
    Options o = {.mode = MODE_VIEW, .lang = -1, .format = -1}; /* the rest: 0, NULL, false */
    int asked = lang_arg(argc, argv);
    Lang first = asked >= 0 ? (Lang)asked : i18n_detect();
    /* Work only a mode needs: English needs no catalogue (found only for
     * Chinese or the view, where L switches), and JSON in English is bytes,
     * not text to measure, so it needs no locale at all. */
    bool view = !has_flag(argc, argv, "-djclw",
                          (const char *[]){"--dump", "--json", "--check", "--list", "--svg", "--worksheet", "--class",
                                           "--slides", "--train", NULL});
    bool json_en = first == LANG_EN && has_flag(argc, argv, "-j", (const char *[]){"--json", NULL});
    bool utf8 = json_en || setup_locale();
    /* --check and --dump measure each language's narration with its own interface (out/authoring.h) */
    bool both = has_flag(argc, argv, "-dc", (const char *[]){"--dump", "--check", NULL});
    i18n_set(first, first == LANG_ZH || view || both ? locale_dir(dir, sizeof dir) : NULL);
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    Lang lang = o.lang >= 0 ? (Lang)o.lang : i18n_detect();
    i18n_set(lang, NULL);
    if (o.mode == MODE_LIST)
        return list(lang);
    if (o.nmore > 0)
        return check_each(&o, lang, utf8);
    Lesson l;
    /* --json prints no narration, so it does not read any */
    if (!load(o.lesson, &l, o.mode == MODE_JSON ? LESSON_LOAD_NO_NARRATION : 0))
        return 2;
    if (!lesson_fits_options(&o, &l)) {
        lesson_free(&l);
        return 2;
    }
    rc = run_mode(&o, &l, lang, utf8);
    lesson_free(&l);
    return rc;
}
