#!/usr/bin/env bash
# tests/deps.sh asks the commands, not dpkg, and calls apt-get only for
# what is missing. apt-get, sudo and dpkg are replaced by shims that
# record their calls and fail (no network), and cmake / pkg-config by
# shims that report what each case needs.
set -u
src=${ATUNE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
deps=$src/tests/deps.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# A bin folder of failing package tools, first in PATH.
mkdir -p "$tmp/shim"
for t in apt-get dpkg; do
  printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\nexit 100\n' "$t" "$tmp" >"$tmp/shim/$t"
done
printf '#!/bin/sh\necho "sudo $*" >>"%s/calls"\nexec "$@"\n' "$tmp" >"$tmp/shim/sudo"
chmod +x "$tmp/shim"/*
real_cmake=$(command -v cmake)
real_pc=$(command -v pkg-config)

# run NAME [SHIM-DIR]: deps.sh with the failing tools, and SHIM-DIR's
# cmake or pkg-config before the real ones.
run() {
  local extra=${2:-$tmp/none}
  : >"$tmp/calls"
  PATH="$tmp/shim:$extra:$PATH" bash "$deps" >"$tmp/$1.out" 2>&1
  echo $? >"$tmp/$1.rc"
}
rc() { cat "$tmp/$1.rc"; }

# 1. Everything there: exit 0, no apt-get, no dpkg, nothing said.
run all
[ "$(rc all)" = 0 ] && ok || { ko "deps.sh failed with everything installed"; cat "$tmp/all.out"; }
[ ! -s "$tmp/calls" ] && ok || { ko "deps.sh called a package tool with nothing missing"; cat "$tmp/calls"; }
[ ! -s "$tmp/all.out" ] && ok || { ko "deps.sh spoke with nothing missing"; cat "$tmp/all.out"; }

# 2. A CMake from outside Debian's packages (dpkg knows nothing of it).
mkdir -p "$tmp/opt"
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "cmake version 3.31.6"; exit 0; }\nexec "%s" "$@"\n' \
  "$real_cmake" >"$tmp/opt/cmake"
chmod +x "$tmp/opt/cmake"
run outside "$tmp/opt"
[ "$(rc outside)" = 0 ] && ok || { ko "a CMake outside dpkg made deps.sh fail"; cat "$tmp/outside.out"; }
[ ! -s "$tmp/calls" ] && ok || { ko "a CMake outside dpkg made deps.sh call a package tool"; cat "$tmp/calls"; }

# 3. A CMake too old: deps.sh says so and asks apt-get for cmake alone;
# the failing apt-get (no network) is a clear error, not a silent pass.
mkdir -p "$tmp/old"
printf '#!/bin/sh\necho "cmake version 3.22.1"\n' >"$tmp/old/cmake"
chmod +x "$tmp/old/cmake"
run old "$tmp/old"
[ "$(rc old)" = 1 ] && ok || ko "an old CMake with apt-get failing: exit $(rc old), not 1"
grep -q 'missing: cmake >= 3.25 (found 3.22.1' "$tmp/old.out" && ok || { ko "no word of the old CMake"; cat "$tmp/old.out"; }
grep -q 'apt-get install -y -qq cmake$' "$tmp/calls" && ok || { ko "apt-get not asked for cmake alone"; cat "$tmp/calls"; }
grep -q 'apt-get could not install cmake' "$tmp/old.out" && ok || { ko "apt-get's failure not reported"; cat "$tmp/old.out"; }

# 4. cmocka missing: only libcmocka-dev is installed.
mkdir -p "$tmp/pc"
printf '#!/bin/sh\n[ "$1" = --exists ] && [ "$2" = cmocka ] && exit 1\nexec "%s" "$@"\n' \
  "$real_pc" >"$tmp/pc/pkg-config"
chmod +x "$tmp/pc/pkg-config"
run cmocka "$tmp/pc"
grep -q 'missing: cmocka development files' "$tmp/cmocka.out" && ok || { ko "no word of cmocka"; cat "$tmp/cmocka.out"; }
grep -q 'apt-get install -y -qq libcmocka-dev$' "$tmp/calls" && ok || { ko "apt-get not asked for libcmocka-dev alone"; cat "$tmp/calls"; }
grep -q '^dpkg' "$tmp/calls" && ko "deps.sh asked dpkg" || ok

# 5. ATUNE_DOCS=1 and a groff that does not run: groff-base alone.
mkdir -p "$tmp/nogroff"
printf '#!/bin/sh\nexit 127\n' >"$tmp/nogroff/groff"
chmod +x "$tmp/nogroff/groff"
: >"$tmp/calls"
ATUNE_DOCS=1 PATH="$tmp/shim:$tmp/nogroff:$PATH" bash "$deps" >"$tmp/groff.out" 2>&1
grep -q 'missing: groff' "$tmp/groff.out" && ok || { ko "no word of groff"; cat "$tmp/groff.out"; }
grep -q 'apt-get install -y -qq groff-base$' "$tmp/calls" && ok || { ko "apt-get not asked for groff-base alone"; cat "$tmp/calls"; }
# Without ATUNE_DOCS groff is not needed.
run nodocs "$tmp/nogroff"
[ "$(rc nodocs)" = 0 ] && [ ! -s "$tmp/calls" ] && ok || { ko "groff asked for without ATUNE_DOCS"; cat "$tmp/nodocs.out"; }

# 6. The fuzzers' tools, where they are installed: nothing to do.
if command -v clang >/dev/null 2>&1; then
  : >"$tmp/calls"
  ATUNE_FUZZ=1 PATH="$tmp/shim:$PATH" bash "$deps" >"$tmp/fuzz.out" 2>&1
  r=$?
  if grep -q "libFuzzer runtime" "$tmp/fuzz.out"; then
    echo "note: clang here has no libFuzzer runtime; case 5 checks the message only"
    grep -q 'apt-get install -y -qq libclang-rt-dev$' "$tmp/calls" && ok || ko "libclang-rt-dev not asked for"
  else
    [ $r = 0 ] && [ ! -s "$tmp/calls" ] && ok || { ko "ATUNE_FUZZ=1 with clang there: exit $r"; cat "$tmp/fuzz.out" "$tmp/calls"; }
  fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
