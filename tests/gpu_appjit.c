/* gpu_appjit.c -- on a GPU: the JIT helper for applications builds copy
 * with the template defaults, with the configuration a profile gives for a
 * size that was not tuned, and with several extreme configurations,
 * launches each on random data and checks the output against the input;
 * modules come back from memory and from the disk cache; bad launches are
 * refused before the driver sees them. Exits 77 (skip) without a driver
 * or a GPU. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include <atune/atune.h>
#include <atune/atune_jit.h>

#include "jit/cudrv.h"

static const atune__cudrv *cu;
static CUdevice dev;
static CUcontext ctx;
static CUstream stream;
static char tmp[] = "/tmp/atune-gpu-appjit-XXXXXX";

#define CHECK_CU(call)                                                         \
    do {                                                                       \
        CUresult r_ = (call);                                                  \
        if (r_ != CUDA_SUCCESS) {                                              \
            char b_[256];                                                      \
            fail_msg("%s: %s", #call,                                          \
                     atune__cudrv_errstr(r_, b_, sizeof(b_)));                 \
        }                                                                      \
    } while (0)

static const char *source_dir(void)
{
    const char *dir = getenv("ATUNE_SOURCE_DIR");

    if (!dir || !*dir)
        fail_msg("ATUNE_SOURCE_DIR is not set (run through ctest)");
    return dir;
}

static atune_jit *open_copy(void)
{
    atune_jit *j = NULL;
    int rc = atune_jit_open(NULL, "copy", &j);
    const atune_jit_type types[] = {ATUNE_JIT_PTR, ATUNE_JIT_PTR,
                                    ATUNE_JIT_LONG};

    if (rc != ATUNE_OK)
        fail_msg("%s", atune_jit_errmsg(j));
    if (atune_jit_declare_args(j, types, 3) != ATUNE_OK)
        fail_msg("%s", atune_jit_errmsg(j));
    return j;
}

/* run_copy launches with the size in a string (atune_jit_launch) instead
 * of from the arguments (atune_jit_run). */
static int size_as_string;

static atune_jit_kernel *build(atune_jit *j, const atune_config *c)
{
    atune_jit_kernel *k = NULL;
    int rc = atune_jit_build(j, c, &k);

    if (rc != ATUNE_OK)
        fail_msg("build: %s: %s", atune_jit_strerror(rc), atune_jit_errmsg(j));
    assert_non_null(k);
    assert_non_null(atune_jit_kernel_function(k));
    assert_non_null(atune_jit_kernel_module(k));
    return k;
}

/* Launches k (copy) on n random ints and checks out == in. */
static void run_copy(atune_jit *j, atune_jit_kernel *k, long n)
{
    size_t bytes = (size_t)n * sizeof(int);
    int *in = malloc(bytes ? bytes : 1), *out = malloc(bytes ? bytes : 1);
    CUdeviceptr din, dout;
    uint32_t x = 12345u + (uint32_t)n;
    char size[64], cfg[256];
    void *args[] = {&din, &dout, &n};
    int rc;

    assert_non_null(in);
    assert_non_null(out);
    for (long i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        in[i] = (int)(x >> 1) | 1; /* never zero, never the poison */
    }
    CHECK_CU(cu->cuMemAlloc(&din, bytes));
    CHECK_CU(cu->cuMemAlloc(&dout, bytes));
    CHECK_CU(cu->cuMemcpyHtoD(din, in, bytes));
    CHECK_CU(cu->cuMemsetD8Async(dout, 0xA5, bytes, stream));
    snprintf(size, sizeof(size), "n=%ld", n);
    atune_jit_kernel_config(k, cfg, sizeof(cfg));
    rc = size_as_string ? atune_jit_launch(k, size, args, stream)
                        : atune_jit_run(k, args, stream);
    if (rc != ATUNE_OK)
        fail_msg("%s at %s: %s", cfg, size, atune_jit_errmsg(j));
    CHECK_CU(cu->cuStreamSynchronize(stream));
    CHECK_CU(cu->cuMemcpyDtoH(out, dout, bytes));
    for (long i = 0; i < n; i++) {
        if (out[i] != in[i])
            fail_msg("%s at %s: out[%ld] = %d, expected %d", cfg, size, i,
                     out[i], in[i]);
    }
    CHECK_CU(cu->cuMemFree(din));
    CHECK_CU(cu->cuMemFree(dout));
    free(in);
    free(out);
}

static void test_defaults(void **state)
{
    atune_jit *j = open_copy();
    atune_jit_kernel *k = build(j, NULL);
    char cfg[256];

    (void)state;
    atune_jit_kernel_config(k, cfg, sizeof(cfg));
    assert_string_equal(cfg, "BLOCK_SIZE=128,VW=1,UNROLL=1,GRID=0,EVICT=0");
    run_copy(j, k, 1000003);
    run_copy(j, k, 1);
    run_copy(j, k, 1000003); /* a cached shape */
    size_as_string = 1;
    run_copy(j, k, 77777);
    size_as_string = 0;
    atune_jit_close(j);
}

/* The identity of the GPU, as atune_device_from_cu fills it. */
static void identity(atune_device *d)
{
    int major = 0, minor = 0, sms = 0;

    memset(d, 0, sizeof(*d));
    CHECK_CU(cu->cuDeviceGetName(d->name, (int)sizeof(d->name), dev));
    CHECK_CU(cu->cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK_CU(cu->cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CHECK_CU(cu->cuDeviceGetAttribute(
        &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    d->cc = 10 * major + minor;
    d->sm_count = sms;
}

/* copy at a size that was not tuned, from the committed profile of this
 * GPU (or the H100 test profile when none fits). */
static void test_profile_config(void **state)
{
    atune_profile *p = NULL;
    const atune_config *c = NULL;
    atune_device d;
    atune_jit *j = open_copy();
    atune_jit_kernel *k;
    char dir[4096], line[512];
    int rc;

    (void)state;
    identity(&d);
    snprintf(dir, sizeof(dir), "%s/profiles", source_dir());
    rc = atune_profile_open_for(dir, &d, &p);
    if (rc == ATUNE_ENOTFOUND) {
        atune_profile_close(p);
        snprintf(dir, sizeof(dir), "%s/tests/data/profiles_good/h100.ini",
                 source_dir());
        rc = atune_profile_open(dir, &p);
    }
    if (rc != ATUNE_OK)
        fail_msg("%s", atune_profile_errmsg(p));
    if (atune_profile_lookup(p, "copy", "n=1000000", &c) != ATUNE_OK)
        fail_msg("%s", atune_profile_errmsg(p));
    atune_config_describe(p, c, line, sizeof(line));
    printf("%s (stale: %d)\n", line, atune_jit_stale(j, c));
    k = build(j, c);
    run_copy(j, k, 1000000);
    run_copy(j, k, 999999);
    atune_profile_close(p);
    atune_jit_close(j);
}

/* Extreme configurations, from a profile written here: each at an odd
 * size, a tiny one, and one that is a multiple of every vector. */
static void test_several_configs(void **state)
{
    static const char *const cfgs[] = {
        "BLOCK_SIZE = 1024\nVW = 4\nUNROLL = 4\nGRID = 0\nEVICT = 1\n",
        "BLOCK_SIZE = 64\nVW = 4\nUNROLL = 1\nGRID = 1\nEVICT = 0\n",
        "BLOCK_SIZE = 256\nVW = 2\nUNROLL = 4\nGRID = 32\nEVICT = 1\n",
        "BLOCK_SIZE = 512\nVW = 1\nUNROLL = 2\nGRID = 8\nEVICT = 0\n",
        "BLOCK_SIZE = 128\nVW = 4\nUNROLL = 2\nGRID = 2\nEVICT = 1\n",
    };
    const size_t n = sizeof(cfgs) / sizeof(cfgs[0]);
    char file[4200], size[32];
    atune_profile *p = NULL;
    atune_jit *j = open_copy();
    FILE *f;

    (void)state;
    snprintf(file, sizeof(file), "%s/configs.ini", tmp);
    f = fopen(file, "w");
    assert_non_null(f);
    fprintf(f, "[device]\nformat = 1\nname = X\ncc = 90\nsm_count = 132\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "[copy n=%zu]\n%s", i + 1, cfgs[i]);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(atune_profile_open(file, &p), ATUNE_OK);
    for (size_t i = 0; i < n; i++) {
        const atune_config *c = NULL;
        atune_jit_kernel *k;

        snprintf(size, sizeof(size), "n=%zu", i + 1);
        assert_int_equal(atune_profile_lookup(p, "copy", size, &c), ATUNE_OK);
        assert_int_equal(atune_config_size_match(c), ATUNE_SIZE_EXACT);
        k = build(j, c);
        run_copy(j, k, 1000003);
        run_copy(j, k, 3);
        run_copy(j, k, 1 << 20);
    }
    atune_profile_close(p);
    atune_jit_close(j);
}

static void test_memory_and_disk_cache(void **state)
{
    atune_jit *a = open_copy(), *b = open_copy(), *c = open_copy();
    atune_jit_kernel *k1, *k2, *k3;
    long hits, misses;

    (void)state;
    /* The first build of the default configuration in this run may have
     * hit the cache already (test_defaults); this one is compiled or
     * read, the second comes from memory. */
    k1 = build(a, NULL);
    k2 = build(a, NULL);
    assert_ptr_equal(k1, k2);
    atune_jit_cache_stats(a, &hits, &misses);
    assert_int_equal(hits + misses, 1);
    /* Another handle on the same cache directory: read from disk. */
    k3 = build(b, NULL);
    assert_int_equal(atune_jit_kernel_cached(k3), 1);
    atune_jit_cache_stats(b, &hits, &misses);
    assert_int_equal(hits, 1);
    assert_int_equal(misses, 0);
    run_copy(b, k3, 4099);
    /* Without a disk cache: compiled. */
    assert_int_equal(atune_jit_set_cache_dir(c, NULL), ATUNE_OK);
    k3 = build(c, NULL);
    assert_int_equal(atune_jit_kernel_cached(k3), 0);
    run_copy(c, k3, 4099);
    atune_jit_close(a);
    atune_jit_close(b);
    atune_jit_close(c);
}

static void test_refused_launches(void **state)
{
    atune_jit *j = open_copy();
    atune_jit_kernel *k = build(j, NULL);
    atune_jit_attr attr;
    atune_jit_dims d;
    int sms = 0;

    (void)state;
    /* 2^40 elements of 128 threads: a grid beyond 2^31 - 1. */
    assert_int_equal(atune_jit_launch(k, "n=1099511627776", NULL, stream),
                     ATUNE_EINVAL); /* no arguments */
    {
        CUdeviceptr p = 0;
        long n = 1099511627776L;
        void *args[] = {&p, &p, &n};
        assert_int_equal(atune_jit_launch(k, "n=1099511627776", args, stream),
                         ATUNE_ELAUNCH);
        assert_non_null(strstr(atune_jit_errmsg(j), "grid x of"));
        assert_int_equal(atune_jit_launch(k, "m=5", args, stream),
                         ATUNE_EINVAL);
        /* A size that is not the kernel's n would leave output unwritten. */
        n = 5000;
        assert_int_equal(atune_jit_launch(k, "n=1000", args, stream),
                         ATUNE_EINVAL);
        assert_non_null(strstr(atune_jit_errmsg(j), "the size says n=1000 "
                                                    "but argument 3 'n' is "
                                                    "5000"));
    }
    {
        /* atune_jit_run needs the types declared. */
        atune_jit *u = NULL;
        atune_jit_kernel *uk;
        CUdeviceptr p = 0;
        long n = 1;
        void *args[] = {&p, &p, &n};
        assert_int_equal(atune_jit_open(NULL, "copy", &u), ATUNE_OK);
        uk = build(u, NULL);
        assert_int_equal(atune_jit_run(uk, args, stream), ATUNE_EINVAL);
        assert_non_null(strstr(atune_jit_errmsg(u), "atune_jit_declare_args"));
        atune_jit_close(u);
    }
    assert_int_equal(atune_jit_kernel_shape(k, "n=1000000", &d), ATUNE_OK);
    assert_int_equal(d.grid[0], 7813);
    assert_int_equal(d.block[0], 128);
    /* The attributes the kernel was built with are the device's. */
    assert_int_equal(atune_jit_attr_query(j, dev, &attr), ATUNE_OK);
    CHECK_CU(cu->cuDeviceGetAttribute(
        &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    assert_int_equal(attr.sm_count, sms);
    assert_int_equal(attr.max_threads_per_block, 1024);
    assert_true(attr.cc >= 50);
    atune_jit_close(j);
}

/* matmul through atune_jit_run: three size variables read from the int
 * arguments m, n, k at an odd size, checked against the CPU. The split-K
 * workspace and tickets are allocated as the manifest sizes them, the
 * tickets zeroed once. */
static void test_matmul_sizes_from_args(void **state)
{
    const int m = 65, n = 67, k = 66;
    const atune_jit_type types[] = {ATUNE_JIT_PTR, ATUNE_JIT_PTR,
                                    ATUNE_JIT_PTR, ATUNE_JIT_INT,
                                    ATUNE_JIT_INT, ATUNE_JIT_INT,
                                    ATUNE_JIT_PTR, ATUNE_JIT_PTR,
                                    ATUNE_JIT_PTR};
    size_t ba = sizeof(float) * m * k, bb = sizeof(float) * k * n,
           bc = sizeof(float) * m * n;
    /* [args]: ws = float[min(32 * (m + 255) * (n + 255), 1 << 24)],
     * tickets = int[cdiv(m, 64) * cdiv(n, 64)],
     * sums = float[min((m + 255) * (n + 255), 1 << 22)] */
    size_t bw = sizeof(float) * 32 * (m + 255) * (n + 255),
           bt = sizeof(int) * ((m + 63) / 64) * ((n + 63) / 64),
           bs = sizeof(float) * (m + 255) * (n + 255);
    float *a = malloc(ba), *b = malloc(bb), *c = malloc(bc);
    CUdeviceptr da, db, dc, dw, dt, ds;
    void *args[] = {&da, &db, &dc, (void *)&m, (void *)&n, (void *)&k,
                    &dw, &dt, &ds};
    atune_jit *j = NULL;
    atune_jit_kernel *kk;
    uint32_t x = 7;

    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    for (int i = 0; i < m * k; i++, x = x * 1664525u + 1013904223u)
        a[i] = (float)(x >> 8) / 16777216.0f - 0.5f;
    for (int i = 0; i < k * n; i++, x = x * 1664525u + 1013904223u)
        b[i] = (float)(x >> 8) / 16777216.0f - 0.5f;
    assert_int_equal(atune_jit_open(NULL, "matmul", &j), ATUNE_OK);
    assert_int_equal(atune_jit_declare_args(j, types, 9), ATUNE_OK);
    kk = build(j, NULL);
    CHECK_CU(cu->cuMemAlloc(&da, ba));
    CHECK_CU(cu->cuMemAlloc(&db, bb));
    CHECK_CU(cu->cuMemAlloc(&dc, bc));
    CHECK_CU(cu->cuMemAlloc(&dw, bw));
    CHECK_CU(cu->cuMemAlloc(&dt, bt));
    CHECK_CU(cu->cuMemAlloc(&ds, bs));
    CHECK_CU(cu->cuMemsetD8Async(dt, 0, bt, stream));
    CHECK_CU(cu->cuMemsetD8Async(ds, 0, bs, stream));
    CHECK_CU(cu->cuMemcpyHtoD(da, a, ba));
    CHECK_CU(cu->cuMemcpyHtoD(db, b, bb));
    CHECK_CU(cu->cuMemsetD8Async(dc, 0xA5, bc, stream));
    if (atune_jit_run(kk, args, stream) != ATUNE_OK)
        fail_msg("%s", atune_jit_errmsg(j));
    CHECK_CU(cu->cuStreamSynchronize(stream));
    CHECK_CU(cu->cuMemcpyDtoH(c, dc, bc));
    for (int r = 0; r < m; r++) {
        for (int col = 0; col < n; col++) {
            float want = 0;
            for (int i = 0; i < k; i++)
                want = fmaf(a[r * k + i], b[i * n + col], want);
            if (!(fabsf(c[r * n + col] - want) <= 1e-4f))
                fail_msg("C[%d][%d] = %g, expected %g", r, col, c[r * n + col],
                         want);
        }
    }
    CHECK_CU(cu->cuMemFree(da));
    CHECK_CU(cu->cuMemFree(db));
    CHECK_CU(cu->cuMemFree(dc));
    CHECK_CU(cu->cuMemFree(dw));
    CHECK_CU(cu->cuMemFree(dt));
    CHECK_CU(cu->cuMemFree(ds));
    atune_jit_close(j);
    free(a);
    free(b);
    free(c);
}

/* A thread without a current context is told so. */
/* A launch sequence through libatune_jit (issue 33): two_pass_sum's
 * partial_sums then merge_sums, launched by one atune_jit_run or
 * atune_jit_launch, at three configurations and two sizes; the total must
 * be the host's sum of the input. */
static void test_sequence_launch(void **state)
{
    static const char *const configs[] = {
        NULL, /* the defaults */
        "BLOCK = 512\nPARTS = 1024\nMERGE = 64\n",
        "BLOCK = 128\nPARTS = 128\nMERGE = 256\n",
    };
    static const long sizes[] = {1000003, 4096};
    const atune_jit_type types[] = {ATUNE_JIT_PTR, ATUNE_JIT_PTR,
                                    ATUNE_JIT_PTR, ATUNE_JIT_LONG,
                                    ATUNE_JIT_INT};
    char dir[4200];
    atune_jit *j = NULL;

    (void)state;
    snprintf(dir, sizeof(dir), "%s/tests/data/sequence", source_dir());
    if (atune_jit_open(dir, "two_pass_sum", &j) != ATUNE_OK ||
        atune_jit_declare_args(j, types, 5) != ATUNE_OK)
        fail_msg("%s", atune_jit_errmsg(j));
    for (size_t ci = 0; ci < sizeof(configs) / sizeof(configs[0]); ci++) {
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            long n = sizes[si];
            size_t bytes = (size_t)n * sizeof(int);
            int *in = malloc(bytes);
            long want = 0, total = 0;
            CUdeviceptr din, dpart, dtotal;
            atune_profile *p = NULL;
            const atune_config *c = NULL;
            atune_jit_kernel *k;
            char text[1024], size[64], cfg[256];
            int parts;
            void *args[] = {&din, &dpart, &dtotal, &n, &parts};
            uint32_t x = 777u + (uint32_t)n;

            assert_non_null(in);
            for (long i = 0; i < n; i++) {
                x = x * 1664525u + 1013904223u;
                in[i] = (int)(x >> 8) - (1 << 23);
                want += in[i];
            }
            snprintf(size, sizeof(size), "n=%ld", n);
            if (configs[ci]) {
                snprintf(text, sizeof(text),
                         "[device]\nformat = 1\nname = x\nslug = x\n"
                         "cc = 90\nsm_count = 132\n"
                         "[two_pass_sum %s]\n%stime_ns = 1\n",
                         size, configs[ci]);
                if (atune_profile_open_string("seq.ini", text, strlen(text),
                                              &p) != ATUNE_OK ||
                    atune_profile_lookup(p, "two_pass_sum", size, &c) !=
                        ATUNE_OK)
                    fail_msg("profile: %s", atune_profile_errmsg(p));
            }
            k = build(j, c);
            atune_jit_kernel_config(k, cfg, sizeof(cfg));
            parts = (int)atune_config_get(c, "PARTS", 64);
            CHECK_CU(cu->cuMemAlloc(&din, bytes));
            CHECK_CU(cu->cuMemAlloc(&dpart, 1024 * sizeof(long)));
            CHECK_CU(cu->cuMemAlloc(&dtotal, sizeof(long)));
            CHECK_CU(cu->cuMemcpyHtoD(din, in, bytes));
            CHECK_CU(cu->cuMemsetD8Async(dtotal, 0xA5, sizeof(long), stream));
            if ((si ? atune_jit_launch(k, size, args, stream)
                    : atune_jit_run(k, args, stream)) != ATUNE_OK)
                fail_msg("%s at %s: %s", cfg, size, atune_jit_errmsg(j));
            CHECK_CU(cu->cuStreamSynchronize(stream));
            CHECK_CU(cu->cuMemcpyDtoH(&total, dtotal, sizeof(long)));
            printf("two_pass_sum %s at %s: total %ld, host %ld\n", cfg, size,
                   total, want);
            if (total != want)
                fail_msg("%s at %s: total %ld, expected %ld", cfg, size,
                         total, want);
            CHECK_CU(cu->cuMemFree(din));
            CHECK_CU(cu->cuMemFree(dpart));
            CHECK_CU(cu->cuMemFree(dtotal));
            atune_profile_close(p);
            free(in);
        }
    }
    atune_jit_close(j);
}

static void *build_elsewhere(void *arg)
{
    atune_jit_kernel *k = NULL;

    return (void *)(intptr_t)atune_jit_build(arg, NULL, &k);
}

static void test_no_current_context(void **state)
{
    atune_jit *j = open_copy();
    pthread_t t;
    void *rc;

    (void)state;
    assert_int_equal(pthread_create(&t, NULL, build_elsewhere, j), 0);
    assert_int_equal(pthread_join(t, &rc), 0);
    assert_int_equal((int)(intptr_t)rc, ATUNE_EINVAL);
    assert_non_null(strstr(atune_jit_errmsg(j), "no current CUDA context"));
    atune_jit_close(j);
}

/* The driver, device 0's primary context made current, a stream, and a
 * private cache directory. 77 when there is no driver or GPU. */
static int open_gpu(void)
{
    atune__err err = {0};
    char dir[4200];
    int count = 0;

    cu = atune__cudrv_load(&err);
    if (!cu) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    if (cu->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        printf("skipped: no CUDA-capable GPU\n");
        return 77;
    }
    if (cu->cuDeviceGet(&dev, 0) || cu->cuDevicePrimaryCtxRetain(&ctx, dev) ||
        cu->cuCtxSetCurrent(ctx) ||
        cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) {
        fprintf(stderr, "cannot set up GPU 0\n");
        return 1;
    }
    if (!mkdtemp(tmp))
        return 1;
    snprintf(dir, sizeof(dir), "%s/cache", tmp);
    setenv("ATUNE_CACHE_DIR", dir, 1);
    unsetenv("ATUNE_NO_CACHE");
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_profile_config),
        cmocka_unit_test(test_several_configs),
        cmocka_unit_test(test_memory_and_disk_cache),
        cmocka_unit_test(test_refused_launches),
        cmocka_unit_test(test_matmul_sizes_from_args),
        cmocka_unit_test(test_no_current_context),
        cmocka_unit_test(test_sequence_launch),
    };
    /* tests/gpu.sh STEPS=verify runs test_sequence_launch alone. */
    const char *only = getenv("ATUNE_TEST_FILTER");
    int rc = open_gpu();

    if (rc)
        return rc;
    if (only && *only)
        cmocka_set_test_filter(only);
    rc = cmocka_run_group_tests_name("gpu_appjit", tests, NULL, NULL);
    cu->cuStreamDestroy(stream);
    cu->cuDevicePrimaryCtxRelease(dev);
    rm_rf(tmp);
    return rc;
}
