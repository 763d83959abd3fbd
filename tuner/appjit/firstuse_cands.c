/* firstuse_cands.c -- which configurations race at first use
 * (firstuse.c): the defaults, what the profile serves, and the tuned
 * entries nearest to the size in the profile given, the user's and the
 * other profiles of the search path, each configuration once; then the
 * race's winner's one-step neighbours. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appjit/firstuse_internal.h"

int atune__fu_add(fu_run *r, const atune__config *cfg, const char *fmt, ...)
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
    /* compiled at the size measured (a name that reads it: one module per
     * size) */
    atune__config_at_values(m, &r->c[r->n].cfg, r->size);
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

void atune__fu_neighbours(fu_run *r, atune_profile *p, const int64_t *v, int n,
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
        atune__fu_add(r, &cfg, "the tuned entry of %s in %s '%s'",
                 atune_config_size(c), where, atune_profile_device(p)->name);
        added += r->n > before;
    }
    free(e);
}

/* The nearest entries of the other profiles on the search path
 * (atune_profile_search_path): other GPU models' winners near the size
 * are often good here too, and a GPU with no profile has nothing else. */
void atune__fu_search_path(fu_run *r, const char *skip1, const char *skip2,
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
                atune__fu_neighbours(r, q, v, NEIGHBOURS, "the profile of");
            atune_profile_close(q);
        }
        if (d)
            closedir(d);
    }
}

/* The one-step neighbours of w (each parameter's value before and after
 * its own in the manifest's list), at most POLISH; how many. */
static int neighbours_of(const atune__manifest *m, const atune__config *w,
                         atune__config *out)
{
    int n = 0;

    for (int p = 0; p < m->nparams; p++) {
        const atune__param *pa = &m->params[p];
        int at = 0;
        while (at < pa->nvalues && pa->values[at] != w->v[p])
            at++;
        for (int d = -1; d <= 1 && n < POLISH; d += 2) {
            if (at + d < 0 || at + d >= pa->nvalues)
                continue;
            out[n] = *w;
            out[n].v[p] = pa->values[at + d];
            n++;
        }
    }
    return n;
}

/* How many of candidate i's neighbours are not in the module cache. */
static int uncached_neighbours(fu_run *r, int i)
{
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames = atune__manifest_kernels(r->j->m, names);
    atune__config nb[POLISH];
    int n = neighbours_of(r->j->m, &r->c[i].cfg, nb), missing = 0;

    for (int k = 0; k < n; k++) /* each at the candidate's size */
        if (atune__space_index(r->j->m, &nb[k]) >= 0 &&
            !atune__jit_cache_has(r->j->cache, r->j->m, &nb[k], r->arch, names,
                                  nnames))
            missing++;
    return missing;
}

/* The candidate whose neighbours race: the fastest, unless another
 * within NEAR of it has every neighbour in the module cache: a process
 * explored there before, and the winner stays a candidate whichever
 * neighbourhood races. Which of two near-equal candidates times faster
 * changes from process to process; without this a warm call whose race
 * picked the other one compiled its neighbours (H200, 2026-11-26 14:03: 8
 * of 23 sizes over 100 ms warm, up to 322 ms). Within the winner's noise
 * only (3%, or twice its relative interquartile range), constmem at
 * w=1001,h=999 (6.4 us a launch) still compiled: 317 ms on an H100 at
 * 16:09, 384 ms on an H200 at 19:17. */
#define NEAR 1.10

static int polish_centre(fu_run *r)
{
    double bound = r->c[r->best].res.time_ns * NEAR;
    int centre = r->best;

    if (uncached_neighbours(r, r->best) == 0)
        return r->best;
    for (int i = 0; i < r->n; i++) {
        const cand *c = &r->c[i];
        if (i == r->best || !c->evaluated || c->res.status != ATUNE__ST_OK ||
            c->res.time_ns > bound)
            continue;
        if ((centre == r->best ||
             c->res.time_ns < r->c[centre].res.time_ns) &&
            uncached_neighbours(r, i) == 0)
            centre = i;
    }
    return centre;
}

double atune__fu_polish_budget_s(void)
{
    int64_t ms = POLISH_BUDGET_MS;

    if (atune__env_i64("ATUNE_MEASURE_MS", 0, 3600000, POLISH_BUDGET_MS,
                       "milliseconds", &ms, NULL))
        ms = POLISH_BUDGET_MS;
    return (double)ms / 1e3;
}

/* The neighbours of the race's winner race it: the tuned entries of other
 * sizes and GPU models put the race near this size's best, not always on
 * it (H200, 2026-11-26: copy at n = 77777777 96.2% of the brute-force
 * optimum with the race alone). Those the size's constraints rule out
 * are refused by the measurement, as any candidate. Those NVRTC would
 * compile are left out where the call's compiles, as the model of
 * firstuse_internal.h predicts them, pass ATUNE_MEASURE_MS. */
void atune__fu_add_neighbours(fu_run *r)
{
    const char *names[ATUNE__JIT_MAX_NAMES];
    int nnames = atune__manifest_kernels(r->j->m, names);
    atune__config nb[POLISH];
    int centre = polish_centre(r), n;
    size_t largest = 0;
    int over;

    for (int i = 0; i < r->n; i++)
        if (r->c[i].bytes > largest)
            largest = r->c[i].bytes;
    r->predicted_s = COMPILE_S_PER_KIB / 1024 *
                     ((double)largest + NEIGHBOUR_COST * (double)r->c[centre].bytes);
    over = r->predicted_s > atune__fu_polish_budget_s();
    n = neighbours_of(r->j->m, &r->c[centre].cfg, nb);
    r->cap = r->n + POLISH;
    for (int k = 0; k < n; k++) {
        if (over &&
            atune__space_index(r->j->m, &nb[k]) >= 0 &&
            !atune__jit_cache_has(r->j->cache, r->j->m, &nb[k], r->arch, names,
                                  nnames)) {
            r->left_out++;
            continue;
        }
        atune__fu_add(r, &nb[k], "a neighbour of %s",
                      centre == r->best ? "the race's winner"
                                        : "a near-equal of the race's winner");
    }
}
