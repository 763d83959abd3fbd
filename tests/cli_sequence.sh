#!/usr/bin/env bash
# Launch sequences (docs/manifest.md, "Launch sequences"): `autotune check`
# and `list` of tests/data/sequence/two_pass_sum (two kernels, one
# [launch.NAME] section each), and a brute-force `tune` of it on the stub
# CUDA driver, which logs every launch (ATUNE_STUB_LAUNCH_LOG): each
# evaluation launches partial_sums then merge_sums with their own grid,
# block, shared memory and arguments, the scratch buffer passed from the
# first to the second, never the invalid MERGE=2048; the reference kernel
# once. The reference's module beside a sequence: an init kernel once
# before the reference sequence, a verify kernel deciding wrong_output.
# Bad sequences are refused with file:line (exit 65).
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
stub=${ATUNE_STUB_DRIVER_DIR:?run through ctest}
[ -e "$stub/libcuda.so.1" ] || { echo "no stub driver in $stub"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=$src/tests/data/sequence
export ATUNE_CACHE_DIR=$tmp/cache
slug=nvidia-stub-h100
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# --- check and list ---------------------------------------------------------
"$bin" check --templates "$data" >"$tmp/check.out" 2>"$tmp/check.err"
[ $? -eq 0 ] && ok || { ko "check: exit"; cat "$tmp/check.err"; }
grep -q "^two_pass_sum .* 27 configurations compiled .* 0 failed" "$tmp/check.out" && ok ||
    { ko "check: not 27 compiled clean"; cat "$tmp/check.out"; }
grep -qF "modules: 3 for 27 configurations" "$tmp/check.out" && ok || ko "check: modules"
grep -q "^two_pass_ref .* 27 configurations compiled .* 0 failed" "$tmp/check.out" && ok ||
    { ko "check: two_pass_ref not 27 compiled clean"; cat "$tmp/check.out"; }
grep -qF "verified against: ref_partial then ref_merge" "$tmp/check.out" && ok ||
    ko "check: two_pass_ref's reference sequence not named"
"$bin" list --templates "$data" >"$tmp/list.out" 2>&1
grep -qF "launches: partial (partial_sums), merge (merge_sums)" "$tmp/list.out" && ok ||
    { ko "list: no launches line"; cat "$tmp/list.out"; }
grep -qF "small (n=1048576): 27 valid" "$tmp/list.out" && ok || ko "list: MERGE=2048 not ruled out"

# --- tune on the stub: every step launched, in order -----------------------
(
    export LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    unset ATUNE_STUB_GPUS ATUNE_STUB_LOG ATUNE_STUB_DELAY_US ATUNE_STUB_WRONG_BLOCK
    cd "$tmp" && ATUNE_STUB_LAUNCH_LOG=$tmp/launch.log \
        ATUNE_STUB_HELPER_LOG=$tmp/helper.log "$bin" tune --templates "$data" \
        --kernel two_pass_sum --size small --strategy brute_force -p p >tune.out 2>tune.err
) && ok || { ko "tune: exit"; cat "$tmp/tune.err"; }
grep -q '^\[two_pass_sum n=1048576\]' "$tmp/p/$slug.ini" && ok || ko "tune: no profile section"
n=$(awk -F'\t' '/^two_pass_sum/ && $4 == "ok" && $10 != "final"' "$tmp/p/$slug.journal" | wc -l)
[ "$n" -eq 27 ] && ok || ko "tune: $n configurations ok in the search, want 27"
log=$tmp/launch.log
[ "$(grep -c '^sum_ref grid=1,1,1 block=1,1,1 shared=0 args=' "$log")" -eq 1 ] && ok ||
    ko "the reference kernel not launched once"
# Pairs: partial_sums, then merge_sums at once; the merge gets PARTS (the
# partial launch's grid) as 'parts', the partial sums' scratch buffer as
# its first argument, MERGE * 8 bytes of shared memory.
awk '
    /^sum_ref / { next }
    /^partial_sums / {
        if (open) bad = bad "partial_sums twice in a row; "
        split($2, g, /[=,]/); split($3, b, /[=,]/); split($5, a, /[=,]/)
        pg = g[2]; pb = b[2]; part = a[3]; open = 1; np++
        if (a[4] != 1048576) bad = bad "partial n " a[4] "; "
        next
    }
    /^merge_sums / {
        if (!open) bad = bad "merge_sums without partial_sums before it; "
        split($2, g, /[=,]/); split($3, b, /[=,]/); split($4, s, /=/); split($5, a, /[=,]/)
        if (g[2] != 1) bad = bad "merge grid " g[2] "; "
        if (s[2] != 8 * b[2]) bad = bad "merge shared " s[2] " for block " b[2] "; "
        if (a[2] != part) bad = bad "merge part " a[2] " not " part "; "
        if (a[3] != pg) bad = bad "merge parts " a[3] " not grid " pg "; "
        if (a[4] == part) bad = bad "total is the scratch buffer; "
        if (b[2] == 2048) bad = bad "MERGE=2048 launched; "
        seen[pb "," pg "," b[2]] = 1; open = 0; nm++
        next
    }
    { bad = bad "unexpected launch " $1 "; " }
    END {
        for (k in seen) d++
        if (open) bad = bad "the last partial_sums has no merge; "
        printf "%d %d %d %s\n", np, nm, d, bad
    }' "$log" >"$tmp/pairs"
read -r np nm distinct rest <"$tmp/pairs"
[ -z "$rest" ] && ok || ko "launch log: $rest"
[ "$np" -eq "$nm" ] && [ "$np" -ge 27 ] && ok || ko "launch log: $np partial_sums, $nm merge_sums"
[ "$distinct" -eq 27 ] && ok || ko "launch log: $distinct distinct configurations launched, want 27"
# Verified after the whole sequence: the compare kernel checks 'total'
# (long[1]) once per verification, the scratch buffer (long[1024]) never;
# and the 64 KiB guards behind both (their allocations that much larger).
G=65536
c=$(grep -c "^cmp_long bytes=$((8 + G)) off=0 n=1$" "$tmp/helper.log")
[ "$c" -ge 27 ] && ok || ko "total compared $c times, want at least 27"
[ "$(grep -c "^cmp_long bytes=$((8 + G)) off=8 n=$((G / 8))$" "$tmp/helper.log")" -eq "$c" ] &&
  [ "$(grep -c "^cmp_long bytes=$((8192 + G)) off=8192 n=$((G / 8))$" "$tmp/helper.log")" -eq "$c" ] &&
  [ "$(grep -c '^cmp' "$tmp/helper.log")" -eq $((3 * c)) ] && ok ||
    { ko "other compares"; grep '^cmp' "$tmp/helper.log" | sort | uniq -c; }

# --- a reference that is a sequence: [reference.NAME] sections ---------------
(
    export LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    unset ATUNE_STUB_GPUS ATUNE_STUB_LOG ATUNE_STUB_DELAY_US ATUNE_STUB_WRONG_BLOCK
    cd "$tmp" && ATUNE_STUB_LAUNCH_LOG=$tmp/ref.log "$bin" tune --templates "$data" \
        --kernel two_pass_ref --size small --budget 3 -p pr >ref.out 2>ref.err
) && ok || { ko "tune two_pass_ref: exit"; cat "$tmp/ref.err"; }
# Once, first, in order, with their own shapes and arguments: ref_partial
# (in, part, n) on 1024 blocks of one thread, then ref_merge (part, chunks,
# total); the part buffer is the one the tuned kernels get.
head -2 "$tmp/ref.log" | sed 's/0x[0-9a-f]*/P/g' >"$tmp/ref.head"
printf '%s\n' "ref_partial grid=1024,1,1 block=1,1,1 shared=0 args=P,P,1048576" \
    "ref_merge grid=1,1,1 block=1,1,1 shared=0 args=P,1024,P" | cmp -s - "$tmp/ref.head" && ok ||
    { ko "reference sequence: first launches"; cat "$tmp/ref.head"; }
[ "$(grep -c '^ref_' "$tmp/ref.log")" -eq 2 ] && ok || ko "reference sequence not launched once"
rp=$(awk '/^ref_partial/ { split($5, a, /[=,]/); print a[3] }' "$tmp/ref.log")
pp=$(awk '/^partial_sums/ { split($5, a, /[=,]/); print a[3]; exit }' "$tmp/ref.log")
[ -n "$rp" ] && [ "$rp" = "$pp" ] && ok || ko "reference's part $rp is not the kernels' $pp"
n=$(awk -F'\t' '/^two_pass_ref/ && $4 == "ok" && $10 != "final"' "$tmp/pr/$slug.journal" | wc -l)
[ "$n" -eq 3 ] && ok || ko "two_pass_ref: $n configurations ok, want 3"

# --- the reference's module beside a sequence: init and verify kernels -------
# two_pass_ref with an init kernel (every [args] entry, in order, once per
# size before the reference sequence, scalars at the default
# configuration: PARTS=64) and a verify kernel of 'total'; the
# module holds ref_partial and ref_merge first, then those two. A planted
# wrong result after merge_sums with 64 threads is counted by the verify
# kernel: those 9 configurations are wrong_output, naming it.
mkdir -p "$tmp/seqmod"
cp "$data/two_pass.cuh" "$tmp/seqmod/"
cat "$data/two_pass_ref.cu" - >"$tmp/seqmod/two_pass_ref.cu" <<'CU'
extern "C" __global__ void seq_init(const int *in, long *part, long *total,
                                    long n, int parts, int chunks)
{
    (void)in, (void)part, (void)total, (void)n, (void)parts, (void)chunks;
}

extern "C" __global__ void total_verify(const long *out, const long *ref,
                                        long count,
                                        unsigned long long *errors)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count && out[i] != ref[i])
        atomicAdd(errors, 1ULL);
}
CU
sed -e 's/^\[template\]$/[template]\ninit = seq_init\ninit_block = 1\ninit_grid = 1/' \
    -e 's/^total = long\[1\] output$/total = long[1] output, verify = total_verify/' \
    "$data/two_pass_ref.ini" >"$tmp/seqmod/two_pass_ref.ini"
"$bin" check --templates "$tmp/seqmod" >"$tmp/seqmod.check" 2>&1
[ $? -eq 0 ] && grep -q "^two_pass_ref .* 27 configurations compiled .* 0 failed" "$tmp/seqmod.check" && ok ||
    { ko "check of a sequence with init and verify"; cat "$tmp/seqmod.check"; }
(
    export LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    unset ATUNE_STUB_GPUS ATUNE_STUB_LOG ATUNE_STUB_DELAY_US
    cd "$tmp" && ATUNE_STUB_WRONG_BLOCK=64 ATUNE_STUB_LAUNCH_LOG=$tmp/mod.log \
        ATUNE_STUB_HELPER_LOG=$tmp/modh.log "$bin" tune --templates "$tmp/seqmod" \
        --kernel two_pass_ref --size small --strategy brute_force -p pm >mod.out 2>mod.err
) && ok || { ko "tune of a sequence with init and verify: exit"; cat "$tmp/mod.err"; }
head -3 "$tmp/mod.log" | sed 's/ .*//' | tr '\n' ' ' >"$tmp/mod.head"
[ "$(cat "$tmp/mod.head")" = "seq_init ref_partial ref_merge " ] && ok ||
    ko "init then the reference sequence: first launches $(cat "$tmp/mod.head")"
[ "$(grep -c '^seq_init grid=1,1,1 block=1,1,1 shared=0 args=0x[0-9a-f]*,0x[0-9a-f]*,0x[0-9a-f]*,1048576,64,1024$' "$tmp/mod.log")" -eq 1 ] &&
    ok || ko "init not launched once with every [args] entry"
v=$(grep -c "^total_verify bytes=$((8 + G)) off=0 n=1$" "$tmp/modh.log")
[ "$v" -ge 27 ] && ok || ko "total verified $v times by its kernel, want at least 27"
# the built-in compare only for the guards: behind the scratch buffer
# (before total, at each verification) and behind total where the verify
# kernel passed (the wrong ones stop there)
gp=$(grep -c "^cmp_long bytes=$((8192 + G)) off=8192 n=$((G / 8))$" "$tmp/modh.log")
g=$(grep -c "^cmp_long bytes=$((8 + G)) off=8 n=$((G / 8))$" "$tmp/modh.log")
[ "$gp" -eq "$v" ] && [ "$(grep -c '^cmp' "$tmp/modh.log")" -eq $((gp + g)) ] &&
  [ "$g" -ge 1 ] && [ "$g" -lt "$v" ] && ok ||
  ko "the built-in compare ran beside verify"
j=$tmp/pm/$slug.journal
nw=$(awk -F'\t' '/^two_pass_ref/ && $4 == "wrong_output" && $10 ~ /verify kernel .total_verify. counted 1 errors/' "$j" | wc -l)
nok=$(awk -F'\t' '/^two_pass_ref/ && $4 == "ok" && $10 != "final"' "$j" | wc -l)
[ "$nw" -eq 9 ] && [ "$nok" -eq 18 ] && ok ||
    { ko "planted wrong results: $nw wrong_output by total_verify (want 9), $nok ok (want 18)"; cut -f2-4,10 "$j" | head; }

# --- errors with file:line ----------------------------------------------------
bad() { # $1: name, $2: sed script, $3: expected message (grep -F)
    mkdir -p "$tmp/$1"
    cp "$data/two_pass_sum.cu" "$data/two_pass.cuh" "$tmp/$1/"
    sed "$2" "$data/two_pass_sum.ini" >"$tmp/$1/two_pass_sum.ini"
    "$bin" check --templates "$tmp/$1" >/dev/null 2>"$tmp/$1.err"
    rc=$?
    [ "$rc" -eq 65 ] && grep -qF "$3" "$tmp/$1.err" && ok ||
        { ko "$1: exit $rc, want 65 and '$3'"; cat "$tmp/$1.err"; }
}
bad unknown_arg 's/^args = part, parts, total$/args = part, count, total/' \
    "two_pass_sum.ini:31: args of [launch.merge]: 'count' is not an entry of [args]"
bad unused_arg 's/^args = part, parts, total$/args = part, total/' \
    "two_pass_sum.ini:38: 'parts' of [args] is passed to no kernel"
bad kernel_in_template 's/^\[template\]$/[template]\nkernel = partial_sums/' \
    "two_pass_sum.ini:5: 'kernel' in [template] of a launch sequence"
bad no_such_kernel 's/^kernel = merge_sums$/kernel = merge_all/' \
    "two_pass_sum.ini:27: kernel 'merge_all' not found in two_pass_sum.cu"
bad step_grid 's/^grid = 1$/grid = parts_count/' \
    "two_pass_sum.ini:29: unknown variable 'parts_count' in grid"
bad both_launches 's/^\[args\]$/[launch]\nblock = 1\ngrid = 1\n\n[args]/' \
    "two_pass_sum.ini:33: [launch] beside [launch.partial] (line 20)"
# [reference.NAME] beside reference = (two_pass_ref.ini with a reference kernel)
mkdir -p "$tmp/refboth"
cp "$data/two_pass_ref.cu" "$data/two_pass.cuh" "$tmp/refboth/"
sed 's/^\[template\]$/[template]\nreference = ref_merge/' "$data/two_pass_ref.ini" >"$tmp/refboth/two_pass_ref.ini"
"$bin" check --templates "$tmp/refboth" >/dev/null 2>"$tmp/refboth.err"
[ $? -eq 65 ] && grep -qF "two_pass_ref.ini:5: 'reference' in [template] beside [reference.partial] (line 31)" "$tmp/refboth.err" && ok ||
    { ko "reference beside [reference.NAME] not refused"; cat "$tmp/refboth.err"; }
# reference_source beside [reference.NAME]: their kernels come from the .cu
mkdir -p "$tmp/refsrc"
cp "$data/two_pass_ref.cu" "$data/two_pass.cuh" "$tmp/refsrc/"
sed 's/^\[template\]$/[template]\nreference_source = two_pass_ref.cu/' "$data/two_pass_ref.ini" >"$tmp/refsrc/two_pass_ref.ini"
"$bin" check --templates "$tmp/refsrc" >/dev/null 2>"$tmp/refsrc.err"
[ $? -eq 65 ] && grep -qF "two_pass_ref.ini:5: reference_source beside [reference.partial] (line 31)" "$tmp/refsrc.err" && ok ||
    { ko "reference_source beside [reference.NAME] not refused"; cat "$tmp/refsrc.err"; }
# The header of a sequence is refused before -o is touched.
"$bin" header --templates "$data" --kernel two_pass_sum -o "$tmp/h.h" 2>"$tmp/h.err"
[ $? -eq 65 ] && [ ! -e "$tmp/h.h" ] && grep -qF "is a launch sequence of 2 kernels" "$tmp/h.err" && ok ||
    ko "header of a sequence not refused"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
