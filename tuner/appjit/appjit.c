/* appjit.c -- the JIT helper for applications (include/atune/atune_jit.h):
 * a template built with a tuned configuration for the current context's
 * GPU, its launch computed from the manifest, and the launch itself. */
#include <atune/atune_jit.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appjit/appjit_internal.h"
#include "jit/jit.h"
#include "template/templates.h"

/* --- errors --------------------------------------------------------------- */

int atune__jit_fail(atune_jit *j, int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(j->msg, sizeof(j->msg), fmt, ap);
    va_end(ap);
    return status;
}

/* The public status of an internal error code. */
static int status_of(int code)
{
    switch (code) {
    case ATUNE__OK:
        return ATUNE_OK;
    case ATUNE__EUSAGE:
        return ATUNE_EINVAL;
    case ATUNE__EDATA:
        return ATUNE_EPARSE;
    case ATUNE__ENOINPUT:
    case ATUNE__EIO:
    case ATUNE__ECANTCREAT:
        return ATUNE_EIO;
    case ATUNE__EUNAVAIL:
        return ATUNE_ENODEV;
    case ATUNE__EOSERR:
        return ATUNE_ENOMEM;
    default:
        return ATUNE_ECUDA;
    }
}

int atune__jit_cuda_fail(atune_jit *j, const atune__config *cfg,
                         const char *what, CUresult r)
{
    char cfgs[512], buf[256];

    atune__config_str(j->m, cfg, cfgs, sizeof(cfgs));
    return atune__jit_fail(j, ATUNE_ECUDA, "%s: %s: %s: %s", j->m->name, cfgs,
                           what, atune__cudrv_errstr(r, buf, sizeof(buf)));
}

const char *atune_jit_strerror(int status)
{
    switch (status) {
#define ATUNE_JIT_XX(code, value, msg)                                         \
    case ATUNE_##code:                                                         \
        return msg;
        ATUNE_JIT_STATUS_MAP(ATUNE_JIT_XX)
#undef ATUNE_JIT_XX
    }
    return atune_strerror(status);
}

const char *atune_jit_errmsg(const atune_jit *j)
{
    return j ? j->msg : "out of memory";
}

/* The [args] scalar whose value expression is exactly var, or -1. */
static int size_arg_of(const atune__manifest *m, const char *var)
{
    for (int i = 0; i < m->nargs; i++) {
        const atune__arg *a = &m->args[i];
        if (a->role == ATUNE__SCALAR && a->value && !a->has_fvalue &&
            a->type != ATUNE__FLOAT && a->type != ATUNE__DOUBLE &&
            strcmp(atune__expr_text(a->value), var) == 0)
            return i;
    }
    return -1;
}

/* Which argument carries each size variable, for launches that read the
 * size from their arguments. */
static void tie_sizes(atune_jit *j)
{
    const atune__manifest *m = j->m;

    j->nsize = m->nsizes ? m->sizes[0].nvars : 0;
    for (int i = 0; i < j->nsize; i++)
        j->size_arg[i] = size_arg_of(m, m->sizes[0].var[i]);
}

/* --- open and close ------------------------------------------------------- */

int atune_jit_open(const char *dir, const char *name, atune_jit **out)
{
    atune__templates t = {0};
    atune__err err = {0};
    atune_jit *j;
    int rc;

    if (!out)
        return ATUNE_EINVAL;
    *out = j = atune__calloc(1, sizeof(*j));
    if (!j)
        return ATUNE_ENOMEM;
    if (!name || !*name || strpbrk(name, "/,"))
        return atune__jit_fail(j, ATUNE_EINVAL, "bad template name '%s'",
                               name ? name : "(null)");
    rc = atune__templates_load(dir, name, &t, &err);
    if (rc == ATUNE__EUSAGE)
        return atune__jit_fail(j, ATUNE_ENOTFOUND, "%s: %s",
                               dir ? dir : "built-in templates", err.msg);
    if (rc)
        return atune__jit_fail(j, status_of(rc), "%s", err.msg);
    j->m = t.m[0];
    t.n = 0; /* the manifest is j's now; free only the array */
    atune__templates_free(&t);
    snprintf(j->hash, sizeof(j->hash), "%016llx",
             (unsigned long long)j->m->hash);
    tie_sizes(j);
    return ATUNE_OK;
}

/* Unloads k's module in its own context, then restores the caller's. */
static void kernel_free(const atune__cudrv *cu, atune_jit_kernel *k)
{
    CUcontext prev = NULL;

    if (k->mod && cu && cu->cuCtxGetCurrent(&prev) == CUDA_SUCCESS) {
        if (prev != k->ctx)
            cu->cuCtxSetCurrent(k->ctx);
        cu->cuModuleUnload(k->mod);
        if (prev != k->ctx)
            cu->cuCtxSetCurrent(prev);
    }
    free(k);
}

void atune_jit_close(atune_jit *j)
{
    atune_jit_kernel *k, *next;

    if (!j)
        return;
    for (k = j->kernels; k; k = next) {
        next = k->next;
        kernel_free(j->cu, k);
    }
    if (j->learned_free)
        j->learned_free(j);
    while (j->relaunched) {
        struct atune__relaunch *r = j->relaunched;
        j->relaunched = r->next;
        atune_config_free(r->own);
        free(r);
    }
    atune__cache_close(j->cache);
    atune__manifest_free(j->m);
    free(j);
    atune__jit_record_close();
}

const char *atune_jit_template_hash(const atune_jit *j)
{
    return j && j->m ? j->hash : "";
}

/* --- configurations ------------------------------------------------------- */

static int has_param(const atune_config *c, const char *name)
{
    for (int i = 0; i < atune_config_count(c); i++) {
        if (strcmp(atune_config_name(c, i), name) == 0)
            return 1;
    }
    return 0;
}

static int manifest_param(const atune__manifest *m, const char *name)
{
    for (int i = 0; i < m->nparams; i++) {
        if (strcmp(m->params[i].name, name) == 0)
            return 1;
    }
    return 0;
}

int atune_jit_stale(const atune_jit *j, const atune_config *c)
{
    const char *h, *k;
    atune__config cfg;
    int mask = 0;

    if (!j || !j->m || !c)
        return 0;
    h = atune_config_template_hash(c);
    if (h && *h && strcmp(h, j->hash) != 0)
        mask |= ATUNE_JIT_STALE_HASH;
    /* An entry of another kernel would be built silently as this one. */
    k = atune_config_kernel(c);
    if (*k && strcmp(k, j->m->name) != 0)
        mask |= ATUNE_JIT_STALE_KERNEL;
    for (int i = 0; i < j->m->nparams; i++) {
        if (!has_param(c, j->m->params[i].name))
            mask |= ATUNE_JIT_STALE_PARAMS;
    }
    for (int i = 0; i < atune_config_count(c); i++) {
        if (!manifest_param(j->m, atune_config_name(c, i)))
            mask |= ATUNE_JIT_STALE_PARAMS;
    }
    atune__jit_config_from(j->m, c, &cfg);
    if (atune__space_index(j->m, &cfg) < 0)
        mask |= ATUNE_JIT_STALE_VALUE;
    return mask;
}

/* "128, 64, 256, 512, 1024", cut with "..." when it does not fit. */
static void value_list(const atune__param *p, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < p->nvalues; i++) {
        int n = snprintf(buf + used, len - used, "%s%" PRId64, i ? ", " : "",
                         p->values[i]);
        if (n < 0 || used + (size_t)n + 6 >= len) {
            snprintf(buf + used, len - used, ", ...");
            return;
        }
        used += (size_t)n;
    }
}

int atune__jit_check_values(atune_jit *j, const atune__config *cfg)
{
    const atune__manifest *m = j->m;
    char list[256];

    for (int i = 0; i < m->nparams; i++) {
        const atune__param *p = &m->params[i];
        int found = 0;
        for (int v = 0; v < p->nvalues && !found; v++)
            found = p->values[v] == cfg->v[i];
        if (found)
            continue;
        value_list(p, list, sizeof(list));
        return atune__jit_fail(
            j, ATUNE_EINVAL,
            "%s:%d: %s=%" PRId64 " is not one of the template's values of "
            "%s (%s): the kernel was never checked with it",
            m->ini_path, p->line, p->name, cfg->v[i], p->name, list);
    }
    return ATUNE_OK;
}

void atune__jit_config_from(const atune__manifest *m, const atune_config *c,
                            atune__config *out)
{
    atune__space_config(m, 0, out);
    if (!c)
        return;
    for (int i = 0; i < m->nparams; i++)
        out->v[i] = atune_config_get(c, m->params[i].name, out->v[i]);
}

/* --- disk cache ----------------------------------------------------------- */

int atune_jit_set_cache_dir(atune_jit *j, const char *dir)
{
    atune__err err = {0};
    int rc;

    if (!j)
        return ATUNE_EINVAL;
    j->msg[0] = '\0';
    atune__cache_close(j->cache);
    j->cache = NULL;
    j->cache_decided = 1;
    if (!dir)
        return ATUNE_OK;
    rc = atune__cache_open(dir, &j->cache, &err);
    return rc ? atune__jit_fail(j,
                                rc == ATUNE__EOSERR ? ATUNE_ENOMEM : ATUNE_EIO,
                                "%s", err.msg)
              : ATUNE_OK;
}

/* The default cache, opened at the first build: a handle used only for
 * shapes never touches the file system. A directory that cannot be made
 * means no disk cache, not a failed build. */
void atune__jit_default_cache(atune_jit *j)
{
    if (j->cache_decided)
        return;
    j->cache_decided = 1;
    if (atune__cache_open(NULL, &j->cache, NULL) != 0)
        j->cache = NULL;
}

void atune_jit_cache_stats(const atune_jit *j, long *hits, long *misses)
{
    if (hits)
        *hits = j ? j->hits : 0;
    if (misses)
        *misses = j ? j->misses : 0;
}

/* --- device attributes ---------------------------------------------------- */

static void attr_to_public(const atune__devattr *a, atune_jit_attr *p)
{
    p->sm_count = a->sm_count;
    p->max_threads_per_block = a->max_threads_per_block;
    for (int i = 0; i < 3; i++) {
        p->max_block[i] = a->max_block[i];
        p->max_grid[i] = a->max_grid[i];
    }
    p->max_shared_per_block = a->max_shared_per_block;
    p->warp_size = a->warp_size;
    p->cc = a->cc;
    p->l2_bytes = a->l2_bytes;
}

void atune__jit_attr_from_public(const atune_jit_attr *p, atune__devattr *a)
{
    a->sm_count = p->sm_count;
    a->max_threads_per_block = p->max_threads_per_block;
    for (int i = 0; i < 3; i++) {
        a->max_block[i] = p->max_block[i];
        a->max_grid[i] = p->max_grid[i];
    }
    a->max_shared_per_block = p->max_shared_per_block;
    a->warp_size = p->warp_size;
    a->cc = p->cc;
    a->l2_bytes = p->l2_bytes;
}

/* Loads the driver (once per process) and the context calls. */
int atune__jit_driver(atune_jit *j)
{
    atune__err err = {0};

    if (j->cu)
        return ATUNE_OK;
    j->cu = atune__cudrv_load(&err);
    if (!j->cu)
        return atune__jit_fail(j, ATUNE_ENODEV, "%s", err.msg);
    return ATUNE_OK;
}

static int query_attr(atune_jit *j, CUdevice dev, atune__devattr *a)
{
    int64_t major = 0, minor = 0;
    const struct {
        CUdevice_attribute id;
        int64_t *v;
    } list[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &a->sm_count},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &a->max_threads_per_block},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &a->max_block[0]},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &a->max_block[1]},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &a->max_block[2]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &a->max_grid[0]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &a->max_grid[1]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &a->max_grid[2]},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
         &a->max_shared_per_block},
        {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &a->warp_size},
        {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &a->l2_bytes},
    };
    char buf[256];

    for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
        int v = 0;
        CUresult r = j->cu->cuDeviceGetAttribute(&v, list[i].id, dev);
        if (r != CUDA_SUCCESS)
            return atune__jit_fail(
                j, ATUNE_ECUDA, "cuDeviceGetAttribute(%d): %s", (int)list[i].id,
                atune__cudrv_errstr(r, buf, sizeof(buf)));
        *list[i].v = v;
    }
    a->cc = major * 10 + minor;
    return ATUNE_OK;
}

int atune_jit_attr_query(atune_jit *j, CUdevice dev, atune_jit_attr *out)
{
    atune__devattr a;
    int rc;

    if (!j || !out)
        return ATUNE_EINVAL;
    j->msg[0] = '\0';
    if ((rc = atune__jit_driver(j)) || (rc = query_attr(j, dev, &a)))
        return rc;
    attr_to_public(&a, out);
    return ATUNE_OK;
}

/* --- build ---------------------------------------------------------------- */

static atune_jit_kernel *find_kernel(const atune_jit *j,
                                     const atune__config *cfg, CUcontext ctx)
{
    for (atune_jit_kernel *k = j->kernels; k; k = k->next) {
        if (k->ctx == ctx &&
            memcmp(k->cfg.v, cfg->v, sizeof(cfg->v[0]) * j->m->nparams) == 0 &&
            k->cfg.nsz == cfg->nsz &&
            memcmp(k->cfg.sz, cfg->sz, sizeof(cfg->sz[0]) * (size_t)cfg->nsz) ==
                0)
            return k;
    }
    return NULL;
}

/* NVRTC (through the disk cache) for k's device, then the module. */
static int compile_load(atune_jit *j, atune_jit_kernel *k)
{
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames = atune__manifest_kernels(j->m, names);
    const atune__cudrv *cu = j->cu;
    atune__cubin cubin;
    atune__err err = {0};
    char arch[32];
    CUresult r;
    int rc;

    snprintf(arch, sizeof(arch), "sm_%" PRId64, k->attr.cc);
    if (!atune__jit_arch_supported(arch))
        return atune__jit_fail(j, ATUNE_ECOMPILE,
                               "%s: NVRTC %d.%d cannot compile for %s",
                               j->m->name, atune__jit_version() / 1000,
                               atune__jit_version() % 1000 / 10, arch);
    atune__jit_default_cache(j);
    rc = atune__jit_compile_cached(j->cache, j->m, &k->cfg, arch, names, nnames,
                                   &cubin, &k->cached, &err);
    if (rc)
        return atune__jit_fail(
            j, rc == ATUNE__EDATA ? ATUNE_ECOMPILE : status_of(rc), "%s",
            err.msg);
    if (k->cached)
        j->hits++;
    else
        j->misses++;
    r = cu->cuModuleLoadData(&k->mod, cubin.data);
    if (r != CUDA_SUCCESS) {
        atune__cubin_free(&cubin);
        return atune__jit_cuda_fail(j, &k->cfg, "cuModuleLoadData", r);
    }
    /* sym[i] is step i's symbol: its C++ name lowered by NVRTC. */
    for (int i = 0; i < nnames; i++) {
        r = cu->cuModuleGetFunction(&k->fn[i], k->mod, cubin.sym[i]);
        if (r ||
            (r = cu->cuFuncGetAttribute(&k->max_threads[i],
                                        CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                        k->fn[i])) ||
            (r = cu->cuFuncGetAttribute(&k->static_shared[i],
                                        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                        k->fn[i]))) {
            atune__cubin_free(&cubin);
            return atune__jit_cuda_fail(j, &k->cfg, j->m->steps[i].kernel, r);
        }
    }
    atune__cubin_free(&cubin);
    return ATUNE_OK;
}

/* The current context and its device; EINVAL when there is none. */
static int current_context(atune_jit *j, CUcontext *ctx, CUdevice *dev)
{
    char buf[256];
    CUresult r = j->cu->cuCtxGetCurrent(ctx);

    if (r == CUDA_SUCCESS && !*ctx)
        return atune__jit_fail(
            j, ATUNE_EINVAL,
            "no current CUDA context: make one current first "
            "(cuDevicePrimaryCtxRetain and cuCtxSetCurrent, or any "
            "CUDA runtime call)");
    if (r == CUDA_SUCCESS)
        r = j->cu->cuCtxGetDevice(dev);
    if (r != CUDA_SUCCESS)
        return atune__jit_fail(j, ATUNE_ECUDA, "current context: %s",
                               atune__cudrv_errstr(r, buf, sizeof(buf)));
    return ATUNE_OK;
}

int atune_jit_build(atune_jit *j, const atune_config *c, atune_jit_kernel **out)
{
    atune_jit_kernel *k = NULL;
    atune__config cfg;
    CUcontext ctx = NULL;
    CUdevice dev = 0;
    int rc;

    if (out)
        *out = NULL;
    if (!j || !out)
        return ATUNE_EINVAL;
    j->msg[0] = '\0';
    if (!j->m)
        return atune__jit_fail(j, ATUNE_EINVAL, "template did not open");
    atune__jit_config_from(j->m, c, &cfg);
    if ((rc = atune__jit_check_values(j, &cfg)) != 0 || (rc = atune__jit_driver(j)) ||
        (rc = current_context(j, &ctx, &dev)))
        return rc;
    if ((k = find_kernel(j, &cfg, ctx)) != NULL) {
        *out = k;
        return ATUNE_OK;
    }
    if (!(k = atune__calloc(1, sizeof(*k))))
        return atune__jit_fail(j, ATUNE_ENOMEM, "out of memory");
    k->j = j;
    k->cfg = cfg;
    k->ctx = ctx;
    /* Names that read the size: compiled per size at its first launch
     * (atune__jit_kernel_at). */
    if ((rc = query_attr(j, dev, &k->attr)) ||
        (!j->m->names_sized && (rc = compile_load(j, k)))) {
        kernel_free(j->cu, k);
        return rc;
    }
    k->next = j->kernels;
    j->kernels = k;
    *out = k;
    return ATUNE_OK;
}

int atune__jit_kernel_at(atune_jit_kernel *k, const int64_t *size,
                         atune_jit_kernel **out)
{
    atune_jit *j = k->j;
    atune_jit_kernel *ks;
    atune__config cfg = k->cfg;
    int rc;

    *out = k;
    if (!j->m->names_sized)
        return ATUNE_OK;
    atune__config_at_values(j->m, &cfg, size);
    if (k->last && memcmp(k->last->cfg.sz, cfg.sz,
                          sizeof(cfg.sz[0]) * (size_t)cfg.nsz) == 0) {
        *out = k->last;
        return ATUNE_OK;
    }
    if (!(ks = find_kernel(j, &cfg, k->ctx))) {
        if (!(ks = atune__calloc(1, sizeof(*ks))))
            return atune__jit_fail(j, ATUNE_ENOMEM, "out of memory");
        ks->j = j;
        ks->cfg = cfg;
        ks->ctx = k->ctx;
        ks->attr = k->attr;
        if ((rc = compile_load(j, ks))) {
            kernel_free(j->cu, ks);
            return rc;
        }
        ks->next = j->kernels;
        j->kernels = ks;
    }
    k->last = ks;
    *out = ks;
    return ATUNE_OK;
}

/* For a template whose names read the size: the module of the size
 * launched last (NULL before the first launch). */
static const atune_jit_kernel *launched(const atune_jit_kernel *k)
{
    return k && k->j->m->names_sized ? k->last : k;
}

CUfunction atune_jit_kernel_function(const atune_jit_kernel *k)
{
    return launched(k) ? launched(k)->fn[0] : NULL;
}

CUmodule atune_jit_kernel_module(const atune_jit_kernel *k)
{
    return launched(k) ? launched(k)->mod : NULL;
}

int atune_jit_kernel_cached(const atune_jit_kernel *k)
{
    return launched(k) ? launched(k)->cached : 0;
}

int atune_jit_kernel_config(const atune_jit_kernel *k, char *buf, size_t len)
{
    if (!k || !buf || len == 0)
        return ATUNE_EINVAL;
    atune__config_str(k->j->m, &k->cfg, buf, len);
    return ATUNE_OK;
}
