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
# every input and the struct held what the manifest says.
# Launch sequences (issue 33): tests/data/sequence/two_pass_sum (a
# partial sum per block into a scratch buffer, then a merge kernel), the
# same checked against a reference sequence (two_pass_ref), and
# tests/data/published/layernorm_v2 (llm.c's layernorm version 2 as
# published: mean_kernel, rstd_kernel, normalization_kernel, against its
# version 1 kernel) tune as one unit, every configuration verified ok at
# every size; printed per size: configurations evaluated, how many ok,
# the default's and the best time. tests/data/sizename/szn (its kernel's
# name reads the size: <..., true> adds 1 where n % 1024 == 0, <...,
# false> adds 2, as the reference does per size): every configuration ok
# at both sizes, so each size ran its own instantiation. overrun: a
# kernel that writes past its output's end fails at the size where it
# does (the guard behind each compared buffer). Exits 77 without a GPU.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
tmp=$(mktemp -d /tmp/atune-verify-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export ATUNE_CACHE_DIR=$tmp/cache
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# template|its directory under tests/data|valid configurations per size
while IFS='|' read -r k d want; do
  "$bin" --device 0 --templates "$src/tests/data/$d" --kernel "$k" \
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
  [ -n "$want" ] || continue
  # Per size: evaluated, ok, the default configuration's and the best
  # median time (journal columns: size 2, configuration 3, status 4,
  # time_ns 5).
  awk -F'\t' -v k="$k" -v want="$want" '
    !/^#/ && $1 == k && $10 != "final" {
      n[$2]++; if ($4 == "ok") { ok[$2]++
        if (!($2 in best) || $5 < best[$2]) { best[$2] = $5; cfg[$2] = $3 } }
      if (!($2 in dflt)) dflt[$2] = $5 }
    END {
      for (s in n) {
        printf "%s %s: %d configurations evaluated, %d ok, default %.1f us, best %.1f us (%s)\n",
          k, s, n[s], ok[s], dflt[s] / 1000, best[s] / 1000, cfg[s]
        if (n[s] != want || ok[s] != want) bad++
      }
      exit (bad > 0) }' "$journal" | tee "$tmp/$k.sum"
  [ "${PIPESTATUS[0]}" -eq 0 ] || fail "$k: not $want configurations ok at every size"
  [ "$(wc -l <"$tmp/$k.sum")" -eq 2 ] || fail "$k: not two sizes tuned"
done <<'LIST'
block_sums|verify|
scratch_sums|verify|
fills|verify|
sort|verify|
slopes|verify|
types|verify|
two_pass_sum|sequence|27
two_pass_ref|sequence|27
layernorm_forward|published/layernorm_v2|30
szn|sizename|9
LIST

# overrun: its VW=4 kernel stores whole chunks of four, so at n = 1000003
# it writes one element past out's end, every element of out right: the
# guard behind out fails exactly those (wrong_output, "written past its
# end"); everything else is ok.
"$bin" --device 0 --templates "$src/tests/data/verify" --kernel overrun \
  --strategy brute_force --profile-dir "$tmp/po" >"$tmp/overrun.out" 2>"$tmp/overrun.err"
rc=$?
if [ $rc -ne 0 ]; then
  fail "overrun: exit $rc"
  tail -20 "$tmp/overrun.err"
else
  awk -F'\t' '!/^#/ && $1 == "overrun" && $10 != "final" {
      vw4 = $3 ~ /VW=4/; ragged = $2 == "n=1000003"
      want = vw4 && ragged ? "wrong_output" : "ok"
      n++
      if ($4 != want || (want == "wrong_output" && $10 !~ /out: written past its end/)) {
        bad++; print "  " $2 " " $3 ": " $4 " " $10 }
    }
    END { printf "overrun: %d configurations, %d as expected\n", n, n - bad
          exit (n != 8 || bad > 0) }' "$tmp"/po/*.journal ||
    fail "overrun: not exactly VW=4 at n=1000003 caught writing past out"
fi

[ $fails -eq 0 ] && echo "gpu_verify: all passed" || echo "gpu_verify: $fails failed"
[ $fails -eq 0 ]
