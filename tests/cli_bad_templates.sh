#!/usr/bin/env bash
# Every kind of bad template (tests/data/templates_bad/<kind>/<kind>.{cu,ini},
# each the minimal copy template with one defect) makes `autotune check`
# exit 65 with a message naming the file and line that holds the defect, and
# never crash. The first line of each manifest says where: "; kind: what
# (expected error at kind.ini:LINE)". Also: bad command lines exit 64, and
# tuning a bad template without a GPU exits 65 or 69, never anything else.
set -u
bin=${ATUNE_BINARY:?run through ctest}
src=${ATUNE_SOURCE_DIR:?run through ctest}
data=$src/tests/data/templates_bad
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() {
  fail=$((fail + 1))
  echo "FAIL: $1"
  shift
  for f in "$@"; do sed 's/^/  /' "$f" | head -8; done
}

# run OUTPUT-PREFIX COMMAND...: runs it; $rc is its exit status.
run() {
  local out=$1
  shift
  "$@" >"$out.out" 2>"$out.err"
  rc=$?
}

# Kinds found while the manifest is loaded, before any evaluation: tune
# refuses them before it looks for a driver.
load_kinds=" arg_duplicate arg_not_identifier buffer_no_role kernel_in_comment
  kernel_missing param_duplicate param_duplicate_value param_empty
  param_empty_value param_reserved param_non_integer param_not_identifier
  reference_missing scalar_role size_non_integer size_zero syntax_error
  unknown_name unknown_name_scalar unknown_role unknown_type work_uses_param
  param_size_var param_devattr range_empty range_step range_pow2_none
  range_step_and_pow2 range_too_many_values continuation_orphan
  kernel_bad_char kernel_not_name include_dir_missing nvrtc_option_reserved
  nvrtc_option_not_option param_macros_bad param_name_too_long
  include_dirs_empty knob_redefined knob_redefined_several knob_identifier
  knob_template_param
  buffer_option_unknown compare_uses_param mismatches_bad
  fill_bad "

# Macro knobs the source would override or be broken by, and a parameter
# nothing reads: what each message must say besides its file:line (the
# fixes included).
declare -A knob_msg=(
  [knob_redefined]="parameter 'BLOCK_SIZE' .* is redefined here (#define BLOCK_SIZE).*incompatible redefinition of macro)\. Fix: make the file's value a default that -D overrides: '#ifndef BLOCK_SIZE' before the #define and '#endif' after it (the file.*rename the parameter.*not_macros = BLOCK_SIZE"
  [knob_redefined_several]="knob_redefined_several.cu:3: parameter 'BLOCK_SIZE' .* is redefined here (#define BLOCK_SIZE).*; so are VW (line 4)\. Fix: .*'#ifndef BLOCK_SIZE' before the #define and '#endif' after it, and the same for each of the others"
  [knob_identifier]="parameter 'vw' .* is also a function parameter's name here: as -Dvw=VALUE.*Fix: rename.*not_macros = vw"
  [knob_template_param]="parameter 'BLOCK_THREADS' .* is also a template parameter's name here.*; so are ITEMS (line 3, a template parameter)\. Fix: declare them not macros (not_macros = BLOCK_THREADS, ITEMS under \[template\], or param_macros = no: every parameter clashes)"
  [launch_bounds]="kernel 'copy_tuned' is compiled with __launch_bounds__ of 128 threads, but \[launch\] gives it blocks of 256 threads at size 'small': no such launch can run"
  [knob_changes_nothing]="parameter 'UNROLL' changes nothing: every value (3) compiles to the same CUBIN.*Fix: use it in .*knob_changes_nothing.cu"
  [param_unread]="parameter 'UNROLLL' changes nothing: .*param_unread.cu never names it, so it is not passed as -DUNROLLL, and no \\[launch\\].*reads it: its 3 values would only multiply the space. Did you mean 'UNROLL' (.*param_unread.cu:4)? Fix: "
)

have_gpu=0
nvidia-smi -L >/dev/null 2>&1 && have_gpu=1

# The base of every bad template checks clean.
run "$tmp/control" "$bin" check --templates "$data/control"
[ "$rc" -eq 0 ] && ok || ko "control: check exit $rc, want 0" "$tmp/control.err"

nkinds=0
for dir in "$data"/*/; do
  dir=${dir%/}
  kind=$(basename "$dir")
  [ "$kind" = control ] && continue
  nkinds=$((nkinds + 1))
  ini=$dir/$kind.ini
  where=$(sed -n '1s/.*(expected error at \([^)]*\)).*/\1/p' "$ini")
  if [ -z "$where" ]; then
    ko "$kind: first line of $kind.ini does not say where the error is"
    continue
  fi
  out=$tmp/$kind

  run "$out" "$bin" check --templates "$dir"
  if [ "$kind" = memory_too_large ]; then
    # Buffers larger than any GPU's memory are a tune-time error (the
    # runner compares with the device's free memory); without a GPU, check
    # reports the bytes each size needs.
    [ "$rc" -eq 0 ] && ok || ko "$kind: check exit $rc, want 0" "$out.err"
    grep -q "768.00 GiB of device memory" "$out.out" && ok ||
      ko "$kind: check does not report 768 GiB" "$out.out"
    # ... and fails where it exceeds --memory (here: 80 GiB).
    run "$out.mem" "$bin" check --templates "$dir" --memory 85899345920
    [ "$rc" -eq 65 ] && ok || ko "$kind: check --memory exit $rc, want 65" "$out.mem.err"
    grep -q "$kind/$where: .*768.00 GiB.*more than --memory 80.00 GiB" "$out.mem.err" && ok ||
      ko "$kind: check --memory message" "$out.mem.err"
    run "$out.mem" "$bin" check --templates "$data/control" --memory 85899345920
    [ "$rc" -eq 0 ] && ok || ko "control: check --memory exit $rc, want 0" "$out.mem.err"
    continue
  fi
  if [ "$rc" -ge 128 ]; then
    ko "$kind: check crashed (exit $rc)" "$out.err"
    continue
  fi
  [ "$rc" -eq 65 ] && ok || ko "$kind: check exit $rc, want 65" "$out.err"
  # "kind.ini:12: ..." or, for NVRTC's log, "kind.cu:8: error: ...".
  grep -q "$kind/$where: " "$out.err" && ok ||
    ko "$kind: check message does not name $where" "$out.err"
  if [ -n "${knob_msg[$kind]:-}" ]; then
    grep -q "${knob_msg[$kind]}" "$out.err" && ok ||
      ko "$kind: message does not say what and how to fix" "$out.err"
  fi
  if [ "$kind" = param_unread ]; then
    # The manifest's error is not a configuration's: "4 failed" of 4
    # configurations would say every one did.
    grep -q "configurations compiled for .*, 0 failed and 1 other error," "$out.out" && ok ||
      ko "$kind: the summary counts the manifest's error as a configuration" "$out.out"
  fi
  if [ "$kind" = constant_size ]; then
    # The same in every configuration: shown once, the rest counted.
    [ "$(grep -c "$where: __constant__ 'table' has 32 bytes in .*constant_size.cu, but \[constants\] makes it 4 int elements (16 bytes) at size 'small'" "$out.err")" -eq 1 ] && ok ||
      ko "$kind: the constant's size is not reported once" "$out.err"
  fi
  if [ "$kind" = constant_size_ref ]; then
    grep -q "$where: __constant__ 'table' has 16 bytes in .*constant_size_ref/ref.cu, but" "$out.err" && ok ||
      ko "$kind: the reference's file is not the one named" "$out.err"
    # tune reaches the copy into the reference's module (the stub driver
    # reads the CUBIN's symbols): its error names ref.cu too.
    if [ -n "${ATUNE_STUB_DRIVER_DIR:-}" ] && [ "$have_gpu" -eq 0 ]; then
      LD_LIBRARY_PATH=$ATUNE_STUB_DRIVER_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        run "$out.stub" "$bin" --device 0 --templates "$dir" --profile-dir "$tmp/prof-stub-$kind"
      grep -q "$where: __constant__ 'table' has 16 bytes in .*constant_size_ref/ref.cu, the manifest says 32" "$out.stub.err" && ok ||
        ko "$kind: tune on the stub does not name ref.cu" "$out.stub.err"
    fi
  fi
  if [ "$kind" = compile_error ]; then
    # Every configuration fails the same way: the log is printed once.
    [ "$(grep -c "$where: error" "$out.err")" -eq 1 ] && ok ||
      ko "$kind: the same NVRTC log is printed more than once" "$out.err"
    grep -q "3 more configurations fail with an error shown above" "$out.err" && ok ||
      ko "$kind: repeats are not counted" "$out.err"
  fi

  # The same with --json: one JSON document, the error inside it.
  run "$out.json" "$bin" check --json --templates "$dir"
  [ "$rc" -eq 65 ] && ok || ko "$kind: check --json exit $rc" "$out.json.err"
  if command -v python3 >/dev/null; then
    python3 - "$out.json.out" "$where" <<'PY' && ok || ko "$kind: check --json document" "$out.json.out"
import json, sys
d = json.load(open(sys.argv[1]))
errors = [d.get("error", "")]
for t in d["templates"]:
    errors += [t.get("error", "")] + [f["error"] for f in t["failures"]]
assert d["failed"] >= 1, d
assert any(sys.argv[2] + ": " in e for e in errors), errors
PY
  fi

  # Tuning: a defect found while loading is refused before any driver is
  # looked for; one found by evaluation is, on a machine without a GPU,
  # preceded by the no-driver error (69). Either way: no crash, no files.
  [ "$have_gpu" -eq 1 ] && continue
  [ "$kind" = compile_error ] && continue # tune compiles on the device only
  run "$out.tune" "$bin" --device 0 --templates "$dir" \
    --profile-dir "$tmp/prof-$kind"
  case "$load_kinds" in
  *" $kind "*) want=65 ;;
  *) want="65 or 69" ;;
  esac
  if [ "$rc" -eq 65 ]; then
    grep -q "$kind/$where: " "$out.tune.err" && ok ||
      ko "$kind: tune message does not name $where" "$out.tune.err"
  elif [ "$rc" -eq 69 ] && [ "$want" != 65 ]; then
    grep -q "no CUDA" "$out.tune.err" && ok ||
      ko "$kind: tune exit 69 without the no-driver message" "$out.tune.err"
  else
    ko "$kind: tune exit $rc, want $want" "$out.tune.err"
  fi
  [ ! -e "$tmp/prof-$kind" ] && ok || ko "$kind: tune created files"
done
[ "$nkinds" -ge 72 ] && ok || ko "only $nkinds kinds of bad templates"

# A directory with a good and a bad template: check reports the bad one
# and still compiles the good one.
mkdir -p "$tmp/mixed"
cp "$data/control/control".* "$data/div_zero_work/div_zero_work".* "$tmp/mixed"
run "$tmp/mixed" "$bin" check --templates "$tmp/mixed"
[ "$rc" -eq 65 ] && ok || ko "mixed: check exit $rc, want 65" "$tmp/mixed.err"
grep -q "div_zero_work.ini:8: " "$tmp/mixed.err" && ok ||
  ko "mixed: the bad template is not named" "$tmp/mixed.err"
grep -q "^control .* 0 failed" "$tmp/mixed.out" && ok ||
  ko "mixed: the good template is not checked" "$tmp/mixed.out"

# Several --templates folders, templates in subfolders: found; two of one
# name: an error naming both files, and check still checks the others.
mkdir -p "$tmp/tree/sub/deep" "$tmp/tree/other"
cp "$data/control/control.cu" "$tmp/tree/sub/deep/copy2.cu"
cp "$data/control/control.ini" "$tmp/tree/sub/deep/copy2.ini"
echo "[not a template]" >"$tmp/tree/other/settings.ini"
run "$tmp/tree" "$bin" list --templates "$tmp/tree" --templates "$data/control"
[ "$rc" -eq 0 ] && grep -q "^copy2 " "$tmp/tree.out" &&
  grep -q "^control " "$tmp/tree.out" && ok ||
  ko "tree: list exit $rc, want 0 with copy2 and control" "$tmp/tree.out" "$tmp/tree.err"
cp "$data/control/control".* "$tmp/tree/other/"
run "$tmp/clash" "$bin" check --templates "$tmp/tree" --templates "$data/control"
[ "$rc" -eq 65 ] && ok || ko "clash: check exit $rc, want 65" "$tmp/clash.err"
grep -qF "two templates are named 'control': $tmp/tree/other/control.ini and $data/control/control.ini" "$tmp/clash.err" &&
  ok || ko "clash: message does not name both files" "$tmp/clash.err"
grep -q "^copy2 .* 0 failed" "$tmp/clash.out" && ok ||
  ko "clash: the other template is not checked" "$tmp/clash.out" "$tmp/clash.err"
run "$tmp/clash1" "$bin" list --templates "$tmp/tree" --templates "$data/control" --kernel copy2
[ "$rc" -eq 0 ] && ok || ko "clash: --kernel copy2 exit $rc, want 0" "$tmp/clash1.err"

# NVRTC's warnings are shown by a check that passes: here its warning for a
# variable never used, with the file's line.
mkdir -p "$tmp/warn"
sed 's/^    long i = ((long)blockIdx.x/    int unused_knob_copy = VW;\n&/' \
  "$data/control/control.cu" >"$tmp/warn/control.cu"
cp "$data/control/control.ini" "$tmp/warn/"
run "$tmp/warn" "$bin" check --templates "$tmp/warn"
[ "$rc" -eq 0 ] && ok || ko "warn: check exit $rc, want 0" "$tmp/warn.err"
grep -q "warning: compiler: configuration .*" "$tmp/warn.err" &&
  grep -q "control.cu:5: warning" "$tmp/warn.err" && ok ||
  ko "warn: NVRTC's warning is not shown with its line" "$tmp/warn.err"

# Bad command lines: 64, before any template is compiled.
ctl=$data/control
expect_usage() {
  local what=$1
  shift
  run "$tmp/usage" "$@"
  [ "$rc" -eq 64 ] && ok || ko "$what: exit $rc, want 64" "$tmp/usage.err"
}
expect_usage "check: unknown option" "$bin" check --bogus
expect_usage "check: --kernel without value" "$bin" check --templates "$ctl" --kernel
expect_usage "check: --templates without value" "$bin" check --templates
expect_usage "check: --arch without value" "$bin" check --templates "$ctl" --arch
expect_usage "check: unknown kernel" "$bin" check --templates "$ctl" --kernel nosuch
grep -q "unknown kernel 'nosuch' (have: control)" "$tmp/usage.err" && ok ||
  ko "unknown kernel: message does not list the templates" "$tmp/usage.err"
expect_usage "check: empty kernel name" "$bin" check --templates "$ctl" --kernel control,
expect_usage "check: arch NVRTC cannot target" "$bin" check --templates "$ctl" --arch sm_12
expect_usage "check: arch that is no arch" "$bin" check --templates "$ctl" --arch ampere
expect_usage "check: option of another command" "$bin" check --templates "$ctl" --device 0
expect_usage "check: stray argument" "$bin" check --templates "$ctl" extra
expect_usage "check: bad --memory" "$bin" check --templates "$ctl" --memory 80G
expect_usage "check: zero --memory" "$bin" check --templates "$ctl" --memory 0
expect_usage "tune: --memory is check's" "$bin" --templates "$ctl" --memory 1
expect_usage "tune: unknown kernel" "$bin" --device 0 --templates "$ctl" --kernel nosuch
expect_usage "tune: bad device" "$bin" --device gpu0 --templates "$ctl"
expect_usage "tune: unknown strategy" "$bin" --templates "$ctl" --strategy nosuch
run "$tmp/nodir" "$bin" check --templates "$tmp/none"
[ "$rc" -eq 66 ] && ok || ko "check: missing directory: exit $rc, want 66" "$tmp/nodir.err"

echo "$nkinds kinds; $pass passed, $fail failed"
[ "$fail" -eq 0 ]
