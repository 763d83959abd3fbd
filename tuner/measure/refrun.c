/* refrun.c -- the user's kernels of the reference's module on the device
 * (jit/refmodule.h): finding them, keeping what the init kernel (run by
 * runner.c, once per size) derived, and the verify kernels that check a
 * buffer in place of the built-in comparison. The contract of both is in
 * docs/manifest.md. */
#include <stdio.h>
#include <string.h>

#include "measure/runner_internal.h"
#include "jit/refmodule.h"

#define VERIFY_BLOCK 256

/* What the init kernel wrote into inputs is what every launch reads: the
 * saved contents of inout buffers and the __constant__ copies of inputs
 * are taken again. */
int atune__refrun_take_derived(atune__problem *p, atune__err *err)
{
    atune__device *d = p->d;

    for (int i = 0; i < p->m->nargs; i++) {
        const struct buffer *b = &p->buf[i];
        if (b->arg->role == ATUNE__INOUT)
            CU(cuMemcpyDtoDAsync(b->init, b->ptr, b->bytes, d->stream),
               "cuMemcpyDtoDAsync");
    }
    for (int c = 0; c < p->m->nconstants; c++) {
        const struct constant *k = &p->con[c];
        for (int i = 0; i < p->m->nargs; i++) {
            const struct buffer *b = &p->buf[i];
            if (b->arg->role == ATUNE__INPUT && b->bytes == k->bytes &&
                strcmp(b->arg->name, k->arg->name) == 0)
                CU(cuMemcpyDtoDAsync(k->data, b->ptr, k->bytes, d->stream),
                   "cuMemcpyDtoDAsync");
        }
    }
    return 0;
}

int atune__refrun_bind(atune__problem *p, CUmodule mod,
                       const atune__cubin *cubin,
                       const struct atune__refmod_syms *syms,
                       CUfunction *init, int *kept, atune__err *err)
{
    atune__device *d = p->d;
    const atune__manifest *m = p->m;
    CUfunction fns[ATUNE__JIT_MAX_NAMES] = {0};
    int any = 0, rc;

    *kept = 0;
    *init = NULL;
    for (int i = syms->nref; i < cubin->nsyms; i++) {
        const char *what = i == syms->init ? "init" : "verify";
        rc = atune__cucheck(d->cu->cuModuleGetFunction(&fns[i], mod,
                                                       cubin->sym[i]),
                            what, err);
        if (rc)
            return rc;
    }
    if (syms->init > 0)
        *init = fns[syms->init];
    for (int i = 0; i < m->nargs; i++) {
        p->verify_fn[i] = syms->verify[i] > 0 ? fns[syms->verify[i]] : NULL;
        any |= p->verify_fn[i] != NULL;
    }
    if (any) {
        p->refmod = mod;
        *kept = 1;
    }
    return 0;
}

/* NAME(const T *out, const T *ref, long n, unsigned long long *errors):
 * a thread per compared element in blocks of VERIFY_BLOCK; the counter
 * starts at 0. */
int atune__refrun_verify(atune__problem *p, const struct buffer *b, int *ok,
                         atune__result *res, atune__err *err)
{
    atune__device *d = p->d;
    size_t off = b->cmp_first * atune__arg_elem_size(b->arg);
    CUdeviceptr out = b->ptr + off, ref = b->expect + off, cnt = d->cmpres;
    long n = (long)b->cmp_count;
    unsigned long long errors = 0;
    void *args[] = {&out, &ref, &n, &cnt, NULL}; /* ended as a launch's */
    unsigned grid = (unsigned)((b->cmp_count + VERIFY_BLOCK - 1) /
                               VERIFY_BLOCK);
    CUresult crc;

    CU(cuMemcpyHtoD(cnt, &errors, sizeof(errors)), "cuMemcpyHtoD");
    crc = d->cu->cuLaunchKernel(p->verify_fn[b - p->buf], grid, 1, 1,
                                VERIFY_BLOCK, 1, 1, 0, d->stream, args, NULL);
    if (crc == CUDA_SUCCESS)
        crc = d->cu->cuStreamSynchronize(d->stream);
    if (crc != CUDA_SUCCESS) {
        /* The user's kernel failed: the context may be lost with it. */
        char buf[256];
        atune__cudrv_errstr(crc, buf, sizeof(buf));
        return atune__fail(err, atune__cudrv_sticky(crc) ? ATUNE__ERESTART
                                                          : ATUNE__ESOFTWARE,
                           "%s:%d: verify '%s' of '%s': %s", p->m->ini_path,
                           b->arg->line, b->arg->verify, b->arg->name, buf);
    }
    CU(cuMemcpyDtoH(&errors, cnt, sizeof(errors)), "cuMemcpyDtoH");
    *ok = errors == 0;
    if (!*ok)
        snprintf(res->detail, sizeof(res->detail),
                 "%s: verify kernel '%s' counted %llu errors in %zu elements",
                 b->arg->name, b->arg->verify, errors, b->cmp_count);
    return 0;
}
