#!/usr/bin/env bash
# Everything that needs a GPU, in one call (made for the lent GPU machine):
# install the carried .deb dependencies, build (with the benchmark), run
# the GPU tests, tune, benchmark against the vendor libraries. Results go
# under $OUT (default ./out): log.txt, tune-N.json, bench.txt, and the
# profiles and journals in profiles.tgz.
#
#   STEPS="test default cold tune bench consumer kt published evaluate all
#          ncu engine flush study regret merge profmerge cand sweep record
#          shapes firstuse docs verify"  (run in this order; record:
#          tests/gpu_record.sh, record-tune-serve of copy; firstuse:
#          tests/gpu_firstuse.sh, ATUNE_EFFORT=measure at untuned sizes,
#          FIRSTUSE_KERNELS / FIRSTUSE_BRUTE pass through; published: tests/gpu_published.sh,
#          the published kernel files tuned as they are; verify:
#          tests/gpu_verify.sh)
#                             (default: test tune bench consumer)
#   REGRET_KERNELS=copy,saxpy regret: kernels (default copy,saxpy,reduce,
#                             constmem,matmul); REGRET_PROFILE=file measures
#                             that profile instead of tuning the ladders;
#                             SIZES_1D, SIZES_2D, SEED: tests/bench/regret.sh
#   STUDY=studies/x STUDY_KERNEL=copy
#                             study: the configurations of x/study.cfg (one
#                             a line) of template x/KERNEL and the vendor in
#                             alternating rounds (tests/bench/bench
#                             BENCH_CONFIGS)
#   SHAPES_LIMIT=12           shapes: tests/bench/shapes.sh, matmul tuned at
#                             issue 36's 16 (m, n, k) shapes (seconds per
#                             shape) and benchmarked against cuBLAS
#                             (SHAPES, STRATEGY, NCU=1, STUDY_FILE pass
#                             through: see its header)
#   CAND="studies/x"         cand: candidate template folders to brute-force
#                             and benchmark (tests/bench/bench --templates)
#   DEFAULT_DIR=profiles      default: where the cold default run writes
#                             (default /tmp/atune-default); "profiles" makes
#                             this GPU's committed profile afresh
#   NO_BRUTE=1                default: no brute force afterwards
#   PAIRINGS=3                default: processes re-timing the default's
#                             choices beside brute force's (the median)
#   PREWARM=0                 default, cold: time the machine's first
#                             process as it is (default: one untimed
#                             autotune check reads NVRTC and the headers
#                             first; see prewarm below)
#   COLD_ARGS="--templates DIR --kernel K"
#                             cold: what the cold default run tunes
#                             (default: every built-in template); its
#                             compile/eval split in cold.json and the log.
#                             The third-party space of issue 34 (Kernel
#                             Tuner's convolution.cu as published, the FAIR
#                             benchmark hub's space: 5342 configurations,
#                             seconds of NVRTC each):
#                             COLD_ARGS="--templates tests/data/published/convolution"
#                             or the benchmark hub's dedispersion as published
#                             (11130 configurations, ~0.1 s of NVRTC each,
#                             launches of ~40-120 ms: bound the search):
#                             COLD_ARGS="--templates tests/data/published/dedispersion --time-limit 300"
#   KT_SPACES="copy conv"     kt: the side by side against Kernel Tuner on
#                             these spaces, in order (default both; copy:
#                             templates/copy, conv: 288 configurations of
#                             that convolution, tests/data/published/
#                             convolution_kt), each into OUT/kt-SPACE
#   SWEEP="studies/sweep"    sweep: template folders to brute-force at every
#                             size (data for choosing ladders), journals
#                             and --json in sweep.tgz
#   ALL_ARGS="--kernel copy"  all: the work run on GPU 0 and on --device all
#   KERNELS=copy,saxpy        templates to benchmark (default all)
#   TUNE_PLAN="copy,saxpy|;matmul|--size large"
#                             tune runs, ';'-separated, each KERNELS|ARGS
#                             (default: KERNELS with no extra arguments)
#   ATUNE_DEBS=.debs          folder of libinih*/libcmocka* .deb files
#   EVALUATE="profiles/a.ini" evaluate: other GPUs' profiles to measure here
#                             (autotune --evaluate), recorded in this GPU's
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$root/out}
STEPS=${STEPS:-test tune bench consumer}
KERNELS=${KERNELS:-}
TUNE_PLAN=${TUNE_PLAN:-$KERNELS|}
debs=${ATUNE_DEBS:-$root/.debs}
build=$root/build/gpu
mkdir -p "$OUT"
log=$OUT/log.txt
: >"$log"
export PATH=/usr/local/cuda/bin:$PATH

say() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)" | tee -a "$log"; }
has() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
# A timed cold run is cold twice over: autotune's module cache and NVRTC's
# own. NVRTC (12.9 and later) keeps what it compiled in the driver's
# compute cache (CUDA_CACHE_PATH, ~/.nv/ComputeCache by default), so a
# second run on one machine finds its compiles there whatever
# ATUNE_CACHE_DIR says (H100, 2026-11-27: autotune check of 48
# convolution configurations, fresh module caches, 45.1 s of CPU, then
# 1.1 s). Each cold run gets fresh folders for both (cold_caches), and
# before it one untimed process (prewarm: autotune check, one
# configuration per template, caches of its own) reads NVRTC and the
# toolkit headers, so that "cold" is not also a freshly lent machine's
# first read of those files from its disk. PREWARM=0 leaves that out.
cold_caches() {
  cache=$(mktemp -d) nvcache=$(mktemp -d)
}
prewarm() {
  [ "${PREWARM:-1}" = 0 ] && return 0
  local c n
  c=$(mktemp -d) n=$(mktemp -d)
  CUDA_CACHE_PATH=$n ATUNE_CACHE_DIR=$c "$build/autotune" check --budget 1 "$@" >/dev/null 2>&1
  echo "machine warmed: autotune check --budget 1 $* (untimed, its caches discarded)" | tee -a "$log"
  rm -rf "$c" "$n"
}

say "machine"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem \
    --format=csv 2>&1; nvcc --version | tail -2; nproc; } >>"$log" 2>&1

if ! pkg-config --exists inih cmocka 2>/dev/null; then
  say "installing carried packages from $debs"
  dpkg -i "$debs"/*.deb >>"$log" 2>&1 || { echo "dpkg failed" | tee -a "$log"; exit 1; }
fi

say "configure and build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DATUNE_BUILD_BENCH=ON \
  >>"$log" 2>&1 && cmake --build "$build" -j"$(nproc)" >>"$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then tail -40 "$log"; exit $rc; fi

status=0
if has test; then
  say "GPU tests"
  (cd "$build" && ctest -L gpu -V -j1 --timeout 900) 2>&1 | tee -a "$log" | grep -E "Test +#|tests passed|FAIL|measured twice" | tail -25
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  say "launch cost: atune_jit_run vs bare cuLaunchKernel"
  "$build/tests/launch_cost" 50000 2>&1 | tee -a "$log" | tee "$OUT/launch_cost.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if has default; then
  # The default run as a new user makes it (cold module cache, no options),
  # then brute force of the same templates on the same GPU; the default
  # run's choices are looked up in the brute-force journal (issue 13).
  # DEFAULT_DIR=profiles: the run writes this GPU's profile there afresh
  # (the committed one is moved aside), for committing.
  say "default run, cold module cache"
  cold_caches
  ddir=${DEFAULT_DIR:-/tmp/atune-default}
  case $ddir in /*) ;; *) ddir=$root/$ddir ;; esac
  rm -rf /tmp/atune-default /tmp/atune-brute
  if [ "$ddir" = "$root/profiles" ]; then
    mkdir -p /tmp/atune-old-profiles
    mv "$root"/profiles/* /tmp/atune-old-profiles/ 2>/dev/null
  fi
  prewarm
  start=$(date +%s.%N)
  CUDA_CACHE_PATH=$nvcache ATUNE_CACHE_DIR=$cache "$build/autotune" --device 0 --profile-dir "$ddir" \
    --json >"$OUT/default.json" 2>>"$log"
  trc=$?
  end=$(date +%s.%N)
  echo "default run: exit $trc, wall $(awk "BEGIN{print $end - $start}") s" | tee -a "$log"
  [ $trc -eq 0 ] || status=1
  cp "$ddir"/*.journal "$OUT/default.journal" 2>/dev/null
  if [ "$ddir" = "$root/profiles" ]; then
    # Back beside the other GPUs' profiles; one file for the device tool.
    for f in /tmp/atune-old-profiles/*; do
      [ -e "$root/profiles/$(basename "$f")" ] || mv "$f" "$root/profiles/"
    done
    tar czf "$OUT/profiles.tgz" -C "$root" profiles
  fi
  if [ -z "${NO_BRUTE:-}" ]; then
    # Brute force into a profile of its own, then PAIRINGS (default 3)
    # processes of `autotune merge --device 0`, each re-timing every
    # brute-force best beside the default's choice, interleaved
    # (default_vs_brute.py --paired, the median of the pairings: at
    # launch-bound sizes two configurations' ratio moves by up to 4% from
    # one process to the next, docs/results.md).
    # This GPU's profile (DEFAULT_DIR=profiles holds the other GPUs' too):
    dprof=$(ls -t "$ddir"/*.ini | head -1)
    say "brute force of the same templates"
    start=$(date +%s.%N)
    mkdir -p /tmp/atune-brute
    ATUNE_CACHE_DIR=$cache "$build/autotune" --device 0 --strategy brute_force \
      --profile-dir /tmp/atune-brute --journal /tmp/atune-brute/brute.journal \
      --json >"$OUT/brute.json" 2>>"$log"
    trc=$?
    end=$(date +%s.%N)
    echo "brute force: exit $trc, wall $(awk "BEGIN{print $end - $start}") s" | tee -a "$log"
    [ $trc -eq 0 ] || status=1
    cp /tmp/atune-brute/*.journal "$OUT/brute.journal" 2>/dev/null
    bprof=$(ls -t /tmp/atune-brute/*.ini | head -1)
    paired=()
    for k in $(seq "${PAIRINGS:-3}"); do
      say "pairing $k: merge --device 0 of the default run's and brute force's profiles"
      ATUNE_CACHE_DIR=$cache "$build/autotune" merge "/tmp/atune-brute/paired-$k.ini" \
        "$dprof" "$bprof" --device 0 >>"$log" 2>&1 || status=1
      paired+=(--paired "/tmp/atune-brute/paired-$k.ini")
    done
    cp /tmp/atune-brute/paired-1.ini "$OUT/default-paired.ini" 2>/dev/null
    python3 "$root/tests/bench/default_vs_brute.py" "$OUT/default.json" \
      "$OUT/brute.journal" --min-mean 0.99 --min-worst 0.97 \
      "${paired[@]}" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  fi
fi
if has cold; then
  # Issue 34: a default run with an empty module cache, and where its wall
  # time went (tests/bench/compile_split.py): at most 2 modules compiled
  # per evaluation and at most a quarter of the wall time waiting for
  # NVRTC, or the step fails. Each size's numbers are also in the journal's
  # "# size:" lines.
  say "cold default run: compile/eval split (${COLD_ARGS:-built-in templates})"
  cold_caches
  rm -rf /tmp/atune-cold
  # shellcheck disable=SC2086
  prewarm ${COLD_ARGS:-}
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  CUDA_CACHE_PATH=$nvcache ATUNE_CACHE_DIR=$cache "$build/autotune" --device 0 ${COLD_ARGS:-} \
    --profile-dir /tmp/atune-cold --json >"$OUT/cold.json" 2>>"$log"
  trc=$?
  end=$(date +%s.%N)
  echo "cold default run: exit $trc, wall $(awk "BEGIN{print $end - $start}") s" | tee -a "$log"
  [ $trc -eq 0 ] || status=1
  cp /tmp/atune-cold/*.journal "$OUT/cold.journal" 2>/dev/null
  python3 "$root/tests/bench/compile_split.py" "$OUT/cold.json" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  rm -rf "$cache" "$nvcache"
fi
kargs=()
[ -n "$KERNELS" ] && kargs=(--kernel "$KERNELS")
if has tune; then
  n=0
  IFS=';' read -ra plan <<<"$TUNE_PLAN"
  for step in "${plan[@]}"; do
    n=$((n + 1))
    tk=${step%%|*} targs=${step#*|}
    say "tune ${tk:-all} $targs"
    pk=()
    [ -n "$tk" ] && pk=(--kernel "$tk")
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$build/autotune" --device 0 "${pk[@]}" $targs --json \
      --profile-dir "$root/profiles" >"$OUT/tune-$n.json" 2>>"$log"
    trc=$?
    end=$(date +%s.%N)
    echo "autotune exit $trc, wall $(awk "BEGIN{print $end - $start}") s" | tee -a "$log"
    [ $trc -eq 0 ] || status=1
  done
  "$build/autotune" show "$root"/profiles/*.ini 2>&1 | tee -a "$log"
  # One file: the device tool brings back a limited number of files.
  tar czf "$OUT/profiles.tgz" -C "$root" profiles
fi

if has bench; then
  say "benchmark against the vendor libraries"
  "$build/tests/bench" --device 0 --profile-dir "$root/profiles" "${kargs[@]}" \
    2>&1 | tee "$OUT/bench.txt" | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if has kt; then
  # Kernel Tuner and its dependencies from the wheels in .whl (carried;
  # KT_WHEELS passes through).
  for kts in ${KT_SPACES:-copy conv}; do
    say "Kernel Tuner and autotune, brute force of the $kts space (tests/bench)"
    KT_SPACE=$kts ATUNE_BINARY="$build/autotune" OUT="$OUT/kt-$kts" \
      bash "$root/tests/bench/kt_vs_autotune.sh" 2>&1 | tee -a "$log" | tail -40
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
fi
if has published; then
  say "published kernel files as they are, brute force, every output verified"
  ATUNE_BINARY="$build/autotune" ATUNE_SOURCE_DIR="$root" \
    bash "$root/tests/gpu_published.sh" 2>&1 | tee "$OUT/published.txt" | tee -a "$log" | tail -60
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if has evaluate; then
  for other in ${EVALUATE:-}; do
    say "evaluate $other here"
    "$build/autotune" --device 0 --evaluate "$other" --profile-dir "$root/profiles" \
      2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
  cp "$root"/profiles/*.ini "$OUT"/ 2>/dev/null
fi
if has all; then
  # Every GPU at once (--device all) against GPU 0 alone, same work.
  all_args=${ALL_ARGS:---kernel copy,saxpy,constmem --budget 150}
  say "--device 0 and --device all: $all_args ($(nvidia-smi -L | wc -l) GPUs)"
  for d in 0 all; do
    rm -rf "/tmp/atune-all-$d"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$build/autotune" --device "$d" $all_args --profile-dir "/tmp/atune-all-$d" \
      --json >"$OUT/all-$d.json" 2>>"$log"
    trc=$?
    end=$(date +%s.%N)
    echo "--device $d: exit $trc, wall $(awk "BEGIN{print $end - $start}") s" | tee -a "$log"
    ls /tmp/atune-all-$d | tee -a "$log"
    [ $trc -eq 0 ] || status=1
  done
  "$build/autotune" show /tmp/atune-all-all/*.ini >>"$log" 2>&1
  # Issue 17: every section at least as fast as each GPU's own best.
  for ini in /tmp/atune-all-all/*.ini; do
    [ -e "$ini" ] || continue
    slug=$(basename "$ini" .ini)
    cp "$ini" /tmp/atune-all-all/"$slug".gpu*.journal "$OUT"/ 2>/dev/null
    python3 "$root/tests/bench/all_vs_own.py" "$ini" /tmp/atune-all-all/"$slug".gpu*.journal \
      2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
fi
if has merge; then
  # Merge by evidence (issue 17): brute force of copy, then a quick
  # --budget 20 re-tune of the same profile: every section must keep the
  # brute-force best or a configuration measured faster beside it.
  say "merge by evidence: brute force of copy, then --budget 20"
  d=/tmp/atune-merge
  rm -rf "$d"
  "$build/autotune" --device 0 --kernel copy --strategy brute_force \
    --profile-dir "$d" --json >"$OUT/merge-1.json" 2>>"$log" || status=1
  cp "$d"/*.ini "$OUT/merge-1.ini"
  "$build/autotune" --device 0 --kernel copy --budget 20 --profile-dir "$d" \
    --json >"$OUT/merge-2.json" 2>>"$log" || status=1
  cp "$d"/*.ini "$OUT/merge-2.ini"
  for f in "$OUT/merge-1.ini" "$OUT/merge-2.ini"; do
    echo "-- $(basename "$f")" | tee -a "$log"
    grep -E '^\[copy|^(BLOCK_SIZE|VW|UNROLL|GRID|time_ns|previous|previous_time_ns|run) =' "$f" |
      tr '\n' ' ' | sed 's/ \[/\n[/g' | tee -a "$log"
    echo | tee -a "$log"
  done
  grep -E '^previous = (kept|replaced|same)$' "$OUT/merge-2.ini" | sort | uniq -c | tee -a "$log"
  [ "$(grep -cE '^previous = (kept|replaced|same)$' "$OUT/merge-2.ini")" = \
    "$(grep -c '^\[copy' "$OUT/merge-2.ini")" ] || { echo "merge: a section was not merged by evidence" | tee -a "$log"; status=1; }
fi
if has profmerge; then
  # autotune merge (issue 37): one GPU model, copy and saxpy at one size
  # tuned twice with different budgets into two profiles, then merged with
  # --device 0: where the two disagree the configurations are timed side by
  # side and the faster kept (merged_by = retimed, merged_time_ns no more
  # than merged_other_ns); every section of both is in the result; merging
  # again changes nothing.
  say "profile merge: copy,saxpy small, --budget 3 and --budget 60, merge --device 0"
  d=/tmp/atune-pmerge
  rm -rf "$d"
  mkdir -p "$d"
  "$build/autotune" --device 0 --kernel copy,saxpy --size small --strategy random \
    --budget 3 --seed 1 --profile-dir "$d/a" --quiet >"$OUT/profmerge-a.txt" 2>>"$log" || status=1
  "$build/autotune" --device 0 --kernel copy,saxpy --size small --budget 60 \
    --profile-dir "$d/b" --quiet >"$OUT/profmerge-b.txt" 2>>"$log" || status=1
  pa=$(ls "$d"/a/*.ini) pb=$(ls "$d"/b/*.ini)
  "$build/autotune" merge --device 0 "$d/merged.ini" "$pa" "$pb" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  cp "$d/merged.ini" "$OUT/profmerge.ini"
  cp "$pa" "$OUT/profmerge-a.ini"
  cp "$pb" "$OUT/profmerge-b.ini"
  cp "$d/merged.ini" "$d/once.ini"
  "$build/autotune" merge --device 0 "$d/merged.ini" "$pa" "$pb" 2>&1 | tee -a "$log"
  cmp -s "$d/merged.ini" "$d/once.ini" || { echo "profmerge: merging again changed the result" | tee -a "$log"; status=1; }
  # Every section of both inputs is there (which one was kept is the
  # re-timing's to say, below; not the recorded times').
  for s in $(cat "$pa" "$pb" | sed -n 's/^\[\(copy\|saxpy\) \(.*\)\]$/\1:\2/p' | sort -u); do
    grep -q "^\[${s/:/ }\]$" "$d/merged.ini" || { echo "profmerge: [${s/:/ }] missing" | tee -a "$log"; status=1; }
  done
  awk -F' = ' '
    /^\[/ { sec = $0 }
    $1 == "merged_by" { by[sec] = $2 }
    $1 == "merged_time_ns" { t[sec] = $2 }
    $1 == "merged_other_ns" { o[sec] = $2 }
    END {
      bad = 0; n = 0
      for (s in by) {
        printf "%s merged_by=%s kept %s ns, other %s ns\n", s, by[s], t[s], o[s]
        if (by[s] == "retimed") { n++; if (t[s] + 0 > o[s] + 0) bad = 1 }
        else if (by[s] != "same_config") bad = 1
      }
      if (n == 0) print "profmerge: no section was re-timed (the two runs agreed everywhere: rerun with another --seed)"
      exit bad || n == 0
    }' "$d/merged.ini" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "profmerge: a disagreement not re-timed, or the slower kept" | tee -a "$log"; status=1; }
fi
if has ncu; then
  # What the driver's copy does at the small size next to the tuned copy
  # (issue 15): kernels through Nsight Compute, copies through Nsight
  # Systems' summary (a D2D copy may not be a kernel at all).
  say "Nsight: copy at the small size, tuned kernel and cudaMemcpy D2D"
  ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  nsys_bin=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -1)
  bench_copy=("$build/tests/bench" --device 0 --profile-dir "$root/profiles" --kernel copy --size small)
  if [ -n "$nsys_bin" ]; then
    "$nsys_bin" profile -o /tmp/atune-nsys --force-overwrite true --stats=true \
      "${bench_copy[@]}" >"$OUT/nsys.txt" 2>&1
    grep -A14 -E 'cuda_gpu_kern_sum|cuda_gpu_mem_time_sum' "$OUT/nsys.txt" | tee -a "$log"
  else
    echo "nsys not found" | tee -a "$log"
  fi
  if [ -n "$ncu_bin" ]; then
    "$ncu_bin" -k 'regex:copy|[Mm]emcpy|[Cc]opy' -c 8 --section SpeedOfLight \
      --section LaunchStats --section MemoryWorkloadAnalysis --section Occupancy \
      "${bench_copy[@]}" >"$OUT/ncu.txt" 2>&1
    grep -E '^  [a-zA-Z_]+.*\(|Duration|Memory Throughput|DRAM Throughput|L2 Hit|Grid Size|Block Size|Registers|Achieved Occupancy|Waves' \
      "$OUT/ncu.txt" | head -120 | tee -a "$log"
    # Whatever else runs on the SMs: the driver's D2D copy, if it is a
    # kernel (none listed: it is not one ncu can see).
    "$ncu_bin" -k 'regex:^(?!copy_tuned|copy_ref|fill_|cmp_|near_|diff_).*' -c 4 --section SpeedOfLight \
      --section LaunchStats --section Occupancy \
      "${bench_copy[@]}" >"$OUT/ncu-driver.txt" 2>&1
    grep -E '^  [a-zA-Z_]+.*\(|==PROF==|==WARNING==|Duration|Memory Throughput|Grid Size|Block Size|Registers|Achieved Occupancy' \
      "$OUT/ncu-driver.txt" | head -60 | tee -a "$log"
  else
    echo "ncu not found" | tee -a "$log"
  fi
fi
if has engine; then
  # Whether the driver's D2D copy runs on the SMs (issue 15): timed while
  # a kernel holds every SM (tests/bench/memcpy_engine.cu).
  say "where cudaMemcpy D2D runs: SMs or a copy engine"
  "$build/tests/memcpy_engine" 0 2>&1 | tee "$OUT/memcpy_engine.txt" | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if has flush; then
  # How the L2 flush before each timed launch shapes short kernels' times
  # (tests/bench/flush_study.cu).
  say "the L2 flush and the time of short kernels"
  "$build/tests/flush_study" 0 2>&1 | tee "$OUT/flush_study.txt" | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if has study; then
  say "configuration study: ${STUDY:-} ${STUDY_KERNEL:-copy}"
  BENCH_CONFIGS="$(paste -sd';' "$root/${STUDY:-}/study.cfg")" \
    "$build/tests/bench" --device 0 --templates "$root/${STUDY:-}" \
    --kernel "${STUDY_KERNEL:-copy}" 2>&1 | tee "$OUT/study.txt" | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if has regret; then
  say "regret of the library's pick at untuned sizes (tests/bench/regret.sh)"
  KERNELS=${REGRET_KERNELS:-copy,saxpy,reduce,constmem,matmul} \
    PROFILE=${REGRET_PROFILE:-} OUT=$OUT/regret \
    bash "$root/tests/bench/regret.sh" "$build" 2>&1 | tee -a "$log" |
    grep -E "^(SUMMARY|==|[a-z]+ ladder:)" | tail -30
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  # Everything in one file, the table beside it: the device tool brings
  # back a limited number of files (the folder's dozen left the tarball
  # behind once), and these are the data for later analysis.
  if [ -d "$OUT/regret" ]; then
    if tar czf "$OUT/regret-data.tgz" -C "$OUT" regret; then
      cp "$OUT/regret/regret.txt" "$OUT/regret.txt" 2>/dev/null
      rm -rf "$OUT/regret"
    fi
  fi
fi
if has cand; then
  # Candidate templates (CAND="studies/copy_bulk ...", studies/README.md): brute force at
  # every size into a profile of their own, then against the vendor.
  for dir in ${CAND:-}; do
    name=$(basename "$dir")
    say "candidate $name: brute force, then against the vendor library"
    rm -rf "/tmp/atune-cand-$name"
    "$build/autotune" --device 0 --templates "$root/$dir" --strategy brute_force \
      --profile-dir "/tmp/atune-cand-$name" --json >"$OUT/cand-$name.json" 2>>"$log" || status=1
    for f in /tmp/atune-cand-"$name"/*.ini; do cp "$f" "$OUT/cand-$name-$(basename "$f")"; done
    "$build/tests/bench" --device 0 --templates "$root/$dir" \
      --profile-dir "/tmp/atune-cand-$name" 2>&1 | tee "$OUT/bench-$name.txt" | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
fi
if has sweep; then
  # Brute force at many sizes (studies/sweep: dense ladders, odd twins
  # and random sizes), for deciding ladders and look-ups offline.
  mkdir -p "$OUT/sweep"
  for dir in ${SWEEP:-studies/sweep}; do
    name=$(basename "$dir")
    say "sweep $name: brute force at every size"
    start=$(date +%s)
    "$build/autotune" --device 0 --templates "$root/$dir" --strategy brute_force \
      --profile-dir "$OUT/sweep/$name" --json >"$OUT/sweep/$name.json" 2>>"$log" || status=1
    echo "sweep $name: $(($(date +%s) - start)) s" | tee -a "$log"
  done
  tar czf "$OUT/sweep.tgz" -C "$OUT" sweep && rm -rf "$OUT/sweep"
fi
if has record; then
  # Record, tune, serve (docs/first-use.md): five untuned copy sizes
  # recorded with no profile, tuned with --sizes-from, served exactly.
  say "record, tune, serve"
  (cd "$build" && ctest -R '^gpu.gpu_record$' -V --timeout 900) 2>&1 | tee -a "$log" |
    grep -E "record-tune-serve|tune --sizes-from|FAIL|tests passed" | tee "$OUT/record.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if has shapes; then
  # Issue 36's shape suite: the matmul template at 16 (m, n, k) shapes
  # against cuBLAS SGEMM FP32, one process each for tuning and bench.
  say "shape suite: matmul tuned at 16 shapes, then against cuBLAS SGEMM"
  OUT="$OUT/shapes" LIMIT=${SHAPES_LIMIT:-12} bash "$root/tests/bench/shapes.sh" "$build" 2>&1 |
    tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if has firstuse; then
  # Tuning at first use (docs/first-use.md): the example application with
  # no profile of this GPU model, ATUNE_EFFORT=measure at untuned sizes;
  # first-call cost cold and warm, exact hits after, % of the brute-force
  # optimum.
  say "first use (ATUNE_EFFORT=measure)"
  FIRSTUSE_BRUTE=${FIRSTUSE_BRUTE:-1} ATUNE_BINARY="$build/autotune" \
    bash "$root/tests/gpu_firstuse.sh" 2>&1 | tee -a "$log" |
    grep -vE '^(copy|saxpy|reduce|constmem|matmul) .* cold: ' | tee "$OUT/firstuse.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if has consumer; then
  say "example consumer against installed copies (launches the tuned copy)"
  ATUNE_CONSUMER_GPU=1 ATUNE_CONSUMER_OWN=1 bash "$root/tests/ci.d/consumer.sh" 2>&1 | tee -a "$log" | tail -30
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if has docs; then
  # The documentation's examples, those marked ```sh gpu included
  # (tests/docs_examples.sh; CI runs the others).
  say "documentation examples, GPU ones included"
  ATUNE_BINARY="$build/autotune" ATUNE_SOURCE_DIR="$root" \
    bash "$root/tests/docs_examples.sh" --gpu 2>&1 | tee "$OUT/docs.txt" | tee -a "$log" | tail -30
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if has verify; then
  # Buffer roles, compared slices and fills (tests/data/verify, issue 33):
  # brute force of a cross-block reduction compared on its total only, the
  # same with a scratch buffer, a kernel that checks every fill, a sort of
  # full-width keys, an init kernel and a verify kernel (slopes), and half,
  # bf16, vector and struct arguments (types).
  # Launch sequences (issue 33): two tuned as one unit (gpu_verify.sh),
  # and libatune_jit launching one, its total checked on the host. A
  # kernel whose name reads the size (tests/data/sizename, issue 32):
  # every configuration verified at both sizes.
  say "verification options: tests/gpu_verify.sh"
  ATUNE_BINARY="$build/autotune" ATUNE_SOURCE_DIR="$root" \
    bash "$root/tests/gpu_verify.sh" 2>&1 | tee "$OUT/verify.txt" | tee -a "$log" | tail -30
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  say "libatune_jit launches a sequence: gpu_appjit test_sequence_launch"
  ATUNE_SOURCE_DIR="$root" ATUNE_TEST_FILTER=test_sequence_launch \
    "$build/tests/gpu_appjit" 2>&1 | tee -a "$OUT/verify.txt" | tee -a "$log" | tail -12
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
say "done, status $status"
exit $status
