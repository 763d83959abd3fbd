/* types -- element types beyond the C scalars (types.ini): half and
 * __nv_bfloat16 inputs, float4 and int2 vectors, and a struct by value. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

struct params {
    float scale, offset;
    int k, m;
};

__device__ int checks(const __half *h, const __nv_bfloat16 *b,
                      const float4 *v, const int2 *iv, params p, long i)
{
    float hf = __half2float(h[i]), bf = __bfloat162float(b[i]);
    float4 e = v[i];
    int2 w = iv[i];
    int bits = 0;

    bits |= !(hf >= -2 && hf <= 2) << 0;
    bits |= !(bf >= -1 && bf <= 1 && bf != 0) << 1;
    bits |= (e.x != 4 * i || e.y != 4 * i + 1 || e.z != 4 * i + 2 ||
             e.w != 4 * i + 3) << 2;
    bits |= (w.x < -5 || w.x > 5 || w.y < -5 || w.y > 5) << 3;
    bits |= (p.scale != 1.0f || p.offset != 2.0f || p.k != 3 || p.m != -4)
            << 4;
    return bits;
}

extern "C" __global__ void types_tuned(const __half *h,
                                       const __nv_bfloat16 *b,
                                       const float4 *v, const int2 *iv,
                                       params p, __half *hout, float4 *vout,
                                       int *bad, long n)
{
    long i = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x;

    if (i >= n)
        return;
    float4 e = v[i];
    int2 w = iv[i];
    hout[i] = __float2half(__half2float(h[i]) * p.scale +
                           __bfloat162float(b[i]));
    vout[i] = make_float4(e.x * p.scale + w.x, e.y * p.scale + w.y,
                          e.z * p.scale + p.k, e.w * p.scale + p.m);
    bad[i] = checks(h, b, v, iv, p, i);
}

extern "C" __global__ void types_ref(const __half *h, const __nv_bfloat16 *b,
                                     const float4 *v, const int2 *iv,
                                     params p, __half *hout, float4 *vout,
                                     int *bad, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

    if (i >= n)
        return;
    hout[i] = __float2half(fmaf(__half2float(h[i]), p.scale,
                                __bfloat162float(b[i])));
    vout[i].x = v[i].x * p.scale + iv[i].x;
    vout[i].y = v[i].y * p.scale + iv[i].y;
    vout[i].z = v[i].z * p.scale + p.k;
    vout[i].w = v[i].w * p.scale + p.m;
    bad[i] = 0;
}
