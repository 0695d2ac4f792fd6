#!/bin/sh
# bad_lessons.sh BINARY - the bad-lesson corpus.
#
# For every tests/bad/NAME.yaml, runs `BINARY --check tests/bad/NAME.yaml`
# and requires exit status 2 and a stderr exactly equal to
# tests/bad/NAME.expected (one line: "FILE:LINE:COL: message"). Prints
# "ok: NAME" or what differed, then a summary; exits 1 if any failed.
set -u
bin=${1:?usage: sh tests/bad_lessons.sh BINARY}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
cd "$(dirname "$0")/.." || exit 1

got=$(mktemp) || exit 1
trap 'rm -f "$got"' EXIT INT TERM
pass=0
failed=0
for f in tests/bad/*.yaml; do
    name=$(basename "$f" .yaml)
    want=tests/bad/$name.expected
    if [ ! -f "$want" ]; then
        echo "FAIL: $name: $want is missing"
        failed=$((failed + 1))
        continue
    fi
    LANGUAGE=en LC_ALL=C.UTF-8 "$bin" --check "$f" >/dev/null 2>"$got"
    status=$?
    if [ "$status" -eq 2 ] && cmp -s "$want" "$got"; then
        echo "ok: $name"
        pass=$((pass + 1))
    else
        [ "$status" -eq 2 ] || echo "FAIL: $name: exit status $status, want 2"
        cmp -s "$want" "$got" || { echo "FAIL: $name: stderr differs from $want"; \
            diff -u "$want" "$got" | sed 's/^/    /'; }
        failed=$((failed + 1))
    fi
done
echo "bad lessons: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
