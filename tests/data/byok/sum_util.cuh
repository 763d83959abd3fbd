// sum_util.cuh -- helpers shared by our reduction kernels.
#pragma once

namespace user {

// Loads ITEMS consecutive elements per thread, blocked: thread t of a block
// of BLOCK threads reads base + t * ITEMS + 0..ITEMS-1, so one thread's
// loads are contiguous and the compiler can widen them.
template <int BLOCK, int ITEMS, typename T>
__device__ __forceinline__ double load_and_sum(const T *in, long n, long base)
{
    double acc = 0.0;
    long first = base + (long)threadIdx.x * ITEMS;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        long idx = first + i;
        if (idx < n)
            acc += (double)in[idx];
    }
    return acc;
}

} // namespace user
