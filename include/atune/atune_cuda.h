/* atune_cuda.h -- fill an atune_device from a CUdevice.
 *
 * Header-only, so that libatune itself never links CUDA: only applications
 * that include cuda.h and link libcuda use it. The driver must have been
 * initialised (cuInit) by the application.
 *
 *     CUdevice cu;
 *     atune_device dev;
 *     cuInit(0);
 *     cuDeviceGet(&cu, 0);
 *     if (atune_device_from_cu(&dev, cu) == ATUNE_OK)
 *         rc = atune_profile_open_for("profiles", &dev, &p);
 */
#ifndef ATUNE_ATUNE_CUDA_H
#define ATUNE_ATUNE_CUDA_H

#include <stdio.h>
#include <string.h>

#include <cuda.h>

#include "atune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills out with the name, compute capability (10 * major + minor), SM
 * count and UUID ("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as
 * nvidia-smi prints it) of dev. Returns ATUNE_OK, or ATUNE_EINVAL when out
 * is NULL or a driver call fails; then *out is zeroed. */
static inline int atune_device_from_cu(atune_device *out, CUdevice dev)
{
    CUuuid id;
    int major, minor, sms;
    const unsigned char *b;

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
    b = (const unsigned char *)id.bytes;
    snprintf(out->uuid, sizeof(out->uuid),
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
             b[11], b[12], b[13], b[14], b[15]);
    return ATUNE_OK;
}

#ifdef __cplusplus
}
#endif

#endif
