#!/usr/bin/env bash
# The man page, docs/autotune.1: groff and man render it without a single
# warning (a planted mistake shows that the check can fail), and
# `cmake --install` puts it where `man autotune` finds it.
set -u
src=${ATUNE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${ATUNE_BINARY:?run through ctest}
page=$src/docs/autotune.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

if ! command -v groff >/dev/null 2>&1; then
  echo "groff is not installed (tests/deps.sh installs it): skipped"
  exit 77
fi
# warnings PAGE: groff's and man's warnings about PAGE on stdout.
warnings() {
  groff -man -ww -z "$1" 2>&1
  if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null
  fi
}
warnings "$page" >"$tmp/w"
[ ! -s "$tmp/w" ] && ok || { ko "docs/autotune.1 renders with warnings"; cat "$tmp/w"; }
sed 's/^\.SH EXIT STATUS$/.SH EXIT STATUS\n.BOGUS/' "$page" >"$tmp/bad.1"
warnings "$tmp/bad.1" >"$tmp/w"
grep -q BOGUS "$tmp/w" && ok || ko "a planted undefined macro was not reported"

# Installed with the tool: PREFIX/share/man/man1/autotune.1.
builddir=$(dirname "$bin")
cmake --install "$builddir" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
  { ko "cmake --install failed"; cat "$tmp/install.log"; }
[ -f "$tmp/prefix/share/man/man1/autotune.1" ] && ok || ko "no share/man/man1/autotune.1 installed"
cmp -s "$page" "$tmp/prefix/share/man/man1/autotune.1" && ok || ko "the installed page differs from docs/autotune.1"
if command -v man >/dev/null 2>&1; then
  MANPATH=$tmp/prefix/share/man MANWIDTH=80 man autotune 2>"$tmp/err" >"$tmp/out"
  grep -q -- '--profile-dir' "$tmp/out" && ok || { ko "man autotune did not find the installed page"; cat "$tmp/err"; }
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
