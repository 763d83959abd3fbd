#!/usr/bin/env bash
# NVRTC compiles every valid configuration of every built-in template for
# sm_90 without a GPU (autotune check), and of the users' own kernels in
# tests/data/byok (C++ names, CUB, a header of their own, cuda_fp16.h and
# cuda/std); a configuration that does not compile makes check exit 65
# with the NVRTC log.
set -u
bin=${ATUNE_BINARY:?run through ctest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$bin" check --arch sm_90 --json >"$tmp/check.json" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] && ok || { ko "check exit $rc"; head -20 "$tmp/err"; }
python3 - "$tmp/check.json" <<'PY' && ok || ko "check JSON"
import json, sys
d = json.load(open(sys.argv[1]))
names = {t["name"]: t for t in d["templates"]}
assert d["failed"] == 0, d["failed"]
assert names["copy"]["configurations"] == 630, names["copy"]
# matmul: the distinct configurations of its 22 sizes (squares, unaligned
# squares with VEC=2, split-K where few tiles fill the SMs, stream-K where
# the last wave leaves SMs idle), cp.async stages included; SPLITK and SKB
# are launch-only and SPLIT is computed from them ([macros]), so their
# values share one module per SPLIT (367 modules for 407 configurations)
assert names["matmul"]["configurations"] == 407, names["matmul"]
assert names["matmul"]["modules"] == 367, names["matmul"]
for t in d["templates"]:
    print(f'{t["name"]}: {t["configurations"]} configurations compiled in {t["seconds"]:.1f} s')
PY

# The target's compute capability reaches the constraints: at sm_75
# copy's EVICT=1 (createpolicy, sm_80+) is invalid, not a compile error.
"$bin" check --arch sm_75 --kernel copy --json >"$tmp/sm75.json" 2>"$tmp/sm75.err"
rc=$?
[ $rc -eq 0 ] && ok || { ko "check --arch sm_75 exit $rc"; head -20 "$tmp/sm75.err"; }
python3 - "$tmp/sm75.json" <<'PY' && ok || ko "check --arch sm_75 JSON"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["templates"][0]
assert d["failed"] == 0 and t["configurations"] == 315, t
PY

# Users' kernels, each with only a manifest added (issue 14).
src=${ATUNE_SOURCE_DIR:?run through ctest}
"$bin" check --arch sm_90 --json --templates "$src/tests/data/byok" \
  >"$tmp/byok.json" 2>"$tmp/byok.err"
rc=$?
[ $rc -eq 0 ] && ok || { ko "byok check exit $rc"; head -20 "$tmp/byok.err"; }
python3 - "$tmp/byok.json" <<'PY' && ok || ko "byok check JSON"
import json, sys
d = json.load(open(sys.argv[1]))
names = {t["name"]: t for t in d["templates"]}
assert d["failed"] == 0, d["failed"]
assert set(names) == {"convolution", "block_sum", "silu_half"}, names.keys()
for t in d["templates"]:
    assert t["configurations"] > 0, t
    print(f'{t["name"]}: {t["configurations"]} configurations compiled in {t["seconds"]:.1f} s')
PY

# A template whose VW=3 does not compile.
mkdir -p "$tmp/t"
cat >"$tmp/t/broken.cu" <<'CU'
#if VW == 3
#error "VW = 3 is not supported"
#endif
extern "C" __global__ void k(int *o, long n) { if (threadIdx.x == 0) o[0] = VW; }
extern "C" __global__ void r(int *o, long n) { if (threadIdx.x == 0) o[0] = VW; }
CU
cat >"$tmp/t/broken.ini" <<'INI'
[template]
kernel = k
reference = r
reference_block = 1
reference_grid = 1
metric = GB/s
work = 4
[sizes]
one = n=1
[params]
VW = 1, 3
[launch]
block = 32
grid = 1
[args]
o = int[1] output
n = long n
INI
"$bin" check --templates "$tmp/t" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 65 ] && ok || ko "broken template: exit $rc, want 65"
grep -q "VW=3" "$tmp/err" && ok || ko "failure names the configuration"
grep -q "VW = 3 is not supported" "$tmp/err" && ok || ko "failure shows the NVRTC log"
grep -q "1 failed" "$tmp/out" && ok || ko "summary counts the failure"

# An error in a header of the template's own is reported as FILE:LINE too,
# and the header beside the .cu is found without include_dirs.
mkdir -p "$tmp/h"
printf 'namespace ns {\ninline __device__ int f() { return undefined_name; }\n}\n' \
  >"$tmp/h/hdr.cuh"
cat >"$tmp/h/withhdr.cu" <<'CU'
#include "hdr.cuh"
namespace ns {
template <int B> __global__ void k(int *o, long n) { o[0] = f() + B; }
}
CU
sed -e 's/^kernel = k$/kernel = ns::k<vw>/' -e 's/^reference = r$/reference = ns::k<1>/' \
  -e 's/^VW = 1, 3$/vw = 1/' "$tmp/t/broken.ini" >"$tmp/h/withhdr.ini"
"$bin" check --templates "$tmp/h" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 65 ] && ok || ko "header error: exit $rc, want 65"
grep -q "hdr.cuh:2: error: identifier \"undefined_name\" is undefined" "$tmp/err" && ok ||
  { ko "header error not reported as hdr.cuh:2"; head -5 "$tmp/err"; }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
