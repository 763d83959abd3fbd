/* memcpy_engine.cu -- where the driver's device-to-device cudaMemcpy runs
 * (issue 15): on the SMs, as a kernel the profilers do not list, or on a
 * copy engine. While a kernel holds every thread slot of every SM for
 * SPIN_MS, a D2D copy issued on another stream either waits for it (SMs)
 * or finishes in its usual time (a copy engine). A copy kernel of our own
 * on that stream is the control: it must wait. Each size is timed idle,
 * beside the spinning kernel, and our kernel beside it.
 *
 *   memcpy_engine [DEVICE]        prints one line per size and a verdict */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <cuda_runtime.h>

#define CK(call)                                                               \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "memcpy_engine: %s:%d: %s: %s\n", __FILE__,        \
                    __LINE__, #call, cudaGetErrorString(e_));                  \
            return -1;                                                         \
        }                                                                      \
    } while (0)

enum { SPIN_MS = 20 };

__device__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Every thread waits until ms have passed since its block started. */
__global__ void spin(int ms, int *sink)
{
    const unsigned long long end = now_ns() + 1000000ull * ms;
    int n = 0;

    while (now_ns() < end)
        n++;
    if (n == -1)
        *sink = n;
}

__global__ void copy_kernel(const int4 *in, int4 *out, long n)
{
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x)
        out[i] = in[i];
}

/* Microseconds from an event before to one after what `what` issues on
 * stream s; with busy, a spinning kernel holds the SMs on stream b first. */
template <typename F>
static int timed(cudaStream_t s, cudaStream_t b, int busy, int blocks,
                 int *sink, F what, double *us)
{
    cudaEvent_t e0, e1;
    float ms = 0;

    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    if (busy) {
        spin<<<blocks, 1024, 0, b>>>(SPIN_MS, sink);
        CK(cudaGetLastError());
        /* Its blocks are resident well before this returns. */
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    CK(cudaEventRecord(e0, s));
    if (what())
        return -1;
    CK(cudaEventRecord(e1, s));
    CK(cudaDeviceSynchronize());
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    *us = ms * 1e3;
    return 0;
}

static int run(int dev)
{
    cudaDeviceProp prop;
    cudaStream_t s, b;
    int *sink = nullptr, slots = 0;
    void *src = nullptr, *dst = nullptr;
    const size_t sizes[] = {4096, 1 << 20, 4 << 20, 64 << 20, 1 << 30};
    const size_t most = 1 << 30;
    int waited = 0, engine = 0, control = 1;

    CK(cudaSetDevice(dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    slots = prop.maxThreadsPerMultiProcessor / 1024;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CK(cudaMalloc(&sink, sizeof(int)));
    CK(cudaMalloc(&src, most));
    CK(cudaMalloc(&dst, most));
    CK(cudaMemset(src, 0x5a, most));
    printf("%s: %d SMs, %d blocks of 1024 threads hold every thread slot for "
           "%d ms\n", prop.name, prop.multiProcessorCount,
           slots * prop.multiProcessorCount, SPIN_MS);
    printf("%12s %12s %14s %16s\n", "bytes", "idle us", "SMs held us",
           "our kernel us");
    for (size_t bytes : sizes) {
        double idle = 0, busy = 0, ours = 0;
        auto memcpy_d2d = [&]() -> int {
            CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
            return 0;
        };
        auto kernel = [&]() -> int {
            copy_kernel<<<prop.multiProcessorCount * 4, 256, 0, s>>>(
                (const int4 *)src, (int4 *)dst, (long)(bytes / 16));
            CK(cudaGetLastError());
            return 0;
        };
        int blocks = slots * prop.multiProcessorCount;

        if (timed(s, b, 0, blocks, sink, memcpy_d2d, &idle) ||
            timed(s, b, 0, blocks, sink, memcpy_d2d, &idle) ||
            timed(s, b, 1, blocks, sink, memcpy_d2d, &busy) ||
            timed(s, b, 1, blocks, sink, kernel, &ours))
            return -1;
        printf("%12zu %12.1f %14.1f %16.1f\n", bytes, idle, busy, ours);
        /* Waited: it finished only when the spinning kernel let go. */
        if (busy > 1000.0 * SPIN_MS / 2)
            waited++;
        else
            engine++;
        control &= ours > 1000.0 * SPIN_MS / 2;
    }
    printf("verdict: D2D cudaMemcpy %s (%d sizes waited for the SMs, %d did "
           "not); control (our kernel waited): %s\n",
           waited && !engine ? "runs on the SMs"
           : engine && !waited ? "runs on a copy engine"
                               : "runs on the SMs at some sizes only",
           waited, engine, control ? "yes" : "NO, the test is void");
    CK(cudaFree(src));
    CK(cudaFree(dst));
    CK(cudaFree(sink));
    return control ? 0 : -1;
}

int main(int argc, char **argv)
{
    return run(argc > 1 ? atoi(argv[1]) : 0) ? 1 : 0;
}
