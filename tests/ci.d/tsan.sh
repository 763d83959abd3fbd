#!/usr/bin/env bash
# libatune's lookups on one handle shared by 8 threads, under
# ThreadSanitizer: builds tests/test_profile_threads.c with the library's
# sources (tuner/lib, pure C + inih) and -fsanitize=thread, and runs it.
# Any data race reported fails CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out=${TMPDIR:-/tmp}/atune-tsan-$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2046
cc -std=c17 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g -O1 \
  -fsanitize=thread -fno-omit-frame-pointer \
  -I"$root/include" -I"$root/tuner" $(pkg-config --cflags inih cmocka) \
  "$root"/tuner/lib/*.c tests/test_profile_threads.c \
  -o "$out/test_profile_threads" \
  $(pkg-config --libs inih cmocka) -lpthread -ldl -lm
ATUNE_SOURCE_DIR=$root TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
  "$out/test_profile_threads"
echo "tsan: 8 threads on one handle, no data race"
