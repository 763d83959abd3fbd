/* main.c -- an application of the installed autotune package: opens the
 * profile for its GPU, looks up the tuned `copy` at a size that was never
 * tuned (n=1000000), prints the match it used, and, when a GPU is there,
 * builds that configuration through atune_jit, launches it on random data
 * and checks the output against the input.
 *
 *   consumer [--profiles DIR] [--templates DIR] [--size n=N]
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

#ifndef CONSUMER_PROFILES
#define CONSUMER_PROFILES "profiles"
#endif

struct options {
    const char *profiles;
    const char *templates; /* NULL: the templates built into atune_jit */
    const char *size;
    long n;
    atune_device dev; /* from the command line */
    int have_dev;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: consumer [--profiles DIR] [--templates DIR] "
               "[--size n=N] [--name NAME --cc CC --sms N]\n");
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
    o->size = "n=1000000";
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (c) {
        case 'p':
            o->profiles = optarg;
            break;
        case 't':
            o->templates = optarg;
            break;
        case 's':
            o->size = optarg;
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
    return optind == argc && sscanf(o->size, "n=%ld", &o->n) == 1 && o->n > 0 &&
           (!o->have_dev || o->dev.cc > 0);
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

/* Opens the profile for dev and looks copy up: *c is NULL when no
 * profile or entry fits (the template's defaults then). */
static int lookup(const struct options *o, const atune_device *dev,
                  atune_profile **p, const atune_config **c)
{
    const char *dir = *o->profiles ? o->profiles : NULL;
    char line[8192];
    int rc = atune_profile_open_for(dir, dev, p);

    *c = NULL;
    if (rc == ATUNE_OK)
        rc = atune_profile_lookup(*p, "copy", o->size, c);
    if (rc == ATUNE_ENOTFOUND) {
        printf("copy %s: no profile entry for '%s' in %s: using the "
               "template's defaults\n",
               o->size, dev->name, atune_profile_path(*p));
        return 0;
    }
    if (rc != ATUNE_OK) {
        fprintf(stderr, "consumer: %s: %s\n", atune_strerror(rc),
                atune_profile_errmsg(*p));
        return -1;
    }
    atune_config_describe(*p, *c, line, sizeof(line));
    printf("%s\n", line);
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

/* The launch on a GPU of the identity's SM count and compute capability,
 * with the limits every GPU since Volta has. */
static int cpu_shape(atune_jit *j, const atune_config *c,
                     const struct options *o, const atune_device *dev)
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
    atune_jit_dims d;

    if (atune_jit_shape(j, c, &a, o->size, &d) != ATUNE_OK) {
        fprintf(stderr, "consumer: %s\n", atune_jit_errmsg(j));
        return 1;
    }
    print_dims(o->size, &d, "computed without a GPU");
    return 0;
}

/* Builds and launches copy on n random ints; 0 when out == in. */
static int gpu_copy(atune_jit *j, const atune_config *c,
                    const struct options *o)
{
    size_t bytes = (size_t)o->n * sizeof(int);
    int *in = malloc(bytes), *out = malloc(bytes);
    void *din = NULL, *dout = NULL;
    cudaStream_t stream = NULL;
    atune_jit_kernel *k = NULL;
    atune_jit_dims d;
    long n = o->n, bad = 0;
    void *args[] = {&din, &dout, &n};
    char cfg[256];
    uint32_t x = 2024;
    int rc = 1;

    if (!in || !out)
        goto out;
    for (long i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        in[i] = (int)(x >> 1);
    }
    if (atune_jit_build(j, c, &k) != ATUNE_OK ||
        atune_jit_kernel_shape(k, o->size, &d) != ATUNE_OK) {
        fprintf(stderr, "consumer: %s\n", atune_jit_errmsg(j));
        goto out;
    }
    atune_jit_kernel_config(k, cfg, sizeof(cfg));
    printf("built %s (%s)\n", cfg,
           atune_jit_kernel_cached(k) ? "from the disk cache" : "compiled");
    print_dims(o->size, &d, "this GPU");
    if (cudaMalloc(&din, bytes) || cudaMalloc(&dout, bytes) ||
        cudaStreamCreate(&stream) ||
        cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice) ||
        cudaMemset(dout, 0xA5, bytes)) {
        fprintf(stderr, "consumer: CUDA: %s\n",
                cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    /* cudaStream_t and CUstream are the same type. */
    if (atune_jit_launch(k, o->size, args, (CUstream)stream) != ATUNE_OK) {
        fprintf(stderr, "consumer: %s\n", atune_jit_errmsg(j));
        goto out;
    }
    if (cudaStreamSynchronize(stream) ||
        cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost)) {
        fprintf(stderr, "consumer: CUDA: %s\n",
                cudaGetErrorString(cudaGetLastError()));
        goto out;
    }
    for (long i = 0; i < n; i++)
        bad += out[i] != in[i];
    printf("copy of %ld ints: %s (%ld wrong)\n", n,
           bad ? "OUTPUT DIFFERS" : "output matches input", bad);
    rc = bad != 0;
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
    char why[256];
    int gpu, stale, rc = 1;

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
    if (lookup(&o, &dev, &p, &c) != 0)
        goto out;
    if (atune_jit_open(o.templates, "copy", &j) != ATUNE_OK) {
        fprintf(stderr, "consumer: %s\n", atune_jit_errmsg(j));
        goto out;
    }
    stale = atune_jit_stale(j, c);
    if (stale & ATUNE_JIT_STALE_HASH)
        printf("note: stale profile entry: tuned with another version of "
               "the template\n");
    if (stale & ATUNE_JIT_STALE_PARAMS)
        printf("note: stale profile entry: its parameters differ from the "
               "template's\n");
    if (!gpu) {
        rc = cpu_shape(j, c, &o, &dev);
        if (rc == 0)
            printf("no GPU (%s): skipped the launch\n", why);
        goto out;
    }
    rc = gpu_copy(j, c, &o);
out:
    atune_jit_close(j);
    atune_profile_close(p);
    return rc;
}
