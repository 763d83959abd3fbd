#!/usr/bin/env bash
# gpu_record.sh -- on a GPU: record, tune, serve (docs/first-use.md). A
# process with a CUDA context and no profile is served the defaults of copy
# at five sizes no template names and records them (ATUNE_RECORD, under the
# GPU's own name); `autotune tune --sizes-from` tunes exactly those five on
# this GPU; the next process gets an exact hit at each and records
# nothing. Prints, per size, the tuned configuration's speedup over the
# defaults it was served before, both timed in the same run (tune's
# "speedup"). Exits 77 without a GPU. RECORD_TUNE_ARGS adds arguments to
# the tune (e.g. "--budget 3" to try the script on the stub driver).
set -u
bin=${ATUNE_BINARY:?run through ctest}
child=$(dirname "$bin")/tests/test_record
tmp=$(mktemp -d /tmp/atune-gpu-record-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export ATUNE_CACHE_DIR=$tmp/cache
unset ATUNE_EFFORT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sizes=(n=1000000 n=3000017 n=12345678 n=77777777 n=150000001)
rec=$tmp/app.record

ATUNE_RECORD=$rec "$child" serve-child '' "${sizes[@]}" >"$tmp/before" 2>&1
rc=$?
if [ $rc -eq 2 ]; then echo "skipped: no GPU or no driver"; exit 77; fi
[ $rc -eq 0 ] || { fail "recording process: exit $rc"; cat "$tmp/before"; }
cat "$tmp/before"
"$bin" show --record "$rec" || fail "show --record"
[ "$(grep -c $'\tcopy\t.*\tno-profile\t2$' "$rec")" -eq 5 ] ||
  fail "not five sizes recorded twice as no-profile"
cp "$rec" "$tmp/recorded"

start=$(date +%s.%N)
# shellcheck disable=SC2086
"$bin" tune --device 0 --kernel copy --sizes-from "$rec" -p "$tmp/p" --json ${RECORD_TUNE_ARGS:-} \
  >"$tmp/tune.json" 2>"$tmp/tune.err"
rc=$?
echo "tune --sizes-from: exit $rc, $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s"
[ $rc -eq 0 ] || { fail "tune --sizes-from: exit $rc"; tail -20 "$tmp/tune.err"; }
[ "$(grep -c '^\[copy ' "$tmp"/p/*.ini)" -eq 5 ] || fail "not five sections"
# One result a size: its size and the speedup over the defaults.
awk -F'"' '/"size": / { size = $4 }
  /"speedup": / { sub(/.*"speedup": /, ""); sub(/,$/, "");
    printf "record-tune-serve: copy %s: the tuned configuration is %sx the defaults served before\n", size, $0 }' \
  "$tmp/tune.json" | tee "$tmp/speedups"
[ "$(wc -l <"$tmp/speedups")" -eq 5 ] || fail "not five speedups in tune's JSON"

ATUNE_RECORD=$rec "$child" serve-child "$tmp/p" "${sizes[@]}" >"$tmp/after" 2>&1
rc=$?
cat "$tmp/after"
[ $rc -eq 0 ] || fail "serving process: exit $rc (5: not an exact hit, or recorded)"
[ "$(grep -c '(exact)' "$tmp/after")" -eq 5 ] || fail "not five exact hits"
cmp -s "$rec" "$tmp/recorded" || fail "the record changed after the exact hits"
echo "gpu_record: $fails failures"
[ "$fails" -eq 0 ]
