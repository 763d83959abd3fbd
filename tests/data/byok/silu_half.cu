// silu_half.cu -- SiLU (x * sigmoid(x)) on float data, computed in half
// precision: activations are stored as float, the math runs on the
// packed half2 units. VEC = 2 processes two elements per instruction.
#include <cuda/std/cstdint>
#include <cuda_fp16.h>

#ifndef block_size
#define block_size 256
#endif
#ifndef vec
#define vec 2
#endif
#ifndef items
#define items 4
#endif

static __device__ __forceinline__ __half silu1(__half x)
{
    const __half one = __float2half(1.0f);
    return __hdiv(x, __hadd(one, hexp(__hneg(x))));
}

static __device__ __forceinline__ __half2 silu2(__half2 x)
{
    const __half2 one = __float2half2_rn(1.0f);
    return __h2div(x, __hadd2(one, h2exp(__hneg2(x))));
}

__global__ void silu_half(const float *__restrict__ x, float *__restrict__ y,
                          cuda::std::int64_t n)
{
    const cuda::std::int64_t per_block = (cuda::std::int64_t)block_size *
                                         vec * items;
    cuda::std::int64_t base = blockIdx.x * per_block + threadIdx.x * vec;

#pragma unroll
    for (int k = 0; k < items; k++) {
        cuda::std::int64_t i = base + (cuda::std::int64_t)k * block_size * vec;
#if vec == 2
        if (i + 1 < n) {
            float2 v = *reinterpret_cast<const float2 *>(x + i);
            float2 r = __half22float2(silu2(__floats2half2_rn(v.x, v.y)));
            *reinterpret_cast<float2 *>(y + i) = r;
        } else if (i < n) {
            y[i] = __half2float(silu1(__float2half(x[i])));
        }
#else
        if (i < n)
            y[i] = __half2float(silu1(__float2half(x[i])));
#endif
    }
}

// One element per thread, scalar half math.
__global__ void silu_half_ref(const float *x, float *y, cuda::std::int64_t n)
{
    cuda::std::int64_t i = (cuda::std::int64_t)blockIdx.x * blockDim.x +
                           threadIdx.x;
    if (i < n)
        y[i] = __half2float(silu1(__float2half(x[i])));
}
