#!/usr/bin/env bash
# nvcc -cubin (templates with host code, tuner/jit/nvcc.c) writes its own
# intermediate files under $TMPDIR by names anyone can predict
# (tmpxft_<nvcc's pid in hex>_00000000-2.cpp, ...), opened with
# O_CREAT | O_TRUNC and no O_EXCL: a link planted there by another user
# would make nvcc truncate and overwrite the file it names, and a file
# planted there could be read back as nvcc's own. So nvcc runs with
# TMPDIR set to the compile's private scratch folder (mode 0700), never
# the user's $TMPDIR. A wrapper in place of nvcc records the TMPDIR it
# was given and lists what it left there.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
real=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
[ -x "$real" ] || { echo "no nvcc here"; exit 77; }
tk=$(cd "$(dirname "$real")/.." && pwd)
[ -d "$tk/include" ] || { echo "no toolkit headers beside $real"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATUNE_CACHE_DIR=$tmp/cache
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# A toolkit whose nvcc is the wrapper; its headers are the real ones.
mkdir -p "$tmp/cuda/bin" "$tmp/shared"
ln -s "$tk/include" "$tmp/cuda/include"
cat >"$tmp/cuda/bin/nvcc" <<WRAP
#!/usr/bin/env bash
echo "\$TMPDIR \$(stat -c %a "\$TMPDIR")" >>"$tmp/seen"
exec "$real" "\$@"
WRAP
chmod +x "$tmp/cuda/bin/nvcc"
chmod 1777 "$tmp/shared"

CUDA_HOME=$tmp/cuda TMPDIR=$tmp/shared "$bin" check \
  --templates "$src/tests/data/host_code" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] && ok || { ko "check exit $rc"; head -20 "$tmp/err"; }
[ -s "$tmp/seen" ] && ok || ko "the nvcc wrapper never ran"
while read -r dir mode; do
  case $dir in
    "$tmp/shared/atune-nvcc-"*) ;;
    *) ko "nvcc ran with TMPDIR=$dir, not a scratch folder of its own" ;;
  esac
  [ "$mode" = 700 ] && ok || ko "nvcc's TMPDIR $dir has mode $mode, not 700"
done <"$tmp/seen"
# Nothing of nvcc's, and no scratch folder, is left in the shared folder.
left=$(ls -A "$tmp/shared")
[ -z "$left" ] && ok || ko "left in \$TMPDIR: $left"

echo "cli_nvcc_scratch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
