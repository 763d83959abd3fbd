/* copy without the loop where the grid covers n once (candidate, issue
 * 15): templates/copy, plus SHAPE (copy.ini). SHAPE=0 is templates/copy's
 * guarded loop; 1 one vector per thread and no loop; 2 the same with
 * 32-bit indices. */

#if VW == 1
typedef int vec_t;
#elif VW == 2
typedef int2 vec_t;
#elif VW == 4
typedef int4 vec_t;
#else
#error "VW must be 1, 2 or 4"
#endif

#if SHAPE == 2
typedef unsigned idx_t;
#else
typedef long idx_t;
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
copy_tuned(const int *__restrict__ in, int *__restrict__ out, long n)
{
    const vec_t *vin = reinterpret_cast<const vec_t *>(in);
    vec_t *vout = reinterpret_cast<vec_t *>(out);
    const idx_t nvec = (idx_t)(n / VW);
    const idx_t tid = (idx_t)blockIdx.x * BLOCK_SIZE + threadIdx.x;
#if SHAPE == 0
    const long stride = (long)gridDim.x * BLOCK_SIZE;
    long i = tid;

    for (; i < nvec; i += UNROLL * stride) {
        vec_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec)
                v[u] = vin[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec)
                vout[i + u * stride] = v[u];
    }
#else
    if (tid < nvec)
        vout[tid] = vin[tid];
#endif
    const idx_t t = nvec * VW + tid;
    if (t < (idx_t)n)
        out[t] = in[t];
}

extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
