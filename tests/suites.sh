#!/bin/sh
# tests/suites.sh DIR "HEAVY..." SUITE... - make test's suites, in two lanes.
#
# Every SUITE runs as `$MAKE SUITE` (MAKE from the environment, default
# make). The HEAVY ones (each in a build tree of its own: valgrind's shared
# build, the ASan build, the fuzzers) run one after another in a second lane
# beside the rest, so the two cores of this machine both work; a suite's
# output goes to DIR/NAME.log and is printed whole, under one heading line,
# when the suite ends (the two lanes never interleave their lines). A suite
# whose tool could not be had leaves DIR/NAME (tests/need.sh, QKV_SKIP_DIR)
# and counts as skipped, never as passed.
# The last line is "suites: N passed, M failed, K skipped"; exit 1 when one
# failed, or, with CI=true, when one was skipped.
set -u
DIR=${1:?usage: tests/suites.sh DIR "HEAVY..." SUITE...}
HEAVY=$2
shift 2
MAKE=${MAKE:-make}
rm -rf "$DIR"
mkdir -p "$DIR/logs"
QKV_SKIP_DIR=$(cd "$DIR" && pwd)
export QKV_SKIP_DIR
start=$(date +%s)

# run SUITE: run one suite, record its status, print its log whole.
run() {
    t0=$(date +%s)
    $MAKE --no-print-directory "$1" >"$DIR/logs/$1.log" 2>&1
    rc=$?
    echo "$rc" >"$DIR/logs/$1.rc"
    if [ "$rc" != 0 ]; then verdict=FAILED
    elif [ -f "$DIR/$1" ]; then verdict=skipped
    else verdict=passed; fi
    {
        flock 9
        echo "-- suite $1: $verdict in $(($(date +%s) - t0)) s ($(($(date +%s) - start)) s into the run)"
        cat "$DIR/logs/$1.log"
    } 9>"$DIR/logs/print.lock"
}

is_heavy() {
    case " $HEAVY " in *" $1 "*) return 0 ;; esac
    return 1
}

# The heavy lane in the background, the rest here.
(for s in "$@"; do is_heavy "$s" && run "$s"; done) &
heavy=$!
for s in "$@"; do is_heavy "$s" || run "$s"; done
wait "$heavy"

pass=0 fail=0 skip=0 failed="" skipped=""
for s in "$@"; do
    if [ "$(cat "$DIR/logs/$s.rc" 2>/dev/null)" != 0 ]; then
        fail=$((fail + 1)); failed="$failed $s"
    elif [ -f "$DIR/$s" ]; then
        skip=$((skip + 1)); skipped="$skipped $s"
    else
        pass=$((pass + 1))
    fi
done
[ $skip = 0 ] || echo "suites skipped:$skipped"
[ $fail = 0 ] || echo "suites failed:$failed"
echo "suites: $pass passed, $fail failed, $skip skipped ($(($(date +%s) - start)) s)"
if [ "${CI:-}" = true ] && [ $skip != 0 ]; then
    echo "CI=true: a skipped suite fails the run (its tool must be installable here)"
    exit 1
fi
[ $fail = 0 ]
