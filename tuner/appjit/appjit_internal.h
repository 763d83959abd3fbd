/* appjit_internal.h -- what the files of the application JIT helper
 * (appjit.c: handles, build; appjit_launch.c: shapes and launches;
 * appjit_lookup.c: look-ups that are safe to launch) share. */
#ifndef ATUNE_APPJIT_INTERNAL_H
#define ATUNE_APPJIT_INTERNAL_H

#include <atune/atune_jit.h>

#include "jit/cache.h"
#include "jit/cudrv.h"
#include "jit/record.h"
#include "template/space.h"

#define ATUNE__LAUNCH_CACHE 8 /* launch shapes kept per kernel, by size */

/* One size's launches (one per step of the template), computed and
 * checked once. */
typedef struct atune__jit_shape {
    int used;
    int64_t size[ATUNE__MAX_SIZE_VARS];
    atune__launch l[ATUNE__MAX_STEPS];
} atune__jit_shape;

struct atune_jit_kernel {
    atune_jit *j;
    atune__config cfg;
    CUcontext ctx;
    CUmodule mod;
    /* Per step of the template (m->nsteps), in launch order. */
    CUfunction fn[ATUNE__MAX_STEPS];
    atune__devattr attr;
    int max_threads[ATUNE__MAX_STEPS]; /* what the function's registers allow */
    int static_shared[ATUNE__MAX_STEPS]; /* bytes */
    int64_t shared_optin[ATUNE__MAX_STEPS]; /* dynamic shared memory opted in */
    int cached;
    /* Launch shapes by size: a launch at a size seen before costs a few
     * compares, no parsing and no expression. */
    atune__jit_shape shapes[ATUNE__LAUNCH_CACHE];
    int shape_next; /* the slot a new size replaces */
    /* A template whose name expressions read the size (m->names_sized):
     * the kernel atune_jit_build returns has no module (mod NULL); each
     * size launched gets a kernel of its own in j->kernels, cfg with that
     * size (atune__jit_kernel_at), and last is the one launched last. */
    atune_jit_kernel *last;
    atune_jit_kernel *next;
};

struct atune_jit {
    atune__manifest *m;
    const atune__cudrv *cu;
    atune__cache *cache;
    int cache_decided; /* the default cache was opened or replaced */
    long hits, misses;
    char hash[17];
    char msg[4096];
    atune_jit_kernel *kernels;
    /* The template's size variables (m->sizes[0]'s, in that order), and
     * for each the [args] scalar whose value is that variable ("n = long
     * n"), -1 when none: the size of a launch is read from there. */
    int nsize;
    int size_arg[ATUNE__MAX_SIZE_VARS];
    int args_declared; /* atune_jit_declare_args() succeeded */
    int effort_set;    /* atune_jit_set_effort() was called: effort, not
                          ATUNE_EFFORT, decides */
    atune_jit_effort effort;
    /* What first use learned (firstuse.c), under its process-wide lock,
     * and how atune_jit_close frees it (set by firstuse.c: appjit.c does
     * not call into it). */
    struct atune__learned *learned;
    void (*learned_free)(atune_jit *j);
    /* Tuned entries served with their launch-only parameters at the
     * defaults (appjit_lookup.c), one per set of values, until
     * atune_jit_close. */
    struct atune__relaunch *relaunched;
};

/* One of j->relaunched: made by appjit_lookup.c, freed by
 * atune_jit_close (appjit.c). */
struct atune__relaunch {
    atune_config *own;
    struct atune__relaunch *next;
};

int atune__jit_fail(atune_jit *j, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "copy: BLOCK_SIZE=128,...: what: CUDA_ERROR_X: text" */
int atune__jit_cuda_fail(atune_jit *j, const atune__config *cfg,
                         const char *what, CUresult r);

/* The template's defaults, overridden by c's values of its parameters. */
void atune__jit_config_from(const atune__manifest *m, const atune_config *c,
                            atune__config *out);

/* ATUNE_EINVAL, naming the parameter and the template's values, when a
 * value of cfg is not one of its parameter's [params] values. */
int atune__jit_check_values(atune_jit *j, const atune__config *cfg);

/* A size string ("m=4096,n=4096,k=4096", every size variable once) as
 * values in the template's order (m->sizes[0]'s). */
int atune__jit_size_values(atune_jit *j, const char *size, int64_t *out);

/* The launch of cfg at size (values in the template's order) on a device
 * with attributes a: ATUNE_ELAUNCH with the reason when it cannot run
 * (any step of a launch sequence). l gets the first step's launch; all,
 * when non-NULL, every step's (m->nsteps). */
int atune__jit_shape_of(atune_jit *j, const atune__config *cfg,
                        const atune__devattr *a, const int64_t *size,
                        atune__launch *l);
int atune__jit_shapes_of(atune_jit *j, const atune__config *cfg,
                         const atune__devattr *a, const int64_t *size,
                         atune__launch *all);

void atune__jit_attr_from_public(const atune_jit_attr *p, atune__devattr *a);

/* appjit.c: the kernel that launches k at size (values in the template's
 * order): k itself, or for a template whose names read the size k's
 * configuration compiled for that size, once per (configuration, size,
 * context) and kept until atune_jit_close. */
int atune__jit_kernel_at(atune_jit_kernel *k, const int64_t *size,
                         atune_jit_kernel **out);

/* appjit.c: the driver, loaded once per process (ATUNE_ENODEV without). */
int atune__jit_driver(atune_jit *j);

/* appjit.c: opens j's default module cache unless it was decided. */
void atune__jit_default_cache(atune_jit *j);

/* firstuse.c: tunes j's kernel at size v on the current context's GPU
 * (ATUNE_JIT_EFFORT_MEASURE or PATIENT) when it has no exact entry of
 * this GPU model: candidates (the defaults, estimate, the nearest tuned
 * entries of p and of the user's profile; patient adds the default
 * search, bounded in time) compiled, verified and timed on buffers of its
 * own, the fastest written into the user's profile directory. Returns 1
 * with *out (valid until atune_jit_close) and what happened in note, or
 * 0 when nothing was measured (no context, not enough free memory, no
 * candidate passed...: why in note; the caller keeps estimate). One
 * measurement at a time per process: a thread asking for a key being
 * measured waits, then gets the same answer. */
int atune__jit_first_use(atune_jit *j, atune_profile *p, const int64_t *v,
                         const atune__devattr *a, atune_jit_effort effort,
                         const atune_config *estimate, const atune_config **out,
                         char *note, size_t notelen);

/* appjit_record.c: whether this process records (ATUNE_RECORD or
 * atune_jit_set_record). */
int atune__jit_recording(void);

/* appjit_record.c: the GPU model a serving is recorded for: the current
 * context's device, else the device p was opened for, else p's [device],
 * else "unknown". */
void atune__jit_gpu_model(atune_jit *j, const atune_profile *p, char *buf,
                          size_t len);

/* appjit_record.c: counts one serving of j's kernel at size (values in
 * the template's order) on gpu, served so; merges it into the file when
 * it is due. Returns 1 when recorded, with what happened in note ("recorded
 * in 'FILE'", or why the merge has to wait); 0 when not recording. */
int atune__jit_record(atune_jit *j, const char *gpu, const int64_t *size,
                      atune__served served, char *note, size_t notelen);

/* appjit_record.c: merges what is pending (atune_jit_close). */
void atune__jit_record_close(void);

#endif
