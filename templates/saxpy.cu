/* saxpy -- y = a * x + y on floats: vectorized loads (float, float2,
 * float4), several independent elements in flight per thread, and a grid
 * that covers n once or strides over it with a fixed number of blocks per
 * SM.
 *
 * Seed: "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops". The
 * default configuration (GRID=0, VW=1, UNROLL=1, 256 threads) is the
 * article's first, monolithic kernel: one thread per element,
 * saxpy<<<(n + 255) / 256, 256>>>. GRID=32 is the grid-stride version the
 * article recommends (32 blocks per SM).
 *
 * Parameters:
 *   BLOCK_SIZE  threads per block
 *   GRID        0: one pass, the grid covers n; k > 0: k blocks per SM
 *               that stride over n
 *   VW          elements per load and store (float, float2, float4)
 *   UNROLL      vectors loaded before the first multiply-add: more bytes in
 *               flight per thread hide DRAM latency with fewer threads
 *
 * Both kernels compute fmaf(a, x, y), so the tuned result equals the
 * reference bit for bit. */

#if VW == 1
typedef float vec_t;
#elif VW == 2
typedef float2 vec_t;
#elif VW == 4
typedef float4 vec_t;
#else
#error "VW must be 1, 2 or 4"
#endif

#if UNROLL < 1 || UNROLL > 16
#error "UNROLL must be between 1 and 16"
#endif

__device__ __forceinline__ float axpy(float a, float x, float y)
{
    return fmaf(a, x, y);
}

__device__ __forceinline__ float2 axpy(float a, float2 x, float2 y)
{
    return make_float2(fmaf(a, x.x, y.x), fmaf(a, x.y, y.y));
}

__device__ __forceinline__ float4 axpy(float a, float4 x, float4 y)
{
    return make_float4(fmaf(a, x.x, y.x), fmaf(a, x.y, y.y),
                       fmaf(a, x.z, y.z), fmaf(a, x.w, y.w));
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
saxpy_tuned(const float *__restrict__ x, float *__restrict__ y, float a,
            long n)
{
    /* cuMemAlloc returns 256-byte aligned buffers, so x and y can be read
     * as float4 from their first element. */
    const vec_t *vx = reinterpret_cast<const vec_t *>(x);
    vec_t *vy = reinterpret_cast<vec_t *>(y);
    const long nvec = n / VW;
    const long tid = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const long stride = (long)gridDim.x * BLOCK_SIZE;
    long i = tid;

    /* All 2 * UNROLL loads are issued before the first store, each guarded
     * by the bound: a thread's last pass, with fewer than UNROLL vectors
     * left, still has them all in flight (as templates/copy.cu). */
    for (; i < nvec; i += UNROLL * stride) {
        vec_t vxs[UNROLL], vys[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec) {
                vxs[u] = vx[i + u * stride];
                vys[u] = vy[i + u * stride];
            }
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec)
                vy[i + u * stride] = axpy(a, vxs[u], vys[u]);
    }

    /* The n % VW elements past the last whole vector. */
    const long t = nvec * VW + tid;
    if (t < n)
        y[t] = fmaf(a, x[t], y[t]);
}

/* Obviously correct: one element per thread. */
extern "C" __global__ void saxpy_ref(const float *x, float *y, float a, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaf(a, x[i], y[i]);
}
