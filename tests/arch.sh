#!/bin/sh
# tests/arch.sh BUILD_DIR - the shape of the code stays as DESIGN.md
# "Architecture" draws it (README.md "How the code is laid out"):
#   1. includes point one way: core <- text <- lesson <- words <- layout <- ui <-
#      term / web / out <- main; core includes nothing of ours; text/ (the base)
#      includes only core/ and itself; term/, web/ and out/ do not include each other;
#   2. curses is included only in src/term/ (and src/main.c);
#   3. no source file under src/ over 700 lines;
#   4. no function over 60 lines (from its "{" at column 0 to its "}" at
#      column 0), with a self-test: a 61-line function must fail, 60 pass;
#   5. no two object files call each other's functions (nm: A uses a symbol B
#      defines and B one A defines), with a self-test on two such objects;
#   6. one UTF-8 decoder: only src/text/text.c tests UTF-8 byte patterns
#      (0xC0, 0xE0, 0xF0 masks) or calls mbrtowc/wcwidth; every other file uses
#      text.h's functions, with a
#      self-test on a file that masks a byte and one that does not.
# One line per breach, then "arch: N passed, M failed"; exit 1 on any breach.
set -u
B=${1:-build}
MAX_FILE=700
MAX_FN=60
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

rank() {
    case $1 in
        core) echo 0 ;; text) echo 1 ;; lesson) echo 2 ;; words) echo 3 ;; layout) echo 4 ;;
        ui) echo 5 ;; term|out|web) echo 6 ;; main) echo 7 ;; *) echo 9 ;;
    esac
}

# 1. include direction
n=0
for f in $(find src -name '*.[ch]' | sort); do
    dir=${f#src/}; dir=${dir%/*}; case $dir in *.[ch]) dir=main ;; esac
    me="$dir/${f##*/}"; [ "$dir" = main ] && me=${f#src/}
    for inc in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
        case $inc in */*) to=${inc%%/*}; hdr=$inc ;; *) to=$dir; hdr="$dir/$inc" ;; esac
        [ "$to" = "$dir" ] && continue
        rf=$(rank "$dir") rt=$(rank "$to")
        why=""
        if [ "$dir" = core ]; then why="core includes nothing of ours"
        elif [ "$rt" -ge "$rf" ]; then why="$dir/ is below $to/"
        fi
        [ -n "$why" ] && { bad "$f includes \"$inc\": $why"; n=$((n + 1)); }
    done
done
[ $n = 0 ] && ok "includes point one way (core <- text <- lesson <- words <- layout <- ui <- term / web / out <- main)"

# 2. curses only in term/ and main.c
n=0
for f in $(grep -rlE '^[ \t]*#[ \t]*include[ \t]*<(n?curses|ncursesw/|term\.h)' src | sort); do
    case $f in src/term/*|src/main.c) ;; *) bad "$f includes curses (only src/term/ may)"; n=$((n + 1)) ;; esac
done
[ $n = 0 ] && ok "curses is included only in src/term/ and src/main.c"

# 3. file sizes
n=0
for f in $(find src -name '*.[ch]' | sort); do
    l=$(wc -l <"$f")
    [ "$l" -gt $MAX_FILE ] && { bad "$f has $l lines (at most $MAX_FILE)"; n=$((n + 1)); }
done
[ $n = 0 ] && ok "no source file over $MAX_FILE lines"

# 4. function sizes: a body opens with "{" at column 0 and closes with "}" at
# column 0; its length counts both lines. The name is the last line before
# it that starts at column 0 with a letter (the signature's first line).
fn_sizes() {
    _max=$1; shift
    awk -v max="$_max" '
        FNR == 1 { body = 0 }
        /^\{/ && !body { body = 1; start = FNR; name = sig; next }
        /^\}/ && body { body = 0; n = FNR - start + 1
                        if (n > max) { sub(/\(.*/, "", name); print FILENAME ":" start ": " name " has " n " lines" }
                        next }
        /^[A-Za-z_]/ { sig = $0 }' "$@"
}
# self-test: a 61-line function is caught, a 60-line one is not
{ echo 'int f(void)'; echo '{'; i=0; while [ $i -lt 58 ]; do echo '    x++;'; i=$((i + 1)); done; echo '}'; } >"$tmp/ok60.c"
{ echo 'int g(void)'; echo '{'; i=0; while [ $i -lt 59 ]; do echo '    x++;'; i=$((i + 1)); done; echo '}'; } >"$tmp/bad61.c"
if [ -z "$(fn_sizes $MAX_FN "$tmp/ok60.c")" ] && fn_sizes $MAX_FN "$tmp/bad61.c" | grep -q 'g has 61 lines'; then
    ok "self-test: the function scan passes a 60-line function and catches a 61-line one"
else
    bad "self-test: the function scan does not tell 60 lines from 61"
fi
if ! fn_sizes $MAX_FN $(find src -name '*.c' | sort) >"$tmp/long"; then
    bad "the function scan did not run"
elif [ -s "$tmp/long" ]; then
    while read -r line; do bad "$line (at most $MAX_FN)"; done <"$tmp/long"
else
    ok "no function over $MAX_FN lines"
fi

# 5. no two object files use each other's functions
mutual() {
    # one awk over every object's symbols: edges a -> b when a uses b's
    # functions, then each pair with edges both ways (a few names of each)
    for o in "$@"; do
        nm -u "$o" | awk -v o="$o" '{print "U", o, $2}'
        nm -g --defined-only "$o" | awk -v o="$o" '{print "D", o, $3}'
    done | awk '
        $1 == "D" { def[$3] = $2; next }
        { und[++n] = $2 " " $3 }
        END {
            for (k = 1; k <= n; k++) {
                split(und[k], u, " "); d = def[u[2]]
                if (d == "" || d == u[1]) continue
                e = u[1] SUBSEP d
                if (cnt[e]++ < 3) names[e] = names[e] u[2] " "
            }
            for (e in cnt) {
                split(e, ab, SUBSEP); r = ab[2] SUBSEP ab[1]
                if (ab[1] < ab[2] && (r in cnt))
                    print ab[1] " and " ab[2] " use each other: " names[e] "/ " names[r]
            }
        }' | sort
}
printf 'int pong(int);\nint ping(int n) { return n ? pong(n - 1) : 0; }\n' >"$tmp/ping.c"
printf 'int ping(int);\nint pong(int n) { return n ? ping(n - 1) : 1; }\n' >"$tmp/pong.c"
printf 'int ping(int);\nint solo(void) { return ping(2); }\n' >"$tmp/solo.c"
if ${CC:-cc} -c -o "$tmp/ping.o" "$tmp/ping.c" && ${CC:-cc} -c -o "$tmp/pong.o" "$tmp/pong.c" &&
   ${CC:-cc} -c -o "$tmp/solo.o" "$tmp/solo.c" &&
   [ "$(mutual "$tmp/ping.o" "$tmp/pong.o" "$tmp/solo.o" | wc -l)" = 1 ] &&
   mutual "$tmp/ping.o" "$tmp/pong.o" | grep -q 'ping.o and .*pong.o use each other'; then
    ok "self-test: the object scan catches two files that call each other, not one that only calls"
else
    bad "self-test: the object scan misses two files that call each other"
fi
# only objects of sources that exist: a build folder keeps objects of files since moved
objs=$(find "$B/core" "$B/lesson" "$B/text" "$B/words" "$B/layout" "$B/ui" "$B/term" "$B/out" "$B/main.o" -name '*.o' 2>/dev/null |
       sort | while read -r o; do src=src/${o#$B/}; [ -f "${src%.o}.c" ] && echo "$o"; done)
if [ -z "$objs" ]; then
    bad "no objects under $B (build first: make all)"
else
    mkdir -p "$tmp/o"; for o in $objs; do cp "$o" "$tmp/o/$(echo "${o#$B/}" | tr / _)"; done
    mutual "$tmp"/o/*.o | sed "s|$tmp/o/||g" >"$tmp/mutual"
    if [ -s "$tmp/mutual" ]; then while read -r line; do bad "$line"; done <"$tmp/mutual"
    else ok "no two object files use each other's functions ($(echo "$objs" | wc -l) objects)"; fi
fi

# 6. one UTF-8 decoder
UTF8_OWN="src/text/text.c src/text/text.h"
utf8_hand() {
    grep -nHiE '\b0x[cef]0\b|\b(mbrtowc|mbtowc|mbrlen|mblen|wcwidth|wcswidth)[ \t]*\(' "$@" | grep -vE '^[^:]*:[0-9]+:[ \t]*(/?\*|//)'
}
printf 'int f(const char *s) { return (s[0] & 0xC0) == 0x80; }\n' >"$tmp/hand.c"
printf 'int g(unsigned x) { return x == 0xC097ce7bu || x == 0x80; }\n' >"$tmp/fine.c"
if [ -n "$(utf8_hand "$tmp/hand.c")" ] && [ -z "$(utf8_hand "$tmp/fine.c")" ]; then
    ok "self-test: the UTF-8 scan catches a byte mask, not a long constant"
else
    bad "self-test: the UTF-8 scan does not tell a byte mask from a constant"
fi
n=0
for f in $(find src -name '*.[ch]' | sort); do
    case " $UTF8_OWN " in *" $f "*) continue ;; esac
    utf8_hand "$f" >"$tmp/hand" || continue
    while IFS=: read -r file line code; do
        bad "$file:$line: steps through UTF-8 by hand; use text.h's functions (text_utf8_next, text_char_prev/next/start, text_chars, text_width): $(echo $code | cut -c1-60)"
        n=$((n + 1))
    done <"$tmp/hand"
done
[ $n = 0 ] && ok "one UTF-8 decoder: only src/text/text.c masks UTF-8 bytes or calls mbrtowc/wcwidth"

echo "arch: $pass passed, $fail failed"
[ $fail = 0 ]
