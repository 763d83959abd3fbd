#!/usr/bin/env bash
# gpu_byok.sh -- on a GPU: the users' own kernels of tests/data/byok, each
# with only a manifest added (issue 14), tune by brute force: exit 0, every
# configuration that ran was verified against the reference (no
# wrong_output, at least one ok per size), the profile has a section per
# kernel and size, lower-case knobs are stored as param.NAME, and the
# template hash recorded covers the kernels' own headers. Exits 77 without
# a GPU.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
tmp=$(mktemp -d /tmp/atune-byok-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export ATUNE_CACHE_DIR=$tmp/cache
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

dir=$src/tests/data/byok
# kernel: the profile sections its sizes make
declare -A sections=(
  [convolution]="convolution w=4096,h=4096"
  [block_sum]="block_sum n=67108864|block_sum n=1000003"
  [silu_half]="silu_half n=67108864|silu_half n=999999"
)

for k in convolution block_sum silu_half; do
  start=$(date +%s.%N)
  "$bin" --device 0 --templates "$dir" --kernel "$k" --strategy brute_force \
    --profile-dir "$tmp/p" >"$tmp/$k.out" 2>"$tmp/$k.err"
  rc=$?
  if [ $rc -eq 69 ]; then echo "skipped: $(tail -1 "$tmp/$k.err")"; exit 77; fi
  echo "$k: exit $rc, $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s"
  [ $rc -eq 0 ] || { fail "$k: exit $rc"; tail -20 "$tmp/$k.err"; continue; }
  journal=$(ls "$tmp"/p/*.journal)
  # Search records of this kernel: size<TAB>status.
  awk -F'\t' -v k="$k" '!/^#/ && $1 == k && $10 != "final" { print $2 "\t" $4 }' \
    "$journal" >"$tmp/$k.rec"
  echo "  statuses: $(cut -f2 "$tmp/$k.rec" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
  [ -s "$tmp/$k.rec" ] || fail "$k: no journal records"
  grep -q "wrong_output" "$tmp/$k.rec" && {
    fail "$k: a configuration's output differs from the reference"
    awk -F'\t' -v k="$k" '$1 == k && $4 == "wrong_output"' "$journal" | head -3
  }
  IFS='|' read -r -a secs <<<"${sections[$k]}"
  for s in "${secs[@]}"; do
    size=${s#* }
    n_ok=$(awk -F'\t' -v s="$size" '$1 == s && $2 == "ok"' "$tmp/$k.rec" | wc -l)
    [ "$n_ok" -gt 0 ] || fail "$k $size: no verified configuration"
    profile=$(ls "$tmp"/p/*.ini)
    grep -qF "[$s]" "$profile" || fail "$k: no profile section [$s]"
    awk -v s="[$s]" '$0 == s { on = 1; print; next } /^\[/ { on = 0 } on' "$profile" |
      sed 's/^/  /'
  done
  grep -h "best\|GB/s\|GFLOP/s" "$tmp/$k.err" | tail -3 | sed 's/^/  /'
done

profile=$(ls "$tmp"/p/*.ini 2>/dev/null)
if [ -n "$profile" ]; then
  # The convolution's knobs are lower case: stored as param.NAME.
  grep -q "^param.block_size_x = " "$profile" ||
    fail "convolution: block_size_x is not stored as param.block_size_x"
  # The recorded hash is the one `autotune list` computes, headers included.
  want=$("$bin" list --json --templates "$dir" --kernel block_sum 2>/dev/null |
    sed -n 's/.*"template_hash": *"\([0-9a-f]*\)".*/\1/p' | head -1)
  got=$(awk '/^\[block_sum n=1000003\]/ { on = 1 } on && /^template_hash/ { print $3; exit }' "$profile")
  [ -n "$want" ] && [ "$want" = "$got" ] ||
    fail "block_sum: profile hash '$got', list says '$want'"
fi

[ $fails -eq 0 ] && echo "gpu_byok: all passed" || echo "gpu_byok: $fails failed"
[ $fails -eq 0 ]
