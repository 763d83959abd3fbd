#!/usr/bin/env bash
# libatune_jit's record path (ATUNE_RECORD) with 8 threads serving the same
# new size at once, under ThreadSanitizer: builds tests/test_record_threads.c
# with the sources of libatune_jit (tuner/lib, base, template, jit, search,
# measure, appjit; the
# built-in templates embedded as the build does) and -fsanitize=thread, and
# runs it. Any data race reported fails CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${TMPDIR:-/tmp}/atune-tsan-record-$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
files=$(ls templates/*.ini | while read -r ini; do printf '%s;%s;' "$root/$ini" "$root/${ini%.ini}.cu"; done)
cmake -DOUT="$out/embedded.c" "-DFILES=${files}$root/tuner/measure/devutil.cu" \
  -P tuner/cmake/embed.cmake
# shellcheck disable=SC2046
cc -std=c17 -D_POSIX_C_SOURCE=200809L -DATUNE_VERSION_STRING='"tsan"' -Wall -Wextra -Werror -Wno-format-truncation -g -O1 \
  -fsanitize=thread -fno-omit-frame-pointer \
  -I"$root/include" -I"$root/tuner" -I"$cuda/include" \
  $(pkg-config --cflags inih cmocka) \
  "$root"/tuner/lib/*.c "$root"/tuner/base/*.c "$root"/tuner/template/*.c \
  "$root"/tuner/jit/*.c "$root"/tuner/search/*.c "$root"/tuner/measure/*.c \
  "$root"/tuner/appjit/*.c "$out/embedded.c" tests/test_record_threads.c \
  -o "$out/test_record_threads" \
  -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lnvrtc \
  $(pkg-config --libs inih cmocka) -lpthread -ldl -lm
TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$out/test_record_threads"
echo "tsan: 8 threads recording the same new size, no data race"
