#!/usr/bin/env bash
# check_merge.sh MERGED.ini IN.ini...: whether MERGED holds every
# (kernel, size) section of every input, each with the fastest input's
# configuration and recorded time_ns (merge by recorded time). Prints what
# is wrong and exits 1, or says how many sections it checked and exits 0.
set -u
[ $# -ge 2 ] || { echo "usage: check_merge.sh MERGED.ini IN.ini..." >&2; exit 64; }
merged=$1
shift
for f in "$merged" "$@"; do
    [ -r "$f" ] || { echo "check_merge: cannot read $f"; exit 1; }
done
awk -v merged="$merged" '
function flush() {
    if (sec == "") return
    if (FILENAME_PREV == merged) { mc[sec] = cfg; mt[sec] = t; return }
    if (!(sec in bt) || t + 0 < bt[sec] + 0) { bt[sec] = t; bc[sec] = cfg; bf[sec] = FILENAME_PREV }
    else if (t + 0 == bt[sec] + 0 && cfg != bc[sec]) bc[sec] = bc[sec] "|" cfg
}
FNR == 1 { flush(); sec = ""; FILENAME_PREV = FILENAME }
/^\[/ {
    flush()
    sec = substr($0, 2, length($0) - 2); cfg = ""; t = ""
    if (sec == "device") sec = ""
    next
}
sec != "" && /^[A-Z][A-Za-z0-9_]* = / { split($0, kv, " = "); cfg = cfg kv[1] "=" kv[2] "," }
sec != "" && /^param\./ { split($0, kv, " = "); cfg = cfg kv[1] "=" kv[2] "," }
sec != "" && /^time_ns = / { split($0, kv, " = "); t = kv[2] }
END {
    flush()
    bad = 0; n = 0
    for (s in bt) {
        n++
        if (!(s in mc)) { print "check_merge: [" s "] is missing from " merged; bad = 1; continue }
        split(bc[s], alts, "|"); hit = 0
        for (i in alts) if (alts[i] == mc[s]) hit = 1
        if (!hit || mt[s] + 0 != bt[s] + 0) {
            print "check_merge: [" s "] keeps " mc[s] " (" mt[s] " ns), not the fastest " bc[s] " (" bt[s] " ns, " bf[s] ")"
            bad = 1
        }
    }
    for (s in mc) if (!(s in bt)) { print "check_merge: [" s "] is in no input"; bad = 1 }
    if (n == 0) { print "check_merge: the inputs have no sections"; bad = 1 }
    if (!bad) print "check_merge: " n " sections, each with the fastest input'"'"'s configuration"
    exit bad
}' "$merged" "$@"
