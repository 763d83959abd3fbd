/* atune_cuda.h -- fill an atune_device from a CUDA device: through the
 * driver API (a CUdevice) or the runtime API (a device ordinal).
 *
 * Header-only, so that libatune itself never links CUDA: the functions
 * are static inline, and only the one an application calls needs its
 * library. atune_device_from_cu() needs libcuda (-lcuda) and an
 * initialised driver (cuInit); atune_device_from_cudart() needs only the
 * CUDA runtime (cudart, static or shared), which loads the driver at run
 * time, so that the application still starts on a machine without one.
 *
 *     atune_device dev;
 *     if (atune_device_from_cudart(&dev, 0, NULL) == ATUNE_OK)
 *         rc = atune_profile_open_for(NULL, &dev, &p);
 */
#ifndef ATUNE_ATUNE_CUDA_H
#define ATUNE_ATUNE_CUDA_H

#include <stdio.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "atune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the 16 bytes of a CUDA UUID as nvidia-smi prints them:
 * "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
static inline void atune__uuid_string(char *buf, size_t len, const char *bytes)
{
    const unsigned char *b = (const unsigned char *)bytes;

    snprintf(buf, len,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
             b[11], b[12], b[13], b[14], b[15]);
}

/* Fills out with the name, compute capability (10 * major + minor), SM
 * count and UUID ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as
 * nvidia-smi prints it) of dev. Returns ATUNE_OK, or ATUNE_EINVAL when out
 * is NULL or a driver call fails; then *out is zeroed. */
static inline int atune_device_from_cu(atune_device *out, CUdevice dev)
{
    CUuuid id;
    int major, minor, sms;

    if (!out)
        return ATUNE_EINVAL;
    memset(out, 0, sizeof(*out));
    if (cuDeviceGetName(out->name, (int)sizeof(out->name), dev) !=
            CUDA_SUCCESS ||
        cuDeviceGetAttribute(&major,
                             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                             dev) != CUDA_SUCCESS ||
        cuDeviceGetAttribute(&minor,
                             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                             dev) != CUDA_SUCCESS ||
        cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                             dev) != CUDA_SUCCESS ||
        cuDeviceGetUuid(&id, dev) != CUDA_SUCCESS) {
        memset(out, 0, sizeof(*out));
        return ATUNE_EINVAL;
    }
    out->cc = 10 * major + minor;
    out->sm_count = sms;
    atune__uuid_string(out->uuid, sizeof(out->uuid), id.bytes);
    return ATUNE_OK;
}

/* atune_device_from_cu() through the CUDA runtime: the identity of device
 * ordinal dev (as cudaSetDevice takes it) from cudaGetDeviceProperties.
 * Creates no context and changes no current device. Returns ATUNE_OK, or
 * ATUNE_EINVAL when out is NULL or the runtime fails (no driver, no such
 * device); then *out is zeroed and *err, when err is not NULL, holds the
 * runtime's error (cudaErrorInsufficientDriver without a driver). */
static inline int atune_device_from_cudart(atune_device *out, int dev,
                                           cudaError_t *err)
{
    struct cudaDeviceProp prop;
    cudaError_t e;

    if (err)
        *err = cudaSuccess;
    if (!out)
        return ATUNE_EINVAL;
    memset(out, 0, sizeof(*out));
    e = cudaGetDeviceProperties(&prop, dev);
    if (err)
        *err = e;
    if (e != cudaSuccess)
        return ATUNE_EINVAL;
    snprintf(out->name, sizeof(out->name), "%s", prop.name);
    out->cc = 10 * prop.major + prop.minor;
    out->sm_count = prop.multiProcessorCount;
    atune__uuid_string(out->uuid, sizeof(out->uuid), prop.uuid.bytes);
    return ATUNE_OK;
}

#ifdef __cplusplus
}
#endif

#endif
