#!/usr/bin/env bash
# The adversarial table: every row of tests/data/adversarial.tsv is one bad
# input or misuse with the exit status and message it must give. Columns,
# separated by tabs:
#   name  exit  regex  command  [xfail REASON | skip REASON]
# command runs with bash in a fresh empty directory, limited to 60 s; regex
# (grep -E, '-' for none) must match its stdout+stderr. Variables:
#   $AT     the autotune binary          $DATA   tests/data
#   $STUB   env prefix: the stub driver (tests/stubdrv), one fake GPU
#   $NOGPU  env prefix: the stub driver with no GPU
# An xfail row documents a case not fixed yet: it is run and reported, and
# fails the table only when it starts to pass (then drop the xfail).
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
stubdir=${ATUNE_STUB_DRIVER_DIR:-}
table=${1:-$src/tests/data/adversarial.tsv}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export AT=$bin DATA=$src/tests/data
export STUB="env LD_LIBRARY_PATH=$stubdir ATUNE_CACHE_DIR=${ATUNE_CACHE_DIR:-$tmp/cache}"
export NOGPU="env LD_LIBRARY_PATH=$stubdir ATUNE_STUB_GPUS=0"
pass=0 fail=0 xfail=0 skip=0 n=0

while IFS=$'\t' read -r name want regex cmd note; do
    case "$name" in '' | '#'*) continue ;; esac
    n=$((n + 1))
    case "${note:-}" in skip*) skip=$((skip + 1)); continue ;; esac
    if [ -z "$stubdir" ] && [[ "$cmd" == *'$STUB'* || "$cmd" == *'$NOGPU'* ]]; then
        skip=$((skip + 1)); continue
    fi
    dir=$tmp/$n
    mkdir -p "$dir"
    (cd "$dir" && timeout -k 5 60 bash -c "$cmd") >"$dir.out" 2>&1
    got=$?
    ok=1
    [ "$got" -eq "$want" ] || ok=0
    if [ "$regex" != "-" ] && ! grep -Eq -- "$regex" "$dir.out"; then ok=0; fi
    case "${note:-}" in
    xfail*)
        if [ $ok -eq 1 ]; then
            fail=$((fail + 1))
            echo "XPASS: $name (now passes: drop its xfail)"
        else
            xfail=$((xfail + 1))
        fi ;;
    *)
        if [ $ok -eq 1 ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL: $name: exit $got (want $want), output:"
            sed 's/^/    /' "$dir.out" | head -8
            echo "    want /$regex/ from: $cmd"
        fi ;;
    esac
done <"$table"

echo "$n cases: $pass passed, $fail failed, $xfail expected failures, $skip skipped"
[ "$fail" -eq 0 ]
