/* runner.h -- the device runner: a GPU, the buffers of one problem (a
 * template at one size), its reference result, and the verification and
 * timing of one configuration. */
#ifndef ATUNE_RUNNER_H
#define ATUNE_RUNNER_H

#include <stdint.h>

#include "jit/cache.h"
#include "jit/jit.h"
#include "template/manifest.h"
#include "template/space.h"
#include "base/util.h"

/* What became of one configuration; the journal's status column. */
#define ATUNE__STATUS_MAP(X)                                                   \
    X(OK, "ok")                                                                \
    X(INVALID, "invalid")             /* constraint or device limit */         \
    X(COMPILE_ERROR, "compile_error") /* NVRTC refused it */                   \
    X(LAUNCH_ERROR, "launch_error")   /* the launch was refused */             \
    X(WRONG_OUTPUT, "wrong_output")   /* differs from the reference */         \
    X(FAULT, "fault")                 /* sticky error: the context is lost */  \
    X(TIMEOUT, "timeout")             /* killed by the watchdog */

typedef enum atune__status {
#define ATUNE__STATUS_ENUM(code, name) ATUNE__ST_##code,
    ATUNE__STATUS_MAP(ATUNE__STATUS_ENUM)
#undef ATUNE__STATUS_ENUM
        ATUNE__ST_COUNT
} atune__status;

const char *atune__status_name(atune__status s);
/* -1 when name is not a status. */
int atune__status_parse(const char *name);

typedef struct atune__device atune__device;

/* Opens GPU ordinal: loads the driver (ATUNE__EUNAVAIL when there is none,
 * or no such GPU), retains its primary context and compiles the tuner's
 * device helpers for its architecture through cache (may be NULL), so
 * that a warm start compiles nothing. */
int atune__device_open(int ordinal, atune__cache *cache, atune__device **out,
                       atune__err *err);
void atune__device_close(atune__device *d);

/* Opens the device of the calling thread's current context (the
 * application's, libatune_jit's first use) without retaining or
 * releasing it: its own stream, events and helpers there. The helpers,
 * and later every problem's reference, compile through cache (may be
 * NULL), so that a warm first use compiles nothing. The L2 flush buffer
 * is allocated by the first problem that needs it, after the check of
 * free memory. ATUNE__EUNAVAIL without a driver or a current context. */
int atune__device_attach(atune__cache *cache, atune__device **out,
                         atune__err *err);
int atune__device_count(int *n, atune__err *err);

/* Identity and limits of an open device. */
typedef struct atune__devinfo {
    int ordinal;
    char name[256];
    char uuid[64];
    char arch[16]; /* "sm_90" */
    int driver;    /* 13000 */
    int64_t total_mem;
    int64_t mem_bandwidth_gbs; /* 2 * memory clock * bus width */
    atune__devattr attr;
} atune__devinfo;

const atune__devinfo *atune__device_info(const atune__device *d);

/* The profile writer's description of d (name, slug, limits, driver,
 * NVRTC and tool versions, UUID, today's date). */
struct atune__pw_device;
void atune__device_pw_entry(const atune__device *d,
                            struct atune__pw_device *pd);

/* How the device's owner compiles what it needs outside a compile pool
 * (the reference, --evaluate's configurations): the tool passes its
 * compile children (engine/compile_procs.h), so that the compile time
 * limit holds for them too. Returns as atune__device_compile. */
typedef int (*atune__compile_fn)(void *ctx, const atune__manifest *m,
                                 const atune__config *c, const char *arch,
                                 const char *const *names, int nnames,
                                 atune__cubin *out, atune__err *err);

/* Sets d's compiler; without one (NULL, the default) those compile in
 * this process, with no limit, through the cache given. */
void atune__device_set_compiler(atune__device *d, atune__compile_fn fn,
                                void *ctx);

/* Compiles configuration c (NULL: the default) of m for d's architecture,
 * through cache (may be NULL), or d's compiler when it has one.
 * ATUNE__EDATA: the configuration does not compile (or ran past the
 * compile time limit). */
int atune__device_compile(atune__device *d, atune__cache *cache,
                          const atune__manifest *m, const atune__config *c,
                          const char *const *names, int nnames,
                          atune__cubin *out, atune__err *err);

/* Timing knobs. */
typedef struct atune__timing {
    int warmup;         /* launches before timing */
    int min_samples;    /* at least this many timed launches... */
    double rel_spread;  /* ...then stop once (q3 - q1) / median is this small */
    double target_s;    /* or once this much GPU time was timed */
    int max_samples;    /* at most this many */
    int early_samples;  /* first batch; with cutoff_ns, may be the only one */
    double cutoff_ns;   /* > 0: the incumbent's median. The race: after each
                           batch, a configuration whose fastest sample is
                           over cutoff_ns * (1 + cutoff_margin) stops (noise
                           only adds time, so its median cannot win), and
                           so does one whose lower quartile is over
                           cutoff_ns * (1 + race_q1_margin) once it has
                           min_samples (a sign test: three samples in four
                           slower than the incumbent's median); one whose
                           median is within the margin is a close call and
                           gets twice min_samples */
    double cutoff_margin; /* the incumbent's relative noise, e.g. 0.03 */
    double race_q1_margin; /* <= 0: no sign test */
    int verify_lazily;  /* with cutoff_ns: timed first, and verified only
                           when it did not lose the race (it could matter);
                           a loser's result says unverified */
    int flush_l2;       /* flush L2 before each timed launch (small sizes) */
    int long_min_samples; /* a kernel whose min_samples launches would
                           overrun target_s stops after this many */
    int verified;       /* this module's output at this problem was verified
                           already: timed only (the final pick's later
                           rounds), a launch before as warm-up */
    /* Called with the number of launches about to be waited for, then
     * with 0 once they finished: the hook of the hang watchdog (tune.c),
     * which must know when the process is blocked on the GPU. */
    void (*watch)(void *ctx, int launches);
    void *watch_ctx;
} atune__timing;

void atune__timing_default(atune__timing *t);

/* One of the final pick's rounds (engine/tune.c): a configuration's
 * rounds together take about what one measurement takes (a round a
 * fraction of base's GPU time target, at most a quarter of its samples;
 * at least its minimum, which a kernel longer than the round's target
 * lowers to one launch, the rounds being its samples), so the final pick
 * costs its candidates about one measurement each, not one per round. In
 * the H100's default run of 2026-11-23 the rounds, each a full
 * measurement, took 13.3 s of its 43 s of GPU time (a 5 us kernel's ran to
 * 100 samples behind a 35 us L2 flush each); three launches a round at
 * 24 ms (matmul at 8196^3) were 3.2 s of the final pick's 8.5 s on
 * 2026-11-26. */
atune__timing atune__timing_final_round(const atune__timing *base,
                                        int rounds);

/* The buffers of one template at one size, filled, with the reference
 * kernel's result kept on the device for comparison. */
typedef struct atune__problem atune__problem;

int atune__problem_open(atune__device *d, const atune__manifest *m,
                        const atune__size *size, uint64_t seed,
                        atune__problem **out, atune__err *err);
void atune__problem_close(atune__problem *p);

/* Variables of the problem: size variables and device attributes. */
const atune__vars *atune__problem_vars(const atune__problem *p);
/* Bytes or flops of one launch (the manifest's work expression). */
double atune__problem_work(const atune__problem *p);
/* Host wall time of the reference kernel's launch and completion, ns: the
 * yardstick of the hang watchdog's time limit. */
double atune__problem_ref_ns(const atune__problem *p);

/* Whether timing with t flushes L2 before each launch: only when the
 * problem's buffers could stay in L2 between launches. */
int atune__problem_flushes(const atune__problem *p, const atune__timing *t);

/* The device address and element count of the buffer argument called
 * name (for benchmarks that run other code on the same data); -1 when
 * there is none. */
int atune__problem_buffer(const atune__problem *p, const char *name,
                          uint64_t *ptr, size_t *count);

typedef struct atune__result {
    atune__status status;
    double time_ns;   /* median of the timed launches */
    double spread_ns; /* interquartile range */
    double min_ns;
    int samples;
    double metric;    /* GB/s or GFLOP/s at the median */
    int regs;         /* registers per thread, 0 when unknown */
    double verify_s;  /* host wall time spent verifying */
    double measure_s; /* host wall time spent timing */
    int unverified;   /* ok, timed, lost the race, output not checked
                         (verify_lazily) */
    char detail[512]; /* why it is not ok, or "" */
} atune__result;

/* A loaded module of one configuration, reusable across sizes. */
typedef struct atune__kernel atune__kernel;

/* Loads a CUBIN and finds the tuned kernel. A load failure that is not
 * sticky gives res->status LAUNCH_ERROR and returns 0 with *out NULL. */
int atune__kernel_load(atune__device *d, const atune__manifest *m,
                       const atune__cubin *cubin, atune__kernel **out,
                       atune__result *res, atune__err *err);
void atune__kernel_unload(atune__kernel *k);

/* Verifies, then times configuration c (compiled into k) on p. Returns 0
 * when the evaluation ran to a verdict (res->status), or an error code
 * when the device is no longer usable (sticky error: res->status FAULT)
 * or an expression fails. */
int atune__problem_eval(atune__problem *p, atune__kernel *k,
                        const atune__config *c, const atune__timing *t,
                        atune__result *res, atune__err *err);

/* The CUDA occupancy API's suggested block size for k (one dimension). */
int atune__kernel_occupancy_block(atune__kernel *k, int64_t dyn_shared,
                                  int *block, int *min_grid,
                                  atune__err *err);

#endif
