#!/usr/bin/env bash
# What is compared, on the stub CUDA driver (tests/stubdrv), which logs
# every launch of a compare kernel (ATUNE_STUB_HELPER_LOG): a slice of an
# output ("compare = 1024": one element at byte 4096), a scratch buffer
# never, an accum buffer whole; an integer output with "mismatches = 1"
# passes a configuration with one wrong element that fails without it; each
# input's fill reaches the fill kernel.
# The reference's own module (slopes): an init kernel before the reference,
# the reference launched with the default configuration's parameters, a
# verify kernel instead of the built-in compare, whose count decides.
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
# Bytes of guard behind each compared buffer (runner_internal.h GUARD_BYTES):
# its allocation is that much larger, and each verification compares it.
G=65536
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
# sums[1024] alone and the ticket whole, and the guard behind each
# (G bytes after the buffer, its allocation G larger), nothing else.
n=$(grep -c "^cmp_int bytes=$((4100 + G)) off=4096 n=1$" sums.log)
[ "$n" -ge 4 ] && ok || ko "block_sums: $n compares of sums[1024] alone, want at least 4"
[ "$(grep -c "^cmp_uint bytes=$((4 + G)) off=0 n=1$" sums.log)" -eq "$n" ] && ok || ko "block_sums: the accum ticket not compared whole each time"
[ "$(grep -c "^cmp_int bytes=$((4100 + G)) off=4100 n=$((G / 4))$" sums.log)" -eq "$n" ] &&
  [ "$(grep -c "^cmp_uint bytes=$((4 + G)) off=4 n=$((G / 4))$" sums.log)" -eq "$n" ] && ok ||
  ko "block_sums: the guards behind sums and the ticket not checked at each verification"
[ "$(grep -c ^cmp sums.log)" -eq $((4 * n)) ] && ok || { ko "block_sums: other compares"; sort sums.log | uniq -c; }

# --- scratch: allocated, never compared -------------------------------------
ATUNE_STUB_HELPER_LOG=$tmp/scratch.log tune --templates "$data" --kernel scratch_sums -p p2 2>err2 >/dev/null
[ $? -eq 0 ] && ok || { ko "scratch_sums: tune exit"; cat err2; }
grep -q '^\[scratch_sums n=1048576\]' p2/$slug.ini && ok || ko "scratch_sums: no profile section"
n=$(grep -c "^cmp_int bytes=$((4 + G)) off=0 n=1$" scratch.log)
[ "$n" -ge 4 ] && ok || ko "scratch_sums: total compared $n times, want at least 4"
[ "$(grep -c '^cmp.*bytes=4096 ' scratch.log)" -eq 0 ] &&
  [ "$(grep -c "^cmp_int bytes=$((4096 + G)) off=0 " scratch.log)" -eq 0 ] && ok ||
  ko "scratch_sums: the scratch buffer was compared"
# only the guard behind it (written past, its contents would pass)
[ "$(grep -c "^cmp_int bytes=$((4096 + G)) off=4096 n=$((G / 4))$" scratch.log)" -eq "$n" ] &&
  [ "$(grep -c ^cmp scratch.log)" -eq $((5 * n)) ] && ok || { ko "scratch_sums: other compares"; sort scratch.log | uniq -c; }

# A kernel that writes past its scratch buffer and reads the same bytes
# back gets every output right: the guard behind the scratch buffer fails
# it (the stub plants the write behind 'partials', 4096 bytes, for every
# launch of 256 threads).
ATUNE_STUB_OVERRUN_BLOCK=256 ATUNE_STUB_OVERRUN_AT=4096 tune --templates "$data" \
  --kernel scratch_sums -p p2o --strategy brute_force 2>err2o >/dev/null
[ $? -eq 0 ] && ok || { ko "scratch_sums overrun: tune exit"; cat err2o; }
awk -F'\t' '/^scratch_sums/ && $3 ~ /^BLOCK_SIZE=256,/ { n++; if ($4 == "wrong_output" && $10 ~ /^partials: written past its end/) w++ }
  /^scratch_sums/ && $3 !~ /^BLOCK_SIZE=256,/ && $4 == "wrong_output" { other++ }
  END { exit !(n > 0 && w == n && other == 0) }' p2o/$slug.journal && ok ||
  ko "scratch_sums overrun: not exactly the 256-thread configurations caught behind 'partials'"

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
[ "$(grep -c '^fill_' fills.log)" -eq 7 ] && ok || ko "fills: not 7 fill launches"
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

# --- the reference's module: reference_source, reference_macros, init, verify
# slopes.ini: slope[] made by slopes_init before the reference, the
# reference launched with the default configuration's block (256), y
# checked by slopes_verify instead of the built-in compare.
grep -q "^slopes .* 0 failed" "$tmp/check.out" && ok || ko "check: slopes not compiled clean"
grep -A1 "^slopes " "$tmp/check.out" | grep -q "verified against: slopes_ref of slopes_ref.cu" &&
    ok || ko "check: slopes' reference file not named"
ATUNE_STUB_HELPER_LOG=$tmp/slopes.log tune --templates "$data" --kernel slopes -p p4 2>err4 >/dev/null
[ $? -eq 0 ] && ok || { ko "slopes: tune exit"; cat err4; }
grep -q '^\[slopes n=1048576\]' p4/$slug.ini && ok || ko "slopes: no profile section"
[ "$(grep -c '^slopes_init grid=4096 block=256$' slopes.log)" -eq 1 ] && ok || ko "slopes: init not run once with its launch"
[ "$(grep -c '^slopes_ref grid=4096 block=256$' slopes.log)" -eq 1 ] && ok || ko "slopes: reference not launched once with BLOCK_SIZE's default"
[ "$(grep -n '_init\|_ref' slopes.log | head -1 | grep -c slopes_init)" -eq 1 ] && ok || ko "slopes: the reference ran before init"
# the inputs are filled before init: x by its fill, slope by default
[ "$(grep -n '^fill\|_init' slopes.log | tail -1 | grep -c slopes_init)" -eq 1 ] && ok || ko "slopes: a fill after init"
n=$(grep -c "^slopes_verify bytes=$((4194304 + G)) off=0 n=1048576$" slopes.log)
[ "$n" -ge 4 ] && ok || ko "slopes: $n verify launches, want at least 4"
# the built-in compare only for the guard behind the output
[ "$(grep -c "^cmp_float bytes=$((4194304 + G)) off=4194304 n=$((G / 4))$" slopes.log)" -eq "$n" ] &&
  [ "$(grep -c '^cmp' slopes.log)" -eq "$n" ] && ok || ko "slopes: the built-in compare ran beside verify"
# without reference_macros the reference's n is undefined: check names
# the reference's file; a verify kernel it lacks is the manifest's line
mkdir -p s1 s2
cp "$data"/slopes.ini "$data"/slopes.cu "$data"/slopes_ref.cu s1/
cp s1/* s2/
sed -i '/^reference_macros/d' s1/slopes.ini
"$bin" check --templates s1 >/dev/null 2>s1.err
rc=$?
[ $rc -ne 0 ] && grep -q 'slopes_ref.cu' s1.err && grep -q 'identifier "n" is undefined' s1.err &&
    ok || { ko "slopes without reference_macros: check exit $rc"; cat s1.err; }
sed -i 's/verify = slopes_verify/verify = slopes_check/' s2/slopes.ini
"$bin" check --templates s2 >/dev/null 2>s2.err
[ $? -eq 65 ] && grep -q "slopes.ini:[0-9]*: verify 'slopes_check' not found in slopes_ref.cu" s2.err &&
    ok || { ko "slopes with an unknown verify kernel: check"; cat s2.err; }
# a verify kernel's error count makes wrong_output, with its name
ATUNE_STUB_WRONG_BLOCK=128 "$bin" tune --templates "$data" --kernel slopes --size small \
    --strategy brute_force -p p5 2>err5 >/dev/null || { ko "slopes wrong: tune exit"; cat err5; }
w=$(awk -F'\t' '/^slopes/ && $4 == "wrong_output"' p5/$slug.journal | wc -l)
[ "$w" -eq 3 ] && ok || ko "slopes: $w wrong_output with block 128, want 3 (ITEMS 1, 2, 4)"
awk -F'\t' '/^slopes/ && $4 == "wrong_output"' p5/$slug.journal |
    grep -q "y: verify kernel 'slopes_verify' counted 1 errors in 1048576 elements" &&
    ok || ko "slopes: wrong_output detail does not name the verify kernel"
[ "$(awk -F'\t' '/^slopes/ && $4 == "ok"' p5/$slug.journal | wc -l)" -ge 6 ] && ok || ko "slopes: other blocks not ok"

# --- element types: half, bf16, vectors (sized and filled per component),
# a struct by value (tests/data/verify/types; its kernel checks the values
# on a GPU)
grep -q "^types .* 0 failed" "$tmp/check.out" && ok || ko "check: types not compiled clean"
ATUNE_STUB_HELPER_LOG=$tmp/types.log tune --templates "$data" --kernel types -p p6 2>err6 >/dev/null
[ $? -eq 0 ] && ok || { ko "types: tune exit"; cat err6; }
for want in "fill_half bytes=$((2 * m)) n=$m mode=2 ilo=0 ihi=0 rlo=-2 rhi=2" \
            "fill_bf16 bytes=$((2 * m)) n=$m mode=0 " \
            "fill_float bytes=$((16 * m)) n=$((4 * m)) mode=5 " \
            "fill_int bytes=$((8 * m)) n=$((2 * m)) mode=1 ilo=-5 ihi=5 "; do
    [ "$(grep -c "^$want" types.log)" -eq 1 ] && ok || { ko "types: no launch '$want'"; cat types.log; }
done
n=$(grep -c "^cmp_half bytes=$((2 * m + G)) off=0 n=$m$" types.log)
[ "$n" -ge 4 ] && ok || ko "types: half output compared $n times"
[ "$(grep -c "^cmp_float bytes=$((16 * m + G)) off=0 n=$((4 * m))$" types.log)" -eq "$n" ] && ok ||
    ko "types: float4 output not compared per component"

# --- sort: full-width keys (bits(32)), the sorted output compared whole
grep -q "^sort .* 0 failed" "$tmp/check.out" && ok || ko "check: sort not compiled clean"
ATUNE_STUB_HELPER_LOG=$tmp/sort.log tune --templates "$data" --kernel sort -p p7 2>err7 >/dev/null
[ $? -eq 0 ] && ok || { ko "sort: tune exit"; cat err7; }
[ "$(grep -c "^fill_uint bytes=$((4 * m)) n=$m mode=3 ilo=4294967295 " sort.log)" -eq 1 ] && ok || ko "sort: keys not filled with bits(32)"
[ "$(grep -c "^cmp_uint bytes=$((4 * m + G)) off=0 n=$m$" sort.log)" -ge 4 ] && ok || ko "sort: output not compared whole"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
