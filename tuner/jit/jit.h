/* jit.h -- NVRTC: one configuration of a template to CUBIN.
 *
 * NVRTC needs no GPU and no driver, so `autotune check` compiles every
 * configuration on a machine without either. */
#ifndef ATUNE_JIT_H
#define ATUNE_JIT_H

#include <stddef.h>

#include "template/manifest.h"
#include "template/space.h"
#include "base/util.h"

typedef struct atune__cubin {
    char *data;
    size_t len;
    char *log; /* NVRTC's log (warnings), NUL-terminated; may be "" */
} atune__cubin;

/* NVRTC's options for one configuration: the architecture, the language
 * standard, then -DNAME=VALUE per parameter in manifest order. The compile
 * and the module cache's key both come from here, so they cannot drift. */
typedef struct atune__jit_opts {
    char arch[64];
    char defs[ATUNE__MAX_PARAMS][ATUNE__NAME_MAX + 32];
    const char *v[ATUNE__MAX_PARAMS + 2];
    int n;
} atune__jit_opts;

/* Fills o for configuration c of m (the default when c is NULL). */
void atune__jit_options(const atune__manifest *m, const atune__config *c,
                        const char *arch, atune__jit_opts *o);

/* Compiles m's source with -DNAME=VALUE for every parameter of c (or the
 * default configuration when c is NULL) for arch ("sm_90"), and checks
 * through name expressions that every name in names[] (the kernel and the
 * reference) exists. A compile error is ATUNE__EDATA with
 * "copy.cu: configuration BLOCK_SIZE=..: compile error:\n<NVRTC log>". */
int atune__jit_compile(const atune__manifest *m, const atune__config *c,
                       const char *arch, const char *const *names,
                       int nnames, atune__cubin *out, atune__err *err);

/* Compiles plain source (no parameters): the tuner's own device helpers. */
int atune__jit_compile_source(const char *source, const char *path,
                              const char *arch, atune__cubin *out,
                              atune__err *err);

void atune__cubin_free(atune__cubin *c);

/* NVRTC's version as 1000 * major + 10 * minor (13000). */
int atune__jit_version(void);

/* The architectures this NVRTC can target, e.g. "sm_75 ... sm_121". */
int atune__jit_arch_supported(const char *arch);

#endif
