#!/usr/bin/env bash
# gpu_published.sh -- on a GPU: the five published kernel files of
# tests/data/published (byte for byte as their repositories publish them,
# host code included; only a manifest added each, issue 32) tune by brute
# force, which verifies every configuration: exit 0, no wrong_output, no
# compile_error, at least one ok per size, a profile section per size.
# Prints each kernel's wall time and best. Exits 77 without a GPU.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
tmp=$(mktemp -d /tmp/atune-published-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export ATUNE_CACHE_DIR=$tmp/cache
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
dir=$src/tests/data/published

for k in stencil matrixMul_kernel coalescing layernorm_forward reduction_kernel; do
  start=$(date +%s.%N)
  "$bin" --device 0 --templates "$dir/$k" --strategy brute_force \
    --profile-dir "$tmp/p" --json >"$tmp/$k.json" 2>"$tmp/$k.err"
  rc=$?
  if [ $rc -eq 69 ]; then echo "skipped: $(tail -1 "$tmp/$k.err")"; exit 77; fi
  echo "$k: exit $rc, $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s"
  grep -h "compiled with nvcc" "$tmp/$k.err" | head -1 | sed 's/^/  /'
  [ $rc -eq 0 ] || { fail "$k: exit $rc"; tail -20 "$tmp/$k.err"; continue; }
  journal=$(ls "$tmp"/p/*.journal)
  awk -F'\t' -v k="$k" '!/^#/ && $1 == k && $10 != "final" { print $2 "\t" $4 }' \
    "$journal" >"$tmp/$k.rec"
  echo "  statuses: $(cut -f2 "$tmp/$k.rec" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
  echo "  twins (same module and launch, measured once): $(grep -o '"twins": [0-9]*' "$tmp/$k.json" | awk '{s += $2} END {print s + 0}')"
  [ -s "$tmp/$k.rec" ] || fail "$k: no journal records"
  for bad in wrong_output compile_error launch_error fault timeout; do
    grep -q "	$bad" "$tmp/$k.rec" && {
      fail "$k: $bad"
      awk -F'\t' -v k="$k" -v b="$bad" '$1 == k && $4 == b' "$journal" | head -3
    }
  done
  profile=$(ls "$tmp"/p/*.ini)
  for size in $(cut -f1 "$tmp/$k.rec" | sort -u); do
    n_ok=$(awk -F'\t' -v s="$size" '$1 == s && $2 == "ok"' "$tmp/$k.rec" | wc -l)
    [ "$n_ok" -gt 0 ] || fail "$k $size: no verified configuration"
    grep -qF "[$k $size]" "$profile" || fail "$k: no profile section [$k $size]"
    awk -v s="[$k $size]" '$0 == s { on = 1; print; next } /^\[/ { on = 0 } on' "$profile" |
      grep -v "^template_hash\|^strategy\|^spread" | sed 's/^/  /'
  done
done

[ $fails -eq 0 ] && echo "gpu_published: all passed" || echo "gpu_published: $fails failed"
[ $fails -eq 0 ]
