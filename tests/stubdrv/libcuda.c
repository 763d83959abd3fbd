/* libcuda.c -- a stub CUDA driver (libcuda.so.1) for CI without a GPU.
 *
 * Tests put its folder first in LD_LIBRARY_PATH; autotune's loader
 * (tuner/jit/cudrv.c) then resolves every entry point here through
 * cuGetProcAddress_v2. It reports fake GPUs, loads any module, runs no
 * kernel and times each launch with a deterministic model of the module
 * image (a hash of the cubin, so each configuration has its own time) and
 * the launch shape. Memory is real only for small allocations (the
 * compare result, __constant__ symbols): big buffers are address ranges
 * that nothing reads, and a read of them gives zeros, so every compare
 * reports "equal".
 *
 * Environment (all optional):
 *   ATUNE_STUB_GPUS=N        number of GPUs (default 1; 0: CUDA_ERROR_NO_DEVICE)
 *   ATUNE_STUB_NAME=S        the device name (default "NVIDIA Stub H100")
 *   ATUNE_STUB_MEM_MB=N      device memory (default 81559)
 *   ATUNE_STUB_LOG=FILE      appends "cuDeviceGet N" per device opened
 *   ATUNE_STUB_SKEW=X        GPU i is 1 + X * i times slower (default 0)
 *   ATUNE_STUB_SCALE=X       every time times X (default 1)
 *   ATUNE_STUB_NEAR=SEED     every tuned kernel takes 15 us plus up to 1%
 *                            by a hash of its module and SEED: near-equal
 *                            configurations whose order changes with SEED,
 *                            as noise changes it between processes on a GPU
 *   ATUNE_STUB_DELAY_US=N    each launch of a tuned kernel takes N us of
 *                            real time (so that tests can kill a run)
 *   CUDA_VISIBLE_DEVICES=i,j as the driver: the process sees physical GPUs
 *                            i, j... (of ATUNE_STUB_GPUS) as devices 0, 1...;
 *                            a device's UUID ends with its physical index.
 *                            Ignored unless it is a list of numbers.
 *   ATUNE_STUB_HELPER_LOG=FILE appends a line per launch of the tuner's
 *                            own kernels: "cmp_TYPE bytes=B off=O n=N" (the
 *                            size of the allocation the output pointer lies
 *                            in, its byte offset, the count compared);
 *                            "fill_TYPE bytes=B n=N mode=M ilo=I ihi=I
 *                            rlo=R rhi=R" (the fill kernel's arguments);
 *                            of a template's own helpers: "NAME_ref grid=G
 *                            block=B", "NAME_init grid=G block=B",
 *                            "NAME_verify bytes=B off=O n=N" as cmp_TYPE
 *   ATUNE_STUB_LAUNCH_LOG=FILE appends a line per launch of any kernel but
 *                            fill_* and cmp_* (a template's *_ref, *_init
 *                            and *_verify are in both logs): "NAME
 *                            grid=X,Y,Z block=X,Y,Z shared=S
 *                            args=A,...": the arguments up to the first
 *                            NULL entry (autotune and libatune_jit end
 *                            each launch's list with one), each read as 8
 *                            bytes: a device address in hex (0x...), else
 *                            the low 32 bits as a signed number
 * Planted faults, for launches of a tuned kernel (not *_ref, fill_*, cmp_*)
 * with the given block.x, or "BX,GX": block.x and grid.x:
 *   ATUNE_STUB_ERROR_BLOCK   the launch fails (CUDA_ERROR_INVALID_VALUE)
 *   ATUNE_STUB_FAULT_BLOCK   the launch faults (CUDA_ERROR_ILLEGAL_ADDRESS)
 *   ATUNE_STUB_HANG_BLOCK    the next synchronisation never returns
 *   ATUNE_STUB_WRONG_BLOCK   a compare after such a launch (the latest of
 *                            a tuned kernel) reports a mismatch, and a
 *                            *_verify kernel (out, ref, n, errors) counts
 *                            one error
 *   ATUNE_STUB_OVERRUN_BLOCK the launch writes past the end of its output:
 *                            the compare after it of the guard behind a
 *                            buffer (a range that starts past its
 *                            allocation's start and ends at its end)
 *                            reports a mismatch; with ATUNE_STUB_OVERRUN_AT=B
 *                            only the guard behind a buffer of B bytes
 * Kernels named *_ref, *_init and *_verify are a template's reference,
 * init and verify kernels: not tuned. */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jit/cudrv.h"

#define EXPORT __attribute__((visibility("default")))
#define SMALL_ALLOC (1u << 20)
#define FAKE_BASE (1ULL << 56)

struct CUctx_st { int dev; };
struct CUstream_st { int unused; };
struct CUevent_st { double ms; };
struct CUmod_st { uint64_t hash; const unsigned char *image; size_t size; };
struct CUfunc_st { CUmodule mod; char name[128]; int tuned; };

struct block { uintptr_t at; size_t size; struct block *next; };

static struct {
    int ngpu, skew_dev;
    int phys[64]; /* physical index of each device (CUDA_VISIBLE_DEVICES) */
    double clock_ms, skew, scale;
    uint64_t near;
    uint64_t fake_next, used;
    struct block *real, *fake;
    int hang, wrong, overrun;
    struct CUctx_st ctx[64];
    struct CUstream_st stream;
} st = {.fake_next = FAKE_BASE};

static long envnum(const char *name, long def)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : def;
}

static double envreal(const char *name, double def)
{
    const char *v = getenv(name);
    return v && *v ? strtod(v, NULL) : def;
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static size_t image_size(const unsigned char *p)
{
    const Elf64_Ehdr *e = (const void *)p;
    if (memcmp(p, ELFMAG, SELFMAG) != 0)
        return strlen((const char *)p); /* PTX text */
    return e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
}

/* The symbol called name in an ELF image's symbol table, or NULL. */
static const Elf64_Sym *symbol_find(const unsigned char *p, const char *name)
{
    const Elf64_Ehdr *e = (const void *)p;
    const Elf64_Shdr *sh;

    if (memcmp(p, ELFMAG, SELFMAG) != 0)
        return NULL;
    sh = (const void *)(p + e->e_shoff);
    for (int i = 0; i < e->e_shnum; i++) {
        const Elf64_Sym *sym = (const void *)(p + sh[i].sh_offset);
        const char *str = (const char *)p + sh[sh[i].sh_link].sh_offset;
        if (sh[i].sh_type != SHT_SYMTAB)
            continue;
        for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++)
            if (strcmp(str + sym[k].st_name, name) == 0)
                return &sym[k];
    }
    return NULL;
}

/* The size of symbol name in an ELF image, or 0. */
static size_t symbol_size(const unsigned char *p, const char *name)
{
    const Elf64_Sym *sym = symbol_find(p, name);

    return sym ? sym->st_size : 0;
}

static struct block *real_at(uintptr_t p)
{
    for (struct block *b = st.real; b; b = b->next)
        if (p >= b->at && p < b->at + b->size)
            return b;
    return NULL;
}

/* CUDA_VISIBLE_DEVICES as the driver reads it (numbers only): the listed
 * physical GPUs that exist, in the list's order, up to the first that
 * does not. */
static void visible_devices(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    int n = 0;

    if (!v || !*v || strspn(v, "0123456789,") != strlen(v))
        return;
    while (*v && n < 64) {
        char *end;
        long i = strtol(v, &end, 10);
        if (end == v || i >= st.ngpu)
            break;
        st.phys[n++] = (int)i;
        v = *end == ',' ? end + 1 : end;
    }
    st.ngpu = n;
}

static CUresult s_cuInit(unsigned flags)
{
    (void)flags;
    st.ngpu = (int)envnum("ATUNE_STUB_GPUS", 1);
    st.skew = envreal("ATUNE_STUB_SKEW", 0);
    st.scale = envreal("ATUNE_STUB_SCALE", 1);
    st.near = (uint64_t)envnum("ATUNE_STUB_NEAR", 0);
    if (st.ngpu > 64)
        st.ngpu = 64;
    for (int i = 0; i < 64; i++)
        st.phys[i] = i;
    visible_devices();
    return st.ngpu > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}

static CUresult s_cuDriverGetVersion(int *v) { *v = 12080; return CUDA_SUCCESS; }

static CUresult s_cuGetErrorName(CUresult rc, const char **s)
{
    switch (rc) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
    case CUDA_ERROR_INVALID_DEVICE: *s = "CUDA_ERROR_INVALID_DEVICE"; break;
    default: *s = "CUDA_ERROR_UNKNOWN"; break;
    }
    return CUDA_SUCCESS;
}

static CUresult s_cuGetErrorString(CUresult rc, const char **s)
{
    (void)rc;
    *s = "stub driver error";
    return CUDA_SUCCESS;
}

static CUresult s_cuDeviceGetCount(int *n) { *n = st.ngpu; return CUDA_SUCCESS; }

static CUresult s_cuDeviceGet(CUdevice *d, int ordinal)
{
    const char *log = getenv("ATUNE_STUB_LOG");
    if (log && *log) {
        FILE *f = fopen(log, "a");
        if (f) {
            fprintf(f, "cuDeviceGet %d\n", ordinal);
            fclose(f);
        }
    }
    if (ordinal < 0 || ordinal >= st.ngpu)
        return CUDA_ERROR_INVALID_DEVICE;
    *d = ordinal;
    return CUDA_SUCCESS;
}

static CUresult s_cuDeviceGetName(char *name, int len, CUdevice d)
{
    const char *n = getenv("ATUNE_STUB_NAME");
    (void)d;
    snprintf(name, (size_t)len, "%s", n && *n ? n : "NVIDIA Stub H100");
    return CUDA_SUCCESS;
}

static CUresult s_cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 52428800; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = 5120; break;
    default: *v = 0; break;
    }
    return CUDA_SUCCESS;
}

static CUresult s_cuDeviceTotalMem(size_t *bytes, CUdevice d)
{
    (void)d;
    *bytes = (size_t)envnum("ATUNE_STUB_MEM_MB", 81559) << 20;
    return CUDA_SUCCESS;
}

static CUresult s_cuDeviceGetUuid(CUuuid *u, CUdevice d)
{
    memset(u->bytes, 0x5a, sizeof(u->bytes));
    u->bytes[15] = (char)(d >= 0 && d < 64 ? st.phys[d] : d);
    return CUDA_SUCCESS;
}

static CUresult s_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    st.ctx[d].dev = d;
    st.skew_dev = d;
    *c = &st.ctx[d];
    return CUDA_SUCCESS;
}

static CUresult s_cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult s_cuCtxSetCurrent(CUcontext c) { (void)c; return CUDA_SUCCESS; }
static CUresult s_cuCtxGetCurrent(CUcontext *c) { *c = &st.ctx[st.skew_dev]; return CUDA_SUCCESS; }
static CUresult s_cuCtxGetDevice(CUdevice *d) { *d = st.skew_dev; return CUDA_SUCCESS; }

static CUresult sync_all(void)
{
    while (st.hang)
        pause();
    return CUDA_SUCCESS;
}

static CUresult s_cuCtxSynchronize(void) { return sync_all(); }

static CUresult s_cuModuleLoadData(CUmodule *m, const void *image)
{
    struct CUmod_st *mod = calloc(1, sizeof(*mod));
    if (!mod)
        return CUDA_ERROR_OUT_OF_MEMORY;
    mod->image = image;
    mod->size = image_size(image);
    mod->hash = fnv(image, mod->size);
    mod->image = malloc(mod->size);
    if (!mod->image) {
        free(mod);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy((void *)mod->image, image, mod->size);
    *m = mod;
    return CUDA_SUCCESS;
}

static CUresult s_cuModuleUnload(CUmodule m)
{
    free((void *)m->image);
    free(m);
    return CUDA_SUCCESS;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

static CUresult s_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    struct CUfunc_st *fn;

    /* As the driver: a kernel the module does not have is not found. */
    if (memcmp(m->image, ELFMAG, SELFMAG) == 0 && !symbol_find(m->image, name))
        return CUDA_ERROR_NOT_FOUND;
    fn = calloc(1, sizeof(*fn));
    if (!fn)
        return CUDA_ERROR_OUT_OF_MEMORY;
    fn->mod = m;
    snprintf(fn->name, sizeof(fn->name), "%s", name);
    fn->tuned = strncmp(name, "fill_", 5) != 0 &&
                strncmp(name, "cmp_", 4) != 0 && !ends_with(name, "_ref") &&
                !ends_with(name, "_init") && !ends_with(name, "_verify");
    *f = fn; /* leaked with the module: a test process is short-lived */
    return CUDA_SUCCESS;
}

static CUresult s_cuMemAlloc(CUdeviceptr *p, size_t bytes);

static CUresult s_cuModuleGetGlobal(CUdeviceptr *p, size_t *bytes, CUmodule m,
                                    const char *name)
{
    size_t n = symbol_size(m->image, name);
    if (!n)
        return CUDA_ERROR_NOT_FOUND;
    if (bytes)
        *bytes = n;
    return p ? s_cuMemAlloc(p, n) : CUDA_SUCCESS;
}

static CUresult s_cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f)
{
    (void)f;
    *v = a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024
       : a == CU_FUNC_ATTRIBUTE_NUM_REGS              ? 32
                                                      : 0;
    return CUDA_SUCCESS;
}

static CUresult s_cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
    (void)f, (void)a, (void)v;
    return CUDA_SUCCESS;
}

static CUresult s_cuOccupancyMaxPotentialBlockSize(
    int *min_grid, int *block, CUfunction f, CUoccupancyB2DSize fn,
    size_t dyn, int limit)
{
    (void)f, (void)fn, (void)dyn, (void)limit;
    *min_grid = 132 * 8;
    *block = 256;
    return CUDA_SUCCESS;
}

static CUresult s_cuOccupancyMaxActiveBlocksPerMultiprocessor(
    int *n, CUfunction f, int block, size_t dyn)
{
    (void)f, (void)dyn;
    *n = block > 0 ? 2048 / block : 0;
    return CUDA_SUCCESS;
}

/* "BX" or "BX,GX": the launches with this block.x (and grid.x). */
static int planted(const char *name, unsigned bx, unsigned gx)
{
    const char *v = getenv(name);
    char *end;
    unsigned long b, g;

    if (!v || !*v)
        return 0;
    b = strtoul(v, &end, 10);
    g = *end == ',' ? strtoul(end + 1, NULL, 10) : gx;
    return b == bx && g == gx;
}

/* The allocation, real or fake, that p lies in, or NULL. */
static const struct block *allocation_at(uintptr_t p)
{
    const struct block *b = real_at(p);
    if (b)
        return b;
    for (b = st.fake; b; b = b->next)
        if (p >= b->at && p < b->at + b->size)
            return b;
    return NULL;
}

/* Whether cmp_TYPE(out, ref, n, res) compares the end of out's allocation
 * but not its start: the guard after a buffer. */
static int guard_compare(CUfunction f, void **args)
{
    static const struct {
        const char *type;
        size_t size;
    } sizes[] = {{"char", 1}, {"half", 2}, {"bf16", 2}, {"int", 4},
                 {"uint", 4}, {"float", 4}, {"long", 8}, {"ulong", 8},
                 {"double", 8}};
    uintptr_t out = (uintptr_t)*(CUdeviceptr *)args[0];
    long n = *(long *)args[2];
    const struct block *b = allocation_at(out);

    for (size_t i = 0; b && i < sizeof(sizes) / sizeof(*sizes); i++)
        if (strcmp(f->name + 4, sizes[i].type) == 0)
            return out > b->at && out - b->at + (size_t)n * sizes[i].size == b->size;
    return 0;
}

/* Whether the guard compare cmp_TYPE(out, ...) is the one
 * ATUNE_STUB_OVERRUN_AT names (every one when it is unset). */
static int overrun_here(void **args)
{
    long at = envnum("ATUNE_STUB_OVERRUN_AT", -1);
    uintptr_t out = (uintptr_t)*(CUdeviceptr *)args[0];
    const struct block *b = allocation_at(out);

    return at < 0 || (b && out - b->at == (uintptr_t)at);
}

/* cmp_*(out, ref, n, res): one mismatch at index 0 */
static void mismatch(void **args)
{
    CUdeviceptr res = *(CUdeviceptr *)args[3];
    struct block *b = real_at(res);

    if (b && b->size >= 2 * sizeof(uint64_t)) {
        uint64_t v[2] = {1, 0};
        memcpy((void *)res, v, sizeof(v));
    }
}

/* cmp_*(out, ref, n, res); fill_*(p, n, seed, mode, ilo, ihi, rlo, rhi) */
static void log_helper(CUfunction f, void **args, unsigned gx, unsigned bx)
{
    const char *log = getenv("ATUNE_STUB_HELPER_LOG");
    uintptr_t out = (uintptr_t)*(CUdeviceptr *)args[0];
    const struct block *b = allocation_at(out);
    FILE *fp;

    if (!log || !*log || !(fp = fopen(log, "a")))
        return;
    if (ends_with(f->name, "_ref") || ends_with(f->name, "_init"))
        fprintf(fp, "%s grid=%u block=%u\n", f->name, gx, bx);
    else if (strncmp(f->name, "cmp_", 4) == 0 || ends_with(f->name, "_verify"))
        fprintf(fp, "%s bytes=%zu off=%zu n=%ld\n", f->name, b ? b->size : 0,
                b ? (size_t)(out - b->at) : 0, *(long *)args[2]);
    else
        fprintf(fp, "%s bytes=%zu n=%ld mode=%d ilo=%lld ihi=%lld rlo=%g rhi=%g\n",
                f->name, b ? b->size : 0, *(long *)args[1], *(int *)args[3],
                *(long long *)args[4], *(long long *)args[5],
                *(double *)args[6], *(double *)args[7]);
    fclose(fp);
}

static void log_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared,
                       void **args)
{
    const char *log = getenv("ATUNE_STUB_LAUNCH_LOG");
    FILE *fp;

    if (!log || !*log || !(fp = fopen(log, "a")))
        return;
    fprintf(fp, "%s grid=%u,%u,%u block=%u,%u,%u shared=%u args=", f->name, gx,
            gy, gz, bx, by, bz, shared);
    for (int i = 0; args && i < 32 && args[i]; i++) {
        uint64_t v;
        memcpy(&v, args[i], sizeof(v));
        if (v >= FAKE_BASE || (v && allocation_at((uintptr_t)v)))
            fprintf(fp, "%s0x%llx", i ? "," : "", (unsigned long long)v);
        else
            fprintf(fp, "%s%d", i ? "," : "", (int)(int32_t)(uint32_t)v);
    }
    fputc('\n', fp);
    fclose(fp);
}

static CUresult s_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy,
                                 unsigned gz, unsigned bx, unsigned by,
                                 unsigned bz, unsigned shared, CUstream s,
                                 void **args, void **extra)
{
    double ms;
    (void)s, (void)extra, (void)shared;

    if (f->tuned) {
        long delay = envnum("ATUNE_STUB_DELAY_US", 0);
        struct timespec ts = {delay / 1000000, delay % 1000000 * 1000};
        if (delay > 0)
            nanosleep(&ts, NULL);
        if (planted("ATUNE_STUB_ERROR_BLOCK", bx, gx))
            return CUDA_ERROR_INVALID_VALUE;
        if (planted("ATUNE_STUB_FAULT_BLOCK", bx, gx))
            return CUDA_ERROR_ILLEGAL_ADDRESS;
        if (planted("ATUNE_STUB_HANG_BLOCK", bx, gx))
            st.hang = 1;
        /* The output is that of the latest launch of a tuned kernel. */
        st.wrong = planted("ATUNE_STUB_WRONG_BLOCK", bx, gx);
        st.overrun = planted("ATUNE_STUB_OVERRUN_BLOCK", bx, gx);
    }
    if (!f->tuned)
        log_helper(f, args, gx, bx);
    if (ends_with(f->name, "_verify") && st.wrong) {
        /* NAME_verify(out, ref, n, errors): one error */
        CUdeviceptr res = *(CUdeviceptr *)args[3];
        struct block *b = real_at(res);
        if (b && b->size >= sizeof(uint64_t)) {
            uint64_t v = 1;
            memcpy((void *)res, &v, sizeof(v));
        }
        st.wrong = 0;
    }
    if (strncmp(f->name, "cmp_", 4) != 0 && strncmp(f->name, "fill_", 5) != 0)
        log_launch(f, gx, gy, gz, bx, by, bz, shared, args);
    int guard = strncmp(f->name, "cmp_", 4) == 0 && guard_compare(f, args);
    if (guard && st.overrun && overrun_here(args)) {
        mismatch(args);
        st.overrun = 0;
    }
    /* a wrong output is in the buffer, not behind it */
    if (strncmp(f->name, "cmp_", 4) == 0 && !guard && st.wrong) {
        mismatch(args);
        st.wrong = 0;
    }
    /* 10 to 20 us by the module's hash, plus a little per block. */
    ms = 0.010 + (double)(f->mod->hash % 1000) * 1e-5 +
         (double)gx * gy * gz * bx * by * bz * 1e-12;
    if (st.near && f->tuned) {
        uint64_t h = (f->mod->hash ^ st.near) * 0x9e3779b97f4a7c15ULL;
        ms = 0.015 * (1 + (double)(h >> 54) / 1024 * 0.01);
    }
    st.clock_ms += ms * st.scale * (1 + st.skew * st.skew_dev);
    return CUDA_SUCCESS;
}

static CUresult s_cuMemAlloc(CUdeviceptr *p, size_t bytes)
{
    uint64_t total = (uint64_t)envnum("ATUNE_STUB_MEM_MB", 81559) << 20;

    if (bytes == 0 || bytes > total - st.used)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (bytes <= SMALL_ALLOC) {
        struct block *b = calloc(1, sizeof(*b));
        void *mem = calloc(1, bytes);
        if (!b || !mem) {
            free(b);
            free(mem);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        b->at = (uintptr_t)mem;
        b->size = bytes;
        b->next = st.real;
        st.real = b;
        *p = (CUdeviceptr)b->at;
    } else {
        struct block *b = calloc(1, sizeof(*b));
        if (!b)
            return CUDA_ERROR_OUT_OF_MEMORY;
        b->at = (uintptr_t)st.fake_next;
        b->size = bytes;
        b->next = st.fake;
        st.fake = b;
        *p = st.fake_next;
        st.fake_next += (bytes + 4095) & ~(uint64_t)4095;
    }
    st.used += bytes;
    return CUDA_SUCCESS;
}

static CUresult s_cuMemFree(CUdeviceptr p)
{
    for (struct block **b = &st.real; *b; b = &(*b)->next)
        if ((*b)->at == p) {
            struct block *dead = *b;
            *b = dead->next;
            st.used -= dead->size;
            free((void *)dead->at);
            free(dead);
            return CUDA_SUCCESS;
        }
    return CUDA_SUCCESS; /* fake ranges are never reused */
}

static CUresult s_cuMemGetInfo(size_t *free_b, size_t *total_b)
{
    uint64_t total = (uint64_t)envnum("ATUNE_STUB_MEM_MB", 81559) << 20;
    *total_b = (size_t)total;
    *free_b = (size_t)(total - st.used);
    return CUDA_SUCCESS;
}

/* Copies between real blocks; reads of a fake range give zeros. */
static void copy(void *dst, const void *src, size_t n)
{
    if (dst && src)
        memmove(dst, src, n);
    else if (dst)
        memset(dst, 0, n);
}

static void *dev(CUdeviceptr p) { return real_at((uintptr_t)p) ? (void *)p : NULL; }

static CUresult s_cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n)
{
    if (dev(d))
        copy(dev(d), h, n);
    return CUDA_SUCCESS;
}

static CUresult s_cuMemcpyDtoH(void *h, CUdeviceptr d, size_t n)
{
    copy(h, dev(d), n);
    return CUDA_SUCCESS;
}

static CUresult s_cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n)
{
    if (dev(d))
        copy(dev(d), dev(s), n);
    return CUDA_SUCCESS;
}

static CUresult s_cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n,
                                    CUstream st_)
{
    (void)st_;
    return s_cuMemcpyDtoD(d, s, n);
}

static CUresult s_cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n,
                                  CUstream s)
{
    (void)s;
    if (dev(d))
        memset(dev(d), v, n);
    return CUDA_SUCCESS;
}

static CUresult s_cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n,
                                   CUstream s)
{
    unsigned *p = dev(d);
    (void)s;
    for (size_t i = 0; p && i < n; i++)
        p[i] = v;
    return CUDA_SUCCESS;
}

static CUresult s_cuStreamCreate(CUstream *s, unsigned flags)
{
    (void)flags;
    *s = &st.stream;
    return CUDA_SUCCESS;
}

static CUresult s_cuStreamDestroy(CUstream s) { (void)s; return CUDA_SUCCESS; }
static CUresult s_cuStreamSynchronize(CUstream s) { (void)s; return sync_all(); }

static CUresult s_cuEventCreate(CUevent *e, unsigned flags)
{
    (void)flags;
    *e = calloc(1, sizeof(**e));
    return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult s_cuEventDestroy(CUevent e) { free(e); return CUDA_SUCCESS; }

static CUresult s_cuEventRecord(CUevent e, CUstream s)
{
    (void)s;
    e->ms = st.clock_ms;
    return CUDA_SUCCESS;
}

static CUresult s_cuEventSynchronize(CUevent e) { (void)e; return sync_all(); }

static CUresult s_cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
    *ms = (float)(b->ms - a->ms);
    return CUDA_SUCCESS;
}

/* Every stub has cuda.h's prototype of the name it stands for. */
#define STUB_ABI(name, version)                                                \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&s_##name),        \
                                                __typeof__(&name)),           \
                   "stub " #name " has the wrong prototype");
ATUNE__CUDRV_FUNCS(STUB_ABI)
#undef STUB_ABI

static const struct entry { const char *name; void *fn; } table[] = {
#define STUB_ENTRY(name, version) {#name, (void *)(uintptr_t)s_##name},
    ATUNE__CUDRV_FUNCS(STUB_ENTRY)
#undef STUB_ENTRY
};

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **fn, int version,
                                    cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *found)
{
    (void)version, (void)flags;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strcmp(table[i].name, symbol) == 0) {
            *fn = table[i].fn;
            if (found)
                *found = CU_GET_PROC_ADDRESS_SUCCESS;
            return CUDA_SUCCESS;
        }
    *fn = NULL;
    if (found)
        *found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}

EXPORT CUresult cuInit(unsigned flags) { return s_cuInit(flags); }
EXPORT CUresult cuDriverGetVersion(int *v) { return s_cuDriverGetVersion(v); }

/* NVRTC dlopens libcuda.so.1 too and asks for private tables: none here. */
EXPORT CUresult cuGetExportTable(const void **out, const CUuuid *id)
{
    (void)id;
    *out = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}
