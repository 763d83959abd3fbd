/* device.c -- the GPU of the device runner: the driver's context and
 * stream, the device's identity and limits, and the tuner's own helper
 * kernels (devutil.cu: fill and compare per element type, each type's
 * compiled when a problem first needs it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"
#include "measure/profile_write.h"
#include "measure/runner_internal.h"
#include "template/templates.h"

/* The helpers in devutil.cu, per element type, in atune__type order. */
static const char *const type_suffix[] = {"char",  "int",    "uint",
                                          "long",  "ulong",  "float",
                                          "double", "half", "bf16"};

/* Checks a driver call; on failure formats "what: CUDA_ERROR_X: text" and
 * returns ATUNE__ESOFTWARE (ATUNE__EUNAVAIL for out of memory). */
int atune__cucheck(CUresult rc, const char *what, atune__err *err)
{
    char buf[256];

    if (rc == CUDA_SUCCESS)
        return 0;
    return atune__fail(err,
                       rc == CUDA_ERROR_OUT_OF_MEMORY ? ATUNE__EUNAVAIL
                                                      : ATUNE__ESOFTWARE,
                       "%s: %s", what, atune__cudrv_errstr(rc, buf, sizeof(buf)));
}


/* --- device ------------------------------------------------------------- */

int atune__device_count(int *n, atune__err *err)
{
    const atune__cudrv *cu = atune__cudrv_load(err);

    *n = 0;
    if (!cu)
        return err ? err->code : ATUNE__EUNAVAIL;
    return atune__cucheck(cu->cuDeviceGetCount(n), "cuDeviceGetCount", err);
}

static int attr(atune__device *d, CUdevice_attribute a, int64_t *out,
                atune__err *err)
{
    int v = 0;

    CU(cuDeviceGetAttribute(&v, a, d->dev), "cuDeviceGetAttribute");
    *out = v;
    return 0;
}

static int read_info(atune__device *d, atune__err *err)
{
    atune__devinfo *in = &d->info;
    atune__devattr *a = &in->attr;
    int64_t major, minor, clock_khz, bus_bits;
    size_t total;
    CUuuid uuid;
    const unsigned char *u;
    int rc = 0;

    CU(cuDeviceGetName(in->name, sizeof(in->name), d->dev), "cuDeviceGetName");
    CU(cuDriverGetVersion(&in->driver), "cuDriverGetVersion");
    CU(cuDeviceTotalMem(&total, d->dev), "cuDeviceTotalMem");
    in->total_mem = (int64_t)total;
    CU(cuDeviceGetUuid(&uuid, d->dev), "cuDeviceGetUuid");
    u = (const unsigned char *)uuid.bytes;
    snprintf(in->uuid, sizeof(in->uuid),
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
             u[10], u[11], u[12], u[13], u[14], u[15]);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major, err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor, err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &a->sm_count, err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &a->max_threads_per_block, err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &a->max_block[0], err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &a->max_block[1], err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &a->max_block[2], err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &a->max_grid[0], err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &a->max_grid[1], err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &a->max_grid[2], err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &a->max_shared_per_block, err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_WARP_SIZE, &a->warp_size, err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &a->l2_bytes, err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &clock_khz, err);
    rc = rc ? rc : attr(d, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &bus_bits, err);
    if (rc)
        return rc;
    a->cc = major * 10 + minor;
    snprintf(in->arch, sizeof(in->arch), "sm_%d%d", (int)major, (int)minor);
    /* DDR: two transfers per clock; NVBench computes peak the same way. */
    in->mem_bandwidth_gbs = 2 * clock_khz * 1000 * (bus_bits / 8) / 1000000000;
    return 0;
}

/* devutil.cu's kernels of element type t for d's architecture, through
 * d's cache when it has one. */
static int compile_util(atune__device *d, const atune__embedded *src, int t,
                        atune__cubin *cubin, atune__err *err)
{
    char opt[48], def[48];
    const char *opts[] = {opt, def, "devutil.cu"};
    uint64_t key;
    atune__err ignored = {0};
    int rc;

    memset(cubin, 0, sizeof(*cubin));
    snprintf(opt, sizeof(opt), "--gpu-architecture=%s", d->info.arch);
    snprintf(def, sizeof(def), "-DATUNE_UTIL_%s", type_suffix[t]);
    key = atune__cache_key(src->data, src->len, 0, opts, 3, NULL, 0,
                           atune__jit_version());
    if (d->cache && atune__cache_get(d->cache, key, cubin) == ATUNE__CACHE_HIT)
        return 0;
    atune__cubin_free(cubin);
    rc = atune__jit_compile_source(src->data, "devutil.cu", d->info.arch,
                                   def, cubin, err);
    /* A cache that cannot be written costs the next run a compile only. */
    if (!rc && d->cache)
        atune__cache_put(d->cache, key, cubin, &ignored);
    return rc;
}

/* A problem needs the helpers of its buffers' types only (devutil.cu). */
int atune__device_load_util(atune__device *d, int t, atune__err *err)
{
    const atune__embedded *src = atune__embedded_find("devutil.cu");
    atune__cubin cubin;
    char name[32];
    int rc;

    if (d->util[t])
        return 0;
    if (!src)
        return atune__fail(err, ATUNE__ESOFTWARE, "devutil.cu not embedded");
    rc = compile_util(d, src, t, &cubin, err);
    if (!rc)
        rc = atune__cucheck(d->cu->cuModuleLoadData(&d->util[t], cubin.data),
                            "loading devutil.cu", err);
    atune__cubin_free(&cubin);
    if (!rc) {
        snprintf(name, sizeof(name), "fill_%s", type_suffix[t]);
        rc = atune__cucheck(d->cu->cuModuleGetFunction(&d->fill[t],
                                                       d->util[t], name),
                            name, err);
    }
    if (!rc) {
        snprintf(name, sizeof(name), "cmp_%s", type_suffix[t]);
        rc = atune__cucheck(d->cu->cuModuleGetFunction(&d->cmp[t],
                                                       d->util[t], name),
                            name, err);
    }
    if (rc) {
        if (d->util[t])
            d->cu->cuModuleUnload(d->util[t]);
        d->util[t] = NULL;
        atune__err_prefix(err, "the tuner's %s helpers: ", type_suffix[t]);
    }
    return rc;
}

int atune__device_open(int ordinal, atune__cache *cache, atune__device **out,
                       atune__err *err)
{
    atune__device *d;
    int count = 0, rc;

    *out = NULL;
    rc = atune__device_count(&count, err);
    if (rc)
        return rc;
    if (ordinal < 0 || ordinal >= count)
        return atune__fail(err, ATUNE__EUNAVAIL,
                           "no GPU %d: this machine has %d", ordinal, count);
    d = atune__calloc(1, sizeof(*d));
    if (!d)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    d->cu = atune__cudrv_load(err);
    d->cache = cache;
    d->info.ordinal = ordinal;
    rc = atune__cucheck(d->cu->cuDeviceGet(&d->dev, ordinal), "cuDeviceGet", err);
    if (!rc)
        rc = atune__cucheck(d->cu->cuDevicePrimaryCtxRetain(&d->ctx, d->dev),
                     "cuDevicePrimaryCtxRetain", err);
    if (!rc)
        rc = atune__cucheck(d->cu->cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", err);
    if (!rc)
        rc = read_info(d, err);
    if (!rc)
        rc = atune__cucheck(d->cu->cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING),
                     "cuStreamCreate", err);
    for (int i = 0; !rc && i < 2 * MAX_SAMPLES; i++, d->nev++)
        rc = atune__cucheck(d->cu->cuEventCreate(&d->ev[i], CU_EVENT_DEFAULT),
                     "cuEventCreate", err);
    if (!rc)
        rc = atune__cucheck(d->cu->cuMemAlloc(&d->cmpres, sizeof(struct cmp_result)),
                     "cuMemAlloc", err);
    if (!rc) {
        /* Writing twice the L2 evicts whatever a previous launch left. */
        d->flush_bytes = (size_t)d->info.attr.l2_bytes * 2;
        rc = atune__cucheck(d->cu->cuMemAlloc(&d->flush, d->flush_bytes),
                     "cuMemAlloc", err);
    }
    if (rc) {
        atune__err_prefix(err, "GPU %d: ", ordinal);
        atune__device_close(d);
        return rc;
    }
    *out = d;
    return 0;
}

int atune__device_attach(atune__cache *cache, atune__device **out,
                         atune__err *err)
{
    atune__device *d;
    const atune__cudrv *cu = atune__cudrv_load(err);
    CUcontext ctx = NULL;
    int rc;

    *out = NULL;
    if (!cu)
        return err ? err->code : ATUNE__EUNAVAIL;
    rc = atune__cucheck(cu->cuCtxGetCurrent(&ctx), "cuCtxGetCurrent", err);
    if (rc)
        return rc;
    if (!ctx)
        return atune__fail(err, ATUNE__EUNAVAIL, "no current CUDA context");
    d = atune__calloc(1, sizeof(*d));
    if (!d)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    d->cu = cu;
    d->ctx = ctx;
    d->attached = 1;
    d->cache = cache;
    rc = atune__cucheck(cu->cuCtxGetDevice(&d->dev), "cuCtxGetDevice", err);
    if (!rc)
        d->info.ordinal = (int)d->dev;
    if (!rc)
        rc = read_info(d, err);
    if (!rc)
        rc = atune__cucheck(cu->cuStreamCreate(&d->stream,
                                               CU_STREAM_NON_BLOCKING),
                            "cuStreamCreate", err);
    for (int i = 0; !rc && i < 2 * MAX_SAMPLES; i++, d->nev++)
        rc = atune__cucheck(cu->cuEventCreate(&d->ev[i], CU_EVENT_DEFAULT),
                            "cuEventCreate", err);
    if (!rc)
        rc = atune__cucheck(cu->cuMemAlloc(&d->cmpres,
                                           sizeof(struct cmp_result)),
                            "cuMemAlloc", err);
    d->flush_bytes = (size_t)d->info.attr.l2_bytes * 2;
    if (rc) {
        atune__device_close(d);
        return rc;
    }
    *out = d;
    return 0;
}

void atune__device_close(atune__device *d)
{
    if (!d)
        return;
    if (d->ctx) {
        if (!d->attached)
            d->cu->cuCtxSetCurrent(d->ctx);
        for (int t = 0; t < NTYPES; t++)
            if (d->util[t])
                d->cu->cuModuleUnload(d->util[t]);
        if (d->cmpres)
            d->cu->cuMemFree(d->cmpres);
        if (d->flush)
            d->cu->cuMemFree(d->flush);
        for (int i = 0; i < d->nev; i++)
            d->cu->cuEventDestroy(d->ev[i]);
        if (d->stream)
            d->cu->cuStreamDestroy(d->stream);
        if (!d->attached)
            d->cu->cuDevicePrimaryCtxRelease(d->dev);
    }
    free(d);
}

void atune__device_set_compiler(atune__device *d, atune__compile_fn fn,
                                void *ctx)
{
    d->compile = fn;
    d->compile_ctx = ctx;
}

int atune__device_compile(atune__device *d, atune__cache *cache,
                          const atune__manifest *m, const atune__config *c,
                          const char *const *names, int nnames,
                          atune__cubin *out, atune__err *err)
{
    if (d->compile)
        return d->compile(d->compile_ctx, m, c, d->info.arch, names, nnames,
                          out, err);
    return atune__jit_compile_cached(cache, m, c, d->info.arch, names, nnames,
                                     out, NULL, err);
}

const atune__devinfo *atune__device_info(const atune__device *d)
{
    return &d->info;
}

/* The profile writer's description of device d (measure/profile_write.h):
 * what the tool and first use write above their entries. */
void atune__device_pw_entry(const atune__device *d, atune__pw_device *pd)
{
    const atune__devinfo *in = atune__device_info(d);

    memset(pd, 0, sizeof(*pd));
    atune__strlcpy(pd->name, in->name, sizeof(pd->name));
    atune__slugify(in->name, pd->slug, sizeof(pd->slug));
    pd->cc = (int)in->attr.cc;
    pd->sm_count = (int)in->attr.sm_count;
    pd->mem_bandwidth_gbs = in->mem_bandwidth_gbs;
    pd->l2_bytes = in->attr.l2_bytes;
    pd->driver = in->driver;
    pd->nvrtc = atune__jit_version();
    atune__strlcpy(pd->uuid, in->uuid, sizeof(pd->uuid));
    atune__utc_date(pd->date, sizeof(pd->date), 0);
    atune__strlcpy(pd->tuner, ATUNE_VERSION_STRING, sizeof(pd->tuner));
}
