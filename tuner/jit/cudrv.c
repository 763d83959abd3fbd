/* cudrv.c -- the CUDA Driver API, loaded at run time (see cudrv.h). */
#include "jit/cudrv.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static atune__cudrv drv;
static atune__err load_err;
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

typedef CUresult (*getproc_fn)(const char *, void **, int, cuuint64_t,
                               CUdriverProcAddressQueryResult *);

/* A table entry whose version does not give cuda.h's prototype fails
 * to compile here, instead of crashing at run time. */
#define ATUNE__CUDRV_ABI(name, version)                                        \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name),             \
                                                PFN_##name##_v##version),      \
                   #name " is not the ABI of version " #version);
ATUNE__CUDRV_FUNCS(ATUNE__CUDRV_ABI)
#undef ATUNE__CUDRV_ABI

static int resolve(getproc_fn getproc, const char *name, int version, void **fn)
{
    CUdriverProcAddressQueryResult found;
    CUresult rc =
        getproc(name, fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found);

    if (rc != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !*fn)
        return atune__fail(&load_err, ATUNE__EUNAVAIL,
                           "CUDA driver too old: no '%s' of CUDA %d.%d", name,
                           version / 1000, version % 1000 / 10);
    return 0;
}

static void load(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    getproc_fn getproc;
    void *sym;
    char buf[256];
    CUresult rc;

    if (!lib) {
        const char *why = dlerror();
        atune__fail(&load_err, ATUNE__EUNAVAIL, "no CUDA driver (%s)",
                    why ? why : "libcuda.so.1 not found");
        return;
    }
    /* cuGetProcAddress_v2 (CUDA 12.0+) reports whether the symbol exists
     * for the requested version; older drivers cannot run CUDA 13 code. */
    sym = dlsym(lib, "cuGetProcAddress_v2");
    if (!sym) {
        atune__fail(&load_err, ATUNE__EUNAVAIL,
                    "CUDA driver too old: no cuGetProcAddress_v2");
        return;
    }
    memcpy(&getproc, &sym, sizeof(getproc));
#define ATUNE__CUDRV_RESOLVE(name, version)                                    \
    if (resolve(getproc, #name, version, (void **)&drv.name))                  \
        return;
    ATUNE__CUDRV_FUNCS(ATUNE__CUDRV_RESOLVE)
#undef ATUNE__CUDRV_RESOLVE
    rc = drv.cuInit(0);
    if (rc != CUDA_SUCCESS) {
        const char *what = rc == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable GPU"
                                                      : "CUDA unusable";
        atune__fail(&load_err, ATUNE__EUNAVAIL, "%s (cuInit: %s)", what,
                    atune__cudrv_errstr(rc, buf, sizeof(buf)));
        return;
    }
    loaded = 1;
}

const atune__cudrv *atune__cudrv_load(atune__err *err)
{
    pthread_once(&load_once, load);
    if (!loaded) {
        if (err)
            *err = load_err;
        return NULL;
    }
    return &drv;
}

const char *atune__cudrv_errstr(CUresult rc, char *buf, size_t len)
{
    const char *name = NULL, *text = NULL;

    if (loaded) {
        drv.cuGetErrorName(rc, &name);
        drv.cuGetErrorString(rc, &text);
    }
    if (name && text)
        snprintf(buf, len, "%s: %s", name, text);
    else
        snprintf(buf, len, "CUDA error %d", (int)rc);
    return buf;
}

int atune__cudrv_sticky(CUresult rc)
{
    switch (rc) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_TOO_MANY_PEERS:
    case CUDA_ERROR_ILLEGAL_STATE:
    case CUDA_ERROR_UNKNOWN:
        return 1;
    default:
        return 0;
    }
}
