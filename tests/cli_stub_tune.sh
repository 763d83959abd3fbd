#!/usr/bin/env bash
# `autotune tune` end to end on the stub CUDA driver (tests/stubdrv): no GPU
# needed. The profile and journal of a run, resuming after SIGKILL, SIGINT,
# concurrent tuners in one --profile-dir, --device all, device numbers and
# planted faults (launch error, wrong output, sticky fault, hang).
set -u
bin=${ATUNE_BINARY:?run through ctest}
stub=${ATUNE_STUB_DRIVER_DIR:?run through ctest}
[ -e "$stub/libcuda.so.1" ] || { echo "no stub driver in $stub"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATUNE_CACHE_DIR=${ATUNE_CACHE_DIR:-$tmp/cache}
unset ATUNE_STUB_GPUS ATUNE_STUB_LOG ATUNE_STUB_DELAY_US
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
slug=nvidia-stub-h100
# (not for a background job: $! would be the subshell's)
tune() { "$bin" tune --kernel copy --size small "$@"; }
records() { local n; n=$(grep -c "^copy" "$1" 2>/dev/null); echo "${n:-0}"; }
# Waits until journal $1 holds at least $2 records (at most 60 s).
wait_records() {
    local i
    for ((i = 0; i < 1200; i++)); do
        [ "$(records "$1")" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}
# The copy records of journal $1 for which the awk condition $2 holds (more
# arguments go to awk, e.g. -v t=5); 0 when the journal is not there yet.
matching() {
    local j=$1 cond=$2
    shift 2
    awk -F'\t' "$@" "/^copy/ && ($cond)" "$j" 2>/dev/null | wc -l
}
# The configurations measured twice (search records, not final ones).
remeasured() { awk -F'\t' '/^copy/ && $10 != "final" {n[$3]++} END {for (c in n) if (n[c] > 1) d++; print d + 0}' "$1"; }

# --- one run: profile and journal ---------------------------------------
tune --budget 12 -p p1 --json >out.json 2>err
[ $? -eq 0 ] && ok || { ko "tune on the stub: exit"; cat err; }
grep -q '^\[copy n=1048576\]' p1/$slug.ini && ok || ko "no section in the profile"
grep -q '^name = NVIDIA Stub H100$' p1/$slug.ini && ok || ko "device name not in the profile"
t=$(awk -F' = ' '/^time_ns/ {print $2}' p1/$slug.ini)
[ "${t:-0}" -ge 10000 ] && [ "$t" -le 20100 ] && ok || ko "profile time_ns '$t' not from the stub's model"
[ "$(grep -c '^# run:' p1/$slug.journal)" -eq 1 ] && ok || ko "journal: not one run line"
tail -1 p1/$slug.journal | grep -q '^# done:' && ok || ko "journal of a finished run has no '# done:' last"
n=$(awk -F'\t' '/^copy/ && $10 != "final"' p1/$slug.journal | wc -l)
[ "$n" -eq 12 ] && ok || ko "journal: $n search records for --budget 12"
grep -q '"evaluations": 12' out.json && ok || ko "JSON does not say 12 evaluations"
grep -q "uuid=GPU-5a5a5a5a" p1/$slug.journal && ok || ko "journal run line has no UUID"
# The template whose source is over twice any other's (matmul) is tuned
# last, the others in name order (tune_pools.c, atune__tune_order).
"$bin" tune --size large --budget 1 -p p1o -q >/dev/null 2>&1
order=$(sed -n 's/^# size: \([a-z]*\) .*/\1/p' p1o/$slug.journal | uniq | tr '\n' ' ')
[ "$order" = "constmem copy reduce saxpy matmul " ] && ok || ko "templates tuned in the order '$order'"

# --- resume after SIGKILL: nothing measured twice --------------------------
export ATUNE_STUB_DELAY_US=1500
"$bin" tune --kernel copy --size small --strategy brute_force -p p2 2>/dev/null >/dev/null &
pid=$!
wait_records p2/$slug.journal 30 || ko "resume: the first run wrote no records"
kill -KILL $pid
wait $pid 2>/dev/null
before=$(records p2/$slug.journal)
tune --strategy brute_force -p p2 2>err >/dev/null
[ $? -eq 0 ] && ok || { ko "resume: exit"; cat err; }
grep -q "resuming: $before records" err && ok || ko "resume: does not say it resumes $before records"
[ "$(remeasured p2/$slug.journal)" -eq 0 ] && ok || ko "resume: $(remeasured p2/$slug.journal) configurations measured twice"
tail -1 p2/$slug.journal | grep -q '^# done:' && ok || ko "resume: no '# done:'"

# --- SIGINT: 130, what was measured kept, the run not marked done -----------
"$bin" tune --kernel copy --size small --strategy brute_force -p p3 2>err >/dev/null &
pid=$!
wait_records p3/$slug.journal 20
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && ok || { ko "SIGINT: exit $rc, want 130"; cat err; }
grep -q '^# done:' p3/$slug.journal && ko "SIGINT: the run is marked done" || ok
[ -s p3/$slug.ini ] && ok || ko "SIGINT: what was measured is not in the profile"

# --- two tuners in one --profile-dir ---------------------------------------
"$bin" tune --kernel copy --size small --budget 20 -p p4 2>err4a >/dev/null &
a=$!
"$bin" tune --kernel saxpy --budget 20 -p p4 2>err4b >/dev/null &
b=$!
wait $a; ra=$?
wait $b; rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ] && ok || { ko "concurrent tuners: exits $ra $rb"; cat err4a err4b; }
grep -q '^\[copy n=1048576\]' p4/$slug.ini && grep -q '^\[saxpy ' p4/$slug.ini && ok ||
    ko "concurrent tuners: a section is lost"
# One killed while the other finishes: re-running it measures nothing again.
# Its launches are slow enough that it cannot finish while the other runs,
# even in a sanitizer build on a busy machine.
ATUNE_STUB_DELAY_US=20000 "$bin" tune --kernel copy --size small --strategy brute_force -p p5 2>/dev/null >/dev/null &
a=$!
wait_records p5/$slug.journal 20
"$bin" tune --kernel saxpy --size small --budget 5 -p p5 2>/dev/null >/dev/null
kill -KILL $a
wait $a 2>/dev/null
"$bin" tune --kernel copy --size small --strategy brute_force -p p5 2>err >/dev/null
[ $? -eq 0 ] && ok || { ko "concurrent resume: exit"; cat err; }
[ "$(remeasured p5/$slug.journal)" -eq 0 ] && ok ||
    ko "concurrent resume: $(remeasured p5/$slug.journal) configurations measured twice (the other run's '# done:' closed this one)"
unset ATUNE_STUB_DELAY_US

# --- merge by evidence: a re-tune never makes the profile worse ------------
sec() { awk -v s="[copy n=1048576]" '$0 == s {on = 1; next} /^\[/ {on = 0} on' "$1"; }
cfg() { sec "$1" | awk -F' = ' '$1 ~ /^[A-Z]/ {printf "%s=%s,", $1, $2}'; }
key() { sec "$1" | awk -F' = ' -v k="$2" '$1 == k {print $2}'; }
tune --strategy brute_force -p p9 >/dev/null 2>&1
best=$(cfg p9/$slug.ini)
t_best=$(key p9/$slug.ini time_ns)
[ "$(key p9/$slug.ini previous)" = none ] && ok || ko "merge: a first section says previous = $(key p9/$slug.ini previous)"
# A quick random search does not find the brute-force best (seed 1; had it
# found it, the message below would not be there): the profile keeps it.
tune --strategy random --budget 2 --seed 1 -p p9 >/dev/null 2>err
[ $? -eq 0 ] && ok || { ko "merge: exit"; cat err; }
grep -q "kept the profile's previous best" err && ok || { ko "merge: does not say it kept the previous best"; cat err; }
[ "$(cfg p9/$slug.ini)" = "$best" ] && ok || ko "merge: profile got worse: $(cfg p9/$slug.ini), was $best"
[ "$(key p9/$slug.ini previous)" = kept ] && ok || ko "merge: previous = $(key p9/$slug.ini previous), want kept"
[ "$(key p9/$slug.ini previous_time_ns)" -gt 0 ] && ok || ko "merge: the previous best was not timed again"
# The old behaviour on request: the worse configuration replaces it.
tune --strategy random --budget 2 --seed 1 --replace -p p9 >/dev/null 2>&1
[ "$(cfg p9/$slug.ini)" != "$best" ] && ok || ko "--replace kept the previous best"
[ "$(key p9/$slug.ini previous)" = forced ] && ok || ko "--replace: previous = $(key p9/$slug.ini previous)"
[ "$(key p9/$slug.ini previous_time_ns)" = 0 ] && ok || ko "--replace left a stale previous_time_ns"
# A better search replaces a worse section, and says so.
tune --strategy brute_force -p p9 >/dev/null 2>err
[ "$(cfg p9/$slug.ini)" = "$best" ] && ok || ko "merge: the better new best did not replace the section"
[ "$(key p9/$slug.ini previous)" = replaced ] && ok || ko "merge: previous = $(key p9/$slug.ini previous), want replaced"
run=$(key p9/$slug.ini run)
grep -q "run=$run\$" p9/$slug.journal && ok || ko "merge: the section's run '$run' is not a run of the journal"
[ "$(key p9/$slug.ini time_ns)" -le $((t_best + t_best / 50)) ] && ok || ko "merge: time_ns $(key p9/$slug.ini time_ns) vs $t_best"

# Another tuner of this GPU model writes the section after this run read it
# and before it writes (two jobs, --device all): the write finds the section
# changed, measures the other's best beside its own and keeps the faster,
# never just the last written.
cp p9/$slug.ini best.ini
ATUNE_TEST_WRITE_DELAY_MS=4000 "$bin" tune --kernel copy --size small --strategy random --budget 2 --seed 1 -p p10 >/dev/null 2>err10 &
b=$!
for ((i = 0; i < 1200; i++)); do
    [ "$(matching p10/$slug.journal '$10 == "final"')" -gt 0 ] && break
    sleep 0.05
done
sleep 0.5
cp best.ini p10/new.tmp && mv p10/new.tmp p10/$slug.ini
wait $b
[ $? -eq 0 ] && ok || { ko "write race: exit"; cat err10; }
grep -q "section changed (another tuner" err10 && ok || { ko "write race: the changed section went unnoticed"; cat err10; }
[ "$(cfg p10/$slug.ini)" = "$best" ] && ok || ko "write race: the last writer won: $(cfg p10/$slug.ini), the other's $best"
[ "$(key p10/$slug.ini previous)" = kept ] && ok || ko "write race: previous = $(key p10/$slug.ini previous), want kept"

# --- lazy verification: the default run checks what could matter -------------
# Every BLOCK_SIZE=128 configuration writes a wrong element. The default
# run (no --strategy, no --budget) times first and verifies only what did
# not lose its race; none of the 128s is ever ok-and-verified or best.
ATUNE_STUB_WRONG_BLOCK=128 tune -p p12 --json >p12.json 2>err12
[ $? -eq 0 ] && ok || { ko "lazy verification: exit"; cat err12; }
lazy=$(matching p12/$slug.journal '$10 == "unverified"')
[ "$lazy" -gt 0 ] && ok || ko "lazy verification: no configuration left unverified"
grep -q "\"unverified\": $lazy," p12.json && ok || ko "lazy verification: JSON does not count the $lazy unverified"
[ "$(matching p12/$slug.journal '$3 ~ /^BLOCK_SIZE=128,/ && $4 == "ok" && $10 != "unverified"')" -eq 0 ] && ok ||
    ko "lazy verification: a wrong configuration passed as verified"
[ "$(matching p12/$slug.journal '$4 == "wrong_output"')" -gt 0 ] && ok ||
    ko "lazy verification: no wrong output caught"
case "$(cfg p12/$slug.ini)" in BLOCK_SIZE=128,*) ko "lazy verification: a wrong configuration is the best";; *) ok;; esac
t12=$(key p12/$slug.ini time_ns)
[ "$(matching p12/$slug.journal '$10 == "unverified" && $5 <= t' -v t="$t12")" -eq 0 ] && ok ||
    ko "lazy verification: an unverified record is as fast as the best"
# A named strategy (or a budget) verifies every configuration.
ATUNE_STUB_WRONG_BLOCK=128 tune -p p12b --strategy brute_force >/dev/null 2>&1
[ "$(matching p12b/$slug.journal '$10 == "unverified"')" -eq 0 ] && ok ||
    ko "brute force left a configuration unverified"
[ "$(matching p12b/$slug.journal '$4 == "wrong_output"')" -eq 126 ] && ok ||
    ko "brute force: not every BLOCK_SIZE=128 configuration found wrong"
# A kernel that writes past the end of its output (a vector store at a
# ragged size: llm.c's gelu_forward kernel 2 writes 8 bf16 at a time) fails
# verification by the guard behind the buffer, though every element of the
# output is right; it was taken as ok.
ATUNE_STUB_OVERRUN_BLOCK=256 tune -p p12c --strategy brute_force >/dev/null 2>err12c
[ $? -eq 0 ] && ok || { ko "overrun: exit"; cat err12c; }
n256=$(matching p12c/$slug.journal '$3 ~ /^BLOCK_SIZE=256,/')
[ "$n256" -gt 0 ] && [ "$(matching p12c/$slug.journal '$3 ~ /^BLOCK_SIZE=256,/ && $4 == "wrong_output" && /out: written past its end \(within the 65536 bytes after its 1048576 elements\)/')" -eq "$n256" ] &&
    [ "$(matching p12c/$slug.journal '$3 !~ /^BLOCK_SIZE=256,/ && $4 == "wrong_output"')" -eq 0 ] && ok ||
    ko "overrun: not exactly the BLOCK_SIZE=256 configurations caught, with the buffer named"
case "$(cfg p12c/$slug.ini)" in BLOCK_SIZE=256,*) ko "overrun: a configuration writing past its output is the best";; *) ok;; esac
# Killed and resumed, the default run measures nothing twice (unverified
# records are taken as they are where they still lose).
ATUNE_STUB_DELAY_US=20000 "$bin" tune --kernel copy --size small -p p13 >/dev/null 2>&1 &
a=$!
wait_records p13/$slug.journal 25
kill -KILL $a
wait $a 2>/dev/null
tune -p p13 >/dev/null 2>err13
[ $? -eq 0 ] && ok || { ko "lazy verification, resumed: exit"; cat err13; }
[ "$(remeasured p13/$slug.journal)" -eq 0 ] && ok ||
    ko "lazy verification, resumed: $(remeasured p13/$slug.journal) configurations measured twice"

# --- --device all and device numbers ---------------------------------------
ATUNE_STUB_GPUS=2 ATUNE_STUB_LOG=$tmp/log tune --device all --budget 6 -p p6 2>err >/dev/null
[ $? -eq 0 ] && ok || { ko "--device all: exit"; cat err; }
grep -qx "cuDeviceGet 0" log && grep -qx "cuDeviceGet 1" log && ok || ko "--device all did not open GPUs 0 and 1"
[ -s p6/$slug.gpu0.journal ] && [ -s p6/$slug.gpu1.journal ] && ok || ko "--device all: one journal per GPU"
grep -q '^\[copy n=1048576\]' p6/$slug.ini && ok || ko "--device all: no profile section"
# Both GPUs read the section before either writes it (the window widened):
# the second write finds it changed, measures the first's best beside its
# own, and writes again.
ATUNE_STUB_GPUS=2 ATUNE_TEST_WRITE_DELAY_MS=3000 tune --device all --budget 6 -p p11 2>err11 >/dev/null
[ $? -eq 0 ] && ok || { ko "--device all, one section: exit"; cat err11; }
[ "$(grep -c 'section changed (another tuner' err11)" -eq 1 ] && ok ||
    { ko "--device all, one section: not exactly one write found it changed"; cat err11; }
[ "$(grep -c '^\[copy n=1048576\]' p11/$slug.ini)" -eq 1 ] && ok || ko "--device all, one section: not one section"
rm -f log
ATUNE_STUB_GPUS=2 ATUNE_STUB_LOG=$tmp/log tune --device 1 --budget 2 -p p7 >/dev/null 2>&1
[ "$(sort -u log)" = "cuDeviceGet 1" ] && ok || ko "--device 1 opened: $(cat log)"
ATUNE_STUB_GPUS=0 tune --budget 2 -p p7 >/dev/null 2>err
[ $? -eq 69 ] && grep -q "no CUDA-capable GPU" err && ok || ko "no GPU: not 69 with its reason"

# --- planted faults: each is recorded, the run goes on ----------------------
# BLOCK_SIZE=64 at GRID=0 with VW*UNROLL=1 is the only launch of 64x16384
# (EVICT=0 and 1).
ATUNE_STUB_ERROR_BLOCK=64,16384 ATUNE_STUB_WRONG_BLOCK=512,2048 \
ATUNE_STUB_FAULT_BLOCK=256,4096 ATUNE_STUB_HANG_BLOCK=1024,1024 \
    tune --strategy brute_force --launch-timeout 1 -p p8 2>err >/dev/null
[ $? -eq 0 ] && ok || { ko "planted faults: exit"; tail -5 err; }
st() { awk -F'\t' -v c="$1" '$3 == c && $10 != "final" {print $4}' p8/$slug.journal | tail -1; }
[ "$(st BLOCK_SIZE=64,VW=1,UNROLL=1,GRID=0,EVICT=0)" = launch_error ] && ok || ko "planted launch error: $(st BLOCK_SIZE=64,VW=1,UNROLL=1,GRID=0,EVICT=0)"
[ "$(st BLOCK_SIZE=512,VW=1,UNROLL=1,GRID=0,EVICT=0)" = wrong_output ] && ok || ko "planted wrong output: $(st BLOCK_SIZE=512,VW=1,UNROLL=1,GRID=0,EVICT=0)"
[ "$(st BLOCK_SIZE=256,VW=1,UNROLL=1,GRID=0,EVICT=0)" = fault ] && ok || ko "planted sticky fault: $(st BLOCK_SIZE=256,VW=1,UNROLL=1,GRID=0,EVICT=0)"
[ "$(st BLOCK_SIZE=1024,VW=1,UNROLL=1,GRID=0,EVICT=0)" = timeout ] && ok || ko "planted hang: $(st BLOCK_SIZE=1024,VW=1,UNROLL=1,GRID=0,EVICT=0)"
# The last worker's wall time is the run's, restarts included (the hang
# alone took a second).
awk '/^wall time:/ {last = $3; if (!first) first = $3} END {exit !(last >= first && last >= 1)}' err && ok ||
    ko "wall time of a restarted run: $(grep '^wall time' err | tr '\n' ' ')"
n=$(awk -F'\t' '/^copy/ && $10 != "final" {c[$3]=1} END {print length(c)}' p8/$slug.journal)
[ "$n" -eq 630 ] && ok || ko "planted faults: $n of 630 configurations recorded"

# A run refused before tuning prints no result table: a table header
# alone on stdout read as a run that tuned nothing.
printf x >notadir
tune -p notadir >out 2>err
rc=$?
[ $rc -eq 73 ] && ok || { ko "profile directory that is a file: exit $rc"; cat err; }
[ ! -s out ] && ok || ko "a run refused for its profile printed on stdout: $(head -1 out)"
mkfifo fifo
tune -p p10 --journal fifo >out 2>err
rc=$?
[ $rc -eq 73 ] && ok || { ko "journal that is a FIFO: exit $rc"; cat err; }
[ ! -s out ] && ok || ko "a run refused for its journal printed on stdout: $(head -1 out)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
