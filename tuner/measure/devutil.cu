/* devutil.cu -- the tuner's own device kernels: fill buffers from a seeded
 * generator and compare a candidate's output with the reference, on the
 * device, so that a 1 GiB output never crosses PCIe. Compiled with NVRTC
 * once per element type a problem uses (-DATUNE_UTIL_float...): one type's
 * two kernels compile in 0.12-0.15 s, all 18 in 0.8 s, which was most of
 * a first use's 1.2-1.6 s with the module cache cold (device.c). */

/* splitmix64: a counter-based generator, so element i of a buffer gets the
 * same value whatever the launch shape, and any element can be recomputed. */
__device__ unsigned long long mix(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Signed integers in [-range, range] without 0; range >= 1. */
__device__ long long signed_nz(unsigned long long r, long long range)
{
    long long v = (long long)(r % (unsigned long long)(2 * range)) - range;
    return v >= 0 ? v + 1 : v;
}

/* Reals uniform in [-1, 1] with |x| >= 2^-10: never zero, never tiny. */
__device__ double real_nz(unsigned long long r)
{
    double u = (double)(r >> 11) * (1.0 / 9007199254740992.0); /* [0,1) */
    double mag = 1.0 / 1024 + u * (1.0 - 1.0 / 1024);
    return (r & 1) ? -mag : mag;
}

/* mode: a manifest's fill (atune__fill_kind): 0 the type's default EXPR,
 * 1 range(ilo, ihi) inclusive, 2 uniform(rlo, rhi), 3 bits: ilo is the
 * mask, 4 the constant ilo (integers) or rlo (reals), 5 iota. */
#define FILL(NAME, T, EXPR)                                                    \
    extern "C" __global__ void NAME(T *p, long n, unsigned long long seed,     \
                                    int mode, long long ilo, long long ihi,    \
                                    double rlo, double rhi)                    \
    {                                                                          \
        for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;      \
             i += (long)gridDim.x * blockDim.x) {                              \
            unsigned long long r = mix(seed ^ mix((unsigned long long)i));     \
            unsigned long long span =                                          \
                (unsigned long long)ihi - (unsigned long long)ilo + 1;         \
            double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);         \
            switch (mode) {                                                    \
            case 1: /* span 0: the whole 64-bit range */                       \
                p[i] = (T)(long long)((unsigned long long)ilo + (span ? r % span : r)); \
                break;                                                         \
            case 2:                                                            \
                p[i] = (T)(rlo + (rhi - rlo) * u);                             \
                break;                                                         \
            case 3:                                                            \
                p[i] = (T)(r & (unsigned long long)ilo);                       \
                break;                                                         \
            case 4:                                                            \
                p[i] = IS_REAL(T) ? (T)rlo : (T)ilo;                           \
                break;                                                         \
            case 5:                                                            \
                p[i] = (T)i;                                                   \
                break;                                                         \
            default:                                                           \
                p[i] = (T)(EXPR);                                              \
            }                                                                  \
        }                                                                      \
    }

#define IS_REAL(T) ((T)0.5 != (T)0)

/* Result of a comparison, read back by the host:
 * exact types: mismatches and the first mismatching index;
 * reals: the largest |out - ref|, the largest |ref| and non-finite count. */
struct cmp_result {
    unsigned long long mismatches;
    unsigned long long first;
    unsigned long long max_diff; /* bits of a non-negative double */
    unsigned long long max_ref;  /* bits of a non-negative double */
    unsigned long long nonfinite;
};

#define CMP_EXACT(NAME, T)                                                     \
    extern "C" __global__ void NAME(const T *out, const T *ref, long n,        \
                                    cmp_result *res)                           \
    {                                                                          \
        unsigned long long bad = 0, first = ~0ULL;                             \
        for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;      \
             i += (long)gridDim.x * blockDim.x)                                \
            if (out[i] != ref[i]) {                                            \
                bad++;                                                         \
                if ((unsigned long long)i < first)                             \
                    first = i;                                                 \
            }                                                                  \
        if (bad) {                                                             \
            atomicAdd(&res->mismatches, bad);                                  \
            atomicMin(&res->first, first);                                     \
        }                                                                      \
    }

/* Non-negative doubles order like their bit patterns, so atomicMax on the
 * bits is a max on the values. */
#define CMP_REAL(NAME, T)                                                      \
    extern "C" __global__ void NAME(const T *out, const T *ref, long n,        \
                                    cmp_result *res)                           \
    {                                                                          \
        double diff = 0, mref = 0;                                             \
        unsigned long long bad = 0, first = ~0ULL;                             \
        for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;      \
             i += (long)gridDim.x * blockDim.x) {                              \
            double o = out[i], r = ref[i];                                     \
            if (!isfinite(o) || !isfinite(r)) {                                \
                bad++;                                                         \
                if ((unsigned long long)i < first)                             \
                    first = i;                                                 \
                continue;                                                      \
            }                                                                  \
            double d = fabs(o - r);                                            \
            if (d > diff) {                                                    \
                diff = d;                                                      \
            }                                                                  \
            mref = fmax(mref, fabs(r));                                        \
        }                                                                      \
        atomicMax(&res->max_diff, (unsigned long long)__double_as_longlong(diff)); \
        atomicMax(&res->max_ref, (unsigned long long)__double_as_longlong(mref)); \
        if (bad) {                                                             \
            atomicAdd(&res->nonfinite, bad);                                   \
            atomicMin(&res->first, first);                                     \
        }                                                                      \
    }

/* half and bf16 elements as their bits (unsigned short), converted by
 * hand so that the helpers need no toolkit header: half with the PTX
 * conversions (round to nearest even), bf16 by its place in a float. */
__device__ float half_to_float(unsigned short h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

__device__ unsigned short float_to_half(float f)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

__device__ float bf16_to_float(unsigned short b)
{
    return __uint_as_float((unsigned)b << 16);
}

__device__ unsigned short float_to_bf16(float f)
{
    unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN stays NaN */
        return (unsigned short)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
}

/* The fills of FILL for 16-bit reals: the value as a double, stored
 * rounded. iota is exact up to 2048 (half) and 256 (bf16). */
#define FILL16(NAME, TO)                                                       \
    extern "C" __global__ void NAME(unsigned short *p, long n,                 \
                                    unsigned long long seed, int mode,         \
                                    long long ilo, long long ihi, double rlo,  \
                                    double rhi)                                \
    {                                                                          \
        for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;      \
             i += (long)gridDim.x * blockDim.x) {                              \
            unsigned long long r = mix(seed ^ mix((unsigned long long)i));     \
            double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);         \
            double v;                                                          \
            switch (mode) {                                                    \
            case 2:                                                            \
                v = rlo + (rhi - rlo) * u;                                     \
                break;                                                         \
            case 4:                                                            \
                v = rlo;                                                       \
                break;                                                         \
            case 5:                                                            \
                v = (double)i;                                                 \
                break;                                                         \
            default:                                                           \
                v = real_nz(r);                                                \
            }                                                                  \
            p[i] = TO((float)v);                                               \
        }                                                                      \
    }

#define CMP_REAL16(NAME, TOF)                                                  \
    extern "C" __global__ void NAME(const unsigned short *out,                 \
                                    const unsigned short *ref, long n,         \
                                    cmp_result *res)                           \
    {                                                                          \
        double diff = 0, mref = 0;                                             \
        unsigned long long bad = 0, first = ~0ULL;                             \
        for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;      \
             i += (long)gridDim.x * blockDim.x) {                              \
            double o = TOF(out[i]), r = TOF(ref[i]);                           \
            if (!isfinite(o) || !isfinite(r)) {                                \
                bad++;                                                         \
                if ((unsigned long long)i < first)                             \
                    first = i;                                                 \
                continue;                                                      \
            }                                                                  \
            diff = fmax(diff, fabs(o - r));                                    \
            mref = fmax(mref, fabs(r));                                        \
        }                                                                      \
        atomicMax(&res->max_diff, (unsigned long long)__double_as_longlong(diff)); \
        atomicMax(&res->max_ref, (unsigned long long)__double_as_longlong(mref)); \
        if (bad) {                                                             \
            atomicAdd(&res->nonfinite, bad);                                   \
            atomicMin(&res->first, first);                                     \
        }                                                                      \
    }

/* The element type of this module. */
#if defined(ATUNE_UTIL_char)
FILL(fill_char, signed char, signed_nz(r, 100))
CMP_EXACT(cmp_char, signed char)
#endif
#if defined(ATUNE_UTIL_int)
FILL(fill_int, int, signed_nz(r, 1000))
CMP_EXACT(cmp_int, int)
#endif
#if defined(ATUNE_UTIL_uint)
FILL(fill_uint, unsigned int, 1 + r % 1000)
CMP_EXACT(cmp_uint, unsigned int)
#endif
#if defined(ATUNE_UTIL_long)
FILL(fill_long, long long, signed_nz(r, 1000))
CMP_EXACT(cmp_long, long long)
#endif
#if defined(ATUNE_UTIL_ulong)
FILL(fill_ulong, unsigned long long, 1 + r % 1000)
CMP_EXACT(cmp_ulong, unsigned long long)
#endif
#if defined(ATUNE_UTIL_float)
FILL(fill_float, float, real_nz(r))
CMP_REAL(cmp_float, float)
#endif
#if defined(ATUNE_UTIL_double)
FILL(fill_double, double, real_nz(r))
CMP_REAL(cmp_double, double)
#endif
#if defined(ATUNE_UTIL_half)
FILL16(fill_half, float_to_half)
CMP_REAL16(cmp_half, half_to_float)
#endif
#if defined(ATUNE_UTIL_bf16)
FILL16(fill_bf16, float_to_bf16)
CMP_REAL16(cmp_bf16, bf16_to_float)
#endif
