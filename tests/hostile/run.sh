#!/bin/sh
# tests/hostile/run.sh BINARY [SAVE_INTERRUPT LESSON [ROUNDS]]
# Hostile lessons must be refused fast or shown safely; a killed save never
# leaves a partial file.
#
# Every input is generated here, into a temporary directory:
#   - size and shape: a lesson of several megabytes, 400,000 tokens, a
#     billion-laughs alias bomb, 100,000 nested '[' and '{', /dev/zero, a
#     directory, a 64x64 lesson asking for 1,600,000 gradient steps: each
#     refused with a clear message, exit status 2, within a bound on the
#     CPU time it used (HOSTILE_CPU_MS, user + system, which a busy machine
#     does not inflate: no wall-clock limit but a generous hang guard,
#     HOSTILE_GUARD_S), and without a crash (no signal, no sanitizer
#     report);
#   - terminal safety: a lesson whose title, tokens and narration hold OSC
#     title sequences (ESC ] 0 ; pwned BEL), CSI, C1 (U+009B, NEL), DEL and
#     BEL: --dump (en, zh, ASCII), --check, --json and error messages carry
#     no raw control byte and --dump shows the visible stand-in (U+241B);
#     the interactive view in tmux neither changes the pane title nor rings
#     the bell, and shows the stand-ins;
#   - with SAVE_INTERRUPT (tests/hostile/save_interrupt.c, built by make):
#     saves of LESSON killed at random moments leave the old file or the new
#     one, never a part.
# Prints "ok: ..." or "FAIL: ..." per check and "hostile: N passed, M failed";
# exits 1 when anything failed.
set -u
BIN=${1:?usage: tests/hostile/run.sh BINARY [SAVE_INTERRUPT LESSON [ROUNDS]]}
SAVE_BIN=${2:-}
SAVE_LESSON=${3:-}
SAVE_ROUNDS=${4:-200}
CPU_MS=${HOSTILE_CPU_MS:-3000}      # CPU time one refusal may use (raised for sanitizer builds)
GUARD_S=${HOSTILE_GUARD_S:-120}     # the hang guard: wall-clock seconds before a run is stopped
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/qkv-hostile.XXXXXX")
SOCK=qkv-hostile-$$
pass=0 fail=0
cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null
    for s in canary sig1 sig2 sig15 sigint-prompt save; do tmux -L "$SOCK-$s" kill-server 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

ok()  { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
now_ms() { date +%s%3N; }
# The CPU time (user + system, ms) of every child waited for so far, from
# the shell's own "times" (its second line: the children's), written to a
# file by the shell itself: in a $(...) subshell it would count the
# subshell's children, none.
cpu_ms() {
    awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
        printf "%d\n", ((u[1] * 60 + u[2]) + (s[1] * 60 + s[2])) * 1000 }' "$1"
}
# bounded CMD...: CMD under the hang guard; sets rc and cpu (its CPU ms).
bounded() {
    times >"$T/times.0"
    timeout "$GUARD_S" "$@"
    rc=$?
    times >"$T/times.1"
    cpu=$(($(cpu_ms "$T/times.1") - $(cpu_ms "$T/times.0")))
}

# Waits for a condition, never a fixed sleep: wait_until SECONDS CMD...
# runs CMD every 50 ms until it succeeds; false once SECONDS have passed.
wait_until() {
    _end=$(( $(now_ms) + $1 * 1000 ))
    shift
    while ! "$@"; do
        [ "$(now_ms)" -lt "$_end" ] || return 1
        sleep 0.05
    done
}
# pane_has SOCKET TEXT: the pane shows TEXT (a fixed string).
pane_has() { tmux -L "$1" capture-pane -p 2>/dev/null | grep -qF -- "$2"; }
# pane_is SOCKET FORMAT VALUE: tmux's FORMAT (e.g. #{pane_title}) is VALUE.
pane_is() { [ "$(tmux -L "$1" display -p "$2" 2>/dev/null)" = "$3" ]; }
# pane_changed SOCKET BEFORE: the pane no longer shows BEFORE.
pane_changed() { [ "$(tmux -L "$1" capture-pane -p 2>/dev/null)" != "$2" ]; }
# view_up SOCKET: the view is drawn (alternate screen, its key bar).
view_up() { pane_is "$1" '#{alternate_on}' 1 && pane_has "$1" 'q quit'; }
# send_key SOCKET KEY: send KEY and wait (up to 10 s) for the screen to
# change; a key that changes nothing costs the deadline, so only keys that
# change the screen are sent this way.
send_key() {
    _before=$(tmux -L "$1" capture-pane -p)
    tmux -L "$1" send-keys "$2"
    wait_until "$GUARD_S" pane_changed "$1" "$_before"
}

# The bytes a terminal would act on: C0 except newline, DEL, and the C1
# controls as UTF-8 (0xC2 0x80..0x9F). Prints "offset byte" of the first.
raw_controls() {
    od -An -v -tu1 "$1" | awk '
        { for (i = 1; i <= NF; i++) { b = $i + 0
            if ((b < 32 && b != 10) || b == 127 || (prev == 194 && b >= 128 && b <= 159)) {
                printf "offset %d byte %d\n", n, b; exit }
            prev = b; n++ } }'
}

# refuse NAME FILE PATTERN [ARGS]: exit status 2 within CPU_MS of CPU, one
# message on stderr matching PATTERN, nothing on stdout, no raw control.
refuse() {
    name=$1 file=$2 pat=$3
    shift 3
    bounded "$BIN" "$@" --dump "$file" >"$T/out" 2>"$T/err"
    msg=$(head -c 300 "$T/err" | head -n 1)
    if [ $rc -eq 124 ]; then
        bad "$name: still running after $GUARD_S s (the hang guard)"
    elif [ $rc -ne 2 ]; then
        bad "$name: exit status $rc, expected 2 ($msg)"
    elif [ "$cpu" -ge "$CPU_MS" ]; then
        bad "$name: refused, but used $cpu ms of CPU (at most $CPU_MS ms)"
    elif ! grep -q -- "$pat" "$T/err"; then
        bad "$name: message does not say \"$pat\": $msg"
    elif [ -s "$T/out" ] || [ "$(wc -l <"$T/err")" -ne 1 ]; then
        bad "$name: expected one line on stderr and nothing on stdout"
    elif [ -n "$(raw_controls "$T/err")" ]; then
        bad "$name: raw control character in the message"
    else
        ok "$name: refused in $cpu ms of CPU: $msg"
    fi
}

header() {
    printf 'format: qkvtutor/1\n'
}
body() {
    printf 'X: [[1, 0], [0, 1]]\nweights:\n  random: {seed: 1, scale: 0.3, d_k: 2}\n'
}

# --- size and shape -----------------------------------------------------------

# Several megabytes: a valid lesson followed by a 5 MB comment.
{ header; printf 'tokens: [a, b]\n'; body
  printf '# '; head -c 5000000 /dev/zero | tr '\0' 'x'; printf '\n'; } >"$T/big.yaml"
refuse "5 MB lesson" "$T/big.yaml" "too big"

# 400,000 tokens, written compactly so the file stays under the size limit
# and the token count itself must be refused.
{ header; printf 'tokens: ['; awk 'BEGIN { for (i = 1; i < 400000; i++) printf "a,"; print "a]" }'; body; } \
    >"$T/tokens.yaml"
refuse "400,000 tokens ($(wc -c <"$T/tokens.yaml") bytes)" "$T/tokens.yaml" "400000 tokens"

# The same count as a block list (over the size limit).
{ header; printf 'tokens:\n'; awk 'BEGIN { for (i = 0; i < 400000; i++) print "  - tok" }'; body; } \
    >"$T/tokens-block.yaml"
refuse "400,000 tokens, block list" "$T/tokens-block.yaml" "too big"

# 400,000 numbers in X, the other way to make a huge tree.
{ header; printf 'tokens: [a]\nX: [['; awk 'BEGIN { for (i = 1; i < 400000; i++) printf "0,"; print "0]]" }'
  printf 'weights:\n  random: {seed: 1, d_k: 2}\n'; } >"$T/wide.yaml"
refuse "X row of 400,000 numbers" "$T/wide.yaml" "at most 64"

# Billion laughs: nine levels of ten aliases each.
{ header; printf 'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n'
  for i in 1 2 3 4 5 6 7 8 9; do
      p=$((i - 1))
      printf 'a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n' $i $i $p $p $p $p $p $p $p $p $p $p
  done
  printf 'tokens: *a9\n'; body; } >"$T/laughs.yaml"
refuse "billion laughs" "$T/laughs.yaml" "aliases"

# An anchor alone (no alias) is refused too.
{ header; printf 'tokens: &t [a, b]\n'; body; } >"$T/anchor.yaml"
refuse "anchor without alias" "$T/anchor.yaml" "anchors"

# Deep nesting: 100,000 "[" (flow), 100,000 "{", and 1,000 levels of
# block mappings; refused without deep recursion.
{ header; printf 'tokens: '; head -c 100000 /dev/zero | tr '\0' '['; printf '\n'; } >"$T/deep.yaml"
refuse "100,000 nested [" "$T/deep.yaml" "nested more than"
{ header; printf 'tokens: '; head -c 100000 /dev/zero | tr '\0' '{'; printf '\n'; } >"$T/deep2.yaml"
refuse "100,000 nested {" "$T/deep2.yaml" "nested more than"
awk 'BEGIN { print "format: qkvtutor/1"; s = ""; for (i = 0; i < 1000; i++) { printf "%sk%d:\n", s, i; s = s " " } }' \
    >"$T/deep3.yaml"
refuse "1,000 nested block mappings" "$T/deep3.yaml" "nested more than"
# And deep nesting in a small stack: a recursive parser would overflow.
( ulimit -s 256 2>/dev/null; "$BIN" --dump "$T/deep.yaml" >/dev/null 2>&1; exit $? )
rc=$?
if [ $rc -eq 2 ]; then ok "100,000 nested [ with a 256 KiB stack: refused"; else bad "100,000 nested [ with a 256 KiB stack: exit status $rc"; fi

# Training work: 64 tokens x 64 dimensions and ten steps of sixteen
# `step 10000` (25 KB; it hung --check for an hour): refused at load, at the
# action that passes 100,000 gradient steps in all, before any is taken.
{ sh "$(dirname "$0")/../bench/gen_lesson.sh" 64 64 | sed '/^steps:/,$d'
  echo 'steps:'; echo '  - stage: softmax'; echo '    do: "target A[1] = 3"'
  for s in 1 2 3 4 5 6 7 8 9 10; do
      printf '  - stage: softmax\n    do: ["step 10000"'
      for a in 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do printf ', "step 10000"'; done; echo ']'
  done; } >"$T/train64.yaml"
refuse "64x64 lesson asking for 1,600,000 gradient steps" "$T/train64.yaml" \
    "train64.yaml:76:[0-9]*: this action brings the lesson's gradient steps to 110000 in all, at most 100000"

# Narration length: 16,000 templates {A[1]} of 64 numbers each in one say:
# (119 KB; --dump took 45 s when every wrapped line measured the rest of the
# text): --dump is linear in the narration and done within the CPU bound.
{ sh "$(dirname "$0")/../bench/gen_lesson.sh" 64 64 | sed '/^steps:/,$d'
  echo 'steps:'; echo '  - stage: softmax'; printf '    say: "'
  awk 'BEGIN { for (i = 0; i < 16000; i++) printf "{A[1]}" }'; echo '"'; } >"$T/longsay.yaml"
bounded "$BIN" --dump "$T/longsay.yaml" >"$T/out" 2>"$T/err"
if [ $rc -ne 0 ]; then bad "--dump of a $(wc -c <"$T/longsay.yaml")-byte narration: exit status $rc"
elif [ "$cpu" -ge "$CPU_MS" ]; then bad "--dump of a $(wc -c <"$T/longsay.yaml")-byte narration used $cpu ms of CPU (at most $CPU_MS ms)"
else ok "--dump of a $(wc -c <"$T/longsay.yaml")-byte narration ($(wc -l <"$T/out") lines) in $cpu ms of CPU"; fi

# Not a lesson file at all.
refuse "/dev/zero" /dev/zero "cannot read\|too big\|control character"
mkdir "$T/dir.yaml"
refuse "a directory" "$T/dir.yaml" "cannot read"
printf '\377\376f\000o\000r\000' >"$T/utf16.yaml"
refuse "UTF-16 file" "$T/utf16.yaml" "UTF-8"
printf 'format: qkvtutor/1\ntitle: a\000b\n' >"$T/nul.yaml"
refuse "raw NUL byte" "$T/nul.yaml" "control character\|NUL"

# --- terminal safety ------------------------------------------------------------

# YAML double-quoted escapes put the raw characters into the lesson's text:
# \e ESC, \a BEL, \x7f DEL, \u009b CSI (C1), \N NEL (C1), \x9b, \b, \r, \v, \f.
cat >"$T/evil.yaml" <<'YAML'
format: qkvtutor/1
title:
  en: "EVIL\e]0;pwned\a title \e[2J\e[H DEL\x7f CSI\u009b2J NEL\N BS\b CR\r VT\v"
  zh: "标题\e]0;pwned\a \x9b31m"
about: "\e]52;c;cHduZWQ=\a clipboard \e[21t report \eP$q q\e\\ dcs"
tokens: ["\e]0;pwned\a", "t\x7f\b", "\u009b2J", "\e[5m猫"]
X:
  - [1, 0]
  - [0, 1]
  - [1, 1]
  - [0.5, 0.5]
weights:
  random: {seed: 1, scale: 0.3, d_k: 2}
steps:
  - stage: input
    focus: "X[1]"
    say: "narration \e]0;pwned\a bell\a\a\a del\x7f csi\u009b2J esc\e[31mred\e[0m nel\N end"
  - stage: qkv
    say: {en: "tab\there cr\rthere \e]2;pwned2\a \e]1;icon\a", zh: "中文 \e]0;pwned\a 旁白 \x9b?25l"}
  - stage: scores
    focus: "S[1][2]"
    say: "\e[?1049h alt screen \e[?1049l \ec reset"
  - stage: softmax
    say: "\e]8;;http://example.invalid\e\\link\e]8;;\e\\"
  - stage: output
    say: "done \e]0;pwned\a"
YAML

# check_clean NAME FILE: no raw control byte, and (optionally) a stand-in.
check_clean() {
    name=$1 file=$2 need=${3:-}
    found=$(raw_controls "$file")
    if [ -n "$found" ]; then
        bad "$name: raw control character in the output ($found)"
    elif [ -n "$need" ] && ! grep -qF -- "$need" "$file"; then
        bad "$name: no visible stand-in \"$need\" in the output"
    else
        ok "$name: no raw control characters${need:+, shows $need}"
    fi
}

for lang in en zh; do
    if LANG=C.UTF-8 "$BIN" --dump --lang $lang "$T/evil.yaml" >"$T/dump-$lang" 2>"$T/err"; then
        check_clean "--dump --lang $lang of the hostile lesson" "$T/dump-$lang" "␛"
    else
        bad "--dump --lang $lang of the hostile lesson: exit status $? ($(head -n 1 "$T/err"))"
    fi
done
# Without a UTF-8 locale the stand-ins are ASCII; still nothing raw.
if LC_ALL=POSIX LANG=POSIX "$BIN" --dump "$T/evil.yaml" >"$T/dump-ascii" 2>"$T/err"; then
    check_clean "--dump (POSIX locale) of the hostile lesson" "$T/dump-ascii"
else
    bad "--dump (POSIX locale) of the hostile lesson: exit status $?"
fi
"$BIN" --check "$T/evil.yaml" >"$T/check" 2>&1
check_clean "--check of the hostile lesson" "$T/check"
for at in 1 5; do
    "$BIN" --dump --at $at "$T/evil.yaml" >"$T/dump-at" 2>&1
    check_clean "--dump --at $at of the hostile lesson" "$T/dump-at"
done
# JSON escapes C0 itself; DEL and C1 must not go out raw either (a terminal
# acts on U+009B as CSI), e.g. written as \u007f and \u009b.
"$BIN" --json "$T/evil.yaml" >"$T/json" 2>&1
check_clean "--json of the hostile lesson" "$T/json"

# Error messages quote lesson text: that text must be sanitised too.
cat >"$T/evil-key.yaml" <<'YAML'
format: qkvtutor/1
"\e]0;pwned\a\x7f\u009b": 1
YAML
"$BIN" --dump "$T/evil-key.yaml" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 2 ]; then check_clean "error message quoting a hostile key" "$T/err" '\x1b'
else bad "error message quoting a hostile key: exit status $rc"; fi
cat >"$T/evil-stage.yaml" <<'YAML'
format: qkvtutor/1
tokens: [a]
X: [[1]]
weights: {random: {seed: 1, d_k: 1}}
steps:
  - stage: "\e]0;pwned\a"
    do: "Q[1] = \e]0;pwned\a"
YAML
"$BIN" --dump "$T/evil-stage.yaml" >/dev/null 2>"$T/err"
check_clean "error message quoting a hostile stage" "$T/err"

# The interactive view in tmux: the pane title must stay as it was, no bell,
# and the stand-ins are on the screen.
tm() { tmux -L "$SOCK" "$@"; }
tc() { tmux -L "$SOCK-canary" "$@"; }
view_test() {
    if ! command -v tmux >/dev/null 2>&1; then
        bad "tmux is not installed: the view was not tested"
        return
    fi
    # Canary: prove that this tmux would notice a raw OSC title (its own
    # server, so the view's server starts clean).
    tc -f /dev/null new-session -d -x 100 -y 30 -e LANG=C.UTF-8 \
        "sleep 0.3; printf '\\033]0;canary\\007 \\007'; sleep 30" 2>/dev/null || { bad "tmux cannot start"; return; }
    tc set -g bell-action any
    tc select-pane -T before
    wait_until "$GUARD_S" pane_is "$SOCK-canary" '#{pane_title}' canary
    canary=$(tc display -p '#{pane_title}')
    canary_bell=$(tc display -p '#{window_bell_flag}')
    tc kill-server
    if [ "$canary" != canary ]; then
        bad "tmux canary: a raw OSC 0 did not change the title (\"$canary\"), the view test would prove nothing"
        return
    fi
    # The view runs in a shell that reports its exit status and stays.
    tm -f /dev/null new-session -d -x 100 -y 30 -e LANG=C.UTF-8 -e TERM=xterm-256color \
        "sleep 0.3; '$BIN' --lang en '$T/evil.yaml' 2>'$T/view-err'; echo view-exit=\$?; sleep 60"
    tm set -g bell-action any
    tm select-pane -T qkv-safe-title
    wait_until "$GUARD_S" view_up "$SOCK"
    if ! tm has-session 2>/dev/null || tm capture-pane -p | grep -q 'view-exit='; then
        bad "view: exited at once: $(tm capture-pane -p 2>/dev/null | grep view-exit) $(cat "$T/view-err")"
        return
    fi
    screens=""
    for key in Space Space n n n p Home End '?' Escape e Escape L; do
        send_key "$SOCK" "$key" || bad "view: the screen did not change within 10 s after $key"
        screens="$screens$(tm capture-pane -p)"
    done
    title=$(tm display -p '#{pane_title}')
    bell=$(tm display -p '#{window_bell_flag}')
    if [ "$title" = qkv-safe-title ]; then ok "view: pane title unchanged after every step"
    else bad "view: the lesson changed the pane title to \"$title\""; fi
    if [ "$canary_bell" != 1 ]; then ok "view: bell not checked (this tmux does not flag a bell here)"
    elif [ "$bell" = 0 ]; then ok "view: no bell rang"; else bad "view: the bell rang"; fi
    if printf '%s' "$screens" | grep -q '␛'; then ok "view: shows ␛ for ESC"
    else bad "view: no ␛ on the screen"; fi
    if printf '%s' "$screens" | grep -q 'EVIL'; then ok "view: the hostile title is drawn (as text)"
    else bad "view: the hostile title never showed"; fi
    tm send-keys q
    if ! wait_until 3 pane_has "$SOCK" 'view-exit='; then
        tm send-keys y
        wait_until "$GUARD_S" pane_has "$SOCK" 'view-exit='
    fi
    status=$(tm capture-pane -p | sed -n 's/^view-exit=//p')
    if [ "$status" = 0 ]; then ok "view: quit on q with exit status 0"
    else bad "view: did not quit cleanly on q (exit status \"$status\") $(head -c 300 "$T/view-err")"; fi
    tm kill-server 2>/dev/null
}
view_test

# Signals: SIGINT (in the normal view, nothing open or unsaved: Ctrl-C quits
# like q), SIGTERM at the ':' prompt and SIGHUP in edit mode must restore the
# terminal (alternate screen left, cursor shown, keypad mode off) and end the
# program with that signal's status.
signal_test() {
    sig=$1 num=$2 keys=$3 where=$4
    sock=$SOCK-sig$num
    tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 -e LANG=C.UTF-8 -e TERM=xterm-256color \
        "sleep 0.3; '$BIN' --lang en 1 2>'$T/sig-err'; echo view-exit=\$?; sleep 60" || { bad "tmux cannot start"; return; }
    wait_until "$GUARD_S" view_up "$sock"
    for k in $keys; do send_key "$sock" "$k"; done
    alt_before=$(tmux -L "$sock" display -p '#{alternate_on}')
    pid=$(pgrep -P "$(tmux -L "$sock" display -p '#{pane_pid}')" -x qkvtutor)
    if [ -z "$pid" ]; then
        bad "SIG$sig $where: the view is not running"
        tmux -L "$sock" kill-server
        return
    fi
    kill -s "$sig" "$pid"
    wait_until "$GUARD_S" pane_has "$sock" 'view-exit='
    state=$(tmux -L "$sock" display -p '#{alternate_on} #{cursor_flag} #{keypad_flag}')
    status=$(tmux -L "$sock" capture-pane -p | sed -n 's/^view-exit=//p')
    tmux -L "$sock" kill-server
    want=$((128 + num))
    if [ "$alt_before" != 1 ]; then
        bad "SIG$sig $where: the view never entered the alternate screen, nothing to check"
    elif [ "$state" != "0 1 0" ]; then
        bad "SIG$sig $where: terminal not restored (alternate screen, cursor shown, keypad: $state; want 0 1 0)"
    elif [ "$status" != "$want" ]; then
        bad "SIG$sig $where: exit status \"$status\", expected $want"
    else
        ok "SIG$sig $where: terminal restored, exit status $status"
    fi
}

# SIGINT (Ctrl-C) at the ':' prompt cancels the line and the view goes on
# (it is the key Ctrl-C, like q: it quits only with nothing open and nothing
# unsaved); a second SIGINT then quits with SIGINT's status, terminal restored.
sigint_prompt_test() {
    sock=$SOCK-sigint-prompt
    tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 -e LANG=C.UTF-8 -e TERM=xterm-256color \
        "sleep 0.3; '$BIN' --lang en 1 2>'$T/sig-err'; echo view-exit=\$?; sleep 60" || { bad "tmux cannot start"; return; }
    wait_until "$GUARD_S" view_up "$sock"
    send_key "$sock" n   # past the title card, to step 1, where ':' opens the prompt
    tmux -L "$sock" send-keys ":" "Q[1"
    wait_until "$GUARD_S" pane_has "$sock" ':Q[1'
    pid=$(pgrep -P "$(tmux -L "$sock" display -p '#{pane_pid}')" -x qkvtutor)
    if [ -z "$pid" ]; then
        bad "SIGINT at the : prompt: the view is not running"
        tmux -L "$sock" kill-server
        return
    fi
    kill -s INT "$pid"
    wait_until "$GUARD_S" sh -c "! tmux -L '$sock' capture-pane -p | tail -n 1 | grep -qF ':Q[1'"
    last=$(tmux -L "$sock" capture-pane -p | tail -n 1)
    if ! kill -0 "$pid" 2>/dev/null; then
        bad "SIGINT at the : prompt: the view quit instead of cancelling the line"
    elif printf '%s' "$last" | grep -q ':Q\[1'; then
        bad "SIGINT at the : prompt: the line is still open: $last"
    else
        kill -s INT "$pid"
        wait_until "$GUARD_S" pane_has "$sock" 'view-exit='
        state=$(tmux -L "$sock" display -p '#{alternate_on} #{cursor_flag} #{keypad_flag}')
        status=$(tmux -L "$sock" capture-pane -p | sed -n 's/^view-exit=//p')
        if [ "$state" != "0 1 0" ]; then
            bad "SIGINT after the prompt: terminal not restored ($state; want 0 1 0)"
        elif [ "$status" != 130 ]; then
            bad "SIGINT after the prompt: exit status \"$status\", expected 130"
        else
            ok "SIGINT at the : prompt cancels the line; a second one quits, terminal restored, exit status 130"
        fi
    fi
    tmux -L "$sock" kill-server
}
if command -v tmux >/dev/null 2>&1 && command -v pgrep >/dev/null 2>&1; then
    sigint_prompt_test
    signal_test INT 2 "n n" "in the view"
    signal_test TERM 15 "n : Q" "at the : prompt"
    signal_test HUP 1 "n e 2" "in edit mode, typing a number"
fi

# A save is never larger than the loader accepts: 130 steps of 8,000
# characters load (just under LESSON_MAX_BYTES), but with the weights written
# out and the edit log the saved file would pass it: `w` refuses with why and
# what to do, writes nothing, and the view stays with the edit kept.
save_limit_test() {
    sock=$SOCK-save
    {
        printf 'format: qkvtutor/1\ntitle: big\ntokens: [a, b, c]\n'
        printf 'X: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.2]]\n'
        printf 'weights:\n  random: {seed: 42, scale: 0.3, d_k: 3}\nsteps:\n'
        words=$(awk 'BEGIN { for (i = 0; i < 800; i++) printf "attention "; }')
        i=0; while [ $i -lt 130 ]; do printf '  - stage: input\n    say: "%s"\n' "$words"; i=$((i + 1)); done
    } >"$T/big.yaml"
    mkdir -p "$T/save" && cp "$T/big.yaml" "$T/save/big.yaml"
    tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -e LANG=C.UTF-8 -e TERM=xterm-256color \
        "cd '$T/save' && '$BIN' --lang en big.yaml 2>'$T/save-err'; echo view-exit=\$?; sleep 60" || { bad "tmux cannot start"; return; }
    wait_until "$GUARD_S" view_up "$sock"
    tmux -L "$sock" send-keys ":" "X[1][1] = 2" Enter
    wait_until "$GUARD_S" pane_has "$sock" 'set by hand'
    tmux -L "$sock" send-keys w
    wait_until "$GUARD_S" pane_has "$sock" 'big-edited.yaml'
    tmux -L "$sock" send-keys Enter
    if wait_until "$GUARD_S" pane_has "$sock" 'cannot save big-edited.yaml: with its edits the lesson is' &&
       pane_has "$sock" 'nothing'; then
        ok "save: a lesson above LESSON_MAX_BYTES is refused with the reason, in the view"
    else
        bad "save: no refusal on the screen: $(tmux -L "$sock" capture-pane -p | tail -n 5)"
    fi
    if [ -z "$(ls "$T/save" | grep -v '^big.yaml$')" ]; then ok "save: nothing was written (no file, no temporary)"
    else bad "save: files were left: $(ls "$T/save")"; fi
    if pane_has "$sock" 'view-exit='; then bad "save: the view quit"
    else ok "save: the view stays open after the refusal"; fi
    tmux -L "$sock" kill-server
}
if command -v tmux >/dev/null 2>&1; then
    save_limit_test
fi

# --- interrupted saves ------------------------------------------------------------
if [ -n "$SAVE_BIN" ]; then
    TMPDIR=$T "$SAVE_BIN" "$SAVE_LESSON" "$SAVE_ROUNDS" >"$T/save.log" 2>&1
    rc=$?
    grep -v '^ok:' "$T/save.log" | head -n 20
    line=$(tail -n 1 "$T/save.log")
    if [ $rc -eq 0 ]; then ok "${line#ok: }"; else bad "${line#FAIL: }"; fi
fi

echo "hostile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
