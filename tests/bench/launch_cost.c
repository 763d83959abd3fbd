/* launch_cost.c -- the host cost of one launch through libatune_jit
 * against a bare cuLaunchKernel of the same function, grid and arguments
 * (issue 19: within 1 us). Launches are asynchronous: each is timed alone
 * on the host clock, in batches of BATCH with a stream synchronization
 * between batches (outside the timing) so that the launch queue never
 * fills and blocks; the three ways alternate batch by batch so that clock
 * and driver state drift hits them alike. Prints the medians; exits 1 when
 * atune_jit_run costs more than 1 us over the bare launch, 77 without a
 * driver or GPU.
 *
 *   build/ci/tests/launch_cost [launches per way, default 20000] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <atune/atune.h>
#include <atune/atune_jit.h>

#include "jit/cudrv.h"

#define BATCH 200
#define LIMIT_NS 1000.0

static const atune__cudrv *cu;

static int64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static double median(int64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof(v[0]), cmp64);
    return n % 2 ? (double)v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

typedef struct bench {
    atune_jit *j;
    atune_jit_kernel *k;
    CUfunction fn;
    atune_jit_dims d;
    CUstream stream;
    void **args;
    const char *size;
} bench;

/* One launch the way way says; its host time in *ns. */
static int launch(const bench *b, int way, int64_t *ns)
{
    int64_t t0 = now_ns();
    int rc;

    if (way == 0)
        rc = cu->cuLaunchKernel(b->fn, b->d.grid[0], b->d.grid[1], b->d.grid[2],
                                b->d.block[0], b->d.block[1], b->d.block[2],
                                b->d.shared, b->stream, b->args,
                                NULL) == CUDA_SUCCESS
                 ? ATUNE_OK
                 : ATUNE_ECUDA;
    else if (way == 1)
        rc = atune_jit_run(b->k, b->args, b->stream);
    else
        rc = atune_jit_launch(b->k, b->size, b->args, b->stream);
    *ns = now_ns() - t0;
    return rc;
}

static int measure(const bench *b, int per_way, double med[3])
{
    int64_t *t[3];
    int done = 0, rc = 0;

    for (int w = 0; w < 3; w++)
        t[w] = malloc(sizeof(int64_t) * (size_t)per_way);
    if (!t[0] || !t[1] || !t[2]) {
        fprintf(stderr, "launch_cost: out of memory\n");
        rc = 1;
    }
    while (!rc && done < per_way) {
        int n = per_way - done < BATCH ? per_way - done : BATCH;
        for (int w = 0; w < 3 && !rc; w++) {
            for (int i = 0; i < n && !rc; i++) {
                if (launch(b, w, &t[w][done + i]) != ATUNE_OK) {
                    fprintf(stderr, "launch_cost: way %d: %s\n", w,
                            atune_jit_errmsg(b->j));
                    rc = 1;
                }
            }
            if (!rc && cu->cuStreamSynchronize(b->stream) != CUDA_SUCCESS)
                rc = 1;
        }
        done += n;
    }
    for (int w = 0; w < 3; w++) {
        if (!rc)
            med[w] = median(t[w], per_way);
        free(t[w]);
    }
    return rc;
}

int main(int argc, char **argv)
{
    const atune_jit_type types[] = {ATUNE_JIT_PTR, ATUNE_JIT_PTR,
                                    ATUNE_JIT_LONG};
    atune__err err = {0};
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr in = 0, out = 0;
    long n = 4096;
    void *args[] = {&in, &out, &n};
    bench b = {0};
    double med[3] = {0};
    int count = 0, per_way = argc > 1 ? atoi(argv[1]) : 20000, rc;

    if (per_way < 100)
        per_way = 100;
    if (!(cu = atune__cudrv_load(&err))) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    if (cu->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        printf("skipped: no CUDA-capable GPU\n");
        return 77;
    }
    if (cu->cuDeviceGet(&dev, 0) || cu->cuDevicePrimaryCtxRetain(&ctx, dev) ||
        cu->cuCtxSetCurrent(ctx) ||
        cu->cuStreamCreate(&b.stream, CU_STREAM_NON_BLOCKING) ||
        cu->cuMemAlloc(&in, (size_t)n * 4) ||
        cu->cuMemAlloc(&out, (size_t)n * 4)) {
        fprintf(stderr, "launch_cost: cannot set up GPU 0\n");
        return 1;
    }
    b.args = args;
    b.size = "n=4096";
    if (atune_jit_open(NULL, "copy", &b.j) != ATUNE_OK ||
        atune_jit_declare_args(b.j, types, 3) != ATUNE_OK ||
        atune_jit_build(b.j, NULL, &b.k) != ATUNE_OK ||
        atune_jit_kernel_shape(b.k, b.size, &b.d) != ATUNE_OK) {
        fprintf(stderr, "launch_cost: %s\n", atune_jit_errmsg(b.j));
        return 1;
    }
    b.fn = atune_jit_kernel_function(b.k);
    rc = measure(&b, per_way, med);
    if (rc == 0) {
        printf("launch_cost: copy n=4096, %d launches per way, median host "
               "time per launch:\n",
               per_way);
        printf("  bare cuLaunchKernel          %8.0f ns\n", med[0]);
        printf("  atune_jit_run                %8.0f ns (%+.0f ns)\n", med[1],
               med[1] - med[0]);
        printf("  atune_jit_launch (\"n=4096\")  %8.0f ns (%+.0f ns)\n", med[2],
               med[2] - med[0]);
        if (med[1] - med[0] > LIMIT_NS) {
            printf("launch_cost: FAIL: atune_jit_run is more than %.0f ns "
                   "over the bare launch\n",
                   LIMIT_NS);
            rc = 1;
        }
    }
    atune_jit_close(b.j);
    cu->cuMemFree(in);
    cu->cuMemFree(out);
    cu->cuStreamDestroy(b.stream);
    cu->cuDevicePrimaryCtxRelease(dev);
    return rc;
}
