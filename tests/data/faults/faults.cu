/* faults -- planted faults for the robustness tests (see faults.ini). */

#if MODE == 4
#error "MODE 4 does not compile, on purpose"
#endif

extern "C" __global__ void faults(const int *in, int *out, long n)
{
#if MODE == 5
    /* 256 KB of static shared memory: no block can have it. */
    __shared__ int big[64 * 1024];
    big[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
#endif
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

    if (i >= n)
        return;
#if MODE == 1
    if (i == 12345)
        *(volatile int *)(out + (1L << 40)) = 1; /* far outside any buffer */
#elif MODE == 2
    if (i == 0) {
        volatile int spin = 1;
        while (spin)
            ;
    }
#endif
    /* REPEAT units of busy time per thread: distinct, stable times. */
    const long long start = clock64();
    while (clock64() - start < REPEAT * 2000LL)
        ;
    out[i] = in[i] + (MODE == 3 && i == 7);
#if MODE == 5
    out[i] += big[threadIdx.x % 32] * 0;
#endif
}

extern "C" __global__ void faults_ref(const int *in, int *out, long n)
{
    const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        out[i] = in[i];
}
