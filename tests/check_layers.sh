#!/usr/bin/env bash
# check_layers.sh -- keeps the layout of tuner/ true to the architecture
# (ARCHITECTURE.md, "Layers"): each folder is one layer, and a layer may use
# only the layers below it.
#
#   tests/check_layers.sh [SOURCE_DIR [BUILD_DIR]]
#   tests/check_layers.sh --self-test
#
# It fails when
#   - a file includes a header of a higher layer, or of another folder of
#     the same rank (peers stay independent);
#   - an object file calls a function defined in a higher or peer layer
#     (read with nm from BUILD_DIR's objects: this catches a prototype
#     declared in one folder's header and defined in another's file);
#   - the files' include graph or the objects' call graph has a cycle;
#   - a source file is over 800 lines and its head comment does not say
#     why it is one file ("kept as one file").
# --self-test plants each of these in a scratch tree and checks that it is
# caught, so that the check itself can fail.
set -uo pipefail

# Rank of each folder: lower ranks are lower layers.
declare -A rank=([lib]=0 [base]=0 [template]=1 [jit]=2 [search]=2
                 [measure]=3 [appjit]=4 [engine]=4 [report]=4 [cli]=5)
MAX_LINES=800

problems=0
fail() { echo "check_layers: $*" >&2; problems=$((problems + 1)); }

# allowed FROM TO: whether folder FROM may use folder TO.
allowed() {
  local from=$1 to=$2
  [ "$from" = "$to" ] && return 0
  [ -n "${rank[$to]+x}" ] || return 0 # not a layer (include/atune, tests)
  [ -n "${rank[$from]+x}" ] || return 1
  [ "${rank[$to]}" -lt "${rank[$from]}" ]
}

# Reports every cycle of the edges "a b" in $2 (a uses b), with tsort.
# Not fed through a pipe: a pipeline's last command runs in a subshell,
# which would lose the count of problems.
cycles() {
  local what=$1 out
  out=$(tsort <<<"$2" 2>&1 >/dev/null)
  [ -z "$out" ] && return 0
  fail "$what has a cycle:"$'\n'"$(printf '%s\n' "$out" | sed 's/^tsort: /  /')"
}

check_includes() {
  local src=$1 f dir inc to edges=""
  for f in "$src"/tuner/*/*.[ch]; do
    dir=$(basename "$(dirname "$f")")
    while IFS= read -r inc; do
      to=${inc%%/*}
      [ "$to" = "$inc" ] && { fail "${f#"$src"/}: #include \"$inc\" names no layer folder"; continue; }
      allowed "$dir" "$to" ||
        fail "${f#"$src"/}: includes $inc: layer '$dir' may not use '$to'"
      edges+="${f#"$src"/tuner/} $inc"$'\n'
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
  done
  # A header, its source and its private X_internal.h are one node, so
  # that "a.c -> b.h, b.c -> a.h" is the cycle it is.
  cycles "the include graph" "$(printf '%s' "$edges" |
    sed 's/_internal\.h\b//g; s/\.[ch]\b//g' | awk '$1 != $2')"
}

check_calls() {
  local build=$1 src=${2:-} o defs uses
  defs=$(mktemp) uses=$(mktemp)
  while IFS= read -r o; do
    local node=${o#*/tuner/}
    node=${node%.c.o}
    # An object left behind by a source that was moved or removed.
    [ -z "$src" ] || [ -f "$src/tuner/$node.c" ] || continue
    nm "$o" 2>/dev/null | awk -v n="$node" '
      $2 ~ /^[TDBRC]$/ { print $3, n >> "'"$defs"'" }
      $1 == "U"        { print $2, n >> "'"$uses"'" }'
  done < <(find "$build" -path '*/tuner/*' -name '*.c.o' | grep -v '/tests/' | sort -u)
  if [ ! -s "$defs" ]; then
    fail "no objects under $build/**/tuner: build first"
    rm -f "$defs" "$uses"
    return
  fi
  local edges
  edges=$(awk 'NR == FNR { def[$1] = $2; next }
               ($1 in def) && def[$1] != $2 { print $2, def[$1] }' \
            "$defs" "$uses" | sort -u)
  rm -f "$defs" "$uses"
  local from to
  while read -r from to; do
    [ -n "$from" ] || continue
    allowed "${from%%/*}" "${to%%/*}" ||
      fail "tuner/$from.c calls into tuner/$to.c: layer '${from%%/*}' may not use '${to%%/*}'"
  done <<<"$edges"
  cycles "the call graph" "$(printf '%s\n' "$edges" | awk 'NF == 2')"
}

check_sizes() {
  local src=$1 f n
  for f in "$src"/tuner/*/*.c; do
    n=$(wc -l <"$f")
    [ "$n" -le $MAX_LINES ] && continue
    head -20 "$f" | grep "kept as one file" >/dev/null ||
      fail "${f#"$src"/}: $n lines (over $MAX_LINES) and its head comment does not say why it is kept as one file"
  done
}

run_checks() {
  local src=$1 build=${2:-}
  problems=0
  check_includes "$src"
  check_sizes "$src"
  [ -n "$build" ] && check_calls "$build" "$src"
  return $((problems > 0))
}

# Plants one fault per case in a scratch copy and expects a failure.
self_test() {
  local src=$1 scratch bad=0
  scratch=$(mktemp -d)
  plant() { # NAME SETUP: copy tuner/, apply SETUP, expect the check to fail
    local name=$1 setup=$2
    rm -rf "$scratch/t" && mkdir -p "$scratch/t" && cp -r "$src/tuner" "$scratch/t/"
    (cd "$scratch/t" && eval "$setup")
    if run_checks "$scratch/t" 2>/dev/null; then
      echo "check_layers: self-test '$name' was not caught" >&2
      bad=1
    fi
  }
  plant "upward include" 'echo "#include \"cli/cli.h\"" >>tuner/lib/inidoc.c'
  plant "peer include" 'echo "#include \"search/strategy.h\"" >>tuner/jit/jit.c'
  plant "include cycle" 'echo "#include \"engine/tune.h\"" >>tuner/engine/journal.h'
  plant "long file" 'yes "/* x */" | head -900 >>tuner/base/json.c'
  plant "bare include" 'echo "#include \"util.h\"" >>tuner/base/json.c'
  # The call graph, from objects: lib/a.c calls a function of cli/b.c, and
  # engine/c.c and engine/d.c call each other.
  local objs=$scratch/o/tuner
  mkdir -p "$objs/lib" "$objs/cli" "$objs/engine"
  echo 'void b(void); void a(void) { b(); }' | cc -x c -c - -o "$objs/lib/a.c.o"
  echo 'void b(void) {}' | cc -x c -c - -o "$objs/cli/b.c.o"
  echo 'void d(void); void c(void) { d(); }' | cc -x c -c - -o "$objs/engine/c.c.o"
  echo 'void c(void); void d(void) { c(); }' | cc -x c -c - -o "$objs/engine/d.c.o"
  problems=0
  check_calls "$scratch/o" "" 2>"$scratch/err"
  grep -q "lib/a.c calls into tuner/cli/b.c" "$scratch/err" &&
    grep -q "call graph has a cycle" "$scratch/err" ||
    { echo "check_layers: self-test: call-graph faults not caught" >&2; bad=1; }
  # And the real tree passes the include and size checks.
  rm -rf "$scratch/t" && mkdir -p "$scratch/t" && cp -r "$src/tuner" "$scratch/t/"
  run_checks "$scratch/t" || { echo "check_layers: self-test: the clean tree fails" >&2; bad=1; }
  rm -rf "$scratch"
  return $bad
}

main() {
  local here src
  here=$(cd "$(dirname "$0")/.." && pwd)
  if [ "${1:-}" = "--self-test" ]; then
    self_test "${2:-$here}" && echo "check_layers: self-test passed (7 planted faults caught)"
    return
  fi
  src=${1:-$here}
  if run_checks "$src" "${2:-}"; then
    echo "check_layers: $(ls "$src"/tuner/*/*.[ch] | wc -l) files in $(ls -d "$src"/tuner/*/ | grep -vc cmake) layers: no upward or peer dependency, no cycle, no file over $MAX_LINES lines without a reason"
    return 0
  fi
  echo "check_layers: $problems problem(s)" >&2
  return 1
}

main "$@"
