/* The control kernel with a knob UNROLL that the manifest misspells as
 * UNROLLL: the source never names UNROLLL, so it is launch only, and no
 * expression of the manifest reads it either. */
#ifndef UNROLL
#define UNROLL 1
#endif
extern "C" __global__ void copy_tuned(const int *in, int *out, long n)
{
    long i = ((long)blockIdx.x * BLOCK_SIZE + threadIdx.x) * VW;
#pragma unroll UNROLL
    for (int v = 0; v < VW; v++)
        if (i + v < n)
            out[i + v] = in[i + v];
}

extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
