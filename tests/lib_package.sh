#!/usr/bin/env bash
# libatune packaged as a distribution library: installs the build tree with
# `cmake --install --prefix` into a prefix it was not configured for, then
# checks the versioned SONAMEs (0.x: major.minor), the relocatable .pc
# files (plain `pkg-config --libs`, no --static, for a shared build), the
# CMake version file's compatibility (same minor before 1.0), the
# installed profile directory, and that nothing installed NEEDs libcuda.
#   lib_package.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/atune-package-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "lib_package.sh: $*" >&2; exit 1; }

prefix=$work/some/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "install failed"; }
pc=$(dirname "$(find "$prefix" -name atune.pc | head -1)")
[ -f "$pc/atune.pc" ] || fail "atune.pc not installed"
export PKG_CONFIG_PATH=$pc
version=$(pkg-config --modversion atune)
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
soversion=$major
[ "$major" = 0 ] && soversion=$major.$minor

# The .pc files resolve to where the files are, not to the configured prefix.
libdir=$(pkg-config --variable=libdir atune)
incdir=$(pkg-config --variable=includedir atune)
[ "$(cd "$libdir" && pwd -P)" = "$(cd "$prefix/lib"* && pwd -P)" ] ||
  fail "libdir '$libdir' is not under $prefix"
[ -f "$incdir/atune/atune.h" ] || fail "includedir '$incdir' has no atune/atune.h"
profdir=$(pkg-config --variable=profiledir atune)
ls "$profdir"/*.ini >/dev/null 2>&1 || fail "no profiles in '$profdir'"

shared=0
[ -e "$libdir/libatune.so" ] && shared=1
libs=$(pkg-config --libs atune_jit)
grep -q -- "-latune_jit" <<<"$libs" || fail "pkg-config --libs atune_jit: $libs"
grep -q -- "-latune\b" <<<"$libs" || fail "pkg-config --libs atune_jit lacks -latune: $libs"
if grep -q -- "-lcuda\b" <<<"$libs $(pkg-config --static --libs atune_jit)"; then
  fail "pkg-config names libcuda: $libs"
fi
if [ $shared = 1 ]; then
  # Private dependencies stay private in a shared build.
  grep -q -- "-lnvrtc\|-linih" <<<"$libs" && fail "private libraries in --libs: $libs"
  for lib in atune atune_jit; do
    so=$(readelf -d "$libdir/lib$lib.so" | sed -n 's/.*soname: \[\(.*\)\]/\1/p')
    [ "$so" = "lib$lib.so.$soversion" ] ||
      fail "lib$lib.so has SONAME '$so', want lib$lib.so.$soversion"
    [ -e "$libdir/$so" ] || fail "$so not installed"
    if readelf -d "$libdir/lib$lib.so" | grep 'NEEDED.*libcuda' >/dev/null; then
      fail "lib$lib.so NEEDs libcuda"
    fi
  done
  echo "SONAMEs libatune.so.$soversion, libatune_jit.so.$soversion"
else
  grep -q -- "-lnvrtc" <<<"$libs" || fail "a static install's --libs lacks -lnvrtc: $libs"
fi

# The CMake version file: compatible within the minor version before 1.0.
cmdir=$(dirname "$(find "$prefix" -name autotuneConfigVersion.cmake | head -1)")
grep -rq -- "--as-needed" "$cmdir" && fail "the CMake package injects --as-needed"
cat >"$work/compat.cmake" <<'CM'
set(PACKAGE_FIND_VERSION_COUNT 2)
string(REPLACE "." ";" v "${PACKAGE_FIND_VERSION}")
list(GET v 0 PACKAGE_FIND_VERSION_MAJOR)
list(GET v 1 PACKAGE_FIND_VERSION_MINOR)
set(PACKAGE_FIND_VERSION_PATCH 0)
include(${F})
message("${PACKAGE_VERSION_COMPATIBLE}")
CM
compat() {
  cmake -DPACKAGE_FIND_VERSION="$1" -DF="$cmdir/autotuneConfigVersion.cmake" \
    -P "$work/compat.cmake"
}
[ "$(compat "$major.$minor" 2>&1)" = TRUE ] || fail "$major.$minor not compatible"
if [ "$major" = 0 ]; then
  [ "$(compat "0.$((minor + 1))" 2>&1)" = FALSE ] ||
    fail "0.$((minor + 1)) accepted by a 0.$minor package"
fi
echo "package at $prefix: .pc files relocatable, version file compatible"
