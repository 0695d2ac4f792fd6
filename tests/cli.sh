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
check "two lessons" 2 'qkvtutor: one lesson at a time (only --check takes several); unexpected "2"; see qkvtutor --help' 1 2
check "--check of two lessons" 0 '' --check 1 2
[ "$(cut -d: -f1 "$T/out" | tr '\n' ' ')" = "lessons/01-three-tokens.yaml lessons/02-attend-to-itself.yaml " ] &&
    { pass=$((pass + 1)); echo "ok: --check of two lessons: a line each, in order"; } ||
    { failn=$((failn + 1)); echo "FAIL: --check of two lessons printed: $(cat "$T/out")"; }
check "--check of a lesson and a bad one" 2 'tests/bad/01-ragged-rows.yaml:7:5: X row 3 has 3 numbers, row 1 has 4; every row needs d_model = 4' --check 1 tests/bad/01-ragged-rows.yaml 2
[ "$(grep -c 'expectations hold' "$T/out")" = 2 ] &&
    { pass=$((pass + 1)); echo "ok: --check goes on after a bad lesson"; } ||
    { failn=$((failn + 1)); echo "FAIL: --check stopped at the bad lesson: $(cat "$T/out")"; }
check "no such lesson" 2 'qkvtutor: no lesson "nine": not a file, nor a built-in lesson (see qkvtutor --list)' --dump nine
check "no terminal" 2 'qkvtutor: the interactive view needs a terminal; use --dump to print the walkthrough, or --json for the numbers' 1
check "--answers without --worksheet" 2 'qkvtutor: --answers goes with --worksheet; see qkvtutor --help' --answers --dump 1
check "--variant without an output" 2 'qkvtutor: --variant goes with --worksheet, --dump or --json; see qkvtutor --help' --variant 7 1
check "--variant with --check" 2 'qkvtutor: --variant goes with --worksheet, --dump or --json; see qkvtutor --help' --check --variant 7 1
check "--variant not a seed" 2 'qkvtutor: --variant takes a seed from 0 to 4294967295, not "-1"; see qkvtutor --help' --json --variant -1 1
check "--variant past 2^32" 2 'qkvtutor: --variant takes a seed from 0 to 4294967295, not "4294967296"; see qkvtutor --help' --json --variant 4294967296 1
sed '/^variants:/d' lessons/03-scaled-and-stable.yaml >"$T/fixed.yaml"
check "--variant, written-out weights without variants:" 2 "qkvtutor: --variant 7: $T/fixed.yaml writes its weights out and declares no variants:, so every student would get the same numbers; add e.g. variants: {add: [Wq, Wk], scale: 0.3} (lessons/README.md)" --worksheet --variant 7 "$T/fixed.yaml"
check "--variant, written-out weights with variants:" 0 '' --worksheet --variant 7 lessons/03-scaled-and-stable.yaml
check "--variant, written-out weights with variants: (lesson 8)" 0 '' --worksheet --answers --variant 30 8

# variants: (lessons/README.md "Variants"): each wrong declaration is one line, exit 2.
vbad()
{
    sed "s/^variants:.*/$2/" lessons/03-scaled-and-stable.yaml >"$T/v.yaml"
    check "variants: $1" 2 "$T/v.yaml:$(grep -n '^variants:' lessons/03-scaled-and-stable.yaml | cut -d: -f1):$3" \
        --check "$T/v.yaml"
}
vbad "not a weight" 'variants: {add: [Wx], scale: 0.3}' '18: add names "Wx", which is not a weight matrix; write Wq, Wk, Wv or Wo'
vbad "twice" 'variants: {add: [Wq, Wq], scale: 0.3}' '22: add names Wq twice; name each matrix once'
vbad "no scale" 'variants: {add: [Wq]}' '1: variants is missing scale, write e.g. variants: {add: [Wq, Wk], scale: 0.3}'
vbad "no Wo" 'variants: {add: Wo, scale: 1}' '17: add names Wo, but this lesson has no Wo (it has one head and no d_out)'
vbad "scale 0" 'variants: {add: [Wq], scale: 0}' '30: scale must be a number above 0 and at most 100 (randn'"'"'s factor), found "0"'
vbad "a list" 'variants: [Wq]' '11: variants must be a mapping like variants: {add: [Wq, Wk], scale: 0.3}, found a list'
sed 's/^tokens:/variants: {add: [Wq], scale: 1}\ntokens:/' lessons/01-three-tokens.yaml >"$T/r.yaml"
check "variants: with random weights" 2 "$T/r.yaml:14:1: a lesson with random: weights varies with --variant K (its seed); variants may only set the scale of that draw, like variants: {scale: 0.1}" --check "$T/r.yaml"

# --class: a class set into --out DIR (tests/worksheet_print.sh prints one)
check "--class without --out" 2 'qkvtutor: --class needs --out DIR, the folder to write into; see qkvtutor --help' --class 3 1
check "--out without --class" 2 'qkvtutor: --out goes with --class, --slides or --train; see qkvtutor --help' --out "$T/x" 1
check "--class 0" 2 'qkvtutor: --class takes a number of students from 1 to 99, not "0"; see qkvtutor --help' --class 0 --out "$T/x" 1
check "--format doc" 2 'qkvtutor: --format takes md, html or pdf, not "doc"; see qkvtutor --help' --class 2 --out "$T/x" --format doc 1
check "--paper with md" 2 'qkvtutor: --paper goes with --class and --format html or pdf; see qkvtutor --help' --class 2 --out "$T/x" --paper letter 1
check "--class with --variant" 2 'qkvtutor: --variant goes with --worksheet, --dump or --json; --class gives student k variant k; see qkvtutor --help' --class 2 --out "$T/x" --variant 3 1
check "--class, a lesson that cannot vary" 2 "qkvtutor: --class 2: $T/fixed.yaml writes its weights out and declares no variants:, so every student would get the same numbers; add e.g. variants: {add: [Wq, Wk], scale: 0.3} (lessons/README.md)" --class 2 --out "$T/x" "$T/fixed.yaml"
check "--class 3 --out DIR 8" 0 '' --class 3 --out "$T/class8" 8
if [ "$(ls "$T/class8" | tr '\n' ' ')" = "key.md sheet-01.md sheet-02.md sheet-03.md " ] &&
   grep -q '^Worksheet · student 02 · variant 2 · Name:' "$T/class8/sheet-02.md" &&
   ! cmp -s "$T/class8/sheet-01.md" "$T/class8/sheet-02.md"; then
    pass=$((pass + 1)); echo "ok: --class 3 writes sheet-01..03.md (each its student's, all different) and key.md"
else failn=$((failn + 1)); echo "FAIL: --class 3: $(ls "$T/class8")"; fi
check "--worksheet with --at" 2 'qkvtutor: --at goes with --dump, --json or the view; a worksheet covers every step; see qkvtutor --help' --worksheet --at 2 1
check "--variant in Chinese" 2 'qkvtutor: --variant 要和 --worksheet、--dump 或 --json 一起用；参见 qkvtutor --help' --lang zh --variant 7 1
check "--worksheet --answers --variant" 0 '' --worksheet --answers --variant 4294967295 1
# Two modes at once (newcomer review 24: the last one won, and --check --json
# printed JSON and exited 0 on a failing expectation): a usage error naming both.
for pair in "--check --json" "--json --check" "--check --dump" "--json --dump" "--worksheet --json" "--svg --dump" "--list --worksheet"; do
    set -- $pair
    check "$1 with $2" 2 "qkvtutor: $1 and $2 do not go together: each one chooses what qkvtutor does; give one of them; see qkvtutor --help" $pair 1
done
check "-dj (short flags)" 2 'qkvtutor: --dump and --json do not go together: each one chooses what qkvtutor does; give one of them; see qkvtutor --help' -dj 1
check "--dump twice" 0 '' --dump -d 1
check "two modes in Chinese" 2 'qkvtutor：--check 和 --json 不能一起用：每个都决定 qkvtutor 做什么；只给其中一个；参见 qkvtutor --help' --lang zh --check --json 1
check "--version" 0 '' --version
[ "$("$BIN" -V)" = "qkvtutor 0.2.0" ] && { pass=$((pass + 1)); echo "ok: -V says 0.2.0"; } ||
    { failn=$((failn + 1)); echo "FAIL: -V says \"$("$BIN" -V)\", not \"qkvtutor 0.2.0\""; }
# --svg and --size
check "--svg too small" 2 'qkvtutor: --size 10x5 is below the smallest screen, 60x18; see qkvtutor --help' --svg --size 10x5 1
check "--svg one row short" 2 'qkvtutor: --size 60x17 is below the smallest screen, 60x18; see qkvtutor --help' --svg --size 60x17 1
check "--svg too large" 2 'qkvtutor: --size 1001x30 is above the largest picture, 1000x1000; see qkvtutor --help' --svg --size 1001x30 1
check "--svg --at past the end" 2 'qkvtutor: --at 15: the lesson has 14 steps' --svg --at 15 1
check "--dump --at 0" 2 'qkvtutor: --at takes a step number from 1, not "0"; see qkvtutor --help' --dump --at 0 1
# --svg --at 0 is the title card before step 1: the title and about: (M2)
if "$BIN" --svg --at 0 1 2>"$T/err" | grep -q "its own Q (query), K (key)" && [ ! -s "$T/err" ]; then
    pass=$((pass + 1)); echo "ok: --svg --at 0 shows lesson 1's about: text"
else
    failn=$((failn + 1)); echo "FAIL: --svg --at 0 does not show lesson 1's about: text"
fi
if "$BIN" --svg --at 1 1 | grep -q "four features per token"; then
    failn=$((failn + 1)); echo "FAIL: --svg --at 1 shows the title card"
else
    pass=$((pass + 1)); echo "ok: --svg --at 1 is step 1, without the title card"
fi
check "--svg far too large" 2 'qkvtutor: --size 99999999999999999999x30 is above the largest picture, 1000x1000; see qkvtutor --help' --svg --size 99999999999999999999x30 1
check "--size leading zeros" 2 'qkvtutor: --size 080x017 is below the smallest screen, 60x18; see qkvtutor --help' --svg --size 080x017 1
check "--size malformed" 2 'qkvtutor: --size takes COLSxROWS, such as 100x30, not "100*30"; see qkvtutor --help' --svg --size '100*30' 1
check "--size half" 2 'qkvtutor: --size takes COLSxROWS, such as 100x30, not "100x"; see qkvtutor --help' --svg --size 100x 1
check "--size signed" 2 'qkvtutor: --size takes COLSxROWS, such as 100x30, not "-80x24"; see qkvtutor --help' --svg --size=-80x24 1
check "--size without --svg" 2 'qkvtutor: --size goes with --svg or --slides; see qkvtutor --help' --size 80x24 --dump 1
check "--svg smallest" 0 '' --svg --size 60x18 1
if [ -w /dev/full ]; then
    "$BIN" --svg 1 >/dev/full 2>"$T/err"; st=$?
    if [ $st -eq 2 ] && [ "$(cat "$T/err")" = "qkvtutor: cannot write the SVG: No space left on device" ]; then
        pass=$((pass + 1)); echo "ok: --svg to a full disk"
    else
        failn=$((failn + 1)); echo "FAIL: --svg to a full disk: status $st, stderr: $(cat "$T/err")"
    fi
fi
check "--svg --at the last step" 0 '' --svg --at 14 1
check "--list" 0 '' --list
check "--check by name" 0 '' --check attend-to-itself
"$BIN" --list | grep -q '^ 5  05-parameters-vs-results.yaml' && { pass=$((pass + 1)); echo "ok: --list names lesson 5"; } ||
    { failn=$((failn + 1)); echo "FAIL: --list does not name lesson 5"; }
# Every name --list prints opens that lesson, from outside the repository
# (newcomer review 23: "02-attend-to-itself.yaml" was refused).
case $BIN in /*) ABS=$BIN ;; *) ABS=$(pwd)/$BIN ;; esac
"$BIN" --list | while read -r num name _; do
    title=$(cd "$T" && "$ABS" --json "$name" 2>&1 | sed -n 's/^{"format":"qkvtutor\/1","title":"\([^"]*\)".*/\1/p')
    want=$(cd "$T" && "$ABS" --json "$num" | sed -n 's/^{"format":"qkvtutor\/1","title":"\([^"]*\)".*/\1/p')
    if [ -n "$title" ] && [ "$title" = "$want" ]; then echo "ok: the --list name $name opens lesson $num"
    else echo "FAIL: the --list name $name does not open lesson $num (got \"$title\")"; fi
done >"$T/names"
cat "$T/names"
pass=$((pass + $(grep -c '^ok' "$T/names"))); failn=$((failn + $(grep -c '^FAIL' "$T/names")))
check "a --list name, mistyped" 2 'qkvtutor: no lesson "02-attend.yaml": not a file, nor a built-in lesson; did you mean 02-attend-to-itself.yaml? (see qkvtutor --list)' --json 02-attend.yaml
check "a lesson name one letter off" 2 'qkvtutor: no lesson "atend-to-itself": not a file, nor a built-in lesson; did you mean 02-attend-to-itself.yaml? (see qkvtutor --list)' --dump atend-to-itself
check "a word two lessons hold" 2 'qkvtutor: no lesson "heads": not a file, nor a built-in lesson; did you mean 08-two-heads.yaml or 11-windows-and-shared-heads.yaml? (see qkvtutor --list)' --dump heads

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
# The line names the narration's place (line, column) and the room that step
# leaves it; the summary counts it apart from the expectations.
if [ ${#long} -eq 900 ] && [ $st -eq 1 ] && [ "$(cat "$T/out")" = "$T/long.yaml:12:15: step 2 (en): the narration needs 12 lines, at 80x24 this step has room for 9 lines of 78 columns; shorten it
$T/long.yaml: 0 expectations hold, 0 failed; 1 narration too long for 80x24" ]; then
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
   "$BIN" --lang zh --dump 1 | grep -qx '  预期：A\[1\] = \[0.313, 0.337, 0.350\] 成立'; then
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
# The question's own words above its ask line (step 7 of lesson 1), in both
# languages; asked cells in them read "?" as on screen.
if "$BIN" --dump 1 | grep -A1 -x '  question: What is score₁₂ = q₁·k₂, 我.s query dotted with love.s key?' |
       grep -qx '  ask: S\[1\]\[2\] = ?   answer: 0.006' &&
   "$BIN" --lang zh --dump 1 | grep -A1 -x '  问题：softmax 之后，“我”（第 1 行）的注意力权重是多少？' |
       grep -qx '  提问：A\[1\] = ?   答案：0.313, 0.337, 0.350'; then
    pass=$((pass + 1)); echo "ok: --dump prints each ask's question above it"
else
    failn=$((failn + 1)); echo "FAIL: --dump 1 has no question: line above an ask line"
fi
# Masks, temperature, positions (lessons 06 and 07): the arithmetic says what
# the mask leaves out and shows P's formula; --json writes null where S is masked.
# (cJSON wrote -0.0659236561677307 here, a double 1 ulp away; the shortest printer writes the one held)
has() { # has NAME PATTERN ARGS...: the output of qkvtutor ARGS holds the fixed string PATTERN
    name=$1 pat=$2; shift 2
    if "$BIN" "$@" 2>&1 | grep -qF -- "$pat"; then pass=$((pass + 1)); echo "ok: $name"
    else failn=$((failn + 1)); echo "FAIL: $name: no \"$pat\" in qkvtutor $*"; fi
}
has "dump: masked keys left out" "s₁ = [−0.066]   (keys 2 to 3 come after query 1: masked, left out, weight 0)" --lang en --dump --at 3 6
has "dump: masked score" "score₁₂ = −∞   (masked: key 2 comes after query 1, so it is hidden; q₁·k₂ is left out)" --lang en --dump --at 2 6
has "dump: ÷ T" "s₁ = [3.013, 0.567, 0.184];  z = s ÷ 0.5 ≈ [6.025, 1.134, 0.368]" --lang en --dump --at 8 6
has "dump: masked output terms" "o₁ = 1.000·v₁   (keys 2 to 3 come after query 1: masked, left out, weight 0)" --lang en --dump --at 6 6
has "dump: P's formula" "p₂₁ = sin(1 / 10000^(0/4)) = sin(1.000) = 0.841   (p = token number − 1 = 1)" --lang en --dump --at 4 7
has "dump: h = x + p" "h₂₁ = x₂₁ + p₂₁ = 0.000 + 0.841 = 0.841" --lang en --dump --at 4 7
has "dump: zh mask" "（第 2 到第 3 个键在第 1 个查询之后：被掩码遮住，不参与计算，注意力权重为 0）" --lang zh --dump --at 3 6
has "json: masked S is null" '"S":[[-0.06592365616773072,null,null],[0.10983454218805208,-0.06235198058268304,null]' --json --at 2 6
has "json: options" '"options":{"scale":"none","softmax":"naive","mask":"causal","temperature":1,"positions":"none","kv_heads":1,"rope_base":10000,"offset":0,"block":2}' --json --at 2 6
has "json: window and shared K/V heads" '"mask":"window 2","temperature":1,"positions":"none","kv_heads":2' --json --at 2 lessons/11-windows-and-shared-heads.yaml
has "json: RoPE with offset, Q0" '"positions":"rope","kv_heads":1,"rope_base":10000,"offset":3' --json --at 5 lessons/12-rotary-positions.yaml
has "json: online softmax" '"softmax":"online"' --json --at 2 lessons/13-online-softmax.yaml
has "dump: an appended token's work" 'it costs 1 row of Q, K, V and 3 scores, not 3 rows and 9; rows 1 to 2 unchanged: K and V cached' --lang en --dump --at 3 10
has "json: swapped tokens" '"tokens":["猫","love","我"]' --json --at 2 7
has "json: P" '"P":[[0,1,0,1],[0.8414709848078965,' --json --at 4 7

# Heads (lesson 08): --dump shows each head and splits y by head; --json has
# heads, d_out, Wo, Y and per_head, and no top-level S with two heads.
has "dump: heads in the header" "lessons/08-two-heads.yaml · 4 tokens, d_model 4, d_k 2, d_v 2, heads 2, d_out 4" --lang en --dump 8
has "dump: head 2's S" "  S2  4×4  result for this input" --lang en --dump --at 4 8
has "dump: head 2's softmax" "head 2: s₁ = [2.828, 0.000, 2.828, 0.000]" --lang en --dump --at 7 8
has "dump: y by head" "y₂₁ = o₂·Wo[:,1] = [(0.895)(1.000) + (0.105)(0.000)] + [(0.944)(0.500) + (0.056)(0.000)] = 1.367" --lang en --dump --at 10 8
has "dump: heads' shares" "y₂₁ = head 1 0.895 + head 2 0.472 = 1.367" --lang en --dump --at 10 8
has "dump: zh shares" "y₂₁ = 头 1 贡献 0.895 + 头 2 贡献 0.472 = 1.367" --lang zh --dump --at 10 8
has "dump: the trace follows head 2" "effect: q₂ changed ⇒ s₂₁ 0.000 → 2.828 ⇒ α₂₁ 0.028 → 0.472" --lang en --dump --at 8 8
has "json: heads" '"heads":2,"d_out":4,' --json 8
has "json: per_head A" '"per_head":[{"Q":[[0,-2],[2,0],[0,2],[-2,0]]' --json 8
has "json: Y" '"Y":[[0.5774819373794804,' --json 8
if "$BIN" --json 8 | sed 's/"per_head".*//' | grep -q '"S":'; then
    failn=$((failn + 1)); echo "FAIL: json: a two-head lesson has a top-level S"
else
    pass=$((pass + 1)); echo "ok: json: no top-level S with two heads"
fi

# The Chinese tab message is Chinese throughout, libyaml's problem included (L5).
check "zh tab message" 2 "tests/bad/39-tab-indent.yaml:5:1: 缩进里有制表符：YAML 只能用空格缩进，不能用制表符（YAML 语法错误：遇到一个不能作为开头的字符）" --lang zh --check tests/bad/39-tab-indent.yaml

# A whole number expected of a result means it to the lesson's digits (M9):
# 1 is 1.000 +- 0.0005, so the 0.525 of A[2][1] fails; [1, 0, 0] holds for row 1.
cat >"$T/int.yaml" <<EOF
format: qkvtutor/1
tokens: [a, b, c]
X: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.2]]
weights:
  random: {seed: 42, scale: 0.3, d_k: 3}
options: {mask: causal}
steps:
  - stage: softmax
    expect:
      "A[1]": [1, 0, 0]
      "A[2][1]": 1
EOF
"$BIN" --check "$T/int.yaml" >"$T/out" 2>&1
st=$?
if [ $st -eq 1 ] && [ "$(cat "$T/out")" = "$T/int.yaml:11:7: step 1: A[2][1] is 0.525, expected 1.000 (within 0.0005)
$T/int.yaml: 1 expectations hold, 1 failed" ]; then
    pass=$((pass + 1)); echo "ok: --check: a whole-number expectation of A means it to the lesson's digits"
else
    failn=$((failn + 1)); echo "FAIL: --check whole-number expectation: status $st: $(cat "$T/out")"
fi

# A lesson saved with a UTF-8 byte-order mark (some Windows editors) loads (M10).
printf '\357\273\277' >"$T/bom.yaml"
cat lessons/01-three-tokens.yaml >>"$T/bom.yaml"
check "--check with a byte-order mark" 0 '' --check "$T/bom.yaml"

# Limits (DESIGN.md "Speed and limits"): file names and arguments never reach
# the terminal raw: escape and control bytes show as \x1b; numbers are
# quoted as written, never as saturated; one whole-number rule (digits only).
case $BIN in /*) ABIN=$BIN ;; *) ABIN=$PWD/$BIN ;; esac
evil=$(printf 'ok\033]0;pwned\007.yaml')
cp lessons/01-three-tokens.yaml "$T/$evil"
(cd "$T" && "$ABIN" --check "$evil" >"$T/out" 2>&1)
if [ "$(cat "$T/out")" = 'ok\x1b]0;pwned\x07.yaml: 29 expectations hold, 0 failed' ] && ! grep -q "$(printf '\033')" "$T/out"; then
    pass=$((pass + 1)); echo "ok: --check: an escape in the file name shows as \\x1b"
else
    failn=$((failn + 1)); echo "FAIL: --check escaped file name: $(od -c "$T/out" | head -3)"
fi
(cd "$T" && "$ABIN" --dump "$evil" | sed -n 2p >"$T/out")
case $(cat "$T/out") in
    'ok\x1b]0;pwned\x07.yaml · 3 tokens,'*) pass=$((pass + 1)); echo "ok: --dump: the file name in the header is escaped" ;;
    *) failn=$((failn + 1)); echo "FAIL: --dump escaped header: $(od -c "$T/out" | head -3)" ;;
esac
printf 'format: qkvtutor/1\ntokens: [a]\n' >"$T/$evil.bad"
(cd "$T" && "$ABIN" --check "$evil.bad" >/dev/null 2>"$T/out")
case $(head -n 1 "$T/out") in
    'ok\x1b]0;pwned\x07.yaml.bad:'*) pass=$((pass + 1)); echo "ok: a lesson error names the file escaped" ;;
    *) failn=$((failn + 1)); echo "FAIL: lesson error escaped file name: $(od -c "$T/out" | head -3)" ;;
esac
check "--size with an escape" 2 'qkvtutor: --size takes COLSxROWS, such as 100x30, not "\x1b[2J"; see qkvtutor --help' --svg --size "$(printf '\033[2J')" 1
check "unknown option with an escape" 2 'qkvtutor: unknown option "--\x1b]52;c;aGk=\x07"; see qkvtutor --help' "$(printf -- '--\033]52;c;aGk=\007')" 1
check "no such lesson, bidi in the name" 2 'qkvtutor: no lesson "a\u202eb": not a file, nor a built-in lesson (see qkvtutor --list)' --dump "$(printf 'a\342\200\256b')"
check "--at as written, not saturated" 2 'qkvtutor: --at 99999999999999999999: the lesson has 14 steps' --at 99999999999999999999 --json 1
check "--at with a space" 2 'qkvtutor: --at takes a step number from 1, not " 3"; see qkvtutor --help' --dump --at ' 3' 1
check "--at with a sign" 2 'qkvtutor: --at takes a step number from 1, not "+3"; see qkvtutor --help' --dump --at +3 1
check "--at with a trailing space" 2 'qkvtutor: --at takes a step number from 1, not "3 "; see qkvtutor --help' --dump --at '3 ' 1
check "--class past 99" 2 'qkvtutor: --class takes a number of students from 1 to 99, not "100"; see qkvtutor --help' --class 100 --out "$T/c" 1
check "--class with a sign" 2 'qkvtutor: --class takes a number of students from 1 to 99, not "+5"; see qkvtutor --help' --class +5 --out "$T/c" 1
check "--variant past 2^32 - 1" 2 'qkvtutor: --variant takes a seed from 0 to 4294967295, not "4294967296"; see qkvtutor --help' --variant 4294967296 --dump 1
check "--size above the largest, as written" 2 'qkvtutor: --size 99999999999999999999x30 is above the largest picture, 1000x1000; see qkvtutor --help' --svg --size 99999999999999999999x30 1
check "--size with a sign" 2 'qkvtutor: --size takes COLSxROWS, such as 100x30, not "100x+30"; see qkvtutor --help' --svg --size 100x+30 1

# --variant: a do: action the new seed refuses is reported, not skipped
# silently (K[1] * 1e308 overflows when a K value passes 1.8; seed 8 has one).
cat >"$T/vskip.yaml" <<EOF
format: qkvtutor/1
title: "Variant skip"
tokens: [a, b, c]
X: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
weights:
  random: {seed: 42, scale: 1.0, d_k: 2}
steps:
  - stage: input
    say: "Start."
  - stage: qkv
    do: "Q[1] = K[1] * 1e308"
    say: "Now Q."
    ask: "Q[1][1]"
EOF
"$BIN" --dump --variant 8 "$T/vskip.yaml" >"$T/out" 2>&1
if grep -qx "variant 8: step 2's action \"Q\[1\] = K\[1\] \* 1e308\" is skipped under this seed: Q\[1\]\[2\] would not be a finite number; use smaller numbers" "$T/out"; then
    pass=$((pass + 1)); echo "ok: --dump --variant 8 says which action is skipped and why"
else
    failn=$((failn + 1)); echo "FAIL: --dump --variant 8: $(sed -n 1,4p "$T/out")"
fi
"$BIN" --worksheet --variant 8 "$T/vskip.yaml" >"$T/out" 2>&1
if grep -qx -- "- \`Q\[1\] = K\[1\] \* 1e308\` — skipped under variant 8: Q\[1\]\[2\] would not be a finite number; use smaller numbers" "$T/out"; then
    pass=$((pass + 1)); echo "ok: --worksheet --variant 8 marks the skipped action"
else
    failn=$((failn + 1)); echo "FAIL: --worksheet --variant 8: $(grep -A2 'Before this' "$T/out")"
fi
"$BIN" --dump --variant 1 "$T/vskip.yaml" >"$T/out" 2>&1
if ! grep -q "skipped" "$T/out"; then
    pass=$((pass + 1)); echo "ok: --dump --variant 1 applies the action and says nothing"
else
    failn=$((failn + 1)); echo "FAIL: --dump --variant 1 reports a skip: $(grep skipped "$T/out")"
fi

# The author's checks (issue 33): --check names each text written as
# {zh, en} with a language left out and a title card cut at 80x24 (exit 1,
# stdout); --dump prints the room of every step's narration and of the card.
# same NAME WANT_STATUS WANT_FILE ARGS...: stdout is exactly WANT_FILE
same()
{
    name=$1 want=$2 file=$3
    shift 3
    "$BIN" "$@" >"$T/out" 2>"$T/err" </dev/null
    got=$?
    if [ "$got" -eq "$want" ] && cmp -s "$file" "$T/out"; then
        pass=$((pass + 1)); echo "ok: $name"
    else
        failn=$((failn + 1)); echo "FAIL: $name: status $got (want $want)"; diff "$file" "$T/out" | sed 's/^/    /'
    fi
}
cat >"$T/half.yaml" <<'EOF'
format: qkvtutor/1
title: {zh: 半译}
about: {en: "Two tokens."}
tokens: [a, b]
X: [[1.0, 0.0], [0.0, 1.0]]
weights:
  random: {seed: 1, d_k: 2}
steps:
  - stage: input
    say:
      en: "Each token is a row of X."
  - stage: scores
    say: "One text for both."
    ask: "S[1][2]"
    question: {zh: "S[1][2] 是多少？", en: ""}
EOF
cat >"$T/half.want" <<EOF
$T/half.yaml:2:13: title: has zh text but no en; add en: "..." (until then the zh text shows in en)
$T/half.yaml:3:13: about: has en text but no zh; add zh: "..." (until then the en text shows in zh)
$T/half.yaml:11:11: step 1: say: has en text but no zh; add zh: "..." (until then the en text shows in zh)
$T/half.yaml:15:20: step 2: question: has zh text but no en; add en: "..." (until then the zh text shows in en)
$T/half.yaml: 0 expectations hold, 0 failed; 4 translations missing
EOF
same "--check names each missing translation" 1 "$T/half.want" --check "$T/half.yaml"
"$BIN" --check --lang zh "$T/half.yaml" >"$T/out" 2>&1
if [ $? -eq 1 ] && [ "$(grep -c '：有 .. 文本，没有 ..；请加上' "$T/out")" = 4 ] && grep -q '缺 4 处翻译$' "$T/out"; then
    pass=$((pass + 1)); echo "ok: --check --lang zh names the same 4, in Chinese"
else
    failn=$((failn + 1)); echo "FAIL: --check --lang zh of half.yaml: $(cat "$T/out")"
fi
cp lessons/11-windows-and-shared-heads.yaml "$T/card.yaml"
sed -i 's/^  en: "The KV cache grows.*/  en: "The KV cache grows with every token and every attention head: each stores a row of K (keys) and V (values). Today'"'"'s models shrink it with a sliding window and with query heads that share K\/V heads (GQA)."/' "$T/card.yaml"
line=$(grep -n '^  en: "The KV cache' "$T/card.yaml" | cut -d: -f1)
cat >"$T/card.want" <<EOF
$T/card.yaml:$line:7: about (en): the title card needs 5 lines, at 80x24 it has room for 4 lines of 78 columns (the title, a blank line and about:); shorten about:
$T/card.yaml: 6 expectations hold, 0 failed; 1 narration too long for 80x24
EOF
same "--check: a title card cut at 80x24" 1 "$T/card.want" --check "$T/card.yaml"
"$BIN" --dump "$T/card.yaml" >"$T/out" 2>&1
if grep -qx '  title card room at 80x24: 4 lines of 78 columns; en uses 5 (too long), zh uses 4' "$T/out" &&
   [ "$(grep -c '^  room at 80x24: ' "$T/out")" = "$(grep -c '^── ' "$T/out")" ]; then
    pass=$((pass + 1)); echo "ok: --dump prints the card's room and every step's"
else
    failn=$((failn + 1)); echo "FAIL: --dump room lines: $(grep 'room at' "$T/out" | head -3)"
fi
"$BIN" --dump --at 3 11 >"$T/out" 2>&1
if grep -qx '  room at 80x24: 2 lines of 78 columns; en uses 2, zh uses 2' "$T/out"; then
    pass=$((pass + 1)); echo "ok: --dump: lesson 11 step 3 (qkv, 4 heads) has room for 2 lines"
else
    failn=$((failn + 1)); echo "FAIL: --dump --at 3 11: $(grep 'room at' "$T/out")"
fi
# each language measured with its own interface, whatever --lang is
"$BIN" --dump --at 1 1 >"$T/out" 2>&1
if grep -qx '  room at 80x24: 13 lines (zh 14) of 78 columns; en uses 3, zh uses 2' "$T/out"; then
    pass=$((pass + 1)); echo "ok: --dump measures zh with the zh interface"
else
    failn=$((failn + 1)); echo "FAIL: --dump --at 1 1 room: $(grep 'room at' "$T/out")"
fi
LANGUAGE=zh "$BIN" --dump --lang zh --at 1 1 >"$T/out" 2>&1
if grep -qx '  讲解在 80x24 下的位置：13 行（zh 14 行）、每行 78 列；en 用 3 行、zh 用 2 行' "$T/out"; then
    pass=$((pass + 1)); echo "ok: --dump --lang zh prints the room in Chinese"
else
    failn=$((failn + 1)); echo "FAIL: --dump --lang zh room: $(grep '位置' "$T/out")"
fi
# --slides and --class write all their files or none (src/out/outdir.c): a
# name taken by a folder fails at the end, after every file was written; a
# write the kernel refuses (ulimit -f, SIGXFSZ ignored) fails on the way.
# Either way: one line, status 2, nothing of the run left, old files kept.
# set_left NAME DIR WANT: DIR's listing (hidden files too) is WANT.
set_left()
{
    got=$(ls -A "$2" 2>/dev/null | tr '\n' ' ')
    if [ "$got" = "$3" ]; then pass=$((pass + 1)); echo "ok: $1: left $3"
    else failn=$((failn + 1)); echo "FAIL: $1: left \"$got\", want \"$3\""; fi
}
mkdir -p "$T/deck/index.html"
check "--slides: index.html is a folder" 2 "qkvtutor: cannot write $T/deck/index.html: Is a directory" --slides --out "$T/deck" 1
set_left "--slides: index.html is a folder" "$T/deck" "index.html "
mkdir -p "$T/class/key.md" && echo old >"$T/class/sheet-02.md"
check "--class: key.md is a folder" 2 "qkvtutor: cannot write $T/class/key.md: Is a directory" --class 3 --out "$T/class" 1
set_left "--class: key.md is a folder" "$T/class" "key.md sheet-02.md "
[ "$(cat "$T/class/sheet-02.md")" = old ] && { pass=$((pass + 1)); echo "ok: --class failed: an old sheet is kept"; } ||
    { failn=$((failn + 1)); echo "FAIL: --class failed: sheet-02.md is now $(head -c 80 "$T/class/sheet-02.md")"; }
for what in "--slides" "--class 3 --format html"; do
    (trap '' XFSZ; ulimit -f 16; exec "$BIN" $what --out "$T/full" 1) >/dev/null 2>"$T/err"
    rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "^qkvtutor: cannot write $T/full/[a-z0-9-]*\.[a-z]*: File too large$" "$T/err" &&
        [ ! -e "$T/full" ]; then
        pass=$((pass + 1)); echo "ok: $what, a write refused: one line, the folder it made removed"
    else
        failn=$((failn + 1)); echo "FAIL: $what, a write refused: status $rc, $(cat "$T/err"), left: $(ls -A "$T/full" 2>&1 | tr '\n' ' ')"
    fi
done

# Model lessons take every output: --svg, --worksheet (and --variant K: the
# random weights drawn with seed K), --slides, --class. A lesson with trained
# weights (weights: {file: ...}) has no variant: one translated line, exit 2,
# nothing written.
M=tests/lessons/model-17shape.yaml
TR=lessons/17-induction-head.yaml
check "--svg of a model lesson" 0 '' --svg "$M"
grep -q '^<svg ' "$T/out" && { pass=$((pass + 1)); echo "ok: --svg of a model lesson writes an SVG"; } ||
    { failn=$((failn + 1)); echo "FAIL: --svg of a model lesson: $(head -c 80 "$T/out")"; }
check "--svg --at 2 of a model lesson" 0 '' --svg --at 2 "$M"
check "--worksheet of a model lesson" 0 '' --worksheet "$M"
grep -q '^\*\*Vocab\*\*$' "$T/out" && grep -q 'np.random.seed(3)' "$T/out" &&
    { pass=$((pass + 1)); echo "ok: a model lesson's sheet gives the vocab and the draw"; } ||
    { failn=$((failn + 1)); echo "FAIL: a model lesson's sheet: $(head -c 300 "$T/out")"; }
check "--worksheet --variant of a model lesson" 0 '' --worksheet --answers --variant 3 "$M"
grep -q '^Worksheet · variant 3 · ' "$T/out" && grep -q 'np.random.seed(3)' "$T/out" &&
    "$BIN" --worksheet --variant 4 "$M" | grep -q 'np.random.seed(4)' &&
    { pass=$((pass + 1)); echo "ok: --variant K of a model lesson draws with seed K"; } ||
    { failn=$((failn + 1)); echo "FAIL: --variant of a model lesson: $(grep -m1 'np.random' "$T/out")"; }
check "--slides of a model lesson" 0 '' --slides --out "$T/mdeck" "$M"
[ -s "$T/mdeck/index.html" ] && [ -s "$T/mdeck/slide-001.svg" ] &&
    { pass=$((pass + 1)); echo "ok: --slides of a model lesson writes the deck"; } ||
    { failn=$((failn + 1)); echo "FAIL: --slides of a model lesson left $(ls "$T/mdeck" 2>&1 | tr '\n' ' ')"; }
check "--class of a model lesson" 0 '' --class 3 --out "$T/mclass" "$M"
[ "$(ls "$T/mclass" | tr '\n' ' ')" = "key.md sheet-01.md sheet-02.md sheet-03.md " ] &&
    { pass=$((pass + 1)); echo "ok: --class of a model lesson writes 3 sheets and the key"; } ||
    { failn=$((failn + 1)); echo "FAIL: --class of a model lesson left $(ls "$T/mclass" 2>&1 | tr '\n' ' ')"; }
tref="$TR reads trained weights from a file, and other weights or other tokens would not be what the lesson shows; give every student the same sheet (--worksheet without --variant)"
check "--worksheet --variant of trained weights" 2 "qkvtutor: --variant 3: $tref" --worksheet --answers --variant 3 "$TR"
check "--json --variant of trained weights" 2 "qkvtutor: --variant 3: $tref" --json --variant 3 "$TR"
check "--class of trained weights" 2 "qkvtutor: --class 3: $tref" --class 3 --out "$T/tclass" "$TR"
check "--class of trained weights (zh)" 2 "qkvtutor：--class 3：$TR 的权重是训练出来的，从文件读入；换别的权重或别的词，就不再是这节课讲的东西了。请给每个学生同一份练习（--worksheet，不加 --variant）" -L zh --class 3 --out "$T/tclass" "$TR"
[ ! -e "$T/tclass" ] && { pass=$((pass + 1)); echo "ok: a refused class set leaves no folder"; } ||
    { failn=$((failn + 1)); echo "FAIL: a refused class set left $(ls -d "$T/tclass" 2>&1)"; }
check "--worksheet of trained weights" 0 '' --worksheet --answers "$TR"
check "--json --variant of a model lesson" 0 '' --json --variant 3 "$M"
check "--json of a model lesson" 0 '' --json "$M"
check "--dump of a model lesson" 0 '' --dump "$M"

echo "cli: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
