/* cmd_simulate.c -- `autotune tune --simulate JOURNAL`: replays the
 * measurements of a journal instead of a GPU, so that a strategy can be
 * tried, compared with the recorded optimum and tested without one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "base/json.h"
#include "engine/journal.h"
#include "engine/simulate.h"
#include "template/space.h"
#include "search/strategy.h"
#include "template/templates.h"

/* What one replay found. */
typedef struct replay {
    const atune__sim *sim;
    const char *size_name; /* "large", or NULL when no size has the key */
    atune__search_result res;
} replay;

/* The final pick re-measures as many candidates as a GPU run does. */
enum { FINAL_K = 3 };

static const char *size_name(const atune__manifest *m, const char *key)
{
    char buf[256];

    for (int i = 0; i < m->nsizes; i++) {
        atune__size_key(&m->sizes[i], buf, sizeof(buf));
        if (strcmp(buf, key) == 0)
            return m->sizes[i].name;
    }
    return NULL;
}

static void json_config(atune__json *j, const char *key,
                        const atune__manifest *m, int64_t idx, double t)
{
    atune__config c;

    if (idx < 0) {
        atune__json_null(j, key);
        return;
    }
    atune__space_config(m, idx, &c);
    atune__json_object(j, key);
    atune__json_object(j, "params");
    for (int i = 0; i < m->nparams; i++)
        atune__json_int(j, m->params[i].name, c.v[i]);
    atune__json_end(j);
    atune__json_int(j, "time_ns", (int64_t)(t + 0.5));
    atune__json_end(j);
}

static double recorded(const atune__sim *s, int64_t idx)
{
    return idx >= 0 ? s->time_ns[idx] : INFINITY;
}

static void json_replay(atune__json *j, const replay *r, const char *strategy,
                        uint64_t seed)
{
    const atune__sim *s = r->sim;
    double best = recorded(s, r->res.best), def = recorded(s, 0);

    atune__json_object(j, NULL);
    atune__json_str(j, "kernel", s->m->name);
    atune__json_str(j, "size", s->size_key);
    if (r->size_name)
        atune__json_str(j, "size_name", r->size_name);
    else
        atune__json_null(j, "size_name");
    atune__json_str(j, "strategy", strategy);
    /* JSON readers keep 53 bits of an integer; a seed is an identifier. */
    if (seed <= INT64_MAX)
        atune__json_int(j, "seed", (int64_t)seed);
    else
        atune__json_null(j, "seed");
    json_config(j, "best", s->m, isfinite(best) ? r->res.best : -1, best);
    json_config(j, "optimum", s->m, s->optimum, s->optimum_ns);
    if (isfinite(best) && s->optimum >= 0)
        atune__json_num(j, "fraction_of_optimum", s->optimum_ns / best);
    else
        atune__json_null(j, "fraction_of_optimum");
    atune__json_int(j, "evaluations", r->res.evaluations);
    atune__json_int(j, "space", s->space);
    if (s->total > 0 && s->valid[0] && isfinite(def))
        atune__json_int(j, "default_time_ns", (int64_t)(def + 0.5));
    else
        atune__json_null(j, "default_time_ns");
    atune__json_str(j, "stop", r->res.stop);
    atune__json_end(j);
}

/* "1.234 ms", or "5.96 us" for what a millisecond would round away. */
static void fmt_time(char *buf, size_t len, double ns)
{
    if (ns < 1e5)
        snprintf(buf, len, "%.2f us", ns / 1e3);
    else
        snprintf(buf, len, "%.3f ms", ns / 1e6);
}

static void print_header(void)
{
    printf("%-10s %-22s %-44s %10s %10s %8s %9s\n", "kernel", "size",
           "best configuration", "time", "optimum", "of opt", "evaluated");
}

static void print_replay(const replay *r)
{
    const atune__sim *s = r->sim;
    double best = recorded(s, r->res.best);
    char cfg[512] = "(no configuration was ok)", opt[32] = "-", frac[16] = "-";
    char tbest[32] = "-";
    atune__config c;

    if (isfinite(best)) {
        atune__space_config(s->m, r->res.best, &c);
        atune__config_str(s->m, &c, cfg, sizeof(cfg));
        fmt_time(tbest, sizeof(tbest), best);
    }
    if (s->optimum >= 0) {
        fmt_time(opt, sizeof(opt), s->optimum_ns);
        if (isfinite(best))
            snprintf(frac, sizeof(frac), "%.1f%%", 100 * s->optimum_ns / best);
    }
    printf("%-10s %-22s %-44s %10s %10s %8s %5lld/%lld\n", s->m->name,
           s->size_key, cfg, tbest, opt, frac, (long long)r->res.evaluations,
           (long long)s->space);
}

/* Whether a pair passes --kernel (the templates loaded) and --size. */
static int selected(const atune__cli *o, const atune__manifest *m,
                    const char *key)
{
    const char *name;

    if (!m)
        return 0;
    if (!o->size)
        return 1;
    name = size_name(m, key);
    return name && strcmp(name, o->size) == 0;
}

/* The search of one (kernel, size); output as it finishes. */
static int replay_one(const atune__cli *o, const atune__manifest *m,
                      const atune__sim_pair *p, const atune__record *recs,
                      atune__json *j, int first, int64_t *win,
                      const char **wkey, int *nwin)
{
    atune__sim sim;
    atune__err err;
    replay r = {.sim = &sim};
    /* o->strategy, not its name: no strategy means the default stopping
     * rule, as in tune. */
    atune__search_spec spec = {.strategy = o->strategy,
                               .budget = o->budget,
                               .time_limit = o->time_limit,
                               .seed = o->seed,
                               .final_k = FINAL_K};
    int64_t seeds[ATUNE__MAX_SEEDS];
    int rc;

    const char *key = p->size_key;

    atune__err_clear(&err);
    rc = atune__sim_open_pair(&sim, m, p, recs, o->simulate, &err);
    if (rc)
        return atune__cli_error(rc, "%s", err.msg);
    spec.m = m;
    spec.valid = sim.valid;
    /* As tune: the winners of the kernel's nearest sizes before. */
    if (!o->strategy || strcmp(o->strategy, "brute_force") != 0) {
        spec.seeds = seeds;
        spec.nseeds = atune__seeds_nearest(key, wkey, win, *nwin, seeds);
    }
    r.size_name = size_name(m, key);
    rc = atune__search(&spec, atune__sim_eval, atune__sim_remeasure, &sim,
                       &r.res, &err);
    if (!rc && r.res.best >= 0 && *nwin < ATUNE__MAX_SIZES) {
        memmove(win + 1, win, (size_t)*nwin * sizeof(*win));
        memmove(wkey + 1, wkey, (size_t)*nwin * sizeof(*wkey));
        win[0] = r.res.best;
        wkey[0] = key;
        ++*nwin;
    }
    if (rc) {
        atune__cli_error(rc, "%s %s: %s", m->name, key, err.msg);
    } else if (j) {
        json_replay(j, &r, r.res.strategy, o->seed);
    } else {
        /* The header only above a row: not above an error message. */
        if (first)
            print_header();
        print_replay(&r);
    }
    atune__sim_close(&sim);
    return rc;
}

static int check_options(const atune__cli *o, const atune__templates *t)
{
    int found = 0;

    if (o->strategy && !atune__strategy_known(o->strategy)) {
        const char *const *names = atune__strategy_names();
        fprintf(stderr,
                "autotune: error: unknown strategy '%s'; known:", o->strategy);
        for (int i = 0; names[i]; i++)
            fprintf(stderr, " %s", names[i]);
        fputc('\n', stderr);
        return ATUNE__EUSAGE;
    }
    if (!o->size)
        return 0;
    for (int i = 0; i < t->n; i++)
        found |= atune__manifest_size(t->m[i], o->size) != NULL;
    return found ? 0
                 : atune__cli_error(ATUNE__EUSAGE,
                                    "no template has a size called '%s'",
                                    o->size);
}

/* Every kernel of the journal must have a template unless --kernel
 * chose among them: replaying half a journal silently would mislead. */
static int check_kernels(const atune__cli *o, const atune__templates *t,
                         const atune__sim_pair *p, int np)
{
    for (int i = 0; i < np && !o->kernels; i++)
        if (!atune__templates_find(t, 1, p[i].kernel))
            return atune__cli_error(ATUNE__EDATA,
                                    "%s:%d: no template '%s' (see "
                                    "--templates)",
                                    o->simulate, p[i].line, p[i].kernel);
    return 0;
}

static int replay_all(const atune__cli *o, const atune__templates *t,
                      const atune__record *recs, const atune__sim_pair *p,
                      int np, atune__json *j)
{
    /* Per template: the winners of its sizes replayed so far and their
     * size keys, latest first (the seeds of its next size, as in tune). */
    int64_t(*win)[ATUNE__MAX_SIZES] =
        atune__calloc((size_t)t->n + 1, sizeof(*win));
    const char *(*wkey)[ATUNE__MAX_SIZES] =
        atune__calloc((size_t)t->n + 1, sizeof(*wkey));
    int *nwin = atune__calloc((size_t)t->n + 1, sizeof(*nwin));
    int done = 0, rc = 0;

    if (!win || !wkey || !nwin)
        rc = atune__cli_error(ATUNE__EOSERR, "out of memory");
    else if (np == 0)
        rc = atune__cli_error(ATUNE__EDATA, "%s: no records", o->simulate);
    for (int i = 0; i < np && !rc; i++) {
        const atune__manifest *m = atune__templates_find(t, 1, p[i].kernel);
        int k = 0;
        if (!selected(o, m, p[i].size_key))
            continue;
        while (t->m[k] != m)
            k++;
        rc = replay_one(o, m, &p[i], recs, j, done == 0, win[k],
                        wkey[k], &nwin[k]);
        done++;
    }
    if (!rc && done == 0)
        rc = atune__cli_error(ATUNE__EUSAGE,
                              "'%s' has no record of the selected kernels "
                              "and sizes",
                              o->simulate);
    free(win);
    free(wkey);
    free(nwin);
    return rc;
}

/* A journal lives longer than a template version: records of another
 * version of a loaded template are skipped, and counted. Returns the
 * number kept (compacted in place). */
static int drop_old_versions(const atune__cli *o, const atune__templates *t,
                             atune__record *recs, int n)
{
    int kept = 0;

    for (int i = 0; i < t->n; i++) {
        const atune__manifest *m = t->m[i];
        char hash[17];
        int skipped = 0;
        snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)m->hash);
        for (int k = 0; k < n; k++)
            skipped += strcmp(recs[k].kernel, m->name) == 0 &&
                       strcmp(recs[k].hash, hash) != 0;
        if (skipped && !o->quiet)
            fprintf(stderr, "autotune: note: %s: skipped %d records of "
                            "another version of template '%s'\n",
                    o->simulate, skipped, m->name);
    }
    for (int k = 0; k < n; k++) {
        const atune__manifest *m = atune__templates_find(t, 1, recs[k].kernel);
        char hash[17];
        if (m) {
            snprintf(hash, sizeof(hash), "%016llx",
                     (unsigned long long)m->hash);
            if (strcmp(recs[k].hash, hash) != 0)
                continue;
        }
        recs[kept++] = recs[k];
    }
    return kept;
}

int atune__cmd_simulate(const atune__cli *o)
{
    atune__templates t = {0};
    atune__record *recs = NULL;
    atune__sim_pair *pairs = NULL;
    atune__json json, *j = NULL;
    atune__err err;
    int n = 0, np = 0, cut = 0, rc;

    atune__err_clear(&err);
    rc = atune__journal_read_cut(o->simulate, &recs, &n, &cut, &err);
    if (!rc && cut && !o->quiet)
        fprintf(stderr, "autotune: note: %s:%d: an unfinished last record "
                        "(cut by a kill or a full disk), left out\n",
                o->simulate, cut);
    if (!rc)
        rc = atune__cli_templates(o, o->kernels, &t, &err);
    if (!rc)
        n = drop_old_versions(o, &t, recs, n);
    if (!rc)
        rc = atune__sim_pairs(recs, n, &pairs, &np, &err);
    if (rc) {
        atune__cli_error(rc, "%s", err.msg);
        goto done;
    }
    if ((rc = check_options(o, &t)) || (rc = check_kernels(o, &t, pairs, np)))
        goto done;
    if (o->json) {
        j = &json;
        atune__cli_json_begin(j, o->simulate);
    }
    rc = replay_all(o, &t, recs, pairs, np, j);
    if (j) {
        atune__json_end(j);
        atune__json_str(j, "status", rc ? "error" : "ok");
        atune__json_end(j);
    }
done:
    free(pairs);
    free(recs);
    atune__templates_free(&t);
    return rc;
}
