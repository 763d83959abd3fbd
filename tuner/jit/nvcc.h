/* nvcc.h -- the device side of a .cu that NVRTC cannot compile (host
 * code, host headers), through the toolkit's `nvcc -cubin` (nvcc.c). It
 * knows nothing of jit.c, which calls it. */
#ifndef ATUNE_NVCC_H
#define ATUNE_NVCC_H

#include <stddef.h>

#include "base/util.h"
#include "template/manifest.h"

/* The toolkit's nvcc into buf: $CUDA_HOME/bin, $CUDA_PATH/bin,
 * TOOLKIT_INC/../bin (toolkit_inc may be NULL), PATH, /usr/local/cuda/bin;
 * -1 when there is none. */
int atune__nvcc_find(const char *toolkit_inc, char *buf, size_t len);

/* Whether an NVRTC log says the file holds host code or host headers
 * (main, printf, cudaMalloc, <stdio.h>) that nvcc would compile. */
int atune__nvcc_host_code(const char *log);

/* What one nvcc compilation made; free with atune__nvcc_result_free. */
typedef struct atune__nvcc_result {
    char *data; /* the CUBIN */
    size_t len;
    char *log;     /* nvcc's output, NUL-terminated */
    char *sym[4];  /* the symbol of each name expression */
} atune__nvcc_result;

/* Compiles m's device side with `nvcc -cubin` and the NVRTC options opts
 * (architecture, -std, -D, -I), resolving the name expressions names (at
 * most 4, values substituted) to their symbols in the CUBIN. ATUNE__EDATA
 * with nvcc's log when it does not compile, or a name that matches no
 * kernel (or several) of the CUBIN. */
int atune__nvcc_compile(const atune__manifest *m, const char *toolkit_inc,
                        const char **opts, int nopts,
                        const char *const *names, int nnames, const char *what,
                        atune__nvcc_result *out, atune__err *err);

void atune__nvcc_result_free(atune__nvcc_result *r);

#endif
