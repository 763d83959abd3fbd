#!/usr/bin/env bash
# tests/bench/regret.sh in its dry run (no GPU): the untuned sizes are
# drawn between the ladder's ends and are never ladder points (the points
# as the manifest parser expands tests/data/ladder/copy.ini), the
# manifests it writes load, and the analysis of a recorded journal against
# the committed profile reports every kernel.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

bash -n "$src/tests/bench/regret.sh" && ok || ko "regret.sh syntax"
DRY_RUN=1 OUT=$tmp/out SIZES_1D=25 SEED=5 \
  bash "$src/tests/bench/regret.sh" "$(dirname "$bin")" >"$tmp/log" 2>&1
[ $? -eq 0 ] && ok || { ko "dry run exit"; cat "$tmp/log"; }

# The copy ladder's points, from the parser.
"$bin" list --templates "$src/tests/data/ladder" --kernel copy |
  grep -o '(n=[0-9]*)' | tr -dc '0-9\n' >"$tmp/points"
[ "$(wc -l <"$tmp/points")" -eq 35 ] && ok || ko "copy ladder has 35 points"
grep '^copy: ' "$tmp/log" | sed 's/.*untuned: //' | tr ' ' '\n' |
  grep . >"$tmp/drawn"
[ "$(wc -l <"$tmp/drawn")" -eq 25 ] && ok || ko "25 untuned copy sizes"
[ "$(sort -u "$tmp/drawn" | wc -l)" -eq 25 ] && ok || ko "untuned sizes repeat"
if grep -qxFf "$tmp/points" "$tmp/drawn"; then ko "a ladder point was drawn"; else ok; fi
awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo, hi }' "$tmp/points" >"$tmp/ends"
read -r lo hi <"$tmp/ends"
awk -v lo="$lo" -v hi="$hi" '$1 <= lo || $1 >= hi { bad = 1 } END { exit bad }' \
  "$tmp/drawn" && ok || ko "an untuned size beyond the ladder's ends"
# Another seed draws other sizes; the same seed the same ones.
DRY_RUN=1 OUT=$tmp/out2 SIZES_1D=25 SEED=6 KERNELS=copy \
  bash "$src/tests/bench/regret.sh" "$(dirname "$bin")" >"$tmp/log2" 2>&1
grep -q '^copy: ' "$tmp/log2" && ! cmp -s <(grep '^copy: ' "$tmp/log") \
  <(grep '^copy: ' "$tmp/log2") && ok || ko "the seed does not change the draw"

for k in copy saxpy reduce constmem matmul; do
  grep -q "^SUMMARY $k " "$tmp/log" && ok || ko "no summary of $k"
done
# Each analysed size's percent is a number in (0, 100.5]: the pick was
# found among the journal's records.
awk '/% of its optimum/ { p = $3 + 0; if (p <= 0 || p > 100.5) bad = 1; n++ }
     END { exit bad || n < 10 }' "$tmp/log" && ok || { ko "analysis"; cat "$tmp/log"; }

echo "cli_regret: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
