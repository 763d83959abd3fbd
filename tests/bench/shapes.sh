#!/usr/bin/env bash
# shapes.sh -- issue 36's shape suite: the built-in matmul template tuned
# at 16 (m, n, k) shapes (squares with and without aligned rows, tall,
# wide, skinny, long and short k), then at each shape the tuned
# configuration against cuBLAS SGEMM FP32 (TF32 off) in tests/bench/bench,
# one process, every configuration verified. Prints a table: shape, the
# best configuration, its time, cuBLAS's, the ratio (the median of bench's
# alternating rounds), and the geometric mean and the worst ratio.
#
#   tests/bench/shapes.sh [BUILD_DIR]      (default build/gpu; needs a GPU)
#
#   LIMIT=12          tuning seconds per shape (autotune --time-limit); the
#                     search stops earlier by the default stopping rule
#   STRATEGY=name     search strategy (default: autotune's default)
#   SHAPES="a=m,n,k b=m,n,k"  other shapes (default: the 16 of issue 36)
#   BENCH_ROUNDS=N    bench's alternating rounds (default here 9)
#   DEVICE=0  OUT=dir GPU ordinal; results (default ./out/shapes): the
#                     manifest, profile, tune JSON, bench output, table
#   DRY_RUN=1         no GPU: write and list the manifest, print commands
#   TEMPLATE_DIR=dir  matmul.cu and matmul.ini from dir (default templates/:
#                     a variant of the kernel against the built-in one)
#   STUDY_FILE=file   no tuning: each line "NAME CONFIG;CONFIG;..." times those
#                     configurations at shape NAME against cuBLAS
#                     (tests/bench/bench BENCH_CONFIGS), into OUT/study.txt
#   NCU=1             then the bench once more under Nsight Compute, one
#                     round: one launch of each kernel and launch shape (name,
#                     grid, registers, duration, issue and stall figures)
#                     in OUT/ncu.txt, a summary in OUT/ncu-summary.txt
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/gpu}
LIMIT=${LIMIT:-12}
STRATEGY=${STRATEGY:-}
DEVICE=${DEVICE:-0}
OUT=${OUT:-$PWD/out/shapes}
DRY_RUN=${DRY_RUN:-0}
TEMPLATE_DIR=${TEMPLATE_DIR:-$root/templates}
export BENCH_ROUNDS=${BENCH_ROUNDS:-9}
SHAPES=${SHAPES:-"sq1037=1037,1037,1037 sq2049=2049,2049,2049
  sq4095=4095,4095,4095 tall16k=16384,1024,1024 wide16k=1024,16384,1024
  longk256=256,256,16384 longk1024=1024,1024,16384 thin64=64,8192,8192
  flat64=8192,64,8192 shortk128=8192,8192,128 rect2048=2048,8192,2048
  longk512=512,512,8192 thin128=128,4096,4096 flat128=4096,128,4096
  sq4096=4096,4096,4096 sq1024=1024,1024,1024"}
bin=$build/autotune
bench=$build/tests/bench
dir=$OUT/templates
prof=$OUT/profile

die() { echo "shapes: $*" >&2; exit 1; }
[ -x "$bin" ] || die "no $bin (build first, or pass the build directory)"
[ "$DRY_RUN" = 1 ] || [ -x "$bench" ] || die "no $bench (configure with -DATUNE_BUILD_BENCH=ON)"
mkdir -p "$dir"
rm -rf "$prof"

# The template with its [sizes] replaced by the shapes.
sizes=$OUT/sizes.txt
: >"$sizes"
for s in $SHAPES; do
  name=${s%%=*} v=${s#*=}
  IFS=, read -r m n k <<<"$v"
  [ -n "$k" ] || die "bad shape '$s' (NAME=m,n,k)"
  echo "$name = m=$m, n=$n, k=$k" >>"$sizes"
done
ln -sf "$TEMPLATE_DIR/matmul.cu" "$dir/matmul.cu"
awk -v sizes="$sizes" '
  /^\[/ { skip = 0 }
  /^\[sizes\]/ { print; while ((getline l < sizes) > 0) print l; skip = 1; next }
  !skip' "$TEMPLATE_DIR/matmul.ini" >"$dir/matmul.ini"
"$bin" list --templates "$dir" >"$OUT/list.txt" || die "the manifest does not load"
sed "s/), /)\n/g" "$OUT/list.txt" | grep valid

tune=("$bin" --device "$DEVICE" --templates "$dir" --kernel matmul
  --profile-dir "$prof" --time-limit "$LIMIT" --json)
[ -n "$STRATEGY" ] && tune+=(--strategy "$STRATEGY")
run_bench=("$bench" --device "$DEVICE" --templates "$dir" --kernel matmul
  --profile-dir "$prof")
if [ "$DRY_RUN" = 1 ]; then
  echo "${tune[*]}"
  echo "${run_bench[*]}"
  exit 0
fi

ncu_args=(-k 'regex:^(?!fill_|cmp_|near_|diff_|matmul_ref)' --filter-mode per-launch-config -c 1
  --section SpeedOfLight --section LaunchStats --section Occupancy
  --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,smsp__inst_executed.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum')
ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
# ncu_summary FILE: the figures to compare kernels by, one block a launch.
ncu_summary() {
  grep -E '^  [^ ].*\(|Duration|Registers Per|Grid Size|Block Size|Achieved Occupancy|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|inst_executed|stalled_(barrier|long_scoreboard|short_scoreboard|mio_throttle|math_pipe_throttle|not_selected|wait|dispatch_stall|lg_throttle|no_instruction|selected)_per' "$1"
}

if [ -n "${STUDY_FILE:-}" ]; then
  : >"$OUT/study.txt"
  while read -r name configs; do
    case $name in '' | '#'*) continue ;; esac
    BENCH_CONFIGS=$configs "${run_bench[@]}" --size "$name" >>"$OUT/study.txt" 2>>"$OUT/study.err" ||
      echo "shapes: study at $name failed: $(tail -2 "$OUT/study.err")"
    if [ "${NCU:-0}" = 1 ] && [ -n "$ncu_bin" ]; then
      BENCH_CONFIGS=$configs BENCH_ROUNDS=1 "$ncu_bin" "${ncu_args[@]}" "${run_bench[@]}" \
        --size "$name" >"$OUT/ncu-$name.txt" 2>&1
      ncu_summary "$OUT/ncu-$name.txt" >>"$OUT/ncu-summary.txt"
    fi
  done <"$STUDY_FILE"
  cat "$OUT/study.txt"
  exit 0
fi

start=$(date +%s)
"${tune[@]}" >"$OUT/tune.json" 2>"$OUT/tune.err"
rc=$?
echo "shapes: tuning took $(($(date +%s) - start)) s (exit $rc)"
[ $rc -eq 0 ] || { tail -20 "$OUT/tune.err"; die "tuning failed"; }
start=$(date +%s)
"${run_bench[@]}" >"$OUT/bench.txt" 2>"$OUT/bench.err"
rc=$?
echo "shapes: bench took $(($(date +%s) - start)) s (exit $rc)"
[ $rc -eq 0 ] || { tail -20 "$OUT/bench.err"; die "bench failed"; }

if [ "${NCU:-0}" = 1 ]; then
  if [ -z "$ncu_bin" ]; then
    echo "shapes: NCU=1 but no ncu found"
  else
    # One launch of each kernel and launch shape (the default, the
    # occupancy API's pick, the tuned one, cuBLAS's); the tuner's own
    # helpers (fill, compare, the reference) left out.
    BENCH_ROUNDS=1 "$ncu_bin" "${ncu_args[@]}" "${run_bench[@]}" >"$OUT/ncu.txt" 2>&1
    echo "shapes: ncu exit $?"
    ncu_summary "$OUT/ncu.txt" >"$OUT/ncu-summary.txt"
  fi
fi

python3 - "$OUT/bench.txt" "$prof" <<'PY' | tee "$OUT/table.txt"
import glob, math, re, sys

bench, prof = sys.argv[1], sys.argv[2]
keep = ("WT", "BM", "BN", "BK", "WM", "WN", "TM", "TN", "WNITER", "VEC",
        "STAGES", "GROUP_M", "SPLITK", "SKB", "RED")
configs, sec = {}, None
for path in glob.glob(prof + "/*.ini"):
    for line in open(path):
        line = line.strip()
        m = re.match(r"\[matmul (.*)\]$", line)
        if m:
            sec = m.group(1)
            configs[sec] = {}
        elif line.startswith("["):
            sec = None
        elif sec and "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            if k in keep:
                configs[sec][k] = v
rows = []
for line in open(bench):
    f = line.split()
    if len(f) < 9 or f[0] != "matmul" or not f[1].startswith("m="):
        continue
    size = dict(kv.split("=") for kv in f[1].split(","))
    m, n, k = (int(size[v]) for v in "mnk")
    tuned, vendor = float(f[2]), float(f[5])
    try:
        ratio = float(f[9])
    except (IndexError, ValueError):  # "-": no tuned entry at the shape
        ratio = float("nan")
    flop = 2.0 * m * n * k
    c = configs.get(f[1], {})
    cfg = ",".join(f"{k}={c[k]}" for k in keep if k in c)
    rows.append((m, n, k, cfg, flop / tuned / 1e6 if tuned > 0 else float("nan"),
                 flop / vendor / 1e6 if vendor > 0 else float("nan"), ratio))
print(f"{'m, n, k':<20} {'template ms':>11} {'cuBLAS ms':>10} {'ratio':>6}  best configuration")
for m, n, k, cfg, t, v, r in rows:
    print(f"{f'{m}, {n}, {k}':<20} {t:11.4f} {v:10.4f} {r:6.3f}  {cfg}")
good = [r[6] for r in rows if r[6] > 0]  # NaN compares false
if good:
    gm = math.exp(sum(math.log(x) for x in good) / len(good))
    print(f"{len(good)} shapes: geometric mean {gm:.3f}x cuBLAS, worst {min(good):.3f}x "
          f"(issue 36: every shape >= 0.90x, mean >= 0.97x)")
if len(good) != len(rows) or not rows:
    print("shapes: some shapes have no ratio (see bench.txt)")
    sys.exit(1)
PY
