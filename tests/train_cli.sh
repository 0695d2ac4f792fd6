#!/bin/sh
# tests/train_cli.sh BINARY INDUCTION - qkvtutor --train (src/out/traincli.c,
# DESIGN.md "Trained here"): the usage errors and their exact messages, the
# summary's exact form, --steps, the progress lines off a terminal, two runs
# byte for byte the same, Ctrl-C (SIGINT to a long run) stopping with a
# valid weights file of the last whole step, an --out that cannot be
# written leaving nothing, a step that is not finite named with its step
# and parameter, the held-out scores the same as tests/bench/induction.c's
# (INDUCTION, the recipe search's trainer, on the same recipe), and the
# shipped lessons/weights/induction-2l.yaml byte for byte what the binary
# makes from lesson 17, with its heads' scores: a layer-1 previous-token
# head >= 0.7 and a layer-2 induction head >= 0.8.
set -u
BIN=$1
IND=${2:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export LANGUAGE=en LC_ALL=C.UTF-8
pass=0 failn=0
L17=lessons/17-induction-head.yaml
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }

# check NAME WANT_STATUS WANT_STDERR ARGS...
check()
{
    name=$1 want=$2 msg=$3
    shift 3
    "$BIN" "$@" >"$T/out" 2>"$T/err" </dev/null
    got=$?
    if [ "$got" -eq "$want" ] && [ "$(cat "$T/err")" = "$msg" ]; then ok "$name"
    else bad "$name: status $got (want $want), stderr: $(cat "$T/err")"; fi
}

check "--train without --out" 2 'qkvtutor: --train needs --out FILE, the weights file to write; see qkvtutor --help' --train 17
check "--steps without --train" 2 'qkvtutor: --steps goes with --train; see qkvtutor --help' --steps 5 --json 1
check "--steps 0" 2 'qkvtutor: --steps takes a number of training steps from 1 to 100000, not "0"; see qkvtutor --help' --train 17-induction-head --out "$T/w.yaml" --steps 0
check "--steps past the limit" 2 'qkvtutor: --steps takes a number of training steps from 1 to 100000, not "100001"; see qkvtutor --help' --train 17-induction-head --out "$T/w.yaml" --steps 100001
check "--train with --json" 2 'qkvtutor: --json and --train do not go together: each one chooses what qkvtutor does; give one of them; see qkvtutor --help' --json --train 17-induction-head --out "$T/w.yaml"
check "--train of a lesson without a model" 2 'qkvtutor: --train: lessons/01-three-tokens.yaml is not a model lesson: it needs model: and train: (lessons/README.md)' --train 1 --out "$T/w.yaml"
grep -v '^  *\(data\|optimizer\|batch\|steps\|from\|loss\):\|^train:' "$L17" >"$T/notrain.yaml"
sed -i 's|file: weights/|file: '"$PWD"'/lessons/weights/|' "$T/notrain.yaml"
check "--train of a model lesson without train:" 2 "qkvtutor: --train: $T/notrain.yaml has no train: section; add e.g. train: {data: {task: copy, length: [3, 6], seed: 1}, optimizer: {adam: {lr: 0.003}}, batch: 64, steps: 3000}" --train "$T/notrain.yaml" --out "$T/w.yaml"
[ ! -e "$T/w.yaml" ] && ok "no file after the errors" || bad "a refused --train wrote $T/w.yaml"

# The summary's form, numbers aside (each written as N); progress off a
# terminal: a line at every tenth of the run, then the time taken.
"$BIN" --train 17-induction-head --out "$T/a.yaml" --steps 20 >"$T/a.out" 2>"$T/a.err"
rc=$?
sed -E 's/[0-9]+(\.[0-9]+)?/N/g' "$T/a.out" >"$T/a.form"
cat >"$T/want.form" <<EOF
trained: N of N steps, adam lr N, batch N, from random weights (seed N, scale N, embed_scale N)
loss: N at step N, N at step N
held-out: N copy sequences from seed N: loss N on the other positions, N on the copy's repeated symbols (its Nnd to last)
head     previous-token  induction
LN.HN    N           N
LN.HN    N           N
LN.HN    N           N
LN.HN    N           N
wrote: $(echo "$T" | sed -E 's/[0-9]+(\.[0-9]+)?/N/g')/a.yaml
EOF
if [ $rc = 0 ] && diff "$T/want.form" "$T/a.form" >"$T/diff"; then ok "the summary's form"
else bad "the summary (status $rc): $(cat "$T/diff" "$T/a.err")"; fi
head -n 1 "$T/a.out" | grep -qx 'trained: 20 of 20 steps, adam lr 0.01, batch 64, from random weights (seed 1, scale 0.144, embed_scale 1)' &&
    ok "--steps 20: 20 steps, the recipe named" || bad "first line: $(head -n 1 "$T/a.out")"
grep -q '^loss: [0-9.]* at step 1, [0-9.]* at step 20$' "$T/a.out" && ok "the losses of steps 1 and 20" ||
    bad "no loss line for steps 1 and 20: $(cat "$T/a.out")"
grep -q '^held-out: 100 copy sequences from seed 999: ' "$T/a.out" && ok "held-out: 100 sequences from seed 999" ||
    bad "held-out line: $(sed -n 3p "$T/a.out")"
steps=$(grep -c '^step [0-9]*/20  [0-9]* steps/s  [0-9]* s left  loss [0-9.]*$' "$T/a.err")
lines=$(grep -c . "$T/a.err")
if [ "$steps" = 10 ] && [ "$lines" = 11 ] && tail -n 1 "$T/a.err" | grep -qx '20 steps in [0-9.]* s ([0-9]* steps/s)' &&
   grep -q '^step 2/20 ' "$T/a.err" && grep -q '^step 20/20 ' "$T/a.err"; then ok "progress: 10 lines and the time"
else bad "progress off a terminal: $(cat "$T/a.err")"; fi
grep -q '^format: qkvtutor-weights/1' "$T/a.yaml" && ok "a weights file written" || bad "$T/a.yaml: $(head -n 2 "$T/a.yaml")"

# Deterministic: the same lesson and binary give the same bytes.
"$BIN" --train 17-induction-head --out "$T/b.yaml" --steps 20 >"$T/b.out" 2>/dev/null
cmp -s "$T/a.yaml" "$T/b.yaml" && ok "two runs write the same bytes" || bad "two runs of --steps 20 differ"
sed 's|/b\.yaml$|/a.yaml|' "$T/b.out" | cmp -s - "$T/a.out" && ok "two runs print the same summary" ||
    bad "two runs' summaries differ"
"$BIN" --train 17-induction-head --out "$T/c.yaml" --steps 21 >/dev/null 2>&1
cmp -s "$T/a.yaml" "$T/c.yaml" && bad "--steps 21 wrote what --steps 20 did" || ok "--steps 21 goes one step further"

# The trained file loads: lesson 17 pointed at it.
sed 's|file: weights/induction-2l.yaml|file: '"$T"'/a.yaml|' "$L17" >"$T/l17.yaml"
# (--check's status 1: it loaded and ran, and lesson 17's expect: values, which
# are the shipped weights', differ; 2 would be a file that does not load)
rc=0; "$BIN" --check "$T/l17.yaml" >"$T/out" 2>"$T/err" || rc=$?
[ $rc -le 1 ] && grep -q 'expectations hold' "$T/out" && ok "the written file loads as lesson 17's weights" ||
    bad "lesson 17 on the written file: status $rc, $(cat "$T/err")"

# Lesson 18 starts where train.from does: its weights are train.from's draw.
grep -v '^  from:' lessons/18-watch-it-learn.yaml >"$T/l18.yaml"
"$BIN" --train lessons/18-watch-it-learn.yaml --out "$T/f18.yaml" --steps 5 >/dev/null 2>&1
"$BIN" --train "$T/l18.yaml" --out "$T/w18.yaml" --steps 5 >"$T/w18.out" 2>&1
grep -q "from the lesson's random weights (seed 1, scale 0.144, embed_scale 1)" "$T/w18.out" && cmp -s "$T/f18.yaml" "$T/w18.yaml" &&
    ok "lesson 18's weights are train.from's: 5 steps from either give the same file" ||
    bad "lesson 18 without from: differs from train.from: $(head -n 1 "$T/w18.out")"

# The held-out scores are the recipe search's (tests/bench/induction.c on the same recipe).
if [ -n "$IND" ]; then
    "$IND" seed=1 data=3 steps=20 every=20 >"$T/ind.out"
    want=$(head -n 1 "$T/ind.out" | sed 's/.* prev \([0-9.]*\) \([0-9.]*\) induction \([0-9.]*\) \([0-9.]*\) .*/\1 \2 \3 \4/')
    got="$(awk '$1 == "L1.H1" || $1 == "L1.H2" { printf "%s ", $2 }' "$T/a.out")$(awk '$1 == "L2.H1" || $1 == "L2.H2" { printf "%s ", $3 }' "$T/a.out")"
    [ "$got" = "$want " ] && ok "scores are induction.c's at step 20 ($want)" ||
        bad "scores: --train $got, induction.c $want"
else
    bad "no INDUCTION binary given (tests/bench/induction.c)"
fi

# Ctrl-C: SIGINT to a long run stops it after a whole step; the file is written and loads.
"$BIN" --train 17-induction-head --out "$T/int.yaml" --steps 100000 >"$T/int.out" 2>"$T/int.err" &
pid=$!
n=0
while [ $n -lt 15 ] && ! grep -q '^step ' "$T/int.err" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
kill -INT $pid
wait $pid
rc=$?
took=$(sed -n 's/^trained: \([0-9]*\) of 100000 steps.*/\1/p' "$T/int.out")
if [ $rc = 0 ] && [ -n "$took" ] && [ "$took" -ge 1 ] && [ "$took" -lt 100000 ] &&
   grep -q "^stopped by Ctrl-C after step $took of 100000 ([0-9.]* s); writing that step's weights$" "$T/int.err"; then
    ok "Ctrl-C after step $took: stopped and said so"
else bad "Ctrl-C: status $rc, $(cat "$T/int.out" "$T/int.err" | tail -n 5)"; fi
sed 's|file: weights/induction-2l.yaml|file: '"$T"'/int.yaml|' "$L17" >"$T/lint.yaml"
rc=0; "$BIN" --check "$T/lint.yaml" >"$T/out" 2>"$T/err" || rc=$?
[ $rc -le 1 ] && grep -q 'expectations hold' "$T/out" && ok "the interrupted run's file loads" ||
    bad "the interrupted run's file: status $rc, $(cat "$T/err")"
"$BIN" --train 17-induction-head --out "$T/same.yaml" --steps "${took:-1}" >/dev/null 2>&1
cmp -s "$T/int.yaml" "$T/same.yaml" && ok "the interrupted file is step $took's, as --steps $took writes it" ||
    bad "the interrupted file is not --steps $took's"
[ -z "$(ls -A "$T" | grep '^\.')" ] && ok "no temporary left" || bad "left: $(ls -A "$T" | grep '^\.')"

# An --out that cannot be written: exit 1, one line, nothing left, before any training.
: >"$T/plain"
check "--out under a file" 1 "qkvtutor: cannot write $T/plain/w.yaml: Not a directory" --train 17-induction-head --out "$T/plain/w.yaml" --steps 3
check "--out in a missing folder" 1 "qkvtutor: cannot write $T/none/w.yaml: No such file or directory" --train 17-induction-head --out "$T/none/w.yaml" --steps 3
[ ! -e "$T/none" ] && [ "$(ls -A "$T" | grep -c '^\.')" = 0 ] && [ ! -s "$T/out" ] && ok "nothing left, nothing trained" ||
    bad "an unwritable --out left: $(ls -A "$T")"

# A step that is not finite: exit 2 at the train: section, the step and the parameter named, no file.
sed 's|file: weights/|file: '"$PWD"'/lessons/weights/|; s|adam: {lr: [0-9.]*}|sgd: {lr: 1e30}|' "$L17" >"$T/hot.yaml"
line=$(grep -n '^train:' "$T/hot.yaml" | cut -d: -f1)
"$BIN" --train "$T/hot.yaml" --out "$T/hot-w.yaml" --steps 50 >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 2 ] && tail -n 1 "$T/err" | grep -Eqx "$T/hot.yaml:$line:1: step [0-9]+: (the loss is not finite|the gradient of [A-Za-z0-9.]+ is not finite|[A-Za-z0-9.]+ would not be finite after the update); lower lr \(now 1e\+30\)" &&
   [ ! -e "$T/hot-w.yaml" ]; then ok "not finite: $(tail -n 1 "$T/err" | sed 's|.*: step|step|')"
else bad "not finite: status $rc, $(cat "$T/err")"; fi

# The shipped file is what this binary makes from lesson 17, and its heads are there.
start=$(date +%s.%N)
"$BIN" --train "$L17" --out "$T/ship.yaml" >"$T/ship.out" 2>"$T/ship.err"
rc=$?
end=$(date +%s.%N)
cmp -s "$T/ship.yaml" lessons/weights/induction-2l.yaml && ok "lessons/weights/induction-2l.yaml is what --train makes" ||
    bad "lessons/weights/induction-2l.yaml differs from --train $L17's output (status $rc; make weights): $(tail -n 2 "$T/ship.err")"
prev=$(awk '$1 ~ /^L1\./ && $2 > m { m = $2 } END { print m + 0 }' "$T/ship.out")
ind=$(awk '$1 ~ /^L2\./ && $3 > m { m = $3 } END { print m + 0 }' "$T/ship.out")
awk -v p="$prev" -v i="$ind" 'BEGIN { exit !(p >= 0.7 && i >= 0.8) }' &&
    ok "held-out: a layer-1 previous-token head $prev (>= 0.7), a layer-2 induction head $ind (>= 0.8)" ||
    bad "held-out scores: layer-1 previous-token $prev, layer-2 induction $ind: $(cat "$T/ship.out")"
echo "train: lesson 17 from scratch: $(tail -n 1 "$T/ship.err") (wall $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s, load $(cut -d' ' -f1-3 /proc/loadavg))"

echo "train-cli: $pass passed, $failn failed"
[ "$failn" = 0 ]
