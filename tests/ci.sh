#!/usr/bin/env bash
# The test command: on a fresh Debian/Ubuntu machine with the CUDA toolkit,
# installs what it needs, then builds and runs every test that needs no GPU
# (GPU tests skip themselves): warnings-as-errors build + ctest (the
# documentation's examples, options and man page included), a sanitizer
# build of the CPU tests, the fuzzers for a bounded time, and the example
# consumer against an installed copy.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
ATUNE_FUZZ=1 ATUNE_DOCS=1 tests/deps.sh
jobs=$(nproc)
export CMAKE_BUILD_PARALLEL_LEVEL=$jobs CTEST_PARALLEL_LEVEL=$jobs

step() { printf '\n== %s\n' "$*"; }

step "build (warnings are errors) and test"
cmake --workflow --preset ci

step "AddressSanitizer + UndefinedBehaviorSanitizer build of the CPU tests"
cmake --workflow --preset asan

for extra in tests/ci.d/*.sh; do
  [ -e "$extra" ] || continue
  step "$extra"
  bash "$extra"
done

step "all CI steps passed"
