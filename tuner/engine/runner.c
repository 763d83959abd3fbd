/* runner.c -- the device runner: buffers of one problem, the reference
 * result, verification and timing of one configuration (see runner.h). */
#include "engine/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cudrv.h"
#include "engine/stats.h"
#include "template/templates.h"

#define MAX_SAMPLES 200
#define CMP_BLOCK 256
#define POISON 0xA5 /* a byte no generator produces in every position */

static const char *const status_names[] = {
#define ATUNE__STATUS_NAME(code, name) name,
    ATUNE__STATUS_MAP(ATUNE__STATUS_NAME)
#undef ATUNE__STATUS_NAME
};

const char *atune__status_name(atune__status s)
{
    return s < ATUNE__ST_COUNT ? status_names[s] : "?";
}

int atune__status_parse(const char *name)
{
    for (int i = 0; i < ATUNE__ST_COUNT; i++)
        if (strcmp(name, status_names[i]) == 0)
            return i;
    return -1;
}

/* The helpers in devutil.cu, per element type, in atune__type order. */
static const char *const type_suffix[] = {"char",  "int",   "uint",  "long",
                                          "ulong", "float", "double"};
#define NTYPES 7

struct cmp_result {
    unsigned long long mismatches;
    unsigned long long first;
    unsigned long long max_diff;
    unsigned long long max_ref;
    unsigned long long nonfinite;
};

struct atune__device {
    const atune__cudrv *cu;
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    CUevent ev[2 * MAX_SAMPLES];
    int nev;
    CUmodule util;
    CUfunction fill[NTYPES], cmp[NTYPES];
    CUdeviceptr cmpres;
    CUdeviceptr flush;
    size_t flush_bytes;
    atune__devinfo info;
};

struct buffer {
    const atune__arg *arg;
    size_t count, bytes;
    CUdeviceptr ptr;    /* what the kernel gets */
    CUdeviceptr init;   /* inout: the initial contents */
    CUdeviceptr expect; /* compared roles: the reference's result */
};

struct constant {
    const atune__arg *arg;
    size_t bytes;
    CUdeviceptr data; /* contents copied into each module's symbol */
};

struct atune__problem {
    atune__device *d;
    const atune__manifest *m;
    const atune__size *size;
    char size_key[96];
    atune__vars vars;
    double work;
    uint64_t seed;
    struct buffer buf[ATUNE__MAX_ARGS];
    struct constant con[ATUNE__MAX_CONSTANTS];
    int64_t bytes; /* all buffers together */
    double ref_ns; /* the reference's launch to completion, host clock */
};

struct atune__kernel {
    atune__device *d;
    CUmodule mod;
    CUfunction fn;
    int max_threads;
    int regs;
    int static_shared;
};

/* Checks a driver call; on failure formats "what: CUDA_ERROR_X: text" and
 * returns ATUNE__ESOFTWARE (ATUNE__EUNAVAIL for out of memory). */
static int cucheck(CUresult rc, const char *what, atune__err *err)
{
    char buf[256];

    if (rc == CUDA_SUCCESS)
        return 0;
    return atune__fail(err,
                       rc == CUDA_ERROR_OUT_OF_MEMORY ? ATUNE__EUNAVAIL
                                                      : ATUNE__ESOFTWARE,
                       "%s: %s", what, atune__cudrv_errstr(rc, buf, sizeof(buf)));
}

#define CU(call, what)                                                         \
    do {                                                                       \
        int rc_ = cucheck(d->cu->call, what, err);                             \
        if (rc_)                                                               \
            return rc_;                                                        \
    } while (0)

void atune__timing_default(atune__timing *t)
{
    /* The verification launch just before is the warm-up; 7 samples as
     * Kernel Tuner takes, more while the spread is over 1%. */
    t->warmup = 0;
    t->min_samples = 7;
    t->max_samples = 100;
    t->target_s = 0.05;
    t->rel_spread = 0.01;
    t->early_samples = 3;
    t->cutoff_ns = 0;
    t->flush_l2 = 1;
    t->watch = NULL;
    t->watch_ctx = NULL;
}

/* --- device ------------------------------------------------------------- */

int atune__device_count(int *n, atune__err *err)
{
    const atune__cudrv *cu = atune__cudrv_load(err);

    *n = 0;
    if (!cu)
        return err ? err->code : ATUNE__EUNAVAIL;
    return cucheck(cu->cuDeviceGetCount(n), "cuDeviceGetCount", err);
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

static int load_util(atune__device *d, atune__err *err)
{
    const atune__embedded *src = atune__embedded_find("devutil.cu");
    atune__cubin cubin;
    char name[32];
    int rc;

    if (!src)
        return atune__fail(err, ATUNE__ESOFTWARE, "devutil.cu not embedded");
    rc = atune__jit_compile_source(src->data, "devutil.cu", d->info.arch,
                                   &cubin, err);
    if (rc)
        return rc;
    rc = cucheck(d->cu->cuModuleLoadData(&d->util, cubin.data),
                 "loading devutil.cu", err);
    atune__cubin_free(&cubin);
    if (rc)
        return rc;
    for (int t = 0; t < NTYPES; t++) {
        snprintf(name, sizeof(name), "fill_%s", type_suffix[t]);
        CU(cuModuleGetFunction(&d->fill[t], d->util, name), name);
        snprintf(name, sizeof(name), "cmp_%s", type_suffix[t]);
        CU(cuModuleGetFunction(&d->cmp[t], d->util, name), name);
    }
    return 0;
}

int atune__device_open(int ordinal, atune__device **out, atune__err *err)
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
    d->info.ordinal = ordinal;
    rc = cucheck(d->cu->cuDeviceGet(&d->dev, ordinal), "cuDeviceGet", err);
    if (!rc)
        rc = cucheck(d->cu->cuDevicePrimaryCtxRetain(&d->ctx, d->dev),
                     "cuDevicePrimaryCtxRetain", err);
    if (!rc)
        rc = cucheck(d->cu->cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", err);
    if (!rc)
        rc = read_info(d, err);
    if (!rc)
        rc = cucheck(d->cu->cuStreamCreate(&d->stream, CU_STREAM_NON_BLOCKING),
                     "cuStreamCreate", err);
    for (int i = 0; !rc && i < 2 * MAX_SAMPLES; i++, d->nev++)
        rc = cucheck(d->cu->cuEventCreate(&d->ev[i], CU_EVENT_DEFAULT),
                     "cuEventCreate", err);
    if (!rc)
        rc = cucheck(d->cu->cuMemAlloc(&d->cmpres, sizeof(struct cmp_result)),
                     "cuMemAlloc", err);
    if (!rc) {
        /* Writing twice the L2 evicts whatever a previous launch left. */
        d->flush_bytes = (size_t)d->info.attr.l2_bytes * 2;
        rc = cucheck(d->cu->cuMemAlloc(&d->flush, d->flush_bytes),
                     "cuMemAlloc", err);
    }
    if (!rc)
        rc = load_util(d, err);
    if (rc) {
        atune__err_prefix(err, "GPU %d: ", ordinal);
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
        d->cu->cuCtxSetCurrent(d->ctx);
        if (d->util)
            d->cu->cuModuleUnload(d->util);
        if (d->cmpres)
            d->cu->cuMemFree(d->cmpres);
        if (d->flush)
            d->cu->cuMemFree(d->flush);
        for (int i = 0; i < d->nev; i++)
            d->cu->cuEventDestroy(d->ev[i]);
        if (d->stream)
            d->cu->cuStreamDestroy(d->stream);
        d->cu->cuDevicePrimaryCtxRelease(d->dev);
    }
    free(d);
}

const atune__devinfo *atune__device_info(const atune__device *d)
{
    return &d->info;
}

/* --- buffers ------------------------------------------------------------ */

static int fill(atune__device *d, atune__type t, CUdeviceptr p, size_t n,
                uint64_t seed, atune__err *err)
{
    long count = (long)n;
    unsigned long long s = seed;
    void *args[] = {&p, &count, &s};
    unsigned grid = (unsigned)(d->info.attr.sm_count * 8);

    CU(cuLaunchKernel(d->fill[t], grid, 1, 1, 256, 1, 1, 0, d->stream, args,
                      NULL),
       "launching the fill kernel");
    return 0;
}

static int alloc(atune__device *d, CUdeviceptr *p, size_t bytes,
                 atune__err *err)
{
    CU(cuMemAlloc(p, bytes), "cuMemAlloc");
    return 0;
}

static int eval_count(const atune__problem *p, const atune__arg *a,
                      size_t *count, size_t *bytes, atune__err *err)
{
    int64_t n;
    size_t sz = atune__type_size(a->type);
    int rc = atune__manifest_eval(p->m, a->count, a->line, &p->vars, &n, err);

    if (rc)
        return rc;
    if (n < 1)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: buffer '%s' has %lld elements at %s",
                           p->m->ini_path, a->line, a->name, (long long)n,
                           p->size_key);
    if ((uint64_t)n > SIZE_MAX / sz)
        return atune__fail(err, ATUNE__EDATA,
                           "%s:%d: buffer '%s' of %lld elements overflows",
                           p->m->ini_path, a->line, a->name, (long long)n);
    *count = (size_t)n;
    *bytes = (size_t)n * sz;
    return 0;
}

/* Sizes every buffer and refuses a problem that does not fit in free
 * device memory, before allocating anything. */
static int plan_memory(atune__problem *p, atune__err *err)
{
    atune__device *d = p->d;
    const atune__manifest *m = p->m;
    size_t free_b = 0, total_b = 0;
    double need = 0;
    int rc;

    for (int i = 0; i < m->nargs; i++) {
        struct buffer *b = &p->buf[i];
        b->arg = &m->args[i];
        if (b->arg->role == ATUNE__SCALAR)
            continue;
        rc = eval_count(p, b->arg, &b->count, &b->bytes, err);
        if (rc)
            return rc;
        /* working copy, + initial copy (inout), + reference result */
        need += (double)b->bytes *
                (1 + (b->arg->role == ATUNE__INOUT) +
                 (b->arg->role != ATUNE__INPUT));
    }
    for (int i = 0; i < m->nconstants; i++) {
        struct constant *c = &p->con[i];
        size_t count;
        c->arg = &m->constants[i];
        rc = eval_count(p, c->arg, &count, &c->bytes, err);
        if (rc)
            return rc;
        need += (double)c->bytes;
    }
    p->bytes = (int64_t)need;
    CU(cuMemGetInfo(&free_b, &total_b), "cuMemGetInfo");
    if (need > 0.95 * (double)free_b)
        return atune__fail(err, ATUNE__EUNAVAIL,
                           "%s %s needs %.2f GiB of device memory, %.2f GiB "
                           "free on %s",
                           m->name, p->size_key, need / (1 << 30),
                           (double)free_b / (1 << 30), d->info.name);
    return 0;
}

static const struct buffer *input_named(const atune__problem *p,
                                        const char *name)
{
    for (int i = 0; i < p->m->nargs; i++)
        if (p->buf[i].arg->role == ATUNE__INPUT &&
            strcmp(p->buf[i].arg->name, name) == 0)
            return &p->buf[i];
    return NULL;
}

static int alloc_buffers(atune__problem *p, atune__err *err)
{
    atune__device *d = p->d;
    int rc;

    for (int i = 0; i < p->m->nargs; i++) {
        struct buffer *b = &p->buf[i];
        /* Each buffer gets its own stream of numbers: a copy kernel that
         * reads the wrong buffer must not pass by luck. */
        uint64_t seed = p->seed ^ atune__fnv1a(b->arg->name,
                                               strlen(b->arg->name),
                                               ATUNE__FNV_SEED);
        if (b->arg->role == ATUNE__SCALAR)
            continue;
        if ((rc = alloc(d, &b->ptr, b->bytes, err)))
            return rc;
        if (b->arg->role != ATUNE__INPUT &&
            (rc = alloc(d, &b->expect, b->bytes, err)))
            return rc;
        if (b->arg->role == ATUNE__INPUT || b->arg->role == ATUNE__INOUT) {
            if ((rc = fill(d, b->arg->type, b->ptr, b->count, seed, err)))
                return rc;
        }
        if (b->arg->role == ATUNE__INOUT) {
            if ((rc = alloc(d, &b->init, b->bytes, err)))
                return rc;
            CU(cuMemcpyDtoDAsync(b->init, b->ptr, b->bytes, d->stream),
               "cuMemcpyDtoDAsync");
        }
    }
    for (int i = 0; i < p->m->nconstants; i++) {
        struct constant *c = &p->con[i];
        const struct buffer *same = input_named(p, c->arg->name);
        uint64_t seed = p->seed ^ atune__fnv1a(c->arg->name,
                                               strlen(c->arg->name),
                                               ATUNE__FNV_SEED);
        if ((rc = alloc(d, &c->data, c->bytes, err)))
            return rc;
        /* A constant named like an input buffer holds the same numbers,
         * so that global and __constant__ variants compute the same. */
        if (same && same->bytes == c->bytes)
            CU(cuMemcpyDtoDAsync(c->data, same->ptr, c->bytes, d->stream),
               "cuMemcpyDtoDAsync");
        else if ((rc = fill(d, c->arg->type, c->data,
                            c->bytes / atune__type_size(c->arg->type), seed,
                            err)))
            return rc;
    }
    CU(cuStreamSynchronize(d->stream), "filling inputs");
    return 0;
}

/* Brings every non-input buffer to its pre-launch state. poison: fill
 * outputs with a pattern, so that elements the kernel skips are caught. */
static int prepare(atune__problem *p, int poison, atune__err *err)
{
    atune__device *d = p->d;

    for (int i = 0; i < p->m->nargs; i++) {
        struct buffer *b = &p->buf[i];
        switch (b->arg->role) {
        case ATUNE__OUTPUT:
            if (poison)
                CU(cuMemsetD8Async(b->ptr, POISON, b->bytes, d->stream),
                   "cuMemsetD8Async");
            break;
        case ATUNE__INOUT:
            CU(cuMemcpyDtoDAsync(b->ptr, b->init, b->bytes, d->stream),
               "cuMemcpyDtoDAsync");
            break;
        case ATUNE__ACCUM:
            CU(cuMemsetD8Async(b->ptr, 0, b->bytes, d->stream),
               "cuMemsetD8Async");
            break;
        default:
            break;
        }
    }
    return 0;
}

static int set_constants(atune__problem *p, CUmodule mod, atune__err *err)
{
    atune__device *d = p->d;

    for (int i = 0; i < p->m->nconstants; i++) {
        const struct constant *c = &p->con[i];
        CUdeviceptr sym;
        size_t bytes = 0;
        CU(cuModuleGetGlobal(&sym, &bytes, mod, c->arg->name),
           "cuModuleGetGlobal");
        if (bytes != c->bytes)
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: __constant__ '%s' has %zu bytes in "
                               "%s, the manifest says %zu",
                               p->m->ini_path, c->arg->line, c->arg->name,
                               bytes, p->m->cu_path, c->bytes);
        CU(cuMemcpyDtoDAsync(sym, c->data, c->bytes, d->stream),
           "cuMemcpyDtoDAsync");
    }
    return 0;
}

/* Scalar kernel arguments, by the C type the kernel declares. */
union scalar {
    signed char c;
    int i;
    unsigned u;
    long long l;
    unsigned long long ul;
    float f;
    double d;
};

static int make_args(atune__problem *p, const atune__vars *vs,
                     union scalar *sc, void **args, atune__err *err)
{
    for (int i = 0; i < p->m->nargs; i++) {
        const atune__arg *a = &p->m->args[i];
        int64_t v = 0;
        int rc;

        if (a->role != ATUNE__SCALAR) {
            args[i] = &p->buf[i].ptr;
            continue;
        }
        if (!a->has_fvalue &&
            (rc = atune__manifest_eval(p->m, a->value, a->line, vs, &v, err)))
            return rc;
        switch (a->type) {
        case ATUNE__CHAR: sc[i].c = (signed char)v; break;
        case ATUNE__INT: sc[i].i = (int)v; break;
        case ATUNE__UINT: sc[i].u = (unsigned)v; break;
        case ATUNE__LONG: sc[i].l = v; break;
        case ATUNE__ULONG: sc[i].ul = (unsigned long long)v; break;
        case ATUNE__FLOAT:
            sc[i].f = a->has_fvalue ? (float)a->fvalue : (float)v;
            break;
        case ATUNE__DOUBLE:
            sc[i].d = a->has_fvalue ? a->fvalue : (double)v;
            break;
        }
        args[i] = &sc[i];
    }
    return 0;
}

/* --- reference ---------------------------------------------------------- */

static int run_reference(atune__problem *p, atune__err *err)
{
    atune__device *d = p->d;
    const atune__manifest *m = p->m;
    const char *names[] = {m->reference};
    atune__cubin cubin = {0};
    CUmodule mod = NULL;
    CUfunction fn;
    atune__vars vs = p->vars;
    atune__config dflt;
    union scalar sc[ATUNE__MAX_ARGS];
    void *args[ATUNE__MAX_ARGS];
    int64_t block[3], grid[3];
    double t0 = 0;
    int rc;

    /* The reference is compiled with the default configuration's macros,
     * so a .cu that uses them at file scope still compiles. */
    atune__space_config(m, 0, &dflt);
    rc = atune__config_vars(m, &dflt, &vs);
    if (!rc)
        rc = atune__jit_compile(m, &dflt, d->info.arch, names, 1, &cubin, err);
    if (!rc)
        rc = cucheck(d->cu->cuModuleLoadData(&mod, cubin.data),
                     "loading the reference", err);
    if (!rc)
        rc = cucheck(d->cu->cuModuleGetFunction(&fn, mod, cubin.sym[0]),
                     m->reference, err);
    if (!rc)
        rc = atune__dim3_eval(m, &m->ref_block, &vs, block, err);
    if (!rc)
        rc = atune__dim3_eval(m, &m->ref_grid, &vs, grid, err);
    if (!rc)
        rc = set_constants(p, mod, err);
    if (!rc)
        rc = make_args(p, &vs, sc, args, err);
    if (!rc)
        rc = prepare(p, 1, err);
    if (!rc)
        rc = cucheck(d->cu->cuStreamSynchronize(d->stream), "preparing", err);
    t0 = atune__now();
    if (!rc)
        rc = cucheck(d->cu->cuLaunchKernel(fn, (unsigned)grid[0],
                                           (unsigned)grid[1], (unsigned)grid[2],
                                           (unsigned)block[0],
                                           (unsigned)block[1],
                                           (unsigned)block[2], 0, d->stream,
                                           args, NULL),
                     "launching the reference", err);
    if (!rc)
        rc = cucheck(d->cu->cuStreamSynchronize(d->stream),
                     "running the reference", err);
    p->ref_ns = (atune__now() - t0) * 1e9;
    for (int i = 0; !rc && i < m->nargs; i++) {
        struct buffer *b = &p->buf[i];
        if (b->arg->role != ATUNE__SCALAR && b->arg->role != ATUNE__INPUT)
            rc = cucheck(d->cu->cuMemcpyDtoD(b->expect, b->ptr, b->bytes),
                         "cuMemcpyDtoD", err);
    }
    if (mod)
        d->cu->cuModuleUnload(mod);
    atune__cubin_free(&cubin);
    if (rc)
        atune__err_prefix(err, "%s %s: reference '%s': ", m->name,
                          p->size_key, m->reference);
    return rc;
}

/* --- problem ------------------------------------------------------------ */

int atune__problem_open(atune__device *d, const atune__manifest *m,
                        const atune__size *size, uint64_t seed,
                        atune__problem **out, atune__err *err)
{
    atune__problem *p = atune__calloc(1, sizeof(*p));
    int64_t work = 0;
    int rc;

    *out = NULL;
    if (!p)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    p->d = d;
    p->m = m;
    p->size = size;
    p->seed = seed;
    atune__size_key(size, p->size_key, sizeof(p->size_key));
    rc = atune__size_vars(size, &p->vars);
    if (!rc)
        rc = atune__devattr_vars(&d->info.attr, &p->vars);
    if (!rc)
        rc = atune__manifest_eval(m, m->work, m->work_line, &p->vars, &work,
                                  err);
    p->work = (double)work;
    if (!rc)
        rc = cucheck(d->cu->cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", err);
    if (!rc)
        rc = plan_memory(p, err);
    if (!rc)
        rc = alloc_buffers(p, err);
    if (!rc)
        rc = run_reference(p, err);
    if (rc) {
        atune__problem_close(p);
        return rc;
    }
    *out = p;
    return 0;
}

void atune__problem_close(atune__problem *p)
{
    const atune__cudrv *cu;

    if (!p)
        return;
    cu = p->d->cu;
    for (int i = 0; i < ATUNE__MAX_ARGS; i++) {
        if (p->buf[i].ptr)
            cu->cuMemFree(p->buf[i].ptr);
        if (p->buf[i].init)
            cu->cuMemFree(p->buf[i].init);
        if (p->buf[i].expect)
            cu->cuMemFree(p->buf[i].expect);
    }
    for (int i = 0; i < ATUNE__MAX_CONSTANTS; i++)
        if (p->con[i].data)
            cu->cuMemFree(p->con[i].data);
    free(p);
}

const atune__vars *atune__problem_vars(const atune__problem *p)
{
    return &p->vars;
}

double atune__problem_work(const atune__problem *p)
{
    return p->work;
}

double atune__problem_ref_ns(const atune__problem *p)
{
    return p->ref_ns;
}

static void watch(const atune__timing *t, int launches)
{
    if (t && t->watch)
        t->watch(t->watch_ctx, launches);
}

int atune__problem_flushes(const atune__problem *p, const atune__timing *t)
{
    return t->flush_l2 && p->bytes < 4 * p->d->info.attr.l2_bytes;
}

int atune__problem_buffer(const atune__problem *p, const char *name,
                          uint64_t *ptr, size_t *count)
{
    for (int i = 0; i < p->m->nargs; i++)
        if (p->buf[i].arg->role != ATUNE__SCALAR &&
            strcmp(p->buf[i].arg->name, name) == 0) {
            *ptr = p->buf[i].ptr;
            *count = p->buf[i].count;
            return 0;
        }
    return -1;
}

/* --- kernels ------------------------------------------------------------ */

int atune__kernel_load(atune__device *d, const atune__manifest *m,
                       const atune__cubin *cubin, atune__kernel **out,
                       atune__result *res, atune__err *err)
{
    atune__kernel *k = atune__calloc(1, sizeof(*k));
    char buf[256];
    CUresult rc;

    *out = NULL;
    if (!k)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    k->d = d;
    rc = d->cu->cuModuleLoadData(&k->mod, cubin->data);
    if (rc == CUDA_SUCCESS)
        rc = d->cu->cuModuleGetFunction(&k->fn, k->mod, cubin->sym[0]);
    if (rc == CUDA_SUCCESS)
        rc = d->cu->cuFuncGetAttribute(
            &k->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn);
    if (rc == CUDA_SUCCESS)
        rc = d->cu->cuFuncGetAttribute(&k->regs, CU_FUNC_ATTRIBUTE_NUM_REGS,
                                       k->fn);
    if (rc == CUDA_SUCCESS)
        rc = d->cu->cuFuncGetAttribute(&k->static_shared,
                                       CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                       k->fn);
    if (rc != CUDA_SUCCESS) {
        int sticky = atune__cudrv_sticky(rc);
        atune__cudrv_errstr(rc, buf, sizeof(buf));
        atune__kernel_unload(k);
        res->status = sticky ? ATUNE__ST_FAULT : ATUNE__ST_LAUNCH_ERROR;
        snprintf(res->detail, sizeof(res->detail), "module load: %s", buf);
        if (sticky)
            return atune__fail(err, ATUNE__ERESTART, "%s: module load: %s",
                               m->name, buf);
        return 0;
    }
    *out = k;
    return 0;
}

void atune__kernel_unload(atune__kernel *k)
{
    if (!k)
        return;
    if (k->mod)
        k->d->cu->cuModuleUnload(k->mod);
    free(k);
}

int atune__kernel_occupancy_block(atune__kernel *k, int64_t dyn_shared,
                                  int *block, int *min_grid, atune__err *err)
{
    atune__device *d = k->d;

    CU(cuOccupancyMaxPotentialBlockSize(min_grid, block, k->fn, NULL,
                                        (size_t)dyn_shared, 0),
       "cuOccupancyMaxPotentialBlockSize");
    return 0;
}

/* --- evaluation --------------------------------------------------------- */

/* Classifies a failed launch or synchronisation. Sticky errors end the
 * run (the context is lost); others are the configuration's fault. */
static int launch_failed(atune__problem *p, CUresult rc, const char *when,
                         atune__result *res, atune__err *err)
{
    char buf[256];

    atune__cudrv_errstr(rc, buf, sizeof(buf));
    snprintf(res->detail, sizeof(res->detail), "%s: %s", when, buf);
    if (atune__cudrv_sticky(rc)) {
        res->status = ATUNE__ST_FAULT;
        return atune__fail(err, ATUNE__ERESTART, "%s %s: %s: %s", p->m->name,
                           p->size_key, when, buf);
    }
    res->status = ATUNE__ST_LAUNCH_ERROR;
    return 0;
}

static CUresult launch(atune__problem *p, atune__kernel *k,
                       const atune__launch *l, void **args)
{
    return p->d->cu->cuLaunchKernel(
        k->fn, (unsigned)l->grid[0], (unsigned)l->grid[1],
        (unsigned)l->grid[2], (unsigned)l->block[0], (unsigned)l->block[1],
        (unsigned)l->block[2], (unsigned)l->shared, p->d->stream, args, NULL);
}

/* Compares one buffer with the reference result; sets *ok. */
static int compare(atune__problem *p, const struct buffer *b, int *ok,
                   atune__result *res, atune__err *err)
{
    atune__device *d = p->d;
    struct cmp_result r;
    long n = (long)b->count;
    CUdeviceptr out = b->ptr, ref = b->expect, resp = d->cmpres;
    void *args[] = {&out, &ref, &n, &resp};
    double tol = p->m->tolerance;
    unsigned grid = (unsigned)(d->info.attr.sm_count * 8);

    memset(&r, 0, sizeof(r));
    r.first = ~0ULL;
    CU(cuMemcpyHtoD(d->cmpres, &r, sizeof(r)), "cuMemcpyHtoD");
    CU(cuLaunchKernel(d->cmp[b->arg->type], grid, 1, 1, CMP_BLOCK, 1, 1, 0,
                      d->stream, args, NULL),
       "launching the compare kernel");
    CU(cuStreamSynchronize(d->stream), "comparing outputs");
    CU(cuMemcpyDtoH(&r, d->cmpres, sizeof(r)), "cuMemcpyDtoH");
    *ok = 1;
    if (b->arg->type == ATUNE__FLOAT || b->arg->type == ATUNE__DOUBLE) {
        double diff, mref, rel;
        memcpy(&diff, &r.max_diff, sizeof(diff));
        memcpy(&mref, &r.max_ref, sizeof(mref));
        rel = mref > 0 ? diff / mref : diff;
        if (r.nonfinite) {
            *ok = 0;
            snprintf(res->detail, sizeof(res->detail),
                     "%s: %llu non-finite elements, first at %llu",
                     b->arg->name, r.nonfinite, r.first);
        } else if (rel > tol) {
            *ok = 0;
            snprintf(res->detail, sizeof(res->detail),
                     "%s: relative error %.3g exceeds tolerance %.3g",
                     b->arg->name, rel, tol);
        }
    } else if (r.mismatches) {
        *ok = 0;
        snprintf(res->detail, sizeof(res->detail),
                 "%s: %llu of %zu elements differ, first at %llu",
                 b->arg->name, r.mismatches, b->count, r.first);
    }
    return 0;
}

static int verify(atune__problem *p, atune__kernel *k,
                  const atune__launch *l, void **args, const atune__timing *t,
                  atune__result *res, atune__err *err)
{
    atune__device *d = p->d;
    CUresult crc;
    int rc, ok = 1;

    if ((rc = prepare(p, 1, err)))
        return rc;
    crc = launch(p, k, l, args);
    if (crc != CUDA_SUCCESS)
        return launch_failed(p, crc, "launch", res, err);
    watch(t, 1);
    crc = d->cu->cuStreamSynchronize(d->stream);
    watch(t, 0);
    if (crc != CUDA_SUCCESS)
        return launch_failed(p, crc, "kernel", res, err);
    for (int i = 0; ok && i < p->m->nargs; i++) {
        const struct buffer *b = &p->buf[i];
        if (b->arg->role == ATUNE__SCALAR || b->arg->role == ATUNE__INPUT)
            continue;
        if ((rc = compare(p, b, &ok, res, err)))
            return rc;
    }
    res->status = ok ? ATUNE__ST_OK : ATUNE__ST_WRONG_OUTPUT;
    return 0;
}

/* Launches n times between event pairs; restores buffers (and flushes L2)
 * before each launch, outside the timed region. */
static int timed_batch(atune__problem *p, atune__kernel *k,
                       const atune__launch *l, void **args, int n, int flush,
                       const atune__timing *t, double *ns,
                       atune__result *res, atune__err *err)
{
    atune__device *d = p->d;
    CUresult crc;
    int rc;

    for (int i = 0; i < n; i++) {
        if ((rc = prepare(p, 0, err)))
            return rc;
        if (flush)
            CU(cuMemsetD8Async(d->flush, (unsigned char)i, d->flush_bytes,
                               d->stream),
               "flushing L2");
        CU(cuEventRecord(d->ev[2 * i], d->stream), "cuEventRecord");
        crc = launch(p, k, l, args);
        if (crc != CUDA_SUCCESS)
            return launch_failed(p, crc, "launch", res, err);
        CU(cuEventRecord(d->ev[2 * i + 1], d->stream), "cuEventRecord");
    }
    watch(t, n);
    crc = d->cu->cuStreamSynchronize(d->stream);
    watch(t, 0);
    if (crc != CUDA_SUCCESS)
        return launch_failed(p, crc, "kernel", res, err);
    for (int i = 0; i < n; i++) {
        float ms = 0;
        CU(cuEventElapsedTime(&ms, d->ev[2 * i], d->ev[2 * i + 1]),
           "cuEventElapsedTime");
        ns[i] = (double)ms * 1e6;
    }
    return 0;
}

/* Adaptive measurement, after NVBench's stopping rule: batches of timed
 * launches until the relative interquartile range is under rel_spread (with
 * at least min_samples), or target_s of GPU time or max_samples is reached.
 * A configuration whose first early_samples are all slower than cutoff_ns
 * stops there: it cannot win, and its ranking among losers does not
 * matter. */
static int measure(atune__problem *p, atune__kernel *k,
                   const atune__launch *l, void **args,
                   const atune__timing *t, atune__result *res,
                   atune__err *err)
{
    double ns[MAX_SAMPLES], sorted[MAX_SAMPLES], spent = 0;
    atune__summary s;
    int maxn = t->max_samples > MAX_SAMPLES ? MAX_SAMPLES : t->max_samples;
    int minn = t->min_samples < 1 ? 1 : t->min_samples;
    int flush = atune__problem_flushes(p, t), n = 0, rc;
    int batch = t->early_samples > 0 ? t->early_samples : minn;

    if (maxn < 1)
        maxn = 1;
    if (minn > maxn)
        minn = maxn;
    for (int i = 0; i < t->warmup; i++) {
        if ((rc = timed_batch(p, k, l, args, 1, flush, t, ns, res, err)))
            return rc;
        if (res->status != ATUNE__ST_OK)
            return 0;
    }
    for (;;) {
        if (batch > maxn - n)
            batch = maxn - n;
        if ((rc = timed_batch(p, k, l, args, batch, flush, t, ns + n, res,
                              err)))
            return rc;
        if (res->status != ATUNE__ST_OK)
            return 0;
        for (int i = n; i < n + batch; i++)
            spent += ns[i];
        n += batch;
        memcpy(sorted, ns, sizeof(double) * (size_t)n);
        atune__summarize(sorted, n, &s);
        if (t->cutoff_ns > 0 && n < minn && s.min > t->cutoff_ns)
            break;
        if (n >= maxn || (n >= minn && (spent >= t->target_s * 1e9 ||
                                        s.q3 - s.q1 <= t->rel_spread *
                                                           s.median)))
            break;
        batch = n < minn ? minn - n : minn;
    }
    res->time_ns = s.median;
    res->spread_ns = s.q3 - s.q1;
    res->min_ns = s.min;
    res->samples = n;
    res->metric = p->work / s.median;
    return 0;
}

int atune__problem_eval(atune__problem *p, atune__kernel *k,
                        const atune__config *c, const atune__timing *t,
                        atune__result *res, atune__err *err)
{
    atune__device *d = p->d;
    atune__vars vs = p->vars;
    atune__launch l;
    union scalar sc[ATUNE__MAX_ARGS];
    void *args[ATUNE__MAX_ARGS];
    int64_t threads;
    double t0, t1;
    int rc;

    memset(res, 0, sizeof(*res));
    res->regs = k->regs;
    if ((rc = cucheck(d->cu->cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", err)))
        return rc;
    rc = atune__space_check(p->m, c, &p->vars, &d->info.attr, &l, res->detail,
                            sizeof(res->detail), err);
    if (rc > 1)
        return rc;
    if (rc == 0) {
        res->status = ATUNE__ST_INVALID;
        return 0;
    }
    threads = l.block[0] * l.block[1] * l.block[2];
    if (threads > k->max_threads) {
        res->status = ATUNE__ST_INVALID;
        snprintf(res->detail, sizeof(res->detail),
                 "%d registers per thread allow %d threads per block, not "
                 "%lld",
                 k->regs, k->max_threads, (long long)threads);
        return 0;
    }
    if (l.shared + k->static_shared > d->info.attr.max_shared_per_block) {
        res->status = ATUNE__ST_INVALID;
        snprintf(res->detail, sizeof(res->detail),
                 "%lld bytes of shared memory exceed %lld",
                 (long long)(l.shared + k->static_shared),
                 (long long)d->info.attr.max_shared_per_block);
        return 0;
    }
    /* Above 48 KB of dynamic shared memory a kernel must opt in. */
    if (l.shared > 48 * 1024)
        CU(cuFuncSetAttribute(k->fn,
                              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              (int)l.shared),
           "cuFuncSetAttribute");
    if ((rc = atune__config_vars(p->m, c, &vs)))
        return rc;
    if ((rc = set_constants(p, k->mod, err)))
        return rc;
    if ((rc = make_args(p, &vs, sc, args, err)))
        return rc;
    t0 = atune__now();
    rc = verify(p, k, &l, args, t, res, err);
    t1 = atune__now();
    res->verify_s = t1 - t0;
    if (rc || res->status != ATUNE__ST_OK)
        return rc;
    rc = measure(p, k, &l, args, t, res, err);
    res->measure_s = atune__now() - t1;
    return rc;
}
