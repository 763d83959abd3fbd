/* profile_merge.h -- `autotune merge OUT IN...`: profiles of one GPU model,
 * tuned apart (the nodes of a cluster, runs with other budgets), combined
 * section by section into OUT, keeping of each (kernel, size) the better
 * configuration by evidence.
 *
 * The candidates of a section are OUT's own (when OUT exists) and every
 * input's. Sections that are the same but for the merge's own keys
 * (merged_*) count once. When they all hold one configuration (template
 * version and parameters) the record with the lowest time_ns is kept.
 * When they disagree, the configurations are timed side by side on a GPU
 * of the model (the retime hook; merged_by = retimed), or, without one or
 * where they cannot be timed here, compared by their recorded time_ns
 * (merged_by = recorded_time). A section's own record (time_ns, run,
 * metric...) is kept as its run wrote it; the merge adds
 *
 *   merged_from       the file the kept section came from (kept once set)
 *   merged_by         retimed, recorded_time or same_config
 *   merged_set        N:HASH of the N configurations decided between
 *   merged_time_ns    the kept configuration's time as the merge saw it
 *   merged_other_ns   the fastest other configuration's (when there is one)
 *   merged_other_from and the file it came from.
 *
 * A section whose merged_set already covers exactly the configurations at
 * hand (decided by re-timing, or by recorded time when no GPU is given) is
 * kept as it is: merging the output again changes nothing, byte for byte.
 * [device] is OUT's (else the first input's), dated with the latest date
 * of all, without a uuid unless all that have one agree. */
#ifndef ATUNE_PROFILE_MERGE_H
#define ATUNE_PROFILE_MERGE_H

#include <stdint.h>
#include <stdio.h>

#include "atune/atune.h"
#include "base/util.h"

/* One input profile, opened by the caller (which checked its values). */
typedef struct atune__merge_in {
    const char *path; /* as given: the provenance written to merged_from */
    atune_profile *p;
} atune__merge_in;

/* Times the n configurations c of kernel at size_key side by side:
 * time_ns[i], INFINITY when configuration i failed here. *timed = 0 (and
 * why, whylen bytes) when they cannot be timed here: the merge then goes
 * by recorded time. Returns 0 or an error (the merge stops, OUT as it
 * was). */
typedef int (*atune__merge_retime_fn)(void *ctx, const char *kernel,
                                      const char *size_key,
                                      const atune_config *const *c, int n,
                                      double *time_ns, int *timed, char *why,
                                      size_t whylen, atune__err *err);

typedef struct atune__merge_opts {
    int force_models;              /* merge profiles of other GPU models */
    atune__merge_retime_fn retime; /* NULL: by recorded time */
    void *retime_ctx;
    FILE *log; /* one line per section decided, and notes; NULL: none */
} atune__merge_opts;

typedef struct atune__merge_stats {
    int sections;  /* sections written */
    int decided;   /* of them, chosen between configurations now */
    int retimed;   /* of those, by re-timing */
    int unchanged; /* OUT was already the result: not rewritten */
} atune__merge_stats;

/* Merges in[0..n) into the profile at out, under out's lock (the profile
 * writer's), replacing it atomically; OUT is read under the lock. Returns
 * 0 or: ATUNE__EDATA another GPU model (without force_models), an OUT that
 * does not parse, or a result that would not read back; ATUNE__ENOINPUT an
 * OUT that cannot be read; ATUNE__ECANTCREAT, ATUNE__EIO writing; the
 * retime hook's error. On any error OUT is as it was. */
int atune__profile_merge(const char *out, const atune__merge_in *in, int n,
                         const atune__merge_opts *o, atune__merge_stats *st,
                         atune__err *err);

/* ---- the retime hook on a GPU (merge_retime.c) ---- */

struct atune__device;
struct atune__templates;
struct atune__cache;

typedef struct atune__merge_gpu {
    struct atune__device *d;        /* open, of the profiles' model */
    const struct atune__templates *t; /* the templates the sections name */
    struct atune__cache *cache;     /* may be NULL */
    uint64_t seed;                  /* input data */
} atune__merge_gpu;

/* An atune__merge_retime_fn, ctx an atune__merge_gpu: the configurations
 * timed side by side (retime.h) when t has the kernel, the size and the
 * template version (template_hash) of every one of them. */
int atune__merge_retime_gpu(void *ctx, const char *kernel,
                            const char *size_key, const atune_config *const *c,
                            int n, double *time_ns, int *timed, char *why,
                            size_t whylen, atune__err *err);

#endif
