#!/bin/sh
# tests/valgrind.sh BINARY - run qkvtutor under valgrind (memcheck): no
# invalid access, no use of uninitialised memory, no definite leak.
#   - --check of every lesson in lessons/ (one run), --dump and --json of each;
#   - --check of every bad lesson in tests/bad/ (the loader's error paths, in four runs);
#   - a scripted session of the interactive view in tmux: steps, arrows, an
#     action at the ':' prompt, s, u, edit mode, help, quit.
# Each run writes a log; a run passes when valgrind reports 0 errors, and
# "definitely lost" is 0 (--errors-for-leak-kinds=definite makes a definite
# leak an error). Still-reachable memory (ncurses keeps its terminal data
# until exit) is not an error and needs no suppression.
# Prints ok/FAIL lines and "valgrind: N passed, M failed"; exits 1 on failure.
# Without valgrind and no way to install it, prints "valgrind: skipped: ..."
# and exits 0 (tests/need.sh records the skip for `make test`).
set -u
BIN=${1:?usage: tests/valgrind.sh BINARY}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
# VALGRIND names the valgrind to run (default: valgrind). When it is missing
# it is installed (tests/need.sh); the suite fails if that fails, and is
# skipped (recorded for `make test`'s summary) only without apt-get.
VALGRIND=${VALGRIND:-valgrind}
sh "$(dirname "$0")/need.sh" valgrind valgrind "$VALGRIND" --version
case $? in 0) ;; 3) exit 0 ;; *) exit 1 ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/qkv-valgrind.XXXXXX")
SOCK=qkv-valgrind-$$
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP
# VALGRIND_ORIGINS=1 adds --track-origins=yes (slower; for finding the
# source of an uninitialised value once one is reported).
VG="$VALGRIND --tool=memcheck --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
--show-leak-kinds=definite --num-callers=20${VALGRIND_ORIGINS:+ --track-origins=yes}"
pass=0 fail=0
start=$(date +%s)

# verdict NAME LOG STATUS: judge one run by its log and exit status.
verdict() {
    name=$1 log=$2 rc=$3
    errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)
    lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -n 1 | tr -d ,)
    if [ "$rc" = 99 ] || [ "${errors:-x}" != 0 ] || [ "${lost:-0}" != 0 ]; then
        fail=$((fail + 1))
        echo "FAIL: $name: ${errors:-?} errors, ${lost:-0} bytes definitely lost (exit status $rc)"
        grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|  (at|by) |[0-9,]+ bytes in)' "$log" | head -n 30
    else
        pass=$((pass + 1))
        echo "ok: $name"
    fi
}

# Headless runs, two at a time. Each process costs valgrind about a second
# of start-up, so --check takes the lessons in batches (it checks several
# in turn, as if alone): all lessons in one run, the bad corpus in four.
# --dump and --json take one lesson each.
n=1
echo "1 --check $(echo lessons/*.yaml)" >"$T/jobs"
for f in lessons/*.yaml; do
    for mode in --dump --json; do
        n=$((n + 1))
        echo "$n $mode $f"
    done
done >>"$T/jobs"
ls tests/bad/*.yaml | split -n r/4 - "$T/bad."
for b in "$T"/bad.*; do
    n=$((n + 1))
    echo "$n --check $(echo $(cat "$b"))"
done >>"$T/jobs"
# Run one job: "N MODE FILE..."; its status goes to $T/N.rc.
export VG BIN T
xargs -P 2 -L 1 sh -c 'k=$0 mode=$1; shift 2; $VG --log-file="$T/$k.log" "$BIN" --lang en "$mode" "$@" >/dev/null 2>&1; echo $? >"$T/$k.rc"' <"$T/jobs"
while read -r k mode f rest; do
    rc=$(cat "$T/$k.rc")
    case $f in tests/bad/*) [ "$rc" = 2 ] && rc=0 ;; esac   # a refused lesson exits 2
    [ -n "$rest" ] && f="$f and $(echo "$rest" | wc -w) more"
    verdict "$mode $f" "$T/$k.log" "$rc"
done <"$T/jobs"

# The interactive view, driven through tmux.
view_session() {
    if ! command -v tmux >/dev/null 2>&1; then
        fail=$((fail + 1))
        echo "FAIL: tmux is not installed: the view was not run under valgrind"
        return
    fi
    log=$T/view.log
    tmux -L "$SOCK" -f /dev/null new-session -d -x 100 -y 30 -e LANG=C.UTF-8 -e TERM=xterm-256color \
        "$VG --log-file='$log' '$BIN' --lang en 1; echo view-exit=\$?; sleep 120"
    t=0
    until grep -q 'qkvtutor' "$T/screen" 2>/dev/null || [ $t -ge 60 ]; do
        sleep 0.5
        t=$((t + 1))
        tmux -L "$SOCK" capture-pane -p >"$T/screen" 2>/dev/null
    done
    if ! grep -q 'qkvtutor' "$T/screen" 2>/dev/null; then
        fail=$((fail + 1))
        echo "FAIL: view session: the view never showed up under valgrind"
        tmux -L "$SOCK" kill-server 2>/dev/null
        return
    fi
    send() { tmux -L "$SOCK" send-keys "$@"; sleep 0.4; }
    send n; send n; send n
    send Down; send Right; send Up; send Left
    send : ; send -l 'Q[1] = K[1] * 5'; send Enter
    send s; send u
    send e; send 2; send Enter; send Escape
    send '?'; send Escape
    send End; send Home; send PPage; send NPage
    send q
    sleep 1
    tmux -L "$SOCK" capture-pane -p | grep -q 'view-exit=' || send y
    t=0
    until tmux -L "$SOCK" capture-pane -p | grep -q 'view-exit=' || [ $t -ge 60 ]; do
        sleep 0.5
        t=$((t + 1))
    done
    rc=$(tmux -L "$SOCK" capture-pane -p | sed -n 's/^view-exit=//p')
    tmux -L "$SOCK" kill-server 2>/dev/null
    if [ "$rc" != 0 ] && [ "$rc" != 99 ]; then
        fail=$((fail + 1))
        echo "FAIL: view session: did not quit cleanly (exit status \"$rc\")"
        return
    fi
    verdict "view session (steps, arrows, :action, s, u, edit, help, quit)" "$log" "$rc"
    grep -E 'still reachable|possibly lost' "$log" | sed 's/^==[0-9]*==/     /'
}
view_session

echo "valgrind: $pass passed, $fail failed ($(($(date +%s) - start)) s)"
[ "$fail" -eq 0 ]
