#!/bin/sh
# src/web/libyaml.sh DIR - Debian's libyaml source package, unpacked into DIR
# for the browser build (make web compiles it with emcc; the repository
# carries no copy). `apt-get source` needs a deb-src line; the system's apt
# sources are left alone: a private apt state under DIR/apt lists only
# Debian's source index for this release (signed like the system's own, by
# debian-archive-keyring), and apt-get source --download-only fetches the
# package there. Then the upstream tarball is unpacked and the Debian
# patches, if the package has any, applied. Prints DIR/libyaml-VERSION.
set -eu
DIR=${1:?usage: src/web/libyaml.sh DIR}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
old=$(ls -d "$DIR"/libyaml-*/ 2>/dev/null | head -n 1 || true)
if [ -n "$old" ] && [ -f "$old/include/yaml.h" ]; then echo "${old%/}"; exit 0; fi
command -v apt-get >/dev/null 2>&1 || {
    echo "web: libyaml's source comes from Debian (apt-get source libyaml); there is no apt-get here" >&2; exit 1; }
. /etc/os-release
SUITE=${VERSION_CODENAME:?web: /etc/os-release names no release}
case ${ID:-} in debian) ;; *) echo "web: apt-get source libyaml needs Debian's archive (this is ${ID:-unknown})" >&2; exit 1 ;; esac
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$KEYRING" ] || { echo "web: $KEYRING is missing (package debian-archive-keyring)" >&2; exit 1; }
A="$DIR/apt"
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/src"
echo "deb-src [signed-by=$KEYRING] http://deb.debian.org/debian $SUITE main" >"$A/sources.list"
set -- -o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
       -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o Debug::NoLocking=1 \
       -o APT::Sandbox::User=root -qq
apt-get "$@" update >&2 || { echo "web: apt-get update of Debian's source index failed (no network?)" >&2; exit 1; }
(cd "$A/src" && apt-get "$@" source --download-only libyaml >&2) || {
    echo "web: apt-get source libyaml failed" >&2; exit 1; }
orig=$(ls "$A"/src/libyaml_*.orig.tar.gz | head -n 1)
tar -xzf "$orig" -C "$DIR"
src=$(ls -d "$DIR"/libyaml-*/ | head -n 1); src=${src%/}
deb=$(ls "$A"/src/libyaml_*.debian.tar.* 2>/dev/null | head -n 1 || true)
if [ -n "$deb" ]; then
    tar -xf "$deb" -C "$src"
    if [ -f "$src/debian/patches/series" ]; then
        grep -v '^#' "$src/debian/patches/series" | while read -r p _; do
            [ -n "$p" ] && patch -s -p1 -d "$src" <"$src/debian/patches/$p"
        done
    fi
fi
[ -f "$src/include/yaml.h" ] || { echo "web: $src has no include/yaml.h" >&2; exit 1; }
echo "$src"
