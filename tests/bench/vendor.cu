/* vendor.cu -- the vendor baselines of the benchmark (see vendor.h). CUB is
 * C++, so this one file is compiled by nvcc; the rest of the benchmark,
 * like the tuner, is C. */
#include "vendor.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include <cublas_v2.h>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#define CK(call)                                                               \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "bench: %s:%d: %s: %s\n", __FILE__, __LINE__,      \
                    #call, cudaGetErrorString(e_));                            \
            return -1;                                                         \
        }                                                                      \
    } while (0)

#define CB(call)                                                               \
    do {                                                                       \
        cublasStatus_t s_ = (call);                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                     \
            fprintf(stderr, "bench: %s:%d: %s: cuBLAS status %d\n", __FILE__,  \
                    __LINE__, #call, (int)s_);                                 \
            return -1;                                                         \
        }                                                                      \
    } while (0)

/* Times fn() like the tuner times a kernel (tuner/engine/measure.c). */
template <typename F> static int time_it(F fn, int reps, int flush, vb_time *t)
{
    int dev = 0, l2 = 0;
    void *scratch = nullptr;
    size_t sbytes = 0;
    std::vector<cudaEvent_t> ev(2 * reps);
    std::vector<double> ns(reps);

    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    if (flush) {
        sbytes = 2 * (size_t)l2;
        CK(cudaMalloc(&scratch, sbytes));
    }
    for (auto &e : ev)
        CK(cudaEventCreate(&e));
    for (int i = 0; i < 3; i++)
        if (fn())
            return -1;
    for (int i = 0; i < reps; i++) {
        if (flush)
            CK(cudaMemsetAsync(scratch, i & 0xff, sbytes, 0));
        CK(cudaEventRecord(ev[2 * i], 0));
        if (fn())
            return -1;
        CK(cudaEventRecord(ev[2 * i + 1], 0));
        /* A flushed sample runs alone, as the tuner's do (measure.c). */
        if (flush)
            CK(cudaStreamSynchronize(0));
    }
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        ns[i] = ms * 1e6;
    }
    for (auto &e : ev)
        cudaEventDestroy(e);
    if (scratch)
        cudaFree(scratch);
    std::sort(ns.begin(), ns.end());
    auto q = [&](double f) {
        double pos = f * (reps - 1);
        int lo = (int)pos;
        return lo + 1 < reps ? ns[lo] + (pos - lo) * (ns[lo + 1] - ns[lo])
                             : ns[reps - 1];
    };
    t->median_ns = q(0.5);
    t->q1_ns = q(0.25);
    t->q3_ns = q(0.75);
    t->samples = reps;
    return 0;
}

extern "C" int vb_copy(uint64_t dst, uint64_t src, size_t bytes, int reps,
                       int flush, vb_time *t)
{
    return time_it(
        [&]() -> int {
            CK(cudaMemcpyAsync((void *)dst, (const void *)src, bytes,
                               cudaMemcpyDeviceToDevice, 0));
            return 0;
        },
        reps, flush, t);
}

extern "C" int vb_saxpy(long n, float a, uint64_t x, uint64_t y, int reps,
                        int flush, vb_time *t)
{
    cublasHandle_t h;
    int rc;

    CB(cublasCreate(&h));
    CB(cublasSetStream(h, 0));
    rc = time_it(
        [&]() -> int {
            CB(cublasSaxpy_64(h, n, &a, (const float *)x, 1, (float *)y, 1));
            return 0;
        },
        reps, flush, t);
    cublasDestroy(h);
    return rc;
}

extern "C" int vb_reduce(uint64_t in, uint64_t out, long n, int expect,
                         int reps, int flush, vb_time *t)
{
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    int got = 0, rc;

    CK(cub::DeviceReduce::Sum(nullptr, tmp_bytes, (const int *)in, (int *)out,
                              n));
    CK(cudaMalloc(&tmp, tmp_bytes));
    rc = time_it(
        [&]() -> int {
            CK(cub::DeviceReduce::Sum(tmp, tmp_bytes, (const int *)in,
                                      (int *)out, n));
            return 0;
        },
        reps, flush, t);
    if (!rc) {
        CK(cudaMemcpy(&got, (void *)out, sizeof(int), cudaMemcpyDeviceToHost));
        if (got != expect) {
            fprintf(stderr, "bench: CUB sum %d != reference %d\n", got, expect);
            rc = -1;
        }
    }
    cudaFree(tmp);
    return rc;
}

extern "C" int vb_sgemm(int m, int n, int k, uint64_t a, uint64_t b,
                        uint64_t c, int reps, int flush, vb_time *t)
{
    cublasHandle_t h;
    const float one = 1, zero = 0;
    int rc;

    CB(cublasCreate(&h));
    CB(cublasSetStream(h, 0));
    /* Plain FP32. CUBLAS_DEFAULT_MATH never uses TF32 for SGEMM (that
     * takes CUBLAS_TF32_TENSOR_OP_MATH); the benchmark also sets
     * NVIDIA_TF32_OVERRIDE=0. PEDANTIC would be slower than what users
     * get, which would flatter us. */
    CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    /* Row-major C = A B is column-major C^T = B^T A^T. */
    rc = time_it(
        [&]() -> int {
            CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                           (const float *)b, n, (const float *)a, k, &zero,
                           (float *)c, n));
            return 0;
        },
        reps, flush, t);
    cublasDestroy(h);
    return rc;
}

extern "C" int vb_read_int(uint64_t ptr, int *out)
{
    CK(cudaMemcpy(out, (const void *)ptr, sizeof(int), cudaMemcpyDeviceToHost));
    return 0;
}
