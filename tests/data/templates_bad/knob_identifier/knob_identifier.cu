/* A Kernel Tuner style kernel whose knob vw is also the name of a kernel
 * parameter: -Dvw=2 would make "int 2". */
extern "C" __global__ void copy_tuned(const int *in, int *out, long n,
                                      int vw)
{
    long i = ((long)blockIdx.x * BLOCK_SIZE + threadIdx.x) * vw;
    for (int v = 0; v < vw; v++)
        if (i + v < n)
            out[i + v] = in[i + v];
}

extern "C" __global__ void copy_ref(const int *in, int *out, long n, int vw)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + 0 * vw;
}
