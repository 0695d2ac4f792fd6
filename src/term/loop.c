/* loop.c - the terminal's owner: set-up, the key loop, and restoring it.
 *
 * The terminal is restored on every way out: q, Ctrl-C (SIGINT, taken as a
 * key: it cancels a prompt and asks before losing edits, like q), every
 * signal whose default ends the process (TERM, HUP, QUIT from Ctrl-\, PIPE,
 * USR1, USR2, ALRM, ...: the handler only sets a flag; the loop polls it,
 * restores, and raises the signal again), a crash (SEGV, BUS, FPE, ILL,
 * ABRT, SYS: a handler writes the terminal's reset strings, made in
 * advance, and the shell's modes back, then dies of the signal), a fatal
 * error (atexit), and
 * Ctrl-Z suspends through ncurses' own SIGTSTP handling (ours before it
 * homes the cursor, where ncurses takes it to be; after it, on resume,
 * the frame is sent whole again over the blank screen ncurses left).
 * Frames go out through our own writer (grid.h), never refresh: ncurses
 * keeps the keyboard, the modes and endwin, and stdscr stays untouched so
 * that wgetch never repaints it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "grid.h"
#include "text/i18n.h"
#include "text/text.h"
#include "view_int.h"
#include <term.h>

static volatile sig_atomic_t caught, resumed, armed;
static struct sigaction tstp_curses;
static char home[64];
static size_t nhome;
static int out_fd = STDOUT_FILENO;

static bool too_small(void)
{
    return COLS < VIEW_MIN_COLS || LINES < VIEW_MIN_LINES;
}

/* Below the smallest screen with unsaved edits, q or Ctrl-C asked: the
 * too-small screen shows the question (layout's ask_quit). */
static bool small_ask;

static bool small_asking(void)
{
    return small_ask && too_small();
}

static void on_signal(int sig)
{
    caught = sig;
}

/* Ctrl-Z: the cursor home, where ncurses takes it to be; ncurses' own
 * handler then suspends and, on resume, repaints its blank screen. */
static void on_tstp(int sig)
{
    int e = errno;
    if (nhome && write(out_fd, home, nhome) < 0) {}
    if (tstp_curses.sa_handler != SIG_DFL && tstp_curses.sa_handler != SIG_IGN && tstp_curses.sa_handler != on_tstp)
        tstp_curses.sa_handler(sig);
    resumed = 1;
    errno = e;
}

/* What the crash handler writes: the look reset, the cursor shown, the
 * keypad and mouse reporting off, the normal screen back (made while the
 * terminal is set up: a handler may only write). And the shell's modes. */
static char unwind[256];
static size_t nunwind;
static struct termios shell_modes;
static bool have_shell_modes;

static void add_cap(const char *name)
{
    const char *c = tigetstr(name);
    size_t n = c && c != (char *)-1 ? strlen(c) : 0;
    if (n && nunwind + n < sizeof unwind) {
        memcpy(unwind + nunwind, c, n);
        nunwind += n;
    }
}

static void make_unwind(void)
{
    nunwind = 0;
    add_cap("sgr0");
    add_cap("cnorm");
    add_cap("rmkx");
    const char *kmous = tigetstr("kmous");
    static const char mouse_off[] = "\033[?1006l\033[?1003l\033[?1002l\033[?1000l";
    if (kmous && kmous != (char *)-1 && nunwind + sizeof mouse_off < sizeof unwind) { /* ncurses' xterm mouse */
        memcpy(unwind + nunwind, mouse_off, sizeof mouse_off - 1);
        nunwind += sizeof mouse_off - 1;
    }
    add_cap("rmcup");
}

/* A crash (SEGV, BUS, FPE, ILL, ABRT, SYS): the terminal back with
 * async-signal-safe calls only, then the signal again with its default
 * action (a core, the status the shell expects). */
static void on_crash(int sig)
{
    if (armed) {
        armed = 0;
        if (write(out_fd, unwind, nunwind) < 0) {}
        if (have_shell_modes)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &shell_modes);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void restore_terminal(void)
{
    armed = 0;
    if (!isendwin()) {
        if (nhome && write(out_fd, home, nhome) < 0) {}
        endwin();
    }
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* every signal whose default ends the process: the loop ends, the
     * terminal is restored, the signal is raised again (view_run) */
    static const int ending[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM,
                                 SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ};
    for (size_t k = 0; k < sizeof ending / sizeof *ending; k++)
        sigaction(ending[k], &sa, NULL);
    static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS};
    struct sigaction sc = {0};
    sc.sa_handler = on_crash;
    sc.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sc.sa_mask);
    for (size_t k = 0; k < sizeof crash / sizeof *crash; k++)
        sigaction(crash[k], &sc, NULL);
    struct sigaction was;
    if (sigaction(SIGTSTP, NULL, &was) == 0 && was.sa_handler != SIG_IGN && was.sa_handler != on_tstp) {
        tstp_curses = was;
        sa.sa_handler = on_tstp;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGTSTP, &sa, NULL);
    }
}

View *view_new(const Lesson *l, const ViewOpt *o)
{
    View *v = calloc(1, sizeof *v);
    if (!v || !session_init(&v->s, l)) {
        free(v);
        return NULL;
    }
    if (o->start_step > 0) /* --at N: open there, as if the lesson started there */
        session_open_at(&v->s, o->start_step - 1);
    v->lesson = l;
    v->lang = o->lang;
    v->ascii = o->ascii;
    v->present = o->present;
    v->fmat = M_Q;
    v->card = o->card && o->start_step == 0 && v->s.step == 0 && lesson_has_about(l);
    if (v->card) /* the status row says how to go on (keys.c says it again at PgUp/Home) */
        snprintf(v->msg, sizeof v->msg, "%s", _("Press any key to begin with step 1."));
    plan_init(&v->plan);
    int t = o->theme ? theme_lookup(o->theme) : -1;
    if (t < 0)
        t = getenv("NO_COLOR") && *getenv("NO_COLOR") ? THEME_MONO : THEME_DARK;
    v->apply_theme = theme_apply;
    v->save_check = o->save_check;
    v->theme = theme_apply((ThemeId)t);
    draw_size(v);
    view_focus_from_step(v);
    return v;
}

bool view_theme_known(const char *name)
{
    return theme_lookup(name) >= 0;
}

void view_free(View *v)
{
    if (!v)
        return;
    session_free(&v->s);
    plan_free(&v->plan);
    draw_forget(v);
    free(v);
}

bool view_key(View *v, wint_t ch, bool is_code)
{
    draw_size(v);
    if (is_code && ch == KEY_RESIZE)
        return true;
    int flags = FLAG_NONE;
    if (is_code && ch == KEY_MOUSE) {
        MEVENT ev;
        if (getmouse(&ev) != OK)
            return true;
        flags = keys_mouse(v, ev.y, ev.x, term_mouse(ev.bstate));
    } else {
        flags = keys_handle(v, term_key(ch, is_code));
    }
    draw_key(v, flags != FLAG_NONE); /* none: the frame on screen stays */
    return !(flags & FLAG_QUIT);
}

bool view_tick(View *v)
{
    if (!ui_watching(v))
        return false;
    draw_size(v);
    draw_key(v, ui_watch_tick(v) != FLAG_NONE);
    return true;
}

void view_draw(View *v)
{
    draw_frame(v, small_asking());
}

void view_flush(View *v)
{
    grid_term_flush(-1, -1);
}

bool view_click(View *v, int y, int x)
{
    draw_size(v);
    int flags = keys_mouse(v, y, x, term_mouse(BUTTON1_PRESSED));
    draw_key(v, flags != FLAG_NONE);
    return !(flags & FLAG_QUIT);
}

void view_keys(View *v, const char *keys)
{
    size_t n;
    for (const char *p = keys; *p; p += n) {
        uint32_t cp;
        n = text_utf8_next(p, strnlen(p, 4), &cp);
        if (cp == TEXT_BAD_CP)
            return;
        view_key(v, (wint_t)cp, false);
    }
}

/* Where the terminal cursor goes: in the open text field (true), or
 * nowhere, hidden (false). */
static bool place_cursor(View *v, int *y, int *x)
{
    bool field = view_field_open(v);
    if (!field || LINES < VIEW_MIN_LINES || COLS < VIEW_MIN_COLS)
        return false;
    char bar[PROMPT_MAX + 64];
    draw_size(v);
    int fx = keys_field(v, bar, sizeof bar);
    *y = LINES - 1;
    *x = fx < COLS ? fx : COLS - 1;
    return true;
}

/* A key from ncurses. stdscr is never drawn on, but a resize touches it:
 * untouched, wgetch does not repaint it over our frame. */
static int get_key(wint_t *ch)
{
    untouchwin(stdscr);
    return get_wch(ch);
}

/* After a lone ESC, swallow the rest of an escape sequence the terminal
 * description does not know (e.g. ESC [ 4 ~ for End inside tmux), so its
 * bytes are not taken as keys ("4" would jump to stage 4). Returns true
 * when a sequence was swallowed, false for a real Esc key. */
static bool swallow_sequence(void)
{
    wint_t ch;
    timeout(0);
    int r = get_key(&ch);
    bool seq = r == OK && (ch == '[' || ch == 'O');
    if (r != ERR && !seq)
        unget_wch(ch);
    while (seq && get_key(&ch) == OK && !(ch >= 0x40 && ch <= 0x7e)) {}
    timeout(250);
    return seq;
}



/* A key below the smallest screen: -1 to go on, else the exit status.
 * Without edits q and Ctrl-C quit; with edits they ask, in the lines that
 * fit, and y quits (the edits are lost, as asked), any other key stays
 * (Ctrl-C too, as at the view's own question); Esc closes the question,
 * or goes to the view (it closes a prompt there). The view gets a resize
 * and nothing else. */
static int small_key(View *v, int r, wint_t ch)
{
    bool intr = r == OK && ch == 3, quit = r == OK && (ch == 'q' || intr), esc = r == OK && ch == 27;
    if (quit && !session_dirty(&v->s))
        return intr ? 128 + SIGINT : 0;
    if (small_ask) {
        small_ask = false;
        if (r == OK && (ch == 'y' || ch == 'Y'))
            return 0;
    } else if (quit) {
        small_ask = true;
    } else if (esc) {
        view_key(v, ch, false);
    } else if (r == KEY_CODE_YES && ch == KEY_RESIZE) {
        view_key(v, ch, true);
    }
    return -1;
}

void view_screen_fd(int fd)
{
    out_fd = fd;
}

/* ncurses clears the screen once (its cursor is then home, where it takes
 * it to stay: nothing else goes through its refresh); our writer takes the
 * terminal's strings, and the bytes that home the cursor before endwin. */
void view_screen_ready(void)
{
    endwin();
    refresh();
    grid_term_open(out_fd);
    Grid *g = grid_term();
    const char *h = g ? grid_home(g, &nhome) : NULL;
    if (!h || nhome > sizeof home)
        nhome = 0;
    else
        memcpy(home, h, nhome);
}

/* Keys one at a time, unechoed, with their codes; the mouse; no cursor. */
static void terminal_modes(void)
{
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    mouseinterval(0);
    /* Home/End as tmux and screen send them under TERM=xterm-256color. */
    define_key("\033[1~", KEY_HOME);
    define_key("\033[4~", KEY_END);
    define_key("\033[H", KEY_HOME);
    define_key("\033[F", KEY_END);
    view_screen_fd(STDOUT_FILENO);
    view_screen_ready();
    mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    timeout(250);
    curs_set(0);
}

/* A SIGINT (Ctrl-C) is taken as the key Ctrl-C: it cancels an open prompt,
 * asks when edits are unsaved, and quits like q otherwise; a quit that
 * Ctrl-C asked for ends with SIGINT's status (130), as shells expect.
 * SIGTERM and SIGHUP end the loop at once. */
static int run(View *v)
{
    for (;;) {
        if (caught && caught != SIGINT)
            return 128 + caught;
        if (resumed) { /* back from Ctrl-Z: ncurses left a blank screen */
            resumed = 0;
            if (grid_term())
                grid_invalidate(grid_term());
        }
        draw_frame(v, small_asking());
        int cy = -1, cx = -1;
        bool field = place_cursor(v, &cy, &cx);
        grid_term_flush(cy, cx);
        curs_set(field);
        wint_t ch;
        timeout(ui_watching(v) ? 0 : 250); /* the watch mode: a batch of training whenever no key waits */
        int r = get_key(&ch);
        while (r == ERR && !caught && !resumed && !ui_watching(v))
            r = get_key(&ch);
        if (r == ERR && resumed)
            continue;
        if (r == ERR && !caught && view_tick(v))
            continue;
        if (caught == SIGINT) {
            caught = 0;
            r = OK;
            ch = 3; /* Ctrl-C */
        }
        if (caught)
            return 128 + caught;
        if (r == OK && ch == 27 && swallow_sequence())
            continue;
        bool intr = r == OK && ch == 3;
        int rc = too_small() ? small_key(v, r, ch) : -1;
        if (rc >= 0)
            return rc;
        small_ask = small_ask && too_small();
        if (too_small())
            continue;
        if (!view_key(v, ch, r == KEY_CODE_YES))
            return intr ? 128 + SIGINT : 0;
    }
}

int view_run(const Lesson *l, const ViewOpt *o)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "%s\n", _("qkvtutor: the interactive view needs a terminal; "
                                  "use --dump to print the walkthrough, or --json for the numbers"));
        return 2;
    }
    /* newterm, not initscr: initscr prints its own message and exits 1
     * when TERM names a terminal it does not know. */
    const char *term = getenv("TERM");
    /* A terminal that cannot address the cursor (TERM=dumb, a hardcopy
     * terminal) would get a blank screen: refuse before curses writes
     * anything, pointing to --dump. */
    int tierr = 0;
    if (term && *term && setupterm(NULL, STDOUT_FILENO, &tierr) == OK) {
        char *cup = tigetstr("cup");
        bool blind = cup == NULL || cup == (char *)-1 || tigetflag("hc") > 0;
        del_curterm(cur_term);
        if (blind) {
            fprintf(stderr, _("qkvtutor: the terminal type \"%s\" (TERM) cannot move the cursor; "
                              "use --dump to print the walkthrough, or try TERM=xterm-256color\n"), term);
            return 2;
        }
    }
    have_shell_modes = tcgetattr(STDIN_FILENO, &shell_modes) == 0;
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr && (!term || !*term))
        fprintf(stderr, "%s\n", _("qkvtutor: TERM is not set; try TERM=xterm-256color, or --dump to print the walkthrough"));
    else if (!scr)
        fprintf(stderr, _("qkvtutor: cannot use the terminal type \"%s\" (TERM); try TERM=xterm-256color, "
                          "or --dump to print the walkthrough\n"), term);
    if (!scr)
        return 2;
    set_term(scr);
    install_signals();
    atexit(restore_terminal);
    terminal_modes();
    make_unwind();
    armed = 1;
    View *v = view_new(l, o);
    int rc = v ? run(v) : 2;
    view_free(v);
    restore_terminal();
    if (!v)
        fprintf(stderr, "%s\n", _("qkvtutor: out of memory"));
    if (rc > 128) {
        signal(rc - 128, SIG_DFL);
        raise(rc - 128);
    }
    return rc;
}
