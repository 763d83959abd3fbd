/* header_gen.h -- a C header with a template's metadata, for applications
 * that launch their own build of the kernel (`autotune header`). */
#ifndef ATUNE_HEADER_GEN_H
#define ATUNE_HEADER_GEN_H

#include <stdio.h>

#include "template/manifest.h"

/* Writes m's header to f: parameters and value lists, defaults, the
 * template hash, the tuned sizes, the constraints as a C predicate and
 * the [launch] expressions as a C function of a configuration, a size and
 * the device's limits. ATUNE__EDATA (file:line) for an expression that
 * names something the header cannot have, or for a launch sequence
 * (checked before f is used: it may be NULL then); ATUNE__EIO when
 * writing fails. */
int atune__header_write(FILE *f, const atune__manifest *m, atune__err *err);

#endif
