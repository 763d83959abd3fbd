#!/usr/bin/env bash
# Runs the shell examples of README.md and docs/*.md, so that what the
# documentation shows works. An example is a fenced block whose info
# string starts with sh:
#
#   ```sh         needs no GPU: run here (ctest cpu.docs_examples, CI)
#   ```sh gpu     needs a GPU: run only with --gpu (tests/gpu.sh STEPS=docs)
#   ```sh norun   shown, never run (the text says why: the test command
#                 itself, a Slurm script, ...)
#
# Indented blocks (syntax, sample output) and other languages are not run.
# Each page runs as one bash script, its examples in order (a later
# example may use the files of an earlier one), with `set -e -o pipefail`,
# in a sandbox that looks like the repository root: links to the source
# tree, a copy of profiles/, build/release -> the build under test, HOME
# and the module cache in the sandbox, autotune first in PATH. The first
# failing example ends its page with FILE:LINE.
#
#   tests/docs_examples.sh [--gpu] [--list] [FILE.md...]
#
# ATUNE_BINARY (set by ctest) is the autotune to run; its folder is the
# build under test.
set -u
src=${ATUNE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
gpu=0 list=0
pages=()
for a in "$@"; do
  case $a in
    --gpu) gpu=1 ;;
    --list) list=1 ;;
    *) pages+=("$a") ;;
  esac
done
[ ${#pages[@]} -eq 0 ] && pages=("$src/README.md" "$src"/docs/*.md)

# extract PAGE: the page's runnable examples as one script on stdout,
# each preceded by the line that names it; "#count N" at the end.
extract() {
  awk -v gpu="$gpu" -v page="${1#"$src"/}" '
    /^```/ {
      if (!inblock) {
        inblock = 1; run = 0; split(substr($0, 4), w, /[ \t]+/)
        if (w[1] != "sh" && w[1] != "bash") next
        if (w[2] != "" && w[2] != "gpu" && w[2] != "norun") {
          printf "echo \"%s:%d: unknown example tag %s\" >&2; false\n", page, NR, w[2]
          next
        }
        run = w[2] == "" || (w[2] == "gpu" && gpu == 1)
        if (run) {
          n++
          printf "ATUNE_DOC_AT=%s:%d\n", page, NR
          printf "echo \"--- $ATUNE_DOC_AT\"\n"
        }
        next
      }
      inblock = 0; run = 0; next
    }
    inblock && run { print }
    END { printf "#count %d\n", n }
  ' "$1"
}

if [ "$list" = 1 ]; then
  for p in "${pages[@]}"; do
    printf '%s: %s examples\n' "$p" "$(extract "$p" | sed -n 's/^#count //p')"
  done
  exit 0
fi

bin=${ATUNE_BINARY:?run through ctest, or set ATUNE_BINARY}
builddir=$(cd "$(dirname "$bin")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The sandbox: the repository root as the examples expect it.
box=$tmp/repo
mkdir -p "$box/build" "$tmp/home" "$tmp/bin"
for e in "$src"/* "$src"/.ci; do
  name=$(basename "$e")
  case $name in build | profiles) ;; *) ln -s "$e" "$box/$name" ;; esac
done
cp -r "$src/profiles" "$box/profiles"
ln -s "$builddir" "$box/build/release"
ln -s "$bin" "$tmp/bin/autotune"

# run_page PAGE: its examples in the sandbox; 0 when all pass. The number
# run goes to $tmp/count, the output to $tmp/out.
run_page() {
  extract "$1" >"$tmp/page.sh"
  sed -n 's/^#count //p' "$tmp/page.sh" >"$tmp/count"
  {
    echo 'set -eEo pipefail'
    echo 'trap '"'"'echo "docs example failed at $ATUNE_DOC_AT (exit $?)" >&2'"'"' ERR'
    cat "$tmp/page.sh"
  } >"$tmp/run.sh"
  (cd "$box" && HOME=$tmp/home ATUNE_CACHE_DIR=$tmp/cache XDG_DATA_HOME= \
    PATH="$tmp/bin:$PATH" bash "$tmp/run.sh") >"$tmp/out" 2>&1
}

# The check can fail: a planted page whose second example fails is
# reported at that example's line, and a block of an unknown tag fails.
printf '# t\n\n```sh\ntrue\n```\n\n```sh\nfalse\n```\n\n```sh gpu\nfalse\n```\n' >"$tmp/planted.md"
if [ "$gpu" = 0 ] && { run_page "$tmp/planted.md" || ! grep -q 'failed at .*planted.md:7' "$tmp/out"; }; then
  echo "FAIL the planted failing example was not reported at planted.md:7"; cat "$tmp/out"; exit 1
fi
printf '```sh gpux\ntrue\n```\n' >"$tmp/planted.md"
if run_page "$tmp/planted.md"; then
  echo "FAIL an unknown example tag was not refused"; exit 1
fi
rm -rf "$tmp/home" "$tmp/cache" && mkdir -p "$tmp/home"

total=0 failed=0
for p in "${pages[@]}"; do
  if run_page "$p"; then
    [ "$(cat "$tmp/count")" -gt 0 ] && echo "ok   $p ($(cat "$tmp/count") examples)"
  else
    failed=$((failed + 1))
    echo "FAIL $p"
    tail -30 "$tmp/out" | sed 's/^/  /'
  fi
  total=$((total + $(cat "$tmp/count")))
done
echo "$total examples run, $failed pages failed"
[ "$total" -gt 0 ] && [ "$failed" -eq 0 ]
