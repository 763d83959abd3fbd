/* cudrv.h -- the CUDA Driver API, loaded at run time.
 *
 * autotune must start (and run --help, list, check) on machines without a
 * CUDA driver, so it never links libcuda: cudrv dlopen()s libcuda.so.1 and
 * resolves every entry point through cuGetProcAddress for the CUDA version
 * the tuner was built against, which returns the ABI that cuda.h's macros
 * name (cuMemAlloc -> cuMemAlloc_v2 and so on). */
#ifndef ATUNE_CUDRV_H
#define ATUNE_CUDRV_H

#include <cuda.h>

#include "util.h"

/* One X-macro list generates the table and its loader. The member type is
 * taken from cuda.h's own prototype, so a signature can never drift. */
#define ATUNE__CUDRV_FUNCS(X)                                                  \
    X(cuInit)                                                                  \
    X(cuDriverGetVersion)                                                      \
    X(cuGetErrorName)                                                          \
    X(cuGetErrorString)                                                        \
    X(cuDeviceGetCount)                                                        \
    X(cuDeviceGet)                                                             \
    X(cuDeviceGetName)                                                         \
    X(cuDeviceGetAttribute)                                                    \
    X(cuDeviceTotalMem)                                                        \
    X(cuDeviceGetUuid)                                                         \
    X(cuDevicePrimaryCtxRetain)                                                \
    X(cuDevicePrimaryCtxRelease)                                               \
    X(cuCtxSetCurrent)                                                         \
    X(cuCtxGetCurrent)                                                         \
    X(cuCtxGetDevice)                                                          \
    X(cuCtxSynchronize)                                                        \
    X(cuModuleLoadData)                                                        \
    X(cuModuleUnload)                                                          \
    X(cuModuleGetFunction)                                                     \
    X(cuModuleGetGlobal)                                                       \
    X(cuFuncGetAttribute)                                                      \
    X(cuFuncSetAttribute)                                                      \
    X(cuOccupancyMaxPotentialBlockSize)                                        \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                             \
    X(cuLaunchKernel)                                                          \
    X(cuMemAlloc)                                                              \
    X(cuMemFree)                                                               \
    X(cuMemGetInfo)                                                            \
    X(cuMemcpyHtoD)                                                            \
    X(cuMemcpyDtoH)                                                            \
    X(cuMemcpyDtoD)                                                            \
    X(cuMemcpyDtoDAsync)                                                       \
    X(cuMemsetD8Async)                                                         \
    X(cuMemsetD32Async)                                                        \
    X(cuStreamCreate)                                                          \
    X(cuStreamDestroy)                                                         \
    X(cuStreamSynchronize)                                                     \
    X(cuEventCreate)                                                           \
    X(cuEventDestroy)                                                          \
    X(cuEventRecord)                                                           \
    X(cuEventSynchronize)                                                      \
    X(cuEventElapsedTime)

typedef struct atune__cudrv {
#define ATUNE__CUDRV_MEMBER(name) __typeof__(&name) name;
    ATUNE__CUDRV_FUNCS(ATUNE__CUDRV_MEMBER)
#undef ATUNE__CUDRV_MEMBER
} atune__cudrv;

/* Loads libcuda.so.1 once (thread-safe) and calls cuInit(0). Returns the
 * table, or NULL with ATUNE__EUNAVAIL and a one-line cause in err:
 * "no CUDA driver (libcuda.so.1: cannot open shared object file)",
 * "no CUDA-capable GPU (cuInit: CUDA_ERROR_NO_DEVICE)". */
const atune__cudrv *atune__cudrv_load(atune__err *err);

/* "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" */
const char *atune__cudrv_errstr(CUresult rc, char *buf, size_t len);

/* True for errors after which the context is unusable (sticky): illegal
 * address, misaligned address, illegal instruction, launch failure, ...
 * The only way on is to end the process. */
int atune__cudrv_sticky(CUresult rc);

#endif
