/* vendor.h -- the vendor baselines of the benchmark, timed the way the
 * tuner times a configuration: warm-up, then `reps` launches each between
 * CUDA events, L2 flushed before each when flush is set, median reported.
 * Every function returns 0, or -1 with a message on stderr. */
#ifndef ATUNE_BENCH_VENDOR_H
#define ATUNE_BENCH_VENDOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vb_time {
    double median_ns, q1_ns, q3_ns;
    int samples;
} vb_time;

/* cuMemcpyDtoD through the runtime's cudaMemcpyAsync(DeviceToDevice). */
int vb_copy(uint64_t dst, uint64_t src, size_t bytes, int reps, int flush,
            vb_time *t);
/* cublasSaxpy: y = a * x + y. */
int vb_saxpy(long n, float a, uint64_t x, uint64_t y, int reps, int flush,
             vb_time *t);
/* cub::DeviceReduce::Sum of n ints into *out; also checks the sum against
 * expect (the reference kernel's result). */
int vb_reduce(uint64_t in, uint64_t out, long n, int expect, int reps,
              int flush, vb_time *t);
/* cublasSgemm, FP32 math (no TF32): row-major C[m x n] = A[m x k] B[k x n]. */
int vb_sgemm(int m, int n, int k, uint64_t a, uint64_t b, uint64_t c,
             int reps, int flush, vb_time *t);

/* Reads one int from device memory. */
int vb_read_int(uint64_t ptr, int *out);

#ifdef __cplusplus
}
#endif

#endif
