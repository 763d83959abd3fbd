#!/usr/bin/env bash
# The cluster recipe of docs/cluster.md, run: a single-node Slurm on this
# machine (munged, slurmctld, slurmd; as root) runs the job array
# tests/cluster/autotune-array.sbatch of four `autotune tune` tasks on the
# stub driver (a 4-GPU node: each task sees its own GPU as device 0 through
# CUDA_VISIBLE_DEVICES); task 3 is killed and requeued mid-run and must
# resume from its journal; `autotune merge` combines the four profiles and
# tests/cluster/check_merge.sh checks that every (kernel, size) of every
# task is there with the faster entry kept. The checker is run on planted
# bad merges too (a dropped section, the slower entry kept): it must fail.
#
#   tests/cluster/slurm_test.sh AUTOTUNE STUB_DIR
#
# Installs slurm-wlm and munge with apt-get when they are missing. Every
# daemon is stopped at the end; every wait is bounded.
#   ATUNE_SLURM_KEEP=1  keep the work directory (printed)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: slurm_test.sh AUTOTUNE STUB_DIR" >&2; exit 64; }
bin=$(readlink -f "$1")
stub=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$bin" ] && [ -e "$stub/libcuda.so.1" ] || { echo "slurm_test: no $bin or $stub/libcuda.so.1" >&2; exit 66; }
[ "$(id -u)" = 0 ] || { echo "slurm_test: needs root (it starts slurmctld, slurmd and munged)"; exit 77; }

say() { printf '[slurm_test %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
fail() { echo "slurm_test: FAIL: $*" >&2; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
   ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    export DEBIAN_FRONTEND=noninteractive
    timeout 300 apt-get update -qq || fail "apt-get update failed"
    timeout 600 apt-get install -y -qq --no-install-recommends slurm-wlm munge \
        >/tmp/atune-slurm-apt.log 2>&1 ||
        { tail -20 /tmp/atune-slurm-apt.log; fail "apt-get install slurm-wlm munge failed"; }
fi

# The cluster page shows the job file as it is run here.
doc=$here/../../docs/cluster.md
awk '/^<!-- job file: tests\/cluster\/autotune-array.sbatch -->$/ {f = 1; next}
     f && /^```bash norun$/ {on = 1; next} on && /^```$/ {exit} on' "$doc" |
    cmp -s - "$here/autotune-array.sbatch" ||
    fail "docs/cluster.md does not show tests/cluster/autotune-array.sbatch as it is"

work=$(mktemp -d /tmp/atune-slurm-XXXXXX)
chmod 755 "$work"
pids=()
stop() {
    local rc=$?
    set +e
    [ -n "${SLURM_CONF:-}" ] && timeout 10 scancel --quiet --user=root 2>/dev/null
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    if [ -s "$work/munge/pid" ]; then kill "$(cat "$work/munge/pid")" 2>/dev/null; fi
    if [ $rc -ne 0 ]; then
        for f in "$work"/slurmctld.log "$work"/slurmd.log "$work"/results/autotune-*.out; do
            [ -e "$f" ] && { echo "--- $f"; tail -25 "$f"; }
        done
    fi
    if [ "${ATUNE_SLURM_KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
    exit $rc
}
trap stop EXIT
trap 'exit 130' INT TERM

# --- munge and a one-node cluster -------------------------------------------
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/results" "$work/node"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/key" bs=1024 count=1 status=none
chmod 400 "$work/munge/key"
munged --force --socket="$work/munge/sock" --key-file="$work/munge/key" \
    --pid-file="$work/munge/pid" --log-file="$work/munge/log" \
    --seed-file="$work/munge/seed"
host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=atunetest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
for i in $(seq 150); do
    [ "$(timeout 5 sinfo -h -o %t 2>/dev/null)" = idle ] && break
    [ "$i" = 150 ] && fail "the node did not come up in 30 s"
    sleep 0.2
done
say "node $host up: $(nproc) CPUs, ports $port-$((port + 1)), $(sinfo --version), $(munged --version 2>&1 | head -1)"

# --- the job array ---------------------------------------------------------
# Tasks 0 and 1 tune the same size with different budgets: the planted
# conflict, of which task 1's longer search is expected to win. Task 3 is
# the one killed and requeued.
results=$work/results
plan=$work/plan.txt
cat >"$plan" <<'EOF'
--kernel copy --size small --strategy random --budget 3 --seed 1
--kernel copy --size small --budget 8
--kernel saxpy --size small --budget 6
--kernel saxpy --size latency_4096 --budget 12 --seed 3
EOF
# What the site's software stack does for the job: the stub driver as a
# 4-GPU node, each task given its own GPU (--gpus-per-task sets
# CUDA_VISIBLE_DEVICES on a real site), and task 3's first attempt slow
# enough to be killed mid-run.
cat >"$work/autotune" <<EOF
#!/bin/bash
export LD_LIBRARY_PATH=$stub\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export ATUNE_STUB_GPUS=4 ATUNE_CACHE_DIR=$work/cache
export CUDA_VISIBLE_DEVICES=\${CUDA_VISIBLE_DEVICES:-\$SLURM_ARRAY_TASK_ID}
if [ "\$SLURM_ARRAY_TASK_ID" = 3 ] && [ "\${SLURM_RESTART_COUNT:-0}" = 0 ]; then
    export ATUNE_STUB_DELAY_US=40000
fi
exec $bin "\$@"
EOF
chmod +x "$work/autotune"
journal3=$results/task-3/tune.journal
records3() { local n; n=$(grep -c '^saxpy' "$journal3" 2>/dev/null); echo "${n:-0}"; }

say "sbatch --array=0-3 --wait"
cd "$results"
timeout 240 sbatch --wait --time=5 \
    --export=ALL,ATUNE_PLAN="$plan",ATUNE_RESULTS="$results",AUTOTUNE="$work/autotune",ATUNE_LOCAL="$work/node" \
    "$here/autotune-array.sbatch" >"$work/sbatch.out" 2>&1 &
sb=$!
for i in $(seq 600); do
    [ "$(records3)" -ge 3 ] && break
    kill -0 $sb 2>/dev/null || fail "sbatch ended before task 3 ran: $(cat "$work/sbatch.out")"
    [ "$i" = 600 ] && fail "task 3 wrote no records in 120 s"
    sleep 0.2
done
job=$(awk '/Submitted batch job/ {print $4}' "$work/sbatch.out")
[ -n "$job" ] || fail "no job id: $(cat "$work/sbatch.out")"
before=$(records3)
say "task 3 has $before records: scontrol requeue ${job}_3"
scontrol requeue "${job}_3"
# A requeued job is held back two minutes (BeginTime); let it start now.
for i in $(seq 150); do
    [ "$(squeue -h -j "${job}_3" -o %T 2>/dev/null)" = PENDING ] && break
    [ "$i" = 150 ] && fail "task 3 did not go back to pending"
    sleep 0.2
done
# slurmd refuses a launch whose credential is from the second in which
# the killed attempt's was revoked ("Job credential revoked"): start it a
# few seconds later, not two minutes.
sleep 3
scontrol update jobid="${job}_3" StartTime=now
rc=0
wait $sb || rc=$?
[ $rc -eq 0 ] || fail "sbatch --wait: exit $rc: $(cat "$work/sbatch.out")"
say "the array finished"

# --- what each task did ------------------------------------------------------
slug=nvidia-stub-h100
for t in 0 1 2 3; do
    d=$results/task-$t
    [ -s "$d/$slug.ini" ] || fail "task $t: no profile copied to $d"
    tail -1 "$d/tune.journal" | grep -q '^# done:' || fail "task $t: its journal has no '# done:' last"
    grep -q "^# run: .*uuid=GPU-5a5a5a5a-5a5a-5a5a-5a5a-5a5a5a5a5a0$t " "$d/tune.journal" ||
        fail "task $t did not tune physical GPU $t as its device 0"
done
out3=$(ls "$results"/autotune-*_3.out)
grep -q "task 3 (restart 1)" "$out3" || fail "task 3 was not started again"
grep -q "DUE TO JOB REQUEUE" "$out3" || fail "task 3's first attempt was not killed by the requeue"
grep -q "^resuming: [0-9]* records of an unfinished run" "$out3" ||
    fail "task 3 did not resume from its journal: $(cat "$out3")"
[ "$(grep -c '^# run:' "$journal3")" = 2 ] || fail "task 3's journal: not two runs"
first=$(grep -m1 '^# run:' "$journal3" | sed 's/.* run=//')
grep -q "^# done: .*resumed=$first" "$journal3" || fail "task 3's second run did not finish the first ($first)"
twice=$(awk -F'\t' '/^saxpy/ && $10 != "final" {n[$3]++} END {for (c in n) if (n[c] > 1) d++; print d + 0}' "$journal3")
[ "$twice" = 0 ] || fail "task 3 measured $twice configurations twice after resuming"
say "task 3: killed after $before records, requeued, resumed ($(grep '^resuming' "$out3"))"

# --- merge and check ----------------------------------------------------------
inputs=("$results"/task-*/$slug.ini)
"$bin" merge "$results/$slug.ini" "${inputs[@]}"
"$here/check_merge.sh" "$results/$slug.ini" "${inputs[@]}" || fail "the merge is wrong"
sec() { awk -v s="[copy n=1048576]" '$0 == s {on = 1; next} /^\[/ {on = 0} on' "$1"; }
cfg() { sec "$1" | awk -F' = ' '$1 ~ /^[A-Z]/ {printf "%s=%s,", $1, $2}'; }
tns() { sec "$1" | awk -F' = ' '$1 == "time_ns" {print $2}'; }
t0=$(tns "$results/task-0/$slug.ini") t1=$(tns "$results/task-1/$slug.ini")
[ "$(cfg "$results/task-0/$slug.ini")" != "$(cfg "$results/task-1/$slug.ini")" ] && [ "$t1" -lt "$t0" ] ||
    fail "the planted conflict: tasks 0 and 1 should find different copy configurations, task 1's faster ($t0, $t1 ns)"
[ "$(cfg "$results/$slug.ini")" = "$(cfg "$results/task-1/$slug.ini")" ] ||
    fail "the merge kept $(cfg "$results/$slug.ini"), not task 1's faster $(cfg "$results/task-1/$slug.ini")"
grep -q '^merged_by = recorded_time$' "$results/$slug.ini" || fail "the merge does not say it went by recorded time"
cp "$results/$slug.ini" "$work/once.ini"
"$bin" merge -q "$results/$slug.ini" "${inputs[@]}"
cmp -s "$results/$slug.ini" "$work/once.ini" || fail "merging again changed the result"

# The checker must catch a merge that drops a section or keeps the slower.
awk '/^\[saxpy n=4096\]/ {skip = 1; next} /^\[/ {skip = 0} !skip' "$work/once.ini" >"$work/dropped.ini"
if "$here/check_merge.sh" "$work/dropped.ini" "${inputs[@]}" >"$work/check.out"; then
    fail "check_merge.sh passed a merge without [saxpy n=4096]"
fi
grep -q "missing" "$work/check.out" || fail "check_merge.sh: $(cat "$work/check.out")"
"$bin" merge -q "$work/slower.ini" "$results/task-0/$slug.ini"
"$bin" merge -q "$work/slower.ini" "$results/task-2/$slug.ini" "$results/task-3/$slug.ini"
if "$here/check_merge.sh" "$work/slower.ini" "${inputs[@]}" >"$work/check.out"; then
    fail "check_merge.sh passed a merge that kept task 0's slower copy"
fi
grep -q "not the fastest" "$work/check.out" || fail "check_merge.sh: $(cat "$work/check.out")"
say "check_merge.sh fails on a dropped section and on the slower entry kept"

# --- the tasks' journals, concatenated, replay ---------------------------------
cat "$results"/task-*/tune.journal >"$work/all.journal"
"$bin" tune --simulate "$work/all.journal" --json >"$work/sim.json"
pairs=$(awk -F'"' '/^      "kernel": / {k = $4} /^      "size": / {print k, $4}' "$work/sim.json" | sort | tr '\n' ';')
[ "$pairs" = "copy n=1048576;saxpy n=1048576;saxpy n=4096;" ] ||
    fail "the concatenated journals replay as '$pairs'"
say "PASS: 4 tasks, one requeued and resumed, merged with the faster entries kept"
