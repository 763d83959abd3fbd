#!/usr/bin/env bash
# autotune merge OUT IN...: profiles of one GPU model tuned apart (on the
# stub driver, tests/stubdrv) combined section by section: conflicts decided
# by recorded time and, with --device, by timing side by side (a planted
# profile whose recorded times lie); provenance; idempotence byte for byte;
# another model refused; a truncated or invalid input refused with
# file:line and OUT untouched; the profile writer's lock; journals of
# several runs concatenated for tune --simulate.
set -u
bin=${ATUNE_BINARY:?run through ctest}
stub=${ATUNE_STUB_DRIVER_DIR:?run through ctest}
[ -e "$stub/libcuda.so.1" ] || { echo "no stub driver in $stub"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATUNE_CACHE_DIR=${ATUNE_CACHE_DIR:-$tmp/cache}
unset ATUNE_STUB_GPUS ATUNE_STUB_LOG ATUNE_STUB_DELAY_US ATUNE_STUB_SCALE ATUNE_STUB_NAME
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
slug=nvidia-stub-h100
sec() { awk -v s="[$2]" '$0 == s {on = 1; next} /^\[/ {on = 0} on' "$1"; }
key() { sec "$1" "$2" | awk -F' = ' -v k="$3" '$1 == k {print $2}'; }
cfg() { sec "$1" "$2" | awk -F' = ' '$1 ~ /^[A-Z]/ {printf "%s=%s,", $1, $2}'; }
C="copy n=1048576" S="saxpy n=1048576"

# Three runs of one model: a quick random search of copy (slower), a longer
# one of copy and saxpy, and a run whose recorded times are half the truth
# (ATUNE_STUB_SCALE=0.5: a profile that lies, for the side-by-side timing).
"$bin" tune --kernel copy --size small --strategy random --budget 3 --seed 1 -p a -q >/dev/null 2>err ||
    { ko "tune a"; cat err; }
"$bin" tune --kernel copy,saxpy --size small --budget 8 -p b -q >/dev/null 2>err ||
    { ko "tune b"; cat err; }
ATUNE_STUB_SCALE=0.5 "$bin" tune --kernel copy --size small --strategy random --budget 3 --seed 1 -p s -q >/dev/null 2>err ||
    { ko "tune s"; cat err; }
A=a/$slug.ini B=b/$slug.ini L=s/$slug.ini
ta=$(key $A "$C" time_ns) tb=$(key $B "$C" time_ns) tl=$(key $L "$C" time_ns)
[ "$(cfg $A "$C")" != "$(cfg $B "$C")" ] && [ "$ta" -gt "$tb" ] && [ "$tl" -lt "$tb" ] && ok ||
    ko "the planted runs: a ($(cfg $A "$C") $ta ns) must differ from b ($(cfg $B "$C") $tb ns) and be slower; s must record less ($tl)"

# --- a conflict by recorded time, provenance ---------------------------------
"$bin" merge m.ini $A $B 2>err
[ $? -eq 0 ] && ok || { ko "merge: exit"; cat err; }
[ "$(cfg m.ini "$C")" = "$(cfg $B "$C")" ] && [ "$(key m.ini "$C" time_ns)" = "$tb" ] && ok ||
    ko "merge kept $(cfg m.ini "$C") $(key m.ini "$C" time_ns) ns, not b's faster $(cfg $B "$C") $tb ns"
[ "$(key m.ini "$C" merged_by)" = recorded_time ] && ok || ko "merged_by = $(key m.ini "$C" merged_by), want recorded_time"
[ "$(key m.ini "$C" merged_from)" = $B ] && [ "$(key m.ini "$C" merged_other_from)" = $A ] && ok ||
    ko "provenance: merged_from $(key m.ini "$C" merged_from), merged_other_from $(key m.ini "$C" merged_other_from)"
[ "$(key m.ini "$C" merged_other_ns)" = "$ta" ] && [ "$(key m.ini "$C" merged_time_ns)" = "$tb" ] && ok ||
    ko "merged_time_ns/merged_other_ns: $(key m.ini "$C" merged_time_ns) $(key m.ini "$C" merged_other_ns), want $tb $ta"
[ "$(key m.ini "$C" run)" = "$(key $B "$C" run)" ] && [ -n "$(key m.ini "$C" run)" ] && ok ||
    ko "the run id of the kept section is not b's"
[ "$(key m.ini "$S" merged_from)" = $B ] && [ "$(cfg m.ini "$S")" = "$(cfg $B "$S")" ] &&
    [ -z "$(key m.ini "$S" merged_by)" ] && ok || ko "a section of one input: not kept as it was, with merged_from"
grep -q "kept .* over .*: recorded_time" err && ok || ko "merge does not say what it decided"
# In the other order the same configuration wins.
"$bin" merge -q m_rev.ini $B $A && [ "$(cfg m_rev.ini "$C")" = "$(cfg $B "$C")" ] && ok ||
    ko "the inputs' order changed the winner"

# --- idempotence --------------------------------------------------------------
cp m.ini m.before
ino=$(stat -c %i m.ini)
"$bin" merge m.ini $A $B 2>err
[ $? -eq 0 ] && cmp -s m.ini m.before && ok || ko "merging again changed the output"
[ "$(stat -c %i m.ini)" = "$ino" ] && grep -q "unchanged" err && ok || ko "merging again rewrote the file"
"$bin" merge -q m2.ini m.ini && cmp -s m2.ini m.ini && ok || ko "the output merged alone is not the same bytes"
"$bin" merge -q m3.ini $B m.ini $A && cmp -s m3.ini m.ini && ok ||
    { ko "the output merged with its inputs is not the same bytes"; diff m3.ini m.ini | head; }

# A tune that rewrites a merged section drops the merge's keys (they
# described the record they came with); --evaluate-style additions keep them.
mkdir -p t && cp m.ini t/$slug.ini
"$bin" tune --kernel copy --size small --strategy random --budget 2 --seed 5 -p t -q >/dev/null 2>err ||
    { ko "tune into a merged profile"; cat err; }
[ -z "$(sec t/$slug.ini "$C" | grep '^merged_')" ] && [ "$(key t/$slug.ini "$S" merged_from)" = $B ] && ok ||
    ko "tune kept stale merged_ keys in a section it rewrote, or dropped them from one it did not touch"

# --- another GPU model --------------------------------------------------------
sed 's/^name = NVIDIA Stub H100$/name = NVIDIA Stub H200/' $A >h200.ini
"$bin" merge mm.ini $B h200.ini 2>err
[ $? -eq 65 ] && [ ! -e mm.ini ] && grep -q "h200.ini: a profile of 'NVIDIA Stub H200'" err && ok ||
    { ko "another GPU model: not refused"; cat err; }
cp m.ini mm.ini
"$bin" merge mm.ini h200.ini 2>err
[ $? -eq 65 ] && cmp -s mm.ini m.ini && ok || ko "another model than OUT's: not refused, or OUT touched"
"$bin" merge -q --force-models mf.ini $B h200.ini && grep -q '^name = NVIDIA Stub H100$' mf.ini &&
    [ "$(cfg mf.ini "$C")" = "$(cfg $B "$C")" ] && ok || ko "--force-models: no merge, or [device] not the first input's"

# --- bad inputs: file:line, OUT untouched --------------------------------------
cp m.ini out.ini
head -n 20 $A >cut.ini
"$bin" merge out.ini $B cut.ini 2>err
[ $? -eq 65 ] && grep -q "cut.ini:20: truncated profile" err && ok || { ko "truncated input: not refused with file:line"; cat err; }
cmp -s out.ini m.ini && [ -z "$(ls out.ini.tmp* 2>/dev/null)" ] && ok || ko "truncated input: OUT touched"
sed 's/^time_ns = .*/time_ns = -5/' $A >neg.ini
"$bin" merge out.ini neg.ini 2>err
[ $? -eq 65 ] && grep -q "neg.ini:[0-9]*:" err && cmp -s out.ini m.ini && ok || { ko "a negative time: not refused with file:line"; cat err; }
printf 'this is not a profile\n' >junk.ini
"$bin" merge out.ini $A junk.ini 2>err
[ $? -eq 65 ] && grep -q "junk.ini:1" err && cmp -s out.ini m.ini && ok || { ko "a junk input: not refused with file:line"; cat err; }
"$bin" merge out.ini $A missing.ini 2>err
[ $? -eq 66 ] && cmp -s out.ini m.ini && ok || ko "a missing input: not 66, or OUT touched"
head -n 20 m.ini >bad_out.ini
"$bin" merge bad_out.ini $A 2>err
[ $? -eq 65 ] && grep -q "not overwriting it" err && [ "$(wc -l <bad_out.ini)" = 20 ] && ok ||
    { ko "a truncated OUT: overwritten"; cat err; }
"$bin" merge only.ini 2>/dev/null
[ $? -eq 64 ] && ok || ko "merge with one file: not a usage error"
"$bin" merge --device all x.ini $A 2>/dev/null
[ $? -eq 64 ] && ok || ko "merge --device all: not a usage error"

# --- the profile writer's lock ------------------------------------------------
rm -f lk.ini
flock lk.ini.lock sleep 2 &
sleep 0.3
start=$(date +%s.%N)
"$bin" merge -q lk.ini $A $B
end=$(date +%s.%N)
wait
awk -v a="$start" -v b="$end" 'BEGIN {exit !(b - a >= 1.2)}' && [ -s lk.ini ] && ok ||
    ko "merge did not wait for the profile's lock"

# --- timed side by side (--device) --------------------------------------------
# By recorded time the lying profile wins; timed side by side on the GPU it
# is the slower, and b's configuration is kept.
"$bin" merge -q r1.ini $L $B
[ "$(cfg r1.ini "$C")" = "$(cfg $L "$C")" ] && ok || ko "recorded time: the planted lie did not win ($(cfg r1.ini "$C"))"
"$bin" merge --device 0 r2.ini $L $B 2>err
[ $? -eq 0 ] && ok || { ko "merge --device: exit"; cat err; }
[ "$(cfg r2.ini "$C")" = "$(cfg $B "$C")" ] && [ "$(key r2.ini "$C" merged_by)" = retimed ] && ok ||
    ko "--device kept $(cfg r2.ini "$C") by $(key r2.ini "$C" merged_by), not b's by retimed"
# The stub's model: the re-timed times are the true ones, b's and a's.
[ "$(key r2.ini "$C" merged_time_ns)" = "$tb" ] && [ "$(key r2.ini "$C" merged_other_ns)" = "$ta" ] && ok ||
    ko "re-timed: $(key r2.ini "$C" merged_time_ns) / $(key r2.ini "$C" merged_other_ns), want $tb / $ta"
grep -q "re-timed side by side" err && grep -q ": retimed$" err && ok || ko "--device does not say it re-timed"
# A decision by recorded time is taken again on a GPU; a re-timed one is not.
cp r1.ini r3.ini
"$bin" merge -q --device 0 r3.ini $L $B && [ "$(cfg r3.ini "$C")" = "$(cfg $B "$C")" ] && ok ||
    ko "--device did not re-decide a section merged by recorded time"
cp r2.ini r2.before
"$bin" merge --device 0 r2.ini $L $B 2>err && cmp -s r2.ini r2.before && grep -q unchanged err && ok ||
    ko "--device again changed the output"
"$bin" merge -q r2.ini $L $B && cmp -s r2.ini r2.before && ok || ko "a re-timed decision was undone by recorded times"
ATUNE_STUB_NAME="NVIDIA Stub H200" "$bin" merge --device 0 r4.ini $L $B 2>err
[ $? -eq 64 ] && [ ! -e r4.ini ] && grep -q "GPU 0 is a 'NVIDIA Stub H200'" err && ok ||
    { ko "--device on another model: not refused"; cat err; }
# A section of another template version cannot be timed here: recorded time.
sed 's/^template_hash = .*/template_hash = 0123456789abcdef/' $A >oldver.ini
"$bin" merge --device 0 r5.ini oldver.ini $B 2>err
[ $? -eq 0 ] && [ "$(key r5.ini "$C" merged_by)" = recorded_time ] && grep -q "cannot re-time: .*another version" err && ok ||
    { ko "another template version: not by recorded time with a note"; cat err; }

# --- journals concatenated for --simulate ------------------------------------
cat a/$slug.journal b/$slug.journal >all.journal
"$bin" tune --simulate all.journal --json >sim.json 2>err
[ $? -eq 0 ] && ok || { ko "simulate of concatenated journals: exit"; cat err; }
[ "$(grep -c '"kernel": "copy"' sim.json)" = 1 ] && [ "$(grep -c '"kernel": "saxpy"' sim.json)" = 1 ] && ok ||
    ko "simulate of concatenated journals: not one result each for copy and saxpy"
# copy's replay has the configurations of both runs.
n=$(cat a/$slug.journal b/$slug.journal | awk -F'\t' '$1 == "copy" && $10 != "final" {c[$3] = 1} END {print length(c)}')
"$bin" tune --simulate all.journal --kernel copy --strategy brute_force --json >simc.json 2>/dev/null
grep -q "\"evaluations\": $n," simc.json && ok || ko "simulate: brute force of copy did not see all $n recorded configurations"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
