/* block_sums -- the sum of n ints by a grid of BLOCKS blocks in one launch:
 * each block writes its partial sum into sums[0..BLOCKS), and the last block
 * to finish (a ticket counter, left at 0 for the next launch) adds them into
 * sums[1024]. The partial sums' layout depends on the configuration, so the
 * manifest compares sums[1024] only ("compare = 1024"). scratch_sums.cu
 * keeps them in a scratch buffer instead. int additions wrap, so the total
 * is exact in any order. */

__device__ void block_sums(const int *in, int *total, int *partials,
                           unsigned *ticket, long n)
{
    __shared__ int part[BLOCK_SIZE];
    __shared__ bool last;
    int s = 0;

    for (long i = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n;
         i += (long)gridDim.x * BLOCK_SIZE)
        s += in[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = BLOCK_SIZE / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k)
            part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = part[0];
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    s = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK_SIZE)
        s += ((volatile int *)partials)[b];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int k = BLOCK_SIZE / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k)
            part[threadIdx.x] += part[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *total = part[0];
        *ticket = 0;
    }
}

extern "C" __global__ void block_sums_tuned(const int *in, int *sums,
                                            unsigned *ticket, long n)
{
    block_sums(in, sums + 1024, sums, ticket, n);
}

/* Obviously correct: one block of 256 threads, the total only. */
__device__ void sum_ref(const int *in, int *total, long n)
{
    __shared__ int part[256];
    int s = 0;

    for (long i = threadIdx.x; i < n; i += 256)
        s += in[i];
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int t = 1; t < 256; t++)
            s += part[t];
        *total = s;
    }
}

extern "C" __global__ void block_sums_ref(const int *in, int *sums,
                                          unsigned *ticket, long n)
{
    (void)ticket;
    sum_ref(in, sums + 1024, n);
}
