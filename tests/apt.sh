#!/bin/sh
# tests/apt.sh WHO PACKAGES...: install Debian packages for `make` and
# `make test` (the Makefile's deps rule and tests/need.sh), with sudo when
# not root.
#
# Another apt or dpkg holding the lock is waited for, not taken as a
# failure: apt-get waits for dpkg's lock itself (DPkg::Lock::Timeout), and
# a run that still fails on a lock (apt-get update's lists lock) is tried
# again every 5 s (QKV_APT_RETRY), up to QKV_APT_WAIT seconds in all (default 600), with
# one line saying so. When it fails for another reason, or the wait runs
# out, apt's own last lines are printed (prefixed with WHO), and it exits 1.
# QKV_APT_GET names the installer (default apt-get), QKV_SUDO the sudo
# (default: sudo when not root), QKV_APT_RETRY the seconds between tries
# (tests/apt_test.sh sets them).
WHO=${1:?usage: tests/apt.sh WHO PACKAGES...}
shift
APT=${QKV_APT_GET:-apt-get}
WAIT=${QKV_APT_WAIT:-600}
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
SUDO=${QKV_SUDO-$SUDO}
RETRY=${QKV_APT_RETRY:-5}
LOG=$(mktemp "${TMPDIR:-/tmp}/qkvtutor-apt.XXXXXX") || exit 1
trap 'rm -f "$LOG"' EXIT

locked() { grep -qE 'Could not get lock|Unable to acquire the dpkg frontend lock|is held by process|Unable to lock' "$LOG"; }

start=$(date +%s)
said=""
while :; do
    # shellcheck disable=SC2086,SC2068  # the packages are words
    if { $SUDO "$APT" -o DPkg::Lock::Timeout="$WAIT" update -qq &&
         DEBIAN_FRONTEND=noninteractive $SUDO "$APT" -o DPkg::Lock::Timeout="$WAIT" install -y -qq "$@"; } >"$LOG" 2>&1; then
        exit 0
    fi
    waited=$(($(date +%s) - start))
    if locked && [ "$waited" -lt "$WAIT" ]; then
        [ -n "$said" ] || echo "$WHO: another apt or dpkg holds the package lock; waiting for it (at most $WAIT s)"
        said=1
        sleep "$RETRY"
        continue
    fi
    break
done
if locked; then
    echo "$WHO: the package lock was still held after $waited s; apt said:"
else
    echo "$WHO: $SUDO $APT install $* failed; apt said:"
fi
grep -v '^ *$' "$LOG" | tail -n 8 | sed "s/^/$WHO:   /"
exit 1
