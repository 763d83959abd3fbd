/* faults -- planted faults for the robustness tests (see faults.ini). */

#if MODE == 4
#error "MODE 4 does not compile, on purpose"
#endif

extern "C" __global__ void faults(const int *in, int *out, long n)
{
#if MODE == 5
    /* 256 KB of static shared memory, all of it used: no block can have
     * it. */
    __shared__ int big[64 * 1024];
    for (int k = threadIdx.x; k < 64 * 1024; k += blockDim.x)
        big[k] = k;
    __syncthreads();
#endif
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

    if (i >= n)
        return;
#if MODE == 1
    if (i == 12345)
        *(volatile int *)(out + (1L << 40)) = 1; /* far outside any buffer */
#elif MODE == 2
    /* clock64() is a volatile read the compiler cannot drop, and it is
     * never negative: this never ends. */
    if (i == 0)
        while (clock64() >= 0)
            ;
#endif
    /* REPEAT units of busy time per thread: distinct, stable times. */
    const long long start = clock64();
    while (clock64() - start < REPEAT * 2000LL)
        ;
    out[i] = in[i] + (MODE == 3 && i == 7);
#if MODE == 5
    out[i] += big[(i * 7919) % (64 * 1024)] - (int)((i * 7919) % (64 * 1024));
#endif
}

extern "C" __global__ void faults_ref(const int *in, int *out, long n)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        out[i] = in[i];
}
