#!/bin/sh
# tests/need.sh SUITE "PACKAGES" CHECK...: make sure a suite's tool is here.
#
# Runs CHECK (a command and its arguments, output hidden). When it fails,
# installs the Debian PACKAGES the way the Makefile's deps rule does
# (tests/apt.sh: apt-get, with sudo when not root, waiting for another
# apt's lock, apt's own words when it fails) and runs CHECK again.
#   exit 0  CHECK passes: run the suite
#   exit 1  CHECK still fails after installing (or the install failed):
#           the suite fails
#   exit 3  no apt-get here, so the tool cannot be had: the suite is
#           skipped; when QKV_SKIP_DIR is set (by `make test`), the file
#           $QKV_SKIP_DIR/SUITE records it, so the summary counts the suite
#           as skipped, not passed
# QKV_APT_GET names the installer (default apt-get); set it empty to act as
# on a machine without apt-get.
SUITE=${1:?usage: tests/need.sh SUITE "PACKAGES" CHECK...}
PKGS=${2:?usage: tests/need.sh SUITE "PACKAGES" CHECK...}
shift 2
[ $# -gt 0 ] || { echo "usage: tests/need.sh SUITE \"PACKAGES\" CHECK..." >&2; exit 1; }
"$@" >/dev/null 2>&1 && exit 0

APT=${QKV_APT_GET-apt-get}
if [ -z "$APT" ] || ! command -v "$APT" >/dev/null 2>&1; then
    echo "$SUITE: skipped: \"$*\" fails and there is no apt-get here to install $PKGS"
    if [ -n "${QKV_SKIP_DIR:-}" ]; then
        mkdir -p "$QKV_SKIP_DIR" && echo "no apt-get to install $PKGS" >"$QKV_SKIP_DIR/$SUITE"
    fi
    exit 3
fi
echo "$SUITE: installing $PKGS"
# make test runs suites in two lanes (tests/suites.sh): one install at a
# time (apt holds dpkg's lock; a second apt-get would fail on it, not wait).
exec 8>"${TMPDIR:-/tmp}/qkvtutor-apt.lock"
flock 8
"$@" >/dev/null 2>&1 && exit 0 # the other lane may have installed it meanwhile
# (tests/apt.sh waits for another apt's lock and prints apt's reason)
# shellcheck disable=SC2086  # PKGS is a list of package names
if ! QKV_APT_GET=$APT sh "$(dirname "$0")/apt.sh" "$SUITE" $PKGS; then
    echo "FAIL: $SUITE: could not install $PKGS"
    exit 1
fi
"$@" >/dev/null 2>&1 && exit 0
echo "FAIL: $SUITE: $PKGS installed, but \"$*\" still fails"
exit 1
