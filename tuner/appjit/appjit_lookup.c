/* appjit_lookup.c -- look-ups that are always safe to launch: the
 * profile's configuration for a size, checked against the template's
 * constraints and the device limits at that size, with a fallback to
 * the same entry with its launch-only parameters at their defaults, then
 * to another tuned entry of the kernel, then to the defaults; far from
 * every tuned size, the entry a model of the grid's waves predicts
 * fastest. libatune alone
 * cannot evaluate the template's rules; the JIT helper has the manifest. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appjit/appjit_internal.h"

static void say(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (!msg || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

/* Whether c can be launched at size: its values are the template's, it is
 * this kernel's, and the constraints and limits hold. The reason (from
 * j->msg) in why otherwise. */
static int usable(atune_jit *j, const atune_config *c, const atune__devattr *a,
                  const int64_t *size, char *why, size_t len)
{
    atune__config cfg;
    atune__launch l;
    int stale = atune_jit_stale(j, c);
    const char *reason;

    if (stale & ATUNE_JIT_STALE_KERNEL) {
        snprintf(why, len, "it is kernel '%s''s", atune_config_kernel(c));
        return 0;
    }
    atune__jit_config_from(j->m, c, &cfg);
    if (atune__jit_check_values(j, &cfg) == ATUNE_OK &&
        atune__jit_shape_of(j, &cfg, a, size, &l) == ATUNE_OK)
        return 1;
    /* The message ends with the reason: "...: constraint 'x' is false". */
    reason = strstr(j->msg, ": constraint");
    atune__strlcpy(why, reason ? reason + 2 : j->msg, len);
    j->msg[0] = '\0';
    return 0;
}

/* Sum over the variables of |log2(tuned) - log2(wanted)|, as the profile
 * look-up measures nearness; -1 when c's size has other variables. */
static double distance(atune_jit *j, const atune_config *c, const int64_t *want)
{
    int64_t v[ATUNE__MAX_SIZE_VARS];
    double d = 0;

    if (atune__jit_size_values(j, atune_config_size(c), v) != ATUNE_OK) {
        j->msg[0] = '\0';
        return -1;
    }
    for (int i = 0; i < j->nsize; i++)
        d += fabs(log2((double)(v[i] > 0 ? v[i] : 1)) -
                  log2((double)(want[i] > 0 ? want[i] : 1)));
    return d;
}

/* Entries served with their launch-only parameters at the defaults: a
 * parameter that only [launch] reads (matmul's SPLITK and SKB) changes
 * the grid, not the module, and a template may allow some of its values
 * only at some shapes (stream-K only where the last wave of tiles is
 * short). An entry's kernel with the default launch suits a nearby shape
 * better than a farther size's entry as tuned (docs/results.md, regret
 * at random shapes). One copy per set of values (not per entry: a
 * profile closed and another opened may reuse an entry's address),
 * shared by the handle's threads, freed by atune_jit_close. */
static pthread_mutex_t relaunch_lock = PTHREAD_MUTEX_INITIALIZER;

static int launch_only(const atune__param *pa)
{
    return !pa->macro && !pa->named && !pa->in_name;
}

/* A copy of entry c with cfg's values, one per set of values (the
 * relaunched entries and the far-shape look-up's alike), kept in
 * j->relaunched; NULL when out of memory. */
static const atune_config *variant(atune_jit *j, const atune_config *c,
                                   const atune__config *cfg)
{
    const atune__manifest *m = j->m;
    struct atune__relaunch *r;
    const atune_config *found = NULL;
    atune_config *own = NULL;

    pthread_mutex_lock(&relaunch_lock);
    for (r = j->relaunched; r && !found; r = r->next) {
        int same = 1;
        for (int i = 0; i < m->nparams && same; i++)
            same = atune_config_get(r->own, m->params[i].name, INT64_MIN) ==
                   cfg->v[i];
        if (same)
            found = r->own;
    }
    pthread_mutex_unlock(&relaunch_lock);
    if (found)
        return found;
    if (atune_config_new(m->name, c, &own) != ATUNE_OK)
        return NULL;
    for (int i = 0; i < m->nparams; i++)
        if (atune_config_set(own, m->params[i].name, cfg->v[i]) != ATUNE_OK) {
            atune_config_free(own);
            return NULL;
        }
    if (!(r = calloc(1, sizeof(*r)))) {
        atune_config_free(own);
        return NULL;
    }
    r->own = own;
    pthread_mutex_lock(&relaunch_lock);
    r->next = j->relaunched;
    j->relaunched = r;
    pthread_mutex_unlock(&relaunch_lock);
    return own;
}

/* Launch-only values of c that differ from its entry's, as "SKB=0,...". */
static void launch_changes(atune_jit *j, const atune_config *c,
                           const atune_config *entry, char *out, size_t len)
{
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; i < j->m->nparams; i++) {
        const atune__param *pa = &j->m->params[i];
        int64_t v = atune_config_get(c, pa->name, pa->values[0]);
        if (launch_only(pa) && v != atune_config_get(entry, pa->name,
                                                     pa->values[0]) &&
            used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s=%" PRId64,
                                     used ? "," : "", pa->name, v);
    }
}

/* c with every launch-only parameter at its default, when that differs
 * from c and can run at size; NULL otherwise. changed lists the
 * parameters set ("SKB=0"). */
static const atune_config *relaunched(atune_jit *j, const atune_config *c,
                                      const atune__devattr *a,
                                      const int64_t *size, char *changed,
                                      size_t len)
{
    const atune__manifest *m = j->m;
    const atune_config *found;
    atune__config own, cfg;
    char why[512];

    changed[0] = '\0';
    atune__jit_config_from(m, c, &own);
    cfg = own;
    for (int i = 0; i < m->nparams; i++)
        if (launch_only(&m->params[i]))
            cfg.v[i] = m->params[i].values[0];
    if (memcmp(own.v, cfg.v, sizeof(own.v[0]) * (size_t)m->nparams) == 0 ||
        !(found = variant(j, c, &cfg)))
        return NULL;
    launch_changes(j, found, c, changed, len);
    return usable(j, found, a, size, why, sizeof(why)) ? found : NULL;
}

/* The usable tuned entry of this kernel nearest to size, or NULL; an
 * entry that can run with its launch at the defaults counts, as that
 * (from: the entry, changed: what was set; "" when none). */
static const atune_config *nearest_usable(atune_jit *j, atune_profile *p,
                                          const atune_config *skip,
                                          const atune__devattr *a,
                                          const int64_t *size,
                                          const atune_config **from,
                                          char *changed, size_t len)
{
    const atune_config *best = NULL;
    double best_d = 0;
    char why[512], ch[256];

    changed[0] = '\0';
    for (int i = 0; i < atune_profile_count(p); i++) {
        const atune_config *e = atune_profile_entry(p, i), *r;
        double d;
        if (strcmp(atune_config_kernel(e), j->m->name) != 0 ||
            strcmp(atune_config_size(e), atune_config_size(skip)) == 0)
            continue;
        d = distance(j, e, size);
        if (d < 0 || (best && d >= best_d))
            continue;
        if (usable(j, e, a, size, why, sizeof(why))) {
            best = *from = e;
            best_d = d;
            changed[0] = '\0';
        } else if ((r = relaunched(j, e, a, size, ch, sizeof(ch))) != NULL) {
            best = r;
            *from = e;
            best_d = d;
            atune__strlcpy(changed, ch, len);
        }
    }
    return best;
}

/* The padding check between ladder points. A winner often fits its own
 * size's grid exactly, and a few percent off that size its grid gains a
 * row or column of mostly idle blocks: on an H100 (2026-11-25, regret of
 * the committed profile) constmem at 3157^2 got 2897^2's winner, whose
 * blocks span 1024 columns (3 at 2897, 4 at 3157: 23% more blocks than
 * the columns need), and reached 84.6% of its optimum, where the next
 * point's winner (256 columns a block) reached 99.2%. The look-up itself
 * stays the profile's (nearest); the template's grid, evaluated here,
 * vetoes a pick that would launch PAD_MARGIN more padding at the wanted
 * size than at its own, when a neighbour's configuration would not. */
#define PAD_SCALE 64   /* the size times this: a grid nearly free of padding */
#define PAD_MARGIN 0.05
#define PAD_REACH 1.0  /* neighbours: within a doubling, summed over variables */

/* Blocks launched at size over the blocks its extent needs: the product,
 * over the grid dimensions that grow with the size, of grid(size) against
 * grid(PAD_SCALE * size) / PAD_SCALE. 0 when the grid cannot be evaluated
 * (the device's grid limits are lifted for the scaled size). */
static double padding(atune_jit *j, const atune__config *cfg,
                      const atune__devattr *a, const int64_t *size)
{
    int64_t big[ATUNE__MAX_SIZE_VARS];
    atune__devattr roomy = *a;
    atune__launch l, lb;
    double q = 1;

    for (int d = 0; d < 3; d++)
        roomy.max_grid[d] = INT64_MAX / 2;
    for (int i = 0; i < j->nsize; i++) {
        if (size[i] > INT64_MAX / PAD_SCALE)
            return 0;
        big[i] = size[i] * PAD_SCALE;
    }
    if (atune__jit_shape_of(j, cfg, &roomy, size, &l) != ATUNE_OK ||
        atune__jit_shape_of(j, cfg, &roomy, big, &lb) != ATUNE_OK) {
        j->msg[0] = '\0';
        return 0;
    }
    for (int d = 0; d < 3; d++)
        if (lb.grid[d] >= 2 * l.grid[d])
            q *= (double)l.grid[d] * PAD_SCALE / (double)lb.grid[d];
    return q;
}

/* How much more padded entry c's grid is at size than at its own tuned
 * size: 0 when unknown. */
static double padding_growth(atune_jit *j, const atune_config *c,
                             const atune__devattr *a, const int64_t *size)
{
    int64_t own[ATUNE__MAX_SIZE_VARS];
    atune__config cfg;
    double here, there;

    if (atune__jit_size_values(j, atune_config_size(c), own) != ATUNE_OK) {
        j->msg[0] = '\0';
        return 0;
    }
    atune__jit_config_from(j->m, c, &cfg);
    here = padding(j, &cfg, a, size);
    there = padding(j, &cfg, a, own);
    return here > 0 && there > 0 ? here / there : 0;
}

/* A neighbour of the nearest entry c whose grid pads less at size, when
 * c's pads PAD_MARGIN more than at its own size and the neighbour's
 * PAD_MARGIN less than c's; else NULL. *grow gets c's growth, *alt_grow
 * the neighbour's. */
static const atune_config *less_padded(atune_jit *j, atune_profile *p,
                                       const atune_config *c,
                                       const atune__devattr *a,
                                       const int64_t *size, double *grow,
                                       double *alt_grow)
{
    const atune_config *best = NULL;
    double g = padding_growth(j, c, a, size), best_g = 0;
    char why[512];

    *grow = g;
    if (g <= 1 + PAD_MARGIN)
        return NULL;
    for (int i = 0; i < atune_profile_count(p); i++) {
        const atune_config *e = atune_profile_entry(p, i);
        double d, eg;
        if (e == c || strcmp(atune_config_kernel(e), j->m->name) != 0)
            continue;
        d = distance(j, e, size);
        if (d < 0 || d > PAD_REACH || !usable(j, e, a, size, why, sizeof(why)))
            continue;
        eg = padding_growth(j, e, a, size);
        if (eg > 0 && eg * (1 + PAD_MARGIN) < g && (!best || eg < best_g)) {
            best = e;
            best_g = eg;
        }
    }
    *alt_grow = best_g;
    return best;
}

/* --- far from every tuned size: a model of the grid's waves ------------- */

/* A size whose nearest tuned entry is farther than FAR (summed |log2| over
 * the variables: a factor 4 in one, 2 in two) is served by a model, and
 * so is every untuned size of a template with block_cost (matmul's
 * ladder sizes, each served from the others: 96.6% / 86.9% of their
 * optimum, the nearest entry 92.9% / 68.7%; H100). A launch takes c *
 * cost * turns: cost is what one block costs (block_cost, else the work
 * over the blocks); turns is the busiest SM's: it runs ceil(blocks / SMs)
 * blocks, at most o at a time (as its threads and shared memory allow, at
 * most SATURATE warps, past which more hide no more latency), r together
 * taking r^(1 - SHARE) times one alone. c belongs to a kernel (all but
 * the launch-only values): the geometric mean over its tuned entries of
 * time / (cost * turns) at their own sizes. The fastest prediction over
 * the kernels and the launch-only values that can run here is served.
 * The nearest entry misses where the shape differs: matmul's squares
 * serve 339 x 122 x 15142 a 64 x 64 kernel without split-K (13.8% of the
 * optimum). Designed on the H100's brute force at 24 random shapes
 * (tests/data/regret_shapes, seed 5): 97.4% of the optimum on average,
 * worst 89.7%, the model before (one block an SM, no block_cost, beyond
 * FAR only) 92.3%, 64.6%; issue 36's seed 12 is the check (results.md). */
#define FAR 2.0
#define SHARE 0.4
#define SATURATE 16.0
#define MAX_VARIANTS 64 /* sets of launch-only values tried per kernel */

/* The variables of size and the device, as the template's expressions
 * read them; 0 when they cannot be set. */
static int size_vars(atune_jit *j, const atune__devattr *a,
                     const int64_t *size, atune__vars *vs)
{
    vs->n = 0;
    for (int i = 0; i < j->nsize; i++)
        if (atune__vars_set(vs, j->m->sizes[0].var[i], size[i]) != 0)
            return 0;
    return atune__devattr_vars(a, vs) == 0;
}

/* The template's work (its metric's numerator) with vs; 0 when unknown. */
static double work_at(atune_jit *j, const atune__vars *vs)
{
    atune__err err = {0};
    int64_t w = 0;

    if (!j->m->work || atune__manifest_eval(j->m, j->m->work, j->m->work_line,
                                            vs, &w, &err) != 0)
        return 0;
    return w > 0 ? (double)w : 0;
}

/* Threads an SM holds: CUDA's occupancy tables by compute capability. */
static double sm_threads(int64_t cc)
{
    if (cc == 75)
        return 1024;
    if (cc == 86 || cc == 87 || cc == 89 || cc >= 120)
        return 1536;
    return 2048;
}

/* cfg's time with vs over its c (see above): cost * turns of its first
 * launch; 0 when it cannot run there or its cost is unknown. *blocks gets
 * the grid's blocks. Checked as atune__jit_shape_of checks, without its
 * message, which the model would format for every set of values that
 * cannot run. */
static double modelled(atune_jit *j, const atune__config *cfg,
                       const atune__devattr *a, const atune__vars *vs,
                       double *blocks)
{
    atune__launch all[ATUNE__MAX_STEPS];
    atune__err err = {0};
    char reason[64];
    double b, t, per, o, full, rest, cost;
    double sm = (double)(a->sm_count > 0 ? a->sm_count : 1);
    double warp = (double)(a->warp_size > 0 ? a->warp_size : 32);

    if (atune__jit_check_values(j, cfg) != ATUNE_OK) {
        j->msg[0] = '\0';
        return 0;
    }
    if (atune__space_launches(j->m, cfg, vs, a, all, reason, sizeof(reason),
                              &err) != 1)
        return 0;
    b = (double)all[0].grid[0] * (double)all[0].grid[1] *
        (double)all[0].grid[2];
    t = (double)all[0].block[0] * (double)all[0].block[1] *
        (double)all[0].block[2];
    if (b <= 0 || t <= 0)
        return 0;
    if (j->m->block_cost) {
        atune__vars with = *vs;
        int64_t v = 0;
        if (atune__config_vars(j->m, cfg, &with) != 0 ||
            atune__manifest_eval(j->m, j->m->block_cost,
                                 j->m->block_cost_line, &with, &v, &err) != 0 ||
            v <= 0)
            return 0;
        cost = (double)v;
    } else if ((cost = work_at(j, vs) / b) <= 0) {
        return 0;
    }
    o = floor(sm_threads(a->cc) / t);
    if (all[0].shared > 0)
        o = fmin(o, floor((double)(a->max_shared_per_block + 1024) /
                          (double)(all[0].shared + 1024)));
    o = fmax(1, fmin(fmin(o, 32), floor(SATURATE / ceil(t / warp))));
    per = ceil(b / sm);
    full = floor(per / o);
    rest = per - full * o;
    *blocks = b;
    return cost * (full * pow(o, 1 - SHARE) +
                   (rest > 0 ? pow(rest, 1 - SHARE) : 0));
}

/* A kernel of the tuned entries (their values but the launch-only ones)
 * with the mean of its entries' log(time / modelled) and the entry
 * nearest the size asked for. */
typedef struct kernel_fit {
    atune__config cfg;
    double logc;
    int n, from;
    double from_d;
} kernel_fit;

static int same_kernel(const atune__manifest *m, const atune__config *x,
                       const atune__config *y)
{
    for (int i = 0; i < m->nparams; i++)
        if (!launch_only(&m->params[i]) && x->v[i] != y->v[i])
            return 0;
    return 1;
}

/* The tuned entries of the kernel fitted: the number of kernels in fit
 * (count entries' room). */
static int fit_kernels(atune_jit *j, atune_profile *p, const atune__devattr *a,
                       const int64_t *size, kernel_fit *fit, int count)
{
    int nk = 0;

    for (int i = 0; i < count; i++) {
        const atune_config *e = atune_profile_entry(p, i);
        int64_t own[ATUNE__MAX_SIZE_VARS], t = atune_config_time_ns(e);
        atune__vars there;
        atune__config cfg;
        double q, b, d;
        int k;
        if (t <= 0 || strcmp(atune_config_kernel(e), j->m->name) != 0 ||
            atune__jit_size_values(j, atune_config_size(e), own) != ATUNE_OK ||
            !size_vars(j, a, own, &there)) {
            j->msg[0] = '\0';
            continue;
        }
        atune__jit_config_from(j->m, e, &cfg);
        if ((q = modelled(j, &cfg, a, &there, &b)) <= 0)
            continue;
        for (k = 0; k < nk && !same_kernel(j->m, &fit[k].cfg, &cfg); k++)
            ;
        d = distance(j, e, size);
        if (k == nk) {
            fit[nk++] = (kernel_fit){.cfg = cfg, .from = i, .from_d = d};
        } else if (d >= 0 && (fit[k].from_d < 0 || d < fit[k].from_d)) {
            fit[k].from = i;
            fit[k].from_d = d;
        }
        fit[k].logc += log((double)t) - log(q);
        fit[k].n++;
    }
    return nk;
}

/* The fastest prediction for size over the kernels of the tuned entries
 * with a time and each set of their launch-only values (at most
 * MAX_VARIANTS a kernel, its nearest entry's own first): that entry, a
 * variant of it (see variant), or NULL. *from: its entry. The constraints
 * checked cost ~14 us a set: ~5 ms for matmul's 13 kernels and 18 sets. */
static const atune_config *by_waves(atune_jit *j, atune_profile *p,
                                    const atune__devattr *a,
                                    const int64_t *size,
                                    const atune_config **from)
{
    const atune__manifest *m = j->m;
    const atune_config *best_e = NULL;
    atune__config best_cfg;
    double best_t = 0, best_b = 0;
    int lo[ATUNE__MAX_PARAMS], nlo = 0, nk, count = atune_profile_count(p);
    int64_t combos = 1;
    atune__vars here;
    kernel_fit *fit;

    if (!size_vars(j, a, size, &here) || count <= 0 ||
        !(fit = calloc((size_t)count, sizeof(*fit))))
        return NULL;
    for (int i = 0; i < m->nparams; i++)
        if (launch_only(&m->params[i])) {
            lo[nlo++] = i;
            combos *= m->params[i].nvalues;
            if (combos > MAX_VARIANTS)
                combos = MAX_VARIANTS;
        }
    nk = fit_kernels(j, p, a, size, fit, count);
    for (int k = 0; k < nk; k++) {
        const atune_config *e = atune_profile_entry(p, fit[k].from);
        double c = exp(fit[k].logc / fit[k].n);
        atune__config cfg;
        atune__jit_config_from(m, e, &cfg);
        /* combination -1: the entry's own values */
        for (int64_t n = -1; n < combos; n++) {
            atune__config v = cfg;
            double b, q, pred;
            for (int x = 0, rest = (int)(n < 0 ? 0 : n); n >= 0 && x < nlo;
                 x++) {
                const atune__param *pa = &m->params[lo[x]];
                v.v[lo[x]] = pa->values[rest % pa->nvalues];
                rest /= pa->nvalues;
            }
            if ((q = modelled(j, &v, a, &here, &b)) <= 0)
                continue;
            pred = c * q;
            /* ties: fewer blocks (less to reduce), then the first */
            if (!best_e || pred < best_t * (1 - 1e-9) ||
                (pred <= best_t * (1 + 1e-9) && b < best_b)) {
                best_e = e;
                best_cfg = v;
                best_t = pred;
                best_b = b;
            }
        }
    }
    free(fit);
    if (!best_e)
        return NULL;
    *from = best_e;
    {
        atune__config own;
        atune__jit_config_from(m, best_e, &own);
        if (memcmp(own.v, best_cfg.v, sizeof(own.v[0]) * (size_t)m->nparams) ==
            0)
            return best_e;
    }
    return variant(j, best_e, &best_cfg);
}

/* The defaults, when they can run at size. */
static int defaults(atune_jit *j, const atune__devattr *a, const int64_t *size,
                    const atune_config **out)
{
    atune__config cfg;
    atune__launch l;

    *out = NULL;
    atune__jit_config_from(j->m, NULL, &cfg);
    return atune__jit_shape_of(j, &cfg, a, size, &l);
}

/* The configuration for size (values v), and how it was served:
 * *served is -1 for the looked-up entry at its exact size. */
static int choose(atune_jit *j, atune_profile *p, const char *size,
                  const int64_t *v, const atune__devattr *a,
                  const atune_config **out, char *msg, size_t len, int *served)
{
    const atune_config *c = NULL, *alt;
    char why[512];
    int rc;

    rc = p ? atune_profile_lookup(p, j->m->name, size, &c) : ATUNE_ENOTFOUND;
    if (rc == ATUNE_ENOTFOUND) {
        say(msg, len, "%s %s: no tuned entry%s; using the template's defaults",
            j->m->name, size, p ? "" : " (no profile)");
        *served = p ? ATUNE__SERVED_DEFAULTS : ATUNE__SERVED_NO_PROFILE;
        return defaults(j, a, v, out);
    }
    if (rc != ATUNE_OK)
        return atune__jit_fail(j, rc, "%s", atune_profile_errmsg(p));
    const int exact = atune_config_size_match(c) == ATUNE_SIZE_EXACT;
    const int far = !exact && distance(j, c, v) > FAR;
    if (!exact && (j->m->block_cost || far)) {
        const atune_config *from = NULL;
        char changed[256];
        if ((alt = by_waves(j, p, a, v, &from)) != NULL) {
            launch_changes(j, alt, from, changed, sizeof(changed));
            say(msg, len,
                "%s %s: %s (the nearest, %s, is %s); using the tuned "
                "entry of %s%s%s, the fastest predicted from the tuned "
                "entries' times and their grids' waves here",
                j->m->name, size, far ? "no tuned size near" : "not tuned",
                atune_config_size(c),
                far ? "more than a factor 4 away" : "within a factor 4",
                atune_config_size(from), *changed ? " with " : "", changed);
            *out = alt;
            *served = ATUNE__SERVED_NEAREST;
            return ATUNE_OK;
        }
    }
    if (usable(j, c, a, v, why, sizeof(why))) {
        double grow, alt_grow;
        alt = less_padded(j, p, c, a, v, &grow, &alt_grow);
        *out = alt ? alt : c;
        if (!alt) {
            *served = atune_config_size_match(c) == ATUNE_SIZE_EXACT
                          ? -1
                          : ATUNE__SERVED_NEAREST;
            atune_config_describe(p, c, msg ? msg : why,
                                  msg ? len : sizeof(why));
            return ATUNE_OK;
        }
        *served = ATUNE__SERVED_FALLBACK;
        say(msg, len,
            "%s %s: the tuned entry of %s (nearest) would launch %.0f%% "
            "more padded blocks here than at its own size; using the tuned "
            "entry of %s (%+.0f%%)",
            j->m->name, size, atune_config_size(c), 100 * (grow - 1),
            atune_config_size(alt), 100 * (alt_grow - 1));
        return ATUNE_OK;
    }
    {
        char changed[256];
        alt = relaunched(j, c, a, v, changed, sizeof(changed));
        if (alt) {
            say(msg, len,
                "%s %s: the tuned configuration of %s cannot run here (%s); "
                "using it with its launch at the defaults (%s)",
                j->m->name, size, atune_config_size(c), why, changed);
            *out = alt;
            *served = ATUNE__SERVED_FALLBACK;
            return ATUNE_OK;
        }
    }
    {
        const atune_config *from = NULL;
        char changed[256];
        alt = nearest_usable(j, p, c, a, v, &from, changed, sizeof(changed));
        if (alt) {
            say(msg, len,
                "%s %s: the tuned configuration of %s cannot run here (%s); "
                "using the tuned entry of %s%s%s%s",
                j->m->name, size, atune_config_size(c), why,
                atune_config_size(from),
                *changed ? " with its launch at the defaults (" : "", changed,
                *changed ? ")" : "");
            *out = alt;
            *served = ATUNE__SERVED_FALLBACK;
            return ATUNE_OK;
        }
    }
    say(msg, len,
        "%s %s: the tuned configuration of %s cannot run here (%s) and no "
        "other tuned entry can; using the template's defaults",
        j->m->name, size, atune_config_size(c), why);
    *served = ATUNE__SERVED_DEFAULTS;
    return defaults(j, a, v, out);
}

/* --- effort --------------------------------------------------------------- */

static const char *const effort_names[] = {"profile", "estimate", "measure",
                                           "patient"};
#define NEFFORTS (int)(sizeof(effort_names) / sizeof(effort_names[0]))

int atune_jit_set_effort(atune_jit *j, atune_jit_effort effort)
{
    if (!j)
        return ATUNE_EINVAL;
    j->msg[0] = '\0';
    if ((int)effort < 0 || (int)effort >= NEFFORTS)
        return atune__jit_fail(j, ATUNE_EINVAL, "no effort level %d",
                               (int)effort);
    j->effort = effort;
    j->effort_set = 1;
    return ATUNE_OK;
}

/* The handle's effort, else ATUNE_EFFORT's, else profile. */
static int effort_of(atune_jit *j, atune_jit_effort *out)
{
    const char *env = getenv("ATUNE_EFFORT");

    *out = ATUNE_JIT_EFFORT_PROFILE;
    if (j->effort_set) {
        *out = j->effort;
        return ATUNE_OK;
    }
    if (!env || !*env)
        return ATUNE_OK;
    for (int i = 0; i < NEFFORTS; i++) {
        if (strcmp(env, effort_names[i]) != 0)
            continue;
        *out = (atune_jit_effort)i;
        return ATUNE_OK;
    }
    return atune__jit_fail(j, ATUNE_EINVAL,
                           "ATUNE_EFFORT='%.64s' is not an effort level "
                           "(profile, estimate, measure, patient)",
                           env);
}

/* Appends to a message that say() wrote. */
static void say_more(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say_more(char *msg, size_t len, const char *fmt, ...)
{
    size_t used;
    va_list ap;

    if (!msg || len == 0)
        return;
    used = strnlen(msg, len);
    if (used + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(msg + used, len - used, fmt, ap);
    va_end(ap);
}

/* Counts the serving in the record, when recording: everything but an
 * exact tuned entry of this GPU model. */
static void record(atune_jit *j, const atune_profile *p, const int64_t *v,
                   int served, char *msg, size_t len)
{
    char gpu[ATUNE__RECORD_GPU_MAX], note[1400];

    if (!atune__jit_recording())
        return;
    atune__jit_gpu_model(j, p, gpu, sizeof(gpu));
    if (served < 0 && strcmp(atune_profile_device(p)->name, gpu) != 0)
        served = ATUNE__SERVED_OTHER_GPU;
    if (served >= 0 &&
        atune__jit_record(j, gpu, v, (atune__served)served, note, sizeof(note)))
        say_more(msg, len, "; %s", note);
}

/* Whether what choose() served is an exact tuned entry of this GPU model
 * (served -1 from a profile of the current context's GPU). */
static int exact_here(atune_jit *j, const atune_profile *p, int served)
{
    char gpu[ATUNE__RECORD_GPU_MAX];

    if (served >= 0)
        return 0;
    atune__jit_gpu_model(j, p, gpu, sizeof(gpu));
    return strcmp(atune_profile_device(p)->name, gpu) == 0;
}

int atune_jit_config_for(atune_jit *j, atune_profile *p, const char *size,
                         const atune_jit_attr *attr, const atune_config **out,
                         char *msg, size_t len)
{
    int64_t v[ATUNE__MAX_SIZE_VARS];
    atune_jit_effort effort;
    atune__devattr a;
    int rc, served = -1;

    say(msg, len, "%s", "");
    if (!j || !out)
        return ATUNE_EINVAL;
    *out = NULL;
    j->msg[0] = '\0';
    if (!j->m)
        return atune__jit_fail(j, ATUNE_EINVAL, "template did not open");
    if ((rc = atune__jit_size_values(j, size, v)) != 0 ||
        (rc = effort_of(j, &effort)) != 0)
        return rc;
    if (attr)
        atune__jit_attr_from_public(attr, &a);
    else
        atune__devattr_default(&a);
    /* profile and estimate choose alike: neither measures. */
    if ((rc = choose(j, p, size, v, &a, out, msg, len, &served)) != 0)
        return rc;
    if (effort >= ATUNE_JIT_EFFORT_MEASURE && !exact_here(j, p, served)) {
        const atune_config *learned = NULL;
        char note[1600];
        if (atune__jit_first_use(j, p, v, &a, effort, *out, &learned, note,
                                 sizeof(note))) {
            /* An exact entry of this GPU model now: nothing to record. */
            *out = learned;
            say(msg, len, "%s; effort %s", note, effort_names[effort]);
            return ATUNE_OK;
        }
        say_more(msg, len, "; effort %s: %s", effort_names[effort], note);
    } else {
        say_more(msg, len, "; effort %s", effort_names[effort]);
    }
    record(j, p, v, served, msg, len);
    return ATUNE_OK;
}
