/* cubin_params.h -- a kernel's parameters as its CUBIN records them. */
#ifndef ATUNE_JIT_CUBIN_PARAMS_H
#define ATUNE_JIT_CUBIN_PARAMS_H

#include <stddef.h>

#include "base/util.h"
#include "template/manifest.h"

/* The size in bytes of each parameter of kernel sym (its lowered name)
 * in the CUBIN data[0..len), in parameter order: the number of
 * parameters, at most max written; -1 where the CUBIN does not say (not
 * an ELF CUBIN, no such kernel, no parameter records). */
int atune__cubin_params(const char *data, size_t len, const char *sym,
                        unsigned *sizes, int max);

/* Entry i of m (atune__entry_abi_check) against what the CUBIN
 * data[0..len) records of its kernel sym: 0 where it records nothing. */
int atune__cubin_abi_check(const atune__manifest *m, int i, const char *data,
                           size_t len, const char *sym, atune__err *err);

#endif
