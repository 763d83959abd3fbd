/* own_copy.h -- the application's own nvcc-compiled copy (own_copy.cu),
 * one instantiation per configuration of the template's value lists. */
#ifndef OWN_COPY_H
#define OWN_COPY_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "atune_copy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Launches the instantiation for c with the given launch on stream; 0,
 * or -1 with the reason in msg. Does not wait. */
int own_copy_launch(const atune_copy_config *c, const unsigned grid[3],
                    const unsigned block[3], size_t shared, cudaStream_t stream,
                    const void *in, void *out, long n, char *msg, size_t len);

#ifdef __cplusplus
}
#endif

#endif
