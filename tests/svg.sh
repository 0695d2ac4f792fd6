#!/bin/sh
# tests/svg.sh BINARY SCREEN LOCALEDIR - `make svg`: the --svg slides.
#
# 1. Every built-in lesson at every step, in en and zh, is valid XML
#    (xmllint --noout), and so is a lesson whose title and tokens hold
#    & < > " ' and control characters.
# 2. The SVG's text is the terminal's screen text: each SVG's characters,
#    placed on a grid by their x positions (tests/svg_grid.py), equal the
#    view drawn on a headless screen at the same step and size
#    (tests/svg_screen.c): every lesson and step at 100x30 in en and zh,
#    lesson 1 at every step at 80x24, and at 60x18, 132x40 and 200x60 at
#    a few steps; mono and presentation mode too.
# 3. The picture's size and colours: the dark theme's black background and
#    the focused cell's yellow, mono's white background; the projector's
#    lowest heat shade is not navy (#00005f, black on a projector); a change
#    mark (▲ ▼) takes its number's background.
# 4. In mono no heat shade covers a digit (tests/svg_shade.py).
# xmllint and python3 come from tests/need.sh (libxml2-utils, python3).
BIN=${1:?usage: tests/svg.sh BINARY SCREEN LOCALEDIR}
SCREEN=${2:?usage: tests/svg.sh BINARY SCREEN LOCALEDIR}
LOCALEDIR=${3:?usage: tests/svg.sh BINARY SCREEN LOCALEDIR}
DIR=$(dirname "$0")
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d)
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
unset NO_COLOR
export LANG=C.UTF-8
fail=0

steps() { # the number of steps of lesson $1
    "$BIN" --at 9999 "$1" 2>&1 | sed -n 's/.*the lesson has \([0-9]*\) steps.*/\1/p'
}

# One case: lesson $1, step $2, size $3 ($4 x $5), language $6, theme $7,
# then "present" or nothing: the SVG, the terminal's text, a line in the list.
n=0
case_() {
    n=$((n + 1))
    set -- "$@" ""
    opt=""
    [ "$8" = present ] && opt="--present"
    if ! "$BIN" --svg --at "$2" --size "$3x$4" --lang "$5" --theme "$6" $opt "$1" >"$T/$n.svg" 2>"$T/$n.err"; then
        echo "FAIL: --svg --at $2 --size $3x$4 --lang $5 --theme $6 $opt $1: $(cat "$T/$n.err")"
        fail=1
        return
    fi
    if ! "$SCREEN" "$LOCALEDIR" "$1" "$2" "$3" "$4" "$5" "$6" $8 >"$T/$n.raw"; then
        echo "FAIL: no headless screen for $1 step $2"
        fail=1
        return
    fi
    # a slide carries no student's tally (newcomer review 28), the view's
    # last step does, and the row it frees reflows the slide: those screens
    # are checked in 4. below, not against the terminal
    # (the tally may share a line with the question's how-to: lesson 18's last step)
    if grep -q 'Your answers:\|你的答案：' "$T/$n.raw"; then
        echo "$1 step $2 $3x$4 $5" >>"$T/tallied"
        if grep -q 'Your answers:\|你的答案：' "$T/$n.svg"; then # (not 输入你的答案, the how-to)
            echo "FAIL: --svg --at $2 $1 ($5) carries the student's tally"
            fail=1
        fi
        return
    fi
    mv "$T/$n.raw" "$T/$n.txt"
    echo "$T/$n.svg $T/$n.txt $3 $4" >>"$T/list"
    echo "$1 step $2 $3x$4 $5 $6 $8" >>"$T/names"
}

: >"$T/list"
: >"$T/tallied"
for f in lessons/*.yaml; do
    : # model lessons too
    s=$(steps "$f")
    [ -n "$s" ] || { echo "FAIL: cannot count the steps of $f"; exit 1; }
    k=1
    while [ "$k" -le "$s" ]; do
        for l in en zh; do case_ "$f" "$k" 100 30 "$l" dark; done
        k=$((k + 1))
    done
done
L1=lessons/01-three-tokens.yaml
s1=$(steps "$L1")
k=1
while [ "$k" -le "$s1" ]; do
    for l in en zh; do case_ "$L1" "$k" 80 24 "$l" dark; done
    k=$((k + 1))
done
for size in "60 18" "132 40" "200 60"; do
    for k in 1 7 12; do
        for l in en zh; do
            # shellcheck disable=SC2086  # size is "COLS ROWS"
            case_ "$L1" "$k" $size "$l" dark
        done
    done
done
for k in 4 10; do
    case_ "$L1" "$k" 100 30 en mono
    case_ "$L1" "$k" 100 30 zh light
    case_ "$L1" "$k" 80 24 en projector present
    case_ "$L1" "$k" 100 30 zh dark present
done

# Lesson text that XML must escape, with control characters (ESC, BEL).
cat >"$T/hostile.sed" <<'SED'
s|"Three tokens through self-attention"|"A \& B <tag> \\"quoted\\" 'single' \\x1b[31m\\x07 ]]>"|
s|tokens: \[我, love, 猫\]|tokens: ["<我>", "\&amp;", "猫'\\""]|
SED
sed -f "$T/hostile.sed" "$L1" >"$T/hostile.yaml"
case_ "$T/hostile.yaml" 7 100 30 en dark
case_ "$T/hostile.yaml" 10 80 24 zh mono
if ! grep -q '&lt;我&gt;' "$T/$n.svg" || ! grep -q 'A &amp; B &lt;tag&gt; &quot;quoted&quot; &apos;single&apos;' "$T/$((n - 1)).svg"; then
    echo "FAIL: the hostile lesson's title or tokens are not escaped as expected"
    fail=1
fi
if LC_ALL=C grep -q "$(printf '[\001-\010\013\014\016-\037]')" "$T"/*.svg; then
    echo "FAIL: a control character reached an SVG"
    fail=1
fi

# 1. well-formed XML, all at once
if out=$(xmllint --noout "$T"/*.svg 2>&1); then
    echo "svg: xmllint: $n pictures are well-formed"
else
    echo "FAIL: xmllint:"
    echo "$out" | head -n 20
    fail=1
fi
# 2. the text equals the terminal's
"$PY" "$DIR/svg_grid.py" "$T/list" || fail=1

# 4. mono: every lesson at every step, 100x30 and 60x18, in en; the shades
#    are rectangles clear of the digits (tests/svg_shade.py)
mkdir -p "$T/mono"
for f in lessons/*.yaml; do
    : # model lessons too
    s=$(steps "$f")
    k=1
    while [ "$k" -le "$s" ]; do
        for size in 100x30 60x18; do
            "$BIN" --svg --at "$k" --size "$size" --theme mono "$f" >"$T/mono/$(basename "$f" .yaml)-$k-$size.svg" || fail=1
        done
        k=$((k + 1))
    done
done
"$PY" "$DIR/svg_shade.py" "$T"/mono/*.svg || fail=1

# 3. size and colours
"$BIN" --svg --at 7 1 >"$T/dark.svg" && "$BIN" --svg --at 7 --theme mono --size 80x24 1 >"$T/mono.svg" || fail=1
grep -q 'width="1000" height="720" viewBox="0 0 1000 720"' "$T/dark.svg" &&
    grep -q '<rect width="1000" height="720" fill="#000000"/>' "$T/dark.svg" &&
    grep -q 'fill="#cdcd00"/>' "$T/dark.svg" &&
    grep -q '<rect width="800" height="576" fill="#ffffff"/>' "$T/mono.svg" &&
    ! grep -q 'fill="#cdcd00"' "$T/mono.svg" ||
    { echo "FAIL: the pictures' size or colours are not as expected"; fail=1; }
# 4. A slide carries no student's tally (newcomer review 28): lesson 1's
#    last step as --svg has no "Your answers" line in either language,
#    while the view's last step has it.
for l in en zh; do
    "$BIN" --svg --at "$s1" --lang "$l" "$L1" >"$T/last-$l.svg" || fail=1
    if grep -q 'Your answers\|你的答案' "$T/last-$l.svg"; then
        echo "FAIL: --svg --at $s1 --lang $l $L1 carries the student's tally"
        fail=1
    fi
done
"$SCREEN" "$LOCALEDIR" "$L1" "$s1" 100 30 en dark >"$T/last-view.txt" &&
    grep -q 'Your answers: right 0 of 2, 2 revealed.' "$T/last-view.txt" ||
    { echo "FAIL: the view's last step of $L1 has no tally"; fail=1; }
echo "svg: $(wc -l <"$T/tallied") last steps with a tally in the view, none on the slide"

# lesson 1 step 7 shades S; lesson 3 step 7 marks S's changes on the focus row
"$BIN" --svg --at 7 --theme projector 1 >"$T/proj.svg" && "$BIN" --svg --at 7 3 >"$T/marks.svg" || fail=1
grep -q 'fill="#5f5f87"/>' "$T/proj.svg" && ! grep -q 'fill="#00005f"/>' "$T/proj.svg" ||
    { echo "FAIL: the projector's lowest heat shade is not #5f5f87"; fail=1; }
# the focus row (y 264) is blue from its label to its last number: one rectangle, the marks inside it
# (every bold white or marked character on the row's baseline, y 282, lies in it)
"$PYTHON" - "$T/marks.svg" <<'PY' || { echo "FAIL: lesson 3 step 7: the change marks split the focus row's background"; fail=1; }
import re, sys
svg = open(sys.argv[1], encoding="utf-8").read()
rects = [(int(x), int(w)) for x, w in re.findall(r'<rect x="(\d+)" y="264" width="(\d+)" height="24" fill="#0000ee"/>', svg)]
xs = []
for attrs, text in re.findall(r'<text ([^>]*y="282"[^>]*font-weight="bold"[^>]*)>([^<]*)', svg):
    at = [int(v) for v in re.search(r' x="([\d ]+)"', attrs).group(1).split()]
    xs += at if len(at) > 1 else [at[0] + 10 * k for k in range(len(text))]
sys.exit(0 if len(rects) == 1 and xs and all(rects[0][0] <= x and x + 10 <= sum(rects[0]) for x in xs) else 1)
PY
[ "$fail" = 0 ] && echo "svg: ok"
exit "$fail"
