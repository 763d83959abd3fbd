#!/usr/bin/env bash
# gpu_published.sh -- on a GPU: the five published kernel files of
# tests/data/published (byte for byte as their repositories publish them,
# host code included; only a manifest added each, issue 32) tune by brute
# force, which verifies every configuration: exit 0, no compile_error,
# wrong_output exactly where the published code is wrong (below), at least
# one ok per size, a profile section per size that is not a wrong one.
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
# cuda-samples' reduce6 has no step from 1024 to 512 threads (its shared
# reduction starts at blockSize >= 512): at 1024 threads it drops half the
# partial sums. Verification must catch exactly that (H100, 2026-11-26).
declare -A wrong=([reduction_kernel]="K=6,THREADS=1024")

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
  awk -F'\t' -v k="$k" '!/^#/ && $1 == k && $10 != "final" { print $2 "\t" $4 "\t" $3 }' \
    "$journal" >"$tmp/$k.rec"
  echo "  statuses: $(cut -f2 "$tmp/$k.rec" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
  echo "  twins (same module and launch, measured once): $(grep -o '"twins": [0-9]*' "$tmp/$k.json" | awk '{s += $2} END {print s + 0}')"
  [ -s "$tmp/$k.rec" ] || fail "$k: no journal records"
  want=${wrong[$k]:-}
  got=$(awk -F'\t' '$2 == "wrong_output" { print $3 }' "$tmp/$k.rec" | sort -u | tr '\n' ' ')
  [ "$got" = "${want:+$want }" ] ||
    fail "$k: wrong_output at '${got}', expected at '${want}'"
  for bad in compile_error launch_error fault timeout; do
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
    if [ -n "$want" ]; then
      sect=$(awk -v s="[$k $size]" '$0 == s { on = 1; next } /^\[/ { on = 0 } on' "$profile")
      match=1
      for kv in ${want//,/ }; do
        printf '%s\n' "$sect" | grep -qx "${kv%%=*} = ${kv#*=}" || match=0
      done
      [ $match -eq 0 ] || fail "$k $size: the profile holds the wrong configuration $want"
    fi
    awk -v s="[$k $size]" '$0 == s { on = 1; print; next } /^\[/ { on = 0 } on' "$profile" |
      grep -v "^template_hash\|^strategy\|^spread" | sed 's/^/  /'
  done
done

[ $fails -eq 0 ] && echo "gpu_published: all passed" || echo "gpu_published: $fails failed"
[ $fails -eq 0 ]
