#!/usr/bin/env bash
# Space construction, autotune against Kernel Tuner (issue 21), on the CPU:
# for each template directory, autotune's space_bench and Kernel Tuner 1.4's
# Searchspace (tests/bench/kt_space.py) build the same space RUNS times
# each, one after the other; the table gives the fastest construction
# (seconds inside the process), the smallest whole-process peak memory
# (/usr/bin/time -v) and both checksums of the valid set, which must agree.
#
#   SPACE_BENCH  built space_bench (default build/ci/tests/space_bench)
#   PYTHON       python with kernel_tuner 1.4 (default /tmp/ktvenv/bin/python;
#                pip install 'kernel_tuner==1.4.*'); absent: autotune only
#   RUNS         runs of each (default 3)
#
# usage: space_bench.sh [DIR...]  (default: tests/data/hotspot)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=${SPACE_BENCH:-$root/build/ci/tests/space_bench}
py=${PYTHON:-/tmp/ktvenv/bin/python}
runs=${RUNS:-3}
[ $# -gt 0 ] || set -- "$root/tests/data/hotspot"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The device limits autotune checks on top of the constraints, as Kernel
# Tuner restrictions (the generic sm_90 device of atune__devattr_default).
extra_for() {
  case "$(basename "$1")" in
    gemm_space) echo "MDIMC * NDIMC <= 1024"
                echo "4 * (SA * KWG * MWG + SB * KWG * NWG) <= 232448";;
  esac
}

min() { sort -g | head -1; }

printf '%-10s %12s %10s | %9s %8s | %9s %8s | %s\n' space combinations valid \
  "autotune s" "MB" "KT s" "MB" "same set"
for dir in "$@"; do
  : >"$tmp/a" ; : >"$tmp/k"
  for r in $(seq "$runs"); do
    /usr/bin/time -v "$bench" "$dir" >"$tmp/out" 2>"$tmp/time" || { cat "$tmp/time"; exit 1; }
    line=$(tail -1 "$tmp/out")
    echo "$(echo "$line" | awk '{print $5}') $(awk '/Maximum resident/ {print $6}' "$tmp/time") $line" >>"$tmp/a"
    if [ -x "$py" ]; then
      mapfile -t extra < <(extra_for "$dir")
      args=()
      for e in "${extra[@]}"; do args+=(--extra "$e"); done
      ini=$(ls "$dir"/*.ini | head -1)
      /usr/bin/time -v "$py" "$root/tests/bench/kt_space.py" "$ini" "${args[@]}" \
        >"$tmp/kout" 2>"$tmp/ktime" || { cat "$tmp/ktime"; exit 1; }
      "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["seconds"], d["checksum"])' \
        "$tmp/kout" | tr '\n' ' ' >>"$tmp/k"
      awk '/Maximum resident/ {print $6}' "$tmp/ktime" >>"$tmp/k"
    fi
  done
  name=$(awk 'NR==1 {print $3}' "$tmp/a")
  comb=$(awk 'NR==1 {print $5}' "$tmp/a")
  valid=$(awk 'NR==1 {print $6}' "$tmp/a")
  as=$(awk '{print $1}' "$tmp/a" | min)
  am=$(awk '{print $2}' "$tmp/a" | min)
  asum=$(awk 'NR==1 {print $9}' "$tmp/a")
  if [ -s "$tmp/k" ]; then
    ks=$(awk '{print $1}' "$tmp/k" | min)
    km=$(awk '{print $3}' "$tmp/k" | min)
    ksum=$(awk 'NR==1 {print $2}' "$tmp/k")
    same=$([ "$ksum" = "$asum" ] && echo yes || echo "NO ($asum vs $ksum)")
    printf '%-10s %12s %10s | %9.3f %8.0f | %9.3f %8.0f | %s\n' "$name" "$comb" "$valid" \
      "$as" "$((am / 1024))" "$ks" "$((km / 1024))" "$same"
  else
    printf '%-10s %12s %10s | %9.3f %8.0f | %9s %8s | %s\n' "$name" "$comb" "$valid" \
      "$as" "$((am / 1024))" - - -
  fi
done
