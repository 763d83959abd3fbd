/* copy -- int copy: vectorized loads (int, int2, int4), several independent
 * loads in flight per thread, and a grid that covers n once or strides over
 * it with a fixed number of blocks per SM.
 *
 * Seed: "CUDA Pro Tip: Increase Performance with Vectorized Memory Access"
 * and "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops". The
 * default configuration (VW=1, UNROLL=1, GRID=0, 128 threads) is the
 * article's scalar copy: one int per thread, one pass. */

#if VW == 1
typedef int vec_t;
#elif VW == 2
typedef int2 vec_t;
#elif VW == 4
typedef int4 vec_t;
#else
#error "VW must be 1, 2 or 4"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
copy_tuned(const int *__restrict__ in, int *__restrict__ out, long n)
{
    const vec_t *vin = reinterpret_cast<const vec_t *>(in);
    vec_t *vout = reinterpret_cast<vec_t *>(out);
    const long nvec = n / VW;
    const long tid = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const long stride = (long)gridDim.x * BLOCK_SIZE;
    long i = tid;

    /* UNROLL loads issued before the first store: more bytes in flight
     * per thread hide DRAM latency with fewer threads. */
    for (; i + (UNROLL - 1) * stride < nvec; i += UNROLL * stride) {
        vec_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = vin[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            vout[i + u * stride] = v[u];
    }
    for (; i < nvec; i += stride)
        vout[i] = vin[i];

    /* The n % VW elements past the last whole vector. */
    const long t = nvec * VW + tid;
    if (t < n)
        out[t] = in[t];
}

/* Obviously correct: one element per thread. */
extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
