/* copy -- int copy: vectorized loads (int, int2, int4), several independent
 * loads in flight per thread, and a grid that covers n once or strides over
 * it with a fixed number of blocks per SM.
 *
 * Seed: "CUDA Pro Tip: Increase Performance with Vectorized Memory Access"
 * and "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops". The
 * default configuration (VW=1, UNROLL=1, GRID=0, 128 threads) is the
 * article's scalar copy: one int per thread, one pass. */

/* copy with cp.async.bulk (candidate, issue 15): the thread copy of
 * templates/copy (BULK=0) and a bulk-copy family (BULK=1). */

#if BULK
/* One thread per block streams whole CHUNKs: a bulk load global ->
 * shared (completion counted in bytes on an mbarrier), then a bulk store
 * shared -> global; STAGES buffers so that STAGES - 1 loads are in flight
 * while the previous chunk is stored. The other threads copy the bytes
 * after the last whole chunk. in and out must be 16-byte aligned (as for
 * VW=4). */
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void bulk_load(unsigned dst, const void *src,
                                          unsigned bytes, unsigned bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 :: "r"(bar), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];\n"
                 :: "r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n .reg .pred p;\n"
                     " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    } while (!done);
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
copy_tuned(const int *__restrict__ in, int *__restrict__ out, long n)
{
    extern __shared__ __align__(128) unsigned char buf[];
    __shared__ __align__(8) unsigned long long bar[STAGES];
    const long chunks = n * 4 / CHUNK;
    const char *src = reinterpret_cast<const char *>(in);
    char *dst = reinterpret_cast<char *>(out);

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n"
                         :: "r"(smem_addr(&bar[s])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        long c = blockIdx.x;
        /* Prologue: the first STAGES chunks of this block. */
        for (int s = 0; s < STAGES && c + (long)s * gridDim.x < chunks; s++)
            bulk_load(smem_addr(buf + s * CHUNK),
                      src + (c + (long)s * gridDim.x) * CHUNK, CHUNK,
                      smem_addr(&bar[s]));
        for (long i = 0; c < chunks; i++, c += gridDim.x) {
            const int s = (int)(i % STAGES);
            bar_wait(smem_addr(&bar[s]), (unsigned)((i / STAGES) & 1));
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group"
                         " [%0], [%1], %2;\n"
                         :: "l"(dst + c * CHUNK), "r"(smem_addr(buf + s * CHUNK)),
                            "r"((unsigned)CHUNK) : "memory");
            asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
            /* Refill the buffer of the previous chunk once its store has
             * read it (the store just issued may still run). */
            const long next = c - gridDim.x + (long)STAGES * gridDim.x;
            if (i > 0 && next < chunks) {
                const int ps = (int)((i - 1) % STAGES);
                asm volatile("cp.async.bulk.wait_group.read 1;\n" ::: "memory");
                bulk_load(smem_addr(buf + ps * CHUNK), src + next * CHUNK,
                          CHUNK, smem_addr(&bar[ps]));
            }
        }
        asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
    }
    /* The bytes after the last whole chunk, as ints. */
    for (long t = chunks * (CHUNK / 4) + (long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
         t < n; t += (long)gridDim.x * BLOCK_SIZE)
        out[t] = in[t];
}

#else
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
#endif

/* Obviously correct: one element per thread. */
extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
