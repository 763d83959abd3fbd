/* slopes_ref -- the reference's module of slopes.ini (reference_source):
 * the reference, the init kernel that derives slope[] from x[], and the
 * verify kernel. The size n is the macro that reference_macros asks for,
 * so no kernel here declares a parameter called n. */
extern "C" __global__ void slopes_init(const float *x, float *slope,
                                       float *y, long count)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        slope[i] = x[i + 1] - x[i];
}

/* Computed the other way: the average of the segment's two ends. */
extern "C" __global__ void slopes_ref(const float *x, const float *slope,
                                      float *y, long count)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

    if (blockDim.x != BLOCK_SIZE || count != n)
        return; /* launched otherwise than the manifest says: y stays
                   poisoned, and every candidate fails */
    if (i < n)
        y[i] = 0.5f * (x[i] + x[i + 1]);
}

/* The two ways round differently: each element within 2^-20 of the
 * reference's, relative to the larger of 1 and |ref| (x is in [0, 1)). */
extern "C" __global__ void slopes_verify(const float *out, const float *ref,
                                         long count,
                                         unsigned long long *errors)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;

    if (i < count) {
        float r = ref[i], o = out[i];
        if (!(fabsf(o - r) <= fmaxf(1.0f, fabsf(r)) * 0x1p-20f))
            atomicAdd(errors, 1ull);
    }
}
