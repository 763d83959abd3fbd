#!/usr/bin/env bash
# libatune_jit under ThreadSanitizer, with threads that ask for one new size
# at once: the record path (ATUNE_RECORD; tests/test_record_threads.c, 8
# threads: no line lost) and first use (ATUNE_EFFORT=measure;
# tests/test_firstuse.c's threads case on the stub driver, tests/stubdrv,
# not instrumented: measured once, the same answer everywhere). The sources
# of libatune_jit (tuner/lib, base, template, jit, search, measure, appjit;
# the built-in templates embedded as the build does) are compiled once with
# -fsanitize=thread and linked into each test. Any data race reported fails
# CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${TMPDIR:-/tmp}/atune-tsan-jit-$$
mkdir -p "$out/obj" "$out/stubdrv"
trap 'rm -rf "$out"' EXIT
files=$(ls templates/*.ini | while read -r ini; do printf '%s;%s;' "$root/$ini" "$root/${ini%.ini}.cu"; done)
cmake -DOUT="$out/embedded.c" "-DFILES=${files}$root/tuner/measure/devutil.cu" \
  -P tuner/cmake/embed.cmake
cc -std=c17 -D_POSIX_C_SOURCE=200809L -shared -fPIC -O1 -I"$root/tuner" \
  -I"$cuda/include" tests/stubdrv/libcuda.c -o "$out/stubdrv/libcuda.so.1"
# shellcheck disable=SC2207
cflags=(-std=c17 -D_POSIX_C_SOURCE=200809L -DATUNE_VERSION_STRING='"tsan"'
        -Wall -Wextra -Werror -Wno-format-truncation -g -O1
        -fsanitize=thread -fno-omit-frame-pointer
        -I"$root/include" -I"$root/tuner" -I"$cuda/include"
        $(pkg-config --cflags inih cmocka))
# shellcheck disable=SC2207
libs=(-L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lnvrtc
      $(pkg-config --libs inih cmocka) -lpthread -ldl -lm)
# Each source once, two at a time; any failure fails the step.
export out
printf '%s\n' tuner/lib/*.c tuner/base/*.c tuner/template/*.c tuner/jit/*.c \
  tuner/search/*.c tuner/measure/*.c tuner/appjit/*.c "$out/embedded.c" |
  xargs -P 2 -I{} sh -c 'o=$(echo "$1" | tr / _); shift; exec cc "$@" -c "$0" -o "$out/obj/$o.o"' \
    {} {} "${cflags[@]}"
for t in test_record_threads test_firstuse; do
  cc "${cflags[@]}" "tests/$t.c" "$out"/obj/*.o -o "$out/$t" "${libs[@]}"
done
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$out/test_record_threads"
echo "tsan: 8 threads recording the same new size, no data race"
ATUNE_STUB_DRIVER_DIR="$out/stubdrv" ATUNE_TEST_ONLY=test_threads_measure_once \
  TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$out/test_firstuse"
echo "tsan: $(grep -m1 -o 'NTHREADS [0-9]*' tests/test_firstuse.c | cut -d' ' -f2) threads asking for the same new size at first use: measured once, no data race"
