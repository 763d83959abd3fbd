/* cudrv.h -- the CUDA Driver API, loaded at run time.
 *
 * autotune must start (and run --help, list, check) on machines without a
 * CUDA driver, so it never links libcuda: cudrv dlopen()s libcuda.so.1 and
 * resolves every entry point through cuGetProcAddress.
 *
 * Each entry names the CUDA version whose ABI matches the prototype that
 * cuda.h gives the plain name: asking for "the version we were built
 * against" is wrong, because CUDA 13 added cuCtxGetDevice_v2(dev, ctx) and
 * cuCtxSynchronize_v2(ctx) without remapping the plain names, so
 * cuGetProcAddress(13000) hands back a function with one more argument
 * than the caller passes. cudrv.c checks every pair against cudaTypedefs.h
 * at compile time. */
#ifndef ATUNE_CUDRV_H
#define ATUNE_CUDRV_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include "base/util.h"

/* One X-macro list generates the table and its loader: X(name, version).
 * The member type is cuda.h's own prototype of name; version is the one
 * whose PFN_name_vVERSION typedef has that type. */
#define ATUNE__CUDRV_FUNCS(X)                                                  \
    X(cuInit, 2000)                                                            \
    X(cuDriverGetVersion, 2020)                                                \
    X(cuGetErrorName, 6000)                                                    \
    X(cuGetErrorString, 6000)                                                  \
    X(cuDeviceGetCount, 2000)                                                  \
    X(cuDeviceGet, 2000)                                                       \
    X(cuDeviceGetName, 2000)                                                   \
    X(cuDeviceGetAttribute, 2000)                                              \
    X(cuDeviceTotalMem, 3020)                                                  \
    X(cuDeviceGetUuid, 11040)                                                  \
    X(cuDevicePrimaryCtxRetain, 7000)                                          \
    X(cuDevicePrimaryCtxRelease, 11000)                                        \
    X(cuCtxSetCurrent, 4000)                                                   \
    X(cuCtxGetCurrent, 4000)                                                   \
    X(cuCtxGetDevice, 2000)                                                    \
    X(cuCtxSynchronize, 2000)                                                  \
    X(cuModuleLoadData, 2000)                                                  \
    X(cuModuleUnload, 2000)                                                    \
    X(cuModuleGetFunction, 2000)                                               \
    X(cuModuleGetGlobal, 3020)                                                 \
    X(cuFuncGetAttribute, 2020)                                                \
    X(cuFuncSetAttribute, 9000)                                                \
    X(cuOccupancyMaxPotentialBlockSize, 6050)                                  \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050)                       \
    X(cuLaunchKernel, 4000)                                                    \
    X(cuMemAlloc, 3020)                                                        \
    X(cuMemFree, 3020)                                                         \
    X(cuMemGetInfo, 3020)                                                      \
    X(cuMemcpyHtoD, 3020)                                                      \
    X(cuMemcpyDtoH, 3020)                                                      \
    X(cuMemcpyDtoD, 3020)                                                      \
    X(cuMemcpyDtoDAsync, 3020)                                                 \
    X(cuMemsetD8Async, 3020)                                                   \
    X(cuMemsetD32Async, 3020)                                                  \
    X(cuStreamCreate, 2000)                                                    \
    X(cuStreamDestroy, 4000)                                                   \
    X(cuStreamSynchronize, 2000)                                               \
    X(cuEventCreate, 2000)                                                     \
    X(cuEventDestroy, 4000)                                                    \
    X(cuEventRecord, 2000)                                                     \
    X(cuEventSynchronize, 2000)                                                \
    X(cuEventElapsedTime, 12080)

typedef struct atune__cudrv {
#define ATUNE__CUDRV_MEMBER(name, version) __typeof__(&name) name;
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
