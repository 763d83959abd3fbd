/* compile.c -- the compile pool (see compile.h). */
#include "engine/compile.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/compile_procs.h"
#include "template/space.h"

#define MAX_THREADS 64
#define MAX_SOON 64
#define NBUCKETS 4096 /* module keys: chains stay short for a chunk */

/* Hinted configurations compiled ahead of a search (atune__pool_follow).
 * A climb abandons the rest of its neighbourhood when it moves, so what
 * was compiled ahead of that is waste: replayed on the design journals
 * (tests/eval_strategies --defaults --window W, 20 seeds), modules per
 * evaluation were 1.06 / 1.25 / 1.42 / 1.58 / 1.73 / 2.11 / 2.52 on
 * average (largest run 2.08 at W = 4, 2.31 at 5) for W = 1, 2, 3, 4, 5,
 * 8, 16. Four ahead cover a compile of ~0.12 s behind measurements of
 * ~30 ms (H100 default run, 2026-11-25) and keep under 2 per
 * evaluation. But a window of 4 leaves most of a 16-core machine idle:
 * the H100's cold default run (2026-11-26) waited 66.6 of its 108 s for
 * NVRTC, matmul 36 of 50 s. So the window is at least the workers' count,
 * and workers left idle go on in index order within a budget: a
 * follower starts at most twice as many compiles as the search has
 * asked for configurations, or FOLLOW_FLOOR. Budgeted from one per
 * worker, the first size of each kernel still waited (H100, 2026-11-26:
 * matmul 20.8 s of 22 s at 4096^3, the compiles held to twice its
 * requests): a space of up to FOLLOW_FLOOR configurations is compiled
 * whole from the start, as brute force does, and a larger one at most
 * twice what its search evaluates, or FOLLOW_FLOOR (within_budget says
 * how that is spent). */
#define DEFAULT_WINDOW 4
#define FOLLOW_FLOOR ATUNE__POOL_FOLLOW_FLOOR
#define MAX_WARM 64

enum { PENDING, RUNNING, DONE };

/* Configurations of a template tuned after the pool's (atune__pool_warm). */
typedef struct warm_list {
    const atune__manifest *m;
    const atune__size *size; /* what m's names read (names_sized), or NULL */
    int64_t *idx;
    int64_t n, next;
} warm_list;

typedef struct atune__pool atune__pool_t;

typedef struct worker_arg {
    atune__pool_t *p;
    int self;
} worker_arg;

typedef struct job {
    struct job *next_extra; /* jobs compiled on demand, not submitted */
    struct job *next_key;   /* the chain of its module key's bucket */
    uint64_t key;           /* what decides its module (module_key) */
    struct job *same;       /* the job whose module this one is, or NULL */
    int refs;               /* jobs whose `same` is this one, not released */
    int released;           /* released by the consumer */
    int keyed;              /* key computed (twin_of) */
    int freed;              /* its result is gone (released, refs 0) */
    int asked;              /* atune__pool_get asked for it */
    int64_t idx;
    int state;
    atune__cubin cubin;
    char *error; /* compile error, or NULL */
} job;

struct atune__pool {
    const atune__manifest *m;
    const atune__size *size; /* what m's names read (names_sized), or NULL */
    char arch[16];
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames;
    int64_t n, next;
    job *jobs;
    pthread_mutex_t lock;
    pthread_cond_t done;
    pthread_cond_t work; /* new jobs for idle workers */
    pthread_t th[MAX_THREADS];
    worker_arg args[MAX_THREADS];
    int nthreads;
    atune__cache *cache;
    atune__procs *procs; /* one child process per thread, or NULL */
    job **urgent;        /* jobs a consumer waits for, newest last */
    job *soon[MAX_SOON]; /* wanted soon (atune__pool_prefetch), in order */
    int nsoon, isoon;
    job *extra;          /* configurations asked for but not submitted */
    int64_t nurgent;
    job *bucket[NBUCKETS]; /* compiled modules by key */
    int64_t shared;        /* jobs that took another job's module */
    int stop;
    int in_order;        /* workers go on in index order when idle */
    int window;          /* hinted jobs compiled ahead, at most */
    int64_t requests;    /* configurations asked for (atune__pool_get) */
    int64_t started;     /* jobs taken by a worker or a consumer */
    int floor;           /* a follower's budget at least (pool_follow) */
    int64_t compiled;    /* jobs done by NVRTC (not the disk cache) */
    int64_t cached;      /* jobs the disk cache answered */
    warm_list warm[MAX_WARM]; /* atune__pool_warm, in order */
    int nwarm, iwarm;
    int64_t warmed;      /* of them, compiled by NVRTC */
    int fatal;
    atune__err fatal_err;
    double cpu_s;
};

int atune__pool_default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static void compile_job(atune__pool *p, job *jb, int self);

/* What decides a configuration's module besides the template: the values
 * of the parameters passed as macros, of the [macros] computed from them,
 * and the name expressions with the values substituted. Configurations
 * that differ only in launch-only parameters (or in parameters the names
 * do not use, with param_macros = no) have the same key, the same cache
 * key and the same CUBIN, so one compile serves them all. */
static uint64_t manifest_key(const atune__manifest *m,
                             const char *const *names, int nnames,
                             const atune__config *c)
{
    atune__jit_name_buf text[ATUNE__JIT_MAX_NAMES];
    const char *subst[ATUNE__JIT_MAX_NAMES];
    atune__err err;
    uint64_t h = ATUNE__FNV_SEED;

    int64_t mv[ATUNE__MAX_MACROS];

    for (int i = 0; i < m->nparams; i++)
        if (m->params[i].macro)
            h = atune__fnv1a(&c->v[i], sizeof(c->v[i]), h);
        else
            h = atune__fnv1a("-", 1, h);
    if (atune__macro_values(m, c->v, mv, &err))
        return 0; /* 0: not shared; the compile reports the error */
    h = atune__fnv1a(mv, sizeof(mv[0]) * (size_t)m->nmacros, h);
    if (atune__jit_names(m, c, names, nnames, text, subst, &err))
        return 0; /* 0: not shared; the compile reports the error */
    for (int i = 0; i < nnames; i++)
        h = atune__fnv1a(subst[i], strlen(subst[i]) + 1, h);
    return h ? h : 1;
}

/* Configuration idx of the pool's template at the pool's size. */
static void pool_config(const atune__pool *p, int64_t idx, atune__config *c)
{
    atune__space_config(p->m, idx, c);
    atune__config_at_size(p->m, c, p->size);
}

static uint64_t module_key(const atune__pool *p, const atune__config *c)
{
    return manifest_key(p->m, p->names, p->nnames, c);
}

static void unkey(atune__pool *p, job *jb)
{
    for (job **o = &p->bucket[jb->key % NBUCKETS]; *o; o = &(*o)->next_key)
        if (*o == jb) {
            *o = jb->next_key;
            return;
        }
}

static job *keyed_job(atune__pool *p, uint64_t key)
{
    for (job *o = p->bucket[key % NBUCKETS]; o; o = o->next_key)
        if (o->key == key)
            return o;
    return NULL;
}

/* The job that made, or is making, jb's module; NULL for none (or jb).
 * Called with the lock held. */
static job *twin_of(atune__pool *p, job *jb)
{
    job *o;

    if (!jb->keyed) {
        atune__config c;
        pool_config(p, jb->idx, &c);
        jb->key = module_key(p, &c);
        jb->keyed = 1;
    }
    if (jb->key == 0 || !(o = keyed_job(p, jb->key)) || o == jb)
        return NULL;
    return o;
}

/* A job to take now: pending, and its module not being compiled by
 * another worker (a worker taking it would only wait: sharers of a
 * launch-only parameter's module are neighbours in index order, so idle
 * workers took them together and waited on one compile; H100 cold run,
 * 2026-11-26: 80 s, 46% waiting for NVRTC). Left pending, such a job
 * takes the module at once when it is asked for. */
static int takeable(atune__pool *p, job *jb)
{
    job *o;

    /* In index order every job must be taken (the workers end with the
     * list), so only a follower leaves one behind. */
    return jb->state == PENDING &&
           (p->in_order || !((o = twin_of(p, jb)) && o->state == RUNNING));
}

/* Whether a follower spends its floor at once and then compiles its list
 * in index order: when the floor covers at least an eighth of the list
 * (ATUNE__POOL_FOLLOW_WHOLE), a short search then finds most of what it
 * asks for compiled. The built-in default run (lists of 315-1890) took
 * 34.2-36.4 s so, 39.4-40.8 s paced (H200, both caches cold, 2026-11-27). */
static int whole(const atune__pool *p)
{
    return p->n <= (int64_t)ATUNE__POOL_FOLLOW_WHOLE / FOLLOW_FLOOR * p->floor;
}

/* A follower's budget: twice the configurations asked for, or its floor.
 * A longer list spends the floor at most ATUNE__POOL_FOLLOW_AHEAD
 * compiles ahead of the requests. Spent at once, on the hints of the
 * first evaluations and then in index order, it left the search nothing
 * to compile ahead with until its requests had caught up (128
 * evaluations), and each ask in between waited for a whole compile: the
 * benchmark hub's dedispersion (11130 configurations) waited 25.4% of its
 * cold run for NVRTC so, 12.9-14.3% paced with the hints of greedy_ils.c
 * (H200, 2026-11-27); tests/eval_strategies --pipeline shows the same on
 * the design spaces (34% and 21%, compiles as long as evaluations). */
static int within_budget(const atune__pool *p)
{
    if (p->started < 2 * p->requests)
        return 1;
    if (whole(p))
        return p->started < p->floor;
    return p->started < p->floor &&
           p->started < p->requests + ATUNE__POOL_FOLLOW_AHEAD;
}

/* The next job: one a consumer waits for, else one wanted soon, else the
 * next in order. Called with the lock held; NULL when there is none left. */
static job *next_job(atune__pool *p)
{
    while (p->nurgent > 0) {
        job *jb = p->urgent[--p->nurgent];
        if (jb->state == PENDING)
            return jb;
    }
    if (!p->in_order && p->floor >= 0 && !within_budget(p))
        return NULL;
    while (p->isoon < p->nsoon && (p->in_order || p->isoon < p->window)) {
        job *jb = p->soon[p->isoon++];
        if (takeable(p, jb))
            return jb;
    }
    /* Within the budget, the rest of the list before index order: where
     * the search goes after the window (greedy_ils: the neighbours of
     * its next candidates), not the space's order. */
    while (!p->in_order && p->floor >= 0 && p->isoon < p->nsoon) {
        job *jb = p->soon[p->isoon++];
        if (takeable(p, jb))
            return jb;
    }
    while ((p->in_order || (p->nsoon > 0 && p->floor >= 0 && whole(p))) &&
           p->next < p->n) {
        job *jb = &p->jobs[p->next++];
        if (takeable(p, jb))
            return jb;
    }
    return NULL;
}

/* A configuration of a later template for worker self, when it has
 * nothing else to do and is not one of those kept free for what a
 * consumer will ask: a warm compile takes a worker for as long as a
 * compile of the pool's own (matmul's: ~0.3 s). Called with the lock
 * held. */
static int next_warm(atune__pool *p, int self, const atune__manifest **m,
                     const atune__size **size, int64_t *idx)
{
    if (self < (p->nthreads + 3) / 4)
        return 0;
    for (; p->iwarm < p->nwarm; p->iwarm++) {
        warm_list *w = &p->warm[p->iwarm];
        if (w->next < w->n) {
            *m = w->m;
            *size = w->size;
            *idx = w->idx[w->next++];
            return 1;
        }
    }
    return 0;
}

/* Compiles configuration idx of template m into the module cache, in
 * worker self's child; called and returns with the lock held. The module
 * itself is dropped: a compile error is met again, and reported, when m
 * is tuned. */
static void warm_job(atune__pool *p, const atune__manifest *m,
                     const atune__size *size, int64_t idx, int self)
{
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames = atune__manifest_kernels(m, names);
    atune__cubin cubin;
    atune__config c;
    atune__err err;
    double t0;
    int rc, hit = 0;

    memset(&cubin, 0, sizeof(cubin));
    atune__space_config(m, idx, &c);
    atune__config_at_size(m, &c, size);
    pthread_mutex_unlock(&p->lock);
    t0 = atune__now();
    rc = atune__procs_compile(p->procs, self, m, &c, p->arch, names, nnames,
                              &cubin, &hit, &err);
    if (!rc)
        atune__cubin_free(&cubin);
    pthread_mutex_lock(&p->lock);
    p->cpu_s += atune__now() - t0;
    if (!hit && (!rc || rc == ATUNE__EDATA))
        p->warmed++;
}

static void *worker(void *arg)
{
    worker_arg *wa = arg;
    atune__pool *p = wa->p;
    const atune__manifest *wm;
    const atune__size *wsize;
    int64_t widx;
    job *jb;

    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        if ((jb = next_job(p)) != NULL)
            compile_job(p, jb, wa->self);
        else if (next_warm(p, wa->self, &wm, &wsize, &widx))
            warm_job(p, wm, wsize, widx, wa->self);
        else if (p->in_order && p->next >= p->n)
            break; /* everything submitted is done or taken */
        else
            pthread_cond_wait(&p->work, &p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Compiles one job, in thread self's child process when there are
 * children (self -1: in this thread); called and returns with the lock
 * held. */
static void compile_job(atune__pool *p, job *jb, int self)
{
    atune__config c;
    atune__err err;
    double t0;
    int rc, hit = 0;

    jb->state = RUNNING;
    pool_config(p, jb->idx, &c);
    if (!jb->keyed) {
        jb->key = module_key(p, &c);
        jb->keyed = 1;
    }
    if (jb->key != 0) {
        job *o = twin_of(p, jb);
        while (o && o->state != DONE && !p->fatal)
            pthread_cond_wait(&p->done, &p->lock);
        if (o)
            p->shared++; /* the module was made, whether shared or not */
        /* The same module: this job points at it, nothing is copied. A
         * freed one is compiled again (the module cache answers) and
         * takes its place. */
        if (o && o->state == DONE && !o->freed) {
            jb->same = o;
            o->refs++;
            jb->state = DONE;
            pthread_cond_broadcast(&p->done);
            return;
        }
        if (o)
            unkey(p, o);
        jb->next_key = p->bucket[jb->key % NBUCKETS];
        p->bucket[jb->key % NBUCKETS] = jb;
    }
    p->started++; /* a compile: what a follower's budget counts */
    pthread_mutex_unlock(&p->lock);
    t0 = atune__now();
    /* The disk cache answers configurations compiled by an earlier run. */
    if (p->procs && self >= 0)
        rc = atune__procs_compile(p->procs, self, p->m, &c, p->arch, p->names,
                                  p->nnames, &jb->cubin, &hit, &err);
    else
        rc = atune__jit_compile_cached(p->cache, p->m, &c, p->arch, p->names,
                                       p->nnames, &jb->cubin, &hit, &err);
    if (rc == ATUNE__EDATA)
        jb->error = atune__strdup(err.msg);
    pthread_mutex_lock(&p->lock);
    p->cpu_s += atune__now() - t0;
    if (hit)
        p->cached++;
    else if (!rc || rc == ATUNE__EDATA)
        p->compiled++;
    if ((rc && rc != ATUNE__EDATA) || (rc == ATUNE__EDATA && !jb->error)) {
        if (!p->fatal) {
            p->fatal = rc == ATUNE__EDATA ? ATUNE__EOSERR : rc;
            p->fatal_err = err;
        }
    }
    jb->state = DONE;
    pthread_cond_broadcast(&p->done);
}

int atune__pool_start(const atune__manifest *m, const atune__size *size,
                      const char *arch,
                      const char *const *names, int nnames,
                      const int64_t *index, int64_t n, int threads,
                      atune__cache *cache, atune__procs *procs,
                      atune__pool **out, atune__err *err)
{
    atune__pool *p = atune__calloc(1, sizeof(*p));

    *out = NULL;
    if (!p || !(p->jobs = atune__calloc((size_t)n + 1, sizeof(*p->jobs))) ||
        !(p->urgent = atune__calloc((size_t)n + 1, sizeof(*p->urgent)))) {
        if (p)
            free(p->jobs);
        free(p);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    p->m = m;
    p->size = m->names_sized ? size : NULL;
    p->cache = cache;
    p->procs = procs;
    atune__strlcpy(p->arch, arch, sizeof(p->arch));
    p->nnames = nnames > ATUNE__JIT_MAX_NAMES ? ATUNE__JIT_MAX_NAMES : nnames;
    memcpy(p->names, names, sizeof(*names) * (size_t)p->nnames);
    p->n = n;
    for (int64_t i = 0; i < n; i++)
        p->jobs[i].idx = index[i];
    p->in_order = 1;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->done, NULL);
    pthread_cond_init(&p->work, NULL);
    if (threads <= 0)
        threads = atune__pool_default_threads();
    if (procs)
        threads = atune__procs_count(procs);
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    for (; p->nthreads < threads; p->nthreads++) {
        worker_arg *wa = &p->args[p->nthreads];
        wa->p = p;
        wa->self = p->nthreads;
        if (pthread_create(&p->th[p->nthreads], NULL, worker, wa) != 0)
            break;
    }
    if (p->nthreads == 0) {
        atune__pool_free(p);
        return atune__fail(err, ATUNE__EOSERR, "cannot start compile threads");
    }
    *out = p;
    return 0;
}

/* The submitted job of idx by binary search (jobs are in submission
 * order, which callers give sorted by index), or NULL. */
static job *find_submitted(atune__pool *p, int64_t idx)
{
    int64_t lo = 0, hi = p->n - 1;

    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (p->jobs[mid].idx == idx)
            return &p->jobs[mid];
        if (p->jobs[mid].idx < idx)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

static job *find(atune__pool *p, int64_t idx)
{
    job *jb = find_submitted(p, idx);

    if (jb)
        return jb;
    for (int64_t i = 0; i < p->n; i++) /* unsorted submissions */
        if (p->jobs[i].idx == idx)
            return &p->jobs[i];
    for (job *e = p->extra; e; e = e->next_extra)
        if (e->idx == idx)
            return e;
    return NULL;
}

/* A configuration that was not submitted (a resumed run skips what its
 * journal holds, and then re-times a winner): compiled here, kept like
 * the others. Called with the lock held. */
static job *extra_job(atune__pool *p, int64_t idx)
{
    job *jb = atune__calloc(1, sizeof(*jb));

    if (!jb)
        return NULL;
    jb->idx = idx;
    jb->state = PENDING;
    jb->next_extra = p->extra;
    p->extra = jb;
    compile_job(p, jb, -1);
    return jb;
}

int atune__pool_get(atune__pool *p, int64_t idx, const atune__cubin **cubin,
                    const char **error, atune__err *err)
{
    job *jb;
    int rc = 0;

    *cubin = NULL;
    *error = NULL;
    pthread_mutex_lock(&p->lock);
    if (!(jb = find(p, idx)) && !(jb = extra_job(p, idx))) {
        pthread_mutex_unlock(&p->lock);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    /* The budget counts configurations, not gets: a winner verified after
     * its race, or re-timed by the final pick, is asked for again. */
    if (!jb->asked) {
        jb->asked = 1;
        p->requests++;
        if (!p->in_order)
            pthread_cond_broadcast(&p->work); /* the budget grew */
    }
    /* A search that jumps around the space should not wait for the
     * workers to reach its configuration in index order: the next free
     * worker takes it (or this thread, when the compiles are in-process
     * anyway). */
    /* Its module being compiled: wait for it rather than a worker. */
    for (job *o; jb->state == PENDING && (o = twin_of(p, jb)) &&
                 o->state == RUNNING && !p->fatal;)
        pthread_cond_wait(&p->done, &p->lock);
    if (jb->state == PENDING && !p->procs)
        compile_job(p, jb, -1);
    else if (jb->state == PENDING) {
        p->urgent[p->nurgent++] = jb;
        pthread_cond_signal(&p->work);
    }
    while (jb->state != DONE && !p->fatal)
        pthread_cond_wait(&p->done, &p->lock);
    if (jb->state != DONE) {
        *err = p->fatal_err;
        rc = p->fatal;
    }
    pthread_mutex_unlock(&p->lock);
    if (rc)
        return rc;
    if (jb->same)
        jb = jb->same; /* kept while jb is not released */
    if (jb->error)
        *error = jb->error;
    else
        *cubin = &jb->cubin;
    return 0;
}

void atune__pool_prefetch(atune__pool *p, const int64_t *idx, int n)
{
    pthread_mutex_lock(&p->lock);
    p->nsoon = p->isoon = 0;
    for (int i = 0; i < n && p->nsoon < MAX_SOON; i++) {
        /* Done ones too: the window counts positions of the list. */
        job *jb = find_submitted(p, idx[i]);
        if (jb)
            p->soon[p->nsoon++] = jb;
    }
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
}

void atune__pool_release(atune__pool *p, int64_t idx)
{
    job *jb;

    pthread_mutex_lock(&p->lock);
    if ((jb = find(p, idx)) && jb->state == DONE && !jb->released) {
        jb->released = 1;
        if (jb->same) {
            jb->same->refs--;
            jb = jb->same;
        }
        /* An owner's module lives on while a sharer may still use it. */
        if (jb->released && jb->refs == 0 && !jb->freed) {
            jb->freed = 1;
            atune__cubin_free(&jb->cubin);
            free(jb->error);
            jb->error = NULL;
        }
    }
    pthread_mutex_unlock(&p->lock);
}

void atune__pool_follow(atune__pool *p, int window, int floor)
{
    pthread_mutex_lock(&p->lock);
    p->in_order = 0;
    p->window = window > 0 ? window
                : p->nthreads > DEFAULT_WINDOW ? p->nthreads
                                               : DEFAULT_WINDOW;
    p->floor = floor != 0 ? floor : FOLLOW_FLOOR;
    pthread_mutex_unlock(&p->lock);
}

int atune__pool_warm(atune__pool *p, const atune__manifest *m,
                     const atune__size *size, const int64_t *index, int64_t n,
                     atune__err *err)
{
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames = atune__manifest_kernels(m, names);
    uint64_t *seen;
    warm_list w = {m, m->names_sized ? size : NULL, NULL, 0, 0};
    int64_t cap = 1;

    if (!p->procs || !p->cache || n <= 0 || p->nwarm >= MAX_WARM)
        return 0;
    while (cap < 2 * n)
        cap *= 2;
    w.idx = atune__calloc((size_t)n, sizeof(*w.idx));
    seen = atune__calloc((size_t)cap, sizeof(*seen));
    if (!w.idx || !seen) {
        free(w.idx);
        free(seen);
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    }
    /* One configuration per module: twins would only be cache hits. */
    for (int64_t i = 0; i < n; i++) {
        atune__config c;
        uint64_t key;
        int64_t h;
        atune__space_config(m, index[i], &c);
        atune__config_at_size(m, &c, w.size);
        key = manifest_key(m, names, nnames, &c);
        for (h = (int64_t)(key % (uint64_t)cap); key && seen[h] && seen[h] != key;
             h = (h + 1) % cap)
            ;
        if (key && seen[h] == key)
            continue;
        if (key)
            seen[h] = key;
        w.idx[w.n++] = index[i];
    }
    free(seen);
    pthread_mutex_lock(&p->lock);
    p->warm[p->nwarm++] = w;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

int64_t atune__pool_warmed(atune__pool *p)
{
    int64_t n;

    pthread_mutex_lock(&p->lock);
    n = p->warmed;
    pthread_mutex_unlock(&p->lock);
    return n;
}

void atune__pool_counts(atune__pool *p, int64_t *compiled, int64_t *cached)
{
    pthread_mutex_lock(&p->lock);
    *compiled = p->compiled;
    *cached = p->cached;
    pthread_mutex_unlock(&p->lock);
}

int64_t atune__pool_shared(const atune__pool *p)
{
    return p->shared;
}

double atune__pool_cpu_seconds(const atune__pool *p)
{
    return p->cpu_s;
}

void atune__pool_retire(atune__pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
}

void atune__pool_free(atune__pool *p)
{
    if (!p)
        return;
    atune__pool_retire(p);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->th[i], NULL);
    for (int64_t i = 0; i < p->n; i++) {
        atune__cubin_free(&p->jobs[i].cubin);
        free(p->jobs[i].error);
    }
    for (int i = 0; i < p->nwarm; i++)
        free(p->warm[i].idx);
    while (p->extra) {
        job *e = p->extra;
        p->extra = e->next_extra;
        atune__cubin_free(&e->cubin);
        free(e->error);
        free(e);
    }
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->work);
    free(p->jobs);
    free(p->urgent);
    free(p);
}
