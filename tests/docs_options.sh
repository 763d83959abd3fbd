#!/usr/bin/env bash
# The options of `autotune --help`, of the options table of docs/cli.md
# and of the man page (docs/autotune.1) are the same set, in every
# direction: an option added to the tool and not documented, or
# documented and gone from the tool, fails.
set -u
src=${ATUNE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
bin=${ATUNE_BINARY:?run through ctest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# --help: the option lines ("  -d, --device N|all ..." or "      --json ...").
"$bin" --help >"$tmp/help" || ko "autotune --help failed"
sed -nE 's/^ +(-[A-Za-z], )?(--[a-z][a-z-]*).*/\2/p' "$tmp/help" | sort -u >"$tmp/from_help"
# cli.md: the first column of the table under "## Options".
awk '/^## /{in_opts = ($0 == "## Options")} in_opts && /^\| `/' "$src/docs/cli.md" |
  cut -d'|' -f2 | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$tmp/from_docs"
# The man page: the tags of its OPTIONS section (.TP, then .B/.BR/.BI).
awk '/^\.SH /{in_opts = ($0 == ".SH OPTIONS")} in_opts && prev == ".TP" {print} {prev = $0}' \
  "$src/docs/autotune.1" | sed 's/\\-/-/g' | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$tmp/from_man"

[ "$(wc -l <"$tmp/from_help")" -ge 20 ] && ok || { ko "too few options read from --help"; cat "$tmp/from_help"; }
# same A B WHAT: the two sets are equal, each difference named.
same() {
  local only_a only_b
  only_a=$(comm -23 "$tmp/$1" "$tmp/$2" | tr '\n' ' ')
  only_b=$(comm -13 "$tmp/$1" "$tmp/$2" | tr '\n' ' ')
  [ -z "$only_a" ] && ok || ko "in ${1#from_} but not in ${2#from_} ($3): $only_a"
  [ -z "$only_b" ] && ok || ko "in ${2#from_} but not in ${1#from_} ($3): $only_b"
}
same from_help from_docs "docs/cli.md, ## Options"
same from_help from_man "docs/autotune.1, OPTIONS"

# The check itself can fail: a table without --seed, one with --bogus.
grep -v -- '`--seed N`' "$src/docs/cli.md" | sed 's/^| `--json` |/| `--bogus` |/' |
  awk '/^## /{in_opts = ($0 == "## Options")} in_opts && /^\| `/' |
  cut -d'|' -f2 | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$tmp/planted"
[ "$(comm -23 "$tmp/from_help" "$tmp/planted" | tr '\n' ' ')" = "--json --seed " ] && ok ||
  ko "a planted difference was not seen: $(comm -3 "$tmp/from_help" "$tmp/planted" | tr '\n' ' ')"
[ "$(comm -13 "$tmp/from_help" "$tmp/planted")" = "--bogus" ] && ok || ko "a planted extra option was not seen"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
