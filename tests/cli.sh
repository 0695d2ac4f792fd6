#!/bin/sh
# tests/cli.sh BINARY - the command line: exit statuses and exact messages.
# Usage errors exit 2 with one line on stderr; --check exits 1 when an
# expectation fails; --list, --version and --help exit 0.
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export LANGUAGE=en LC_ALL=C.UTF-8
pass=0 failn=0

# check NAME WANT_STATUS WANT_STDERR ARGS...
check()
{
    name=$1 want=$2 msg=$3
    shift 3
    "$BIN" "$@" >"$T/out" 2>"$T/err" </dev/null
    got=$?
    if [ "$got" -eq "$want" ] && [ "$(cat "$T/err")" = "$msg" ]; then
        pass=$((pass + 1)); echo "ok: $name"
    else
        failn=$((failn + 1)); echo "FAIL: $name: status $got (want $want), stderr: $(cat "$T/err")"
    fi
}

check "unknown theme" 2 'qkvtutor: --theme takes dark, light, mono or projector, not "neon"; see qkvtutor --help' --theme neon 1
check "unknown language" 2 'qkvtutor: --lang takes zh or en, not "fr"; see qkvtutor --help' --lang fr 1
check "--at 0" 2 'qkvtutor: --at takes a step number from 1, not "0"; see qkvtutor --help' --at 0 --dump 1
check "--at past the end" 2 'qkvtutor: --at 99: the lesson has 14 steps' --at 99 --json 1
check "unknown option" 2 'qkvtutor: unknown option "--bogus"; see qkvtutor --help' --bogus
check "missing value" 2 'qkvtutor: --at needs a value; see qkvtutor --help' --dump --at
check "two lessons" 2 'qkvtutor: one lesson at a time; unexpected "2"; see qkvtutor --help' 1 2
check "no such lesson" 2 'qkvtutor: no lesson "nine": not a file, nor a built-in lesson (see qkvtutor --list)' --dump nine
check "no terminal" 2 'qkvtutor: the interactive view needs a terminal; use --dump to print the walkthrough, or --json for the numbers' 1
check "--version" 0 '' --version
check "--list" 0 '' --list
check "--check by name" 0 '' --check attend-to-itself
"$BIN" --list | grep -q '^ 5  05-parameters-vs-results.yaml' && { pass=$((pass + 1)); echo "ok: --list names lesson 5"; } ||
    { failn=$((failn + 1)); echo "FAIL: --list does not name lesson 5"; }

# A failing expectation: exit 1 and a line naming the place and the numbers.
sed 's/\[0.313, 0.337, 0.350\]/[0.313, 0.337, 0.351]/' lessons/01-three-tokens.yaml >"$T/wrong.yaml"
"$BIN" --check "$T/wrong.yaml" >"$T/out" 2>&1
st=$?
if [ $st -eq 1 ] && grep -q "A\[1\]\[3\] is 0.350, expected 0.351" "$T/out"; then
    pass=$((pass + 1)); echo "ok: --check reports a wrong expectation with exit 1"
else
    failn=$((failn + 1)); echo "FAIL: --check on a wrong expectation: status $st: $(cat "$T/out")"
fi

# A narration that cannot be shown whole at 80x24 fails --check (exit 1),
# naming the step and the language (issue 11): 900 characters of say:.
long=$(i=0; while [ $i -lt 40 ]; do printf 'Each row of X is a token. '; i=$((i + 1)); done | cut -c1-900)
cat >"$T/long.yaml" <<EOF
format: qkvtutor/1
title: a narration too long for 80x24
tokens: [a, b, c]
X: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]]
weights:
  random: {seed: 42, scale: 0.3, d_k: 3}
steps:
  - stage: input
    say: "A short narration fits."
  - stage: scores
    focus: "S[1][2]"
    say: {en: "$long", zh: "短的讲解放得下。"}
EOF
"$BIN" --check "$T/long.yaml" >"$T/out" 2>&1
st=$?
if [ ${#long} -eq 900 ] && [ $st -eq 1 ] && [ "$(cat "$T/out")" = "$T/long.yaml:10: step 2 (en): the narration cannot be shown whole at 80x24; shorten it
$T/long.yaml: 0 expectations hold, 0 failed" ]; then
    pass=$((pass + 1)); echo "ok: --check refuses a 900-character narration, naming step and language"
else
    failn=$((failn + 1)); echo "FAIL: --check on a 900-character narration: status $st: $(cat "$T/out")"
fi

# A wrong row names every wrong cell; --dump says which value holds.
sed 's/\[0.313, 0.337, 0.350\]/[0.311, 0.331, 0.351]/' lessons/01-three-tokens.yaml >"$T/row.yaml"
"$BIN" --check "$T/row.yaml" >"$T/out" 2>&1
st=$?
if [ $st -eq 1 ] && grep -qx ".*: step 10: A\[1\]\[1\] is 0.313, expected 0.311 (within 0.0005); A\[1\]\[2\] is 0.337, expected 0.331 (within 0.0005); A\[1\]\[3\] is 0.350, expected 0.351 (within 0.0005)" "$T/out" &&
   "$BIN" --dump 1 | grep -qx '  expect: A\[1\] = \[0.313, 0.337, 0.350\] holds' &&
   "$BIN" --dump 1 | grep -qx '  expect: S\[1\]\[2\] = 0.006 holds' &&
   "$BIN" --lang zh --dump 1 | grep -qx '  预期: A\[1\] = \[0.313, 0.337, 0.350\] 成立'; then
    pass=$((pass + 1)); echo "ok: a wrong row names every wrong cell; --dump names what holds"
else
    failn=$((failn + 1)); echo "FAIL: wrong row / expect holds: status $st: $(cat "$T/out")"
fi

# A row of 64 wrong cells: --check names all 64 (the message once stopped
# at 256 bytes), and --dump says the same under the step.
ones=$(seq 64 | sed 's/.*/1.0/' | paste -sd, -)
halves=$(seq 64 | sed 's/.*/0.5/' | paste -sd, -)
cat >"$T/wide.yaml" <<EOF
format: qkvtutor/1
title: a wide row
tokens: [a]
X: [[$ones]]
weights:
  random: {seed: 1, scale: 0.3, d_k: 2}
steps:
  - stage: input
    expect: {"X[1]": [$halves]}
EOF
"$BIN" --check "$T/wide.yaml" >"$T/out" 2>&1
st=$?
if [ $st -eq 1 ] && [ "$(grep -o 'X\[1\]\[[0-9]*\] is 1.000, expected 0.5 (within 0.05)' "$T/out" | wc -l)" -eq 64 ] &&
   grep -q 'X\[1\]\[64\] is 1.000, expected 0.5 (within 0.05)$' "$T/out" && ! grep -q 'more' "$T/out" &&
   [ "$("$BIN" --dump "$T/wide.yaml" | grep -o 'is 1.000, expected 0.5' | wc -l)" -eq 64 ]; then
    pass=$((pass + 1)); echo "ok: a row of 64 wrong cells is reported whole"
else
    failn=$((failn + 1)); echo "FAIL: a row of 64 wrong cells: status $st: $(head -c 300 "$T/out")"
fi

# --dump says who set an overridden row: the lesson's own overrides: and
# do: are not "set by hand" (issue 10).
cat >"$T/ov.yaml" <<'EOF'
format: qkvtutor/1
title: overrides
tokens: [a, b, c]
X: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]]
weights:
  random: {seed: 42, scale: 0.3, d_k: 3}
overrides: {"K[3]": [1, 2, 3]}
steps:
  - stage: qkv
    focus: "Q[2][1]"
    do: "Q[2] = K[1] * 5"
EOF
"$BIN" --dump "$T/ov.yaml" >"$T/out" 2>&1
if grep -q '^    b     0.363  −2.870  −2.587   (set by the lesson at step 1, no longer X·W)$' "$T/out" &&
   grep -q '^    c     1.000   2.000   3.000   (set by the lesson, no longer X·W)$' "$T/out" &&
   grep -q '^  q₂₁ = 0.363   (row 2 of Q was set by the lesson at step 1: Q\[2\] = K\[1\] \* 5; no longer X·Wq)$' "$T/out" &&
   ! grep -q 'by hand' "$T/out"; then
    pass=$((pass + 1)); echo "ok: --dump says the lesson set its overrides"
else
    failn=$((failn + 1)); echo "FAIL: --dump override notes:"; grep -n 'no longer' "$T/out"
fi

# The view on a pseudo-terminal (script(1)): an unknown TERM gets our one
# line and exit 2 (initscr printed ncurses' own and exited 1).
# pty NAME WANT_STATUS WANT_OUTPUT ENV-AND-ARGS
pty()
{
    name=$1 want=$2 msg=$3
    shift 3
    script -qec "env $*; echo \"rc=\$?\"" /dev/null </dev/null 2>&1 | tr -d '\r' >"$T/all"
    got=$(sed -n 's/^rc=//p' "$T/all")
    grep -v '^rc=' "$T/all" >"$T/out"
    if [ "$got" = "$want" ] && [ "$(cat "$T/out")" = "$msg" ]; then
        pass=$((pass + 1)); echo "ok: $name"
    else
        failn=$((failn + 1)); echo "FAIL: $name: status $got (want $want), output: $(cat "$T/out")"
    fi
}
if command -v script >/dev/null 2>&1; then
    pty "unknown terminal" 2 'qkvtutor: cannot use the terminal type "bogus" (TERM); try TERM=xterm-256color, or --dump to print the walkthrough' \
        TERM=bogus "$BIN" 1
    pty "no TERM" 2 'qkvtutor: TERM is not set; try TERM=xterm-256color, or --dump to print the walkthrough' \
        -u TERM "$BIN" 1
else
    failn=$((failn + 1)); echo "FAIL: script(1) is missing (package bsdutils): the terminal checks did not run"
fi

# Templates and asks (tests/live/): --dump fills {REF}s in and prints each ask with its answer.
if "$BIN" --dump tests/live/templates-asks.yaml >"$T/out" 2>&1 && cmp -s tests/live/templates-asks.dump "$T/out" &&
   "$BIN" --lang zh --dump tests/live/templates-asks.yaml 2>&1 | grep -qx '  3 个词，每个 4 个特征；猫 的第 4 个特征是 0.200。花括号写作 {。'; then
    pass=$((pass + 1)); echo "ok: --dump fills templates in and answers asks"
else
    failn=$((failn + 1)); echo "FAIL: --dump of tests/live/templates-asks.yaml differs:"; diff tests/live/templates-asks.dump "$T/out" | head -20
fi

echo "cli: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
