/* matmul -- C = A * B in FP32, row-major: A is m x k, B is k x n, C is
 * m x n. One kernel covers the progression of Simon Boehm's "How to
 * Optimize a CUDA Matmul Kernel for cuBLAS-like Performance": shared-memory
 * tiling, 1D and 2D register blocking, float4 loads with A transposed in
 * shared memory, and double buffering.
 *
 * Seed: the classic shared-memory tiled kernel (CUDA C Programming Guide,
 * "Shared Memory"; Boehm's kernel 3). The default configuration (BM=BN=16,
 * BK=16, TM=TN=1, VEC=0, UNROLL=0, DB=0) is that kernel: 16 x 16 threads,
 * one output per thread, 16 x 16 tiles of A and B in shared memory, two
 * barriers per tile.
 *
 * Parameters:
 *   BM, BN   block tile: the block computes a BM x BN tile of C
 *   BK       depth of the A and B tiles staged in shared memory per step
 *   TM, TN   thread tile: each thread accumulates TM x TN outputs in
 *            registers; (BM/TM) * (BN/TN) threads per block
 *   VEC      1: float4 loads of A and B (and float4 stores of C); needs k
 *            and n multiples of 4 (rows 16-byte aligned) -- manifest
 *            constraint
 *   UNROLL   #pragma unroll of the loop over the BK slices of a tile:
 *            0 = no pragma, the compiler's choice, as the seed is written
 *            (it unrolls the seed's 16 steps fully, big bodies by 2),
 *            1 = rolled, else that factor
 *   DB       1: two shared-memory buffers; the next tiles are loaded from
 *            global memory into registers before the current tiles are
 *            used, and stored to the other buffer after: one barrier per
 *            tile and the global latency hidden behind the FMAs
 *
 * Layout. With TM a multiple of 4, A is stored transposed in shared memory
 * (As[kk][row], rows padded to keep the transposing stores free of bank
 * conflicts), so that a thread reads its TM values of A for one kk as
 * float4s, like its TN values of B; with TM = 1 or 2 it keeps the seed's
 * As[row][kk]. When TM (TN) is a multiple of 4, a thread's rows (columns)
 * come in chunks of 4 consecutive ones, the chunks THREADS_M * 4
 * (THREADS_N * 4) apart: a quarter-warp's float4 shared loads hit 32
 * different banks, and the float4 stores of C are coalesced. Otherwise the
 * rows (columns) are THREADS_M (THREADS_N) apart, one at a time.
 *
 * Bounds. Any m, n, k: a tile element outside A or B is loaded as 0, and
 * only outputs inside C are stored. The tests cost a few integer
 * instructions per tile load and per store, next to TM * TN * BK FMAs per
 * thread and tile. */

#define THREADS_M (BM / TM)
#define THREADS_N (BN / TN)
#define THREADS (THREADS_M * THREADS_N)

#if BM % TM != 0 || BN % TN != 0
#error "BM must be a multiple of TM and BN a multiple of TN"
#endif
#if THREADS < 32 || THREADS > 1024
#error "(BM / TM) * (BN / TN) threads must be 32..1024"
#endif
#if DB != 0 && DB != 1
#error "DB must be 0 or 1"
#endif
#if UNROLL < 0
#error "UNROLL must be >= 0"
#endif

#if VEC == 1
#if BK % 4 != 0 || BN % 4 != 0
#error "VEC=1 needs BK and BN multiples of 4"
#endif
#define VW 4
typedef float4 ld_t;
#define LD_ZERO make_float4(0.0f, 0.0f, 0.0f, 0.0f)
#elif VEC == 0
#define VW 1
typedef float ld_t;
#define LD_ZERO 0.0f
#else
#error "VEC must be 0 or 1"
#endif

/* A thread's rows (columns) come in chunks of CM (CN) consecutive ones. */
#define CM (TM % 4 == 0 ? 4 : 1)
#define CN (TN % 4 == 0 ? 4 : 1)
#if TM % 4 == 0
/* A transposed, As[kk][row]: a thread's 4 consecutive rows are one float4.
 * The stride BM + 4 keeps float4 alignment and puts the 4 scalar stores
 * of a transposed float4 into different banks. */
#define A_TRANS 1
#define AS (BM + 4)
#define A_TILE (BK * AS)
#else
/* A as in global memory, As[row][kk], like the seed: with the kk loop
 * unrolled, the compiler reads 4 consecutive kk of a row as one float4.
 * Rows 128 bytes apart (BK = 32) would all fall into the same banks: +4. */
#define A_TRANS 0
#define AS (BK + (BK % 32 == 0 ? 4 : 0))
#define A_TILE (BM * AS)
#endif
#define B_TILE (BK * BN)
#define NBUF (DB + 1)

/* Global -> shared copies: VW-wide chunks, chunk c of a tile by thread
 * c % THREADS, so consecutive threads read consecutive addresses. */
#define A_CHUNKS (BM * (BK / VW))
#define B_CHUNKS (BK * (BN / VW))
#define A_LOADS ((A_CHUNKS + THREADS - 1) / THREADS)
#define B_LOADS ((B_CHUNKS + THREADS - 1) / THREADS)

/* Two levels, so that UNROLL is replaced by its value before _Pragma
 * stringifies it. */
#define MATMUL_PRAGMA(x) _Pragma(#x)
#define MATMUL_UNROLL(n) MATMUL_PRAGMA(unroll n)
#if UNROLL == 0
#define UNROLL_BK
#else
#define UNROLL_BK MATMUL_UNROLL(UNROLL)
#endif

extern "C" __global__ void __launch_bounds__(THREADS)
matmul_tuned(const float *__restrict__ A, const float *__restrict__ B,
             float *__restrict__ C, int m, int n, int k)
{
    /* float4 so the buffer is 16-byte aligned; B tiles first: their size
     * is a multiple of 4 floats, so the A tiles stay aligned too. */
    extern __shared__ float4 smem4[];
    float *const bs = reinterpret_cast<float *>(smem4);
    float *const as = bs + NBUF * B_TILE;

    const int tid = threadIdx.x;
    const int tx = tid % THREADS_N; /* thread column in the block tile */
    const int ty = tid / THREADS_N; /* thread row */
    const int bm0 = blockIdx.y * BM;
    const int bn0 = blockIdx.x * BN;

    ld_t ra[A_LOADS], rb[B_LOADS];

    /* Tiles at depth kt into registers; zeros outside A and B. With VEC,
     * a float4 is either wholly inside or wholly outside, as k and n are
     * multiples of 4. */
    auto load = [&](int kt) {
#pragma unroll
        for (int l = 0; l < A_LOADS; l++) {
            const int c = tid + l * THREADS;
            const int row = c / (BK / VW), kc = (c % (BK / VW)) * VW;
            const int gr = bm0 + row, gk = kt + kc;
            ra[l] = LD_ZERO;
            if ((A_CHUNKS % THREADS == 0 || c < A_CHUNKS) && gr < m && gk < k)
                ra[l] = *reinterpret_cast<const ld_t *>(A + (long)gr * k + gk);
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; l++) {
            const int c = tid + l * THREADS;
            const int row = c / (BN / VW), nc = (c % (BN / VW)) * VW;
            const int gk = kt + row, gn = bn0 + nc;
            rb[l] = LD_ZERO;
            if ((B_CHUNKS % THREADS == 0 || c < B_CHUNKS) && gk < k && gn < n)
                rb[l] = *reinterpret_cast<const ld_t *>(B + (long)gk * n + gn);
        }
    };

    /* Registers into shared buffer buf. */
    auto store = [&](int buf) {
        float *const a = as + buf * A_TILE;
        float *const b = bs + buf * B_TILE;
#pragma unroll
        for (int l = 0; l < A_LOADS; l++) {
            const int c = tid + l * THREADS;
            const int row = c / (BK / VW), kc = (c % (BK / VW)) * VW;
            if (A_CHUNKS % THREADS == 0 || c < A_CHUNKS) {
#if A_TRANS && VEC
                a[(kc + 0) * AS + row] = ra[l].x;
                a[(kc + 1) * AS + row] = ra[l].y;
                a[(kc + 2) * AS + row] = ra[l].z;
                a[(kc + 3) * AS + row] = ra[l].w;
#elif A_TRANS
                a[kc * AS + row] = ra[l];
#else
                *reinterpret_cast<ld_t *>(a + row * AS + kc) = ra[l];
#endif
            }
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; l++) {
            const int c = tid + l * THREADS;
            const int row = c / (BN / VW), nc = (c % (BN / VW)) * VW;
            if (B_CHUNKS % THREADS == 0 || c < B_CHUNKS)
                *reinterpret_cast<ld_t *>(b + row * BN + nc) = rb[l];
        }
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    /* Outer products of the BK slices of the tiles in buffer buf. */
    auto compute = [&](int buf) {
        const float *const a = as + buf * A_TILE;
        const float *const b = bs + buf * B_TILE;
        UNROLL_BK
        for (int kk = 0; kk < BK; kk++) {
            float fa[TM], fb[TN]; /* fragments of A and B for this kk */
#pragma unroll
            for (int i = 0; i < TM; i += CM) {
#if CM == 4
                const float4 v = *reinterpret_cast<const float4 *>(
                    a + kk * AS + (i / 4) * (THREADS_M * 4) + ty * 4);
                fa[i] = v.x;
                fa[i + 1] = v.y;
                fa[i + 2] = v.z;
                fa[i + 3] = v.w;
#else
                fa[i] = a[(i * THREADS_M + ty) * AS + kk];
#endif
            }
#pragma unroll
            for (int j = 0; j < TN; j += CN) {
#if CN == 4
                const float4 v = *reinterpret_cast<const float4 *>(
                    b + kk * BN + (j / 4) * (THREADS_N * 4) + tx * 4);
                fb[j] = v.x;
                fb[j + 1] = v.y;
                fb[j + 2] = v.z;
                fb[j + 3] = v.w;
#else
                fb[j] = b[kk * BN + j * THREADS_N + tx];
#endif
            }
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
        }
    };

    load(0);
    store(0);
    __syncthreads();
#if DB
    int buf = 0;
    for (int kt = 0; kt < k; kt += BK) {
        const bool more = kt + BK < k; /* uniform over the block */
        if (more)
            load(kt + BK); /* in flight during compute */
        compute(buf);
        if (more) {
            /* The other buffer was last read before the previous barrier. */
            store(buf ^ 1);
            __syncthreads();
            buf ^= 1;
        }
    }
#else
    for (int kt = 0; kt < k; kt += BK) {
        compute(0);
        if (kt + BK < k) {
            __syncthreads(); /* everyone is done reading the tiles */
            load(kt + BK);
            store(0);
            __syncthreads();
        }
    }
#endif

    /* Row i of the thread tile is C row bm0 + rowof(i); likewise columns. */
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int row = bm0 + (i / CM) * (THREADS_M * CM) + ty * CM + i % CM;
        if (row >= m)
            continue;
        float *const crow = C + (long)row * n;
#pragma unroll
        for (int j = 0; j < TN; j += CN) {
            const int col = bn0 + (j / CN) * (THREADS_N * CN) + tx * CN;
#if VEC && CN == 4
            if (col < n) /* n % 4 == 0: all four or none */
                *reinterpret_cast<float4 *>(crow + col) = make_float4(
                    acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
#else
#pragma unroll
            for (int q = 0; q < CN; q++)
                if (col + q < n)
                    crow[col + q] = acc[i][j + q];
#endif
        }
    }
}

/* Obviously correct: one thread per element of C, launched with 16 x 16
 * threads. Like the tuned kernel it sums over k in order with fmaf. */
extern "C" __global__ void matmul_ref(const float *A, const float *B, float *C,
                                      int m, int n, int k)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n)
        return;
    float s = 0.0f;
    for (int p = 0; p < k; p++)
        s = fmaf(A[(long)row * k + p], B[(long)p * n + col], s);
    C[(long)row * n + col] = s;
}
