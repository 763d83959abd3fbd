#!/usr/bin/env bash
# regret.sh -- how good the library's pick is at sizes nobody tuned (issue
# 12). For each kernel: tune the built-in template at its sizes, ladders
# included (or take PROFILE), draw sizes from a seeded log-uniform
# distribution between the ends of its range (never a size the template
# tunes), brute-force each of them in one run, and compare the time of the
# configuration an application is handed (atune_jit_config_for, through
# regret_pick.c) with that size's own optimum, both from the same
# brute-force pass, and side by side. Prints per size the percent of the
# optimum, per kernel the mean and the worst. Sizes under 2^16 elements
# are launch-latency bound: each reports the optimum's own interquartile
# range and is marked not rankable (left out of the mean and the worst)
# when that is over 2%. Larger sizes whose optimum's IQR is over 2%
# (kernels of 4-10 us: copy up to ~2^24, constmem up to ~1500^2) report
# it too, and count.
#
#   tests/bench/regret.sh [BUILD_DIR]      (default build/gpu; needs a GPU)
#
#   KERNELS=copy,saxpy    kernels (default copy,saxpy,reduce,constmem,matmul)
#   SIZES_1D=20 SIZES_2D=8  untuned sizes per 1-D kernel / per constmem, matmul
#   SEED=12               the draw's seed
#   MATMUL_SHAPES=1       matmul at (m, n, k) shapes, each variable drawn
#                         log-uniform in 64..16384 on its own (issue 36),
#                         SIZES_2D of them, instead of squares
#   PROFILE=file.ini      measure this profile instead of tuning the
#                         templates (e.g. the committed one)
#   DEVICE=0  OUT=dir     GPU ordinal; results (default ./out/regret)
#   DRY_RUN=1             no GPU: draw the sizes, write and parse the
#                         manifests, print the commands, and run the
#                         analysis on JOURNAL (default the recorded H200
#                         journal) against PROFILE (default the committed
#                         H200 profile) at the journal's own sizes.
#
# Ranges drawn from: copy, saxpy, reduce n = 2^12..2^29; constmem squares
# w=h = 256..8192; matmul squares m=n=k = 256..8192.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/gpu}
KERNELS=${KERNELS:-copy,saxpy,reduce,constmem,matmul}
SIZES_1D=${SIZES_1D:-20}
SIZES_2D=${SIZES_2D:-8}
SEED=${SEED:-12}
DEVICE=${DEVICE:-0}
OUT=${OUT:-$PWD/out/regret}
DRY_RUN=${DRY_RUN:-0}
bin=$build/autotune
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$OUT"

die() { echo "regret: $*" >&2; exit 1; }
[ -x "$bin" ] || die "no $bin (build first, or pass the build directory)"

# range KERNEL: "LO|HI|FORM|DIMS": the ends of the sizes drawn, the size
# key of one value X (printf form) and how many variables X stands for in
# the element count.
range() {
  case $1 in
    copy | saxpy | reduce) echo "4096|536870912|n=%d|1" ;;
    constmem) echo "256|8192|w=%d,h=%d|2" ;;
    matmul) echo "256|8192|m=%d,n=%d,k=%d|2" ;;
    *) return 1 ;;
  esac
}

# The sizes the built-in template KERNEL tunes, ladders expanded, one a
# line (the first variable's value: the ranges are of squares).
tuned_points() { # KERNEL
  "$bin" list --kernel "$1" | grep -o '([a-z_]*=[0-9]*' | tr -dc '0-9\n' | sort -n
}

# COUNT sizes log-uniform in (LO, HI), none a tuned size, sorted. The
# generator is Park and Miller's minimal standard, written out: awk's own
# srand(seed) drew other sizes on the GPU machine than here (mawk versions
# differ), and a draw must be the same everywhere. Its products stay under
# 2^53, so a double holds them exactly. Every kernel gets the same sizes.
draw() { # LO HI COUNT SEED POINTSFILE
  awk -v lo="$1" -v hi="$2" -v n="$3" -v seed="$4" '
    function uniform() { state = (state * 16807) % 2147483647; return state / 2147483647 }
    { point[$1] = 1 }
    END {
      state = seed % 2147483646 + 1
      for (i = 0; i < 10; i++) uniform() # a small seed starts with small values
      while (k < n) {
        x = int(exp(log(lo) + uniform() * (log(hi) - log(lo))))
        if (x <= lo || x >= hi || (x in point) || (x in seen)) continue
        seen[x] = 1; k++; print x
      } }' "$5" | sort -n
}

# COUNT (m, n, k) triples "M N K", each value log-uniform in (LO, HI) on
# its own (the same generator as draw), in the order drawn.
draw3() { # LO HI COUNT SEED
  awk -v lo="$1" -v hi="$2" -v n="$3" -v seed="$4" '
    function uniform() { state = (state * 16807) % 2147483647; return state / 2147483647 }
    function value() { return int(exp(log(lo) + uniform() * (log(hi) - log(lo)))) }
    BEGIN {
      state = seed % 2147483646 + 1
      for (i = 0; i < 10; i++) uniform()
      for (j = 0; j < n; j++) { m = value(); nn = value(); k = value(); print m, nn, k }
    }'
}

# A copy of templates/K.ini with its [sizes] replaced by the lines of FILE.
manifest() { # K SIZESFILE DIR
  mkdir -p "$3"
  ln -sf "$root/templates/$1.cu" "$3/$1.cu"
  awk -v sizes="$2" '
    /^\[/ { skip = 0 }
    /^\[sizes\]/ { print; while ((getline l < sizes) > 0) print l; skip = 1; next }
    !skip' "$root/templates/$1.ini" >"$3/$1.ini"
}

# The picks as a profile of a GPU of their own ("library pick"): the
# sections of UNTUNED_INI for the picked sizes, with the pick's values.
# `--evaluate` of it times each pick beside that size's brute-force best in
# interleaved rounds. That is the fair figure: a brute-force journal's
# optimum is the fastest of hundreds of noisy medians, some taken while the
# GPU ran faster for a moment (saxpy n=919,769 on an H200, 2026-11-23: 7168
# ns over 7 samples in the search, 8512 ns when the same configuration was
# timed again with the others at the end).
picks_profile() { # PICKS UNTUNED_INI
  awk -v picks="$1" '
    BEGIN {
      while ((getline l < picks) > 0) {
        split(l, f, " "); if (f[3] != "-") want[f[1] " " f[2]] = f[3]
      }
    }
    /^\[/ {
      sec = substr($0, 2, length($0) - 2)
      split("", val)
      if (sec in want) {
        n = split(want[sec], kv, ",")
        for (i = 1; i <= n; i++) { split(kv[i], p, "="); val[p[1]] = p[2] }
      }
      skip = sec != "device" && !(sec in want)
    }
    /^; end of profile/ { print; next }
    skip || /^port\./ { next }
    sec == "device" && /^name *=/ { print "name = library pick"; next }
    sec == "device" && /^slug *=/ { print "slug = library-pick"; next }
    {
      k = $0; sub(/ *=.*/, "", k)
      if (k in val) { print k " = " val[k]; next }
      print
    }' "$2"
}

# run CMD...: runs it, or prints it in a dry run.
run() {
  if [ "$DRY_RUN" = 1 ]; then echo "would run: $*"; return 0; fi
  "$@"
}

# The analysis: per size the percent of its optimum the pick reaches, per
# kernel the mean and the worst. PICKS has "KERNEL SIZE CONFIG" lines;
# the journal the brute-force records (final re-measurements left out: the
# pick and the optimum come from the same pass). A journal of an older
# template lacks the parameters added since: a pick's parameter that no
# record of its kernel names is left out where it has its first value
# (templates/K.ini), the value that is the older kernel.
analyze() { # PICKS JOURNAL [PAIRED_INI]
  awk -v picks="$1" -v paired="${3:-}" -v inis="$(ls "$root"/templates/*.ini)" '
    function norm(c,   n, a, i, j, t, s) {
      n = split(c, a, ",")
      for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      s = a[1]; for (i = 2; i <= n; i++) s = s "," a[i]
      return s
    }
    function elements(size,   n, a, i, kv, e, v) {
      # n for 1-D, w*h, and m*n for matmul (the output)
      n = split(size, a, ","); e = 1
      for (i = 1; i <= n; i++) { split(a[i], kv, "="); v[kv[1]] = kv[2] }
      if ("n" in v && !("m" in v)) return v["n"]
      if ("w" in v) return v["w"] * v["h"]
      return v["m"] * v["n"]
    }
    function older(k, c,   n, a, i, kv, s) {
      n = split(c, a, ","); s = ""
      for (i = 1; i <= n; i++) {
        split(a[i], kv, "=")
        if (!((k, kv[1]) in named) && first[k, kv[1]] == kv[2]) continue
        s = s (s == "" ? "" : ",") a[i]
      }
      return s
    }
    BEGIN {
      ni = split(inis, ini, "\n")
      for (i = 1; i <= ni; i++) {
        k = ini[i]; sub(/.*\//, "", k); sub(/\.ini$/, "", k); inp = 0
        while ((getline l < ini[i]) > 0) {
          if (l ~ /^\[/) inp = l ~ /^\[params\]/
          else if (inp && l ~ /^[A-Za-z_][A-Za-z_0-9]* *=/) {
            nm = l; sub(/ *=.*/, "", nm); v = l; sub(/^[^=]*= */, "", v); sub(/[ ,;].*/, "", v)
            first[k, nm] = v
          }
        }
      }
      FS = "[ \t]"
      while ((getline l < picks) > 0) {
        split(l, f, " ")
        if (f[3] == "-") { printf "%-9s %-24s no tuned configuration handed out\n", f[1], f[2]; continue }
        want[f[1] SUBSEP f[2]] = norm(f[3]); order[++np] = f[1] SUBSEP f[2]
      }
      # port.library-pick.percent of each section: the pick timed beside
      # the brute-force best in interleaved rounds (picks_profile below).
      while (paired != "" && (getline l < paired) > 0) {
        if (l ~ /^\[/) { sec = substr(l, 2, length(l) - 2); sub(/ /, SUBSEP, sec) }
        else if (l ~ /^port\.library-pick\.percent *=/) { sub(/^[^=]*= */, "", l); pp[sec] = l + 0 }
      }
      FS = "\t"
    }
    /^#/ || $10 != "" { next }
    $4 == "ok" {
      key = $1 SUBSEP $2
      if (!(key in best) || $5 < best[key]) { best[key] = $5; iqr[key] = $6 }
      t[key, norm($3)] = $5
      nr = split($3, rc, ",")
      for (i = 1; i <= nr; i++) { split(rc[i], kv, "="); named[$1, kv[1]] = 1 }
    }
    END {
      for (i = 1; i <= np; i++) {
        key = order[i]; split(key, ks, SUBSEP)
        if (!(key in best)) { printf "%-9s %-24s no brute-force record\n", ks[1], ks[2]; continue }
        pt = t[key, want[key]]
        if (pt == 0) pt = t[key, older(ks[1], want[key])]
        pct = pt > 0 ? 100 * best[key] / pt : 0
        el = elements(ks[2]); rel = 100 * iqr[key] / best[key]
        note = ""
        if (el < 65536 || rel > 2) note = sprintf("  optimum IQR %.1f%%", rel)
        if (el < 65536 && rel > 2) note = note "  not rankable"
        if (pt == 0) note = note "  pick not measured"
        # Over 100% side by side is the noise of two equal configurations.
        if (key in pp) { q = pp[key] > 100 ? 100 : pp[key]; note = sprintf("  paired %.1f%%", q) note }
        printf "%-9s %-24s %6.1f%% of its optimum  (%s)%s\n", ks[1], ks[2], pct, want[key], note
        all[ks[1]] += pct; nall[ks[1]]++
        if (note ~ /not/) { skipped[ks[1]]++; continue }
        sum[ks[1]] += pct; n[ks[1]]++
        if (!(ks[1] in worst) || pct < worst[ks[1]]) { worst[ks[1]] = pct; wsize[ks[1]] = ks[2] }
        if (key in pp) {
          psum[ks[1]] += q; pn[ks[1]]++
          if (!(ks[1] in pworst) || q < pworst[ks[1]]) { pworst[ks[1]] = q; pwsize[ks[1]] = ks[2] }
        }
      }
      for (k in n)
        printf "SUMMARY %-9s %d sizes: mean %.1f%%, worst %.1f%% (%s)%s\n", k, n[k], sum[k] / n[k],
          worst[k], wsize[k], skipped[k] ? sprintf("; %d not rankable", skipped[k]) : ""
      for (k in pn)
        printf "SUMMARY %-9s paired, %d sizes: mean %.1f%%, worst %.1f%% (%s)\n", k, pn[k],
          psum[k] / pn[k], pworst[k], pwsize[k]
      for (k in skipped) if (!(k in n)) printf "SUMMARY %-9s no rankable size (%d not rankable)\n", k, skipped[k]
      for (k in skipped) printf "SUMMARY %-9s every size, the not rankable too: %d sizes, mean %.1f%%\n", k, nall[k], all[k] / nall[k]
    }' "$2"
}

# What an application is handed, through libatune_jit itself
# (regret_pick.c): shared libraries, or the static ones and what they need.
libs=("$build/libatune_jit.so" "$build/libatune.so")
if [ ! -e "${libs[0]}" ]; then
  libs=("$build/libatune_jit.a" "$build/libatune.a"
    -L/usr/local/cuda/lib64 -lnvrtc -linih -ldl -lpthread)
fi
lib=${libs[0]}
[ -e "$lib" ] || die "no libatune_jit in $build"
# A sanitized build's library needs the program built the same way.
san=()
# (Read whole, not piped into grep -q: under pipefail ldd's SIGPIPE made
# the test fail at random.)
needed=$(ldd "$lib" 2>/dev/null || true)
[[ $needed == *libasan* ]] && san+=(-fsanitize=address)
[[ $needed == *libubsan* ]] && san+=(-fsanitize=undefined)
cc -std=c17 -O2 "${san[@]}" -I"$root/include" -I"${CUDA_HOME:-/usr/local/cuda}/include" "$root/tests/bench/regret_pick.c" \
  "${libs[@]}" -Wl,-rpath,"$build" -lm -o "$tmp/pick" 2>"$tmp/cc.log" ||
  die "cannot build regret_pick: $(cat "$tmp/cc.log")"

IFS=',' read -ra kernels <<<"$KERNELS"
: >"$tmp/picks.in"
for k in "${kernels[@]}"; do
  spec=$(range "$k") || die "no range for kernel '$k'"
  IFS='|' read -r lo hi form dims <<<"$spec"
  count=$SIZES_1D
  [ "$dims" = 2 ] && count=$SIZES_2D
  tuned_points "$k" >"$tmp/$k.points" || die "cannot list the sizes of '$k'"
  # A resumed run measures the sizes it drew before.
  if [ "$DRY_RUN" != 1 ] && [ -s "$OUT/drawn-$k" ]; then
    cp "$OUT/drawn-$k" "$tmp/$k.drawn"
  else
    draw "$lo" "$hi" "$count" "$SEED" "$tmp/$k.points" >"$tmp/$k.drawn"
    [ "$DRY_RUN" = 1 ] || cp "$tmp/$k.drawn" "$OUT/drawn-$k"
  fi
  if [ "$k" = matmul ] && [ "${MATMUL_SHAPES:-0}" = 1 ]; then
    if [ "$DRY_RUN" = 1 ] || [ ! -s "$OUT/drawn-$k-shapes" ]; then
      draw3 64 16384 "$count" "$SEED" >"$tmp/$k.drawn"
      [ "$DRY_RUN" = 1 ] || cp "$tmp/$k.drawn" "$OUT/drawn-$k-shapes"
    else
      cp "$OUT/drawn-$k-shapes" "$tmp/$k.drawn"
    fi
  fi
  i=0
  while read -r x y z; do
    i=$((i + 1))
    key=${form//%d/$x}
    [ -n "$z" ] && key="m=$x,n=$y,k=$z"
    echo "u$i = $key" >>"$tmp/$k.untuned"
    echo "$k $key" >>"$tmp/picks.in"
  done <"$tmp/$k.drawn"
  manifest "$k" "$tmp/$k.untuned" "$tmp/untuned"
  echo "$k: $(wc -l <"$tmp/$k.points") tuned sizes, untuned: $(tr '\n' ' ' <"$tmp/$k.drawn")"
done
# The manifests must parse (and every size have a valid configuration)
# before any GPU time is spent.
"$bin" list --templates "$tmp/untuned" >/dev/null || die "untuned manifests do not load"

if [ "$DRY_RUN" = 1 ]; then
  for k in "${kernels[@]}"; do
    run "$bin" --device "$DEVICE" --kernel "$k" --profile-dir "$OUT/ladder" --json
    run "$bin" --device "$DEVICE" --templates "$tmp/untuned" --kernel "$k" \
      --strategy brute_force --profile-dir "$OUT/untuned" --json
  done
  JOURNAL=${JOURNAL:-$root/tests/data/journals/h200.journal}
  PROFILE=${PROFILE:-$root/profiles/nvidia-h200.ini}
  echo "dry run: the analysis of $JOURNAL against $PROFILE at the journal's sizes"
  awk -F'\t' '!/^#/ && !seen[$1 " " $2]++ { print $1, $2 }' "$JOURNAL" >"$tmp/picks.in"
  "$tmp/pick" "$PROFILE" <"$tmp/picks.in" >"$tmp/picks" 2>"$tmp/describe" ||
    die "lookup failed: $(cat "$tmp/describe")"
  analyze "$tmp/picks" "$JOURNAL"
  # The picks profile the GPU run measures side by side must load.
  picks_profile "$tmp/picks" "$PROFILE" >"$tmp/picks.ini"
  "$bin" show "$tmp/picks.ini" >"$tmp/show" 2>&1 || die "picks profile: $(cat "$tmp/show")"
  grep -q "library pick" "$tmp/show" || die "picks profile: no 'library pick' device"
  echo "picks profile: $(grep -c '^\[' "$tmp/picks.ini") sections load"
  exit 0
fi

# Each finished step leaves OUT/done-STEP-KERNEL; an interrupted one
# resumes from its journal (the manifests are the same each time): run the
# same command again until the summary is printed.
if [ -z "${PROFILE:-}" ]; then
  for k in "${kernels[@]}"; do
    [ -e "$OUT/done-ladder-$k" ] && continue
    echo "== tuning $k at its sizes ($(date -u +%H:%M:%S))"
    start=$(date +%s)
    "$bin" --device "$DEVICE" --kernel "$k" --profile-dir "$OUT/ladder" \
      --json >"$OUT/ladder-$k.json" || die "tuning $k failed"
    echo "$k ladder: $(($(date +%s) - start)) s, $(grep -o '"evaluations": *[0-9]*' \
      "$OUT/ladder-$k.json" | awk '{ e += $2; n++ } END { printf "%d evaluations over %d sizes", e, n }')"
    touch "$OUT/done-ladder-$k"
  done
  PROFILE=$(find "$OUT/ladder" -name "*.ini" | head -1)
fi
for k in "${kernels[@]}"; do
  [ -e "$OUT/done-untuned-$k" ] && continue
  echo "== brute force of $k at the untuned sizes ($(date -u +%H:%M:%S))"
  start=$(date +%s)
  "$bin" --device "$DEVICE" --templates "$tmp/untuned" --kernel "$k" \
    --strategy brute_force --profile-dir "$OUT/untuned" --json \
    >"$OUT/untuned-$k.json" || die "brute force of $k failed"
  echo "$k brute force: $(($(date +%s) - start)) s"
  touch "$OUT/done-untuned-$k"
done
"$tmp/pick" "$PROFILE" <"$tmp/picks.in" >"$OUT/picks.txt" 2>"$OUT/describe.txt" ||
  die "lookup failed: $(cat "$OUT/describe.txt")"
untuned_ini=$(find "$OUT/untuned" -name "*.ini" | head -1)
picks_profile "$OUT/picks.txt" "$untuned_ini" >"$OUT/picks.ini"
for k in "${kernels[@]}"; do
  [ -e "$OUT/done-paired-$k" ] && continue
  echo "== $k: each pick beside its size's brute-force best ($(date -u +%H:%M:%S))"
  "$bin" --device "$DEVICE" --templates "$tmp/untuned" --kernel "$k" \
    --evaluate "$OUT/picks.ini" --profile-dir "$OUT/untuned" --json \
    >"$OUT/paired-$k.json" || die "measuring the $k picks side by side failed"
  touch "$OUT/done-paired-$k"
done
echo "== regret of $PROFILE at untuned sizes (seed $SEED)"
analyze "$OUT/picks.txt" "$(find "$OUT/untuned" -name "*.journal" | head -1)" "$untuned_ini" |
  tee "$OUT/regret.txt"
