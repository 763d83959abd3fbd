/* flush_study.cu -- how the L2 flush before each timed launch shapes the
 * time of a short kernel (issues 12 and 15). The tuner and the benchmark
 * flush by writing twice the L2's size (cuMemsetD8Async), which leaves the
 * L2 full of dirty lines: a kernel that then writes its output must evict
 * them, and its time depends on how many the L2 has written back in the
 * meantime. Kernels that write (copy, saxpy, constmem) had interquartile
 * ranges of 5-40% in brute-force journals at 4-8 us, reduce (which reads)
 * 0.5%. Here each operation is timed behind four flushes, in one process,
 * the operations interleaved sample by sample:
 *   none     no flush (the data of the previous launch stays in L2)
 *   memset   2 x L2 written (the tuner's flush)
 *   read     2 x L2 read: the L2 ends full of clean lines
 *   settle   the memset, then 100 us of one spinning thread before the
 *            timed launch (write-back in the background, if there is any)
 *
 * Then the tuner's own pattern, memset flush: 30 evaluations of each
 * operation, each 3 ms of host work (a GPU left idle, as while the next
 * configuration is compiled and loaded) and then 100 samples in batches
 * of 3, 7, 14, 28 and 48 with a synchronisation after each. Per
 * evaluation the IQR, and the time of the first sample of a batch against
 * the others.
 *
 *   flush_study [DEVICE]   prints median, IQR and the copy / cudaMemcpy
 *                          ratio per flush */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <unistd.h>

#include <cuda_runtime.h>

#define CK(call)                                                               \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "flush_study: %s:%d: %s: %s\n", __FILE__,          \
                    __LINE__, #call, cudaGetErrorString(e_));                  \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

enum { SAMPLES = 201, NPTS = 20 };

__constant__ float pts[2 * NPTS];

__global__ void copy4(const int4 *in, int4 *out, long nvec)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nvec)
        out[i] = in[i];
}

/* UNROLL independent int4 loads in flight per thread, grid-stride. */
template <int UNROLL>
__global__ void copy4_stride(const int4 *__restrict__ in, int4 *__restrict__ out,
                             long nvec)
{
    const long stride = (long)gridDim.x * blockDim.x;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < nvec;
         i += UNROLL * stride) {
        int4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec)
                v[u] = in[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (i + u * stride < nvec)
                out[i + u * stride] = v[u];
    }
}

/* constmem's MEM=1 kernel, one output per thread. */
__global__ void dist(float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float fx = -1 + 2.0f * x / w, fy = -1 + 2.0f * y / h, s = 0;
    for (int p = 0; p < NPTS; p++) {
        float dx = fx - pts[2 * p], dy = fy - pts[2 * p + 1];
        s += dx * dx + dy * dy;
    }
    out[(long)y * w + x] = s;
}

__global__ void read_all(const int4 *buf, long nvec, int *sink)
{
    int acc = 0;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < nvec;
         i += (long)gridDim.x * blockDim.x) {
        int4 v = __ldcg(buf + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x7fffffff)
        *sink = acc;
}

__device__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void settle(int us)
{
    unsigned long long end = now_ns() + 1000ull * us;
    while (now_ns() < end)
        ;
}

struct op {
    const char *name;
    int kind; /* 0 copy4, 1 memcpy, 2 dist */
    long n;   /* ints (copy, memcpy); w = h (dist) */
};

static void run_op(const op &o, int *a, int *b)
{
    if (o.kind == 0) {
        long nvec = o.n / 4;
        copy4<<<(unsigned)((nvec + 255) / 256), 256>>>((const int4 *)a,
                                                        (int4 *)b, nvec);
    } else if (o.kind == 1) {
        CK(cudaMemcpyAsync(b, a, o.n * sizeof(int), cudaMemcpyDeviceToDevice,
                           0));
    } else {
        dim3 blk(16, 8), grd((unsigned)((o.n + 15) / 16),
                             (unsigned)((o.n + 7) / 8));
        dist<<<grd, blk>>>((float *)b, (int)o.n, (int)o.n);
    }
    CK(cudaGetLastError());
}

static double quant(std::vector<double> v, double f)
{
    std::sort(v.begin(), v.end());
    double pos = f * (v.size() - 1);
    size_t lo = (size_t)pos;
    return lo + 1 < v.size() ? v[lo] + (pos - lo) * (v[lo + 1] - v[lo])
                             : v.back();
}

static void flush_l2(int f, int *scratch, size_t fbytes, int s, int sms,
                     int *sink)
{
    if (f == 1 || f == 3)
        CK(cudaMemsetAsync(scratch, s & 0xff, fbytes, 0));
    if (f == 2)
        read_all<<<4 * sms, 1024>>>((const int4 *)scratch,
                                    (long)(fbytes / 16), sink);
    if (f == 3)
        settle<<<1, 1>>>(100);
}

/* Copy kernels of several shapes beside cudaMemcpy at n = 2^20, each
 * sample waited for; the ratio is the median of the samples' ratios. */
static void copy_shapes(int *a, int *b, int *scratch, size_t fbytes, int sms)
{
    enum { N = 1 << 20, S = 301, K = 11 };
    const long nvec = N / 4;
    const char *names[K] = {"cudaMemcpy", "cover B128", "cover B256",
                            "cover B512", "cover B1024", "stride U1 B1024 x2/SM",
                            "stride U2 B1024 x1/SM", "stride U4 B512 x1/SM",
                            "stride U4 B1024 x1/SM", "stride U2 B512 x4/SM",
                            "cover B256 (stream)"};
    std::vector<double> ns[K];
    cudaEvent_t e0, e1;
    cudaStream_t st;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (int s = -3; s < S; s++)
        for (int k = 0; k < K; k++) {
            cudaStream_t q = k == K - 1 ? st : 0;
            CK(cudaMemsetAsync(scratch, s & 0xff, fbytes, q));
            CK(cudaEventRecord(e0, q));
            switch (k) {
            case 0: CK(cudaMemcpyAsync(b, a, N * 4, cudaMemcpyDeviceToDevice, q)); break;
            case 1: copy4<<<nvec / 128, 128, 0, q>>>((const int4 *)a, (int4 *)b, nvec); break;
            case 2: case 10: copy4<<<nvec / 256, 256, 0, q>>>((const int4 *)a, (int4 *)b, nvec); break;
            case 3: copy4<<<nvec / 512, 512, 0, q>>>((const int4 *)a, (int4 *)b, nvec); break;
            case 4: copy4<<<nvec / 1024, 1024, 0, q>>>((const int4 *)a, (int4 *)b, nvec); break;
            case 5: copy4_stride<1><<<2 * sms, 1024, 0, q>>>((const int4 *)a, (int4 *)b, nvec); break;
            case 6: copy4_stride<2><<<sms, 1024, 0, q>>>((const int4 *)a, (int4 *)b, nvec); break;
            case 7: copy4_stride<4><<<sms, 512, 0, q>>>((const int4 *)a, (int4 *)b, nvec); break;
            case 8: copy4_stride<4><<<sms, 1024, 0, q>>>((const int4 *)a, (int4 *)b, nvec); break;
            case 9: copy4_stride<2><<<4 * sms, 512, 0, q>>>((const int4 *)a, (int4 *)b, nvec); break;
            }
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1, q));
            CK(cudaStreamSynchronize(q));
            float ms;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (s >= 0)
                ns[k].push_back(ms * 1e6);
        }
    for (int k = 0; k < K; k++) {
        std::vector<double> r;
        for (int s = 0; s < S; s++)
            r.push_back(ns[0][s] / ns[k][s]);
        printf("2^20 %-24s median %6.0f ns  IQR %4.1f%%  speed over cudaMemcpy "
               "%.3fx (quartiles %.3f-%.3f)\n",
               names[k], quant(ns[k], 0.5),
               100 * (quant(ns[k], 0.75) - quant(ns[k], 0.25)) / quant(ns[k], 0.5),
               quant(r, 0.5), quant(r, 0.25), quant(r, 0.75));
    }
}

static void tuner_pattern(const op *ops, int nops, int *a, int *b,
                          int *scratch, size_t fbytes, int f, int sms,
                          int *sink, const char *fname, int one_by_one)
{
    const int batches[] = {3, 7, 14, 28, 48}, nb = 5, evals = 20;
    std::vector<cudaEvent_t> ev(200);
    for (auto &e : ev)
        CK(cudaEventCreate(&e));
    for (int o = 0; o < nops; o++) {
        std::vector<double> iqr, med, first, rest;
        for (int e = 0; e < evals; e++) {
            std::vector<double> ns;
            usleep(3000);
            for (int bi = 0; bi < nb; bi++) {
                for (int s = 0; s < batches[bi]; s++) {
                    flush_l2(f, scratch, fbytes, s, sms, sink);
                    CK(cudaEventRecord(ev[2 * s], 0));
                    run_op(ops[o], a, b);
                    CK(cudaEventRecord(ev[2 * s + 1], 0));
                    if (one_by_one)
                        CK(cudaDeviceSynchronize());
                }
                CK(cudaDeviceSynchronize());
                for (int s = 0; s < batches[bi]; s++) {
                    float ms;
                    CK(cudaEventElapsedTime(&ms, ev[2 * s], ev[2 * s + 1]));
                    ns.push_back(ms * 1e6);
                    (s == 0 ? first : rest).push_back(ms * 1e6);
                }
            }
            double m = quant(ns, 0.5);
            med.push_back(m);
            iqr.push_back(100 * (quant(ns, 0.75) - quant(ns, 0.25)) / m);
        }
        printf("tuner-like %-6s%s %-18s median %6.0f ns (spread %.1f%%)"
               "  IQR median %4.1f%% max %4.1f%%  first of a batch %.0f ns,"
               " others %.0f ns\n",
               fname, one_by_one ? "/sync" : "     ", ops[o].name,
               quant(med, 0.5),
               100 * (quant(med, 0.75) - quant(med, 0.25)) / quant(med, 0.5),
               quant(iqr, 0.5), quant(iqr, 1), quant(first, 0.5),
               quant(rest, 0.5));
    }
}

int main(int argc, char **argv)
{
    int dev = argc > 1 ? atoi(argv[1]) : 0, l2 = 0, sms = 0, *sink;
    const char *flushes[] = {"none", "memset", "read", "settle"};
    const op ops[] = {{"copy n=2^20", 0, 1 << 20},
                      {"cudaMemcpy n=2^20", 1, 1 << 20},
                      {"copy n=2^16", 0, 1 << 16},
                      {"cudaMemcpy n=2^16", 1, 1 << 16},
                      {"copy n=2^24", 0, 1 << 24},
                      {"cudaMemcpy n=2^24", 1, 1 << 24},
                      {"dist 362^2", 2, 362},
                      {"dist 1215^2", 2, 1215}};
    const int nops = sizeof ops / sizeof ops[0];
    cudaDeviceProp prop;

    CK(cudaSetDevice(dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t fbytes = 2 * (size_t)l2, big = (size_t)(1 << 24) * sizeof(int);
    int *a, *b, *scratch;
    CK(cudaMalloc(&a, big));
    CK(cudaMalloc(&b, big));
    CK(cudaMalloc(&scratch, fbytes));
    CK(cudaMalloc(&sink, sizeof(int)));
    {
        std::vector<int> h(big / sizeof(int));
        for (size_t i = 0; i < h.size(); i++)
            h[i] = (int)(i * 2654435761u) | 1;
        CK(cudaMemcpy(a, h.data(), big, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(scratch, h.data(), std::min(big, fbytes),
                      cudaMemcpyHostToDevice));
        float p[2 * NPTS];
        for (int i = 0; i < 2 * NPTS; i++)
            p[i] = (float)((i * 37 % 41) / 20.5 - 1);
        CK(cudaMemcpyToSymbol(pts, p, sizeof p));
    }
    printf("%s, %d SMs, L2 %d MiB, %d samples per operation and flush\n",
           prop.name, sms, l2 >> 20, SAMPLES);

    std::vector<cudaEvent_t> ev(2 * nops * SAMPLES);
    for (auto &e : ev)
        CK(cudaEventCreate(&e));
    for (int f = 0; f < 4; f++) {
        std::vector<std::vector<double>> ns(nops);
        for (int w = 0; w < 3; w++)
            for (int o = 0; o < nops; o++)
                run_op(ops[o], a, b);
        for (int s = 0; s < SAMPLES; s++)
            for (int o = 0; o < nops; o++) {
                flush_l2(f, scratch, fbytes, s, sms, sink);
                int e = 2 * (s * nops + o);
                CK(cudaEventRecord(ev[e], 0));
                run_op(ops[o], a, b);
                CK(cudaEventRecord(ev[e + 1], 0));
            }
        CK(cudaDeviceSynchronize());
        for (int s = 0; s < SAMPLES; s++)
            for (int o = 0; o < nops; o++) {
                float ms;
                int e = 2 * (s * nops + o);
                CK(cudaEventElapsedTime(&ms, ev[e], ev[e + 1]));
                ns[o].push_back(ms * 1e6);
            }
        for (int o = 0; o < nops; o++) {
            double med = quant(ns[o], 0.5);
            printf("flush %-7s %-18s median %9.0f ns  IQR %5.1f%%", flushes[f],
                   ops[o].name, med,
                   100 * (quant(ns[o], 0.75) - quant(ns[o], 0.25)) / med);
            if (ops[o].kind == 1) {
                std::vector<double> r;
                for (int s = 0; s < SAMPLES; s++)
                    r.push_back(ns[o][s] / ns[o - 1][s]);
                printf("  copy/cudaMemcpy speed %.3fx (rounds %.3f-%.3f)",
                       quant(r, 0.5), quant(r, 0.25), quant(r, 0.75));
            }
            printf("\n");
        }
    }
    copy_shapes(a, b, scratch, fbytes, sms);
    const op few[] = {ops[0], ops[1], ops[6], ops[7]};
    for (int f = 0; f < 3; f++)
        for (int one = 0; one < 2; one++)
            tuner_pattern(few, 4, a, b, scratch, fbytes, f, sms, sink,
                          flushes[f], one);
    return 0;
}
