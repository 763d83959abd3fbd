/* atune_jit.h -- build a kernel template with a tuned configuration and
 * launch it (library atune_jit; CMake: autotune::atune_jit, pkg-config:
 * atune_jit).
 *
 * A template is NAME.cu plus its NAME.ini manifest, as the tuner reads
 * them. The library compiles it with NVRTC for the GPU of the current
 * CUDA context, with the parameters of a configuration that
 * atune_profile_lookup() returned (or the template's defaults), computes
 * grid, block and dynamic shared memory from the manifest's [launch]
 * expressions for a problem size, and launches it with the application's
 * arguments. Compiled modules are kept per handle and in a cache on disk
 * ($ATUNE_CACHE_DIR, else $XDG_CACHE_HOME/autotune, else
 * $HOME/.cache/autotune; ATUNE_NO_CACHE=1 turns it off).
 *
 * The CUDA driver is loaded at run time (libcuda.so.1): an application
 * linking this library starts on a machine without a driver, and every
 * call that needs one returns ATUNE_ENODEV there. Statuses are those of
 * atune.h plus the ATUNE_JIT_STATUS_MAP below; atune_jit_errmsg() holds
 * the message of the last failure, with file and line where one applies.
 * No function calls exit() or abort(). A handle is not thread-safe.
 *
 *     atune_jit *j;
 *     atune_jit_kernel *k;
 *     const atune_config *c = NULL;                     (NULL: defaults)
 *     char why[256];
 *     long n = 1000000;                                 (copy: long n)
 *     atune_jit_type types[] = {ATUNE_JIT_TYPE_OF(in), ATUNE_JIT_TYPE_OF(out),
 *                               ATUNE_JIT_TYPE_OF(n)};
 *     if (atune_jit_open(NULL, "copy", &j) == ATUNE_OK &&
 *         atune_jit_config_for(j, p, "n=1000000", NULL, &c, why,
 *                              sizeof(why)) == ATUNE_OK &&
 *         atune_jit_declare_args(j, types, 3) == ATUNE_OK &&
 *         atune_jit_build(j, c, &k) == ATUNE_OK) {
 *         void *args[] = {&in, &out, &n};
 *         rc = atune_jit_run(k, args, stream);  (the size is args' n)
 *     }
 *     if (rc != ATUNE_OK)
 *         fprintf(stderr, "%s\n", atune_jit_errmsg(j));
 *     atune_jit_close(j);
 */
#ifndef ATUNE_ATUNE_JIT_H
#define ATUNE_ATUNE_JIT_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "atune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Statuses of this library beyond atune.h's, numbered apart from them. */
#define ATUNE_JIT_STATUS_MAP(XX)                                               \
    XX(ECOMPILE, 32, "template does not compile")                              \
    XX(ENODEV, 33, "no usable CUDA driver or GPU")                             \
    XX(ECUDA, 34, "CUDA driver call failed")                                   \
    XX(ELAUNCH, 35, "configuration cannot launch at this size")                \
    XX(ENOTSUP, 36, "not available in this build")

enum {
#define ATUNE_JIT_XX(code, value, msg) ATUNE_##code = value,
    ATUNE_JIT_STATUS_MAP(ATUNE_JIT_XX)
#undef ATUNE_JIT_XX
};

/* atune_strerror() extended with the statuses above; never NULL. */
ATUNE_API const char *atune_jit_strerror(int status);

typedef struct atune_jit atune_jit;               /* one template */
typedef struct atune_jit_kernel atune_jit_kernel; /* owned by its atune_jit */

/* The device attributes that [launch] expressions and launch limits use. */
typedef struct atune_jit_attr {
    int64_t sm_count;
    int64_t max_threads_per_block;
    int64_t max_block[3];
    int64_t max_grid[3];
    int64_t max_shared_per_block; /* opt-in maximum, bytes */
    int64_t warp_size;
    int64_t cc; /* 90 for compute capability 9.0 */
    int64_t l2_bytes;
} atune_jit_attr;

/* A launch, as cuLaunchKernel takes it. */
typedef struct atune_jit_dims {
    unsigned grid[3];
    unsigned block[3];
    unsigned shared; /* dynamic shared memory, bytes */
} atune_jit_dims;

/* Opens template name: dir/NAME.ini and dir/NAME.cu, or, for a NULL dir,
 * the template of that name built into the library (the set the tuner
 * ships). Needs no driver and does not compile. *out is set even on
 * failure (NULL only when memory runs out) so that atune_jit_errmsg() can
 * tell why; always pair with atune_jit_close(). Returns ATUNE_OK;
 * ATUNE_EINVAL (NULL argument, name with '/' or ','); ATUNE_ENOTFOUND (no
 * such template); ATUNE_EIO (cannot read a file); ATUNE_EPARSE (malformed
 * manifest: "dir/copy.ini:12: ..."); ATUNE_ENOMEM. */
ATUNE_API int atune_jit_open(const char *dir, const char *name,
                             atune_jit **out);

/* Unloads every module the handle built (each in its own context) and
 * frees it. Call it while those contexts still exist. NULL-tolerant. */
ATUNE_API void atune_jit_close(atune_jit *j);

/* The message of the last failure on j, "" after a success, "out of
 * memory" for NULL. Never NULL. */
ATUNE_API const char *atune_jit_errmsg(const atune_jit *j);

/* The template's hash (its .cu then .ini bytes) as 16 hex digits, as the
 * tuner records it in profiles (atune_config_template_hash). */
ATUNE_API const char *atune_jit_template_hash(const atune_jit *j);

/* Staleness of a configuration for this template: 0 when it fits (or c
 * is NULL), else a mask of the reasons: ATUNE_JIT_STALE_HASH, tuned with
 * another version of the template (its hash differs); ATUNE_JIT_STALE_PARAMS,
 * c lacks a parameter of the template (its default is used) or has one the
 * template does not; ATUNE_JIT_STALE_KERNEL, c is another kernel's (an
 * override made without a kernel name is not checked for it). Reported,
 * never enforced: atune_jit_build() still takes c. */
#define ATUNE_JIT_STALE_HASH 1
#define ATUNE_JIT_STALE_PARAMS 2
#define ATUNE_JIT_STALE_KERNEL 4
#define ATUNE_JIT_STALE_VALUE                                                  \
    8 /* a value not in the template's [params]                                \
         list: atune_jit_build and atune_jit_shape                             \
         refuse it (ATUNE_EINVAL) */
ATUNE_API int atune_jit_stale(const atune_jit *j, const atune_config *c);

/* Uses the disk cache in dir instead of the default one; NULL turns the
 * disk cache off for this handle. ATUNE_EIO when dir cannot be created
 * or written (the handle then has no disk cache). When the default
 * directory cannot be created, the handle silently goes without. */
ATUNE_API int atune_jit_set_cache_dir(atune_jit *j, const char *dir);

/* Disk cache lookups of this handle that were answered / had to compile. */
ATUNE_API void atune_jit_cache_stats(const atune_jit *j, long *hits,
                                     long *misses);

/* Fills out with the attributes of dev through the run-time loaded
 * driver. ATUNE_ENODEV without a driver or GPU; ATUNE_ECUDA. */
ATUNE_API int atune_jit_attr_query(atune_jit *j, CUdevice dev,
                                   atune_jit_attr *out);

/* Computes the launch of configuration c (NULL: the template's defaults)
 * at size ("n=1000000"; "m=4096,n=4096,k=4096": every size variable of
 * the template, no other) on a device with attributes attr (NULL: a
 * generic sm_90 device with 132 SMs). Checks the manifest's constraints
 * and the device limits. Needs no driver. ATUNE_EINVAL (bad size);
 * ATUNE_ELAUNCH (a constraint fails, the launch exceeds a limit, or an
 * expression cannot be evaluated: the message says which, with
 * "copy.ini:LINE" where a line applies). */
ATUNE_API int atune_jit_shape(atune_jit *j, const atune_config *c,
                              const atune_jit_attr *attr, const char *size,
                              atune_jit_dims *out);

/* atune_jit_shape() at the size read from args, the kernel's arguments
 * in [args] order, as atune_jit_run() reads it (no context needed: the
 * buffers are not touched). ATUNE_EINVAL when a size variable is no
 * argument of [args], or an argument is NULL or negative. */
ATUNE_API int atune_jit_shape_args(atune_jit *j, const atune_config *c,
                                   const atune_jit_attr *attr, void **args,
                                   atune_jit_dims *out);

/* The C type of a kernel argument. A buffer of [args] ("float[n]") takes
 * a device pointer: ATUNE_JIT_PTR (CUdeviceptr, void *) or the pointer
 * to its element type; a scalar takes exactly its type ("long n" is 64
 * bits: ATUNE_JIT_LONG). */
typedef enum atune_jit_type {
    ATUNE_JIT_UNKNOWN = 0,
    ATUNE_JIT_CHAR,
    ATUNE_JIT_INT,
    ATUNE_JIT_UINT,
    ATUNE_JIT_LONG,
    ATUNE_JIT_ULONG,
    ATUNE_JIT_FLOAT,
    ATUNE_JIT_DOUBLE,
    ATUNE_JIT_PTR = 16,
    ATUNE_JIT_PTR_CHAR,
    ATUNE_JIT_PTR_INT,
    ATUNE_JIT_PTR_UINT,
    ATUNE_JIT_PTR_LONG,
    ATUNE_JIT_PTR_ULONG,
    ATUNE_JIT_PTR_FLOAT,
    ATUNE_JIT_PTR_DOUBLE
} atune_jit_type;

/* The atune_jit_type of a C expression, so that the declared types come
 * from the variables passed, not from a second list kept by hand (C11;
 * CUdeviceptr, an unsigned long long, is ATUNE_JIT_PTR). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) &&                      \
    __STDC_VERSION__ >= 201112L
#define ATUNE_JIT_TYPE_OF(x)                                                   \
    _Generic((x),                                                              \
        char: ATUNE_JIT_CHAR,                                                  \
        signed char: ATUNE_JIT_CHAR,                                           \
        int: ATUNE_JIT_INT,                                                    \
        unsigned int: ATUNE_JIT_UINT,                                          \
        long: ATUNE_JIT_LONG,                                                  \
        long long: ATUNE_JIT_LONG,                                             \
        unsigned long: ATUNE_JIT_ULONG,                                        \
        unsigned long long: ATUNE_JIT_PTR,                                     \
        float: ATUNE_JIT_FLOAT,                                                \
        double: ATUNE_JIT_DOUBLE,                                              \
        void *: ATUNE_JIT_PTR,                                                 \
        const void *: ATUNE_JIT_PTR,                                           \
        char *: ATUNE_JIT_PTR_CHAR,                                            \
        const char *: ATUNE_JIT_PTR_CHAR,                                      \
        int *: ATUNE_JIT_PTR_INT,                                              \
        const int *: ATUNE_JIT_PTR_INT,                                        \
        unsigned int *: ATUNE_JIT_PTR_UINT,                                    \
        const unsigned int *: ATUNE_JIT_PTR_UINT,                              \
        long *: ATUNE_JIT_PTR_LONG,                                            \
        const long *: ATUNE_JIT_PTR_LONG,                                      \
        unsigned long *: ATUNE_JIT_PTR_ULONG,                                  \
        const unsigned long *: ATUNE_JIT_PTR_ULONG,                            \
        float *: ATUNE_JIT_PTR_FLOAT,                                          \
        const float *: ATUNE_JIT_PTR_FLOAT,                                    \
        double *: ATUNE_JIT_PTR_DOUBLE,                                        \
        const double *: ATUNE_JIT_PTR_DOUBLE,                                  \
        default: ATUNE_JIT_UNKNOWN)
#endif

/* Declares the types of the arguments the application launches the
 * template's kernel with, one per [args] entry in order, and checks them
 * against [args] ("copy.ini:31: argument 3 'n' is long (64-bit) in the
 * kernel, the application passes int"). Once per handle, before
 * atune_jit_run(), which refuses to launch without it. Needs no driver.
 * ATUNE_EINVAL (wrong count or type; the handle is then undeclared). */
ATUNE_API int atune_jit_declare_args(atune_jit *j, const atune_jit_type *types,
                                     int ntypes);

/* A configuration of profile p for this template at size that is always
 * safe to launch: the looked-up one (atune_profile_lookup) when the
 * template's constraints and the device limits (attr; NULL: a generic
 * sm_90 device) allow it at size and its values are the template's;
 * else the tuned entry of this kernel nearest to size that they allow;
 * else *out = NULL, the template's defaults. Where no tuned size is
 * within a factor 4 (summed over the size variables), and at every
 * untuned size of a template with block_cost (matmul), the tuned entry,
 * with the launch-only values, that a model of the tuned times, the
 * blocks' cost and the grid's waves predicts fastest at size
 * (docs/library.md, untuned sizes; the returned configuration then
 * belongs to the handle, as the profile's entries belong to p, until
 * atune_jit_close). msg (len bytes; may be NULL) says which and why,
 * e.g. "constmem w=3157,h=3157: the tuned entry of w=2897,h=2897
 * (nearest) would launch 23% more padded blocks here than at its own
 * size; using the tuned entry of w=4097,h=4097 (-1%)". p NULL gives the
 * defaults. ATUNE_OK whenever *out can be
 * launched (also when p has no entry for the kernel); ATUNE_EINVAL (bad
 * size or argument); ATUNE_ELAUNCH when not even the defaults can run at
 * size (the message says why); ATUNE_EINVAL for an ATUNE_EFFORT that is
 * no effort level (atune_jit_set_effort, below). The message ends with
 * "; effort profile" (the level used) and, when the serving was recorded
 * (atune_jit_set_record), "; recorded in 'FILE'". With effort MEASURE or
 * PATIENT, where this GPU model has no exact tuned entry for size, the
 * configuration is measured first (see below) and *out is the one
 * measured, valid until atune_jit_close(j); the message says what was
 * measured ("copy n=1000003: measured at first use (measure: 5
 * configurations compiled (0 from the module cache) and verified in 412
 * ms, on NVIDIA H100 80GB HBM3): fastest BLOCK_SIZE=512,..., 12.1 us
 * (...); written to '...'; effort measure"), or, when it could not
 * measure, why, after the estimate's message ("; effort measure: not
 * measured (...): falling back to estimate"). Measuring never fails the
 * call. attr is not used to measure: the current context's device is. */
ATUNE_API int atune_jit_config_for(atune_jit *j, atune_profile *p,
                                   const char *size, const atune_jit_attr *attr,
                                   const atune_config **out, char *msg,
                                   size_t len);

/* How much atune_jit_config_for() may do to choose a configuration
 * (FFTW's planner effort, docs/first-use.md). PROFILE, the default: only
 * what the profile holds, made safe at the size as described above;
 * never measures, so every process and rank given the same profile gets
 * the same answer. ESTIMATE: the nearest tuned entry with its checks
 * (the same choice as PROFILE: neither measures). MEASURE: at the first
 * use of a size that this GPU model has no exact tuned entry for, races a
 * handful of candidates (the defaults, what ESTIMATE serves, the nearest
 * tuned entries of the profile, of the user's profile and of the other
 * profiles of the search path) on the current context's GPU, on buffers
 * of its own sized from [args] (never the application's), each compiled
 * through the module cache and verified against the template's
 * reference; the fastest is written into the user's profile directory
 * ($XDG_DATA_HOME/autotune/profiles, else ~/.local/share/autotune/
 * profiles) as autotune writes profiles, so that the next process gets an
 * exact hit. PATIENT: MEASURE, then the default search from the best of
 * them, for at most ATUNE_EFFORT_TIME seconds (default 10). Both fall back
 * to ESTIMATE, and say so, without a current context or when the buffers
 * would not fit the free device memory. One measurement at a time per
 * process: threads asking for the same new size wait for the first and
 * get its answer (docs/first-use.md). */
typedef enum atune_jit_effort {
    ATUNE_JIT_EFFORT_PROFILE = 0,
    ATUNE_JIT_EFFORT_ESTIMATE,
    ATUNE_JIT_EFFORT_MEASURE,
    ATUNE_JIT_EFFORT_PATIENT
} atune_jit_effort;

/* Sets the effort of j's atune_jit_config_for() calls, over the
 * environment's ATUNE_EFFORT (profile, estimate, measure or patient;
 * unset: profile; any other value makes atune_jit_config_for() fail with
 * ATUNE_EINVAL, naming the variable). ATUNE_EINVAL (NULL j, no such
 * level: the effort stays as it was). */
ATUNE_API int atune_jit_set_effort(atune_jit *j, atune_jit_effort effort);

/* Records, for the whole process, every (GPU model, kernel, size) that
 * atune_jit_config_for() serves without an exact tuned entry of this GPU
 * model (no profile, a nearest size, a fallback entry, the defaults, or
 * an entry of another GPU model), how, and how many times, in the file
 * path, for `autotune tune --sizes-from path`; NULL stops recording. The
 * environment's ATUNE_RECORD=path does the same from the first
 * atune_jit_config_for() on, unless this was called. The process counts
 * in memory and merges its counts into the file, under a lock, at the
 * first sighting of a key (at most once a second: later ones wait for the
 * next call after that), at atune_jit_close(), at atune_jit_record_flush()
 * and at exit; many processes may record into one file. The file holds
 * one line per key and at most 4096 keys (docs/first-use.md). The GPU
 * model is the current CUDA context's device, else the one the profile
 * was opened for (atune_profile_open_for), else the profile's own
 * [device], else "unknown". Flushes what was recorded for the previous
 * file first. ATUNE_OK; ATUNE_EINVAL ("" path); ATUNE_EPARSE (the file
 * exists and is not a record: the message says file:line); ATUNE_EIO
 * (cannot be read, its lock file cannot be made, or it is a symbolic
 * link; then nothing is recorded); the message is
 * atune_jit_record_errmsg(). A file that goes bad later (ATUNE_RECORD's,
 * or changed by someone else) is never merged into: the counts wait in
 * memory and atune_jit_config_for() says so. */
ATUNE_API int atune_jit_set_record(const char *path);

/* Merges what this process recorded since the last merge into the
 * record file now. ATUNE_OK (also when not recording); ATUNE_EPARSE (the
 * file is malformed: it is left as it is, the counts are kept for a later
 * merge); ATUNE_EIO. */
ATUNE_API int atune_jit_record_flush(void);

/* The message of the last failed record call or merge of this process
 * (also those of atune_jit_config_for(), which does not fail for them but
 * says "not recorded" in its message); "" when none. Never NULL. */
ATUNE_API const char *atune_jit_record_errmsg(void);

/* Builds configuration c (NULL: the template's defaults; parameters that
 * c lacks take their defaults, extra ones are ignored) for the device of
 * the calling thread's current context, and loads it there, as
 * cuModuleLoadData does. The same (configuration, context) returns the
 * same kernel without compiling again; a new one is compiled through the
 * disk cache. For a template whose kernel's name expression reads a size
 * variable ("k<BLOCK, (n % 1024 == 0)>"), nothing is compiled here: each
 * size is compiled at its first launch (atune_jit_run, atune_jit_launch,
 * atune_jit_kernel_shape) and kept, one module per size.
 * *out stays valid until atune_jit_close(). ATUNE_ENODEV
 * (no driver or GPU); ATUNE_EINVAL (no current context); ATUNE_ECOMPILE
 * (NVRTC's log in the message); ATUNE_ECUDA; ATUNE_ENOMEM. */
ATUNE_API int atune_jit_build(atune_jit *j, const atune_config *c,
                              atune_jit_kernel **out);

/* The kernel's entry point (a launch sequence's first kernel) and its
 * module (NULL for NULL); for a template whose names read the size, those
 * of the size launched last (NULL before the first launch). A template
 * with [constants] expects the application to fill those __constant__
 * symbols (cuModuleGetGlobal on the module) before launching. */
ATUNE_API CUfunction atune_jit_kernel_function(const atune_jit_kernel *k);
ATUNE_API CUmodule atune_jit_kernel_module(const atune_jit_kernel *k);

/* The configuration built: "BLOCK_SIZE=256,VW=4,UNROLL=2,GRID=0", cut
 * after the last whole item that fits in len bytes. ATUNE_EINVAL for a
 * NULL argument or len 0. */
ATUNE_API int atune_jit_kernel_config(const atune_jit_kernel *k, char *buf,
                                      size_t len);

/* 1 when the kernel's CUBIN came from the disk cache, 0 when compiled. */
ATUNE_API int atune_jit_kernel_cached(const atune_jit_kernel *k);

/* atune_jit_shape() for k's configuration and device, also checked
 * against the compiled function's own limits (threads per block its
 * registers allow, static plus dynamic shared memory). */
ATUNE_API int atune_jit_kernel_shape(atune_jit_kernel *k, const char *size,
                                     atune_jit_dims *out);

/* Launches k on stream (NULL: the context's default stream) with args,
 * an array of pointers to the kernel's arguments in [args] order, as
 * cuLaunchKernel takes them, from a thread where k's context is current.
 * A launch sequence ([launch.NAME] sections, docs/manifest.md) launches
 * each of its kernels in order on stream, each with the [args] entries
 * its section names; all are checked before the first is queued.
 * The size is read from the arguments that [args] ties to the size
 * variables (a scalar whose value is the variable: "n = long n"), so
 * the launch always covers what the kernel reads. Needs the argument
 * types declared once (atune_jit_declare_args). The grid, block and
 * shared memory of a size are computed and checked at its first launch
 * and kept (8 sizes per kernel): a launch at a size seen before does not
 * parse, allocate or evaluate anything. Opts in to more than 48 KB of
 * dynamic shared memory when the launch needs it. Does not wait for the
 * kernel. Errors on the handle that built k: ATUNE_EINVAL (types not
 * declared, a template whose size variable is no argument: use
 * atune_jit_launch), ATUNE_ELAUNCH, ATUNE_ECUDA (the CUDA error by name
 * in the message), and for a template whose names read the size, the
 * errors of atune_jit_build at a size's first launch (ATUNE_ECOMPILE). */
ATUNE_API int atune_jit_run(atune_jit_kernel *k, void **args, CUstream stream);

/* atune_jit_run() at a size given as a string ("n=1000000"), for
 * templates whose size variables are not all arguments. The size must
 * agree with every argument tied to a size variable (ATUNE_EINVAL
 * otherwise: a smaller size would leave part of the output unwritten).
 * Parses size on every call; the argument types are not checked. */
ATUNE_API int atune_jit_launch(atune_jit_kernel *k, const char *size,
                               void **args, CUstream stream);

#ifdef __cplusplus
}
#endif

#endif
