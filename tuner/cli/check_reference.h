/* check_reference.h -- the reference's module as `check` compiles it. */
#ifndef ATUNE_CHECK_REFERENCE_H
#define ATUNE_CHECK_REFERENCE_H

#include "base/util.h"
#include "engine/compile_procs.h"
#include "jit/cache.h"
#include "template/manifest.h"

/* The reference compiled as tune compiles it, so that its module cache
 * entry serves tune: its own module (reference_source, reference_macros,
 * init, verify) where it has one, else its kernels with the default
 * configuration's macros (measure/runner.c); per size where a name or a
 * macro reads the size, else once; its kernels' parameters checked
 * against the [args] they are passed. Only when own says which of the
 * two the template has (else 0): its own module is checked before the
 * configurations (a manifest error), the other after them (it compiles
 * the same file, whose errors the configurations' failures show first).
 * procs NULL: in this process, through cache. */
int atune__check_reference(const atune__manifest *m, const char *arch,
                           atune__cache *cache, atune__procs *procs, int own,
                           atune__err *err);

#endif
