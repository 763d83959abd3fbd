#!/usr/bin/env bash
# libatune_jit's first use (ATUNE_EFFORT=measure) with several threads, a
# handle each, asking for the same new size at once, under
# ThreadSanitizer: builds tests/test_firstuse.c with the sources of
# libatune_jit (tuner/lib, base, template, jit, search, measure, appjit;
# the built-in templates embedded as the build does) and -fsanitize=thread,
# and the stub driver (tests/stubdrv, not instrumented), and runs the
# threads case: measured once, the same answer everywhere, no data race
# reported (any fails CI).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${TMPDIR:-/tmp}/atune-tsan-firstuse-$$
mkdir -p "$out/stubdrv"
trap 'rm -rf "$out"' EXIT
files=$(ls templates/*.ini | while read -r ini; do printf '%s;%s;' "$root/$ini" "$root/${ini%.ini}.cu"; done)
cmake -DOUT="$out/embedded.c" "-DFILES=${files}$root/tuner/measure/devutil.cu" \
  -P tuner/cmake/embed.cmake
cc -std=c17 -D_POSIX_C_SOURCE=200809L -shared -fPIC -O1 -I"$root/tuner" \
  -I"$cuda/include" tests/stubdrv/libcuda.c -o "$out/stubdrv/libcuda.so.1"
# shellcheck disable=SC2046
cc -std=c17 -D_POSIX_C_SOURCE=200809L -DATUNE_VERSION_STRING='"tsan"' -Wall -Wextra -Werror -Wno-format-truncation -g -O1 \
  -fsanitize=thread -fno-omit-frame-pointer \
  -I"$root/include" -I"$root/tuner" -I"$cuda/include" \
  $(pkg-config --cflags inih cmocka) \
  "$root"/tuner/lib/*.c "$root"/tuner/base/*.c "$root"/tuner/template/*.c \
  "$root"/tuner/jit/*.c "$root"/tuner/search/*.c "$root"/tuner/measure/*.c \
  "$root"/tuner/appjit/*.c "$out/embedded.c" tests/test_firstuse.c \
  -o "$out/test_firstuse" \
  -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lnvrtc \
  $(pkg-config --libs inih cmocka) -lpthread -ldl -lm
ATUNE_STUB_DRIVER_DIR="$out/stubdrv" ATUNE_TEST_ONLY=test_threads_measure_once \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$out/test_firstuse"
echo "tsan: $(grep -m1 -o 'NTHREADS [0-9]*' tests/test_firstuse.c | cut -d' ' -f2) threads asking for the same new size at first use: measured once, no data race"
