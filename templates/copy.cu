/* copy -- int copy: vectorized loads (int, int2, int4), several independent
 * loads in flight per thread, and a grid that covers n once or strides over
 * it with a fixed number of blocks per SM.
 *
 * Seed: "CUDA Pro Tip: Increase Performance with Vectorized Memory Access"
 * and "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops". The
 * default configuration (VW=1, UNROLL=1, GRID=0, 128 threads, EVICT=0) is
 * the article's scalar copy: one int per thread, one pass. */

#if VW == 1
typedef int vec_t;
#elif VW == 2
typedef int2 vec_t;
#elif VW == 4
typedef int4 vec_t;
#else
#error "VW must be 1, 2 or 4"
#endif

/* EVICT=1: loads marked L2 evict_first. Behind a kernel that wrote (and
 * behind the tuner's L2 flush) L2 is full of dirty lines, and each line a
 * copy brings in evicts one; the copy's own clean source lines, marked
 * evict_first, become the victims of its later allocations instead. On
 * an H200 (2026-11-25, docs/results.md: finished studies) the cover-once
 * configurations with 128-512 threads gained 2.3% at n = 2^20 and 1.5% at
 * 2^22 over cudaMemcpy, and lost 1.7-2% at 2^28: a knob, not a rule. */
#if EVICT
__device__ __forceinline__ unsigned long long load_policy(void)
{
    unsigned long long p;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;"
                 : "=l"(p));
    return p;
}
#define LD_Q "ld.global.nc.L1::no_allocate.L2::cache_hint"
__device__ __forceinline__ int load(const int *a, unsigned long long p)
{
    int v;
    asm volatile(LD_Q ".s32 %0, [%1], %2;" : "=r"(v) : "l"(a), "l"(p));
    return v;
}
__device__ __forceinline__ int2 load(const int2 *a, unsigned long long p)
{
    int2 v;
    asm volatile(LD_Q ".v2.s32 {%0, %1}, [%2], %3;"
                 : "=r"(v.x), "=r"(v.y) : "l"(a), "l"(p));
    return v;
}
__device__ __forceinline__ int4 load(const int4 *a, unsigned long long p)
{
    int4 v;
    asm volatile(LD_Q ".v4.s32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(a), "l"(p));
    return v;
}
#else
__device__ __forceinline__ unsigned long long load_policy(void) { return 0; }
template <typename T>
__device__ __forceinline__ T load(const T *a, unsigned long long) { return *a; }
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
copy_tuned(const int *__restrict__ in, int *__restrict__ out, long n)
{
    const vec_t *vin = reinterpret_cast<const vec_t *>(in);
    vec_t *vout = reinterpret_cast<vec_t *>(out);
    const long nvec = n / VW;
    const long tid = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const long stride = (long)gridDim.x * BLOCK_SIZE;
    const unsigned long long pol = load_policy();
    long i = tid;

    /* UNROLL loads issued before the first store: more bytes in flight
     * per thread hide DRAM latency with fewer threads. Each is guarded by
     * the bound, so a thread's last pass, with fewer than UNROLL vectors
     * left, still has them all in flight: with a remainder loop of one
     * load then one store, a configuration tuned at a power of two took
     * 13% longer at n = 15970 than at 16384 (H100, 2026-11-24). */
#if GRID == 0
    /* The grid covers n once: one pass, and no loop around it. With the
     * loop, the same configurations took 2.5-4.5% longer at n = 2^20 and
     * 1.5-2.5% at 2^22 (H100, 2026-11-25, docs/results.md), which
     * put them under cudaMemcpy at 2^20. */
    {
#else
    for (; i < nvec; i += UNROLL * stride) {
#endif
        vec_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec)
                v[u] = load(vin + i + u * stride, pol);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec)
                vout[i + u * stride] = v[u];
    }

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
