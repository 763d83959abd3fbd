#!/usr/bin/env bash
# Checks for what building and testing autotune needs and installs, on
# Debian or Ubuntu, only what is missing, saying what. It asks the
# commands themselves (cmake --version, pkg-config), not dpkg: a CMake
# from outside Debian's packages counts, and a machine that has
# everything never calls apt-get (so it works without a network).
# The CUDA toolkit is assumed: nvcc, NVRTC and cuda.h under
# /usr/local/cuda. ATUNE_FUZZ=1 adds clang with its libFuzzer runtime
# (tests/ci.d/fuzz.sh), ATUNE_DOCS=1 groff (tests/docs_man.sh).
set -euo pipefail

missing=() # Debian packages
say() { printf 'deps.sh: %s\n' "$*" >&2; }
need() { # PACKAGE WHY
  say "missing: $2 (package $1)"
  missing+=("$1")
}

# VERSION >= MIN, both dotted numbers.
version_ge() {
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

if ! command -v cmake >/dev/null 2>&1; then
  need cmake "cmake >= 3.25"
else
  v=$(cmake --version 2>/dev/null | sed -n '1s/^cmake version \([0-9][0-9.]*\).*/\1/p')
  if [ -z "$v" ] || ! version_ge "$v" 3.25; then
    need cmake "cmake >= 3.25 (found ${v:-an unreadable version} at $(command -v cmake))"
  fi
fi
command -v pkg-config >/dev/null 2>&1 || need pkg-config "pkg-config"
if ! command -v "${CC:-cc}" >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1; then
  need gcc "a C compiler (${CC:-cc} or gcc)"
fi
if command -v pkg-config >/dev/null 2>&1; then
  pkg-config --exists inih 2>/dev/null || need libinih-dev "inih development files (pkg-config inih)"
  pkg-config --exists cmocka 2>/dev/null || need libcmocka-dev "cmocka development files (pkg-config cmocka)"
else
  missing+=(libinih-dev libcmocka-dev) # cannot tell without pkg-config
fi
# ATUNE_DOCS=1 (tests/ci.sh): groff, with which tests/docs_man.sh renders
# the man page.
if [ "${ATUNE_DOCS:-0}" = 1 ] && ! groff --version >/dev/null 2>&1; then
  need groff-base "groff (ATUNE_DOCS: checks the man page)"
fi
if [ "${ATUNE_FUZZ:-0}" = 1 ]; then
  if ! command -v clang >/dev/null 2>&1; then
    need clang "clang (ATUNE_FUZZ)"
    missing+=(libclang-rt-dev)
  else
    probe=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$probe/f.c"
    clang -fsanitize=fuzzer,address,undefined "$probe/f.c" -o "$probe/f" >/dev/null 2>&1 ||
      need libclang-rt-dev "clang's libFuzzer runtime (ATUNE_FUZZ)"
    rm -rf "$probe"
  fi
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  say "the CUDA toolkit is missing (nvcc, NVRTC, cuda.h): install it first"
  exit 1
fi

[ ${#missing[@]} -eq 0 ] && exit 0

say "installing with apt-get: ${missing[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  say "no apt-get here: install ${missing[*]} (or their equivalents) yourself"
  exit 1
fi
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
$sudo apt-get update -qq || say "apt-get update failed: trying the package lists there are"
if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; then
  say "apt-get could not install ${missing[*]}"
  exit 1
fi
