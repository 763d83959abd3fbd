#!/usr/bin/env bash
# The CLI's contract: --help/--version, exit codes 0/64/65/66/69, stdout vs
# stderr, on a machine with or without a GPU.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# expect CODE DESCRIPTION -- COMMAND...: runs it, checks the exit code.
expect() {
  local want=$1 what=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $what: exit $got, want $want"
    sed 's/^/  stdout: /' "$tmp/out" | head -5
    sed 's/^/  stderr: /' "$tmp/err" | head -5
  fi
}
# contains FILE TEXT DESCRIPTION
contains() {
  if grep -q -- "$2" "$1"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $3: '$2' not in $(basename "$1")"; sed 's/^/  /' "$1" | head -5; fi
}

expect 0 "--help" -- "$bin" --help
contains "$tmp/out" "usage: autotune" "--help prints usage on stdout"
contains "$tmp/out" "exit status" "--help documents exit codes"
expect 0 "--version" -- "$bin" --version
contains "$tmp/out" "autotune 0.1.0 (built with CUDA" "--version names the build"
expect 64 "unknown option" -- "$bin" --bogus
contains "$tmp/err" "unknown option '--bogus'" "unknown option named"
expect 64 "unknown command" -- "$bin" frobnicate
expect 64 "bad device" -- "$bin" --device x
contains "$tmp/err" "invalid device 'x'" "bad device named"
expect 64 "missing value" -- "$bin" --device
expect 64 "option of another command" -- "$bin" list --arch sm_90
expect 64 "arch NVRTC cannot target" -- "$bin" check --arch sm_12
expect 64 "show without file" -- "$bin" show
expect 64 "unknown kernel" -- "$bin" list --kernel nosuch
contains "$tmp/err" "unknown kernel 'nosuch'" "unknown kernel named"
expect 0 "list" -- "$bin" list
contains "$tmp/out" "copy" "list shows copy"
contains "$tmp/out" "630" "list shows copy's 630 configurations"
expect 0 "list --json" -- "$bin" list --json --kernel copy
contains "$tmp/out" '"space": 630' "list --json gives the space"
if command -v python3 >/dev/null; then
  cp "$tmp/out" "$tmp/list.json"
  expect 0 "list --json is one JSON document" -- python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/list.json"
fi

# header parses its own options, by the same rules: an option given
# twice is refused (last-wins wrote saxpy's header for `--kernel copy
# --kernel saxpy`, exit 0), --version prints wherever it stands, and
# --quiet applies to every command.
expect 64 "header --kernel twice" -- "$bin" header --kernel copy --kernel saxpy
contains "$tmp/err" "option '--kernel' given twice" "header names the repeated option"
[ ! -s "$tmp/out" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: header --kernel twice wrote a header"; }
expect 64 "header -o twice" -- "$bin" header --kernel copy -o "$tmp/a.h" --output "$tmp/b.h"
[ ! -e "$tmp/a.h" ] && [ ! -e "$tmp/b.h" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: header -o twice wrote a file"; }
expect 64 "header --templates twice" -- "$bin" header --kernel copy -t "$src/templates" -t "$src/templates"
expect 0 "header --version" -- "$bin" header --version
contains "$tmp/out" "autotune 0.1.0 (built with CUDA" "header --version names the build"
expect 0 "header --quiet" -- "$bin" header --kernel copy --quiet
contains "$tmp/out" "ATUNE_TEMPLATE_COPY_H" "header --quiet still writes the header"
expect 64 "header unknown option" -- "$bin" header --kernel copy --json
head -1 "$tmp/err" | grep -q "^autotune: error: unknown option '--json'" && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL: header's usage error does not come first, as main's"; }

# Bad template directory: file:line message, exit 65.
mkdir -p "$tmp/bad"
printf '[template]\nkernel = k\n' >"$tmp/bad/t.ini"
printf 'extern "C" __global__ void k() {}\n' >"$tmp/bad/t.cu"
expect 65 "broken template" -- "$bin" list --templates "$tmp/bad"
contains "$tmp/err" "t.ini:" "broken template message has the file"
expect 66 "missing template directory" -- "$bin" list --templates "$tmp/none"

# Bad profile: exit 65 with file:line.
printf '[device]\nformat = 1\nname = x\ncc = 90\nsm_count = abc\n' >"$tmp/p.ini"
expect 65 "show malformed profile" -- "$bin" show "$tmp/p.ini"
contains "$tmp/err" "p.ini:5" "malformed profile message has file:line"
expect 66 "show missing profile" -- "$bin" show "$tmp/nope.ini"

# Tuning: 69 and one line naming the cause where there is no GPU or
# driver; on a GPU machine this part is covered by the GPU tests.
if ! nvidia-smi -L >/dev/null 2>&1; then
  expect 69 "tune without GPU" -- "$bin" --device 0 --kernel copy --profile-dir "$tmp/prof"
  contains "$tmp/err" "no CUDA" "no-GPU message names the cause"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: no-GPU message is not one line"; }
  [ ! -e "$tmp/prof" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: no-GPU run created files"; }
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
