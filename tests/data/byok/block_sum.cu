// block_sum.cu -- sum of n floats into one double, with CUB's block-wide
// reduction. BLOCK threads per block, ITEMS elements per thread, and the
// CUB algorithm are template parameters, as in any CUB code: the kernel is
// instantiated for the configuration that is launched.
#include <cub/block/block_reduce.cuh>

#include "sum_util.cuh"

namespace user {

template <int BLOCK, int ITEMS, cub::BlockReduceAlgorithm ALGO>
__global__ void __launch_bounds__(BLOCK)
    block_sum(const float *__restrict__ in, double *out, long n)
{
    using BlockReduce = cub::BlockReduce<double, BLOCK, ALGO>;
    __shared__ typename BlockReduce::TempStorage temp;

    const long tile = (long)BLOCK * ITEMS;
    double acc = 0.0;
    // Grid-stride over tiles: any grid size covers any n.
    for (long base = (long)blockIdx.x * tile; base < n;
         base += (long)gridDim.x * tile)
        acc += load_and_sum<BLOCK, ITEMS>(in, n, base);
    double total = BlockReduce(temp).Sum(acc);
    if (threadIdx.x == 0)
        atomicAdd(out, total);
}

// Reference: one block, a plain shared-memory tree. Slow and obvious.
__global__ void sum_reference(const float *in, double *out, long n)
{
    __shared__ double partial[256];
    double acc = 0.0;
    for (long i = threadIdx.x; i < n; i += blockDim.x)
        acc += (double)in[i];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if ((int)threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out += partial[0];
}

} // namespace user
