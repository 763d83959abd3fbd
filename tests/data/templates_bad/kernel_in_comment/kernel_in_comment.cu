/* The manifest still says copy_tuned, which this file renamed:
 * the old name is only in this comment. */
extern "C" __global__ void copy_vec(const int *in, int *out, long n)
{
    long i = ((long)blockIdx.x * BLOCK_SIZE + threadIdx.x) * VW;
    for (int v = 0; v < VW; v++)
        if (i + v < n)
            out[i + v] = in[i + v];
}

/* Obviously correct: one element per thread. */
extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
