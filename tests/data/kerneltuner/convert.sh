#!/usr/bin/env bash
# convert.sh -- regenerates the journals of this folder from a checkout of
# AutoTuningAssociation/benchmark_hub (MIT; commit 8eeb99e was used):
#   tests/data/kerneltuner/convert.sh AUTOTUNE HUB_CHECKOUT
# train/ is the strategy-evaluation set (rules and constants of the search
# may be chosen on it); heldout/ is checked only at the end, never tuned on.
set -eu
bin=$1 hub=$2
here=$(cd "$(dirname "$0")" && pwd)
kt="$hub/currently_unused/cachefiles/KernelTuner data"
conv_map=BX=block_size_x,BY=block_size_y,RO=read_only,TX=tile_size_x,TY=tile_size_y,PAD=use_padding
milo_map=$conv_map,SHMEM=use_shmem
pnpoly_map=BETWEEN=between_method,BX=block_size_x,TILE=tile_size,METHOD=use_method
dedisp_map=BX=block_size_x,BY=block_size_y,TX=tile_size_x,TY=tile_size_y,SX=tile_stride_x,SY=tile_stride_y
conv_work=7549747200      # 2 * 15 * 15 * 4096 * 4096 flops
gemm_work=137472507904    # 2 * 4096^3 + 2 * 4096^2 flops
pnpoly_work=240000000     # 12 bytes per point, 2e7 points
dedisp_work=78643200000   # 25000 samples * 2048 DMs * 1536 channels, a byte each
one() { # NAME CACHE WORK DEVICE MAP OUT
    "$here/../../tools/kt2journal.sh" "$bin" "$here" "$1" "$2" "$3" "$4" "${5:-}" >"$here/$6.tmp"
    mv "$here/$6.tmp" "$here/$6"
}
mkdir -p "$here/train" "$here/heldout"
one conv "$kt/convolution/RTX_2080_Ti.json.gz" $conv_work "NVIDIA GeForce RTX 2080 Ti" $conv_map train/conv-rtx2080ti.journal
one conv "$kt/convolution/RTX_Titan.json.gz" $conv_work "NVIDIA TITAN RTX" $conv_map train/conv-titanrtx.journal
one conv "$kt/convolution/RTX_3060_laptop.json.gz" $conv_work "NVIDIA GeForce RTX 3060 Laptop GPU" $conv_map train/conv-rtx3060laptop.journal
one gemm "$kt/gemm/RTX_2080_Ti.json.gz" $gemm_work "NVIDIA GeForce RTX 2080 Ti" "" train/gemm-rtx2080ti.journal
one gemm "$kt/gemm/RTX_3090.json.gz" $gemm_work "NVIDIA GeForce RTX 3090" "" train/gemm-rtx3090.journal
one gemm "$kt/gemm/RTX_Titan.json.gz" $gemm_work "NVIDIA TITAN RTX" "" train/gemm-titanrtx.journal
one conv "$kt/convolution/RTX_3090.json.gz" $conv_work "NVIDIA GeForce RTX 3090" $conv_map heldout/conv-rtx3090.journal
one pnpoly "$kt/pnpoly/RTX_3090.json.gz" $pnpoly_work "NVIDIA GeForce RTX 3090" $pnpoly_map heldout/pnpoly-rtx3090.journal
one convmilo "$hub/cachefiles/convolution_milo/A100.json.gz" $conv_work "NVIDIA A100-PCIE-40GB" $milo_map heldout/convmilo-a100.journal
one dedisp "$hub/cachefiles/dedispersion_milo/A100.json.gz" $dedisp_work "NVIDIA A100-PCIE-40GB" $dedisp_map heldout/dedisp-a100.journal
