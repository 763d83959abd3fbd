/* The control kernel adding a __constant__ offset: the table has 8
 * elements, the manifest's [constants] says 4. */
__constant__ int table[8];

extern "C" __global__ void copy_tuned(const int *in, int *out, long n)
{
    long i = ((long)blockIdx.x * BLOCK_SIZE + threadIdx.x) * VW;
    for (int v = 0; v < VW; v++)
        if (i + v < n)
            out[i + v] = in[i + v] + table[v & 7];
}

extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + table[i % VW];
}
