/* The minimal copy template as a C++ template kernel whose instantiation
 * fails: static_assert refuses every BLOCK_SIZE the manifest offers. */
template <int B>
__global__ void copy_tuned(const int *in, int *out, long n)
{
    static_assert(B % 1000 == 0, "B must be a multiple of 1000");
    long i = (long)blockIdx.x * B + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

extern "C" __global__ void copy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
