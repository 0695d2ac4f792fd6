#!/bin/sh
# tests/deb.sh DEB VERSION MO... - `make deb-check`: the Debian package.
#
# - Its file list (dpkg-deb -c: modes, owners, paths) is exactly the one
#   expected from the tree: the binary, the gzipped man pages (English and
#   Chinese), every lesson and the authoring guide, every translation, the
#   copyright, the changelog and README.md, the desktop entry and its icon,
#   the lintian override, and their directories.
# - Its control: the version, Depends from dpkg-shlibdeps naming libc6, a
#   Homepage, a Maintainer that is not a placeholder.
# - Both man pages' FILES name the packaged paths (/usr/share/...), and
#   each of those paths is in the package; the Chinese page is Chinese.
# - The desktop entry runs qkvtutor in a terminal, in Education, with the
#   packaged icon; the icon is well-formed SVG (xmllint, when installed).
# - The binary is hardened: PIE and fortified functions (*_chk).
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
        ./usr/share/man/ ./usr/share/man/man1/ ./usr/share/man/zh_CN/ ./usr/share/man/zh_CN/man1/ \
        ./usr/share/qkvtutor/ ./usr/share/qkvtutor/lessons/ ./usr/share/applications/ ./usr/share/icons/ \
        ./usr/share/icons/hicolor/ ./usr/share/icons/hicolor/scalable/ ./usr/share/icons/hicolor/scalable/apps/ \
        ./usr/share/lintian/ ./usr/share/lintian/overrides/; do
        echo "drwxr-xr-x root/root $d"
    done
    echo "-rwxr-xr-x root/root ./usr/bin/qkvtutor"
    echo "-rw-r--r-- root/root ./usr/share/doc/qkvtutor/changelog.gz"
    echo "-rw-r--r-- root/root ./usr/share/doc/qkvtutor/copyright"
    echo "-rw-r--r-- root/root ./usr/share/doc/qkvtutor/README.md"
    echo "-rw-r--r-- root/root ./usr/share/man/man1/qkvtutor.1.gz"
    echo "-rw-r--r-- root/root ./usr/share/man/zh_CN/man1/qkvtutor.1.gz"
    echo "-rw-r--r-- root/root ./usr/share/applications/qkvtutor.desktop"
    echo "-rw-r--r-- root/root ./usr/share/icons/hicolor/scalable/apps/qkvtutor.svg"
    echo "-rw-r--r-- root/root ./usr/share/lintian/overrides/qkvtutor"
    for f in lessons/*.yaml lessons/README.md; do
        echo "-rw-r--r-- root/root ./usr/share/qkvtutor/lessons/${f#lessons/}"
    done
    if ls lessons/weights/*.yaml >/dev/null 2>&1; then
        echo "drwxr-xr-x root/root ./usr/share/qkvtutor/lessons/weights/"
        for f in lessons/weights/*.yaml; do
            echo "-rw-r--r-- root/root ./usr/share/qkvtutor/lessons/${f#lessons/}"
        done
    fi
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
# Homepage and maintainer
# (no public page yet: Homepage is written only when make deb is given one)
h=$(dpkg-deb -f "$DEB" Homepage)
[ -z "$h" ] || echo "$h" | grep -q '^https://' || bad "Homepage is not a https URL: $h"
m=$(dpkg-deb -f "$DEB" Maintainer)
echo "$m" | grep -q '^[^<]* <[^@ ]*@[^> ]*>$' && ! echo "$m" | grep -q '\.example>' || bad "Maintainer is a placeholder: $m"
cmp -s README.md "$T/root/usr/share/doc/qkvtutor/README.md" || bad "the packaged README.md is not README.md"
# The man pages: FILES names what the package holds, at /usr
for man in usr/share/man/man1/qkvtutor.1.gz usr/share/man/zh_CN/man1/qkvtutor.1.gz; do
    gzip -dc "$T/root/$man" >"$T/page"
    files=$(sed -n '/^\.SH \(FILES\|文件\)/,/^\.SH/p' "$T/page" | sed -n 's/^\.I \(\/.*\)/\1/p')
    [ "$(echo "$files" | wc -l)" = 3 ] || bad "$man: FILES names $(echo "$files" | wc -l) paths, not 3: $files"
    for f in $files; do
        [ -e "$T/root$f" ] || bad "$man: FILES names $f, which the package does not hold"
    done
    grep -q '/usr/local\|@[A-Z]*DIR@' "$T/page" && bad "$man names /usr/local or a placeholder: $(grep -n '/usr/local\|@[A-Z]*DIR@' "$T/page" | head -n 3)"
done
gzip -dc "$T/root/usr/share/man/zh_CN/man1/qkvtutor.1.gz" | grep -q '^\.SH 选项' || bad "the Chinese man page has no 选项 section"
# The desktop entry and its icon
desk="$T/root/usr/share/applications/qkvtutor.desktop"
for line in 'Type=Application' 'Exec=qkvtutor' 'Terminal=true' 'Icon=qkvtutor' 'Categories=Education;Science;'; do
    grep -qx "$line" "$desk" || bad "the desktop entry lacks $line"
done
grep -q '^Comment\[zh_CN\]=' "$desk" || bad "the desktop entry has no Chinese comment"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$T/root/usr/share/icons/hicolor/scalable/apps/qkvtutor.svg" || bad "the icon is not well-formed SVG"
fi
# Hardening: PIE, fortified functions
readelf -h "$T/root/usr/bin/qkvtutor" | grep -q 'Type: *DYN' || bad "the binary is not PIE"
readelf -W --dyn-syms "$T/root/usr/bin/qkvtutor" | grep -q '__[a-z]*_chk' || bad "the binary calls no fortified function (no -D_FORTIFY_SOURCE)"
# The binary, from /.
out=$(cd / && "$T/root/usr/bin/qkvtutor" --check 1 2>&1) || bad "qkvtutor --check 1 from /: $out"
(cd / && "$T/root/usr/bin/qkvtutor" --lang zh --help | grep -q "用法") || bad "the packaged binary finds no Chinese catalogue"
[ "$fail" = 0 ] && echo "deb: control, copyright, changelog and the binary are right"

# lintian, every tag down to info and pedantic (overrides in
# src/debian/lintian-overrides, each with its reason)
if command -v lintian >/dev/null 2>&1; then
    if lintian -I --pedantic --fail-on error,warning,info,pedantic "$DEB" >"$T/lintian" 2>&1 &&
        ! grep -q '^[EWIP]: ' "$T/lintian"; then
        echo "deb: lintian -I --pedantic: no tags"
    else
        bad "lintian:"
        cat "$T/lintian"
    fi
fi
exit "$fail"
