/* reduce -- the sum of n ints, in one launch: every block reduces its part
 * in shared memory (or with warp shuffles) and adds its partial sum to
 * out[0] with one atomicAdd.
 *
 * Seed: Mark Harris, "Optimizing Parallel Reduction in CUDA". VARIANT walks
 * the article's progression of the in-block reduction:
 *   0  kernel 1: interleaved addressing, divergent branch (tid % (2*s))
 *   1  kernel 2: interleaved addressing, strided index (bank conflicts)
 *   2  kernel 3: sequential addressing
 *   3  kernel 4: sequential addressing, first add during load (UNROLL >= 2)
 *   4  kernel 5: unrolled last warp
 *   5  kernel 6: completely unrolled (the block size is a compile-time
 *      constant, the article's template parameter)
 *   6  beyond the article: warp shuffles (__shfl_down_sync), then one warp
 *      reduces the per-warp sums; no shared-memory tree at all
 * The default configuration (VARIANT=0, BLOCK_SIZE=128, GRID=0, VW=1,
 * UNROLL=1) is kernel 1 as the article launches it: one element per
 * thread, 128 threads per block.
 *
 * The load phase is the article's kernel 7 generalised: each thread adds
 * UNROLL vectors of VW ints per pass into a private sum (UNROLL loads in
 * flight before the first add), and with GRID > 0 a grid of GRID blocks
 * per SM strides over the input, so one block reduces many elements.
 *
 * The article's last-warp code relies on implicit warp-synchronous
 * execution through a volatile pointer. That is a race since Volta's
 * independent thread scheduling: here every step of the last warp reads,
 * then __syncwarp(), then writes, then __syncwarp(), which keeps the code
 * free of races under compute-sanitizer racecheck.
 *
 * int additions wrap on the device; the sum is exact modulo 2^32 in any
 * order, so the comparison with the reference is exact. */

#if VARIANT < 0 || VARIANT > 6
#error "VARIANT must be 0..6"
#endif

#if BLOCK_SIZE < 64 || BLOCK_SIZE > 1024 || (BLOCK_SIZE & (BLOCK_SIZE - 1))
#error "BLOCK_SIZE must be a power of two in 64..1024 (tree reductions)"
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

#if UNROLL < 1 || UNROLL > 16
#error "UNROLL must be between 1 and 16"
#endif

#if VARIANT <= 2 && UNROLL != 1
#error "VARIANT 0..2 load one vector per pass (UNROLL=1); the first add during load is VARIANT 3"
#endif

#if VARIANT == 3 && UNROLL < 2
#error "VARIANT 3 is the first add during load: UNROLL >= 2"
#endif

__device__ __forceinline__ int hsum(int v) { return v; }
__device__ __forceinline__ int hsum(int2 v) { return v.x + v.y; }
__device__ __forceinline__ int hsum(int4 v) { return (v.x + v.y) + (v.z + v.w); }

/* The last 64 partial sums, sdata[0..63] -> sdata[0], by the first warp
 * (needs BLOCK_SIZE >= 64). Each step reads, waits for the whole warp,
 * writes, and waits again, so no read races with the write of the step.
 * Thread 0 writes sdata[0] last. */
__device__ __forceinline__ void warp_reduce_smem(int *sdata, unsigned tid)
{
    int v = sdata[tid];
#pragma unroll
    for (unsigned s = 32; s > 0; s >>= 1) {
        v += sdata[tid + s];
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
    }
}

__device__ __forceinline__ int warp_reduce_shfl(int v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_tuned(const int *__restrict__ in, int *__restrict__ out, long n)
{
    __shared__ int sdata[BLOCK_SIZE];
    const unsigned tid = threadIdx.x;

    /* --- load: a private sum per thread ------------------------------- */
    /* cuMemAlloc returns 256-byte aligned buffers: in[0] starts a vector. */
    const vec_t *vin = reinterpret_cast<const vec_t *>(in);
    const long nvec = n / VW;
    const long stride = (long)gridDim.x * (BLOCK_SIZE * UNROLL);
    long i = (long)blockIdx.x * (BLOCK_SIZE * UNROLL) + tid;
    int sum = 0;

    /* Whole passes: UNROLL coalesced loads, all issued before the adds. */
    for (; i + (UNROLL - 1) * BLOCK_SIZE < nvec; i += stride) {
        vec_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = vin[i + u * BLOCK_SIZE];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            sum += hsum(v[u]);
    }
    /* At most one partial pass is left (stride >= UNROLL * BLOCK_SIZE),
     * and its last load is out of range by the loop condition. */
#pragma unroll
    for (int u = 0; u < UNROLL - 1; u++)
        if (i + u * BLOCK_SIZE < nvec)
            sum += hsum(vin[i + u * BLOCK_SIZE]);
    /* The n % VW ints past the last whole vector. */
    if (VW > 1) {
        const long t = nvec * VW + (long)blockIdx.x * BLOCK_SIZE + tid;
        if (t < n)
            sum += in[t];
    }

    /* --- in-block reduction -------------------------------------------- */
#if VARIANT == 6
    /* Shuffles within each warp, per-warp sums through shared memory, and
     * the first warp reduces those. */
    const unsigned lane = tid % 32, warp = tid / 32;
    sum = warp_reduce_shfl(sum);
    if (lane == 0)
        sdata[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < BLOCK_SIZE / 32 ? sdata[lane] : 0;
        sum = warp_reduce_shfl(sum);
        if (lane == 0)
            atomicAdd(out, sum);
    }
#else
    sdata[tid] = sum;
    __syncthreads();

#if VARIANT == 0
    /* Kernel 1: only threads with tid % (2s) == 0 work: divergent warps,
     * and the modulo by a run-time value is slow. */
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
#elif VARIANT == 1
    /* Kernel 2: contiguous threads work, at strided shared addresses
     * (bank conflicts). */
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
#elif VARIANT == 2 || VARIANT == 3
    /* Kernels 3 and 4: sequential addressing, conflict free. */
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
#elif VARIANT == 4
    /* Kernel 5: the tree stops at 64 partial sums; the first warp
     * finishes without __syncthreads(). */
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        warp_reduce_smem(sdata, tid);
#elif VARIANT == 5
    /* Kernel 6: the block size is known at compile time, so every step
     * and every test of it disappears but the needed ones. */
    if (BLOCK_SIZE >= 1024) {
        if (tid < 512)
            sdata[tid] += sdata[tid + 512];
        __syncthreads();
    }
    if (BLOCK_SIZE >= 512) {
        if (tid < 256)
            sdata[tid] += sdata[tid + 256];
        __syncthreads();
    }
    if (BLOCK_SIZE >= 256) {
        if (tid < 128)
            sdata[tid] += sdata[tid + 128];
        __syncthreads();
    }
    if (BLOCK_SIZE >= 128) {
        if (tid < 64)
            sdata[tid] += sdata[tid + 64];
        __syncthreads();
    }
    if (tid < 32)
        warp_reduce_smem(sdata, tid);
#endif

    /* Thread 0 holds or wrote sdata[0] last: no barrier needed. */
    if (tid == 0)
        atomicAdd(out, sdata[0]);
#endif
}

/* Obviously correct: a grid-stride sum per thread, a shared-memory tree
 * with a barrier at every step, one atomicAdd per block. Launched with 256
 * threads and a fixed grid. */
extern "C" __global__ void reduce_ref(const int *in, int *out, long n)
{
    __shared__ int s[256];
    int sum = 0;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x)
        sum += in[i];
    s[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h)
            s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, s[0]);
}
