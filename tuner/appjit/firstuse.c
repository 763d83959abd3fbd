/* firstuse.c -- tuning at first use (ATUNE_EFFORT measure and patient,
 * docs/first-use.md): where this GPU has no exact tuned entry for a size,
 * candidates are compiled, verified against the reference and timed on
 * the application's GPU, on buffers of libatune_jit's own made from
 * [args] (measure/runner.h; never the application's), and the fastest is
 * written into the user's profile directory as the tool writes profiles
 * (measure/profile_write.h: locked, atomic, merged by evidence), so that
 * the next process gets an exact hit and measures nothing. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "appjit/firstuse_internal.h"
#include "search/strategy.h"

#define PATIENT_DEFAULT_S 10
#define SEED 0x5eedULL

/* What first use learned in this process, per handle: the same key is
 * answered from here (its profile stays open until atune_jit_close). */
struct atune__learned {
    char key[ATUNE__RECORD_GPU_MAX + 200];
    atune_profile *p;       /* the written profile, or NULL */
    atune_config *own;      /* when it could not be written: an override */
    const atune_config *c;  /* what is served */
    char what[1024];
    struct atune__learned *next;
};

/* One measurement at a time in a process: threads asking for the same
 * new size wait for the first, and candidates of different handles do
 * not disturb each other's timing. Guards every handle's learned list. */
static pthread_mutex_t measuring = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A fork while another thread measures leaves the child's copy locked by
 * a thread the child does not have: its next measurement, or the close of
 * a handle that measured, would wait for ever. Nothing the child inherits
 * is in the middle of a change under it (the learned lists change in one
 * step), so a fresh lock is safe. */
static void measuring_child(void)
{
    pthread_mutex_init(&measuring, NULL);
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, measuring_child);
}

static void say(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

/* "n=1000000" in the template's variable order, as profiles name it. */
static void size_key(const atune_jit *j, const int64_t *v, char *buf,
                     size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < j->nsize && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%" PRId64,
                                 i ? "," : "", j->m->sizes[0].var[i], v[i]);
}

static struct atune__learned *learned_find(atune_jit *j, const char *key)
{
    for (struct atune__learned *l = j->learned; l; l = l->next)
        if (strcmp(l->key, key) == 0)
            return l;
    return NULL;
}

static void learned_free(atune_jit *j)
{
    struct atune__learned *l, *next;

    pthread_mutex_lock(&measuring);
    for (l = j->learned; l; l = next) {
        next = l->next;
        atune_profile_close(l->p);
        atune_config_free(l->own);
        free(l);
    }
    j->learned = NULL;
    pthread_mutex_unlock(&measuring);
}

/* --- measuring ------------------------------------------------------------- */

static void *compile_worker(void *arg)
{
    fu_run *r = arg;
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames = atune__manifest_kernels(r->j->m, names);
    int i;

    while ((i = atomic_fetch_add(&r->next_compile, 1)) < r->n) {
        cand *c = &r->c[i];
        c->crc = atune__jit_compile_cached(r->j->cache, r->j->m, &c->cfg,
                                           r->arch, names, nnames, &c->cubin,
                                           &c->hit, &c->cerr);
        c->bytes = c->crc == 0 ? c->cubin.len : 0;
        c->compiled = 1;
    }
    return NULL;
}

/* Compiles candidates first..r->n on threads while this thread goes on. */
static void compile_start(fu_run *r, int first)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = r->n - first < COMPILE_THREADS ? r->n - first : COMPILE_THREADS;

    if (cores > 0 && n > cores)
        n = (int)cores;
    atomic_init(&r->next_compile, first);
    /* This thread opens the device meanwhile, then compiles too. */
    for (int i = 0; i < n; i++)
        if (pthread_create(&r->th[r->nthreads], NULL, compile_worker, r) == 0)
            r->nthreads++;
}

static void compile_finish(fu_run *r)
{
    compile_worker(r); /* what is left; all of it without threads */
    for (int i = 0; i < r->nthreads; i++)
        pthread_join(r->th[i], NULL);
    r->nthreads = 0;
}

/* The architecture of the current context's device ("sm_90"). */
static int current_arch(atune_jit *j, char *buf, size_t len, char *why,
                        size_t whylen)
{
    CUcontext ctx = NULL;
    CUdevice dev = 0;
    int major = 0, minor = 0;
    char e[256];
    CUresult rc;

    if (atune__jit_driver(j) != ATUNE_OK) {
        say(why, whylen, "%s", j->msg);
        j->msg[0] = '\0';
        return -1;
    }
    rc = j->cu->cuCtxGetCurrent(&ctx);
    if (rc == CUDA_SUCCESS && !ctx) {
        say(why, whylen, "no current CUDA context");
        return -1;
    }
    if (rc == CUDA_SUCCESS)
        rc = j->cu->cuCtxGetDevice(&dev);
    if (rc == CUDA_SUCCESS)
        rc = j->cu->cuDeviceGetAttribute(
            &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    if (rc == CUDA_SUCCESS)
        rc = j->cu->cuDeviceGetAttribute(
            &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    if (rc != CUDA_SUCCESS) {
        say(why, whylen, "the current context's device: %s",
            atune__cudrv_errstr(rc, e, sizeof(e)));
        return -1;
    }
    snprintf(buf, len, "sm_%d%d", major, minor);
    return 0;
}

/* Compiles (through the module cache, unless c was compiled ahead),
 * loads, verifies and times cfg. Returns 0 with res->status telling the
 * verdict, or an error that ends first use (the device is no longer
 * usable). */
static int evaluate(fu_run *r, const atune__config *cfg, cand *c,
                    atune__result *res, atune__err *err)
{
    atune_jit *j = r->j;
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames = atune__manifest_kernels(j->m, names);
    const atune__devinfo *in = atune__device_info(r->d);
    atune__cubin cubin;
    atune__kernel *k = NULL;
    int hit = 0, rc;

    memset(res, 0, sizeof(*res));
    if (c && c->compiled) {
        rc = c->crc;
        cubin = c->cubin;
        hit = c->hit;
        memset(&c->cubin, 0, sizeof(c->cubin));
        c->compiled = 0;
        if (rc)
            *err = c->cerr;
    } else {
        atune__config at = *cfg;
        atune__config_at_values(j->m, &at, r->size);
        rc = atune__jit_compile_cached(j->cache, j->m, &at, in->arch, names,
                                       nnames, &cubin, &hit, err);
    }
    if (rc == ATUNE__EDATA) {
        res->status = ATUNE__ST_COMPILE_ERROR;
        atune__strlcpy(res->detail, err->msg, sizeof(res->detail));
        err->msg[0] = '\0';
        return 0;
    }
    if (rc)
        return rc;
    if (hit)
        r->cached++;
    else
        r->compiled++;
    rc = atune__kernel_load(r->d, j->m, &cubin, &k, res, err);
    atune__cubin_free(&cubin);
    if (rc || !k)
        return rc;
    rc = atune__problem_eval(r->prob, k, cfg, &r->t, res, err);
    atune__kernel_unload(k);
    r->evaluated++;
    return rc;
}

static void race(fu_run *r, atune__err *err, int *fatal)
{
    for (int i = 0; i < r->n && !*fatal; i++) {
        cand *c = &r->c[i];
        if (c->evaluated)
            continue;
        /* The fastest so far is the incumbent: a slower one stops early. */
        r->t.cutoff_ns = r->best >= 0 ? r->c[r->best].res.time_ns : 0;
        if (evaluate(r, &c->cfg, c, &c->res, err)) {
            *fatal = 1;
            break;
        }
        c->evaluated = 1;
        /* A loser of the race is neither verified nor fully timed
         * (verify_lazily): it only matters that it lost, and it can never
         * be served. */
        if (c->res.status == ATUNE__ST_OK &&
            (r->best < 0 || c->res.time_ns < r->c[r->best].res.time_ns))
            r->best = i;
    }
    r->t.cutoff_ns = 0;
}

/* The race's winner's neighbours race it (firstuse_cands.c). */
static void polish(fu_run *r, atune__err *err, int *fatal)
{
    int first = r->n;

    atune__fu_add_neighbours(r);
    if (r->n == first)
        return;
    compile_start(r, first);
    compile_finish(r);
    race(r, err, fatal);
}

/* patient: the default search (search/), its evaluations through the
 * same runner, stopped by its own rule or the time limit. */
static int search_eval(void *ctx, int64_t idx, double *time_ns,
                       double *spread_ns, atune__err *err)
{
    fu_run *r = ctx;
    atune__config cfg;
    atune__result res;
    int rc;

    atune__space_config(r->j->m, idx, &cfg);
    /* A candidate of the race (the search starts from them): its time. */
    for (int i = 0; i < r->n; i++) {
        const cand *c = &r->c[i];
        if (!c->evaluated || atune__space_index(r->j->m, &c->cfg) != idx)
            continue;
        *time_ns = c->res.status == ATUNE__ST_OK ? c->res.time_ns : INFINITY;
        *spread_ns = c->res.status == ATUNE__ST_OK ? c->res.spread_ns : 0;
        return 0;
    }
    r->t.cutoff_ns = r->have_search_best ? r->search_res.time_ns : 0;
    rc = evaluate(r, &cfg, NULL, &res, err);
    r->t.cutoff_ns = 0;
    if (rc)
        return rc;
    *time_ns = INFINITY;
    if (res.status != ATUNE__ST_OK)
        return 0;
    *time_ns = res.time_ns;
    *spread_ns = res.spread_ns;
    if (!r->have_search_best || res.time_ns < r->search_res.time_ns) {
        r->search_best = cfg;
        r->search_res = res;
        r->have_search_best = 1;
    }
    return 0;
}

static int patient(fu_run *r, const atune__size *sz, double limit_s,
                   atune__err *err, char *how, size_t howlen)
{
    atune__valid_set set = {0};
    atune__search_spec spec = {0};
    atune__search_result found = {0};
    int64_t seeds[MAX_CANDS];
    int nseeds = 0, rc;

    rc = atune__space_build(r->j->m, sz, &atune__device_info(r->d)->attr,
                            NULL, &set, NULL, err);
    if (rc)
        return rc;
    for (int i = 0; i < r->n; i++) {
        int64_t idx = atune__space_index(r->j->m, &r->c[i].cfg);
        if (idx > 0 && atune__valid_set_find(&set, idx) >= 0)
            seeds[nseeds++] = idx;
    }
    spec.m = r->j->m;
    spec.index = set.index;
    spec.nvalid = set.n;
    spec.time_limit = limit_s;
    spec.seed = SEED;
    spec.seeds = seeds;
    spec.nseeds = nseeds;
    rc = atune__search(&spec, search_eval, NULL, r, &found, err);
    say(how, howlen, "the default search over %" PRId64
             " valid configurations (%s)", set.n, found.stop ? found.stop : "?");
    atune__valid_set_free(&set);
    if (rc)
        return rc;
    if (r->have_search_best) {
        int i = atune__fu_add(r, &r->search_best, "the default search");
        if (i < 0 && r->n >= r->cap) {
            i = r->n++;
            memset(&r->c[i], 0, sizeof(r->c[i]));
            r->c[i].cfg = r->search_best;
            snprintf(r->c[i].from, sizeof(r->c[i].from), "the default search");
        }
        if (i >= 0 && (!r->c[i].evaluated || r->search_res.time_ns <
                                                 r->c[i].res.time_ns)) {
            r->c[i].res = r->search_res;
            r->c[i].evaluated = 1;
        }
        if (i >= 0 && (r->best < 0 ||
                       r->c[i].res.time_ns < r->c[r->best].res.time_ns))
            r->best = i;
    }
    return 0;
}

/* Writes the winner into the profile at path: only if the section is
 * still absent; when another process wrote it meanwhile, its
 * configuration is timed beside the winner here and the faster is kept
 * (merge by evidence), once. *kept gets the candidate written, or -1 when
 * theirs was kept. */
static int write_winner(fu_run *r, const char *path, const char *base,
                        const char *key, const char *strategy,
                        const char *what, int *kept, atune__err *err)
{
    atune__pw_seen seen = {0};
    int changed = 0, rc = 0;

    *kept = r->best;
    for (int attempt = 0; attempt < 2; attempt++) {
        atune__config theirs;
        atune__result res;
        rc = atune__fu_write(r, *kept, path, base, key, strategy, what, &seen,
                             &changed, err);
        if (rc || !changed)
            break;
        /* Another process measured the size first. */
        if (atune__fu_section(r->j, path, key, &theirs, &seen) != 0)
            continue; /* another template version's: replaced */
        r->t.cutoff_ns = 0;
        if ((rc = evaluate(r, &theirs, NULL, &res, err)) != 0)
            break;
        if (res.status == ATUNE__ST_OK &&
            res.time_ns <= r->c[*kept].res.time_ns) {
            *kept = -1; /* theirs: nothing to write */
            break;
        }
    }
    if (!rc && changed && *kept >= 0)
        rc = atune__fail(err, ATUNE__ECANTCREAT,
                         "the section changed twice while it was written");
    return rc;
}

/* --- first use ------------------------------------------------------------ */

static int adopt(atune_jit *j, const char *key, atune_profile *p,
                 atune_config *own, const atune_config *c, const char *what,
                 const atune_config **out)
{
    struct atune__learned *l = atune__calloc(1, sizeof(*l));

    if (!l) {
        atune_profile_close(p);
        atune_config_free(own);
        return -1;
    }
    atune__strlcpy(l->key, key, sizeof(l->key));
    l->p = p;
    l->own = own;
    l->c = c;
    atune__strlcpy(l->what, what, sizeof(l->what));
    l->next = j->learned;
    j->learned = l;
    j->learned_free = learned_free;
    *out = c;
    return 0;
}

/* The exact entry of key in the profile at path, of this template, that
 * can run at v: another process measured it since this one was served. */
static int found_in(atune_jit *j, const char *path, const char *key,
                    const char *lkey, const atune__devattr *a,
                    const int64_t *v, const atune_config **out, char *note,
                    size_t notelen)
{
    atune_profile *p = NULL;
    const atune_config *c;
    atune__config cfg;
    atune__launch l;

    if (atune_profile_open(path, &p) != ATUNE_OK ||
        atune_profile_lookup(p, j->m->name, key, &c) != ATUNE_OK ||
        atune_config_size_match(c) != ATUNE_SIZE_EXACT ||
        strcmp(atune_config_template_hash(c), j->hash) != 0) {
        atune_profile_close(p);
        return 0;
    }
    atune__jit_config_from(j->m, c, &cfg);
    if (atune__jit_check_values(j, &cfg) != ATUNE_OK ||
        atune__jit_shape_of(j, &cfg, a, v, &l) != ATUNE_OK) {
        j->msg[0] = '\0';
        atune_profile_close(p);
        return 0;
    }
    say(note, notelen,
        "%s %s: the exact entry in '%s', written since this process opened "
        "its profile (%s)",
        j->m->name, key, path,
        atune_config_meta(c, "first_use") ? atune_config_meta(c, "first_use")
                                          : "tuned");
    return adopt(j, lkey, p, NULL, c, note, out) == 0;
}

static void describe_cfg(const atune__manifest *m, const atune__config *c,
                         char *buf, size_t len)
{
    atune__config_str(m, c, buf, len);
}

/* Seconds of patient's search: ATUNE_EFFORT_TIME, else the default. */
static double patient_limit(void)
{
    int64_t s = PATIENT_DEFAULT_S;

    if (atune__env_i64("ATUNE_EFFORT_TIME", 1, 3600, PATIENT_DEFAULT_S,
                       "whole seconds", &s, NULL))
        s = PATIENT_DEFAULT_S;
    return (double)s;
}

static int first_use_locked(atune_jit *j, atune_profile *p, const int64_t *v,
                            const atune__devattr *a, atune_jit_effort effort,
                            const atune_config *estimate,
                            const atune_config **out, char *note,
                            size_t notelen)
{
    char key[200], lkey[sizeof(((struct atune__learned *)0)->key)];
    char gpu[ATUNE__RECORD_GPU_MAX], dir[3800], path[4096], slug[128];
    char why[1200], best_s[512], how[200] = "", what[700], split[320];
    const char *strategy = effort == ATUNE_JIT_EFFORT_PATIENT
                               ? "first-use-patient"
                               : "first-use-measure";
    const char *base = NULL;
    atune_profile *user = NULL;
    struct atune__learned *l;
    atune__err err = {0};
    atune__size sz;
    atune__config dflt;
    fu_run *r;
    int fatal = 0, have_dir, kept = -1, rc;
    CUresult cr;
    double ms, t_attach = 0, t_problem = 0, t_open, t_race, t_polish;

    size_key(j, v, key, sizeof(key));
    atune__jit_gpu_model(j, p, gpu, sizeof(gpu));
    snprintf(lkey, sizeof(lkey), "%s\t%s", gpu, key);
    if ((l = learned_find(j, lkey)) != NULL) {
        say(note, notelen, "%s", l->what);
        *out = l->c;
        return 1;
    }
    atune__slugify(gpu, slug, sizeof(slug));
    have_dir = atune__fu_user_dir(dir, sizeof(dir)) == 0;
    if (have_dir)
        snprintf(path, sizeof(path), "%s/%s.ini", dir, slug);
    if (have_dir &&
        found_in(j, path, key, lkey, a, v, out, note, notelen))
        return 1;

    if (!(r = atune__calloc(1, sizeof(*r)))) {
        say(note, notelen, "not measured (out of memory)");
        return 0;
    }
    r->j = j;
    memcpy(r->size, v, sizeof(r->size[0]) * (size_t)j->nsize);
    r->best = -1;
    r->cap = effort == ATUNE_JIT_EFFORT_PATIENT ? MAX_CANDS - 1 : MEASURE_CANDS;
    r->t0 = atune__now();
    atune__timing_default(&r->t);
    /* A first call must stay short: fewer samples than a tuning run. */
    r->t.min_samples = 5;
    r->t.max_samples = 15;
    /* 1.5 ms of GPU time per candidate once it has 3 samples: at
     * n = 123456789 saxpy's race took 92 ms for 9 candidates with 10 ms
     * and 82 ms with 3 ms (H100, 2026-11-26), each launch 0.5 ms with a
     * spread of a fraction of a percent. Short kernels stop on the spread
     * or at 15 samples, as before. */
    r->t.target_s = 0.0015;
    /* At 10^8 elements a launch takes half a millisecond and a candidate's
     * verification (a launch, a compare, restored buffers) three: checked
     * for every one of 36 candidates, a warm call took 132 ms (H100,
     * 2026-11-26, saxpy n=123456789): only those that do not lose the
     * race are verified. (Losers told by two samples instead of three
     * left constmem at w=1001,h=999, 6.5 us a launch, at 94.9% of its
     * optimum, H100 15:34.) */
    r->t.verify_lazily = 1;
    atune__jit_default_cache(j);
    if (current_arch(j, r->arch, sizeof(r->arch), why, sizeof(why))) {
        say(note, notelen, "not measured (%s): falling back to estimate", why);
        goto out0;
    }
    /* The candidates: the defaults, what the profile serves, the nearest
     * tuned entries of the profile given, of the user's own and of the
     * other profiles of the search path. */
    atune__space_config(j->m, 0, &dflt);
    atune__fu_add(r, &dflt, "the defaults");
    if (estimate) {
        atune__config cfg;
        atune__jit_config_from(j->m, estimate, &cfg);
        atune__fu_add(r, &cfg, "what the profile serves (the tuned entry of %s)",
                 atune_config_size(estimate));
    }
    atune__fu_neighbours(r, p, v, NEIGHBOURS, "the profile of");
    if (have_dir && (!p || strcmp(atune_profile_path(p), path) != 0) &&
        atune_profile_open(path, &user) == ATUNE_OK)
        atune__fu_neighbours(r, user, v, NEIGHBOURS, "the user's profile of");
    atune__fu_search_path(r, p ? atune_profile_path(p) : NULL,
                    have_dir ? path : NULL, v);
    compile_start(r, 0);
    /* The application's launches still running would slow the candidates
     * unevenly: they are waited for, once per new size. */
    rc = atune__device_attach(j->cache, &r->d, &err);
    t_attach = atune__now();
    if (!rc && (cr = j->cu->cuCtxSynchronize()) != CUDA_SUCCESS) {
        char e[256];
        rc = atune__fail(&err, ATUNE__ESOFTWARE,
                         "waiting for the application's work: %s",
                         atune__cudrv_errstr(cr, e, sizeof(e)));
    }
    if (!rc) {
        memset(&sz, 0, sizeof(sz));
        snprintf(sz.name, sizeof(sz.name), "first-use");
        sz.nvars = j->nsize;
        for (int i = 0; i < j->nsize; i++) {
            atune__strlcpy(sz.var[i], j->m->sizes[0].var[i],
                           sizeof(sz.var[i]));
            sz.value[i] = v[i];
        }
        /* Checks the free device memory before anything is allocated. */
        rc = atune__problem_open(r->d, j->m, &sz, SEED, &r->prob, &err);
    }
    t_problem = atune__now();
    compile_finish(r);
    if (rc) {
        say(note, notelen, "not measured (%s): falling back to estimate",
            err.msg);
        goto out1;
    }
    t_open = atune__now();
    race(r, &err, &fatal);
    t_race = atune__now();
    if (!fatal && r->best >= 0)
        polish(r, &err, &fatal);
    t_polish = atune__now();
    if (!fatal && effort == ATUNE_JIT_EFFORT_PATIENT &&
        patient(r, &sz, patient_limit(), &err, how, sizeof(how)))
        fatal = 1;
    if (fatal || r->best < 0) {
        int len = 0;
        why[0] = '\0';
        for (int i = 0; !fatal && i < r->n && len < (int)sizeof(why); i++)
            if (r->c[i].evaluated)
                len += snprintf(why + len, sizeof(why) - (size_t)len,
                                "%s%s: %s %s", len ? "; " : "", r->c[i].from,
                                atune__status_name(r->c[i].res.status),
                                r->c[i].res.detail);
        say(note, notelen, "not measured (%s): falling back to estimate",
            fatal ? err.msg : why[0] ? why : "no candidate");
        goto out1;
    }
    ms = (atune__now() - r->t0) * 1e3;
    describe_cfg(j->m, &r->c[r->best].cfg, best_s, sizeof(best_s));
    say(what, sizeof(what),
             "%s: %d configuration%s compiled (%d from the module cache) and "
             "verified in %.0f ms%s%s, on %s",
             effort == ATUNE_JIT_EFFORT_PATIENT ? "patient" : "measure",
             r->evaluated, r->evaluated == 1 ? "" : "s", r->cached, ms,
             how[0] ? ", " : "", how, gpu);
    say(split, sizeof(split),
        "%.0f ms to compile and set up (the device %.0f, the reference "
        "%.0f, then the compiles %.0f), %.0f to race, %.0f for the "
        "neighbours", (t_open - r->t0) * 1e3, (t_attach - r->t0) * 1e3,
        (t_problem - t_attach) * 1e3, (t_open - t_problem) * 1e3,
        (t_race - t_open) * 1e3, (t_polish - t_race) * 1e3);
    if (r->left_out)
        say(split + strlen(split), sizeof(split) - strlen(split),
            " (%d not compiled: the call's compiles, %.0f ms as predicted, "
            "would pass ATUNE_MEASURE_MS, %.0f)",
            r->left_out, r->predicted_s * 1e3,
            atune__fu_polish_budget_s() * 1e3);
    /* A new file in the user's directory shadows the profile served from:
     * it starts as that profile when it is this GPU model's. */
    if (p && strcmp(atune_profile_device(p)->name, gpu) == 0 &&
        atune_profile_path(p)[0])
        base = atune_profile_path(p);
    why[0] = '\0';
    rc = 0;
    if (!have_dir)
        snprintf(why, sizeof(why), "no user profile directory (HOME unset)");
    else if (atune__fu_make_dirs(dir, why, sizeof(why)) == 0 &&
             (rc = write_winner(r, path, base, key, strategy, what, &kept,
                                &err)) != 0)
        say(why, sizeof(why), "%s", err.msg);
    {
        atune_profile *wp = NULL;
        const atune_config *c = NULL;
        atune_config *own = NULL;
        char text[1400];
        const cand *w = &r->c[r->best];
        int written = why[0] == '\0';
        if (written && atune_profile_open(path, &wp) == ATUNE_OK &&
            atune_profile_lookup(wp, j->m->name, key, &c) == ATUNE_OK &&
            atune_config_size_match(c) == ATUNE_SIZE_EXACT) {
            if (kept < 0)
                say(text, sizeof(text),
                         "%s %s: measured at first use (%s); another process "
                         "wrote a configuration as fast or faster meanwhile, "
                         "kept in '%s'",
                         j->m->name, key, what, path);
            else
                say(text, sizeof(text),
                         "%s %s: measured at first use (%s; %s): fastest %s, "
                         "%.1f us (%s); written to '%s'",
                         j->m->name, key, what, split, best_s,
                         w->res.time_ns / 1e3, w->from, path);
        } else {
            atune_profile_close(wp);
            wp = NULL;
            if (atune_config_new(j->m->name, NULL, &own) != ATUNE_OK) {
                say(note, notelen, "not measured (out of memory)");
                goto out1;
            }
            for (int i = 0; i < j->m->nparams; i++)
                atune_config_set(own, j->m->params[i].name, w->cfg.v[i]);
            c = own;
            say(text, sizeof(text),
                     "%s %s: measured at first use (%s): fastest %s, %.1f us "
                     "(%s); not written (%s): this process only",
                     j->m->name, key, what, best_s, w->res.time_ns / 1e3,
                     w->from, written ? "it did not read back" : why);
        }
        if (adopt(j, lkey, wp, own, c, text, out) != 0) {
            say(note, notelen, "not measured (out of memory)");
            goto out1;
        }
        say(note, notelen, "%s", text);
    }
    rc = 1;
    goto out;
out1:
    rc = 0;
out:
    atune_profile_close(user);
    atune__problem_close(r->prob);
    for (int i = 0; i < r->n; i++)
        atune__cubin_free(&r->c[i].cubin);
    atune__device_close(r->d);
    free(r);
    return rc;
out0:
    atune__device_close(r->d);
    free(r);
    return 0;
}

int atune__jit_first_use(atune_jit *j, atune_profile *p, const int64_t *v,
                         const atune__devattr *a, atune_jit_effort effort,
                         const atune_config *estimate, const atune_config **out,
                         char *note, size_t notelen)
{
    int rc;

    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&measuring);
    rc = first_use_locked(j, p, v, a, effort, estimate, out, note, notelen);
    pthread_mutex_unlock(&measuring);
    return rc;
}
