#!/usr/bin/env bash
# tests/cluster/autotune-array.sbatch's node-local scratch folder, run
# without Slurm (the variables Slurm sets, the stub driver): it lies in a
# folder every user may write ($TMPDIR, /tmp), so its name must not be
# one another user can create first. Job ids count up: a folder
# autotune-JOB-TASK made in advance by someone else was used as it was,
# and `cp "$scratch"/*.ini` then copied what they planted into the
# results (a link to a file of the user's: the file's contents), to be
# merged. The job file now makes a new folder of its own (mktemp -d,
# mode 0700) and leaves a planted one alone.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
stub=${ATUNE_STUB_DRIVER_DIR:?run through ctest}
[ -e "$stub/libcuda.so.1" ] || { echo "no stub driver in $stub"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATUNE_CACHE_DIR=$tmp/cache
unset ATUNE_STUB_GPUS ATUNE_STUB_LOG ATUNE_STUB_DELAY_US ATUNE_STUB_NAME
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

echo "--kernel copy --size small --budget 2" >"$tmp/plan"
mkdir -m 1777 "$tmp/node"
echo "the user's secret" >"$tmp/secret"
# Planted before the job runs: the folder task 0 of job 42 would use.
planted=$tmp/node/autotune-42-0
mkdir -m 777 "$planted"
ln -s "$tmp/secret" "$planted/leak.ini"
echo "[device]" >"$planted/planted.ini"

SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=42 ATUNE_PLAN=$tmp/plan \
  ATUNE_RESULTS=$tmp/results ATUNE_LOCAL=$tmp/node AUTOTUNE=$bin \
  bash "$src/tests/cluster/autotune-array.sbatch" >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok || { ko "job exit $rc"; tail -20 "$tmp/out"; }
res=$tmp/results/task-0
[ -s "$res/nvidia-stub-h100.ini" ] && grep -q '^\[copy n=' "$res/nvidia-stub-h100.ini" && ok ||
  ko "the task's profile is not in the results"
[ ! -e "$res/leak.ini" ] && ok || ko "a planted link's target was copied into the results"
[ ! -e "$res/planted.ini" ] && ok || ko "a planted file was copied into the results"
[ "$(ls "$res")" = "$(printf 'nvidia-stub-h100.ini\ntune.journal')" ] && ok ||
  ko "results hold more than the profile and journal: $(ls "$res")"
# The planted folder is neither used nor removed: it is not ours.
[ -L "$planted/leak.ini" ] && [ ! -e "$planted/nvidia-stub-h100.ini" ] && ok ||
  ko "the planted folder was written or removed"
# The job's own scratch folder is gone when it ends.
[ "$(ls "$tmp/node")" = "autotune-42-0" ] && ok || ko "scratch left: $(ls "$tmp/node")"

echo "cli_slurm_scratch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
