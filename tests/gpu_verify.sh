#!/usr/bin/env bash
# gpu_verify.sh -- on a GPU: the verification and fill options of
# tests/data/verify tune by brute force. block_sums (its output keeps the
# per-block partial sums before the total, "compare = 1024") and
# scratch_sums (the partial sums in a scratch buffer) pass at more than
# their default configuration: every configuration ok, none wrong_output,
# at both sizes. fills: every configuration ok, so every input held what
# its fill says (the kernel checks each element; bits(32) keys set all 32
# bits). sort: segments of full-width keys (bits(32)) sorted by a bitonic
# network, every configuration ok against a rank sort at both sizes.
# slopes: inputs made by an init kernel, a reference from another file
# with the size as a macro, a verify kernel of its own: every
# configuration ok (the reference checks its own launch). types: half,
# bf16, float4, int2 and a struct by value: every configuration ok, so
# every input and the struct held what the manifest says. Exits 77 without
# a GPU.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
tmp=$(mktemp -d /tmp/atune-verify-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export ATUNE_CACHE_DIR=$tmp/cache
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

for k in block_sums scratch_sums fills sort slopes types; do
  "$bin" --device 0 --templates "$src/tests/data/verify" --kernel "$k" \
    --strategy brute_force --profile-dir "$tmp/p" >"$tmp/$k.out" 2>"$tmp/$k.err"
  rc=$?
  if [ $rc -eq 69 ]; then echo "skipped: $(tail -1 "$tmp/$k.err")"; exit 77; fi
  [ $rc -eq 0 ] || { fail "$k: exit $rc"; tail -20 "$tmp/$k.err"; continue; }
  journal=$(ls "$tmp"/p/*.journal)
  awk -F'\t' -v k="$k" '!/^#/ && $1 == k && $10 != "final" { print $2 "\t" $4 }' \
    "$journal" >"$tmp/$k.rec"
  echo "$k: $(cut -f1,2 "$tmp/$k.rec" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
  grep -q wrong_output "$tmp/$k.rec" && {
    fail "$k: a configuration's output differs from the reference"
    awk -F'\t' -v k="$k" '$1 == k && $4 == "wrong_output" { print "  " $3 ": " $10 }' "$journal" | head -5
  }
  n_ok=$(awk -F'\t' '$2 == "ok"' "$tmp/$k.rec" | wc -l)
  n_all=$(wc -l <"$tmp/$k.rec")
  [ "$n_ok" -gt 1 ] && [ "$n_ok" -eq "$n_all" ] ||
    fail "$k: $n_ok of $n_all configurations verified ok"
  grep -h "best" "$tmp/$k.err" | tail -2 | sed 's/^/  /'
done

[ $fails -eq 0 ] && echo "gpu_verify: all passed" || echo "gpu_verify: $fails failed"
[ $fails -eq 0 ]
