/* two_pass_ref -- two_pass_sum's kernels (two_pass.cuh), checked against a
 * reference that is itself a sequence of two launches: one thread per
 * chunk sums it in order, then one thread adds the chunks' sums. */
#include "two_pass.cuh"

extern "C" __global__ void partial_sums(const int *in, long *part, long n)
{
    partial_sums_body(in, part, n);
}

extern "C" __global__ void merge_sums(const long *part, int parts, long *total)
{
    merge_sums_body(part, parts, total);
}

extern "C" __global__ void ref_partial(const int *in, long *part, long n)
{
    long chunk = (n + gridDim.x - 1) / gridDim.x, acc = 0;

    for (long i = blockIdx.x * chunk; i < n && i < (blockIdx.x + 1) * chunk;
         i++)
        acc += in[i];
    part[blockIdx.x] = acc;
}

extern "C" __global__ void ref_merge(const long *part, int chunks,
                                     long *total)
{
    long acc = 0;

    for (int i = 0; i < chunks; i++)
        acc += part[i];
    *total = acc;
}
