/* firstuse.c -- tuning at first use (ATUNE_EFFORT measure and patient,
 * docs/first-use.md): where this GPU has no exact tuned entry for a size,
 * candidates are compiled, verified against the reference and timed on
 * the application's GPU, on buffers of libatune_jit's own made from
 * [args] (measure/runner.h; never the application's), and the fastest is
 * written into the user's profile directory as the tool writes profiles
 * (measure/profile_write.h: locked, atomic, merged by evidence), so that
 * the next process gets an exact hit and measures nothing. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "appjit/appjit_internal.h"
#include "measure/profile_write.h"
#include "measure/runner.h"
#include "search/strategy.h"

/* measure races the defaults, the configuration the profile would serve
 * and the nearest tuned entries of the kernel: a handful, so that a first
 * call stays under a second with a cold module cache. */
#define NEIGHBOURS 3
#define MEASURE_CANDS 8 /* measure's race, at most */
#define MAX_CANDS 12    /* with patient's search winner */
#define PATH_FILES 16   /* profiles of the search path read for candidates */
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

typedef struct cand {
    atune__config cfg;
    char from[160];
    atune__result res;
    int evaluated;
} cand;

typedef struct fu_run {
    atune_jit *j;
    atune__device *d;
    atune__problem *prob;
    atune__timing t;
    cand c[MAX_CANDS];
    int n, cap;
    int compiled, cached; /* compilations that ran NVRTC / hit the cache */
    int evaluated;
    int best;             /* index into c, or -1 */
    /* patient: the search's own candidates */
    atune__config search_best;
    atune__result search_res;
    int have_search_best;
    double t0;
} fu_run;

static void say(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

/* The user's profile directory, as the search path names it
 * (lib/profile_path.c, which a shared libatune hides):
 * $XDG_DATA_HOME/autotune/profiles, else ~/.local/share/autotune/profiles. */
static int user_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;

    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/autotune/profiles", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.local/share/autotune/profiles", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* mkdir -p, mode 0755 less the umask. */
static int make_dirs(const char *path, char *why, size_t len)
{
    char p[4096];
    struct stat st;

    if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p)) {
        say(why, len, "directory name too long");
        return -1;
    }
    for (char *s = p + 1;; s++) {
        char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            say(why, len, "cannot create '%s': %s", p, strerror(errno));
            return -1;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        say(why, len, "'%s' is not a directory", path);
        return -1;
    }
    return 0;
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

void atune__jit_first_use_close(atune_jit *j)
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

/* --- candidates ------------------------------------------------------------ */

static int add_cand(fu_run *r, const atune__config *cfg, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int add_cand(fu_run *r, const atune__config *cfg, const char *fmt, ...)
{
    const atune__manifest *m = r->j->m;
    va_list ap;

    if (r->n >= r->cap || atune__space_index(m, cfg) < 0)
        return -1;
    for (int i = 0; i < r->n; i++)
        if (memcmp(r->c[i].cfg.v, cfg->v, sizeof(cfg->v[0]) * m->nparams) ==
            0)
            return i;
    memset(&r->c[r->n], 0, sizeof(r->c[r->n]));
    r->c[r->n].cfg = *cfg;
    va_start(ap, fmt);
    vsnprintf(r->c[r->n].from, sizeof(r->c[r->n].from), fmt, ap);
    va_end(ap);
    return r->n++;
}

/* The entries of j's kernel in p with the template's size variables,
 * nearest to v first (log2 distance, as the profile look-up measures
 * it), at most n of them, as candidates. */
typedef struct near {
    double d;
    int i;
} near;

static int near_cmp(const void *x, const void *y)
{
    const near *a = x, *b = y;

    return a->d < b->d ? -1 : a->d > b->d ? 1 : a->i - b->i;
}

static void add_neighbours(fu_run *r, atune_profile *p, const int64_t *v, int n,
                           const char *where)
{
    atune_jit *j = r->j;
    int count = atune_profile_count(p), nn = 0;
    near *e = count > 0 ? malloc(sizeof(*e) * (size_t)count) : NULL;

    for (int i = 0; e && i < count; i++) {
        const atune_config *c = atune_profile_entry(p, i);
        int64_t w[ATUNE__MAX_SIZE_VARS];
        double dd = 0;
        if (strcmp(atune_config_kernel(c), j->m->name) != 0)
            continue;
        if (atune__jit_size_values(j, atune_config_size(c), w) != ATUNE_OK) {
            j->msg[0] = '\0';
            continue;
        }
        for (int k = 0; k < j->nsize; k++)
            dd += fabs(log2((double)(w[k] > 0 ? w[k] : 1)) -
                       log2((double)(v[k] > 0 ? v[k] : 1)));
        e[nn].d = dd;
        e[nn++].i = i;
    }
    if (nn > 1)
        qsort(e, (size_t)nn, sizeof(*e), near_cmp);
    for (int k = 0, added = 0; k < nn && added < n; k++) {
        const atune_config *c = atune_profile_entry(p, e[k].i);
        atune__config cfg;
        int before = r->n;
        atune__jit_config_from(j->m, c, &cfg);
        add_cand(r, &cfg, "the tuned entry of %s in %s '%s'",
                 atune_config_size(c), where, atune_profile_device(p)->name);
        added += r->n > before;
    }
    free(e);
}

/* The nearest entries of the other profiles on the search path
 * (atune_profile_search_path): other GPU models' winners near the size
 * are often good here too, and a GPU with no profile has nothing else. */
static void add_search_path(fu_run *r, const char *skip1, const char *skip2,
                            const int64_t *v)
{
    char dirs[8192], path[4096];
    int files = 0;

    if (atune_profile_search_path(dirs, sizeof(dirs)) != ATUNE_OK)
        return;
    for (char *dir = strtok(dirs, ":"); dir && files < PATH_FILES;
         dir = strtok(NULL, ":")) {
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL && files < PATH_FILES &&
               r->n < r->cap) {
            size_t n = strlen(de->d_name);
            atune_profile *q = NULL;
            if (n < 5 || strcmp(de->d_name + n - 4, ".ini") != 0 ||
                de->d_name[0] == '.' ||
                snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
                    (int)sizeof(path) ||
                (skip1 && strcmp(path, skip1) == 0) ||
                (skip2 && strcmp(path, skip2) == 0))
                continue;
            files++;
            if (atune_profile_open(path, &q) == ATUNE_OK)
                add_neighbours(r, q, v, 2, "the profile of");
            atune_profile_close(q);
        }
        if (d)
            closedir(d);
    }
}

/* --- measuring ------------------------------------------------------------- */

/* Compiles (through the module cache), loads, verifies and times cfg.
 * Returns 0 with res->status telling the verdict, or an error that ends
 * first use (the device is no longer usable). */
static int evaluate(fu_run *r, const atune__config *cfg, atune__result *res,
                    atune__err *err)
{
    atune_jit *j = r->j;
    const char *names[] = {j->m->kernel};
    const atune__devinfo *in = atune__device_info(r->d);
    atune__cubin cubin;
    atune__kernel *k = NULL;
    int hit = 0, rc;

    memset(res, 0, sizeof(*res));
    rc = atune__jit_compile_cached(j->cache, j->m, cfg, in->arch, names, 1,
                                   &cubin, &hit, err);
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
        /* The fastest so far is the incumbent: a slower one stops early. */
        r->t.cutoff_ns = r->best >= 0 ? r->c[r->best].res.time_ns : 0;
        if (evaluate(r, &c->cfg, &c->res, err)) {
            *fatal = 1;
            break;
        }
        c->evaluated = 1;
        /* A loser of the race was verified (verify_lazily is off), but its
         * time is a lower bound: it only matters that it lost. */
        if (c->res.status == ATUNE__ST_OK &&
            (r->best < 0 || c->res.time_ns < r->c[r->best].res.time_ns))
            r->best = i;
    }
    r->t.cutoff_ns = 0;
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
    r->t.cutoff_ns = r->have_search_best ? r->search_res.time_ns : 0;
    rc = evaluate(r, &cfg, &res, err);
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
        int i = add_cand(r, &r->search_best, "the default search");
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

/* --- the profile ------------------------------------------------------------ */

static void device_entry(const atune__device *d, atune__pw_device *pd)
{
    const atune__devinfo *in = atune__device_info(d);

    memset(pd, 0, sizeof(*pd));
    atune__strlcpy(pd->name, in->name, sizeof(pd->name));
    atune__slugify(in->name, pd->slug, sizeof(pd->slug));
    pd->cc = (int)in->attr.cc;
    pd->sm_count = (int)in->attr.sm_count;
    pd->mem_bandwidth_gbs = in->mem_bandwidth_gbs;
    pd->l2_bytes = in->attr.l2_bytes;
    pd->driver = in->driver;
    pd->nvrtc = atune__jit_version();
    atune__strlcpy(pd->uuid, in->uuid, sizeof(pd->uuid));
    atune__utc_date(pd->date, sizeof(pd->date), 0);
    atune__strlcpy(pd->tuner, ATUNE_VERSION_STRING, sizeof(pd->tuner));
}

static void fill_entry(const fu_run *r, const cand *c, const char *key,
                       const char *strategy, const char *what,
                       atune__pw_entry *e)
{
    const atune__manifest *m = r->j->m;
    char v[64];

    memset(e, 0, sizeof(*e));
    atune__strlcpy(e->kernel, m->name, sizeof(e->kernel));
    atune__strlcpy(e->size_key, key, sizeof(e->size_key));
    e->nparams = m->nparams;
    for (int i = 0; i < m->nparams; i++) {
        atune__strlcpy(e->param[i], m->params[i].name, sizeof(e->param[i]));
        e->value[i] = c->cfg.v[i];
    }
    e->time_ns = (int64_t)(c->res.time_ns + 0.5);
    e->spread_ns = (int64_t)(c->res.spread_ns + 0.5);
    e->metric = c->res.metric;
    atune__strlcpy(e->metric_unit, m->metric == ATUNE__GBS ? "GB/s" : "GFLOP/s",
                   sizeof(e->metric_unit));
    for (int i = 0; i < r->n; i++)
        if (atune__space_index(m, &r->c[i].cfg) == 0 && r->c[i].evaluated &&
            r->c[i].res.status == ATUNE__ST_OK)
            e->default_time_ns = (int64_t)(r->c[i].res.time_ns + 0.5);
    e->evaluated = r->evaluated;
    e->space = atune__space_size(m);
    atune__strlcpy(e->strategy, strategy, sizeof(e->strategy));
    snprintf(e->template_hash, sizeof(e->template_hash), "%s", r->j->hash);
    snprintf(v, sizeof(v), "first-use-%ld-%.0f", (long)getpid(),
             atune__now() * 1e6);
    atune__pw_extra(e, "run", v);
    atune__pw_extra(e, "first_use", what);
}

/* The configuration of c's section in the profile at path (exact, this
 * template), or -1; *seen what the section was. */
static int section_of(atune_jit *j, const char *path, const char *key,
                      atune__config *cfg, atune__pw_seen *seen)
{
    atune_profile *p = NULL;
    const atune_config *pc;
    const char *run;
    int rc = -1;

    memset(seen, 0, sizeof(*seen));
    if (atune_profile_open(path, &p) == ATUNE_OK &&
        atune_profile_lookup(p, j->m->name, key, &pc) == ATUNE_OK &&
        atune_config_size_match(pc) == ATUNE_SIZE_EXACT) {
        seen->present = 1;
        run = atune_config_meta(pc, "run");
        atune__strlcpy(seen->run, run ? run : "", sizeof(seen->run));
        atune__jit_config_from(j->m, pc, cfg);
        rc = strcmp(atune_config_template_hash(pc), j->hash) == 0 ? 0 : -1;
    }
    atune_profile_close(p);
    return rc;
}

/* Writes c into the profile at path: only if the section is still absent;
 * when another process wrote it meanwhile, its configuration is timed
 * beside c here and the faster is kept (merge by evidence), once. *kept
 * gets the candidate written or kept. */
static int write_winner(fu_run *r, const char *path, const char *base,
                        const char *key, const char *strategy,
                        const char *what, int *kept, atune__err *err)
{
    atune__pw_device pd;
    atune__pw_entry *e = atune__calloc(1, sizeof(*e));
    atune__pw_seen seen = {0};
    int changed = 0, rc;

    *kept = r->best;
    if (!e)
        return atune__fail(err, ATUNE__EOSERR, "out of memory");
    device_entry(r->d, &pd);
    for (int attempt = 0; attempt < 2; attempt++) {
        atune__config theirs;
        atune__result res;
        fill_entry(r, &r->c[*kept], key, strategy, what, e);
        rc = atune__profile_update_based(path, base, &pd, e, &seen, &changed,
                                         err);
        if (rc || !changed)
            break;
        /* Another process measured the size first. */
        if (section_of(r->j, path, key, &theirs, &seen) != 0)
            continue; /* another template version's: replaced */
        r->t.cutoff_ns = 0;
        if ((rc = evaluate(r, &theirs, &res, err)) != 0)
            break;
        if (res.status == ATUNE__ST_OK &&
            res.time_ns <= r->c[*kept].res.time_ns) {
            *kept = -1; /* theirs: nothing to write */
            break;
        }
    }
    free(e);
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
    char why[1200], best_s[512], how[200] = "", what[700];
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
    double ms;

    size_key(j, v, key, sizeof(key));
    atune__jit_gpu_model(j, p, gpu, sizeof(gpu));
    snprintf(lkey, sizeof(lkey), "%s\t%s", gpu, key);
    if ((l = learned_find(j, lkey)) != NULL) {
        say(note, notelen, "%s", l->what);
        *out = l->c;
        return 1;
    }
    atune__slugify(gpu, slug, sizeof(slug));
    have_dir = user_dir(dir, sizeof(dir)) == 0;
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
    r->best = -1;
    r->cap = effort == ATUNE_JIT_EFFORT_PATIENT ? MAX_CANDS - 1 : MEASURE_CANDS;
    r->t0 = atune__now();
    atune__timing_default(&r->t);
    /* A first call must stay short: fewer samples than a tuning run. */
    r->t.min_samples = 5;
    r->t.max_samples = 15;
    r->t.target_s = 0.01;
    atune__jit_default_cache(j);
    rc = atune__device_attach(j->cache, &r->d, &err);
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
    if (rc) {
        say(note, notelen, "not measured (%s): falling back to estimate",
            err.msg);
        goto out0;
    }
    /* The candidates: the defaults, what the profile serves, the nearest
     * tuned entries of the profile given and of the user's own. */
    atune__space_config(j->m, 0, &dflt);
    add_cand(r, &dflt, "the defaults");
    if (estimate) {
        atune__config cfg;
        atune__jit_config_from(j->m, estimate, &cfg);
        add_cand(r, &cfg, "what the profile serves (the tuned entry of %s)",
                 atune_config_size(estimate));
    }
    add_neighbours(r, p, v, NEIGHBOURS, "the profile of");
    if (have_dir && (!p || strcmp(atune_profile_path(p), path) != 0) &&
        atune_profile_open(path, &user) == ATUNE_OK)
        add_neighbours(r, user, v, NEIGHBOURS, "the user's profile of");
    add_search_path(r, p ? atune_profile_path(p) : NULL,
                    have_dir ? path : NULL, v);
    race(r, &err, &fatal);
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
    /* A new file in the user's directory shadows the profile served from:
     * it starts as that profile when it is this GPU model's. */
    if (p && strcmp(atune_profile_device(p)->name, gpu) == 0 &&
        atune_profile_path(p)[0])
        base = atune_profile_path(p);
    why[0] = '\0';
    rc = 0;
    if (!have_dir)
        snprintf(why, sizeof(why), "no user profile directory (HOME unset)");
    else if (make_dirs(dir, why, sizeof(why)) == 0 &&
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
                         "%s %s: measured at first use (%s): fastest %s, %.1f "
                         "us (%s); written to '%s'",
                         j->m->name, key, what, best_s, w->res.time_ns / 1e3,
                         w->from, path);
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
    atune_profile_close(user);
    atune__problem_close(r->prob);
    atune__device_close(r->d);
    free(r);
    return 1;
out1:
    atune_profile_close(user);
    atune__problem_close(r->prob);
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

    pthread_mutex_lock(&measuring);
    rc = first_use_locked(j, p, v, a, effort, estimate, out, note, notelen);
    pthread_mutex_unlock(&measuring);
    return rc;
}
