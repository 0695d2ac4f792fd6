#!/bin/sh
# tests/apt_test.sh - `make test`'s installer (tests/apt.sh, through
# tests/need.sh) against a fake apt-get: it waits while another apt holds
# the lock, saying so, and installs once the lock is free; it prints apt's
# own reason when apt fails for another reason or the lock stays held.
set -u
D=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 failn=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { failn=$((failn + 1)); echo "FAIL: $*"; }

# The fake: update fails on the lists lock for the first $LOCKED calls
# (-1: always), install fails with $INSTALL_ERR when set, else "installs"
# by creating $T/installed.
cat >"$T/apt-get" <<'FAKE'
#!/bin/sh
n=$(cat "$FAKE_DIR/calls" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"$FAKE_DIR/calls"
for a in "$@"; do case $a in update) op=update ;; install) op=install ;; esac; done
if [ "$op" = update ] && { [ "$LOCKED" = -1 ] || [ "$n" -le "$LOCKED" ]; }; then
    echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2; exit 100
fi
if [ "$op" = install ] && [ -n "${INSTALL_ERR:-}" ]; then echo "E: $INSTALL_ERR" >&2; exit 100; fi
[ "$op" = install ] && : >"$FAKE_DIR/installed"
exit 0
FAKE
chmod +x "$T/apt-get"
export FAKE_DIR="$T" QKV_SUDO= QKV_APT_RETRY=0.1

# need.sh with the fake: the check passes once "installed" exists.
run() { rm -f "$T/calls" "$T/installed"
    QKV_APT_GET="$T/apt-get" sh "$D/need.sh" demo fakepkg test -e "$T/installed" >"$T/out" 2>&1; rc=$?; }

LOCKED=2 INSTALL_ERR= QKV_APT_WAIT=60; export LOCKED INSTALL_ERR QKV_APT_WAIT
run
if [ $rc = 0 ] && grep -qx "demo: another apt or dpkg holds the package lock; waiting for it (at most 60 s)" "$T/out" &&
    [ "$(grep -c waiting "$T/out")" = 1 ]; then ok "the lock held twice: one line says it waits, then it installs"
else bad "the lock held twice: status $rc, $(cat "$T/out")"; fi

LOCKED=0 INSTALL_ERR="Unable to locate package fakepkg"
run
if [ $rc = 1 ] && grep -qx "demo:   E: Unable to locate package fakepkg" "$T/out" &&
    grep -qx "FAIL: demo: could not install fakepkg" "$T/out"; then ok "apt fails: its own reason is printed"
else bad "apt fails: status $rc, $(cat "$T/out")"; fi

LOCKED=-1 INSTALL_ERR= QKV_APT_WAIT=1
run
if [ $rc = 1 ] && grep -q "^demo: the package lock was still held after [0-9]* s; apt said:$" "$T/out" &&
    grep -qx "demo:   E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" "$T/out"
then ok "the lock stays held: it gives up after the wait, with apt's words"
else bad "the lock stays held: status $rc, $(cat "$T/out")"; fi

echo "installer: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
