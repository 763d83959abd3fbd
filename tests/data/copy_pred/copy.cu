/* copy with predicated unrolling and cache hints (candidate, issue 15):
 * tests/data/copy_hint with PRED (copy.ini). */

#if HINT == 1
#define LD_Q "ld.global.nc.L2::128B"
#elif HINT == 2
#define LD_Q "ld.global.nc.L2::256B"
#elif HINT >= 3
#define LD_Q "ld.global.nc.L1::no_allocate.L2::256B"
#endif
#if HINT == 4
#define ST_Q "st.global.cs"
#else
#define ST_Q "st.global"
#endif

#if VW == 1
typedef int vec_t;
#elif VW == 2
typedef int2 vec_t;
#elif VW == 4
typedef int4 vec_t;
#else
#error "VW must be 1, 2 or 4"
#endif

#if HINT
__device__ __forceinline__ int load(const int *p)
{
    int v;
    asm volatile(LD_Q ".s32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ int2 load(const int2 *p)
{
    int2 v;
    asm volatile(LD_Q ".v2.s32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
    return v;
}
__device__ __forceinline__ int4 load(const int4 *p)
{
    int4 v;
    asm volatile(LD_Q ".v4.s32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}
__device__ __forceinline__ void store(int *p, int v)
{
    asm volatile(ST_Q ".s32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void store(int2 *p, int2 v)
{
    asm volatile(ST_Q ".v2.s32 [%0], {%1, %2};" :: "l"(p), "r"(v.x), "r"(v.y) : "memory");
}
__device__ __forceinline__ void store(int4 *p, int4 v)
{
    asm volatile(ST_Q ".v4.s32 [%0], {%1, %2, %3, %4};"
                 :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
#else
template <typename T> __device__ __forceinline__ T load(const T *p) { return *p; }
template <typename T> __device__ __forceinline__ void store(T *p, T v) { *p = v; }
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
#if PRED
    for (; i < nvec; i += UNROLL * stride) {
        vec_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec)
                v[u] = load(vin + i + u * stride);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec)
                store(vout + i + u * stride, v[u]);
    }
#else
    for (; i + (UNROLL - 1) * stride < nvec; i += UNROLL * stride) {
        vec_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = load(vin + i + u * stride);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            store(vout + i + u * stride, v[u]);
    }
    for (; i < nvec; i += stride)
        store(vout + i, load(vin + i));
#endif

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
