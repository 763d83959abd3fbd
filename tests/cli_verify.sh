#!/usr/bin/env bash
# What is compared, on the stub CUDA driver (tests/stubdrv), which logs
# every launch of a compare kernel (ATUNE_STUB_HELPER_LOG): a slice of an
# output ("compare = 1024": one element at byte 4096), a scratch buffer
# never, an accum buffer whole; an integer output with "mismatches = 1"
# passes a configuration with one wrong element that fails without it; each
# input's fill reaches the fill kernel.
# And `autotune check` of the templates that use them (tests/data/verify).
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
stub=${ATUNE_STUB_DRIVER_DIR:?run through ctest}
[ -e "$stub/libcuda.so.1" ] || { echo "no stub driver in $stub"; exit 77; }
tmp=$(mktemp -d)
trap "rm -rf $tmp" EXIT
data=$src/tests/data/verify
slug=nvidia-stub-h100
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$bin" check --templates "$data" --budget 3 >"$tmp/check.out" 2>"$tmp/check.err"
[ $? -eq 0 ] && ok || { ko "check of tests/data/verify: exit"; cat "$tmp/check.err"; }
grep -q "^block_sums .* 0 failed" "$tmp/check.out" && ok || ko "check: block_sums not compiled clean"
grep -q "^scratch_sums .* 0 failed" "$tmp/check.out" && ok || ko "check: scratch_sums not compiled clean"

export LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATUNE_CACHE_DIR=${ATUNE_CACHE_DIR:-$tmp/cache}
unset ATUNE_STUB_GPUS ATUNE_STUB_LOG ATUNE_STUB_DELAY_US ATUNE_STUB_WRONG_BLOCK
cd "$tmp" || exit 1
tune() { "$bin" tune --size small --budget 4 "$@"; }

# --- compare = 1024 of sums = int[1025] ------------------------------------
ATUNE_STUB_HELPER_LOG=$tmp/sums.log tune --templates "$data" --kernel block_sums -p p1 2>err1 >/dev/null
[ $? -eq 0 ] && ok || { ko "block_sums: tune exit"; cat err1; }
grep -q '^\[block_sums n=1048576\]' p1/$slug.ini && ok || ko "block_sums: no profile section"
# Each verification (4 in the search, more in the final pick) compares
# sums[1024] alone and the ticket whole, nothing else.
n=$(grep -c '^cmp_int bytes=4100 off=4096 n=1$' sums.log)
[ "$n" -ge 4 ] && ok || ko "block_sums: $n compares of sums[1024] alone, want at least 4"
[ "$(grep -c '^cmp_uint bytes=4 off=0 n=1$' sums.log)" -eq "$n" ] && ok || ko "block_sums: the accum ticket not compared whole each time"
[ "$(grep -c ^cmp sums.log)" -eq $((2 * n)) ] && ok || { ko "block_sums: other compares"; sort sums.log | uniq -c; }

# --- scratch: allocated, never compared -------------------------------------
ATUNE_STUB_HELPER_LOG=$tmp/scratch.log tune --templates "$data" --kernel scratch_sums -p p2 2>err2 >/dev/null
[ $? -eq 0 ] && ok || { ko "scratch_sums: tune exit"; cat err2; }
grep -q '^\[scratch_sums n=1048576\]' p2/$slug.ini && ok || ko "scratch_sums: no profile section"
n=$(grep -c '^cmp_int bytes=4 off=0 n=1$' scratch.log)
[ "$n" -ge 4 ] && ok || ko "scratch_sums: total compared $n times, want at least 4"
[ "$(grep -c '^cmp.*bytes=4096 ' scratch.log)" -eq 0 ] && ok || ko "scratch_sums: the scratch buffer was compared"
[ "$(grep -c ^cmp scratch.log)" -eq $((2 * n)) ] && ok || { ko "scratch_sums: other compares"; sort scratch.log | uniq -c; }

# --- fills: each buffer's fill reaches the fill kernel ----------------------
# (the stub runs no kernel: tests/data/verify/fills checks the values on a
# GPU, tests/gpu.sh STEP verify)
ATUNE_STUB_HELPER_LOG=$tmp/fills.log "$bin" tune --templates "$data" --kernel fills --budget 1 -p p3 2>err3 >/dev/null
[ $? -eq 0 ] && ok || { ko "fills: tune exit"; cat err3; }
m=1048576
for want in "fill_long bytes=$((8 * m)) n=$m mode=5 " \
            "fill_float bytes=$((4 * m)) n=$m mode=4 ilo=0 ihi=0 rlo=1.5 " \
            "fill_int bytes=$((4 * m)) n=$m mode=1 ilo=-3 ihi=5 " \
            "fill_double bytes=$((8 * m)) n=$m mode=2 ilo=0 ihi=0 rlo=2 rhi=4" \
            "fill_uint bytes=$((4 * m)) n=$m mode=3 ilo=4294967295 " \
            "fill_int bytes=$((4 * m)) n=$m mode=1 ilo=0 ihi=$((m - 1)) " \
            "fill_long bytes=32 n=4 mode=4 ilo=$m ihi=0 "; do
    [ "$(grep -c "^$want" fills.log)" -eq 1 ] && ok || { ko "fills: no launch '$want'"; cat fills.log; }
done
[ "$(grep -c '^fill' fills.log)" -eq 7 ] && ok || ko "fills: not 7 fill launches"
# Without a fill, an input is filled as before (mode 0).
grep -q "^fill_int bytes=$((4 * m)) n=$m mode=0 " sums.log && ok || ko "block_sums: input not filled by default"

# --- mismatches = 1: one wrong element passes --------------------------------
mkdir -p t0 t1
cp "$src/tests/data/templates_bad/control/control".* t0/
cp t0/* t1/
sed -i 's/^out = int\[n\] output$/out = int[n] output, mismatches = 1/' t1/control.ini
grep -q 'mismatches = 1' t1/control.ini && ok || ko "the control template changed: no out line"
for t in t0 t1; do
    ATUNE_STUB_WRONG_BLOCK=128 "$bin" tune --templates $t --kernel control \
        --strategy brute_force -p p$t 2>err$t >/dev/null || { ko "$t: tune exit"; cat err$t; }
done
wrong() { awk -F'\t' '/^control/ && $4 == "wrong_output"' "$1" | wc -l; }
w0=$(wrong pt0/$slug.journal) w1=$(wrong pt1/$slug.journal)
[ "$w0" -gt 0 ] && ok || ko "without mismatches: no wrong output caught"
[ "$w1" -eq 0 ] && ok || ko "mismatches = 1: $w1 configurations wrong_output, want 0"
awk -F'\t' '/^control/ && $4 == "wrong_output"' pt0/$slug.journal | grep -q "out: 1 of 1048576 elements differ, first at 0" &&
    ok || ko "without mismatches: detail does not count the wrong element"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
