/* cubin_params.h -- a kernel's parameters as its CUBIN records them. */
#ifndef ATUNE_JIT_CUBIN_PARAMS_H
#define ATUNE_JIT_CUBIN_PARAMS_H

#include <stddef.h>

#include "base/util.h"
#include "jit/jit.h"
#include "template/manifest.h"

/* The size in bytes of each parameter of kernel sym (its lowered name)
 * in the CUBIN data[0..len), in parameter order: the number of
 * parameters, at most max written; -1 where the CUBIN does not say (not
 * an ELF CUBIN, no such kernel, no parameter records). */
int atune__cubin_params(const char *data, size_t len, const char *sym,
                        unsigned *sizes, int max);

/* The first n kernels of cb (at most its symbols) against the [args]
 * they are passed (atune__entry_abi_check): the steps' kernels in order
 * (ref 0), or the functions of the reference's module (ref 1,
 * atune__ref_entry). A kernel the CUBIN records nothing of passes. */
int atune__cubin_abi_check(const atune__manifest *m, const atune__cubin *cb,
                           int ref, int n, atune__err *err);

/* Each [constants] symbol of m against the variable of that name in the
 * CUBIN cb, compiled from file (for messages): its bytes at every size of
 * m (device attributes those of a generic device of architecture arch)
 * must be the variable's, as tune's copy into it will want (runner.c).
 * A CUBIN without a symbol table passes; one that lacks the variable
 * does not (tune's cuModuleGetGlobal would fail). */
int atune__cubin_constants_check(const atune__manifest *m,
                                 const atune__cubin *cb, const char *file,
                                 const char *arch, atune__err *err);

/* The threads a block of kernel sym may have as compiled: the product
 * of its __launch_bounds__ (PTX .maxntid) dimensions, 0
 * when it declares none, -1 where the CUBIN does not say. */
long long atune__cubin_max_threads(const char *data, size_t len,
                                   const char *sym);

/* Configuration c's launches of the first n kernels of cb at every size
 * of m where c is valid (size_only: that size alone), device attributes
 * those of a generic device of architecture arch, against each kernel's
 * __launch_bounds__: a block larger than the bound never launches
 * (CUDA_ERROR_INVALID_VALUE), so that is an error on the launch's block
 * line, found without a GPU. */
int atune__cubin_bounds_check(const atune__manifest *m,
                              const atune__cubin *cb,
                              const atune__config *c,
                              const atune__size *size_only, const char *arch,
                              int n, atune__err *err);

#endif
