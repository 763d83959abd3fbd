/* tune.h -- one tuning run: for every template and size, search the space
 * on the device, journal every evaluation, and write the best verified
 * configuration of each (kernel, size) to the GPU's profile. */
#ifndef ATUNE_TUNE_H
#define ATUNE_TUNE_H

#include <signal.h>
#include <stdint.h>

#include "jit/cache.h"
#include "measure/runner.h"
#include "template/templates.h"

typedef struct atune__tune_opts {
    const char *profile_dir; /* where <slug>.ini goes */
    const char *journal;     /* NULL: <profile_dir>/<slug>.journal */
    const char *size;        /* a size name, or NULL for every size */
    int quiet;               /* no summary lines on stderr */
    int progress;            /* redraw a progress line on stderr */
    atune__timing timing;
    uint64_t seed;           /* input data */
    int threads;             /* compile threads, 0: one per core */
    atune__cache *cache;     /* on-disk module cache, or NULL */
    struct atune__procs *procs; /* NVRTC child processes, or NULL */
    const char *strategy;    /* NULL: the default strategy */
    int64_t budget;          /* evaluations per size; 0: no limit */
    double time_limit;       /* seconds per size; 0: no limit */
    int final_k;             /* candidates re-timed for the final pick */
    double race_margin;      /* race against the best so far (runner.h,
                                cutoff_ns): at least this relative margin,
                                more when the best's own spread is larger;
                                < 0: no race */
    int verify_lazily;       /* a configuration that loses the race is not
                                verified (runner.h; the journal says
                                unverified): the default run's */
    int resume;              /* take what an unfinished run of the journal
                                measured instead of measuring it again */
    int watch_fd;            /* >= 0: tell the supervisor (supervise.h)
                                before and after every wait on the GPU */
    double launch_limit_s;   /* the watchdog's limit per launch; 0: from
                                the reference kernel's time */
    int journal_gpu;         /* >= 0: the default journal is
                                <slug>.gpuN.journal (GPUs tuned at once) */
    int replace;             /* a section replaces the profile's without
                                measuring its previous best (--replace) */
} atune__tune_opts;

void atune__tune_opts_default(atune__tune_opts *o);

/* The compile pools of a run (tune_pools.c). */
struct atune__pool;
struct atune__resume;
/* Whether size s is tuned (--size). */
int atune__tune_size_selected(const atune__tune_opts *o, const atune__size *s);

/* The first size of m that is tuned; NULL when none is. */
const atune__size *atune__tune_first_size(const atune__manifest *m,
                                          const atune__tune_opts *o);

/* Every configuration of m valid at any selected size and not measured
 * at all of them by the unfinished run r, ascending: what m's pool is
 * given. only, when non-NULL, stands for the selected sizes: the list of
 * a pool of one size. For a template whose names read the size, only
 * NULL is its first selected size (what the templates before it warm). */
int atune__tune_pool_list(atune__device *d, const atune__manifest *m,
                          const atune__size *only, const atune__tune_opts *o,
                          const struct atune__resume *r,
                          struct atune__valid_set *any, atune__err *err);

/* The order a run tunes t's templates in, into out (out->m allocated;
 * the manifests are t's): t's, but one whose source is at least twice as
 * long as any other's last, so that the compile pool warms its modules
 * while the others are tuned (tune_pools.c says why). */
int atune__tune_order(const atune__templates *t, atune__templates *out,
                      atune__err *err);

/* What a run's compile pools are given, made once for the run by
 * atune__tune_pool_plan: each template's atune__tune_pool_list, and the
 * configurations of the last template to warm (at most
 * ATUNE__POOL_FOLLOW_WHOLE of its list) in the order its sizes will ask
 * for them (tune_pools.c says why); NULL where nothing is warmed so (one
 * template, or a strategy that does not hint). */
typedef struct atune__pool_plan {
    struct atune__valid_set *lists; /* n, one per template */
    int64_t *warm_order;
    int n;
} atune__pool_plan;

int atune__tune_pool_plan(atune__device *d, const atune__templates *t,
                          const atune__tune_opts *o,
                          const struct atune__resume *r,
                          atune__pool_plan *plan, atune__err *err);
void atune__tune_pool_plan_free(atune__pool_plan *plan);

/* Starts the pool of template i of t on plan's list i (following the
 * search where the strategy hints), with the templates after it to warm
 * (each at its first size when its names read the size; the last in the
 * plan's order where it has one). size: the size the pool compiles for
 * when template i's names read it (m->names_sized: a pool per size; with
 * NULL none is started), else NULL. On failure *pool is NULL. */
int atune__tune_pool_start(atune__device *d, const atune__templates *t,
                           int i, const atune__size *size,
                           const atune__pool_plan *plan,
                           const atune__tune_opts *o, struct atune__pool **pool,
                           atune__err *err);

/* Template i's names read the size: its pool of size s, on what is valid
 * at s and not measured there (lists[i] replaced), in place of *pool
 * (freed first: unload its modules before). */
int atune__tune_pool_sized(atune__device *d, const atune__templates *t,
                           int i, const atune__size *s, atune__pool_plan *plan,
                           const atune__tune_opts *o,
                           const struct atune__resume *r,
                           struct atune__pool **pool, atune__err *err);


/* The result of one (kernel, size). */
typedef enum atune__previous {
    ATUNE__PREV_NONE = 0, /* no section of this template version */
    ATUNE__PREV_SAME,     /* the new best is the previous best */
    ATUNE__PREV_KEPT,     /* the previous best was faster: kept */
    ATUNE__PREV_REPLACED, /* the new best was faster */
    ATUNE__PREV_FORCED    /* --replace: not measured, replaced */
} atune__previous;

/* "none", "same", "kept", "replaced", "forced" (the profile's key
 * previous). */
const char *atune__previous_name(atune__previous p);

typedef struct atune__outcome {
    const atune__manifest *m;
    const atune__size *size;
    char size_key[96];
    int have_best;
    atune__config best;
    atune__result best_res;
    int have_default;
    atune__result default_res;
    int64_t space;       /* configurations valid at this size */
    int64_t evaluations; /* configurations compiled and run */
    int64_t resumed;     /* of those, taken from an unfinished run */
    int64_t twins;       /* of those, another's module and launch: the
                            other's result, not measured again */
    int64_t unverified;  /* of the ok ones, timed but lost the race and not
                            verified (verify_lazily) */
    int64_t count[ATUNE__ST_COUNT];
    /* wall time: waiting for the compiler, verifying, timing, the final
     * pick's rounds (and merge by evidence's) with their own verifying and
     * timing; the rest of wall_s is the framework (loading modules,
     * search, journal) */
    double wall_s, compile_s, verify_s, measure_s, final_s;
    /* Modules the compile pool made while this size was searched: by
     * NVRTC, and from the disk cache (a pool serves every size of its
     * template, so the counts of a size include what it compiled ahead
     * for the next). warmed: modules of the templates tuned after this
     * one that NVRTC compiled meanwhile, into the module cache (they are
     * counted again as cached where they are used). */
    int64_t compiled, cached, warmed;
    const char *strategy;
    const char *stop;  /* why the search ended */
    /* The final pick's largest disagreement with the search (a
     * candidate's re-measured time over its search time; 0 when none). */
    double final_shift;
    int final_retried; /* it was over the limit and re-measured once */
    double last_ns;    /* the latest evaluation's time (search feedback) */
    double last_spread_ns; /* and its interquartile range */
    /* Merge by evidence: what became of the profile's previous best of
     * this template version (re-measured beside the new best), and the
     * run whose configuration is kept. */
    atune__previous previous;
    double previous_ns; /* its re-measured time; 0 when not measured */
    char run[40];       /* journal run id of the configuration kept */
    int skipped;        /* too large for the GPU's free memory */
    int written;        /* its section is in the profile */
} atune__outcome;

typedef struct atune__tune_run {
    int n;
    atune__outcome *o;
    char profile[4096]; /* the profile written, "" if none */
    char journal[4096];
} atune__tune_run;

/* Tunes every template of t on d. Returns 0, ATUNE__EINTR when
 * atune__tune_interrupt() stopped it (what was measured is in the journal;
 * the profile has every size that finished, and the interrupted size's
 * best where it had no section), or an error code (a sticky CUDA error:
 * the same). Each size's section is written when it finishes. run is
 * filled in every case. */
int atune__tune(atune__device *d, const atune__templates *t,
                const atune__tune_opts *o, atune__tune_run *run,
                atune__err *err);

void atune__tune_run_free(atune__tune_run *run);

/* The best of m at size_key in the profile at path, when the section is
 * of this template version and a configuration valid here: 1 with *c,
 * its space index *idx and the run that found it (run, "earlier" when the
 * section names none); else 0. *seen is what the section was, usable or
 * not, for the write that follows (atune__tune_write_outcome). */
struct atune__pw_seen;
int atune__tune_previous_best(const char *profile, const atune__manifest *m,
                              const char *size_key,
                              const atune__valid_set *valid, atune__config *c,
                              int64_t *idx, char *run, size_t runlen,
                              struct atune__pw_seen *seen);

/* Writes out's section (it found a best) into the profile at path: with
 * seen, only if the section is still as seen (atune__profile_update_if,
 * which sets *changed when it is not), else whatever is there. */
int atune__tune_write_outcome(atune__device *d, const atune__outcome *out,
                              const char *path,
                              const struct atune__pw_seen *seen, int *changed,
                              atune__err *err);

/* tune_progress.c: redraws the progress line of out's size (when
 * o->progress): done of total configurations since t0, the best so far
 * and the ETA; and the line that ends a size (clearing the progress line;
 * failed: the size ended in an error, which says what happened). */
void atune__tune_progress(const atune__tune_opts *o, const atune__outcome *out,
                          int64_t done, int64_t total, double t0);
void atune__tune_summary(const atune__tune_opts *o, const atune__outcome *out,
                         int failed);
/* tune_progress.c: appends out's "# size:" line to journal j (none when
 * j is NULL): its evaluations, the modules compiled for them and where
 * its wall time went, as --json says. */
struct atune__journal;
int atune__tune_journal_size(struct atune__journal *j,
                             const atune__outcome *out, atune__err *err);
/* tune_progress.c: when the final pick was re-measured (its first rounds
 * disagreed with the search), a note, or a warning naming candidate idx
 * when the second rounds disagree too. */
void atune__tune_warn_shift(const atune__tune_opts *o,
                            const atune__outcome *out, int64_t idx);

/* Async-signal-safe: asks a running atune__tune to stop after the current
 * configuration. */
void atune__tune_interrupt(void);

#endif
