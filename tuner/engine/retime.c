/* retime.c -- configurations timed side by side (see retime.h). */
#include "engine/retime.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats.h"

/* Compiles and loads configuration c of m for d; *k stays NULL (and
 * res says compile_error) when it does not compile. */
static int load(atune__device *d, const atune__manifest *m,
                const atune__config *c, atune__cache *cache,
                atune__kernel **k, atune__result *res, atune__err *err)
{
    const char *names[ATUNE__JIT_MAX_NAMES];
    atune__cubin cubin = {0};
    int rc;

    *k = NULL;
    /* The steps' kernels: the reference, when it is one, is not needed. */
    rc = atune__device_compile(d, cache, m, c, names,
                               atune__manifest_kernels(m, names), &cubin, err);
    if (rc == ATUNE__EDATA) {
        res->status = ATUNE__ST_COMPILE_ERROR;
        atune__err_clear(err);
        return 0;
    }
    if (!rc)
        rc = atune__kernel_load(d, m, &cubin, k, res, err);
    atune__cubin_free(&cubin);
    return rc;
}

int atune__retime(atune__device *d, const atune__manifest *m,
                  const atune__size *size, const atune__config *c, int n,
                  const atune__timing *t, uint64_t seed, atune__cache *cache,
                  double *time_ns, atune__result *res, atune__err *err)
{
    enum { R = ATUNE__RETIME_ROUNDS };
    atune__problem *p = NULL;
    atune__kernel **k = atune__calloc((size_t)n + 1, sizeof(*k));
    double *s = atune__calloc((size_t)n * R + 1, sizeof(*s));
    int rc = 0;

    if (!k || !s) {
        free(k);
        free(s);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    memset(res, 0, sizeof(*res) * (size_t)n);
    rc = atune__problem_open(d, m, size, seed, &p, err);
    for (int i = 0; !rc && i < n; i++) {
        atune__config at = c[i];
        atune__config_at_size(m, &at, size); /* a name that reads it */
        rc = load(d, m, &at, cache, &k[i], &res[i], err);
    }
    for (int r = 0; !rc && r < R; r++)
        for (int i = 0; !rc && i < n; i++) {
            s[i * R + r] = INFINITY;
            if (!k[i])
                continue;
            rc = atune__problem_eval(p, k[i], &c[i], t, &res[i], err);
            if (!rc && res[i].status == ATUNE__ST_OK)
                s[i * R + r] = res[i].time_ns;
        }
    for (int i = 0; !rc && i < n; i++) {
        atune__summary sum;
        atune__summarize(&s[i * R], R, &sum);
        time_ns[i] = sum.median;
        /* One failed round is a failure: the configuration is not safe
         * to keep, whatever the other rounds measured. */
        for (int r = 0; r < R; r++)
            if (!isfinite(s[i * R + r]))
                time_ns[i] = INFINITY;
        res[i].time_ns = time_ns[i];
        res[i].metric = isfinite(time_ns[i])
                            ? atune__problem_work(p) / time_ns[i]
                            : 0;
    }
    for (int i = 0; i < n; i++)
        atune__kernel_unload(k[i]);
    atune__problem_close(p);
    free(k);
    free(s);
    return rc;
}
