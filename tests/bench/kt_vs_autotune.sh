#!/usr/bin/env bash
# Side-by-side benchmark against Kernel Tuner (issue 6, item 5; issue 34),
# on one GPU in one call: Kernel Tuner 1.4 (cupy backend) brute-forces a
# space without output checks, then autotune brute-forces the same space
# with every output verified, twice with one fresh module cache: a cold run
# (compiles everything) and a warm run (should compile nothing); then
# autotune's default run (no --strategy, no --budget: it stops by itself,
# issue 13) of the same space with a module cache of its own, cold.
# The space (KT_SPACE):
#   copy  the built-in copy template at n = 2^28 (tests/bench/kt_copy.py)
#   conv  a third-party one: Kernel Tuner's own examples/cuda/convolution.cu
#         as published, 4096^2 image, 15x15 filter, 288 configurations of
#         the FAIR benchmark hub's space (tests/data/published/convolution_kt,
#         tests/bench/kt_brute.py driven by its manifest; before tuning, the
#         space Kernel Tuner builds is checked against autotune's count)
# Prints a summary table; with OUT set, also writes OUT/kt_vs_autotune.json
# and the raw outputs and logs beside it.
#
#   KT_SPACE       copy (default) or conv
#   ATUNE_BINARY   built autotune (default build/gpu/autotune)
#   KT_WHEELS      folder of the Kernel Tuner wheels (default .whl)
#   KT_SITE        where they are installed (default /tmp/ktsite)
#   KT_ARGS        extra kt_copy.py / kt_brute.py arguments (e.g. kt_copy's
#                  --verify; slow at 2^28)
#   ATUNE_ARGS     extra autotune arguments
#   KT_TIMEOUT     seconds Kernel Tuner's brute force may take (default:
#                  no limit); past it, exit 124 and autotune's runs still
#                  follow (its log, with KT_ARGS=--verbose a line per
#                  configuration, says how far it got)
#   DEVICE         GPU ordinal (default 0)
#   PYTHON         python with numpy and cupy (default python3)
#
# Exit status: 0 when everything ran (whether or not the acceptance targets
# of issue 6 were met: the summary says), 1 when something failed to run,
# 64 bad usage.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-}" in
  -h|--help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
  "") ;;
  *) echo "usage: $0 [--help] (settings come from the environment)" >&2; exit 64;;
esac
bin=${ATUNE_BINARY:-$root/build/gpu/autotune}
whl=${KT_WHEELS:-$root/.whl}
site=${KT_SITE:-/tmp/ktsite}
py=${PYTHON:-python3}
dev=${DEVICE:-0}
out=${OUT:-}
space=${KT_SPACE:-copy}
case $space in
  copy)
    a_templates=$root/templates a_kernel=copy a_size=large
    kt_cmd=("$root/tests/bench/kt_copy.py") ;;
  conv)
    a_templates=$root/tests/data/published/convolution_kt a_kernel=convolution a_size=image
    kt_cmd=("$root/tests/bench/kt_brute.py" "$a_templates/convolution.ini"
            "$a_templates/convolution.cu") ;;
  *) echo "kt_vs_autotune: KT_SPACE=$space: copy or conv" >&2; exit 64 ;;
esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kt-vs-autotune.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

note() { printf '== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)" >&2; }
fail() { echo "kt_vs_autotune: $*" >&2; failed=1; }
now() { date +%s.%N; }
keep() { [ -n "$out" ] && cp "$@" "$out"/ 2>/dev/null; return 0; }
[ -n "$out" ] && mkdir -p "$out"

# 1. Kernel Tuner and the dependencies the GPU image lacks, from wheels.
note "installing Kernel Tuner from $whl into $site"
shopt -s nullglob
wheels=("$whl"/*.whl)
shopt -u nullglob
if [ ${#wheels[@]} -eq 0 ]; then
  fail "no wheels in $whl"
elif "$py" -m pip --version >/dev/null 2>&1; then
  "$py" -m pip install -q --disable-pip-version-check --no-index --no-deps \
    --no-compile --no-cache-dir --upgrade --target "$site" "${wheels[@]}" ||
    fail "pip install of the wheels failed"
else
  # No pip: a wheel is a zip of its installed files.
  "$py" -c 'import sys, zipfile
for w in sys.argv[2:]: zipfile.ZipFile(w).extractall(sys.argv[1])' \
    "$site" "${wheels[@]}" || fail "unpacking the wheels failed"
fi
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"

# 2. Kernel Tuner's brute force. For a manifest's space, first the space
# Kernel Tuner builds from it (kt_brute.py --dry-run: its own Searchspace,
# every configuration's grid and block) against autotune's count.
kt_rc=99
kt_name=$(basename "${kt_cmd[0]}")
if [ $failed -eq 0 ] && [ "$space" != copy ]; then
  note "Kernel Tuner's space from the manifest ($kt_name --dry-run)"
  if "$py" "${kt_cmd[@]}" --dry-run >"$tmp/kt-dry.json" 2>"$tmp/kt-dry.log"; then
    kt_n=$("$py" -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d.get("kt_configs", "no kernel_tuner"))' "$tmp/kt-dry.json")
    at_n=$("$bin" list --templates "$a_templates" --kernel "$a_kernel" --json | tr -d ' \n' |
      sed -n 's/.*"sizes":\[{[^]]*"valid":\([0-9]*\)}\].*/\1/p')
    echo "Kernel Tuner's space: $kt_n configurations; autotune's: ${at_n:-?}" >&2
    [ "$kt_n" = "$at_n" ] || fail "the two spaces differ: Kernel Tuner $kt_n, autotune ${at_n:-?}"
  else
    cat "$tmp/kt-dry.log" >&2
    fail "$kt_name --dry-run failed"
  fi
  keep "$tmp/kt-dry.json"
fi
if [ $failed -eq 0 ]; then
  note "Kernel Tuner brute force ($kt_name ${KT_ARGS:-})"
  t0=$(now)
  # shellcheck disable=SC2086
  CUDA_CACHE_PATH="$tmp/nv-kt" timeout "${KT_TIMEOUT:-0}" "$py" "${kt_cmd[@]}" \
    --device "$dev" ${KT_ARGS:-} >"$tmp/kt.json" 2>"$tmp/kt.log"
  kt_rc=$?
  t1=$(now)
  echo "$t0 $t1" >"$tmp/kt.wall"
  keep "$tmp/kt.json" "$tmp/kt.log"
  if [ $kt_rc -ne 0 ]; then
    tail -20 "$tmp/kt.log" >&2
    fail "$kt_name exit $kt_rc"
  fi
fi

# 3. autotune: brute force, cold then warm, sharing one fresh module
# cache; then the default settings (no --strategy: the search stops by
# itself) with a cold cache of their own. Each run has its own profile
# folder (a journal of an earlier run is not resumed from). NVRTC (12.9
# and later) keeps compiled programs in the driver's compute cache
# (CUDA_CACHE_PATH, ~/.nv/ComputeCache by default) whatever autotune's
# module cache: each run, and Kernel Tuner's above, gets a fresh one of its
# own, or a "cold" run after the brute force would find every compile
# there (H100, 2026-11-27: the default run over the convolution space
# compiled its 256 modules in 0.37 s after the brute force, 10.1 s
# before it).
autotune_run() { # NAME CACHE [ARGS...]: times one run into $tmp/autotune-NAME.*
  local name=$1 cache=$2 rc t0 t1
  shift 2
  t0=$(now)
  # shellcheck disable=SC2086
  CUDA_CACHE_PATH="$tmp/nv-$name" ATUNE_CACHE_DIR="$tmp/$cache" \
    "$bin" --device "$dev" --kernel "$a_kernel" --size "$a_size" \
    --templates "$a_templates" --json --profile-dir "$tmp/p-$name" "$@" ${ATUNE_ARGS:-} \
    >"$tmp/autotune-$name.json" 2>"$tmp/autotune-$name.log"
  rc=$?
  t1=$(now)
  echo "$t0 $t1" >"$tmp/autotune-$name.wall"
  keep "$tmp/autotune-$name.json" "$tmp/autotune-$name.log"
  if [ $rc -ne 0 ]; then
    tail -20 "$tmp/autotune-$name.log" >&2
    fail "autotune ($name) exit $rc"
  fi
}
if [ ! -x "$bin" ]; then
  fail "no autotune at $bin (build it: STEPS=none tests/gpu.sh, or set ATUNE_BINARY)"
else
  for run in cold warm; do
    note "autotune brute force, $run module cache"
    autotune_run "$run" cache --strategy brute_force
  done
  note "autotune default settings, cold module cache"
  autotune_run default cache-default
fi

# 4. Summary table (stdout) and JSON.
"$py" - "$tmp" "${out:+$out/kt_vs_autotune.json}" "$space" <<'EOF' || fail "summary failed"
import datetime, json, os, sys

tmp, dest, space = sys.argv[1], sys.argv[2], sys.argv[3]


def load(name):
    try:
        with open(os.path.join(tmp, name + ".json")) as f:
            text = f.read().strip()
        return json.loads(text.splitlines()[-1] if name == "kt" else text)
    except (OSError, ValueError, IndexError):
        return None


def wall(name):
    try:
        with open(os.path.join(tmp, name + ".wall")) as f:
            t0, t1 = map(float, f.read().split())
        return round(t1 - t0, 3)
    except (OSError, ValueError):
        return None


def ratio(a, b, digits=2):
    return round(a / b, digits) if a is not None and b else None


kt = load("kt")
doc = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
       "space": space, "kernel_tuner": None, "autotune": {}}
if kt:
    best = kt.get("best") or {}
    doc["kernel_tuner"] = {
        "version": kt.get("version"), "device": kt.get("device"), "n": kt.get("n"),
        "size": kt.get("size"), "unit": kt.get("metric_unit", "GB/s"),
        "process_wall_s": wall("kt"), "tune_kernel_s": kt.get("wall_s"),
        "configs": kt.get("configs"), "valid": kt.get("valid"),
        "verify": kt.get("verify"), "time_split_s": kt.get("time_split_s"),
        "best": best or None, "best_gbs": best.get("gbs", best.get("metric"))}
for run in ("cold", "warm", "default"):
    a = load("autotune-" + run)
    if not a or not a.get("results"):
        doc["autotune"][run] = None
        continue
    r = a["results"][0]
    b = r.get("best") or {}
    st = r.get("statuses", {})
    doc["autotune"][run] = {
        "device": r.get("device"), "size": r.get("size"),
        "process_wall_s": wall("autotune-" + run),
        "tune_wall_s": r.get("wall_s"), "compile_s": r.get("compile_s"),
        "verify_s": r.get("verify_s"), "measure_s": r.get("measure_s"),
        "framework_s": r.get("framework_s"), "evaluations": r.get("evaluations"),
        "space": r.get("space"), "verified_ok": (st.get("ok") or 0) - (r.get("unverified") or 0), "stop": r.get("stop"),
        "statuses": {k: v for k, v in st.items() if v},
        "cache_hits": a.get("cache", {}).get("hits"),
        "cache_misses": a.get("cache", {}).get("misses"),
        "best": dict(b.get("params", {}), time_ns=b.get("time_ns"),
                     gbs=b.get("metric")) if b else None,
        "best_gbs": b.get("metric")}

k = doc["kernel_tuner"] or {}
c = doc["autotune"].get("cold") or {}
w = doc["autotune"].get("warm") or {}
d = doc["autotune"].get("default") or {}
kw, cw, ww = k.get("process_wall_s"), c.get("process_wall_s"), w.get("process_wall_s")
kg, cg = k.get("best_gbs"), c.get("best_gbs")
doc["ratios"] = {
    "kt_over_ours_cold_wall": ratio(kw, cw, 1),
    "kt_over_ours_warm_wall": ratio(kw, ww, 1),
    "kt_tune_over_ours_cold_tune": ratio(k.get("tune_kernel_s"), c.get("tune_wall_s"), 1),
    "ours_over_kt_best_gbs": ratio(cg, kg, 4),
    "kt_tune_over_default_tune": ratio(k.get("tune_kernel_s"), d.get("tune_wall_s"), 1),
    "kt_over_default_wall": ratio(kw, d.get("process_wall_s"), 1),
    "default_over_kt_best_gbs": ratio(d.get("best_gbs"), kg, 4)}
doc["targets"] = {
    "ten_times_faster": (kw / cw >= 10) if kw and cw else None,
    "best_within_1pct": (cg >= 0.99 * kg) if kg and cg else None,
    "warm_compiles_nothing": (w.get("cache_misses") == 0 and (w.get("cache_hits") or 0) > 0)
                             if w else None,
    # Tool time: the process's wall adds CUDA's start-up, which on a
    # two-GPU host outweighs the compiles the cache saves (3.6 s warm, 3.3
    # s cold, tool time 1.46 and 1.57 s, H200 x2, 2026-11-23).
    "warm_faster_than_cold": (w["tune_wall_s"] < c["tune_wall_s"])
                             if w.get("tune_wall_s") and c.get("tune_wall_s") else None,
    "every_output_verified": (c.get("verified_ok") == c.get("evaluations"))
                             if c.get("evaluations") else None,
    # issue 13: the default run 30x faster in tool time than KT's brute
    # force, its best within 1% of KT's.
    "default_thirty_times_faster": (k["tune_kernel_s"] / d["tune_wall_s"] >= 30)
                                   if k.get("tune_kernel_s") and d.get("tune_wall_s") else None,
    "default_best_within_1pct": (d["best_gbs"] >= 0.99 * kg) if kg and d.get("best_gbs") else None}


def f(v, fmt="{:.2f}"):
    return "-" if v is None else fmt.format(v)


NOT_PARAMS = {"time_ms", "median_ms", "time_ns", "gbs", "median_gbs", "metric",
              "median_metric", "unit"}


def cfg(b):
    if not b:
        return "-"
    if space == "copy":
        return ",".join(f"{p}={b[p]}" for p in ("BLOCK_SIZE", "VW", "UNROLL", "GRID") if p in b)
    return ",".join(f"{p}={v}" for p, v in b.items() if p not in NOT_PARAMS)


dev = k.get("device") or c.get("device") or "?"
unit = k.get("unit") or ("GB/s" if space == "copy" else "GFLOP/s")
if space == "copy":
    n = k.get("n")
    n = "?" if n is None else "2^28" if n == 1 << 28 else str(n)
    what = f"copy, n = {n}"
else:
    what = f"{space} (tests/data/published/convolution_kt), {k.get('size') or c.get('size') or '?'}"
print(f"\nKernel Tuner vs autotune: {what}, brute force, {dev}, {doc['date']}")
print(f"{'run':<34} {'wall s':>8} {'tool s':>8} {'best ' + unit:>10}  best configuration")
kname = ("Kernel Tuner " + str(k.get("version")) + (" (answer=)" if k.get("verify") else " (no check)")
         if k else "Kernel Tuner (did not run)")
print(f"{kname:<34}"
      f" {f(kw):>8} {f(k.get('tune_kernel_s')):>8} {f(kg, '{:.1f}'):>10}  {cfg(k.get('best'))}")
for name, r in (("autotune cold cache (verified)", c), ("autotune warm cache (verified)", w),
                ("autotune default, cold (lazy)", d)):
    print(f"{name:<34} {f(r.get('process_wall_s')):>8} {f(r.get('tune_wall_s')):>8}"
          f" {f(r.get('best_gbs'), '{:.1f}'):>10}  {cfg(r.get('best'))}")
print("wall s: the process, timed by this script; tool s: tune_kernel() / autotune's own wall_s")
if k.get("time_split_s"):
    print("Kernel Tuner split (s): " + ", ".join(f"{a} {b}" for a, b in k["time_split_s"].items()))
for name, r in (("cold", c), ("warm", w), ("default", d)):
    if r:
        print(f"autotune {name} split (s): compile {f(r.get('compile_s'))}, verify {f(r.get('verify_s'))},"
              f" measure {f(r.get('measure_s'))}, framework {f(r.get('framework_s'))};"
              f" {r.get('evaluations')}/{r.get('space')} evaluated, {r.get('verified_ok')} verified ok;"
              f" module cache {r.get('cache_hits')} hits, {r.get('cache_misses')} misses"
              + (f"; stop: {r.get('stop')}" if r.get("stop") else ""))
rt = doc["ratios"]
print(f"KT / ours wall: cold {f(rt['kt_over_ours_cold_wall'], '{:.1f}x')},"
      f" warm {f(rt['kt_over_ours_warm_wall'], '{:.1f}x')}"
      f" (tool time: {f(rt['kt_tune_over_ours_cold_tune'], '{:.1f}x')});"
      f" ours / KT best {unit}: {f(rt['ours_over_kt_best_gbs'], '{:.4f}')}")
print(f"KT brute force / autotune default: tool time {f(rt['kt_tune_over_default_tune'], '{:.1f}x')},"
      f" wall {f(rt['kt_over_default_wall'], '{:.1f}x')};"
      f" default / KT best {unit}: {f(rt['default_over_kt_best_gbs'], '{:.4f}')}")
print("targets: " + ", ".join(f"{a} {'-' if b is None else ('met' if b else 'MISSED')}"
                              for a, b in doc["targets"].items()))
if dest:
    with open(dest, "w") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
EOF

exit $failed
