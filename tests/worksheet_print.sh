#!/bin/sh
# tests/worksheet_print.sh BINARY - --class as README.md prints it.
#
#  - README.md's print command (the line "qkvtutor --class ... --format pdf")
#    runs as written, with BINARY as qkvtutor, in a scratch folder;
#  - it writes sheet-01.md ... sheet-NN.md and key.md, and sheets.pdf and
#    key.pdf on A4 (pdfinfo); each student starts a new page (pdftotext: page
#    1 + (k-1)*P/N holds "student 0k"); the Chinese set shows its Chinese
#    (the CJK font is there);
#  - no table runs off the page: every word of every page of the PDFs ends
#    left of the right margin (pdftotext -bbox); the check's self-test prints
#    a page with a too-wide table and must see it;
#  - --format html is self-contained (no src= or href= to another file);
#  - --paper letter gives Letter pages;
#  - a sheet is one sheet of paper: every built-in lesson's class set, on A4
#    and Letter in English and on A4 in Chinese, takes at most 2 pages a
#    student, and no question is split across a page break
#    (tests/worksheet_pages.py).
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
README=$(pwd)/README.md
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export LANGUAGE=en LC_ALL=C.UTF-8
pass=0 failn=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { failn=$((failn + 1)); echo "FAIL: $1"; }

# decimals FILE...: how many decimal numbers the text holds
decimals() { cat "$@" | grep -oE '[0-9]+\.[0-9]+' | wc -l; }

# overflow PDF [MD...]: words past the right margin (page width - 10 mm), one
# a line; and, given the Markdown it was printed from, a line when the PDF
# holds fewer decimal numbers than the Markdown (Chromium leaves out what a
# too-wide table pushes off the page)
overflow()
{
    pdf=$1
    shift
    if [ $# -gt 0 ]; then
        want=$(decimals "$@") got=$(pdftotext "$pdf" - | decimals)
        [ "$got" -ge "$want" ] || echo "the PDF shows $got of the Markdown's $want numbers"
    fi
    pdftotext -bbox "$pdf" - | awk '
        /<page / { match($0, /width="[0-9.]+"/); w = substr($0, RSTART + 7, RLENGTH - 8) + 0; limit = w - 28.3 }
        /<word / { match($0, /xMax="[0-9.]+"/); x = substr($0, RSTART + 6, RLENGTH - 7) + 0;
                   if (x > limit) { sub(/.*">/, ""); sub(/<.*/, ""); print x " > " limit ": " $0 } }'
}

# The checker sees a table that is too wide.
mkdir -p "$T/wide" && {
    echo '<!DOCTYPE html><html><head><meta charset="utf-8"><style>@page { size: A4; margin: 15mm }</style></head><body><table><tr>'
    i=0; while [ $i -lt 30 ]; do echo "<td>-0.123$i</td>"; i=$((i + 1)); done
    echo '</tr></table></body></html>'
} >"$T/wide/w.html"
chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$T/wide/profile" --no-pdf-header-footer --print-to-pdf="$T/wide/w.pdf" \
    "file://$T/wide/w.html" >/dev/null 2>&1
grep -o '<td>[^<]*' "$T/wide/w.html" | sed 's/<td>//' >"$T/wide/w.md"
if [ -s "$T/wide/w.pdf" ] && [ -n "$(overflow "$T/wide/w.pdf" "$T/wide/w.md")" ]; then ok "self-test: the overflow check sees a 30-column table run off an A4 page"
else bad "self-test: the overflow check misses a table that runs off the page"; fi

# README's command, as written.
cmd=$(grep -m1 '^qkvtutor --class .* --format pdf' "$README")
n=$(echo "$cmd" | sed 's/.*--class \([0-9]*\).*/\1/')
out=$(echo "$cmd" | sed 's/.*--out \([^ ]*\).*/\1/')
mkdir -p "$T/bin" "$T/run" && ln -s "$BIN" "$T/bin/qkvtutor"
if [ -n "$cmd" ] && (cd "$T/run" && PATH="$T/bin:$PATH" sh -c "$cmd") 2>"$T/err"; then ok "README's print command runs: $cmd"
else bad "README's print command fails: '$cmd': $(cat "$T/err")"; fi
D=$T/run/$out
files=0
k=1; while [ "$k" -le "$n" ]; do [ -s "$D/sheet-$(printf %02d "$k").md" ] && files=$((files + 1)); k=$((k + 1)); done
if [ "$files" = "$n" ] && [ -s "$D/key.md" ] && [ "$(grep -c '^| [0-9][0-9] | ' "$D/key.md")" = "$n" ]; then
    ok "$n sheets and a key with $n rows in its marking table"
else bad "$files of $n sheets, key.md: $(grep -c '^| [0-9][0-9] | ' "$D/key.md" 2>/dev/null) rows"; fi

# pages: A4, each student from a new page
check_pdf()
{
    pdf=$1 students=$2 word=$3 size=$4
    shift 4
    pages=$(pdfinfo "$pdf" 2>/dev/null | sed -n 's/^Pages: *//p')
    if ! pdfinfo "$pdf" | grep -qi "^Page size:.*($size)"; then bad "$pdf is not $size: $(pdfinfo "$pdf" | grep 'Page size')"; return; fi
    if [ -z "$pages" ] || [ $((pages % students)) != 0 ]; then bad "$pdf has $pages pages for $students students"; return; fi
    per=$((pages / students)) k=1 wrong=""
    while [ -n "$word" ] && [ "$k" -le "$students" ]; do
        p=$((1 + (k - 1) * per))
        pdftotext -f "$p" -l "$p" "$pdf" - | grep -q "$word $(printf %02d "$k")" || wrong="$wrong $k"
        k=$((k + 1))
    done
    if [ -z "$wrong" ]; then ok "$(basename "$pdf"): $pages $size pages, $per per student, each student's from a new page"
    else bad "$pdf: students$wrong do not start their page"; fi
    o=$(overflow "$pdf" "$@")
    if [ -z "$o" ]; then ok "$(basename "$pdf"): no word past the right margin on any page"
    else bad "$pdf: words past the right margin: $(echo "$o" | head -3)"; fi
}
check_pdf "$D/sheets.pdf" "$n" "student" A4 "$D"/sheet-*.md
check_pdf "$D/key.pdf" 1 "" A4 "$D/key.md"

# Chinese, lesson 8 (heads, the widest givens), Letter
"$BIN" --class 2 --out "$T/zh" --format pdf --paper letter --lang zh 8 2>"$T/err" || bad "--class 2 --lang zh 8: $(cat "$T/err")"
check_pdf "$T/zh/sheets.pdf" 2 "学生" Letter "$T/zh"/sheet-*.md
if pdftotext "$T/zh/sheets.pdf" - | grep -q "注意力头"; then ok "the Chinese sheet shows its Chinese in the PDF"
else bad "the Chinese PDF lost its Chinese (no CJK font?)"; fi

# Model lessons (their settings table, the questions' tables), in English on A4 and in Chinese on Letter.
for f in lessons/14-a-whole-block.yaml lessons/15-the-next-token.yaml lessons/18-watch-it-learn.yaml; do
    b=$(basename "$f" .yaml)
    "$BIN" --class 2 --out "$T/$b" --format pdf "$f" 2>"$T/err" || bad "--class 2 $f: $(cat "$T/err")"
    check_pdf "$T/$b/sheets.pdf" 2 "student" A4 "$T/$b"/sheet-*.md
    check_pdf "$T/$b/key.pdf" 1 "" A4 "$T/$b/key.md"
    "$BIN" --class 2 --out "$T/$b-zh" --format pdf --paper letter --lang zh "$f" 2>"$T/err" || bad "--class 2 --lang zh $f: $(cat "$T/err")"
    check_pdf "$T/$b-zh/sheets.pdf" 2 "学生" Letter "$T/$b-zh"/sheet-*.md
done

# HTML: self-contained
"$BIN" --class 2 --out "$T/html" --format html 1
if [ -s "$T/html/sheets.html" ] && ! grep -qE '(src|href)=' "$T/html/sheets.html" "$T/html/key.html" &&
   grep -q '@page { size: A4' "$T/html/sheets.html" && [ "$(grep -c '<section class="student">' "$T/html/sheets.html")" = 2 ]; then
    ok "sheets.html and key.html are self-contained, A4, one section per student"
else bad "the HTML is not self-contained or lacks its sections"; fi

# One sheet of paper a student, every question whole on its page: every
# lesson that makes a class set (model lessons too; trained weights refuse --class).
sets=$(for f in lessons/*.yaml; do "$BIN" --class 1 --out "$T/try" "$f" >/dev/null 2>&1 && echo "$f"; rm -rf "$T/try"; done)
for run in "a4 en" "letter en" "a4 zh"; do
    # shellcheck disable=SC2086
    if ${PYTHON:-python3} tests/worksheet_pages.py "$BIN" $run $sets >"$T/pages" 2>&1; then
        ok "$(tail -n 1 "$T/pages") ($run)"
    else bad "$(grep -v '^ok' "$T/pages")"; fi
done

echo "worksheet-print: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
