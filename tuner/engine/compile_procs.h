/* compile_procs.h -- NVRTC in forked child processes.
 *
 * NVRTC compilations do not scale with threads inside one process: on the
 * 16-core GPU host, 16 threads compiled the 315 copy configurations in
 * 6.9 s of wall time (17.7 s of CPU), one thread in 6.2 s, while four
 * processes compiled four such spaces at once in 6.5 s each (H100 host,
 * CUDA 13.0, 2026-11-22). So each thread of the compile pool hands its
 * compilations to a child process of its own.
 *
 * The children are forked before the process has a CUDA context or any
 * other thread, so they are plain copies that only ever call NVRTC and the
 * module cache. They share the parent's memory image: a request names the
 * manifest by its address, valid in the child because it was loaded before
 * the fork. A child killed for the compile time limit is replaced by a
 * fork made later, when the parent may have threads (and, in a tune
 * worker, a CUDA context): the new child still only calls NVRTC and the
 * cache, which the parent never holds locks of. */
#ifndef ATUNE_COMPILE_PROCS_H
#define ATUNE_COMPILE_PROCS_H

#include "jit/cache.h"
#include "jit/jit.h"
#include "template/templates.h"

typedef struct atune__procs atune__procs;

/* Forks n children (0: one per core) that may compile any template of t,
 * through cache (may be NULL), and one more: the owner's own (see
 * atune__procs_compile_own). Call it before creating a CUDA context or
 * a thread. t and cache must outlive the children. */
int atune__procs_start(const atune__templates *t, atune__cache *cache, int n,
                       atune__procs **out, atune__err *err);

int atune__procs_count(const atune__procs *ps);

/* The compile time limit, in seconds (0: none). atune__procs_start sets it
 * from ATUNE_COMPILE_TIMEOUT (whole seconds, 0 for none; default 120) and
 * fails with ATUNE__EUSAGE on a value that is not one. A compilation that
 * runs longer is killed with its child, which is replaced, and reported as
 * the configuration's compile error (ATUNE__EDATA). It is not cached: it
 * may compile on a less loaded machine. */
void atune__procs_set_time_limit(atune__procs *ps, int seconds);

/* atune__jit_compile_cached in child i (0 <= i < count); blocks, also
 * while another thread's compile in child i finishes (the threads take
 * turns). names must be m->kernel and/or m->reference. The children's
 * cache counters are added to cache's. */
int atune__procs_compile(atune__procs *ps, int i, const atune__manifest *m,
                         const atune__config *c, const char *arch,
                         const char *const *names, int nnames,
                         atune__cubin *out, int *hit, atune__err *err);

/* atune__procs_compile in the owner's own child, which the pool never
 * uses: for what the thread that started the children compiles outside the
 * pool (the reference, --evaluate's configurations), so that it is under
 * the same time limit. Only that one thread may call it. */
int atune__procs_compile_own(atune__procs *ps, const atune__manifest *m,
                             const atune__config *c, const char *arch,
                             const char *const *names, int nnames,
                             atune__cubin *out, int *hit, atune__err *err);

/* atune__procs_compile_own as a device's compiler (measure/runner.h):
 * ctx is the atune__procs. */
int atune__procs_compile_hook(void *ctx, const atune__manifest *m,
                              const atune__config *c, const char *arch,
                              const char *const *names, int nnames,
                              atune__cubin *out, atune__err *err);

/* Where the children keep NVRTC's precompiled headers for the templates
 * that gain from them (jit/pch.h): the root directory, each child in
 * ROOT/PID, or NULL when none is used. *off: why not, when a template
 * would have gained (the module cache off, or its pch directory not
 * private); else NULL. */
const char *atune__procs_pch(const atune__procs *ps, const char **off);

/* Kills every child at once, whatever it compiles: a compile in progress
 * is lost (its module never reaches the module cache), and a thread
 * waiting on it gets an error at once. For the end of a run, when nothing
 * compiled from then on would be used. Every compile fails afterwards;
 * atune__procs_stop still reaps the children. */
void atune__procs_abort(atune__procs *ps);

/* Ends the children and waits for them. */
void atune__procs_stop(atune__procs *ps);

#endif
