#!/usr/bin/env bash
# The published kernel files of tests/data/published, unchanged (their
# SHA-256 recorded), each with only a manifest: `autotune check` passes
# for each, through NVRTC or, for the files with host code, nvcc -cubin
# (said in a note), with launch-only parameters sharing modules. The two
# nvcc files that cost tens of seconds per configuration are checked with
# --budget (issue 32), and so are Kernel Tuner's convolution (seconds of
# NVRTC per configuration, thousands of them; issue 34) and the FAIR
# benchmark hub's dedispersion (11130 configurations), whose spaces are
# checked against the hub's below.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
dir=$src/tests/data/published
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATUNE_CACHE_DIR=$tmp/cache
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() {
  fail=$((fail + 1))
  echo "FAIL: $1"
  shift
  for f in "$@"; do sed 's/^/  /' "$f" | head -15; done
}
command -v nvcc >/dev/null || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] ||
  { echo "no nvcc: the host-code files cannot be compiled here"; exit 77; }

(cd "$dir" && sha256sum -c --quiet SHA256SUMS) >"$tmp/sum" 2>&1 && ok ||
  ko "a published file differs from its repository's" "$tmp/sum"

# kernel|check options|compiler note expected (1: nvcc)|parameters line|modules line
while IFS='|' read -r k opts nvcc params modules; do
  [ -n "$k" ] || continue
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$bin" check --templates "$dir/$k" $opts >"$tmp/$k.out" 2>"$tmp/$k.err"
  rc=$?
  echo "$k: exit $rc, $(($(date +%s) - start)) s"
  [ "$rc" -eq 0 ] && grep -q " 0 failed" "$tmp/$k.out" && ok ||
    ko "$k: check exit $rc" "$tmp/$k.err" "$tmp/$k.out"
  if [ "$nvcc" = 1 ]; then
    grep -q "compiled with nvcc -cubin, automatically: NVRTC cannot compile this file" "$tmp/$k.err" && ok ||
      ko "$k: no note that nvcc compiled it" "$tmp/$k.err"
    # NVRTC's precompiled headers had nothing to do: said, not counted as
    # "0 configurations created one, 0 used one".
    ! grep -q "precompiled headers: [0-9]" "$tmp/$k.out" && ok ||
      ko "$k: precompiled headers counted for a file nvcc compiled" "$tmp/$k.out"
  else
    grep -q "nvcc" "$tmp/$k.err" && ko "$k: went to nvcc" "$tmp/$k.err" || ok
  fi
  grep -qF "$params" "$tmp/$k.out" && ok || ko "$k: want '$params'" "$tmp/$k.out"
  grep -qF "$modules" "$tmp/$k.out" && ok || ko "$k: want '$modules'" "$tmp/$k.out"
done <<'LIST'
stencil||0|parameters: macros (-D): block_size_x, block_size_y|modules: 21 for 21 configurations
matrixMul_kernel||0|parameters: name expression: BS|modules: 2 for 2 configurations
coalescing||1|parameters: launch only: BLOCK|modules: 1 for 6 configurations
layernorm_forward|--budget 6|1|parameters: name expression: VERSION; launch only: BLOCK|modules: 4 for 6 configurations
layernorm_v2||1|parameters: launch only: BLOCK, BLOCK2|modules: 1 for 30 configurations
reduction_kernel|--budget 2|1|parameters: name expression: K, THREADS|modules: 2 for 2 configurations
convolution|--budget 4|0|parameters: macros (-D): block_size_x, block_size_y, read_only, tile_size_x, tile_size_y, use_padding, filter_height, filter_width|modules: 4 for 4 configurations
convolution_kt|--budget 4|0|parameters: macros (-D): block_size_x, block_size_y, read_only, tile_size_x, tile_size_y, use_padding, filter_height, filter_width|modules: 4 for 4 configurations
dedispersion|--budget 3|0|parameters: macros (-D): block_size_x, block_size_y, tile_size_x, tile_size_y, tile_stride_x, tile_stride_y|modules: 3 for 3 configurations
LIST

# Kernel Tuner's convolution over the FAIR benchmark hub's space (issue 34):
# valid configurations as `list` counts them.
valid() { # DIR -> the valid count of its one size
  "$bin" list --templates "$1" --json | tr -d ' \n' |
    sed -n 's/.*"sizes":\[{[^]]*"valid":\([0-9]*\)}\].*/\1/p'
}
conv=$dir/convolution
[ "$(valid "$conv")" = 5342 ] && ok || ko "convolution: want 5342 valid, got '$(valid "$conv")'"
[ "$(valid "$dir/convolution_kt")" = 288 ] && ok ||
  ko "convolution_kt: want 288 valid, got '$(valid "$dir/convolution_kt")'"
# Without its shared-memory constraint the manifest is the hub's space:
# 6768 configurations within the hub's restrictions.
mkdir "$tmp/hub"
cp "$conv/convolution.cu" "$tmp/hub/"
awk '/^shared = / { skip = 1; next } skip && /^[ \t]/ { next } { skip = 0; print }' \
  "$conv/convolution.ini" >"$tmp/hub/convolution.ini"
grep -q '^tile = ' "$tmp/hub/convolution.ini" && ! grep -q '49152' "$tmp/hub/convolution.ini" &&
  [ "$(valid "$tmp/hub")" = 6768 ] && ok ||
  ko "convolution without 'shared': want the hub's 6768 valid, got '$(valid "$tmp/hub")'"
# and the configurations that constraint leaves out are exactly those each
# of the hub's four GPUs failed to compile (CompilationFailedConfig, from
# its caches in tests/data/kerneltuner): their tile over 48 KiB of static
# shared memory, as the file computes its width.
for j in "$src"/tests/data/kerneltuner/train/conv-*.journal \
         "$src"/tests/data/kerneltuner/heldout/conv-rtx3090.journal; do
  r=$(awk -F'\t' '!/^#/ {
      split($3, kv, ","); for (i in kv) { split(kv[i], a, "="); v[a[1]] = a[2] }
      bx = v["BX"]; by = v["BY"]; tx = v["TX"]; ty = v["TY"]
      w = bx * tx + 14
      if (v["PAD"] == 1 && bx % 32 != 0 && (w - bx) % 32 != 0) {
        x = 32 - (14 + bx * tx - bx); w += (x % 32 + 32) % 32  # x & 31
      }
      big = (by * ty + 14) * w * 4 > 49152
      n++; nbig += big; if (big != ($4 == "compile_error")) bad++
    } END { print n, nbig, bad + 0 }' "$j")
  [ "$r" = "6768 1426 0" ] && ok ||
    ko "$(basename "$j"): want 6768 configurations, 1426 over 48 KiB, all of them and only them failed to compile; got $r"
done

# The benchmark hub's dedispersion (issue 34): its space, 6 x 29 x 4 x 8 x
# 2 x 2 combinations of which its conditions keep 11130 (as many as its
# A100 cache in tests/data/kerneltuner/heldout holds), and the first values
# a valid configuration: the manifest with only those keeps one.
dd=$dir/dedispersion
# The 3 configurations checked have one-wide tiles, where a stride of 1
# breaks the hub's conditions (and would compile to the same CUBIN as 0):
# the strides must not be said to change nothing.
grep -q "changes nothing" "$tmp/dedispersion.err" &&
  ko "dedispersion: a stride said to change nothing" "$tmp/dedispersion.err" || ok
[ "$(valid "$dd")" = 11130 ] && ok || ko "dedispersion: want 11130 valid, got '$(valid "$dd")'"
"$bin" list --templates "$dd" >"$tmp/dd.list" 2>&1
grep -q "space: 22272 configurations" "$tmp/dd.list" && ok ||
  ko "dedispersion: want a space of 22272 configurations" "$tmp/dd.list"
mkdir "$tmp/dd1"
cp "$dd"/*.cu "$dd"/*.h "$tmp/dd1/"
awk '/^\[/ { p = ($0 ~ /^\[params\]/) }
     p && /^[a-z_]+ = / { sub(/ *;.*/, ""); sub(/,.*/, ""); sub(/\.\..*/, "") } { print }' \
  "$dd/dedispersion.ini" >"$tmp/dd1/dedispersion.ini"
[ "$(grep -c '^[a-z_]* = [0-9]*$' "$tmp/dd1/dedispersion.ini")" = 6 ] &&
  [ "$(valid "$tmp/dd1")" = 1 ] && ok ||
  ko "dedispersion: the default configuration (first values) is not valid" "$tmp/dd1/dedispersion.ini"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
