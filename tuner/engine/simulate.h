/* simulate.h -- replay of a results journal: a recorded brute-force run
 * stands in for the GPU, so that strategies can be run, compared and
 * tested without one (autotune tune --simulate, tests/eval_strategies.c). */
#ifndef ATUNE_SIMULATE_H
#define ATUNE_SIMULATE_H

#include <stdint.h>

#include "base/util.h"
#include "engine/journal.h"
#include "template/manifest.h"

/* The recorded space of one template at one size. */
typedef struct atune__sim {
    const atune__manifest *m;
    char size_key[96];
    int64_t total;            /* atune__space_size(m) */
    unsigned char *valid;     /* total entries: recorded, status not invalid */
    double *time_ns;          /* total entries: recorded median time, INFINITY
                                 when the status is not ok, NAN when absent */
    unsigned char *seen;      /* total entries: evaluated in this replay */
    int64_t space;            /* configurations with valid[] set */
    int64_t ok;               /* of them with status ok */
    int64_t optimum;          /* index of the best ok record; -1 when none */
    double optimum_ns;        /* its time; INFINITY when none */
    double optimum_spread_ns; /* its recorded interquartile range */
    double *spread_ns;        /* total entries: recorded interquartile range */
    int64_t evaluations;      /* eval calls since open or reset */
} atune__sim;

/* One (kernel, size) of a journal; strings point into the records. */
typedef struct atune__sim_pair {
    const char *kernel;
    const char *size_key;
    int line;       /* first record of the pair */
    const int *rec; /* indices of its records in recs, in file order */
    int nrec;
} atune__sim_pair;

/* The distinct (kernel, size key) pairs of recs, in the order of their
 * first record, each with its records: time linear in n. *out is one
 * malloc'ed block, the pairs' index arrays included (NULL when n is 0). */
int atune__sim_pairs(const atune__record *recs, int n, atune__sim_pair **out,
                     int *npairs, atune__err *err);

/* Builds the replay of m at size_key from the records of path (recs, n):
 * those whose kernel is m->name and whose size is size_key. When a
 * configuration was recorded several times the last record wins. Errors
 * (ATUNE__EDATA, "path:LINE: ..."): a record of another template version
 * (template_hash differs from m->hash) or a configuration that is not in
 * m's space. On error s is left closed. */
int atune__sim_open(atune__sim *s, const atune__manifest *m,
                    const char *size_key, const atune__record *recs, int n,
                    const char *path, atune__err *err);

/* atune__sim_open of pair p of atune__sim_pairs(recs, ...): reads only
 * the pair's records, so that replaying every pair of a journal is linear
 * in its records. */
int atune__sim_open_pair(atune__sim *s, const atune__manifest *m,
                         const atune__sim_pair *p, const atune__record *recs,
                         const char *path, atune__err *err);

void atune__sim_close(atune__sim *s);

/* Forgets what the last replay evaluated, for another one. */
void atune__sim_reset(atune__sim *s);

/* The recorded time and spread of idx (an atune__eval_fn; ctx is the
 * atune__sim). A configuration that is not valid or was evaluated since
 * the last reset is a strategy bug: ATUNE__ESOFTWARE. */
int atune__sim_eval(void *ctx, int64_t idx, double *time_ns, double *spread_ns,
                    atune__err *err);

/* The recorded times again (an atune__remeasure_fn): a replay has no
 * noise to average away. */
int atune__sim_remeasure(void *ctx, const int64_t *idx, int k, double *time_ns,
                         atune__err *err);

#endif
