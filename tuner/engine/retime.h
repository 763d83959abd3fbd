/* retime.h -- configurations timed side by side: the evidence that
 * --evaluate and merge --device decide on (tune's final pick does the same
 * inside its search, tune.c). */
#ifndef ATUNE_RETIME_H
#define ATUNE_RETIME_H

#include "measure/runner.h"

/* Rounds of a side-by-side timing. */
#define ATUNE__RETIME_ROUNDS 5

/* Compiles (through cache, may be NULL) and loads the n configurations c
 * of m, opens the problem at size (input data from seed), then times them
 * interleaved over ATUNE__RETIME_ROUNDS rounds, each launch verified as
 * always: time_ns[i] is the median of configuration i's round medians,
 * INFINITY when it did not compile or any round was not ok; res[i] is its
 * last result (status and detail say why it failed; metric is at
 * time_ns[i]). Returns 0 or an error of the device (a sticky CUDA error). */
int atune__retime(atune__device *d, const atune__manifest *m,
                  const atune__size *size, const atune__config *c, int n,
                  const atune__timing *t, uint64_t seed, atune__cache *cache,
                  double *time_ns, atune__result *res, atune__err *err);

#endif
