/* firstuse_internal.h -- what the files of tuning at first use share:
 * firstuse.c (the lock, the race, patient's search, serving),
 * firstuse_cands.c (which configurations race), firstuse_write.c (the
 * user's profile it writes). Private to appjit/. */
#ifndef ATUNE_FIRSTUSE_INTERNAL_H
#define ATUNE_FIRSTUSE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "appjit/appjit_internal.h"
#include "measure/profile_write.h"
#include "measure/runner.h"

/* measure races the defaults, the configuration the profile would serve
 * and the nearest tuned entries of the kernel: a handful, so that a first
 * call stays under a second with a cold module cache. With 3 neighbours
 * and 8 candidates, copy on an H200 served from the H100's profile
 * reached 96.0-96.9% of the brute-force optimum at three of five untuned
 * sizes (2026-11-26, tests/gpu_firstuse.sh), its first calls 0.13-0.22 s
 * (0.2 s of compiles on 8 threads): so more of them. With 5 (2 from
 * the profiles of the search path) and 14, copy on an H200 still reached
 * 95.5-95.7% at its two largest sizes and constmem 95.8% at one (13:55),
 * first calls at most 0.94 s cold and 34 ms warm: 8 from every profile. */
#define NEIGHBOURS 8
#define MEASURE_CANDS 20 /* measure's race, at most */
#define MAX_CANDS 24     /* with patient's search winner */
/* Then the winner's one-step neighbours race it, at most POLISH of them
 * (firstuse.c, polish). */
#define POLISH 16
/* Those of them NVRTC must compile race only where the compiles of the
 * call, as a model predicts them, fit ATUNE_MEASURE_MS (default
 * POLISH_BUDGET_MS): the race's, as long as its largest module's, then
 * the neighbours', NEIGHBOUR_COST times the winner's (they are its larger
 * tiles and deeper pipelines). A module compiles in about
 * COMPILE_S_PER_KIB seconds a KiB of its CUBIN, 16 at once: matmul's
 * 128 x 128 kernels (72 KiB) took 1.1-1.4 s each in the race, their
 * neighbours 1.9-2.9 s, copy's (7 KiB) 0.26-0.31 s (H200, H100,
 * 2026-11-28). A model of the module, not the clock, so that a call with
 * a warm module cache decides as the cold call did and compiles nothing:
 * with the clock, matmul's warm calls compiled the neighbours the cold
 * ones had left out (2.0-2.6 s). */
#define POLISH_BUDGET_MS 2500
#define NEIGHBOUR_COST 2.0
#define COMPILE_S_PER_KIB 0.018
#define PATH_FILES 16   /* profiles of the search path read for candidates */

/* The race's candidates compiled at once, one thread per core at most,
 * while the device is opened and the reference runs (firstuse.c). The
 * neighbours of a matmul winner (up to POLISH, each a module of 0.5-1.5 s
 * with NVRTC's own cache cold) took two rounds on 8 threads: 1.4-2.9 s of
 * a first call of 2.9-4.7 s (H100, H200, 2026-11-27). */
#define COMPILE_THREADS 16

typedef struct cand {
    atune__config cfg;
    char from[160];
    atune__result res;
    int evaluated;
    /* compiled ahead, in parallel (precompile) */
    int compiled, crc, hit;
    size_t bytes; /* its CUBIN's, compiled or from the cache (0: none) */
    atune__cubin cubin;
    atune__err cerr;
} cand;

typedef struct fu_run {
    atune_jit *j;
    char arch[16];
    /* The size of the call, in the template's order: what every compile
     * is for when the template's names read the size. */
    int64_t size[ATUNE__MAX_SIZE_VARS];
    atomic_int next_compile;
    pthread_t th[COMPILE_THREADS];
    int nthreads;
    atune__device *d;
    atune__problem *prob;
    atune__timing t;
    cand c[MAX_CANDS + POLISH];
    int n, cap;
    int compiled, cached; /* compilations that ran NVRTC / hit the cache */
    int evaluated;
    int best;             /* index into c, or -1 */
    /* patient: the search's own candidates */
    atune__config search_best;
    atune__result search_res;
    int have_search_best;
    double t0;
    int left_out;        /* neighbours not compiled: POLISH_BUDGET_MS */
    double predicted_s;  /* the model's compiles with the neighbours' */
} fu_run;

/* firstuse_cands.c: adds cfg (once; not beyond r->cap, nor a value the
 * template lacks) with where it came from; its index in r->c, or -1. */
int atune__fu_add(fu_run *r, const atune__config *cfg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* firstuse_cands.c: the n entries of j's kernel in p nearest to v (log2
 * distance, as the profile look-up measures it). */
void atune__fu_neighbours(fu_run *r, atune_profile *p, const int64_t *v,
                          int n, const char *where);

/* firstuse_cands.c: the nearest entries of the other profiles of the
 * search path (not skip1, skip2). */
void atune__fu_search_path(fu_run *r, const char *skip1, const char *skip2,
                           const int64_t *v);

/* firstuse_cands.c: the one-step neighbours of the race's winner (or of
 * a near-equal whose neighbours are all in the module cache), those NVRTC
 * would compile only within ATUNE_MEASURE_MS. */
void atune__fu_add_neighbours(fu_run *r);

/* firstuse_cands.c: ATUNE_MEASURE_MS in seconds (POLISH_BUDGET_MS). */
double atune__fu_polish_budget_s(void);

/* firstuse_write.c: the user's profile directory; -1 without HOME. */
int atune__fu_user_dir(char *buf, size_t len);

/* firstuse_write.c: mkdir -p; -1 with why. */
int atune__fu_make_dirs(const char *path, char *why, size_t len);

/* firstuse_write.c: the configuration of key's exact section in the
 * profile at path, of this template (0), or -1; *seen what it was. */
int atune__fu_section(atune_jit *j, const char *path, const char *key,
                      atune__config *cfg, atune__pw_seen *seen);

/* firstuse_write.c: writes candidate r->c[i] as key's section into the
 * profile at path (a new file starting as base), only if the section is
 * still as seen (else *changed). */
int atune__fu_write(const fu_run *r, int i, const char *path, const char *base,
                    const char *key, const char *strategy, const char *what,
                    const atune__pw_seen *seen, int *changed, atune__err *err);

#endif
