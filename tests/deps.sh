#!/usr/bin/env bash
# Installs what building and testing autotune needs on Debian or Ubuntu
# (the CUDA toolkit is assumed: nvcc, NVRTC and cuda.h under /usr/local/cuda).
set -euo pipefail
pkgs=(cmake pkg-config gcc libinih-dev libcmocka-dev)
[ "${ATUNE_FUZZ:-0}" = 1 ] && pkgs+=(clang libclang-rt-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "deps.sh: the CUDA toolkit is missing (nvcc, NVRTC): install it first" >&2
  exit 1
fi
