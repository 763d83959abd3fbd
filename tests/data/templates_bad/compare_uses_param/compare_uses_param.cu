/* A minimal copy template (after templates/copy.cu) for the bad-template
 * tests: each directory changes one thing in it. */
extern "C" __global__ void copy_tuned(const int *in, int *out, long n)
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
