# lib.sh - helpers for the tmux end-to-end tests and the screenshot script.
# shellcheck disable=SC2034  # PY, L1, L2, BIN are used by the scripts that source this
# Sourced (POSIX sh) by tests/e2e/run.sh and tests/e2e/screenshots.sh.
#
# Every tmux call goes to a private server (tmux -L qkv-e2e-PID) with its own
# config, so these scripts never touch the user's sessions. e2e_init sets it
# up, e2e_cleanup (installed on EXIT by e2e_init) kills it and removes the
# temporary directory.

# grep and sed here match UTF-8 text ([▲▼], ░▒▓█): run them in a UTF-8
# locale whatever the caller has. (The tmux server gets its own, see tm.)
LC_ALL=C.UTF-8
export LC_ALL
unset LANGUAGE

E2E_DIR=$(cd "$(dirname "$0")" && pwd)
E2E_ROOT=$(cd "$E2E_DIR/../.." && pwd)
E2E_TIMEOUT=${E2E_TIMEOUT:-5}        # seconds one wait may take
E2E_STEP=0.05                        # polling interval
E2E_SOCK=""
# python3 for JSON and display widths; the system one starts fastest (a
# pyenv shim takes most of a second per call).
PY=""
for _p in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
    [ -n "$_p" ] && [ -x "$_p" ] && { PY=$_p; break; }
done
E2E_TMP=""
SCREEN=""                            # the last capture taken by a wait

# e2e_init BINARY: make BIN absolute, pick the lessons, start nothing yet.
e2e_init()
{
    case $1 in
    "") echo "usage: sh $0 BINARY" >&2; exit 2 ;;
    /*) BIN=$1 ;;
    *) BIN=$(pwd)/$1 ;;
    esac
    if [ ! -x "$BIN" ]; then
        echo "$0: $BIN is not an executable; run make first" >&2
        exit 2
    fi
    command -v tmux >/dev/null 2>&1 || { echo "$0: tmux is needed" >&2; exit 2; }
    E2E_SOCK=qkv-e2e-$$
    E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/qkv-e2e.XXXXXX")
    trap e2e_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # The built-in lessons by number; until lessons/01-*.yaml exists, a copy
    # of the test lesson kept next to this file.
    if ls "$E2E_ROOT"/lessons/01-*.yaml >/dev/null 2>&1; then
        L1=1
    else
        L1=$E2E_DIR/lesson1.yaml
    fi
    if ls "$E2E_ROOT"/lessons/02-*.yaml >/dev/null 2>&1; then
        L2=2
    else
        L2=""
    fi
    # The same lessons with their ask: questions taken out (L1P, L2P), for the
    # tests of the view's mechanics: at a question, digits type the answer
    # instead of jumping to a stage.
    L1P=$L1 L2P=$L2
    for n in 01 02; do
        f=$(ls "$E2E_ROOT"/lessons/$n-*.yaml 2>/dev/null | head -n 1)
        [ -n "$f" ] || continue
        # (and their question: words, a question: block ending at its en: line)
        sed '/^[[:space:]]*ask:/d; /^[[:space:]]*question:/,/^[[:space:]]*en:/d' "$f" >"$E2E_TMP/$n-plain.yaml"
        if [ $n = 01 ]; then L1P=$E2E_TMP/$n-plain.yaml; else L2P=$E2E_TMP/$n-plain.yaml; fi
    done
    cat >"$E2E_TMP/tmux.conf" <<'EOF'
set -g default-terminal xterm-256color
set -g default-shell /bin/sh
set -g status off
# (not "window-size manual" here: tmux 3.3a crashes with it at start-up;
# resize-window makes the window manual by itself)
set -g history-limit 100
set -s escape-time 0
set -g remain-on-exit off
# The server stays up between tests: a new session started while the last
# one's server was exiting failed with "server exited unexpectedly".
set -s exit-empty off
EOF
}

e2e_cleanup()
{
    if [ -n "$E2E_SOCK" ]; then
        tmux -L "$E2E_SOCK" kill-server >/dev/null 2>&1
        rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$E2E_SOCK"   # tmux may leave it
    fi
    [ -n "$E2E_TMP" ] && [ -z "$E2E_KEEP" ] && rm -rf "$E2E_TMP"
    E2E_SOCK=""
}

# tm ARGS: tmux on the private server. The server takes its environment from
# the first call: a UTF-8 locale, and nothing that would change the language
# or the theme behind the test's back.
tm()
{
    env -u LANGUAGE -u LC_ALL -u LC_MESSAGES -u LC_CTYPE -u NO_COLOR LANG=C.UTF-8 \
        tmux -L "$E2E_SOCK" -f "$E2E_TMP/tmux.conf" "$@"
}

# start NAME W H [-e VAR=VALUE ...] COMMAND...: a detached session of a fixed
# size running COMMAND (given as separate words, run without a shell).
start()
{
    _n=$1 _w=$2 _h=$3
    shift 3
    tm new-session -d -s "$_n" -x "$_w" -y "$_h" -c "$E2E_ROOT" \
        -e LANG=C.UTF-8 -e TERM=xterm-256color "$@" 2>/dev/null ||
        { sleep 0.2; tm new-session -d -s "$_n" -x "$_w" -y "$_h" -c "$E2E_ROOT" \
              -e LANG=C.UTF-8 -e TERM=xterm-256color "$@"; }
}

# start_view NAME W H ARGS...: start the view (ARGS after the binary) and go
# past the title card a lesson with about: opens on (any key goes to step 1),
# so the tests begin at step 1 as before.
start_view()
{
    start "$@"
    past_card "$1"
}

# past_card NAME: once the view shows, press a key if it is on the title card.
past_card()
{
    # the key bar is the frame's last row: once it shows, the frame is whole
    # (a capture under load can catch the ribbon drawn and the card's line not yet)
    wait_re "$1" "Press any key to begin|按任意键|q quit|q 退出" >/dev/null || return 0
    if printf '%s\n' "$SCREEN" | grep -qE "Press any key to begin|按任意键"; then
        keys "$1" x
        wait_gone "$1" "Press any key to begin" >/dev/null
        wait_gone "$1" "按任意键" >/dev/null
    fi
    return 0
}

stop() { tm kill-session -t "$1" >/dev/null 2>&1; }

alive() { tm has-session -t "$1" >/dev/null 2>&1; }

keys() { _n=$1; shift; tm send-keys -t "$_n" "$@"; }

# xkey NAME home|end: the bytes xterm sends for Home and End. tmux's own
# "Home"/"End" keys send \e[1~ and \e[4~, which are not in the xterm-256color
# terminfo entry the panes use, so ncurses would not know them.
xkey()
{
    case $2 in
    home) tm send-keys -t "$1" -l -- "$(printf '\033OH')" ;;
    end) tm send-keys -t "$1" -l -- "$(printf '\033OF')" ;;
    esac
}

# typetext NAME TEXT: type TEXT literally.
typetext() { tm send-keys -t "$1" -l -- "$2"; }

cap() { tm capture-pane -p -t "$1" 2>/dev/null; }

capture_e() { tm capture-pane -e -p -t "$1" 2>/dev/null; }

pane_fmt() { tm display-message -p -t "$1" "$2" 2>/dev/null; }

# now: milliseconds; deadline: now + E2E_TIMEOUT seconds.
now() { _ns=$(date +%s%N); echo $((_ns / 1000000)); }
deadline() { echo $(($(now) + E2E_TIMEOUT * 1000)); }

# wait_for NAME TEXT: poll the screen until it contains TEXT (fixed string).
wait_for()
{
    _end=$(deadline)
    while :; do
        SCREEN=$(cap "$1")
        printf '%s\n' "$SCREEN" | grep -qF -- "$2" && return 0
        [ "$(now)" -ge "$_end" ] && return 1
        sleep "$E2E_STEP"
    done
}

# wait_re NAME REGEX: the same with an extended regular expression.
wait_re()
{
    _end=$(deadline)
    while :; do
        SCREEN=$(cap "$1")
        printf '%s\n' "$SCREEN" | grep -qE -- "$2" && return 0
        [ "$(now)" -ge "$_end" ] && return 1
        sleep "$E2E_STEP"
    done
}

# wait_gone NAME TEXT: poll until the screen no longer contains TEXT.
wait_gone()
{
    _end=$(deadline)
    while :; do
        SCREEN=$(cap "$1")
        printf '%s\n' "$SCREEN" | grep -qF -- "$2" || return 0
        [ "$(now)" -ge "$_end" ] && return 1
        sleep "$E2E_STEP"
    done
}

# wait_stable NAME TEXT: poll until the screen contains TEXT and two captures
# in a row are the same (a redraw has finished).
wait_stable()
{
    _end=$(deadline)
    _prev=""
    while :; do
        SCREEN=$(cap "$1")
        if printf '%s\n' "$SCREEN" | grep -qF -- "$2" && [ "$SCREEN" = "$_prev" ]; then
            return 0
        fi
        _prev=$SCREEN
        [ "$(now)" -ge "$_end" ] && return 1
        sleep "$E2E_STEP"
    done
}

# wait_until CMD...: poll until the command succeeds.
wait_until()
{
    _end=$(deadline)
    while ! "$@"; do
        [ "$(now)" -ge "$_end" ] && return 1
        sleep "$E2E_STEP"
    done
}

file_ready() { [ -s "$1" ]; }
pid_gone() { ! kill -0 "$1" 2>/dev/null; }
session_gone() { ! alive "$1"; }
size_is() { [ "$(pane_fmt "$1" '#{pane_width}x#{pane_height}')" = "$2" ]; }

# row_re TOKEN N1 N2 N3: a regex for a matrix row; a ▲/▼ change mark may
# stand before any number.
row_re()
{
    _t=$1
    shift
    _r="(^| )$_t( | .* )"
    _sep=""
    for _v in "$@"; do
        _v=$(printf '%s' "$_v" | sed 's/\./\\./g')
        _r="${_r}${_sep}[▲▼]?${_v}"
        _sep=" *"
    done
    printf '%s( |$)' "$_r"
}

# screen_has TEXT / screen_re REGEX: test the last capture, no waiting.
screen_has() { printf '%s\n' "$SCREEN" | grep -qF -- "$1"; }
screen_re() { printf '%s\n' "$SCREEN" | grep -qE -- "$1"; }
# Is a question open? Its line may wrap anywhere (a question: adds words
# before "type your answer"), so spaces and line ends are left out.
screen_asks() { printf '%s\n' "$SCREEN" | tr -d '\n ' | grep -qF -e "typeyouranswer" -e "输入你的答案"; }

# The header counter "k/N · ": the step shown and the number of steps.
step_of() { printf '%s\n' "$1" | sed -n '1s/.* \([0-9][0-9]*\)\/[0-9][0-9]* · .*/\1/p'; }
steps_of() { printf '%s\n' "$1" | sed -n '1s/.* [0-9][0-9]*\/\([0-9][0-9]*\) · .*/\1/p'; }

# The stage the ribbon (line 2) marks: the number inside [ ]; "multi" if the
# ribbon marks more than one.
ribbon_stage()
{
    printf '%s\n' "$1" | sed -n 2p | awk '{
        n = gsub(/\[[1-5]/, "&"); if (n != 1) { print (n ? "multi" : "none"); exit }
        match($0, /\[[1-5]/); print substr($0, RSTART + 1, 1) }'
}

# ---- the test runner ---------------------------------------------------------

PASSED=0
FAILED=0
WHY=""

# took T0: " (1.2 s)" since T0 (date +%s%N), when E2E_TIMES is set.
took()
{
    [ -n "$E2E_TIMES" ] || return 0
    _t1=$(date +%s%N 2>/dev/null)
    awk -v a="$1" -v b="$_t1" 'BEGIN { printf " (%.1f s)", (b - a) / 1e9 }'
}

# run_test NAME FUNCTION: run one test; it returns non-zero and sets WHY on
# failure. The tmux session it used (named like the function) is killed.
# E2E_ONLY=t_noterm (or t_restore_*) runs only those functions.
run_test()
{
    case $2 in ${E2E_ONLY:-*}) ;; *) return 0 ;; esac
    WHY=""
    SCREEN=""
    _t0=$(date +%s%N 2>/dev/null)
    if "$2"; then
        PASSED=$((PASSED + 1))
        echo "ok: $1$(took "$_t0")"
    else
        FAILED=$((FAILED + 1))
        echo "FAIL: $1$(took "$_t0")${WHY:+: $WHY}"
        if [ -n "$SCREEN" ]; then
            echo "    --- screen ---"
            printf '%s\n' "$SCREEN" | sed 's/^/    |/'
            echo "    --------------"
        fi
    fi
    stop "$2"
}

# fail WHY: set the reason and return 1; a test writes `cond || { fail WHY; return 1; }`.
fail() { WHY=$1; return 1; }

# expect NAME TEXT [WHY] / expect_re NAME REGEX [WHY] / expect_gone NAME TEXT
# [WHY]: wait for the screen, or set WHY and return 1.
expect() { wait_for "$1" "$2" || fail "${3:-expected \"$2\" on the screen}"; }
expect_re() { wait_re "$1" "$2" || fail "${3:-expected /$2/ on the screen}"; }
expect_gone() { wait_gone "$1" "$2" || fail "${3:-expected \"$2\" to go from the screen}"; }
