/* compile.h -- the compile pool: NVRTC compilations of a template's
 * configurations on worker threads, ahead of whoever consumes them, so the
 * GPU measures one configuration while the CPU compiles the next ones. */
#ifndef ATUNE_COMPILE_H
#define ATUNE_COMPILE_H

#include <stdint.h>

#include "jit/cache.h"
#include "engine/compile_procs.h"
#include "jit/jit.h"
#include "template/manifest.h"

typedef struct atune__pool atune__pool;

/* A follower's budget at least (atune__pool_follow); the longest list
 * that spends it at once and goes on in index order (longer lists spend
 * it at most FOLLOW_AHEAD compiles ahead of the configurations asked for;
 * compile.c's within_budget says why). tests/compile_model.c models the
 * same rules. */
#define ATUNE__POOL_FOLLOW_FLOOR 256
#define ATUNE__POOL_FOLLOW_WHOLE 2048
#define ATUNE__POOL_FOLLOW_AHEAD 8

/* Starts compiling configurations index[0..n) of m (in that order) for
 * arch on `threads` workers (0: one per core), at size when m's name
 * expressions read size variables (m->names_sized: a pool then serves
 * one size; size is ignored otherwise and may be NULL, the modules
 * serving every size). names are the entry points
 * every compile checks. cache, when non-NULL, is the on-disk module cache
 * consulted first (thread-safe). procs, when non-NULL, are child processes
 * (compile_procs.h) that do the compiling, one per worker thread, because
 * NVRTC does not scale with threads; threads is then their count. The
 * pool keeps every result until it is freed. */
int atune__pool_start(const atune__manifest *m, const atune__size *size,
                      const char *arch,
                      const char *const *names, int nnames,
                      const int64_t *index, int64_t n, int threads,
                      atune__cache *cache, atune__procs *procs,
                      atune__pool **out, atune__err *err);

/* Waits for the configuration with space index idx (one that was not
 * submitted is compiled on the spot). Returns 0 and sets *cubin (owned by the pool) when it
 * compiled, or 0 with *cubin NULL and *error (owned by the pool) holding
 * NVRTC's message when it did not; another code for failures that are not
 * the configuration's fault. */
int atune__pool_get(atune__pool *p, int64_t idx, const atune__cubin **cubin,
                    const char **error, atune__err *err);

/* Configurations (space indices) wanted soon, most likely first: the
 * workers take those still waiting before the index order (but after any
 * a consumer waits for). Replaces the previous call's list; at most 64
 * are kept. */
void atune__pool_prefetch(atune__pool *p, const int64_t *idx, int n);

/* From now on the workers compile what a consumer waits for, then the
 * first `window` configurations of the latest atune__pool_prefetch list
 * (0: as many as there are workers, at least 4; compile.c says why), then,
 * while that list is not empty, the rest in index order within a budget:
 * at most `floor` compiles started (0: 256), or twice the configurations
 * asked for (atune__pool_get) when that is more; floor < 0: no index
 * order at all. A search that visits a small part of a large space does
 * not pay for compiling the rest, and an empty prefetch list (the search
 * stopped) stops the background compiles. tune calls it for strategies
 * that say what they will propose next (atune__strategy_hints: the
 * default); brute force, which visits everything in order, and those that
 * do not say keep the index order. */
void atune__pool_follow(atune__pool *p, int window, int floor);

/* Configurations index[0..n) of a template m tuned after this pool's,
 * most likely first: workers with nothing else to do compile them into
 * the module cache (the modules themselves are dropped), so that m's
 * first size does not wait for NVRTC while the GPU measured this
 * template with the CPU idle. A quarter of the workers never take them,
 * free for what a consumer asks. Needs child processes and a module
 * cache (else does nothing); one configuration per module; lists are
 * taken in the order given. The list is copied. size: as for
 * atune__pool_start, the size m's first search will be at. */
int atune__pool_warm(atune__pool *p, const atune__manifest *m,
                     const atune__size *size, const int64_t *index, int64_t n,
                     atune__err *err);

/* Modules of later templates compiled by NVRTC (atune__pool_warm). */
int64_t atune__pool_warmed(atune__pool *p);

/* Modules compiled by NVRTC so far, and those the disk cache answered. */
void atune__pool_counts(atune__pool *p, int64_t *compiled, int64_t *cached);

/* Frees what atune__pool_get gave for idx, for a consumer that is done
 * with it (check, which goes through a space once and may meet millions
 * of configurations); idx must not be asked for again. */
void atune__pool_release(atune__pool *p, int64_t idx);

/* Configurations whose module was another's: the same macro values and
 * name expressions (they differ only in launch-only parameters), so the
 * pool compiled it once and copied it. */
int64_t atune__pool_shared(const atune__pool *p);

/* Seconds the workers spent compiling, summed over workers. */
double atune__pool_cpu_seconds(const atune__pool *p);

/* Tells the workers to stop without waiting for the compiles in progress
 * (each worker ends with its own; what a warm compile made is in the
 * module cache). Nothing of the pool may be used after it but
 * atune__pool_free. At each change of template the default run waited
 * 3.8-3.9 s of its 38 s for the compiles in progress (H200, 2026-11-27):
 * retired, the next template starts at once, and a worker of its pool
 * waits only where it asks a child still busy for the retired one. */
void atune__pool_retire(atune__pool *p);

/* Stops the workers (waiting for compiles in progress) and frees all. */
void atune__pool_free(atune__pool *p);

/* One worker per online core, at most 64. */
int atune__pool_default_threads(void);

#endif
