#!/usr/bin/env bash
# autotune compare: the text table, the JSON document and the HTML report
# of the test profiles in tests/data/compare (hand-written test data), the
# committed profiles, and bad usage and bad input.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
data=$src/tests/data/compare
a=$data/test-gpu-a.ini b=$data/test-gpu-b.ini c=$data/test-gpu-c.ini
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
# has FILE REGEX DESCRIPTION
has() { grep -Eq -- "$2" "$1" && ok || { ko "$3: /$2/ not in $(basename "$1")"; head -40 "$1" | sed 's/^/  /'; }; }
hasnt() { grep -Eq -- "$2" "$1" && ko "$3: /$2/ in $(basename "$1")" || ok; }

# --- text ------------------------------------------------------------------
"$bin" compare "$a" "$b" "$c" >"$tmp/out.txt" 2>"$tmp/err"
[ $? -eq 0 ] && ok || { ko "compare exit"; cat "$tmp/err"; }
[ ! -s "$tmp/err" ] && ok || ko "compare wrote to stderr"
# One group per (kernel, size) in any profile; matmul's two spellings of
# one size are one row.
has "$tmp/out.txt" '^copy +n=268435456 +Test GPU A ' "copy large row"
has "$tmp/out.txt" '^copy +n=1048576 +Test GPU A ' "copy small row"
has "$tmp/out.txt" '^matmul +m=4096,n=4096,k=4096 +Test GPU A ' "matmul row"
[ "$(grep -c '^matmul ' "$tmp/out.txt")" -eq 1 ] && ok || ko "matmul size spelt two ways is not one row"
# The entry B lacks is shown, not dropped.
grep -A1 '^copy +n=1048576' -E "$tmp/out.txt" | tail -1 >"$tmp/line"
has "$tmp/line" 'Test GPU B +missing$' "missing entry shown as missing"
# Parameters that differ are starred, the others not.
has "$tmp/out.txt" 'BLOCK_SIZE=128\*,VW=4\*,UNROLL=1,GRID=0' "differing params starred (A)"
has "$tmp/out.txt" 'BLOCK_SIZE=256\*,VW=4\*,UNROLL=1,GRID=0' "differing params starred (B)"
has "$tmp/out.txt" 'BM=128\*,BN=128,BK=8' "matmul BM starred, BN not"
has "$tmp/out.txt" 'BLOCK_SIZE=128,VW=4,UNROLL=4,GRID=0 ' "single-GPU row has no stars"
# Metric, fraction of peak, speedup over the default; '-' without a peak.
has "$tmp/out.txt" 'Test GPU A +BLOCK_SIZE=128.* 4295\.0 GB/s +89\.5% +2\.50x +1\.02x cudaMemcpy' "copy A metric, peak, speedup, vendor"
has "$tmp/out.txt" 'Test GPU "C" <&> +BLOCK_SIZE=128.* 1073\.7 GB/s +- +1\.20x' "no bandwidth: peak is -"
has "$tmp/out.txt" '42004\.5 GFLOP/s +70\.0% +5\.20x' "GFLOP/s over fp32_gflops"
has "$tmp/out.txt" '40000\.0 GFLOP/s +- +5\.01x' "no fp32_gflops: peak is -"
# Portability matrix: [tuned on A][run on B] comes from B's profile.
has "$tmp/out.txt" '^ +Test GPU A +100\.0% +90\.0% +-$' "copy matrix row A"
has "$tmp/out.txt" '^ +Test GPU B +96\.2% +100\.0% +-$' "copy matrix row B"
has "$tmp/out.txt" '^ +Test GPU A +100\.0% +85\.9% +-$' "matmul percent derived from the times"

# --- JSON ------------------------------------------------------------------
"$bin" compare --json "$a" "$b" "$c" >"$tmp/out.json" 2>"$tmp/err"
[ $? -eq 0 ] && ok || { ko "compare --json exit"; cat "$tmp/err"; }
python3 - "$tmp/out.json" <<'PY' && ok || ko "compare --json contents"
import json, sys
d = json.load(open(sys.argv[1]))
assert [g["slug"] for g in d["gpus"]] == ["test-gpu-a", "test-gpu-b", "test-gpu-c"]
assert d["gpus"][0]["mem_bandwidth_gbs"] == 4800 and d["gpus"][1]["fp32_gflops"] is None
rows = {(r["kernel"], r["size"]): r for r in d["rows"]}
assert set(rows) == {("copy", "n=268435456"), ("copy", "n=1048576"),
                     ("matmul", "m=4096,n=4096,k=4096")}, rows.keys()
big = rows[("copy", "n=268435456")]
assert big["differs"] == ["BLOCK_SIZE", "VW"], big["differs"]
a, b, c = big["gpus"]
assert a["params"] == {"BLOCK_SIZE": 128, "VW": 4, "UNROLL": 1, "GRID": 0}
assert a["time_ns"] == 500000 and a["default_time_ns"] == 1250000
assert a["metric"] == 4295 and a["unit"] == "GB/s"
assert abs(a["peak_fraction"] - 4295 / 4800) < 1e-9 and a["peak"] == "memory bandwidth"
assert a["speedup"] == 2.5 and a["vendor"] == "cudaMemcpy" and a["vendor_time_ns"] == 510000
assert c["peak_fraction"] is None and c["peak"] is None
p = big["portability"]["percent"]
assert p == [[100, 90.0, None], [96.2, 100, None], [None, None, 100]], p
m = {(x["tuned_on"], x["run_on"]): x for x in big["portability"]["measured"]}
assert m[("Test GPU A", "Test GPU B")]["config"] == "BLOCK_SIZE=128,VW=4,UNROLL=1,GRID=0"
assert m[("Test GPU A", "Test GPU B")]["time_ns"] == 800000
small = rows[("copy", "n=1048576")]
assert [g["missing"] for g in small["gpus"]] == [False, True, True]
assert small["differs"] == []
mm = rows[("matmul", "m=4096,n=4096,k=4096")]
assert mm["gpus"][1]["vendor"] == "cuBLAS <13>"
assert abs(mm["portability"]["percent"][0][1] - 85.9) < 1e-9
assert mm["portability"]["percent"][2][2] is None  # C lacks matmul
PY

# --- HTML ------------------------------------------------------------------
"$bin" compare --html "$tmp/r.html" "$a" "$b" "$c" >"$tmp/out2.txt" 2>"$tmp/err"
[ $? -eq 0 ] && ok || { ko "compare --html exit"; cat "$tmp/err"; }
cmp -s "$tmp/out.txt" "$tmp/out2.txt" && ok || ko "--html changed the text table"
[ -s "$tmp/r.html" ] && ok || ko "no HTML report"
has "$tmp/r.html" '<svg' "report has inline SVG"
has "$tmp/r.html" '<style>' "report has inline CSS"
hasnt "$tmp/r.html" '<script' "report has a script"
hasnt "$tmp/r.html" 'http' "report refers to the network"
hasnt "$tmp/r.html" '<&>|<13>' "unescaped text from a profile"
has "$tmp/r.html" 'Test GPU &quot;C&quot; &lt;&amp;&gt;' "GPU name escaped"
has "$tmp/r.html" 'cuBLAS &lt;13&gt;' "vendor name escaped"
has "$tmp/r.html" 'portability matrix' "report has the heat map"
has "$tmp/r.html" '<mark>BLOCK_SIZE=128</mark>' "differing params marked"
has "$tmp/r.html" 'class="missing"' "missing entries shown"
ls "$tmp" | grep -q '\.tmp\.' && ko "temp file left behind" || ok
python3 - "$tmp/r.html" <<'PY' && ok || ko "report is not well-formed"
import sys
from html.parser import HTMLParser
void = {"meta", "br", "rect", "line", "path"}
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []
    def handle_starttag(s, t, a):
        if t not in void: s.stack.append(t)
    def handle_startendtag(s, t, a): pass
    def handle_endtag(s, t):
        if t in void: return
        assert s.stack and s.stack[-1] == t, (t, s.stack[-3:])
        s.stack.pop()
p = P(); p.feed(open(sys.argv[1]).read()); p.close()
assert not p.stack, p.stack
PY

# The committed profiles: every one of their sections gets a row.
if ls "$src"/profiles/*.ini >/dev/null 2>&1; then
  "$bin" compare --json "$src"/profiles/*.ini >"$tmp/prof.json" 2>"$tmp/err"
  [ $? -eq 0 ] && ok || { ko "compare profiles/*.ini"; cat "$tmp/err"; }
  python3 - "$tmp/prof.json" "$src"/profiles/*.ini <<'PY' && ok || ko "profiles/*.ini rows"
import json, re, sys
d = json.load(open(sys.argv[1]))
want = set()
for f in sys.argv[2:]:
    for m in re.finditer(r"^\[(\S+) (\S+)\]", open(f).read(), re.M):
        want.add(m.group(1))
got = {r["kernel"] for r in d["rows"]}
assert got == want, (got, want)
# Every section at least as fast as the default: the default is timed
# beside the final candidates, in the same rounds.
for r in d["rows"]:
    for g in r["gpus"]:
        assert g["missing"] or g["speedup"] >= 1, r
PY
fi

# --- usage and bad input ---------------------------------------------------
"$bin" compare >/dev/null 2>"$tmp/err"
[ $? -eq 64 ] && ok || ko "compare without files is not 64"
"$bin" compare --html >/dev/null 2>&1
[ $? -eq 64 ] && ok || ko "--html without a value is not 64"
"$bin" show --html "$tmp/x.html" "$a" >/dev/null 2>&1
[ $? -eq 64 ] && ok || ko "--html on show is not 64"
"$bin" compare "$a" "$tmp/none.ini" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 66 ] && ok || ko "missing profile is not 66"
has "$tmp/err" 'none\.ini' "missing profile named"
[ ! -s "$tmp/out" ] && ok || ko "missing profile still printed a table"
for f in "$src"/tests/data/profiles_bad/non_numeric.ini \
         "$src"/tests/data/profiles_bad/dup_key.ini \
         "$src"/tests/data/profiles_bad/long_line.ini; do
  "$bin" compare --html "$tmp/bad.html" "$a" "$f" >"$tmp/out" 2>"$tmp/err"
  [ $? -eq 65 ] && ok || ko "$(basename "$f") is not 65"
  has "$tmp/err" "$(basename "$f"):[0-9]+:" "$(basename "$f") message has file:line"
  [ ! -e "$tmp/bad.html" ] && ok || ko "report written despite a bad profile"
done
# Keys compare reads and the library does not: refused with file:line.
sed 's/^port.test-gpu-a.percent = 90.0/port.test-gpu-a.percent = ninety/' \
  "$b" >"$tmp/badport.ini"
"$bin" compare "$a" "$tmp/badport.ini" >/dev/null 2>"$tmp/err"
[ $? -eq 65 ] && ok || ko "bad port percent is not 65"
has "$tmp/err" "badport\.ini:$(grep -n 'percent = ninety' "$tmp/badport.ini" | cut -d: -f1): bad number 'ninety'" "bad port percent has file:line"
sed 's/^mem_bandwidth_gbs = 4800/mem_bandwidth_gbs = fast/' "$a" >"$tmp/badbw.ini"
"$bin" compare "$tmp/badbw.ini" >/dev/null 2>"$tmp/err"
[ $? -eq 65 ] && ok || ko "bad mem_bandwidth_gbs is not 65"
has "$tmp/err" 'badbw\.ini:12:' "bad mem_bandwidth_gbs has file:line"
# A failed run leaves an existing report as it was.
echo old >"$tmp/keep.html"
"$bin" compare --html "$tmp/keep.html" "$a" "$tmp/badbw.ini" >/dev/null 2>&1
[ "$(cat "$tmp/keep.html")" = old ] && ok || ko "failed run replaced the report"
# A report that cannot be written: 73.
"$bin" compare --html "$tmp/no/such/dir/r.html" "$a" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 73 ] && ok || ko "unwritable report is not 73"
[ ! -s "$tmp/out" ] && ok || ko "unwritable report still printed a table"
mkdir "$tmp/isdir.html"
"$bin" compare --html "$tmp/isdir.html" "$a" >/dev/null 2>"$tmp/err"
[ $? -eq 73 ] && ok || ko "report over a directory is not 73"
ls "$tmp" | grep -q '\.tmp\.' && ko "temp file left after a failed rename" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
