#!/usr/bin/env bash
# kt2journal.sh -- converts a Kernel Tuner brute-force cache (JSON, or
# gzip'ed JSON, as in AutoTuningAssociation/benchmark_hub) into an autotune
# results journal (docs/formats.md, "Journal"), for `tune --simulate` and
# tests/eval_strategies.c.
#
#   kt2journal.sh AUTOTUNE TEMPLATE_DIR NAME CACHE WORK DEVICE [MAP] > OUT
#
# AUTOTUNE is the autotune binary; TEMPLATE_DIR/NAME.ini the manifest of
# the cache's space (a cache parameter that the manifest leaves out must
# have one value in the cache); its first size is the size of the journal.
# MAP names the cache's parameter of each manifest parameter, as
# "BX=block_size_x,BY=block_size_y"; a parameter not in MAP has its own
# name, or its name in lower case. DEVICE goes into the "# run:" line. WORK is the work of one launch in the manifest's unit
# (flops or bytes), for the metric column. Per configuration: time_ns is
# the median of the cache's "times" (Kernel Tuner's "time" is their mean),
# spread_ns their interquartile range, samples their count. Failures map
# to autotune's statuses: CompilationFailedConfig -> compile_error,
# RuntimeFailedConfig -> launch_error, InvalidConfig -> invalid, the
# original name in the detail column. A cache line that is not a
# configuration of the manifest's space, or a configuration missing a
# parameter, stops the conversion (exit 65).
set -eu
if [ $# -lt 6 ]; then
    sed -n '2,25p' "$0" >&2
    exit 64
fi
bin=$1 dir=$2 name=$3 cache=$4 work=$5 device=$6 map=${7:-}
info=$("$bin" list --templates "$dir" --kernel "$name" --json | tr -d ' \n')
hash=$(printf '%s' "$info" | sed -n 's/.*"template_hash":"\([0-9a-f]*\)".*/\1/p')
params=$(printf '%s' "$info" | sed -n 's/.*"params":{\([^}]*\)}.*/\1/p' |
    sed 's/:\[[^]]*\]//g; s/"//g')
size=$(printf '%s' "$info" | sed -n 's/.*"sizes":\[{[^}]*"size":"\([^"]*\)".*/\1/p')
[ -n "$hash" ] && [ -n "$params" ] && [ -n "$size" ] || {
    echo "kt2journal: $dir/$name.ini: no template_hash, params or size" >&2
    exit 65
}
case $cache in
*.gz) cat_cache() { gzip -dc "$cache"; } ;;
*) cat_cache() { cat "$cache"; } ;;
esac
echo "# autotune journal, format 1: kernel size config status time_ns spread_ns metric samples template_hash detail"
echo "# run: converted from Kernel Tuner cache $(basename "$cache") device=\"$device\" tuner=kt2journal"
cat_cache | awk -v name="$name" -v size="$size" -v hash="$hash" \
    -v params="$params" -v map="$map" -v work="$work" -v src="$cache" '
function fail(msg) { printf "kt2journal: %s:%d: %s\n", src, NR, msg > "/dev/stderr"; bad = 1; exit 65 }
# The value of "key": in line s (a number or a quoted string).
function field(s, key,    i, rest) {
    i = index(s, "\"" key "\": ")
    if (!i) return ""
    rest = substr(s, i + length(key) + 4)
    if (substr(rest, 1, 1) == "\"") { rest = substr(rest, 2); return substr(rest, 1, index(rest, "\"") - 1) }
    match(rest, /^[-+0-9.eE]+/)
    return substr(rest, 1, RLENGTH)
}
# Sorts the "times" array of s into x[1..n]; returns n.
function times(s, x,    i, rest, n, j, k, v) {
    i = index(s, "\"times\": [")
    if (!i) return 0
    rest = substr(s, i + 10)
    rest = substr(rest, 1, index(rest, "]") - 1)
    n = split(rest, x, /, */)
    for (j = 2; j <= n; j++) {
        v = x[j] + 0
        for (k = j - 1; k >= 1 && x[k] + 0 > v; k--) x[k + 1] = x[k]
        x[k + 1] = v
    }
    return n
}
# Linear-interpolated quantile q of the sorted x[1..n].
function quantile(x, n, q,    p, lo) {
    p = q * (n - 1) + 1
    lo = int(p)
    return lo < n ? x[lo] + (p - lo) * (x[lo + 1] - x[lo]) : x[lo]
}
BEGIN {
    np = split(params, pn, ",")
    nm = split(map, mp, ",")
    for (i = 1; i <= nm; i++) {
        eq = index(mp[i], "=")
        kt[substr(mp[i], 1, eq - 1)] = substr(mp[i], eq + 1)
    }
}
/^"cache": \{/ { incache = 1; next }
incache && /^"[^"]*": \{/ {
    cfg = ""
    for (p = 1; p <= np; p++) {
        k = pn[p] in kt ? kt[pn[p]] : pn[p]
        v = field($0, k)
        if (v == "") v = field($0, tolower(k))
        if (v == "") fail("no parameter " k " for " pn[p])
        cfg = cfg (p > 1 ? "," : "") pn[p] "=" v
    }
    t = field($0, "time")
    if (t == "") fail("no time")
    if (t ~ /^[-+0-9.eE]+$/) {
        n = times($0, x)
        med = n ? quantile(x, n, 0.5) : t
        iqr = n ? quantile(x, n, 0.75) - quantile(x, n, 0.25) : 0
        ns = med * 1e6
        printf "%s\t%s\t%s\tok\t%.0f\t%.0f\t%.1f\t%d\t%s\t\n", name, size, cfg, ns, iqr * 1e6, work / ns, n, hash
    } else {
        st = t == "CompilationFailedConfig" ? "compile_error" : t == "RuntimeFailedConfig" ? "launch_error" : t == "InvalidConfig" ? "invalid" : ""
        if (st == "") fail("unknown failure \"" t "\"")
        printf "%s\t%s\t%s\t%s\t0\t0\t0\t0\t%s\t%s\n", name, size, cfg, st, hash, t
    }
    count++
}
END { if (!bad && !count) fail("no configuration"); if (!bad) printf "# done: %d configurations\n", count }
'
