/* runner_internal.h -- what the three files of the device runner share:
 * device.c (the GPU and its helper kernels), runner.c (the buffers and
 * reference result of a problem, loaded kernels) and measure.c
 * (verification and timing of one configuration). Private to engine/. */
#ifndef ATUNE_RUNNER_INTERNAL_H
#define ATUNE_RUNNER_INTERNAL_H

#include "measure/runner.h"
#include "jit/cudrv.h"

#define MAX_SAMPLES 200
#define CMP_BLOCK 256
#define POISON 0xA5 /* a byte no generator produces in every position */
/* Bytes after each buffer a kernel writes (compared or scratch) that no
 * kernel may write: filled with
 * GUARD_BYTE before each verifying launch and checked after it, so that a
 * kernel storing past its buffer's end (a vector store at a ragged size,
 * a grid rounded up) fails verification instead of passing, to corrupt
 * whatever follows that buffer in an application. 64 KiB: a block of 1024
 * threads storing 16 bytes each. */
#define GUARD_BYTES 65536
#define GUARD_BYTE 0xA7

/* Whether a buffer of role r has a guard behind it: what the kernel
 * writes, compared or not (a scratch buffer written past its end passes
 * verification when the kernel reads the same bytes back). */
static inline int atune__guarded(atune__role r)
{
    return atune__role_compared(r) || r == ATUNE__SCRATCH;
}

/* The helpers in devutil.cu, per element type, in atune__type order. */
#define NTYPES ATUNE__NBUFTYPES

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
    CUmodule util[NTYPES]; /* devutil.cu per element type, NULL until used */
    CUfunction fill[NTYPES], cmp[NTYPES];
    CUdeviceptr cmpres;
    CUdeviceptr flush;
    size_t flush_bytes;
    atune__devinfo info;
    atune__compile_fn compile; /* NULL: compile in this process */
    void *compile_ctx;
    atune__cache *cache; /* the reference's and helpers' (NULL: none) */
    int attached; /* the application's context: neither retained nor
                     released here */
};

/* Compiles and loads the fill and compare kernels of element type t
 * (atune__type) into d->fill and d->cmp, once (device.c). */
int atune__device_load_util(atune__device *d, int t, atune__err *err);

struct buffer {
    const atune__arg *arg;
    size_t count, bytes;
    CUdeviceptr ptr;    /* what the kernel gets */
    CUdeviceptr init;   /* inout: the initial contents */
    CUdeviceptr expect; /* compared roles: the reference's result */
    size_t cmp_first, cmp_count; /* the compared elements ("compare") */
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
    CUdeviceptr guard; /* GUARD_BYTES of GUARD_BYTE: what a guard holds */
    int64_t bytes; /* all buffers together */
    double ref_ns; /* the reference's launch to completion, host clock */
    /* The reference's module, kept loaded while it holds verify kernels
     * (refmodule.h); verify_fn[i] checks argument i, NULL: the built-in
     * compare. */
    CUmodule refmod;
    CUfunction verify_fn[ATUNE__MAX_ARGS];
};

struct atune__kernel {
    atune__device *d;
    CUmodule mod;
    /* Per step of the template (m->nsteps), in launch order. */
    CUfunction fn[ATUNE__MAX_STEPS];
    int max_threads[ATUNE__MAX_STEPS];
    int static_shared[ATUNE__MAX_STEPS];
    int regs; /* the most of any step's function */
};

/* One evaluation's launches: each step's launch and arguments. */
struct unit {
    int n;
    atune__launch l[ATUNE__MAX_STEPS];
    void *args[ATUNE__MAX_STEPS][ATUNE__MAX_ARGS + 1]; /* NULL-terminated */
};

/* Picks each step's arguments out of args (one per [args] entry). */
void atune__unit_args(const atune__manifest *m, void **args, struct unit *u);

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

/* Checks a driver call; on failure formats "what: CUDA_ERROR_X: text" and
 * returns ATUNE__ESOFTWARE (ATUNE__EUNAVAIL for out of memory). */
int atune__cucheck(CUresult rc, const char *what, atune__err *err);

#define CU(call, what)                                                         \
    do {                                                                       \
        int rc_ = atune__cucheck(d->cu->call, what, err);                             \
        if (rc_)                                                               \
            return rc_;                                                        \
    } while (0)

/* Brings every non-input buffer to its pre-launch state (runner.c). */
int atune__problem_prepare(atune__problem *p, int poison, atune__err *err);
/* Copies the problem's __constant__ data into mod's symbols (runner.c);
 * file is the source mod was compiled from, for messages. */
int atune__problem_set_constants(atune__problem *p, CUmodule mod,
                                 const char *file, atune__err *err);
/* The kernel arguments at variables vs, scalars stored in sc (runner.c). */
int atune__problem_make_args(atune__problem *p, const atune__vars *vs,
                             union scalar *sc, void **args, atune__err *err);
/* Whether the compare of buffer a (compared elements of it, r read back
 * from the compare kernel) passes at tolerance tol; else writes why into
 * detail (verdict.c). */
int atune__verdict(const atune__arg *a, size_t compared, double tol,
                   const struct cmp_result *r, char *detail, size_t len);
/* The reference's module loaded as mod, compiled with syms
 * (refmodule.h): finds its init kernel (*init, NULL: none) and verify
 * kernels, and keeps mod in p when it holds verify kernels (*kept; then p
 * unloads it) (refrun.c). */
struct atune__refmod_syms;
int atune__refrun_bind(atune__problem *p, CUmodule mod,
                       const atune__cubin *cubin,
                       const struct atune__refmod_syms *syms,
                       CUfunction *init, int *kept, atune__err *err);
/* After the init kernel: the saved contents of inout buffers and the
 * __constant__ copies of inputs are taken again (refrun.c). */
int atune__refrun_take_derived(atune__problem *p, atune__err *err);
/* Checks buffer b with its verify kernel: *ok when it counted no error
 * (refrun.c). */
int atune__refrun_verify(atune__problem *p, const struct buffer *b, int *ok,
                         atune__result *res, atune__err *err);
/* Tells the hang watchdog about launches about to be waited for (measure.c). */
void atune__timing_watch(const atune__timing *t, int launches);

#endif
