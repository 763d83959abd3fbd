#!/usr/bin/env bash
# Issue 34: the default search compiles what it will measure next, not the
# space in index order. A cold default `tune` on the stub CUDA driver
# (tests/stubdrv; NVRTC compiles for real) compiles at most twice the
# configurations it evaluates, says so in --json (modules_compiled,
# modules_cached) with the split of its wall time (compile_s: waiting for
# NVRTC; measure_s, verify_s, final_s, framework_s), and a warm run takes what it
# evaluates from the module cache.
# On the stub a launch costs next to nothing, so waiting for NVRTC is most
# of the wall time here: the GPU's share is a step of tests/gpu.sh.
set -u
bin=${ATUNE_BINARY:?run through ctest}
stub=${ATUNE_STUB_DRIVER_DIR:?run through ctest}
[ -e "$stub/libcuda.so.1" ] || { echo "no stub driver in $stub"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATUNE_CACHE_DIR=$tmp/cache
unset ATUNE_STUB_GPUS ATUNE_STUB_LOG
# Launches slow enough that idle compile workers would run ahead.
export ATUNE_STUB_DELAY_US=300
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
# NAME FILE: the number of the first "NAME": in FILE.
num() { sed -n "s/^ *\"$1\": \([0-9.e+-]*\),*$/\1/p" "$2" | head -1; }

"$bin" tune --kernel copy --size small -p p --json >cold.json 2>err
[ $? -eq 0 ] && ok || { ko "cold tune: exit"; cat err; }
ev=$(num evaluations cold.json) mc=$(num modules_compiled cold.json)
space=$(num space cold.json)
wall=$(num wall_s cold.json) cs=$(num compile_s cold.json)
echo "cold default run: $ev of $space evaluated, $mc modules compiled," \
  "${cs}s of ${wall}s waiting for NVRTC"
[ -n "$ev" ] && [ -n "$mc" ] && ok || ko "--json lacks evaluations or modules_compiled"
[ "${ev:-0}" -gt 0 ] && [ "${mc:-0}" -ge "${ev:-0}" ] && ok ||
  ko "cold run: $mc modules for $ev evaluations (each needs one)"
[ "${mc:-0}" -le $((2 * ${ev:-0})) ] && ok ||
  ko "cold run compiled $mc modules for $ev evaluations (want <= 2x)"
[ "${mc:-0}" -lt "${space:-0}" ] && ok || ko "cold run compiled the whole space"
# The final pick's rounds are their own part of the wall time (each of
# the stub's launches takes 300 us of it), and the parts add up to it.
fs=$(num final_s cold.json) ms=$(num measure_s cold.json)
vs=$(num verify_s cold.json) fw=$(num framework_s cold.json)
awk -v f="${fs:-x}" 'BEGIN { exit !(f + 0 > 0.005) }' && ok ||
  ko "final_s '$fs': the final pick's rounds not counted apart"
awk -v w="$wall" -v c="$cs" -v m="$ms" -v v="$vs" -v f="$fs" -v r="$fw" \
  'BEGIN { d = w - (c + m + v + f + r); exit !(r >= 0 && d < 0.01 && d > -0.01) }' && ok ||
  ko "split does not add up: wall $wall = compile $cs + measure $ms + verify $vs + final $fs + framework $fw"
# The journal ends the size with the same counts.
grep -q "^# size: copy n=1048576 evaluations=$ev modules_compiled=$mc " \
  p/nvidia-stub-h100.journal && ok || ko "journal has no '# size:' line with the counts"

"$bin" tune --kernel copy --size small -p p2 --json >warm.json 2>err
[ $? -eq 0 ] && ok || { ko "warm tune: exit"; cat err; }
# The same search again: every configuration it evaluates is in the cache
# (what it compiles is only what its hints reach that the cold run's did
# not get to).
wc=$(num modules_compiled warm.json) wh=$(num modules_cached warm.json)
[ "$(num evaluations warm.json)" = "$ev" ] && ok || ko "warm run: another search"
[ "${wh:-0}" -ge "${ev:-1}" ] && ok || ko "warm run: $wh cached modules for $ev evaluations"
[ "${wc:-0}" -lt "${mc:-0}" ] && ok || ko "warm run compiled $wc modules, the cold one $mc"

# The final pick checks each candidate's output in its first round only:
# four configurations verified by brute force, then the 3 best (the
# default among them) once each, so 7 verifications of copy's one output,
# each comparing the output and the guard behind it: 14 compare launches;
# every round verifying would be 2 x (4 + 3 x 5) = 38.
ATUNE_STUB_HELPER_LOG=$tmp/cmp.log "$bin" tune --kernel copy --size small \
  --strategy brute_force --budget 4 -p p3 >/dev/null 2>err ||
  { ko "budget 4 tune: exit"; cat err; }
ncmp=$(grep -c '^cmp_' "$tmp/cmp.log")
[ "$ncmp" -eq 14 ] && ok ||
  ko "$ncmp compare launches for 4 evaluations and a final pick of 3 (want 14)"

# Two templates in one run: the first's pool is retired, not waited for,
# while the second is tuned with the same compile children (compile.h,
# atune__pool_retire); both sizes end tuned and written.
"$bin" tune --kernel copy,saxpy --size small -p p4 --json >two.json 2>err
[ $? -eq 0 ] && ok || { ko "two templates: exit"; cat err; }
[ "$(grep -c '"kernel": "' two.json)" -eq 2 ] && ok ||
  ko "two templates: $(grep -c '"kernel": "' two.json) results (want 2)"
grep -q '^\[copy n=1048576\]' p4/nvidia-stub-h100.ini &&
  grep -q '^\[saxpy n=1048576\]' p4/nvidia-stub-h100.ini && ok ||
  ko "two templates: the profile lacks a section"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
