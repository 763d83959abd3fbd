/* The size in the kernel's name (docs/kernels-as-published.md, "The size
 * in the name"): copy_plus<..., ALIGNED> adds 1 where n is a multiple of
 * 1024, 2 elsewhere, and the reference adds what the size says, so a size
 * launched with the other size's instantiation fails verification. */
template <int BLOCK_SIZE, int VW, bool ALIGNED>
__global__ void copy_plus(const int *in, int *out, long n)
{
    long i = ((long)blockIdx.x * BLOCK_SIZE + threadIdx.x) * VW;
    for (int v = 0; v < VW; v++)
        if (i + v < n)
            out[i + v] = in[i + v] + (ALIGNED ? 1 : 2);
}

extern "C" __global__ void copy_plus_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + (n % 1024 == 0 ? 1 : 2);
}
