/* own_copy.cu -- the application's own build of the copy template's
 * kernel: the same algorithm, its parameters as C++ template arguments
 * instead of NVRTC macros, compiled by nvcc for every configuration of
 * the value lists that the generated header (atune_copy.h) gives. GRID
 * only changes the launch, which the header computes. */
#include <cstdio>

#include "own_copy.h"

template <int VW> struct vec_of;
template <> struct vec_of<1> { typedef int t; };
template <> struct vec_of<2> { typedef int2 t; };
template <> struct vec_of<4> { typedef int4 t; };

template <int BLOCK_SIZE, int VW, int UNROLL>
__global__ void __launch_bounds__(BLOCK_SIZE)
    own_copy(const int *__restrict__ in, int *__restrict__ out, long n)
{
    typedef typename vec_of<VW>::t vec_t;
    const vec_t *vin = reinterpret_cast<const vec_t *>(in);
    vec_t *vout = reinterpret_cast<vec_t *>(out);
    const long nvec = n / VW;
    const long tid = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
    const long stride = (long)gridDim.x * BLOCK_SIZE;
    long i = tid;

    for (; i + (UNROLL - 1) * stride < nvec; i += UNROLL * stride) {
        vec_t v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            v[u] = vin[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            vout[i + u * stride] = v[u];
    }
    for (; i < nvec; i += stride)
        vout[i] = vin[i];
    const long t = nvec * VW + tid;
    if (t < n)
        out[t] = in[t];
}

typedef void (*kernel_t)(const int *, int *, long);

template <int B, int V> static kernel_t pick_unroll(long u)
{
    switch (u) {
    case 1: return own_copy<B, V, 1>;
    case 2: return own_copy<B, V, 2>;
    case 4: return own_copy<B, V, 4>;
    default: return nullptr;
    }
}

template <int B> static kernel_t pick_vw(long v, long u)
{
    switch (v) {
    case 1: return pick_unroll<B, 1>(u);
    case 2: return pick_unroll<B, 2>(u);
    case 4: return pick_unroll<B, 4>(u);
    default: return nullptr;
    }
}

static kernel_t pick(const atune_copy_config *c)
{
    switch (c->BLOCK_SIZE) {
    case 64: return pick_vw<64>(c->VW, c->UNROLL);
    case 128: return pick_vw<128>(c->VW, c->UNROLL);
    case 256: return pick_vw<256>(c->VW, c->UNROLL);
    case 512: return pick_vw<512>(c->VW, c->UNROLL);
    case 1024: return pick_vw<1024>(c->VW, c->UNROLL);
    default: return nullptr;
    }
}

int own_copy_launch(const atune_copy_config *c, const unsigned grid[3],
                    const unsigned block[3], size_t shared,
                    cudaStream_t stream, const void *in, void *out, long n,
                    char *msg, size_t len)
{
    kernel_t k = pick(c);
    cudaError_t e;

    if (!k) {
        snprintf(msg, len,
                 "BLOCK_SIZE=%lld,VW=%lld,UNROLL=%lld was not compiled in",
                 (long long)c->BLOCK_SIZE, (long long)c->VW,
                 (long long)c->UNROLL);
        return -1;
    }
    k<<<dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]),
        shared, stream>>>(static_cast<const int *>(in), static_cast<int *>(out),
                          n);
    if ((e = cudaGetLastError()) != cudaSuccess) {
        snprintf(msg, len, "launch: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}
