#!/usr/bin/env bash
# cold_ab.sh -- a change against the commit before it, on cold runs: both
# trees built (the commit as `git archive` into a scratch folder), then
# the same default run with each, alternating, every run with fresh
# module and NVRTC caches. Prints per run the process wall, the sizes'
# own wall (the rest is start-up and the end), evaluations, modules
# compiled and the time waiting for NVRTC; nothing is kept but OUT.
#
#   tests/bench/cold_ab.sh [BASE]       (default HEAD~1; needs a GPU)
#
#   ARGS="--templates tests/data/published/convolution_kt"
#                     the run's arguments (default: the built-in templates)
#   RUNS=6            runs of each, alternating which goes first
#   OUT=dir           the runs' --json and stderr (default /tmp/cold_ab)
#   ATUNE_DEBS=.debs  libinih*/libcmocka* .deb files, installed if needed
#
# docs/results.md (cold runs, 2026-11-28) used it for the end of a run.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
base=${1:-HEAD~1}
RUNS=${RUNS:-6}
OUT=${OUT:-/tmp/cold_ab}
ARGS=${ARGS:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT"
cd "$root" || exit 1
if ! pkg-config --exists inih 2>/dev/null; then
  dpkg -i "${ATUNE_DEBS:-$root/.debs}"/*.deb >/dev/null 2>&1 || { echo "cold_ab: inih missing" >&2; exit 1; }
fi
mkdir -p "$scratch/base"
git archive "$base" | tar -x -C "$scratch/base" || exit 1
build() {
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DATUNE_BUILD_TESTS=OFF >/dev/null 2>&1 &&
    cmake --build "$2" -j"$(nproc)" >/dev/null 2>&1 || { echo "cold_ab: building $1 failed" >&2; return 1; }
}
build "$scratch/base" "$scratch/b-base" & build "$root" "$scratch/b-new" & wait
[ -x "$scratch/b-base/autotune" ] && [ -x "$scratch/b-new/autotune" ] || exit 1
echo "base $(git rev-parse --short "$base"), new: the tree; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(nproc) cores"
# one untimed process reads NVRTC and the headers first (tests/gpu.sh's prewarm)
c=$(mktemp -d) n=$(mktemp -d)
# shellcheck disable=SC2086
CUDA_CACHE_PATH=$n ATUNE_CACHE_DIR=$c "$scratch/b-new/autotune" check --budget 1 $ARGS >/dev/null 2>&1
rm -rf "$c" "$n"
run() { # variant tag
  local c n s e
  c=$(mktemp -d) n=$(mktemp -d)
  s=$(date +%s.%N)
  # shellcheck disable=SC2086
  CUDA_CACHE_PATH=$n ATUNE_CACHE_DIR=$c "$scratch/b-$1/autotune" --device 0 $ARGS \
    --profile-dir "$scratch/p-$2" --json >"$OUT/$2.json" 2>"$OUT/$2.err"
  e=$(date +%s.%N)
  rm -rf "$c" "$n"
  python3 - "$OUT/$2.json" "$1" "$2" "$(awk "BEGIN{print $e - $s}")" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
tot = lambda k: sum(x[k] for x in r)
print(f"{sys.argv[2]:5} {sys.argv[3]:10} wall {float(sys.argv[4]):6.2f} s  sizes {tot('wall_s'):6.2f} s  "
      f"evaluations {tot('evaluations'):5}  modules {tot('modules_compiled'):4}  waiting {tot('compile_s'):6.2f} s")
PY
}
for i in $(seq "$RUNS"); do
  if [ $((i % 2)) = 1 ]; then order="base new"; else order="new base"; fi
  for v in $order; do run "$v" "$v-$i"; done
done
