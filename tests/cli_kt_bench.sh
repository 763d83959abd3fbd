#!/usr/bin/env bash
# The Kernel Tuner side by side without a GPU (tests/bench/kt_brute.py,
# kt_copy.py; issue 34): kt_brute.py's --dry-run translates a manifest into
# Kernel Tuner's arguments, and its space must be the one autotune builds
# from the same manifest (`autotune list`'s valid count), its launches the
# manifest's. Where Python has kernel_tuner (ATUNE_KT_PYTHON, e.g. a
# virtual environment with kernel_tuner==1.4.0), Kernel Tuner's own
# Searchspace is built too and must agree, configuration by configuration.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
py=${ATUNE_KT_PYTHON:-python3}
command -v "$py" >/dev/null || { echo "no $py: skipped"; exit 77; }
pub=$src/tests/data/published
brute=$src/tests/bench/kt_brute.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() {
  fail=$((fail + 1))
  echo "FAIL: $1"
  shift
  for f in "$@"; do sed 's/^/  /' "$f" | head -15; done
}
have_kt=0
"$py" -c 'import kernel_tuner' 2>/dev/null && have_kt=1
echo "kernel_tuner in $py: $([ $have_kt = 1 ] && echo yes || echo 'no (the translation only)')"

field() { # JSON-FILE KEY -> the value of a top-level key
  "$py" -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"
}
valid() { # DIR KERNEL -> autotune's valid count of the template's first size
  "$bin" list --templates "$1" --kernel "$2" --json | tr -d ' \n' |
    sed -n 's/.*"sizes":\[{"name":[^}]*"valid":\([0-9]*\)}.*/\1/p'
}

# name|manifest|kernel file|autotune dir|autotune kernel|kt_brute options
while IFS='|' read -r name ini cu adir akernel opts; do
  [ -n "$name" ] || continue
  want=$(valid "$adir" "$akernel")
  # shellcheck disable=SC2086
  "$py" "$brute" "$ini" "$cu" --dry-run $opts >"$tmp/$name.json" 2>"$tmp/$name.err"
  rc=$?
  got=$(field "$tmp/$name.json" configs)
  echo "$name: exit $rc, $got configurations; autotune: $want"
  [ "$rc" -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] && ok ||
    ko "$name: kt_brute.py --dry-run exit $rc, $got configurations, autotune $want" \
      "$tmp/$name.err" "$tmp/$name.json"
  if [ $have_kt = 1 ]; then
    [ "$(field "$tmp/$name.json" kt_configs)" = "$want" ] &&
      [ "$(field "$tmp/$name.json" launch_mismatches)" = 0 ] && ok ||
      ko "$name: Kernel Tuner's Searchspace differs" "$tmp/$name.err"
  fi
done <<LIST
convolution|$pub/convolution/convolution.ini|$pub/convolution/convolution.cu|$pub/convolution|convolution|
convolution_kt|$pub/convolution_kt/convolution.ini|$pub/convolution_kt/convolution.cu|$pub/convolution_kt|convolution|
restricted|$pub/convolution/convolution.ini|$pub/convolution/convolution.cu|$pub/convolution_kt|convolution|--restrict read_only==1 --restrict tile_size_x<=2&&tile_size_y<=2
copy|$src/templates/copy.ini|$src/templates/copy.cu|$src/templates|copy|--size large
byok|$src/tests/data/byok/convolution.ini|$src/tests/data/byok/convolution.cu|$src/tests/data/byok|convolution|
dedispersion|$pub/dedispersion/dedispersion.ini|$pub/dedispersion/dedispersion.cu|$pub/dedispersion|dedispersion|
LIST

# The translation: Kernel Tuner's own problem_size and grid_div from
# [launch] grid, the block from [launch] block, the fixed filter size as
# single-valued parameters, the constant filter as cmem_args.
"$py" - "$tmp/convolution.json" >"$tmp/tr.out" 2>&1 <<'EOF' && ok || ko "convolution: translation" "$tmp/tr.out"
import json, sys
t = json.load(open(sys.argv[1]))["translation"]
want = {"kernel": "convolution_kernel", "problem_size": [4096, 4096],
        "grid_div": {"x": ["block_size_x", "tile_size_x"], "y": ["block_size_y", "tile_size_y"]},
        "block_size_names": ["block_size_x", "block_size_y"], "cmem_args": ["d_filter"],
        "constraints": ["threads", "tile", "shared"], "space": 16896}
bad = {k: (t.get(k), v) for k, v in want.items() if t.get(k) != v}
p = t["params"]
if p.get("filter_height") != [15] or p.get("filter_width") != [15] or p.get("tile_size_x") != list(range(1, 9)):
    bad["params"] = p
if [a[0] for a in t["args"]] != ["output", "input", "d_filter"] or t["args"][1][3] != 4110 * 4110:
    bad["args"] = t["args"]
print(bad or "ok")
sys.exit(1 if bad else 0)
EOF
# The benchmark hub's dedispersion: its GridDivX/GridDivY as grid_div, the
# inputs' fills as autotune's bounds, headers found in the manifest's folder.
"$py" - "$tmp/dedispersion.json" "$pub/dedispersion" >"$tmp/trd.out" 2>&1 <<'EOF' && ok || ko "dedispersion: translation" "$tmp/trd.out"
import json, os, sys
t = json.load(open(sys.argv[1]))["translation"]
want = {"kernel": "dedispersion_kernel", "problem_size": [25000, 2048], "space": 22272,
        "grid_div": {"x": ["block_size_x", "tile_size_x"], "y": ["block_size_y", "tile_size_y"]},
        "block_size_names": ["block_size_x", "block_size_y"],
        "constraints": ["threads", "stride_x", "stride_y"],
        "args": [["input", "buffer", "char", 25650 * 1536, "input", ["range", 0, 127]],
                 ["output", "buffer", "float", 25000 * 2048, "output"],
                 ["shifts", "buffer", "float", 1536, "input", ["uniform", 0.0, 15.8]]]}
bad = {k: (t.get(k), v) for k, v in want.items() if t.get(k) != v}
if "-I" + os.path.realpath(sys.argv[2]) not in t["compiler_options"]:
    bad["compiler_options"] = t["compiler_options"]
print(bad or "ok")
sys.exit(1 if bad else 0)
EOF
# copy's grid is no cdiv of a size: a callable problem_size, grid_div [].
[ "$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["translation"]["problem_size"])' \
  "$tmp/copy.json")" = callable ] && ok || ko "copy: want a callable problem_size" "$tmp/copy.json"

# What it cannot translate, it refuses (exit 2) with the manifest's name.
mkdir "$tmp/seq"
printf '[template]\nmetric = GB/s\nwork = n\n[sizes]\ns = n=64\n[params]\nB = 32\n[launch.a]\nkernel = k\nblock = B\ngrid = 1\n[args]\nx = int[n] output\n' \
  >"$tmp/seq/seq.ini"
"$py" "$brute" "$tmp/seq/seq.ini" "$pub/convolution/convolution.cu" --dry-run >"$tmp/seq.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "seq.ini.*\[template\]\|seq.ini.*launch" "$tmp/seq.out" && ok ||
  ko "a launch sequence: want exit 2 naming the manifest, got $rc" "$tmp/seq.out"
"$py" "$brute" "$pub/convolution/convolution.ini" "$pub/convolution/convolution.cu" --dry-run \
  --restrict 'tile_size_x <= nosuch' >"$tmp/bad.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "nosuch" "$tmp/bad.out" && ok ||
  ko "--restrict with an unknown name: want exit 2, got $rc" "$tmp/bad.out"

# kt_brute.py's run, with Kernel Tuner's tune_kernel replaced by one that
# checks what it is given and times each configuration by a formula: the
# arguments, the constant filter (the reference's own array), the grid,
# the output line (every configuration, the best and its GFLOP/s).
if [ $have_kt = 1 ] && "$py" -c 'import numpy' 2>/dev/null; then
  PYTHONPATH=$src/tests/bench${PYTHONPATH:+:$PYTHONPATH} "$py" - "$pub/convolution_kt" \
    >"$tmp/run.out" 2>&1 <<'EOF' && ok || ko "kt_brute.py's run (tune_kernel faked)" "$tmp/run.out"
import io, json, sys, contextlib
import numpy as np
import kernel_tuner
from kernel_tuner.searchspace import Searchspace
import kt_brute

d = sys.argv[1]
seen = {}


def fake_tune_kernel(name, source, problem_size, arguments, tune_params, grid_div_x=None,
                     grid_div_y=None, grid_div_z=None, restrictions=None, block_size_names=None,
                     cmem_args=None, compiler_options=None, lang=None, strategy=None, **kw):
    assert name == "convolution_kernel" and "convolution_naive" in source, name
    assert (lang, strategy) == ("cupy", "brute_force"), (lang, strategy)
    assert problem_size == (4096, 4096), problem_size
    assert grid_div_x == ["block_size_x", "tile_size_x"], grid_div_x
    assert grid_div_y == ["block_size_y", "tile_size_y"], grid_div_y
    out, inp, filt = arguments
    assert out.dtype == np.float32 and out.size == 4096 * 4096 and not out.any()
    assert inp.dtype == np.float32 and inp.size == 4110 * 4110
    assert abs(inp).max() <= 1 and inp.std() > 0.5, "inputs not uniform in [-1, 1]"
    assert filt.size == 33 * 33 and cmem_args["d_filter"] is filt, "d_filter: not the reference's array"
    assert tune_params["filter_height"] == [15] and tune_params["read_only"] == [1]
    ss = Searchspace(tune_params, restrictions, 1024)
    res = []
    for c in ss.sorted_list():
        p = dict(zip(tune_params, c))
        t = 1.0 + abs(p["block_size_x"] - 64) / 64 + abs(p["block_size_y"] - 4) / 8 + \
            p["use_padding"] * 0.01 + (p["tile_size_x"] - 1) * 0.1 - (p["tile_size_y"] - 1) * 0.2
        res.append(dict(p, time=float(t), times=[t] * 7))
    seen["n"] = len(res)
    return res, {"device_name": "fake", "total_compile_time": 1000.0,
                 "total_verification_time": 0.0, "total_benchmark_time": 500.0,
                 "total_framework_time": 10.0, "total_strategy_time": 1.0, "overhead_time": 2.0}


kernel_tuner.tune_kernel = fake_tune_kernel
kt_brute.pad_cupy_uuid = lambda: None
kt_brute.device_attributes = lambda dev: kt_brute.fake_attributes(132)
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    rc = kt_brute.main([d + "/convolution.ini", d + "/convolution.cu"])
doc = json.loads(buf.getvalue().strip().splitlines()[-1])
b = doc["best"]
want = {"block_size_x": 64, "block_size_y": 4, "tile_size_x": 1, "tile_size_y": 2, "use_padding": 0}
bad = {k: b.get(k) for k in want if b.get(k) != want[k]}
flops = 2 * 15 * 15 * 4096 * 4096
if rc != 0 or doc["configs"] != 288 or doc["expected_configs"] != 288 or seen["n"] != 288:
    bad["counts"] = (rc, doc["configs"], doc["expected_configs"])
if abs(b["metric"] - round(flops / 1e9 / 0.8e-3, 1)) > 0.05 or b["unit"] != "GFLOP/s" or "gbs" in b:
    bad["metric"] = b
if doc["time_split_s"]["compile"] != 1.0:
    bad["split"] = doc["time_split_s"]
print(bad or "ok")
sys.exit(1 if bad else 0)
EOF
fi

# kt_copy.py: the configurations it must see are counted from copy.ini's
# constraints (630 since EVICT), not a number written in the script; its
# dry run exits 1 when Kernel Tuner's space has another count.
if [ $have_kt = 1 ]; then
  "$py" "$src/tests/bench/kt_copy.py" --dry-run >"$tmp/kc.json" 2>"$tmp/kc.err"
  rc=$?
  [ $rc -eq 0 ] && [ "$(field "$tmp/kc.json" configs)" = "$(valid "$src/templates" copy)" ] && ok ||
    ko "kt_copy.py --dry-run: exit $rc" "$tmp/kc.err" "$tmp/kc.json"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
