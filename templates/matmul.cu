/* matmul -- C = A * B in FP32, row-major: A is m x k, B is k x n, C is
 * m x n. The tuned kernel is Simon Boehm's "kernel 10: warptiling" (How to
 * Optimize a CUDA Matmul Kernel for cuBLAS-like Performance) with float4
 * loads, A transposed in shared memory, a cp.async pipeline of
 * shared-memory stages (sm_80+) and a block-index swizzle for L2 reuse.
 * It replaced a register-blocked kernel without warp tiles (Boehm's kernels
 * 3 to 6 and double buffering; kept in tests/data/journals/templates for
 * the journals recorded with it), which reached 0.84x cuBLAS at 4096^3.
 *
 * Seed: the classic shared-memory tiled kernel (CUDA C Programming Guide,
 * "Shared Memory"; Boehm's kernel 3). The default configuration (WT=0,
 * every other parameter at its first value) is that kernel: 16 x 16
 * threads, one output per thread, 16 x 16 tiles of A and B in shared
 * memory, two barriers per tile. The manifest pins every other parameter
 * to its first value when WT=0, so the seed appears once in the space.
 *
 * Parameters (WT=1, the warp-tiled kernel):
 *   BM, BN   block tile: the block computes a BM x BN tile of C
 *   BK       depth of the A and B tiles staged in shared memory per step
 *   WM, WN   warp tile: each warp computes a WM x WN sub-tile of the block
 *            tile, (BM/WM) * (BN/WN) warps per block. A warp's fragments
 *            are read from shared memory once per kk and reused by
 *            WM*WN/32 FMAs per thread: bigger warp tiles, fewer shared
 *            loads per FMA
 *   TM, TN   thread tile inside one warp sub-tile: 4 or 8, read as float4s
 *            (a thread's R = WMITER * TM rows and C = WNITER * TN columns
 *            decide the kernel; the manifest keeps one spelling of each)
 *   WNITER   the warp tile is covered by the warp's 32 threads in
 *            WMITER x WNITER sub-tiles of WSUBM x WSUBN, each thread
 *            holding TM x TN outputs of each; WMITER follows from the
 *            others: WM*WN = 32 * TM*TN * WMITER*WNITER. Sub-iterations
 *            keep the threads of a warp on neighbouring float4s (no bank
 *            conflicts, coalesced C stores) while each thread holds many
 *            outputs
 *   VEC      1: float4 (16-byte) loads of A and B and stores of C; needs k
 *            and n multiples of 4 (rows 16-byte aligned) -- manifest
 *            constraint. 2: the same float4 registers and shared-memory
 *            layout at any k and n: a float4 is loaded whole where its
 *            matrix's rows are aligned, else element by element with each
 *            element's bounds checked (4-byte cp.async for B); C is
 *            stored element by element. With 2 stages the elements of a
 *            tile are spread over the threads instead (a warp reads runs
 *            of a row), unchecked where the tile is inside the matrix.
 *            0: 4-byte loads. The manifest offers VEC=2 only where rows
 *            are not aligned (1037^3), VEC=0 only for the seed
 *   STAGES   shared-memory stages of B. 1: one buffer; the next tiles of A
 *            and B are loaded into registers before the current tile is
 *            used and stored after it (two barriers per tile). 2, 3: B
 *            tiles go straight from global to shared memory with cp.async,
 *            STAGES - 1 tiles ahead of the one used; A is still staged in
 *            registers one tile ahead (see Layout), into two buffers: one
 *            barrier per tile
 *   GROUP_M  block-index swizzle: consecutive blocks walk GROUP_M block
 *            rows down a column of tiles before moving right, so the
 *            blocks resident at once share A rows and B columns in L2
 *            (Triton's "grouped ordering"); 1: the plain row-major order.
 *            Offered only where the matrices outgrow L2 (m, n >= 2048)
 *   SPLITK   slices of k: grid z = SPLITK blocks per output tile, each
 *            summing whole BK tiles of its slice; the partial tiles meet
 *            in the workspace ws and the last block of a tile to arrive
 *            (an atomic ticket per tile) adds them in slice order and
 *            stores C, in the same launch. For shapes with few output
 *            tiles per SM (long k, skinny, 1037^3 at 64 x 128). The
 *            kernel reads the slices from gridDim.z, so SPLITK is a
 *            launch-only parameter: its values share one module. ws and
 *            tickets are unused with one slice; tickets must be zero
 *            before the first launch, and every launch leaves them zero
 *   RED      split-K's sum: 0 as above, the same bits in every run; 1
 *            every slice adds its partial tile into sums with float
 *            atomics (red.global.add.v4.f32 on sm_90) and the last block
 *            reads one tile instead of SPLITK: where k is long the
 *            in-order sum by one block was the tail of the kernel
 *            (256^2 x 16384: 0.815x cuBLAS in order, 0.944x atomic, H100
 *            brute force, docs/results.md). The order of the additions,
 *            so the last bits of C, varies from run to run. sums must be
 *            zero before the first launch; the last block leaves it zero
 *   SKB      stream-K (Osama et al., "Stream-K: Work-centric Parallel
 *            Decomposition for Dense Matrix Multiplication", 2023): a
 *            persistent grid of SKB blocks per SM splits the (tile, k
 *            tile) iterations of the whole product evenly, so that the
 *            last wave of whole tiles does not leave SMs idle (1037^3:
 *            153 tiles of 128 x 64 on 132 SMs); a tile shared by several
 *            blocks is finished by the last to arrive, as with split-K.
 *            The kernel reads the blocks from gridDim.x: launch-only
 *   SPLIT    the code compiled in: 1 split-K (SPLITK > 1), 3 split-K with
 *            RED=1, 2 stream-K (SKB > 0), 0 neither: the manifest
 *            computes it from those ([macros])
 *
 * Layout. A is stored transposed in shared memory, As[kk][row], so that a
 * thread reads the TM values of A for one kk as float4s, like its TN
 * values of B. cp.async copies bytes and cannot transpose, so A takes the
 * register path (a float4 load from global memory before the FMAs of the
 * current tile, four scalar shared stores after them): its latency is
 * hidden behind one tile of FMAs, which suffices for the A tile (a
 * quarter to a half of the bytes of a step). Storing A untransposed with
 * cp.async would make the A fragments TM scalar shared loads per kk
 * instead of TM/4 float4s, in the inner loop, which costs more than the
 * register staging. The stride BM + 4 keeps rows 16-byte aligned and
 * spreads the transposing stores over the banks (2-way conflicts at most,
 * once per tile). A thread's rows (columns) in a warp sub-tile come in
 * chunks of 4 consecutive ones, the chunks 4 * (threads along that axis)
 * apart: the float4 fragment reads of a quarter-warp hit 32 different
 * banks, and the float4 stores of C are coalesced.
 *
 * Pipeline (STAGES >= 2). cp.async group g holds the B tile g; the prologue
 * commits STAGES - 1 groups, each step one more (possibly empty, so the
 * count stays uniform), and "wait_group STAGES - 2" before the barrier
 * guarantees the B tile of the next step. The buffer a step's cp.async
 * writes, (t + STAGES - 1) % STAGES = (t - 1) % STAGES, was last read by
 * the previous step, before its closing barrier.
 *
 * Bounds. Any m, n, k: a tile element outside A or B is loaded as 0
 * (cp.async with a source size of 0 fills zeros), and only outputs inside
 * C are stored. Each output is summed over k in order with fmaf, like
 * matmul_ref, and the zeros add exactly: results agree bit for bit. */

#if WT == 0
/* ---- the seed: classic 16 x 16 tiled kernel --------------------------- */
#if BM != 16 || BN != 16 || BK != 16
#error "WT=0 is the 16 x 16 tiled kernel: BM = BN = BK = 16"
#endif

extern "C" __global__ void __launch_bounds__(256)
matmul_tuned(const float *__restrict__ A, const float *__restrict__ B,
             float *__restrict__ C, int m, int n, int k, float *ws,
             int *tickets, float *sums)
{
    __shared__ float As[16][16], Bs[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty;
    const int col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int kt = 0; kt < k; kt += 16) {
        As[ty][tx] = row < m && kt + tx < k ? A[(long)row * k + kt + tx] : 0.0f;
        Bs[ty][tx] = kt + ty < k && col < n ? B[(long)(kt + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 16; kk++)
            acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
        __syncthreads();
    }
    if (row < m && col < n)
        C[(long)row * n + col] = acc;
}

#elif WT == 1
/* ---- warp-tiled kernel ------------------------------------------------ */
#define WARPS_M (BM / WM)
#define WARPS_N (BN / WN)
#define THREADS (WARPS_M * WARPS_N * 32)
#define WMITER ((WM * WN) / (32 * TM * TN * WNITER))
#define WSUBM (WM / WMITER)
#define WSUBN (WN / WNITER)
#define TRM (WSUBM / TM) /* threads along M in a warp sub-tile */
#define TRN (WSUBN / TN) /* threads along N */

#if BM % WM != 0 || BN % WN != 0
#error "BM must be a multiple of WM and BN a multiple of WN"
#endif
#if THREADS < 64 || THREADS > 1024
#error "(BM / WM) * (BN / WN) warps must be 2..32"
#endif
#if (TM != 4 && TM != 8) || (TN != 4 && TN != 8)
#error "WT=1 needs TM and TN of 4 or 8 (float4 fragments)"
#endif
#if WNITER < 1 || WN % (WNITER * TN) != 0
#error "WN must be a multiple of WNITER * TN"
#endif
#if WMITER < 1 || (WM * WN) % (32 * TM * TN * WNITER) != 0 || \
    WM % (WMITER * TM) != 0
#error "the warp tile must split into WMITER x WNITER sub-tiles of 32 thread tiles"
#endif
#if TRM * TRN != 32
#error "a warp sub-tile must hold 32 thread tiles"
#endif
#if STAGES < 1 || STAGES > 3
#error "STAGES must be 1, 2 or 3"
#endif
#if GROUP_M < 1
#error "GROUP_M must be >= 1"
#endif
#if SPLIT < 0 || SPLIT > 3
#error "SPLIT must be 0, 1, 2 or 3"
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800 && STAGES > 1
#error "STAGES > 1 needs cp.async (sm_80+)"
#endif

#if VEC == 1 || VEC == 2
#if BK % 4 != 0 || BN % 4 != 0
#error "VEC=1 and VEC=2 need BK and BN multiples of 4"
#endif
#define VW 4
typedef float4 ld_t;
#define LD_ZERO make_float4(0.0f, 0.0f, 0.0f, 0.0f)
#elif VEC == 0
#define VW 1
typedef float ld_t;
#define LD_ZERO 0.0f
#else
#error "VEC must be 0, 1 or 2"
#endif

#define AS (BM + 4)                 /* row stride of the transposed A tile */
#define A_TILE (BK * AS)
#define B_TILE (BK * BN)
#define A_BUFS (STAGES == 1 ? 1 : 2) /* A is staged one tile ahead */
#define B_BUFS STAGES

/* Global -> shared copies: VW-wide chunks, chunk c of a tile by thread
 * c % THREADS, so consecutive threads read consecutive addresses. */
#define A_CHUNKS (BM * (BK / VW))
#define B_CHUNKS (BK * (BN / VW))
#define A_LOADS ((A_CHUNKS + THREADS - 1) / THREADS)
#define B_LOADS ((B_CHUNKS + THREADS - 1) / THREADS)

#if STAGES > 1
/* cp.async of 16 (4) bytes; src_bytes = 0 writes zeros and reads nothing
 * (the source address must still be a valid one: the caller passes B).
 * 16-byte copies may bypass L1 (.cg); 4-byte ones must use .ca. */
__device__ __forceinline__ void cp_async16(float *dst, const float *src, bool in)
{
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d),
                 "l"(src), "r"(in ? 16 : 0)
                 : "memory");
}
__device__ __forceinline__ void cp_async4(float *dst, const float *src, bool in)
{
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d),
                 "l"(src), "r"(in ? 4 : 0)
                 : "memory");
}
/* A 4-byte copy wholly inside the matrix: no source size. */
__device__ __forceinline__ void cp_async4_in(float *dst, const float *src)
{
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
/* Wait until at most N of this thread's groups are pending. */
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
#endif

/* Minimum 1 block per SM: with __launch_bounds__(THREADS) alone, ptxas
 * (CUDA 13.0) capped some 256-thread kernels at 80 registers and spilled;
 * the ", 1" lets them take the ~90 they need. */
extern "C" __global__ void __launch_bounds__(THREADS, 1)
matmul_tuned(const float *__restrict__ A, const float *__restrict__ B,
             float *__restrict__ C, int m, int n, int k, float *ws,
             int *tickets, float *sums)
{
    /* float4 so the buffer is 16-byte aligned; B tiles first: their size
     * is a multiple of 4 floats, so the A tiles stay aligned too. */
    extern __shared__ float4 smem4[];
    float *const bs = reinterpret_cast<float *>(smem4);
    float *const as = bs + B_BUFS * B_TILE;

    const int tid = threadIdx.x;
    const int lane = tid % 32;
    const int warp = tid / 32;
    const int wr = warp / WARPS_N; /* warp row in the block tile */
    const int wc = warp % WARPS_N; /* warp column */
    const int tr = lane / TRN;     /* thread row in a warp sub-tile */
    const int tc = lane % TRN;     /* thread column */

    /* The work of a block comes in units: one output tile at
     * (bm0, bn0), its k tiles kbase / BK .. kbase / BK + tiles - 1. Without
     * stream-K a block has one unit: its tile (grid x, y, swizzled), whole
     * or its slice of k (grid z, whole BK tiles; none for a trailing slice
     * when the tiles do not divide evenly). */
    const int k_tiles = (k + BK - 1) / BK;
    int bm0, bn0, kbase, tiles;
#if SPLIT == 2
    /* Stream-K: the (tile, k tile) iterations of the whole product, tile
     * by tile in row-major order, are split evenly over the grid's blocks
     * (a persistent grid of a few blocks per SM), so every SM has the
     * same work however many tiles there are: a block's range covers
     * the end of one tile, whole tiles, the start of another. */
    const int tiles_n = (n + BN - 1) / BN;
    const long total = (long)tiles_n * ((m + BM - 1) / BM) * k_tiles;
    const long workers = gridDim.x;
    const long it_begin = (long)blockIdx.x * total / workers;
    const long it_end = ((long)blockIdx.x + 1) * total / workers;
#else
#if GROUP_M == 1
    bm0 = blockIdx.y * BM;
    bn0 = blockIdx.x * BN;
#else
    /* Blocks are issued in order of pid; GROUP_M block rows at a time,
     * down each column of tiles. The last group may be shorter. */
    {
        const int grid_n = gridDim.x, grid_m = gridDim.y;
        const int pid = blockIdx.y * grid_n + blockIdx.x;
        const int in_group = GROUP_M * grid_n;
        const int first_m = (pid / in_group) * GROUP_M;
        const int size_m = min(grid_m - first_m, GROUP_M);
        bm0 = (first_m + (pid % in_group) % size_m) * BM;
        bn0 = ((pid % in_group) / size_m) * BN;
    }
#endif
    const int slices = SPLIT ? (int)gridDim.z : 1;
    const int per_slice = (k_tiles + slices - 1) / slices;
    const int kt0 = min((int)blockIdx.z * per_slice, k_tiles);
    tiles = min(per_slice, k_tiles - kt0);
    kbase = kt0 * BK;
#endif
#if VEC == 1
    const bool a_vec = true, b_vec = true; /* the manifest's vec_aligned */
#elif VEC == 2
    /* Rows are 16-byte aligned when k (A) or n (B, C) is a multiple of 4:
     * then a float4 is wholly inside the matrix or wholly outside; else
     * its elements are loaded (stored) one by one, predicated. Uniform
     * over the grid, so the branch never diverges. A separate value, as
     * the second path cost VEC=1 kernels registers (126 to 167, ptxas,
     * STAGES=1) at sizes that never take it. */
    const bool a_vec = k % 4 == 0, b_vec = n % 4 == 0;
#endif

    ld_t ra[A_LOADS];
#if STAGES == 1
    ld_t rb[B_LOADS];
#endif

#if VEC == 2 && STAGES == 2
    /* Rows not aligned (2 stages): element e of a tile goes to thread e %
     * THREADS, so that a warp reads runs of consecutive floats of a row
     * (BK of A, 32 of B), and a tile wholly inside the matrix is read
     * with no element checked. Chunks of four, each element checked, made
     * 2049^3 issue 16% more instructions than 2052^3 with the same tiles
     * (ncu, H200), in a kernel that issues one most cycles. Element e of
     * A is at row e / BK, column e % BK (powers of two); a thread's
     * column is fixed, its rows THREADS / BK apart. */
#define A_ELEMS ((BM * BK + THREADS - 1) / THREADS) /* <= 4 * A_LOADS */
#define A_RSTEP (THREADS / BK)
/* row j of a thread's A elements lies in the tile */
#define A_IN_TILE(j) (BM * BK % THREADS == 0 || tid / BK + (j) * A_RSTEP < BM)
#define B_ELEMS ((B_TILE + THREADS - 1) / THREADS)
/* element l of a thread's B elements lies in the tile */
#define B_IN_TILE(l) (B_TILE % THREADS == 0 || tid + (l) * THREADS < B_TILE)
    (void)a_vec; /* A's rows are read element by element here, aligned or not */
    auto load_a = [&](int kt) {
        const float *const src = A + (long)(bm0 + tid / BK) * k + kt + tid % BK;
        float *const r = reinterpret_cast<float *>(ra);
        if (bm0 + BM <= m && kt + BK <= k) {
#pragma unroll
            for (int j = 0; j < A_ELEMS; j++)
                if (A_IN_TILE(j))
                    r[j] = src[(long)j * A_RSTEP * k];
        } else {
            const bool col_in = kt + tid % BK < k;
            const int rows_left = m - bm0 - tid / BK;
#pragma unroll
            for (int j = 0; j < A_ELEMS; j++) {
                r[j] = 0.0f;
                if (A_IN_TILE(j) && col_in && j * A_RSTEP < rows_left)
                    r[j] = src[(long)j * A_RSTEP * k];
            }
        }
    };
    auto store_a = [&](int buf) {
        float *const a = as + buf * A_TILE + (tid % BK) * AS + tid / BK;
        const float *const r = reinterpret_cast<const float *>(ra);
#pragma unroll
        for (int j = 0; j < A_ELEMS; j++)
            if (A_IN_TILE(j))
                a[j * A_RSTEP] = r[j];
    };
#else
    /* A tile at depth kt into registers; zeros outside A. */
    auto load_a = [&](int kt) {
#pragma unroll
        for (int l = 0; l < A_LOADS; l++) {
            const int c = tid + l * THREADS;
            const int row = c / (BK / VW), kc = (c % (BK / VW)) * VW;
            const int gr = bm0 + row, gk = kt + kc;
            ra[l] = LD_ZERO;
            if ((A_CHUNKS % THREADS == 0 || c < A_CHUNKS) && gr < m && gk < k) {
                const float *const src = A + (long)gr * k + gk;
#if VEC
                if (a_vec) {
                    ra[l] = *reinterpret_cast<const float4 *>(src);
                } else {
                    ra[l].x = src[0];
                    if (gk + 1 < k) ra[l].y = src[1];
                    if (gk + 2 < k) ra[l].z = src[2];
                    if (gk + 3 < k) ra[l].w = src[3];
                }
#else
                ra[l] = *src;
#endif
            }
        }
    };
    /* Registers into the transposed A buffer buf. */
    auto store_a = [&](int buf) {
        float *const a = as + buf * A_TILE;
#pragma unroll
        for (int l = 0; l < A_LOADS; l++) {
            const int c = tid + l * THREADS;
            const int row = c / (BK / VW), kc = (c % (BK / VW)) * VW;
            if (A_CHUNKS % THREADS == 0 || c < A_CHUNKS) {
#if VEC
                a[(kc + 0) * AS + row] = ra[l].x;
                a[(kc + 1) * AS + row] = ra[l].y;
                a[(kc + 2) * AS + row] = ra[l].z;
                a[(kc + 3) * AS + row] = ra[l].w;
#else
                a[kc * AS + row] = ra[l];
#endif
            }
        }
    };
#endif

#if STAGES == 1
    auto load_b = [&](int kt) {
#pragma unroll
        for (int l = 0; l < B_LOADS; l++) {
            const int c = tid + l * THREADS;
            const int row = c / (BN / VW), nc = (c % (BN / VW)) * VW;
            const int gk = kt + row, gn = bn0 + nc;
            rb[l] = LD_ZERO;
            if ((B_CHUNKS % THREADS == 0 || c < B_CHUNKS) && gk < k && gn < n) {
                const float *const src = B + (long)gk * n + gn;
#if VEC
                if (b_vec) {
                    rb[l] = *reinterpret_cast<const float4 *>(src);
                } else {
                    rb[l].x = src[0];
                    if (gn + 1 < n) rb[l].y = src[1];
                    if (gn + 2 < n) rb[l].z = src[2];
                    if (gn + 3 < n) rb[l].w = src[3];
                }
#else
                rb[l] = *src;
#endif
            }
        }
    };
    auto store_b = [&]() {
#pragma unroll
        for (int l = 0; l < B_LOADS; l++) {
            const int c = tid + l * THREADS;
            const int row = c / (BN / VW), nc = (c % (BN / VW)) * VW;
            if (B_CHUNKS % THREADS == 0 || c < B_CHUNKS)
                *reinterpret_cast<ld_t *>(bs + row * BN + nc) = rb[l];
        }
    };
#else
    /* B tile at depth kt straight into B buffer buf; zeros outside B. */
    auto copy_b = [&](int buf, int kt) {
        float *const b = bs + buf * B_TILE;
#if VEC == 2 && STAGES == 2
        /* As load_a above; element e of B at row e / BN, column e % BN:
         * element tid + l * THREADS at row tid / BN + l * THREADS / BN,
         * column tid % BN + l * THREADS % BN. */
        if (!b_vec) {
            const float *const src = B + (long)(kt + tid / BN) * n + bn0 + tid % BN;
            if (bn0 + BN <= n && kt + BK <= k) {
#pragma unroll
                for (int l = 0; l < B_ELEMS; l++)
                    if (B_IN_TILE(l))
                        cp_async4_in(b + tid + l * THREADS,
                                     src + (long)(l * THREADS / BN) * n + l * THREADS % BN);
            } else {
                const int rows_left = k - kt - tid / BN, cols_left = n - bn0 - tid % BN;
#pragma unroll
                for (int l = 0; l < B_ELEMS; l++)
                    if (B_IN_TILE(l)) {
                        const bool in = l * THREADS / BN < rows_left && l * THREADS % BN < cols_left;
                        cp_async4(b + tid + l * THREADS,
                                  in ? src + (long)(l * THREADS / BN) * n + l * THREADS % BN : B, in);
                    }
            }
            return;
        }
#endif
#pragma unroll
        for (int l = 0; l < B_LOADS; l++) {
            const int c = tid + l * THREADS;
            const int row = c / (BN / VW), nc = (c % (BN / VW)) * VW;
            const int gk = kt + row, gn = bn0 + nc;
            if (B_CHUNKS % THREADS == 0 || c < B_CHUNKS) {
                const float *const src = B + (long)gk * n + gn;
#if VEC
                if (b_vec) {
                    const bool in = gk < k && gn < n;
                    cp_async16(b + row * BN + nc, in ? src : B, in);
                } else {
#pragma unroll
                    for (int q = 0; q < 4; q++) {
                        const bool in = gk < k && gn + q < n;
                        cp_async4(b + row * BN + nc + q, in ? src + q : B, in);
                    }
                }
#else
                const bool in = gk < k && gn < n;
                cp_async4(b + row * BN + nc, in ? src : B, in);
#endif
            }
        }
    };
#endif

    float acc[WMITER * TM][WNITER * TN];

    /* Offsets of this thread's first float4 of A (B) in a row of the
     * tile; sub-tile wm (wn), chunk i4 (j4) adds wm * WSUBM + i4 * TRM * 4
     * (wn * WSUBN + j4 * TRN * 4). */
    const int a_off = wr * WM + tr * 4;
    const int b_off = wc * WN + tc * 4;

    /* Outer products of the BK slices of the A buffer abuf and B buffer
     * bbuf. */
    auto compute = [&](int abuf, int bbuf) {
        const float *const a = as + abuf * A_TILE + a_off;
        const float *const b = bs + bbuf * B_TILE + b_off;
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float fa[WMITER * TM], fb[WNITER * TN];
#pragma unroll
            for (int wm = 0; wm < WMITER; wm++)
#pragma unroll
                for (int i4 = 0; i4 < TM / 4; i4++) {
                    const float4 v = *reinterpret_cast<const float4 *>(
                        a + kk * AS + wm * WSUBM + i4 * (TRM * 4));
                    fa[wm * TM + i4 * 4 + 0] = v.x;
                    fa[wm * TM + i4 * 4 + 1] = v.y;
                    fa[wm * TM + i4 * 4 + 2] = v.z;
                    fa[wm * TM + i4 * 4 + 3] = v.w;
                }
#pragma unroll
            for (int wn = 0; wn < WNITER; wn++)
#pragma unroll
                for (int j4 = 0; j4 < TN / 4; j4++) {
                    const float4 v = *reinterpret_cast<const float4 *>(
                        b + kk * BN + wn * WSUBN + j4 * (TRN * 4));
                    fb[wn * TN + j4 * 4 + 0] = v.x;
                    fb[wn * TN + j4 * 4 + 1] = v.y;
                    fb[wn * TN + j4 * 4 + 2] = v.z;
                    fb[wn * TN + j4 * 4 + 3] = v.w;
                }
#pragma unroll
            for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
                for (int j = 0; j < WNITER * TN; j++)
                    acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
        }
    };

#if SPLIT == 2
    for (long it = it_begin; it < it_end; it += tiles) {
        const int tile = (int)(it / k_tiles);
        const int ktb = (int)(it % k_tiles);
        tiles = (int)min((long)(k_tiles - ktb), it_end - it);
        bm0 = (tile / tiles_n) * BM;
        bn0 = (tile % tiles_n) * BN;
        kbase = ktb * BK;
        if (it != it_begin)
            __syncthreads(); /* the previous unit's last reads of the tiles */
#else
    {
#endif
#pragma unroll
        for (int i = 0; i < WMITER * TM; i++)
#pragma unroll
            for (int j = 0; j < WNITER * TN; j++)
                acc[i][j] = 0.0f;

#if STAGES == 1
        load_a(kbase);
        load_b(kbase);
        store_a(0);
        store_b();
        __syncthreads();
        for (int t = 0; t < tiles; t++) {
            const bool more = t + 1 < tiles; /* uniform over the block */
            if (more) { /* in flight during compute */
                load_a(kbase + (t + 1) * BK);
                load_b(kbase + (t + 1) * BK);
            }
            compute(0, 0);
            if (more) {
                __syncthreads(); /* everyone is done reading the tiles */
                store_a(0);
                store_b();
                __syncthreads();
            }
        }
#else
        /* Prologue: B tiles 0 .. STAGES - 2 in flight (group g = tile g), A
         * tile 0 stored; then B tile 0 waited for. */
#pragma unroll
        for (int s = 0; s < STAGES - 1; s++) {
            if (s < tiles)
                copy_b(s, kbase + s * BK);
            cp_async_commit();
        }
        load_a(kbase);
        store_a(0);
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        for (int t = 0; t < tiles; t++) {
            const bool more = t + 1 < tiles; /* uniform over the block */
            /* B tile t + STAGES - 1 into the buffer read by step t - 1. */
            if (t + STAGES - 1 < tiles)
                copy_b((t + STAGES - 1) % STAGES, kbase + (t + STAGES - 1) * BK);
            cp_async_commit();
            if (more)
                load_a(kbase + (t + 1) * BK); /* in flight during compute */
            compute(t & 1, t % STAGES);
            if (more) {
                /* A buffer (t + 1) & 1 was last read by step t - 1. */
                store_a((t + 1) & 1);
                cp_async_wait<STAGES - 2>(); /* groups 0 .. t + 1 done */
                __syncthreads();
            }
        }
        cp_async_wait<0>(); /* no copies left in flight at exit (all empty) */
#endif

        /* Split-K and stream-K fixup in one launch: every block that has part
         * of a tile's k stores its partial tile in ws, each thread its own
         * accumulators as float4s (coalesced: element e of thread t at
         * e * THREADS + t); the block that arrives last at the tile's ticket
         * sums the partials in k order (the same result whichever block is
         * last) and stores C. It sets the ticket back to 0, so the tickets
         * stay zero between launches (zero them once at allocation).
         * __threadfence before the ticket publishes the partial; after it,
         * the last block reads the others' partials from L2 (__ldcg). The
         * number of slices (split-K) or of blocks (stream-K) is the grid's,
         * not a macro, so those launch parameters share one module; SPLIT=0
         * leaves the code out, which cost the kernels of one slice 3-5% at
         * 4096^3 (H100, tests/bench/bench). */
        bool store = true;
#if SPLIT
        {
#define ACC4 ((WMITER * TM) * (WNITER * TN) / 4)
            __shared__ int last_arrival;
            const long slot = (long)THREADS * ACC4; /* BM * BN floats */
#if SPLIT != 3
            float4 *const w4 = reinterpret_cast<float4 *>(ws) + tid;
#endif
#if SPLIT == 1 || SPLIT == 3
            const int tile = (bm0 / BM) * (int)gridDim.x + bn0 / BN;
            const int parts = slices;
            const bool whole = parts == 1;
#if SPLIT == 1
            const long ntile = (long)gridDim.x * gridDim.y;
            float4 *const mine = w4 + ((long)blockIdx.z * ntile + tile) * slot;
#else
            float4 *const mine = reinterpret_cast<float4 *>(sums) + tid + (long)tile * slot;
#endif
#else
            /* Block b's range starts at s(b) = b * total / workers; the block
             * holding iteration i is ceil((i + 1) * workers / total) - 1. A
             * block has at most two partial tiles, its first unit (slot 2b)
             * and its last (slot 2b + 1): a unit is the block's first unless
             * the block began before the tile did. */
            const long t0 = (long)tile * k_tiles;
            const long b_first = ((t0 + 1) * workers + total - 1) / total - 1;
            const long b_last = ((t0 + k_tiles) * workers + total - 1) / total - 1;
            const int parts = (int)(b_last - b_first + 1);
            const bool whole = tiles == k_tiles;
            float4 *const mine = w4 + (2 * (long)blockIdx.x + (it_begin < t0 ? 1 : 0)) * slot;
#endif
            if (!whole) {
#pragma unroll
                for (int e = 0; e < ACC4; e++) {
                    const int i = e / (WNITER * TN / 4), j = (e % (WNITER * TN / 4)) * 4;
#if SPLIT == 3
                    const float4 v = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2],
                                                 acc[i][j + 3]);
#if __CUDA_ARCH__ >= 900
                    atomicAdd(mine + (long)e * THREADS, v);
#else
                    float *const s = reinterpret_cast<float *>(mine + (long)e * THREADS);
                    atomicAdd(s, v.x);
                    atomicAdd(s + 1, v.y);
                    atomicAdd(s + 2, v.z);
                    atomicAdd(s + 3, v.w);
#endif
#else
                    mine[(long)e * THREADS] = make_float4(acc[i][j], acc[i][j + 1],
                                                          acc[i][j + 2], acc[i][j + 3]);
#endif
                }
                __threadfence();
                __syncthreads();
                if (tid == 0) {
                    const int before = atomicAdd(tickets + tile, 1);
                    last_arrival = before == parts - 1;
                    if (last_arrival)
                        tickets[tile] = 0; /* every part has arrived */
                }
                __syncthreads();
                store = last_arrival;
            }
            if (!whole && store) {
                /* The partials in k order, each one whole before the
                 * next: a thread's ACC4 loads of one part are in flight
                 * at once. Summing element by element over the parts
                 * waited for L2 once per load; at 256^2 x 16384 in 16
                 * slices most of the kernel's time. */
                auto gather = [&](const float4 *src, bool first) {
#pragma unroll
                    for (int e = 0; e < ACC4; e++) {
                        const int i = e / (WNITER * TN / 4), j = (e % (WNITER * TN / 4)) * 4;
                        const float4 v = __ldcg(src + (long)e * THREADS);
                        acc[i][j] = first ? v.x : acc[i][j] + v.x;
                        acc[i][j + 1] = first ? v.y : acc[i][j + 1] + v.y;
                        acc[i][j + 2] = first ? v.z : acc[i][j + 2] + v.z;
                        acc[i][j + 3] = first ? v.w : acc[i][j + 3] + v.w;
                    }
                };
                __threadfence();
#if SPLIT == 1
#pragma unroll 1
                for (int z = 0; z < parts; z++)
                    gather(w4 + ((long)z * ntile + tile) * slot, z == 0);
#elif SPLIT == 3
                gather(mine, true);
#pragma unroll
                for (int e = 0; e < ACC4; e++) /* zero for the next launch */
                    __stcg(mine + (long)e * THREADS, make_float4(0.0f, 0.0f, 0.0f, 0.0f));
#else
#pragma unroll 1
                for (long b = b_first; b <= b_last; b++) {
                    const long sb = b * total / workers;
                    gather(w4 + (2 * b + (sb < t0 ? 1 : 0)) * slot, b == b_first);
                }
#endif
            }
#undef ACC4
        }
#else
        (void)ws;
        (void)tickets;
        (void)sums;
#endif

        if (store) {
            /* Row i of the thread tile, in sub-tile wm, is C row
             * bm0 + a_off + wm * WSUBM + (i / 4) * TRM * 4 + i % 4; likewise
             * columns. */
#pragma unroll
            for (int wm = 0; wm < WMITER; wm++)
#pragma unroll
                for (int i = 0; i < TM; i++) {
                    const int row = bm0 + a_off + wm * WSUBM + (i / 4) * (TRM * 4) + i % 4;
                    if (row >= m)
                        continue;
                    float *const crow = C + (long)row * n;
#pragma unroll
                    for (int wn = 0; wn < WNITER; wn++)
#pragma unroll
                        for (int j = 0; j < TN; j += 4) {
                            const int col = bn0 + b_off + wn * WSUBN + (j / 4) * (TRN * 4);
                            const int ai = wm * TM + i, aj = wn * TN + j;
#if VEC == 1
                            if (col < n) /* n % 4 == 0: all four or none */
                                *reinterpret_cast<float4 *>(crow + col) =
                                    make_float4(acc[ai][aj], acc[ai][aj + 1],
                                                acc[ai][aj + 2], acc[ai][aj + 3]);
#else
                            /* VEC=2 stores element by element even where
                             * n % 4 == 0: a float4 branch here cost its
                             * kernels 26 registers (ptxas: 153 against 127
                             * at 128 x 128 tiles), so one block per SM
                             * instead of two */
#pragma unroll
                            for (int q = 0; q < 4; q++)
                                if (col + q < n)
                                    crow[col + q] = acc[ai][aj + q];
#endif
                        }
                }
        }
    }
}

#else
#error "WT must be 0 or 1"
#endif

/* Obviously correct: one thread per element of C, launched with 16 x 16
 * threads. Like the tuned kernel it sums over k in order with fmaf. */
extern "C" __global__ void matmul_ref(const float *A, const float *B, float *C,
                                      int m, int n, int k, float *ws,
                                      int *tickets, float *sums)
{
    (void)ws;
    (void)tickets;
    (void)sums;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float s = 0.0f;
    for (int p = 0; p < k; p++)
        s = fmaf(A[(long)row * k + p], B[(long)p * n + col], s);
    C[(long)row * n + col] = s;
}
