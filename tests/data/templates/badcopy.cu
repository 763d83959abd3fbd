/* badcopy -- a planted defect for the verification tests: with SKIP_TAIL=1
 * the kernel forgets the n % VW elements after the last whole vector, which
 * is wrong whenever VW > 1 and n is odd. Verification must catch it. */
#if VW == 1
typedef int vec_t;
#elif VW == 2
typedef int2 vec_t;
#elif VW == 4
typedef int4 vec_t;
#endif

extern "C" __global__ void badcopy(const int *in, int *out, long n)
{
    const vec_t *vin = reinterpret_cast<const vec_t *>(in);
    vec_t *vout = reinterpret_cast<vec_t *>(out);
    long nvec = n / VW;
    long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;

    for (long i = tid; i < nvec; i += (long)gridDim.x * blockDim.x)
        vout[i] = vin[i];
#if !SKIP_TAIL
    if (nvec * VW + tid < n)
        out[nvec * VW + tid] = in[nvec * VW + tid];
#endif
}

extern "C" __global__ void badcopy_ref(const int *in, int *out, long n)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
