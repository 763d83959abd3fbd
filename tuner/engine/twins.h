/* twins.h -- configurations that are one program: the same CUBIN (a
 * parameter passed as a macro that changes no code, or parameters that
 * reach no code) and the same values of every parameter [launch],
 * [constraints] or [args] reads. tune measures one of them and gives the
 * others its result, so identical modules are never timed twice. */
#ifndef ATUNE_TWINS_H
#define ATUNE_TWINS_H

#include <stdint.h>

#include "measure/runner.h"
#include "jit/jit.h"
#include "template/manifest.h"
#include "template/space.h"

typedef struct atune__twin {
    uint64_t key;
    atune__result res;
    char cfg[128]; /* the configuration measured */
} atune__twin;

/* The results of one (kernel, size) search; zero-initialized is empty. */
typedef struct atune__twins {
    atune__twin *twins;
    int ntwins, captwins;
    int64_t taken; /* results given to another configuration */
} atune__twins;

/* The key of configuration c compiled to cubin. */
uint64_t atune__twin_key(const atune__manifest *m, const atune__config *c,
                         const atune__cubin *cubin);

/* The result measured for key, or NULL. */
const atune__twin *atune__twin_find(const atune__twins *t, uint64_t key);

/* When key was measured: its result into res (the journal detail naming
 * the configuration measured, unless the result is unverified) and 1;
 * else 0. */
int atune__twin_take(atune__twins *t, uint64_t key, atune__result *res);

/* Remembers a verdict that depends only on the code and the launch (ok,
 * wrong_output; a launch error or fault may be the moment's); out of
 * memory only forgets it. */
void atune__twin_add(atune__twins *t, uint64_t key, const char *cfg,
                     const atune__result *res);

/* Frees t; returns how many results it gave (atune__twin_take). */
int64_t atune__twins_free(atune__twins *t);

#endif
