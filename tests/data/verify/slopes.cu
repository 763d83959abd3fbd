/* slopes -- y[i] = x[i] + 0.5 * slope[i] (the midpoint of segment i),
 * ITEMS elements per thread. slope[] is an input that the manifest's init
 * kernel (slopes_ref.cu) derives from x[]: a kernel that assumed it is
 * consistent with x (as here: the midpoint lies on the segment) would be
 * checked on nonsense if it were random. */
extern "C" __global__ void slopes_tuned(const float *x, const float *slope,
                                        float *y, long n)
{
    long first = ((long)blockIdx.x * BLOCK_SIZE + threadIdx.x) * ITEMS;

#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        long i = first + k;
        if (i < n)
            y[i] = fmaf(0.5f, slope[i], x[i]);
    }
}
