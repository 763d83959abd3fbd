#!/usr/bin/env bash
# The generated header compiles for every manifest the loader accepts
# (issue 30): N random manifests (seeded, so a failure can be replayed
# with ATUNE_HEADER_SEED) whose parameter and size-variable names are
# drawn from C's keywords and its headers' macros (NULL, SIZE_MAX, errno,
# typeof, linux, ...) and random identifiers, whose template names differ
# only in '-' and '_', in a directory whose name holds "*/", with
# constraints of random operators and no parentheses. Every manifest that
# `autotune list` loads must give a header that compiles alone and beside
# the C headers that define those macros, with -std=c17 and -std=gnu17
# (where linux and unix are macros), -Wall -Wextra -Werror; and all the
# headers of one run compile together in one file (distinct C names).
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
n=${ATUNE_HEADER_CASES:-200}
seed=${ATUNE_HEADER_SEED:-30}
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "no C compiler: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RANDOM=$seed

pool=(NULL SIZE_MAX linux unix typeof errno assert EOF INT64_MAX INT_MAX
      PRId64 UINT32_C stdin EINVAL I NDEBUG offsetof complex noreturn bool
      i386 RAND_MAX CHAR_BIT EXIT_SUCCESS NULL_ errno_ BLOCK_SIZE VW n m k
      tile_x Tile_Y x1 a_ b__c do int for)
ops=('+' '-' '*' '<' '<=' '>' '>=' '==' '!=' '&' '|' '^' '&&' '||' '%')
pick() { local -n arr=$1; printf '%s\n' "${arr[RANDOM % ${#arr[@]}]}"; }
ident() {
    local s=${letters:RANDOM % 52:1} len=$((RANDOM % 6))
    for ((c = 0; c < len; c++)); do s+=${chars:RANDOM % 63:1}; done
    echo "$s"
}
letters=abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ
chars=${letters}0123456789_

dir="$tmp/a*/b"
mkdir -p "$dir"
accepted=0 refused=0 fail=0
all="$tmp/all.c"
: >"$all"
for ((i = 0; i < n; i++)); do
    case $((i % 4)) in
    0) name="k$i-x" ;; 1) name="k$((i - 1))_x" ;; 2) name="k$((i - 2))__x" ;; 3) name="k$i" ;;
    esac
    t="$dir/$i"
    mkdir -p "$t"
    # names: parameters and size variables distinct
    declare -A used=()
    params=() vars=()
    np=$((1 + RANDOM % 4)) nv=$((1 + RANDOM % 2))
    while [ ${#params[@]} -lt "$np" ]; do
        if ((RANDOM % 2)); then p=$(pick pool); else p=$(ident); fi
        [ -n "${used[$p]:-}" ] && continue
        used[$p]=1; params+=("$p")
    done
    while [ ${#vars[@]} -lt "$nv" ]; do
        if ((RANDOM % 2)); then p=$(pick pool); else p=$(ident); fi
        [ -n "${used[$p]:-}" ] && continue
        used[$p]=1; vars+=("$p")
    done
    unset used
    names=("${params[@]}" "${vars[@]}")
    operand() {
        if ((RANDOM % 3)); then printf '%s\n' "${names[RANDOM % ${#names[@]}]}"
        else echo $((1 + RANDOM % 9)); fi
    }
    {
        echo "[template]"
        echo "kernel = copy_tuned"
        echo "reference = copy_ref"
        echo "reference_block = 256"
        echo "reference_grid = cdiv(${vars[0]}, 256)"
        echo "metric = GB/s"
        echo "work = 8 * ${vars[0]}"
        echo "[sizes]"
        s="small ="
        for v in "${vars[@]}"; do s+=" $v=$((64 + RANDOM % 4096)),"; done
        echo "${s%,}"
        echo "[params]"
        for p in "${params[@]}"; do
            echo "$p = $((1 + RANDOM % 8)), $((9 + RANDOM % 8))"
        done
        echo "[constraints]"
        for ((c = 0; c < 1 + RANDOM % 3; c++)); do
            e=$(operand)
            for ((o = 0; o < 1 + RANDOM % 4; o++)); do
                op=$(pick ops)
                r=$(operand)
                case $op in '%') r=$((1 + RANDOM % 9)) ;; esac
                e+=" $op $r"
            done
            if ((RANDOM % 4 == 0)); then e="$e ? 2 : 3"; fi
            echo "c$c = $e"
        done
        echo "[launch]"
        echo "block = 128"
        echo "grid = cdiv(${vars[0]}, 128)"
        echo "shared = 0"
        echo "[args]"
        echo "in = int[${vars[0]}] input"
        echo "out = int[${vars[0]}] output"
        echo "len = long ${vars[0]}"
    } >"$t/$name.ini"
    cp "$src/tests/data/templates_bad/control/control.cu" "$t/$name.cu"
    if ! "$bin" list --templates "$t" >"$t/list.out" 2>&1; then
        refused=$((refused + 1)); [ -n "${ATUNE_HEADER_VERBOSE:-}" ] && head -1 "$t/list.out"
        continue
    fi
    accepted=$((accepted + 1))
    if ! "$bin" header --kernel "$name" --templates "$t" -o "$t/h.h" 2>"$t/err"; then
        fail=$((fail + 1)); echo "FAIL: header of case $i:"; cat "$t/err"; continue
    fi
    printf '#include <assert.h>\n#include <errno.h>\n#include <inttypes.h>\n#include <limits.h>\n#include <stdbool.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include "h.h"\n' >"$t/with.c"
    printf '#include "h.h"\n' >"$t/alone.c"
    for std in c17 gnu17; do
        for f in alone with; do
            if ! "$cc" -std=$std -Wall -Wextra -Werror -c "$t/$f.c" -o "$t/$f.o" 2>"$t/cc.err"; then
                fail=$((fail + 1))
                echo "FAIL: case $i ($name, -std=$std, $f.c) does not compile:"
                head -12 "$t/cc.err"; sed 's/^/    /' "$t/$name.ini"
                continue 3
            fi
        done
    done
    printf '#include "%s/h.h"\n' "$t" >>"$all"
done
if ! "$cc" -std=c17 -Wall -Wextra -Werror -c "$all" -o "$tmp/all.o" 2>"$tmp/all.err"; then
    fail=$((fail + 1)); echo "FAIL: the headers do not compile together:"; head -12 "$tmp/all.err"
fi
echo "$n manifests: $accepted loaded (their headers checked), $refused refused by the loader, $fail failures"
# Most must load, or the test checks little.
[ $((accepted * 2)) -ge "$n" ] || { echo "FAIL: fewer than half loaded"; fail=$((fail + 1)); }
[ "$fail" -eq 0 ]
