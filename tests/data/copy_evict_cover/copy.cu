/* copy_evict's L2 policies on templates/copy's cover-once pass without a
 * loop (candidate, issue 15; copy.ini). */

#if VW == 1
typedef int vec_t;
#elif VW == 2
typedef int2 vec_t;
#elif VW == 4
typedef int4 vec_t;
#else
#error "VW must be 1, 2 or 4"
#endif

#if EVICT == 2
#define LD_Q "ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B"
#else
#define LD_Q "ld.global.nc.L1::no_allocate.L2::cache_hint"
#endif

#if EVICT
__device__ __forceinline__ unsigned long long evict_first(void)
{
    unsigned long long p;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;"
                 : "=l"(p));
    return p;
}
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
__device__ __forceinline__ unsigned long long evict_first(void) { return 0; }
template <typename T>
__device__ __forceinline__ T load(const T *a, unsigned long long) { return *a; }
#endif

#if EVICT == 3
#define ST_Q "st.global.L1::no_allocate.L2::cache_hint"
__device__ __forceinline__ void store(int *a, int v, unsigned long long p)
{
    asm volatile(ST_Q ".s32 [%0], %1, %2;" :: "l"(a), "r"(v), "l"(p) : "memory");
}
__device__ __forceinline__ void store(int2 *a, int2 v, unsigned long long p)
{
    asm volatile(ST_Q ".v2.s32 [%0], {%1, %2}, %3;"
                 :: "l"(a), "r"(v.x), "r"(v.y), "l"(p) : "memory");
}
__device__ __forceinline__ void store(int4 *a, int4 v, unsigned long long p)
{
    asm volatile(ST_Q ".v4.s32 [%0], {%1, %2, %3, %4}, %5;"
                 :: "l"(a), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(p)
                 : "memory");
}
#else
template <typename T>
__device__ __forceinline__ void store(T *a, T v, unsigned long long) { *a = v; }
#endif

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
copy_tuned(const int *__restrict__ in, int *__restrict__ out, long n)
{
    const vec_t *vin = reinterpret_cast<const vec_t *>(in);
    vec_t *vout = reinterpret_cast<vec_t *>(out);
    const long nvec = n / VW;
    const long tid = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const long stride = (long)gridDim.x * BLOCK_SIZE;
    const unsigned long long pol = evict_first();
    long i = tid;

#if GRID == 0
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
                store(vout + i + u * stride, v[u], pol);
    }

    const long t = nvec * VW + tid;
    if (t < n)
        out[t] = in[t];
}

extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
