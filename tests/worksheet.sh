#!/bin/sh
# tests/worksheet.sh BINARY - --worksheet, --answers and --variant.
#
#  - the worksheet and key of lesson 1 with variant 7, in English and in
#    Chinese, and of tests/live/templates-asks.yaml (a lesson with asks),
#    equal the reviewed goldens in tests/worksheet/ (QKV_GOLDEN=1 rewrites
#    them: review the diff before committing); and model lessons' (14 with
#    variant 3, 15 in Chinese);
#  - the sheet without --answers is the sheet with them, up to the key;
#  - two variants give two different sheets; the key never shows the
#    lesson's expect: values (a variant's numbers are not the lesson's);
#  - the key's answers equal --json --variant K at the asked cells, for
#    every built-in lesson, as written and with K = 5, and a few seeds at
#    the edges (tests/worksheet_key.py parses the Markdown).
set -u
BIN=$1
DIR=tests/worksheet
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export LANGUAGE=en LC_ALL=C.UTF-8
PY=/usr/bin/python3
pass=0 failn=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { failn=$((failn + 1)); echo "FAIL: $1"; }

# golden NAME ARGS...: the output of ARGS equals $DIR/NAME
golden()
{
    name=$1
    shift
    if ! "$BIN" "$@" >"$T/out" 2>"$T/err"; then
        bad "$name: $BIN $* exits non-zero: $(cat "$T/err")"
    elif [ "${QKV_GOLDEN:-}" = 1 ]; then
        mkdir -p "$DIR" && cp "$T/out" "$DIR/$name" && ok "$name: golden rewritten"
    elif cmp -s "$DIR/$name" "$T/out"; then
        ok "$name equals the golden"
    else
        bad "$name differs from $DIR/$name:"; diff "$DIR/$name" "$T/out" | head -20
    fi
}

golden 01-variant7.en.md --worksheet --answers --variant 7 1
golden 01-variant7.zh.md --lang zh --worksheet --answers --variant 7 1
golden templates-asks.en.md --worksheet --answers tests/live/templates-asks.yaml
golden 14-variant3.en.md --worksheet --answers --variant 3 14
golden 15.zh.md --lang zh --worksheet --answers 15

# Without --answers: the same sheet, up to the key.
"$BIN" --worksheet --variant 7 1 >"$T/sheet"
"$BIN" --worksheet --answers --variant 7 1 | sed '/^<div class="page-break"/,$d' | sed 's/ · answer key"$/ · worksheet"/' >"$T/upto"
if cmp -s "$T/sheet" "$T/upto" && ! grep -q 'Answer key' "$T/sheet" && grep -q '^## Answer key · variant 7$' "$DIR/01-variant7.en.md"; then
    ok "--worksheet without --answers is the sheet without the key"
else
    bad "--worksheet without --answers:"; diff "$T/sheet" "$T/upto" | head
fi

# Every student their own numbers: variants 7 and 8 differ in the weights and the answers.
"$BIN" --worksheet --answers --variant 8 1 >"$T/v8"
"$BIN" --worksheet --answers --variant 7 1 >"$T/v7"
if [ "$(grep -c '' "$T/v7")" = "$(grep -c '' "$T/v8")" ] && [ "$(diff "$T/v7" "$T/v8" | grep -c '^<')" -gt 20 ] &&
   grep -q 'np.random.seed(8)' "$T/v8"; then
    ok "variants 7 and 8: same questions, other numbers"
else
    bad "variants 7 and 8 do not differ as they should"
fi

# The lesson's expect: values are not a variant's: neither the sheet nor --dump prints them.
if ! grep -q '0\.202\|expect' "$T/v7" && ! "$BIN" --dump --variant 7 1 | grep -q 'expect:' &&
   [ "$("$BIN" --dump 1 | grep -c 'expect: .* holds$')" -gt 10 ]; then
    ok "no expect: values with --variant (sheet, --dump)"
else
    bad "an expect: value shows with --variant"
fi

# --dump --variant says which variant it is.
if "$BIN" --dump --variant 7 1 | sed -n 2p | grep -qx 'lessons/01-three-tokens.yaml · 3 tokens, d_model 4, d_k 3, d_v 3 · variant 7' &&
   "$BIN" --dump 1 | sed -n 2p | grep -qx 'lessons/01-three-tokens.yaml · 3 tokens, d_model 4, d_k 3, d_v 3'; then
    ok "--dump --variant names the variant"
else
    bad "--dump --variant header: $("$BIN" --dump --variant 7 1 | sed -n 2p)"
fi

# The tables render: GitHub's cmark-gfm and pandoc each make one table per |---| line.
for f in "$DIR"/*.md; do
    seps=$(grep -c '^|-' "$f")
    if command -v cmark-gfm >/dev/null 2>&1; then
        n=$(cmark-gfm -e table "$f" | grep -c '<table>')
        if [ "$n" = "$seps" ] && [ "$seps" -gt 5 ]; then ok "cmark-gfm renders the $seps tables of $f"
        else bad "cmark-gfm renders $n tables of $f, it has $seps"; fi
    else
        echo "skip: cmark-gfm is not installed: $f not rendered"
    fi
    if command -v pandoc >/dev/null 2>&1; then
        n=$(pandoc -f markdown -t html "$f" | grep -c '<table')
        if [ "$n" = "$seps" ]; then ok "pandoc renders the $seps tables of $f"
        else bad "pandoc renders $n tables of $f, it has $seps"; fi
    else
        echo "skip: pandoc is not installed: $f not rendered"
    fi
done

# An appended token is named like the lesson's own: lesson 10's A[3] is 猫's row, and 猫 heads its column.
"$BIN" --worksheet 10 | grep -A5 '^\*\*A\[3\] = ?\*\*$' >"$T/appended"
if grep -q '^| A   | *我 | *爱 | *猫 |$' "$T/appended" && grep -q '^| 猫  | ______ | ______ | ______ |$' "$T/appended"; then
    ok "an appended token names its row and column on the sheet"
else
    bad "lesson 10's appended token is not named on the sheet:"; cat "$T/appended"
fi

# The key against --json: every built-in lesson that asks, as written and under a variant (a head's
# matrices, S1 or A2, are read from --json's per_head), and some seeds at the edges.
keys="1 3 7
1 3 0
1 3 4294967295
tests/live/templates-asks.yaml 3
tests/live/templates-asks.yaml 3 11
lessons/03-scaled-and-stable.yaml 3"
for n in 2 4 5 6 7 8 9 10 11 12 13 14 15 16 18; do keys="$keys
$n 3
$n 3 5"; done
keys="$keys
17 3"  # lesson 17's trained weights: no variant
while read -r args; do
    # shellcheck disable=SC2086  # args is a list
    if out=$($PY tests/worksheet_key.py "$BIN" $args); then ok "${out#ok: }"; else bad "$out"; fi
done <<EOF
$keys
EOF

# A title with " and \ gives front matter YAML reads back (key.md and a sheet).
sed 's/^  en: "Attention is learned"/  en: "Attention \\"is\\" learned \\\\ here"/' lessons/09-attention-is-learned.yaml >"$T/quoted.yaml"
if "$BIN" --class 1 --out "$T/quoted" "$T/quoted.yaml" 2>"$T/err" &&
   got=$($PY -c 'import sys, yaml
for f in sys.argv[1:]: print(yaml.safe_load(open(f).read().split("---")[1])["pagetitle"])' "$T/quoted/key.md" "$T/quoted/sheet-01.md" 2>&1) &&
   [ "$got" = 'Attention "is" learned \ here · answer key
Attention "is" learned \ here · worksheet' ]; then ok "a title with \" and \\: key.md's and the sheet's front matter are valid YAML with the title"
else bad "a title with \" and \\: the front matter reads back as: $got $(cat "$T/err")"; fi

# --class shows its progress on stderr when that is a terminal (a pty here),
# and says nothing when it is not.
prog=$($PY - "$BIN" "$T/prog" <<'PYEOF'
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen([sys.argv[1], "--class", "3", "--out", sys.argv[2], "1"], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
out = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
print(p.wait(), repr(out.decode()))
PYEOF
)
quiet=$("$BIN" --class 3 --out "$T/prog2" 1 2>&1)
case $prog in
"0 '\r\x1b[Kqkvtutor: sheet 1 of 3\r\x1b[Kqkvtutor: sheet 2 of 3\r\x1b[Kqkvtutor: sheet 3 of 3\r\x1b[K'")
    if [ -z "$quiet" ]; then ok "--class on a terminal: sheet 1 of 3 ... 3 of 3, then the line cleared; silent into a pipe"
    else bad "--class into a pipe printed: $quiet"; fi ;;
*) bad "--class on a terminal printed: $prog" ;;
esac

# A class set's answers differ between students: every question of every
# built-in lesson, 30 students (tests/worksheet_spread.py).
if out=$($PY tests/worksheet_spread.py "$BIN" $(grep -L '^model:' lessons/*.yaml)); then ok "$(echo "$out" | tail -n 1)"
else bad "$(echo "$out" | grep -v '^ok')"; fi

echo "worksheet: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
