#!/bin/sh
# tests/keys_doc.sh KEYS_TABLE README MANPAGE - the key tables of README.md
# and of the man page's KEYS section must say what the key table of
# src/ui/keymap.c says (the one that binds the keys and writes the ? help).
#
# KEYS_TABLE is build/tests/keys_table: it prints one line per help line,
# "KEYS<tab>HELP". Each document must have exactly those lines, in that
# order, nothing more:
#   README.md, under "### Keys":   | KEYS | HELP[ more words] |
#   the man page, under .SH KEYS:  .TP / .B "KEYS" / HELP[ more words]
# The description starts with HELP (its first letter in either case; in
# README, `code` marks are ignored; in the man page \- reads as -), and may
# go on after it with a character that is not a letter or a digit.
# Prints ok/FAIL lines and "keys-doc: N passed, M failed"; exits 1 on failure.
set -u
TABLE=${1:?usage: tests/keys_doc.sh KEYS_TABLE README MANPAGE}
README=${2:?usage: tests/keys_doc.sh KEYS_TABLE README MANPAGE}
MAN=${3:?usage: tests/keys_doc.sh KEYS_TABLE README MANPAGE}
LC_ALL=C.UTF-8
export LC_ALL
T=$(mktemp -d "${TMPDIR:-/tmp}/qkv-keysdoc.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

"$TABLE" >"$T/table" || { echo "FAIL: $TABLE did not run"; echo "keys-doc: 0 passed, 1 failed"; exit 1; }
[ -s "$T/table" ] || { echo "FAIL: $TABLE printed no key table"; echo "keys-doc: 0 passed, 1 failed"; exit 1; }

# README.md: the rows of the first table after "### Keys", minus its header.
awk -F '|' '
    /^### Keys[ \t]*$/ { on = 1; next }
    on && /^#/ { exit }
    on && /^\|/ { t = 1
        if ($0 ~ /^\|[-: |]*\|[ \t]*$/) next            # | --- | --- |
        if (NF != 4) { printf "BAD\t%s\n", $0; next }
        k = $2; d = $3
        gsub(/^[ \t]+|[ \t]+$/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", d); gsub(/`/, "", d)
        if (!head++) next                                  # | keys | action |
        printf "%s\t%s\n", k, d; next }
    on && t { exit }
' "$README" >"$T/readme"

# The man page: each .TP under .SH KEYS, its .B "KEYS" tag, then the first
# line of its text.
awk '
    function unesc(s) { gsub(/\\-/, "-", s); gsub(/\\&/, "", s); gsub(/\\\(aq/, "\047", s); gsub(/\\e/, "\\", s); return s }
    /^\.SH / { on = ($0 ~ /^\.SH "?KEYS"?[ \t]*$/); next }
    !on { next }
    /^\.TP/ { want = "tag"; next }
    want == "tag" {
        if ($0 !~ /^\.B /) { printf "BAD\t%s\n", $0; want = ""; next }
        k = substr($0, 4); gsub(/^[ \t]+|[ \t]+$/, "", k)
        if (k ~ /^".*"$/) k = substr(k, 2, length(k) - 2)
        key = unesc(k); want = "text"; next }
    want == "text" {
        if ($0 ~ /^\./) { printf "BAD\t.TP %s has no text line after it\n", key; want = ""; next }
        printf "%s\t%s\n", key, unesc($0); want = ""; next }
' "$MAN" >"$T/man"

# check NAME FILE: FILE's lines against the table; prints what is wrong.
check()
{
    awk -F '\t' -v doc="$1" '
        NR == FNR { n++; tk[n] = $1; th[n] = $2; idx[$1] = n; next }
        $1 == "BAD" { printf "FAIL: %s: not a key line of the expected form: %s\n", doc, $2; bad++; next }
        { m++; dk[m] = $1; dd[m] = $2; seen[$1]++ }
        END {
            for (i = 1; i <= n; i++)
                if (!seen[tk[i]]) { printf "FAIL: %s: no line for the keys \"%s\" (%s)\n", doc, tk[i], th[i]; bad++ }
            for (i = 1; i <= m; i++) {
                k = dk[i]
                if (!(k in idx)) { printf "FAIL: %s: \"%s\" is not in the key table (extra line: %s)\n", doc, k, dd[i]; bad++; continue }
                if (seen[k] > 1 && !dup[k]++) { printf "FAIL: %s: the keys \"%s\" have %d lines\n", doc, k, seen[k]; bad++ }
                h = th[idx[k]]; d = dd[i]; l = length(h)
                ok = tolower(substr(d, 1, 1)) == tolower(substr(h, 1, 1)) && substr(d, 2, l - 1) == substr(h, 2) &&
                     (length(d) == l || substr(d, l + 1, 1) !~ /[[:alnum:]]/)
                if (!ok) { printf "FAIL: %s: the keys \"%s\" say \"%s\", want it to start with \"%s\"\n", doc, k, d, h; bad++ }
            }
            if (!bad) {   # the same keys, each once: now the order
                for (i = 1; i <= m && i <= n; i++)
                    if (dk[i] != tk[i]) { printf "FAIL: %s: line %d is \"%s\", the key table has \"%s\" there\n", doc, i, dk[i], tk[i]; bad++; break }
            }
            exit bad ? 1 : 0
        }' "$T/table" "$2"
}

for doc in README.md:readme man:man; do
    name=${doc%%:*} file=$T/${doc#*:}
    [ "$name" = man ] && name=$MAN || name=$README
    if check "$name" "$file"; then
        pass=$((pass + 1))
        echo "ok: $name: the $(wc -l <"$T/table") lines of the key table, each with its description, nothing more"
    else
        fail=$((fail + 1))
    fi
done
echo "keys-doc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
