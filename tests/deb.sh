#!/bin/sh
# tests/deb.sh DEB VERSION MO... - `make deb-check`: the Debian package.
#
# - Its file list (dpkg-deb -c: modes, owners, paths) is exactly the one
#   expected from the tree: the binary, the gzipped man page, every lesson
#   and the authoring guide, every translation, the copyright and the
#   changelog, and their directories.
# - Its control: the version, Depends from dpkg-shlibdeps naming libc6.
# - The copyright's licence text is LICENSE's; the changelog's first entry
#   is this version.
# - The packaged binary, unpacked elsewhere, runs --check 1 from / and
#   finds its Chinese catalogue.
# - lintian, when installed (make installs it through tests/need.sh),
#   reports no error and no warning.
set -u
DEB=${1:?usage: tests/deb.sh DEB VERSION MO...}
VERSION=${2:?usage: tests/deb.sh DEB VERSION MO...}
shift 2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: deb: $*"; fail=1; }

# The expected list, from the tree.
{
    for d in ./ ./usr/ ./usr/bin/ ./usr/share/ ./usr/share/doc/ ./usr/share/doc/qkvtutor/ ./usr/share/locale/ \
        ./usr/share/man/ ./usr/share/man/man1/ ./usr/share/qkvtutor/ ./usr/share/qkvtutor/lessons/; do
        echo "drwxr-xr-x root/root $d"
    done
    echo "-rwxr-xr-x root/root ./usr/bin/qkvtutor"
    echo "-rw-r--r-- root/root ./usr/share/doc/qkvtutor/changelog.gz"
    echo "-rw-r--r-- root/root ./usr/share/doc/qkvtutor/copyright"
    echo "-rw-r--r-- root/root ./usr/share/man/man1/qkvtutor.1.gz"
    for f in lessons/*.yaml lessons/README.md; do
        echo "-rw-r--r-- root/root ./usr/share/qkvtutor/lessons/${f#lessons/}"
    done
    for mo in "$@"; do
        l=${mo#*/locale/}
        l=${l%%/*}
        echo "drwxr-xr-x root/root ./usr/share/locale/$l/"
        echo "drwxr-xr-x root/root ./usr/share/locale/$l/LC_MESSAGES/"
        echo "-rw-r--r-- root/root ./usr/share/locale/$l/LC_MESSAGES/qkvtutor.mo"
    done
} | LC_ALL=C sort >"$T/want"
dpkg-deb -c "$DEB" | awk '{print $1, $2, $6}' | LC_ALL=C sort >"$T/got"
if diff "$T/want" "$T/got" >"$T/diff"; then
    echo "deb: $(wc -l <"$T/got") entries, as expected"
else
    bad "the file list differs from the expected one (< expected, > in the package):"
    cat "$T/diff"
fi

# Control, copyright, changelog.
[ "$(dpkg-deb -f "$DEB" Version)" = "$VERSION" ] || bad "Version is $(dpkg-deb -f "$DEB" Version), not $VERSION"
dpkg-deb -f "$DEB" Depends | grep -q '^libc6 (>= [0-9.]*)' || bad "Depends does not start with libc6: $(dpkg-deb -f "$DEB" Depends)"
dpkg-deb -x "$DEB" "$T/root"
sed -n '/^ Permission/,$p' "$T/root/usr/share/doc/qkvtutor/copyright" | sed 's/^ //; s/^\.$//' >"$T/licence"
sed -n '/^Permission/,$p' LICENSE | cmp -s - "$T/licence" || bad "the copyright's licence text is not LICENSE's"
head -n 1 "$T/root/usr/share/doc/qkvtutor/copyright" |
    grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' || bad "copyright is not DEP-5"
gzip -dc "$T/root/usr/share/doc/qkvtutor/changelog.gz" | head -n 1 | grep -q "^qkvtutor ($VERSION) " ||
    bad "the changelog's first entry is not $VERSION"
# The binary, from /.
out=$(cd / && "$T/root/usr/bin/qkvtutor" --check 1 2>&1) || bad "qkvtutor --check 1 from /: $out"
(cd / && "$T/root/usr/bin/qkvtutor" --lang zh --help | grep -q "用法") || bad "the packaged binary finds no Chinese catalogue"
[ "$fail" = 0 ] && echo "deb: control, copyright, changelog and the binary are right"

# lintian
if command -v lintian >/dev/null 2>&1; then
    if lintian --fail-on error,warning "$DEB" >"$T/lintian" 2>&1 && ! grep -q '^[EW]: ' "$T/lintian"; then
        echo "deb: lintian: no errors or warnings"
    else
        bad "lintian:"
        cat "$T/lintian"
    fi
fi
exit "$fail"
