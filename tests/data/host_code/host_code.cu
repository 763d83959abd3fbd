/* A kernel file as published: host code beside the kernels. */
#include <stdio.h>
#include <stdlib.h>
#ifndef BS
#define BS 128
#endif
namespace user {
template <int B, int V>
__global__ void copyk(const int *in, int *out, long n)
{
    long i = ((long)blockIdx.x * B + threadIdx.x) * V;
    for (int v = 0; v < V; v++)
        if (i + v < n)
            out[i + v] = in[i + v];
}
}
__global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
int main(void)
{
    int *d;
    cudaMalloc(&d, 4);
    printf("hello %d\n", BS);
    return 0;
}
