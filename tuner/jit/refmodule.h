/* refmodule.h -- the reference's module: the reference kernel, the init
 * kernel and the verify kernels of a template, compiled once per size
 * from the reference's source (the .cu, or reference_source) with the
 * default configuration's macros and the size variables that
 * reference_macros names. */
#ifndef ATUNE_REFMODULE_H
#define ATUNE_REFMODULE_H

#include "jit/jit.h"
#include "template/manifest.h"

/* Where each kernel's symbol is in the module's cubin->sym[]. */
typedef struct atune__refmod_syms {
    int nref;                    /* the reference's kernels: sym[0..nref) */
    int init;                    /* -1: no init kernel */
    int verify[ATUNE__MAX_ARGS]; /* per argument; -1: none */
} atune__refmod_syms;

/* Whether m needs this module: it has a reference_source,
 * reference_macros, an init or a verify kernel. Without, the reference
 * compiles as a configuration of the .cu does (through the compile
 * processes and their time limit). */
int atune__refmod_needed(const atune__manifest *m);

/* Compiles the module for size (its variables named in reference_macros
 * become macros; NULL: none) for arch. The reference's symbols come
 * first, one per launch in launch order; syms says where the others are. NVRTC runs in this
 * process. */
int atune__refmod_compile(const atune__manifest *m, const atune__size *size,
                          const char *arch, atune__cubin *out,
                          atune__refmod_syms *syms, atune__err *err);

#endif
