/* A CUB-style kernel template whose template parameter BLOCK_THREADS is
 * also the knob's name: as a macro it would read "template <int 128>". */
template <int BLOCK_THREADS, int ITEMS>
__global__ void copy_tuned(const int *in, int *out, long n)
{
    long i = ((long)blockIdx.x * BLOCK_THREADS + threadIdx.x) * ITEMS;
    for (int v = 0; v < ITEMS; v++)
        if (i + v < n)
            out[i + v] = in[i + v];
}

extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
