/* overrun -- see overrun.ini. The chunk's tail past n gets 1.0f: a value
 * the guard's pattern is not. */
extern "C" __global__ void overrun_tuned(const float *in, float *out, long n)
{
    long i = ((long)blockIdx.x * BLOCK_SIZE + threadIdx.x) * VW;
    if (i >= n)
        return;
    for (int v = 0; v < VW; v++)
        out[i + v] = i + v < n ? 2.0f * in[i + v] : 1.0f;
}

/* Obviously correct: one element per thread. */
extern "C" __global__ void overrun_ref(const float *in, float *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}
