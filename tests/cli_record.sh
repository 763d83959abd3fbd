#!/usr/bin/env bash
# `autotune show --record` and `autotune tune --sizes-from` (the record that
# libatune_jit writes with ATUNE_RECORD; docs/first-use.md), tuning on the
# stub CUDA driver (tests/stubdrv): only this GPU model's recorded sizes
# of the templates here are tuned, merged into the profile by evidence; a
# bad record is refused with file:line before any GPU is touched.
set -u
bin=${ATUNE_BINARY:?run through ctest}
stub=${ATUNE_STUB_DRIVER_DIR:?run through ctest}
[ -e "$stub/libcuda.so.1" ] || { echo "no stub driver in $stub"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH=$stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATUNE_CACHE_DIR=${ATUNE_CACHE_DIR:-$tmp/cache}
unset ATUNE_STUB_GPUS ATUNE_STUB_LOG ATUNE_STUB_DELAY_US ATUNE_STUB_NAME
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
# expect CODE WHAT COMMAND...: the exit code, and stderr kept in err
expect() {
    local want=$1 what=$2
    shift 2
    "$@" >out 2>err
    local rc=$?
    [ $rc -eq "$want" ] && ok || { ko "$what: exit $rc, want $want"; cat err; }
}
tab=$'\t'
gpu="NVIDIA Stub H100"
printf '# autotune record 1\n%s\n%s\n%s\n%s\n' \
    "$gpu${tab}copy${tab}n=1000000${tab}nearest${tab}12" \
    "$gpu${tab}copy${tab}n=3000017${tab}fallback${tab}3" \
    "NVIDIA H200${tab}copy${tab}n=5${tab}other-gpu${tab}1" \
    "$gpu${tab}mykernel${tab}n=7${tab}no-profile${tab}2" >rec

# --- show --record ------------------------------------------------------
expect 0 "show --record" "$bin" show --record rec
grep -q "^record rec: 4 keys on 2 GPU models, 18 servings$" out && ok || { ko "show: summary line"; cat out; }
grep -q "^  copy: 2 sizes, 15 servings (nearest 1, fallback 1)$" out && ok || { ko "show: copy's line"; cat out; }
grep -Eq "^    n=1000000 +nearest +12$" out && ok || ko "show: n=1000000's row"
grep -Eq "^    n=5 +other-gpu +1$" out && ok || ko "show: the H200's row"
expect 66 "show --record missing" "$bin" show --record nothing.rec
printf '# autotune record 1\n%s\n' "$gpu${tab}copy${tab}n=1" >bad.rec
expect 65 "show --record malformed" "$bin" show --record bad.rec
grep -q "bad.rec:2: expected 5 tab-separated fields" err && ok || ko "malformed: no file:line"
ln -s rec link.rec
expect 74 "show --record through a symlink" "$bin" show --record link.rec
grep -q "symbolic link: refused" err && ok || ko "symlink: not said"
expect 64 "--record is show's" "$bin" tune --record rec
expect 64 "--sizes-from is tune's" "$bin" show --sizes-from rec x.ini

# --- tune --sizes-from: refused before any GPU --------------------------
expect 64 "--sizes-from with --size" "$bin" tune --sizes-from rec --size small
expect 64 "--sizes-from with --simulate" "$bin" tune --simulate x.journal --sizes-from rec
ATUNE_STUB_GPUS=0 "$bin" tune --kernel copy --sizes-from bad.rec -p p0 >out 2>err
[ $? -eq 65 ] && grep -q "bad.rec:2:" err && ok || { ko "bad record not refused before the GPU"; cat err; }
printf '# autotune record 1\n%s\n' "$gpu${tab}copy${tab}m=5${tab}nearest${tab}1" >vars.rec
expect 65 "a size with other variables" "$bin" tune --kernel copy --sizes-from vars.rec -p p0
grep -q "vars.rec:2: size 'm=5' of copy: its variables are not those of the template" err && ok || { ko "size variables: message"; cat err; }
printf '# autotune record 1\n%s\n' "NVIDIA H200${tab}copy${tab}n=5${tab}nearest${tab}1" >other.rec
expect 64 "nothing recorded on this GPU" "$bin" tune --kernel copy --sizes-from other.rec -p p0
grep -q "has no size of copy recorded on '$gpu'" err && ok || { ko "nothing for this GPU: message"; cat err; }
[ -e p0/nvidia-stub-h100.ini ] && ko "a refused run wrote a profile" || ok

# --- tune --sizes-from: exactly the recorded sizes of this GPU ----------
expect 0 "tune --sizes-from" "$bin" tune --kernel copy --sizes-from rec --budget 3 -p p --json
prof=p/nvidia-stub-h100.ini
grep -q '^\[copy n=1000000\]$' $prof && ok || ko "n=1000000 not tuned"
grep -q '^\[copy n=3000017\]$' $prof && ok || ko "n=3000017 not tuned"
[ "$(grep -c '^\[copy ' $prof)" -eq 2 ] && ok || { ko "not exactly the 2 recorded sizes"; grep '^\[' $prof; }
grep -q "copy: 2 sizes recorded on this GPU model in 'rec'" err && ok || { ko "stderr: sizes"; cat err; }
grep -q "record: 1 line of other GPU models not tuned here" err && ok || ko "stderr: other GPU"
grep -q "record: 1 line of kernels that are no template here" err && ok || ko "stderr: unknown kernel"
[ "$(grep -c '"kernel": "copy"' out)" -eq 2 ] && ok || ko "JSON: not 2 results"
# The most served first.
grep -o '"size": "n=[0-9]*"' out | head -1 | grep -q 'n=1000000' && ok || ko "JSON: most served size not first"
# Again: merged by evidence with what the first run wrote.
expect 0 "tune --sizes-from again" "$bin" tune --kernel copy --sizes-from rec --budget 3 -p p --json
grep -q '"previous": "none"' out && ko "second run: previous best not measured" || ok
[ "$(grep -c '^\[copy ' $prof)" -eq 2 ] && ok || ko "second run: sections"

echo "cli_record: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
