/* two_pass_sum -- a sum in two kernels launched one after the other:
 * partial_sums writes one partial sum per block into a scratch buffer,
 * merge_sums adds them into the total. The tuned unit is the pair: the
 * first kernel's block (BLOCK, a macro) and grid (PARTS), the second's
 * block (MERGE, launch only). */
extern "C" __global__ void partial_sums(const int *in, long *part, long n)
{
    __shared__ long s[BLOCK];
    long acc = 0;

    for (long i = blockIdx.x * (long)BLOCK + threadIdx.x; i < n;
         i += (long)gridDim.x * BLOCK)
        acc += in[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int st = BLOCK / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st)
            s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        part[blockIdx.x] = s[0];
}

extern "C" __global__ void merge_sums(const long *part, int parts, long *total)
{
    extern __shared__ long m[];
    long acc = 0;

    for (int i = threadIdx.x; i < parts; i += blockDim.x)
        acc += part[i];
    m[threadIdx.x] = acc;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (threadIdx.x < st)
            m[threadIdx.x] += m[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *total = m[0];
}

/* The reference: one thread, every element, in order. It takes every
 * [args] entry, as a reference kernel does. */
extern "C" __global__ void sum_ref(const int *in, long *part, long *total,
                                   long n, int parts)
{
    long acc = 0;

    (void)part, (void)parts;
    for (long i = 0; i < n; i++)
        acc += in[i];
    *total = acc;
}
