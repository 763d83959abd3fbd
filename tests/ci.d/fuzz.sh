#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time
# from its seed corpus (tests/fuzz/<name>_seeds); any crash fails CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${ATUNE_FUZZ_SECONDS:-45}
build=build/fuzz
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DATUNE_BUILD_FUZZ=ON \
  -DATUNE_BUILD_TESTS=ON >/dev/null
targets=$(cd tests && ls fuzz_*.c | sed 's/\.c$//')
cmake --build "$build" --target $targets >/dev/null
for t in $targets; do
  seeds=tests/fuzz/${t#fuzz_}_seeds
  corpus=$(mktemp -d)
  echo "fuzzing $t for ${secs}s from $seeds"
  "$build/tests/$t" -max_total_time="$secs" -max_len=4096 -print_final_stats=0 \
    "$corpus" "$seeds" 2>"$corpus.log" || { tail -40 "$corpus.log"; exit 1; }
  grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$corpus.log" | tail -1
  rm -rf "$corpus" "$corpus.log"
done
