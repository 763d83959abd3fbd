#!/usr/bin/env bash
# gpu_faults.sh -- on a GPU: the planted faults of tests/data/faults (an
# illegal address, a kernel that never ends, a wrong element, a compile
# error, too much shared memory) each end up in the journal with the right
# status while the run goes on and picks the right best configuration; a
# run killed with SIGKILL and started again measures every configuration
# exactly once and chooses what the uninterrupted run chose; Ctrl-C
# (SIGINT) writes the profile and exits 130. Exits 77 without a GPU.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
tmp=$(mktemp -d /tmp/atune-faults-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export ATUNE_CACHE_DIR=$tmp/cache
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# The faults template, brute force. Runs that get signals are started
# directly (not through a function), so that $! is autotune itself.
args=(--device 0 --templates "$src/tests/data/faults" --strategy brute_force
      --launch-timeout 2)
tune() { local dir=$1; shift; "$bin" "${args[@]}" --profile-dir "$dir" "$@"; }

# Records of a journal (final re-measurements left out): config<TAB>status.
records() { awk -F'\t' '!/^#/ && NF >= 9 && $10 != "final" { print $3 "\t" $4 }' "$1"; }

wait_records() { # DIR N: until DIR's journal holds N records (30 s at most)
  for _ in $(seq 600); do
    [ "$(records "$1"/*.journal 2>/dev/null | wc -l)" -ge "$2" ] && return
    sleep 0.05
  done
}

best_of() { # PROFILE: "REPEAT=x MODE=y" of its one section
  awk -F' *= *' '/^\[faults/ { s = 1 } s && /^REPEAT/ { r = $2 } s && /^MODE/ { m = $2 }
                 END { print "REPEAT=" r " MODE=" m }' "$1"
}

# --- 1. every planted fault, one uninterrupted run ---------------------------
start=$(date +%s.%N)
tune "$tmp/a" --json >"$tmp/a.json" 2>"$tmp/a.err"
rc=$?
if [ $rc -eq 69 ]; then echo "skipped: $(tail -1 "$tmp/a.err")"; exit 77; fi
echo "uninterrupted run: exit $rc, $(awk "BEGIN { print $(date +%s.%N) - $start }") s"
[ $rc -eq 0 ] || { fail "run exited $rc"; cat "$tmp/a.err"; }
journal=$(ls "$tmp"/a/*.journal)
records "$journal" | sort >"$tmp/a.rec"
cat "$tmp/a.rec"
want() { # MODE STATUS...: every REPEAT of MODE has one of STATUS
  local mode=$1; shift
  local got
  got=$(awk -F'\t' -v m="MODE=$mode" 'index($1, m) { print $2 }' "$tmp/a.rec" | sort | uniq -c | tr -s ' ')
  local n
  n=$(awk -F'\t' -v m="MODE=$mode" 'index($1, m)' "$tmp/a.rec" | wc -l)
  [ "$n" -eq 3 ] || fail "MODE=$mode: $n records, expected 3"
  for st in $(awk -F'\t' -v m="MODE=$mode" 'index($1, m) { print $2 }' "$tmp/a.rec"); do
    case " $* " in *" $st "*) ;; *) fail "MODE=$mode: status $st, expected $*";; esac
  done
  echo "MODE=$mode:$got"
}
want 0 ok
want 1 fault
want 2 timeout
want 3 wrong_output
want 4 compile_error
want 5 compile_error launch_error invalid
grep -h "restarting the worker" "$tmp/a.err" | head -8
a_best=$(best_of "$tmp"/a/*.ini)
echo "best: $a_best"
[ "$a_best" = "REPEAT=1 MODE=0" ] || fail "best is $a_best, expected REPEAT=1 MODE=0"

# --- 2. SIGKILL in the middle, then the same command again --------------------
"$bin" "${args[@]}" --profile-dir "$tmp/b" --quiet >/dev/null 2>"$tmp/b.err" &
pid=$!
wait_records "$tmp/b" 7
kill -9 $pid
wait $pid 2>/dev/null
before=$(records "$tmp/b/"*.journal | wc -l)
echo "killed with SIGKILL after $before records"
grep -q '^# done' "$tmp/b/"*.journal && fail "a killed run was marked done"
tune "$tmp/b" >/dev/null 2>"$tmp/b2.err"
rc=$?
[ $rc -eq 0 ] || { fail "resumed run exited $rc"; cat "$tmp/b2.err"; }
grep -h "resuming" "$tmp/b2.err"
records "$tmp/b/"*.journal | cut -f1 | sort | uniq -c | awk '$1 != 1 { print "FAIL: " $0 " records" }' | tee "$tmp/dups"
[ -s "$tmp/dups" ] && fail "configurations recorded more than once"
total=$(records "$tmp/b/"*.journal | wc -l)
[ "$total" -eq 18 ] || fail "$total records after resuming, expected 18"
b_best=$(best_of "$tmp"/b/*.ini)
echo "after resume: $total records, best $b_best"
[ "$b_best" = "$a_best" ] || fail "resumed run chose $b_best, uninterrupted $a_best"

# --- 3. Ctrl-C: profile written, exit 130 --------------------------------------
"$bin" "${args[@]}" --profile-dir "$tmp/c" --quiet >/dev/null 2>"$tmp/c.err" &
pid=$!
wait_records "$tmp/c" 4
kill -INT $pid
wait $pid
rc=$?
echo "SIGINT: exit $rc, profile $(ls "$tmp"/c/*.ini 2>/dev/null | wc -l) file(s)"
[ $rc -eq 130 ] || fail "SIGINT gave exit $rc, expected 130"
ls "$tmp"/c/*.ini >/dev/null 2>&1 || fail "no profile after SIGINT"

[ $fails -eq 0 ] && echo "gpu_faults: all checks passed"
exit $((fails > 0))
