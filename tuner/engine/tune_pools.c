/* tune_pools.c -- the compile pools of a tuning run: the order its
 * templates are tuned in, which configurations each template's pool is
 * given, and which configurations of the templates after it the pool
 * compiles into the module cache while its workers are idle (compile.h,
 * atune__pool_warm). */
#include <stdlib.h>
#include <string.h>

#include "engine/compile.h"
#include "engine/resume.h"
#include "engine/tune.h"
#include "search/strategy.h"
#include "template/space.h"

int atune__tune_size_selected(const atune__tune_opts *o, const atune__size *s)
{
    return !o->size || strcmp(o->size, s->name) == 0;
}

const atune__size *atune__tune_first_size(const atune__manifest *m,
                                          const atune__tune_opts *o)
{
    for (int s = 0; s < m->nsizes; s++)
        if (atune__tune_size_selected(o, &m->sizes[s]))
            return &m->sizes[s];
    return NULL;
}

/* A template whose source is at least twice as long as every other's
 * (matmul of the built-ins: 19 KB, the others 3-8 KB) is tuned last; the
 * others keep their order. NVRTC takes longest on it (~0.4 s a module
 * against ~0.1 s), and a template's first size waits for its modules
 * unless the pool warmed them during the templates before
 * (atune__pool_warm): tuned third of five, matmul's first size waited
 * 3.3-6.8 s for NVRTC, tuned last 0.8 s, and the default run took
 * 38.3-39.2 s instead of 42.9 s (one H100, both caches cold each run, two
 * runs each, 2026-11-27). The length of the source is what is known
 * before anything is compiled. */
int atune__tune_order(const atune__templates *t, atune__templates *out,
                      atune__err *err)
{
    size_t longest = 0, second = 0;
    int last = t->n - 1;

    out->n = t->n;
    out->m = atune__calloc((size_t)(t->n > 0 ? t->n : 1), sizeof(*out->m));
    if (!out->m)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    for (int i = 0; i < t->n; i++) {
        size_t len = strlen(t->m[i]->source);
        if (len > longest) {
            second = longest;
            longest = len;
            last = i;
        } else if (len > second) {
            second = len;
        }
    }
    if (longest < 2 * second)
        last = t->n - 1; /* no outlier: the order stays */
    for (int i = 0, k = 0; i < t->n; i++)
        if (i != last)
            out->m[k++] = t->m[i];
    if (t->n > 0)
        out->m[t->n - 1] = t->m[last];
    return 0;
}

/* Whether size s is one the list is for: only, else every selected one. */
static int listed(const atune__tune_opts *o, const atune__size *only,
                  const atune__size *s)
{
    return only ? s == only : atune__tune_size_selected(o, s);
}

/* Whether the unfinished run measured configuration idx at every
 * listed size: then it need not be compiled. */
static int resumed_everywhere(const atune__manifest *m,
                              const atune__size *only,
                              const atune__tune_opts *o,
                              const atune__resume *r, int64_t idx)
{
    atune__config c;
    char cfg[512], key[96];

    if (atune__resume_count(r) == 0)
        return 0;
    atune__space_config(m, idx, &c);
    atune__config_str(m, &c, cfg, sizeof(cfg));
    for (int s = 0; s < m->nsizes; s++) {
        if (!listed(o, only, &m->sizes[s]))
            continue;
        atune__size_key(&m->sizes[s], key, sizeof(key));
        if (!atune__resume_find(r, m->name, key, cfg, m->hash, 0))
            return 0;
    }
    return 1;
}

/* Every configuration valid at any selected size and not measured at all
 * of them by the unfinished run, in index order: what the pool of m is
 * given (brute force compiles them in that order, the order it evaluates
 * them; a search only what it hints at: atune__pool_follow). */
int atune__tune_pool_list(atune__device *d, const atune__manifest *m,
                          const atune__size *only, const atune__tune_opts *o,
                          const atune__resume *r,
                          atune__valid_set *any, atune__err *err)
{
    const atune__devinfo *in = atune__device_info(d);
    atune__valid_set one = {0};
    int64_t n = 0;
    int rc = 0;

    memset(any, 0, sizeof(*any));
    if (!only && m->names_sized)
        only = atune__tune_first_size(m, o);
    for (int s = 0; !rc && s < m->nsizes; s++)
        if (listed(o, only, &m->sizes[s]) &&
            !(rc = atune__space_build(m, &m->sizes[s], &in->attr,
                                      o->quiet ? NULL : m->name, &one, NULL,
                                      err)))
            rc = atune__valid_set_union(any, &one, err);
    for (int64_t i = 0; !rc && i < any->n; i++)
        if (!resumed_everywhere(m, only, o, r, any->index[i]))
            any->index[n++] = any->index[i];
    any->n = n;
    atune__valid_set_free(&one);
    return rc;
}

typedef struct near_default {
    int64_t steps, idx;
} near_default;

static int by_steps(const void *a, const void *b)
{
    const near_default *x = a, *y = b;

    if (x->steps != y->steps)
        return x->steps < y->steps ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The n configurations of list nearest the default configuration (steps:
 * the sum of the parameters' value positions; the default is every
 * parameter's first value), nearest first: where a template's first
 * search climbs from. In index order the last parameter alone varies
 * over the first entries (H200, 2026-11-26: copy's first size still
 * waited 3.2 s with its first 256 in index order compiled ahead). */
static int64_t *nearest_default(const atune__manifest *m,
                                const atune__valid_set *list, int64_t n)
{
    near_default *nd = atune__calloc((size_t)list->n, sizeof(*nd));
    int64_t *out = atune__calloc((size_t)n, sizeof(*out));

    if (!nd || !out) {
        free(nd);
        free(out);
        return NULL;
    }
    for (int64_t k = 0; k < list->n; k++) {
        int64_t idx = list->index[k], steps = 0;
        for (int i = m->nparams - 1; i >= 0; i--) {
            steps += idx % m->params[i].nvalues;
            idx /= m->params[i].nvalues;
        }
        nd[k].steps = steps;
        nd[k].idx = list->index[k];
    }
    qsort(nd, (size_t)list->n, sizeof(*nd), by_steps);
    for (int64_t k = 0; k < n; k++)
        out[k] = nd[k].idx;
    free(nd);
    return out;
}

/* The configurations of list in the order the template's sizes will ask
 * for them: the first selected size's nearest the default first, then
 * each later size's that no size before it had, nearest the default
 * first (nearest_default's order within a size); at most n. Warmed in
 * nearest-default order over all its sizes, matmul, tuned last, still
 * waited 2.5-3.0 s at its first size and 2.6-2.8 s at `odd`, the first
 * size of VEC=2 kernels, for 10-13 modules each that the warming had not
 * reached (H100 and H200 default runs, 2026-11-27, 257-266 of its 367
 * modules warmed when its turn came). */
static int in_size_order(atune__device *d, const atune__manifest *m,
                         const atune__tune_opts *o,
                         const atune__valid_set *list, int64_t n,
                         int64_t **order, atune__err *err)
{
    const atune__devattr *dev = &atune__device_info(d)->attr;
    unsigned char *taken = atune__calloc((size_t)list->n + 1, 1);
    int64_t *out = atune__calloc((size_t)n + 1, sizeof(*out));
    atune__valid_set one = {0};
    int64_t k = 0;
    int rc = 0;

    *order = NULL;
    if (!taken || !out) {
        free(taken);
        free(out);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    for (int s = 0; !rc && k < n && s < m->nsizes; s++) {
        int64_t kept = 0, *near;
        if (!atune__tune_size_selected(o, &m->sizes[s]))
            continue;
        if ((rc = atune__space_build(m, &m->sizes[s], dev, NULL, &one, NULL,
                                     err)))
            break;
        /* in place: what the list has and no size before took */
        for (int64_t i = 0; i < one.n; i++) {
            int64_t at = atune__valid_set_find(list, one.index[i]);
            if (at >= 0 && !taken[at]) {
                taken[at] = 1;
                one.index[kept++] = one.index[i];
            }
        }
        one.n = kept;
        if (kept > n - k)
            kept = n - k;
        if (kept > 0 && !(near = nearest_default(m, &one, kept)))
            rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
        else if (kept > 0) {
            memcpy(out + k, near, (size_t)kept * sizeof(*out));
            k += kept;
            free(near);
        }
        atune__valid_set_free(&one);
    }
    /* What no selected size lists (a resumed run's leftovers): last. */
    for (int64_t i = 0; !rc && k < n && i < list->n; i++)
        if (!taken[i])
            out[k++] = list->index[i];
    free(taken);
    if (rc)
        free(out);
    else
        *order = out;
    return rc;
}

int atune__tune_pool_plan(atune__device *d, const atune__templates *t,
                          const atune__tune_opts *o, const atune__resume *r,
                          atune__pool_plan *plan, atune__err *err)
{
    int64_t n = 0;
    int rc = 0;

    memset(plan, 0, sizeof(*plan));
    plan->n = t->n;
    if (!(plan->lists = atune__calloc((size_t)(t->n > 0 ? t->n : 1),
                                      sizeof(*plan->lists))))
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    for (int i = 0; !rc && i < t->n; i++)
        rc = atune__tune_pool_list(d, t->m[i], NULL, o, r, &plan->lists[i],
                                   err);
    if (!rc && t->n > 0)
        n = plan->lists[t->n - 1].n;
    if (rc || t->n < 2 || !atune__strategy_hints(o->strategy) || n <= 0)
        return rc;
    if (n > ATUNE__POOL_FOLLOW_WHOLE)
        n = ATUNE__POOL_FOLLOW_WHOLE;
    return in_size_order(d, t->m[t->n - 1], o, &plan->lists[t->n - 1], n,
                         &plan->warm_order, err);
}

void atune__tune_pool_plan_free(atune__pool_plan *plan)
{
    for (int i = 0; plan->lists && i < plan->n; i++)
        atune__valid_set_free(&plan->lists[i]);
    free(plan->lists);
    free(plan->warm_order);
    memset(plan, 0, sizeof(*plan));
}

/* Starts template i's pool on its list, and hands it the lists of the
 * templates after it to compile into the module cache when its workers
 * are idle (atune__pool_warm): on the GPU the first size of each
 * template waited for NVRTC while the cores had nothing to do during the
 * sizes before (H200 default run, 2026-11-26: 15 of its 17 s waiting for
 * NVRTC at the first sizes of constmem, copy, matmul and reduce). A
 * follower's next pool starts on at most ATUNE__POOL_FOLLOW_FLOOR of its
 * list, and no more of it is warmed: those nearest the default, where the
 * search starts. In name order, warming 2048 of each took the default
 * run from 42.9 s to 40.2-41.1 s (one H100, both caches cold, 2026-11-27;
 * most of it at reduce's first size); matmul tuned last
 * (atune__tune_order) took it to 38.3-39.2 s with 256, and the two
 * together were not measured. The template tuned last is warmed whole
 * (up to ATUNE__POOL_FOLLOW_WHOLE): matmul with 363 modules over 40 sizes
 * (branch sg36r) took the default run from 65.4-66.9 s to 46.1-51.0 s
 * (one H100, alternating, 2026-11-27), its first sizes no longer waiting
 * for the VEC=2 kernels nothing before them needed; in its sizes' order
 * (in_size_order). */
#define WARM_MAX ATUNE__POOL_FOLLOW_FLOOR

int atune__tune_pool_start(atune__device *d, const atune__templates *t,
                           int i, const atune__size *size,
                           const atune__pool_plan *plan,
                           const atune__tune_opts *o, atune__pool **pool,
                           atune__err *err)
{
    const atune__valid_set *lists = plan->lists;
    const atune__manifest *m = t->m[i];
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames = atune__manifest_kernels(m, names);
    int follow = atune__strategy_hints(o->strategy);
    int rc;

    *pool = NULL;
    if (m->names_sized && !size)
        return 0; /* a pool per size: atune__tune_pool_sized */
    rc = atune__pool_start(m, size, atune__device_info(d)->arch, names, nnames,
                           lists[i].index, lists[i].n, o->threads, o->cache,
                           o->procs, pool, err);
    /* A search compiles what it measures next (compile.h). */
    if (!rc && follow)
        atune__pool_follow(*pool, 0, 0);
    for (int j = i + 1; !rc && j < t->n; j++) {
        int64_t n = lists[j].n, *near;
        const atune__size *first = atune__tune_first_size(t->m[j], o);
        if (!follow) {
            rc = atune__pool_warm(*pool, t->m[j], first, lists[j].index, n,
                                  err);
            continue;
        }
        const int last = j == t->n - 1;
        const int64_t cap = last ? ATUNE__POOL_FOLLOW_WHOLE : WARM_MAX;
        if (n > cap)
            n = cap;
        if (last && plan->warm_order) { /* n of them: atune__tune_pool_plan */
            rc = atune__pool_warm(*pool, t->m[j], first, plan->warm_order, n,
                                  err);
            continue;
        }
        if (n > 0 && !(near = nearest_default(t->m[j], &lists[j], n))) {
            rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
            break;
        }
        if (n > 0) {
            rc = atune__pool_warm(*pool, t->m[j], first, near, n, err);
            free(near);
        }
    }
    if (rc && *pool) {
        atune__pool_free(*pool);
        *pool = NULL;
    }
    return rc;
}

int atune__tune_pool_sized(atune__device *d, const atune__templates *t,
                           int i, const atune__size *s, atune__pool_plan *plan,
                           const atune__tune_opts *o, const atune__resume *r,
                           atune__pool **pool, atune__err *err)
{
    int rc;

    atune__pool_free(*pool);
    *pool = NULL;
    atune__valid_set_free(&plan->lists[i]);
    if ((rc = atune__tune_pool_list(d, t->m[i], s, o, r, &plan->lists[i], err)))
        return rc;
    return atune__tune_pool_start(d, t, i, s, plan, o, pool, err);
}
