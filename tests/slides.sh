#!/bin/sh
# tests/slides.sh BINARY - `make slides`: the --slides deck.
#
# 1. Every built-in lesson in en and zh: --slides --out DIR writes
#    slide-001.svg ... one per step plus one per step that asks (its
#    reveal), counted from the lesson's YAML (steps with an ask:), every
#    one well-formed XML (xmllint), and index.html names every slide in
#    order and nothing else.
# 2. Without --chrome no slide has the key bar ("q quit" / "q 退出"), the
#    "how to answer" line or the student's tally; with --chrome the key bar
#    and the tally come back (so the test can fail).
# 3. Lesson 1: the question slide shows S[1][2] as "?", the next slide
#    reveals it, "Answer: S[1][2] = X" with X the key's value (--worksheet
#    --answers).
# 4. Sizes: the default is 1280x720 (128x30 cells, 16:9); --size 60x18
#    gives 600x432; bad sizes and flags are usage errors (exit 2).
# 5. index.html needs no network (no http: or https: anywhere) and, opened
#    from file:// in headless chromium when it is installed, steps with
#    →, PgDn, Space, ←, PgUp, Home, End and a click, and its corner names
#    the step as the slide's header does ("step 4/14, question", not the
#    slide's number); N shows the slide's speaker notes.
# 6. Speaker notes: every step's whole narration (--dump's, in en and zh,
#    every built-in lesson) is in index.html, in the notes of its slide,
#    however much of it the slide had room for (at --size 76x18 most are
#    cut).
# xmllint, python3 and python3-yaml come from tests/need.sh.
BIN=${1:?usage: tests/slides.sh BINARY}
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d)
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
unset NO_COLOR
export LANG=C.UTF-8
fail=0
bad() { echo "FAIL: slides: $*"; fail=1; }

steps() { # the number of steps of lesson $1
    "$BIN" --at 9999 "$1" 2>&1 | sed -n 's/.*the lesson has \([0-9]*\) steps.*/\1/p'
}
asks() { # the steps of lesson $1 that ask, from its YAML
    "$PY" -c 'import sys, yaml; print(sum(1 for s in yaml.safe_load(open(sys.argv[1]))["steps"] if isinstance(s, dict) and "ask" in s))' "$1"
}
text() { # the characters of an SVG's <text>s, a line each
    sed -n 's/.*<text[^>]*>\(.*\)<\/text>.*/\1/p' "$1"
}

# 1, 2
decks=0
for f in lessons/*.yaml; do
    : # model lessons too (their stages, asks and narration)
    s=$(steps "$f")
    q=$(asks "$f")
    [ -n "$s" ] && [ -n "$q" ] || { bad "cannot count the steps of $f"; continue; }
    for l in en zh; do
        d="$T/$(basename "$f" .yaml)-$l"
        if ! "$BIN" --slides --out "$d" --lang "$l" "$f" 2>"$T/err"; then
            bad "--slides --out $d --lang $l $f: $(cat "$T/err")"
            continue
        fi
        decks=$((decks + 1))
        n=$(ls "$d" | grep -c '^slide-[0-9][0-9][0-9]\.svg$')
        [ "$n" = $((s + q)) ] || bad "$f ($l): $n slides, want $s steps + $q questions = $((s + q))"
        [ "$(ls "$d" | wc -l)" = $((n + 1)) ] || bad "$f ($l): files besides the slides and index.html: $(ls "$d" | tr '\n' ' ')"
        want=$(k=1; while [ "$k" -le "$n" ]; do printf 'slide-%03d.svg\n' "$k"; k=$((k + 1)); done)
        got=$(sed -n 's/.*<img src="\([^"]*\)".*/\1/p' "$d/index.html")
        [ "$got" = "$want" ] || bad "$f ($l): index.html does not name slide-001.svg ... slide-$(printf %03d "$n").svg in order"
        for svg in "$d"/slide-*.svg; do
            if text "$svg" | grep -q -e '^q quit$' -e '^q 退出$' -e 'Enter grades it' -e 'Enter 判分' \
                -e 'Your answers' -e '你的答案'; then
                bad "$svg has the key bar, the how-to-answer line or the tally without --chrome"
                break
            fi
        done
    done
done
if out=$(xmllint --noout "$T"/*/slide-*.svg 2>&1); then
    echo "slides: $decks decks, $(ls "$T"/*/slide-*.svg | wc -l) slides, well-formed, counted and listed"
else
    bad "xmllint:"
    echo "$out" | head -n 20
fi

# --chrome keeps the key bar and the tally
"$BIN" --slides --chrome --out "$T/chrome" 1 || bad "--slides --chrome failed"
last=$(ls "$T/chrome"/slide-*.svg | tail -n 1)
text "$T/chrome/slide-001.svg" | grep -q '^q quit$' || bad "--chrome: no key bar on slide 1"
text "$last" | grep -q 'Your answers' || bad "--chrome: no tally on the last slide"

# 3. the question, then its reveal (lesson 1: step 7 asks S[1][2])
D="$T/01-three-tokens-en"
key=$("$BIN" --worksheet --answers 1 | sed -n 's/^### 1 · \(S\[1\]\[2\] = .*\)/\1/p')
[ -n "$key" ] || bad "no S[1][2] in lesson 1's key"
text "$D/slide-007.svg" | grep -q '^? What is' || bad "slide 7 does not ask"
text "$D/slide-007.svg" | grep -q '^?$' || bad "slide 7 shows no ? cell"
text "$D/slide-008.svg" | grep -qF "Answer: $key." || bad "slide 8 does not reveal \"$key\": $(text "$D/slide-008.svg" | grep Answer)"
grep -q '<title>qkvtutor: Three tokens through self-attention (step 7/14, answer)</title>' "$D/slide-008.svg" ||
    bad "slide 8's title does not name step 7's answer"

# 4. sizes and usage errors
grep -q 'width="1280" height="720"' "$D/slide-001.svg" || bad "the default slide is not 1280x720"
"$BIN" --slides --size 60x18 --out "$T/small" 3 && grep -q 'width="600" height="432"' "$T/small/slide-001.svg" ||
    bad "--size 60x18 does not give 600x432 slides"
check() { # exit status $1 and stderr $2 of qkvtutor $3...
    want=$1 msg=$2
    shift 2
    "$BIN" "$@" >/dev/null 2>"$T/err"
    rc=$?
    [ "$rc" = "$want" ] && [ "$(cat "$T/err")" = "$msg" ] || bad "qkvtutor $*: status $rc, stderr: $(cat "$T/err")"
}
check 2 'qkvtutor: --slides needs --out DIR, the folder to write into; see qkvtutor --help' --slides 1
check 2 'qkvtutor: --chrome goes with --slides; see qkvtutor --help' --svg --chrome 1
check 2 'qkvtutor: --at goes with --dump, --json, --svg or the view; a deck covers every step; see qkvtutor --help' --slides --at 3 --out "$T/x" 1
check 2 'qkvtutor: --size 60x17 is below the smallest screen, 60x18; see qkvtutor --help' --slides --size 60x17 --out "$T/x" 1
check 2 'qkvtutor: --slides and --svg do not go together: each one chooses what qkvtutor does; give one of them; see qkvtutor --help' --slides --svg --out "$T/x" 1
: >"$T/file"
"$BIN" --slides --out "$T/file/deck" 1 2>"$T/err"
[ $? = 2 ] && grep -q "^qkvtutor: cannot write $T/file/deck: Not a directory$" "$T/err" || bad "an unwritable --out: $(cat "$T/err")"

# 6. the whole narration of every step in the deck's speaker notes
for f in lessons/*.yaml; do
    : # model lessons too (their stages, asks and narration)
    for l in en zh; do
        d="$T/notes-$(basename "$f" .yaml)-$l"
        "$BIN" --slides --size 76x18 --out "$d" --lang "$l" "$f" 2>"$T/err" || { bad "--slides --size 76x18 $f: $(cat "$T/err")"; continue; }
        "$BIN" --dump --lang "$l" "$f" >"$T/dump" 2>"$T/err" || { bad "--dump $f: $(cat "$T/err")"; continue; }
        why=$("$PY" - "$T/dump" "$d/index.html" <<'PYEOF'
import html, re, sys
dump, index = open(sys.argv[1]).read(), open(sys.argv[2]).read()
notes = ["".join(html.unescape(re.sub(r"<[^>]*>", "", n)).split())
         for n in re.findall(r'<aside class="notes">(.*?)</aside>', index)]
imgs = re.findall(r'<img src="slide-(\d+)\.svg" alt="([^"]*)"', index)
if len(notes) != len(imgs):
    print("%d notes for %d slides" % (len(notes), len(imgs)))
for m in re.finditer(r"^── (\d+)/(\d+) ·[^\n]*\n((?:  [^\n]*\n)*)", dump, re.M):
    # the narration: the block without its one-line labels (do:, options:, effect:, question:, ask:)
    labels = r"do|effect|options|question|ask|training|expect|效果|选项|问题|提问|训练|预期"
    # and without --dump's room line for authors ("  room at 80x24: ...")
    room = r"  (room at|title card room at|讲解在|标题卡在) ?\d+x\d+"
    say = [l for l in m.group(3).splitlines() if not re.match(r"  (%s)[:：]|   " % labels, l) and not re.match(room, l)]
    want = "".join("".join(say).split())
    if not want:
        continue
    k = int(m.group(1))
    mine = [i for i, (_, alt) in enumerate(imgs) if re.search(r"\b%d/%s\b" % (k, m.group(2)), alt)]
    if not any(want in notes[i] for i in mine):
        print("step %d: its narration %r is in no notes of its slides %s" % (k, want[:60], [imgs[i][0] for i in mine]))
PYEOF
)
        [ -z "$why" ] || bad "$f ($l): $why"
    done
done
echo "slides: speaker notes checked for $(ls lessons/*.yaml | wc -l) lessons in en and zh"

# 5. index.html: offline, and it steps
grep -q 'https\?:' "$D/index.html" && bad "index.html names a network address"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "slides: index.html not run: no chromium"
else
    # A page beside the deck loads it in a frame, presses keys and clicks,
    # and writes what "n / N" said after each.
    cat >"$T/01-three-tokens-en/drive.html" <<'HTML'
<!DOCTYPE html><html><body><pre id="log"></pre>
<iframe id="f" src="index.html" width="1280" height="720"></iframe>
<script>
var f = document.getElementById('f'), log = [];
f.onload = function () {
  var w = f.contentWindow, d = w.document;
  function shown() { var on = d.querySelectorAll('#deck img.on'); return d.getElementById('count').textContent + ' ' + on.length + ' ' + on[0].getAttribute('src'); }
  function key(k) { d.dispatchEvent(new w.KeyboardEvent('keydown', {key: k, bubbles: true})); log.push(k + ': ' + shown()); }
  log.push('start: ' + shown());
  ['ArrowRight', 'PageDown', ' ', 'ArrowLeft', 'PageUp', 'End', 'ArrowRight', 'Home', 'ArrowLeft'].forEach(key);
  d.dispatchEvent(new w.MouseEvent('click', {clientX: 1000, clientY: 300, bubbles: true}));
  log.push('click: ' + shown());
  key('N');
  var on = d.querySelector('.notes.on');
  log.push('notes: ' + w.getComputedStyle(on).display + ' ' + on.textContent.slice(0, 21));
  key('N');
  log.push('notes: ' + w.getComputedStyle(on).display);
  document.getElementById('log').textContent = log.join('\n');
};
</script></body></html>
HTML
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
        --virtual-time-budget=5000 --dump-dom "file://$T/01-three-tokens-en/drive.html" 2>/dev/null |
        sed -n '/<pre id="log">/,/<\/pre>/p' | sed 's/<[^>]*>//g' >"$T/drive.txt"
    cat >"$T/drive.want" <<'EOF'
start: step 1/14 1 slide-001.svg
ArrowRight: step 2/14 1 slide-002.svg
PageDown: step 3/14 1 slide-003.svg
 : step 4/14 1 slide-004.svg
ArrowLeft: step 3/14 1 slide-003.svg
PageUp: step 2/14 1 slide-002.svg
End: step 14/14 1 slide-016.svg
ArrowRight: step 14/14 1 slide-016.svg
Home: step 1/14 1 slide-001.svg
ArrowLeft: step 1/14 1 slide-001.svg
click: step 2/14 1 slide-002.svg
N: step 2/14 1 slide-002.svg
notes: block Q = X·W_Q: the cell i
N: step 2/14 1 slide-002.svg
notes: none
EOF
    if diff "$T/drive.want" "$T/drive.txt" >"$T/drive.diff"; then
        echo "slides: index.html steps with the arrows, PgDn/PgUp, Space, Home/End and a click (chromium, file://)"
    else
        bad "index.html in chromium (< wanted, > seen):"
        cat "$T/drive.diff"
    fi
fi
[ "$fail" = 0 ] && echo "slides: ok"
exit "$fail"
