/* two_pass_sum -- a sum in two kernels launched one after the other
 * (two_pass.cuh): the tuned unit is the pair, the first kernel's block
 * (BLOCK, a macro) and grid (PARTS), the second's block (MERGE, launch
 * only). */
#include "two_pass.cuh"

extern "C" __global__ void partial_sums(const int *in, long *part, long n)
{
    partial_sums_body(in, part, n);
}

extern "C" __global__ void merge_sums(const long *part, int parts, long *total)
{
    merge_sums_body(part, parts, total);
}

/* The reference: one thread, every element, in order. It takes every
 * [args] entry, as a reference kernel does. */
extern "C" __global__ void sum_ref(const int *in, long *part, long *total,
                                   long n, int parts)
{
    long acc = 0;

    (void)part, (void)parts;
    for (long i = 0; i < n; i++)
        acc += in[i];
    *total = acc;
}
