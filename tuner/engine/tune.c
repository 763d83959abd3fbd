/* tune.c -- one tuning run (see tune.h): brute-force search of each
 * template's space at each size, journaled, best written to the profile. */
#include "engine/tune.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atune/atune.h"
#include "engine/compile.h"
#include "measure/stats.h"
#include "engine/twins.h"
#include "search/strategy.h"
#include "engine/journal.h"
#include "measure/profile_write.h"
#include "engine/resume.h"
#include "engine/supervise.h"

/* Writes of one section that find it changed before this run gives up. */
#define MAX_WRITE_TRIES 8

static volatile sig_atomic_t interrupted;

void atune__tune_interrupt(void)
{
    interrupted = 1;
}

void atune__tune_opts_default(atune__tune_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->profile_dir = "profiles";
    atune__timing_default(&o->timing);
    o->seed = 0x5eed5eed12345678ULL;
    o->final_k = 3;
    o->race_margin = 0.03;
    o->resume = 1;
    o->watch_fd = -1;
    o->journal_gpu = -1;
}

void atune__tune_run_free(atune__tune_run *run)
{
    free(run->o);
    memset(run, 0, sizeof(*run));
}

/* A compile error as a result: the first line of NVRTC's log that says
 * "error". */
static void compile_failed(const char *msg, atune__result *res)
{
    const char *e = strstr(msg, "error");
    char *nl;

    res->status = ATUNE__ST_COMPILE_ERROR;
    atune__strlcpy(res->detail, e ? e : msg, sizeof(res->detail));
    nl = strchr(res->detail, '\n');
    if (nl)
        *nl = '\0';
}

/* What every (kernel, size) of one run shares. */
/* Modules loaded on the GPU for the template being tuned, by CUBIN: the
 * pool keeps each CUBIN until it is freed with the template (twins share
 * one), and the sizes of a template evaluate many of the same modules
 * (seeded by the winners of the sizes before), each a module load and
 * unload otherwise. At most MAX_LOADED; past that, loaded per evaluation
 * as before. */
#define MAX_LOADED 1024

typedef struct loaded_set {
    const atune__cubin *cubin[MAX_LOADED];
    atune__kernel *k[MAX_LOADED];
    int n;
} loaded_set;

static atune__kernel *loaded_find(const loaded_set *ls,
                                  const atune__cubin *cubin)
{
    for (int i = 0; i < ls->n; i++)
        if (ls->cubin[i] == cubin)
            return ls->k[i];
    return NULL;
}

static void loaded_free(loaded_set *ls)
{
    for (int i = 0; i < ls->n; i++)
        atune__kernel_unload(ls->k[i]);
    ls->n = 0;
}

typedef struct run_state {
    atune__journal *j;
    const char *journal;
    atune__resume *resume;
    const char *profile;          /* the profile this run writes */
    char run[ATUNE__RUN_ID_MAX];  /* this run's journal id */
    loaded_set *loaded;           /* the template's loaded modules */
} run_state;

/* What the search callbacks need. */
typedef struct search_ctx {
    atune__device *d;
    atune__problem *p;
    atune__pool *pool;
    atune__journal *j;
    const char *journal_path;
    const atune__resume *resume;
    atune__outcome *out;
    const atune__tune_opts *o;
    int64_t done;
    double t0;
    double limit_ms; /* the watchdog's limit per launch */
    loaded_set *loaded;
    char watch_msg[1024]; /* the configuration being evaluated */
    /* final re-measurement: the winner's new result */
    int64_t final_idx;
    atune__result final_res;
    atune__twins twins; /* results by module and launch */
} search_ctx;

/* The runner's watch hook: before a wait on the GPU, the supervisor hears
 * which configuration runs and how long it may take; after it, that it
 * finished. A write that fails (no supervisor any more) changes nothing. */
static void watch_cb(void *ctx, int launches)
{
    search_ctx *sc = ctx;
    char line[1200];
    int n;

    if (launches > 0)
        n = snprintf(line, sizeof(line), "A\t%.0f\t%s\n",
                     sc->limit_ms * launches, sc->watch_msg);
    else
        n = snprintf(line, sizeof(line), "D\n");
    if (n > 0 && (size_t)n < sizeof(line))
        (void)!write(sc->o->watch_fd, line, (size_t)n);
}

/* Arms the watch for configuration cfg: the journal record the supervisor
 * writes if it has to kill this process. */
static void watch_config(search_ctx *sc, const char *cfg)
{
    const atune__manifest *m = sc->out->m;

    snprintf(sc->watch_msg, sizeof(sc->watch_msg), "%s\t%s\t%s\t%s\t%016llx",
             sc->journal_path, m->name, sc->out->size_key, cfg,
             (unsigned long long)m->hash);
}

/* Compiles (or takes from the pool), loads, verifies and times
 * configuration idx; res gets the verdict. */
static int measure_config(search_ctx *sc, int64_t idx, const atune__config *c,
                          const char *cfg, const atune__timing *tm,
                          int twins, atune__result *res, atune__err *err)
{
    const atune__cubin *cubin;
    const char *cerr;
    atune__kernel *k = NULL;
    atune__timing t = *tm;
    double t0 = atune__now();
    const atune__manifest *m = sc->out->m;
    uint64_t key = 0;
    int rc, own = 1;

    /* Waiting here is the time compilation costs beyond what the pool
     * overlapped with measuring. */
    rc = atune__pool_get(sc->pool, idx, &cubin, &cerr, err);
    if (!rc && cerr)
        compile_failed(cerr, res);
    sc->out->compile_s += atune__now() - t0;
    if (!rc && cubin && twins &&
        atune__twin_take(&sc->twins, key = atune__twin_key(m, c, cubin), res))
        return 0;
    if (!rc && cubin && (k = loaded_find(sc->loaded, cubin)) != NULL)
        own = 0;
    else if (!rc && cubin) {
        rc = atune__kernel_load(sc->d, sc->out->m, cubin, &k, res, err);
        if (!rc && k && sc->loaded->n < MAX_LOADED) {
            sc->loaded->cubin[sc->loaded->n] = cubin;
            sc->loaded->k[sc->loaded->n++] = k;
            own = 0;
        }
    }
    if (!rc && k) {
        if (sc->o->watch_fd >= 0) {
            watch_config(sc, cfg);
            t.watch = watch_cb;
            t.watch_ctx = sc;
        }
        rc = atune__problem_eval(sc->p, k, c, &t, res, err);
        if (!rc && twins)
            atune__twin_add(&sc->twins, key, cfg, res);
    }
    if (own)
        atune__kernel_unload(k);
    return rc;
}

/* Evaluates configuration idx on the problem and records it; what an
 * unfinished run measured is taken from its journal instead. */
static int evaluate(search_ctx *sc, int64_t idx, atune__err *err)
{
    atune__outcome *out = sc->out;
    const atune__manifest *m = out->m;
    const atune__tune_opts *o = sc->o;
    const atune__record *rec;
    atune__journal *j = sc->j;
    atune__config c;
    atune__result res;
    char cfg[512];
    int rc = 0;

    memset(&res, 0, sizeof(res));
    atune__space_config(m, idx, &c);
    atune__config_str(m, &c, cfg, sizeof(cfg));
    rec = atune__resume_find(sc->resume, m->name, out->size_key, cfg, m->hash,
                             0);
    /* An unverified record lost its race in the unfinished run; here it
     * may not (another best so far): then it is measured and verified. */
    if (rec && rec->unverified &&
        (!out->have_best || rec->time_ns <= out->best_res.time_ns))
        rec = NULL;
    if (rec) {
        atune__resume_result(rec, &res);
        out->resumed++;
        j = NULL; /* recorded already */
    } else {
        atune__timing t = o->timing;
        /* Racing the best so far: its median, with a margin of at least
         * twice its relative interquartile range. */
        if (out->have_best && o->race_margin >= 0) {
            const atune__result *b = &out->best_res;
            double noise = 2 * b->spread_ns / b->time_ns;

            t.cutoff_ns = b->time_ns;
            t.cutoff_margin = noise > o->race_margin ? noise : o->race_margin;
            t.verify_lazily = o->verify_lazily;
        }
        rc = measure_config(sc, idx, &c, cfg, &t, 1, &res, err);
    }
    out->verify_s += res.verify_s;
    out->measure_s += res.measure_s;
    if (res.status != ATUNE__ST_INVALID)
        out->evaluations++;
    out->count[res.status]++;
    if (res.status == ATUNE__ST_OK && res.unverified) {
        out->unverified++;
        atune__strlcpy(res.detail, ATUNE__JOURNAL_UNVERIFIED,
                       sizeof(res.detail));
    }
    out->last_ns = res.time_ns;
    out->last_spread_ns = res.spread_ns;
    if (idx == 0 && res.status == ATUNE__ST_OK && !res.unverified) {
        out->have_default = 1;
        out->default_res = res;
    }
    /* An unverified result lost to the best: never the best itself. */
    if (res.status == ATUNE__ST_OK && !res.unverified &&
        (!out->have_best || res.time_ns < out->best_res.time_ns)) {
        out->have_best = 1;
        out->best = c;
        out->best_res = res;
    }
    /* Journal first: even the configuration that broke the context is
     * recorded before the error travels up. */
    if (j) {
        atune__err jerr;
        int jrc = atune__journal_append(j, m->name, out->size_key, cfg, &res,
                                        m->hash, &jerr);
        if (jrc && !rc) {
            *err = jerr;
            rc = jrc;
        }
    }
    return rc;
}

/* The search's hint of what it proposes next: compiled first. */
static void prefetch_cb(void *ctx, const int64_t *idx, int n)
{
    search_ctx *sc = ctx;

    atune__pool_prefetch(sc->pool, idx, n);
}

static int eval_cb(void *ctx, int64_t idx, double *time_ns, double *spread_ns,
                   atune__err *err)
{
    search_ctx *sc = ctx;
    int64_t ok_before = sc->out->count[ATUNE__ST_OK];
    int rc;

    if (interrupted)
        return atune__fail(err, ATUNE__EINTR, "interrupted");
    rc = evaluate(sc, idx, err);
    *time_ns = sc->out->count[ATUNE__ST_OK] > ok_before ? sc->out->last_ns
                                                        : INFINITY;
    *spread_ns = isfinite(*time_ns) ? sc->out->last_spread_ns : 0;
    atune__tune_progress(sc->o, sc->out, ++sc->done, sc->out->space, sc->t0);
    return rc;
}

/* Times one candidate once more: its output checked again in the first
 * round, only timed in the later ones. */
static int retime(search_ctx *sc, int64_t idx, int rounds, int round,
                  atune__result *res, atune__err *err)
{
    const atune__manifest *m = sc->out->m;
    atune__timing t = atune__timing_final_round(&sc->o->timing, rounds);
    atune__config c;
    char cfg[512];

    t.verified = round > 0;
    memset(res, 0, sizeof(*res));
    atune__space_config(m, idx, &c);
    atune__config_str(m, &c, cfg, sizeof(cfg));
    return measure_config(sc, idx, &c, cfg, &t, 0, res, err);
}

/* The final re-measurement of an unfinished run, when it covered all k
 * candidates: resuming must not re-time (and perhaps re-rank) them. */
static int resumed_final(search_ctx *sc, const int64_t *idx, int k,
                         atune__result *last)
{
    const atune__manifest *m = sc->out->m;

    for (int i = 0; i < k; i++) {
        const atune__record *r;
        atune__config c;
        char cfg[512];

        atune__space_config(m, idx[i], &c);
        atune__config_str(m, &c, cfg, sizeof(cfg));
        r = atune__resume_find(sc->resume, m->name, sc->out->size_key, cfg,
                               m->hash, 1);
        if (!r)
            return 0;
        atune__resume_result(r, &last[i]);
        if (last[i].status != ATUNE__ST_OK)
            last[i].time_ns = INFINITY;
    }
    return 1;
}

/* Journals the final re-measurement of candidate idx. */
static int journal_final(search_ctx *sc, int64_t idx, const atune__result *r,
                         atune__err *err)
{
    const atune__manifest *m = sc->out->m;
    atune__result rec = *r;
    atune__config c;
    char cfg[512];

    if (!sc->j)
        return 0;
    atune__space_config(m, idx, &c);
    atune__config_str(m, &c, cfg, sizeof(cfg));
    atune__strlcpy(rec.detail, ATUNE__JOURNAL_FINAL, sizeof(rec.detail));
    return atune__journal_append(sc->j, m->name, sc->out->size_key, cfg, &rec,
                                 m->hash, err);
}

/* The final pick: the best candidates re-timed in interleaved rounds, so a
 * lucky sample or a clock change during one configuration cannot decide.
 * Each candidate's time is the median of its rounds' medians. */
static int remeasure_cb(void *ctx, const int64_t *idx, int k, double *time_ns,
                        atune__err *err)
{
    enum { ROUNDS = 5, MAXK = 8 };
    search_ctx *sc = ctx;
    double t[MAXK][ROUNDS], t0 = atune__now(), c0 = sc->out->compile_s;
    atune__result last[MAXK];
    int rc = 0;

    if (k > MAXK)
        k = MAXK;
    if (resumed_final(sc, idx, k, last)) {
        for (int i = 0; i < k; i++)
            for (int r = 0; r < ROUNDS; r++)
                t[i][r] = last[i].time_ns;
    } else {
        for (int r = 0; r < ROUNDS && !rc; r++)
            for (int i = 0; i < k && !rc; i++) {
                rc = retime(sc, idx[i], ROUNDS, r, &last[i], err);
                t[i][r] = last[i].status == ATUNE__ST_OK ? last[i].time_ns
                                                         : INFINITY;
            }
        for (int i = 0; i < k && !rc; i++) {
            atune__summary s;
            atune__summarize(t[i], ROUNDS, &s);
            last[i].time_ns = s.median;
            last[i].metric = atune__problem_work(sc->p) / s.median;
            rc = journal_final(sc, idx[i], &last[i], err);
            for (int r = 0; r < ROUNDS; r++)
                t[i][r] = last[i].time_ns;
        }
        /* --json's final_s; what NVRTC made it wait is compile_s's */
        sc->out->final_s += atune__now() - t0 - (sc->out->compile_s - c0);
    }
    if (rc)
        return rc;
    for (int i = 0; i < k; i++) {
        atune__summary s;
        atune__summarize(t[i], ROUNDS, &s);
        time_ns[i] = s.median;
        last[i].time_ns = s.median;
        last[i].metric = atune__problem_work(sc->p) / s.median;
        /* The default re-timed beside the winner: its speedup is read from
         * times taken side by side. */
        if (idx[i] == 0 && sc->out->have_default && isfinite(s.median)) {
            sc->out->default_res.time_ns = s.median;
            sc->out->default_res.metric = last[i].metric;
        }
        if (i == 0 || s.median < sc->final_res.time_ns) {
            sc->final_idx = idx[i];
            sc->final_res = last[i];
        }
    }
    return 0;
}

/* The hang watchdog's limit for one launch: the flag's, else a hundred
 * times the reference kernel, at least a second and at most a minute. */
static double launch_limit_ms(const atune__tune_opts *o,
                              const atune__problem *p)
{
    double ms = 100 * atune__problem_ref_ns(p) / 1e6;

    if (o->launch_limit_s > 0)
        return o->launch_limit_s * 1e3;
    return ms < 1000 ? 1000 : ms > 60000 ? 60000 : ms;
}

/* The winners of the template's sizes tuned before out in this run that
 * are nearest to it: each size's search starts from them (neighbouring
 * sizes share most of their good configurations; seeds.c). Brute force
 * keeps its index order. Returns how many. */
static int ladder_seeds(const atune__tune_run *run, const atune__outcome *out,
                        const atune__tune_opts *o, int64_t *seeds)
{
    const char *keys[ATUNE__MAX_SIZES];
    int64_t winners[ATUNE__MAX_SIZES];
    int n = 0;

    if (o->strategy && strcmp(o->strategy, "brute_force") == 0)
        return 0;
    for (ptrdiff_t i = out - run->o - 1; i >= 0 && n < ATUNE__MAX_SIZES; i--)
        if (run->o[i].m == out->m && run->o[i].have_best) {
            keys[n] = run->o[i].size_key;
            winners[n++] = atune__space_index(out->m, &run->o[i].best);
        }
    return atune__seeds_nearest(out->size_key, keys, winners, n, seeds);
}

/* Merge by evidence: a re-tune never makes the profile worse. The
 * previous best is timed again beside the new best, in interleaved
 * rounds (as the final pick), and the faster one is kept. */
static int merge_previous(search_ctx *sc, const run_state *rs,
                          const atune__valid_set *valid,
                          atune__pw_seen *seen, atune__err *err)
{
    atune__outcome *out = sc->out;
    const atune__manifest *m = out->m;
    atune__config prev;
    int64_t ids[2];
    double t[2];
    char prev_run[ATUNE__RUN_ID_MAX];
    int rc;

    atune__strlcpy(out->run, rs->run, sizeof(out->run));
    if (!out->have_best ||
        !atune__tune_previous_best(rs->profile, m, out->size_key, valid,
                                   &prev, &ids[1], prev_run,
                                   sizeof(prev_run), seen))
        return 0;
    if (sc->o->replace) {
        out->previous = ATUNE__PREV_FORCED;
        return 0;
    }
    ids[0] = atune__space_index(m, &out->best);
    if (ids[0] == ids[1]) {
        out->previous = ATUNE__PREV_SAME;
        return 0;
    }
    if ((rc = remeasure_cb(sc, ids, 2, t, err)))
        return rc;
    out->previous_ns = t[1];
    out->best_res = sc->final_res;
    if (sc->final_idx == ids[1]) {
        out->previous = ATUNE__PREV_KEPT;
        out->best = prev;
        atune__strlcpy(out->run, prev_run, sizeof(out->run));
    } else {
        out->previous = ATUNE__PREV_REPLACED;
    }
    return 0;
}

/* A size's section, merged by evidence with the profile's, is written
 * only if the section is still what was merged with: else another tuner of
 * this GPU model wrote it meanwhile, and its best is measured beside this
 * one in turn. So tuners of one model that finish together end with the
 * best of them, never the last. */
static int merge_and_write(atune__device *d, search_ctx *sc,
                           const run_state *rs, const atune__valid_set *valid,
                           atune__err *err)
{
    atune__outcome *out = sc->out;
    int rc = 0, changed = 1;

    for (int tries = 0; !rc && changed && tries < MAX_WRITE_TRIES; tries++) {
        atune__pw_seen seen;
        if (tries && !sc->o->quiet)
            fprintf(stderr, "%s %s: the profile's section changed (another "
                            "tuner of this GPU model): measuring its best "
                            "beside this one\n",
                    out->m->name, out->size_key);
        if ((rc = merge_previous(sc, rs, valid, &seen, err)) ||
            !out->have_best)
            return rc;
        rc = atune__tune_write_outcome(d, out, rs->profile,
                                       sc->o->replace ? NULL : &seen,
                                       &changed, err);
    }
    if (!rc && changed)
        return atune__fail(err, ATUNE__EIO,
                           "%s: section [%s %s] changed %d times while this "
                           "run wrote it",
                           rs->profile, out->m->name, out->size_key,
                           MAX_WRITE_TRIES);
    out->written = !rc;
    return rc;
}

/* A size that ended in an error (interrupted, a sticky CUDA error) cannot
 * be merged by measuring: its best is written only where the profile has
 * no section for it, which it cannot make worse. */
static void write_if_absent(atune__device *d, const run_state *rs,
                            atune__outcome *out)
{
    atune__pw_seen none = {0};
    atune__err err;
    int changed = 0;

    atune__strlcpy(out->run, rs->run, sizeof(out->run));
    out->written = out->have_best &&
                   atune__tune_write_outcome(d, out, rs->profile, &none,
                                             &changed, &err) == 0 &&
                   !changed;
}

/* Searches one template at one size. */
static int tune_size(atune__device *d, const atune__manifest *m,
                     const atune__size *size, atune__pool *pool,
                     const run_state *rs, const atune__tune_opts *o,
                     const int64_t *seeds, int nseeds, atune__outcome *out,
                     atune__err *err)
{
    const atune__devinfo *in = atune__device_info(d);
    atune__valid_set valid = {0};
    search_ctx sc = {.d = d, .pool = pool, .j = rs->j,
                     .journal_path = rs->journal, .resume = rs->resume,
                     .out = out, .o = o, .t0 = atune__now(),
                     .final_idx = -1, .loaded = rs->loaded};
    atune__search_spec spec = {.m = m, .strategy = o->strategy,
                               .budget = o->budget,
                               .time_limit = o->time_limit, .seed = o->seed,
                               .final_k = o->final_k,
                               .seeds = seeds, .nseeds = nseeds,
                               .prefetch = prefetch_cb};
    atune__search_result found = {.best = -1};
    int rc;

    /* The space: constraints and device limits, before any compile. */
    rc = atune__space_build(m, size, &in->attr, o->quiet ? NULL : m->name,
                            &valid, &out->space, err);
    /* The default, measured first, compiles beside the reference. */
    if (!rc && valid.n > 0 && valid.index[0] == 0)
        atune__pool_prefetch(pool, valid.index, 1);
    if (!rc)
        rc = atune__problem_open(d, m, size, o->seed, &sc.p, err);
    /* Too large for this GPU's free memory: that size is skipped, named
     * with its line, and the others are tuned. */
    if (rc == ATUNE__EUNAVAIL) {
        if (!o->quiet)
            fprintf(stderr, "autotune: warning: %s:%d: size '%s' skipped: "
                            "%s\n",
                    m->ini_path, size->line, size->name, err->msg);
        atune__valid_set_free(&valid);
        out->skipped = 1;
        return 0;
    }
    if (!rc)
        sc.limit_ms = launch_limit_ms(o, sc.p);
    spec.index = valid.index;
    spec.nvalid = valid.n;
    if (!rc)
        rc = atune__search(&spec, eval_cb, remeasure_cb, &sc, &found, err);
    /* The search stopped: so do the compiles it hinted at. */
    atune__pool_prefetch(pool, NULL, 0);
    out->stop = found.stop;
    if (found.strategy)
        out->strategy = found.strategy;
    out->final_shift = found.final_shift;
    out->final_retried = found.final_retried;
    atune__tune_warn_shift(o, out, found.final_shift_idx);
    /* The re-measured winner replaces its first, shorter measurement. */
    if (!rc && sc.final_idx >= 0 && sc.final_idx == found.best) {
        atune__space_config(m, sc.final_idx, &out->best);
        out->best_res = sc.final_res;
        out->have_best = 1;
    }
    if (!rc)
        rc = merge_and_write(d, &sc, rs, &valid, err);
    else if (out->have_best)
        write_if_absent(d, rs, out);
    out->wall_s = atune__now() - sc.t0;
    atune__problem_close(sc.p);
    atune__valid_set_free(&valid);
    out->twins = atune__twins_free(&sc.twins);
    return rc;
}

static void journal_path(atune__device *d, const atune__tune_opts *o,
                         atune__tune_run *run)
{
    char slug[128];

    atune__slugify(atune__device_info(d)->name, slug, sizeof(slug));
    if (o->journal)
        atune__strlcpy(run->journal, o->journal, sizeof(run->journal));
    else if (o->journal_gpu >= 0)
        snprintf(run->journal, sizeof(run->journal), "%s/%s.gpu%d.journal",
                 o->profile_dir, slug, o->journal_gpu);
    else
        snprintf(run->journal, sizeof(run->journal), "%s/%s.journal",
                 o->profile_dir, slug);
}

static int open_journal(atune__device *d, const atune__tune_run *run,
                        const char *id, atune__journal **j, atune__err *err)
{
    const atune__devinfo *in = atune__device_info(d);
    char when[32], line[1024];

    atune__utc_date(when, sizeof(when), 1);
    snprintf(line, sizeof(line), "%s device=\"%s\" uuid=%s tuner=%s", when,
             in->name, in->uuid, ATUNE_VERSION_STRING);
    return atune__journal_open(run->journal, line, id, j, err);
}

/* What an unfinished run of this journal measured (nothing when resuming
 * is off). */
static int load_resume(atune__device *d, const atune__tune_opts *o,
                       const atune__tune_run *run, atune__resume **r,
                       atune__err *err)
{
    int rc;

    *r = NULL;
    if (!o->resume)
        return 0;
    rc = atune__resume_load(run->journal, atune__device_info(d)->name, r,
                            err);
    if (!rc && atune__resume_count(*r) > 0 && !o->quiet)
        fprintf(stderr, "resuming: %d records of an unfinished run in '%s'\n",
                atune__resume_count(*r), run->journal);
    return rc;
}

static int make_dir(const char *dir, atune__err *err)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return 0;
    return atune__fail(err, ATUNE__ECANTCREAT, "cannot create '%s': %s", dir,
                       strerror(errno));
}

static int tune_all(atune__device *d, const atune__templates *t,
                    const atune__tune_opts *o, atune__tune_run *run,
                    atune__err *err)
{
    run_state rs = {0};
    atune__pool_plan plan = {0};
    atune__pool *retired = NULL; /* the last template's, stopping */
    char slug[128], profile[4096];
    int rc;

    memset(run, 0, sizeof(*run));
    run->o = atune__calloc((size_t)t->n * ATUNE__MAX_SIZES, sizeof(*run->o));
    if (!run->o)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    /* Every template on this GPU's limits, before anything is measured: a
     * bad last template must not surface after hours of tuning. */
    for (int i = 0; i < t->n; i++)
        if ((rc = atune__space_validate(t->m[i], &atune__device_info(d)->attr,
                                        NULL, NULL, err)))
            return rc;
    atune__slugify(atune__device_info(d)->name, slug, sizeof(slug));
    snprintf(profile, sizeof(profile), "%s/%s.ini", o->profile_dir, slug);
    rs.profile = profile;
    atune__worker_run_id(rs.run, sizeof(rs.run));
    rc = make_dir(o->profile_dir, err);
    /* A profile that cannot be written is found out now, not after hours
     * of tuning. */
    if (!rc) {
        atune__pw_device pd;
        atune__device_pw_entry(d, &pd);
        rc = atune__profile_check(profile, &pd, err);
    }
    journal_path(d, o, run);
    rs.journal = run->journal;
    if (!rc)
        rc = load_resume(d, o, run, &rs.resume, err);
    if (!rc)
        rc = open_journal(d, run, rs.run, &rs.j, err);
    if (!rc && !(rs.loaded = atune__calloc(1, sizeof(*rs.loaded))))
        rc = atune__fail(err, ATUNE__EOSERR, "out of memory");
    if (!rc)
        rc = atune__tune_pool_plan(d, t, o, rs.resume, &plan, err);
    for (int i = 0; !rc && i < t->n; i++) {
        const atune__manifest *m = t->m[i];
        atune__pool *pool = NULL;
        if ((rc = atune__tune_pool_start(d, t, i, NULL, &plan, o, &pool, err)))
            break;
        for (int s = 0; !rc && s < m->nsizes; s++) {
            int64_t seeds[ATUNE__MAX_SEEDS];
            atune__outcome *out;
            if (!atune__tune_size_selected(o, &m->sizes[s]))
                continue;
            /* Names that read the size: a pool, and modules loaded, per
             * size (a module of one size never serves another). */
            if (m->names_sized) {
                loaded_free(rs.loaded);
                if ((rc = atune__tune_pool_sized(d, t, i, &m->sizes[s], &plan,
                                                 o, rs.resume, &pool, err)))
                    break;
            }
            out = &run->o[run->n++];
            out->m = m;
            out->size = &m->sizes[s];
            out->strategy = o->strategy ? o->strategy
                                        : atune__strategy_default();
            atune__size_key(out->size, out->size_key, sizeof(out->size_key));
            int64_t c0, h0, w0 = atune__pool_warmed(pool);
            atune__pool_counts(pool, &c0, &h0);
            rc = tune_size(d, m, out->size, pool, &rs, o, seeds,
                           ladder_seeds(run, out, o, seeds), out, err);
            atune__pool_counts(pool, &out->compiled, &out->cached);
            out->compiled -= c0;
            out->cached -= h0;
            out->warmed = atune__pool_warmed(pool) - w0;
            if (!rc)
                rc = atune__tune_journal_size(rs.j, out, err);
            atune__tune_summary(o, out, rc != 0);
        }
        /* Before the pool, whose CUBINs are the keys. */
        loaded_free(rs.loaded);
        /* its compiles end during the next template (compile.h) */
        atune__pool_retire(pool);
        atune__pool_free(retired);
        retired = pool;
    }
    atune__procs_abort(o->procs); /* in-flight compiles: unused now */
    atune__pool_free(retired);
    atune__tune_pool_plan_free(&plan);
    free(rs.loaded);
    for (int i = 0; i < run->n; i++)
        if (run->o[i].written)
            snprintf(run->profile, sizeof(run->profile), "%s", profile);
    /* Only a run that finished, its profile written, is not resumed by the
     * next one. */
    if (!rc && rs.j) {
        char resumed[1024];
        atune__resume_runs(rs.resume, resumed, sizeof(resumed));
        rc = atune__journal_done(rs.j, resumed, err);
    }
    atune__journal_close(rs.j);
    atune__resume_free(rs.resume);
    return rc;
}

int atune__tune(atune__device *d, const atune__templates *t,
                const atune__tune_opts *o, atune__tune_run *run,
                atune__err *err)
{
    atune__templates ord = {0};
    int rc = atune__tune_order(t, &ord, err);

    if (!rc)
        rc = tune_all(d, &ord, o, run, err);
    free(ord.m);
    return rc;
}
