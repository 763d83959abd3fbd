/* main.c -- an application of the installed autotune package: opens the
 * profile for its GPU, asks for the tuned `copy` at sizes that were never
 * tuned (n=1000000 by default), always launchable (atune_jit_config_for),
 * prints the match it used, and, when a GPU is there, launches it on
 * random data two ways: built through atune_jit (the size read from the
 * arguments), and, when built with CONSUMER_OWN_KERNEL, its own
 * nvcc-compiled copy (own_copy.cu) with the configuration and launch from
 * the header `autotune header --kernel copy` generated. Both outputs must
 * equal the input, bit for bit.
 *
 *   consumer [--profiles DIR] [--templates DIR] [--size n=N]...
 *            [--name NAME --cc CC --sms N]
 *
 * --profiles '' searches the profile search path (atune_profile_search_path:
 * $ATUNE_PROFILE_PATH, the user's, the installed ones). Without a GPU the
 * device identity comes from --name/--cc/--sms, else from the first
 * profile of DIR; the launch is then skipped (exit 0).
 * Exit status: 0 fine or skipped, 1 error or wrong output, 64 bad usage. */
#include <dirent.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include <atune/atune.h>
#include <atune/atune_cuda.h>
#include <atune/atune_jit.h>

#ifdef CONSUMER_OWN_KERNEL
#include "atune_copy.h" /* autotune header --kernel copy */
#include "own_copy.h"
#endif

#ifndef CONSUMER_PROFILES
#define CONSUMER_PROFILES "profiles"
#endif

#define MAX_SIZES 8

struct options {
    const char *profiles;
    const char *templates; /* NULL: the templates built into atune_jit */
    int nsizes;
    const char *sizes[MAX_SIZES]; /* "n=1000000" */
    long ns[MAX_SIZES];
    atune_device dev; /* from the command line */
    int have_dev;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: consumer [--profiles DIR] [--templates DIR] "
               "[--size n=N]... [--name NAME --cc CC --sms N]\n");
}

static int parse_int(const char *s, long *out)
{
    char *end;

    *out = strtol(s, &end, 10);
    return *s && !*end && *out >= 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longs[] = {
        {"profiles", required_argument, NULL, 'p'},
        {"templates", required_argument, NULL, 't'},
        {"size", required_argument, NULL, 's'},
        {"name", required_argument, NULL, 'N'},
        {"cc", required_argument, NULL, 'C'},
        {"sms", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    long v;
    int c;

    memset(o, 0, sizeof(*o));
    o->profiles = CONSUMER_PROFILES;

    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (c) {
        case 'p':
            o->profiles = optarg;
            break;
        case 't':
            o->templates = optarg;
            break;
        case 's':
            if (o->nsizes == MAX_SIZES ||
                sscanf(optarg, "n=%ld", &o->ns[o->nsizes]) != 1 ||
                o->ns[o->nsizes] <= 0)
                return 0;
            o->sizes[o->nsizes++] = optarg;
            break;
        case 'N':
            snprintf(o->dev.name, sizeof(o->dev.name), "%s", optarg);
            o->have_dev = 1;
            break;
        case 'C':
        case 'S':
            if (!parse_int(optarg, &v) || v > 10000)
                return 0;
            *(c == 'C' ? &o->dev.cc : &o->dev.sm_count) = (int)v;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            return 0;
        }
    }
    if (o->nsizes == 0) {
        o->sizes[0] = "n=1000000";
        o->ns[o->nsizes++] = 1000000;
    }
    return optind == argc && (!o->have_dev || o->dev.cc > 0);
}

/* The identity of GPU 0, whose primary context the runtime then makes
 * current; 0 with the reason when there is no usable GPU. */
static int gpu_identity(atune_device *d, char *why, size_t len)
{
    cudaError_t e;

    if (atune_device_from_cudart(d, 0, &e) == ATUNE_OK) {
        e = cudaSetDevice(0);
        if (e == cudaSuccess)
            e = cudaFree(NULL); /* creates the context */
    }
    if (e != cudaSuccess) {
        /* The runtime's own words for a missing driver ("driver version
         * is insufficient") send people looking for an upgrade. */
        snprintf(why, len, "%s%s",
                 e == cudaErrorInsufficientDriver
                     ? "no CUDA driver, or one older than this program's "
                       "CUDA runtime: "
                     : "",
                 cudaGetErrorString(e));
        return 0;
    }
    return 1;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The device of the first (by name) readable profile of dir. */
static int first_profile(const char *dir, atune_device *d)
{
    char *names[256], path[4096];
    struct dirent *de;
    DIR *dp = opendir(dir);
    int n = 0, found = 0;

    if (!dp)
        return 0;
    while ((de = readdir(dp)) != NULL && n < 256) {
        size_t len = strlen(de->d_name);
        if (len > 4 && strcmp(de->d_name + len - 4, ".ini") == 0 &&
            (names[n] = strdup(de->d_name)) != NULL)
            n++;
    }
    closedir(dp);
    qsort(names, (size_t)n, sizeof(names[0]), compare_names);
    for (int i = 0; i < n; i++) {
        atune_profile *p = NULL;
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (!found && atune_profile_open(path, &p) == ATUNE_OK) {
            *d = *atune_profile_device(p);
            found = 1;
        }
        atune_profile_close(p);
        free(names[i]);
    }
    return found;
}

/* Opens the profile for dev; *p may then hold none (the template's
 * defaults are used). */
static int open_profile(const struct options *o, const atune_device *dev,
                        atune_profile **p)
{
    const char *dir = *o->profiles ? o->profiles : NULL;
    int rc = atune_profile_open_for(dir, dev, p);

    if (rc == ATUNE_ENOTFOUND) {
        printf("copy: no profile for '%s' in %s: using the template's "
               "defaults\n",
               dev->name, atune_profile_path(*p));
        atune_profile_close(*p);
        *p = NULL;
        return 0;
    }
    if (rc != ATUNE_OK) {
        fprintf(stderr, "consumer: %s: %s\n", atune_strerror(rc),
                atune_profile_errmsg(*p));
        return -1;
    }
    if (*atune_profile_warning(*p))
        printf("warning: %s\n", atune_profile_warning(*p));
    return 0;
}

/* The configuration of copy at size that is safe to launch: the tuned
 * one, another tuned entry, or the defaults (NULL); says which. */
static int lookup(atune_jit *j, atune_profile *p, const char *size,
                  const atune_jit_attr *a, const atune_config **c)
{
    char line[8192];
    int stale;

    if (atune_jit_config_for(j, p, size, a, c, line, sizeof(line)) !=
        ATUNE_OK) {
        fprintf(stderr, "consumer: %s\n", atune_jit_errmsg(j));
        return -1;
    }
    printf("%s\n", line);
    stale = atune_jit_stale(j, *c);
    if (stale & ATUNE_JIT_STALE_HASH)
        printf("note: stale profile entry: tuned with another version of "
               "the template\n");
    if (stale & ATUNE_JIT_STALE_PARAMS)
        printf("note: stale profile entry: its parameters differ from the "
               "template's\n");
    return 0;
}

static void print_dims(const char *size, const atune_jit_dims *d,
                       const char *where)
{
    printf("launch at %s: grid %u x %u x %u, block %u x %u x %u, %u bytes "
           "shared (%s)\n",
           size, d->grid[0], d->grid[1], d->grid[2], d->block[0], d->block[1],
           d->block[2], d->shared, where);
}

/* The limits of a GPU of the identity's SM count and compute capability,
 * with those every GPU since Volta has: the launch without a GPU. */
static atune_jit_attr generic_attr(const atune_device *dev)
{
    atune_jit_attr a = {
        .sm_count = dev->sm_count,
        .max_threads_per_block = 1024,
        .max_block = {1024, 1024, 64},
        .max_grid = {2147483647, 65535, 65535},
        .max_shared_per_block = 48 * 1024,
        .warp_size = 32,
        .cc = dev->cc,
    };
    return a;
}

static int cpu_shape(atune_jit *j, const atune_config *c,
                     const atune_jit_attr *a, const char *size)
{
    atune_jit_dims d;

    if (atune_jit_shape(j, c, a, size, &d) != ATUNE_OK) {
        fprintf(stderr, "consumer: %s\n", atune_jit_errmsg(j));
        return 1;
    }
    print_dims(size, &d, "computed without a GPU");
    return 0;
}

static int cuda_failed(const char *what)
{
    fprintf(stderr, "consumer: CUDA: %s: %s\n", what,
            cudaGetErrorString(cudaGetLastError()));
    return 1;
}

/* Counts the elements of out that differ from want. */
static long differ(const int *out, const int *want, long n)
{
    long bad = 0;

    for (long i = 0; i < n; i++)
        bad += out[i] != want[i];
    return bad;
}

/* The JIT's launch: the kernel built for c, the size taken from its own
 * argument n. */
static int jit_copy(atune_jit *j, const atune_config *c, const char *size,
                    void *din, void *dout, long n, cudaStream_t stream)
{
    /* The types of what args points to, declared once and checked
     * against the template's [args] (copy: int *in, int *out, long n). */
    const atune_jit_type types[] = {ATUNE_JIT_PTR, ATUNE_JIT_PTR,
                                    ATUNE_JIT_TYPE_OF(n)};
    void *args[] = {&din, &dout, &n};
    atune_jit_kernel *k = NULL;
    atune_jit_dims d;
    char cfg[256];

    if (atune_jit_declare_args(j, types, 3) != ATUNE_OK ||
        atune_jit_build(j, c, &k) != ATUNE_OK ||
        atune_jit_kernel_shape(k, size, &d) != ATUNE_OK) {
        fprintf(stderr, "consumer: %s\n", atune_jit_errmsg(j));
        return 1;
    }
    atune_jit_kernel_config(k, cfg, sizeof(cfg));
    printf("jit: built %s (%s)\n", cfg,
           atune_jit_kernel_cached(k) ? "from the disk cache" : "compiled");
    print_dims(size, &d, "this GPU, jit");
    /* cudaStream_t and CUstream are the same type. */
    if (atune_jit_run(k, args, (CUstream)stream) != ATUNE_OK) {
        fprintf(stderr, "consumer: %s\n", atune_jit_errmsg(j));
        return 1;
    }
    return 0;
}

#ifdef CONSUMER_OWN_KERNEL
/* The application's own copy: the configuration from the profile entry
 * through the generated header, its launch from the header's [launch]. */
static int own_copy(const atune_config *c, const char *size, void *din,
                    void *dout, long n, cudaStream_t stream)
{
    struct cudaDeviceProp prop;
    atune_header_device dev;
    atune_copy_config cfg;
    atune_copy_size s = {.n = n};
    unsigned grid[3], block[3];
    size_t shared;
    char msg[256];

    if (atune_copy_from_profile(c, &cfg) != 0)
        printf("own: the profile entry does not fit this template: "
               "defaults\n");
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
        return cuda_failed("cudaGetDeviceProperties");
    dev = (atune_header_device){
        .sm_count = prop.multiProcessorCount,
        .max_threads_per_block = prop.maxThreadsPerBlock,
        .max_block = {prop.maxThreadsDim[0], prop.maxThreadsDim[1],
                      prop.maxThreadsDim[2]},
        .max_grid = {prop.maxGridSize[0], prop.maxGridSize[1],
                     prop.maxGridSize[2]},
        .max_shared_per_block = (int64_t)prop.sharedMemPerBlockOptin,
        .warp_size = prop.warpSize,
        .cc = prop.major * 10 + prop.minor,
        .l2_bytes = prop.l2CacheSize,
    };
    if (!atune_copy_launch(&cfg, &s, &dev, grid, block, &shared)) {
        fprintf(stderr, "consumer: own copy cannot launch at %s\n", size);
        return 1;
    }
    printf("own: BLOCK_SIZE=%lld,VW=%lld,UNROLL=%lld,GRID=%lld (template "
           "hash %s)\n",
           (long long)cfg.BLOCK_SIZE, (long long)cfg.VW, (long long)cfg.UNROLL,
           (long long)cfg.GRID, ATUNE_COPY_TEMPLATE_HASH);
    printf("launch at %s: grid %u x %u x %u, block %u x %u x %u, %zu bytes "
           "shared (this GPU, own kernel)\n",
           size, grid[0], grid[1], grid[2], block[0], block[1], block[2],
           shared);
    if (own_copy_launch(&cfg, grid, block, shared, stream, din, dout, n, msg,
                        sizeof(msg)) != 0) {
        fprintf(stderr, "consumer: own copy: %s\n", msg);
        return 1;
    }
    return 0;
}
#endif

/* Launches copy on n random ints through the JIT (and the application's
 * own kernel); 0 when every output equals the input. */
static int gpu_copy(atune_jit *j, const atune_config *c, const char *size,
                    long n)
{
    size_t bytes = (size_t)n * sizeof(int);
    int *in = malloc(bytes), *out = malloc(bytes);
    void *din = NULL, *dout = NULL;
    cudaStream_t stream = NULL;
    uint32_t x = 2024u + (uint32_t)n;
    long bad;
    int rc = 1;

    if (!in || !out)
        goto out;
    for (long i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        in[i] = (int)(x >> 1);
    }
    if (cudaMalloc(&din, bytes) || cudaMalloc(&dout, bytes) ||
        cudaStreamCreate(&stream) ||
        cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice) ||
        cudaMemset(dout, 0xA5, bytes)) {
        rc = cuda_failed("setup");
        goto out;
    }
    if (jit_copy(j, c, size, din, dout, n, stream) != 0)
        goto out;
    if (cudaStreamSynchronize(stream) ||
        cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost)) {
        rc = cuda_failed("jit copy");
        goto out;
    }
    bad = differ(out, in, n);
    printf("jit copy of %ld ints: %s (%ld wrong)\n", n,
           bad ? "OUTPUT DIFFERS" : "output matches input", bad);
    if (bad)
        goto out;
#ifdef CONSUMER_OWN_KERNEL
    if (cudaMemset(dout, 0xA5, bytes) ||
        own_copy(c, size, din, dout, n, stream) != 0 ||
        cudaStreamSynchronize(stream) ||
        cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost)) {
        rc = cuda_failed("own copy");
        goto out;
    }
    bad = differ(out, in, n);
    printf("own copy of %ld ints: %s (%ld wrong)\n", n,
           bad ? "OUTPUT DIFFERS"
               : "output matches input, bit-exact with "
                 "the jit",
           bad);
    if (bad)
        goto out;
#endif
    rc = 0;
out:
    if (stream)
        cudaStreamDestroy(stream);
    cudaFree(din);
    cudaFree(dout);
    free(in);
    free(out);
    return rc;
}

int main(int argc, char **argv)
{
    struct options o;
    atune_device dev;
    atune_profile *p = NULL;
    const atune_config *c = NULL;
    atune_jit *j = NULL;
    atune_jit_attr a;
    char why[256];
    int gpu, rc = 1;

    if (!parse_options(argc, argv, &o)) {
        usage(stderr);
        return 64;
    }
    gpu = gpu_identity(&dev, why, sizeof(why));
    if (!gpu && o.have_dev)
        dev = o.dev;
    else if (!gpu && (!*o.profiles || !first_profile(o.profiles, &dev))) {
        fprintf(stderr,
                "consumer: no GPU (%s), no --name and no readable "
                "profile in %s\n",
                why, o.profiles);
        return 1;
    }
    printf("device: %s (compute capability %d.%d, %d SMs)%s\n", dev.name,
           dev.cc / 10, dev.cc % 10, dev.sm_count, gpu ? "" : ", no GPU");
    if (open_profile(&o, &dev, &p) != 0)
        goto out;
    if (atune_jit_open(o.templates, "copy", &j) != ATUNE_OK) {
        fprintf(stderr, "consumer: %s\n", atune_jit_errmsg(j));
        goto out;
    }
    a = generic_attr(&dev);
    for (int i = 0; i < o.nsizes; i++) {
        rc = lookup(j, p, o.sizes[i], &a, &c);
        if (rc == 0 && !gpu)
            rc = cpu_shape(j, c, &a, o.sizes[i]);
        else if (rc == 0)
            rc = gpu_copy(j, c, o.sizes[i], o.ns[i]);
        if (rc != 0)
            goto out;
    }
    if (!gpu)
        printf("no GPU (%s): skipped the launch\n", why);
out:
    atune_jit_close(j);
    atune_profile_close(p);
    return rc;
}
