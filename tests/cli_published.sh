#!/usr/bin/env bash
# The five published kernel files of tests/data/published, unchanged (their
# SHA-256 recorded), each with only a manifest: `autotune check` passes
# for each, through NVRTC or, for the files with host code, nvcc -cubin
# (said in a note), with launch-only parameters sharing modules. The two
# nvcc files that cost tens of seconds per configuration are checked with
# --budget (issue 32).
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
LIST

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
