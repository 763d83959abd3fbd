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

# The synopses: each command's usage lines in --help, docs/cli.md and the
# man page name the same options (tune's --sizes-from, check's --no-cache,
# show --record and merge's --quiet were each missing from one or two),
# and every option a synopsis names applies to its command.
synopses() {
  awk '{
    gsub(/[][|]/, " ");
    n = split($0, w, " "); key = ""; first = "";
    for (i = 1; i <= n; i++) if (w[i] == "autotune") break;
    for (i++; i <= n; i++) {
      if (key == "" && w[i] ~ /^(tune|list|check|show|compare|merge|header)$/) { key = w[i]; continue }
      if (w[i] ~ /^-/ && first == "") first = w[i];
      if (w[i] ~ /^(--[a-z][a-z-]*|-o)$/) opts[w[i]] = 1;
    }
    if (first == "--help") key = "help";
    if (key == "") key = "tune";
    if ((key == "tune" && first == "--simulate") || (key == "show" && first == "--record"))
      key = key "+" substr(first, 3);
    for (o in opts) print key, o;
    delete opts;
  }' | sort -u
}
# One synopsis per line: a line starting "autotune" begins one.
join_lines() {
  awk '/^ *autotune/ {if (l != "") print l; l = $0; next} {l = l " " $0} END {if (l != "") print l}'
}
sed -n '1,/^$/p' "$tmp/help" | sed 's/^usage://' | join_lines | synopses >"$tmp/syn_help"
awk '/^    autotune/ {p = 1} p && /^$/ {exit} p' "$src/docs/cli.md" | join_lines | synopses >"$tmp/syn_docs"
sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$src/docs/autotune.1" | sed '1d;$d' |
  sed 's/\\-/-/g; s/^\.[A-Z][A-Z]* *//; s/"//g' | tr '\n' ' ' | sed 's/\.br/\n/g' | synopses >"$tmp/syn_man"
[ "$(wc -l <"$tmp/syn_help")" -ge 40 ] && ok || ko "too few synopsis options read from --help"
same syn_help syn_docs "the synopses of --help and docs/cli.md"
same syn_help syn_man "the synopses of --help and docs/autotune.1"
while read -r key opt; do
  case $key in
    help) continue ;;
    tune+simulate) set -- tune --simulate "$tmp/none.journal" ;;
    show+record) set -- show --record "$tmp/none.record" ;;
    *) set -- "$key" ;;
  esac
  [ "$opt" = "--simulate" ] || [ "$opt" = "--record" ] && continue
  # The unknown --zzz after it stops every command before it runs; an
  # option that does not apply is refused first. The x is the value of
  # an option that takes one, an argument of one that does not.
  "$bin" "$@" "$opt" x --zzz </dev/null >/dev/null 2>"$tmp/applies"
  ! grep -q "does not apply" "$tmp/applies" && ok ||
    ko "the synopsis of '$key' names $opt, which does not apply: $(head -1 "$tmp/applies")"
done <"$tmp/syn_help"

# Every strategy --help lists is named in the man page's --strategy
# (ils_restart was not).
for s in $(sed -n 's/^strategies ([^)]*)://p' "$tmp/help"); do
  awk '/^\.BI \\-\\-strategy/ {p = 1; next} p && /^\.TP/ {exit} p' "$src/docs/autotune.1" |
    grep -qw -- "$s" && ok || ko "docs/autotune.1's --strategy does not name the strategy $s"
done

# The check itself can fail: a table without --seed, one with --bogus.
grep -v -- '`--seed N`' "$src/docs/cli.md" | sed 's/^| `--json` |/| `--bogus` |/' |
  awk '/^## /{in_opts = ($0 == "## Options")} in_opts && /^\| `/' |
  cut -d'|' -f2 | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$tmp/planted"
[ "$(comm -23 "$tmp/from_help" "$tmp/planted" | tr '\n' ' ')" = "--json --seed " ] && ok ||
  ko "a planted difference was not seen: $(comm -3 "$tmp/from_help" "$tmp/planted" | tr '\n' ' ')"
[ "$(comm -13 "$tmp/from_help" "$tmp/planted")" = "--bogus" ] && ok || ko "a planted extra option was not seen"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
