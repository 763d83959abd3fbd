/* runner.c -- the device runner's problems: the buffers of one template
 * at one size, filled and sized from the manifest, the reference result
 * kept for comparison, and the loaded kernels of configurations (see
 * runner.h; device.c opens the GPU, measure.c evaluates). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/runner_internal.h"
#include "jit/cubin_params.h"
#include "jit/refmodule.h"

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

/* --- buffers ------------------------------------------------------------ */

/* Fills n elements of a's type at p as a's fill says (manifest.h), at
 * the problem's size. */
static int fill(atune__problem *p, const atune__arg *a, CUdeviceptr ptr,
                size_t n, uint64_t seed, atune__err *err)
{
    atune__device *d = p->d;
    const atune__fill *f = &a->fill;
    long count = (long)(n * atune__arg_lanes(a)); /* components */
    unsigned long long s = seed;
    int mode = (int)f->kind;
    long long ilo = 0, ihi = 0;
    double rlo = f->rlo, rhi = f->rhi;
    void *args[] = {&ptr, &count, &s, &mode, &ilo, &ihi, &rlo, &rhi};
    unsigned grid = (unsigned)(d->info.attr.sm_count * 8);
    int64_t lo, hi;
    int rc = atune__fill_values(p->m, a, &p->vars, &lo, &hi, err);

    if (!rc)
        rc = atune__device_load_util(d, a->type, err);
    if (rc)
        return rc;
    if (f->kind == ATUNE__FILL_FILE) {
        void *data;
        if ((rc = atune__data_load(p->m, a, (size_t)count, &data, err)))
            return rc;
        rc = atune__cucheck(d->cu->cuMemcpyHtoD(ptr, data,
                                                n * atune__arg_elem_size(a)),
                            "cuMemcpyHtoD", err);
        free(data);
        return rc;
    }
    ilo = lo;
    ihi = hi;
    if (f->kind == ATUNE__FILL_BITS)
        ilo = (long long)(f->bits >= 64 ? ~0ULL : (1ULL << f->bits) - 1);
    if (f->kind == ATUNE__FILL_CONST && !f->has_real)
        rlo = (double)lo;
    CU(cuLaunchKernel(d->fill[a->type], grid, 1, 1, 256, 1, 1, 0, d->stream,
                      args, NULL),
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
    size_t sz = atune__arg_elem_size(a);
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
        if (!rc && atune__role_compared(b->arg->role)) {
            int64_t first, n;
            rc = atune__buffer_slice(m, b->arg, &p->vars, (int64_t)b->count,
                                     &first, &n, err);
            b->cmp_first = (size_t)first;
            b->cmp_count = (size_t)n;
        }
        if (rc)
            return rc;
        /* working copy, + initial copy (inout), + reference result */
        need += (double)b->bytes *
                (1 + (b->arg->role == ATUNE__INOUT) +
                 atune__role_compared(b->arg->role));
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
    /* the guards behind buffers, and the pattern they hold */
    for (int i = 0; i < m->nargs; i++)
        if (atune__guarded(m->args[i].role))
            need += 2.0 * GUARD_BYTES;
    /* An attached device allocates its L2 flush buffer at the first
     * problem that flushes: counted here, before anything is allocated. */
    if (!d->flush && p->bytes < 4 * d->info.attr.l2_bytes)
        need += (double)d->flush_bytes;
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
        if ((rc = alloc(d, &b->ptr,
                        b->bytes +
                            (atune__guarded(b->arg->role) ? GUARD_BYTES : 0),
                        err)))
            return rc;
        if (atune__guarded(b->arg->role) && !p->guard) {
            if ((rc = alloc(d, &p->guard, GUARD_BYTES, err)))
                return rc;
            CU(cuMemsetD8Async(p->guard, GUARD_BYTE, GUARD_BYTES, d->stream),
               "cuMemsetD8Async");
        }
        /* fill() loads the helpers of the buffers it fills; the guard's
         * compare is the buffer's element type's */
        if (atune__guarded(b->arg->role) &&
            (rc = atune__device_load_util(d, b->arg->type, err)))
            return rc;
        if (atune__role_compared(b->arg->role) &&
            (rc = alloc(d, &b->expect, b->bytes, err)))
            return rc;
        if (b->arg->role == ATUNE__INPUT || b->arg->role == ATUNE__INOUT) {
            if ((rc = fill(p, b->arg, b->ptr, b->count, seed, err)))
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
        else if ((rc = fill(p, c->arg, c->data,
                            c->bytes / atune__arg_elem_size(c->arg), seed,
                            err)))
            return rc;
    }
    CU(cuStreamSynchronize(d->stream), "filling inputs");
    return 0;
}

/* Brings every non-input buffer to its pre-launch state. poison: fill
 * outputs with a pattern, so that elements the kernel skips are caught,
 * and scratch buffers, so that a kernel that reads scratch it did not
 * write shows it in its outputs; and the guards behind them with
 * theirs. */
int atune__problem_prepare(atune__problem *p, int poison, atune__err *err)
{
    atune__device *d = p->d;

    for (int i = 0; i < p->m->nargs; i++) {
        struct buffer *b = &p->buf[i];
        if (poison && atune__guarded(b->arg->role))
            CU(cuMemsetD8Async(b->ptr + b->bytes, GUARD_BYTE, GUARD_BYTES,
                               d->stream),
               "cuMemsetD8Async");
        switch (b->arg->role) {
        case ATUNE__OUTPUT:
        case ATUNE__SCRATCH:
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

int atune__problem_set_constants(atune__problem *p, CUmodule mod,
                                 const char *file, atune__err *err)
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
                               bytes, file, c->bytes);
        CU(cuMemcpyDtoDAsync(sym, c->data, c->bytes, d->stream),
           "cuMemcpyDtoDAsync");
    }
    return 0;
}


int atune__problem_make_args(atune__problem *p, const atune__vars *vs,
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
        if (a->raw) { /* a struct by value: the driver copies its bytes */
            args[i] = a->raw;
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
        default: /* half, bf16, vectors: refused as scalars by the loader */
            return atune__fail(err, ATUNE__ESOFTWARE, "%s: scalar '%s' of "
                               "type %s", p->m->ini_path, a->name,
                               atune__type_name(a->type));
        }
        args[i] = &sc[i];
    }
    return 0;
}

/* --- reference ---------------------------------------------------------- */

/* The init kernel: once per size, after the fills, with the kernel's
 * arguments at vs (the default configuration's), launched as init_block
 * and init_grid say. */
static int run_init(atune__problem *p, CUfunction fn, const atune__vars *vs,
                    atune__err *err)
{
    atune__device *d = p->d;
    const atune__manifest *m = p->m;
    union scalar sc[ATUNE__MAX_ARGS];
    void *args[ATUNE__MAX_ARGS + 1];
    int64_t block[3], grid[3];
    int rc;

    if ((rc = atune__dim3_eval(m, &m->init_block, vs, block, err)) ||
        (rc = atune__dim3_eval(m, &m->init_grid, vs, grid, err)) ||
        (rc = atune__problem_make_args(p, vs, sc, args, err)))
        return rc;
    /* Ended as every launch's list is (the stub driver's log reads up to
     * the NULL). */
    args[m->nargs] = NULL;
    /* Outputs and scratch are poisoned, as before a candidate's launch:
     * an init kernel that reads them shows it in the reference's result. */
    if ((rc = atune__problem_prepare(p, 1, err)))
        return rc;
    CU(cuLaunchKernel(fn, (unsigned)grid[0], (unsigned)grid[1],
                      (unsigned)grid[2], (unsigned)block[0],
                      (unsigned)block[1], (unsigned)block[2], 0, d->stream,
                      args, NULL),
       "launching the init kernel");
    CU(cuStreamSynchronize(d->stream), "running the init kernel");
    if ((rc = atune__refrun_take_derived(p, err)))
        return rc;
    CU(cuStreamSynchronize(d->stream), "keeping the init kernel's inputs");
    return 0;
}

void atune__unit_args(const atune__manifest *m, void **args, struct unit *u)
{
    u->n = m->nsteps;
    for (int i = 0; i < m->nsteps; i++) {
        for (int k = 0; k < m->steps[i].nargs; k++)
            u->args[i][k] = args[m->steps[i].arg[k]];
        /* The driver reads as many as the kernel takes; the stub driver's
         * launch log reads up to the NULL. */
        u->args[i][m->steps[i].nargs] = NULL;
    }
}

/* The reference's launches: its own kernel with reference_block and
 * reference_grid and every argument; each [reference.NAME] section with
 * its own arguments; or, for a launch sequence that is its own
 * reference, every step at the default configuration. */
static int reference_unit(atune__problem *p, const atune__config *dflt,
                          const atune__vars *vs, void **args, struct unit *u,
                          atune__err *err)
{
    const atune__manifest *m = p->m;
    char why[256];
    int rc;

    if (m->sequence && m->ref_is_default) {
        rc = atune__space_launches(m, dflt, &p->vars, &p->d->info.attr, u->l,
                                   why, sizeof(why), err);
        if (rc == 0)
            return atune__fail(err, ATUNE__EDATA,
                               "%s:%d: the default configuration is not "
                               "valid: %s",
                               m->ini_path, m->steps[0].line, why);
        if (rc != 1)
            return rc;
        atune__unit_args(m, args, u);
        return 0;
    }
    if (m->nref_steps) {
        if ((rc = atune__ref_steps_fit(m, vs, &p->d->info.attr, u->l, err)))
            return rc;
        u->n = m->nref_steps;
        for (int i = 0; i < m->nref_steps; i++) {
            for (int k = 0; k < m->ref_steps[i].nargs; k++)
                u->args[i][k] = args[m->ref_steps[i].arg[k]];
            u->args[i][m->ref_steps[i].nargs] = NULL;
        }
        return 0;
    }
    u->n = 1;
    u->l[0].shared = 0;
    for (int i = 0; i < m->nargs; i++)
        u->args[0][i] = args[i];
    u->args[0][m->nargs] = NULL;
    if ((rc = atune__dim3_eval(m, &m->ref_block, vs, u->l[0].block, err)) ||
        (rc = atune__dim3_eval(m, &m->ref_grid, vs, u->l[0].grid, err)))
        return rc;
    if (m->ref_is_default)
        rc = atune__manifest_eval(m, m->shared, m->shared_line, vs,
                                  &u->l[0].shared, err);
    else if (m->ref_shared)
        rc = atune__manifest_eval(m, m->ref_shared, m->ref_shared_line, vs,
                                  &u->l[0].shared, err);
    return rc;
}

static int run_reference(atune__problem *p, atune__err *err)
{
    atune__device *d = p->d;
    const atune__manifest *m = p->m;
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames;
    atune__cubin cubin = {0};
    CUmodule mod = NULL;
    CUfunction fn[ATUNE__MAX_STEPS];
    atune__vars vs = p->vars;
    atune__config dflt;
    atune__refmod_syms syms;
    union scalar sc[ATUNE__MAX_ARGS];
    void *args[ATUNE__MAX_ARGS];
    struct unit u = {0};
    double t0 = 0;
    CUfunction init = NULL;
    int rc, own = atune__refmod_needed(m), kept = 0;

    /* The reference is compiled with the default configuration's macros,
     * so a .cu that uses them at file scope still compiles; a kernel that
     * is its own reference (ref_is_default) also gets that
     * configuration's shared memory, and its launch when ref_block and
     * ref_grid are [launch]'s (they read the parameters in vs). */
    nnames = atune__manifest_ref_names(m, names);
    atune__space_config(m, 0, &dflt);
    atune__config_at_size(m, &dflt, p->size); /* a name that reads it */
    rc = atune__config_vars(m, &dflt, &vs);
    if (!rc)
        rc = atune__problem_make_args(p, &vs, sc, args, err);
    if (!rc)
        rc = reference_unit(p, &dflt, &vs, args, &u, err);
    /* The reference's own module holds the same kernels first, in the
     * same order (refmodule.c), then the init and verify kernels. */
    if (!rc && own)
        rc = atune__refmod_compile(m, p->size, d->info.arch, &cubin, &syms,
                                   err);
    else if (!rc)
        rc = atune__device_compile(d, d->cache, m, &dflt, names, nnames,
                                   &cubin, err);
    if (!rc)
        rc = atune__cubin_abi_check(m, &cubin, 1, u.n, err);
    if (!rc)
        rc = atune__cucheck(d->cu->cuModuleLoadData(&mod, cubin.data),
                     "loading the reference", err);
    for (int i = 0; !rc && i < u.n; i++) {
        rc = atune__cucheck(d->cu->cuModuleGetFunction(&fn[i], mod,
                                                       cubin.sym[i]),
                            names[i], err);
        /* Above 48 KB of dynamic shared memory a kernel must opt in. */
        if (!rc && u.l[i].shared > 48 * 1024)
            rc = atune__cucheck(
                d->cu->cuFuncSetAttribute(
                    fn[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    (int)u.l[i].shared),
                "cuFuncSetAttribute", err);
    }
    if (!rc && own)
        rc = atune__refrun_bind(p, mod, &cubin, &syms, &init, &kept, err);
    /* Before the reference: it and every candidate read what init made. */
    if (!rc && init && (rc = run_init(p, init, &vs, err)))
        atune__err_prefix(err, "init '%s': ", m->init);
    if (!rc)
        rc = atune__problem_set_constants(
            p, mod, own && m->ref_path ? m->ref_path : m->cu_path, err);
    if (!rc)
        rc = atune__problem_prepare(p, 1, err);
    if (!rc)
        rc = atune__cucheck(d->cu->cuStreamSynchronize(d->stream), "preparing", err);
    t0 = atune__now();
    for (int i = 0; !rc && i < u.n; i++) {
        const atune__launch *l = &u.l[i];
        rc = atune__cucheck(
            d->cu->cuLaunchKernel(fn[i], (unsigned)l->grid[0],
                                  (unsigned)l->grid[1], (unsigned)l->grid[2],
                                  (unsigned)l->block[0], (unsigned)l->block[1],
                                  (unsigned)l->block[2], (unsigned)l->shared,
                                  d->stream, u.args[i], NULL),
            "launching the reference", err);
    }
    if (!rc)
        rc = atune__cucheck(d->cu->cuStreamSynchronize(d->stream),
                     "running the reference", err);
    p->ref_ns = (atune__now() - t0) * 1e9;
    for (int i = 0; !rc && i < m->nargs; i++) {
        struct buffer *b = &p->buf[i];
        if (atune__role_compared(b->arg->role))
            rc = atune__cucheck(d->cu->cuMemcpyDtoD(b->expect, b->ptr, b->bytes),
                         "cuMemcpyDtoD", err);
    }
    if (mod && !kept)
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
        rc = atune__cucheck(d->cu->cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", err);
    if (!rc)
        rc = plan_memory(p, err);
    if (!rc && !d->flush && p->bytes < 4 * d->info.attr.l2_bytes)
        rc = alloc(d, &d->flush, d->flush_bytes, err);
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
    if (p->guard)
        cu->cuMemFree(p->guard);
    if (p->refmod)
        cu->cuModuleUnload(p->refmod);
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
    int abi;

    *out = NULL;
    /* A manifest whose [args] do not fit the kernel: not this
     * configuration's fault, the run's end. */
    if ((abi = atune__cubin_abi_check(m, cubin, 0, m->nsteps, err))) {
        free(k);
        return abi;
    }
    if (!k)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    k->d = d;
    rc = d->cu->cuModuleLoadData(&k->mod, cubin->data);
    if (rc == CUDA_SUCCESS && cubin->nsyms < m->nsteps)
        rc = CUDA_ERROR_NOT_FOUND;
    /* sym[i] is step i's function (atune__manifest_entries' order). */
    for (int i = 0; rc == CUDA_SUCCESS && i < m->nsteps; i++) {
        int regs = 0;
        rc = d->cu->cuModuleGetFunction(&k->fn[i], k->mod, cubin->sym[i]);
        if (rc == CUDA_SUCCESS)
            rc = d->cu->cuFuncGetAttribute(
                &k->max_threads[i], CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                k->fn[i]);
        if (rc == CUDA_SUCCESS)
            rc = d->cu->cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS,
                                           k->fn[i]);
        if (rc == CUDA_SUCCESS)
            rc = d->cu->cuFuncGetAttribute(&k->static_shared[i],
                                           CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                           k->fn[i]);
        k->regs = regs > k->regs ? regs : k->regs;
    }
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

    CU(cuOccupancyMaxPotentialBlockSize(min_grid, block, k->fn[0], NULL,
                                        (size_t)dyn_shared, 0),
       "cuOccupancyMaxPotentialBlockSize");
    return 0;
}
