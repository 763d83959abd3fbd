/* compile_model.h -- a timed model of the compile pool following a search
 * (engine/compile.c's next_job with atune__pool_follow's defaults), for
 * tests/eval_strategies --pipeline: what a replayed search would wait for
 * NVRTC when every compile takes about compile_s on each of `workers`
 * workers and every evaluation eval_s on the GPU. It lets a change to the
 * hints be weighed on recorded spaces before a GPU is spent on it. */
#ifndef ATUNE_TESTS_COMPILE_MODEL_H
#define ATUNE_TESTS_COMPILE_MODEL_H

#include <stdint.h>

typedef struct cmodel_opts {
    double compile_s; /* mean; each module's cost is 0.7-1.3 times it */
    double eval_s;
    int workers;
    int window;    /* compile.c: the workers' count */
    int64_t floor; /* compile.c: ATUNE__POOL_FOLLOW_FLOOR */
} cmodel_opts;

typedef struct cmodel cmodel;

/* valid: total entries, the configurations the pool was given. NULL on
 * allocation failure. */
cmodel *cmodel_open(const cmodel_opts *o, int64_t total,
                    const unsigned char *valid);
void cmodel_close(cmodel *m);
/* The search's hint: compile.c's atune__pool_prefetch. */
void cmodel_hint(cmodel *m, const int64_t *idx, int n);
/* The search evaluates idx: waits for its module, then eval_s. */
void cmodel_eval(cmodel *m, int64_t idx);
/* Wall time, time waiting for a module, modules started. */
void cmodel_totals(const cmodel *m, double *wall, double *wait,
                   int64_t *started);

#endif
