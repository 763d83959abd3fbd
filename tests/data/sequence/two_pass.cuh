/* two_pass.cuh -- the two kernels of a sum in two launches, as device
 * functions: partial_sums writes one partial sum per block into a scratch
 * buffer, merge_sums adds them into the total (BLOCK: the first kernel's
 * block, a macro). Shared by two_pass_sum.cu and two_pass_ref.cu. */
__device__ void partial_sums_body(const int *in, long *part, long n)
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

__device__ void merge_sums_body(const long *part, int parts, long *total)
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
