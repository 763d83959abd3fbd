#!/usr/bin/env bash
# The example consumer against installed copies of autotune: builds
# autotune static and shared, configured without a prefix, and installs
# each with `cmake --install --prefix` into a temporary directory (the .pc
# files and the CMake package must follow); checks that the shared
# libraries export only the public API; builds tests/consumer against each
# installed copy with CMake (find_package) and with plain
# `pkg-config --cflags --libs atune_jit` (no --static); runs the consumer's
# CPU part (on a machine with a GPU it also launches the tuned copy and
# checks its output; on one without a driver it must say so and go on).
#
#   ATUNE_CONSUMER_KEEP=1   keep the temporary directory (printed)
#   ATUNE_CONSUMER_GPU=1    require the launch (GPU machines: tests/gpu.sh)
#                           at three untuned sizes
#   ATUNE_CONSUMER_OWN=1    also build the consumer's own nvcc kernel from
#                           the header of the installed `autotune header`
#                           and require it bit-exact at those sizes
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
export PATH=/usr/local/cuda/bin:$PATH
work=$(mktemp -d "${TMPDIR:-/tmp}/atune-consumer-XXXXXX")
if [ "${ATUNE_CONSUMER_KEEP:-0}" = 1 ]; then
  echo "keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
export ATUNE_CACHE_DIR=$work/cache
cuda_lib=$(dirname "$(readlink -f /usr/local/cuda/lib64/libcudart_static.a)")
h100=(--profiles "$root/tests/data/profiles_good"
      --name "NVIDIA H100 80GB HBM3" --cc 90 --sms 132)

fail() { echo "consumer.sh: $*" >&2; exit 1; }

# Every symbol a shared library defines must be public API (atune_x...,
# never the internal atune__x...).
check_exports() {
  local lib=$1 bad
  bad=$(nm -D --defined-only "$lib" | awk '{print $3}' |
        grep -v -E '^atune_[a-z0-9]' || true)
  [ -z "$bad" ] || fail "$lib exports non-API symbols: $bad"
  echo "$(basename "$lib"): $(nm -D --defined-only "$lib" | wc -l) symbols, all public"
}

# Runs a consumer binary: the H100 test profile at a size never tuned, then
# the repository's profiles for the first GPU found there.
run_consumer() {
  local bin=$1 out
  out=$("$bin" "${h100[@]}") || fail "$bin failed: $out"
  echo "$out"
  grep -q "copy n=1000000: using tuned size n=1048576 (nearest)" <<<"$out" ||
    fail "$bin: unexpected match"
  if ! ldconfig -p | grep 'libcuda\.so\.1 ' >/dev/null; then
    grep -q -E "^no GPU \(.+\): skipped the launch" <<<"$out" ||
      fail "$bin: no clear message without a driver"
  fi
  if [ "${ATUNE_CONSUMER_GPU:-0}" = 1 ]; then
    grep -q "output matches input" <<<"$out" || fail "$bin: no verified launch"
    # Three sizes never tuned, launched through the JIT (size from the
    # arguments) and, when built in, the application's own kernel.
    out=$("$bin" "${h100[@]}" --size n=1000000 --size n=3000017 \
          --size n=77777777) || fail "$bin (three sizes) failed: $out"
    echo "$out"
    [ "$(grep -c "^jit copy of .*: output matches input" <<<"$out")" = 3 ] ||
      fail "$bin: the JIT did not copy all three sizes exactly"
    if [ "${ATUNE_CONSUMER_OWN:-0}" = 1 ] && [ "$bin" = "$work/$kind/consumer/consumer" ]; then
      [ "$(grep -c "^own copy of .*: output matches input, bit-exact" <<<"$out")" = 3 ] ||
        fail "$bin: its own kernel did not copy all three sizes exactly"
    fi
  else
    grep -q -E "skipped the launch|output matches input" <<<"$out" ||
      fail "$bin: neither launched nor skipped"
  fi
  # No directory: the search path finds the installed profiles (a static
  # library knows only its configured prefix: the path names them).
  local env=(env -u XDG_DATA_HOME HOME="$work/home" ATUNE_PROFILE_PATH=)
  [ "$kind" = static ] &&
    env+=(ATUNE_PROFILE_PATH="$work/nowhere:$prefix/share/autotune/profiles")
  out=$("${env[@]}" "$bin" --profiles '' --name "NVIDIA H200" --cc 90 \
        --sms 132) || fail "$bin (search path) failed: $out"
  echo "$out"
  # With a GPU the identity is the GPU's own, not --name's: any installed
  # profile of it will do.
  want="from profile 'NVIDIA H200' (same GPU model) in '$prefix/share/autotune/profiles/nvidia-h200.ini'"
  [ "${ATUNE_CONSUMER_GPU:-0}" = 1 ] &&
    want="in '$prefix/share/autotune/profiles/nvidia-"
  grep -qF "$want" <<<"$out" ||
    fail "$bin: the search path did not find the installed profile"
  if compgen -G "$root/profiles/*.ini" >/dev/null; then
    out=$("$bin" --profiles "$root/profiles") || fail "$bin failed: $out"
    echo "$out"
  fi
}

for kind in static shared; do
  shared=OFF
  [ $kind = shared ] && shared=ON
  prefix=$work/$kind/prefix
  echo "== $kind: build and install autotune into $prefix"
  cmake -S . -B "$work/$kind/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=$shared -DATUNE_BUILD_TESTS=OFF \
    >"$work/$kind.log" 2>&1 ||
    { cat "$work/$kind.log"; fail "configure failed"; }
  cmake --build "$work/$kind/build" >>"$work/$kind.log" 2>&1 ||
    { tail -40 "$work/$kind.log"; fail "build failed"; }
  cmake --install "$work/$kind/build" --prefix "$prefix" \
    >>"$work/$kind.log" 2>&1 ||
    { tail -40 "$work/$kind.log"; fail "install failed"; }
  libdir=$(dirname "$(find "$prefix" -name 'libatune_jit.*' | head -1)")
  for h in atune.h atune_cuda.h atune_jit.h; do
    [ -f "$prefix/include/atune/$h" ] || fail "$h not installed"
  done
  if grep -rq -- "--as-needed" "$libdir/cmake/autotune"; then
    fail "the installed CMake package adds --as-needed to applications"
  fi
  if [ $kind = shared ]; then
    check_exports "$libdir/libatune.so"
    check_exports "$libdir/libatune_jit.so"
  fi

  echo "== $kind: consumer through find_package(autotune)"
  own=()
  [ "${ATUNE_CONSUMER_OWN:-0}" = 1 ] && own=(-DCONSUMER_OWN_KERNEL=ON)
  cmake -S tests/consumer -B "$work/$kind/consumer" \
    -DCMAKE_PREFIX_PATH="$prefix" "${own[@]}" >>"$work/$kind.log" 2>&1 ||
    { tail -40 "$work/$kind.log"; fail "consumer configure failed"; }
  cmake --build "$work/$kind/consumer" >>"$work/$kind.log" 2>&1 ||
    { tail -40 "$work/$kind.log"; fail "consumer build failed"; }
  if readelf -d "$work/$kind/consumer/consumer" | grep 'libcuda\.so' >/dev/null; then
    fail "the consumer NEEDs libcuda: it would not start without a driver"
  fi
  run_consumer "$work/$kind/consumer/consumer"

  echo "== $kind: consumer through pkg-config atune_jit (no --static)"
  flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config \
          --cflags --libs atune_jit) || fail "pkg-config atune_jit failed"
  echo "pkg-config --cflags --libs atune_jit: $flags"
  # shellcheck disable=SC2086
  cc -std=c17 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror \
    -DCONSUMER_PROFILES="\"$root/profiles\"" tests/consumer/main.c \
    -o "$work/$kind/consumer-pc" $flags -Wl,-rpath,"$libdir" \
    -L"$cuda_lib" -lcudart_static -lrt -lpthread -ldl ||
    fail "pkg-config build failed"
  if readelf -d "$work/$kind/consumer-pc" | grep 'libcuda\.so' >/dev/null; then
    fail "the pkg-config consumer NEEDs libcuda"
  fi
  run_consumer "$work/$kind/consumer-pc"
done
echo "== consumer: static and shared installs work"
